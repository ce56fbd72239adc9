//! Hexforge's rules engine: hex geometry, boards, tile definitions, rule options, battle
//! resolution and whole games. Pure and deterministic: no IO, no clock, no global randomness, no scripting, no UI.

#![warn(missing_docs)]

pub mod battle;
pub mod battlefield;
pub mod decision;
pub mod declared;
pub mod effect;
pub mod event;
pub mod fnv;
pub mod game;
pub mod hex;
pub mod hooks;
pub mod instant;
pub mod link;
pub mod link_loss;
pub mod marker;
pub mod marker_name;
pub mod names;
pub mod play;
pub mod points;
pub mod rng;
pub mod rules;
pub mod seat;
pub mod shape;
pub mod tile;

pub use battle::{BattleReport, Context, Standing};
pub use battlefield::{
    Battlefield, MAX_PLAYERS, Placed, PlayerSetup, Seat, Setup, SetupError, TileSetup,
};
pub use decision::{Choice, Decider, Decision, DefaultPolicy, Question};
pub use event::{AttackKind, BattleCause, DrawReason, Event, EventSink, GameResult};
pub use game::{Action, ActionError, Game, GameError, GameSetup, SeatSetup, Stage, Target};
pub use hex::{Dir, Edge, Hex};
pub use hooks::{AbilityHooks, NoAbilities};
pub use link::{Link, LinkError, LinkLoss};
pub use play::{Play, PlayChecker, PlayError, Refusal, Turn, check_play, resolve_play};
pub use rng::Rng;
pub use rules::{Preset, RuleOptions, Rules};
pub use shape::{BoardShape, Cell, MAX_CELLS};
pub use tile::{Catalog, EdgeIcons, Effects, Initiative, Tile, TileKind, TileRef, Traits};
