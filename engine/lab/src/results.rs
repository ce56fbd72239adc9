//! What a series gives: each pairing's tally, each tile's impact, the bots' wins
//! ([`Results`], a result file's content), shards of a series ([`Shard`]) and their merge
//! ([`merge`]) into what one run gives.

use crate::error::LabError;
use serde::{Deserialize, Serialize};

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
    pub fn parse(text: &str) -> Result<Shard, LabError> {
        let bad = || LabError::BadShard(text.to_string());
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
    pub fn has(self, k: usize) -> bool {
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
    pub fn add(&mut self, o: &PairingTally) {
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
    /// The win rate of its player when it was placed minus when it was not (-1 to 1).
    pub fn impact(&self) -> f64 {
        let share = |w: u64, n: u64| w as f64 / n.max(1) as f64;
        share(self.placed_wins, self.placed_games) - share(self.unplaced_wins, self.unplaced_games)
    }

    /// `count` per game (seat) of its army.
    pub fn per_game(&self, count: u64) -> f64 {
        count as f64 / (self.placed_games + self.unplaced_games).max(1) as f64
    }

    /// Adds another shard's counts of the same tile.
    pub fn add(&mut self, o: &TileImpact) {
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

/// Merges result files of shards of one series into what one run gives; refused, with nothing
/// merged, when they come from different series (armies, bots, rules, seed, games, content,
/// shard count), when a shard is given twice, or when one is missing.
pub fn merge(files: &[(String, Results)]) -> Result<Results, LabError> {
    let Some((first_name, first)) = files.first() else {
        return Err(LabError::NothingToMerge);
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
            ("seeds", r.seed != first.seed),
            ("numbers of games", r.games != first.games),
            (
                "content (mods, versions, hashes)",
                r.content != first.content,
            ),
            ("shard counts", r.shards_of != first.shards_of),
        ];
        if let Some(&(what, _)) = differs.iter().find(|(_, d)| *d) {
            return Err(LabError::NotOneSeries {
                file: name.clone(),
                first: first_name.clone(),
                what,
            });
        }
        for s in &r.shards {
            if merged.shards.contains(s) {
                return Err(LabError::ShardTwice {
                    shard: *s,
                    of: r.shards_of,
                    file: name.clone(),
                });
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
        return Err(LabError::ShardsMissing(missing));
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn shards_of_one_series_merge_and_others_are_refused_with_nothing_merged() {
        let shard = |i: u32, wins: u64| Results {
            format: FORMAT.to_string(),
            armies: vec!["a".into(), "b".into()],
            bots: ["greedy".into(), "greedy".into()],
            rules: "classic".into(),
            seed: 1,
            games: 4,
            content: "c".into(),
            shards: vec![i],
            shards_of: 2,
            pairings: vec![PairingTally {
                a: 0,
                b: 1,
                games: 2,
                a_wins: wins,
                ..PairingTally::default()
            }],
            by_bot: [wins, 2 - wins, 0],
            tiles: Vec::new(),
        };
        let merged =
            merge(&[("1".into(), shard(1, 1)), ("2".into(), shard(2, 2))]).expect("merges");
        assert_eq!(merged.pairings[0].games, 4);
        assert_eq!(merged.pairings[0].a_wins, 3);
        assert_eq!(merged.shards, vec![1, 2]);
        let twice = merge(&[("1".into(), shard(1, 1)), ("1b".into(), shard(1, 1))]);
        assert!(matches!(twice, Err(LabError::ShardTwice { shard: 1, .. })));
        let missing = merge(&[("1".into(), shard(1, 1))]);
        assert!(matches!(missing, Err(LabError::ShardsMissing(_))));
        let mut other = shard(2, 1);
        other.seed = 9;
        let e = merge(&[("1".into(), shard(1, 1)), ("2".into(), other)]).expect_err("differs");
        assert!(e.to_string().contains("their seeds differ"), "{e}");
    }
}
