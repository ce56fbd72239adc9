//! A file buffer against its file on disk: the text it was loaded from, following outside changes
//! while it has no unsaved edits, and holding a different disk text as a conflict for the designer
//! to decide when both sides changed; saving checks the disk first and never overwrites silently.
//! Reading a file's text, with why it cannot be read ([`ReadError`]): a file that cannot be read
//! is never taken for an empty one.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why the text of a file could not be read. Its message names the file and what to do about it.
#[derive(Debug)]
pub enum ReadError {
    /// There is no file at the path (it was deleted or renamed).
    Missing {
        /// Where the file was looked for.
        path: PathBuf,
    },
    /// A folder is where the file should be.
    Folder {
        /// The folder's path.
        path: PathBuf,
    },
    /// The file is not UTF-8 text.
    NotText {
        /// The file.
        path: PathBuf,
    },
    /// The system refused to read it (permissions, a device error, ...).
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
}

impl ReadError {
    /// Why `path` could not be read, from the error reading it gave.
    pub fn new(path: &Path, source: io::Error) -> Self {
        let path = path.to_path_buf();
        match source.kind() {
            io::ErrorKind::NotFound => ReadError::Missing { path },
            io::ErrorKind::InvalidData => ReadError::NotText { path },
            _ if path.is_dir() => ReadError::Folder { path },
            _ => ReadError::Io { path, source },
        }
    }

    /// The file that could not be read.
    pub fn path(&self) -> &Path {
        match self {
            ReadError::Missing { path }
            | ReadError::Folder { path }
            | ReadError::NotText { path }
            | ReadError::Io { path, .. } => path,
        }
    }

    /// Whether there is simply no file there (a file that may be written afresh).
    pub fn is_missing(&self) -> bool {
        matches!(self, ReadError::Missing { .. })
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read {}: ", self.path().display())?;
        match self {
            ReadError::Missing { .. } => {
                write!(f, "there is no file there (it was deleted or renamed)")
            }
            ReadError::Folder { .. } => write!(
                f,
                "it is a folder, not a file (move the folder away or rename it, then try again)"
            ),
            ReadError::NotText { .. } => write!(
                f,
                "it is not UTF-8 text (open it in a text editor and save it as UTF-8, then try again)"
            ),
            ReadError::Io { source, .. } => {
                write!(
                    f,
                    "{source} (check that the editor may read it, then try again)"
                )
            }
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// What a buffer knows of its file on disk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiskState {
    /// The text the buffer was loaded from or last saved: the file as the editor last took it.
    pub base: String,
    /// A different text found on disk while the buffer had unsaved edits, waiting for the
    /// designer to keep theirs or take it.
    pub conflict: Option<String>,
}

/// What a buffer does about the text now on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Nothing: the disk holds what the buffer knows (or what it shows).
    Same,
    /// The buffer has no unsaved edits: it takes this text (and makes it its base once taken).
    Follow(String),
    /// Both sides changed: the disk text is kept in `conflict` until the designer chooses.
    Conflict,
}

impl DiskState {
    /// A buffer loaded from the disk text `base`.
    pub fn new(base: String) -> Self {
        DiskState {
            base,
            conflict: None,
        }
    }

    /// The file now reads `disk` while the buffer shows `text`.
    pub fn seen(&mut self, text: &str, disk: String) -> Seen {
        if disk == self.base {
            // Back to what the buffer was loaded from: nothing to decide any more.
            self.conflict = None;
            return Seen::Same;
        }
        if disk == text {
            self.base = disk;
            self.conflict = None;
            return Seen::Same;
        }
        if text == self.base {
            self.conflict = None;
            return Seen::Follow(disk);
        }
        self.conflict = Some(disk);
        Seen::Conflict
    }

    /// Whether `text` may be written over the file at `path` now: yes when the file still holds
    /// what the buffer was loaded from (or already `text`, or is gone); otherwise the disk text
    /// becomes a conflict and nothing may be written until the designer chooses. A file there
    /// that cannot be read is an error: nothing may be written over what was not seen.
    pub fn may_write(&mut self, path: &Path, text: &str) -> Result<bool, ReadError> {
        if self.conflict.is_some() {
            return Ok(false);
        }
        match read(path) {
            Ok(disk) if disk != self.base && disk != text => {
                self.conflict = Some(disk);
                Ok(false)
            }
            Ok(_) => Ok(true),
            Err(e) if e.is_missing() => Ok(true),
            Err(e) => Err(e),
        }
    }

    /// The buffer's `text` is now the file's (written, or taken from the disk).
    pub fn settled(&mut self, text: &str) {
        self.base = text.to_string();
        self.conflict = None;
    }
}

/// The text of the file at `path`, or why it cannot be read (gone, a folder, not text, refused).
pub fn read(path: &Path) -> Result<String, ReadError> {
    std::fs::read_to_string(path).map_err(|e| ReadError::new(path, e))
}

/// The part of `a` and of `b` that differ, with `context` lines around it: each side's first
/// line number (1-based) and its lines, for showing two versions of a file side by side.
pub fn differing_lines(a: &str, b: &str, context: usize) -> ((usize, String), (usize, String)) {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let head = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
    let tail = la[head..]
        .iter()
        .rev()
        .zip(lb[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let from = head.saturating_sub(context);
    let part = |lines: &[&str]| {
        let to = (lines.len() - tail + context).min(lines.len());
        (from + 1, lines[from..to.max(from)].join("\n"))
    };
    (part(&la), part(&lb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_buffer_follows_and_an_edited_one_keeps_a_conflict() {
        let mut s = DiskState::new("a".into());
        assert_eq!(s.seen("a", "b".into()), Seen::Follow("b".into()));
        s.settled("b");
        assert_eq!(s.seen("b!", "c".into()), Seen::Conflict);
        assert_eq!(s.conflict.as_deref(), Some("c"));
        // The outside change undone: nothing to decide.
        assert_eq!(s.seen("b!", "b".into()), Seen::Same);
        assert_eq!(s.conflict, None);
        // Both sides made the same change.
        assert_eq!(s.seen("b!", "b!".into()), Seen::Same);
        assert_eq!(s.base, "b!");
    }

    #[test]
    fn a_file_that_cannot_be_read_says_why_and_is_never_written_over() {
        let dir = std::env::temp_dir().join(format!("hexforge-disk-read-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("folder.toml")).expect("create the folders");
        let bytes = dir.join("bytes.toml");
        std::fs::write(&bytes, b"name = \"\xff\xfe\"\n").expect("write the bytes");
        let missing = dir.join("missing.toml");

        let e = read(&dir.join("folder.toml")).expect_err("a folder");
        assert!(matches!(e, ReadError::Folder { .. }), "{e:?}");
        assert_eq!(e.path(), dir.join("folder.toml"));
        let shown = e.to_string();
        assert!(shown.starts_with(&format!(
            "cannot read {}: ",
            dir.join("folder.toml").display()
        )));
        assert!(shown.contains("it is a folder"), "{shown}");
        let e = read(&bytes).expect_err("not UTF-8");
        assert!(matches!(e, ReadError::NotText { .. }), "{e:?}");
        assert!(e.to_string().contains("save it as UTF-8"), "{e}");
        let e = read(&missing).expect_err("missing");
        assert!(e.is_missing(), "{e:?}");

        // A buffer may write where there is no file, but not over one it cannot read.
        let mut s = DiskState::new("name = \"a\"\n".into());
        assert!(s.may_write(&missing, "x").expect("nothing there"));
        let e = s.may_write(&bytes, "x").expect_err("not text");
        assert_eq!(e.path(), bytes);
        assert!(s.may_write(&dir.join("folder.toml"), "x").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_the_differing_lines_are_shown() {
        let a = "1\n2\n3\n4\n5\n6\n7";
        let b = "1\n2\n3\nX\nY\n5\n6\n7";
        let ((fa, ta), (fb, tb)) = differing_lines(a, b, 1);
        assert_eq!((fa, ta.as_str()), (3, "3\n4\n5"));
        assert_eq!((fb, tb.as_str()), (3, "3\nX\nY\n5"));
    }
}
