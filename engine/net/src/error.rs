//! [`NetError`]: why a hosted, joined or relayed match stopped, in words a player can act on.

use crate::desync::DesyncReport;
use crate::frame::FrameError;
use crate::handshake::{Difference, refusal};
use crate::message::MessageError;
use hexforge_core::ActionError;
use hexforge_replay::StartError;
use std::fmt;
use std::io;

/// Why a match over the network stopped before its end.
#[derive(Debug)]
pub enum NetError {
    /// A connection could not be made, or written to; `what` says which.
    Io {
        /// What was being done: `cannot connect to 10.0.0.2:4717`, ...
        what: String,
        /// The system's error.
        source: io::Error,
    },
    /// A frame could not be read.
    Frame(FrameError),
    /// A frame is not a message of the protocol.
    Message(MessageError),
    /// The other side sent a message that does not belong where it came.
    Protocol(String),
    /// The other side refused what this side sent, with its reason (an `error` frame).
    Remote(String),
    /// This side refused the host's match before it started: how its content differs.
    Refused(Vec<Difference>),
    /// The host's match refused this side, or this side cannot play the host's header.
    Header(String),
    /// The game of the header cannot be set up with this side's content.
    Start(StartError),
    /// The states differ after a step.
    Desync(Box<DesyncReport>),
    /// The match stopped before its end (the host stopped it, or its connection ended), and why.
    Stopped(String),
    /// The engine refused an action it listed as legal, or a script failed.
    Engine(ActionError),
    /// The host's mods that differ here could not be fetched or installed, and why (nothing of
    /// the failing mod was installed).
    Fetch(String),
    /// The host's mods that differed here were fetched and installed (a line each): load the
    /// content again and join again.
    Fetched(Vec<String>),
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Io { what, source } => write!(f, "{what}: {source}"),
            NetError::Frame(e) => e.fmt(f),
            NetError::Message(e) => e.fmt(f),
            NetError::Protocol(e) => write!(f, "protocol error: {e}"),
            NetError::Remote(e) => write!(f, "the other side refused: {e}"),
            NetError::Refused(d) => f.write_str(&refusal(d)),
            NetError::Header(e) => e.fmt(f),
            NetError::Start(e) => write!(f, "the host's match cannot be set up here: {e}"),
            NetError::Desync(r) => r.fmt(f),
            NetError::Stopped(why) => write!(f, "the match stopped: {why}"),
            NetError::Engine(ActionError::Hook(h)) => {
                write!(f, "a script error stopped the match: {h}")
            }
            NetError::Engine(e @ ActionError::NothingOpen { .. }) => {
                write!(f, "the game rules stopped the match: {e}")
            }
            NetError::Engine(e) => {
                write!(f, "the engine refused an action it listed as legal: {e}")
            }
            NetError::Fetch(why) => write!(f, "fetching the host's mods failed: {why}"),
            NetError::Fetched(lines) => write!(
                f,
                "the host's mods were installed ({}): load them and join again",
                lines.join("; ")
            ),
        }
    }
}

impl std::error::Error for NetError {}

impl From<FrameError> for NetError {
    fn from(e: FrameError) -> Self {
        NetError::Frame(e)
    }
}

impl From<MessageError> for NetError {
    fn from(e: MessageError) -> Self {
        NetError::Message(e)
    }
}

impl NetError {
    /// An error of `source` while doing `what`.
    pub fn io(what: impl Into<String>, source: io::Error) -> Self {
        NetError::Io {
            what: what.into(),
            source,
        }
    }
}
