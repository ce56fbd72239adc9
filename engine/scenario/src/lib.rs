//! Scenario files: a board, steps and the outcome the rules demand (docs/SCENARIO_GAMES.md). Parsed
//! and validated with located errors, run against the engine, and reported.

#![warn(missing_docs)]

pub mod file;
mod game;
pub mod log;
pub mod run;
pub mod write;

pub use file::{
    Scenario, load_scenario, load_scenario_with_boards, parse_scenario, parse_scenario_with_boards,
};
pub use run::{Report, run_scenario};
pub use write::scenario_text;
