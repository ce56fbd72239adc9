//! A file buffer against its file on disk: the text it was loaded from, following outside changes
//! while it has no unsaved edits, and holding a different disk text as a conflict for the designer
//! to decide when both sides changed; saving checks the disk first and never overwrites silently.

use std::path::Path;

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
    /// becomes a conflict and nothing may be written until the designer chooses.
    pub fn may_write(&mut self, path: &Path, text: &str) -> bool {
        if self.conflict.is_some() {
            return false;
        }
        match read(path) {
            Some(disk) if disk != self.base && disk != text => {
                self.conflict = Some(disk);
                false
            }
            _ => true,
        }
    }

    /// The buffer's `text` is now the file's (written, or taken from the disk).
    pub fn settled(&mut self, text: &str) {
        self.base = text.to_string();
        self.conflict = None;
    }
}

/// The text of the file at `path`, or `None` when it cannot be read (gone, or not text).
pub fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
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
    fn only_the_differing_lines_are_shown() {
        let a = "1\n2\n3\n4\n5\n6\n7";
        let b = "1\n2\n3\nX\nY\n5\n6\n7";
        let ((fa, ta), (fb, tb)) = differing_lines(a, b, 1);
        assert_eq!((fa, ta.as_str()), (3, "3\n4\n5"));
        assert_eq!((fb, tb.as_str()), (3, "3\nX\nY\n5"));
    }
}
