//! `hexforge balance`: many seeded games between every pairing of the armies, each army played
//! by each bot in each seat equally, aggregated as they finish (memory flat in the number of
//! games) into a win/draw matrix with 95% Wilson intervals, each army's overall rate, the first
//! player's advantage, game length and HQ margin; a deterministic shard of the games (`--shard
//! I/N`) written as a result file, and shards merged (`balance merge`) into what one run gives
//! (docs/BALANCE.md).

use anyhow::{Context as _, Result, bail};
use hexforge_core::game::{Player, play_out};
use hexforge_core::{AbilityHooks, Catalog, GameResult};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;

/// The format of result files, bumped whenever their meaning changes.
pub const FORMAT: &str = "hexforge-balance 1";

/// `I/N`: the `I`-th of `N` shards (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which one, 1 to `of`.
    pub index: u32,
    /// How many.
    pub of: u32,
}

impl Shard {
    /// Reads `I/N`; refused unless 1 ≤ I ≤ N.
    pub fn parse(text: &str) -> Result<Shard> {
        let bad = || {
            anyhow::anyhow!(
                "--shard {text}: write I/N with 1 <= I <= N, e.g. --shard 2/4 for the second of four shards"
            )
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, of): (u32, u32) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if of == 0 || index == 0 || index > of {
            return Err(bad());
        }
        Ok(Shard { index, of })
    }

    /// Whether game `k` is this shard's.
    fn has(self, k: usize) -> bool {
        k as u64 % u64::from(self.of) == u64::from(self.index - 1)
    }
}

/// What one pairing gave.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairingTally {
    /// The first army's index in `armies`.
    pub a: usize,
    /// The second army's index.
    pub b: usize,
    /// Games played.
    pub games: u64,
    /// Games the first army won.
    pub a_wins: u64,
    /// Games the second army won.
    pub b_wins: u64,
    /// Games the player in the first seat won (whichever army).
    pub first_seat_wins: u64,
    /// Turns played, summed over the games.
    pub turns: u64,
    /// The winner's HQ hit points minus the loser's, summed over the games won.
    pub margin: i64,
}

impl PairingTally {
    /// Draws (a shared victory counts as one).
    pub fn draws(&self) -> u64 {
        self.games - self.a_wins - self.b_wins
    }

    /// Adds another shard's tally of the same pairing.
    fn add(&mut self, o: &PairingTally) {
        self.games += o.games;
        self.a_wins += o.a_wins;
        self.b_wins += o.b_wins;
        self.first_seat_wins += o.first_seat_wins;
        self.turns += o.turns;
        self.margin += o.margin;
    }
}

/// What one tile did over the games its army played (each seat of its army counted once per
/// game).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileImpact {
    /// `army/tile`.
    pub tile: String,
    /// Games (seats) in which its player placed it at least once.
    pub placed_games: u64,
    /// Those its player won.
    pub placed_wins: u64,
    /// Games (seats) of its army in which it was never placed.
    pub unplaced_games: u64,
    /// Those its player won.
    pub unplaced_wins: u64,
    /// Times it was discarded from a hand.
    pub discards: u64,
    /// Wounds its attacks dealt to HQs.
    pub hq_damage: u64,
    /// Enemy tiles it was the last to strike before they left the board.
    pub kills: u64,
}

impl TileImpact {
    /// Adds another shard's counts of the same tile.
    fn add(&mut self, o: &TileImpact) {
        self.placed_games += o.placed_games;
        self.placed_wins += o.placed_wins;
        self.unplaced_games += o.unplaced_games;
        self.unplaced_wins += o.unplaced_wins;
        self.discards += o.discards;
        self.hq_damage += o.hq_damage;
        self.kills += o.kills;
    }
}

/// A run's (or a shard's, or merged shards') results, with what they were played with: a result
/// file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// [`FORMAT`].
    pub format: String,
    /// The armies, in the order the pairings index them.
    pub armies: Vec<String>,
    /// The two bots.
    pub bots: [String; 2],
    /// The rules preset, options and board.
    pub rules: String,
    /// The seed of the series.
    pub seed: u64,
    /// The games of the whole series (every shard together).
    pub games: u64,
    /// The mods and their content hashes, and the engine's version.
    pub content: String,
    /// The shards these results hold (1-based indices), all of `shards_of`.
    pub shards: Vec<u32>,
    /// How many shards the series was cut into.
    pub shards_of: u32,
    /// One tally per pairing.
    pub pairings: Vec<PairingTally>,
    /// Wins of the first bot, of the second, and draws.
    pub by_bot: [u64; 3],
    /// Every tile of the armies (in army order, then file order), what it did.
    pub tiles: Vec<TileImpact>,
}

/// Follows one game's events to see what each tile did: a mirror of the board (which tile and
/// owner on each cell), each seat's placed tiles, discards, wounds dealt to HQs, and the last
/// tile to strike each cell in the battle under way (credited with a kill when that cell's tile
/// leaves the board destroyed).
struct TileWatch<'c> {
    catalog: &'c Catalog,
    board: Vec<Option<(hexforge_core::TileRef, hexforge_core::Seat)>>,
    last_hit: Vec<Option<hexforge_core::TileRef>>,
    /// Per seat, per catalog tile: placed in this game.
    placed: [Vec<bool>; 2],
    discards: Vec<u64>,
    hq_damage: Vec<u64>,
    kills: Vec<u64>,
}

impl<'c> TileWatch<'c> {
    fn new(catalog: &'c Catalog) -> Self {
        let n = catalog.len();
        TileWatch {
            catalog,
            board: vec![None; hexforge_core::MAX_CELLS],
            last_hit: vec![None; hexforge_core::MAX_CELLS],
            placed: [vec![false; n], vec![false; n]],
            discards: vec![0; n],
            hq_damage: vec![0; n],
            kills: vec![0; n],
        }
    }
}

impl hexforge_core::EventSink for TileWatch<'_> {
    fn push(&mut self, event: hexforge_core::Event) {
        use hexforge_core::Event as E;
        match event {
            E::Placed {
                cell, tile, owner, ..
            } => {
                self.board[cell.index()] = Some((tile, owner));
                if let Some(p) = self.placed.get_mut(owner.index()) {
                    p[tile.index()] = true;
                }
            }
            E::Fielded {
                cell, tile, owner, ..
            }
            | E::Joined {
                cell, tile, owner, ..
            } => self.board[cell.index()] = Some((tile, owner)),
            E::Moved { from, to, .. } if from != to => {
                self.board[to.index()] = self.board[from.index()].take();
                self.last_hit[to.index()] = self.last_hit[from.index()].take();
            }
            E::Attack {
                from,
                target,
                wounds,
                ..
            } => {
                if let Some((attacker, _)) = self.board[from.index()] {
                    self.last_hit[target.index()] = Some(attacker);
                    if let Some((t, _)) = self.board[target.index()]
                        && self.catalog.get(t).is_hq()
                    {
                        self.hq_damage[attacker.index()] += u64::from(wounds);
                    }
                }
            }
            E::Removed { cell, .. } => {
                if let Some(killer) = self.last_hit[cell.index()].take() {
                    self.kills[killer.index()] += 1;
                }
                self.board[cell.index()] = None;
            }
            E::Lifted { cell, .. } => {
                self.board[cell.index()] = None;
                self.last_hit[cell.index()] = None;
            }
            E::BattleEnded => self.last_hit.iter_mut().for_each(|h| *h = None),
            E::Discarded { tile, .. } => self.discards[tile.index()] += 1,
            _ => {}
        }
    }
}

/// The 95% Wilson interval of `wins` out of `n`: (low, high), both 0 for no games.
pub fn wilson(wins: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let z = 1.959_964_f64;
    let (n, p) = (n as f64, wins as f64 / n as f64);
    let d = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / d;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

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
    /// The rules, board and presets.
    pub table: &'a crate::matches::Table,
    /// The content line (mods, hashes, engine).
    pub content: String,
    /// The shard to play (`None`: every game).
    pub shard: Option<Shard>,
}

/// Plays the series' games (those of its shard) on every core, each folded into the tallies
/// as it finishes; the first game that fails stops nothing but is reported.
pub fn run<H: AbilityHooks>(
    setup: &Setup<'_>,
    catalog: Catalog,
    scripts: impl Fn() -> H + Sync + Send,
) -> Result<(Results, Vec<String>)> {
    if setup.armies.len() < 2 {
        bail!("balance needs two armies or more: --army A --army B ...");
    }
    let mut pairings = Vec::new();
    for i in 0..setup.armies.len() {
        for j in i + 1..setup.armies.len() {
            pairings.push((i, j));
        }
    }
    let rules = Arc::new(setup.table.rules()?);
    let board = setup.table.board(&rules);
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
            // Seat order and bots as `hexforge matches` gives them.
            let crate::matches::Seating {
                pairing,
                swapped,
                bots_swapped,
            } = crate::matches::Seating::of(k, pairings.len(), two_bots, false);
            let (a, b) = pairings[pairing];
            let (first, second) = if swapped { (b, a) } else { (a, b) };
            let bot_of = |army: usize| {
                let slot = usize::from(army == b) ^ usize::from(bots_swapped);
                setup.bots[slot].as_str()
            };
            let lineup = crate::matches::Lineup {
                armies: vec![&setup.armies[first], &setup.armies[second]],
                teams: None,
                bots: vec![bot_of(first), bot_of(second)],
                seed: crate::matches::game_seed(setup.seed, k),
            };
            let played = crate::matches::new_game(
                &lineup,
                (&catalog, &rules, board),
                scripts,
                &mut Vec::new(),
            )
            .and_then(|(mut game, mut bots)| {
                let mut players: Vec<&mut dyn Player> = bots
                    .iter_mut()
                    .map(|b| b.as_mut() as &mut dyn Player)
                    .collect();
                let mut watch = TileWatch::new(&catalog);
                let result = play_out(&mut game, &mut players, scripts, &mut watch)
                    .map_err(|e| anyhow::anyhow!("{}", crate::matches::stopped(&e)))?;
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
                    .push(format!("game {k} (seed {}): {e:#}", lineup.seed)),
            }
        });
    let (preset, options, board_id) = setup.table.setup();
    let mut rules_line = preset.to_string();
    for o in options {
        rules_line.push_str(&format!(" --option {o}"));
    }
    rules_line.push_str(&format!(" --board {board_id}"));
    Ok((
        Results {
            format: FORMAT.to_string(),
            armies: setup.armies.clone(),
            bots: setup.bots.clone(),
            rules: rules_line,
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

/// Reads a result file.
pub fn read(path: &Path) -> Result<Results> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let r: Results = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a balance result file (written by `hexforge balance --shard I/N --out FILE`)",
            path.display()
        )
    })?;
    if r.format != FORMAT {
        bail!(
            "{}: format `{}`, this Hexforge reads `{FORMAT}`: play the shard again with this version",
            path.display(),
            r.format
        );
    }
    Ok(r)
}

/// Merges result files of shards of one series into what one run gives; refused, with nothing
/// merged, when they come from different series (armies, bots, rules, seed, games, content,
/// shard count), when a shard is given twice, or when one is missing.
pub fn merge(files: &[(String, Results)]) -> Result<Results> {
    let Some((first_name, first)) = files.first() else {
        bail!("give the result files to merge");
    };
    let mut merged = first.clone();
    merged.shards.clear();
    for p in &mut merged.pairings {
        *p = PairingTally {
            a: p.a,
            b: p.b,
            ..PairingTally::default()
        };
    }
    merged.by_bot = [0; 3];
    for t in &mut merged.tiles {
        *t = TileImpact {
            tile: t.tile.clone(),
            ..TileImpact::default()
        };
    }
    for (name, r) in files {
        let differs = [
            ("armies", r.armies != first.armies),
            ("bots", r.bots != first.bots),
            ("rules", r.rules != first.rules),
            ("seed", r.seed != first.seed),
            ("games", r.games != first.games),
            (
                "content (mods, versions, hashes)",
                r.content != first.content,
            ),
            ("shard count", r.shards_of != first.shards_of),
        ];
        if let Some((what, _)) = differs.iter().find(|(_, d)| *d) {
            bail!(
                "{name} and {first_name} are not shards of one series: their {what} differ; nothing was merged"
            );
        }
        for s in &r.shards {
            if merged.shards.contains(s) {
                bail!(
                    "shard {s}/{} is given twice ({name}); nothing was merged",
                    r.shards_of
                );
            }
            merged.shards.push(*s);
        }
        for (m, p) in merged.pairings.iter_mut().zip(&r.pairings) {
            m.add(p);
        }
        for i in 0..3 {
            merged.by_bot[i] += r.by_bot[i];
        }
        for (m, t) in merged.tiles.iter_mut().zip(&r.tiles) {
            m.add(t);
        }
    }
    merged.shards.sort_unstable();
    let missing: Vec<String> = (1..=merged.shards_of)
        .filter(|s| !merged.shards.contains(s))
        .map(|s| format!("{s}/{}", merged.shards_of))
        .collect();
    if !missing.is_empty() {
        bail!(
            "shards {} are missing; nothing was merged",
            missing.join(", ")
        );
    }
    Ok(merged)
}

/// A percentage with its 95% interval: `52.3% (48.1-56.5)`.
fn rate(wins: u64, n: u64) -> String {
    if n == 0 {
        return "-".to_string();
    }
    let (lo, hi) = wilson(wins, n);
    format!(
        "{:.1}% ({:.1}-{:.1})",
        100.0 * wins as f64 / n as f64,
        100.0 * lo,
        100.0 * hi
    )
}

/// The tables of `r`: each pairing, each army overall, the first seat, the bots.
pub fn print(out: &mut impl Write, r: &Results) -> Result<()> {
    let played: u64 = r.pairings.iter().map(|p| p.games).sum();
    writeln!(
        out,
        "{played} games; bots {} vs {}; rules {}; seed {}; 95% intervals (Wilson)",
        r.bots[0], r.bots[1], r.rules, r.seed
    )?;
    writeln!(
        out,
        "{:<26} {:>6} {:>22} {:>6} {:>7} {:>8}",
        "pairing A vs B", "games", "A win% (95%)", "draws", "turns", "margin"
    )?;
    for p in &r.pairings {
        let decided = p.a_wins + p.b_wins;
        writeln!(
            out,
            "{:<26} {:>6} {:>22} {:>6} {:>7.1} {:>8.1}",
            format!("{} vs {}", r.armies[p.a], r.armies[p.b]),
            p.games,
            rate(p.a_wins, p.games),
            p.draws(),
            if p.games == 0 {
                0.0
            } else {
                p.turns as f64 / p.games as f64
            },
            if decided == 0 {
                0.0
            } else {
                p.margin as f64 / decided as f64
            }
        )?;
    }
    writeln!(out)?;
    writeln!(out, "{:<14} {:>6} {:>22}", "army", "games", "win% (95%)")?;
    for (i, army) in r.armies.iter().enumerate() {
        let (mut n, mut w) = (0, 0);
        for p in &r.pairings {
            if p.a == i {
                n += p.games;
                w += p.a_wins;
            } else if p.b == i {
                n += p.games;
                w += p.b_wins;
            }
        }
        writeln!(out, "{army:<14} {n:>6} {:>22}", rate(w, n))?;
    }
    let first: u64 = r.pairings.iter().map(|p| p.first_seat_wins).sum();
    writeln!(out)?;
    writeln!(out, "first seat wins {}", rate(first, played))?;
    tiles(out, r)?;
    if r.bots[0] != r.bots[1] {
        writeln!(
            out,
            "bots: {} wins {}, {} wins {}, {} draws",
            r.bots[0],
            rate(r.by_bot[0], played),
            r.bots[1],
            rate(r.by_bot[1], played),
            r.by_bot[2]
        )?;
    }
    Ok(())
}

/// What changed in the tiles of `armies` from `before` to `after`: a line per tile added,
/// removed, or with a printed field changed (`moloch/juggernaut: toughness 1 -> 2`).
pub fn tile_changes(before: &Catalog, after: &Catalog, armies: &[String]) -> Vec<String> {
    let describe = |c: &Catalog, t: hexforge_core::TileRef| {
        let d = c.get(t);
        vec![
            ("kind", d.kind.name().to_string()),
            ("count", d.count.to_string()),
            ("initiative", format!("{:?}", d.initiative.values())),
            ("toughness", d.toughness.to_string()),
            ("mobile", d.mobile.to_string()),
            (
                "edges",
                hexforge_content::edges::feature_strings(&d.edges).join(" "),
            ),
            ("module", format!("{:?}", d.module)),
            ("aura", format!("{:?}", d.aura)),
            (
                "abilities",
                d.abilities
                    .iter()
                    .map(|a| a.hook.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        ]
    };
    let mut lines = Vec::new();
    for army in armies {
        let ids = |c: &Catalog| -> Vec<String> {
            c.army(army)
                .map(|a| a.tiles.iter().map(|&t| c.get(t).full_id()).collect())
                .unwrap_or_default()
        };
        let (was, is) = (ids(before), ids(after));
        for id in &was {
            match (before.find(id), after.find(id)) {
                (Some(b), Some(a)) => {
                    for ((field, x), (_, y)) in
                        describe(before, b).into_iter().zip(describe(after, a))
                    {
                        if x != y {
                            lines.push(format!("{id}: {field} {x} -> {y}"));
                        }
                    }
                }
                _ => lines.push(format!("{id}: removed")),
            }
        }
        for id in is.iter().filter(|i| !was.contains(i)) {
            lines.push(format!("{id}: added"));
        }
    }
    lines
}

/// Compares two runs of the same series (the same seeds, armies and bots) on two contents: for
/// each pairing the first army's win rate before and after, the change's 95% margin (two
/// proportions, normal approximation) and whether it is beyond noise.
pub fn print_diff(
    out: &mut impl Write,
    before: &Results,
    after: &Results,
    changes: &[String],
) -> Result<()> {
    writeln!(out, "What changed:")?;
    if changes.is_empty() {
        writeln!(
            out,
            "  no tile of these armies differs (scripts or rules may)"
        )?;
    }
    for c in changes {
        writeln!(out, "  {c}")?;
    }
    writeln!(
        out,
        "Pairings ({} games each way, the same seeds; A's win% before -> after, 95% margin):",
        before.pairings.iter().map(|p| p.games).sum::<u64>()
    )?;
    for (b, a) in before.pairings.iter().zip(&after.pairings) {
        let (n1, n2) = (b.games.max(1) as f64, a.games.max(1) as f64);
        let (p1, p2) = (b.a_wins as f64 / n1, a.a_wins as f64 / n2);
        let se = (p1 * (1.0 - p1) / n1 + p2 * (1.0 - p2) / n2).sqrt();
        let margin = 1.959_964 * se;
        let d = p2 - p1;
        let verdict = if se > 0.0 && d.abs() > margin {
            "significant"
        } else {
            "within noise"
        };
        writeln!(
            out,
            "  {} vs {}: {:.1}% -> {:.1}% ({:+.1} ±{:.1}), {verdict}",
            before.armies[b.a],
            before.armies[b.b],
            100.0 * p1,
            100.0 * p2,
            100.0 * d,
            100.0 * margin
        )?;
    }
    Ok(())
}

/// How many games a tile needs placed and not placed before it is ranked.
const MIN_TILE_GAMES: u64 = 20;

/// The tiles that most over- and under-perform: the win rate of their player when they were
/// placed minus when they were not (each with its interval), with their HQ damage, kills and
/// discards per game; five of each, among tiles with [`MIN_TILE_GAMES`] games both ways.
fn tiles(out: &mut impl Write, r: &Results) -> Result<()> {
    let share = |w: u64, n: u64| w as f64 / n.max(1) as f64;
    let mut ranked: Vec<(&TileImpact, f64)> = r
        .tiles
        .iter()
        .filter(|t| t.placed_games >= MIN_TILE_GAMES && t.unplaced_games >= MIN_TILE_GAMES)
        .map(|t| {
            (
                t,
                share(t.placed_wins, t.placed_games) - share(t.unplaced_wins, t.unplaced_games),
            )
        })
        .collect();
    if ranked.is_empty() {
        return Ok(());
    }
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.tile.cmp(&b.0.tile)));
    let row = |out: &mut dyn Write, t: &TileImpact, d: f64| -> Result<()> {
        let games = (t.placed_games + t.unplaced_games).max(1) as f64;
        writeln!(
            out,
            "  {:<30} {:>+6.1} pts  placed {:>22}  not placed {:>22}  HQ dmg {:>5.2}  kills {:>5.2}  discards {:>5.2}",
            t.tile,
            100.0 * d,
            rate(t.placed_wins, t.placed_games),
            rate(t.unplaced_wins, t.unplaced_games),
            t.hq_damage as f64 / games,
            t.kills as f64 / games,
            t.discards as f64 / games,
        )?;
        Ok(())
    };
    writeln!(out)?;
    writeln!(
        out,
        "tiles whose player wins more when they are placed (win% placed minus not placed; per game: HQ damage, kills, discards):"
    )?;
    for (t, d) in ranked.iter().take(5) {
        row(out, t, *d)?;
    }
    writeln!(out, "tiles whose player wins less when they are placed:")?;
    for (t, d) in ranked.iter().rev().take(5) {
        row(out, t, *d)?;
    }
    Ok(())
}

/// The results as CSV: a row per pairing.
pub fn csv(r: &Results) -> String {
    let mut s = String::from(
        "army_a,army_b,games,a_wins,b_wins,draws,a_win_rate,a_low95,a_high95,first_seat_wins,mean_turns,mean_margin\n",
    );
    for p in &r.pairings {
        let (lo, hi) = wilson(p.a_wins, p.games);
        let n = p.games.max(1) as f64;
        let decided = (p.a_wins + p.b_wins).max(1) as f64;
        s.push_str(&format!(
            "{},{},{},{},{},{},{:.4},{:.4},{:.4},{},{:.2},{:.2}\n",
            r.armies[p.a],
            r.armies[p.b],
            p.games,
            p.a_wins,
            p.b_wins,
            p.draws(),
            p.a_wins as f64 / n,
            lo,
            hi,
            p.first_seat_wins,
            p.turns as f64 / n,
            p.margin as f64 / decided
        ));
    }
    s
}

/// The win/draw matrix as an SVG heatmap, drawn with `plotters`: the row army's win rate against
/// the column army (red below 50%, blue above), each cell labelled with its rate.
pub fn svg_heatmap(r: &Results) -> Result<String> {
    use plotters::prelude::*;
    let n = r.armies.len();
    // The row army's wins over games, for every ordered pair.
    let mut cell = vec![vec![None::<(u64, u64)>; n]; n];
    for p in &r.pairings {
        cell[p.a][p.b] = Some((p.a_wins, p.games));
        cell[p.b][p.a] = Some((p.b_wins, p.games));
    }
    let side = 80 * n as u32 + 200;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (side, side)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Row army's win rate against the column army",
                ("sans-serif", 16),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(110)
            .build_cartesian_2d(
                // A segmented range holds both its ends: n armies are 0..n-1.
                (0..n as i32 - 1).into_segmented(),
                (0..n as i32 - 1).into_segmented(),
            )
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let name = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => r.armies.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(n)
            .y_labels(n)
            .x_label_formatter(&name)
            .y_label_formatter(&name)
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        for (row, cells) in cell.iter().enumerate() {
            for (col, c) in cells.iter().enumerate() {
                let (x, y) = (col as i32, row as i32);
                let colour = match c {
                    Some((w, g)) if *g > 0 => {
                        let rate = *w as f64 / *g as f64;
                        let t = ((rate - 0.5) * 2.0).clamp(-1.0, 1.0);
                        if t < 0.0 {
                            RGBColor(255, (255.0 * (1.0 + t)) as u8, (255.0 * (1.0 + t)) as u8)
                        } else {
                            RGBColor((255.0 * (1.0 - t)) as u8, (255.0 * (1.0 - t)) as u8, 255)
                        }
                    }
                    _ => RGBColor(230, 230, 230),
                };
                let at = |v: i32| SegmentValue::Exact(v);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(at(x), at(y)), (at(x + 1), at(y + 1))],
                        colour.filled(),
                    )))
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                if let Some((w, g)) = c
                    && *g > 0
                {
                    chart
                        .draw_series(std::iter::once(Text::new(
                            format!("{:.0}%", 100.0 * *w as f64 / *g as f64),
                            (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                            ("sans-serif", 14),
                        )))
                        .map_err(|e| anyhow::anyhow!("{e}"))?;
                }
            }
        }
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(svg)
}

/// Each ranked tile's win-rate difference (placed minus not placed, in points) as a bar chart,
/// drawn with `plotters`; `None` when no tile has enough games to rank.
pub fn svg_tiles(r: &Results) -> Result<Option<String>> {
    use plotters::prelude::*;
    let share = |w: u64, n: u64| w as f64 / n.max(1) as f64;
    let mut ranked: Vec<(&str, f64)> = r
        .tiles
        .iter()
        .filter(|t| t.placed_games >= MIN_TILE_GAMES && t.unplaced_games >= MIN_TILE_GAMES)
        .map(|t| {
            (
                t.tile.as_str(),
                100.0
                    * (share(t.placed_wins, t.placed_games)
                        - share(t.unplaced_wins, t.unplaced_games)),
            )
        })
        .collect();
    if ranked.is_empty() {
        return Ok(None);
    }
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let top = ranked
        .iter()
        .map(|(_, d)| d.abs())
        .fold(5.0f64, f64::max)
        .ceil();
    let height = 24 * ranked.len() as u32 + 90;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Win rate with the tile placed minus without (points)",
                ("sans-serif", 16),
            )
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(230)
            .build_cartesian_2d(-top..top, (0..ranked.len() as i32 - 1).into_segmented())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        // The best tile at the top.
        let label = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => ranked
                .get(ranked.len().saturating_sub(1 + *i as usize))
                .map_or(String::new(), |(t, _)| t.to_string()),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .y_labels(ranked.len())
            .y_label_formatter(&label)
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        chart
            .draw_series(ranked.iter().rev().enumerate().map(|(i, (_, d))| {
                let colour = if *d >= 0.0 { BLUE } else { RED };
                Rectangle::new(
                    [
                        (0.0, SegmentValue::Exact(i as i32)),
                        (*d, SegmentValue::Exact(i as i32 + 1)),
                    ],
                    colour.mix(0.6).filled(),
                )
            }))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(Some(svg))
}

/// One self-contained HTML page: the tables as `print` gives them, the heatmap and the tile
/// chart inline (no file, script or address outside it).
pub fn html(r: &Results) -> Result<String> {
    let mut text = Vec::new();
    print(&mut text, r)?;
    let tiles = svg_tiles(r)?.unwrap_or_default();
    Ok(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Hexforge balance</title>\
         <style>body{{font-family:sans-serif;margin:2em}}pre{{background:#f4f4f4;padding:1em}}</style></head><body>\n\
         <h1>Balance: {}</h1>\n<p>Content: {}</p>\n<h2>Tables</h2>\n<pre id=\"tables\">{}</pre>\n\
         <h2>Win rates</h2>\n<div id=\"heatmap\">{}</div>\n<h2>Tiles</h2>\n<div id=\"tiles\">{}</div>\n</body></html>\n",
        hexforge_portal::pages::escape(&r.armies.join(", ")),
        hexforge_portal::pages::escape(&r.content),
        hexforge_portal::pages::escape(&String::from_utf8_lossy(&text)),
        svg_heatmap(r)?,
        tiles
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals_match_the_textbook() {
        let (lo, hi) = wilson(50, 100);
        assert!(
            (lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson(0, 10);
        assert!(lo == 0.0 && (hi - 0.2775).abs() < 1e-3, "{hi}");
        assert_eq!(wilson(0, 0), (0.0, 0.0));
    }

    #[test]
    fn a_shard_spec_is_checked() {
        assert_eq!(
            Shard::parse("2/4").expect("fine"),
            Shard { index: 2, of: 4 }
        );
        for bad in ["5/4", "0/4", "1/0", "x/4", "4"] {
            let e = Shard::parse(bad).expect_err(bad).to_string();
            assert!(e.contains("write I/N with 1 <= I <= N"), "{e}");
        }
    }
}
