//! The replay viewer: a recorded game opened from its file (a path, or the list of the replay
//! folder), stepped through with a timeline over its actions and the battle phases inside them,
//! the board, the players and the step's log at each position; and "Play a match", which records
//! a game between bots into the replay folder and opens it.

pub mod folder;
pub mod play;
pub mod viewer;

use crate::disk::ReadError;
use crate::msg::Msg;
use hexforge_content::LoadedMods;
use hexforge_core::Game;
use hexforge_script::ScriptHost;
use std::path::{Path, PathBuf};
use viewer::{OpenError, Position, Viewer};

/// The replay open in the viewer, the step shown, and the panels around it.
pub struct Replays {
    /// Where recorded games go and replays are listed ([`folder::replay_dir`]; `None` when no
    /// environment variable names one).
    folder: Option<PathBuf>,
    /// The path typed in the "Open" field.
    path: String,
    /// The replay open.
    viewer: Option<Viewer>,
    /// Why the last replay could not be opened.
    error: Option<String>,
    /// A replay refused for its mods, which the designer may open anyway.
    refused: Option<PathBuf>,
    /// The "Play a match" panel.
    play: play::PlayPanel,
    /// The replay files of the folder as last listed, or why the folder cannot be listed.
    listed: Option<(PathBuf, Result<Vec<PathBuf>, ReadError>)>,
}

impl Default for Replays {
    fn default() -> Self {
        Replays {
            folder: folder::replay_dir(|k| std::env::var_os(k)),
            path: String::new(),
            viewer: None,
            error: None,
            refused: None,
            play: play::PlayPanel::default(),
            listed: None,
        }
    }
}

impl Replays {
    /// Records matches into and lists replays from `dir` (`None`: no replay folder).
    pub fn set_folder(&mut self, dir: Option<PathBuf>) {
        self.folder = dir;
        self.listed = None;
    }

    /// Puts `path` in the "Open" field, as typed (the Open button then opens it).
    pub fn set_path(&mut self, path: &str) {
        self.path = path.to_string();
    }

    /// The replay open, if one is.
    pub fn viewer(&self) -> Option<&Viewer> {
        self.viewer.as_ref()
    }

    /// The replay open, to move through it.
    pub fn viewer_mut(&mut self) -> Option<&mut Viewer> {
        self.viewer.as_mut()
    }

    /// Closes the replay open.
    pub fn close(&mut self) {
        self.viewer = None;
    }

    /// The "Play a match" panel.
    pub fn play(&self) -> &play::PlayPanel {
        &self.play
    }

    /// The "Play a match" panel, to set a match up.
    pub fn play_mut(&mut self) -> &mut play::PlayPanel {
        &mut self.play
    }

    /// Opens the replay at `path` (refused with the mods named when they differ, unless
    /// `force`); the viewer shows its start.
    pub fn open(
        &mut self,
        path: &Path,
        loaded: &LoadedMods,
        scripts: &mut ScriptHost,
        force: bool,
    ) -> Result<(), OpenError> {
        self.path = path.display().to_string();
        match Viewer::open(path, loaded, scripts, force) {
            Ok(v) => {
                self.viewer = Some(v);
                self.error = None;
                self.refused = None;
                Ok(())
            }
            Err(e) => {
                self.error = Some(e.to_string());
                self.refused = matches!(e, OpenError::ModsDiffer(_)).then(|| path.to_path_buf());
                Err(e)
            }
        }
    }

    /// The content was reloaded: the open replay is read again against it (its games hold the
    /// old tiles), at the same position; if it no longer opens, the viewer says why.
    pub fn content_changed(&mut self, loaded: &LoadedMods, scripts: &mut ScriptHost) {
        let Some(old) = self.viewer.take() else {
            return;
        };
        if self.open(&old.path, loaded, scripts, old.forced).is_ok()
            && let Some(v) = self.viewer.as_mut()
        {
            v.go(old.at());
        }
    }

    /// The viewer in the central area of `ui`, on the Lua host `scripts`; asks to open the game
    /// at the step shown in the sandbox ([`Msg::OpenInSandbox`]) when the designer does.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        loaded: &LoadedMods,
        scripts: &mut ScriptHost,
        out: &mut Vec<Msg>,
    ) {
        egui::Panel::left("replay_files")
            .default_size(300.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.files_ui(ui, loaded, scripts));
            });
        let mut to_sandbox = None;
        if let Some(v) = self.viewer.as_mut() {
            egui::Panel::right("replay_side")
                .default_size(380.0)
                .show(ui, |ui| side_ui(ui, v, scripts));
        }
        egui::CentralPanel::default().show(ui, |ui| match self.viewer.as_mut() {
            Some(v) => to_sandbox = timeline_ui(ui, v, scripts),
            None => {
                ui.label(
                    "Open a replay on the left, or play a match to record one. A replay is a \
                     recorded game: step through its turns and battle phases here.",
                );
            }
        });
        if let Some(game) = to_sandbox {
            out.push(Msg::OpenInSandbox(Box::new(game)));
        }
    }

    /// Opening files and playing matches.
    fn files_ui(&mut self, ui: &mut egui::Ui, loaded: &LoadedMods, scripts: &mut ScriptHost) {
        ui.heading("Open a replay");
        let mut open: Option<(PathBuf, bool)> = None;
        ui.horizontal(|ui| {
            ui.add(
                egui::TextEdit::singleline(&mut self.path)
                    .hint_text("path of a replay file")
                    .desired_width(200.0),
            );
            if ui.button("Open").clicked() && !self.path.trim().is_empty() {
                open = Some((PathBuf::from(self.path.trim()), false));
            }
        });
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
            if let Some(p) = &self.refused
                && ui.button("Replay anyway").clicked()
            {
                open = Some((p.clone(), true));
            }
        }
        ui.separator();
        match &self.folder {
            Some(dir) => {
                ui.horizontal(|ui| {
                    ui.label(format!("Replays in {}:", dir.display()));
                    if ui.small_button("Refresh").clicked() {
                        self.listed = None;
                    }
                });
                // The folder is read again only when asked, or after a recording.
                if self.listed.as_ref().is_none_or(|(d, _)| d != dir) {
                    self.listed = Some((dir.clone(), folder::list(dir)));
                }
                let files = match self.listed.as_ref().map(|(_, f)| f) {
                    Some(Ok(files)) => files.as_slice(),
                    Some(Err(e)) => {
                        ui.colored_label(ui.visuals().error_fg_color, e.to_string());
                        &[]
                    }
                    None => &[],
                };
                if files.is_empty() && self.listed.as_ref().is_some_and(|(_, f)| f.is_ok()) {
                    ui.weak("none yet: play a match below to record one");
                }
                let current = self.viewer.as_ref().map(|v| &v.path);
                egui::ScrollArea::vertical()
                    .id_salt("replay_file_list")
                    .max_height(240.0)
                    .show(ui, |ui| {
                        for f in files {
                            let name = f
                                .file_name()
                                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
                            if ui.selectable_label(current == Some(f), name).clicked() {
                                open = Some((f.clone(), false));
                            }
                        }
                    });
            }
            None => {
                ui.label("No replay folder: set HEXFORGE_REPLAYS (or HOME) to list replays.");
            }
        }
        ui.separator();
        ui.heading("Play a match");
        if let Some(path) = self.play.ui(ui, loaded, scripts, self.folder.as_deref()) {
            self.listed = None;
            open = Some((path, false));
        }
        if let Some((path, force)) = open {
            // A refused replay says why in the panel; nothing else to do here.
            let _ = self.open(&path, loaded, scripts, force);
        }
    }
}

/// The players, whose turn, and the step's log, beside the board.
fn side_ui(ui: &mut egui::Ui, v: &mut Viewer, scripts: &mut ScriptHost) {
    let at = v.at();
    let names = hexforge_log::player_names(
        &v.header
            .armies
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    let action = v.action(at.step);
    let mut scroll = v.scroll_due();
    let shown = match v.shown(scripts) {
        Ok(s) => s,
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
            return;
        }
    };
    ui.heading("Players");
    // Inside a battle the piles are those before the step; the HQ HP are the board's.
    let piles = if at.phase.is_some() {
        &shown.before
    } else {
        &shown.after
    };
    for p in shown.board.players() {
        let name = names
            .get(p.index())
            .cloned()
            .unwrap_or_else(|| p.to_string());
        ui.horizontal_wrapped(|ui| {
            ui.label(
                egui::RichText::new(format!("{name}: HQ {}", shown.board.hq_hp(p)))
                    .color(crate::board_view::seat_colour(p))
                    .strong(),
            );
            let on = hexforge_core::marker::MarkOn::Player(p);
            crate::board_view::marker_chips(ui, crate::board_view::marks_on(&shown.board, on));
        });
        ui.label(format!(
            "  hand {}, draw pile {}, discards {}",
            piles.hand(p).len(),
            piles.deck_len(p),
            piles.discard_pile(p).len()
        ));
    }
    match (shown.after.result(), shown.after.current()) {
        (Some(_), _) if at.phase.is_none() => {
            ui.label("The game is over.");
        }
        (_, Some(p)) if at.phase.is_none() => {
            let name = names
                .get(p.index())
                .cloned()
                .unwrap_or_else(|| p.to_string());
            ui.label(format!("{name} to play"));
        }
        _ => {}
    }
    ui.separator();
    ui.heading("Log of the step");
    if let Some(a) = action {
        ui.label(egui::RichText::new(format!("action {a}")).monospace());
    }
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            if shown.lines.is_empty() {
                ui.weak("nothing happened yet");
            }
            for (line, phase) in &shown.lines {
                let text = egui::RichText::new(line).monospace();
                if at.phase.is_some() && *phase == at.phase {
                    let r = ui.label(
                        text.strong()
                            .background_color(ui.visuals().selection.bg_fill),
                    );
                    if scroll {
                        r.scroll_to_me(Some(egui::Align::TOP));
                        scroll = false;
                    }
                } else {
                    ui.label(text);
                }
            }
        });
}

/// The step buttons, the slider, and the board; returns the game to open in the sandbox.
fn timeline_ui(ui: &mut egui::Ui, v: &mut Viewer, scripts: &mut ScriptHost) -> Option<Game> {
    ui.label(egui::RichText::new(format!("Replay {}", v.path.display())).strong());
    ui.label(format!(
        "{}; rules {}; {} board; recorded with Hexforge {}",
        v.header.armies.join(" vs "),
        v.header.rules,
        v.header.board,
        v.header.engine
    ));
    for w in &v.warnings {
        ui.colored_label(ui.visuals().warn_fg_color, format!("Warning: {w}"));
    }
    if !v.complete {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "The recording stops after step {}: the game ended early.",
                v.len()
            ),
        );
    }
    // Arrow keys step when no text field or slider has the keyboard.
    if ui.ctx().memory(|m| m.focused().is_none()) {
        let pressed = |k| ui.input(|i| i.key_pressed(k));
        if pressed(egui::Key::ArrowRight) {
            v.next_phase();
        } else if pressed(egui::Key::ArrowLeft) {
            v.previous_phase();
        } else if pressed(egui::Key::ArrowDown) {
            v.next_turn();
        } else if pressed(egui::Key::ArrowUp) {
            v.previous_turn();
        } else if pressed(egui::Key::Home) {
            v.first();
        } else if pressed(egui::Key::End) {
            v.last();
        }
    }
    ui.horizontal(|ui| {
        if ui.button("First").clicked() {
            v.first();
        }
        if ui.button("Previous turn").clicked() {
            v.previous_turn();
        }
        if ui.button("Previous phase").clicked() {
            v.previous_phase();
        }
        if ui.button("Next phase").clicked() {
            v.next_phase();
        }
        if ui.button("Next turn").clicked() {
            v.next_turn();
        }
        if ui.button("Last").clicked() {
            v.last();
        }
    });
    let mut step = v.at().step;
    ui.spacing_mut().slider_width = (ui.available_width() - 120.0).max(120.0);
    let slider = ui.add(
        egui::Slider::new(&mut step, 0..=v.len())
            .text("step")
            .clamping(egui::SliderClamping::Always),
    );
    if slider.changed() && step != v.at().step {
        v.go(Position { step, phase: None });
    }
    ui.weak("Keys: Left and Right arrows step through battle phases and steps, Up and Down through turns, Home and End to the ends.");
    let at = v.at();
    // Inside a step's battle, the turn is the one the step was played in.
    let turn = match at.phase {
        Some(_) => v.turn_after(at.step.saturating_sub(1)),
        None => v.turn_after(at.step),
    };
    ui.label(egui::RichText::new(format!("Step {} of {}, turn {turn}", at.step, v.len())).strong());
    let shown = match v.shown(scripts) {
        Ok(s) => s,
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
            return None;
        }
    };
    if let Some(k) = at.phase {
        ui.label(format!(
            "Battle phase {} of {} (initiative {})",
            k + 1,
            shown.initiatives.len(),
            shown.initiatives.get(k).copied().unwrap_or(0)
        ));
    }
    let mut to_sandbox = None;
    let open = ui.button("Open this step in the sandbox").on_hover_text(
        "The game after this step; inside a battle, the game before it, so the sandbox fights \
             the battle again.",
    );
    let (rect, board) = ui.allocate_exact_size(ui.available_size(), egui::Sense::hover());
    board.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "replay board"));
    crate::board_view::paint_field(ui.painter(), rect, &shown.board, shown.after.catalog());
    if let Some(k) = at.phase {
        paint_phase(ui.painter(), rect, shown, k);
    }
    let layout = crate::board_view::Layout::fit(rect, shown.board.shape());
    crate::board_view::paint_markers(ui, &layout, &shown.board, shown.after.catalog());
    crate::board_view::marker_tooltip(&board, &layout, &shown.board);
    if open.clicked() {
        to_sandbox = v.game_for_sandbox(scripts).ok();
    }
    to_sandbox
}

/// Over the board of battle phase `k`: an arrow for each attack of the phase with the wounds it
/// dealt, and the hexes of the tiles it removed outlined.
fn paint_phase(painter: &egui::Painter, rect: egui::Rect, shown: &viewer::Shown, k: usize) {
    use crate::board_view::{Layout, arrow, label, outline};
    use hexforge_core::Event;
    let shape = shown.board.shape();
    let layout = Layout::fit(rect, shape);
    let centre = |c: hexforge_core::Cell| layout.centre(shape.hex(c));
    let attack = egui::Color32::from_rgb(250, 210, 60);
    let removed = egui::Stroke::new(3.0, egui::Color32::from_rgb(230, 60, 60));
    for (e, phase) in shown.events.iter().zip(&shown.event_phases) {
        if *phase != Some(k) {
            continue;
        }
        match *e {
            Event::Attack {
                from,
                target,
                wounds,
                ..
            } => {
                let (a, b) = (centre(from), centre(target));
                arrow(painter, a, b, egui::Stroke::new(2.5, attack));
                label(
                    painter,
                    a + (b - a) * 0.5,
                    &wounds.to_string(),
                    layout.radius * 0.3,
                    attack,
                );
            }
            Event::Removed { cell, .. } => outline(painter, &layout, shape.hex(cell), removed),
            _ => {}
        }
    }
}
