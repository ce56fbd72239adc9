//! Choosing an action by pointing: a person picks a tile of the hand (or nothing, for a unit's
//! Mobility or a mod's action on the board), clicks hexes one after another, and turns the
//! facing; [`Aim`] narrows the engine's legal actions to those that fit, says which hexes may be
//! clicked next, and gives the action once the clicks name one. It never judges legality itself:
//! every action it gives is one of the engine's list.

use hexforge_core::game::Target;
use hexforge_core::{Action, Dir, Hex, TileRef};

/// The hexes an action names, in the order a person clicks them: where a tile is placed; an
/// instant's unit or hex, or the pusher then the pushed unit, or the moved unit then where it
/// goes (its own hex again to only turn); a Mobility move the same way; a mod action's hex.
pub fn hexes(a: &Action) -> Vec<Hex> {
    match *a {
        Action::Place { hex, .. } => vec![hex],
        Action::Instant { target, .. } => match target {
            Target::None => Vec::new(),
            Target::Move { unit, to, .. } => vec![unit, to],
            Target::Push { pusher, target } => vec![pusher, target],
            Target::Unit(h) | Target::Hex(h) => vec![h],
        },
        Action::Move { unit, to, .. } => vec![unit, to],
        Action::Rule { target, .. } => target.into_iter().collect(),
        Action::Discard { .. } | Action::Redraw | Action::EndTurn => Vec::new(),
    }
}

/// The facing an action gives, when it gives one.
pub fn facing(a: &Action) -> Option<Dir> {
    match *a {
        Action::Place { facing, .. } | Action::Move { facing, .. } => Some(facing),
        Action::Instant {
            target: Target::Move { facing, .. },
            ..
        } => Some(facing),
        Action::Rule { facing, .. } => facing,
        _ => None,
    }
}

/// The tile of the hand an action plays (placed, played as an instant); `None` for the rest.
/// A discard is not aimed on the board, so it has none here.
pub fn tile(a: &Action) -> Option<TileRef> {
    match *a {
        Action::Place { tile, .. } | Action::Instant { tile, .. } => Some(tile),
        _ => None,
    }
}

/// What the clicks so far lead to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Click one of these hexes next (in reading order, no repeats).
    Click(Vec<Hex>),
    /// The clicks name this action (the legal one with the facing asked, when it takes one).
    Act(usize),
    /// The clicks name actions with a facing, but not the one asked: turn the tile.
    Turn(Vec<Dir>),
    /// Nothing fits the clicks: start again.
    Nothing,
}

/// A person's aim: the tile picked (`None`: a board action with no tile), the hexes clicked, the
/// facing asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aim {
    /// The tile of the hand picked, if any.
    pub tile: Option<TileRef>,
    /// The hexes clicked so far.
    pub clicked: Vec<Hex>,
    /// The facing a placed or moved tile ends with.
    pub facing: Dir,
}

impl Aim {
    /// An aim with `tile` picked and nothing clicked, facing north.
    pub fn new(tile: Option<TileRef>) -> Aim {
        Aim {
            tile,
            clicked: Vec::new(),
            facing: Dir::N,
        }
    }

    /// The legal actions that fit the tile and the clicks so far, by index into `legal`.
    pub fn fitting<'a>(&'a self, legal: &'a [Action]) -> impl Iterator<Item = usize> + 'a {
        legal.iter().enumerate().filter_map(move |(i, a)| {
            let hs = hexes(a);
            (tile(a) == self.tile && !hs.is_empty() && hs.starts_with(&self.clicked)).then_some(i)
        })
    }

    /// What to do next among `legal`. When the clicks name actions that differ only in their
    /// facing, the one with the facing asked is given; when only one facing is allowed, that one.
    pub fn next(&self, legal: &[Action]) -> Next {
        let n = self.clicked.len();
        let mut click: Vec<Hex> = Vec::new();
        let mut done: Vec<usize> = Vec::new();
        for i in self.fitting(legal) {
            let hs = hexes(&legal[i]);
            if hs.len() == n {
                done.push(i);
            } else if !click.contains(&hs[n]) {
                click.push(hs[n]);
            }
        }
        if !click.is_empty() {
            click.sort_by_key(|h| (h.r(), h.q()));
            return Next::Click(click);
        }
        if let Some(&i) = done
            .iter()
            .find(|&&i| facing(&legal[i]).is_none_or(|f| f == self.facing))
        {
            return Next::Act(i);
        }
        let mut facings: Vec<Dir> = done.iter().filter_map(|&i| facing(&legal[i])).collect();
        facings.dedup();
        match (done.first(), facings.len()) {
            (None, _) => Next::Nothing,
            // Only one facing is allowed (an HQ faces north): it is taken whatever was turned.
            (Some(&i), 1) => Next::Act(i),
            _ => Next::Turn(facings),
        }
    }

    /// Turns the facing one step clockwise (`1`) or anticlockwise (`-1`).
    pub fn turn(&mut self, by: i32) {
        self.facing = Dir::new((i32::from(self.facing.index()) + by).rem_euclid(6) as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::Catalog;
    use hexforge_core::tile::{Tile, TileKind};

    fn two_tiles() -> (TileRef, TileRef) {
        let mut cat = Catalog::new();
        let hq = Tile::new("x", "hq", TileKind::Hq);
        let soldier = Tile::new("x", "soldier", TileKind::Soldier);
        cat.add_army("x", "X", 35, vec![hq, soldier])
            .expect("a valid army");
        (
            cat.find("x/hq").expect("hq"),
            cat.find("x/soldier").expect("soldier"),
        )
    }

    #[test]
    fn a_placement_asks_for_a_hex_then_takes_the_facing_turned_to() {
        let (_, soldier) = two_tiles();
        let mut legal = vec![Action::EndTurn];
        for h in [Hex::new(0, 1), Hex::new(1, 0)] {
            for f in Dir::ALL {
                legal.push(Action::Place {
                    tile: soldier,
                    hex: h,
                    facing: f,
                });
            }
        }
        let mut aim = Aim::new(Some(soldier));
        assert_eq!(
            aim.next(&legal),
            Next::Click(vec![Hex::new(1, 0), Hex::new(0, 1)])
        );
        aim.clicked.push(Hex::new(0, 1));
        aim.turn(-1);
        assert_eq!(aim.facing, Dir::new(5));
        let Next::Act(i) = aim.next(&legal) else {
            panic!("one action fits: {:?}", aim.next(&legal));
        };
        assert_eq!(
            legal[i],
            Action::Place {
                tile: soldier,
                hex: Hex::new(0, 1),
                facing: Dir::new(5),
            }
        );
    }

    #[test]
    fn a_move_asks_for_the_unit_then_where_and_a_missing_facing_says_turn() {
        let legal = vec![
            Action::Move {
                unit: Hex::new(0, 0),
                to: Hex::new(0, 1),
                facing: Dir::new(2),
            },
            Action::Move {
                unit: Hex::new(0, 0),
                to: Hex::new(0, 1),
                facing: Dir::new(4),
            },
            Action::Move {
                unit: Hex::new(0, 0),
                to: Hex::new(0, 0),
                facing: Dir::new(3),
            },
            Action::EndTurn,
        ];
        let mut aim = Aim::new(None);
        assert_eq!(aim.next(&legal), Next::Click(vec![Hex::new(0, 0)]));
        aim.clicked.push(Hex::new(0, 0));
        assert_eq!(
            aim.next(&legal),
            Next::Click(vec![Hex::new(0, 0), Hex::new(0, 1)])
        );
        aim.clicked.push(Hex::new(0, 1));
        assert_eq!(aim.next(&legal), Next::Turn(vec![Dir::new(2), Dir::new(4)]));
        aim.facing = Dir::new(4);
        assert_eq!(aim.next(&legal), Next::Act(1));
        // Turning in place: the unit's own hex again; its only facing is taken as it is.
        aim.clicked = vec![Hex::new(0, 0), Hex::new(0, 0)];
        assert_eq!(aim.next(&legal), Next::Act(2));
        // A tile picked from the hand is not a board action.
        let (_, soldier) = two_tiles();
        assert_eq!(Aim::new(Some(soldier)).next(&legal), Next::Nothing);
    }
}
