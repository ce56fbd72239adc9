//! What every part of a scenario file reads alike: located errors, hexes, `army/tile` names, the
//! players and labels a message offers, and markers.

use super::def::MarkerDef;
use super::scenario::{ExpectedMarker, Labelled};
use hexforge_content::{Diagnostic, Diagnostics, SourceText};
use hexforge_core::marker::{Lasts, Mark, MarkOn, MarkerName};
use hexforge_core::names::did_you_mean;
use hexforge_core::{BoardShape, Catalog, Hex, Seat, TileRef};
use std::collections::BTreeMap;
use std::ops::Range;
use toml::Spanned;

/// The text being read and the problems found in it so far, each at its place.
pub(super) struct Reader<'a> {
    /// The scenario's text, to locate problems.
    pub(super) src: &'a SourceText,
    errs: Vec<Diagnostic>,
}

impl<'a> Reader<'a> {
    /// A reader of `src` that has found no problem yet.
    pub(super) fn new(src: &'a SourceText) -> Self {
        Reader {
            src,
            errs: Vec::new(),
        }
    }

    /// Notes a problem at `span`.
    pub(super) fn err(&mut self, span: Range<usize>, message: impl Into<String>) {
        self.errs.push(self.src.error(span, message));
    }

    /// Notes a problem already located.
    pub(super) fn push(&mut self, d: Diagnostic) {
        self.errs.push(d);
    }

    /// The line of the file where `span` starts.
    pub(super) fn line(&self, span: Range<usize>) -> usize {
        self.src.line_col(span.start).0
    }

    /// Whether no problem has been found.
    pub(super) fn is_clean(&self) -> bool {
        self.errs.is_empty()
    }

    /// Every problem found, in the order found; `Ok` when there is none.
    pub(super) fn finish(self) -> Result<(), Diagnostics> {
        match self.errs.is_empty() {
            true => Ok(()),
            false => Err(Diagnostics(self.errs)),
        }
    }
}

/// The players' ids in seat order, to find a player by id and to offer them in messages.
pub(super) struct PlayerIds<'a>(pub(super) &'a [String]);

impl PlayerIds<'_> {
    /// The seat of the player called `id`.
    pub(super) fn seat(&self, id: &str) -> Option<Seat> {
        self.0
            .iter()
            .position(|p| p == id)
            .map(|i| Seat::new(i as u8))
    }

    /// What follows a message about `id`, which is not a player: the closest player id, and
    /// the ids to use.
    pub(super) fn hint(&self, id: &str) -> String {
        format!(
            "{}: use one of {}",
            did_you_mean(id, self.0.iter().map(String::as_str)),
            self.0.join(", ")
        )
    }
}

/// The labelled tiles so far, the starting board's then those the steps place, with how many
/// tiles of each id were left unlabelled (`netter`, `netter_2`...).
#[derive(Default)]
pub(super) struct Labels {
    /// Every labelled tile, in file order.
    pub(super) list: Vec<Labelled>,
    counts: BTreeMap<String, usize>,
}

impl Labels {
    /// Whether a tile has `label`.
    pub(super) fn has(&self, label: &str) -> bool {
        self.list.iter().any(|l| l.label == label)
    }

    /// The closest label to `label`, as " (did you mean `x`?)", or nothing.
    pub(super) fn near(&self, label: &str) -> String {
        did_you_mean(label, self.list.iter().map(|l| l.label.as_str()))
    }

    /// The label of a tile given none: the id of its `army/tile` name, numbered from the second
    /// tile of that id (`netter`, `netter_2`).
    pub(super) fn unnamed(&mut self, tile_name: &str) -> String {
        let id = tile_name.rsplit('/').next().unwrap_or_default().to_string();
        let k = self.counts.entry(id.clone()).or_insert(0);
        *k += 1;
        if *k == 1 { id } else { format!("{id}_{k}") }
    }
}

/// A list of `n` whole numbers that fit an `i32` (a hex `[q, r]`, a position `[q, r, facing]`),
/// or where and why not.
pub(super) fn ints(
    list: &Spanned<Vec<Spanned<i64>>>,
    n: usize,
    key: &str,
    shape: &str,
) -> Result<Vec<i32>, (Range<usize>, String)> {
    let values = list.get_ref();
    if values.len() != n {
        return Err((
            list.span(),
            format!(
                "`{key}` must be {} whole numbers {shape}; found {} values",
                ["no", "one", "two", "three"]
                    .get(n)
                    .copied()
                    .unwrap_or("more"),
                values.len()
            ),
        ));
    }
    values
        .iter()
        .map(|v| {
            i32::try_from(*v.get_ref()).map_err(|_| {
                (
                    v.span(),
                    format!(
                        "`{key}`: {} is out of range: write {shape} with small whole numbers",
                        v.get_ref()
                    ),
                )
            })
        })
        .collect()
}

/// A hex outside the board, in the words of every part of the file.
pub(super) fn off_board(hex: Hex, shape: &BoardShape) -> String {
    format!(
        "hex [{}, {}] is not on the {} board",
        hex.q(),
        hex.r(),
        shape.name()
    )
}

/// `army/tile`, optionally qualified by a mod id (`base:moloch/netter`).
pub(super) fn resolve_tile(catalog: &Catalog, name: &str) -> Option<TileRef> {
    let bare = name.split_once(':').map_or(name, |(_, rest)| rest);
    catalog.find(bare)
}

/// An unknown `army/tile` name: the closest loaded tile, and how tiles are named.
pub(super) fn unknown_tile(catalog: &Catalog, name: &str) -> String {
    let ids = catalog.full_ids();
    format!(
        "unknown tile `{name}`{}: write `army/tile` with a loaded army's tile, e.g. `moloch/cyborg`",
        did_you_mean(name, ids.iter().map(String::as_str))
    )
}

/// The words `lasts` takes besides a number of turns.
const LASTS: [&str; 3] = ["turn", "battle", "permanent"];

/// A marker's name, or a located error in the words of [`hexforge_core::marker::BadMarkerName`].
fn marker_name(r: &mut Reader<'_>, name: &Spanned<String>) -> Option<MarkerName> {
    MarkerName::new(name.get_ref())
        .map_err(|e| r.err(name.span(), e.to_string()))
        .ok()
}

/// A marker at the start, on `on`, from its raw table; `None` after a located error.
pub(super) fn start_mark(r: &mut Reader<'_>, on: MarkOn, m: &MarkerDef) -> Option<Mark> {
    let name = marker_name(r, &m.name);
    let lasts = match &m.lasts {
        None => Some(Lasts::Permanent),
        Some(l) => match l.get_ref() {
            toml::Value::String(w) if w == "turn" => Some(Lasts::Turn),
            toml::Value::String(w) if w == "battle" => Some(Lasts::Battle),
            toml::Value::String(w) if w == "permanent" => Some(Lasts::Permanent),
            toml::Value::Integer(n) if (1..=99).contains(n) => Some(Lasts::Turns(*n as u8)),
            other => {
                let near = other
                    .as_str()
                    .map_or(String::new(), |w| did_you_mean(w, LASTS.iter().copied()));
                r.err(
                    l.span(),
                    format!(
                        "`lasts = {other}`{near} is not how long a marker lasts: use \"turn\", \"battle\", \"permanent\" or a number of turns from 1 to 99"
                    ),
                );
                None
            }
        },
    };
    let value = marker_value(r, m.value.as_ref());
    Some(Mark {
        on,
        name: name?,
        lasts: lasts?,
        value: value?,
    })
}

/// A marker's value, -999 to 999 (0 when omitted), or a located error.
fn marker_value(r: &mut Reader<'_>, v: Option<&Spanned<i64>>) -> Option<i16> {
    let Some(v) = v else { return Some(0) };
    match i16::try_from(*v.get_ref()) {
        Ok(n) if (-999..=999).contains(&n) => Some(n),
        _ => {
            r.err(
                v.span(),
                format!(
                    "marker value {} is out of range: use a whole number from -999 to 999",
                    v.get_ref()
                ),
            );
            None
        }
    }
}

/// The markers an expectation lists: names, or `{ name = "...", value = n }` tables.
pub(super) fn expected_markers(
    r: &mut Reader<'_>,
    list: &[Spanned<toml::Value>],
) -> Vec<ExpectedMarker> {
    let mut out = Vec::new();
    for item in list {
        let (name, value) = match item.get_ref() {
            toml::Value::String(n) => (Spanned::new(item.span(), n.clone()), None),
            toml::Value::Table(t)
                if t.keys().all(|k| k == "name" || k == "value")
                    && t.get("name").is_some_and(toml::Value::is_str)
                    && t.get("value").is_none_or(toml::Value::is_integer) =>
            {
                let name = t.get("name").and_then(|n| n.as_str()).unwrap_or_default();
                let value = t.get("value").and_then(|v| v.as_integer());
                (
                    Spanned::new(item.span(), name.to_string()),
                    value.map(|v| Spanned::new(item.span(), v)),
                )
            }
            _ => {
                r.err(
                    item.span(),
                    "a marker here is its name in quotes, or `{ name = \"soaked\", value = 2 }` to check its value too",
                );
                continue;
            }
        };
        let n = marker_name(r, &name);
        let v = match &value {
            Some(v) => marker_value(r, Some(v)).map(Some),
            None => Some(None),
        };
        if let (Some(n), Some(v)) = (n, v) {
            out.push((n, v));
        }
    }
    out
}
