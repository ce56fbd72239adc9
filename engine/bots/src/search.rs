//! The search bot: a turn of lookahead over determinized games. The greedy bot's best
//! candidates are each followed on a few copies of the game whose draw piles are reshuffled (the
//! bot never reads their real order): the candidate is played, then the rest of the bot's own
//! turn and every other player's next turn are played by the greedy policy, and where that
//! stops (the bot's next turn, the end of the game, or [`SearchBot::HORIZON`] actions) the
//! position is scored as the greedy bot scores one (after the battle the board would fight, or
//! the result). The candidate with the best mean is played; ties go to the better greedy score,
//! then to the list's order.
//!
//! Why not random playouts to the end of the game (the `mc` bot): a random game of twenty turns
//! after one placement is decided by the random moves that follow, not by the placement, so a
//! few dozen playouts cannot tell good candidates apart and the choice is mostly noise; the
//! greedy bot's own score is a better guide than that. Looking one turn ahead with the greedy
//! policy sees what the greedy bot cannot: the opponent's answer (an instant, a battle, a
//! placement that blocks) to each candidate.

use crate::greedy::{GreedyBot, candidates, forced, settled};
use hexforge_core::game::{LegalActions, Player};
use hexforge_core::{AbilityHooks, Action, DefaultPolicy, Game, Rng, Seat};

/// The lookahead player: the greedy bot's best candidates, each followed through the other
/// players' next turn on determinized copies of the game.
#[derive(Clone, Debug)]
pub struct SearchBot {
    rng: Rng,
    samples: u32,
    candidates: usize,
}

impl SearchBot {
    /// Determinized copies each candidate is followed on.
    pub const SAMPLES: u32 = 8;
    /// How many of the greedy bot's best actions are followed (ending the turn is always one
    /// more).
    pub const CANDIDATES: usize = 4;
    /// The most actions a lookahead plays before it stops and scores.
    pub const HORIZON: usize = 24;

    /// A bot seeded with `seed`, following each candidate on `samples` copies (at least 1).
    pub fn new(seed: u64, samples: u32) -> Self {
        SearchBot {
            rng: Rng::seeded(seed),
            samples: samples.max(1),
            candidates: Self::CANDIDATES,
        }
    }

    /// The summed score of `action` for `me` over the samples.
    fn follow(
        &mut self,
        game: &Game,
        action: &Action,
        me: Seat,
        hooks: &mut dyn AbilityHooks,
    ) -> i64 {
        let mut total = 0i64;
        let start = game.turn_number();
        let mut legal = LegalActions::new();
        // The board each sample's last battle is fought on, made again over the last one.
        let mut board = game.field().clone();
        for _ in 0..self.samples {
            let mut g = game.clone();
            let mut rng = self.rng.fork();
            g.shuffle_unknown(&mut rng);
            // A listed action fails only when a script fails: rated above all, it is played,
            // and the game stops on the script's error rather than a bot steering round it.
            if g.act(action, hooks, &mut DefaultPolicy, &mut ()).is_err() {
                return i64::MAX / 4;
            }
            let mut policy = GreedyBot::from_rng(rng.fork());
            for _ in 0..Self::HORIZON {
                if g.result().is_some() {
                    break;
                }
                let Some(p) = g.current() else {
                    break;
                };
                if p == me && g.turn_number() != start {
                    break;
                }
                g.legal_actions(&mut legal);
                let Some(last) = legal.len().checked_sub(1) else {
                    break;
                };
                let pick = policy.act(&g, &legal, hooks).min(last);
                let Some(next) = legal.get(pick) else {
                    break;
                };
                if g.act(&next, hooks, &mut DefaultPolicy, &mut ()).is_err() {
                    break;
                }
            }
            total += i64::from(settled(&g, me, hooks, g.state_hash(), &mut board));
        }
        total
    }
}

impl Player for SearchBot {
    fn act(&mut self, game: &Game, legal: &LegalActions, hooks: &mut dyn AbilityHooks) -> usize {
        if let Some(i) = forced(game, legal) {
            return i;
        }
        let Some(me) = game.current() else {
            return 0;
        };
        let candidates = candidates(game, legal, hooks, self.candidates);
        if candidates.len() <= 1 {
            return candidates
                .first()
                .map_or(legal.len().saturating_sub(1), |c| c.0);
        }
        let mut best: Option<(i64, i32, usize)> = None;
        for (i, greedy) in candidates {
            let Some(action) = legal.get(i) else {
                continue;
            };
            let value = self.follow(game, &action, me, hooks);
            // Higher mean first, then the higher greedy score, then the earlier action.
            let better = match best {
                None => true,
                Some((v, g, _)) => (value, greedy) > (v, g),
            };
            if better {
                best = Some((value, greedy, i));
            }
        }
        best.map_or(legal.len().saturating_sub(1), |(_, _, i)| i)
    }
}
