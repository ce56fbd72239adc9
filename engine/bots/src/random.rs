//! The random bot: a uniform pick among the legal actions and among a decision's options.

use hexforge_core::game::{LegalActions, Player};
use hexforge_core::{AbilityHooks, Battlefield, Decision, Game, Rng};

/// Picks uniformly at random, from its own seeded generator.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: Rng,
}

impl RandomBot {
    /// A bot whose picks follow from `seed` alone: the same seed and game give the same moves.
    pub fn new(seed: u64) -> Self {
        RandomBot {
            rng: Rng::seeded(seed),
        }
    }

    /// A bot drawing from the given generator, such as a fork of another bot's for a playout.
    pub fn from_rng(rng: Rng) -> Self {
        RandomBot { rng }
    }
}

impl Player for RandomBot {
    fn act(&mut self, _game: &Game, legal: &LegalActions, _hooks: &mut dyn AbilityHooks) -> usize {
        self.rng.below(legal.len().max(1))
    }

    fn decide(&mut self, _field: &Battlefield, decision: &Decision<'_>) -> usize {
        self.rng.below(decision.options.len().max(1))
    }
}
