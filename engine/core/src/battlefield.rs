//! The battlefield: tiles on hexes, their owners, wounds and the players' HQ hit points.
//!
//! An unchecked [`Setup`] becomes a [`Battlefield`] only through [`Battlefield::new`], which checks
//! every placement. After that the state changes only through [`Battlefield::apply`] with an
//! engine [`Event`]; its fields are private so no caller can break an invariant.

use crate::event::Event;
use crate::hex::{Dir, Hex};
use crate::link::{Link, LinkError, LinkLoss, MAX_LINKS, MAX_SEGMENTS, connected};
use crate::marker::{Mark, MarkOn, MarkerName};
use crate::rules::{AllyAttackRule, Rules};
pub use crate::seat::Seat;
use crate::shape::{BoardShape, Cell, MAX_CELLS, bits};
use crate::tile::{Catalog, Tile, TileKind, TileRef};
use std::fmt;
use std::sync::Arc;

/// The most players a battlefield holds (R8).
pub const MAX_PLAYERS: usize = 4;

/// A tile standing on the board: which one, whose, which way it faces and its wounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Placed {
    /// Which catalog tile stands here.
    pub tile: TileRef,
    /// The player it belongs to (a hijacked module keeps its owner).
    pub owner: Seat,
    /// Which way its front edge (edge 0) points.
    pub facing: Dir,
    /// Wound markers on it; it is destroyed at its hit points (an HQ has none: its damage is HP).
    pub wounds: u8,
}

/// One player of an unchecked setup.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PlayerSetup {
    /// Players with the same team number are allies (R0.5).
    pub team: u8,
    /// HQ hit points (or score in scored modes) at the start.
    pub hq_hp: i32,
}

/// One tile of an unchecked setup.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TileSetup {
    /// Which catalog tile stands there.
    pub tile: TileRef,
    /// The player it belongs to; must be one of the setup's players.
    pub owner: Seat,
    /// Where it stands; must be on the board and free.
    pub hex: Hex,
    /// Which way its front edge points.
    pub facing: Dir,
    /// Wound markers already on it: fewer than its hit points, and none on an HQ.
    pub wounds: u8,
}

/// A battlefield as a file or a test describes it, not yet checked.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The board the tiles stand on.
    pub shape: BoardShape,
    /// The players in turn order, with their teams and HQ HP; 2 to [`MAX_PLAYERS`].
    pub players: Vec<PlayerSetup>,
    /// The tiles on the board, in any order.
    pub tiles: Vec<TileSetup>,
}

/// The parts a placed tile brings (`[tile.linked]`, [`Battlefield::assemble`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assembled {
    /// Each part's hex and tile, in part order.
    pub parts: Vec<(Cell, TileRef)>,
    /// The `Linked` event that makes the lead and its parts one unit.
    pub link: Event,
}

/// Why the parts of a tile that declares a linked unit cannot go down with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartsError {
    /// A part would stand off the board.
    OffBoard {
        /// The part.
        part: TileRef,
        /// Where it would stand.
        hex: Hex,
    },
    /// A part's hex holds a tile.
    Occupied {
        /// The part.
        part: TileRef,
        /// Where it would stand.
        hex: Hex,
    },
    /// The lead's or a part's hex is a segment of a linked unit (R10.6.4).
    Segment {
        /// The hex.
        hex: Hex,
        /// The unit's number.
        id: u8,
    },
    /// The board cannot take the unit (it holds [`MAX_LINKS`] already, or its hexes are not in
    /// one piece).
    Link(LinkError),
}

impl PartsError {
    /// The refusal in words, with the parts named by `catalog`.
    pub fn describe(&self, catalog: &Catalog) -> String {
        let name = |t: TileRef| catalog.get(t).id.clone();
        match self {
            PartsError::OffBoard { part, hex } => {
                format!(
                    "its part `{}` would stand on {hex}, off the board",
                    name(*part)
                )
            }
            PartsError::Occupied { part, hex } => {
                format!(
                    "its part `{}` would stand on {hex}, which holds a tile",
                    name(*part)
                )
            }
            PartsError::Segment { hex, id } => format!(
                "{hex} is a segment of linked unit {id}, and a segment never goes on another unit's segment (R10.6.4)"
            ),
            PartsError::Link(e) => e.to_string(),
        }
    }
}

/// Why a setup is not a legal battlefield.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The setup has fewer than 2 or more than [`MAX_PLAYERS`] players.
    PlayerCount(usize),
    /// A tile stands on a hex outside the board.
    OffBoard {
        /// The hex off the board.
        hex: Hex,
    },
    /// Two tiles stand on one hex.
    Occupied {
        /// The hex named twice.
        hex: Hex,
    },
    /// A tile belongs to a player who is not in the setup.
    UnknownOwner {
        /// Where the tile stands.
        hex: Hex,
        /// The owner named, outside the setup's players.
        owner: Seat,
    },
    /// An instant is placed on the board (R3.16).
    NotABoardTile {
        /// Where it stands.
        hex: Hex,
        /// The instant's `army/tile` id.
        tile: String,
    },
    /// A player has two HQs on the board.
    SecondHq {
        /// Where the second one stands.
        hex: Hex,
        /// The player with two HQs.
        owner: Seat,
    },
    /// A tile carries as many wounds as destroy it, or more.
    TooManyWounds {
        /// Where it stands.
        hex: Hex,
        /// The wounds it was given.
        wounds: u8,
        /// The wounds that destroy it.
        hit_points: u8,
    },
    /// An HQ carries wound markers; HQ damage is the player's HP instead (R1.4).
    WoundsOnHq {
        /// Where the HQ stands.
        hex: Hex,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::PlayerCount(n) => {
                write!(f, "a battle needs 2 to {MAX_PLAYERS} players, not {n}")
            }
            SetupError::OffBoard { hex } => write!(f, "hex {hex} is not on the board"),
            SetupError::Occupied { hex } => write!(f, "hex {hex} already holds a tile"),
            SetupError::UnknownOwner { hex, owner } => write!(
                f,
                "the tile on {hex} belongs to {owner}, who is not playing"
            ),
            SetupError::NotABoardTile { hex, tile } => {
                write!(
                    f,
                    "`{tile}` on {hex} is an instant: instants are never placed on the board (R3.16)"
                )
            }
            SetupError::SecondHq { hex, owner } => write!(
                f,
                "{owner} already has an HQ on the board; a second one is on {hex}"
            ),
            SetupError::TooManyWounds {
                hex,
                wounds,
                hit_points,
            } => write!(
                f,
                "the tile on {hex} has {wounds} wounds but is destroyed at {hit_points}: give it fewer wounds"
            ),
            SetupError::WoundsOnHq { hex } => {
                write!(
                    f,
                    "the HQ on {hex} has wounds: HQ damage is given as the player's `hq` hit points (R1.4)"
                )
            }
        }
    }
}

impl std::error::Error for SetupError {}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct Side {
    team: u8,
    hq_hp: i32,
}

/// The board, its tiles and the HQ hit points: valid by construction, changed only by events.
#[derive(Debug, PartialEq)]
pub struct Battlefield {
    shape: Arc<BoardShape>,
    cells: [Option<Placed>; MAX_CELLS],
    occupied: u64,
    sides: [Side; MAX_PLAYERS],
    players: u8,
    /// The markers in play, sorted by what they are on, then name (one per name and place).
    marks: Vec<Mark>,
    /// The linked units on the board, by number (docs/LINKED_UNITS.md).
    links: Vec<Link>,
}

impl Clone for Battlefield {
    fn clone(&self) -> Self {
        Battlefield {
            shape: self.shape.clone(),
            cells: self.cells,
            occupied: self.occupied,
            sides: self.sides,
            players: self.players,
            marks: self.marks.clone(),
            links: self.links.clone(),
        }
    }

    /// Field by field, keeping the room of the markers' and links' lists (the pattern lists
    /// every field, so a field added to `Battlefield` must be added here).
    fn clone_from(&mut self, source: &Self) {
        let Battlefield {
            shape,
            cells,
            occupied,
            sides,
            players,
            marks,
            links,
        } = source;
        self.shape.clone_from(shape);
        self.cells = *cells;
        self.occupied = *occupied;
        self.sides = *sides;
        self.players = *players;
        self.marks.clone_from(marks);
        self.links.clone_from(links);
    }
}

impl Battlefield {
    /// Checks a setup: 2–4 players, every tile a board tile on a free hex of the board, owned by a
    /// player, at most one HQ per player, wounds below the tile's hit points.
    pub fn new(setup: Setup, catalog: &Catalog) -> Result<Self, SetupError> {
        let n = setup.players.len();
        if !(2..=MAX_PLAYERS).contains(&n) {
            return Err(SetupError::PlayerCount(n));
        }
        let mut sides = [Side::default(); MAX_PLAYERS];
        for (s, p) in sides.iter_mut().zip(&setup.players) {
            *s = Side {
                team: p.team,
                hq_hp: p.hq_hp,
            };
        }
        let shape = Arc::new(setup.shape);
        let mut field = Battlefield {
            shape,
            cells: [None; MAX_CELLS],
            occupied: 0,
            sides,
            players: n as u8,
            marks: Vec::new(),
            links: Vec::new(),
        };
        for t in setup.tiles {
            field.place_checked(t, catalog)?;
        }
        Ok(field)
    }

    fn place_checked(&mut self, t: TileSetup, catalog: &Catalog) -> Result<(), SetupError> {
        let event = self.check_place(catalog, t.owner, t.tile, t.hex, t.facing)?;
        let def = catalog.get(t.tile);
        if def.is_hq() && t.wounds > 0 {
            return Err(SetupError::WoundsOnHq { hex: t.hex });
        }
        if !def.is_hq() && t.wounds >= def.hit_points() {
            return Err(SetupError::TooManyWounds {
                hex: t.hex,
                wounds: t.wounds,
                hit_points: def.hit_points(),
            });
        }
        self.apply(&event);
        if let Event::Placed { cell, .. } = event
            && let Some(p) = self.cells[cell.index()].as_mut()
        {
            p.wounds = t.wounds;
        }
        Ok(())
    }

    /// Checks that `owner` may put `tile` on `hex` (R3.3): a board tile, on an empty hex of the board,
    /// owned by a player, at most one HQ per player. Returns the event that places it.
    pub fn check_place(
        &self,
        catalog: &Catalog,
        owner: Seat,
        tile: TileRef,
        hex: Hex,
        facing: Dir,
    ) -> Result<Event, SetupError> {
        let cell = self.shape.cell(hex).ok_or(SetupError::OffBoard { hex })?;
        if self.cells[cell.index()].is_some() {
            return Err(SetupError::Occupied { hex });
        }
        if owner.index() >= self.players as usize {
            return Err(SetupError::UnknownOwner { hex, owner });
        }
        let def = catalog.get(tile);
        if !def.kind.is_board_tile() {
            return Err(SetupError::NotABoardTile {
                hex,
                tile: def.full_id(),
            });
        }
        if def.is_hq() && self.hq_cell(owner, catalog).is_some() {
            return Err(SetupError::SecondHq { hex, owner });
        }
        Ok(Event::Placed {
            cell,
            tile,
            owner,
            facing,
        })
    }

    /// Where the parts of `tile` go (`[tile.linked]`) when `owner` places it on `cell` facing
    /// `facing`, and the event that makes them one linked unit: `Ok(None)` for a tile that
    /// declares none. Each part's hex must be on the board and empty, and neither the lead's hex
    /// nor a part's may be a segment of a linked unit (R10.6.4).
    pub fn assemble(
        &self,
        catalog: &Catalog,
        owner: Seat,
        tile: TileRef,
        cell: Cell,
        facing: Dir,
    ) -> Result<Option<Assembled>, PartsError> {
        let Some((a, refs)) = catalog.assembly(tile) else {
            return Ok(None);
        };
        let segments_taken = self.segments();
        let taken = |c: Cell| {
            (segments_taken & c.bit() != 0).then(|| PartsError::Segment {
                hex: self.shape.hex(c),
                id: self.link_at(c).map_or(0, |l| l.id),
            })
        };
        if let Some(e) = taken(cell) {
            return Err(e);
        }
        let mut parts = Vec::with_capacity(refs.len());
        let mut segments = cell.bit();
        for (hex, &part) in a.hexes(self.shape.hex(cell), facing).zip(refs) {
            let c = self
                .shape
                .cell(hex)
                .ok_or(PartsError::OffBoard { part, hex })?;
            if let Some(e) = taken(c) {
                return Err(e);
            }
            if self.occupied & c.bit() != 0 {
                return Err(PartsError::Occupied { part, hex });
            }
            segments |= c.bit();
            parts.push((c, part));
        }
        let link = self
            .check_link_on(a.kind, owner, segments, a.loss, a.shared, segments)
            .map_err(PartsError::Link)?;
        Ok(Some(Assembled { parts, link }))
    }

    /// Applies an engine event. Events that report without changing state are ignored.
    #[inline]
    pub fn apply(&mut self, event: &Event) {
        match *event {
            Event::Placed {
                cell,
                tile,
                owner,
                facing,
            }
            | Event::Fielded {
                cell,
                tile,
                owner,
                facing,
            }
            | Event::Joined {
                cell,
                tile,
                owner,
                facing,
            } => {
                self.cells[cell.index()] = Some(Placed {
                    tile,
                    owner,
                    facing,
                    wounds: 0,
                });
                self.occupied |= cell.bit();
            }
            Event::Moved { from, to, facing } => {
                if let Some(mut p) = self.cells[from.index()].take() {
                    self.occupied &= !from.bit();
                    p.facing = facing;
                    self.cells[to.index()] = Some(p);
                    self.occupied |= to.bit();
                    // Markers and segments follow the tile: one test when there are none.
                    if from != to && !(self.marks.is_empty() && self.links.is_empty()) {
                        self.follow_tile(from, to);
                    }
                }
            }
            Event::Marked { .. } | Event::MarkerCounted { .. } | Event::Unmarked { .. } => {
                self.apply_mark(event)
            }
            Event::Wounded { cell, total, .. } | Event::Healed { cell, total, .. } => {
                if let Some(p) = self.cells[cell.index()].as_mut() {
                    p.wounds = total;
                }
            }
            Event::Removed { cell, .. } | Event::Lifted { cell, .. } => {
                self.cells[cell.index()] = None;
                self.occupied &= !cell.bit();
                if !(self.marks.is_empty() && self.links.is_empty()) {
                    self.tile_left(cell);
                }
            }
            Event::Linked { .. } | Event::Unlinked { .. } => self.apply_link(event),
            Event::HqDamaged { player, hp, .. } | Event::HqHealed { player, hp, .. } => {
                self.sides[player.index()].hq_hp = hp;
            }
            _ => {}
        }
    }

    /// The markers and the segment of the tile on `from` follow it to `to`.
    #[cold]
    #[inline(never)]
    fn follow_tile(&mut self, from: Cell, to: Cell) {
        if !self.marks.is_empty() {
            self.move_marks(from, to);
        }
        if !self.links.is_empty() {
            self.move_segment(from, to);
        }
    }

    /// The tile on `cell` left the board: its markers leave with it, and its linked unit learns.
    #[cold]
    #[inline(never)]
    fn tile_left(&mut self, cell: Cell) {
        if !self.marks.is_empty() {
            self.marks.retain(|m| m.on != MarkOn::Tile(cell));
        }
        if !self.links.is_empty() {
            self.drop_segment(cell);
        }
    }

    /// A linked unit made, changed or undone (kept out of [`Self::apply`]'s hot path).
    #[cold]
    #[inline(never)]
    fn apply_link(&mut self, event: &Event) {
        match *event {
            Event::Linked { link } => match self.links.binary_search_by_key(&link.id, |l| l.id) {
                Ok(i) => self.links[i] = link,
                Err(i) => self.links.insert(i, link),
            },
            Event::Unlinked { id } => self.links.retain(|l| l.id != id),
            _ => {}
        }
    }

    /// A tile on a segment carries its segment along (R10.6.9).
    #[cold]
    #[inline(never)]
    fn move_segment(&mut self, from: Cell, to: Cell) {
        for l in &mut self.links {
            if l.segments & from.bit() != 0 {
                l.segments = l.segments & !from.bit() | to.bit();
            }
        }
    }

    /// A tile of a linked unit left the board: a `whole` unit is gone (its other tiles leave
    /// with it, [`Self::with_whole_units`]); a `segment` unit keeps the segment as an empty hex
    /// (R10.6.7) and is gone once no tile is left on it.
    #[cold]
    #[inline(never)]
    fn drop_segment(&mut self, cell: Cell) {
        let occupied = self.occupied;
        self.links.retain(|l| {
            l.segments & cell.bit() == 0
                || (l.loss() == LinkLoss::Segment && l.segments & occupied != 0)
        });
    }

    /// The linked units on the board, by number.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The linked unit with a segment on `cell`, if any.
    pub fn link_at(&self, cell: Cell) -> Option<&Link> {
        self.links.iter().find(|l| l.segments & cell.bit() != 0)
    }

    /// Every cell that is a segment of a linked unit.
    pub fn segments(&self) -> u64 {
        self.links.iter().fold(0, |m, l| m | l.segments)
    }

    /// The smallest number no linked unit on the board has, or `None` when [`MAX_LINKS`] are.
    pub fn free_link_id(&self) -> Option<u8> {
        (1..=MAX_LINKS as u8).find(|id| self.links.iter().all(|l| l.id != *id))
    }

    /// Checks a new linked unit of `owner` on the cells of `segments` (R9.3, R10.6.3): 2 to
    /// [`MAX_SEGMENTS`] hexes of the board, none a segment of another unit, in one piece, and a
    /// tile on each when its tiles leave together. Returns the event that makes it, with the
    /// next free number.
    pub fn check_link(
        &self,
        kind: MarkerName,
        owner: Seat,
        segments: u64,
        loss: LinkLoss,
        shared: bool,
    ) -> Result<Event, LinkError> {
        self.check_link_on(kind, owner, segments, loss, shared, self.occupied)
    }

    /// [`Self::check_link`] with the hexes of `occupied` holding tiles (the board as effects
    /// asked before it will leave it).
    pub fn check_link_on(
        &self,
        kind: MarkerName,
        owner: Seat,
        segments: u64,
        loss: LinkLoss,
        shared: bool,
        occupied: u64,
    ) -> Result<Event, LinkError> {
        let n = segments.count_ones();
        if !(2..=MAX_SEGMENTS).contains(&n) {
            return Err(LinkError::Size(n));
        }
        if segments & !self.shape.all() != 0 {
            return Err(LinkError::OffBoard);
        }
        if let Some(other) = self.links.iter().find(|l| l.segments & segments != 0) {
            return Err(LinkError::Taken { id: other.id });
        }
        if !connected(&self.shape, segments) {
            return Err(LinkError::Split);
        }
        if loss == LinkLoss::Whole && segments & !occupied != 0 {
            return Err(LinkError::Empty);
        }
        let id = self.free_link_id().ok_or(LinkError::Full)?;
        Ok(Event::Linked {
            link: Link::new(id, kind, owner, segments, loss, shared),
        })
    }

    /// Of the cells in `dests`, those the tile on `from` may move or be pushed to and leave its
    /// linked unit in one piece (R9.3.3, R10.6.5, R10.6.9): not a segment of any unit, and its
    /// unit still connected with its segment there. All of `dests` when `from` is no segment.
    #[inline]
    pub fn keeps_links(&self, from: Cell, dests: u64) -> u64 {
        if self.links.is_empty() {
            dests
        } else {
            self.keeps_links_slow(from, dests)
        }
    }

    /// [`Self::keeps_links`] on a board with linked units.
    #[cold]
    #[inline(never)]
    fn keeps_links_slow(&self, from: Cell, dests: u64) -> u64 {
        let Some(l) = self.link_at(from) else {
            return dests;
        };
        let rest = l.segments & !from.bit();
        let mut ok = 0u64;
        for i in bits(dests & !self.segments()) {
            let d = self.shape.cell_from_index(i);
            if connected(&self.shape, rest | d.bit()) {
                ok |= d.bit();
            }
        }
        ok
    }

    /// `reach` and the other tiles of every shared linked unit one of whose tiles it touches
    /// (R9.3.2: a net or a module that reaches either of its tiles reaches the whole
    /// unit). Only the unit owner's tiles are shared; a module next to two tiles still gives once.
    #[cold]
    #[inline(never)]
    pub fn spread_shared(&self, reach: u64) -> u64 {
        let mut out = reach;
        for l in &self.links {
            if !l.shared() {
                continue;
            }
            let tiles = bits(l.segments & self.occupied)
                .filter(|&i| self.cells[i].is_some_and(|p| p.owner == l.owner))
                .fold(0u64, |m, i| m | 1 << i);
            if reach & tiles != 0 {
                out |= tiles;
            }
        }
        out
    }

    /// `cells` and every tile of the `whole` linked units with a tile among them: the tiles
    /// that leave the board together (R9.3.2).
    #[cold]
    #[inline(never)]
    pub fn with_whole_units(&self, cells: u64) -> u64 {
        let mut all = cells;
        for l in &self.links {
            if l.loss() == LinkLoss::Whole && l.segments & cells != 0 {
                all |= l.segments & self.occupied;
            }
        }
        all
    }

    /// The markers of the tile on `from` follow it to `to`.
    #[cold]
    fn move_marks(&mut self, from: Cell, to: Cell) {
        for m in &mut self.marks {
            if m.on == MarkOn::Tile(from) {
                m.on = MarkOn::Tile(to);
            }
        }
        self.marks.sort_by_key(|m| (m.on, m.name));
    }

    /// A marker put, changed or taken off (kept out of [`Self::apply`]'s hot path).
    #[cold]
    fn apply_mark(&mut self, event: &Event) {
        match *event {
            Event::Marked { mark } | Event::MarkerCounted { mark } => {
                match self.find_mark(mark.on, mark.name) {
                    Ok(i) => self.marks[i] = mark,
                    Err(i) => self.marks.insert(i, mark),
                }
            }
            Event::Unmarked { on, name } => {
                if let Ok(i) = self.find_mark(on, name) {
                    self.marks.remove(i);
                }
            }
            _ => {}
        }
    }

    /// Where a marker of `name` on `on` is in the sorted list, or where it would go.
    fn find_mark(&self, on: MarkOn, name: MarkerName) -> Result<usize, usize> {
        self.marks
            .binary_search_by_key(&(on, name), |m| (m.on, m.name))
    }

    /// Every marker in play: tiles' (by cell), then hexes', then players', each by name.
    pub fn marks(&self) -> &[Mark] {
        &self.marks
    }

    /// The marker `name` on `on`, if there is one.
    pub fn mark(&self, on: MarkOn, name: MarkerName) -> Option<&Mark> {
        self.find_mark(on, name).ok().map(|i| &self.marks[i])
    }

    /// The cells whose tiles carry a marker named `name` (for the markers the engine reads).
    pub fn tiles_marked(&self, name: MarkerName) -> u64 {
        if self.marks.is_empty() {
            return 0;
        }
        self.marks
            .iter()
            .filter(|m| m.name == name)
            .fold(0, |mask, m| match m.on {
                MarkOn::Tile(c) => mask | c.bit(),
                _ => mask,
            })
    }

    /// The value of the marker `name` on the tile on `cell`, 0 when there is none.
    #[inline]
    pub fn tile_mark_value(&self, cell: Cell, name: MarkerName) -> i16 {
        if self.marks.is_empty() {
            return 0;
        }
        self.mark(MarkOn::Tile(cell), name).map_or(0, |m| m.value)
    }

    /// The edges (bit = edge index) of the tile on `cell` that carry a net now: `printed`, the
    /// net edges of its definition, with those of its `add_net` and `drop_net` markers.
    #[inline]
    pub fn net_edges(&self, cell: Cell, printed: u8) -> u8 {
        if self.marks.is_empty() {
            return printed;
        }
        let add = self.tile_mark_value(cell, MarkerName::ADD_NET) as u8;
        let drop = self.tile_mark_value(cell, MarkerName::DROP_NET) as u8;
        (printed | add) & !drop & 0x3f
    }

    /// Whether the edge `edge` of the tile on `cell` carries armor now: `printed`, its
    /// definition's armor there, with its `add_armor` and `drop_armor` markers.
    #[inline]
    pub fn armored(&self, cell: Cell, edge: crate::hex::Edge, printed: bool) -> bool {
        if self.marks.is_empty() {
            return printed;
        }
        let bit = 1i16 << edge.index();
        let add = self.tile_mark_value(cell, MarkerName::ADD_ARMOR) & bit != 0;
        let drop = self.tile_mark_value(cell, MarkerName::DROP_ARMOR) & bit != 0;
        (printed || add) && !drop
    }

    /// What the `initiative` markers add to the initiative values of the unit on `cell`: its
    /// tile's, and the hex's it stands on (R9.7), each -9 to 9.
    #[inline]
    pub fn initiative_mark(&self, cell: Cell) -> i8 {
        if self.marks.is_empty() {
            return 0;
        }
        let tile = self
            .tile_mark_value(cell, MarkerName::INITIATIVE)
            .clamp(-9, 9);
        let hex = self
            .mark(MarkOn::Hex(cell), MarkerName::INITIATIVE)
            .map_or(0, |m| m.value.clamp(-9, 9));
        (tile + hex) as i8
    }

    /// The board's hexes, neighbours and cell numbering, fixed for the battlefield's life.
    pub fn shape(&self) -> &BoardShape {
        &self.shape
    }

    /// The board's shape as shared by every copy of this battlefield (cheap to keep).
    pub fn shared_shape(&self) -> &Arc<BoardShape> {
        &self.shape
    }

    /// How many players take part (2 to [`MAX_PLAYERS`]).
    pub fn player_count(&self) -> usize {
        self.players as usize
    }

    /// Every seat in turn order, from player 0.
    pub fn players(&self) -> impl Iterator<Item = Seat> + use<> {
        (0..self.players).map(Seat)
    }

    /// The player's team: players sharing a number are allies (R0.5).
    pub fn team(&self, p: Seat) -> u8 {
        self.sides[p.index()].team
    }

    /// Whether `a` and `b` are on one side: the same player, or allies (R0.5).
    #[inline]
    pub fn friends(&self, a: Seat, b: Seat) -> bool {
        self.sides[a.index()].team == self.sides[b.index()].team
    }

    /// Neither the same player nor allies: whose tiles attack each other.
    #[inline]
    pub fn enemies(&self, a: Seat, b: Seat) -> bool {
        !self.friends(a, b)
    }

    /// Whether a tile of `attacker` (defined by `def`) attacks a tile of `target`: enemies always;
    /// allies too when the attacker's army has the team exception and the rules keep it (R8.5.7).
    #[inline]
    pub fn attacks(&self, attacker: Seat, def: &Tile, target: Seat, rules: &Rules) -> bool {
        self.enemies(attacker, target)
            || (attacker != target && def.attacks_allies && team_exception(rules))
    }

    /// Whether a net of `netter` reaches a tile of `target`: enemies always; allies too when either
    /// tile's army has the team exception (R8.5.7: they net each other).
    #[inline]
    pub fn nets(
        &self,
        netter: Seat,
        netter_def: &Tile,
        target: Seat,
        target_def: &Tile,
        rules: &Rules,
    ) -> bool {
        self.enemies(netter, target)
            || (netter != target
                && (netter_def.attacks_allies || target_def.attacks_allies)
                && team_exception(rules))
    }

    /// A hash of the board and the HQ HP, stable across processes and platforms: every cell in
    /// reading order (empty, or the tile's catalog index, owner, facing and wounds), then each
    /// player's team and HQ HP. Replays check it after every battle phase.
    pub fn state_hash(&self) -> u64 {
        let mut h = crate::fnv::Fnv1a::new();
        h.str("hexforge board 1");
        self.hash_cells(&mut h);
        for p in self.players() {
            h.u8(self.team(p));
            h.i32(self.hq_hp(p));
        }
        h.finish()
    }

    /// Every cell in reading order into `h`: empty, or the tile's catalog index, owner, facing
    /// and wounds (the board of [`Self::state_hash`] and of a game's state hash).
    pub(crate) fn hash_cells(&self, h: &mut crate::fnv::Fnv1a) {
        self.hash_board_cells(h);
        self.hash_links(h);
        // Markers only when there are any, so the hashes of games without them never change.
        if !self.marks.is_empty() {
            h.u8(0x4d);
            h.len(self.marks.len());
            for m in &self.marks {
                match m.on {
                    MarkOn::Tile(c) => {
                        h.u8(0);
                        h.u8(c.index() as u8);
                    }
                    MarkOn::Hex(c) => {
                        h.u8(1);
                        h.u8(c.index() as u8);
                    }
                    MarkOn::Player(p) => {
                        h.u8(2);
                        h.u8(p.index() as u8);
                    }
                }
                h.str(m.name.write(&mut [0; crate::marker::MAX_NAME]));
                match m.lasts {
                    crate::marker::Lasts::Turn => h.u8(0),
                    crate::marker::Lasts::Battle => h.u8(1),
                    crate::marker::Lasts::Turns(n) => {
                        h.u8(2);
                        h.u8(n);
                    }
                    crate::marker::Lasts::Permanent => h.u8(3),
                }
                h.i32(i32::from(m.value));
            }
        }
    }

    /// The linked units into `h`, only when there are any (so other hashes never change).
    pub(crate) fn hash_links(&self, h: &mut crate::fnv::Fnv1a) {
        if self.links.is_empty() {
            return;
        }
        h.u8(0x4c);
        h.len(self.links.len());
        for l in &self.links {
            h.u8(l.id);
            h.str(l.kind.write(&mut [0; crate::marker::MAX_NAME]));
            h.u8(l.owner.index() as u8);
            h.u64(l.segments);
            h.u8(l.loss() as u8);
            h.u8(u8::from(l.shared()));
        }
    }

    /// The cells of [`Self::hash_cells`], without the markers.
    fn hash_board_cells(&self, h: &mut crate::fnv::Fnv1a) {
        for c in self.shape.cells() {
            match self.at(c) {
                None => h.u8(0),
                Some(p) => {
                    h.u8(1);
                    h.u16(p.tile.index() as u16);
                    h.u8(p.owner.index() as u8);
                    h.u8(p.facing.index());
                    h.u8(p.wounds);
                }
            }
        }
    }

    /// The player's HQ hit points now; 0 once the HQ is destroyed.
    pub fn hq_hp(&self, p: Seat) -> i32 {
        self.sides[p.index()].hq_hp
    }

    /// The tile on a cell, or `None` for an empty one.
    #[inline]
    pub fn at(&self, c: Cell) -> Option<&Placed> {
        self.cells[c.index()].as_ref()
    }

    /// The tile on a hex, or `None` when the hex is empty or off the board.
    pub fn at_hex(&self, h: Hex) -> Option<&Placed> {
        self.shape.cell(h).and_then(|c| self.at(c))
    }

    /// The occupied cells as a bit mask (bit `i` is cell `i`), for set operations.
    #[inline]
    pub fn occupied(&self) -> u64 {
        self.occupied
    }

    /// Every tile on the board with its cell, in reading order.
    pub fn tiles(&self) -> impl Iterator<Item = (Cell, &Placed)> + '_ {
        bits(self.occupied).filter_map(move |i| {
            let c = self.shape.cell_from_index(i);
            self.at(c).map(|p| (c, p))
        })
    }

    /// The cell of a player's HQ, if it is on the board.
    pub fn hq_cell(&self, p: Seat, catalog: &Catalog) -> Option<Cell> {
        self.tiles()
            .find(|(_, t)| t.owner == p && catalog.get(t.tile).kind == TileKind::Hq)
            .map(|(c, _)| c)
    }

    /// True when no hex of the main play area is empty (R4.11).
    pub fn main_area_full(&self) -> bool {
        self.shape.main_area() & !self.occupied == 0
    }

    pub(crate) fn def<'c>(&self, catalog: &'c Catalog, c: Cell) -> Option<&'c Tile> {
        self.at(c).map(|p| catalog.get(p.tile))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::Tile;

    fn catalog() -> Catalog {
        let mut c = Catalog::new();
        let mut soldier = Tile::new("a", "soldier", TileKind::Soldier);
        soldier.toughness = 1;
        c.add_army(
            "a",
            "A",
            35,
            vec![
                Tile::new("a", "hq", TileKind::Hq),
                soldier,
                Tile::new("a", "battle", TileKind::Instant),
            ],
        )
        .expect("catalog");
        c
    }

    fn setup(tiles: Vec<TileSetup>) -> Setup {
        Setup {
            shape: BoardShape::standard(),
            players: vec![
                PlayerSetup { team: 0, hq_hp: 20 },
                PlayerSetup { team: 1, hq_hp: 20 },
            ],
            tiles,
        }
    }

    fn tile(c: &Catalog, id: &str, owner: u8, q: i32, r: i32, wounds: u8) -> TileSetup {
        TileSetup {
            tile: c.find(id).expect("tile"),
            owner: Seat(owner),
            hex: Hex::new(q, r),
            facing: Dir::N,
            wounds,
        }
    }

    #[test]
    fn a_legal_setup_is_accepted() {
        let c = catalog();
        let f = Battlefield::new(
            setup(vec![
                tile(&c, "a/hq", 0, 0, 0, 0),
                tile(&c, "a/soldier", 1, 1, 0, 1),
            ]),
            &c,
        )
        .expect("legal");
        assert_eq!(f.tiles().count(), 2);
        assert!(f.enemies(Seat(0), Seat(1)));
        assert_eq!(f.hq_cell(Seat(0), &c), f.shape().cell(Hex::ORIGIN));
    }

    #[test]
    fn illegal_setups_say_what_is_wrong() {
        let c = catalog();
        let cases = [
            (vec![tile(&c, "a/soldier", 0, 3, 0, 0)], "not on the board"),
            (
                vec![
                    tile(&c, "a/soldier", 0, 0, 0, 0),
                    tile(&c, "a/soldier", 1, 0, 0, 0),
                ],
                "already holds",
            ),
            (vec![tile(&c, "a/soldier", 2, 0, 0, 0)], "not playing"),
            (vec![tile(&c, "a/battle", 0, 0, 0, 0)], "instant"),
            (
                vec![tile(&c, "a/hq", 0, 0, 0, 0), tile(&c, "a/hq", 0, 1, 0, 0)],
                "already has an HQ",
            ),
            (vec![tile(&c, "a/soldier", 0, 0, 0, 2)], "fewer wounds"),
        ];
        for (tiles, text) in cases {
            let e = Battlefield::new(setup(tiles), &c).expect_err(text);
            assert!(e.to_string().contains(text), "{e} should contain {text}");
        }
    }
}

fn team_exception(rules: &Rules) -> bool {
    rules.ally_attack_rule != AllyAttackRule::Off
}

/// Who has won once a battle is over, judged on destroyed HQs (R2.9.1-R2.9.3, R8.5.6, Q35).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// No side has lost yet: the game goes on (or is decided later by HQ HP comparison).
    Ongoing,
    /// The team (players sharing `team`) that won.
    Won {
        /// The winning team's number.
        team: u8,
    },
    /// Every side lost an HQ in the same battle (R2.9.3).
    Draw,
}

impl Battlefield {
    /// The result of destroyed HQs: a side whose every HQ is destroyed loses; if every side has lost
    /// one, it is a draw in a 2-player game (R2.9.3); a team game is won by the first team to destroy
    /// an enemy HQ (R8.5.6), so a team that lost an HQ while the other did not has lost.
    pub fn outcome(&self) -> Outcome {
        let mut teams: Vec<(u8, bool)> = Vec::new(); // (team, lost an HQ)
        for p in self.players() {
            let lost = self.hq_hp(p) <= 0;
            match teams.iter_mut().find(|(t, _)| *t == self.team(p)) {
                Some(e) => e.1 |= lost,
                None => teams.push((self.team(p), lost)),
            }
        }
        let standing: Vec<u8> = teams
            .iter()
            .filter(|(_, lost)| !lost)
            .map(|(t, _)| *t)
            .collect();
        match standing.len() {
            0 => Outcome::Draw,
            1 if teams.len() > 1 => Outcome::Won { team: standing[0] },
            _ => Outcome::Ongoing,
        }
    }
}
