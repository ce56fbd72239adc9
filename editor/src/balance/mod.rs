//! The Balance tab: does a tweak make an army stronger? The army being edited is paired with
//! the other armies and a series of seeded bot games is played in the background
//! (`hexforge_lab`, as `hexforge balance` plays it) with a progress bar and a cancel; the
//! result is a heatmap of win rates with 95% intervals, each army's overall rate and the first
//! seat's, the army's tiles by their impact on its wins, and, when the army file has unsaved
//! changes, the same seeds played again with them: each pairing's rate before and after and
//! whether it moved beyond noise, with the tiles that differ.

pub mod overlay;
pub mod worker;

use crate::Content;
use crate::msg::Msg;
use crate::rules_panel::{RulesPanel, army_ids, board_and_seed};
use hexforge_lab::{Results, Shift, percent, wilson};
use std::collections::BTreeSet;
use worker::{Edited, Finished, Job, Request};

/// The Balance tab's state: what the next series plays, the series under way, the last result.
pub struct BalancePanel {
    /// The army balanced (`None`: the designer's army, else the first loaded).
    pub army: Option<String>,
    /// The other armies left out of the series (every other army plays by default).
    pub left_out: BTreeSet<String>,
    /// The bot playing every seat (`hexforge_bots::NAMES`).
    pub bot: String,
    /// The games of a series, spread over its pairings.
    pub games: usize,
    /// The series' seed as typed.
    pub seed: String,
    /// The rules the games play with.
    pub rules: RulesPanel,
    /// The board's id.
    pub board: String,
    /// Play the same seeds again with the army file's unsaved changes.
    pub compare: bool,
    /// The series under way.
    job: Option<Job>,
    /// What the last series gave.
    finished: Option<Finished>,
    /// Why the last series did not start or stopped.
    error: Option<String>,
}

impl Default for BalancePanel {
    fn default() -> Self {
        BalancePanel {
            army: None,
            left_out: BTreeSet::new(),
            bot: "greedy".to_string(),
            games: 1000,
            seed: "1".to_string(),
            rules: RulesPanel::default(),
            board: "standard".to_string(),
            compare: true,
            job: None,
            finished: None,
            error: None,
        }
    }
}

impl BalancePanel {
    /// The army balanced: the one picked, else `designer`'s army, else the first loaded.
    pub fn army_of(&self, content: &Content, designer: Option<&str>) -> Option<String> {
        let ids = army_ids(&content.loaded);
        self.army
            .as_deref()
            .or(designer)
            .filter(|a| ids.contains(a))
            .or(ids.first().copied())
            .map(str::to_string)
    }

    /// The armies of the next series: the army balanced first, then every other army not
    /// left out, in the catalog's order.
    pub fn armies(&self, content: &Content, designer: Option<&str>) -> Vec<String> {
        let Some(army) = self.army_of(content, designer) else {
            return Vec::new();
        };
        let mut armies = vec![army.clone()];
        armies.extend(
            army_ids(&content.loaded)
                .into_iter()
                .filter(|a| *a != army && !self.left_out.contains(*a))
                .map(str::to_string),
        );
        armies
    }

    /// Starts a series as set up (any series under way is cancelled); `unsaved` are the army
    /// files with unsaved changes that load (the army's is compared when [`BalancePanel::compare`]
    /// is on). The error says what to change.
    pub fn start(
        &mut self,
        content: &Content,
        designer: Option<&str>,
        unsaved: &[Edited],
    ) -> Result<(), String> {
        self.cancel();
        let armies = self.armies(content, designer);
        let seed = self.seed.trim().parse::<u64>().map_err(|_| {
            format!(
                "the seed `{}` is not a whole number from 0 to {}",
                self.seed.trim(),
                u64::MAX
            )
        })?;
        if self.games == 0 {
            return Err("play at least one game".to_string());
        }
        let edited = if self.compare {
            unsaved.iter().find(|e| e.army == armies[0]).cloned()
        } else {
            None
        };
        let request = Request {
            armies,
            bots: [self.bot.clone(), self.bot.clone()],
            games: self.games,
            seed,
            preset: self.rules.preset.clone(),
            options: self.rules.options.clone(),
            board: self.board.clone(),
            edited,
            roots: content.roots.clone(),
        };
        match Job::spawn(request, &content.loaded) {
            Ok(job) => {
                self.job = Some(job);
                self.error = None;
                Ok(())
            }
            Err(e) => {
                self.error = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Cancels the series under way, if any: it stops before its next game and nothing of it
    /// is shown.
    pub fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
    }

    /// The series under way: games played and games to play.
    pub fn running(&self) -> Option<(u64, u64)> {
        self.job.as_ref().map(|j| (j.done(), j.total()))
    }

    /// What the last series gave.
    pub fn finished(&self) -> Option<&Finished> {
        self.finished.as_ref()
    }

    /// Why the last series did not start or stopped.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Takes the end of the series under way, if it came; true when it did.
    pub fn poll(&mut self) -> bool {
        let Some(job) = &mut self.job else {
            return false;
        };
        match job.poll() {
            None => false,
            Some(end) => {
                self.job = None;
                match end {
                    Ok(f) => {
                        self.finished = Some(f);
                        self.error = None;
                    }
                    Err(e) => self.error = Some(e),
                }
                true
            }
        }
    }

    /// The tab: the series' setup, Run or the progress bar with Cancel, then the last result.
    /// `designer` is the designer's army, `unsaved` the army files with unsaved changes that
    /// load.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        content: &Content,
        (designer, unsaved): (Option<&str>, &[Edited]),
        out: &mut Vec<Msg>,
    ) {
        if self.poll() {
            out.push(Msg::Status(match &self.error {
                Some(e) => format!("balance series stopped: {e}"),
                None => "balance series finished".to_string(),
            }));
        }
        egui::CentralPanel::default().show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                ui.heading("Balance");
                ui.label(
                    "Seeded bot games between the army and the others, each army in each seat \
                     equally; rates with 95% intervals. With unsaved changes, the same seeds are \
                     played again with them.",
                );
                self.setup_ui(ui, content, designer, unsaved);
                ui.separator();
                self.run_ui(ui, content, designer, unsaved);
                if let Some(e) = &self.error {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                if let Some(f) = &self.finished {
                    ui.separator();
                    result_ui(ui, f);
                }
            });
        });
    }

    /// The army, its opponents, the bot, the games, the rules, the board and the seed.
    fn setup_ui(
        &mut self,
        ui: &mut egui::Ui,
        content: &Content,
        designer: Option<&str>,
        unsaved: &[Edited],
    ) {
        let ids = army_ids(&content.loaded);
        let army = self.army_of(content, designer).unwrap_or_default();
        ui.horizontal(|ui| {
            let label = ui.label("Army");
            egui::ComboBox::from_id_salt("balance_army")
                .selected_text(army.as_str())
                .show_ui(ui, |ui| {
                    for a in &ids {
                        if ui.selectable_label(*a == army, *a).clicked() {
                            self.army = Some(a.to_string());
                        }
                    }
                })
                .response
                .labelled_by(label.id);
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("against");
            for a in ids.iter().filter(|a| **a != army) {
                let mut on = !self.left_out.contains(*a);
                if ui.checkbox(&mut on, *a).changed() {
                    if on {
                        self.left_out.remove(*a);
                    } else {
                        self.left_out.insert(a.to_string());
                    }
                }
            }
        });
        ui.horizontal(|ui| {
            let label = ui.label("Bot");
            egui::ComboBox::from_id_salt("balance_bot")
                .selected_text(self.bot.as_str())
                .show_ui(ui, |ui| {
                    for b in hexforge_bots::NAMES {
                        ui.selectable_value(&mut self.bot, b.to_string(), *b);
                    }
                })
                .response
                .labelled_by(label.id);
            let label = ui.label("Games");
            ui.add(egui::DragValue::new(&mut self.games).range(1..=1_000_000))
                .labelled_by(label.id);
        });
        board_and_seed(
            ui,
            &content.loaded,
            (&mut self.board, &mut self.seed),
            "balance_board",
        );
        egui::CollapsingHeader::new(format!("Rules: {}", self.rules.preset))
            .id_salt("balance_rules")
            .show(ui, |ui| {
                self.rules.ui(ui, &content.loaded, "balance_rules");
            });
        let has_unsaved = unsaved.iter().any(|e| e.army == army);
        ui.add_enabled(
            has_unsaved,
            egui::Checkbox::new(
                &mut self.compare,
                "Compare the unsaved changes with the saved file",
            ),
        )
        .on_disabled_hover_text(format!(
            "{army}'s file has no unsaved changes that load: edit it in the Designer tab"
        ));
    }

    /// Run, or the progress bar and Cancel while a series plays.
    fn run_ui(
        &mut self,
        ui: &mut egui::Ui,
        content: &Content,
        designer: Option<&str>,
        unsaved: &[Edited],
    ) {
        match self.running() {
            Some((done, total)) => {
                ui.horizontal(|ui| {
                    ui.add(
                        egui::ProgressBar::new(done as f32 / total.max(1) as f32)
                            .desired_width(320.0)
                            .text(format!("{done}/{total} games")),
                    );
                    if ui.button("Cancel").clicked() {
                        self.cancel();
                        self.error = Some("cancelled".to_string());
                    }
                });
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(100));
            }
            None => {
                if ui.button("Run").clicked() {
                    // The error shows below.
                    let _ = self.start(content, designer, unsaved);
                }
            }
        }
    }
}

/// What a finished series shows: the heatmap, the overall rates, the diff, the tiles.
fn result_ui(ui: &mut egui::Ui, f: &Finished) {
    let r = &f.saved;
    let played: u64 = r.pairings.iter().map(|p| p.games).sum();
    ui.label(format!(
        "{played} games; bots {} vs {}; rules {}; seed {}",
        r.bots[0], r.bots[1], r.rules, r.seed
    ));
    heatmap(ui, r);
    let first: u64 = r.pairings.iter().map(|p| p.first_seat_wins).sum();
    ui.label(format!("First seat wins {}", percent(first, played)));
    if let Some((after, changes)) = &f.edited {
        ui.separator();
        diff_ui(ui, r, after, changes);
    }
    ui.separator();
    tiles_ui(ui, r);
    if !f.failures.is_empty() {
        ui.separator();
        for line in &f.failures {
            ui.colored_label(ui.visuals().error_fg_color, format!("error: {line}"));
        }
    }
}

/// Wins and games of army `i` against army `j` (`None`: not paired).
fn versus(r: &Results, i: usize, j: usize) -> Option<(u64, u64)> {
    r.pairings.iter().find_map(|p| {
        if (p.a, p.b) == (i, j) {
            Some((p.a_wins, p.games))
        } else if (p.a, p.b) == (j, i) {
            Some((p.b_wins, p.games))
        } else {
            None
        }
    })
}

/// A cell's colour: red below half, blue above, white at half.
fn rate_colour(rate: f64) -> egui::Color32 {
    let t = ((rate - 0.5) * 2.0).clamp(-1.0, 1.0);
    let fade = |x: f64| (255.0 * (1.0 - x.abs() * 0.6)) as u8;
    if t >= 0.0 {
        egui::Color32::from_rgb(fade(t), fade(t), 255)
    } else {
        egui::Color32::from_rgb(255, fade(t), fade(t))
    }
}

/// The heatmap: each row army's win rate against each column army, with its interval, then its
/// rate over all its games.
fn heatmap(ui: &mut egui::Ui, r: &Results) {
    ui.strong("Win rate of the row's army against the column's (95% interval)");
    egui::Grid::new("balance_heatmap")
        .spacing([4.0, 4.0])
        .show(ui, |ui| {
            ui.label("");
            for a in &r.armies {
                ui.strong(a);
            }
            ui.strong("overall");
            ui.end_row();
            for (i, a) in r.armies.iter().enumerate() {
                ui.strong(a);
                let (mut wins, mut games) = (0, 0);
                for j in 0..r.armies.len() {
                    match versus(r, i, j) {
                        Some((w, n)) if i != j => {
                            wins += w;
                            games += n;
                            let rate = w as f64 / n.max(1) as f64;
                            let (lo, hi) = wilson(w, n);
                            egui::Frame::new()
                                .fill(rate_colour(rate))
                                .inner_margin(3.0)
                                .show(ui, |ui| {
                                    ui.vertical(|ui| {
                                        ui.label(
                                            egui::RichText::new(format!("{:.0}%", 100.0 * rate))
                                                .strong()
                                                .color(egui::Color32::BLACK),
                                        )
                                        .on_hover_text(
                                            format!(
                                                "{} against {}: {} of {n} games won",
                                                r.armies[i], r.armies[j], w
                                            ),
                                        );
                                        ui.label(
                                            egui::RichText::new(format!(
                                                "{:.0}-{:.0}",
                                                100.0 * lo,
                                                100.0 * hi
                                            ))
                                            .small()
                                            .color(egui::Color32::DARK_GRAY),
                                        );
                                    });
                                });
                        }
                        _ => {
                            ui.label("");
                        }
                    }
                }
                ui.label(percent(wins, games));
                ui.end_row();
            }
        });
}

/// Each pairing of the army before and after the unsaved changes, and the tiles that differ.
fn diff_ui(ui: &mut egui::Ui, before: &Results, after: &Results, changes: &[String]) {
    ui.strong("The unsaved changes against the saved file (the same seeds)");
    if changes.is_empty() {
        ui.label("No tile of these armies differs (scripts or rules may).");
    }
    for c in changes {
        ui.label(format!("• {c}"));
    }
    egui::Grid::new("balance_diff")
        .striped(true)
        .show(ui, |ui| {
            for h in ["pairing", "saved", "unsaved", "change (95%)", "verdict"] {
                ui.strong(h);
            }
            ui.end_row();
            for (b, a) in before.pairings.iter().zip(&after.pairings) {
                let s = Shift::of(b.a_wins, b.games, a.a_wins, a.games);
                ui.label(format!("{} vs {}", before.armies[b.a], before.armies[b.b]));
                ui.label(format!("{:.1}%", 100.0 * s.before));
                ui.label(format!("{:.1}%", 100.0 * s.after));
                ui.label(format!("{:+.1} ±{:.1}", 100.0 * s.change, 100.0 * s.margin));
                if s.significant {
                    ui.strong("significant");
                } else {
                    ui.label("within noise");
                }
                ui.end_row();
            }
        });
}

/// The tiles of the army balanced (the first), by how much more its player wins when they are
/// placed.
fn tiles_ui(ui: &mut egui::Ui, r: &Results) {
    let Some(army) = r.armies.first() else {
        return;
    };
    let prefix = format!("{army}/");
    let mut tiles: Vec<_> = r
        .tiles
        .iter()
        .filter(|t| t.tile.starts_with(&prefix))
        .collect();
    tiles.sort_by(|a, b| b.impact().total_cmp(&a.impact()).then(a.tile.cmp(&b.tile)));
    ui.strong(format!(
        "{army}'s tiles: win rate when placed minus not placed; per game: HQ damage, kills, discards"
    ));
    egui::Grid::new("balance_tiles")
        .striped(true)
        .show(ui, |ui| {
            for h in [
                "tile",
                "impact",
                "placed",
                "not placed",
                "HQ damage",
                "kills",
                "discards",
            ] {
                ui.strong(h);
            }
            ui.end_row();
            for t in tiles {
                ui.label(&t.tile);
                ui.label(format!("{:+.1} pts", 100.0 * t.impact()));
                ui.label(percent(t.placed_wins, t.placed_games));
                ui.label(percent(t.unplaced_wins, t.unplaced_games));
                ui.label(format!("{:.2}", t.per_game(t.hq_damage)));
                ui.label(format!("{:.2}", t.per_game(t.kills)));
                ui.label(format!("{:.2}", t.per_game(t.discards)));
                ui.end_row();
            }
        });
}
