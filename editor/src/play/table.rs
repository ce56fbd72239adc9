//! A game on the table: the board as the worker last told it, the battles shown phase by phase
//! as the sandbox shows them, a person's turn (the hand as tiles, the hexes that may be clicked,
//! the facing turned with the wheel or R / Shift+R and previewed under the pointer, discards,
//! instants, mod actions, the other actions as buttons), a person's decisions, the players and
//! the log beside the board. Hot-seat (two people or more at one window) covers the hand of the
//! person whose turn begins until they say they are ready.

use super::aim::{self, Aim, Next};
use super::worker::{Answer, Ask, Running, Update, Who};
use crate::board_view::{self, Layout};
use crate::msg::Msg;
use crate::sandbox::battle;
use hexforge_core::{Action, Battlefield, Catalog, Event, Game, Hex, Seat, TileKind, TileRef};
use hexforge_log::{GameLog, Reader};
use std::collections::VecDeque;
use std::path::PathBuf;

/// How long each step of a battle stays on screen while battles are shown, in seconds.
pub const PHASE_SECONDS: f64 = 0.9;
/// The wheel movement, in points, that turns the facing one step.
const SCROLL_STEP: f32 = 40.0;

/// A battle being shown: its steps and the one on screen since when.
struct Showing {
    steps: Vec<battle::Step>,
    at: usize,
    since: f64,
    /// The battle's log lines (each step's range indexes them), told as its steps show.
    lines: Vec<String>,
    /// How many of `lines` the log shows so far.
    told: usize,
    /// The game after the action, shown once the battle is.
    after: Box<Game>,
}

/// A person's turn waiting for their action.
struct TurnNow {
    game: Game,
    legal: Vec<Action>,
}

/// A game on the table, its worker and what the window shows of it.
pub struct Table {
    running: Running,
    who: Vec<Who>,
    armies: Vec<String>,
    /// The replay file the game is recorded into (known once it started).
    path: Option<PathBuf>,
    /// The game as shown: after the last update taken.
    game: Option<Game>,
    /// Updates received but not shown yet (they wait while a battle is shown).
    waiting: VecDeque<Update>,
    showing: Option<Showing>,
    turn: Option<TurnNow>,
    ask: Option<Ask>,
    /// Hot-seat: the person who said they are ready.
    ready: Option<Seat>,
    aim: Aim,
    scrolled: f32,
    log: Vec<String>,
    game_log: Option<GameLog>,
    /// The result line once the game is over.
    over: Option<String>,
    /// Why the game stopped before its end.
    stopped: Option<String>,
    /// Show battles phase by phase (else at once).
    animate: bool,
    /// A hint or refusal for the person, e.g. which way a tile may face.
    hint: Option<String>,
    seed: u64,
    /// The tiles of the game, as loaded when it started (a reload of the content does not
    /// change a game being played).
    catalog: std::sync::Arc<Catalog>,
    /// Where the board was last drawn.
    layout: Option<Layout>,
    /// The host's mods that differ, waiting for the person to say whether to fetch them.
    confirm: Option<Vec<String>>,
    /// The host's mods installed (a line each): the content is loaded again and the match
    /// joined again.
    installed: Option<Vec<String>>,
}

impl Table {
    /// The table of a game just handed to its worker, its seats played by `who` with `armies`.
    pub fn new(
        running: Running,
        (who, armies): (Vec<Who>, Vec<String>),
        seed: u64,
        catalog: std::sync::Arc<Catalog>,
    ) -> Table {
        Table {
            running,
            who,
            armies,
            path: None,
            game: None,
            waiting: VecDeque::new(),
            showing: None,
            turn: None,
            ask: None,
            ready: None,
            aim: Aim::new(None),
            scrolled: 0.0,
            log: Vec::new(),
            game_log: None,
            over: None,
            stopped: None,
            animate: true,
            hint: None,
            seed,
            catalog,
            layout: None,
            confirm: None,
            installed: None,
        }
    }

    /// Who plays each seat, in seat order.
    pub fn who(&self) -> &[Who] {
        &self.who
    }

    /// The game as shown, once it started.
    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    /// The replay file the game is recorded into, once it started.
    pub fn path(&self) -> Option<&PathBuf> {
        self.path.as_ref()
    }

    /// The log as shown so far.
    pub fn log(&self) -> &[String] {
        &self.log
    }

    /// Puts `lines` at the head of the log: what an earlier table of the same match said (the
    /// mods fetched and installed before joining again).
    pub(crate) fn carry(&mut self, mut lines: Vec<String>) {
        lines.append(&mut self.log);
        self.log = lines;
    }

    /// The result line, once the game is over.
    pub fn over(&self) -> Option<&str> {
        self.over.as_deref()
    }

    /// Why the game stopped before its end, if it did.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// The seat whose person must act now (their turn is shown and not covered).
    pub fn person_to_act(&self) -> Option<Seat> {
        self.turn.as_ref().and_then(|t| t.game.current())
    }

    /// The legal actions of the person's turn, in the engine's order (empty when no person is
    /// to act).
    pub fn legal(&self) -> &[Action] {
        self.turn.as_ref().map_or(&[], |t| t.legal.as_slice())
    }

    /// The hexes that may be clicked next for the aim, as highlighted on the board.
    pub fn clickable(&self) -> Vec<Hex> {
        match self.aim.next(self.legal()) {
            Next::Click(hexes) => hexes,
            _ => Vec::new(),
        }
    }

    /// Where the centre of `hex` was last drawn on screen.
    pub fn hex_pos(&self, hex: Hex) -> Option<egui::Pos2> {
        self.layout.map(|l| l.centre(hex))
    }

    /// The hint or refusal shown to the person, if any.
    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    /// The host's mods that differ from those loaded here, while the person is asked whether
    /// to fetch them.
    pub fn confirming(&self) -> Option<&[String]> {
        self.confirm.as_deref()
    }

    /// Fetches and installs the host's mods that differ (`true`), or refuses the match.
    pub fn confirm(&mut self, yes: bool) {
        if self.confirm.take().is_some() {
            self.running.answer(Answer::Confirm(yes));
        }
    }

    /// Whether the game's worker has ended (the game is over, stopped or left).
    pub fn ended(&self) -> bool {
        self.running.ended()
    }

    /// The host's mods installed, once they are (a line each).
    pub fn installed(&self) -> Option<&[String]> {
        self.installed.as_deref()
    }

    /// Whether a decision waits for a person.
    pub fn deciding(&self) -> bool {
        self.ask.is_some()
    }

    /// The title of the battle step shown (`Before the battle`, `Phase 3`, `After the battle`).
    pub fn battle_step(&self) -> Option<&str> {
        let s = self.showing.as_ref()?;
        s.steps.get(s.at).map(|st| st.title.as_str())
    }

    /// Whether a battle is being shown phase by phase.
    pub fn showing_battle(&self) -> bool {
        self.showing.is_some()
    }

    /// Shows battles phase by phase (`true`, the default) or at once.
    pub fn set_animate(&mut self, on: bool) {
        self.animate = on;
        if !on {
            self.end_showing();
        }
    }

    /// Shows the battle's next step and tells its log lines; past the last, the battle ends.
    fn next_step(&mut self, now: f64) {
        let Some(s) = &mut self.showing else {
            return;
        };
        s.at += 1;
        s.since = now;
        if s.at >= s.steps.len() {
            self.end_showing();
        } else {
            self.tell_step();
        }
    }

    /// Adds to the log the lines of the battle up to the step shown.
    fn tell_step(&mut self) {
        let Some(s) = &mut self.showing else {
            return;
        };
        let upto = s.steps.get(s.at).map_or(s.lines.len(), |st| st.lines.end);
        if upto > s.told {
            self.log.extend(s.lines[s.told..upto].iter().cloned());
            s.told = upto;
        }
    }

    /// Ends the battle shown: the rest of its log lines, and the game after it.
    fn end_showing(&mut self) {
        if let Some(s) = self.showing.take() {
            self.log.extend(s.lines.into_iter().skip(s.told));
            self.game = Some(*s.after);
        }
    }

    /// Whether a hot-seat cover hides the hand now.
    pub fn covered(&self) -> bool {
        self.cover_for().is_some()
    }

    /// The seat whose turn waits behind the hot-seat cover.
    fn cover_for(&self) -> Option<Seat> {
        let persons = self.who.iter().filter(|w| **w == Who::Person).count();
        let seat = self.person_to_act()?;
        (persons > 1 && self.ready != Some(seat)).then_some(seat)
    }

    /// Takes what the worker told, as far as the screen can show it now: a battle being shown
    /// holds the rest back until its last step (or at once when battles are not shown).
    pub fn pump(&mut self, now: f64) {
        while let Some(u) = self.running.poll() {
            self.waiting.push_back(u);
        }
        loop {
            if let Some(s) = &self.showing {
                if !self.animate {
                    self.end_showing();
                } else if now - s.since >= PHASE_SECONDS {
                    self.next_step(now);
                    if self.showing.is_some() {
                        return;
                    }
                } else {
                    return;
                }
            }
            if self.turn.is_some() || self.ask.is_some() || self.confirm.is_some() {
                return;
            }
            let Some(u) = self.waiting.pop_front() else {
                return;
            };
            self.take(u, now);
        }
    }

    fn take(&mut self, u: Update, now: f64) {
        match u {
            Update::Started {
                game,
                events,
                path,
                resumed,
                armies,
                who,
            } => {
                self.armies = armies;
                self.who = who;
                let armies: Vec<&str> = self.armies.iter().map(String::as_str).collect();
                let mut log = GameLog::new(&game, &armies).for_reader(self.reader());
                for e in &events {
                    log.tell(e, &mut self.log);
                }
                if resumed > 0 {
                    self.log.push(format!(
                        "Resumed from {} after {resumed} actions",
                        path.display()
                    ));
                }
                self.game_log = Some(log);
                self.path = Some(path);
                self.game = Some(*game);
            }
            Update::Acted {
                before,
                seat,
                action,
                events,
                after,
            } => {
                let who = self
                    .game_log
                    .as_ref()
                    .and_then(|l| l.players().get(seat.index()).cloned())
                    .unwrap_or_else(|| seat.to_string());
                let told = self
                    .reader()
                    .describe_action(&action, seat, after.catalog());
                self.log.push(format!("{who}: {told}"));
                let first = events
                    .iter()
                    .position(|e| matches!(e, Event::BattleStarted { .. }));
                let mut field = *before;
                let mut lines = Vec::new();
                let upto = first.unwrap_or(events.len());
                for e in &events[..upto] {
                    field.apply(e);
                    if let Some(l) = &mut self.game_log {
                        l.tell(e, &mut lines);
                    }
                }
                self.log.extend(lines);
                if first.is_some() {
                    let game_log = &mut self.game_log;
                    let (steps, more) = battle::cut(&field, &events[upto..], |e, out| {
                        if let Some(l) = game_log {
                            l.tell(e, out);
                        }
                    });
                    if self.animate {
                        self.showing = Some(Showing {
                            steps,
                            at: 0,
                            since: now,
                            lines: more,
                            told: 0,
                            after,
                        });
                        self.tell_step();
                        return;
                    }
                    self.log.extend(more);
                }
                self.game = Some(*after);
            }
            Update::Turn { game, legal } => {
                if self.turn_seat_changed(&game) {
                    self.aim = Aim::new(None);
                }
                self.game = Some((*game).clone());
                self.turn = Some(TurnNow { game: *game, legal });
                self.keep_aim();
            }
            Update::Decide(ask) => self.ask = Some(*ask),
            Update::Notice(text) => self.log.push(format!("net: {text}")),
            Update::Confirm(lines) => self.confirm = Some(lines),
            Update::Installed(lines) => {
                self.log.extend(lines.iter().map(|l| format!("net: {l}")));
                self.installed = Some(lines);
            }
            Update::Over(_) => {
                if let (Some(l), Some(g)) = (&self.game_log, &self.game) {
                    let line = l.result_line(g, self.seed);
                    self.log.push(line.clone());
                    self.over = Some(line);
                }
            }
            Update::Stopped(why) => {
                self.log.push(format!("The game stopped: {why}"));
                self.stopped = Some(why);
            }
        }
    }

    fn turn_seat_changed(&self, game: &Game) -> bool {
        self.game.as_ref().and_then(Game::current) != game.current()
    }

    /// Keeps the tile picked while it is still in the hand and still has something to do.
    fn keep_aim(&mut self) {
        let Some(t) = &self.turn else {
            return;
        };
        if self.aim.tile.is_some_and(|tile| {
            !t.legal
                .iter()
                .any(|a| aim::tile(a) == Some(tile) || *a == Action::Discard { tile })
        }) {
            self.aim = Aim::new(None);
        }
        self.aim.clicked.clear();
    }

    /// Plays the legal action `i` of the person's turn.
    pub fn act(&mut self, i: usize) {
        if self.turn.take().is_some() {
            self.running.answer(Answer::Act(i));
            self.aim.clicked.clear();
            self.hint = None;
        }
    }

    /// Answers the decision waiting with its option `i`.
    pub fn decide(&mut self, i: usize) {
        if self.ask.take().is_some() {
            self.running.answer(Answer::Decide(i));
        }
    }

    /// The hot-seat person says they are ready: their hand shows.
    pub fn say_ready(&mut self) {
        self.ready = self.person_to_act();
    }

    /// Picks the held tile `tile` (again: unpicks it).
    pub fn pick(&mut self, tile: Option<TileRef>) {
        let facing = self.aim.facing;
        self.aim = Aim::new(if self.aim.tile == tile { None } else { tile });
        self.aim.facing = facing;
        self.hint = None;
    }

    /// Turns the facing of the tile aimed one step clockwise (`1`) or anticlockwise (`-1`).
    pub fn turn_facing(&mut self, by: i32) {
        self.aim.turn(by);
    }

    /// The aim: the tile picked, the hexes clicked, the facing.
    pub fn aim(&self) -> &Aim {
        &self.aim
    }

    /// A click on hex `h` during the person's turn: the next hex of the aim, and the action
    /// once the clicks name one. Returns whether `h` could be clicked.
    pub fn click(&mut self, h: Hex) -> bool {
        let Some(t) = &self.turn else {
            return false;
        };
        match self.aim.next(&t.legal) {
            Next::Click(hexes) if hexes.contains(&h) => {
                self.aim.clicked.push(h);
                match self.aim.next(&t.legal) {
                    Next::Act(i) => self.act(i),
                    Next::Turn(facings) => {
                        let names: Vec<&str> = facings.iter().map(|f| f.name()).collect();
                        self.hint = Some(format!(
                            "that cannot face {}: turn it to {} (wheel, R or Shift+R) and click again",
                            self.aim.facing.name(),
                            names.join(", ")
                        ));
                        self.aim.clicked.pop();
                    }
                    _ => {}
                }
                true
            }
            _ => {
                self.aim.clicked.clear();
                false
            }
        }
    }

    /// The table in `ui`: players, turn and log on the right, the hand on the left, the board
    /// in the middle. Asks to open the replay ([`Msg::OpenReplay`]) when the person does.
    pub fn ui(&mut self, ui: &mut egui::Ui, out: &mut Vec<Msg>) -> bool {
        let catalog = &self.catalog.clone();
        let now = ui.input(|i| i.time);
        self.pump(now);
        if self.showing.is_some() || !self.running.ended() || !self.waiting.is_empty() {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(50));
        }
        let mut leave = false;
        egui::Panel::right("play_side")
            .default_size(380.0)
            .show(ui, |ui| leave = self.side_ui(ui, catalog, out));
        // A fixed width: the board does not move when the hand empties.
        egui::Panel::left("play_hand")
            .resizable(false)
            .exact_size(200.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.hand_ui(ui, catalog))
            });
        egui::CentralPanel::default().show(ui, |ui| self.board_ui(ui, catalog));
        self.keys(ui);
        leave
    }

    fn side_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog, out: &mut Vec<Msg>) -> bool {
        let mut leave = false;
        ui.horizontal(|ui| {
            if ui.button("Leave the game").clicked() {
                leave = true;
            }
            let mut animate = self.animate;
            if ui
                .checkbox(&mut animate, "Show battles phase by phase")
                .changed()
            {
                self.set_animate(animate);
            }
        });
        if let Some(p) = &self.path {
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("Saved after every action to {}", p.display()));
                if ui.button("Open in the replay viewer").clicked() {
                    out.push(Msg::OpenReplay(p.clone()));
                }
            });
        }
        ui.separator();
        self.players_ui(ui);
        ui.separator();
        if let Some(s) = &self.showing {
            let last = s.steps.len().saturating_sub(1);
            let title = s.steps.get(s.at).map_or("", |st| st.title.as_str());
            ui.label(
                egui::RichText::new(format!("Battle: {title} ({} of {})", s.at + 1, last + 1))
                    .strong(),
            );
            let (mut next, mut skip) = (false, false);
            ui.horizontal(|ui| {
                next = ui.button("Next phase").clicked();
                skip = ui.button("Skip the battle").clicked();
            });
            let now = ui.input(|i| i.time);
            if skip {
                self.end_showing();
            } else if next {
                self.next_step(now);
            }
        } else if let Some(line) = &self.over {
            ui.label(egui::RichText::new(line).strong());
        } else if let Some(why) = &self.stopped {
            ui.colored_label(ui.visuals().error_fg_color, why);
        } else if let Some(lines) = self.confirm.clone() {
            ui.label(
                egui::RichText::new("The host's mods differ from those loaded here:").strong(),
            );
            for l in &lines {
                ui.label(l);
            }
            ui.label(
                "Fetch them from the host, check them and install them? A mod folder they replace \
                 is kept in `.replaced/` beside it.",
            );
            ui.horizontal(|ui| {
                if ui.button("Fetch and install them").clicked() {
                    self.confirm(true);
                }
                if ui.button("Refuse the match").clicked() {
                    self.confirm(false);
                }
            });
        } else if let Some(lines) = &self.installed {
            ui.label(
                egui::RichText::new(format!(
                    "Installed {} mod(s): loading them and joining again...",
                    lines.len()
                ))
                .strong(),
            );
        } else if let Some(ask) = &self.ask {
            self.decide_ui(ui, ask.clone(), catalog);
        } else if let Some(seat) = self.cover_for() {
            let name = self.player_name(seat);
            ui.label(
                egui::RichText::new(format!(
                    "{name}'s turn: pass the screen to {name}, who clicks when ready."
                ))
                .strong(),
            );
            if ui.button("I'm ready").clicked() {
                self.say_ready();
            }
        } else if self.turn.is_some() {
            self.turn_ui(ui, catalog);
        } else if self.game.is_some() {
            let thinking = self
                .game
                .as_ref()
                .and_then(Game::current)
                .map_or_else(String::new, |s| self.player_name(s));
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("{thinking} is thinking..."));
            });
        } else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Setting the game up...");
            });
        }
        ui.separator();
        ui.label(egui::RichText::new("Log").strong());
        egui::ScrollArea::vertical()
            .stick_to_bottom(true)
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for l in &self.log {
                    ui.label(egui::RichText::new(l).monospace());
                }
            });
        leave
    }

    fn player_name(&self, seat: Seat) -> String {
        let army = self.armies.get(seat.index()).map_or("", String::as_str);
        format!("Player {} ({army})", seat.index() + 1)
    }

    fn players_ui(&self, ui: &mut egui::Ui) {
        let Some(game) = &self.game else {
            return;
        };
        let field = self.shown_field().unwrap_or(game.field());
        for seat in game.field().players() {
            ui.horizontal(|ui| {
                let (r, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
                ui.painter()
                    .rect_filled(r, 3.0, board_view::seat_colour(seat));
                let who = self.who.get(seat.index()).map_or("", Who::word);
                let on = game.current() == Some(seat);
                let text = format!(
                    "{}{} - {who}: HQ {} HP, {} in hand, {} in the deck",
                    if on { "> " } else { "" },
                    self.player_name(seat),
                    field.hq_hp(seat),
                    game.hand(seat).len(),
                    game.deck_len(seat),
                );
                ui.label(if on {
                    egui::RichText::new(text).strong()
                } else {
                    egui::RichText::new(text)
                });
            });
        }
    }

    fn turn_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
        let Some(t) = &self.turn else {
            return;
        };
        let seat = t.game.current().unwrap_or(Seat::new(0));
        ui.label(
            egui::RichText::new(format!(
                "Your turn, {} - turn {}",
                self.player_name(seat),
                t.game.turn_number()
            ))
            .strong(),
        );
        let next = self.aim.next(&t.legal);
        // Whether the next click gives a facing (a placement, a unit's destination).
        let faces = match &next {
            Next::Click(hexes) => t.legal.iter().any(|a| {
                let hs = aim::hexes(a);
                aim::tile(a) == self.aim.tile
                    && aim::facing(a).is_some()
                    && hs.len() == self.aim.clicked.len() + 1
                    && hs.starts_with(&self.aim.clicked)
                    && hexes.contains(&hs[self.aim.clicked.len()])
            }),
            _ => false,
        };
        let turn = if faces {
            format!(
                "; turn it with the wheel or R / Shift+R (facing {})",
                self.aim.facing.name()
            )
        } else {
            String::new()
        };
        let must_discard = !t.legal.contains(&Action::EndTurn)
            && t.legal.iter().all(|a| matches!(a, Action::Discard { .. }));
        let prompt = match (self.aim.tile, &next) {
            _ if must_discard => {
                "Your hand is full after drawing: discard one tile (R2.5.2)".to_string()
            }
            (_, Next::Click(_)) if !self.aim.clicked.is_empty() => {
                format!("Click a highlighted hex to go on{turn} (Esc starts again)")
            }
            (Some(tile), Next::Click(_)) => {
                format!("{}: click a highlighted hex{turn}", catalog.get(tile).name)
            }
            (None, Next::Click(_)) => {
                "Pick a tile of your hand, or click a highlighted unit to move it".to_string()
            }
            _ => "Pick a tile of your hand".to_string(),
        };
        ui.label(prompt);
        if let Some(h) = &self.hint {
            ui.colored_label(ui.visuals().warn_fg_color, h);
        }
        let mut chosen = None;
        // What has no hex to click: discards, instants with no target, mod actions with no
        // target or on a tile, a redraw, the end of the turn.
        ui.horizontal_wrapped(|ui| {
            for (i, a) in t.legal.iter().enumerate() {
                let button = match a {
                    Action::Discard { tile } if self.aim.tile.is_none_or(|p| p == *tile) => {
                        Some(format!("Discard {}", catalog.get(*tile).name))
                    }
                    Action::Instant {
                        tile,
                        target: hexforge_core::Target::None,
                    } if self.aim.tile.is_none_or(|p| p == *tile) => {
                        Some(format!("Play {}", catalog.get(*tile).name))
                    }
                    Action::Rule { target: None, .. } => Some(a.describe(catalog)),
                    Action::Redraw => Some("Redraw (all instants)".to_string()),
                    Action::EndTurn => Some("End turn".to_string()),
                    _ => None,
                };
                if let Some(label) = button
                    && ui.button(label).clicked()
                {
                    chosen = Some(i);
                }
            }
        });
        egui::CollapsingHeader::new("Every legal action")
            .id_salt("play_every_action")
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .max_height(160.0)
                    .show(ui, |ui| {
                        for (i, a) in t.legal.iter().enumerate() {
                            if ui.small_button(a.describe(catalog)).clicked() {
                                chosen = Some(i);
                            }
                        }
                    });
            });
        if let Some(i) = chosen {
            self.act(i);
        }
    }

    fn decide_ui(&mut self, ui: &mut egui::Ui, ask: Ask, catalog: &Catalog) {
        let tile = ask
            .field
            .at(ask.by)
            .map_or_else(String::new, |p| catalog.get(p.tile).name.clone());
        let hex = ask.field.shape().hex(ask.by);
        ui.label(
            egui::RichText::new(format!(
                "{} decides for {tile} on {hex}: {}",
                self.player_name(ask.player),
                hexforge_log::question_text(ask.question)
            ))
            .strong(),
        );
        let mut picked = None;
        for (i, c) in ask.options.iter().enumerate() {
            let text = format!(
                "{}. {}",
                i + 1,
                hexforge_log::choice_text(*c, &ask.field, catalog)
            );
            if ui.button(text).clicked() {
                picked = Some(i);
            }
        }
        if let Some(i) = picked {
            self.decide(i);
        }
    }

    /// Who reads this window, so whose hidden information it shows (the log, the markers): the
    /// one person at the table; nobody's when several people share it (hot-seat); everyone's
    /// when only bots and remote players play.
    pub fn reader(&self) -> Reader {
        match self.persons() {
            (None, _) => Reader::Everyone,
            (Some(seat), false) => Reader::Player(seat),
            (Some(_), true) => Reader::Table,
        }
    }

    /// The seat of the first person at the table, and whether there is another.
    fn persons(&self) -> (Option<Seat>, bool) {
        let mut persons = self
            .who
            .iter()
            .enumerate()
            .filter(|(_, w)| **w == Who::Person)
            .map(|(i, _)| Seat::new(i as u8));
        (persons.next(), persons.next().is_some())
    }

    /// The hand of the person playing (on turn, or the only person at the table).
    fn hand_seat(&self) -> Option<Seat> {
        if self.cover_for().is_some() {
            return None;
        }
        if let Some(s) = self.person_to_act() {
            return Some(s);
        }
        match self.persons() {
            (Some(seat), false) => Some(seat),
            _ => None,
        }
    }

    fn hand_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
        ui.label(egui::RichText::new("Hand").strong());
        let Some(game) = &self.game else {
            return;
        };
        let Some(seat) = self.hand_seat() else {
            ui.label("(hidden)");
            return;
        };
        let mut hand: Vec<TileRef> = game.hand(seat).to_vec();
        let mine = self.person_to_act() == Some(seat);
        // Tiles played from outside the hand (the HQ during setup, R2.3) are shown with it.
        if mine {
            for t in self.legal().iter().filter_map(aim::tile) {
                if !hand.contains(&t) {
                    hand.push(t);
                }
            }
        }
        if hand.is_empty() {
            ui.label("(empty)");
        }
        let mut picked = None;
        for (i, t) in hand.iter().enumerate() {
            let tile = catalog.get(*t);
            let size = egui::vec2(170.0, 150.0);
            let (rect, resp) = ui.allocate_exact_size(size, egui::Sense::click());
            let name = format!("{} ({})", tile.name, tile.kind.name());
            resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, mine, &name));
            let chosen = self.aim.tile == Some(*t) && mine;
            let painter = ui.painter_at(rect);
            if chosen {
                painter.rect_filled(rect, 4.0, egui::Color32::from_rgb(70, 70, 30));
            }
            let facing = if chosen && tile.kind != TileKind::Instant {
                self.aim.facing.index() as usize
            } else {
                0
            };
            crate::tile_view::paint(
                &painter,
                rect.center() - egui::vec2(0.0, 8.0),
                55.0,
                tile,
                facing,
                board_view::seat_colour(seat),
            );
            board_view::label(
                &painter,
                egui::pos2(rect.center().x, rect.max.y - 8.0),
                &name,
                11.0,
                egui::Color32::WHITE,
            );
            let resp = resp.on_hover_text(crate::tile_view::summary(tile));
            if mine && resp.clicked() {
                picked = Some(*t);
            }
            let _ = i;
        }
        if let Some(t) = picked {
            self.pick(Some(t));
        }
    }

    /// The board as shown: a battle's step, else the game.
    fn shown_field(&self) -> Option<&Battlefield> {
        match &self.showing {
            Some(s) => s.steps.get(s.at).map(|st| &st.field),
            None => self.game.as_ref().map(Game::field),
        }
    }

    fn board_ui(&mut self, ui: &mut egui::Ui, catalog: &Catalog) {
        let (rect, resp) = ui.allocate_exact_size(ui.available_size(), egui::Sense::click());
        resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "play board"));
        let painter = ui.painter_at(rect);
        let reader = self.reader();
        let Some(field) = self
            .shown_field()
            .map(|f| reader.field(f, catalog).unwrap_or_else(|| f.clone()))
        else {
            return;
        };
        let layout = Layout::fit(rect.shrink(8.0), field.shape());
        self.layout = Some(layout);
        board_view::paint_laid_out(&painter, &layout, &field, catalog);
        if let Some(s) = &self.showing
            && let Some(step) = s.steps.get(s.at)
        {
            battle::paint_step(&painter, &layout, step, catalog);
        }
        board_view::paint_markers(ui, &layout, &field, catalog);
        board_view::marker_tooltip(&resp, &layout, &field);
        if self.showing.is_some() || self.covered() {
            return;
        }
        let Some(t) = &self.turn else {
            return;
        };
        let gold = egui::Color32::from_rgb(250, 210, 60);
        let next = self.aim.next(&t.legal);
        let hovered = resp
            .hover_pos()
            .and_then(|p| layout.hex_on(field.shape(), p));
        if let Next::Click(hexes) = &next {
            // A translucent fill inside each hex that may be clicked: neighbours' shared edges
            // stay single and the tiles under it stay readable.
            let green = egui::Color32::from_rgba_unmultiplied(90, 230, 120, 70);
            for h in hexes {
                let corners = crate::tile_view::corners(layout.centre(*h), layout.radius * 0.9);
                painter.add(egui::Shape::convex_polygon(
                    corners.to_vec(),
                    green,
                    egui::Stroke::new(2.0, egui::Color32::from_rgb(90, 230, 120)),
                ));
            }
        }
        for h in &self.aim.clicked {
            board_view::outline(&painter, &layout, *h, egui::Stroke::new(4.0, gold));
        }
        if let Next::Click(hexes) = &next {
            // The tile previewed where it would go, facing as turned.
            if let Some(h) = hovered.filter(|h| hexes.contains(h)) {
                let preview = self.preview_tile(&t.legal, h);
                if let Some((tile, seat)) = preview {
                    crate::tile_view::paint(
                        &painter,
                        layout.centre(h),
                        layout.radius * 0.9,
                        catalog.get(tile),
                        self.aim.facing.index() as usize,
                        board_view::seat_colour(seat).gamma_multiply(0.6),
                    );
                }
                self.scrolled += ui.input(|i| i.smooth_scroll_delta.y);
                let steps = (self.scrolled / SCROLL_STEP).trunc();
                if steps != 0.0 {
                    self.scrolled -= steps * SCROLL_STEP;
                    self.aim.turn(-(steps as i32));
                }
            } else {
                self.scrolled = 0.0;
            }
        }
        if resp.clicked()
            && let Some(h) = resp
                .interact_pointer_pos()
                .and_then(|p| layout.hex_on(field.shape(), p))
            && !self.click(h)
        {
            self.hint = Some(format!("{h} is not one of the highlighted hexes"));
        }
    }

    /// The tile drawn under the pointer at `h`: the tile placed there, or the unit moved there.
    fn preview_tile(&self, legal: &[Action], h: Hex) -> Option<(TileRef, Seat)> {
        let game = &self.turn.as_ref()?.game;
        let seat = game.current()?;
        let mut clicked = self.aim.clicked.clone();
        clicked.push(h);
        let fits = legal.iter().find(|a| {
            aim::tile(a) == self.aim.tile && aim::hexes(a) == clicked && aim::facing(a).is_some()
        })?;
        match *fits {
            Action::Place { tile, .. } => Some((tile, seat)),
            Action::Move { unit, .. }
            | Action::Instant {
                target: hexforge_core::Target::Move { unit, .. },
                ..
            } => {
                let cell = game.field().shape().cell(unit)?;
                let placed = game.field().at(cell)?;
                Some((placed.tile, placed.owner))
            }
            _ => None,
        }
    }

    /// Keyboard: R / Shift+R turn the facing, Esc drops the clicks and the tile picked.
    fn keys(&mut self, ui: &mut egui::Ui) {
        if self.turn.is_none() || ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        use egui::{Key, Modifiers};
        let (left, right, esc) = ui.input_mut(|i| {
            (
                i.consume_key(Modifiers::SHIFT, Key::R),
                i.consume_key(Modifiers::NONE, Key::R),
                i.consume_key(Modifiers::NONE, Key::Escape),
            )
        });
        if left {
            self.aim.turn(-1);
        }
        if right {
            self.aim.turn(1);
        }
        if esc {
            self.pick(None);
        }
    }
}
