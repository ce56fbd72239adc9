//! Undo and redo for one open file: the states of its text before each edit, with the edits made
//! while one field keeps the focus (typing a name, letter by letter) kept as one step.

/// How many steps are kept; the oldest go first.
pub const LIMIT: usize = 500;

/// The undo and redo stacks of one file.
#[derive(Clone, Debug, Default)]
pub struct History {
    undo: Vec<String>,
    redo: Vec<String>,
    /// The field whose edits are being joined into the last step.
    group: Option<String>,
}

impl History {
    /// Notes the text `before` an edit. An edit of the same `group` (a field that kept the focus)
    /// as the previous one joins its step instead of making a new one. Any edit drops the redo.
    pub fn record(&mut self, before: &str, group: Option<&str>) {
        self.redo.clear();
        if group.is_some() && self.group.as_deref() == group {
            return;
        }
        self.undo.push(before.to_string());
        if self.undo.len() > LIMIT {
            self.undo.remove(0);
        }
        self.group = group.map(str::to_string);
    }

    /// Ends the step being joined (the field lost the focus): the next edit is a step of its own.
    pub fn seal(&mut self) {
        self.group = None;
    }

    /// The text to go back to from `current`, which becomes redoable.
    pub fn undo(&mut self, current: &str) -> Option<String> {
        let before = self.undo.pop()?;
        self.redo.push(current.to_string());
        self.group = None;
        Some(before)
    }

    /// The text to go forward to from `current`, which becomes undoable again.
    pub fn redo(&mut self, current: &str) -> Option<String> {
        let after = self.redo.pop()?;
        self.undo.push(current.to_string());
        self.group = None;
        Some(after)
    }

    /// Whether there is an earlier state to go back to.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// Whether there is an undone state to go forward to.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_and_redo_walk_the_states_and_an_edit_drops_the_redo() {
        let mut h = History::default();
        h.record("a", None);
        h.record("ab", None);
        assert_eq!(h.undo("abc").as_deref(), Some("ab"));
        assert_eq!(h.undo("ab").as_deref(), Some("a"));
        assert_eq!(h.undo("a"), None);
        assert_eq!(h.redo("a").as_deref(), Some("ab"));
        assert!(h.can_redo());
        h.record("ab", None);
        assert!(!h.can_redo(), "a new edit drops what could be redone");
        assert_eq!(h.undo("abX").as_deref(), Some("ab"));
    }

    #[test]
    fn typing_in_one_field_is_one_step_until_it_loses_the_focus() {
        let mut h = History::default();
        h.record("n", Some("name"));
        h.record("na", Some("name"));
        h.record("nam", Some("name"));
        assert_eq!(h.undo("name").as_deref(), Some("n"));
        assert!(!h.can_undo());
        let mut h = History::default();
        h.record("n", Some("name"));
        h.seal();
        h.record("na", Some("name"));
        h.record("nam", Some("count"));
        assert_eq!(h.undo("x").as_deref(), Some("nam"));
        assert_eq!(h.undo("nam").as_deref(), Some("na"));
        assert_eq!(h.undo("na").as_deref(), Some("n"));
    }

    #[test]
    fn the_oldest_steps_go_past_the_limit() {
        let mut h = History::default();
        for i in 0..LIMIT + 5 {
            h.record(&i.to_string(), None);
        }
        let mut last = None;
        let mut current = "end".to_string();
        while let Some(t) = h.undo(&current) {
            current = t.clone();
            last = Some(t);
        }
        assert_eq!(last.as_deref(), Some("5"));
    }
}
