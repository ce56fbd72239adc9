//! Markers: named statuses that abilities put on tiles, hexes and players, with how long each
//! lasts and a number it may carry. Three names mean something to the engine
//! ([`MarkerName::IGNORES_NETS`], [`MarkerName::CANNOT_MOVE`], [`MarkerName::CANNOT_BE_PUSHED`]);
//! every other name is a mod's own, which scripts read and the engine keeps, hashes and shows.

use crate::seat::Seat;
use crate::shape::Cell;
use std::fmt;

/// The longest marker name, in bytes.
pub const MAX_NAME: usize = 23;

/// A marker's name: 1 to [`MAX_NAME`] lowercase ASCII letters, digits and `_`, starting with a
/// letter. Kept inline, so markers and the events that carry them stay `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MarkerName {
    len: u8,
    bytes: [u8; MAX_NAME],
}

/// Why a text is not a marker name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadMarkerName(pub String);

impl fmt::Display for BadMarkerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a marker name: use 1 to {MAX_NAME} lowercase letters, digits and `_`, starting with a letter (e.g. `soaked`)",
            self.0
        )
    }
}

impl std::error::Error for BadMarkerName {}

impl MarkerName {
    /// The unit is never netted while it carries this marker (R6.1 does not apply to it).
    pub const IGNORES_NETS: MarkerName = MarkerName::known("ignores_nets");
    /// The unit may not move: no Mobility, no Move instant (R3.13, R5.2).
    pub const CANNOT_MOVE: MarkerName = MarkerName::known("cannot_move");
    /// The unit may not be pushed (R5.3).
    pub const CANNOT_BE_PUSHED: MarkerName = MarkerName::known("cannot_be_pushed");

    /// The names the engine gives a meaning to.
    pub const ENGINE: [MarkerName; 3] = [
        MarkerName::IGNORES_NETS,
        MarkerName::CANNOT_MOVE,
        MarkerName::CANNOT_BE_PUSHED,
    ];

    const fn known(s: &str) -> MarkerName {
        let b = s.as_bytes();
        let mut bytes = [0u8; MAX_NAME];
        let mut i = 0;
        while i < b.len() {
            bytes[i] = b[i];
            i += 1;
        }
        MarkerName {
            len: b.len() as u8,
            bytes,
        }
    }

    /// Checks a name (the rules of [`MarkerName`]).
    pub fn new(s: &str) -> Result<MarkerName, BadMarkerName> {
        let b = s.as_bytes();
        let ok = !b.is_empty()
            && b.len() <= MAX_NAME
            && b[0].is_ascii_lowercase()
            && b.iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_');
        if !ok {
            return Err(BadMarkerName(s.chars().take(40).collect()));
        }
        Ok(MarkerName::known(s))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        // Only ASCII ever goes in (checked by `new`, or a constant).
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }

    /// Whether the engine gives this name a meaning of its own.
    pub fn is_engine(&self) -> bool {
        MarkerName::ENGINE.contains(self)
    }
}

impl fmt::Debug for MarkerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MarkerName({})", self.as_str())
    }
}

impl fmt::Display for MarkerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
    fn marker_names_are_checked_and_kept_inline() {
        let n = MarkerName::new("soaked_2").expect("a good name");
        assert_eq!(n.as_str(), "soaked_2");
        assert!(!n.is_engine());
        assert!(
            MarkerName::new("cannot_move")
                .expect("engine name")
                .is_engine()
        );
        for bad in [
            "",
            "Soaked",
            "2wet",
            "with space",
            "a_name_far_too_long_for_a_marker",
        ] {
            assert!(MarkerName::new(bad).is_err(), "{bad}");
        }
    }
}
