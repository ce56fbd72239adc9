//! The `[[player]]` tables: each seat's id, army, team and HQ hit points, the markers on the
//! players at the start and, in a game in progress, their piles.

use super::def::PlayerDef;
use super::read::{Reader, resolve_tile, start_mark, unknown_tile};
use hexforge_core::marker::{Mark, MarkOn};
use hexforge_core::names::did_you_mean;
use hexforge_core::{Catalog, PlayerSetup, Rules, Seat, TileRef};
use toml::Spanned;

/// The players of a scenario, in seat order.
pub(super) struct Players {
    /// Each player's id.
    pub(super) ids: Vec<String>,
    /// Each player's army id.
    pub(super) armies: Vec<String>,
    /// Each player's team and HQ hit points at the start.
    pub(super) setups: Vec<PlayerSetup>,
    /// The markers on the players at the start.
    pub(super) marks: Vec<Mark>,
    /// Each player's draw pile (top first), hand, discard pile and reserve; empty outside a game.
    pub(super) piles: Vec<[Vec<TileRef>; 4]>,
}

/// The highest HQ hit points a player may start with, as for the rule option `hq_hp`.
const MAX_HQ: i64 = u16::MAX as i64;

/// Reads the `[[player]]` tables; `name` locates a wrong number of them, and `game_mode` says
/// whether the file has a `[game]` (outside one, piles are refused).
pub(super) fn read(
    r: &mut Reader<'_>,
    name: &Spanned<String>,
    defs: &[Spanned<PlayerDef>],
    game_mode: bool,
    catalog: &Catalog,
    rules: &Rules,
) -> Players {
    let n = defs.len();
    if !(2..=4).contains(&n) {
        r.err(
            name.span(),
            format!("a scenario needs 2 to 4 `[[player]]` tables, this one has {n}"),
        );
    }
    let (ids, seats) = seats(r, defs, catalog);
    let marks = player_marks(r, defs);
    let piles = defs
        .iter()
        .map(|p| piles(r, p.get_ref(), game_mode, catalog, rules))
        .collect();
    let teams: Vec<u8> = seats.iter().map(|(t, _)| *t).collect();
    let setups = seats
        .iter()
        .zip(rules.starting_hq_hp(&teams))
        .map(|((team, hq), d)| PlayerSetup {
            team: *team,
            hq_hp: hq.unwrap_or(d as i32),
        })
        .collect();
    Players {
        ids,
        armies: defs
            .iter()
            .map(|p| p.get_ref().army.get_ref().clone())
            .collect(),
        setups,
        marks,
        piles,
    }
}

/// Each player's id (unique), army (loaded), team (numbered in order of appearance, a player
/// without one alone) and HQ hit points when the file gives them.
fn seats(
    r: &mut Reader<'_>,
    defs: &[Spanned<PlayerDef>],
    catalog: &Catalog,
) -> (Vec<String>, Vec<(u8, Option<i32>)>) {
    let mut ids: Vec<String> = Vec::new();
    let mut seats = Vec::new();
    let mut team_names: Vec<String> = Vec::new();
    for (i, p) in defs.iter().enumerate() {
        let p = p.get_ref();
        if ids.contains(p.id.get_ref()) {
            r.err(
                p.id.span(),
                format!("player id `{}` is used twice", p.id.get_ref()),
            );
        }
        ids.push(p.id.get_ref().clone());
        if catalog.army(p.army.get_ref()).is_none() {
            r.err(
                p.army.span(),
                format!(
                    "unknown army `{}`{}: use one of the loaded armies ({})",
                    p.army.get_ref(),
                    did_you_mean(
                        p.army.get_ref(),
                        catalog.armies().iter().map(|a| a.id.as_str())
                    ),
                    army_list(catalog)
                ),
            );
        }
        let team = match &p.team {
            Some(t) => match team_names.iter().position(|x| x == t) {
                Some(k) => k as u8,
                None => {
                    team_names.push(t.clone());
                    (team_names.len() - 1) as u8
                }
            },
            None => {
                team_names.push(format!("\u{0}solo{i}"));
                (team_names.len() - 1) as u8
            }
        };
        let hq = p.hq.as_ref().and_then(|h| {
            let hp = *h.get_ref();
            if !(0..=MAX_HQ).contains(&hp) {
                r.err(
                    h.span(),
                    format!(
                        "hq {hp} is out of range: use a whole number of hit points, from 0 to {MAX_HQ}"
                    ),
                );
                return None;
            }
            Some(hp as i32)
        });
        seats.push((team, hq));
    }
    (ids, seats)
}

/// The markers on each player at the start.
fn player_marks(r: &mut Reader<'_>, defs: &[Spanned<PlayerDef>]) -> Vec<Mark> {
    let mut marks = Vec::new();
    for (i, p) in defs.iter().enumerate() {
        for m in &p.get_ref().markers {
            let on = MarkOn::Player(Seat::new(i as u8));
            marks.extend(start_mark(r, on, m.get_ref()));
        }
    }
    marks
}

/// A player's draw pile, hand, discard pile and reserve: only in a game in progress, tiles of the
/// player's army (any board tile in the reserve) but HQs, and no more held than the rules' hand.
fn piles(
    r: &mut Reader<'_>,
    p: &PlayerDef,
    game_mode: bool,
    catalog: &Catalog,
    rules: &Rules,
) -> [Vec<TileRef>; 4] {
    let army = p.army.get_ref();
    let mut piles: [Vec<TileRef>; 4] = Default::default();
    for (k, (list, what)) in [
        (&p.deck, "deck"),
        (&p.hand, "hand"),
        (&p.discard, "discard"),
        (&p.reserve, "reserve"),
    ]
    .into_iter()
    .enumerate()
    {
        let Some(list) = list else { continue };
        if !game_mode {
            r.err(
                list.span(),
                format!(
                    "`{what}` belongs to a game in progress: add a `[game]` table with `next = \"{}\"`",
                    p.id.get_ref()
                ),
            );
            continue;
        }
        for t in list.get_ref() {
            match resolve_tile(catalog, t.get_ref()) {
                // A reserve may hold any board tile but an HQ (an expansion's pieces).
                Some(tile)
                    if !catalog.get(tile).is_hq()
                        && if k == 3 {
                            catalog.get(tile).kind.is_board_tile()
                        } else {
                            catalog.get(tile).army == *army
                        } =>
                {
                    piles[k].push(tile)
                }
                Some(_) => r.err(
                    t.span(),
                    format!(
                        "`{}` is not a tile of `{army}`'s draw pile (HQs start on the board)",
                        t.get_ref()
                    ),
                ),
                None => r.err(t.span(), unknown_tile(catalog, t.get_ref())),
            }
        }
    }
    if piles[1].len() > usize::from(rules.hand_size)
        && let Some(h) = &p.hand
    {
        r.err(
            h.span(),
            format!(
                "a hand holds at most {} tiles (R2.5.1, `hand_size`)",
                rules.hand_size
            ),
        );
    }
    piles
}

/// The ids of the loaded armies, as messages list them.
fn army_list(catalog: &Catalog) -> String {
    catalog
        .armies()
        .iter()
        .map(|a| a.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
