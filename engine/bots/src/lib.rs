//! Hexforge's bots: [`RandomBot`] (uniform over legal actions), [`GreedyBot`] (one ply, a
//! documented evaluation after a simulated battle), [`MonteCarloBot`] (seeded playouts per
//! candidate) and [`SearchBot`] (a turn of greedy lookahead over determinized draws per
//! candidate). Each is deterministic for its seed: the same game and seed give the same moves.

#![warn(missing_docs)]

mod eval;
mod greedy;
mod mc;
mod random;
mod search;

pub use eval::{evaluate, tile_value};
pub use greedy::{GreedyBot, turns_alike};
pub use mc::MonteCarloBot;
pub use random::RandomBot;
pub use search::SearchBot;

use hexforge_core::Rng;
use hexforge_core::game::Player;

/// The bots by the names the command line uses.
pub const NAMES: &[&str] = &["random", "greedy", "mc", "search"];

/// A bot by name, seeded; `None` for an unknown name (the names are in [`NAMES`]).
pub fn by_name(name: &str, seed: u64) -> Option<Box<dyn Player + Send>> {
    Some(match name {
        "random" => Box::new(RandomBot::new(seed)),
        "greedy" => Box::new(GreedyBot::new(seed)),
        "mc" => Box::new(MonteCarloBot::new(seed, MonteCarloBot::PLAYOUTS)),
        "search" => Box::new(SearchBot::new(seed, SearchBot::SAMPLES)),
        _ => return None,
    })
}

/// The seeds of a match started with `seed` (`hexforge match --seed`): the game's, then one for
/// each of the `seats` bots, all different and all fixed by `seed`.
pub fn match_seeds(seed: u64, seats: usize) -> (u64, Vec<u64>) {
    let mut rng = Rng::seeded(seed);
    let game = rng.next_u64();
    (game, (0..seats).map(|_| rng.next_u64()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_seed_fixes_different_seeds_for_the_game_and_each_bot() {
        let (game, bots) = match_seeds(7, 3);
        assert_eq!(match_seeds(7, 3), (game, bots.clone()));
        assert_eq!(bots.len(), 3);
        let mut all = bots.clone();
        all.push(game);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 4, "the seeds differ");
        assert_ne!(match_seeds(8, 3).0, game);
        // Two seats draw the first two bot seeds of three.
        assert_eq!(match_seeds(7, 2).1[..], bots[..2]);
    }
}
