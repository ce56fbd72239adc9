//! The greedy bot: one ply. Every placement, instant and Mobility move is tried on a copy of the
//! game; the position after it is scored by [`crate::evaluate`] after a simulated battle (or after
//! the real one, if the action started a battle). The best action is played; ties go to acting
//! rather than ending the turn, then to the seeded generator. Mandatory discards drop the tile of
//! least [`crate::tile_value`]; optional discards are never made. A placement of a tile whose
//! facings fight alike ([`turns_alike`]) is scored once for all of them.

use crate::eval::{evaluate, terminal, tile_value};
use hexforge_core::battle;
use hexforge_core::game::{LegalActions, Player, Stage};
use hexforge_core::{AbilityHooks, Action, DefaultPolicy, Game, Hex, Rng, Tile, TileRef};

/// A one-ply player: every action tried on a copy, the best-scored one played.
#[derive(Clone, Debug)]
pub struct GreedyBot {
    rng: Rng,
}

impl GreedyBot {
    /// A bot whose tie-breaks follow from `seed`: the same seed and game give the same moves.
    pub fn new(seed: u64) -> Self {
        GreedyBot {
            rng: Rng::seeded(seed),
        }
    }

    /// A bot breaking ties from the given generator, such as a fork of another bot's for a
    /// lookahead.
    pub fn from_rng(rng: Rng) -> Self {
        GreedyBot { rng }
    }
}

impl Player for GreedyBot {
    fn act(&mut self, game: &Game, legal: &LegalActions, hooks: &mut dyn AbilityHooks) -> usize {
        if let Some(i) = forced(game, legal) {
            return i;
        }
        let scored = score_actions(game, legal, hooks);
        best(&scored, legal, &mut self.rng)
    }
}

/// The choice when there is nothing to weigh: the only action, an HQ spot, or a mandatory discard.
pub(crate) fn forced(game: &Game, legal: &LegalActions) -> Option<usize> {
    if legal.len() <= 1 {
        return Some(0);
    }
    match game.stage() {
        Stage::PlaceHq => {
            // The centre is the strongest spot; else the first listed hex.
            let centre = legal.position(
                |a| matches!(a, Action::Place { hex, .. } if hex == hexforge_core::Hex::ORIGIN),
            );
            Some(centre.unwrap_or(0))
        }
        Stage::Discard => legal
            .iter()
            .enumerate()
            .filter_map(|(i, a)| match a {
                Action::Discard { tile } => Some((i, tile_value(game.catalog().get(tile)))),
                _ => None,
            })
            .min_by_key(|(_, v)| *v)
            .map(|(i, _)| i),
        _ => None,
    }
}

/// The score of each weighed action (placements, instants, moves and ending the turn), by index.
pub(crate) fn score_actions(
    game: &Game,
    legal: &LegalActions,
    hooks: &mut dyn AbilityHooks,
) -> Vec<(usize, i32)> {
    let Some(me) = game.current() else {
        return Vec::new();
    };
    // The scripts of each scoring battle are reseeded from the position before the action and
    // the action's place in the list: the same position and action score the same on any host,
    // and the position is hashed once per decision rather than once per action.
    let base = game.state_hash();
    let key = |i: usize| base ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::with_capacity(legal.len());
    // One copy of the game and one of the board, made again for each action: their lists keep
    // their room, so trying an action allocates nothing once they have grown.
    let mut g = game.clone();
    let mut board = game.field().clone();
    // The placements scored so far of tiles that look the same turned some way (`turns_alike`):
    // the tile, the hex, the facing modulo that turn, and the score.
    let mut alike: Vec<(TileRef, Hex, u8, i32)> = Vec::new();
    // Each tile's period, worked out once a decision (a hand holds a few tiles).
    let mut periods: Vec<(TileRef, u8)> = Vec::new();
    for (i, a) in legal.iter().enumerate() {
        // A tile that looks the same after a turn of `period` sixths, placed on a hex, fights the
        // same battle facing `f` as facing `f + period`: scored once for both.
        let turned = match a {
            Action::Place { tile, hex, facing } => {
                let period = match periods.iter().find(|(t, _)| *t == tile) {
                    Some(&(_, p)) => p,
                    None => {
                        let p = turns_alike(game.catalog().get(tile));
                        periods.push((tile, p));
                        p
                    }
                };
                (period < 6).then_some((tile, hex, facing.index() % period))
            }
            _ => None,
        };
        if let Some((tile, hex, f)) = turned
            && let Some(&(.., score)) = alike
                .iter()
                .find(|(t, h, g, _)| *t == tile && *h == hex && *g == f)
        {
            out.push((i, score));
            continue;
        }
        let score = match a {
            Action::Discard { .. } | Action::Redraw => continue,
            Action::EndTurn => settled(game, me, hooks, key(i), &mut board),
            // A placement that nothing follows: its board alone, with no copy of the game.
            Action::Place { .. } if game.board_after_placing(&a, &mut board) => {
                settle_board(game, me, hooks, key(i), &mut board)
            }
            _ => {
                g.clone_from(game);
                let battles = g.battles();
                // A listed action fails only when a script fails: scored above all, it is the one
                // played, so the game stops on the script's error at once rather than a bot
                // steering round a broken ability for the rest of the game.
                if g.act(&a, hooks, &mut DefaultPolicy, &mut ()).is_err() {
                    out.push((i, i32::MAX));
                    continue;
                }
                match g.result() {
                    Some(r) => terminal(r, g.field(), me),
                    None if g.battles() > battles => evaluate(g.field(), g.catalog(), me),
                    None => settled(&g, me, hooks, key(i), &mut board),
                }
            }
        };
        if let Some((tile, hex, f)) = turned {
            alike.push((tile, hex, f, score));
        }
        out.push((i, score));
    }
    out
}

/// The smallest turn, in sixths (1, 2, 3, or 6 for none short of a whole turn), after which
/// `def` shows the same icons against every edge. Only a tile with no scripted ability and no
/// linked parts counts (a script may read its facing, a linked part goes by it): for any other
/// the answer is 6. Everything the engine does with a placed tile in a battle goes by the icons
/// its facing turns, so two facings a period apart fight the same battle.
pub fn turns_alike(def: &Tile) -> u8 {
    if !def.abilities.is_empty() || def.linked.is_some() {
        return 6;
    }
    [1u8, 2, 3]
        .into_iter()
        .find(|&r| (0..6).all(|e| def.edges[e] == def.edges[(e + usize::from(r)) % 6]))
        .unwrap_or(6)
}

/// The greedy bot's `k` best-scored actions, best first (ties in the list's order, so the
/// choice is deterministic), and ending the turn when it is not among them: what the searching
/// bots weigh further.
pub(crate) fn candidates(
    game: &Game,
    legal: &LegalActions,
    hooks: &mut dyn AbilityHooks,
    k: usize,
) -> Vec<(usize, i32)> {
    let mut scored = score_actions(game, legal, hooks);
    scored.sort_by_key(|(i, s)| (std::cmp::Reverse(*s), *i));
    let mut top: Vec<(usize, i32)> = scored.iter().copied().take(k).collect();
    if let Some(end) = scored
        .iter()
        .find(|(i, _)| legal.get(*i) == Some(Action::EndTurn))
        && !top.contains(end)
    {
        top.push(*end);
    }
    top
}

/// How good `g` is for `me` once the battle the board would fight now is fought (on `board`,
/// made a copy of `g`'s board first): the result's worth if the game is over, else [`evaluate`]
/// after that battle. The scripts start that battle reseeded with `key` (a function of the
/// position), not from whatever the host ran before, so the same position scores the same on
/// any host.
pub(crate) fn settled(
    g: &Game,
    me: hexforge_core::Seat,
    hooks: &mut dyn AbilityHooks,
    key: u64,
    board: &mut hexforge_core::Battlefield,
) -> i32 {
    if let Some(r) = g.result() {
        return terminal(r, g.field(), me);
    }
    board.clone_from(g.field());
    settle_board(g, me, hooks, key, board)
}

/// How good `board` (a board of `g`'s game, not over) is for `me` once the battle it would fight
/// now is fought on it: [`settled`] for a board already made.
fn settle_board(
    g: &Game,
    me: hexforge_core::Seat,
    hooks: &mut dyn AbilityHooks,
    key: u64,
    board: &mut hexforge_core::Battlefield,
) -> i32 {
    hooks.reseed(key);
    // A battle whose hook fails leaves `board` as it was, which is then what is scored.
    let _ = battle::resolve(board, g.context(), hooks, &mut DefaultPolicy, &mut ());
    evaluate(board, g.catalog(), me)
}

/// The best scored action: highest score, then anything but ending the turn, then a seeded pick.
pub(crate) fn best(scored: &[(usize, i32)], legal: &LegalActions, rng: &mut Rng) -> usize {
    // Where ending the turn is listed, found once rather than asked of every scored action.
    let end = legal.position(|a| a == Action::EndTurn);
    let key = |(i, s): &(usize, i32)| (*s, Some(*i) != end);
    let Some(top) = scored.iter().map(key).max() else {
        return legal.len().saturating_sub(1);
    };
    let ties: Vec<usize> = scored
        .iter()
        .filter(|x| key(x) == top)
        .map(|(i, _)| *i)
        .collect();
    ties[rng.below(ties.len())]
}
