//! Scenario files: a board, steps and the outcome the rules demand (docs/SCENARIO_GAMES.md). Parsed
//! and validated with located errors, run against the engine, and reported; the events of a run
//! are told through `hexforge_log`.

#![warn(missing_docs)]

pub mod file;
mod game;
mod report;
pub mod run;
mod track;
pub mod write;

pub use file::{
    Scenario, load_scenario, load_scenario_with_boards, parse_scenario, parse_scenario_with_boards,
};
pub use report::{Frame, Report};
pub use run::run_scenario;
pub use write::scenario_text;
