//! The `[game]` table of a game in progress: whose turn begins, its number, the players still to
//! play their last turn and the seed, with the players' armies and piles.

use super::def::GameDef;
use super::players::Players;
use super::read::{PlayerIds, Reader};
use super::scenario::GameStart;
use hexforge_core::Seat;
use toml::Spanned;

/// The turn a game in progress starts at when `turn` is left out.
const TURN: u16 = 3;

/// The game in progress a `[game]` table gives, with the players' armies and piles.
pub(super) fn read(r: &mut Reader<'_>, g: &Spanned<GameDef>, players: &Players) -> GameStart {
    let line = r.line(g.span());
    let g = g.get_ref();
    let ids = PlayerIds(&players.ids);
    let next = player(r, &ids, &g.next, "game.next").unwrap_or_default();
    let turn = match &g.turn {
        None => TURN,
        Some(t) => u16::try_from(*t.get_ref())
            .ok()
            .filter(|t| *t >= 1)
            .unwrap_or_else(|| {
                r.err(
                    t.span(),
                    "game.turn is the number of the turn that begins, from 1",
                );
                TURN
            }),
    };
    let last_turns = g.last_turns.as_ref().map(|l| {
        l.iter()
            .filter_map(|p| player(r, &ids, p, "game.last_turns"))
            .collect::<Vec<Seat>>()
    });
    let seed = g.seed.as_ref().map_or(0, |s| {
        u64::try_from(*s.get_ref()).unwrap_or_else(|_| {
            r.err(
                s.span(),
                format!(
                    "game.seed {} is out of range: use a whole number from 0 to {}",
                    s.get_ref(),
                    i64::MAX
                ),
            );
            0
        })
    });
    GameStart {
        armies: players.armies.clone(),
        piles: players.piles.clone(),
        next,
        turn,
        last_turns,
        seed,
        line,
    }
}

/// The seat of the player `id` names in the key `what`, or a located error.
fn player(
    r: &mut Reader<'_>,
    ids: &PlayerIds<'_>,
    id: &Spanned<String>,
    what: &str,
) -> Option<Seat> {
    let seat = ids.seat(id.get_ref());
    if seat.is_none() {
        r.err(
            id.span(),
            format!(
                "{what} `{}` is not one of the players{}",
                id.get_ref(),
                ids.hint(id.get_ref())
            ),
        );
    }
    seat
}
