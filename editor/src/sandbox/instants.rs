//! Instants on the sandbox board: picking an instant tile, clicking its targets, and playing it
//! through the engine's `resolve_play` (a refusal shows the engine's reason).

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
        let wanted = targets_wanted(effect);
        let seat = hexforge_scenario::write::player_id(Seat::new(self.seat as u8));
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
        let Some(edits) = &mut self.edits else {
            return;
        };
        let mut field = match edits.built().complete() {
            Ok(f) => f.clone(),
            Err(why) => {
                self.note = Some(Note::Error(format!(
                    "No instant until the board is whole:\n{why}"
                )));
                return;
            }
        };
        let board = edits.board().clone();
        let ctx = Context {
            catalog,
            rules: &board.rules,
        };
        let ids: Vec<String> = field
            .players()
            .map(hexforge_scenario::write::player_id)
            .collect();
        let names = hexforge_scenario::log::Names::new(&field, ctx, |_| None, &ids);
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
                edits.replace(
                    Board::from_field(&field, catalog, &board.armies(), &board.rules),
                    catalog,
                );
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
    }
}
