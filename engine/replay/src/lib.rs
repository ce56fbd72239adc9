//! Hexforge replay files (docs/REPLAY_FORMAT.md): a versioned, line-based text format holding a
//! game's setup (engine version, rules, board, armies, mods with their content hashes, seed) and
//! every action with the decisions taken during it and the state hash after it. [`Recorder`]
//! writes one action at a time and flushes, so a game that stops early leaves a readable file;
//! [`parse`] reads a file back, stopping at a cut-off last step, and reports bad lines by number;
//! a [`Timeline`] shows the game at any step, forwards and backwards.

#![warn(missing_docs)]

mod action;
mod format;
mod play;
mod read;
mod record;
pub mod setup;
mod timeline;

pub use action::{decode_action, decode_typed_action, encode_action};
pub use format::{FORMAT, Header, Lines, Replay, Step};
pub use play::{Noting, PhaseHashes, Picks, Replayed, act_noted, apply, replay_step};
pub use read::{ReplayError, parse};
pub use record::{RecordError, Recorder, record_game};
pub use setup::{
    StartError, file_differences, header, header_board, mod_differences, start, start_noted,
    start_replay,
};
pub use timeline::{Refused, Timeline};
