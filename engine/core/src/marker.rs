//! Markers: named statuses that abilities put on tiles, hexes and players, with how long each
//! lasts and a number it may carry. Some names mean something to the engine
//! ([`MarkerName::ENGINE`]: nets, moves, pushes, initiative, armor and nets on edges); every
//! other name is a mod's own, which scripts read and the engine keeps, hashes and shows.

use crate::seat::Seat;
use crate::shape::Cell;

pub use crate::marker_name::{BadMarkerName, MAX_NAME, MarkerName};

impl MarkerName {
    /// Whether a marker of this name may carry `value`, and where it may go: the engine's names
    /// that read their value take only values they understand; `initiative` goes on a tile or a
    /// hex (R9.7: it raises the unit standing there), the edge markers only on tiles. The error
    /// says what to use.
    pub fn check(&self, on: MarkOn, value: i16) -> Result<(), String> {
        let reads_value = *self == MarkerName::INITIATIVE || self.is_edges();
        if !reads_value {
            return Ok(());
        }
        match on {
            MarkOn::Tile(_) => {}
            MarkOn::Hex(_) if *self == MarkerName::INITIATIVE => {}
            MarkOn::Hex(_) => {
                return Err(format!(
                    "the engine's marker `{self}` goes on a tile, not on a hex or a player"
                ));
            }
            MarkOn::Player(_) => {
                return Err(format!(
                    "the engine's marker `{self}` goes on a tile{}, not on a player",
                    if *self == MarkerName::INITIATIVE {
                        " or a hex"
                    } else {
                        ""
                    }
                ));
            }
        }
        if *self == MarkerName::INITIATIVE && !(-9..=9).contains(&value) {
            return Err(format!(
                "the `initiative` marker's value is added to initiative: use -9 to 9, not {value}"
            ));
        }
        if self.is_edges() && !(1..=63).contains(&value) {
            return Err(format!(
                "the `{self}` marker's value is a mask of edges (1 front, 2 front-right, 4, 8, 16, 32): use 1 to 63, not {value}"
            ));
        }
        Ok(())
    }
}

/// How long a marker lasts.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Lasts {
    /// Until the end of the turn in which it was put (the next end of a turn).
    Turn,
    /// Until the end of the next battle (the battle being fought, if it is put during one).
    Battle,
    /// For this many ends of turns (whoever's turn), 1 to 99; it comes off at the last.
    Turns(u8),
    /// Until an ability takes it off, or its tile leaves the board.
    Permanent,
}

impl Lasts {
    /// The word scripts and logs use: `turn`, `battle`, a number of turns, or `permanent`.
    pub fn describe(self) -> String {
        match self {
            Lasts::Turn => "until the end of the turn".into(),
            Lasts::Battle => "until the end of the next battle".into(),
            Lasts::Turns(1) => "for 1 turn".into(),
            Lasts::Turns(n) => format!("for {n} turns"),
            Lasts::Permanent => "permanently".into(),
        }
    }
}

/// What a marker is on.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum MarkOn {
    /// The tile on this cell: the marker moves with it and leaves the board with it.
    Tile(Cell),
    /// The hex itself, whatever stands on it.
    Hex(Cell),
    /// A player.
    Player(Seat),
}

/// A marker in play.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Mark {
    /// What it is on.
    pub on: MarkOn,
    /// Its name.
    pub name: MarkerName,
    /// How long it lasts (for `Turns`, what is left).
    pub lasts: Lasts,
    /// A number it carries (a counter, a strength), -999 to 999; 0 when none is given.
    pub value: i16,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initiative_goes_on_tiles_and_hexes_and_edge_markers_only_on_tiles() {
        let cell = crate::shape::BoardShape::standard()
            .cells()
            .next()
            .expect("a cell");
        let i = MarkerName::INITIATIVE;
        assert_eq!(i.check(MarkOn::Tile(cell), 9), Ok(()));
        assert_eq!(i.check(MarkOn::Hex(cell), -9), Ok(()));
        assert!(
            i.check(MarkOn::Hex(cell), 10)
                .is_err_and(|e| e.contains("use -9 to 9"))
        );
        assert_eq!(
            i.check(MarkOn::Player(crate::seat::Seat::new(0)), 1),
            Err("the engine's marker `initiative` goes on a tile or a hex, not on a player".into())
        );
        assert_eq!(
            MarkerName::ADD_ARMOR.check(MarkOn::Hex(cell), 1),
            Err("the engine's marker `add_armor` goes on a tile, not on a hex or a player".into())
        );
        let mud = MarkerName::new("mud").expect("a name");
        assert_eq!(mud.check(MarkOn::Hex(cell), 500), Ok(()));
    }
}
