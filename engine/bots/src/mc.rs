//! The Monte-Carlo bot: the greedy bot's best candidates, each tried in a number of seeded random
//! playouts to the end of the game on copies whose draw piles are reshuffled (the bot never reads
//! the real order of a pile). The candidate with the best mean result is played (win 1, draw ½).

use crate::greedy::{best, candidates, forced};
use crate::random::RandomBot;
use hexforge_core::game::{LegalActions, Player, play_out};
use hexforge_core::{AbilityHooks, Action, DefaultPolicy, Game, GameResult, Rng};

/// The Monte-Carlo player: the greedy bot's best candidates judged by seeded random playouts.
#[derive(Clone, Debug)]
pub struct MonteCarloBot {
    rng: Rng,
    playouts: u32,
    candidates: usize,
}

impl MonteCarloBot {
    /// The default number of playouts per candidate.
    pub const PLAYOUTS: u32 = 16;
    /// How many of the greedy bot's best actions are tried.
    pub const CANDIDATES: usize = 6;

    /// A bot seeded with `seed` playing `playouts` games per candidate (at least 1).
    pub fn new(seed: u64, playouts: u32) -> Self {
        MonteCarloBot {
            rng: Rng::seeded(seed),
            playouts: playouts.max(1),
            candidates: Self::CANDIDATES,
        }
    }

    /// The mean result of `action` for the current player over the playouts (0 to 2: loss, draw, win).
    fn playouts(&mut self, game: &Game, action: &Action, hooks: &mut dyn AbilityHooks) -> u32 {
        let Some(me) = game.current() else {
            return 0;
        };
        let team = game.field().team(me);
        let mut total = 0;
        for _ in 0..self.playouts {
            let mut g = game.clone();
            let mut rng = self.rng.fork();
            g.shuffle_unknown(&mut rng);
            // A listed action fails only when a script fails: rated above all, it is played,
            // and the game stops on the script's error rather than a bot steering round it.
            if g.act(action, hooks, &mut DefaultPolicy, &mut ()).is_err() {
                return u32::MAX / 4;
            }
            let mut bots: Vec<RandomBot> = (0..g.field().player_count())
                .map(|_| RandomBot::from_rng(rng.fork()))
                .collect();
            let mut players: Vec<&mut dyn Player> =
                bots.iter_mut().map(|b| b as &mut dyn Player).collect();
            let result = match g.result() {
                Some(r) => Ok(r),
                None => play_out(&mut g, &mut players, hooks, &mut ()),
            };
            total += match result {
                Ok(GameResult::Won { team: t }) if t == team => 2,
                Ok(GameResult::Draw { .. }) => 1,
                _ => 0,
            };
        }
        total
    }
}

impl Player for MonteCarloBot {
    fn act(&mut self, game: &Game, legal: &LegalActions, hooks: &mut dyn AbilityHooks) -> usize {
        if let Some(i) = forced(game, legal) {
            return i;
        }
        let candidates = candidates(game, legal, hooks, self.candidates);
        let mut results: Vec<(usize, i32)> = Vec::with_capacity(candidates.len());
        for (i, _) in &candidates {
            let Some(action) = legal.get(*i) else {
                continue;
            };
            let wins = self.playouts(game, &action, hooks);
            results.push((*i, wins as i32));
        }
        best(&results, legal, &mut self.rng)
    }
}
