//! Instants on the sandbox board: picking an instant tile, clicking its targets, and playing it
//! through the engine's `resolve_play`, or a scripted instant through its hooks on a target they
//! list (a refusal shows the engine's reason, a script's error its line).

use super::*;

impl Sandbox {
    pub(super) fn instant_ui(
        &mut self,
        ui: &mut egui::Ui,
        catalog: &Catalog,
        scripts: &mut ScriptHost,
    ) {
        ui.label(egui::RichText::new("Play an instant").strong());
        let army = self.army.clone().unwrap_or_default();
        let instants: Vec<TileRef> = catalog
            .army(&army)
            .map(|a| {
                a.tiles
                    .iter()
                    .copied()
                    .filter(|t| catalog.get(*t).instant.is_some())
                    .collect()
            })
            .unwrap_or_default();
        if instants.is_empty() {
            ui.label(format!("{army} has no instant tiles."));
            return;
        }
        ui.horizontal_wrapped(|ui| {
            for t in &instants {
                let tile = catalog.get(*t);
                let id = tile.full_id();
                let on = self.aim.as_ref().is_some_and(|a| a.id == id);
                if ui
                    .selectable_label(on, format!("{} instant", tile.name))
                    .clicked()
                {
                    self.aim = (!on).then(|| Aim {
                        id,
                        targets: Vec::new(),
                        facing: None,
                        listed: Listed::default(),
                    });
                    self.armed = None;
                }
            }
        });
        let Some(aim) = self.aim.clone() else {
            return;
        };
        let Some(effect) = catalog.find(&aim.id).and_then(|t| catalog.get(t).instant) else {
            self.aim = None;
            return;
        };
        let seat = hexforge_scenario::write::player_id(Seat::new(self.seat as u8));
        if effect == InstantEffect::Scripted {
            self.scripted_ui(ui, catalog, scripts, &seat);
            return;
        }
        let wanted = targets_wanted(effect);
        if wanted.is_empty() {
            ui.label(format!("Played by {seat}: a battle."));
        } else {
            let done: Vec<String> = wanted
                .iter()
                .zip(&aim.targets)
                .map(|(w, h)| format!("{w} {h}"))
                .collect();
            let next = wanted
                .get(aim.targets.len())
                .map_or(String::new(), |w| format!("; click the {w}"));
            ui.label(format!("Played by {seat}: {}{next}", done.join(", ")));
        }
        if effect == InstantEffect::Move {
            let mut facing = aim.facing;
            ui.horizontal(|ui| {
                let named = ui.label("then facing");
                let name = |f: Option<Dir>| f.map_or("as it was", Dir::name);
                egui::ComboBox::from_id_salt("sandbox_move_facing")
                    .selected_text(name(facing))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut facing, None, name(None));
                        for d in Dir::ALL {
                            ui.selectable_value(&mut facing, Some(d), d.name());
                        }
                    })
                    .response
                    .labelled_by(named.id);
            });
            if let Some(a) = &mut self.aim {
                a.facing = facing;
            }
        }
        ui.horizontal(|ui| {
            if ui
                .add_enabled(
                    aim.targets.len() == wanted.len(),
                    egui::Button::new("Play it"),
                )
                .clicked()
            {
                self.play(catalog, scripts, &aim, effect);
            }
            if ui.button("Cancel").clicked() {
                self.aim = None;
            }
        });
    }

    /// A scripted instant aimed: its targets as its scripts list them on the board now (drawn on
    /// the board, where a click picks one), and "Play it" once one is picked (or at once when it
    /// is played with no target).
    fn scripted_ui(
        &mut self,
        ui: &mut egui::Ui,
        catalog: &Catalog,
        scripts: &mut ScriptHost,
        seat: &str,
    ) {
        let Some(aim) = self.aim.clone() else {
            return;
        };
        let listed = self.listed(catalog, scripts, &aim.id);
        let text = match (&listed.problem, aim.targets.first()) {
            (Some(why), _) => format!("Played by {seat}: no targets.\n{why}"),
            (None, Some(h)) => format!("Played by {seat} on {h}."),
            (None, None) if listed.hexes.is_empty() && listed.none => {
                format!("Played by {seat}, with no target.")
            }
            (None, None) if listed.hexes.is_empty() => {
                format!("Played by {seat}: its script lists no target now.")
            }
            (None, None) => format!(
                "Played by {seat}: click one of the {} hexes its script lists{}",
                listed.hexes.len(),
                if listed.none {
                    ", or play it with no target"
                } else {
                    ""
                }
            ),
        };
        ui.label(text);
        let ready = listed.problem.is_none()
            && match aim.targets.first() {
                Some(h) => listed.hexes.contains(h),
                None => listed.none,
            };
        if let Some(a) = &mut self.aim {
            a.listed = listed;
        }
        ui.horizontal(|ui| {
            if ui
                .add_enabled(ready, egui::Button::new("Play it"))
                .clicked()
                && let Some(aim) = self.aim.clone()
            {
                self.play_scripted(catalog, scripts, &aim);
            }
            if ui.button("Cancel").clicked() {
                self.aim = None;
            }
        });
    }

    /// The targets the scripted instant `id` of the current seat has on the board now.
    fn listed(&self, catalog: &Catalog, scripts: &mut ScriptHost, id: &str) -> Listed {
        let (Some(edits), Some(tile)) = (&self.edits, catalog.find(id)) else {
            return Listed::default();
        };
        let field = match edits.built().complete() {
            Ok(f) => f,
            Err(why) => {
                return Listed {
                    problem: Some(format!("No instant until the board is whole:\n{why}")),
                    ..Listed::default()
                };
            }
        };
        let ctx = Context {
            catalog,
            rules: &edits.board().rules,
        };
        // The same list every frame: the scripts start from the same seed.
        scripts.reseed(0);
        match hexforge_core::instant::targets(field, ctx, Seat::new(self.seat as u8), tile, scripts)
        {
            Ok(t) => Listed {
                hexes: t.hexes(field.shape()).collect(),
                none: t.none,
                problem: None,
            },
            Err(e) => Listed {
                problem: Some(e.message),
                ..Listed::default()
            },
        }
    }

    /// The board being edited, whole, and its settings, for an instant to be played on; `None`
    /// (with a note saying why) while the board is not whole.
    fn whole_board(&mut self) -> Option<(Battlefield, Board)> {
        let edits = self.edits.as_mut()?;
        match edits.built().complete() {
            Ok(f) => Some((f.clone(), edits.board().clone())),
            Err(why) => {
                self.note = Some(Note::Error(format!(
                    "No instant until the board is whole:\n{why}"
                )));
                None
            }
        }
    }

    /// Plays the aimed scripted instant through the engine: its `play` hooks on the target
    /// picked, then their effects at once, as a game plays it.
    fn play_scripted(&mut self, catalog: &Catalog, scripts: &mut ScriptHost, aim: &Aim) {
        let Some(tile) = catalog.find(&aim.id) else {
            return;
        };
        let Some((mut field, board)) = self.whole_board() else {
            return;
        };
        let ctx = Context {
            catalog,
            rules: &board.rules,
        };
        let names = log_names(&field, ctx);
        let name = catalog.get(tile).name.clone();
        let seat = Seat::new(self.seat as u8);
        let target = aim.targets.first().and_then(|h| field.shape().cell(*h));
        scripts.reseed(0);
        let mut events: Vec<Event> = Vec::new();
        let played = hexforge_core::instant::asked(&field, ctx, seat, tile, target, scripts)
            .and_then(|effects| {
                hexforge_core::battle::resolve_effects(
                    &mut field,
                    ctx,
                    scripts,
                    &mut DefaultPolicy,
                    &mut events,
                    &effects,
                )
            });
        match played {
            Ok(()) => {
                let lines: Vec<String> = events.iter().filter_map(|e| names.describe(e)).collect();
                if let Some(edits) = &mut self.edits {
                    edits.replace(
                        Board::from_field(&field, catalog, &board.armies(), &board.rules),
                        catalog,
                    );
                }
                self.note = Some(Note::Info(if lines.is_empty() {
                    format!("{name}: nothing happened")
                } else {
                    format!("{name}: {}", lines.join("; "))
                }));
                self.aim = None;
            }
            Err(e) => self.note = Some(Note::Error(format!("{name}: {}", e.message))),
        }
    }

    /// Plays the aimed instant through the engine (a Battle instant fights a battle).
    pub(super) fn play(
        &mut self,
        catalog: &Catalog,
        scripts: &mut ScriptHost,
        aim: &Aim,
        effect: InstantEffect,
    ) {
        let t = &aim.targets;
        let play = match (effect, t.as_slice()) {
            (InstantEffect::Battle, _) => {
                self.aim = None;
                self.fight(catalog, scripts);
                return;
            }
            (InstantEffect::Move, [unit, to]) => Play::Move {
                unit: *unit,
                to: *to,
                facing: aim.facing,
                instant: true,
            },
            (InstantEffect::Push, [pusher, target, to]) => Play::Push {
                pusher: *pusher,
                target: *target,
                to: *to,
            },
            (InstantEffect::Wound { wounds }, [target]) => Play::Wound {
                target: *target,
                wounds,
            },
            (InstantEffect::DestroyNearHq, [target]) => Play::DestroyNearHq { target: *target },
            (InstantEffect::Area { wounds, radius }, [at]) => Play::Area {
                at: *at,
                wounds,
                radius,
            },
            _ => return,
        };
        let Some((mut field, board)) = self.whole_board() else {
            return;
        };
        let ctx = Context {
            catalog,
            rules: &board.rules,
        };
        let names = log_names(&field, ctx);
        let mut turn = Turn::new(Seat::new(self.seat as u8));
        let mut events: Vec<Event> = Vec::new();
        let name = catalog
            .find(&aim.id)
            .map_or(aim.id.clone(), |r| catalog.get(r).name.clone());
        match hexforge_core::resolve_play(
            &mut field,
            ctx,
            &mut turn,
            &play,
            &mut DefaultPolicy,
            &mut events,
        ) {
            Ok(()) => {
                let lines: Vec<String> = events.iter().filter_map(|e| names.describe(e)).collect();
                if let Some(edits) = &mut self.edits {
                    edits.replace(
                        Board::from_field(&field, catalog, &board.armies(), &board.rules),
                        catalog,
                    );
                }
                self.note = Some(Note::Info(format!("{name}: {}", lines.join("; "))));
                self.aim = None;
            }
            Err(e) => self.note = Some(Note::Error(format!("{name}: {}", e.reason))),
        }
    }
}

/// The hexes an instant needs, named in the order they are clicked.
pub(super) fn targets_wanted(effect: InstantEffect) -> Vec<&'static str> {
    match effect {
        InstantEffect::Battle => vec![],
        InstantEffect::Move => vec!["unit", "hex to move to"],
        InstantEffect::Push => vec!["pusher", "unit to push", "hex to push it to"],
        InstantEffect::Wound { .. } | InstantEffect::DestroyNearHq => vec!["target"],
        InstantEffect::Area { .. } => vec!["centre hex"],
        // One of the hexes its script lists (`scripted_ui`), or none.
        InstantEffect::Scripted => vec!["target"],
    }
}

/// The names the log gives the tiles and players of `field`.
fn log_names(field: &Battlefield, ctx: Context<'_>) -> hexforge_log::Names {
    let ids: Vec<String> = field
        .players()
        .map(hexforge_scenario::write::player_id)
        .collect();
    hexforge_log::Names::new(field, ctx, |_| None, &ids)
}
