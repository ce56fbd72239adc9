//! Hexforge's balance lab: seeded series of bot games between armies, each army given every
//! seat and every bot equally ([`Seating`]), tallied as the games finish into win/draw rates
//! with 95% Wilson intervals, the first seat's advantage, game length, HQ margin and what each
//! tile did ([`Results`]); shards of a series and their merge; whether a change of content
//! moved a rate beyond noise ([`Shift`], [`tile_changes`]). The `hexforge balance` and
//! `hexforge matches` commands and the editor's Balance panel all play through it
//! (docs/BALANCE.md).
//!
//! A series of 20 games between two base armies, watched through its [`Progress`]. Here the
//! abilities run without their scripts ([`hexforge_core::NoAbilities`]); the CLI and the editor
//! give each thread a Lua host of its own (`hexforge_script::ScriptHost::load`) instead.
//!
//! ```
//! use std::sync::Arc;
//!
//! let loaded = hexforge_content::load_mods(&["../../mods".into()]);
//! let rules = Arc::new(loaded.table_rules("v3", &[]).expect("the v3 rules"));
//! let board = loaded.board("standard").expect("the standard board");
//! let setup = hexforge_lab::Setup {
//!     armies: vec!["moloch".into(), "outpost".into()],
//!     bots: ["random".into(), "random".into()],
//!     games: 20,
//!     seed: 1,
//!     rules: rules.clone(),
//!     board: hexforge_content::table_board(board, &rules),
//!     rules_line: hexforge_lab::rules_line("v3", &[], "standard"),
//!     content: hexforge_content::content_line(&loaded.mods),
//!     shard: None,
//! };
//! let progress = hexforge_lab::Progress::default();
//! let (results, failures) =
//!     hexforge_lab::run(&setup, loaded.catalog.clone(), || hexforge_core::NoAbilities, &progress)
//!         .expect("a series of two loaded armies");
//! assert!(failures.is_empty());
//! assert_eq!(progress.done(), 20);
//! let moloch = &results.pairings[0];
//! assert_eq!((moloch.games, results.armies[moloch.a].as_str()), (20, "moloch"));
//! // Moloch's win rate with its 95% interval, e.g. `45.0% (25.8-65.8)`.
//! println!("{}", hexforge_lab::percent(moloch.a_wins, moloch.games));
//! ```

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
pub use series::{Progress, Setup, check, rules_line, run};
pub use stats::{Shift, percent, wilson};
