//! A series played: every pairing of the armies, each army played by each bot in each seat
//! equally, on every core, each game folded into the tallies as it finishes (memory flat in
//! the number of games), with progress to watch and a cancel ([`Progress`]), and a shard of it
//! when asked ([`run`]).

use crate::error::{LabError, unknown_bot};
use crate::lineup::{Lineup, start, stopped};
use crate::results::{FORMAT, PairingTally, Results, Shard, TileImpact};
use crate::seating::{Seating, game_seed};
use crate::watch::TileWatch;
use hexforge_content::Board;
use hexforge_core::game::{Player, play_out};
use hexforge_core::{AbilityHooks, Catalog, GameResult, Rules};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What a series plays with.
pub struct Setup<'a> {
    /// The armies (two or more).
    pub armies: Vec<String>,
    /// The two bots (one given: both the same).
    pub bots: [String; 2],
    /// The games of the whole series.
    pub games: usize,
    /// Its seed.
    pub seed: u64,
    /// The rules the games play with.
    pub rules: Arc<Rules>,
    /// The board they play on.
    pub board: &'a Board,
    /// The rules as a command line gives them (`classic --option ... --board standard`), for
    /// the result file: shards of one series must agree on it.
    pub rules_line: String,
    /// The content line (mods, hashes, engine).
    pub content: String,
    /// The shard to play (`None`: every game).
    pub shard: Option<Shard>,
}

impl Setup<'_> {
    /// The games this setup plays: those of its shard.
    pub fn games_played(&self) -> u64 {
        let shard = self.shard.unwrap_or(Shard { index: 1, of: 1 });
        (0..self.games).filter(|&k| shard.has(k)).count() as u64
    }
}

/// Whether a series of `armies` played by `bots` can start with `catalog`: two armies or more,
/// every one loaded, both bots known. [`run`] checks it first; callers that start a series
/// elsewhere (a thread of their own) check it before, to answer at once.
pub fn check(armies: &[String], bots: &[String; 2], catalog: &Catalog) -> Result<(), LabError> {
    if armies.len() < 2 {
        return Err(LabError::TooFewArmies);
    }
    if let Some(b) = bots
        .iter()
        .find(|b| !hexforge_bots::NAMES.contains(&b.as_str()))
    {
        return Err(unknown_bot(b));
    }
    match armies.iter().find(|a| catalog.army(a).is_none()) {
        Some(a) => Err(LabError::UnknownArmy(a.clone())),
        None => Ok(()),
    }
}

/// The rules as a command line gives them (`classic --option hq_hp=15 --board standard`), as a
/// result file records them: shards of one series must agree on it.
pub fn rules_line(preset: &str, options: &[String], board: &str) -> String {
    let mut line = preset.to_string();
    for o in options {
        line.push_str(&format!(" --option {o}"));
    }
    line.push_str(&format!(" --board {board}"));
    line
}

/// A series under way, shared with whoever watches it: the games finished so far, and a
/// cancel that stops it before its next game (games under way finish first).
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicU64,
    cancel: AtomicBool,
}

impl Progress {
    /// Games finished so far (failed ones included).
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Asks the series to stop: no game starts after this; [`run`] returns
    /// [`LabError::Cancelled`].
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether [`Progress::cancel`] was called.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Plays the series' games (those of its shard) on every core, each folded into the tallies
/// as it finishes; the first game that fails stops nothing but is reported.
pub fn run<H: AbilityHooks>(
    setup: &Setup<'_>,
    catalog: Catalog,
    scripts: impl Fn() -> H + Sync + Send,
    progress: &Progress,
) -> Result<(Results, Vec<String>), LabError> {
    check(&setup.armies, &setup.bots, &catalog)?;
    let mut pairings = Vec::new();
    for i in 0..setup.armies.len() {
        for j in i + 1..setup.armies.len() {
            pairings.push((i, j));
        }
    }
    let rules = &setup.rules;
    let board = setup.board;
    let catalog = Arc::new(catalog);
    let two_bots = setup.bots[0] != setup.bots[1];
    let shard = setup.shard.unwrap_or(Shard { index: 1, of: 1 });
    let tallies = Mutex::new(
        pairings
            .iter()
            .map(|&(a, b)| PairingTally {
                a,
                b,
                ..PairingTally::default()
            })
            .collect::<Vec<_>>(),
    );
    let by_bot = Mutex::new([0u64; 3]);
    // Every tile of the series' armies, in army order then file order, and its place there.
    let tile_ids: Vec<hexforge_core::TileRef> = setup
        .armies
        .iter()
        .filter_map(|a| catalog.army(a))
        .flat_map(|a| a.tiles.iter().copied())
        .collect();
    let impacts = Mutex::new(
        tile_ids
            .iter()
            .map(|&t| TileImpact {
                tile: catalog.get(t).full_id(),
                ..TileImpact::default()
            })
            .collect::<Vec<_>>(),
    );
    let failures = Mutex::new(Vec::new());
    (0..setup.games)
        .into_par_iter()
        .filter(|&k| shard.has(k))
        .for_each_init(&scripts, |scripts, k| {
            if progress.cancelled() {
                return;
            }
            // Seat order and bots as `hexforge matches` gives them.
            let Seating {
                pairing,
                swapped,
                bots_swapped,
            } = Seating::of(k, pairings.len(), two_bots, false);
            let (a, b) = pairings[pairing];
            let (first, second) = if swapped { (b, a) } else { (a, b) };
            let bot_of = |army: usize| {
                let slot = usize::from(army == b) ^ usize::from(bots_swapped);
                setup.bots[slot].as_str()
            };
            let lineup = Lineup {
                armies: vec![&setup.armies[first], &setup.armies[second]],
                teams: None,
                bots: vec![bot_of(first), bot_of(second)],
                seed: game_seed(setup.seed, k),
            };
            let played = start(&lineup, (&catalog, rules, board), scripts, &mut Vec::new())
                .map_err(|e| e.to_string())
                .and_then(|(mut game, mut bots)| {
                    let mut players: Vec<&mut dyn Player> = bots
                        .iter_mut()
                        .map(|b| b.as_mut() as &mut dyn Player)
                        .collect();
                    let mut watch = TileWatch::new(&catalog);
                    let result = play_out(&mut game, &mut players, scripts, &mut watch)
                        .map_err(|e| stopped(&e))?;
                    let field = game.field();
                    let hp: Vec<i32> = field.players().map(|p| field.hq_hp(p)).collect();
                    Ok((result, game.turn_number(), hp, watch))
                });
            match played {
                Ok((result, turns, hp, watch)) => {
                    let winner_seat = match result {
                        GameResult::Won { team } => Some(usize::from(team)),
                        _ => None,
                    };
                    let mut im = impacts.lock().unwrap_or_else(|p| p.into_inner());
                    for (slot, &t) in tile_ids.iter().enumerate() {
                        let i = t.index();
                        let army = &catalog.get(t).army;
                        let impact = &mut im[slot];
                        impact.discards += watch.discards[i];
                        impact.hq_damage += watch.hq_damage[i];
                        impact.kills += watch.kills[i];
                        for (seat, army_of_seat) in [first, second].iter().enumerate() {
                            if setup.armies[*army_of_seat] != *army {
                                continue;
                            }
                            let won = u64::from(winner_seat == Some(seat));
                            if watch.placed[seat][i] {
                                impact.placed_games += 1;
                                impact.placed_wins += won;
                            } else {
                                impact.unplaced_games += 1;
                                impact.unplaced_wins += won;
                            }
                        }
                    }
                    drop(im);
                    let mut t = tallies.lock().unwrap_or_else(|p| p.into_inner());
                    let tally = &mut t[pairing];
                    tally.games += 1;
                    tally.turns += u64::from(turns);
                    let mut bots = by_bot.lock().unwrap_or_else(|p| p.into_inner());
                    match result {
                        GameResult::Won { team } => {
                            // Team 0 is the first seat.
                            let winner = if team == 0 { first } else { second };
                            if team == 0 {
                                tally.first_seat_wins += 1;
                            }
                            if winner == a {
                                tally.a_wins += 1;
                            } else {
                                tally.b_wins += 1;
                            }
                            let w = usize::from(team);
                            tally.margin += i64::from(hp[w] - hp[1 - w]);
                            let slot = usize::from(winner == b) ^ usize::from(bots_swapped);
                            bots[slot] += 1;
                        }
                        GameResult::Draw { .. } | GameResult::Shared { .. } => bots[2] += 1,
                    }
                }
                Err(e) => failures
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(format!("game {k} (seed {}): {e}", lineup.seed)),
            }
            progress.done.fetch_add(1, Ordering::Relaxed);
        });
    if progress.cancelled() {
        return Err(LabError::Cancelled);
    }
    Ok((
        Results {
            format: FORMAT.to_string(),
            armies: setup.armies.clone(),
            bots: setup.bots.clone(),
            rules: setup.rules_line.clone(),
            seed: setup.seed,
            games: setup.games as u64,
            content: setup.content.clone(),
            shards: vec![shard.index],
            shards_of: shard.of,
            pairings: tallies.into_inner().unwrap_or_else(|p| p.into_inner()),
            by_bot: by_bot.into_inner().unwrap_or_else(|p| p.into_inner()),
            tiles: impacts.into_inner().unwrap_or_else(|p| p.into_inner()),
        },
        failures.into_inner().unwrap_or_else(|p| p.into_inner()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::NoAbilities;
    use std::path::Path;

    fn loaded() -> hexforge_content::LoadedMods {
        hexforge_content::load_mods(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods")])
    }

    fn play(
        loaded: &hexforge_content::LoadedMods,
        games: usize,
        shard: Option<Shard>,
        progress: &Progress,
    ) -> Result<(Results, Vec<String>), LabError> {
        let rules = Arc::new(loaded.table_rules("v3", &[]).expect("rules"));
        let board = loaded.board("standard").expect("board");
        let setup = Setup {
            armies: vec!["moloch".into(), "outpost".into()],
            bots: ["random".into(), "random".into()],
            games,
            seed: 5,
            rules,
            board,
            rules_line: rules_line("v3", &[], "standard"),
            content: "test".into(),
            shard,
        };
        run(&setup, loaded.catalog.clone(), || NoAbilities, progress)
    }

    #[test]
    fn progress_counts_every_game_of_the_shard_and_the_same_seed_gives_the_same_tallies() {
        let loaded = loaded();
        let progress = Progress::default();
        let (all, failures) = play(&loaded, 12, None, &progress).expect("plays");
        assert!(failures.is_empty(), "{failures:?}");
        assert_eq!(progress.done(), 12);
        assert_eq!(all.pairings[0].games, 12);
        let half = Progress::default();
        let (first, _) = play(&loaded, 12, Some(Shard { index: 1, of: 2 }), &half).expect("plays");
        assert_eq!(half.done(), 6);
        assert_eq!(first.pairings[0].games, 6);
        let (again, _) = play(&loaded, 12, None, &Progress::default()).expect("plays");
        assert_eq!(again, all);
    }

    #[test]
    fn a_cancelled_series_starts_no_game_and_says_it_was_cancelled() {
        let loaded = loaded();
        let progress = Progress::default();
        progress.cancel();
        let e = play(&loaded, 1000, None, &progress).expect_err("cancelled");
        assert!(matches!(e, LabError::Cancelled), "{e}");
        assert_eq!(progress.done(), 0, "no game played after the cancel");
    }
}
