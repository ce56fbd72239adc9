//! The sandbox's side panels: the players, the palette of tiles, the selected tile, the overlay
//! switches, and while a battle is shown its steps, result, log and legend.

use super::*;

impl Sandbox {
    pub(super) fn players_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
        let Some(board) = self.board().cloned() else {
            return;
        };
        ui.heading("Players");
        let armies: Vec<(String, String)> = catalog
            .armies()
            .iter()
            .map(|a| (a.id.clone(), a.name.clone()))
            .collect();
        for (i, p) in board.players.iter().enumerate() {
            let seat = Seat::new(i as u8);
            ui.horizontal(|ui| {
                let (r, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
                ui.painter()
                    .rect_filled(r, 3.0, board_view::seat_colour(seat));
                let picked = ui
                    .radio_value(&mut self.seat, i, hexforge_scenario::write::player_id(seat))
                    .clicked();
                if picked {
                    // The palette shows the picked player's army (another army stays one pick away).
                    self.army = Some(p.army.clone());
                }
                let mut army = p.army.clone();
                let named = ui.label("army");
                egui::ComboBox::from_id_salt(("sandbox_army", i))
                    .width(90.0)
                    .selected_text(&army)
                    .show_ui(ui, |ui| {
                        for (id, name) in &armies {
                            ui.selectable_value(&mut army, id.clone(), name);
                        }
                    })
                    .response
                    .labelled_by(named.id);
                if army != p.army {
                    if i == self.seat {
                        self.army = Some(army.clone());
                    }
                    self.edit(catalog, |b| {
                        b.players[i].army = army;
                        Ok(())
                    });
                }
            });
            ui.horizontal(|ui| {
                ui.add_space(20.0);
                let mut hp = p.hq_hp;
                let named = ui.label("HQ HP");
                ui.add(egui::DragValue::new(&mut hp).range(0..=99))
                    .labelled_by(named.id);
                if let Some(field) = self.built().and_then(|b| b.field.as_ref()) {
                    let on = hexforge_core::marker::MarkOn::Player(seat);
                    board_view::marker_chips(ui, board_view::marks_on(field, on));
                }
                let mut team = p.team;
                let named = ui.label("team");
                ui.add(egui::DragValue::new(&mut team).range(0..=3))
                    .labelled_by(named.id);
                if hp != p.hq_hp || team != p.team {
                    self.edit_merged(catalog, Some(format!("player {i}")), |b| {
                        b.players[i].hq_hp = hp;
                        b.players[i].team = team;
                        Ok(())
                    });
                }
            });
        }
        ui.horizontal(|ui| {
            if ui.button("Add a player").clicked() {
                let army = self.army.clone().unwrap_or_default();
                self.edit(catalog, |b| b.add_player(&army));
            }
            if ui.button("Remove the last player").clicked()
                && self.edit(catalog, |b| b.remove_player())
            {
                self.seat = self.seat.min(board.players.len().saturating_sub(2));
            }
        });
    }

    /// The board picker: every loaded board, built in or a mod's (docs/RULESETS.md, "Boards");
    /// picking one takes its hex markers along.
    pub(super) fn board_picker_ui(&mut self, ui: &mut egui::Ui, loaded: &LoadedMods) {
        let Some(board) = self.board().cloned() else {
            return;
        };
        let shown = board.kind.name().to_string();
        let mut picked: Option<&hexforge_content::Board> = None;
        ui.horizontal(|ui| {
            let named = ui.label("board");
            egui::ComboBox::from_id_salt("sandbox_board")
                .selected_text(shown.as_str())
                .show_ui(ui, |ui| {
                    for b in loaded.boards() {
                        let item = ui
                            .selectable_label(b.id == shown, b.id.as_str())
                            .on_hover_text(format!("{} ({}): {}", b.name, b.origin(), b.doc));
                        if item.clicked() {
                            picked = Some(b);
                        }
                    }
                })
                .response
                .labelled_by(named.id);
        });
        if let Some(next) = picked.filter(|b| b.id != shown) {
            let before = loaded.board(&shown).ok();
            self.edit(&loaded.catalog, |b| {
                b.set_board(next, before);
                Ok(())
            });
        }
    }

    /// The rules the board's battles are fought with (`crate::rules_panel`): they follow the
    /// board (an undo, a loaded scenario), and a change is an edit of the board.
    pub(super) fn rules_ui(&mut self, ui: &mut egui::Ui, loaded: &LoadedMods) {
        let Some(board) = self.board() else {
            return;
        };
        let now = board.rules.clone();
        self.rules.follow(&now, loaded);
        if let Some(rules) = self.rules.ui(ui, loaded, "sandbox_rules")
            && !self.edit(&loaded.catalog, |b| {
                b.rules = rules;
                Ok(())
            })
        {
            // The board refused the edit: the panel shows the board's rules again.
            self.rules.resync();
        }
    }

    pub(super) fn palette_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
        ui.heading("Tiles");
        let mut army = self.army.clone().unwrap_or_default();
        ui.horizontal(|ui| {
            let named = ui.label("Army of the tiles");
            egui::ComboBox::from_id_salt("sandbox_palette_army")
                .selected_text(&army)
                .show_ui(ui, |ui| {
                    for a in catalog.armies() {
                        ui.selectable_value(&mut army, a.id.clone(), &a.name);
                    }
                })
                .response
                .labelled_by(named.id);
        });
        self.army = Some(army.clone());
        ui.label("Click a tile, then a hex; or drag it onto the board.");
        let Some(a) = catalog.army(&army) else {
            return;
        };
        let fill = board_view::seat_colour(Seat::new(self.seat as u8));
        for t in &a.tiles {
            let tile = catalog.get(*t);
            if !tile.kind.is_board_tile() {
                continue;
            }
            let id = tile.full_id();
            let armed = self.armed.as_deref() == Some(id.as_str());
            let (rect, resp) = ui.allocate_exact_size(
                egui::vec2(ui.available_width(), 40.0),
                egui::Sense::click_and_drag(),
            );
            resp.widget_info(|| {
                egui::WidgetInfo::selected(egui::Role::Button, true, armed, &tile.name)
            });
            if armed || resp.hovered() {
                ui.painter()
                    .rect_filled(rect, 4.0, ui.visuals().widgets.hovered.bg_fill);
            }
            crate::tile_view::paint(
                ui.painter(),
                rect.left_center() + egui::vec2(22.0, 0.0),
                19.0,
                tile,
                0,
                fill,
            );
            ui.painter().text(
                rect.left_center() + egui::vec2(48.0, 0.0),
                egui::Align2::LEFT_CENTER,
                format!("{} ({})", tile.name, tile.kind.name()),
                egui::FontId::proportional(14.0),
                ui.visuals().text_color(),
            );
            if resp.clicked() {
                self.armed = if armed { None } else { Some(id.clone()) };
                self.aim = None;
            }
            if resp.drag_started() {
                self.carrying = Some(id);
            }
        }
    }

    /// The right side while editing: undo, the selected tile, overlays, instants, battle, files.
    pub(super) fn side_ui(
        &mut self,
        ui: &mut egui::Ui,
        catalog: &Catalog,
        scripts: &mut ScriptHost,
    ) {
        ui.horizontal(|ui| {
            let (can_undo, can_redo) = self
                .edits
                .as_ref()
                .map_or((false, false), |e| (e.can_undo(), e.can_redo()));
            if ui
                .add_enabled(can_undo, egui::Button::new("Undo"))
                .on_hover_text("Ctrl+Z")
                .clicked()
            {
                self.undo(catalog);
            }
            if ui
                .add_enabled(can_redo, egui::Button::new("Redo"))
                .on_hover_text("Ctrl+Shift+Z")
                .clicked()
            {
                self.redo(catalog);
            }
            if ui.button("Battle").clicked() {
                self.fight(catalog, scripts);
            }
        });
        // A space of its own, so the controls below never move as notes come and go.
        crate::spot::problem_area(ui, "sandbox_notes", |ui| {
            self.note_ui(ui);
            if let Some(built) = self.built()
                && !built.marks.is_empty()
            {
                ui.label(egui::RichText::new("Tiles the engine does not accept:").strong());
                for m in &built.marks {
                    ui.colored_label(egui::Color32::from_rgb(255, 110, 110), &m.message);
                }
            }
        });
        ui.separator();
        self.selected_ui(ui, catalog);
        ui.separator();
        ui.horizontal(|ui| {
            ui.label("Show");
            ui.checkbox(&mut self.overlays.nets, "nets");
            ui.checkbox(&mut self.overlays.links, "module links");
            ui.checkbox(&mut self.overlays.fire, "lines of fire");
        });
        ui.separator();
        self.instant_ui(ui, catalog, scripts);
        ui.separator();
        self.files_ui(ui, catalog, scripts);
    }

    pub(super) fn note_ui(&self, ui: &mut egui::Ui) {
        match &self.note {
            Some(Note::Info(t)) => {
                ui.label(t);
            }
            Some(Note::Error(t)) => {
                ui.colored_label(egui::Color32::from_rgb(255, 110, 110), t);
            }
            None => {}
        }
    }

    pub(super) fn selected_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
        let Some(hex) = self.selected else {
            ui.label("Click a tile on the board to select it; R / Shift+R or the mouse wheel turn it, Delete or a right click removes it.");
            return;
        };
        let Some(piece) = self
            .board()
            .and_then(|b| b.piece_at(hex).map(|i| b.pieces[i].clone()))
        else {
            self.selected = None;
            return;
        };
        let players = self.board().map_or(0, |b| b.players.len());
        let def = catalog.find(&piece.id).map(|t| catalog.get(t));
        let name = def.map_or("(not loaded)", |d| d.name.as_str());
        ui.label(egui::RichText::new(format!("Selected: {name} ({}) on {hex}", piece.id)).strong());
        ui.horizontal(|ui| {
            let named = ui.label("owner");
            let mut owner = piece.owner;
            let id = |i: usize| hexforge_scenario::write::player_id(Seat::new(i as u8));
            egui::ComboBox::from_id_salt("sandbox_owner")
                .width(60.0)
                .selected_text(id(owner))
                .show_ui(ui, |ui| {
                    for i in 0..players {
                        ui.selectable_value(&mut owner, i, id(i));
                    }
                })
                .response
                .labelled_by(named.id);
            if owner != piece.owner {
                self.edit(catalog, |b| b.set_owner(hex, owner));
            }
        });
        ui.horizontal(|ui| {
            let named = ui.label("wounds");
            let mut w = piece.wounds;
            ui.add(egui::DragValue::new(&mut w).range(0..=9))
                .labelled_by(named.id);
            if w != piece.wounds {
                self.edit_merged(catalog, Some(format!("wounds {hex}")), |b| {
                    b.set_wounds(hex, w)
                });
            }
            ui.label(format!("facing {}", piece.facing.name()));
            if ui
                .button("Turn left")
                .on_hover_text("Turn anticlockwise (Shift+R)")
                .clicked()
            {
                self.edit(catalog, |b| b.rotate(hex, -1));
            }
            if ui
                .button("Turn right")
                .on_hover_text("Turn clockwise (R)")
                .clicked()
            {
                self.edit(catalog, |b| b.rotate(hex, 1));
            }
            if ui.button("Remove").clicked() && self.edit(catalog, |b| b.remove(hex)) {
                self.selected = None;
            }
        });
        let field = self.built().and_then(|b| b.field.as_ref());
        if let Some((field, cell)) = field.and_then(|f| Some((f, f.shape().cell(hex)?))) {
            let on_tile = board_view::marks_on(field, hexforge_core::marker::MarkOn::Tile(cell));
            let on_hex = board_view::marks_on(field, hexforge_core::marker::MarkOn::Hex(cell));
            let lines: Vec<_> = on_tile
                .map(|m| ("", m))
                .chain(on_hex.map(|m| ("on the hex: ", m)))
                .collect();
            if lines.is_empty() {
                ui.label("Markers: none");
            } else {
                ui.label("Markers:");
                for (place, m) in lines {
                    ui.colored_label(
                        board_view::marker_colour(m),
                        format!("  {place}{}", board_view::marker_details(m)),
                    );
                }
            }
        }
    }

    /// The right side during a battle: stepping, the result and the log.
    pub(super) fn battle_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
        let Some(run) = &mut self.battle else {
            return;
        };
        let last = run.steps.len().saturating_sub(1);
        run.at = run.at.min(last);
        let before = run.at;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(run.at > 0, egui::Button::new("Start"))
                .clicked()
            {
                run.at = 0;
            }
            let word = run.step_word;
            if ui
                .add_enabled(run.at > 0, egui::Button::new(format!("Previous {word}")))
                .clicked()
            {
                run.at -= 1;
            }
            if ui
                .add_enabled(run.at < last, egui::Button::new(format!("Next {word}")))
                .clicked()
            {
                run.at += 1;
            }
            if ui
                .add_enabled(run.at < last, egui::Button::new("End"))
                .clicked()
            {
                run.at = last;
            }
        });
        let Some(step) = run.steps.get(run.at) else {
            return;
        };
        ui.label(
            egui::RichText::new(format!("{} ({} of {})", step.title, run.at + 1, last + 1))
                .strong(),
        );
        ui.label(egui::RichText::new("Result").strong());
        for line in &run.result {
            ui.label(line);
        }
        let mut back = false;
        let mut keep = false;
        ui.horizontal(|ui| {
            back = ui.button("Back to editing").clicked();
            keep = if run.step_word == "step" {
                ui.button("Keep this board").clicked()
            } else {
                ui.button("Keep the result").clicked()
            };
        });
        ui.separator();
        let lines = step.lines.clone();
        let changed = before != run.at || self.scroll_to_step;
        self.scroll_to_step = false;
        let log = &run.log;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (i, line) in log.iter().enumerate() {
                    let text = egui::RichText::new(line).monospace();
                    let shown = if lines.contains(&i) {
                        // Wrapped lines keep one background: the label's frame, not the text's.
                        egui::Frame::new()
                            .fill(egui::Color32::from_rgb(70, 60, 20))
                            .show(ui, |ui| {
                                ui.set_width(ui.available_width());
                                ui.label(text.color(egui::Color32::WHITE))
                            })
                            .inner
                    } else {
                        ui.label(text)
                    };
                    if changed && i == lines.start {
                        shown.scroll_to_me(Some(egui::Align::TOP));
                    }
                }
            });
        if keep {
            // A battle's result, or the board of the scenario step shown.
            let after = if run.step_word == "step" {
                step.field.clone()
            } else {
                run.after.clone()
            };
            if let Some(e) = &mut self.edits {
                let board = e.board().clone();
                e.replace(
                    Board::from_field(&after, catalog, &board.armies(), &board.rules),
                    catalog,
                );
            }
            self.battle = None;
            self.selected = None;
            self.note = Some(Note::Info(
                "The board is now the one shown (Undo takes it back).".to_string(),
            ));
        } else if back {
            self.battle = None;
        }
    }
}

/// What the colours of a battle step mean.
pub(super) fn legend_ui(ui: &mut egui::Ui) {
    ui.heading("Battle");
    ui.add(egui::Label::new("The board as the phase starts, and what the phase does:").wrap());
    let rows = [
        (
            board_view::attack_colour(hexforge_core::AttackKind::Melee),
            "melee attack (number: wounds dealt)",
        ),
        (
            board_view::attack_colour(hexforge_core::AttackKind::Ranged),
            "ranged attack",
        ),
        (
            board_view::attack_colour(hexforge_core::AttackKind::Pierce),
            "piercing shot",
        ),
        (
            board_view::attack_colour(hexforge_core::AttackKind::Explosion),
            "explosion",
        ),
        (egui::Color32::from_rgb(255, 80, 80), "wounded"),
        (egui::Color32::from_rgb(90, 200, 255), "absorbed by a Medic"),
        (
            egui::Color32::from_rgb(255, 40, 40),
            "removed at the phase's end",
        ),
        (egui::Color32::from_rgb(255, 220, 90), "HQ damage"),
        (
            egui::Color32::from_rgb(120, 255, 140),
            "+ marker put in the phase",
        ),
        (
            egui::Color32::from_rgb(255, 150, 150),
            "- marker taken off in the phase",
        ),
        (
            board_view::MOD_MARKER,
            "a mod's marker (hover for how long)",
        ),
        (
            board_view::ENGINE_MARKER,
            "a marker the engine reads (with a diamond); `hex:` a hex's",
        ),
    ];
    for (colour, text) in rows {
        ui.horizontal(|ui| {
            let (r, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
            ui.painter().rect_filled(r, 3.0, colour);
            ui.label(text);
        });
    }
    ui.separator();
    ui.add(
        egui::Label::new("Back to editing returns to the board before the battle; Keep the result makes the board the one the battle left (Undo takes it back).").wrap(),
    );
}
