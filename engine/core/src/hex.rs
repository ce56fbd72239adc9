//! Hex geometry: axial coordinates, the six directions and edge numbering every file format uses.
//!
//! Hexes are flat-topped; coordinates are axial `[q, r]` with the board centre at `[0, 0]`.
//! Directions are numbered clockwise from north. A tile placed with facing `f` has its edge `i`
//! pointing in direction `(f + i) % 6`. Distances and ranges come from the `hexx` crate; the
//! direction table is fixed here because it is part of the file formats.

use std::fmt;

/// An axial hex coordinate `[q, r]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Hex {
    q: i32,
    r: i32,
}

impl Hex {
    /// The centre of every board.
    pub const ORIGIN: Hex = Hex { q: 0, r: 0 };

    /// The hex at axial `[q, r]`, on a board or not.
    pub const fn new(q: i32, r: i32) -> Self {
        Hex { q, r }
    }

    /// The axial column: grows toward the east (SE and NE steps add 1).
    pub const fn q(self) -> i32 {
        self.q
    }

    /// The axial row: grows toward the south (a S step adds 1).
    pub const fn r(self) -> i32 {
        self.r
    }

    fn to_hexx(self) -> hexx::Hex {
        hexx::Hex::new(self.q, self.r)
    }

    fn from_hexx(h: hexx::Hex) -> Self {
        Hex { q: h.x, r: h.y }
    }

    /// The hex one step away in direction `dir`.
    pub fn step(self, dir: Dir) -> Hex {
        let [dq, dr] = dir.offset();
        Hex::new(self.q + dq, self.r + dr)
    }

    /// Number of steps between two hexes.
    pub fn distance(self, other: Hex) -> u32 {
        self.to_hexx().unsigned_distance_to(other.to_hexx())
    }

    /// Distance from the board centre (the hexagon "ring" this hex is on).
    pub fn ring(self) -> u32 {
        self.distance(Hex::ORIGIN)
    }

    /// Every hex within `radius` steps of `self`, in reading order (see [`reading_order`]).
    pub fn within(self, radius: u32) -> Vec<Hex> {
        let mut v: Vec<Hex> = self.to_hexx().range(radius).map(Hex::from_hexx).collect();
        v.sort_by_key(|h| reading_order(*h));
        v
    }

    /// Every hex within `radius` steps of `self`, in no particular order and without allocating.
    pub fn area(self, radius: u32) -> impl Iterator<Item = Hex> {
        self.to_hexx().range(radius).map(Hex::from_hexx)
    }
}

/// Sort key that lists hexes top to bottom, then left to right, as a reader scans a flat-topped
/// board: the row is `2r + q` (twice the pixel height), the column `q`.
pub fn reading_order(h: Hex) -> (i32, i32) {
    (2 * h.r + h.q, h.q)
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.q, self.r)
    }
}

/// One of the six directions, clockwise from north (0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Dir(u8);

impl Dir {
    /// North, up the board: facing 0.
    pub const N: Dir = Dir(0);
    /// North-east, up and to the right: facing 1.
    pub const NE: Dir = Dir(1);
    /// South-east, down and to the right: facing 2.
    pub const SE: Dir = Dir(2);
    /// South, down the board: facing 3.
    pub const S: Dir = Dir(3);
    /// South-west, down and to the left: facing 4.
    pub const SW: Dir = Dir(4);
    /// North-west, up and to the left: facing 5.
    pub const NW: Dir = Dir(5);
    /// The six directions clockwise from north, for loops over neighbours and facings.
    pub const ALL: [Dir; 6] = [Dir(0), Dir(1), Dir(2), Dir(3), Dir(4), Dir(5)];

    const OFFSETS: [[i32; 2]; 6] = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]];
    const NAMES: [&'static str; 6] = ["N", "NE", "SE", "S", "SW", "NW"];

    /// The direction numbered `n` (taken modulo 6).
    pub const fn new(n: u8) -> Dir {
        Dir(n % 6)
    }

    /// Parses a direction number, refusing anything outside 0..=5.
    pub fn from_index(n: i64) -> Option<Dir> {
        (0..6).contains(&n).then_some(Dir(n as u8))
    }

    /// The direction's number, 0 (N) to 5 (NW), as files write facings.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The `[dq, dr]` step of this direction.
    pub const fn offset(self) -> [i32; 2] {
        Dir::OFFSETS[self.0 as usize]
    }

    /// The direction pointing the other way (three sixths round).
    pub const fn opposite(self) -> Dir {
        Dir(wrap6(self.0 + 3))
    }

    /// Turns clockwise by `steps` sixths.
    pub const fn rotate(self, steps: u8) -> Dir {
        Dir((self.0 + steps % 6) % 6)
    }

    /// The compass abbreviation (`N`, `NE`, ...) for messages and logs.
    pub const fn name(self) -> &'static str {
        Dir::NAMES[self.0 as usize]
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name())
    }
}

/// A tile's own edge, numbered clockwise from its front: 0 front ... 3 back ... 5 front-left.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Edge(u8);

impl Edge {
    /// The six edges from the front clockwise, for loops over a tile's edges.
    pub const ALL: [Edge; 6] = [Edge(0), Edge(1), Edge(2), Edge(3), Edge(4), Edge(5)];

    /// The edge's number from the front, 0 to 5, as files and edge icon arrays index it.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The board direction this edge points in when the tile has `facing`.
    pub const fn direction(self, facing: Dir) -> Dir {
        Dir(wrap6(facing.0 + self.0))
    }

    /// The edge of a tile with `facing` that points in board direction `dir`.
    pub const fn facing_toward(facing: Dir, dir: Dir) -> Edge {
        Edge(wrap6(dir.0 + 6 - facing.0))
    }
}

/// `n` (0 to 11: the sum of two sixths, each 0 to 5) brought back to 0 to 5.
#[inline(always)]
const fn wrap6(n: u8) -> u8 {
    if n >= 6 { n - 6 } else { n }
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_steps_match_the_scenario_format_table() {
        let expected = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]];
        for (d, e) in Dir::ALL.iter().zip(expected) {
            assert_eq!(Hex::ORIGIN.step(*d), Hex::new(e[0], e[1]), "direction {d}");
        }
    }

    #[test]
    fn opposite_directions_cancel() {
        for d in Dir::ALL {
            assert_eq!(Hex::ORIGIN.step(d).step(d.opposite()), Hex::ORIGIN);
        }
    }

    #[test]
    fn edge_i_of_facing_f_points_in_direction_f_plus_i() {
        for f in Dir::ALL {
            for e in Edge::ALL {
                let d = e.direction(f);
                assert_eq!(d.index(), (f.index() + e.index()) % 6);
                assert_eq!(Edge::facing_toward(f, d), e);
            }
        }
    }

    #[test]
    fn standard_and_extended_hexagons_have_19_and_37_hexes() {
        assert_eq!(Hex::ORIGIN.within(2).len(), 19);
        assert_eq!(Hex::ORIGIN.within(3).len(), 37);
        assert!(Hex::ORIGIN.within(2).iter().all(|h| h.ring() <= 2));
    }

    #[test]
    fn distance_agrees_with_the_max_norm_of_the_format() {
        for h in Hex::ORIGIN.within(3) {
            let norm = h.q().abs().max(h.r().abs()).max((h.q() + h.r()).abs());
            assert_eq!(h.ring() as i32, norm);
        }
    }

    #[test]
    fn reading_order_starts_at_the_top() {
        let hexes = Hex::ORIGIN.within(2);
        assert_eq!(hexes[0], Hex::new(0, -2));
        assert_eq!(*hexes.last().unwrap_or(&Hex::ORIGIN), Hex::new(0, 2));
    }
}
