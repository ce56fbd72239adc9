//! Hexforge's balance lab: seeded series of bot games between armies, each army given every
//! seat and every bot equally ([`Seating`]), tallied as the games finish into win/draw rates
//! with 95% Wilson intervals, the first seat's advantage, game length, HQ margin and what each
//! tile did ([`Results`]); shards of a series and their merge; whether a change of content
//! moved a rate beyond noise ([`Shift`], [`tile_changes`]). The `hexforge balance` and
//! `hexforge matches` commands and the editor's Balance panel all play through it
//! (docs/BALANCE.md).

#![warn(missing_docs)]

pub mod changes;
pub mod error;
pub mod lineup;
pub mod results;
pub mod seating;
pub mod series;
pub mod stats;
mod watch;

pub use changes::tile_changes;
pub use error::{LabError, unknown_bot};
pub use lineup::{Bots, Lineup, start, stopped};
pub use results::{FORMAT, PairingTally, Results, Shard, TileImpact, merge};
pub use seating::{Seating, game_seed};
pub use series::{Progress, Setup, rules_line, run};
pub use stats::{Shift, percent, wilson};
