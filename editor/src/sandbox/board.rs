//! The sandbox's board as the designer edits it: players, board kind, rules and tiles kept by
//! their full ids (so a reload re-resolves them), the edits with undo and redo, and the checked
//! `Battlefield` the engine builds from it, with the tiles it refused marked and explained.

use hexforge_core::marker::{Lasts, MarkOn, MarkerName};
use hexforge_core::{
    Battlefield, BoardShape, Catalog, Dir, Event, Hex, LinkLoss, PlayerSetup, Rules, Seat, Setup,
    TileSetup,
};

/// Which board the sandbox shows: the standard or the extended battlefield (R1.2, R1.3) or a
/// board a mod defines (docs/RULESETS.md, "Boards"), by its shape, whose name is the board's id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardKind(BoardShape);

impl BoardKind {
    /// The 19-hex battlefield.
    pub fn standard() -> BoardKind {
        BoardKind(BoardShape::standard())
    }

    /// The 37-hex extended battlefield.
    pub fn extended() -> BoardKind {
        BoardKind(BoardShape::extended())
    }

    /// A loaded board (built in or a mod's).
    pub fn of_board(board: &hexforge_content::Board) -> BoardKind {
        BoardKind(board.shape.clone())
    }

    /// The engine's board shape of this kind.
    pub fn shape(&self) -> BoardShape {
        self.0.clone()
    }

    /// The board's id, as scenario files name it.
    pub fn name(&self) -> &str {
        self.0.name()
    }

    /// The kind of a board shape (a battlefield's, a replay step's).
    pub fn of(shape: &BoardShape) -> BoardKind {
        BoardKind(shape.clone())
    }
}

/// One player of the sandbox.
#[derive(Clone, Debug, PartialEq)]
pub struct Player {
    /// The army id the player's tiles are taken from by default (and the scenario file names).
    pub army: String,
    /// The HP the player's HQ starts with.
    pub hq_hp: i32,
    /// Players with the same team are allies (R0.5).
    pub team: u8,
}

/// A tile on the sandbox board, by full id (`borgo/brawler`), not by catalog index.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// The tile's full id, e.g. `borgo/brawler`.
    pub id: String,
    /// The seat index of its owner.
    pub owner: usize,
    /// Where the tile stands.
    pub hex: Hex,
    /// Which way the tile's front edge points.
    pub facing: Dir,
    /// The wounds the tile has taken.
    pub wounds: u8,
}

/// What a sandbox marker is on, by hex and seat index (not by the engine's cell, which depends on
/// the board's kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkPlace {
    /// The tile on this hex: the marker moves with it and leaves with it.
    Tile(Hex),
    /// The hex itself.
    Hex(Hex),
    /// The player of this seat index.
    Player(usize),
}

/// A marker kept on the sandbox board (one a battle put, or a replay's step had).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marker {
    /// What it is on.
    pub on: MarkPlace,
    /// Its name.
    pub name: MarkerName,
    /// How long it lasts.
    pub lasts: Lasts,
    /// The number it carries.
    pub value: i16,
}

/// A linked unit on the sandbox board (docs/LINKED_UNITS.md), by hexes and seat index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Its kind (`monolith`, `structure`).
    pub kind: MarkerName,
    /// The seat index of its owner.
    pub owner: usize,
    /// Its segments, in reading order.
    pub hexes: Vec<Hex>,
    /// What destroying one of its tiles does.
    pub loss: LinkLoss,
    /// Whether nets and modules reaching one of its tiles reach all of them.
    pub shared: bool,
}

/// Everything the designer set up on the sandbox.
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    /// The board: the standard or the extended one, or a mod's.
    pub kind: BoardKind,
    /// The players, by seat.
    pub players: Vec<Player>,
    /// The tiles placed.
    pub pieces: Vec<Piece>,
    /// The markers on its tiles, hexes and players, in the engine's order.
    pub marks: Vec<Marker>,
    /// Its linked units, in the engine's order.
    pub units: Vec<Unit>,
    /// The rules the battles are fought with.
    pub rules: Rules,
}

/// The fewest and most players a board has (R8).
pub const PLAYERS: std::ops::RangeInclusive<usize> = 2..=hexforge_core::MAX_PLAYERS;

impl Board {
    /// An empty standard board for two players of the first two armies of `catalog`.
    pub fn new(catalog: &Catalog) -> Board {
        let rules = Rules::default();
        let armies: Vec<String> = catalog.armies().iter().map(|a| a.id.clone()).collect();
        let army = |i: usize| {
            armies
                .get(i)
                .or_else(|| armies.first())
                .cloned()
                .unwrap_or_default()
        };
        let players = (0..2)
            .map(|i| Player {
                army: army(i),
                hq_hp: i32::from(rules.hq_hp),
                team: i as u8,
            })
            .collect();
        Board {
            kind: BoardKind::standard(),
            players,
            pieces: Vec::new(),
            marks: Vec::new(),
            units: Vec::new(),
            rules,
        }
    }

    /// The board of a checked battlefield (a replay's step, a battle's result, a loaded scenario).
    pub fn from_field(
        field: &Battlefield,
        catalog: &Catalog,
        armies: &[String],
        rules: &Rules,
    ) -> Board {
        let players = field
            .players()
            .map(|p| Player {
                army: armies.get(p.index()).cloned().unwrap_or_default(),
                hq_hp: field.hq_hp(p),
                team: field.team(p),
            })
            .collect();
        let pieces = field
            .tiles()
            .map(|(c, t)| Piece {
                id: catalog.get(t.tile).full_id(),
                owner: t.owner.index(),
                hex: field.shape().hex(c),
                facing: t.facing,
                wounds: t.wounds,
            })
            .collect();
        let marks = field
            .marks()
            .iter()
            .map(|m| Marker {
                on: match m.on {
                    MarkOn::Tile(c) => MarkPlace::Tile(field.shape().hex(c)),
                    MarkOn::Hex(c) => MarkPlace::Hex(field.shape().hex(c)),
                    MarkOn::Player(p) => MarkPlace::Player(p.index()),
                },
                name: m.name,
                lasts: m.lasts,
                value: m.value,
            })
            .collect();
        let shape = field.shape();
        let units = field
            .links()
            .iter()
            .map(|l| Unit {
                kind: l.kind,
                owner: l.owner.index(),
                hexes: shape.hexes_in(l.segments).collect(),
                loss: l.loss(),
                shared: l.shared(),
            })
            .collect();
        Board {
            kind: BoardKind::of(field.shape()),
            players,
            pieces,
            marks,
            units,
            rules: rules.clone(),
        }
    }

    /// Puts the board on `next` (a loaded board): the markers `before`, the board shown until
    /// now, put on its hexes come off, and those `next` puts on its hexes go on.
    pub fn set_board(
        &mut self,
        next: &hexforge_content::Board,
        before: Option<&hexforge_content::Board>,
    ) {
        let of = |b: &hexforge_content::Board| -> Vec<Marker> {
            b.marks
                .iter()
                .map(|m| Marker {
                    on: MarkPlace::Hex(m.hex),
                    name: m.name,
                    lasts: m.lasts,
                    value: m.value,
                })
                .collect()
        };
        if let Some(before) = before {
            let gone = of(before);
            self.marks.retain(|m| !gone.contains(m));
        }
        let added = of(next);
        self.marks
            .retain(|m| !added.iter().any(|a| a.on == m.on && a.name == m.name));
        let mut marks = added;
        marks.append(&mut self.marks);
        self.marks = marks;
        self.kind = BoardKind::of_board(next);
    }

    /// The index of the piece on `hex`.
    pub fn piece_at(&self, hex: Hex) -> Option<usize> {
        self.pieces.iter().position(|p| p.hex == hex)
    }

    /// The armies of the seats, in seat order.
    pub fn armies(&self) -> Vec<String> {
        self.players.iter().map(|p| p.army.clone()).collect()
    }

    /// Asks the engine for the battlefield of this board: tiles are taken in order and each one
    /// the engine refuses (or whose id is not loaded) is left off the field and marked with the
    /// reason.
    pub fn build(&self, catalog: &Catalog) -> Built {
        let players: Vec<PlayerSetup> = self
            .players
            .iter()
            .map(|p| PlayerSetup {
                team: p.team,
                hq_hp: p.hq_hp,
            })
            .collect();
        let setup = |tiles: Vec<TileSetup>| Setup {
            shape: self.kind.shape(),
            players: players.clone(),
            tiles,
        };
        let mut marks = Vec::new();
        let mut accepted: Vec<TileSetup> = Vec::new();
        let mut field = match Battlefield::new(setup(Vec::new()), catalog) {
            Ok(f) => f,
            Err(e) => {
                return Built {
                    field: None,
                    marks: vec![Mark {
                        piece: None,
                        hex: None,
                        message: e.to_string(),
                        missing: false,
                    }],
                };
            }
        };
        for (i, p) in self.pieces.iter().enumerate() {
            let Some(tile) = catalog.find(&p.id) else {
                marks.push(Mark {
                    piece: Some(i),
                    hex: Some(p.hex),
                    message: format!("missing: {}", p.id),
                    missing: true,
                });
                continue;
            };
            let t = TileSetup {
                tile,
                owner: Seat::new(p.owner as u8),
                hex: p.hex,
                facing: p.facing,
                wounds: p.wounds,
            };
            accepted.push(t);
            match Battlefield::new(setup(accepted.clone()), catalog) {
                Ok(f) => field = f,
                Err(e) => {
                    accepted.pop();
                    marks.push(Mark {
                        piece: Some(i),
                        hex: Some(p.hex),
                        message: format!("{}: {e}", p.id),
                        missing: false,
                    });
                }
            }
        }
        // The markers kept go on by the engine's own event; one whose tile, hex or player is not
        // on the field is left off.
        for m in &self.marks {
            let on = match m.on {
                MarkPlace::Tile(h) => field
                    .shape()
                    .cell(h)
                    .filter(|c| field.at(*c).is_some())
                    .map(MarkOn::Tile),
                MarkPlace::Hex(h) => field.shape().cell(h).map(MarkOn::Hex),
                MarkPlace::Player(i) => {
                    (i < self.players.len()).then(|| MarkOn::Player(Seat::new(i as u8)))
                }
            };
            if let Some(on) = on {
                field.apply(&Event::Marked {
                    mark: hexforge_core::marker::Mark {
                        on,
                        name: m.name,
                        lasts: m.lasts,
                        value: m.value,
                    },
                });
            }
        }
        // The linked units go on as the engine checks a new one; one it refuses (a segment off
        // the board, parted, or a `whole` unit with an empty segment) is left off and marked.
        for u in &self.units {
            let cells: Option<Vec<_>> = u.hexes.iter().map(|h| field.shape().cell(*h)).collect();
            let segments = cells.map_or(0, |c| c.iter().fold(0u64, |m, c| m | 1 << c.index()));
            let owner = Seat::new(u.owner as u8);
            match field.check_link(u.kind, owner, segments, u.loss, u.shared) {
                Ok(e) if u.owner < self.players.len() => field.apply(&e),
                Ok(_) => marks.push(Mark {
                    piece: None,
                    hex: u.hexes.first().copied(),
                    message: format!(
                        "linked unit `{}`: there is no player {}",
                        u.kind,
                        u.owner + 1
                    ),
                    missing: false,
                }),
                Err(e) => marks.push(Mark {
                    piece: None,
                    hex: u.hexes.first().copied(),
                    message: format!("linked unit `{}`: {e}", u.kind),
                    missing: false,
                }),
            }
        }
        Built {
            field: Some(field),
            marks,
        }
    }

    /// The linked unit with a segment on `hex`, if any.
    pub fn unit_at(&self, hex: Hex) -> Option<usize> {
        self.units.iter().position(|u| u.hexes.contains(&hex))
    }
}

/// A tile (or the players) the engine refused, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// The refused piece; `None` when the players themselves are refused.
    pub piece: Option<usize>,
    /// Where the refused tile stands, when it is a tile.
    pub hex: Option<Hex>,
    /// The engine's message, or `missing: <id>` for an id no loaded army has.
    pub message: String,
    /// Whether the tile's id is not loaded (any more).
    pub missing: bool,
}

/// The engine's battlefield of a board and what it refused.
#[derive(Clone, Debug)]
pub struct Built {
    /// The board with every tile the engine accepted (`None` when the players are refused).
    pub field: Option<Battlefield>,
    /// What the engine refused, each with why.
    pub marks: Vec<Mark>,
}

impl Built {
    /// The battlefield when every tile of the board is on it: what battles, plays and scenario
    /// files need. Otherwise the problems, one a line.
    pub fn complete(&self) -> Result<&Battlefield, String> {
        match &self.field {
            Some(f) if self.marks.is_empty() => Ok(f),
            _ => Err(self
                .marks
                .iter()
                .map(|m| m.message.clone())
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }
}

/// The board with its undo and redo history and its engine battlefield, rebuilt on every change.
#[derive(Clone, Debug)]
pub struct Edits {
    board: Board,
    built: Built,
    undo: Vec<Board>,
    redo: Vec<Board>,
    /// The field the last edit changed, when it asked to be merged with the next edits of the
    /// same field (a value dragged through many numbers is one step).
    merging: Option<String>,
    /// Counts every change of the board or of its battlefield (to key caches on).
    version: u64,
}

impl Edits {
    /// The board `board` with an empty history, built by the engine over `catalog`.
    pub fn new(board: Board, catalog: &Catalog) -> Edits {
        let built = board.build(catalog);
        Edits {
            board,
            built,
            undo: Vec::new(),
            redo: Vec::new(),
            merging: None,
            version: 0,
        }
    }

    /// Changes every time the board or its battlefield changes.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The board as edited.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The engine's battlefield of the board and what it refused.
    pub fn built(&self) -> &Built {
        &self.built
    }

    /// Changes the board with `edit`; the change is kept (and can be undone) unless the engine
    /// refuses a tile it did not refuse before: then the board stays as it was and the error says
    /// why. An edit that returns an error changes nothing either.
    pub fn edit(
        &mut self,
        catalog: &Catalog,
        edit: impl FnOnce(&mut Board) -> Result<(), String>,
    ) -> Result<(), String> {
        self.edit_merged(catalog, None, edit)
    }

    /// [`Edits::edit`], where edits in a row with the same `merge` key (e.g. `hq_hp 1`) are one
    /// step of the undo history.
    pub fn edit_merged(
        &mut self,
        catalog: &Catalog,
        merge: Option<String>,
        edit: impl FnOnce(&mut Board) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut next = self.board.clone();
        edit(&mut next)?;
        if next == self.board {
            return Ok(());
        }
        let built = next.build(catalog);
        let before: Vec<&str> = self
            .built
            .marks
            .iter()
            .map(|m| m.message.as_str())
            .collect();
        if built.marks.len() > self.built.marks.len() {
            let new = built
                .marks
                .iter()
                .find(|m| !before.contains(&m.message.as_str()))
                .or(built.marks.last());
            return Err(new.map_or_else(String::new, |m| m.message.clone()));
        }
        let merged = merge.is_some() && merge == self.merging && !self.undo.is_empty();
        let prev = std::mem::replace(&mut self.board, next);
        if !merged {
            self.undo.push(prev);
        }
        self.merging = merge;
        self.redo.clear();
        self.built = built;
        self.version += 1;
        Ok(())
    }

    /// Replaces the whole board (a loaded scenario, a replay's step), as one undoable edit.
    pub fn replace(&mut self, board: Board, catalog: &Catalog) {
        if board == self.board {
            return;
        }
        self.undo.push(std::mem::replace(&mut self.board, board));
        self.redo.clear();
        self.changed(catalog);
    }

    /// Rebuilds the battlefield after the board changed other than by an edit.
    fn changed(&mut self, catalog: &Catalog) {
        self.built = self.board.build(catalog);
        self.merging = None;
        self.version += 1;
    }

    /// Whether there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Whether there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Takes back the last edit; false when there is none.
    pub fn undo(&mut self, catalog: &Catalog) -> bool {
        let Some(prev) = self.undo.pop() else {
            return false;
        };
        self.redo.push(std::mem::replace(&mut self.board, prev));
        self.changed(catalog);
        true
    }

    /// Makes the last undone edit again; false when there is none.
    pub fn redo(&mut self, catalog: &Catalog) -> bool {
        let Some(next) = self.redo.pop() else {
            return false;
        };
        self.undo.push(std::mem::replace(&mut self.board, next));
        self.changed(catalog);
        true
    }

    /// New content: the tiles follow their ids into `catalog` (changed definitions take the new
    /// data; ids that vanished are marked, not dropped).
    pub fn content_changed(&mut self, catalog: &Catalog) {
        self.changed(catalog);
    }
}

/// The piece on `hex`, or an error naming the hex.
fn piece_mut(board: &mut Board, hex: Hex) -> Result<&mut Piece, String> {
    board
        .pieces
        .iter_mut()
        .find(|p| p.hex == hex)
        .ok_or_else(|| format!("no tile on {hex}"))
}

/// The edits the sandbox makes, each for [`Edits::edit`].
impl Board {
    /// Puts the tile `id` of seat `owner` on `hex` (a tile already there is replaced).
    pub fn place(&mut self, id: &str, owner: usize, hex: Hex, facing: Dir) -> Result<(), String> {
        if owner >= self.players.len() {
            return Err(format!("there is no player {}", owner + 1));
        }
        self.pieces.retain(|p| p.hex != hex);
        // The tile replaced takes its markers with it.
        self.marks.retain(|m| m.on != MarkPlace::Tile(hex));
        self.pieces.push(Piece {
            id: id.to_string(),
            owner,
            hex,
            facing,
            wounds: 0,
        });
        Ok(())
    }

    /// Moves the tile on `from` to the empty hex `to`, keeping its facing.
    pub fn move_piece(&mut self, from: Hex, to: Hex) -> Result<(), String> {
        if from == to {
            return Ok(());
        }
        if self.piece_at(to).is_some() {
            return Err(format!("{to} is taken: remove its tile first"));
        }
        piece_mut(self, from)?.hex = to;
        // A tile's markers go with it, and so does its segment (a tile on a segment carries it,
        // docs/LINKED_UNITS.md): a unit left in pieces is marked until it is mended.
        for m in &mut self.marks {
            if m.on == MarkPlace::Tile(from) {
                m.on = MarkPlace::Tile(to);
            }
        }
        for u in &mut self.units {
            for h in &mut u.hexes {
                if *h == from {
                    *h = to;
                }
            }
        }
        Ok(())
    }

    /// Turns the tile on `hex` by `steps` sixths clockwise (negative: anticlockwise).
    pub fn rotate(&mut self, hex: Hex, steps: i32) -> Result<(), String> {
        let p = piece_mut(self, hex)?;
        p.facing = p.facing.rotate(steps.rem_euclid(6) as u8);
        Ok(())
    }

    /// Takes the tile on `hex` off the board.
    pub fn remove(&mut self, hex: Hex) -> Result<(), String> {
        let i = self
            .piece_at(hex)
            .ok_or_else(|| format!("no tile on {hex}"))?;
        self.pieces.remove(i);
        self.marks.retain(|m| m.on != MarkPlace::Tile(hex));
        // A `whole` unit leaves with any of its tiles (R9.3.2); a `segment` unit keeps the
        // segment, empty (R10.6.7), until none of its segments holds a tile.
        let pieces = &self.pieces;
        self.units.retain(|u| {
            !u.hexes.contains(&hex)
                || (u.loss == LinkLoss::Segment
                    && u.hexes.iter().any(|h| pieces.iter().any(|p| p.hex == *h)))
        });
        Ok(())
    }

    /// Sets the wounds of the tile on `hex`, or says there is none.
    pub fn set_wounds(&mut self, hex: Hex, wounds: u8) -> Result<(), String> {
        piece_mut(self, hex)?.wounds = wounds;
        Ok(())
    }

    /// Gives the tile on `hex` to the player of seat `owner`, or says why not.
    pub fn set_owner(&mut self, hex: Hex, owner: usize) -> Result<(), String> {
        if owner >= self.players.len() {
            return Err(format!("there is no player {}", owner + 1));
        }
        piece_mut(self, hex)?.owner = owner;
        Ok(())
    }

    /// Adds a player of `army` on a team of their own.
    pub fn add_player(&mut self, army: &str) -> Result<(), String> {
        if self.players.len() >= *PLAYERS.end() {
            return Err(format!("a board has at most {} players", PLAYERS.end()));
        }
        let team = (0..=self.players.len() as u8)
            .find(|t| self.players.iter().all(|p| p.team != *t))
            .unwrap_or(0);
        self.players.push(Player {
            army: army.to_string(),
            hq_hp: i32::from(self.rules.hq_hp),
            team,
        });
        Ok(())
    }

    /// Removes the last player and their tiles.
    pub fn remove_player(&mut self) -> Result<(), String> {
        if self.players.len() <= *PLAYERS.start() {
            return Err(format!("a board has at least {} players", PLAYERS.start()));
        }
        self.players.pop();
        let n = self.players.len();
        self.pieces.retain(|p| p.owner < n);
        let pieces = &self.pieces;
        self.marks.retain(|m| match m.on {
            MarkPlace::Tile(h) => pieces.iter().any(|p| p.hex == h),
            MarkPlace::Hex(_) => true,
            MarkPlace::Player(i) => i < n,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::{Initiative, Tile, TileKind};

    #[test]
    fn picking_a_board_takes_its_hex_markers_along_and_leaves_the_others() {
        let hill = hexforge_content::parse_board(
            &hexforge_content::SourceText::new(
                "boards/hill.toml",
                "id = \"hill\"\nname = \"Hill\"\ndoc = \"d\"\nradius = 3\n\n[[hex]]\nat = [0, 0]\nmarker = \"initiative\"\nvalue = 2\n",
            ),
            "t",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let cat = catalog(1, true);
        let mut b = Board::new(&cat);
        let own = Marker {
            on: MarkPlace::Hex(Hex::new(1, 0)),
            name: MarkerName::new("mud").expect("a name"),
            lasts: Lasts::Permanent,
            value: 1,
        };
        b.marks.push(own);
        b.set_board(&hill, None);
        assert_eq!(b.kind.name(), "hill");
        assert_eq!(b.kind.shape().len(), 37);
        assert_eq!(b.marks.len(), 2);
        assert_eq!(b.marks[0].on, MarkPlace::Hex(Hex::ORIGIN));
        let field = b.build(&cat).field.expect("a board");
        let centre = field.shape().cell(Hex::ORIGIN).expect("the centre");
        assert_eq!(field.initiative_mark(centre), 2);
        // Back on the standard board: the hill's marker goes, the designer's own stays.
        let standard = &hexforge_content::Board::built_in()[0];
        b.set_board(standard, Some(&hill));
        assert_eq!(b.kind, BoardKind::standard());
        assert_eq!(b.marks, [own]);
    }

    fn catalog(brute_melee: u8, with_brute: bool) -> Catalog {
        let mut c = Catalog::new();
        let mut hq = Tile::new("x", "hq", TileKind::Hq);
        hq.initiative = Initiative::new(&[0]).expect("a valid initiative");
        let mut tiles = vec![hq];
        if with_brute {
            let mut brute = Tile::new("x", "brute", TileKind::Soldier);
            brute.initiative = Initiative::new(&[2]).expect("a valid initiative");
            brute.toughness = 1;
            brute.edges[0].melee = brute_melee;
            tiles.push(brute);
        }
        c.add_army("x", "X", 35, tiles).expect("a valid army");
        c
    }

    fn edits(cat: &Catalog) -> Edits {
        Edits::new(Board::new(cat), cat)
    }

    #[test]
    fn placing_builds_the_engine_field_and_illegal_placements_are_refused() {
        let cat = catalog(1, true);
        let mut e = edits(&cat);
        e.edit(&cat, |b| b.place("x/hq", 0, Hex::new(0, 1), Dir::N))
            .expect("a first HQ");
        e.edit(&cat, |b| b.place("x/brute", 0, Hex::new(0, 0), Dir::N))
            .expect("a soldier");
        let field = e.built().complete().expect("a legal board");
        assert_eq!(field.tiles().count(), 2);
        assert_eq!(
            cat.get(field.at_hex(Hex::new(0, 0)).expect("the brute").tile)
                .full_id(),
            "x/brute"
        );
        // A second HQ for the same player: the engine's error, and the board is unchanged.
        let err = e
            .edit(&cat, |b| b.place("x/hq", 0, Hex::new(1, 0), Dir::N))
            .expect_err("two HQs");
        assert!(err.contains("HQ"), "{err}");
        assert_eq!(e.board().pieces.len(), 2);
        // Off the board.
        let err = e
            .edit(&cat, |b| b.place("x/brute", 1, Hex::new(5, 0), Dir::N))
            .expect_err("off the board");
        assert!(err.contains("[5, 0]"), "{err}");
        // Too many wounds for a toughness-1 soldier.
        assert!(e.edit(&cat, |b| b.set_wounds(Hex::new(0, 0), 2)).is_err());
        e.edit(&cat, |b| b.set_wounds(Hex::new(0, 0), 1))
            .expect("one wound");
    }

    #[test]
    fn rotating_moving_and_removing_change_the_field() {
        let cat = catalog(1, true);
        let mut e = edits(&cat);
        let h = Hex::new(0, 0);
        e.edit(&cat, |b| b.place("x/brute", 1, h, Dir::N))
            .expect("placed");
        e.edit(&cat, |b| b.rotate(h, 1)).expect("turned");
        e.edit(&cat, |b| b.rotate(h, -3)).expect("turned back");
        let facing = |e: &Edits, h| {
            e.built()
                .complete()
                .expect("legal")
                .at_hex(h)
                .map(|p| p.facing)
        };
        assert_eq!(facing(&e, h), Some(Dir::new(4)));
        let to = Hex::new(1, -1);
        e.edit(&cat, |b| b.move_piece(h, to)).expect("moved");
        assert_eq!(facing(&e, h), None);
        assert_eq!(facing(&e, to), Some(Dir::new(4)));
        e.edit(&cat, |b| b.remove(to)).expect("removed");
        assert_eq!(e.built().complete().expect("legal").tiles().count(), 0);
        assert!(e.edit(&cat, |b| b.remove(to)).is_err());
    }

    #[test]
    fn undo_and_redo_walk_the_edits() {
        let cat = catalog(1, true);
        let mut e = edits(&cat);
        let h = Hex::new(0, 0);
        assert!(!e.can_undo());
        e.edit(&cat, |b| b.place("x/brute", 0, h, Dir::N))
            .expect("placed");
        e.edit(&cat, |b| b.rotate(h, 2)).expect("turned");
        assert!(e.undo(&cat));
        assert_eq!(e.board().pieces[0].facing, Dir::N);
        assert!(e.undo(&cat));
        assert!(e.board().pieces.is_empty());
        assert!(
            e.built()
                .complete()
                .expect("legal")
                .tiles()
                .next()
                .is_none()
        );
        assert!(!e.undo(&cat));
        assert!(e.redo(&cat));
        assert!(e.redo(&cat));
        assert_eq!(e.board().pieces[0].facing, Dir::SE);
        assert!(!e.redo(&cat));
        // A new edit drops what could be redone.
        e.undo(&cat);
        e.edit(&cat, |b| b.remove(h)).expect("removed");
        assert!(!e.can_redo());
        // A refused edit is not recorded.
        let undo_len = e.undo.len();
        assert!(e.edit(&cat, |b| b.remove(h)).is_err());
        assert_eq!(e.undo.len(), undo_len);
    }

    #[test]
    fn edits_of_one_field_in_a_row_are_one_step() {
        let cat = catalog(1, true);
        let mut e = edits(&cat);
        let hp = |e: &Edits| e.board().players[1].hq_hp;
        for v in [19, 18, 17] {
            e.edit_merged(&cat, Some("hq_hp 1".into()), |b| {
                b.players[1].hq_hp = v;
                Ok(())
            })
            .expect("a valid HP");
        }
        assert_eq!(hp(&e), 17);
        assert!(e.undo(&cat));
        assert_eq!(hp(&e), 20, "one undo takes the whole drag back");
        assert!(!e.can_undo());
        // Another field, or any other edit, starts a new step.
        e.edit_merged(&cat, Some("hq_hp 1".into()), |b| {
            b.players[1].hq_hp = 15;
            Ok(())
        })
        .expect("a valid HP");
        e.edit(&cat, |b| b.place("x/hq", 0, Hex::new(0, 1), Dir::N))
            .expect("an HQ");
        e.edit_merged(&cat, Some("hq_hp 1".into()), |b| {
            b.players[1].hq_hp = 14;
            Ok(())
        })
        .expect("a valid HP");
        assert!(e.undo(&cat));
        assert_eq!(hp(&e), 15);
        assert_eq!(e.board().pieces.len(), 1);
    }

    #[test]
    fn new_content_re_resolves_tiles_and_marks_vanished_ids() {
        let cat = catalog(1, true);
        let mut e = edits(&cat);
        e.edit(&cat, |b| b.place("x/hq", 0, Hex::new(0, 1), Dir::N))
            .expect("an HQ");
        e.edit(&cat, |b| b.place("x/brute", 1, Hex::new(0, 0), Dir::S))
            .expect("a brute");
        // The brute's definition changes: the field takes the new data.
        let stronger = catalog(3, true);
        e.content_changed(&stronger);
        let field = e.built().complete().expect("legal");
        let brute = field.at_hex(Hex::new(0, 0)).expect("still there");
        assert_eq!(stronger.get(brute.tile).edges[0].melee, 3);
        // The brute's id vanishes: it stays on the board, marked, and the board is incomplete.
        let without = catalog(1, false);
        e.content_changed(&without);
        assert_eq!(e.board().pieces.len(), 2);
        let marks = &e.built().marks;
        assert_eq!(marks.len(), 1);
        assert!(marks[0].missing);
        assert_eq!(marks[0].message, "missing: x/brute");
        assert_eq!(marks[0].hex, Some(Hex::new(0, 0)));
        let err = e.built().complete().expect_err("a missing tile");
        assert!(err.contains("missing: x/brute"), "{err}");
        // The HQ is still on the field that is drawn.
        assert_eq!(e.built().field.as_ref().map(|f| f.tiles().count()), Some(1));
        // Removing the missing tile makes the board whole again.
        e.edit(&without, |b| b.remove(Hex::new(0, 0)))
            .expect("removed");
        assert!(e.built().complete().is_ok());
    }

    #[test]
    fn linked_units_are_built_and_follow_hand_edits_that_keep_them_whole() {
        let cat = catalog(1, true);
        let mut e = edits(&cat);
        let (a, b, far, next_to_a) = (
            Hex::new(0, 0),
            Hex::new(0, 1),
            Hex::new(2, -2),
            Hex::new(1, -1),
        );
        let unit = |loss| Unit {
            kind: MarkerName::new("wagon").expect("a name"),
            owner: 1,
            hexes: vec![a, b],
            loss,
            shared: true,
        };
        e.edit(&cat, |board| {
            board.place("x/brute", 1, a, Dir::N)?;
            board.place("x/brute", 1, b, Dir::N)?;
            board.units = vec![unit(LinkLoss::Whole)];
            Ok(())
        })
        .expect("linked");
        let links = |e: &Edits| e.built().complete().expect("legal").links().len();
        assert_eq!(links(&e), 1);
        // A move that would part it is refused, the board as it was.
        let err = e
            .edit(&cat, |board| board.move_piece(b, far))
            .expect_err("parted");
        assert!(err.contains("not in one piece"), "{err}");
        assert_eq!(e.board().units[0].hexes, [a, b]);
        // One that keeps it whole carries the segment along.
        e.edit(&cat, |board| board.move_piece(b, next_to_a))
            .expect("still whole");
        assert_eq!(e.board().units[0].hexes, [a, next_to_a]);
        assert_eq!(links(&e), 1);
        // A `whole` unit leaves with any of its tiles.
        e.edit(&cat, |board| board.remove(a)).expect("removed");
        assert!(e.board().units.is_empty());
        // A `segment` unit keeps its empty segment until none holds a tile.
        e.edit(&cat, |board| {
            board.place("x/brute", 1, a, Dir::N)?;
            board.units = vec![Unit {
                hexes: vec![a, next_to_a],
                ..unit(LinkLoss::Segment)
            }];
            Ok(())
        })
        .expect("linked again");
        e.edit(&cat, |board| board.remove(a)).expect("removed");
        assert_eq!(e.board().units.len(), 1);
        assert_eq!(links(&e), 1);
        e.edit(&cat, |board| board.remove(next_to_a))
            .expect("removed");
        assert!(e.board().units.is_empty());
        // The board read back from its field keeps the unit.
        e.edit(&cat, |board| {
            board.place("x/brute", 1, a, Dir::N)?;
            board.place("x/brute", 1, b, Dir::N)?;
            board.units = vec![unit(LinkLoss::Whole)];
            Ok(())
        })
        .expect("linked");
        let field = e.built().complete().expect("legal").clone();
        let again = Board::from_field(&field, &cat, &e.board().armies(), &e.board().rules);
        assert_eq!(again.units, e.board().units);
    }

    #[test]
    fn markers_are_built_onto_the_field_and_follow_hand_edits() {
        let cat = catalog(1, true);
        let mut e = edits(&cat);
        let (h, to) = (Hex::new(0, 0), Hex::new(1, -1));
        let name = |s| MarkerName::new(s).expect("a marker name");
        let marker = |on, n| Marker {
            on,
            name: name(n),
            lasts: Lasts::Permanent,
            value: 2,
        };
        e.edit(&cat, |b| {
            b.place("x/brute", 1, h, Dir::N)?;
            b.marks = vec![
                marker(MarkPlace::Tile(h), "soaked"),
                marker(MarkPlace::Hex(h), "tide"),
                marker(MarkPlace::Player(1), "storm"),
            ];
            Ok(())
        })
        .expect("placed");
        let on = |e: &Edits, at: Hex| {
            let f = e.built().complete().expect("legal");
            let c = f.shape().cell(at).expect("on the board");
            (
                f.mark(MarkOn::Tile(c), name("soaked")).map(|m| m.value),
                f.mark(MarkOn::Hex(c), name("tide")).is_some(),
                f.mark(MarkOn::Player(Seat::new(1)), name("storm"))
                    .is_some(),
            )
        };
        assert_eq!(on(&e, h), (Some(2), true, true));
        // Moved, the tile takes its marker; the hex keeps its own.
        e.edit(&cat, |b| b.move_piece(h, to)).expect("moved");
        assert_eq!(on(&e, to), (Some(2), false, true));
        assert_eq!(on(&e, h), (None, true, true));
        // The board read back from the field has the same markers.
        let field = e.built().complete().expect("legal").clone();
        let again = Board::from_field(&field, &cat, &e.board().armies(), &e.board().rules);
        assert_eq!(again.marks.len(), 3);
        assert_eq!(again.build(&cat).field.map(|f| f.marks().len()), Some(3));
        // Removed, it leaves with them.
        e.edit(&cat, |b| b.remove(to)).expect("removed");
        assert_eq!(on(&e, to), (None, false, true));
        assert_eq!(e.board().marks.len(), 2);
    }

    #[test]
    fn players_come_and_go_with_their_tiles() {
        let cat = catalog(1, true);
        let mut e = edits(&cat);
        assert!(e.edit(&cat, |b| b.remove_player()).is_err());
        e.edit(&cat, |b| b.add_player("x")).expect("a third player");
        assert_eq!(e.board().players[2].team, 2);
        e.edit(&cat, |b| b.place("x/hq", 2, Hex::new(1, 0), Dir::N))
            .expect("their HQ");
        e.edit(&cat, |b| b.remove_player()).expect("removed");
        assert!(e.board().pieces.is_empty());
        assert!(
            e.edit(&cat, |b| b.place("x/hq", 2, Hex::new(1, 0), Dir::N))
                .is_err()
        );
    }
}
