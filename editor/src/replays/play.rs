//! "Play a match": 2 to 4 seats, each an army and a bot, on rules (a preset and overrides, from
//! the Rules panel), a board and a seed, played to its end by the engine and the bots and
//! recorded step by step into a new file of the replay folder, as `hexforge match --replay`
//! records (the replay's header keeps the preset and the overrides). Quick bots play on the UI
//! thread; the Monte-Carlo bot plays on a worker with a Lua host of its own.

use super::folder;
use crate::rules_panel::RulesPanel;
use hexforge_content::{LoadedMods, ModInfo};
use hexforge_core::game::Player;
use hexforge_core::{AbilityHooks, Catalog};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The bots offered; `mc` and `search` play off the UI thread.
pub const BOTS: &[&str] = &["greedy", "random", "mc", "search"];

/// One seat of the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatChoice {
    /// The army played in this seat, by id.
    pub army: String,
    /// The bot that plays it (one of [`BOTS`]).
    pub bot: String,
}

/// What the match is, as the designer set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// The seats in play order.
    pub seats: Vec<SeatChoice>,
    /// A built-in edition or a mod's preset.
    pub rules: String,
    /// Rule options set on top of the preset, `KEY=VALUE` as `--option` takes them.
    pub options: Vec<String>,
    /// The board's id: built in (`standard`, `extended`) or a loaded mod's.
    pub board: String,
    /// The seed of the match's tile draws and bots.
    pub seed: u64,
}

impl Match {
    /// The file name a recording of this match starts from: the armies and the seed.
    fn stem(&self) -> String {
        let armies: Vec<&str> = self.seats.iter().map(|s| s.army.as_str()).collect();
        format!("{}-seed{}", armies.join("-vs-"), self.seed)
    }
}

/// Plays `m` to its end with the engine and the bots, recording it into a new file of `dir`;
/// returns the file.
pub fn record_match(
    m: &Match,
    mods: &[ModInfo],
    catalog: Arc<Catalog>,
    hooks: &mut dyn AbilityHooks,
    dir: &Path,
) -> Result<PathBuf, String> {
    // The kept host starts the match as a freshly loaded one does (the scripts as loaded, draws
    // from seed 0): the bots weigh their first moves exactly as `hexforge match --seed` does.
    hooks.reseed(0);
    let (game_seed, bot_seeds) = hexforge_bots::match_seeds(m.seed, m.seats.len());
    let armies: Vec<String> = m.seats.iter().map(|s| s.army.clone()).collect();
    let board = m.board.as_str();
    let header = hexforge_replay::header(
        (&m.rules, &m.options, board),
        mods,
        armies,
        game_seed,
        m.seed,
    );
    let mut game =
        hexforge_replay::start(&header, mods, catalog, &mut *hooks).map_err(|e| e.to_string())?;
    let mut bots = Vec::new();
    for (s, seed) in m.seats.iter().zip(bot_seeds) {
        bots.push(hexforge_bots::by_name(&s.bot, seed).ok_or_else(|| {
            format!(
                "unknown bot `{}`: use one of {}",
                s.bot,
                hexforge_bots::NAMES.join(", ")
            )
        })?);
    }
    let mut players: Vec<&mut dyn Player> = bots
        .iter_mut()
        .map(|b| b.as_mut() as &mut dyn Player)
        .collect();
    let (path, file) = folder::create_new(dir, &m.stem())
        .map_err(|e| format!("cannot create a replay in {}: {e}", dir.display()))?;
    let recorder = hexforge_replay::Recorder::new(file, &header)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    hexforge_replay::record_game(&mut game, &mut players, hooks, recorder)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// The panel's settings, and the match being played on a worker.
pub struct PlayPanel {
    /// The seats as picked.
    pub seats: Vec<SeatChoice>,
    /// The rules picked: a preset (a built-in edition or a mod's preset) and overrides.
    pub rules: RulesPanel,
    /// The board picked: built in or a loaded mod's (docs/RULESETS.md, "Boards").
    pub board: String,
    /// The seed as typed.
    pub seed: String,
    /// What the last match did (or why it could not be played).
    pub status: String,
    worker: Option<JoinHandle<Result<PathBuf, String>>>,
}

impl Default for PlayPanel {
    fn default() -> Self {
        PlayPanel {
            seats: Vec::new(),
            rules: RulesPanel::default(),
            board: hexforge_content::boards::DEFAULT_BOARD.to_string(),
            seed: "1".to_string(),
            status: String::new(),
            worker: None,
        }
    }
}

impl PlayPanel {
    /// Whether a match is being played on a worker.
    pub fn playing(&self) -> bool {
        self.worker.is_some()
    }

    /// The match as set, checked against the loaded armies and bots.
    pub fn to_match(&self, loaded: &LoadedMods) -> Result<Match, String> {
        let armies: Vec<&str> = self.seats.iter().map(|s| s.army.as_str()).collect();
        let seed = crate::rules_panel::check_table(
            loaded,
            (&self.rules, &self.board, &self.seed),
            &armies,
        )?;
        Ok(Match {
            seats: self.seats.clone(),
            rules: self.rules.preset.clone(),
            options: self.rules.options.clone(),
            board: self.board.clone(),
            seed,
        })
    }

    /// The panel in `ui`; returns a replay file just recorded, to open.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        loaded: &LoadedMods,
        hooks: &mut dyn AbilityHooks,
        dir: Option<&Path>,
    ) -> Option<PathBuf> {
        let armies = crate::rules_panel::army_ids(loaded);
        if self.seats.is_empty() && !armies.is_empty() {
            for i in 0..2 {
                self.seats.push(SeatChoice {
                    army: armies[i % armies.len()].to_string(),
                    bot: BOTS[0].to_string(),
                });
            }
        }
        crate::rules_panel::seat_rows(
            ui,
            &mut self.seats,
            &armies,
            |ui, i, seat| {
                egui::ComboBox::new(("replay_seat_army", i), "army")
                    .selected_text(seat.army.as_str())
                    .show_ui(ui, |ui| {
                        for a in &armies {
                            ui.selectable_value(&mut seat.army, a.to_string(), *a);
                        }
                    });
                egui::ComboBox::new(("replay_seat_bot", i), "bot")
                    .selected_text(seat.bot.as_str())
                    .show_ui(ui, |ui| {
                        for b in BOTS {
                            ui.selectable_value(&mut seat.bot, b.to_string(), *b);
                        }
                    });
            },
            |army| SeatChoice {
                army: army.to_string(),
                bot: BOTS[0].to_string(),
            },
        );
        self.rules.ui(ui, loaded, "replay_rules");
        crate::rules_panel::board_and_seed(
            ui,
            loaded,
            (&mut self.board, &mut self.seed),
            "replay_board",
        );
        let mut recorded = None;
        if let Some(worker) = self.worker.take_if(|w| w.is_finished()) {
            match worker.join() {
                Ok(Ok(path)) => {
                    self.status = format!("recorded {}", path.display());
                    recorded = Some(path);
                }
                Ok(Err(e)) => self.status = e,
                Err(_) => self.status = "the match stopped with an engine error".to_string(),
            }
        }
        if self.worker.is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Playing (the Monte-Carlo bot thinks a while per move)...");
            });
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        } else if ui.button("Play and record").clicked() {
            match (self.to_match(loaded), dir) {
                (Err(e), _) => self.status = e,
                (Ok(_), None) => {
                    self.status = "no replay folder: set HEXFORGE_REPLAYS or HOME".to_string();
                }
                (Ok(m), Some(dir))
                    if m.seats.iter().any(|s| s.bot == "mc" || s.bot == "search") =>
                {
                    self.worker = Some(spawn(m, loaded, dir.to_path_buf()));
                    self.status = String::new();
                }
                (Ok(m), Some(dir)) => {
                    let catalog = Arc::new(loaded.catalog.clone());
                    match record_match(&m, &loaded.mods, catalog, hooks, dir) {
                        Ok(path) => {
                            self.status = format!("recorded {}", path.display());
                            recorded = Some(path);
                        }
                        Err(e) => self.status = e,
                    }
                }
            }
        }
        if !self.status.is_empty() {
            ui.label(&self.status);
        }
        recorded
    }
}

/// Plays `m` on a worker: Lua states stay on their thread, so it loads a host of its own.
fn spawn(m: Match, loaded: &LoadedMods, dir: PathBuf) -> JoinHandle<Result<PathBuf, String>> {
    let mods = loaded.mods.clone();
    let mut catalog = loaded.catalog.clone();
    std::thread::spawn(move || {
        let (mut host, _) = hexforge_script::ScriptHost::load(
            &mods,
            &mut catalog,
            hexforge_script::Limits::default(),
        );
        record_match(&m, &mods, Arc::new(catalog), &mut host, &dir)
    })
}
