//! [`Stop`]: leaving a match from outside the thread that plays it (a window closing its game).
//! Stopping sets a flag the host's and the joiner's loops look at, and shuts the connections
//! registered with it, which wakes a side waiting to read.

use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A handle that stops a hosted or joined match; clones share it.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    stopped: AtomicBool,
    streams: Mutex<Vec<TcpStream>>,
}

impl Stop {
    /// A handle not stopped yet.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Stops the match: the side returns [`crate::NetError::Stopped`] at its next look, and a
    /// connection it reads is shut.
    pub fn stop(&self) {
        self.0.stopped.store(true, Ordering::SeqCst);
        if let Ok(streams) = self.0.streams.lock() {
            for s in streams.iter() {
                let _ = s.shutdown(Shutdown::Both);
            }
        }
    }

    /// Whether [`Stop::stop`] was called.
    pub fn stopped(&self) -> bool {
        self.0.stopped.load(Ordering::SeqCst)
    }

    /// Shuts `stream` (a clone of it) when the match is stopped, at once if it already is.
    pub(crate) fn watch(&self, stream: &TcpStream) {
        if let Ok(clone) = stream.try_clone() {
            if self.stopped() {
                let _ = clone.shutdown(Shutdown::Both);
            }
            if let Ok(mut streams) = self.0.streams.lock() {
                streams.push(clone);
            }
        }
    }
}
