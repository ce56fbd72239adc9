//! Hexforge's bots: [`RandomBot`] (uniform over legal actions), [`GreedyBot`] (one ply, a
//! documented evaluation after a simulated battle) and [`MonteCarloBot`] (seeded playouts per
//! candidate). Each is deterministic for its seed: the same game and seed give the same moves.

mod eval;
mod greedy;
mod mc;
mod random;

pub use eval::{evaluate, tile_value};
pub use greedy::GreedyBot;
pub use mc::MonteCarloBot;
pub use random::RandomBot;

use hexforge_core::game::Player;

/// The bots by the names the command line uses.
pub const NAMES: &[&str] = &["random", "greedy", "mc"];

/// A bot by name, seeded; `None` for an unknown name (the names are in [`NAMES`]).
pub fn by_name(name: &str, seed: u64) -> Option<Box<dyn Player + Send>> {
    Some(match name {
        "random" => Box::new(RandomBot::new(seed)),
        "greedy" => Box::new(GreedyBot::new(seed)),
        "mc" => Box::new(MonteCarloBot::new(seed, MonteCarloBot::PLAYOUTS)),
        _ => return None,
    })
}
