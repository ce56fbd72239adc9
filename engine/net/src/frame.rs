//! Frames: one line of text each, ending with a newline and at most [`MAX_FRAME`] bytes long,
//! read by a [`FrameReader`] that refuses an over-long, cut or non-text line with a
//! [`FrameError`], and written by [`write_frame`].

use std::fmt;
use std::io::{self, BufRead, Write};

/// The protocol version every connection states in its first frame (docs/NETWORK.md).
pub const PROTOCOL: u32 = 1;

/// The longest frame, in bytes, not counting its newline.
pub const MAX_FRAME: usize = 16 * 1024;

/// Why no frame could be read.
#[derive(Debug)]
pub enum FrameError {
    /// The connection closed between two frames.
    Closed,
    /// The connection closed in the middle of a frame: `len` bytes came without a newline.
    Cut {
        /// The bytes of the unfinished frame.
        len: usize,
    },
    /// A line longer than the limit came: the connection cannot be read further.
    TooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// A line that is not UTF-8 text.
    NotText,
    /// Reading failed (a reset connection, or no frame within the time allowed).
    Io(io::Error),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Closed => f.write_str("the connection closed"),
            FrameError::Cut { len } => write!(
                f,
                "the connection closed in the middle of a frame ({len} bytes without a newline)"
            ),
            FrameError::TooLong { limit } => write!(
                f,
                "a frame longer than {limit} bytes: a frame is one line of at most {limit} bytes ending with a newline"
            ),
            FrameError::NotText => {
                f.write_str("a frame that is not UTF-8 text: a frame is one line of text")
            }
            FrameError::Io(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                f.write_str("no frame came within the time allowed")
            }
            FrameError::Io(e) => write!(f, "cannot read from the connection: {e}"),
        }
    }
}

impl std::error::Error for FrameError {}

/// Reads frames from a buffered reader, never holding more than the limit of one line.
pub struct FrameReader<R> {
    inner: R,
    limit: usize,
}

impl<R: BufRead> FrameReader<R> {
    /// Reads frames of at most [`MAX_FRAME`] bytes from `inner`.
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_FRAME)
    }

    /// Reads frames of at most `limit` bytes from `inner`.
    pub fn with_limit(inner: R, limit: usize) -> Self {
        FrameReader { inner, limit }
    }

    /// The reader frames are read from.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The reader, with what it holds that was not read yet.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The next frame, without its newline (and without a `\r` before it).
    pub fn read(&mut self) -> Result<String, FrameError> {
        let mut line: Vec<u8> = Vec::new();
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(FrameError::Io(e)),
            };
            if buf.is_empty() {
                return Err(if line.is_empty() {
                    FrameError::Closed
                } else {
                    FrameError::Cut { len: line.len() }
                });
            }
            let (take, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (buf.len(), false),
            };
            if line.len() + take > self.limit {
                return Err(FrameError::TooLong { limit: self.limit });
            }
            line.extend_from_slice(&buf[..take]);
            self.inner.consume(if done { take + 1 } else { take });
            if done {
                break;
            }
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        String::from_utf8(line).map_err(|_| FrameError::NotText)
    }
}

/// Writes `text` as one frame (the text and a newline); refuses a text holding a newline or
/// longer than [`MAX_FRAME`] bytes. It does not flush.
pub fn write_frame(out: &mut impl Write, text: &str) -> io::Result<()> {
    if text.contains('\n') || text.len() > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "a frame is one line of at most {MAX_FRAME} bytes: this one has {} bytes{}",
                text.len(),
                if text.contains('\n') {
                    " and a newline"
                } else {
                    ""
                }
            ),
        ));
    }
    let mut line = Vec::with_capacity(text.len() + 1);
    line.extend_from_slice(text.as_bytes());
    line.push(b'\n');
    out.write_all(&line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(bytes: &[u8], limit: usize) -> Vec<Result<String, String>> {
        let mut r = FrameReader::with_limit(bytes, limit);
        let mut out = Vec::new();
        loop {
            match r.read() {
                Ok(l) => out.push(Ok(l)),
                Err(FrameError::Closed) => break,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn lines_are_frames_and_a_carriage_return_is_dropped() {
        assert_eq!(
            frames(b"live\r\nhash 1 00ff\n\nend\n", 64),
            vec![
                Ok("live".to_string()),
                Ok("hash 1 00ff".to_string()),
                Ok(String::new()),
                Ok("end".to_string())
            ]
        );
    }

    #[test]
    fn an_over_long_cut_or_binary_frame_is_refused_with_its_reason() {
        let long = frames(&[b'a'; 100], 10);
        assert_eq!(long.len(), 1);
        assert!(
            long[0]
                .as_ref()
                .is_err_and(|e| e.starts_with("a frame longer than 10 bytes")),
            "{long:?}"
        );
        // Exactly the limit is taken; one more byte is not.
        assert_eq!(frames(b"0123456789\n", 10), vec![Ok("0123456789".into())]);
        assert!(frames(b"0123456789a\n", 10)[0].is_err());
        let cut = frames(b"live\nha", 64);
        assert_eq!(cut[0], Ok("live".to_string()));
        assert!(
            cut[1]
                .as_ref()
                .is_err_and(|e| e.contains("middle of a frame")),
            "{cut:?}"
        );
        let binary = frames(b"\xff\xfe\n", 64);
        assert!(
            binary[0].as_ref().is_err_and(|e| e.contains("not UTF-8")),
            "{binary:?}"
        );
    }

    #[test]
    fn a_frame_with_a_newline_or_over_the_limit_is_not_written() {
        let mut out = Vec::new();
        write_frame(&mut out, "step 1").expect("a short line");
        assert_eq!(out, b"step 1\n");
        assert!(write_frame(&mut out, "a\nb").is_err());
        assert!(write_frame(&mut out, &"x".repeat(MAX_FRAME + 1)).is_err());
        assert_eq!(out, b"step 1\n");
    }
}
