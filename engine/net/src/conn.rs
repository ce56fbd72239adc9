//! A connection of the protocol: a TCP stream read frame by frame into messages and written one
//! message per frame, with Nagle's delay off so every step leaves at once.

use crate::error::NetError;
use crate::frame::{FrameReader, write_frame};
use crate::message::Message;
use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

/// A connection shared by the threads and halves that read and write it, on one file
/// descriptor (a relay holds three connections per match, a host one per joiner).
#[derive(Clone)]
pub(crate) struct Shared(Arc<TcpStream>);

impl Shared {
    /// Shares `stream`.
    pub(crate) fn new(stream: TcpStream) -> Self {
        Shared(Arc::new(stream))
    }

    /// The stream, to write to (`&TcpStream` writes), shut down or set up.
    pub(crate) fn stream(&self) -> &TcpStream {
        &self.0
    }
}

impl Read for Shared {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        (&*self.0).read(buf)
    }
}

/// A connection's frames, read from the stream it shares.
pub(crate) type Frames = FrameReader<BufReader<Shared>>;

/// Reads the frames of `stream`.
pub(crate) fn frames(stream: &Shared) -> Frames {
    FrameReader::new(BufReader::new(stream.clone()))
}

/// One end of a connection.
pub struct Conn {
    reader: Frames,
    stream: Shared,
}

impl Conn {
    /// Connects to `address` (`HOST:PORT`).
    pub fn connect(address: &str) -> Result<Conn, NetError> {
        let stream = TcpStream::connect(address).map_err(|e| {
            // An address without a port (or not an address at all) says how one is written.
            let hint = if e.kind() == std::io::ErrorKind::InvalidInput {
                " (write the host's address as HOST:PORT, e.g. 192.168.1.20:4717, as `hexforge host` prints it)"
            } else {
                ""
            };
            NetError::io(format!("cannot connect to {address}{hint}"), e)
        })?;
        Conn::new(stream).map_err(|e| NetError::io(format!("cannot talk to {address}"), e))
    }

    /// A connection over `stream`.
    pub fn new(stream: TcpStream) -> std::io::Result<Conn> {
        stream.set_nodelay(true)?;
        let stream = Shared::new(stream);
        Ok(Conn {
            reader: frames(&stream),
            stream,
        })
    }

    /// Sends one message.
    pub fn send(&mut self, message: &Message) -> Result<(), NetError> {
        send(&mut self.stream.stream(), message)
    }

    /// Sends `messages` one frame each, in one write.
    pub fn send_many(&mut self, messages: &[Message]) -> Result<(), NetError> {
        send_many(&mut self.stream.stream(), messages)
    }

    /// The next message; waits for it at most `timeout` (`None`: as long as it takes).
    pub fn recv_within(&mut self, timeout: Option<Duration>) -> Result<Message, NetError> {
        self.stream
            .stream()
            .set_read_timeout(timeout)
            .map_err(|e| NetError::io("cannot set a time limit on the connection", e))?;
        self.recv()
    }

    /// The next message.
    pub fn recv(&mut self) -> Result<Message, NetError> {
        let frame = self.reader.read()?;
        Ok(Message::parse(&frame)?)
    }

    /// Tells the other side what it sent wrong (best effort: the connection is about to close).
    pub fn refuse(&mut self, why: &str) {
        let _ = self.send(&Message::Error(why.to_string()));
    }

    /// The connection, shared.
    pub(crate) fn shared(&self) -> &Shared {
        &self.stream
    }

    /// The stream, to shut it down.
    pub fn stream(&self) -> &TcpStream {
        self.stream.stream()
    }
}

/// Writes `message` as one frame to `out`, in one write.
pub fn send(out: &mut impl Write, message: &Message) -> Result<(), NetError> {
    let mut bytes = Vec::new();
    write_frame(&mut bytes, &message.to_string())
        .map_err(|e| NetError::io("cannot send a frame", e))?;
    out.write_all(&bytes)
        .and_then(|()| out.flush())
        .map_err(|e| NetError::io("cannot send to the other side", e))
}

/// Writes `messages` one frame each to `out`, in one write.
pub fn send_many<'m>(
    out: &mut impl Write,
    messages: impl IntoIterator<Item = &'m Message>,
) -> Result<(), NetError> {
    let mut bytes = Vec::new();
    for m in messages {
        write_frame(&mut bytes, &m.to_string())
            .map_err(|e| NetError::io("cannot send a frame", e))?;
    }
    out.write_all(&bytes)
        .and_then(|()| out.flush())
        .map_err(|e| NetError::io("cannot send to the other side", e))
}

/// Reads and drops what the other side still sends, at most a megabyte for at most two seconds,
/// so that a refusal written before closing reaches it rather than being lost to a reset.
pub(crate) fn drain(stream: &TcpStream, mut rest: impl Read) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut buf = [0u8; 8192];
    let mut left: usize = 1 << 20;
    while left > 0 {
        match rest.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}
