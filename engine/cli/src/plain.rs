//! What the command line prints, kept plain: text from mods and scripts (names, descriptions,
//! error messages) may hold control characters and bidirectional overrides, which a terminal
//! would obey (move the cursor, set the title, forge a line, reverse a name). They are printed
//! as visible escapes (`\u{1b}`) instead; newlines and tabs stay.

use std::borrow::Cow;
use std::io::{self, Write};

/// Whether `c` is printed as an escape: a control character but a newline or a tab, a C1
/// control, a line or paragraph separator, or a character that changes the direction of the
/// text around it.
fn hidden(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        c if c.is_control() => true,
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// `text` with every hidden character written as `\u{..}`; borrowed when it holds none.
pub fn plain(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that passes text through [`plain`]: bytes that end inside a character wait for the
/// rest of it, and bytes that are not UTF-8 are written as U+FFFD.
pub struct Plain<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> Plain<W> {
    /// Writes to `inner`.
    pub fn new(inner: W) -> Self {
        Plain {
            inner,
            pending: Vec::new(),
        }
    }

    /// Writes out what is pending, as far as it is whole characters (all of it with `all`).
    fn drain(&mut self, all: bool) -> io::Result<()> {
        let end = if all {
            self.pending.len()
        } else {
            whole_prefix(&self.pending)
        };
        if end == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&self.pending[..end]).into_owned();
        self.inner.write_all(plain(&text).as_bytes())?;
        self.pending.drain(..end);
        Ok(())
    }
}

/// How many bytes at the start of `bytes` end on a character boundary: all but an unfinished
/// UTF-8 sequence at the end (at most 3 bytes).
fn whole_prefix(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=3.min(n) {
        let b = bytes[n - back];
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back for the sequence's start
        }
        let len = match b {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if back < len { n - back } else { n };
    }
    n
}

impl<W: Write> Write for Plain<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        self.drain(false)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain(true)?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Plain<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Standard output, kept plain and buffered.
pub fn stdout() -> io::BufWriter<Plain<io::StdoutLock<'static>>> {
    io::BufWriter::new(Plain::new(io::stdout().lock()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_direction_marks_are_printed_as_escapes() {
        assert_eq!(plain("moloch\n\tok"), "moloch\n\tok");
        assert_eq!(
            plain("\u{1b}[41mMOLOCH\u{1b}[0m\r\nResult: won"),
            "\\u{1b}[41mMOLOCH\\u{1b}[0m\\u{d}\nResult: won"
        );
        assert_eq!(plain("a\u{202e}b\u{9b}c"), "a\\u{202e}b\\u{9b}c");
    }

    #[test]
    fn a_character_split_between_writes_is_kept_whole() {
        let mut out = Plain::new(Vec::new());
        let text = "é\u{202e}ü".as_bytes();
        for b in text {
            out.write_all(&[*b]).expect("write");
        }
        out.flush().expect("flush");
        assert_eq!(
            String::from_utf8(out.inner.clone()).expect("utf-8"),
            "é\\u{202e}ü"
        );
    }
}
