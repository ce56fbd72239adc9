//! Board shapes: which hexes exist, their cell indices, neighbour table and the main play area.
//!
//! A shape is built once per match; the battle engine works on cell indices (`Cell`) and the
//! precomputed neighbour table, never on coordinates, so a battle does no hex arithmetic.

use crate::hex::{Dir, Hex, reading_order};
use std::fmt;
use std::sync::OnceLock;

/// The largest number of hexes a board may have. Cell sets are 64-bit masks.
pub const MAX_CELLS: usize = 64;

/// Index of a hex in its board shape (reading order).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Cell(u8);

impl Cell {
    /// The cell's position in reading order, for per-cell tables and 64-bit cell masks.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub(crate) const fn bit(self) -> u64 {
        1u64 << self.0
    }
}

const NO_CELL: u8 = u8::MAX;

/// Why a list of hexes is not a usable board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// The list holds no hex.
    Empty,
    /// The list has more hexes than a board may hold ([`MAX_CELLS`]).
    TooLarge {
        /// How many hexes were listed.
        hexes: usize,
    },
    /// The hex is listed twice.
    Duplicate(Hex),
    /// A hex of the main area is not one of the board's hexes.
    MainOutside(Hex),
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::Empty => write!(f, "a board needs at least one hex"),
            ShapeError::TooLarge { hexes } => {
                write!(
                    f,
                    "a board may have at most {MAX_CELLS} hexes, this one has {hexes}"
                )
            }
            ShapeError::Duplicate(h) => write!(f, "hex {h} is listed twice"),
            ShapeError::MainOutside(h) => {
                write!(f, "main-area hex {h} is not one of the board's hexes")
            }
        }
    }
}

impl std::error::Error for ShapeError {}

/// The hexes of a board, in reading order, with the neighbour of every cell in every direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardShape {
    name: String,
    hexes: Vec<Hex>,
    neighbours: Vec<[u8; 6]>,
    /// Cells whose fullness starts a Battle (R4.1(b); with the extended board only the 19 main hexes, R8.7).
    main: u64,
    /// The cell of every hex in the bounding box of the board, row by row from `corner`
    /// (`NO_CELL` off the board): finding a hex's cell is one lookup.
    grid: Vec<u8>,
    corner: Hex,
    width: i32,
}

impl BoardShape {
    /// The 19-hex battlefield (R1.2).
    pub fn standard() -> Self {
        static STANDARD: OnceLock<BoardShape> = OnceLock::new();
        STANDARD
            .get_or_init(|| Self::hexagon("standard", 2, 2))
            .clone()
    }

    /// The 37-hex extended battlefield whose fullness is judged on its 19 main hexes (R1.3, R8.7, Q9).
    pub fn extended() -> Self {
        static EXTENDED: OnceLock<BoardShape> = OnceLock::new();
        EXTENDED
            .get_or_init(|| Self::hexagon("extended", 3, 2))
            .clone()
    }

    fn hexagon(name: &str, radius: u32, main_radius: u32) -> Self {
        let hexes = Hex::ORIGIN.within(radius);
        let main: Vec<Hex> = hexes
            .iter()
            .copied()
            .filter(|h| h.ring() <= main_radius)
            .collect();
        match Self::from_hexes(name, hexes, Some(&main)) {
            Ok(s) => s,
            Err(e) => unreachable!("hexagon boards are valid: {e}"),
        }
    }

    /// A board named `name` from any list of hexes (map variants). `main` lists the hexes whose
    /// fullness starts a Battle; `None` means all of them.
    pub fn from_hexes(
        name: &str,
        hexes: Vec<Hex>,
        main: Option<&[Hex]>,
    ) -> Result<Self, ShapeError> {
        if hexes.is_empty() {
            return Err(ShapeError::Empty);
        }
        if hexes.len() > MAX_CELLS {
            return Err(ShapeError::TooLarge { hexes: hexes.len() });
        }
        let mut sorted = hexes;
        sorted.sort_by_key(|h| reading_order(*h));
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(ShapeError::Duplicate(w[0]));
        }
        let find = |h: Hex| sorted.iter().position(|x| *x == h);
        let neighbours = sorted
            .iter()
            .map(|h| {
                let mut n = [NO_CELL; 6];
                for d in Dir::ALL {
                    if let Some(i) = find(h.step(d)) {
                        n[d.index() as usize] = i as u8;
                    }
                }
                n
            })
            .collect();
        let main_mask = match main {
            None => all_bits(sorted.len()),
            Some(list) => {
                let mut m = 0u64;
                for h in list {
                    let i = find(*h).ok_or(ShapeError::MainOutside(*h))?;
                    m |= 1 << i;
                }
                m
            }
        };
        let (q0, q1) = (
            sorted.iter().map(|h| h.q()).min().unwrap_or(0),
            sorted.iter().map(|h| h.q()).max().unwrap_or(0),
        );
        let (r0, r1) = (
            sorted.iter().map(|h| h.r()).min().unwrap_or(0),
            sorted.iter().map(|h| h.r()).max().unwrap_or(0),
        );
        let width = q1 - q0 + 1;
        let mut grid = vec![NO_CELL; (width * (r1 - r0 + 1)) as usize];
        for (i, h) in sorted.iter().enumerate() {
            grid[((h.r() - r0) * width + (h.q() - q0)) as usize] = i as u8;
        }
        Ok(BoardShape {
            name: name.to_string(),
            hexes: sorted,
            neighbours,
            main: main_mask,
            grid,
            corner: Hex::new(q0, r0),
            width,
        })
    }

    /// The board's name (`standard`, `extended` or its file's), for messages and files.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many hexes the board has.
    pub fn len(&self) -> usize {
        self.hexes.len()
    }

    /// Whether the board has no hex (never true of a built shape).
    pub fn is_empty(&self) -> bool {
        self.hexes.is_empty()
    }

    /// Every cell, in reading order.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.hexes.len()).map(|i| Cell(i as u8))
    }

    /// The coordinates of a cell.
    pub fn hex(&self, c: Cell) -> Hex {
        self.hexes[c.index()]
    }

    /// Every hex of the board in reading order: entry `i` is cell `i`.
    pub fn hexes(&self) -> &[Hex] {
        &self.hexes
    }

    /// The cell of `hex`, if the hex is on this board.
    #[inline]
    pub fn cell(&self, hex: Hex) -> Option<Cell> {
        let (q, r) = (hex.q() - self.corner.q(), hex.r() - self.corner.r());
        if q < 0 || r < 0 || q >= self.width {
            return None;
        }
        let n = *self.grid.get((r * self.width + q) as usize)?;
        (n != NO_CELL).then_some(Cell(n))
    }

    /// The neighbour of `c` in direction `d`, if it is on the board.
    #[inline]
    pub fn neighbour(&self, c: Cell, d: Dir) -> Option<Cell> {
        let n = self.neighbours[c.index()][d.index() as usize];
        (n != NO_CELL).then_some(Cell(n))
    }

    /// The neighbours of `c` in the directions whose bits `dirs` sets (bit = direction index),
    /// as a mask of cells.
    #[inline]
    pub fn neighbours_toward(&self, c: Cell, dirs: u8) -> u64 {
        let row = &self.neighbours[c.index()];
        bits(u64::from(dirs & 0x3f))
            .map(|d| row[d])
            .filter(|&n| n != NO_CELL)
            .fold(0u64, |m, n| m | 1 << n)
    }

    /// Mask of every cell.
    pub fn all(&self) -> u64 {
        all_bits(self.hexes.len())
    }

    /// Mask of the cells whose fullness starts a Battle.
    pub fn main_area(&self) -> u64 {
        self.main
    }

    /// The hexes of the cells in `mask` (a linked unit's segments, a list of targets), in
    /// reading order.
    pub fn hexes_in(&self, mask: u64) -> impl Iterator<Item = Hex> + '_ {
        bits(mask & self.all()).map(|i| self.hexes[i])
    }

    pub(crate) fn cell_from_index(&self, i: usize) -> Cell {
        debug_assert!(i < self.hexes.len());
        Cell(i as u8)
    }
}

fn all_bits(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Iterates the set bits of a cell mask, lowest (earliest in reading order) first.
pub(crate) fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(i)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_board_has_19_cells_and_all_are_main() {
        let s = BoardShape::standard();
        assert_eq!(s.len(), 19);
        assert_eq!(s.main_area(), s.all());
    }

    #[test]
    fn extended_board_judges_fullness_on_the_19_main_hexes() {
        let s = BoardShape::extended();
        assert_eq!(s.len(), 37);
        assert_eq!(s.main_area().count_ones(), 19);
    }

    #[test]
    fn centre_has_six_neighbours_and_corners_three() {
        let s = BoardShape::standard();
        let centre = s.cell(Hex::ORIGIN).expect("centre");
        assert_eq!(
            Dir::ALL
                .iter()
                .filter(|d| s.neighbour(centre, **d).is_some())
                .count(),
            6
        );
        let corner = s.cell(Hex::new(0, -2)).expect("corner");
        assert_eq!(
            Dir::ALL
                .iter()
                .filter(|d| s.neighbour(corner, **d).is_some())
                .count(),
            3
        );
    }

    #[test]
    fn shapes_from_lists_reject_duplicates_and_oversize() {
        let h = Hex::new(1, 1);
        assert_eq!(
            BoardShape::from_hexes("x", vec![h, h], None),
            Err(ShapeError::Duplicate(h))
        );
        let big = Hex::ORIGIN.within(5);
        assert!(matches!(
            BoardShape::from_hexes("x", big, None),
            Err(ShapeError::TooLarge { .. })
        ));
    }

    #[test]
    fn bits_iterates_in_ascending_order() {
        assert_eq!(bits(0b1010_0001).collect::<Vec<_>>(), vec![0, 5, 7]);
    }
}
