//! Linked units: one unit standing on several hexes (its segments) that must stay connected, with
//! what destroying one of its tiles does and whether nets and module effects reach it as one
//! (R9.3, R10.6). The battlefield keeps them; this module owns their
//! description and the geometry of "still in one piece".

pub use crate::link_loss::LinkLoss;
use crate::marker::MarkerName;
use crate::seat::Seat;
use crate::shape::{BoardShape, Cell, bits};
use std::fmt;

/// The most linked units on a board at once.
pub const MAX_LINKS: usize = 16;

/// The most segments of one linked unit.
pub const MAX_SEGMENTS: u32 = 7;

/// One linked unit on the board.
///
/// Its loss and sharing are packed in one plain byte, so the events that carry it keep the
/// event enum's tag of its own (no field of it offers a spare value to hide the tag in).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Link {
    /// Its number on this board, 1 to [`MAX_LINKS`]; the battlefield gives it
    /// ([`crate::Battlefield::free_link_id`]).
    pub id: u8,
    /// What kind of unit it is, a mod's word (`tower`, `keep`): scripts and logs show it.
    pub kind: MarkerName,
    /// The player it belongs to (a tile inside it may belong to someone else, R10.6.10).
    pub owner: Seat,
    /// Its segments: the cells it stands on, empty or not.
    pub segments: u64,
    /// Bit 0: `whole` loss; bit 1: shared.
    rules: u8,
}

impl Link {
    /// A linked unit with its loss and sharing.
    pub const fn new(
        id: u8,
        kind: MarkerName,
        owner: Seat,
        segments: u64,
        loss: LinkLoss,
        shared: bool,
    ) -> Link {
        let whole = matches!(loss, LinkLoss::Whole) as u8;
        Link {
            id,
            kind,
            owner,
            segments,
            rules: whole | (shared as u8) << 1,
        }
    }

    /// What destroying one of its tiles does.
    pub const fn loss(&self) -> LinkLoss {
        if self.rules & 1 != 0 {
            LinkLoss::Whole
        } else {
            LinkLoss::Segment
        }
    }

    /// Whether nets and module effects that reach one of its tiles reach every tile of it
    /// (R9.3.2); otherwise each tile stands alone (R10.6.7).
    pub const fn shared(&self) -> bool {
        self.rules & 2 != 0
    }
}

/// Why a linked unit cannot be put on the board as asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// Fewer than 2 or more than [`MAX_SEGMENTS`] segments.
    Size(u32),
    /// A segment is not a hex of the board.
    OffBoard,
    /// A segment already belongs to another linked unit (R10.6.4).
    Taken {
        /// The other unit's number.
        id: u8,
    },
    /// The segments are not in one piece (R9.3.3, R10.6.5).
    Split,
    /// The board holds [`MAX_LINKS`] linked units already.
    Full,
    /// A unit whose tiles all leave together has an empty segment.
    Empty,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Size(n) => write!(
                f,
                "a linked unit stands on 2 to {MAX_SEGMENTS} hexes, not {n}"
            ),
            LinkError::OffBoard => write!(f, "a segment is off the board"),
            LinkError::Taken { id } => write!(
                f,
                "a segment is already part of linked unit {id}: a segment never goes on another unit's segment (R10.6.4)"
            ),
            LinkError::Split => write!(
                f,
                "the segments are not in one piece: each must be next to another, so that the unit is connected (R9.3.3, R10.6.5)"
            ),
            LinkError::Full => write!(f, "the board holds {MAX_LINKS} linked units already"),
            LinkError::Empty => write!(
                f,
                "a unit whose tiles leave together (`whole`) has a tile on every segment"
            ),
        }
    }
}

impl std::error::Error for LinkError {}

/// The cells next to `c` on `shape`.
pub fn adjacent(shape: &BoardShape, c: Cell) -> u64 {
    shape.neighbours_toward(c, 0x3f)
}

/// Whether the cells of `mask` are in one piece: every cell reaches every other through cells
/// of the mask, one step at a time.
pub fn connected(shape: &BoardShape, mask: u64) -> bool {
    if mask == 0 {
        return true;
    }
    let mut seen = mask & mask.wrapping_neg();
    loop {
        let mut grown = seen;
        for i in bits(seen) {
            grown |= adjacent(shape, shape.cell_from_index(i)) & mask;
        }
        if grown == seen {
            return seen == mask;
        }
        seen = grown;
    }
}

/// Where a unit of `size` cells that already stands on `anchors` may take one more cell: each
/// cell of `free` (the anchors left out) from which the anchors and that cell can grow, through
/// cells of `free` alone, into `size` cells in one piece (`connected`). A unit of three laid a
/// cell at a time from a fixed first cell takes its second at `spots(shape, first, free, 3)` and
/// its third at `spots(shape, first | second, free, 3)`. Empty when `size` is not more than the
/// anchors already are, or more than [`MAX_SEGMENTS`].
pub fn spots(shape: &BoardShape, anchors: u64, free: u64, size: u32) -> u64 {
    if size > MAX_SEGMENTS || anchors.count_ones() >= size {
        return 0;
    }
    // Every cell of a piece of `size` cells is within `size - 1` steps of each of its cells:
    // only cells that near every anchor can be part of one.
    let reach = size - 1;
    let near = bits(anchors).fold(shape.all(), |m, i| m & ball(shape, 1u64 << i, reach));
    if anchors & !near != 0 {
        return 0;
    }
    let free = free & !anchors & near;
    let mut out = 0u64;
    let mut seen = Seen::default();
    for i in bits(free) {
        let x = 1u64 << i;
        // A cell of a piece found for an earlier cell is a spot already: that piece holds it.
        if out & x != 0 {
            continue;
        }
        seen.clear();
        let avail = free & !x & ball(shape, x, reach);
        if let Some(piece) = grows(shape, anchors | x, avail, size, &mut seen) {
            out |= piece & free;
        }
    }
    out
}

/// The cells at most `r` steps from a cell of `mask` on `shape`.
fn ball(shape: &BoardShape, mask: u64, r: u32) -> u64 {
    let mut m = mask;
    for _ in 0..r {
        let mut grown = m;
        for i in bits(m) {
            grown |= adjacent(shape, shape.cell_from_index(i));
        }
        if grown == m {
            break;
        }
        m = grown;
    }
    m
}

/// The cell masks a search has tried: a hash set whose hash is one multiplication (a mask's
/// bits are spread already), so a search of many shapes tries each once at a constant cost.
type Seen = std::collections::HashSet<u64, std::hash::BuildHasherDefault<MaskHasher>>;

/// The hasher of [`Seen`]: the mask times a large odd constant.
#[derive(Default)]
struct MaskHasher(u64);

impl std::hash::Hasher for MaskHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A piece of `size` cells in one piece that holds `set` and adds only cells of `avail`, each
/// next to what is there already (any piece of `size` cells holding `set` can be reached so, one
/// neighbour at a time), or `None`; `seen` holds the sets already tried.
fn grows(shape: &BoardShape, set: u64, avail: u64, size: u32, seen: &mut Seen) -> Option<u64> {
    if set.count_ones() == size {
        return connected(shape, set).then_some(set);
    }
    let mut next = 0u64;
    for i in bits(set) {
        next |= adjacent(shape, shape.cell_from_index(i));
    }
    // One cell short: each way to add it is a whole shape, checked at once and not remembered
    // (for the common unit of three grown from one cell, the set is never filled at all).
    let last = set.count_ones() + 1 == size;
    for i in bits(next & avail) {
        let y = 1u64 << i;
        let grown = set | y;
        if last {
            if connected(shape, grown) {
                return Some(grown);
            }
            continue;
        }
        if !seen.insert(grown) {
            continue;
        }
        if let Some(piece) = grows(shape, grown, avail & !y, size, seen) {
            return Some(piece);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hex::Hex;

    fn mask(shape: &BoardShape, hexes: &[(i32, i32)]) -> u64 {
        hexes
            .iter()
            .map(|&(q, r)| shape.cell(Hex::new(q, r)).expect("on the board").bit())
            .fold(0, |a, b| a | b)
    }

    #[test]
    fn connected_needs_each_segment_reached_through_the_others() {
        let s = BoardShape::standard();
        assert!(connected(&s, mask(&s, &[(0, 0), (0, 1)])));
        assert!(connected(&s, mask(&s, &[(0, 0), (0, 1), (1, 0)])));
        // A line of three is in one piece though its ends do not touch.
        assert!(connected(&s, mask(&s, &[(0, -1), (0, 0), (0, 1)])));
        assert!(!connected(&s, mask(&s, &[(0, -1), (0, 1)])));
        assert!(!connected(&s, mask(&s, &[(0, 0), (0, 1), (2, -2)])));
    }

    /// Every piece of `size` connected cells of `shape` holding `anchors` and otherwise only
    /// cells of `free`, by trying every set: the definition `spots` must agree with.
    fn spots_by_every_set(shape: &BoardShape, anchors: u64, free: u64, size: u32) -> u64 {
        let free = free & !anchors & shape.all();
        let cells: Vec<u64> = bits(free).map(|i| 1u64 << i).collect();
        let need = size.saturating_sub(anchors.count_ones()) as usize;
        if size > MAX_SEGMENTS || need == 0 {
            return 0;
        }
        let mut out = 0u64;
        // Sets of `need` free cells, by index vectors.
        let mut idx: Vec<usize> = (0..need).collect();
        if need > cells.len() {
            return 0;
        }
        loop {
            let set = idx.iter().fold(anchors, |m, i| m | cells[*i]);
            if connected(shape, set) {
                out |= set & free;
            }
            // The next combination.
            let mut k = need;
            while k > 0 && idx[k - 1] == cells.len() - need + k - 1 {
                k -= 1;
            }
            if k == 0 {
                return out;
            }
            idx[k - 1] += 1;
            for j in k..need {
                idx[j] = idx[j - 1] + 1;
            }
        }
    }

    #[test]
    fn spots_agree_with_trying_every_set_of_cells() {
        let s = BoardShape::standard();
        let mut rng = crate::rng::Rng::seeded(7);
        let mut some = 0;
        for _ in 0..300 {
            // A random board: about half the hexes free, one to three anchors, units of 2 to 5.
            let free = s.all() & (0..19).fold(0u64, |m, i| m | u64::from(rng.below(2) == 0) << i);
            let mut anchors = 0u64;
            for _ in 0..1 + rng.below(3) {
                anchors |= 1u64 << rng.below(19);
            }
            let size = 2 + rng.below(4) as u32;
            let want = spots_by_every_set(&s, anchors, free, size);
            assert_eq!(
                spots(&s, anchors, free, size),
                want,
                "anchors {anchors:#x}, free {free:#x}, size {size}"
            );
            some += usize::from(want != 0);
        }
        // The boards drawn are not all hopeless: most have room for some unit.
        assert!(some > 100, "{some} of 300 boards had a spot");
    }

    #[test]
    fn spots_are_the_cells_a_unit_can_grow_from_into_one_piece() {
        let s = BoardShape::standard();
        let all = s.all();
        let centre = mask(&s, &[(0, 0)]);
        // Free all round: every neighbour, and every hex two steps away (a line of three).
        let two = spots(&s, centre, all, 3);
        assert_eq!(
            two.count_ones(),
            18,
            "six neighbours and twelve hexes beyond"
        );
        assert_eq!(
            spots(&s, centre, all, 2),
            all & adjacent(&s, s.cell(Hex::new(0, 0)).expect("centre"))
        );
        // Only two free hexes, apart from each other but each beside the centre: a unit of
        // three takes both, so each is a spot; a unit of four has no room.
        let free = mask(&s, &[(0, -1), (0, 1)]);
        assert_eq!(spots(&s, centre, free, 3), free);
        assert_eq!(spots(&s, centre, free, 4), 0);
        // One free hex: no unit of three.
        assert_eq!(spots(&s, centre, mask(&s, &[(0, -1)]), 3), 0);
        // With two anchors apart, only the hex between them makes three in one piece.
        let ends = mask(&s, &[(0, -1), (0, 1)]);
        assert_eq!(spots(&s, ends, all, 3), centre);
        // Nothing to add to a unit already at its size, or past the most segments.
        assert_eq!(spots(&s, ends, all, 2), 0);
        assert_eq!(spots(&s, centre, all, MAX_SEGMENTS + 1), 0);
        // A free hex beyond reach is no spot.
        assert_eq!(spots(&s, centre, mask(&s, &[(0, -2), (2, -2)]), 3), 0);
        // Large units on the larger board, anchored at opposite corners, six steps apart: a
        // unit of six cannot hold both, one of seven holds them in a line; and anchored at one
        // corner (every free hex near enough is a spot). All answered without trying every set
        // of hexes (a search that did would not end in any reasonable time).
        let e = BoardShape::extended();
        let ring: Vec<Cell> = e
            .cells()
            .filter(|c| e.hex(*c).distance(Hex::new(0, 0)) == 3)
            .collect();
        let a = ring[0];
        let b = *ring
            .iter()
            .find(|c| e.hex(**c).distance(e.hex(a)) == 6)
            .expect("the opposite hex");
        let far = a.bit() | b.bit();
        assert_eq!(spots(&e, far, e.all(), 6), 0);
        let line = spots(&e, far, e.all(), 7);
        assert!(line != 0, "the hexes between them");
        // Two hexes six steps apart on one axis have one line of seven between them: cut in the
        // middle, no piece of seven holds both, which the search must find out having tried
        // every shape near them, each once.
        let axis = mask(&e, &[(0, -3), (0, 3)]);
        let middle = mask(&e, &[(0, 0)]);
        assert_eq!(
            spots(&e, axis, e.all(), 7),
            mask(&e, &[(0, -2), (0, -1), (0, 0), (0, 1), (0, 2)])
        );
        assert_eq!(spots(&e, axis, e.all() & !middle, 7), 0);
        let corners = [a.bit()];
        let one = spots(&e, corners[0], e.all(), MAX_SEGMENTS);
        let corner = e.hexes_in(corners[0]).next().expect("a corner");
        assert_eq!(
            one,
            e.all()
                & !corners[0]
                & e.cells()
                    .filter(|c| e.hex(*c).distance(corner) < MAX_SEGMENTS)
                    .fold(0, |m, c| m | c.bit())
        );
    }

    #[test]
    fn loss_names_read_back() {
        for l in [LinkLoss::Whole, LinkLoss::Segment] {
            assert_eq!(LinkLoss::parse(l.name()), Some(l));
        }
        assert_eq!(LinkLoss::parse("half"), None);
    }
}
