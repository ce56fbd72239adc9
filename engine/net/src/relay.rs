//! The relay (`hexforge serve`): hosts and joiners both connect out to it, so neither needs an
//! open port. A host registers a match code on a control connection; each joiner that comes
//! with the code is announced to the host (`peer ID`), which opens a data connection for it
//! (`relay-accept`); from then on the relay forwards frames between the two, checking only that
//! each is a line of text within the limit. Many matches run at once, on threads.

use crate::conn::{Frames, Shared, drain, frames, send, send_many};
use crate::frame::{FrameError, write_frame};
use crate::message::{Hello, Message, Role};
use std::collections::BTreeMap;
use std::io::Write;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

/// How long a new connection has to send its first frame.
const HELLO_WITHIN: Duration = Duration::from_secs(60);
/// How long a write may block before the other side counts as gone.
const WRITE_WITHIN: Duration = Duration::from_secs(60);
/// How many joiners may wait for a host to take them up, per match.
const MAX_WAITING: usize = 16;
/// The stack of the relay's threads, which only read and write lines.
const STACK: usize = 128 * 1024;

/// A relay: the matches hosted on it and what it has done.
pub struct Relay {
    matches: Mutex<BTreeMap<String, Hosted>>,
    generation: AtomicU64,
    hosted: AtomicU64,
    joins: AtomicU64,
    frames: AtomicU64,
    log: Box<dyn Fn(&str) + Send + Sync>,
}

/// A match hosted on the relay.
struct Hosted {
    /// Tells a host that left from the one that registered the code after it.
    generation: u64,
    /// The host's control connection, where joiners are announced.
    control: Shared,
    next_peer: u64,
    /// Joiners announced and not yet taken up.
    waiting: BTreeMap<u64, Waiting>,
}

/// A joiner waiting for its host.
struct Waiting {
    reader: Frames,
    stream: Shared,
    /// Its first frame, passed on to the host.
    hello: String,
}

/// What a relay has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Matches hosted now.
    pub hosted: usize,
    /// Matches ever registered.
    pub matches: u64,
    /// Joiners (players and spectators) ever put through to a host.
    pub joins: u64,
    /// Frames forwarded between hosts and joiners.
    pub frames: u64,
}

impl Relay {
    /// A relay with no match, telling what happens (matches hosted and ended) to `log`.
    pub fn new(log: impl Fn(&str) + Send + Sync + 'static) -> Arc<Relay> {
        Arc::new(Relay {
            matches: Mutex::new(BTreeMap::new()),
            generation: AtomicU64::new(0),
            hosted: AtomicU64::new(0),
            joins: AtomicU64::new(0),
            frames: AtomicU64::new(0),
            log: Box::new(log),
        })
    }

    /// What the relay has done so far.
    pub fn counts(&self) -> Counts {
        Counts {
            hosted: self.lock().len(),
            matches: self.hosted.load(Ordering::Relaxed),
            joins: self.joins.load(Ordering::Relaxed),
            frames: self.frames.load(Ordering::Relaxed),
        }
    }

    /// Serves the connections of `listener`, each on a thread of its own, for as long as the
    /// listener accepts.
    pub fn serve(self: Arc<Self>, listener: TcpListener) {
        for stream in listener.incoming() {
            match stream {
                Ok(s) => {
                    let relay = self.clone();
                    // Without a thread for it the connection is closed at once.
                    let _ = thread::Builder::new()
                        .stack_size(STACK)
                        .spawn(move || relay.connection(s));
                }
                // Out of file descriptors, or a connection reset before it was taken.
                Err(_) => thread::sleep(Duration::from_millis(10)),
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Hosted>> {
        // A thread that panicked while holding the lock left the map as it was between two
        // whole changes.
        self.matches.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One connection: its first frame says what it is for.
    fn connection(&self, stream: TcpStream) {
        let _ = stream.set_nodelay(true);
        let _ = stream.set_read_timeout(Some(HELLO_WITHIN));
        let _ = stream.set_write_timeout(Some(WRITE_WITHIN));
        let stream = Shared::new(stream);
        let mut reader = frames(&stream);
        let first = match reader.read() {
            Ok(f) => f,
            Err(FrameError::Closed) => return,
            Err(e) => return refuse(&stream, reader, &e.to_string()),
        };
        let hello = match Message::parse(&first) {
            Ok(Message::Hello(h)) => h,
            Ok(_) => {
                return refuse(
                    &stream,
                    reader,
                    "the first frame is `hexforge-net 1 ROLE ...`: this is a Hexforge relay",
                );
            }
            Err(e) => return refuse(&stream, reader, &e.to_string()),
        };
        let _ = stream.stream().set_read_timeout(None);
        match (hello.role, hello.code) {
            (Role::RelayHost, Some(code)) => self.host(code, reader, stream),
            (Role::Join { .. } | Role::Watch, Some(code)) => {
                self.joiner(code, reader, stream, first)
            }
            (Role::RelayAccept { peer }, Some(code)) => self.take_up(&code, peer, reader, stream),
            (Role::Join { .. } | Role::Watch, None) => refuse(
                &stream,
                reader,
                "this is a Hexforge relay: give the match's code (hexforge join ADDRESS --match CODE)",
            ),
            _ => refuse(
                &stream,
                reader,
                "this is a Hexforge relay: host a match on it with `hexforge host --relay ADDRESS --match CODE`, join one with `hexforge join ADDRESS --match CODE`",
            ),
        }
    }

    /// A host's control connection: the match is registered until it closes.
    fn host(&self, code: String, mut reader: Frames, stream: Shared) {
        let generation = self.generation.fetch_add(1, Ordering::Relaxed);
        {
            let mut matches = self.lock();
            if matches.contains_key(&code) {
                drop(matches);
                return refuse(
                    &stream,
                    reader,
                    &format!("match `{code}` is already hosted on this relay: choose another code"),
                );
            }
            matches.insert(
                code.clone(),
                Hosted {
                    generation,
                    control: stream.clone(),
                    next_peer: 0,
                    waiting: BTreeMap::new(),
                },
            );
        }
        self.hosted.fetch_add(1, Ordering::Relaxed);
        let hello = Message::Hello(Hello {
            role: Role::Relay,
            code: None,
        });
        let mut out = stream.stream();
        if send_many(&mut out, &[hello, Message::Ok]).is_ok() {
            let from = out
                .peer_addr()
                .map_or_else(|_| "?".to_string(), |a| a.to_string());
            (self.log)(&format!("match {code} hosted from {from}"));
            // The host says nothing more on this connection: it is read until it closes.
            while reader.read().is_ok() {}
        }
        let gone = {
            let mut matches = self.lock();
            if matches
                .get(&code)
                .is_some_and(|h| h.generation == generation)
            {
                matches.remove(&code)
            } else {
                None
            }
        };
        if let Some(h) = gone {
            let _ = h.control.stream().shutdown(Shutdown::Both);
            for (_, w) in h.waiting {
                refuse(
                    &w.stream,
                    w.reader,
                    &format!("the host of match `{code}` left"),
                );
            }
            (self.log)(&format!("match {code} ended"));
        }
    }

    /// A joiner with a match code: announced to the host, then waits to be taken up.
    fn joiner(&self, code: String, reader: Frames, stream: Shared, hello: String) {
        let mut matches = self.lock();
        let Some(h) = matches.get_mut(&code) else {
            drop(matches);
            return refuse(
                &stream,
                reader,
                &format!(
                    "no match `{code}` is hosted on this relay: its host starts it with `hexforge host --relay ADDRESS --match {code}`"
                ),
            );
        };
        if h.waiting.len() >= MAX_WAITING {
            drop(matches);
            return refuse(
                &stream,
                reader,
                &format!("too many joiners are waiting for match `{code}`: try again"),
            );
        }
        let peer = h.next_peer;
        h.next_peer += 1;
        if send(&mut h.control.stream(), &Message::Peer(peer)).is_err() {
            drop(matches);
            return refuse(
                &stream,
                reader,
                &format!("the host of match `{code}` cannot be reached"),
            );
        }
        h.waiting.insert(
            peer,
            Waiting {
                reader,
                stream,
                hello,
            },
        );
        self.joins.fetch_add(1, Ordering::Relaxed);
    }

    /// A host's data connection for joiner `peer`: from now on frames go both ways.
    fn take_up(&self, code: &str, peer: u64, reader: Frames, host: Shared) {
        let waiting = self
            .lock()
            .get_mut(code)
            .and_then(|h| h.waiting.remove(&peer));
        let Some(w) = waiting else {
            return refuse(
                &host,
                reader,
                &format!("no joiner {peer} waits for match `{code}`"),
            );
        };
        let mut first = Vec::new();
        if write_frame(&mut first, &w.hello).is_err() || host.stream().write_all(&first).is_err() {
            let _ = host.stream().shutdown(Shutdown::Both);
            let _ = w.stream.stream().shutdown(Shutdown::Both);
            return;
        }
        let frames = &self.frames;
        let (joiner, joiner_reader) = (w.stream, w.reader);
        thread::scope(|scope| {
            let to_host = thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(scope, || {
                    forward(joiner_reader, joiner.stream(), host.stream(), frames)
                });
            if to_host.is_err() {
                let _ = host.stream().shutdown(Shutdown::Both);
                let _ = joiner.stream().shutdown(Shutdown::Both);
                return;
            }
            forward(reader, host.stream(), joiner.stream(), frames);
        });
    }
}

/// Forwards the frames `from` reads to `to` until `from` closes; then closes `to` for writing,
/// so the other side sees the end. A frame that is not one ends both connections, the sender
/// told why.
fn forward(mut from: Frames, back: &TcpStream, mut to: &TcpStream, frames: &AtomicU64) {
    let mut line = Vec::new();
    loop {
        match from.read() {
            Ok(frame) => {
                line.clear();
                if write_frame(&mut line, &frame).is_err() || to.write_all(&line).is_err() {
                    let _ = back.shutdown(Shutdown::Both);
                    let _ = to.shutdown(Shutdown::Both);
                    return;
                }
                frames.fetch_add(1, Ordering::Relaxed);
            }
            Err(FrameError::Closed) | Err(FrameError::Io(_)) => {
                let _ = to.shutdown(Shutdown::Write);
                return;
            }
            Err(e) => {
                let mut out = back;
                let _ = send(&mut out, &Message::Error(format!("the relay refuses: {e}")));
                let _ = back.shutdown(Shutdown::Both);
                let _ = to.shutdown(Shutdown::Both);
                return;
            }
        }
    }
}

/// Sends `why` as an `error` frame and closes the connection, reading what the other side still
/// sends for a moment so that the frame is not lost to a reset.
fn refuse(stream: &Shared, reader: Frames, why: &str) {
    let mut out = stream.stream();
    let _ = send(&mut out, &Message::Error(why.to_string()));
    let _ = out.shutdown(Shutdown::Write);
    drain(stream.stream(), reader.into_inner());
}
