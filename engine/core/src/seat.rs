//! Player seats: who plays, numbered in turn order from 0. A leaf type every layer shares.

use std::fmt;

/// A player seat, in turn order from 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Seat(pub(crate) u8);

impl Seat {
    /// The seat at position `i` in turn order (0 for the first player).
    pub const fn new(i: u8) -> Self {
        Seat(i)
    }

    /// The seat's position, for tables indexed by player.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "player {}", self.0 + 1)
    }
}
