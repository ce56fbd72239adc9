//! An army file open for editing: its TOML document (comments, order and formatting kept, through
//! `toml_edit`), the designer's edits to it, its problems as the content crate's validation reports
//! them after every edit, the last valid army built from it, its undo history, and its saving
//! (atomic) and autosaving.

use crate::disk::{DiskState, ReadError, Seen};
use crate::history::History;
use hexforge_content::{ArmyFile, Diagnostic};
use hexforge_core::tile::{EdgeIcons, Tile};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, Value};

/// Why a file could not be opened or saved.
#[derive(Debug)]
pub enum DocError {
    /// The file could not be read.
    Read(ReadError),
    /// What is on disk at the file's path cannot be read, so it was not written over.
    Unreadable(ReadError),
    /// The file is not TOML the editor can edit (fix it in a text editor first).
    Syntax(Diagnostic),
    /// The file (or its autosave) could not be written.
    Write {
        /// The file that could not be written.
        path: PathBuf,
        /// Why it could not be written.
        source: std::io::Error,
    },
    /// The file on disk changed since it was loaded, and the editor has other unsaved changes:
    /// nothing is written until the designer keeps theirs or takes the disk's.
    Conflict {
        /// The file that changed on disk.
        path: PathBuf,
    },
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocError::Read(e) => write!(f, "{e}"),
            DocError::Unreadable(e) => write!(
                f,
                "not saved: {e}; nothing was written over it (your changes are kept in the editor and its autosave)"
            ),
            DocError::Syntax(d) => write!(
                f,
                "{d} (fix this in a text editor: the designer edits files that read as TOML)"
            ),
            DocError::Write { path, source } => write!(
                f,
                "cannot save {}: {source} (your changes are kept in the editor and its autosave)",
                path.display()
            ),
            DocError::Conflict { path } => write!(
                f,
                "{} changed on disk since it was opened: keep your version or take the one on disk",
                path.display()
            ),
        }
    }
}

impl std::error::Error for DocError {}

/// The kinds of value a field holds, to turn typed text into TOML.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// Free text, written as a TOML string.
    Text,
    /// A whole number (text that is not one is kept as a string, for validation to report).
    Int,
    /// A list of whole numbers typed as `3, 2`.
    IntList,
}

/// The TOML value for `typed` text in a field of `kind`; `None` removes the key (an empty
/// number). Text that is not a number is kept as a string, so the validation says what is wrong
/// at its line and nothing typed is lost.
pub fn typed_value(typed: &str, kind: FieldKind) -> Option<Value> {
    let t = typed.trim();
    let number = |s: &str| -> Value {
        match s.trim().parse::<i64>() {
            Ok(n) => Value::from(n),
            Err(_) => Value::from(s.trim()),
        }
    };
    match kind {
        FieldKind::Text => Some(Value::from(typed)),
        FieldKind::Int if t.is_empty() => None,
        FieldKind::Int => Some(number(t)),
        FieldKind::IntList => {
            let items = t
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .map(number);
            let mut a: Array = items.collect();
            a.fmt();
            Some(Value::Array(a))
        }
    }
}

/// A value as the designer types it: strings without quotes, lists as `3, 2`.
pub fn value_text(item: Option<&Item>) -> String {
    fn one(v: &Value) -> String {
        match v {
            Value::String(s) => s.value().clone(),
            Value::Array(a) => a.iter().map(one).collect::<Vec<_>>().join(", "),
            Value::InlineTable(t) => t
                .iter()
                .map(|(k, v)| format!("{k} = {}", v.to_string().trim()))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string().trim().to_string(),
        }
    }
    item.and_then(Item::as_value).map(one).unwrap_or_default()
}

/// One army file open in the designer.
#[derive(Debug)]
pub struct ArmyDoc {
    /// Where the army file is on disk.
    pub path: PathBuf,
    /// The folder of the mod the file belongs to (its patches decide whether the size is checked).
    pub mod_dir: PathBuf,
    doc: DocumentMut,
    text: String,
    /// The text on disk as last read or saved, and a different one found there while this one
    /// has unsaved changes.
    pub disk: DiskState,
    problems: Vec<Diagnostic>,
    /// The last army whose tiles were all valid.
    army: Option<ArmyFile>,
    /// Whether `army` is the current text's.
    current: bool,
    /// The earlier and undone texts, for undo and redo.
    pub history: History,
    /// When the text last changed without being autosaved.
    changed: Option<Instant>,
}

impl ArmyDoc {
    /// Opens the army file at `path` of the mod in `mod_dir`.
    pub fn open(path: &Path, mod_dir: &Path) -> Result<Self, DocError> {
        let text = crate::disk::read(path).map_err(DocError::Read)?;
        Self::with_text(path, mod_dir, text.clone(), text)
    }

    /// The file at `path` whose disk text is `saved`, showing `text` (unsaved changes brought
    /// back from an autosave, or the saved text itself).
    pub fn with_text(
        path: &Path,
        mod_dir: &Path,
        saved: String,
        text: String,
    ) -> Result<Self, DocError> {
        let doc = parse(path, &text)?;
        let mut d = ArmyDoc {
            path: path.to_path_buf(),
            mod_dir: mod_dir.to_path_buf(),
            doc,
            text,
            disk: DiskState::new(saved),
            problems: Vec::new(),
            army: None,
            current: false,
            history: History::default(),
            changed: None,
        };
        d.check();
        Ok(d)
    }

    /// The TOML text as edited, comments and layout included.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the text differs from the file on disk.
    pub fn dirty(&self) -> bool {
        self.text != self.disk.base
    }

    /// The file's name, e.g. `moloch.toml`.
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    /// Every problem of the current text, as loading would report it.
    pub fn problems(&self) -> &[Diagnostic] {
        &self.problems
    }

    /// The last army whose tiles were all valid (the current text's when it is).
    pub fn army(&self) -> Option<&ArmyFile> {
        self.army.as_ref()
    }

    /// Whether the current text's tiles are all valid (the army may still be the wrong size).
    pub fn tiles_valid(&self) -> bool {
        self.current
    }

    /// The army's id in the current text.
    pub fn army_id(&self) -> String {
        value_text(self.doc.get("army").and_then(|a| a.get("id")))
    }

    fn tiles(&self) -> Option<&ArrayOfTables> {
        self.doc.get("tile")?.as_array_of_tables()
    }

    /// How many `[[tile]]` tables the file has.
    pub fn tile_count(&self) -> usize {
        self.tiles().map_or(0, ArrayOfTables::len)
    }

    /// The id of the tile table `i`.
    pub fn tile_id(&self, i: usize) -> String {
        self.value(i, &["id"])
    }

    /// The index of the tile table whose id is `id`.
    pub fn tile_index(&self, id: &str) -> Option<usize> {
        (0..self.tile_count()).find(|&i| self.tile_id(i) == id)
    }

    /// The item at `path` (e.g. `["module", "melee"]`) of tile table `i`.
    pub fn item(&self, i: usize, path: &[&str]) -> Option<&Item> {
        let mut item: &Item = self.tiles()?.get(i)?.get(path.first()?)?;
        for key in &path[1..] {
            item = item.get(key)?;
        }
        Some(item)
    }

    /// The value at `path` of tile table `i` as the designer types it.
    pub fn value(&self, i: usize, path: &[&str]) -> String {
        value_text(self.item(i, path))
    }

    /// A value of the `[army]` table as the designer types it.
    pub fn army_value(&self, key: &str) -> String {
        value_text(self.doc.get("army").and_then(|a| a.get(key)))
    }

    /// The tile table `i` as last validated: the current definition when the tiles are valid,
    /// else the last valid one of that id (so a typo never blanks the drawing).
    pub fn tile(&self, i: usize) -> Option<&Tile> {
        let army = self.army.as_ref()?;
        let id = self.tile_id(i);
        army.tiles
            .get(i)
            .filter(|t| t.id == id)
            .or_else(|| army.tiles.iter().find(|t| t.id == id))
    }

    /// The edges of tile table `i` as its `edges` list gives them, or why they cannot be read.
    pub fn edges(&self, i: usize) -> Result<[EdgeIcons; 6], String> {
        let mut edges = [EdgeIcons::default(); 6];
        let Some(item) = self.item(i, &["edges"]) else {
            return Ok(edges);
        };
        let list = item
            .as_array()
            .ok_or("`edges` is not a list: fix it to edit the edges here")?;
        for v in list {
            let s = v
                .as_str()
                .ok_or("an entry of `edges` is not a string: fix it to edit the edges here")?;
            hexforge_content::edges::apply_feature(&mut edges, s)
                .map_err(|e| format!("`{s}`: {} (fix it to edit the edges here)", e.message))?;
        }
        Ok(edges)
    }

    /// The abilities of tile table `i`: each hook name and its parameters as typed.
    pub fn abilities(&self, i: usize) -> Vec<(String, String)> {
        let Some(list) = self
            .item(i, &["ability"])
            .and_then(Item::as_array_of_tables)
        else {
            return Vec::new();
        };
        list.iter()
            .map(|t| (value_text(t.get("hook")), value_text(t.get("params"))))
            .collect()
    }

    /// Makes an edit: `f` changes the document; if the text changed, the step is recorded
    /// (joined to the last one while `group`, the field being typed in, stays the same) and the
    /// text validated again.
    fn change(&mut self, group: Option<&str>, f: impl FnOnce(&mut DocumentMut)) {
        f(&mut self.doc);
        let text = self.doc.to_string();
        if text == self.text {
            return;
        }
        self.history.record(&self.text, group);
        self.text = text;
        self.changed = Some(Instant::now());
        self.check();
    }

    /// Sets (or with `None` removes) the value at `path` of tile table `i`; sub-tables such as
    /// `[tile.module]` are made when needed and removed when emptied. The value keeps the
    /// comment and spacing of the one it replaces.
    pub fn set(&mut self, i: usize, path: &[&str], value: Option<Value>, group: Option<&str>) {
        self.change(group, |doc| {
            if let Some(t) = tile_mut(doc, i) {
                set_in(t, path, value);
            }
        });
    }

    /// Sets (or removes) a value of the `[army]` table.
    pub fn set_army(&mut self, key: &str, value: Option<Value>, group: Option<&str>) {
        self.change(group, |doc| {
            if let Some(t) = doc.get_mut("army").and_then(Item::as_table_mut) {
                set_in(t, &[key], value);
            }
        });
    }

    /// Writes the edges of tile table `i` (the `edges` list, in the format's order).
    pub fn set_edges(&mut self, i: usize, edges: &[EdgeIcons; 6]) {
        let features = hexforge_content::edges::feature_strings(edges);
        let value = (!features.is_empty()).then(|| {
            let mut a: Array = features.iter().map(String::as_str).collect();
            a.fmt();
            Value::Array(a)
        });
        self.set(i, &["edges"], value, None);
    }

    /// Binds the ability `hook` to tile table `i`.
    pub fn add_ability(&mut self, i: usize, hook: &str) {
        self.change(None, |doc| {
            let Some(t) = tile_mut(doc, i) else { return };
            if !t.contains_key("ability") {
                t.insert("ability", Item::ArrayOfTables(ArrayOfTables::new()));
            }
            if let Some(list) = t.get_mut("ability").and_then(Item::as_array_of_tables_mut) {
                let mut a = Table::new();
                a.insert("hook", toml_edit::value(hook));
                list.push(a);
            }
        });
    }

    /// Removes ability `k` of tile table `i`.
    pub fn remove_ability(&mut self, i: usize, k: usize) {
        self.change(None, |doc| {
            let Some(t) = tile_mut(doc, i) else { return };
            let Some(list) = t.get_mut("ability").and_then(Item::as_array_of_tables_mut) else {
                return;
            };
            if k < list.len() {
                list.remove(k);
            }
            if list.is_empty() {
                t.remove("ability");
            }
        });
    }

    /// Sets the hook name of ability `k` of tile table `i`.
    pub fn set_ability_hook(&mut self, i: usize, k: usize, hook: &str, group: Option<&str>) {
        self.change(group, |doc| {
            if let Some(a) = ability_mut(doc, i, k) {
                set_in(a, &["hook"], Some(Value::from(hook)));
            }
        });
    }

    /// Sets the parameters of ability `k` of tile table `i` from typed text `slots = 1, x = 2`
    /// (empty removes them); an error says what does not read as TOML.
    pub fn set_ability_params(
        &mut self,
        i: usize,
        k: usize,
        typed: &str,
        group: Option<&str>,
    ) -> Result<(), String> {
        let value = if typed.trim().is_empty() {
            None
        } else {
            let doc: DocumentMut = format!("params = {{ {typed} }}")
                .parse()
                .map_err(|_| format!("`{typed}` is not `name = value, ...` (e.g. `slots = 1`)"))?;
            let table: InlineTable = doc
                .get("params")
                .and_then(Item::as_inline_table)
                .cloned()
                .ok_or("write the parameters as `name = value, ...`")?;
            Some(Value::InlineTable(table))
        };
        self.change(group, |doc| {
            if let Some(a) = ability_mut(doc, i, k) {
                set_in(a, &["params"], value);
            }
        });
        Ok(())
    }

    /// An id not used by any tile of the file, from `base` (`base`, `base_2`, ...).
    pub fn free_tile_id(&self, base: &str) -> String {
        let used = |id: &str| self.tile_index(id).is_some();
        if !used(base) {
            return base.to_string();
        }
        (2..)
            .map(|n| format!("{base}_{n}"))
            .find(|id| !used(id))
            .unwrap_or_else(|| base.to_string())
    }

    /// Adds a plain tile of `kind` (`soldier`, `module` or `instant`) at the end, valid as it is;
    /// returns its index.
    pub fn add_tile(&mut self, kind: &str) -> usize {
        let id = self.free_tile_id(&format!("new_{kind}"));
        let at = self.tile_count();
        let text = match kind {
            "module" => format!(
                "[[tile]]\nid = \"{id}\"\nname = \"New module\"\nkind = \"module\"\ncount = 1\nedges = [\"link@0\"]\n\n[tile.module]\nmelee = 1\n"
            ),
            "instant" => format!(
                "[[tile]]\nid = \"{id}\"\nname = \"New instant\"\nkind = \"instant\"\ncount = 1\n\n[[tile.ability]]\nhook = \"call_battle\"\n"
            ),
            _ => format!(
                "[[tile]]\nid = \"{id}\"\nname = \"New soldier\"\nkind = \"soldier\"\ncount = 1\ninitiative = [2]\nedges = [\"melee:1@0\"]\n"
            ),
        };
        let table = text
            .parse::<DocumentMut>()
            .ok()
            .and_then(|d| d.get("tile")?.as_array_of_tables()?.get(0).cloned());
        if let Some(mut table) = table {
            table.decor_mut().set_prefix("\n");
            self.change(None, |doc| insert_tile(doc, at, table));
        }
        at
    }

    /// Adds a copy of tile table `i` right after it, with a free id; returns the copy's index.
    pub fn duplicate_tile(&mut self, i: usize) -> Option<usize> {
        let mut table = self.tiles()?.get(i)?.clone();
        let id = self.free_tile_id(&format!("{}_copy", self.tile_id(i)));
        let name = format!("{} (copy)", self.value(i, &["name"]));
        set_in(&mut table, &["id"], Some(Value::from(id.as_str())));
        set_in(&mut table, &["name"], Some(Value::from(name.as_str())));
        table.decor_mut().set_prefix("\n");
        self.change(None, |doc| insert_tile(doc, i + 1, table));
        Some(i + 1)
    }

    /// Removes tile table `i`.
    pub fn delete_tile(&mut self, i: usize) {
        self.change(None, |doc| {
            if let Some(list) = doc.get_mut("tile").and_then(Item::as_array_of_tables_mut)
                && i < list.len()
            {
                list.remove(i);
            }
        });
    }

    /// Ends the step being typed (the field lost the focus).
    pub fn seal(&mut self) {
        self.history.seal();
    }

    /// Goes back one step; false when there is none.
    pub fn undo(&mut self) -> bool {
        match self.history.undo(&self.text) {
            Some(t) => self.replace(t),
            None => false,
        }
    }

    /// Goes forward one step; false when there is none.
    pub fn redo(&mut self) -> bool {
        match self.history.redo(&self.text) {
            Some(t) => self.replace(t),
            None => false,
        }
    }

    fn replace(&mut self, text: String) -> bool {
        match text.parse::<DocumentMut>() {
            Ok(doc) => {
                self.doc = doc;
                self.text = text;
                self.changed = Some(Instant::now());
                self.check();
                true
            }
            Err(_) => false,
        }
    }

    /// Shows `text` (unsaved changes brought back from an autosave) as an undoable step; false
    /// (and nothing changed) when it does not read as TOML.
    pub fn bring_back(&mut self, text: String) -> bool {
        let before = self.text.clone();
        if text == before || !self.replace(text) {
            return false;
        }
        self.history.record(&before, None);
        true
    }

    /// Drops the unsaved changes (as an undoable step) and the autosave: the text goes back to
    /// the file as it is on disk (a newer text found there while editing included).
    pub fn discard(&mut self) -> std::io::Result<()> {
        // A newer text found on disk is the file's now: dropping the changes goes back to it.
        if let Some(disk) = self.disk.conflict.take()
            && parse(&self.path, &disk).is_ok()
        {
            self.disk.settled(&disk);
        }
        if self.dirty() {
            let saved = self.disk.base.clone();
            self.history.record(&self.text, None);
            self.replace(saved);
        }
        self.changed = None;
        crate::autosave::remove(&self.path)
    }

    /// Writes the text to the file (a temporary file, then a rename) and removes the autosave;
    /// refused with [`DocError::Conflict`] when the file changed on disk since it was loaded, and
    /// with [`DocError::Unreadable`] when what is there cannot be read.
    pub fn save(&mut self) -> Result<(), DocError> {
        if !self
            .disk
            .may_write(&self.path, &self.text)
            .map_err(DocError::Unreadable)?
        {
            return Err(DocError::Conflict {
                path: self.path.clone(),
            });
        }
        self.write()
    }

    /// The designer keeps their version over a changed file: it is written.
    pub fn keep_mine(&mut self) -> Result<(), DocError> {
        self.disk.conflict = None;
        self.write()
    }

    /// The designer takes the version on disk over their unsaved changes (an undoable step); an
    /// error when it does not read as TOML (nothing changes then).
    pub fn take_disk(&mut self) -> Result<(), DocError> {
        let Some(disk) = self.disk.conflict.clone() else {
            return Ok(());
        };
        parse(&self.path, &disk)?;
        let before = self.text.clone();
        if self.replace(disk.clone()) {
            self.history.record(&before, None);
        }
        self.disk.settled(&disk);
        self.changed = Some(Instant::now());
        Ok(())
    }

    fn write(&mut self) -> Result<(), DocError> {
        hexforge_content::write_atomically(&self.path, &self.text).map_err(|source| {
            DocError::Write {
                path: self.path.clone(),
                source,
            }
        })?;
        self.disk.settled(&self.text);
        self.changed = None;
        self.history.seal();
        crate::autosave::remove(&self.path).map_err(|source| DocError::Write {
            path: crate::autosave::path_for(&self.path),
            source,
        })
    }

    /// Writes the autosave when it is due (a moment after the last edit): the unsaved text, or
    /// no autosave when nothing is unsaved.
    pub fn autosave(&mut self, now: Instant) -> std::io::Result<()> {
        if !crate::autosave::due(self.changed, now) {
            return Ok(());
        }
        self.changed = None;
        if self.dirty() {
            crate::autosave::write(&self.path, &self.text)
        } else {
            crate::autosave::remove(&self.path)
        }
    }

    /// Whether an autosave is waiting to be written.
    pub fn autosave_waiting(&self) -> bool {
        self.changed.is_some()
    }

    /// The file on disk now reads `disk` (saved from elsewhere, or by this editor): a file without
    /// unsaved changes follows it (as an undoable step); one with unsaved changes keeps them and
    /// holds the disk text as a conflict (as does a clean one when the disk text is not TOML).
    pub fn disk_changed(&mut self, disk: String) {
        if let Seen::Follow(disk) = self.disk.seen(&self.text, disk) {
            let before = self.text.clone();
            if self.replace(disk.clone()) {
                self.history.record(&before, None);
                self.disk.settled(&disk);
                self.changed = None;
            } else {
                self.disk.conflict = Some(disk);
            }
        }
    }

    /// The text found on disk that differs from this one's while it has unsaved changes.
    pub fn conflict(&self) -> Option<&str> {
        self.disk.conflict.as_deref()
    }

    fn check(&mut self) {
        let c = hexforge_content::check_army_text(&self.path, &self.text, &self.mod_dir);
        self.problems = c.problems;
        self.current = c.army.is_some();
        if let Some(a) = c.army {
            self.army = Some(a);
        }
    }
}

fn parse(path: &Path, text: &str) -> Result<DocumentMut, DocError> {
    text.parse::<DocumentMut>().map_err(|e| {
        let (line, column) = e.span().map_or((0, 0), |s| {
            let src = hexforge_content::SourceText::new(path, text);
            src.line_col(s.start)
        });
        DocError::Syntax(Diagnostic {
            file: path.to_path_buf(),
            line,
            column,
            message: e.message().trim().to_string(),
        })
    })
}

fn tile_mut(doc: &mut DocumentMut, i: usize) -> Option<&mut Table> {
    doc.get_mut("tile")?.as_array_of_tables_mut()?.get_mut(i)
}

fn ability_mut(doc: &mut DocumentMut, i: usize, k: usize) -> Option<&mut Table> {
    tile_mut(doc, i)?
        .get_mut("ability")?
        .as_array_of_tables_mut()?
        .get_mut(k)
}

/// Inserts `table` as tile table `at` (the list is made when the file has none).
fn insert_tile(doc: &mut DocumentMut, at: usize, table: Table) {
    if !doc.contains_key("tile") {
        doc.insert("tile", Item::ArrayOfTables(ArrayOfTables::new()));
    }
    if let Some(list) = doc.get_mut("tile").and_then(Item::as_array_of_tables_mut) {
        list.insert(at.min(list.len()), table);
    }
    renumber(doc);
}

/// Numbers the tables in the order they are nested (a tile, then its sub-tables, then the next
/// tile), which is how the file lists them: an inserted table keeps the numbers of the one it was
/// copied from, and would otherwise be written beside it.
fn renumber(doc: &mut DocumentMut) {
    fn walk(t: &mut Table, n: &mut isize) {
        for (_, item) in t.iter_mut() {
            let subs: Vec<&mut Table> = match item {
                Item::Table(sub) => vec![sub],
                Item::ArrayOfTables(list) => list.iter_mut().collect(),
                _ => Vec::new(),
            };
            for sub in subs {
                *n += 1;
                sub.set_position(Some(*n));
                walk(sub, n);
            }
        }
    }
    let mut n = 0;
    walk(doc.as_table_mut(), &mut n);
}

/// Sets `path` below `table` to `value` (removes it with `None`), making sub-tables on the way
/// and removing those left empty; a replaced value keeps its comment and spacing.
pub(crate) fn set_in(table: &mut Table, path: &[&str], value: Option<Value>) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let Some((first, rest)) = parents.split_first() else {
        match (value, table.get_mut(last)) {
            // Replaced in place: the key keeps the comments above it (`Table::insert` would
            // reset them), the value its own comment and spacing.
            (Some(mut v), Some(Item::Value(old))) => {
                keep_decor(old, &mut v);
                *old = v;
            }
            (Some(v), Some(item)) => *item = Item::Value(v),
            (Some(v), None) => {
                table.insert(last, Item::Value(v));
            }
            (None, _) => remove_keeping_comments(table, last),
        }
        return;
    };
    if value.is_none() && !table.contains_key(first) {
        return;
    }
    // A sub-table written inline (`module = { melee = 1 }`) becomes a table of its own, its
    // entries kept.
    if let Some(item) = table.get_mut(first)
        && let Some(inline) = item.as_inline_table().cloned()
    {
        *item = Item::Table(inline.into_table());
    }
    if !table.get(first).is_some_and(Item::is_table) {
        table.insert(first, Item::Table(Table::new()));
    }
    if let Some(sub) = table.get_mut(first).and_then(Item::as_table_mut) {
        set_in(sub, &[rest, &[*last]].concat(), value);
        if sub.is_empty() {
            remove_keeping_comments(table, first);
        }
    }
}

/// Gives `new`, which replaces `old`, the comments and spacing of `old`: its own, and for a list
/// those of each entry it still has (a comment after an entry of a list written one entry a line
/// stays with that entry), the list's layout and what follows its last entry.
fn keep_decor(old: &Value, new: &mut Value) {
    *new.decor_mut() = old.decor().clone();
    let (Value::Array(old), Value::Array(new)) = (old, new) else {
        return;
    };
    let same = |a: &Value, b: &Value| {
        a.type_name() == b.type_name()
            && a.as_str() == b.as_str()
            && a.as_integer() == b.as_integer()
            && a.as_bool() == b.as_bool()
    };
    // A list written one entry a line keeps that layout for its new entries.
    let line_prefix = old
        .iter()
        .filter_map(|v| v.decor().prefix()?.as_str())
        .find(|p| p.contains('\n'))
        .map(str::to_string);
    let mut used = vec![false; old.len()];
    // A list on one line has no comments between its entries: `fmt`'s spacing is right.
    let Some(line_prefix) = line_prefix else {
        return;
    };
    for v in new.iter_mut() {
        let found = old
            .iter()
            .enumerate()
            .find(|(k, o)| !used[*k] && same(o, v))
            .map(|(k, o)| (k, o.decor().clone()));
        match found {
            Some((k, decor)) => {
                used[k] = true;
                *v.decor_mut() = decor;
            }
            None => v.decor_mut().set_prefix(line_prefix.as_str()),
        }
    }
    new.set_trailing(old.trailing().as_str().unwrap_or_default());
    new.set_trailing_comma(old.trailing_comma());
    // Comments written after entries that went away stay, after the last entry.
    let gone: Vec<String> = old
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .flat_map(|(o, _)| [o.decor().prefix(), o.decor().suffix()])
        .filter_map(|r| r?.as_str())
        .filter(|s| s.contains('#'))
        .map(|s| s.trim_end_matches([' ', '\t']).to_string())
        .collect();
    if !gone.is_empty() {
        let trailing = format!(
            "{}{}",
            gone.concat(),
            new.trailing().as_str().unwrap_or_default()
        );
        let trailing = if trailing.contains('\n') || !trailing.contains('#') {
            trailing
        } else {
            format!("{trailing}\n")
        };
        new.set_trailing(trailing);
    }
}

/// Removes `key` (a value or a sub-table) from `table` without losing the comments written above
/// it or after its value: they move to the next key of the table (or the next table's header),
/// else after the value before it, else above the table's own header.
fn remove_keeping_comments(table: &mut Table, key: &str) {
    let Some(at) = table.iter().position(|(k, _)| k == key) else {
        return;
    };
    // A value's comments are its key's and its own; a sub-table's, its header's.
    let (prefix, suffix) = match table.get(key) {
        Some(Item::Table(t)) => (t.decor().prefix(), None),
        Some(Item::Value(v)) => (
            table.key(key).and_then(|k| k.leaf_decor().prefix()),
            v.decor().suffix(),
        ),
        _ => (None, None),
    };
    let mut comments = prefix
        .and_then(|p| p.as_str())
        .filter(|p| p.contains('#'))
        .map(|p| p.trim_end_matches([' ', '\t']).to_string())
        .unwrap_or_default();
    if let Some(after) = suffix.and_then(|s| s.as_str()).filter(|s| s.contains('#')) {
        comments.push_str(after.trim());
        comments.push('\n');
    }
    table.remove(key);
    if comments.is_empty() {
        return;
    }
    let prepend = |decor: &mut toml_edit::Decor| {
        let old = decor
            .prefix()
            .and_then(|p| p.as_str())
            .unwrap_or_default()
            .to_string();
        decor.set_prefix(format!("{comments}{old}"));
    };
    let next = table.iter().nth(at).map(|(k, _)| k.to_string());
    if let Some(next) = next {
        match table.get_mut(&next) {
            Some(Item::Value(_)) => {
                if let Some(mut k) = table.key_mut(&next) {
                    prepend(k.leaf_decor_mut());
                }
                return;
            }
            Some(Item::Table(t)) => return prepend(t.decor_mut()),
            Some(Item::ArrayOfTables(list)) => {
                if let Some(t) = list.get_mut(0) {
                    return prepend(t.decor_mut());
                }
            }
            _ => {}
        }
    }
    // The last key: the comments go after the value of the key before it.
    let before = at
        .checked_sub(1)
        .and_then(|b| table.iter().nth(b).map(|(k, _)| k.to_string()));
    if let Some(Item::Value(v)) = before.and_then(|b| table.get_mut(&b)) {
        let suffix = v
            .decor()
            .suffix()
            .and_then(|s| s.as_str())
            .unwrap_or_default()
            .to_string();
        let comments = comments.trim_end_matches('\n');
        let sep = if comments.starts_with('\n') { "" } else { "\n" };
        v.decor_mut().set_suffix(format!("{suffix}{sep}{comments}"));
        return;
    }
    // Nothing left in the table: above its header (they move on if the table goes too).
    let decor = table.decor_mut();
    let old = decor
        .prefix()
        .and_then(|p| p.as_str())
        .unwrap_or_default()
        .to_string();
    decor.set_prefix(format!("{old}{comments}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARMY: &str = r#"# A fan army.
[army]
id = "fan"   # the id
name = "Fan"
size = 3

[[tile]]
id = "hq"
name = "HQ"
kind = "hq"
count = 1
initiative = [0]
edges = ["melee:1@0,1,2,3,4,5"]

[tile.aura]
melee = 1

# The gunner shoots.
[[tile]]
id = "gunner"
name = "Gunner"
kind = "soldier"
count = 2
initiative = [3]
edges = ["ranged:1@0", "armor@0"]   # front only
"#;

    fn doc(text: &str) -> ArmyDoc {
        let dir = std::env::temp_dir();
        ArmyDoc::with_text(&dir.join("fan.toml"), &dir, text.into(), text.into())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn an_edit_changes_only_its_line_and_keeps_every_comment() {
        let mut d = doc(ARMY);
        assert!(d.problems().is_empty(), "{:?}", d.problems());
        assert!(!d.dirty());
        let mut edges = d.edges(1).expect("edges read");
        edges[0].melee = 2;
        edges[3].net = true;
        d.set_edges(1, &edges);
        let want = ARMY.replace(
            r#"edges = ["ranged:1@0", "armor@0"]   # front only"#,
            r#"edges = ["melee:2@0", "ranged:1@0", "armor@0", "net@3"]   # front only"#,
        );
        assert_eq!(d.text(), want);
        assert!(d.dirty());
        assert_eq!(d.tile(1).map(|t| t.edges[0].melee), Some(2));
        d.set(1, &["name"], Some(Value::from("Shooter")), Some("name"));
        assert!(d.text().contains("name = \"Shooter\"\n"));
        assert_eq!(d.tile(1).map(|t| t.name.as_str()), Some("Shooter"));
        d.set_army("name", Some(Value::from("Fans")), None);
        assert!(d.text().contains("name = \"Fans\"\n") && d.text().contains("# the id"));
    }

    #[test]
    fn a_list_written_one_entry_a_line_keeps_its_comments_and_layout() {
        let text = ARMY.replace(
            r#"edges = ["ranged:1@0", "armor@0"]   # front only"#,
            "edges = [\n    \"ranged:1@0\", # the gun\n    \"armor@0\",   # plating\n]   # front only",
        );
        let mut d = doc(&text);
        let mut edges = d.edges(1).expect("edges read");
        edges[3].net = true;
        edges[0].armor = false;
        d.set_edges(1, &edges);
        for kept in ["# the gun", "# plating", "]   # front only"] {
            assert!(d.text().contains(kept), "{kept}: {}", d.text());
        }
        assert!(d.text().contains("\"net@3\""), "{}", d.text());
        assert!(d.problems().is_empty(), "{:?}", d.problems());
    }

    #[test]
    fn a_bad_value_is_a_problem_at_its_line_and_the_last_valid_tile_stays() {
        let mut d = doc(ARMY);
        d.set(
            1,
            &["count"],
            typed_value("-1", FieldKind::Int),
            Some("count"),
        );
        let p = &d.problems()[0];
        assert!(p.message.contains("count -1 is out of range"), "{p}");
        assert_eq!(p.line, 23, "{p}");
        assert_eq!(d.tile(1).map(|t| t.count), Some(2), "the last valid tile");
        d.set(
            1,
            &["count"],
            typed_value("x", FieldKind::Int),
            Some("count"),
        );
        assert!(d.text().contains("count = \"x\""), "kept as typed");
        assert!(!d.problems().is_empty());
        d.set(
            1,
            &["count"],
            typed_value("1", FieldKind::Int),
            Some("count"),
        );
        assert!(
            d.problems()[0].message.contains("add up to 2"),
            "{:?}",
            d.problems()
        );
        assert!(d.tiles_valid());
        assert_eq!(d.tile(1).map(|t| t.count), Some(1));
        // One step for the whole typing in the count field.
        assert!(d.undo());
        assert_eq!(d.text(), ARMY);
        assert!(!d.undo());
        assert!(d.redo());
        assert!(d.text().contains("count = 1\n"));
    }

    #[test]
    fn sub_tables_and_abilities_are_made_and_removed() {
        let mut d = doc(ARMY);
        d.set(
            0,
            &["aura", "ranged"],
            typed_value("1", FieldKind::Int),
            None,
        );
        assert!(
            d.text().contains("[tile.aura]\nmelee = 1\nranged = 1\n"),
            "{}",
            d.text()
        );
        d.set(
            1,
            &["initiative"],
            typed_value("3, 2", FieldKind::IntList),
            None,
        );
        assert!(d.text().contains("initiative = [3, 2]\n"));
        d.add_ability(1, "line_shot");
        d.set_ability_params(1, 0, "slots = 1", None)
            .expect("params read");
        assert!(
            d.text()
                .ends_with("[[tile.ability]]\nhook = \"line_shot\"\nparams = { slots = 1 }\n"),
            "{}",
            d.text()
        );
        assert_eq!(
            d.abilities(1),
            [("line_shot".to_string(), "slots = 1".to_string())]
        );
        assert!(d.set_ability_params(1, 0, "slots = ", None).is_err());
        d.set_ability_hook(1, 0, "extra_attack", None);
        assert_eq!(
            d.abilities(1),
            [("extra_attack".to_string(), "slots = 1".to_string())],
            "another hook in its place, the parameters kept"
        );
        d.remove_ability(1, 0);
        assert!(!d.text().contains("tile.ability"));
        d.set(0, &["aura", "ranged"], None, None);
        d.set(0, &["aura", "melee"], None, None);
        assert!(!d.text().contains("[tile.aura]"));
    }

    #[test]
    fn a_sub_table_written_inline_keeps_its_entries() {
        let text = ARMY.replace("[tile.aura]\nmelee = 1\n", "aura = { melee = 1 }\n");
        let text = text.replace(
            "edges = [\"melee:1@0,1,2,3,4,5\"]\n\n",
            "edges = [\"melee:1@0,1,2,3,4,5\"]\n",
        );
        let mut d = doc(&text);
        assert!(d.problems().is_empty(), "{:?} {text}", d.problems());
        d.set(
            0,
            &["aura", "ranged"],
            typed_value("1", FieldKind::Int),
            None,
        );
        assert_eq!(d.value(0, &["aura", "melee"]), "1", "{}", d.text());
        assert_eq!(d.value(0, &["aura", "ranged"]), "1", "{}", d.text());
        assert!(d.problems().is_empty(), "{:?}", d.problems());
    }

    #[test]
    fn tiles_are_added_duplicated_and_deleted_in_place() {
        let mut d = doc(ARMY);
        let copy = d.duplicate_tile(0).expect("the HQ is there");
        assert_eq!(copy, 1);
        assert_eq!(d.tile_id(1), "hq_copy");
        assert_eq!(d.tile_id(2), "gunner");
        let text = d.text().to_string();
        assert!(
            text.find("id = \"hq_copy\"") < text.find("# The gunner shoots."),
            "{text}"
        );
        assert!(
            d.problems().iter().any(|p| p.message.contains("second HQ")),
            "{:?} {}",
            d.problems(),
            d.text()
        );
        d.delete_tile(1);
        assert_eq!(d.text(), ARMY);
        let i = d.add_tile("module");
        assert_eq!((i, d.tile_id(2)), (2, "new_module".to_string()));
        assert!(
            d.text().ends_with("[tile.module]\nmelee = 1\n"),
            "{}",
            d.text()
        );
        let i = d.add_tile("soldier");
        // 5 tiles of 3: the new tile is drawn, and the size is a problem.
        assert_eq!(d.tile(i).map(|t| t.name.as_str()), Some("New soldier"));
        assert!(
            d.problems()[0].message.contains("add up to 5"),
            "{:?}",
            d.problems()
        );
        d.set_army("size", typed_value("5", FieldKind::Int), None);
        assert!(d.problems().is_empty(), "{:?}", d.problems());
    }

    #[test]
    fn saving_writes_the_text_and_discarding_goes_back_to_it() {
        let dir = std::env::temp_dir().join(format!("hexforge-doc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the folder");
        let path = dir.join("fan.toml");
        std::fs::write(&path, ARMY).expect("write");
        let mut d = ArmyDoc::open(&path, &dir).unwrap_or_else(|e| panic!("{e}"));
        d.set(1, &["name"], Some(Value::from("Shooter")), None);
        d.autosave(Instant::now() + crate::autosave::DELAY)
            .expect("autosave");
        let autosaved = std::fs::read_to_string(crate::autosave::path_for(&path)).expect("read");
        assert_eq!(autosaved, d.text());
        d.save().unwrap_or_else(|e| panic!("{e}"));
        assert!(!d.dirty());
        assert_eq!(std::fs::read_to_string(&path).expect("read"), d.text());
        assert!(!crate::autosave::path_for(&path).exists());
        d.set(1, &["name"], Some(Value::from("Gone")), None);
        d.discard().expect("discard");
        assert!(!d.dirty() && d.text().contains("Shooter"));
        assert!(d.undo(), "discarding can be undone");
        assert!(d.text().contains("Gone"));
        // A save from elsewhere: a file with unsaved changes keeps them and holds the disk's.
        std::fs::write(&path, ARMY).expect("write");
        d.disk_changed(ARMY.into());
        assert!(d.conflict() == Some(ARMY) && d.text().contains("Gone"));
        assert!(matches!(d.save(), Err(DocError::Conflict { .. })));
        assert_eq!(std::fs::read_to_string(&path).expect("read"), ARMY);
        // Dropping the changes then takes the file as it is on disk now.
        d.discard().expect("discard");
        assert_eq!(d.text(), ARMY);
        assert!(!d.dirty() && d.conflict().is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_that_is_not_toml_is_refused_with_its_line() {
        let dir = std::env::temp_dir();
        let e = ArmyDoc::with_text(&dir.join("x.toml"), &dir, String::new(), "[army\n".into())
            .expect_err("not TOML");
        assert!(matches!(e, DocError::Syntax(ref d) if d.line == 1), "{e}");
    }

    #[test]
    fn edge_features_group_edges_by_feature() {
        let mut e = [EdgeIcons::default(); 6];
        e[0].melee = 1;
        e[1].melee = 1;
        e[2].melee = 2;
        e[0].armor = true;
        e[4].armor = true;
        e[5].link = true;
        assert_eq!(
            hexforge_content::edges::feature_strings(&e),
            ["melee:1@0,1", "melee:2@2", "armor@0,4", "link@5"]
        );
    }
}
