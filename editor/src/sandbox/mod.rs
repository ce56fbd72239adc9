//! The sandbox board: tiles of any loaded army placed for any side, and test battles stepped
//! through phase by phase with the engine's events.
//!
//! The board state and its undo history live in [`board`], the stepped battle in [`battle`]; this
//! module is the view: players and palette on the left, the board in the middle, the selected
//! tile, overlays, instants, battle and scenario files on the right. Every rule question (is this
//! placement legal, who is netted, what does the battle do, may this instant be played) goes to
//! the engine.

pub mod battle;
pub mod board;

use crate::board_view::{self, Layout};
use board::{Board, BoardKind, Edits};
use hexforge_content::{Diagnostic, LoadedMods};
use hexforge_core::battle::Context;
use hexforge_core::tile::InstantEffect;
use hexforge_core::{
    AbilityHooks, Battlefield, Catalog, DefaultPolicy, Dir, Event, Game, Hex, Play, Preset, Rules,
    Seat, TileRef, Turn,
};
use hexforge_script::ScriptHost;
use std::path::{Path, PathBuf};

/// Which overlays are drawn on the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlays {
    pub nets: bool,
    pub links: bool,
    pub fire: bool,
}

/// An instant being aimed: its tile and the hexes clicked so far.
#[derive(Clone, Debug, PartialEq)]
struct Aim {
    id: String,
    targets: Vec<Hex>,
    /// The facing a moved unit ends with (`None` keeps its facing).
    facing: Option<Dir>,
}

/// What a message line says: news or a refusal.
#[derive(Clone, Debug, PartialEq)]
enum Note {
    Info(String),
    Error(String),
}

/// The sandbox's board and what the designer is doing on it.
#[derive(Default)]
pub struct Sandbox {
    /// The board and its history (made on the first frame, when the content is known).
    edits: Option<Edits>,
    /// The seat the palette places tiles for.
    pub seat: usize,
    /// The army shown in the palette.
    pub army: Option<String>,
    /// The palette tile a click on a hex places (full id).
    pub armed: Option<String>,
    /// The palette tile being dragged onto the board.
    carrying: Option<String>,
    /// The hex of the selected tile.
    pub selected: Option<Hex>,
    /// The hex of the placed tile being dragged.
    dragging: Option<Hex>,
    pub overlays: Overlays,
    aim: Option<Aim>,
    /// The battle shown, if one was fought.
    battle: Option<battle::Run>,
    /// The log line to bring into view (after a step changed).
    scroll_to_step: bool,
    /// The scenario file to save to or load from.
    pub path: String,
    /// The name written into saved scenario files.
    pub title: String,
    note: Option<Note>,
    /// The problems of the last scenario file that failed to load.
    problems: Vec<Diagnostic>,
    /// Scroll not yet turned into a rotation.
    scrolled: f32,
    /// The step of a battle to fight again with new content, on the next frame.
    refight: Option<usize>,
    /// The board's layout in the last frame (to find the hex under the pointer).
    layout: Option<Layout>,
    /// The engine's ranged attacks on the board as it is (for the lines of fire), by board version.
    fire: Option<(u64, Vec<battle::Attack>)>,
}

/// How many points of scroll turn a tile by one sixth.
const SCROLL_STEP: f32 = 40.0;

impl Sandbox {
    /// The sandbox in the central area of `ui`.
    pub fn ui(&mut self, ui: &mut egui::Ui, loaded: &LoadedMods, scripts: &mut ScriptHost) {
        let catalog = &loaded.catalog;
        if self.edits.is_none() {
            self.edits = Some(Edits::new(Board::new(catalog), catalog));
        }
        if self.army.as_ref().is_none_or(|a| catalog.army(a).is_none()) {
            self.army = catalog.armies().first().map(|a| a.id.clone());
        }
        if self.title.is_empty() {
            self.title = "Sandbox board".to_string();
        }
        if self.path.is_empty() {
            self.path = "sandbox.toml".to_string();
        }
        if let Some(at) = self.refight.take() {
            self.fight(catalog, scripts);
            match &mut self.battle {
                Some(run) => {
                    run.at = at.min(run.steps.len().saturating_sub(1));
                    self.note = Some(Note::Info(
                        "The content changed: the battle was fought again with the new data."
                            .to_string(),
                    ));
                }
                None => {
                    if let Some(Note::Error(e)) = &self.note {
                        self.note = Some(Note::Error(format!(
                            "The content changed and the battle could not be fought again: {e}"
                        )));
                    }
                }
            }
        }
        egui::Panel::left("sandbox_left")
            .default_size(270.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    if self.battle.is_some() {
                        legend_ui(ui);
                    } else {
                        self.players_ui(ui, catalog);
                        ui.separator();
                        self.palette_ui(ui, catalog);
                    }
                })
            });
        egui::Panel::right("sandbox_right")
            .default_size(360.0)
            .show(ui, |ui| {
                if self.battle.is_some() {
                    self.note_ui(ui);
                    self.battle_ui(ui, catalog);
                } else {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        self.side_ui(ui, catalog, scripts);
                    });
                }
            });
        egui::CentralPanel::default().show(ui, |ui| self.board_ui(ui, catalog, scripts));
        self.keys(ui, catalog);
        if ui.input(|i| i.pointer.any_released()) {
            self.carrying = None;
        }
    }

    /// The content was reloaded: tiles follow their ids into `catalog`.
    pub fn content_changed(&mut self, catalog: &Catalog) {
        if let Some(e) = &mut self.edits {
            e.content_changed(catalog);
        }
        self.fire = None;
        // The battle shown refers to the old definitions: it is fought again with the new ones
        // on the next frame (which has the new scripts), at the same step.
        if let Some(run) = self.battle.take() {
            self.refight = Some(run.at);
        }
    }

    /// Puts the board of `game` (a replay's step) on the sandbox.
    pub fn open_game(&mut self, game: &Game) {
        let catalog = game.catalog();
        let armies: Vec<String> = game
            .field()
            .players()
            .map(|p| game.army(p).to_string())
            .collect();
        let board = Board::from_field(game.field(), catalog, &armies, game.rules());
        self.battle = None;
        self.selected = None;
        self.fire = None;
        match &mut self.edits {
            Some(e) => e.replace(board, catalog),
            None => self.edits = Some(Edits::new(board, catalog)),
        }
        self.note = Some(Note::Info(
            "The replay's board is on the sandbox.".to_string(),
        ));
    }

    /// Puts `board` on the sandbox, as one undoable edit.
    pub fn set_board(&mut self, board: Board, catalog: &Catalog) {
        self.battle = None;
        self.selected = None;
        match &mut self.edits {
            Some(e) => e.replace(board, catalog),
            None => self.edits = Some(Edits::new(board, catalog)),
        }
    }

    /// Presses Battle: the engine resolves a battle on the board, which the sandbox then shows
    /// step by step. The error is why there is no battle (as the sandbox shows it).
    pub fn start_battle(
        &mut self,
        catalog: &Catalog,
        scripts: &mut ScriptHost,
    ) -> Result<(), String> {
        self.fight(catalog, scripts);
        match (&self.battle, &self.note) {
            (Some(_), _) => Ok(()),
            (None, Some(Note::Error(e))) => Err(e.clone()),
            (None, _) => Err("no board yet".to_string()),
        }
    }

    /// The battle shown, to step through it.
    pub fn battle_mut(&mut self) -> Option<&mut battle::Run> {
        self.battle.as_mut()
    }

    /// The board as the designer set it up (`None` before the first frame).
    pub fn board(&self) -> Option<&Board> {
        self.edits.as_ref().map(Edits::board)
    }

    /// The engine's field of the board and the tiles it refused.
    pub fn built(&self) -> Option<&board::Built> {
        self.edits.as_ref().map(Edits::built)
    }

    /// The result lines of the battle shown.
    pub fn battle_result(&self) -> Option<&[String]> {
        self.battle.as_ref().map(|b| b.result.as_slice())
    }

    /// Where the centre of `hex` was drawn in the last frame (for tests that click the board).
    pub fn hex_pos(&self, hex: Hex) -> Option<egui::Pos2> {
        self.layout.map(|l| l.centre(hex))
    }

    /// Applies an edit to the board; a refusal becomes the message shown.
    fn edit(
        &mut self,
        catalog: &Catalog,
        f: impl FnOnce(&mut Board) -> Result<(), String>,
    ) -> bool {
        self.edit_merged(catalog, None, f)
    }

    /// [`Sandbox::edit`] of a value dragged or typed: edits in a row with the same `merge` key
    /// are one undo step.
    fn edit_merged(
        &mut self,
        catalog: &Catalog,
        merge: Option<String>,
        f: impl FnOnce(&mut Board) -> Result<(), String>,
    ) -> bool {
        let Some(e) = &mut self.edits else {
            return false;
        };
        match e.edit_merged(catalog, merge, f) {
            Ok(()) => {
                self.note = None;
                true
            }
            Err(msg) => {
                self.note = Some(Note::Error(msg));
                false
            }
        }
    }

    fn players_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
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
                ui.radio_value(&mut self.seat, i, hexforge_scenario::write::player_id(seat));
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
        ui.horizontal(|ui| {
            let mut kind = board.kind;
            ui.radio_value(&mut kind, BoardKind::Standard, "standard");
            ui.radio_value(&mut kind, BoardKind::Extended, "extended");
            if kind != board.kind {
                self.edit(catalog, |b| {
                    b.kind = kind;
                    Ok(())
                });
            }
        });
        ui.horizontal(|ui| {
            let named = ui.label("rules");
            let mut preset = board.rules.preset;
            egui::ComboBox::from_id_salt("sandbox_preset")
                .selected_text(preset.as_str())
                .show_ui(ui, |ui| {
                    for p in [Preset::Classic, Preset::V3, Preset::V2025] {
                        ui.selectable_value(&mut preset, p, p.as_str());
                    }
                })
                .response
                .labelled_by(named.id);
            if preset != board.rules.preset {
                self.edit(catalog, |b| {
                    b.rules = Rules::preset(preset);
                    Ok(())
                });
            }
        });
    }

    fn palette_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
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
    fn side_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog, scripts: &mut ScriptHost) {
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
        self.note_ui(ui);
        if let Some(built) = self.built()
            && !built.marks.is_empty()
        {
            ui.label(egui::RichText::new("Tiles the engine does not accept:").strong());
            for m in &built.marks {
                ui.colored_label(egui::Color32::from_rgb(255, 110, 110), &m.message);
            }
        }
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

    fn note_ui(&self, ui: &mut egui::Ui) {
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

    fn selected_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
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
    }

    fn instant_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog, scripts: &mut ScriptHost) {
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
    fn play(
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

    fn files_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog, scripts: &mut ScriptHost) {
        ui.label(egui::RichText::new("Scenario file").strong());
        ui.horizontal(|ui| {
            let named = ui.label("name");
            ui.add(egui::TextEdit::singleline(&mut self.title).desired_width(220.0))
                .labelled_by(named.id);
        });
        ui.horizontal(|ui| {
            let named = ui.label("path");
            ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(220.0))
                .labelled_by(named.id);
        });
        ui.horizontal(|ui| {
            if ui.button("Save as scenario").clicked() {
                self.save(catalog, scripts);
            }
            if ui.button("Load scenario").clicked() {
                self.load(catalog);
            }
        });
        if !self.problems.is_empty() {
            ui.label(egui::RichText::new("The scenario file has problems:").strong());
            for p in &self.problems {
                ui.colored_label(egui::Color32::from_rgb(255, 110, 110), p.to_string());
            }
        }
    }

    /// Writes the board as a scenario file at `path` (its expectations: what a battle gives now).
    fn save(&mut self, catalog: &Catalog, scripts: &mut ScriptHost) {
        let Some(edits) = &self.edits else {
            return;
        };
        let field = match edits.built().complete() {
            Ok(f) => f,
            Err(why) => {
                self.note = Some(Note::Error(format!(
                    "Not saved: the board has tiles the engine does not accept:\n{why}"
                )));
                return;
            }
        };
        let board = edits.board();
        let armies = board.armies();
        let armies: Vec<&str> = armies.iter().map(String::as_str).collect();
        let ctx = Context {
            catalog,
            rules: &board.rules,
        };
        scripts.reseed(0);
        let text = match hexforge_scenario::write::scenario_text(
            field,
            ctx,
            &armies,
            scripts,
            &self.title,
            board.kind.name(),
        ) {
            Ok(t) => t,
            Err(e) => {
                self.note = Some(Note::Error(format!(
                    "Not saved: the board's battle stopped: {e}"
                )));
                return;
            }
        };
        let path = PathBuf::from(self.path.trim());
        self.note = Some(match write_atomically(&path, &text) {
            Ok(()) => Note::Info(format!("Saved {}", path.display())),
            Err(e) => Note::Error(format!("Not saved: {}: {e}", path.display())),
        });
    }

    /// Loads the scenario file at `path` onto the board (as one undoable edit).
    fn load(&mut self, catalog: &Catalog) {
        let path = PathBuf::from(self.path.trim());
        let s = match hexforge_scenario::load_scenario(&path, catalog) {
            Ok(s) => s,
            Err(d) => {
                self.problems = d.0;
                self.note = Some(Note::Error(format!(
                    "{} was not loaded: see its problems below.",
                    path.display()
                )));
                return;
            }
        };
        self.problems.clear();
        let field = match Battlefield::new(s.setup.clone(), catalog) {
            Ok(f) => f,
            Err(e) => {
                self.note = Some(Note::Error(format!(
                    "{}: the engine refuses its board: {e}",
                    path.display()
                )));
                return;
            }
        };
        let board = Board::from_field(&field, catalog, &s.armies, &s.rules);
        if let Some(e) = &mut self.edits {
            e.replace(board, catalog);
        }
        self.title = s.name.clone();
        self.selected = None;
        // A file without steps fights one battle: what Battle does here.
        let steps = if s.steps.is_empty() || s.steps == [hexforge_scenario::file::Step::Battle] {
            String::new()
        } else {
            format!(
                " (its board only: its {} steps are for `hexforge scenario`)",
                s.steps.len()
            )
        };
        self.note = Some(Note::Info(format!("Loaded {}{steps}", path.display())));
    }

    /// Resolves a battle on the board with the engine.
    fn fight(&mut self, catalog: &Catalog, scripts: &mut ScriptHost) {
        let Some(edits) = &self.edits else {
            return;
        };
        let field = match edits.built().complete() {
            Ok(f) => f,
            Err(why) => {
                self.note = Some(Note::Error(format!(
                    "No battle until these tiles are removed or fixed:\n{why}"
                )));
                return;
            }
        };
        let board = edits.board();
        let ctx = Context {
            catalog,
            rules: &board.rules,
        };
        match battle::run(field, ctx, scripts, &board.armies()) {
            Ok(run) => {
                self.battle = Some(run);
                self.scroll_to_step = true;
                self.note = None;
            }
            Err(e) => self.note = Some(Note::Error(e)),
        }
    }

    /// The right side during a battle: stepping, the result and the log.
    fn battle_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
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
            if ui
                .add_enabled(run.at > 0, egui::Button::new("Previous phase"))
                .clicked()
            {
                run.at -= 1;
            }
            if ui
                .add_enabled(run.at < last, egui::Button::new("Next phase"))
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
            keep = ui.button("Keep the result").clicked();
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
            let after = run.after.clone();
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
                "The board is now the one the battle left (Undo takes it back).".to_string(),
            ));
        } else if back {
            self.battle = None;
        }
    }

    /// The board in the middle: drawing, overlays and the pointer's edits.
    fn board_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog, scripts: &mut ScriptHost) {
        let (rect, resp) =
            ui.allocate_exact_size(ui.available_size(), egui::Sense::click_and_drag());
        resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "sandbox board"));
        let painter = ui.painter_at(rect);
        if let Some(run) = &self.battle
            && let Some(step) = run.steps.get(run.at)
        {
            let layout = Layout::fit(rect.shrink(8.0), step.field.shape());
            self.layout = Some(layout);
            board_view::paint_laid_out(&painter, &layout, &step.field, catalog);
            paint_step(&painter, &layout, step, catalog);
            return;
        }
        let Some(edits) = &self.edits else {
            return;
        };
        let board = edits.board().clone();
        let built = edits.built().clone();
        let shape = board.kind.shape();
        let layout = Layout::fit(rect.shrink(8.0), &shape);
        self.layout = Some(layout);
        match &built.field {
            Some(field) => {
                board_view::paint_laid_out(&painter, &layout, field, catalog);
                self.paint_overlays(&painter, &layout, field, catalog, &board, scripts);
            }
            None => board_view::paint_hexes(&painter, &layout, &shape),
        }
        for m in &built.marks {
            if let Some(h) = m.hex {
                let red = egui::Color32::from_rgb(255, 60, 60);
                board_view::outline(&painter, &layout, h, egui::Stroke::new(4.0, red));
                let text = if m.missing {
                    m.message.clone()
                } else {
                    "refused".to_string()
                };
                board_view::label(&painter, layout.centre(h), &text, layout.radius * 0.22, red);
            }
        }
        if let Some(h) = self.selected {
            board_view::outline(
                &painter,
                &layout,
                h,
                egui::Stroke::new(3.0, egui::Color32::WHITE),
            );
        }
        if let Some(aim) = &self.aim {
            for (i, h) in aim.targets.iter().enumerate() {
                let c = egui::Color32::from_rgb(255, 200, 0);
                board_view::outline(&painter, &layout, *h, egui::Stroke::new(3.0, c));
                board_view::label(
                    &painter,
                    layout.centre(*h),
                    &format!("target {}", i + 1),
                    layout.radius * 0.22,
                    c,
                );
            }
        }
        let at = |p: Option<egui::Pos2>| p.and_then(|p| layout.hex_on(&shape, p));
        let hovered = at(resp.hover_pos());
        // A palette tile dropped on a hex.
        if let Some(id) = self.carrying.clone() {
            let pointer = ui.input(|i| i.pointer.latest_pos());
            if let Some(p) = pointer {
                let fill = board_view::seat_colour(Seat::new(self.seat as u8));
                if let Some(t) = catalog.find(&id) {
                    crate::tile_view::paint(
                        &ui.ctx().layer_painter(egui::LayerId::new(
                            egui::Order::Tooltip,
                            egui::Id::unique("sandbox_carry"),
                        )),
                        p,
                        layout.radius * 0.9,
                        catalog.get(t),
                        0,
                        fill,
                    );
                }
            }
            if let Some(h) = released_at(ui)
                .filter(|p| rect.contains(*p))
                .and_then(|p| layout.hex_on(&shape, p))
            {
                self.place(catalog, &id, h);
            }
        }
        if resp.drag_started() {
            self.dragging =
                at(ui.input(|i| i.pointer.press_origin())).filter(|h| board.piece_at(*h).is_some());
        }
        if resp.drag_stopped()
            && let Some(from) = self.dragging.take()
            && let Some(to) = at(released_at(ui))
            && self.edit(catalog, |b| b.move_piece(from, to))
        {
            self.selected = Some(to);
        }
        if let Some(from) = self.dragging
            && let Some(p) = ui.input(|i| i.pointer.latest_pos())
        {
            board_view::arrow(
                &painter,
                layout.centre(from),
                p,
                egui::Stroke::new(3.0, egui::Color32::WHITE),
            );
        }
        if resp.clicked()
            && let Some(h) = at(resp.interact_pointer_pos())
        {
            self.click(catalog, h, &board);
        }
        if resp.secondary_clicked()
            && let Some(h) = at(resp.interact_pointer_pos())
            && board.piece_at(h).is_some()
            && self.edit(catalog, |b| b.remove(h))
        {
            self.selected = None;
        }
        // The mouse wheel over a tile turns it.
        if let Some(h) = hovered.filter(|h| board.piece_at(*h).is_some()) {
            self.scrolled += ui.input(|i| i.smooth_scroll_delta.y);
            let steps = (self.scrolled / SCROLL_STEP).trunc();
            if steps != 0.0 {
                self.scrolled -= steps * SCROLL_STEP;
                self.edit(catalog, |b| b.rotate(h, -(steps as i32)));
            }
        } else {
            self.scrolled = 0.0;
        }
    }

    /// A click on hex `h`: a target of the instant aimed, else the armed palette tile goes there,
    /// else the tile there is selected.
    fn click(&mut self, catalog: &Catalog, h: Hex, board: &Board) {
        if let Some(aim) = &mut self.aim {
            let wanted = catalog
                .find(&aim.id)
                .and_then(|t| catalog.get(t).instant)
                .map_or(0, |e| targets_wanted(e).len());
            if aim.targets.len() >= wanted {
                aim.targets.clear();
            }
            aim.targets.push(h);
            return;
        }
        if let Some(id) = self.armed.clone() {
            self.place(catalog, &id, h);
            return;
        }
        self.selected = board.piece_at(h).map(|_| h);
    }

    /// Puts the palette tile `id` on `h` for the current seat, facing north; an HQ also makes its
    /// army the seat's army.
    fn place(&mut self, catalog: &Catalog, id: &str, h: Hex) {
        let seat = self.seat;
        let hq_army = catalog
            .find(id)
            .map(|t| catalog.get(t))
            .filter(|t| t.is_hq())
            .map(|t| t.army.clone());
        let placed = self.edit(catalog, |b| {
            b.place(id, seat, h, Dir::N)?;
            if let (Some(army), Some(p)) = (hq_army, b.players.get_mut(seat)) {
                p.army = army;
            }
            Ok(())
        });
        if placed {
            self.selected = Some(h);
        }
    }

    fn paint_overlays(
        &mut self,
        painter: &egui::Painter,
        layout: &Layout,
        field: &Battlefield,
        catalog: &Catalog,
        board: &Board,
        scripts: &mut ScriptHost,
    ) {
        let ctx = Context {
            catalog,
            rules: &board.rules,
        };
        if self.overlays.links {
            board_view::paint_links(painter, layout, field, catalog);
        }
        if self.overlays.nets {
            let netted = hexforge_core::battle::netted(field, ctx);
            board_view::paint_nets(painter, layout, field, catalog, netted);
        }
        if self.overlays.fire {
            board_view::paint_fire_lines(painter, layout, field, catalog);
            // The shots the engine makes from this board in a battle.
            let key = self.edits.as_ref().map_or(0, Edits::version);
            if self.fire.as_ref().is_none_or(|(k, _)| *k != key) {
                let complete = self.built().is_some_and(|b| b.marks.is_empty());
                let shots = if complete {
                    battle::run(field, ctx, scripts, &board.armies())
                        .map(|run| {
                            run.steps
                                .iter()
                                .flat_map(|s| s.attacks.iter().copied())
                                .filter(|a| a.kind != hexforge_core::AttackKind::Melee)
                                .collect()
                        })
                        .unwrap_or_default()
                } else {
                    Vec::new()
                };
                self.fire = Some((key, shots));
            }
            if let Some((_, shots)) = &self.fire {
                for a in shots {
                    if field.at(a.from).is_some() && field.at(a.target).is_some() {
                        board_view::paint_attack(
                            painter,
                            layout,
                            field,
                            (a.from, a.edge, a.kind, a.target),
                            "",
                        );
                    }
                }
            }
        }
    }

    fn undo(&mut self, catalog: &Catalog) {
        if let Some(e) = &mut self.edits
            && e.undo(catalog)
        {
            self.note = None;
        }
    }

    fn redo(&mut self, catalog: &Catalog) {
        if let Some(e) = &mut self.edits
            && e.redo(catalog)
        {
            self.note = None;
        }
    }

    /// Keyboard: Ctrl+Z / Ctrl+Shift+Z undo and redo, R / Shift+R turn the selected tile, Delete
    /// removes it (not while a text field has the keyboard).
    fn keys(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
        if self.battle.is_some() || ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        use egui::{Key, Modifiers};
        let (redo, undo, left, right, delete) = ui.input_mut(|i| {
            (
                i.consume_key(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z),
                i.consume_key(Modifiers::COMMAND, Key::Z),
                i.consume_key(Modifiers::SHIFT, Key::R),
                i.consume_key(Modifiers::NONE, Key::R),
                i.consume_key(Modifiers::NONE, Key::Delete),
            )
        });
        if redo {
            self.redo(catalog);
        } else if undo {
            self.undo(catalog);
        }
        if let Some(h) = self.selected {
            if left {
                self.edit(catalog, |b| b.rotate(h, -1));
            }
            if right {
                self.edit(catalog, |b| b.rotate(h, 1));
            }
            if delete && self.edit(catalog, |b| b.remove(h)) {
                self.selected = None;
            }
        }
    }
}

/// The hexes an instant needs, named in the order they are clicked.
fn targets_wanted(effect: InstantEffect) -> Vec<&'static str> {
    match effect {
        InstantEffect::Battle => vec![],
        InstantEffect::Move => vec!["unit", "hex to move to"],
        InstantEffect::Push => vec!["pusher", "unit to push", "hex to push it to"],
        InstantEffect::Wound { .. } | InstantEffect::DestroyNearHq => vec!["target"],
        InstantEffect::Area { .. } => vec!["centre hex"],
    }
}

/// A battle step's overlays: attacks, wounds, absorbed wounds, removals and HQ damage.
fn paint_step(painter: &egui::Painter, layout: &Layout, step: &battle::Step, catalog: &Catalog) {
    let field = &step.field;
    let size = layout.radius * 0.2;
    for (cell, total, destroyed) in &step.wounded {
        let h = field.shape().hex(*cell);
        let c = egui::Color32::from_rgb(255, 80, 80);
        board_view::outline(painter, layout, h, egui::Stroke::new(3.0, c));
        let plural = if *total == 1 { "" } else { "s" };
        let text = if *destroyed {
            format!("destroyed ({total} wound{plural})")
        } else {
            format!("{total} wound{plural}")
        };
        board_view::label(
            painter,
            layout.centre(h) + egui::vec2(0.0, layout.radius * 0.6),
            &text,
            size,
            c,
        );
    }
    for cell in &step.absorbed {
        let h = field.shape().hex(*cell);
        let c = egui::Color32::from_rgb(90, 200, 255);
        board_view::outline(painter, layout, h, egui::Stroke::new(3.0, c));
        board_view::label(
            painter,
            layout.centre(h) + egui::vec2(0.0, layout.radius * 0.35),
            "absorbed",
            size,
            c,
        );
    }
    for cell in &step.removed {
        let h = field.shape().hex(*cell);
        let c = egui::Color32::from_rgb(255, 40, 40);
        let corners = layout.corners(h);
        let cross = egui::Stroke::new(3.0, c.gamma_multiply(0.6));
        painter.line_segment([corners[0], corners[3]], cross);
        painter.line_segment([corners[1], corners[4]], cross);
        board_view::label(painter, layout.centre(h), "removed", size * 1.2, c);
    }
    for a in &step.attacks {
        let text = format!("{}", a.wounds);
        board_view::paint_attack(
            painter,
            layout,
            field,
            (a.from, a.edge, a.kind, a.target),
            &text,
        );
    }
    for (player, amount, hp) in &step.hq {
        if let Some(c) = field.hq_cell(*player, catalog) {
            let h = field.shape().hex(c);
            let colour = egui::Color32::from_rgb(255, 220, 90);
            board_view::outline(painter, layout, h, egui::Stroke::new(4.0, colour));
            board_view::label(
                painter,
                layout.centre(h) + egui::vec2(0.0, layout.radius * 0.6),
                &format!("HQ -{amount}: {hp} HP"),
                size,
                colour,
            );
        }
    }
}

/// Writes `text` to `path` through a temporary file in the same folder, so the file is either the
/// old one or the whole new one.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("give a file name, e.g. scenarios/test.toml"))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(".saving");
    let temp = path.with_file_name(temp_name);
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

/// What the colours of a battle step mean.
fn legend_ui(ui: &mut egui::Ui) {
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

/// Where the primary button was released in this frame.
fn released_at(ui: &egui::Ui) -> Option<egui::Pos2> {
    ui.input(|i| {
        i.events.iter().find_map(|e| match e {
            egui::Event::PointerButton {
                pos,
                button: egui::PointerButton::Primary,
                pressed: false,
                ..
            } => Some(*pos),
            _ => None,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::{BoardShape, GameSetup, Initiative, SeatSetup, Tile, TileKind};
    use std::sync::Arc;

    #[test]
    fn a_games_board_opens_on_the_sandbox_with_its_armies_and_rules() {
        let mut cat = Catalog::new();
        let mut hq = Tile::new("x", "hq", TileKind::Hq);
        hq.initiative = Initiative::new(&[0]).expect("a valid initiative");
        let mut brute = Tile::new("x", "brute", TileKind::Soldier);
        brute.count = 20;
        cat.add_army("x", "X", 21, vec![hq, brute])
            .expect("a valid army");
        let rules = Rules::preset(Preset::Classic);
        let game = Game::new(
            GameSetup {
                shape: BoardShape::extended(),
                seats: SeatSetup::each_alone(&["x", "x"]),
                seed: 7,
            },
            Arc::new(cat),
            Arc::new(rules.clone()),
        )
        .expect("a game");
        let mut sandbox = Sandbox::default();
        sandbox.open_game(&game);
        let board = sandbox.board().expect("the game's board");
        assert_eq!(board.kind, BoardKind::Extended);
        assert_eq!(board.armies(), ["x", "x"]);
        assert_eq!(board.rules, rules);
        assert_eq!(board.players[1].hq_hp, game.field().hq_hp(Seat::new(1)));
        assert!(sandbox.built().is_some_and(|b| b.complete().is_ok()));
    }
}
