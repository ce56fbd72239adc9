//! The starting board of a scenario: its `[[tile]]`, `[[hex_marker]]` and `[[link]]` tables, and
//! the engine's check of the board they make, each refusal at the table that causes it.

use super::def::{HexMarkerDef, LinkDef, MarkerDef, TileDef};
use super::read::{
    Labels, PlayerIds, Reader, ints, off_board, resolve_tile, start_mark, unknown_tile,
};
use super::scenario::Labelled;
use hexforge_content::Diagnostic;
use hexforge_core::marker::{Mark, MarkOn, MarkerName};
use hexforge_core::{BoardShape, Catalog, Dir, Hex, Link, LinkLoss, Setup, SetupError, TileSetup};
use std::ops::Range;
use toml::Spanned;

/// The tiles on the starting board, with where each is given and the markers on them.
pub(super) struct Tiles {
    /// The tiles whose owner and `army/tile` are known.
    pub(super) tiles: Vec<TileSetup>,
    /// Where each of `tiles` is given (its `at`), for a board the engine refuses.
    pub(super) spans: Vec<Range<usize>>,
    /// The markers on them at the start.
    pub(super) marks: Vec<Mark>,
}

/// Reads the `[[tile]]` tables, labelling each tile in `labels`.
pub(super) fn tiles(
    r: &mut Reader<'_>,
    defs: &[Spanned<TileDef>],
    shape: &BoardShape,
    ids: &PlayerIds<'_>,
    catalog: &Catalog,
    labels: &mut Labels,
) -> Tiles {
    let mut out = Tiles {
        tiles: Vec::new(),
        spans: Vec::new(),
        marks: Vec::new(),
    };
    for t in defs {
        let t = t.get_ref();
        let owner = ids.seat(t.owner.get_ref());
        if owner.is_none() {
            r.err(
                t.owner.span(),
                format!(
                    "owner `{}` is not one of the players{}",
                    t.owner.get_ref(),
                    ids.hint(t.owner.get_ref())
                ),
            );
        }
        let tile_ref = resolve_tile(catalog, t.tile.get_ref());
        if tile_ref.is_none() {
            r.err(t.tile.span(), unknown_tile(catalog, t.tile.get_ref()));
        }
        let facing = match &t.facing {
            None => Dir::N,
            Some(f) => Dir::from_index(*f.get_ref()).unwrap_or_else(|| {
                r.err(
                    f.span(),
                    format!("facing {} is not a direction from 0 to 5", f.get_ref()),
                );
                Dir::N
            }),
        };
        let wounds = match &t.wounds {
            None => 0,
            Some(w) => u8::try_from(*w.get_ref()).unwrap_or_else(|_| {
                r.err(
                    w.span(),
                    format!(
                        "wounds {} is out of range: give 0 to 255 (and fewer than the tile's hit points)",
                        w.get_ref()
                    ),
                );
                0
            }),
        };
        let label = match &t.label {
            Some(l) => l.get_ref().clone(),
            None => labels.unnamed(t.tile.get_ref()),
        };
        if labels.has(&label) {
            let span = t.label.as_ref().map_or(t.tile.span(), |l| l.span());
            r.err(
                span,
                format!("label `{label}` is used twice: give the tile a `label`"),
            );
        }
        let hex = match ints(&t.at, 2, "at", "[q, r]") {
            Ok(v) => Hex::new(v[0], v[1]),
            Err((span, message)) => {
                r.err(span, message);
                continue;
            }
        };
        match shape.cell(hex) {
            None => r.err(t.at.span(), off_board(hex, shape)),
            Some(c) => {
                for m in &t.markers {
                    out.marks
                        .extend(start_mark(r, MarkOn::Tile(c), m.get_ref()));
                }
            }
        }
        labels.list.push(Labelled {
            label,
            hex,
            at_start: true,
        });
        if let (Some(owner), Some(tile)) = (owner, tile_ref) {
            out.spans.push(t.at.span());
            out.tiles.push(TileSetup {
                tile,
                owner,
                hex,
                facing,
                wounds,
            });
        }
    }
    out
}

/// The markers the `[[hex_marker]]` tables put on hexes at the start.
pub(super) fn hex_marks(
    r: &mut Reader<'_>,
    defs: &[Spanned<HexMarkerDef>],
    shape: &BoardShape,
) -> Vec<Mark> {
    let mut marks = Vec::new();
    for h in defs {
        let h = h.get_ref();
        let hex = match ints(&h.at, 2, "at", "[q, r]") {
            Ok(v) => Hex::new(v[0], v[1]),
            Err((span, message)) => {
                r.err(span, message);
                continue;
            }
        };
        let Some(c) = shape.cell(hex) else {
            r.err(h.at.span(), off_board(hex, shape));
            continue;
        };
        let def = MarkerDef {
            name: h.name.clone(),
            lasts: h.lasts.clone(),
            value: h.value.clone(),
        };
        marks.extend(start_mark(r, MarkOn::Hex(c), &def));
    }
    marks
}

/// The `[[link]]` tables as linked units, numbered from 1 in file order; the board checks them
/// once it is built ([`check`]).
pub(super) fn links(
    r: &mut Reader<'_>,
    defs: &[Spanned<LinkDef>],
    shape: &BoardShape,
    ids: &PlayerIds<'_>,
) -> Vec<Link> {
    let mut links = Vec::new();
    for (i, d) in defs.iter().enumerate() {
        let d = d.get_ref();
        let mut ok = true;
        let kind = MarkerName::new(d.kind.get_ref()).unwrap_or_else(|e| {
            r.err(d.kind.span(), format!("kind: {e}"));
            ok = false;
            MarkerName::IGNORES_NETS
        });
        let owner = ids.seat(d.owner.get_ref());
        if owner.is_none() {
            r.err(
                d.owner.span(),
                format!(
                    "owner `{}` is not one of the players{}",
                    d.owner.get_ref(),
                    ids.hint(d.owner.get_ref())
                ),
            );
            ok = false;
        }
        let loss = match &d.loss {
            None => LinkLoss::Whole,
            Some(l) => LinkLoss::parse(l.get_ref()).unwrap_or_else(|| {
                r.err(
                    l.span(),
                    format!(
                        "loss `{}` is not known: use `whole` (its tiles leave the board together) or `segment` (a destroyed tile leaves an empty segment)",
                        l.get_ref()
                    ),
                );
                ok = false;
                LinkLoss::Whole
            }),
        };
        let mut segments = 0u64;
        for h in d.hexes.get_ref() {
            match ints(h, 2, "hexes", "[q, r]") {
                Ok(v) => match shape.cell(Hex::new(v[0], v[1])) {
                    Some(c) => segments |= 1u64 << c.index(),
                    None => {
                        r.err(h.span(), off_board(Hex::new(v[0], v[1]), shape));
                        ok = false;
                    }
                },
                Err((span, message)) => {
                    r.err(span, message);
                    ok = false;
                }
            }
        }
        if ok && let Some(owner) = owner {
            links.push(Link::new(
                i as u8 + 1,
                kind,
                owner,
                segments,
                loss,
                d.shared.unwrap_or(loss == LinkLoss::Whole),
            ));
        }
    }
    links
}

/// The starting board as the engine checks it, each refusal at the `[[tile]]` that causes it;
/// then its linked units, each refusal at its `[[link]]`.
pub(super) fn check(
    r: &mut Reader<'_>,
    setup: &Setup,
    spans: &[Range<usize>],
    links: &[Link],
    link_defs: &[Spanned<LinkDef>],
    ids: &PlayerIds<'_>,
    catalog: &Catalog,
) {
    match hexforge_core::Battlefield::new(setup.clone(), catalog) {
        Err(e) => {
            let d = setup_error(r, setup, spans, ids, &e);
            r.push(d);
        }
        Ok(mut field) => {
            for (l, d) in links.iter().zip(link_defs) {
                match field.check_link(l.kind, l.owner, l.segments, l.loss(), l.shared()) {
                    Ok(e) => field.apply(&e),
                    Err(e) => r.err(
                        d.get_ref().hexes.span(),
                        format!("this linked unit cannot stand here: {e}"),
                    ),
                }
            }
        }
    }
}

/// A starting board the engine refuses, located at the `[[tile]]` that causes it (for a tile on
/// an occupied hex, the second one) and saying what to do.
fn setup_error(
    r: &Reader<'_>,
    setup: &Setup,
    spans: &[Range<usize>],
    ids: &PlayerIds<'_>,
    e: &SetupError,
) -> Diagnostic {
    use SetupError as E;
    let hex = match e {
        E::OffBoard { hex }
        | E::Occupied { hex }
        | E::UnknownOwner { hex, .. }
        | E::NotABoardTile { hex, .. }
        | E::SecondHq { hex, .. }
        | E::TooManyWounds { hex, .. }
        | E::WoundsOnHq { hex } => Some(*hex),
        E::PlayerCount(_) => None,
    };
    let at: Vec<usize> = setup
        .tiles
        .iter()
        .enumerate()
        .filter(|(_, t)| Some(t.hex) == hex)
        .map(|(i, _)| i)
        .collect();
    let (culprit, first) = match e {
        E::Occupied { .. } => (at.get(1).copied(), at.first().copied()),
        _ => (at.first().copied(), None),
    };
    let message = match (e, first) {
        (E::Occupied { hex }, Some(f)) => format!(
            "hex {hex} already holds the tile of line {}: put this one on a free hex",
            r.line(spans[f].clone())
        ),
        (E::NotABoardTile { .. }, _) => format!("{e}: remove this `[[tile]]`"),
        // The player by the id the file gives them, not by their seat.
        (E::SecondHq { hex, owner }, _) => format!(
            "player `{}` already has an HQ on the board; a second one is on {hex}: a player has one HQ, remove one of them",
            ids.0.get(owner.index()).map_or("?", String::as_str)
        ),
        (E::OffBoard { .. }, _) => format!("{e}: use a hex of the board"),
        _ => e.to_string(),
    };
    match culprit.and_then(|i| spans.get(i)) {
        Some(span) => r.src.error(span.clone(), message),
        None => r.src.error(0..0, message),
    }
}
