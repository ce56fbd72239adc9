//! The `[expect]` table: what must hold after the steps, each key checked against the players,
//! the labels and the board, with the keys only a game in progress has.

use super::def::ExpectDef;
use super::read::{
    Labels, PlayerIds, Reader, expected_markers, ints, off_board, resolve_tile, unknown_tile,
};
use super::scenario::{BATTLE_CAUSES, Expect};
use hexforge_core::names::did_you_mean;
use hexforge_core::{BoardShape, Catalog, Dir, Hex};
use std::ops::Range;
use toml::Spanned;

/// What the expectations are read against.
pub(super) struct Context<'c> {
    /// The players' ids.
    pub(super) ids: PlayerIds<'c>,
    /// Every labelled tile: the starting board's and the steps'.
    pub(super) labels: &'c Labels,
    /// The board's shape, for hexes.
    pub(super) shape: &'c BoardShape,
    /// The loaded tiles, for hands and reserves.
    pub(super) catalog: &'c Catalog,
    /// Whether the file has a `[game]` table.
    pub(super) game_mode: bool,
}

/// The highest HQ hit points an expectation may name, as a player may start with.
const MAX_HQ: i64 = u16::MAX as i64;

/// Reads the `[expect]` table; every key left out is not checked.
pub(super) fn read(r: &mut Reader<'_>, e: ExpectDef, cx: &Context<'_>) -> Expect {
    let mut expect = Expect::default();
    board_keys(r, &e, cx, &mut expect);
    expect.error = e.error.clone();
    game_keys(r, &e, cx, &mut expect);
    marker_keys(r, &e, cx, &mut expect);
    expect
}

/// `hq`, `removed`, `netted`, `wounds`, `positions` and `winner`.
fn board_keys(r: &mut Reader<'_>, e: &ExpectDef, cx: &Context<'_>, expect: &mut Expect) {
    for (pid, hp) in &e.hq {
        match cx.ids.seat(pid) {
            Some(p) => {
                if let Some(hp) = in_range(r, "hq", pid, hp, 0..=MAX_HQ, "hit points") {
                    expect.hq.push((p, pid.clone(), hp as i32));
                }
            }
            None => r.err(
                hp.span(),
                format!(
                    "expect.hq names `{pid}`, who is not a player{}",
                    cx.ids.hint(pid)
                ),
            ),
        }
    }
    expect.removed = labels(r, cx, &e.removed, "removed");
    expect.netted = labels(r, cx, &e.netted, "netted");
    for (l, w) in &e.wounds {
        known_label(r, cx, l, w.span(), "wounds");
        if let Some(w) = in_range(r, "wounds", l, w, 0..=i64::from(u8::MAX), "wounds") {
            expect.wounds.push((l.clone(), w as u8));
        }
    }
    for (l, p) in &e.positions {
        known_label(r, cx, l, p.span(), "positions");
        let key = format!("expect.positions.{l}");
        let [q, rr, f] = match ints(p, 3, &key, "[q, r, facing]") {
            Ok(v) => [v[0], v[1], v[2]],
            Err((span, message)) => {
                r.err(span, message);
                continue;
            }
        };
        // A facing is a direction, as a `[[tile]]`'s is: never taken round the clock.
        let Some(facing) = Dir::from_index(i64::from(f)) else {
            r.err(
                p.get_ref()[2].span(),
                format!("`{key}`: facing {f} is not a direction from 0 to 5"),
            );
            continue;
        };
        expect.positions.push((l.clone(), Hex::new(q, rr), facing));
    }
    if let Some(w) = &e.winner {
        // A shared victory names its players joined by ` and ` (R8.2.5).
        if w.get_ref() != "draw" && !w.get_ref().split(" and ").all(|p| cx.ids.seat(p).is_some()) {
            r.err(
                w.span(),
                format!(
                    "expect.winner must be a player id, players who share the victory (`a and c`) or \"draw\", not `{}`",
                    w.get_ref()
                ),
            );
        }
        expect.winner = Some(w.get_ref().clone());
    }
}

/// The keys only a game in progress has: `hand`, `reserve`, `deck`, `discard`, `turn`,
/// `battles` and `last_tile_drawn`.
fn game_keys(r: &mut Reader<'_>, e: &ExpectDef, cx: &Context<'_>, expect: &mut Expect) {
    let game_only = |r: &mut Reader<'_>, span: Range<usize>, key: &str| {
        if !cx.game_mode {
            r.err(
                span,
                format!("expect.{key} belongs to a game in progress: add a `[game]` table"),
            );
        }
    };
    for (key, map) in [("hand", &e.hand), ("reserve", &e.reserve)] {
        for (pid, list) in map {
            game_only(r, list.span(), key);
            let Some(p) = cx.ids.seat(pid) else {
                r.err(
                    list.span(),
                    format!(
                        "expect.{key} names `{pid}`, who is not a player{}",
                        cx.ids.hint(pid)
                    ),
                );
                continue;
            };
            let mut tiles = Vec::new();
            for t in list.get_ref() {
                match resolve_tile(cx.catalog, t.get_ref()) {
                    Some(tile) => tiles.push(tile),
                    None => r.err(t.span(), unknown_tile(cx.catalog, t.get_ref())),
                }
            }
            if key == "hand" {
                expect.hands.push((p, pid.clone(), tiles));
            } else {
                expect.reserves.push((p, pid.clone(), tiles));
            }
        }
    }
    for (map, key, out) in [
        (&e.deck, "deck", &mut expect.decks),
        (&e.discard, "discard", &mut expect.discards),
    ] {
        for (pid, n) in map {
            game_only(r, n.span(), key);
            match cx.ids.seat(pid) {
                Some(p) => {
                    if let Some(n) = in_range(r, key, pid, n, 0..=i64::MAX, "tiles") {
                        out.push((p, pid.clone(), n as usize));
                    }
                }
                None => r.err(
                    n.span(),
                    format!(
                        "expect.{key} names `{pid}`, who is not a player{}",
                        cx.ids.hint(pid)
                    ),
                ),
            }
        }
    }
    if let Some(t) = &e.turn {
        game_only(r, t.span(), "turn");
        if t.get_ref() != "over" && cx.ids.seat(t.get_ref()).is_none() {
            r.err(
                t.span(),
                format!(
                    "expect.turn must be a player id or \"over\", not `{}`",
                    t.get_ref()
                ),
            );
        }
        expect.turn = Some(t.get_ref().clone());
    }
    if let Some(b) = &e.battles {
        game_only(r, b.span(), "battles");
        for c in b.get_ref() {
            if !BATTLE_CAUSES.contains(&c.get_ref().as_str()) {
                r.err(
                    c.span(),
                    format!(
                        "unknown battle cause `{}`{}: use {}",
                        c.get_ref(),
                        did_you_mean(c.get_ref(), BATTLE_CAUSES.iter().copied()),
                        BATTLE_CAUSES.join(", ")
                    ),
                );
            }
        }
        expect.battles = Some(b.get_ref().iter().map(|c| c.get_ref().clone()).collect());
    }
    if let Some(l) = &e.last_tile_drawn {
        game_only(r, l.span(), "last_tile_drawn");
        expect.last_tile_drawn = Some(*l.get_ref());
    }
}

/// `markers`, `hex_markers`, `links` and `player_markers`.
fn marker_keys(r: &mut Reader<'_>, e: &ExpectDef, cx: &Context<'_>, expect: &mut Expect) {
    for (l, list) in &e.markers {
        known_label(r, cx, l, list.span(), "markers");
        let names = expected_markers(r, list.get_ref());
        expect.markers.push((l.clone(), names));
    }
    for h in &e.hex_markers {
        let h = h.get_ref();
        let names = expected_markers(r, &h.markers);
        match ints(&h.at, 2, "expect.hex_markers.at", "[q, r]") {
            Ok(v) => {
                let hex = Hex::new(v[0], v[1]);
                if cx.shape.cell(hex).is_none() {
                    r.err(h.at.span(), off_board(hex, cx.shape));
                }
                expect.hex_markers.push((hex, names));
            }
            Err((span, message)) => r.err(span, message),
        }
    }
    if let Some(list) = &e.links {
        let mut shown = Vec::new();
        for l in list {
            let mut cells = Vec::new();
            for h in &l.hexes {
                match ints(h, 2, "expect.links.hexes", "[q, r]") {
                    Ok(v) => match cx.shape.cell(Hex::new(v[0], v[1])) {
                        Some(c) => cells.push(c),
                        None => r.err(h.span(), off_board(Hex::new(v[0], v[1]), cx.shape)),
                    },
                    Err((span, message)) => r.err(span, message),
                }
            }
            cells.sort();
            shown.push(link_shown(&l.kind, cells.iter().map(|c| cx.shape.hex(*c))));
        }
        shown.sort();
        expect.links = Some(shown);
    }
    for (pid, list) in &e.player_markers {
        let names = expected_markers(r, list.get_ref());
        match cx.ids.seat(pid) {
            Some(p) => expect.player_markers.push((p, pid.clone(), names)),
            None => r.err(
                list.span(),
                format!(
                    "expect.player_markers names `{pid}`, who is not a player{}",
                    cx.ids.hint(pid)
                ),
            ),
        }
    }
}

/// The labels a list names (`removed`, `netted`), each a tile's.
fn labels(
    r: &mut Reader<'_>,
    cx: &Context<'_>,
    list: &Option<Vec<Spanned<String>>>,
    what: &str,
) -> Option<Vec<String>> {
    list.as_ref().map(|l| {
        l.iter()
            .map(|x| {
                known_label(r, cx, x.get_ref(), x.span(), what);
                x.get_ref().clone()
            })
            .collect()
    })
}

/// Refuses, at `span`, a `label` the key `expect.{what}` names when no tile has it.
fn known_label(r: &mut Reader<'_>, cx: &Context<'_>, label: &str, span: Range<usize>, what: &str) {
    if !cx.labels.has(label) {
        r.err(
            span,
            format!(
                "expect.{what} names `{label}`, which is no tile's label{}: use the `label` of a tile",
                cx.labels.near(label)
            ),
        );
    }
}

/// The number `expect.{key}.{name}` gives, when it is within `range` (a count of `unit`);
/// otherwise `None` after a located error.
fn in_range(
    r: &mut Reader<'_>,
    key: &str,
    name: &str,
    n: &Spanned<i64>,
    range: std::ops::RangeInclusive<i64>,
    unit: &str,
) -> Option<i64> {
    let v = *n.get_ref();
    if range.contains(&v) {
        return Some(v);
    }
    let within = match *range.end() {
        i64::MAX => "0 or more".to_string(),
        end => format!("from {} to {end}", range.start()),
    };
    r.err(
        n.span(),
        format!(
            "expect.{key}.{name} = {v} is out of range: use a whole number of {unit}, {within}"
        ),
    );
    None
}

/// A linked unit as `expect.links` and its failures show it: `kind [q, r] [q, r]`.
pub fn link_shown(kind: &str, hexes: impl Iterator<Item = Hex>) -> String {
    let mut out = kind.to_string();
    for h in hexes {
        out.push_str(&format!(" [{}, {}]", h.q(), h.r()));
    }
    out
}
