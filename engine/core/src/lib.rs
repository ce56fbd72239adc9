//! Hexforge's rules engine: hex geometry, boards, tile definitions, rule options and battle
//! resolution. Pure and deterministic: no IO, no clock, no global randomness, no scripting, no UI.

pub mod battle;
pub mod battlefield;
pub mod decision;
pub mod event;
pub mod hex;
pub mod hooks;
pub mod play;
pub mod rules;
pub mod shape;
pub mod tile;

pub use battle::{BattleReport, Context};
pub use battlefield::{
    Battlefield, MAX_PLAYERS, Placed, Player, PlayerSetup, Setup, SetupError, TileSetup,
};
pub use decision::{Choice, Decider, Decision, DefaultPolicy, Question};
pub use event::{AttackKind, Event, EventSink};
pub use hex::{Dir, Edge, Hex};
pub use hooks::{AbilityHooks, NoAbilities};
pub use play::{Play, PlayError, Turn, check_play, resolve_play};
pub use rules::{Preset, Rules};
pub use shape::{BoardShape, Cell, MAX_CELLS};
pub use tile::{Catalog, EdgeIcons, Effects, Initiative, Tile, TileKind, TileRef};
