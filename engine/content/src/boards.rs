//! Boards as data (docs/RULESETS.md, "Boards"): a mod's `boards/*.toml`, one board each, with
//! its hexes (a hexagon of a radius or a list), the holes cut out of it, the main area whose
//! filling starts a battle (R4.11, R8.7) and the markers its special hexes carry from the start
//! of a game (R9.7 King of the Hill, R9.5 maps). The engine's two printed boards, `standard`
//! and `extended`, are built in.

use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml_every};
use hexforge_core::marker::{Lasts, Mark, MarkOn, MarkerName};
use hexforge_core::names::did_you_mean;
use hexforge_core::shape::MAX_CELLS;

/// The fewest hexes a board may have: one for each HQ of a four-player game.
pub const MIN_HEXES: usize = 4;
use hexforge_core::{BoardShape, Hex, Rules};
use serde::Deserialize;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;
use toml::Spanned;

/// The folder of a mod that holds its board files.
pub const BOARDS_DIR: &str = "boards";

/// The ids of the boards the engine has without any mod: the 19-hex battlefield (R1.2) and the
/// 37-hex extended one whose 19 main hexes start battles (R1.3, R8.7).
pub const BUILT_IN: [&str; 2] = ["standard", "extended"];

/// The board a match plays on when none is named.
pub const DEFAULT_BOARD: &str = "standard";

/// The words `lasts` takes besides a number of turns.
pub const LASTS: &[&str] = &["game", "battle", "turn"];

/// The largest radius a hexagon board may be given (before its holes are cut out).
const MAX_RADIUS: i64 = 8;

/// The largest coordinate a listed hex may have, either way.
const MAX_COORD: i64 = 50;

/// A list of `[q, r]` pairs as written, each with where it is.
pub type HexList = Spanned<Vec<Spanned<(i64, i64)>>>;

/// A board file as parsed, before it is checked.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct BoardDef {
    /// The id `--board`, scenarios and replays name it by; snake_case.
    pub id: Spanned<String>,
    /// Its name for people.
    pub name: Spanned<String>,
    /// One line saying what it is.
    pub doc: Spanned<String>,
    /// The rule it follows (e.g. `R9.7`).
    pub rule: Option<Spanned<String>>,
    /// A hexagon of this radius around `[0, 0]` (give this or `hexes`).
    pub radius: Option<Spanned<i64>>,
    /// The board's hexes as `[q, r]` pairs (give this or `radius`).
    pub hexes: Option<HexList>,
    /// The hexes whose filling starts a battle; default all.
    pub main: Option<HexList>,
    /// The main area as the hexes within this radius of `[0, 0]`.
    pub main_radius: Option<Spanned<i64>>,
    /// Holes: hexes of `radius` or `hexes` that are not part of the board.
    pub blocked: Option<HexList>,
    /// The special hexes and the markers they carry.
    #[serde(default)]
    pub hex: Vec<HexDef>,
}

/// One `[[hex]]` table of a board file: a marker on a hex.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct HexDef {
    /// The hex, `[q, r]`.
    pub at: Spanned<(i64, i64)>,
    /// The marker's name: one of the engine's (`initiative`) or a mod's own.
    pub marker: Spanned<String>,
    /// The number it carries; default 0.
    pub value: Option<Spanned<i64>>,
    /// How long it lasts: `game` (the default), `battle`, `turn` or a number of turns.
    pub lasts: Option<Spanned<toml::Value>>,
}

/// A marker a board puts on one of its hexes as a game begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HexMark {
    /// The hex it is on.
    pub hex: Hex,
    /// Its name.
    pub name: MarkerName,
    /// The number it carries.
    pub value: i16,
    /// How long it lasts from the start of the game.
    pub lasts: Lasts,
}

/// A checked board: its shape, the markers of its special hexes and where it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    /// Its id (also the shape's name).
    pub id: String,
    /// Its name for people.
    pub name: String,
    /// One line saying what it is.
    pub doc: String,
    /// The rule it follows, if any.
    pub rule: Option<String>,
    /// The hexes, their neighbours and the main area, as the engine plays them.
    pub shape: BoardShape,
    /// The markers on its hexes when a game begins, in file order.
    pub marks: Vec<HexMark>,
    /// The mod whose file defines it (`None`: built in).
    pub mod_id: Option<String>,
    /// Where its id is written (`None`: built in).
    pub at: Option<Diagnostic>,
}

impl Board {
    /// The engine's own boards: `standard` then `extended`.
    pub fn built_in() -> &'static [Board] {
        static BUILT: OnceLock<[Board; 2]> = OnceLock::new();
        BUILT.get_or_init(|| {
            let printed = |shape: BoardShape, name: &str, doc: &str, rule: &str| Board {
                id: shape.name().to_string(),
                name: name.to_string(),
                doc: doc.to_string(),
                rule: Some(rule.to_string()),
                shape,
                marks: Vec::new(),
                mod_id: None,
                at: None,
            };
            [
                printed(
                    BoardShape::standard(),
                    "Standard",
                    "The 19-hex battlefield.",
                    "R1.2",
                ),
                printed(
                    BoardShape::extended(),
                    "Extended",
                    "The 37-hex battlefield; filling its 19 main hexes starts a battle.",
                    "R8.7",
                ),
            ]
        })
    }

    /// The markers this board starts a game with, on its shape's cells, for
    /// `GameSetup::marks` or a scenario's battlefield.
    pub fn start_marks(&self) -> Vec<Mark> {
        self.marks
            .iter()
            .filter_map(|m| {
                Some(Mark {
                    on: MarkOn::Hex(self.shape.cell(m.hex)?),
                    name: m.name,
                    lasts: m.lasts,
                    value: m.value,
                })
            })
            .collect()
    }

    /// Where the board comes from, for lists: `built in` or `mod ID`.
    pub fn origin(&self) -> String {
        match &self.mod_id {
            Some(m) => format!("mod {m}"),
            None => "built in".to_string(),
        }
    }
}

/// A board id that no loaded board has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBoard {
    /// The id as given.
    pub id: String,
    /// The ids of the boards there are, built-in first, then the mods' in load order.
    pub known: Vec<String>,
}

impl fmt::Display for UnknownBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown board `{}`{}: use one of {} (a mod's boards/*.toml adds more)",
            self.id,
            did_you_mean(&self.id, self.known.iter().map(String::as_str)),
            self.known.join(", ")
        )
    }
}

impl std::error::Error for UnknownBoard {}

/// The board named `id` among `boards` (the built-in ones first, then the mods'), or an error
/// listing them.
pub fn find_board<'b>(
    boards: impl IntoIterator<Item = &'b Board> + Clone,
    id: &str,
) -> Result<&'b Board, UnknownBoard> {
    boards
        .clone()
        .into_iter()
        .find(|b| b.id == id)
        .ok_or_else(|| UnknownBoard {
            id: id.to_string(),
            known: boards.into_iter().map(|b| b.id.clone()).collect(),
        })
}

/// The board a table plays on: `board`, except that the rule option `extended_board` turns the
/// standard board into the extended one (R8.7).
pub fn table_board<'b>(board: &'b Board, rules: &Rules) -> &'b Board {
    if rules.extended_board && board.id == DEFAULT_BOARD {
        &Board::built_in()[1]
    } else {
        board
    }
}

/// Reads and checks a board file of the mod `mod_id`.
pub fn load_board(path: &Path, mod_id: &str) -> Result<Board, Diagnostics> {
    parse_board(&SourceText::read(path, "board file")?, mod_id)
}

/// Parses then checks a board file's text; every problem is reported at once, each at its
/// `file:line:column` with what to do.
pub fn parse_board(src: &SourceText, mod_id: &str) -> Result<Board, Diagnostics> {
    let def: BoardDef = parse_toml_every(src)?;
    let mut errors: Vec<Diagnostic> = Vec::new();
    let mut err = |span: Range<usize>, message: String| errors.push(src.error(span, message));

    let id = def.id.get_ref().clone();
    if !crate::scaffold::valid_id(&id) {
        err(
            def.id.span(),
            format!("board id `{id}`: use a snake_case name (lowercase letters, digits, _)"),
        );
    } else if BUILT_IN.contains(&id.as_str()) {
        err(
            def.id.span(),
            format!("board id `{id}` is a built-in board's: give this board another id"),
        );
    }
    if def.name.get_ref().trim().is_empty() {
        err(
            def.name.span(),
            "the board's `name` is empty: give it a name".into(),
        );
    }
    let doc = def.doc.get_ref();
    if doc.trim().is_empty() || doc.contains('\n') {
        err(
            def.doc.span(),
            "the board's `doc` must be one line saying what the board is".into(),
        );
    }

    // The hexes: a hexagon or a list, less the holes.
    let coords = |list: &HexList,
                  what: &str,
                  err: &mut dyn FnMut(Range<usize>, String)|
     -> Vec<(Hex, Range<usize>)> {
        let mut out: Vec<(Hex, Range<usize>)> = Vec::new();
        for h in list.get_ref() {
            let (q, r) = *h.get_ref();
            if q.abs() > MAX_COORD || r.abs() > MAX_COORD {
                err(
                    h.span(),
                    format!(
                        "{what} hex [{q}, {r}] is too far out: use coordinates from -{MAX_COORD} to {MAX_COORD}"
                    ),
                );
                continue;
            }
            let hex = Hex::new(q as i32, r as i32);
            if out.iter().any(|(x, _)| *x == hex) {
                err(
                    h.span(),
                    format!("{what} hex {hex} is listed twice: remove one"),
                );
                continue;
            }
            out.push((hex, h.span()));
        }
        out
    };
    // Each hex with where it comes from (its entry in `hexes`, else the `radius`).
    let mut hexes: Vec<(Hex, Range<usize>)> = match (&def.radius, &def.hexes) {
        (Some(_), Some(h)) => {
            err(
                h.span(),
                "give the board's hexes either as `radius` or as a `hexes` list, not both".into(),
            );
            Vec::new()
        }
        (None, None) => {
            err(
                def.id.span(),
                "the board has no hexes: add `radius = N` (a hexagon) or `hexes = [[q, r], ...]`"
                    .into(),
            );
            Vec::new()
        }
        (Some(r), None) => {
            let n = *r.get_ref();
            if !(1..=MAX_RADIUS).contains(&n) {
                err(
                    r.span(),
                    format!(
                        "radius {n}: use 1 to {MAX_RADIUS} (radius 2 is the standard board, 3 the extended one)"
                    ),
                );
                Vec::new()
            } else {
                Hex::ORIGIN
                    .within(n as u32)
                    .into_iter()
                    .map(|h| (h, r.span()))
                    .collect()
            }
        }
        (None, Some(list)) => {
            if list.get_ref().is_empty() {
                err(
                    list.span(),
                    "the `hexes` list is empty: list the board's hexes as [q, r] pairs".into(),
                );
            }
            coords(list, "board", &mut err)
        }
    };
    let shape_span = def
        .hexes
        .as_ref()
        .map(Spanned::span)
        .or(def.radius.as_ref().map(Spanned::span))
        .unwrap_or(def.id.span());
    if let Some(blocked) = &def.blocked {
        for (hex, span) in coords(blocked, "blocked", &mut err) {
            match hexes.iter().position(|(h, _)| *h == hex) {
                Some(i) => {
                    hexes.remove(i);
                }
                None if !hexes.is_empty() => err(
                    span,
                    format!(
                        "blocked hex {hex} is not one of the board's hexes: remove it, or add it to the board"
                    ),
                ),
                None => {}
            }
        }
    }
    if hexes.len() > MAX_CELLS {
        err(
            shape_span.clone(),
            format!(
                "the board has {} hexes; the engine holds at most {MAX_CELLS} (its cell sets are 64-bit masks): make it smaller or block more hexes (radius 4 holds 61)",
                hexes.len()
            ),
        );
    } else if !hexes.is_empty() && hexes.len() < MIN_HEXES {
        // Every player's HQ goes on a hex of its own (R2.3): a smaller board stops a game of
        // four before it starts.
        err(
            shape_span.clone(),
            format!(
                "the board has {} hex{}{}; a game needs one for each player's HQ and room to play: give it {MIN_HEXES} at least (radius 1 holds 7)",
                hexes.len(),
                if hexes.len() == 1 { "" } else { "es" },
                if def.blocked.is_some() {
                    " once its blocked hexes are cut out"
                } else {
                    ""
                }
            ),
        );
    }

    // The main area.
    let on_board = |h: Hex| hexes.iter().any(|(x, _)| *x == h);
    let main: Option<Vec<Hex>> = match (&def.main, &def.main_radius) {
        (Some(m), Some(_)) => {
            err(
                m.span(),
                "give the main area either as `main_radius` or as a `main` list, not both".into(),
            );
            None
        }
        (None, None) => None,
        (None, Some(r)) => {
            let n = *r.get_ref();
            if !(0..=MAX_RADIUS).contains(&n) {
                err(r.span(), format!("main_radius {n}: use 0 to {MAX_RADIUS}"));
                None
            } else {
                let m: Vec<Hex> = hexes
                    .iter()
                    .map(|(h, _)| *h)
                    .filter(|h| i64::from(h.ring()) <= n)
                    .collect();
                let widest = hexes.iter().map(|(h, _)| i64::from(h.ring())).max();
                if m.is_empty() && !hexes.is_empty() {
                    err(
                        r.span(),
                        format!(
                            "no hex of the board is within main_radius {n}: use a larger radius"
                        ),
                    );
                } else if let Some(w) = widest.filter(|w| n > *w) {
                    err(
                        r.span(),
                        format!(
                            "main_radius {n} reaches past the board, whose hexes go out to ring {w}: give {w} or less (or leave main_radius out: the main area is then the whole board)"
                        ),
                    );
                }
                Some(m)
            }
        }
        (Some(list), None) => {
            let mut m = Vec::new();
            for (hex, span) in coords(list, "main-area", &mut err) {
                if on_board(hex) {
                    m.push(hex);
                } else if !hexes.is_empty() {
                    err(
                        span,
                        format!(
                            "main-area hex {hex} is not one of the board's hexes: remove it, or add it to the board"
                        ),
                    );
                }
            }
            if list.get_ref().is_empty() {
                err(
                    list.span(),
                    "the `main` list is empty: list the hexes whose filling starts a battle, or leave `main` out (all of them)"
                        .into(),
                );
            }
            Some(m)
        }
    };

    // The shape, when the hexes are good so far.
    let mut shape = None;
    if !hexes.is_empty() && hexes.len() <= MAX_CELLS {
        match BoardShape::from_hexes(
            &id,
            hexes.iter().map(|(h, _)| *h).collect(),
            main.as_deref(),
        ) {
            Ok(s) => {
                // Connected: every hex reached from the first by steps on the board.
                let mut seen = 1u64;
                let mut todo = vec![s.cells().next()];
                while let Some(Some(c)) = todo.pop() {
                    for d in hexforge_core::Dir::ALL {
                        if let Some(n) = s.neighbour(c, d)
                            && seen & (1 << n.index()) == 0
                        {
                            seen |= 1 << n.index();
                            todo.push(Some(n));
                        }
                    }
                }
                let cut: Vec<Hex> = s
                    .cells()
                    .filter(|c| seen & (1 << c.index()) == 0)
                    .map(|c| s.hex(c))
                    .collect();
                if let Some(first) = cut.first() {
                    let span = hexes
                        .iter()
                        .find(|(h, _)| h == first)
                        .map(|(_, sp)| sp.clone())
                        .filter(|_| def.hexes.is_some())
                        .or(def.blocked.as_ref().map(Spanned::span))
                        .unwrap_or(shape_span.clone());
                    let shown: Vec<String> = cut.iter().take(6).map(Hex::to_string).collect();
                    let start = s.cells().next().map(|c| s.hex(c)).unwrap_or(Hex::ORIGIN);
                    err(
                        span,
                        format!(
                            "the board's hexes are not connected: {} {}{} cannot be reached from {start} by steps across the board: join them or remove the cut-off hexes",
                            if cut.len() == 1 { "hex" } else { "hexes" },
                            shown.join(", "),
                            if cut.len() > 6 { ", ..." } else { "" }
                        ),
                    );
                } else {
                    shape = Some(s);
                }
            }
            Err(e) => err(shape_span.clone(), format!("{e}: fix the board's hexes")),
        }
    }

    // The special hexes.
    let mut marks: Vec<HexMark> = Vec::new();
    for h in &def.hex {
        let (q, r) = *h.at.get_ref();
        let hex = Hex::new(q.clamp(-999, 999) as i32, r.clamp(-999, 999) as i32);
        let cell = shape.as_ref().and_then(|s| s.cell(hex));
        if cell.is_none() && (shape.is_some() || !on_board(hex)) && !hexes.is_empty() {
            err(
                h.at.span(),
                format!(
                    "hex [{q}, {r}] is not one of the board's hexes{}: put the marker on a hex of the board",
                    if def
                        .blocked
                        .as_ref()
                        .is_some_and(|b| b.get_ref().iter().any(|x| *x.get_ref() == (q, r)))
                    {
                        " (it is blocked)"
                    } else {
                        ""
                    }
                ),
            );
        }
        let name = match MarkerName::new(h.marker.get_ref()) {
            Ok(n) => Some(n),
            Err(e) => {
                err(h.marker.span(), e.to_string());
                None
            }
        };
        let value = match &h.value {
            None => Some(0),
            Some(v) if (-999..=999).contains(v.get_ref()) => Some(*v.get_ref() as i16),
            Some(v) => {
                err(
                    v.span(),
                    format!("marker value {}: use -999 to 999", v.get_ref()),
                );
                None
            }
        };
        if let (Some(n), Some(v)) = (name, value) {
            // Where it may go is checked on a hex: any cell will do.
            let probe = cell.or_else(|| Board::built_in()[0].shape.cells().next());
            let checked = probe.map_or(Ok(()), |c| n.check(MarkOn::Hex(c), v));
            if let Err(why) = checked {
                let span = h.value.as_ref().map_or(h.marker.span(), Spanned::span);
                let span = if why.contains("goes on a tile") {
                    h.marker.span()
                } else {
                    span
                };
                err(span, format!("{why} (marker on hex [{q}, {r}])"));
            } else if marks.iter().any(|m| m.hex == hex && m.name == n) {
                err(
                    h.marker.span(),
                    format!(
                        "hex [{q}, {r}] already carries a marker `{n}`: a hex holds one marker of a name, so merge their values"
                    ),
                );
            }
        }
        let lasts = match &h.lasts {
            None => Some(Lasts::Permanent),
            Some(l) => match l.get_ref() {
                toml::Value::String(s) if s == "game" => Some(Lasts::Permanent),
                toml::Value::String(s) if s == "battle" => Some(Lasts::Battle),
                toml::Value::String(s) if s == "turn" => Some(Lasts::Turn),
                toml::Value::Integer(n) if (1..=99).contains(n) => Some(Lasts::Turns(*n as u8)),
                other => {
                    let shown = match other {
                        toml::Value::String(s) => {
                            format!("`{s}`{}", did_you_mean(s, LASTS.iter().copied()))
                        }
                        v => v.to_string(),
                    };
                    err(
                        l.span(),
                        format!(
                            "lasts {shown}: use \"game\" (the default), \"battle\" (until the end of the first battle), \"turn\" (the first turn) or a number of turns from 1 to 99"
                        ),
                    );
                    None
                }
            },
        };
        if let (Some(name), Some(value), Some(lasts)) = (name, value, lasts) {
            marks.push(HexMark {
                hex,
                name,
                value,
                lasts,
            });
        }
    }

    if !errors.is_empty() {
        errors.sort_by_key(|d| (d.line, d.column));
        return Err(Diagnostics(errors));
    }
    let Some(shape) = shape else {
        // Every way to have no shape reported a problem above.
        return Err(Diagnostics(vec![src.error(
            shape_span,
            "the board's hexes do not make a board: check `radius` or `hexes`",
        )]));
    };
    Ok(Board {
        at: Some(src.error(def.id.span(), "")),
        id,
        name: def.name.into_inner(),
        doc: def.doc.into_inner(),
        rule: def.rule.map(Spanned::into_inner),
        shape,
        marks,
        mod_id: Some(mod_id.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Board, Diagnostics> {
        parse_board(&SourceText::new("boards/b.toml", text), "m")
    }

    fn problems(text: &str) -> Vec<String> {
        match parse(text) {
            Ok(b) => panic!("board `{}` should be refused", b.id),
            Err(d) => d.iter().map(ToString::to_string).collect(),
        }
    }

    const HEAD: &str = "id = \"b\"\nname = \"B\"\ndoc = \"A board.\"\n";

    #[test]
    fn a_board_too_small_for_four_hqs_is_refused() {
        let said = problems(&format!("{HEAD}hexes = [[0, 0]]\n"));
        assert!(
            said.iter()
                .any(|p| p.contains("the board has 1 hex; a game needs one for each player's HQ")),
            "{said:?}"
        );
    }

    #[test]
    fn a_main_radius_past_the_board_is_refused() {
        let said = problems(&format!("{HEAD}radius = 2\nmain_radius = 5\n"));
        assert!(
            said.iter().any(|p| p
                .contains("main_radius 5 reaches past the board, whose hexes go out to ring 2")),
            "{said:?}"
        );
    }

    #[test]
    fn a_hexagon_with_holes_and_a_marked_centre() {
        let b = parse(&format!(
            "{HEAD}radius = 2\nblocked = [[1, -1]]\nmain_radius = 1\n\n[[hex]]\nat = [0, 0]\nmarker = \"initiative\"\nvalue = 2\n\n[[hex]]\nat = [0, 1]\nmarker = \"mud\"\nlasts = 3\n"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b.shape.len(), 18);
        assert_eq!(b.shape.name(), "b");
        assert_eq!(b.shape.main_area().count_ones(), 6);
        assert!(b.shape.cell(Hex::new(1, -1)).is_none());
        assert_eq!(b.marks.len(), 2);
        assert_eq!(b.marks[0].lasts, Lasts::Permanent);
        assert_eq!(b.marks[1].lasts, Lasts::Turns(3));
        assert_eq!(b.marks[1].value, 0);
        let marks = b.start_marks();
        assert_eq!(
            marks[0].on,
            MarkOn::Hex(b.shape.cell(Hex::ORIGIN).expect("centre"))
        );
        assert_eq!(marks[0].value, 2);
        assert_eq!(b.mod_id.as_deref(), Some("m"));
        assert_eq!(b.at.as_ref().map(|a| a.line), Some(1));
    }

    #[test]
    fn a_listed_board_keeps_its_hexes() {
        let b = parse(&format!(
            "{HEAD}hexes = [[0, 0], [0, 1], [1, 0], [2, -1]]\nmain = [[0, 0]]\n"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b.shape.len(), 4);
        assert_eq!(b.shape.main_area().count_ones(), 1);
    }

    #[test]
    fn every_problem_is_reported_at_its_place() {
        let p = problems(
            "id = \"Bad Id\"\nname = \"B\"\ndoc = \"A board.\"\nhexes = [[0, 0], [0, 1], [3, 0], [0, 1]]\nblocked = [[5, 5]]\n\n[[hex]]\nat = [9, 9]\nmarker = \"initiative\"\nvalue = 2\n\n[[hex]]\nat = [0, 0]\nmarker = \"Mud\"\n\n[[hex]]\nat = [0, 0]\nmarker = \"initiative\"\nvalue = 12\n\n[[hex]]\nat = [0, 1]\nmarker = \"add_armor\"\nvalue = 1\n\n[[hex]]\nat = [0, 1]\nmarker = \"mud\"\nlasts = \"forever\"\n",
        );
        let expected = [
            "boards/b.toml:1:6: board id `Bad Id`: use a snake_case name",
            "boards/b.toml:4:9: the board has 3 hexes once its blocked hexes are cut out; a game needs one for each player's HQ and room to play: give it 4 at least",
            "boards/b.toml:4:26: the board's hexes are not connected: hex [3, 0] cannot be reached from [0, 0] by steps across the board: join them or remove the cut-off hexes",
            "boards/b.toml:4:34: board hex [0, 1] is listed twice: remove one",
            "boards/b.toml:5:12: blocked hex [5, 5] is not one of the board's hexes",
            "boards/b.toml:8:6: hex [9, 9] is not one of the board's hexes: put the marker",
            "boards/b.toml:14:10: `Mud` is not a marker name",
            "boards/b.toml:19:9: the `initiative` marker's value is added to initiative: use -9 to 9, not 12 (marker on hex [0, 0])",
            "boards/b.toml:23:10: the engine's marker `add_armor` goes on a tile, not on a hex or a player",
            "boards/b.toml:29:9: lasts `forever`: use \"game\"",
        ];
        for (got, want) in p.iter().zip(&expected) {
            assert!(got.starts_with(want), "{got}\n  should start with\n{want}");
        }
        assert_eq!(p.len(), expected.len(), "{p:#?}");
    }

    #[test]
    fn a_board_too_large_for_the_cell_masks_is_refused() {
        let p = problems(&format!("{HEAD}radius = 5\n"));
        assert_eq!(
            p,
            [
                "boards/b.toml:4:10: the board has 91 hexes; the engine holds at most 64 (its cell sets are 64-bit masks): make it smaller or block more hexes (radius 4 holds 61)"
            ]
        );
        assert!(problems(HEAD)[0].contains("the board has no hexes"));
        assert!(
            problems(&format!("{HEAD}radius = 2\nhexes = [[0, 0]]\n"))[0]
                .contains("either as `radius` or as a `hexes` list")
        );
        assert!(
            problems("id = \"extended\"\nname = \"E\"\ndoc = \"d\"\nradius = 3\n")[0]
                .contains("is a built-in board's")
        );
    }

    #[test]
    fn a_ring_cut_by_holes_is_not_connected() {
        // Blocking the ring around the centre leaves the centre alone.
        let p = problems(&format!(
            "{HEAD}radius = 2\nblocked = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]]\n"
        ));
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(
            p[0],
            "boards/b.toml:5:11: the board's hexes are not connected: hex [0, 0] cannot be reached from [0, -2] by steps across the board: join them or remove the cut-off hexes"
        );
    }

    #[test]
    fn boards_are_found_by_id_and_the_extended_rule_widens_the_standard_one() {
        let built = Board::built_in();
        assert_eq!(built.len(), 2);
        assert_eq!(find_board(built, "extended").map(|b| b.shape.len()), Ok(37));
        let e = find_board(built, "extnded").expect_err("misspelt");
        assert_eq!(
            e.to_string(),
            "unknown board `extnded` (did you mean `extended`?): use one of standard, extended (a mod's boards/*.toml adds more)"
        );
        let mut rules = Rules::default();
        assert_eq!(table_board(&built[0], &rules).id, "standard");
        rules.extended_board = true;
        assert_eq!(table_board(&built[0], &rules).id, "extended");
        let koth = parse(&format!("{HEAD}radius = 2\n")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(table_board(&koth, &rules).id, "b");
    }

    #[test]
    fn the_shipped_boards_load() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods");
        let koth = load_board(&root.join("base/boards/king_of_the_hill.toml"), "base")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((koth.shape.len(), koth.marks.len()), (19, 7));
        let total: i16 = koth.marks.iter().map(|m| m.value).sum();
        assert_eq!(total, 2 + 6);
        let ford = load_board(&root.join("examples/boards/sunken_ford.toml"), "examples")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ford.shape.len(), 31);
        assert_eq!(ford.shape.main_area().count_ones(), 17);
    }
}
