//! The Designer tab's editing: the tile designer (the tile drawn large, an edge clicked to edit
//! it, every field and ability edited with problems shown as you type) and the army editor (the
//! deck with totals, size warning, new, duplicated and deleted tiles), over the army files open
//! as documents; saving, undo and redo, autosaves offered back, new armies and abilities, and
//! the questions asked before anything is dropped.

use crate::document::{ArmyDoc, FieldKind, typed_value};
use crate::lua_view::LuaAction;
pub use crate::lua_view::LuaEdit;
use crate::{Editor, army_view, autosave, new_army, spot, tile_view};
use hexforge_core::TileRef;
use std::path::{Path, PathBuf};
use std::time::Instant;
use toml_edit::Value;

/// What the designer has open: an army file, and one of its tiles (by its place in the file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Open {
    /// The army file, as opened.
    pub file: PathBuf,
    /// The tile table shown in the tile designer (its index in the file); `None`: the army editor.
    pub tile: Option<usize>,
}

/// A question asked before something is dropped or deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confirm {
    /// Delete a tile of an open army file (undo brings it back).
    DeleteTile {
        /// The army file the tile is in.
        file: PathBuf,
        /// The tile table's index in the file.
        tile: usize,
    },
    /// Delete an army file from disk (and from its mod's manifest).
    DeleteArmy {
        /// The army file to delete.
        file: PathBuf,
    },
    /// Drop the unsaved changes of a file (and its autosave).
    Discard {
        /// The file whose changes are dropped.
        file: PathBuf,
    },
    /// The window is closing with unsaved changes.
    Quit,
}

/// The designer's state beside the open documents.
#[derive(Default)]
pub struct Designer {
    /// The army file and tile being edited.
    pub open: Option<Open>,
    /// The edge being edited (0 front, clockwise) of the open tile.
    pub edge: Option<usize>,
    /// The field being typed in and its text (kept while it has the focus, so the cursor stays
    /// where it is whatever the document makes of the text).
    focus: Option<(String, String)>,
    /// The name typed for a new ability.
    pub new_hook: String,
    /// The "New army…" form while it is open.
    pub form: Option<new_army::Form>,
    /// The question waiting for an answer before something is dropped or deleted.
    pub confirm: Option<Confirm>,
    /// What the last action did, or why it failed.
    pub note: Option<String>,
    /// The Lua file open in the text editor below the tile.
    pub lua: Option<LuaEdit>,
    /// A parameters field whose text is not TOML (its key and why).
    params_error: Option<(String, String)>,
    /// The army to open once the next reload has loaded it (a new army).
    pending: Option<String>,
    /// The designer agreed to close the window with unsaved changes (they stay autosaved).
    pub quit: bool,
    /// The designer asked for a new ability named `new_hook`.
    pending_hook: bool,
}

impl Editor {
    /// Shows the tile `t` in the designer: its army file opens as a document (a tile a patch
    /// made, with no file of its own, is shown read-only).
    pub fn select_tile(&mut self, t: TileRef) {
        let tile = self.loaded.catalog.get(t);
        let (army, id) = (tile.army.clone(), tile.id.clone());
        self.selected = Some(t);
        self.army = Some(army.clone());
        self.source = None;
        self.designer.edge = None;
        self.designer.open = self.open_army_file(&army).and_then(|file| {
            let d = self.doc(&file)?;
            Some(Open {
                tile: Some(self.docs[d].tile_index(&id)?),
                file,
            })
        });
    }

    /// Shows the army `id` in the army editor.
    pub fn select_army(&mut self, id: &str) {
        self.army = Some(id.to_string());
        self.selected = None;
        self.source = None;
        self.designer.open = self
            .open_army_file(id)
            .map(|file| Open { file, tile: None });
    }

    /// Opens the army file of the army `id` as a document (once); `None` when the army has no
    /// file of its own or it cannot be opened (the status says why).
    fn open_army_file(&mut self, id: &str) -> Option<PathBuf> {
        let (file, mod_dir) = new_army::army_file(&self.loaded, id)?;
        if self.doc(&file).is_none() {
            match ArmyDoc::open(&file, &mod_dir) {
                Ok(d) => self.docs.push(d),
                Err(e) => {
                    self.designer.note = Some(e.to_string());
                    return None;
                }
            }
        }
        Some(file)
    }

    /// The index of the open document of `file`.
    pub fn doc(&self, file: &Path) -> Option<usize> {
        self.docs.iter().position(|d| d.path == file)
    }

    /// The files with unsaved changes (army files, and the Lua file being edited).
    pub fn unsaved(&self) -> Vec<PathBuf> {
        let lua = self
            .designer
            .lua
            .as_ref()
            .filter(|l| l.dirty())
            .map(|l| l.path.clone());
        self.docs
            .iter()
            .filter(|d| d.dirty())
            .map(|d| d.path.clone())
            .chain(lua)
            .collect()
    }

    /// Saves `file`; the hot reload then loads it like any saved file.
    pub fn save(&mut self, file: &Path) -> Result<(), String> {
        let d = self.doc(file).ok_or("the file is not open")?;
        let doc = &mut self.docs[d];
        doc.save().map_err(|e| e.to_string())?;
        let problems = doc.problems().len();
        let name = doc.file_name();
        self.designer.note = Some(if problems == 0 {
            format!("saved {name}")
        } else {
            format!(
                "saved {name} with {problems} problem(s): the editor plays the last good content until they are fixed"
            )
        });
        self.reload_if_unwatched();
        Ok(())
    }

    /// Loads the content again now when no watch does it (hot reload is off).
    fn reload_if_unwatched(&mut self) {
        if self.watch.is_none() {
            self.reload();
        }
    }

    /// Saves every file with unsaved changes; the first failure stops it.
    pub fn save_all(&mut self) -> Result<(), String> {
        if let Some(lua) = self.designer.lua.as_mut().filter(|l| l.dirty()) {
            lua.save()?;
        }
        for d in &mut self.docs {
            if d.dirty() {
                d.save().map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    /// Brings back the unsaved changes of offer `i` (found on start) into their file's document;
    /// they stay unsaved (and autosaved) until saved or discarded.
    pub fn restore(&mut self, i: usize) -> Result<(), String> {
        if i >= self.offers.len() {
            return Err("no such unsaved changes".into());
        }
        let offer = self.offers.remove(i);
        let army = if let Some(d) = self.doc(&offer.file) {
            // Already open: brought back as one more undoable step, so nothing typed since goes.
            let doc = &mut self.docs[d];
            if doc.text() != offer.text && !doc.bring_back(offer.text.clone()) {
                self.offers.insert(i, offer);
                return Err("the unsaved changes do not read as TOML any more".into());
            }
            doc.army_id()
        } else {
            let disk = std::fs::read_to_string(&offer.file).unwrap_or_default();
            let restored = ArmyDoc::with_text(&offer.file, &offer.mod_dir, disk.clone(), disk)
                .ok()
                .and_then(|mut d| {
                    (d.text() == offer.text || d.bring_back(offer.text.clone())).then_some(d)
                });
            let doc = match restored {
                Some(d) => d,
                // The file is gone or does not read: the unsaved text alone, to be saved over it.
                None => ArmyDoc::with_text(
                    &offer.file,
                    &offer.mod_dir,
                    String::new(),
                    offer.text.clone(),
                )
                .map_err(|e| e.to_string())?,
            };
            let army = doc.army_id();
            self.docs.push(doc);
            army
        };
        self.army = Some(army);
        self.selected = None;
        self.designer.open = Some(Open {
            file: offer.file,
            tile: None,
        });
        Ok(())
    }

    /// Deletes the autosave of offer `i` (the designer chose to drop those changes).
    pub fn discard_offer(&mut self, i: usize) -> Result<(), String> {
        if i >= self.offers.len() {
            return Err("no such unsaved changes".into());
        }
        let offer = self.offers.remove(i);
        autosave::remove(&offer.file).map_err(|e| format!("cannot delete the autosave: {e}"))
    }

    /// Writes the autosaves that are due.
    pub(crate) fn autosave_docs(&mut self, now: Instant) {
        for d in &mut self.docs {
            if let Err(e) = d.autosave(now) {
                self.designer.note = Some(format!("cannot autosave {}: {e}", d.file_name()));
            }
        }
    }

    /// Whether an autosave is waiting to be written (the window should look again soon).
    pub fn autosave_waiting(&self) -> bool {
        self.docs.iter().any(ArmyDoc::autosave_waiting)
    }

    /// Writes every unsaved change to its autosave now (the window is closing).
    pub fn autosave_now(&mut self) {
        self.autosave_docs(Instant::now() + autosave::DELAY);
    }

    /// The content was loaded again: open documents follow their files on disk, and an army
    /// made a moment ago opens.
    pub(crate) fn content_reloaded(&mut self) {
        for d in &mut self.docs {
            if let Some(disk) = crate::disk::read(&d.path) {
                d.disk_changed(disk);
            }
        }
        if let Some(lua) = &mut self.designer.lua
            && let Some(disk) = crate::disk::read(&lua.path)
        {
            lua.disk_changed(disk);
        }
        self.refresh_spot(true);
        if let Some(id) = self.designer.pending.clone()
            && self.loaded.catalog.army(&id).is_some()
        {
            self.designer.pending = None;
            self.select_army(&id);
        }
    }

    /// Creates the army the form asks for; it opens once the reload has loaded it.
    pub fn create_army(&mut self, form: &new_army::Form) -> Result<(), String> {
        let c = new_army::create(&self.loaded, &self.roots, self.user_mods.as_deref(), form)?;
        self.designer.pending = Some(form.id.clone());
        self.designer.note = Some(format!(
            "created {}{}",
            c.file.display(),
            c.note.map(|n| format!(": {n}")).unwrap_or_default()
        ));
        if let Some(root) = c.new_root {
            // A folder the editor did not load: load and watch it from now on.
            self.add_root(root);
        } else {
            self.reload_if_unwatched();
        }
        Ok(())
    }

    /// Makes a new ability from the template in the mod of the open tile, binds it to the tile,
    /// and opens its Lua file.
    pub fn new_ability(&mut self, hook: &str) -> Result<(), String> {
        let Some(Open {
            file,
            tile: Some(i),
        }) = self.designer.open.clone()
        else {
            return Err("open a tile first".into());
        };
        let d = self.doc(&file).ok_or("the file is not open")?;
        let mod_dir = self.docs[d].mod_dir.clone();
        let known = hexforge_script::hook_names(&self.loaded.mods, &self.mod_id(&mod_dir));
        let path = new_army::new_ability(&mod_dir, hook, &known)?;
        self.docs[d].add_ability(i, hook);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        self.designer.lua = Some(LuaEdit::open(path, text).at_ability(hook));
        self.designer.new_hook.clear();
        self.reload_if_unwatched();
        Ok(())
    }

    /// The id of the loaded mod in `dir`.
    fn mod_id(&self, dir: &Path) -> String {
        self.loaded
            .mods
            .iter()
            .find(|m| m.dir == dir)
            .map_or_else(String::new, |m| m.id.clone())
    }

    fn undo(&mut self, redo: bool) {
        let Some(open) = &self.designer.open else {
            return;
        };
        if let Some(d) = self.doc(&open.file) {
            self.designer.focus = None;
            let done = if redo {
                self.docs[d].redo()
            } else {
                self.docs[d].undo()
            };
            // A tile that went away with the step leaves the army view open.
            let count = self.docs[d].tile_count();
            if let Some(o) = &mut self.designer.open
                && o.tile.is_some_and(|t| t >= count)
            {
                o.tile = None;
            }
            if !done {
                self.designer.note =
                    Some(format!("nothing to {}", if redo { "redo" } else { "undo" }));
            }
        }
    }

    /// Asks for, or carries out, what a confirmation answered.
    fn confirmed(&mut self, c: Confirm, ctx: &egui::Context) {
        let result = match c {
            Confirm::DeleteTile { file, tile } => {
                if let Some(d) = self.doc(&file) {
                    self.docs[d].delete_tile(tile);
                    if let Some(o) = &mut self.designer.open {
                        o.tile = None;
                    }
                }
                Ok(())
            }
            Confirm::Discard { file } => match self.doc(&file) {
                Some(d) => self.docs[d]
                    .discard()
                    .map_err(|e| format!("cannot delete the autosave: {e}")),
                None => Ok(()),
            },
            Confirm::DeleteArmy { file } => self.delete_army(&file),
            Confirm::Quit => {
                self.autosave_now();
                self.designer.quit = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                Ok(())
            }
        };
        if let Err(e) = result {
            self.designer.note = Some(e);
        }
    }

    fn delete_army(&mut self, file: &Path) -> Result<(), String> {
        let d = self.doc(file).ok_or("the file is not open")?;
        let id = self.docs[d].army_id();
        let mod_dir = self.docs[d].mod_dir.clone();
        new_army::delete_army(file, &mod_dir, &id)?;
        self.docs.remove(d);
        self.designer.open = None;
        self.army = None;
        self.selected = None;
        self.designer.note = Some(format!("deleted {}", file.display()));
        Ok(())
    }
}

/// The Designer tab's central view.
pub fn ui(editor: &mut Editor, ui: &mut egui::Ui) {
    shortcuts(editor, ui);
    if let Some(mut form) = editor.designer.form.take() {
        let answer = new_army::form_ui(
            ui,
            &mut form,
            &editor.loaded,
            &editor.roots,
            editor.user_mods.as_deref(),
        );
        match answer {
            Some(true) => match editor.create_army(&form) {
                Ok(()) => {}
                Err(e) => {
                    form.error = Some(e);
                    editor.designer.form = Some(form);
                }
            },
            Some(false) => {}
            None => editor.designer.form = Some(form),
        }
        return;
    }
    toolbar(editor, ui);
    let open = editor.designer.open.clone();
    match open.and_then(|o| Some((editor.doc(&o.file)?, o.tile))) {
        Some((d, Some(t))) if t < editor.docs[d].tile_count() => tile_designer(editor, ui, d, t),
        Some((d, _)) => army_editor(editor, ui, d),
        None => read_only(editor, ui),
    }
}

/// Ctrl+S saves, Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo (the designer's history, not a
/// text field's).
fn shortcuts(editor: &mut Editor, ui: &mut egui::Ui) {
    use egui::{Key, KeyboardShortcut, Modifiers};
    // The Lua editor keeps its own undo while it has the focus.
    let in_lua = ui.memory(|m| m.focused()) == Some(egui::Id::unique(crate::lua_view::TEXT_ID));
    let (save, redo, undo) = ui.input_mut(|i| {
        if in_lua {
            let save = i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::S));
            return (save, false, false);
        }
        let save = i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::S));
        let redo = i.consume_shortcut(&KeyboardShortcut::new(
            Modifiers::COMMAND | Modifiers::SHIFT,
            Key::Z,
        )) || i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::Y));
        let undo = i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::Z));
        (save, redo, undo)
    });
    if save && in_lua {
        save_lua(editor);
    } else if save
        && let Some(o) = editor.designer.open.clone()
        && let Err(e) = editor.save(&o.file)
    {
        editor.designer.note = Some(e);
    }
    if redo {
        editor.undo(true);
    } else if undo {
        editor.undo(false);
    }
}

/// The unsaved changes found on start, offered back or dropped one file at a time, in a modal
/// window (from any tab).
pub(crate) fn offer_modal(editor: &mut Editor, ctx: &egui::Context) {
    let Some(o) = editor.offers.first() else {
        return;
    };
    let mut answer = None;
    egui::Modal::new(egui::Id::unique("autosave_offer")).show(ctx, |ui| {
        ui.set_max_width(560.0);
        ui.label(
            egui::RichText::new(format!(
                "Unsaved changes to {} were kept from last time.",
                o.file.display()
            ))
            .strong(),
        );
        ui.horizontal(|ui| {
            if ui
                .button(format!("Restore unsaved changes to {}", file_name(&o.file)))
                .clicked()
            {
                answer = Some(true);
            }
            if ui
                .button(format!("Discard them ({})", file_name(&o.file)))
                .clicked()
            {
                answer = Some(false);
            }
        });
    });
    let result = match answer {
        Some(true) => editor.restore(0),
        Some(false) => editor.discard_offer(0),
        None => Ok(()),
    };
    if let Err(e) = result {
        editor.designer.note = Some(e);
    }
}

/// A question asked before something is dropped or deleted, in a modal window (from any tab).
pub(crate) fn confirm_modal(editor: &mut Editor, ctx: &egui::Context) {
    if let Some(c) = editor.designer.confirm.clone() {
        let (question, yes) = match &c {
            Confirm::DeleteTile { file, tile } => {
                let id = editor
                    .doc(file)
                    .map(|d| editor.docs[d].tile_id(*tile))
                    .unwrap_or_default();
                (
                    format!("Delete the tile `{id}`? (Undo brings it back.)"),
                    "Delete the tile",
                )
            }
            Confirm::DeleteArmy { file } => (
                format!(
                    "Delete the army file {}? This cannot be undone.",
                    file.display()
                ),
                "Delete the army",
            ),
            Confirm::Discard { file } => (
                format!("Drop the unsaved changes to {}?", file.display()),
                "Drop the changes",
            ),
            Confirm::Quit => (
                format!(
                    "Unsaved changes to {}: they stay in their autosaves and are offered back next time.",
                    editor
                        .unsaved()
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                "Quit without saving",
            ),
        };
        egui::Modal::new(egui::Id::unique("designer_confirm")).show(ctx, |ui| {
            ui.set_max_width(560.0);
            ui.label(egui::RichText::new(question).strong());
            ui.horizontal(|ui| {
                if c == Confirm::Quit && ui.button("Save all and quit").clicked() {
                    match editor.save_all() {
                        Ok(()) => {
                            editor.designer.confirm = None;
                            editor.designer.quit = true;
                            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                        }
                        Err(e) => editor.designer.note = Some(e),
                    }
                }
                if ui.button(yes).clicked() {
                    editor.designer.confirm = None;
                    editor.confirmed(c.clone(), ctx);
                }
                if ui.button("Cancel").clicked() {
                    editor.designer.confirm = None;
                }
            });
        });
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// What can be done to the open file, then its name and state: the buttons come first and are
/// always there (greyed out when they do not apply), so none moves whatever the state.
fn toolbar(editor: &mut Editor, ui: &mut egui::Ui) {
    let doc = editor
        .designer
        .open
        .as_ref()
        .and_then(|o| editor.doc(&o.file));
    let file = doc.map(|d| editor.docs[d].path.clone());
    let (dirty, can_undo, can_redo) = doc.map_or((false, false, false), |d| {
        let doc = &editor.docs[d];
        (doc.dirty(), doc.history.can_undo(), doc.history.can_redo())
    });
    ui.horizontal(|ui| {
        if ui
            .add_enabled(dirty, egui::Button::new("Save"))
            .on_hover_text("Ctrl+S")
            .clicked()
            && let Some(file) = &file
            && let Err(e) = editor.save(file)
        {
            editor.designer.note = Some(e);
        }
        if ui
            .add_enabled(can_undo, egui::Button::new("Undo"))
            .on_hover_text("Ctrl+Z")
            .clicked()
        {
            editor.undo(false);
        }
        if ui
            .add_enabled(can_redo, egui::Button::new("Redo"))
            .on_hover_text("Ctrl+Shift+Z or Ctrl+Y")
            .clicked()
        {
            editor.undo(true);
        }
        if ui
            .add_enabled(dirty, egui::Button::new("Discard changes…"))
            .clicked()
            && let Some(file) = &file
        {
            editor.designer.confirm = Some(Confirm::Discard { file: file.clone() });
        }
        if ui
            .add_enabled(file.is_some(), egui::Button::new("Delete the army…"))
            .clicked()
            && let Some(file) = &file
        {
            editor.designer.confirm = Some(Confirm::DeleteArmy { file: file.clone() });
        }
        if ui.button("New army…").clicked() {
            let user = editor.user_mods.is_some();
            let from = editor.army.clone();
            editor.designer.form = Some(new_army::Form::new(&editor.loaded, from.as_deref(), user));
        }
        ui.separator();
        // The file's name and state, after the buttons.
        if let Some(d) = doc {
            let doc = &editor.docs[d];
            if doc.dirty() {
                ui.colored_label(
                    egui::Color32::YELLOW,
                    format!("{} (unsaved changes)", doc.file_name()),
                );
            } else {
                ui.label(doc.file_name());
            }
            let others = editor
                .unsaved()
                .iter()
                .filter(|p| Some(*p) != file.as_ref())
                .count();
            if others > 0 {
                ui.colored_label(
                    egui::Color32::YELLOW,
                    format!("{others} other file(s) unsaved"),
                );
            }
        }
    });
    ui.separator();
}

/// Which buffer a conflict with the disk is in.
enum Buffer {
    Lua,
    Doc(usize),
}

/// When a buffer with unsaved edits meets a different text on disk: both versions shown, and
/// nothing written or dropped until the designer keeps theirs or takes the disk's (from any tab).
pub(crate) fn conflict_modal(editor: &mut Editor, ctx: &egui::Context) {
    let lua = editor.designer.lua.as_ref().and_then(|l| {
        let disk = l.disk.conflict.clone()?;
        Some((Buffer::Lua, l.path.clone(), l.text.clone(), disk))
    });
    let found = lua.or_else(|| {
        editor.docs.iter().enumerate().find_map(|(i, d)| {
            let disk = d.conflict()?.to_string();
            Some((Buffer::Doc(i), d.path.clone(), d.text().to_string(), disk))
        })
    });
    let Some((which, path, mine, disk)) = found else {
        return;
    };
    let mut keep = None;
    egui::Modal::new(egui::Id::unique("disk_conflict")).show(ctx, |ui| {
        ui.set_max_width(920.0);
        ui.heading(format!("{} changed on disk", file_name(&path)));
        ui.label(format!(
            "{} was saved by another program while you have unsaved changes to it. Nothing is written or dropped until you choose.",
            path.display()
        ));
        let ((from_mine, part_mine), (from_disk, part_disk)) =
            crate::disk::differing_lines(&mine, &disk, 2);
        ui.columns(2, |cols| {
            let sides = [
                ("yours", from_mine, part_mine, "conflict_yours"),
                ("on disk", from_disk, part_disk, "conflict_disk"),
            ];
            for (ui, (title, from, part, salt)) in cols.iter_mut().zip(sides) {
                ui.strong(format!("{title} (from line {from})"));
                egui::ScrollArea::both()
                    .id_salt(salt)
                    .max_height(320.0)
                    .show(ui, |ui| {
                        ui.label(egui::RichText::new(part).monospace());
                    });
            }
        });
        ui.separator();
        ui.horizontal(|ui| {
            if ui.button("Keep mine (overwrite the file)").clicked() {
                keep = Some(true);
            }
            if ui.button("Take the disk version").clicked() {
                keep = Some(false);
            }
        });
    });
    let result = match (keep, which) {
        (None, _) => return,
        (Some(true), Buffer::Lua) => editor
            .designer
            .lua
            .as_mut()
            .map_or(Ok(()), LuaEdit::keep_mine),
        (Some(false), Buffer::Lua) => {
            if let Some(l) = editor.designer.lua.as_mut() {
                l.take_disk();
            }
            Ok(())
        }
        (Some(true), Buffer::Doc(d)) => editor.docs[d].keep_mine().map_err(|e| e.to_string()),
        (Some(false), Buffer::Doc(d)) => editor.docs[d].take_disk().map_err(|e| e.to_string()),
    };
    editor.designer.note = Some(match result {
        Ok(()) if keep == Some(true) => format!("saved your version of {}", file_name(&path)),
        Ok(()) => format!("took the version of {} on disk", file_name(&path)),
        Err(e) => e,
    });
    editor.reload_if_unwatched();
}

/// How a field is shown: its label (red when its line has a problem), the text shown while it
/// is empty, and its width.
#[derive(Clone, Copy)]
struct Look<'a> {
    label: &'a str,
    bad: bool,
    hint: &'a str,
    width: f32,
}

impl<'a> Look<'a> {
    fn new(label: &'a str) -> Self {
        Look {
            label,
            bad: false,
            hint: "",
            width: 220.0,
        }
    }
}

/// A one-line text field for `key` of the open file; returns the new text when it changed, and
/// seals the undo step when it loses the focus.
fn field(
    ui: &mut egui::Ui,
    focus: &mut Option<(String, String)>,
    doc: &mut ArmyDoc,
    key: &str,
    look: Look<'_>,
    current: String,
) -> Option<String> {
    let id = ui.make_persistent_id(("designer_field", key));
    let l = if look.bad {
        ui.colored_label(egui::Color32::LIGHT_RED, look.label)
    } else {
        ui.label(look.label)
    };
    let focused = ui.memory(|m| m.has_focus(id));
    let mut text = match focus {
        Some((k, t)) if focused && k == key => t.clone(),
        _ => current,
    };
    let r = ui
        .add(
            egui::TextEdit::singleline(&mut text)
                .id(id)
                .hint_text(look.hint)
                .desired_width(look.width),
        )
        .labelled_by(l.id);
    if r.has_focus() {
        *focus = Some((key.to_string(), text.clone()));
    } else if focus.as_ref().is_some_and(|(k, _)| k == key) {
        *focus = None;
    }
    if r.lost_focus() {
        doc.seal();
    }
    r.changed().then_some(text)
}

/// The lines (1-based) where each `[[tile]]` table starts in `text`.
fn tile_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("[[tile]]"))
        .map(|(i, _)| i + 1)
        .collect()
}

/// The key written on line `line` of `text` (`count` for `count = 0`).
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let l = text.lines().nth(line.checked_sub(1)?)?;
    let (key, _) = l.split_once('=')?;
    Some(key.trim().to_string())
}

/// The tile designer: the drawing and the edge being edited on the left, the tile's fields,
/// abilities and problems on the right.
fn tile_designer(editor: &mut Editor, ui: &mut egui::Ui, d: usize, t: usize) {
    let mod_id = editor.mod_id(&editor.docs[d].mod_dir.clone());
    let hooks = hexforge_script::hook_names(&editor.loaded.mods, &mod_id);
    let Editor { docs, designer, .. } = editor;
    let doc = &mut docs[d];
    let file = doc.path.clone();
    let lines = tile_lines(doc.text());
    // This tile's problems, and the army's own (its header: the size, the HQ count).
    let from = lines.get(t).copied().unwrap_or(0);
    let to = lines.get(t + 1).copied().unwrap_or(usize::MAX);
    let header = lines.first().copied().unwrap_or(usize::MAX);
    let mut problems: Vec<hexforge_content::Diagnostic> = doc
        .problems()
        .iter()
        .filter(|p| (p.line >= from && p.line < to) || p.line < header)
        .cloned()
        .collect();
    let others = doc.problems().len() - problems.len();
    // Fields whose line has a problem are marked.
    let bad_keys: Vec<String> = problems
        .iter()
        .filter(|p| p.line >= from && p.line < to)
        .filter_map(|p| key_on_line(doc.text(), p.line))
        .collect();
    // Abilities no Lua file defines are problems too.
    for (hook, _) in doc.abilities(t) {
        if !hook.is_empty() && !hooks.contains(&hook) {
            problems.push(hexforge_content::Diagnostic {
                file: file.clone(),
                line: 0,
                column: 0,
                message: format!(
                    "no Lua file defines the ability `{hook}`: pick one from the list, or make it with New ability"
                ),
            });
        }
    }
    let tile = doc.tile(t).cloned();
    let mut wanted_source = None;
    let mut clicked = None;
    let mut back = false;
    let mut action = None;
    // The buttons first, so a note that comes and goes after them moves none.
    ui.horizontal(|ui| {
        if ui.button("Duplicate the tile").clicked() {
            action = Some(army_view::DeckAction::Duplicate(t));
        }
        if ui.button("Delete the tile…").clicked() {
            action = Some(army_view::DeckAction::Delete(t));
        }
        let army_name = doc.army_value("name");
        if ui.button(format!("Back to {army_name}")).clicked() {
            back = true;
        }
        match &tile {
            Some(tile) => ui.label(egui::RichText::new(tile.full_id()).strong()),
            None => ui.colored_label(egui::Color32::LIGHT_RED, "not valid yet"),
        };
        if !doc.tiles_valid() {
            ui.colored_label(
                egui::Color32::LIGHT_RED,
                "(the drawing shows the last valid tile)",
            );
        }
    });
    ui.horizontal_top(|ui| {
        ui.vertical(|ui| {
            ui.set_width(340.0);
            drawing(ui, designer, tile.as_ref());
            edge_editor(ui, designer, doc, t);
        });
        ui.vertical(|ui| {
            fields(ui, designer, doc, t, &bad_keys);
            ui.separator();
            abilities(ui, designer, doc, t, &hooks, &mut wanted_source);
            ui.separator();
            spot::problem_area(ui, "tile_problems", |ui| {
                for p in &problems {
                    if p.line == 0 {
                        ui.colored_label(egui::Color32::LIGHT_RED, &p.message);
                    } else if spot::line_link(ui, p) {
                        clicked = Some(p.clone());
                    }
                }
                if others > 0 {
                    ui.colored_label(
                        egui::Color32::LIGHT_RED,
                        format!("{others} problem(s) elsewhere in the file (see the army)"),
                    );
                }
                if problems.is_empty() && others == 0 {
                    ui.weak("No problems.");
                }
            });
        });
    });
    if let Some(p) = clicked {
        // The spot in the text being edited, which may not be saved yet.
        editor.spot = Some(spot::Spot::in_text(&p, editor.docs[d].text()));
    }
    if std::mem::take(&mut editor.designer.pending_hook) {
        let hook = editor.designer.new_hook.trim().to_string();
        editor.designer.note = Some(match editor.new_ability(&hook) {
            Ok(()) => {
                format!("made the ability `{hook}`: write it below, save it, then save the army")
            }
            Err(e) => e,
        });
    }
    if back {
        if let Some(o) = &mut editor.designer.open {
            o.tile = None;
        }
        editor.selected = None;
    }
    match action {
        Some(army_view::DeckAction::Duplicate(i)) => {
            if let Some(n) = editor.docs[d].duplicate_tile(i)
                && let Some(o) = &mut editor.designer.open
            {
                o.tile = Some(n);
            }
        }
        Some(army_view::DeckAction::Delete(i)) => {
            editor.designer.confirm = Some(Confirm::DeleteTile { file, tile: i });
        }
        _ => {}
    }
    if let Some(hook) = wanted_source {
        show_source(editor, &mod_id, &hook);
    }
    source_view(editor, ui);
    lua_editor(editor, ui);
}

/// The tile drawn large; a click on an edge selects it for the edge editor.
fn drawing(ui: &mut egui::Ui, designer: &mut Designer, tile: Option<&hexforge_core::Tile>) {
    let size = egui::vec2(340.0, 300.0);
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, "tile drawing"));
    let c = rect.center();
    let r = 145.0;
    let painter = ui.painter_at(rect);
    match tile {
        Some(tile) => tile_view::paint(&painter, c, r, tile, 0, tile_view::NEUTRAL),
        None => {
            painter.text(
                c,
                egui::Align2::CENTER_CENTER,
                "no valid version of this tile yet",
                egui::FontId::proportional(14.0),
                egui::Color32::LIGHT_RED,
            );
        }
    }
    let corners = tile_view::corners(c, r);
    let outline = |e: usize, color: egui::Color32, painter: &egui::Painter| {
        let (a, b) = tile_view::edge_corners(e);
        painter.line_segment([corners[a], corners[b]], egui::Stroke::new(4.0, color));
    };
    if let Some(p) = response.hover_pos()
        && let Some(e) = tile_view::edge_at(c, r, 0, p)
    {
        outline(
            e.index() as usize,
            egui::Color32::from_white_alpha(90),
            &painter,
        );
    }
    if let Some(e) = designer.edge {
        outline(e, egui::Color32::WHITE, &painter);
    }
    if response.clicked()
        && let Some(p) = response.interact_pointer_pos()
    {
        designer.edge = tile_view::edge_at(c, r, 0, p).map(|e| e.index() as usize);
    }
}

/// The icons of the selected edge, each one click to change.
fn edge_editor(ui: &mut egui::Ui, designer: &mut Designer, doc: &mut ArmyDoc, t: usize) {
    let Some(e) = designer.edge else {
        ui.label("Click an edge of the drawing to edit it.");
        return;
    };
    ui.strong(format!("edge {e} ({})", tile_view::EDGE_NAMES[e]));
    let edges = match doc.edges(t) {
        Ok(edges) => edges,
        Err(msg) => {
            ui.colored_label(egui::Color32::LIGHT_RED, msg);
            return;
        }
    };
    let mut new = edges;
    for (what, get) in [("melee", 0usize), ("ranged", 1)] {
        ui.horizontal(|ui| {
            ui.label(what);
            let current = if get == 0 {
                edges[e].melee
            } else {
                edges[e].ranged
            };
            for s in 0..=3u8 {
                let text = if s == 0 {
                    "none".to_string()
                } else {
                    s.to_string()
                };
                let r = ui.selectable_label(current == s, text);
                let label = format!("{what} {s}");
                r.widget_info(|| {
                    egui::WidgetInfo::selected(egui::Role::Button, true, current == s, &label)
                });
                if r.clicked() {
                    if get == 0 {
                        new[e].melee = s;
                    } else {
                        new[e].ranged = s;
                    }
                }
            }
        });
    }
    ui.horizontal(|ui| {
        ui.checkbox(&mut new[e].armor, "armor");
        ui.checkbox(&mut new[e].net, "net");
        ui.checkbox(&mut new[e].link, "link");
    });
    if new != edges {
        doc.set_edges(t, &new);
    }
}

/// One typed field of tile `t` at `path`, in a grid row.
struct Row<'a> {
    prefix: &'a str,
    t: usize,
    bad: &'a [String],
}

impl Row<'_> {
    fn text(
        &self,
        ui: &mut egui::Ui,
        focus: &mut Option<(String, String)>,
        doc: &mut ArmyDoc,
        (label, kind, path): (&str, FieldKind, &[&str]),
    ) {
        let group = format!("{}.{}", self.prefix, path.join("."));
        let current = doc.value(self.t, path);
        let key = path.last().copied().unwrap_or_default();
        let is_bad = self.bad.iter().any(|b| b == key);
        let look = Look {
            bad: is_bad,
            ..Look::new(label)
        };
        if let Some(new) = field(ui, focus, doc, &group, look, current) {
            doc.set(self.t, path, typed_value(&new, kind), Some(&group));
        }
        ui.end_row();
    }
}

/// The tile's fields: every one edits the file as it is typed.
fn fields(ui: &mut egui::Ui, designer: &mut Designer, doc: &mut ArmyDoc, t: usize, bad: &[String]) {
    let prefix = format!("{}#{t}", doc.path.display());
    let row = Row {
        prefix: &prefix,
        t,
        bad,
    };
    let focus = &mut designer.focus;
    egui::Grid::new(("tile_fields", t))
        .num_columns(2)
        .show(ui, |ui| {
            row.text(ui, focus, doc, ("id", FieldKind::Text, &["id"]));
            row.text(ui, focus, doc, ("name", FieldKind::Text, &["name"]));
            let l = ui.label("kind");
            let kind = doc.value(t, &["kind"]);
            egui::ComboBox::from_id_salt(("kind", t))
                .selected_text(&kind)
                .show_ui(ui, |ui| {
                    for k in ["hq", "soldier", "module", "instant"] {
                        if ui.selectable_label(kind == k, k).clicked() && kind != k {
                            doc.set(t, &["kind"], Some(Value::from(k)), None);
                        }
                    }
                })
                .response
                .labelled_by(l.id);
            ui.end_row();
            row.text(ui, focus, doc, ("count", FieldKind::Int, &["count"]));
            row.text(
                ui,
                focus,
                doc,
                ("initiative", FieldKind::IntList, &["initiative"]),
            );
            row.text(
                ui,
                focus,
                doc,
                ("toughness", FieldKind::Int, &["toughness"]),
            );
            ui.label("");
            let mut mobile = doc.value(t, &["mobile"]) == "true";
            if ui.checkbox(&mut mobile, "mobile").changed() {
                doc.set(t, &["mobile"], mobile.then(|| Value::from(true)), None);
            }
            ui.end_row();
            let table = match doc.value(t, &["kind"]).as_str() {
                "module" => Some("module"),
                "hq" => Some("aura"),
                _ => None,
            };
            if let Some(table) = table {
                for key in ["melee", "ranged", "initiative", "enemy_initiative"] {
                    let label = format!("{table} {key}");
                    row.text(ui, focus, doc, (&label, FieldKind::Int, &[table, key]));
                }
                ui.label("");
                let mut medic = doc.value(t, &[table, "medic"]) == "true";
                if ui.checkbox(&mut medic, format!("{table} medic")).changed() {
                    doc.set(t, &[table, "medic"], medic.then(|| Value::from(true)), None);
                }
                ui.end_row();
            }
        });
}

/// The tile's abilities: each hook's source one click away, its parameters, and adding a hook
/// of the loaded scripts or a new one.
fn abilities(
    ui: &mut egui::Ui,
    designer: &mut Designer,
    doc: &mut ArmyDoc,
    t: usize,
    hooks: &[String],
    wanted: &mut Option<String>,
) {
    let prefix = format!("{}#{t}", doc.path.display());
    let list = doc.abilities(t);
    let mut remove = None;
    for (k, (hook, params)) in list.iter().enumerate() {
        ui.horizontal(|ui| {
            ui.label("ability");
            if ui
                .button(hook)
                .on_hover_text("Show the Lua source of this ability")
                .clicked()
            {
                *wanted = Some(hook.clone());
            }
            let mut changed = None;
            let l = ui.label("is");
            egui::ComboBox::from_id_salt(("ability_hook", t, k))
                .selected_text("change…")
                .show_ui(ui, |ui| {
                    for h in hooks {
                        if ui.selectable_label(h == hook, h).clicked() && h != hook {
                            changed = Some(h.clone());
                        }
                    }
                })
                .response
                .on_hover_text("Bind another ability in its place (the parameters stay)")
                .labelled_by(l.id);
            if let Some(h) = changed {
                doc.set_ability_hook(t, k, &h, None);
            }
            let key = format!("{prefix}.ability{k}.params");
            if let Some(typed) = field(
                ui,
                &mut designer.focus,
                doc,
                &key,
                Look {
                    hint: "name = value, ...",
                    width: 200.0,
                    ..Look::new("params")
                },
                params.clone(),
            ) {
                match doc.set_ability_params(t, k, &typed, Some(&key)) {
                    Ok(()) => designer.params_error = None,
                    Err(e) => designer.params_error = Some((key.clone(), e)),
                }
            }
            if ui
                .button("Remove")
                .on_hover_text("Unbind this ability")
                .clicked()
            {
                remove = Some(k);
            }
            // At the end of the row, so no row below moves when it comes and goes.
            if let Some((key, e)) = &designer.params_error
                && *key == format!("{prefix}.ability{k}.params")
            {
                ui.colored_label(egui::Color32::LIGHT_RED, e);
            }
        });
    }
    if let Some(k) = remove {
        doc.remove_ability(t, k);
    }
    ui.horizontal(|ui| {
        let mut picked = None;
        let l = ui.label("bind");
        egui::ComboBox::from_id_salt(("add_ability", t))
            .selected_text("Add an ability…")
            .show_ui(ui, |ui| {
                for h in hooks {
                    if ui.selectable_label(false, h).clicked() {
                        picked = Some(h.clone());
                    }
                }
            })
            .response
            .labelled_by(l.id);
        if let Some(h) = picked {
            doc.add_ability(t, &h);
        }
    });
    ui.horizontal(|ui| {
        let l = ui.label("new ability");
        ui.add(egui::TextEdit::singleline(&mut designer.new_hook).desired_width(160.0))
            .labelled_by(l.id);
        if ui
            .button("New ability")
            .on_hover_text("Writes scripts/<name>.lua in this mod from the template, binds it to this tile and opens it")
            .clicked()
        {
            designer.pending_hook = true;
        }
    });
}

/// Looks up where `hook` is written, seen from the mod `mod_id`, to show it.
fn show_source(editor: &mut Editor, mod_id: &str, hook: &str) {
    editor.source = hexforge_script::hook_source(&editor.loaded.mods, mod_id, hook);
    if editor.source.is_none() {
        editor.designer.note = Some(format!("no Lua file defines the ability {hook:?}"));
    }
}

/// The Lua source of the ability asked for, with its file and line; a mod's own file opens in
/// the Lua editor on a click.
fn source_view(editor: &mut Editor, ui: &mut egui::Ui) {
    let Some(source) = editor.source.clone() else {
        return;
    };
    ui.separator();
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new(format!("{}:{}", source.file, source.line)).strong());
        let path = PathBuf::from(&source.file);
        let own = editor.loaded.mods.iter().any(|m| path.starts_with(&m.dir)) && path.is_file();
        if own && ui.button("Edit the Lua file").clicked() {
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    let mut lua = LuaEdit::open(path, text);
                    lua.goto = Some(source.line);
                    editor.designer.lua = Some(lua);
                }
                Err(e) => {
                    editor.designer.note = Some(format!("cannot read {}: {e}", path.display()))
                }
            }
        }
        if ui.button("Close the source").clicked() {
            editor.source = None;
        }
    });
    egui::ScrollArea::vertical()
        .id_salt("hook_source")
        .max_height(220.0)
        .show(ui, |ui| {
            ui.label(egui::RichText::new(&source.text).monospace());
        });
}

/// Saves the Lua file being edited (atomically) unless it changed on disk meanwhile (then the
/// designer is asked); the hot reload then loads it.
fn save_lua(editor: &mut Editor) {
    let Some(lua) = &mut editor.designer.lua else {
        return;
    };
    match lua.save() {
        Ok(()) => editor.reload_if_unwatched(),
        Err(e) => editor.designer.note = Some(e),
    }
}

/// The Lua file open for editing, below the tile: saved atomically (then reloaded like any
/// saved file), closed, or a syntax error's spot shown, as the designer asks.
fn lua_editor(editor: &mut Editor, ui: &mut egui::Ui) {
    let Some(lua) = &mut editor.designer.lua else {
        return;
    };
    ui.separator();
    match lua.ui(ui) {
        Some(LuaAction::Save) => save_lua(editor),
        Some(LuaAction::Close) => editor.designer.lua = None,
        Some(LuaAction::Show(spot)) => editor.spot = Some(spot),
        None => {}
    }
}

/// The army editor: the army's id, name and size, its totals and size warning, new tiles, and
/// the deck (a click opens a tile; its menu duplicates or deletes it).
fn army_editor(editor: &mut Editor, ui: &mut egui::Ui, d: usize) {
    let Editor { docs, designer, .. } = editor;
    let doc = &mut docs[d];
    let prefix = format!("{}#army", doc.path.display());
    ui.heading(doc.army_value("name"));
    ui.horizontal(|ui| {
        for (key, kind, hint, width) in [
            ("id", FieldKind::Text, "", 160.0),
            ("name", FieldKind::Text, "", 200.0),
            ("size", FieldKind::Int, "35 (the default)", 120.0),
        ] {
            let group = format!("{prefix}.{key}");
            let current = doc.army_value(key);
            let label = format!("army {key}");
            let look = Look {
                hint,
                width,
                ..Look::new(&label)
            };
            if let Some(new) = field(ui, &mut designer.focus, doc, &group, look, current) {
                doc.set_army(key, typed_value(&new, kind), Some(&group));
            }
        }
    });
    let count = doc.tile_count();
    let cells: Vec<(String, Option<&hexforge_core::Tile>)> =
        (0..count).map(|i| (doc.tile_id(i), doc.tile(i))).collect();
    let totals = army_view::totals(cells.iter().filter_map(|(_, t)| *t));
    ui.label(army_view::totals_line(&totals));
    // The army's size (R1.1) is among the problems the engine's check lists below.
    let mut clicked = None;
    spot::problem_area(ui, "army_problems", |ui| {
        for p in doc.problems() {
            if spot::line_link(ui, p) {
                clicked = Some(p.clone());
            }
        }
        if doc.problems().is_empty() {
            ui.weak("No problems.");
        }
    });
    let mut add = None;
    ui.horizontal(|ui| {
        for kind in ["soldier", "module", "instant"] {
            if ui.button(format!("New {kind}")).clicked() {
                add = Some(kind);
            }
        }
    });
    let action = army_view::deck(ui, &doc.path.display().to_string(), &cells, true);
    let army = doc.army_id();
    let opened = match action {
        Some(army_view::DeckAction::Open(i)) => Some(i),
        Some(army_view::DeckAction::Duplicate(i)) => doc.duplicate_tile(i),
        Some(army_view::DeckAction::Delete(i)) => {
            designer.confirm = Some(Confirm::DeleteTile {
                file: doc.path.clone(),
                tile: i,
            });
            None
        }
        None => add.map(|kind| doc.add_tile(kind)),
    };
    let opened_id = opened.map(|i| doc.tile_id(i));
    let text = doc.text().to_string();
    if let Some(p) = clicked {
        editor.spot = Some(spot::Spot::in_text(&p, &text));
    }
    if let (Some(i), Some(id)) = (opened, opened_id) {
        if let Some(o) = &mut editor.designer.open {
            o.tile = Some(i);
        }
        editor.designer.edge = None;
        editor.source = None;
        editor.selected = editor.loaded.catalog.find(&format!("{army}/{id}"));
    }
}

/// An army or tile with no file of its own (a patch made it): shown, not edited.
fn read_only(editor: &mut Editor, ui: &mut egui::Ui) {
    let catalog = &editor.loaded.catalog;
    match (
        editor.selected,
        editor.army.as_deref().and_then(|a| catalog.army(a)),
    ) {
        (Some(t), _) => {
            let tile = catalog.get(t);
            ui.label("A patch makes this tile: edit the patch file to change it.");
            if let Some(hook) = tile_view::ui(ui, tile) {
                let owner = editor
                    .loaded
                    .mods
                    .iter()
                    .find(|m| m.armies.iter().any(|a| a.id == tile.army))
                    .map_or_else(String::new, |m| m.id.clone());
                show_source(editor, &owner, &hook);
            }
            source_view(editor, ui);
        }
        (None, Some(army)) => {
            if let Some(t) = army_view::ui(ui, catalog, army) {
                editor.select_tile(t);
            }
        }
        (None, None) => {
            ui.label("Select an army or a tile in the browser to see it.");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_placed_by_the_tile_and_key_of_their_line() {
        let text = "[army]\nid = \"a\"\n\n[[tile]]\nid = \"hq\"\n\n[[tile]]\ncount = 0\n";
        assert_eq!(tile_lines(text), [4, 7]);
        assert_eq!(key_on_line(text, 8).as_deref(), Some("count"));
        assert_eq!(key_on_line(text, 4), None);
        assert_eq!(key_on_line(text, 0), None);
        assert_eq!(key_on_line(text, 99), None);
    }
}
