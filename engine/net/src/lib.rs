//! Hexforge network play over TCP (docs/NETWORK.md), built on the deterministic engine: only
//! actions travel, and every side computes the same state. A match's frames are lines of text
//! in the words of a replay file, so a match's log is a replay. The host sends its header (rules,
//! board, armies, teams, seeds, every mod with its version and content hash); a joiner refuses,
//! before the game starts, a header its content differs from, naming each mod. Then each step
//! travels from the side whose seat played it with the decisions taken during it, every side
//! plays it and sends its state hash back, and the first step whose hashes differ stops the
//! match with a desync report and both sides' replays. A joiner who drops can rejoin (the host
//! keeps the log and sends it again), spectators follow read-only, and a relay
//! ([`relay::Relay`]) lets hosts and joiners both connect out. Standard library networking
//! and threads only: the game stays on the caller's thread, connections are read on threads of
//! their own.

#![warn(missing_docs)]

mod conn;
mod desync;
mod error;
mod frame;
mod handshake;
mod host;
mod join;
mod lockstep;
mod message;
pub mod relay;
mod stop;

pub use conn::Conn;
pub use desync::{DesyncReport, Found};
pub use error::NetError;
pub use frame::{FrameError, FrameReader, MAX_FRAME, PROTOCOL, write_frame};
pub use handshake::{Difference, differences, header_lines, read_header, refusal};
pub use host::{Fill, Hosting, Listen, Play, host, join_address};
pub use join::{ArchiveSource, Confirm, Fetching, Joining, MakePlayer, join};
pub use lockstep::{Content, Elsewhere, Here, Outcome, Unseen, Watcher, seat_name};
pub use message::{
    Hello, MAGIC, MAX_PICKS, MAX_SEATS, Message, MessageError, PACK_CHUNK, Role, WireAsk, WireStep,
    valid_code,
};
pub use stop::Stop;
