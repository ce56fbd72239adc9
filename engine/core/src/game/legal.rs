//! The list of a state's legal actions ([`LegalActions`]): explicit actions plus compact runs of
//! placements and moves, read by index without writing every action out.

use super::{Action, Target};
use crate::hex::{Dir, Hex};
use crate::shape::{BoardShape, Cell, MAX_CELLS};
use crate::tile::TileRef;
use std::fmt;

/// Every legal action of a game state, in the order of [`Game::legal_actions`](super::Game::legal_actions).
///
/// Placements and moves are kept as runs (a tile and the empty hexes it may go to; a unit, its
/// facing and the hexes it reaches), so a player that picks one index, like a random bot, does
/// not pay for writing out hundreds of actions. [`LegalActions::get`] and [`LegalActions::iter`]
/// give the actions themselves. Make one with [`LegalActions::new`] and reuse it: listing into it
/// keeps its allocations.
#[derive(Clone, Default)]
pub struct LegalActions {
    /// The hexes of the listed state's board, by cell: what the runs' cells are read with.
    hexes: Vec<Hex>,
    /// The actions not kept in a compact run, in order.
    listed: Vec<Action>,
    runs: Vec<Stretch>,
    len: usize,
}

/// A run and how many actions it stands for (worked out once, when it is listed).
#[derive(Clone, Copy, Debug)]
struct Stretch {
    run: Run,
    len: u32,
}

/// A stretch of the list.
#[derive(Clone, Copy, Debug)]
enum Run {
    /// `listed[from..]`, as many as the stretch holds.
    Listed { from: u32 },
    /// `tile` on each cell of `cells` in reading order, each with every facing of [`Dir::ALL`].
    Place { tile: TileRef, cells: u64 },
    /// The unit on `unit`, facing `facing`, turns to each other facing, then moves to each cell
    /// of `to` in reading order with every facing: Mobility (`tile` is `None`) or the Move instant
    /// `tile`.
    Move {
        tile: Option<TileRef>,
        unit: Cell,
        facing: Dir,
        to: u64,
    },
}

/// A run of the list as [`LegalActions::retain`] shows it, to be narrowed as a whole.
#[derive(Clone, Copy, Debug)]
pub(super) enum Whole {
    /// A tile placed on each cell of `cells`, every facing.
    Place {
        /// The cells it goes on.
        cells: u64,
    },
    /// The unit on `unit` turning in place, then moving to each cell of `to`: Mobility (`tile`
    /// is `None`) or the Move instant `tile`.
    Move {
        /// The Move instant, or `None` for Mobility.
        tile: Option<TileRef>,
        /// Where the unit stands.
        unit: Cell,
        /// Where it may move.
        to: u64,
    },
}

/// Placements per empty hex and moves per reached hex: one per facing.
const FACINGS: usize = Dir::ALL.len();

impl Run {
    /// How many actions the run stands for when it is listed (a listed run starts with one).
    fn len(self) -> usize {
        match self {
            Run::Listed { .. } => 1,
            Run::Place { cells, .. } => cells.count_ones() as usize * FACINGS,
            Run::Move { to, .. } => FACINGS - 1 + to.count_ones() as usize * FACINGS,
        }
    }

    /// The `k`-th action of the run; `k` is less than its stretch's length.
    fn get(self, k: usize, hexes: &[Hex], listed: &[Action]) -> Option<Action> {
        match self {
            Run::Listed { from, .. } => listed.get(from as usize + k).copied(),
            Run::Place { tile, cells } => Some(Action::Place {
                tile,
                hex: *hexes.get(nth_bit(cells, k / FACINGS))?,
                facing: Dir::ALL[k % FACINGS],
            }),
            Run::Move {
                tile,
                unit,
                facing,
                to,
            } => {
                let from = *hexes.get(unit.index())?;
                let (to, facing) = if k < FACINGS - 1 {
                    // The other facings in order: skip the one the unit has.
                    let skip = usize::from(k >= usize::from(facing.index()));
                    (from, Dir::ALL[k + skip])
                } else {
                    let k = k - (FACINGS - 1);
                    (*hexes.get(nth_bit(to, k / FACINGS))?, Dir::ALL[k % FACINGS])
                };
                Some(match tile {
                    None => Action::Move {
                        unit: from,
                        to,
                        facing,
                    },
                    Some(tile) => Action::Instant {
                        tile,
                        target: Target::Move {
                            unit: from,
                            to,
                            facing,
                        },
                    },
                })
            }
        }
    }
}

/// The index of the `n`-th set bit of `mask` (64 past the last one).
fn nth_bit(mut mask: u64, n: usize) -> usize {
    for _ in 0..n {
        mask &= mask.wrapping_sub(1);
    }
    mask.trailing_zeros() as usize
}

impl LegalActions {
    /// An empty list with room for the lists of a whole game (no growth while it is played).
    pub fn new() -> Self {
        LegalActions {
            hexes: Vec::with_capacity(MAX_CELLS),
            listed: Vec::with_capacity(32),
            runs: Vec::with_capacity(32),
            len: 0,
        }
    }

    /// How many legal actions there are.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no legal action, as once the game is over.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th legal action, if `i < self.len()`.
    pub fn get(&self, i: usize) -> Option<Action> {
        let mut k = i;
        for s in &self.runs {
            let n = s.len as usize;
            if k < n {
                return s.run.get(k, &self.hexes, &self.listed);
            }
            k -= n;
        }
        None
    }

    /// Every legal action, in order.
    pub fn iter(&self) -> impl Iterator<Item = Action> + '_ {
        self.runs.iter().flat_map(move |s| {
            (0..s.len as usize).filter_map(move |k| s.run.get(k, &self.hexes, &self.listed))
        })
    }

    /// Whether `action` is listed.
    pub fn contains(&self, action: &Action) -> bool {
        self.iter().any(|a| a == *action)
    }

    /// The index of the first listed action that satisfies `pred`.
    pub fn position(&self, pred: impl FnMut(Action) -> bool) -> Option<usize> {
        self.iter().position(pred)
    }

    /// Every legal action, written out.
    pub fn to_vec(&self) -> Vec<Action> {
        self.iter().collect()
    }

    /// Empties the list for a state on a board of `shape`.
    pub(super) fn clear(&mut self, shape: &BoardShape) {
        self.hexes.clear();
        self.hexes.extend_from_slice(shape.hexes());
        self.listed.clear();
        self.runs.clear();
        self.len = 0;
    }

    /// Appends one action.
    pub(super) fn push(&mut self, action: Action) {
        match self.runs.last_mut() {
            Some(Stretch {
                run: Run::Listed { .. },
                len,
            }) => *len += 1,
            _ => self.runs.push(Stretch {
                run: Run::Listed {
                    from: self.listed.len() as u32,
                },
                len: 1,
            }),
        }
        self.listed.push(action);
        self.len += 1;
    }

    /// Appends the placements of `tile` on each cell of `cells`, every facing in turn.
    pub(super) fn push_placements(&mut self, tile: TileRef, cells: u64) {
        self.push_run(Run::Place { tile, cells });
    }

    /// Appends the moves of the unit on `unit`, facing `facing`: turning to each other facing, then
    /// moving to each cell of `to` with every facing. `tile` is the Move instant, `None` for
    /// Mobility.
    pub(super) fn push_moves(&mut self, tile: Option<TileRef>, unit: Cell, facing: Dir, to: u64) {
        self.push_run(Run::Move {
            tile,
            unit,
            facing,
            to,
        });
    }

    /// Keeps only the actions a game rule's restriction leaves open, in order: each run narrowed
    /// as a whole by `narrow` (the cells of a placement run, or the destinations of a move run,
    /// left open; `None` when the whole run is closed; turning in place, part of every move run,
    /// stays with the run), each action listed on its own kept when `open` says so. Done in
    /// place: the list keeps its allocations.
    pub(super) fn retain(
        &mut self,
        mut narrow: impl FnMut(Whole) -> Option<u64>,
        mut open: impl FnMut(&Action) -> bool,
    ) {
        let (mut runs, mut listed) = (0, 0);
        self.len = 0;
        for r in 0..self.runs.len() {
            let s = self.runs[r];
            let run = match s.run {
                Run::Listed { from } => {
                    let start = listed;
                    for k in from as usize..from as usize + s.len as usize {
                        let a = self.listed[k];
                        if open(&a) {
                            self.listed[listed] = a;
                            listed += 1;
                        }
                    }
                    (listed > start).then_some(Run::Listed { from: start as u32 })
                }
                Run::Place { tile, cells } => {
                    narrow(Whole::Place { cells }).map(|cells| Run::Place { tile, cells })
                }
                Run::Move {
                    tile,
                    unit,
                    facing,
                    to,
                } => narrow(Whole::Move { tile, unit, to }).map(|to| Run::Move {
                    tile,
                    unit,
                    facing,
                    to,
                }),
            };
            let Some(run) = run else { continue };
            let n = match run {
                Run::Listed { from } => listed - from as usize,
                other => other.len(),
            };
            if n > 0 {
                self.runs[runs] = Stretch { run, len: n as u32 };
                runs += 1;
                self.len += n;
            }
        }
        self.runs.truncate(runs);
        self.listed.truncate(listed);
    }

    fn push_run(&mut self, run: Run) {
        let n = run.len();
        if n > 0 {
            self.runs.push(Stretch { run, len: n as u32 });
            self.len += n;
        }
    }
}

impl fmt::Debug for LegalActions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for LegalActions {
    /// The same actions in the same order, however they are kept.
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for LegalActions {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::{Catalog, Tile, TileKind};

    fn tiles() -> (TileRef, TileRef) {
        let mut c = Catalog::new();
        let hq = Tile::new("a", "hq", TileKind::Hq);
        let soldier = Tile::new("a", "soldier", TileKind::Soldier);
        c.add_army("a", "a", 2, vec![hq, soldier]).expect("army");
        let army = c.army("a").expect("army");
        (army.tiles[0], army.tiles[1])
    }

    /// The runs read as the explicit list they stand for, by index and in order.
    #[test]
    fn runs_read_as_the_explicit_list() {
        let shape = BoardShape::standard();
        let (a, b) = tiles();
        let cell = |h: Hex| shape.cell(h).expect("on the board");
        let (x, y, z) = (Hex::new(0, 0), Hex::new(1, -1), Hex::new(0, 2));
        let mut legal = LegalActions::new();
        legal.clear(&shape);
        legal.push(Action::Discard { tile: a });
        legal.push_placements(b, cell(y).bit() | cell(x).bit());
        legal.push_placements(a, 0);
        legal.push_moves(None, cell(x), Dir::ALL[2], cell(z).bit());
        legal.push_moves(Some(a), cell(z), Dir::ALL[0], 0);
        legal.push(Action::EndTurn);

        let mut expected = vec![Action::Discard { tile: a }];
        // Placements: hexes in reading order (cells), then facings.
        let mut hexes = [x, y];
        hexes.sort_by_key(|h| cell(*h).index());
        for hex in hexes {
            for facing in Dir::ALL {
                expected.push(Action::Place {
                    tile: b,
                    hex,
                    facing,
                });
            }
        }
        for facing in Dir::ALL {
            if facing != Dir::ALL[2] {
                expected.push(Action::Move {
                    unit: x,
                    to: x,
                    facing,
                });
            }
        }
        for facing in Dir::ALL {
            expected.push(Action::Move {
                unit: x,
                to: z,
                facing,
            });
        }
        for facing in Dir::ALL.into_iter().skip(1) {
            expected.push(Action::Instant {
                tile: a,
                target: Target::Move {
                    unit: z,
                    to: z,
                    facing,
                },
            });
        }
        expected.push(Action::EndTurn);

        assert_eq!(legal.len(), expected.len());
        assert_eq!(legal.to_vec(), expected);
        for (i, a) in expected.iter().enumerate() {
            assert_eq!(legal.get(i), Some(*a), "index {i}");
        }
        assert_eq!(legal.get(expected.len()), None);
        assert!(legal.contains(&Action::EndTurn));
        assert_eq!(
            legal.position(|a| a == Action::EndTurn),
            Some(expected.len() - 1)
        );

        legal.clear(&shape);
        assert!(legal.is_empty());
        assert_eq!(legal.get(0), None);
        assert_eq!(legal.iter().count(), 0);
    }
}
