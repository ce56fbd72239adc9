//! Marker names: the checked, packed name every marker carries, with the names the engine
//! reads itself. A leaf, below the tiles and rules that name markers.

use std::fmt;

/// The longest marker name, in characters.
pub const MAX_NAME: usize = 12;

/// A marker's name: 1 to [`MAX_NAME`] lowercase ASCII letters, digits and `_`, starting with a
/// letter. Packed into 8 bytes (a base-38 number whose order is the names' alphabetical order),
/// so markers and the events that carry them stay small and `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct MarkerName([u8; 8]);

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

/// The code of a name's character (0 ends the name), in ASCII order: digits, `_`, letters.
const fn code(c: u8) -> u64 {
    match c {
        b'0'..=b'9' => (c - b'0') as u64 + 1,
        b'_' => 11,
        b'a'..=b'z' => (c - b'a') as u64 + 12,
        _ => 0,
    }
}

/// The character of a code.
const fn letter(code: u64) -> u8 {
    match code {
        1..=10 => b'0' + (code - 1) as u8,
        11 => b'_',
        _ => b'a' + (code - 12) as u8,
    }
}

impl MarkerName {
    /// The unit is never netted while it carries this marker (R6.1 does not apply to it).
    pub const IGNORES_NETS: MarkerName = MarkerName::known("ignores_nets");
    /// The unit may not move: no Mobility, no Move instant (R3.13, R5.2).
    pub const CANNOT_MOVE: MarkerName = MarkerName::known("cannot_move");
    /// The unit may not be pushed (R5.3).
    pub const UNPUSHABLE: MarkerName = MarkerName::known("unpushable");

    /// Its value (-9 to 9) is added to each of the unit's initiative values in battles (R3.7.5,
    /// floored at 0 like any modifier). On a hex, it is added to the initiative of whichever unit
    /// stands there (R9.7).
    pub const INITIATIVE: MarkerName = MarkerName::known("initiative");
    /// The tile's edges in its value (a mask: bit 0 the front edge, then clockwise) carry armor.
    pub const ADD_ARMOR: MarkerName = MarkerName::known("add_armor");
    /// The tile's edges in its value lose their armor.
    pub const DROP_ARMOR: MarkerName = MarkerName::known("drop_armor");
    /// The tile's edges in its value carry a net.
    pub const ADD_NET: MarkerName = MarkerName::known("add_net");
    /// The tile's edges in its value lose their net.
    pub const DROP_NET: MarkerName = MarkerName::known("drop_net");

    /// The names the engine gives a meaning to.
    pub const ENGINE: [MarkerName; 8] = [
        MarkerName::IGNORES_NETS,
        MarkerName::CANNOT_MOVE,
        MarkerName::UNPUSHABLE,
        MarkerName::INITIATIVE,
        MarkerName::ADD_ARMOR,
        MarkerName::DROP_ARMOR,
        MarkerName::ADD_NET,
        MarkerName::DROP_NET,
    ];

    /// The names whose value is a mask of the tile's edges, and which change its edges.
    pub const EDGES: [MarkerName; 4] = [
        MarkerName::ADD_ARMOR,
        MarkerName::DROP_ARMOR,
        MarkerName::ADD_NET,
        MarkerName::DROP_NET,
    ];

    /// Packs a name already known to be good.
    const fn known(s: &str) -> MarkerName {
        let b = s.as_bytes();
        let mut v: u64 = 0;
        let mut i = 0;
        while i < MAX_NAME {
            let c = if i < b.len() { code(b[i]) } else { 0 };
            v = v * 38 + c;
            i += 1;
        }
        MarkerName(v.to_le_bytes())
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

    /// The packed number: its order is the names' alphabetical order.
    fn value(self) -> u64 {
        u64::from_le_bytes(self.0)
    }

    /// The name's characters into `buf`, as text.
    pub fn write<'b>(&self, buf: &'b mut [u8; MAX_NAME]) -> &'b str {
        let mut v = self.value();
        let mut codes = [0u64; MAX_NAME];
        for slot in codes.iter_mut().rev() {
            *slot = v % 38;
            v /= 38;
        }
        let mut n = 0;
        for c in codes {
            if c == 0 {
                break;
            }
            buf[n] = letter(c);
            n += 1;
        }
        // Only the ASCII of `letter` goes in.
        std::str::from_utf8(&buf[..n]).unwrap_or("")
    }

    /// Whether the engine gives this name a meaning of its own.
    pub fn is_engine(&self) -> bool {
        MarkerName::ENGINE.contains(self)
    }

    /// Whether this name's value is a mask of edges that changes its tile's edges.
    pub fn is_edges(&self) -> bool {
        MarkerName::EDGES.contains(self)
    }
}

impl PartialOrd for MarkerName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for MarkerName {
    /// Alphabetical order of the names.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.value().cmp(&other.value())
    }
}

impl fmt::Debug for MarkerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MarkerName({self})")
    }
}

impl fmt::Display for MarkerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.write(&mut [0; MAX_NAME]))
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_names_are_checked_packed_and_ordered() {
        let n = MarkerName::new("soaked_2").expect("a good name");
        assert_eq!(n.to_string(), "soaked_2");
        assert!(!n.is_engine());
        let engine = MarkerName::new("cannot_move").expect("engine name");
        assert!(engine.is_engine());
        assert_eq!(MarkerName::IGNORES_NETS.to_string(), "ignores_nets");
        for bad in ["", "Soaked", "2wet", "with space", "thirteen_char"] {
            assert!(MarkerName::new(bad).is_err(), "{bad}");
        }
        // The packed order is the alphabetical order.
        let mut names: Vec<MarkerName> = ["b", "a_", "a", "a9", "ab", "z", "a0"]
            .iter()
            .map(|s| MarkerName::new(s).expect("a name"))
            .collect();
        names.sort();
        let sorted: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        assert_eq!(sorted, ["a", "a0", "a9", "a_", "ab", "b", "z"]);
    }
}
