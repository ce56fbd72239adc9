//! The sandbox board: tiles of any loaded army placed for any side, and test battles stepped
//! through phase by phase with the engine's events.
//!
//! The board state and its undo history live in [`board`], the stepped battle in [`battle`]; this
//! module holds what the designer is doing and lays the view out: players and palette on the left
//! and the selected tile, overlays and the battle's steps on the right (`panels`), the board in
//! the middle (`canvas`), instants (`instants`) and scenario files (`files`). Every rule question
//! (is this placement legal, who is netted, what does the battle do, may this instant be played)
//! goes to the engine.

pub mod battle;
pub mod board;
mod canvas;
mod files;
mod instants;
mod panels;

use crate::board_view::{self, Layout};
use crate::msg::Msg;
use board::{Board, Edits};
use hexforge_content::{Diagnostic, LoadedMods};
use hexforge_core::battle::Context;
use hexforge_core::tile::InstantEffect;
use hexforge_core::{
    AbilityHooks, Battlefield, Catalog, DefaultPolicy, Dir, Event, Game, Hex, Play, Seat, TileRef,
    Turn,
};
use hexforge_script::ScriptHost;
use std::path::{Path, PathBuf};

/// Which overlays are drawn on the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlays {
    /// Draw the nets and who they hold, as the engine decides.
    pub nets: bool,
    /// Draw the module links.
    pub links: bool,
    /// Draw the lines of fire of the ranged attacks.
    pub fire: bool,
}

/// An instant being aimed: its tile and the hexes clicked so far.
#[derive(Clone, Debug, PartialEq)]
struct Aim {
    id: String,
    targets: Vec<Hex>,
    /// The facing a moved unit ends with (`None` keeps its facing).
    facing: Option<Dir>,
    /// A scripted instant's targets, as its `targets` hooks list them on the board now.
    listed: Listed,
}

/// Where a scripted instant may be played on the sandbox board (docs/LUA_API.md, "Scripted
/// instants"), worked out by its scripts each frame while it is aimed.
#[derive(Clone, Debug, Default, PartialEq)]
struct Listed {
    /// The hexes it may be played on, in reading order.
    hexes: Vec<Hex>,
    /// It may be played with no target.
    none: bool,
    /// Why nothing is listed: the board is not whole, or a script failed.
    problem: Option<String>,
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
    seat: usize,
    /// The army shown in the palette.
    army: Option<String>,
    /// The palette tile a click on a hex places (full id).
    armed: Option<String>,
    /// The palette tile being dragged onto the board.
    carrying: Option<String>,
    /// The hex of the selected tile.
    selected: Option<Hex>,
    /// The hex of the placed tile being dragged.
    dragging: Option<Hex>,
    /// The overlays drawn on the board.
    overlays: Overlays,
    aim: Option<Aim>,
    /// The battle shown, if one was fought.
    battle: Option<battle::Run>,
    /// The log line to bring into view (after a step changed).
    scroll_to_step: bool,
    /// The scenario file to save to or load from.
    path: String,
    /// The name written into saved scenario files.
    title: String,
    note: Option<Note>,
    /// The problems of the last scenario file that failed to load.
    problems: Vec<Diagnostic>,
    /// A problem the designer clicked, to ask for its spot once the sandbox has drawn.
    clicked_problem: Option<Diagnostic>,
    /// Scroll not yet turned into a rotation.
    scrolled: f32,
    /// The step of a battle (or of a scenario's steps) to show again with new content, on the
    /// next frame.
    refight: Option<usize>,
    /// The scenario file last loaded, when it has steps to step through (game mode, moves,
    /// instants, rule actions...).
    steps_file: Option<PathBuf>,
    /// Whether the run to show again is the scenario's steps (not a battle).
    stepping_scenario: bool,
    /// The board's layout in the last frame (to find the hex under the pointer).
    layout: Option<Layout>,
    /// The engine's ranged attacks on the board as it is (for the lines of fire), by board version.
    fire: Option<(u64, Vec<battle::Attack>)>,
    /// The rules the battles are fought with, as picked (the board keeps them).
    rules: crate::rules_panel::RulesPanel,
    /// The loaded boards (built in and the mods'), as of the last frame, for the scenario files
    /// that name one; empty until then (the built-in ones).
    boards: Vec<hexforge_content::Board>,
}

/// How many points of scroll turn a tile by one sixth.
const SCROLL_STEP: f32 = 40.0;

impl Sandbox {
    /// Keeps the loaded boards (a hot reload may add, change or drop some).
    pub fn follow_boards(&mut self, loaded: &LoadedMods) {
        if !self.boards.iter().eq(loaded.boards()) {
            self.boards = loaded.boards().cloned().collect();
        }
    }

    /// The sandbox in the central area of `ui`, its battles fought on the Lua host `scripts`;
    /// asks for the spot of a problem clicked ([`Msg::OpenSpot`]).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        loaded: &LoadedMods,
        scripts: &mut ScriptHost,
        out: &mut Vec<Msg>,
    ) {
        self.follow_boards(loaded);
        let catalog = &loaded.catalog;
        if self.edits.is_none() {
            self.edits = Some(Edits::new(Board::new(catalog), catalog));
        }
        if self.army.as_ref().is_none_or(|a| catalog.army(a).is_none()) {
            // The palette starts on the army of the player who places.
            let seat_army = self
                .board()
                .and_then(|b| b.players.get(self.seat))
                .map(|p| p.army.clone())
                .filter(|a| catalog.army(a).is_some());
            self.army = seat_army.or_else(|| catalog.armies().first().map(|a| a.id.clone()));
        }
        if let Some(b) = self.board() {
            self.seat = self.seat.min(b.players.len().saturating_sub(1));
        }
        if self.title.is_empty() {
            self.title = "Sandbox board".to_string();
        }
        if self.path.is_empty() {
            self.path = "sandbox.toml".to_string();
        }
        if let Some(at) = self.refight.take() {
            let steps = self.steps_file.is_some() && self.stepping_scenario;
            if steps {
                self.step_scenario(catalog, scripts);
            } else {
                self.fight(catalog, scripts);
            }
            match &mut self.battle {
                Some(run) => {
                    run.at = at.min(run.steps.len().saturating_sub(1));
                    self.note = Some(Note::Info(if steps {
                        "The content changed: the scenario's steps were played again with the new data.".to_string()
                    } else {
                        "The content changed: the battle was fought again with the new data."
                            .to_string()
                    }));
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
                        panels::legend_ui(ui);
                    } else {
                        self.players_ui(ui, catalog);
                        self.board_picker_ui(ui, loaded);
                        self.rules_ui(ui, loaded);
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
        if let Some(p) = self.clicked_problem.take() {
            out.push(Msg::OpenSpot(p));
        }
    }

    /// The army shown in the palette (by id).
    pub fn palette_army(&self) -> Option<&str> {
        self.army.as_deref()
    }

    /// Shows the army `id` in the palette.
    pub fn show_army(&mut self, id: &str) {
        self.army = Some(id.to_string());
    }

    /// Puts `path` in the scenario file's path field, as typed (its buttons then save or load it).
    pub fn set_scenario_path(&mut self, path: &str) {
        self.path = path.to_string();
    }

    /// The overlays drawn on the board, to switch them.
    pub fn overlays_mut(&mut self) -> &mut Overlays {
        &mut self.overlays
    }

    /// The rules the board's battles are fought with, as picked.
    pub fn rules(&self) -> &crate::rules_panel::RulesPanel {
        &self.rules
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
            self.stepping_scenario = run.step_word == "step";
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
        self.army = board.players.get(self.seat).map(|p| p.army.clone());
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

    /// The battle (or the scenario's steps) shown.
    pub fn battle(&self) -> Option<&battle::Run> {
        self.battle.as_ref()
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

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::{
        BoardShape, GameSetup, Initiative, Preset, Rules, SeatSetup, Tile, TileKind,
    };
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
                marks: Vec::new(),
            },
            Arc::new(cat),
            Arc::new(rules.clone()),
        )
        .expect("a game");
        let mut sandbox = Sandbox::default();
        sandbox.open_game(&game);
        let board = sandbox.board().expect("the game's board");
        assert_eq!(board.kind, board::BoardKind::extended());
        assert_eq!(board.armies(), ["x", "x"]);
        assert_eq!(board.rules, rules);
        assert_eq!(board.players[1].hq_hp, game.field().hq_hp(Seat::new(1)));
        assert!(sandbox.built().is_some_and(|b| b.complete().is_ok()));
    }
}
