//! The Designer tab and all of its state: the tile designer (the tile drawn large, an edge clicked
//! to edit it, every field and ability edited with problems shown as you type) and the army editor
//! (the deck with totals, size warning, new, duplicated and deleted tiles), over the army files
//! open as documents; saving, undo and redo, autosaves offered back, new armies and abilities, the
//! questions asked before anything is dropped, and the spot of a problem shown in place of the
//! tile or army. What reaches beyond the designer (the status bar, a reload after a save, a new
//! mod folder to watch) is asked of the editor as a message.

use crate::browser::Showing;
use crate::content::Content;
use crate::disk::ReadError;
use crate::document::{ArmyDoc, FieldKind, typed_value};
use crate::lua_view::LuaAction;
pub use crate::lua_view::LuaEdit;
use crate::msg::Msg;
use crate::spot::Spot;
use crate::{army_view, autosave, new_army, spot, tile_view};
use hexforge_content::Diagnostic;
use hexforge_core::{Catalog, TileRef};
use hexforge_script::HookSource;
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

/// What the tile and army editors keep from frame to frame while the designer types and clicks.
#[derive(Default)]
struct Editing {
    /// The edge being edited (0 front, clockwise) of the open tile.
    edge: Option<usize>,
    /// The field being typed in and its text (kept while it has the focus, so the cursor stays
    /// where it is whatever the document makes of the text).
    focus: Option<(String, String)>,
    /// The name typed for a new ability.
    new_hook: String,
    /// A parameters field whose text is not TOML (its key and why).
    params_error: Option<(String, String)>,
    /// The designer asked for a new ability named `new_hook`.
    pending_hook: bool,
}

/// The Designer tab's state: the army files open as documents, what is shown and edited, and the
/// questions waiting for an answer.
#[derive(Default)]
pub struct Designer {
    /// The army files open, each with its unsaved changes and history.
    docs: Vec<ArmyDoc>,
    /// Unsaved changes found on start (autosaves), offered back.
    offers: Vec<autosave::Offer>,
    /// The army shown (by id): in the army editor, or the army of the tile shown.
    army: Option<String>,
    /// The tile shown, as the catalog in play knows it.
    selected: Option<TileRef>,
    /// The Lua source of an ability of the tile shown, when the designer asked for it.
    source: Option<HookSource>,
    /// The problem whose spot in its file is shown (it takes the place of the tile or army view).
    spot: Option<Spot>,
    /// The army file and tile being edited.
    open: Option<Open>,
    /// What the editors keep while the designer types and clicks.
    editing: Editing,
    /// The "New army…" form while it is open.
    form: Option<new_army::Form>,
    /// The question waiting for an answer before something is dropped or deleted.
    confirm: Option<Confirm>,
    /// The Lua file open in the text editor below the tile.
    lua: Option<LuaEdit>,
    /// The army to open once the next reload has loaded it (a new army).
    pending: Option<String>,
    /// The designer agreed to close the window with unsaved changes (they stay autosaved).
    quit: bool,
}

impl Designer {
    /// A designer with nothing open, offering back the unsaved changes `offers` found on start.
    pub fn new(offers: Vec<autosave::Offer>) -> Self {
        Designer {
            offers,
            ..Designer::default()
        }
    }

    /// The army files open, each with its unsaved changes and history.
    pub fn docs(&self) -> &[ArmyDoc] {
        &self.docs
    }

    /// The unsaved changes found on start that are still offered back.
    pub fn offers(&self) -> &[autosave::Offer] {
        &self.offers
    }

    /// The army shown (by id): in the army editor, or the army of the tile shown.
    pub fn army(&self) -> Option<&str> {
        self.army.as_deref()
    }

    /// The tile shown, as the catalog in play knows it (`None`: an army, or nothing).
    pub fn selected(&self) -> Option<TileRef> {
        self.selected
    }

    /// The army file and tile being edited.
    pub fn open(&self) -> Option<&Open> {
        self.open.as_ref()
    }

    /// The edge being edited (0 front, clockwise) of the open tile.
    pub fn edge(&self) -> Option<usize> {
        self.editing.edge
    }

    /// The Lua file open in the text editor below the tile.
    pub fn lua(&self) -> Option<&LuaEdit> {
        self.lua.as_ref()
    }

    /// The "New army…" form while it is open.
    pub fn form(&self) -> Option<&new_army::Form> {
        self.form.as_ref()
    }

    /// The problem whose spot in its file is shown (in place of the tile or army view).
    pub fn spot(&self) -> Option<&Spot> {
        self.spot.as_ref()
    }

    /// What the browser marks as shown, with `unsaved` the ids of the armies with unsaved
    /// changes ([`Designer::unsaved_armies`]).
    pub fn showing<'a>(&'a self, unsaved: &'a [String]) -> Showing<'a> {
        Showing {
            army: self.army.as_deref(),
            tile: self.selected,
            unsaved,
        }
    }

    /// The ids of the armies whose files have unsaved changes.
    pub fn unsaved_armies(&self) -> Vec<String> {
        self.docs
            .iter()
            .filter(|d| d.dirty())
            .map(ArmyDoc::army_id)
            .collect()
    }

    /// The army files with unsaved changes that load (no problem), as the Balance tab compares
    /// them with the saved files.
    pub fn unsaved_edits(&self) -> Vec<crate::balance::worker::Edited> {
        self.docs
            .iter()
            .filter(|d| d.dirty() && d.problems().is_empty())
            .map(|d| crate::balance::worker::Edited {
                army: d.army_id(),
                path: d.path.clone(),
                text: d.text().to_string(),
            })
            .collect()
    }

    /// The files with unsaved changes (army files, and the Lua file being edited).
    pub fn unsaved(&self) -> Vec<PathBuf> {
        let lua = self
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

    /// Whether the designer agreed to close the window with unsaved changes (they stay
    /// autosaved).
    pub fn quit_agreed(&self) -> bool {
        self.quit
    }

    /// The window is closing with unsaved changes: they are autosaved now, and the designer is
    /// asked what to do with them.
    pub fn ask_to_quit(&mut self, out: &mut Vec<Msg>) {
        self.autosave_now(out);
        self.confirm = Some(Confirm::Quit);
    }

    /// Shows the tile `t` of `content`: its army file opens as a document (a tile a patch made,
    /// with no file of its own, is shown read-only).
    pub fn select_tile(&mut self, t: TileRef, content: &Content, out: &mut Vec<Msg>) {
        let tile = content.catalog().get(t);
        let (army, id) = (tile.army.clone(), tile.id.clone());
        self.selected = Some(t);
        self.army = Some(army.clone());
        self.source = None;
        self.editing.edge = None;
        self.open = self.open_army_file(&army, content, out).and_then(|file| {
            let d = self.doc(&file)?;
            Some(Open {
                tile: Some(self.docs[d].tile_index(&id)?),
                file,
            })
        });
    }

    /// Shows the army `id` in the army editor.
    pub fn select_army(&mut self, id: &str, content: &Content, out: &mut Vec<Msg>) {
        self.army = Some(id.to_string());
        self.selected = None;
        self.source = None;
        self.open = self
            .open_army_file(id, content, out)
            .map(|file| Open { file, tile: None });
    }

    /// Shows where `problem` is: its file's lines around it, as the file is on disk (or in its
    /// open document, from the next frame on).
    pub fn show_spot(&mut self, problem: &Diagnostic) {
        self.spot = Some(Spot::read(problem));
    }

    /// Opens the army file of the army `id` as a document (once); `None` when the army has no
    /// file of its own or it cannot be opened (the status bar says why).
    fn open_army_file(
        &mut self,
        id: &str,
        content: &Content,
        out: &mut Vec<Msg>,
    ) -> Option<PathBuf> {
        let (file, mod_dir) = new_army::army_file(content.loaded(), id)?;
        if self.doc(&file).is_none() {
            match ArmyDoc::open(&file, &mod_dir) {
                Ok(d) => self.docs.push(d),
                Err(e) => {
                    out.push(Msg::Status(e.to_string()));
                    return None;
                }
            }
        }
        Some(file)
    }

    /// The index of the open document of `file`.
    fn doc(&self, file: &Path) -> Option<usize> {
        self.docs.iter().position(|d| d.path == file)
    }

    /// Saves `file`; the hot reload then loads it like any saved file.
    fn save(&mut self, file: &Path, out: &mut Vec<Msg>) -> Result<(), String> {
        let d = self.doc(file).ok_or("the file is not open")?;
        let doc = &mut self.docs[d];
        doc.save().map_err(|e| e.to_string())?;
        let problems = doc.problems().len();
        let name = doc.file_name();
        out.push(Msg::Status(if problems == 0 {
            format!("saved {name}")
        } else {
            format!(
                "saved {name} with {problems} problem(s): the editor plays the last good content until they are fixed"
            )
        }));
        out.push(Msg::FilesWritten);
        Ok(())
    }

    /// Saves every file with unsaved changes; the first failure stops it.
    fn save_all(&mut self) -> Result<(), String> {
        if let Some(lua) = self.lua.as_mut().filter(|l| l.dirty()) {
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
    /// they stay unsaved (and autosaved) until saved or discarded. A file on disk that cannot be
    /// read is an error (the offer stays): it is never taken for an empty one.
    fn restore(&mut self, i: usize) -> Result<(), String> {
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
            // No file any more: the unsaved text is saved where it was. A file that is there but
            // cannot be read stops here, before anything could be saved over it.
            let disk = match crate::disk::read(&offer.file) {
                Ok(text) => text,
                Err(e) if e.is_missing() => String::new(),
                Err(e) => {
                    self.offers.insert(i, offer);
                    return Err(format!(
                        "{e}; the unsaved changes stay in their autosave and are offered again"
                    ));
                }
            };
            let restored = ArmyDoc::with_text(&offer.file, &offer.mod_dir, disk.clone(), disk)
                .ok()
                .and_then(|mut d| {
                    (d.text() == offer.text || d.bring_back(offer.text.clone())).then_some(d)
                });
            let doc = match restored {
                Some(d) => d,
                // The file is gone or does not read as TOML: the unsaved text alone, to be saved
                // over it.
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
        self.open = Some(Open {
            file: offer.file,
            tile: None,
        });
        Ok(())
    }

    /// Deletes the autosave of offer `i` (the designer chose to drop those changes).
    fn discard_offer(&mut self, i: usize) -> Result<(), String> {
        if i >= self.offers.len() {
            return Err("no such unsaved changes".into());
        }
        let offer = self.offers.remove(i);
        autosave::remove(&offer.file).map_err(|e| format!("cannot delete the autosave: {e}"))
    }

    /// Writes the autosaves that are due at `now`; a failure is told in the status bar.
    pub fn autosave(&mut self, now: Instant, out: &mut Vec<Msg>) {
        for d in &mut self.docs {
            if let Err(e) = d.autosave(now) {
                out.push(Msg::Status(format!(
                    "cannot autosave {}: {e}",
                    d.file_name()
                )));
            }
        }
    }

    /// Whether an autosave is waiting to be written (the window should look again soon).
    pub fn autosave_waiting(&self) -> bool {
        self.docs.iter().any(ArmyDoc::autosave_waiting)
    }

    /// Writes every unsaved change to its autosave now (the window is closing).
    pub fn autosave_now(&mut self, out: &mut Vec<Msg>) {
        self.autosave(Instant::now() + autosave::DELAY, out);
    }

    /// The content in play is replaced by a new load (`old` by `new`): the tile shown follows
    /// its id (tile refs index the catalog), and the ability source shown goes.
    pub fn content_adopted(&mut self, old: &Catalog, new: &Catalog) {
        let selected = self.selected.map(|t| old.get(t).full_id());
        self.selected = selected.and_then(|id| new.find(&id));
        self.source = None;
    }

    /// The content was loaded again (adopted or refused): open documents follow their files on
    /// disk (a file that cannot be read is told, its buffer kept), the spot shown follows its
    /// file, and an army made a moment ago opens.
    pub fn reloaded(&mut self, content: &Content, out: &mut Vec<Msg>) {
        for d in &mut self.docs {
            match crate::disk::read(&d.path) {
                Ok(disk) => d.disk_changed(disk),
                Err(e) => out.push(Msg::Status(still_open(&e))),
            }
        }
        if let Some(lua) = &mut self.lua {
            match crate::disk::read(&lua.path) {
                Ok(disk) => lua.disk_changed(disk),
                Err(e) => out.push(Msg::Status(still_open(&e))),
            }
        }
        self.refresh_spot(content, true);
        if let Some(id) = self.pending.clone()
            && content.catalog().army(&id).is_some()
        {
            self.pending = None;
            self.select_army(&id, content, out);
        }
    }

    /// Keeps the spot shown up to date: with its file's open document (its text and problems as
    /// they are now), else, after a reload (`reloaded`), with the file on disk and the problems
    /// (or why the file cannot be read any more).
    fn refresh_spot(&mut self, content: &Content, reloaded: bool) {
        let Some(spot) = &mut self.spot else {
            return;
        };
        if let Some(d) = self.docs.iter().find(|d| d.path == spot.problem.file) {
            spot.refresh(d.problems(), d.text());
        } else if reloaded {
            match crate::disk::read(&spot.problem.file) {
                Ok(text) => {
                    let problems: Vec<Diagnostic> = content
                        .refused()
                        .iter()
                        .chain(content.loaded().problems.iter())
                        .cloned()
                        .collect();
                    spot.refresh(&problems, &text);
                }
                Err(e) => *spot = Spot::unreadable(&spot.problem, &e),
            }
        }
    }

    /// Creates the army the form asks for; it opens once the reload has loaded it.
    pub fn create_army(
        &mut self,
        form: &new_army::Form,
        content: &Content,
        out: &mut Vec<Msg>,
    ) -> Result<(), String> {
        let c = new_army::create(content.loaded(), content.roots(), content.user_mods(), form)?;
        self.pending = Some(form.id.clone());
        out.push(Msg::Status(format!(
            "created {}{}",
            c.file.display(),
            c.note.map(|n| format!(": {n}")).unwrap_or_default()
        )));
        out.push(match c.new_root {
            // A folder the editor did not load: load and watch it from now on.
            Some(root) => Msg::WatchFolder(root),
            None => Msg::FilesWritten,
        });
        Ok(())
    }

    /// Makes a new ability from the template in the mod of the open tile, binds it to the tile,
    /// and opens its Lua file.
    fn new_ability(
        &mut self,
        hook: &str,
        content: &Content,
        out: &mut Vec<Msg>,
    ) -> Result<(), String> {
        let Some(Open {
            file,
            tile: Some(i),
        }) = self.open.clone()
        else {
            return Err("open a tile first".into());
        };
        let d = self.doc(&file).ok_or("the file is not open")?;
        let mod_dir = self.docs[d].mod_dir.clone();
        let known = hexforge_script::hook_names(&content.loaded().mods, &content.mod_id(&mod_dir));
        let path = new_army::new_ability(&mod_dir, hook, &known)?;
        out.push(Msg::FilesWritten);
        // Read back as written: a file that cannot be read never opens as an empty one.
        let text = crate::disk::read(&path).map_err(|e| {
            format!("{e}: the ability's file was made, but it is not bound or opened here")
        })?;
        self.docs[d].add_ability(i, hook);
        self.lua = Some(LuaEdit::open(path, text).at_ability(hook));
        self.editing.new_hook.clear();
        Ok(())
    }

    fn undo(&mut self, redo: bool, out: &mut Vec<Msg>) {
        let Some(open) = &self.open else {
            return;
        };
        if let Some(d) = self.doc(&open.file) {
            self.editing.focus = None;
            let done = if redo {
                self.docs[d].redo()
            } else {
                self.docs[d].undo()
            };
            // A tile that went away with the step leaves the army view open.
            let count = self.docs[d].tile_count();
            if let Some(o) = &mut self.open
                && o.tile.is_some_and(|t| t >= count)
            {
                o.tile = None;
            }
            if !done {
                out.push(Msg::Status(format!(
                    "nothing to {}",
                    if redo { "redo" } else { "undo" }
                )));
            }
        }
    }

    /// Carries out what a confirmation answered.
    fn confirmed(&mut self, c: Confirm, ctx: &egui::Context, out: &mut Vec<Msg>) {
        let result = match c {
            Confirm::DeleteTile { file, tile } => {
                if let Some(d) = self.doc(&file) {
                    self.docs[d].delete_tile(tile);
                    if let Some(o) = &mut self.open {
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
            Confirm::DeleteArmy { file } => self.delete_army(&file, out),
            Confirm::Quit => {
                self.autosave_now(out);
                self.quit = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                Ok(())
            }
        };
        if let Err(e) = result {
            out.push(Msg::Status(e));
        }
    }

    fn delete_army(&mut self, file: &Path, out: &mut Vec<Msg>) -> Result<(), String> {
        let d = self.doc(file).ok_or("the file is not open")?;
        let id = self.docs[d].army_id();
        let mod_dir = self.docs[d].mod_dir.clone();
        new_army::delete_army(file, &mod_dir, &id)?;
        self.docs.remove(d);
        self.open = None;
        self.army = None;
        self.selected = None;
        out.push(Msg::Status(format!("deleted {}", file.display())));
        Ok(())
    }

    /// The Designer tab's central view over `content`: the spot of a problem when one is shown,
    /// else the new-army form, or the toolbar and the tile designer, the army editor or a
    /// read-only tile or army.
    pub fn ui(&mut self, ui: &mut egui::Ui, content: &Content, out: &mut Vec<Msg>) {
        self.refresh_spot(content, false);
        if let Some(spot) = &self.spot {
            if ui.button("Close the file view").clicked() {
                self.spot = None;
            } else {
                spot.ui(ui);
            }
            return;
        }
        self.shortcuts(ui, out);
        if let Some(mut form) = self.form.take() {
            let answer = new_army::form_ui(
                ui,
                &mut form,
                content.loaded(),
                content.roots(),
                content.user_mods(),
            );
            match answer {
                Some(true) => {
                    if let Err(e) = self.create_army(&form, content, out) {
                        form.error = Some(e);
                        self.form = Some(form);
                    }
                }
                Some(false) => {}
                None => self.form = Some(form),
            }
            return;
        }
        self.toolbar(ui, content, out);
        let open = self.open.clone();
        match open.and_then(|o| Some((self.doc(&o.file)?, o.tile))) {
            Some((d, Some(t))) if t < self.docs[d].tile_count() => {
                self.tile_designer(ui, content, d, t, out)
            }
            Some((d, _)) => self.army_editor(ui, content, d),
            None => self.read_only(ui, content, out),
        }
    }

    /// The designer's modal windows (from any tab): a conflict with the disk, the unsaved
    /// changes offered back, and a question before something is dropped.
    pub fn modals(&mut self, ctx: &egui::Context, out: &mut Vec<Msg>) {
        self.conflict_modal(ctx, out);
        self.offer_modal(ctx, out);
        self.confirm_modal(ctx, out);
    }

    /// Ctrl+S saves, Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo (the designer's history, not a
    /// text field's).
    fn shortcuts(&mut self, ui: &mut egui::Ui, out: &mut Vec<Msg>) {
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
            self.save_lua(out);
        } else if save
            && let Some(o) = self.open.clone()
            && let Err(e) = self.save(&o.file, out)
        {
            out.push(Msg::Status(e));
        }
        if redo {
            self.undo(true, out);
        } else if undo {
            self.undo(false, out);
        }
    }

    /// The unsaved changes found on start, offered back or dropped one file at a time, in a modal
    /// window (from any tab).
    fn offer_modal(&mut self, ctx: &egui::Context, out: &mut Vec<Msg>) {
        let Some(o) = self.offers.first() else {
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
            Some(true) => self.restore(0),
            Some(false) => self.discard_offer(0),
            None => Ok(()),
        };
        if let Err(e) = result {
            out.push(Msg::Status(e));
        }
    }

    /// A question asked before something is dropped or deleted, in a modal window (from any tab).
    fn confirm_modal(&mut self, ctx: &egui::Context, out: &mut Vec<Msg>) {
        let Some(c) = self.confirm.clone() else {
            return;
        };
        let (question, yes) = match &c {
            Confirm::DeleteTile { file, tile } => {
                let id = self
                    .doc(file)
                    .map(|d| self.docs[d].tile_id(*tile))
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
                    self.unsaved()
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
                    match self.save_all() {
                        Ok(()) => {
                            self.confirm = None;
                            self.quit = true;
                            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                        }
                        Err(e) => out.push(Msg::Status(e)),
                    }
                }
                if ui.button(yes).clicked() {
                    self.confirm = None;
                    self.confirmed(c.clone(), ctx, out);
                }
                if ui.button("Cancel").clicked() {
                    self.confirm = None;
                }
            });
        });
    }

    /// What can be done to the open file, then its name and state: the buttons come first and
    /// are always there (greyed out when they do not apply), so none moves whatever the state.
    fn toolbar(&mut self, ui: &mut egui::Ui, content: &Content, out: &mut Vec<Msg>) {
        let doc = self.open.as_ref().and_then(|o| self.doc(&o.file));
        let file = doc.map(|d| self.docs[d].path.clone());
        let (dirty, can_undo, can_redo) = doc.map_or((false, false, false), |d| {
            let doc = &self.docs[d];
            (doc.dirty(), doc.history.can_undo(), doc.history.can_redo())
        });
        ui.horizontal(|ui| {
            if ui
                .add_enabled(dirty, egui::Button::new("Save"))
                .on_hover_text("Ctrl+S")
                .clicked()
                && let Some(file) = &file
                && let Err(e) = self.save(file, out)
            {
                out.push(Msg::Status(e));
            }
            if ui
                .add_enabled(can_undo, egui::Button::new("Undo"))
                .on_hover_text("Ctrl+Z")
                .clicked()
            {
                self.undo(false, out);
            }
            if ui
                .add_enabled(can_redo, egui::Button::new("Redo"))
                .on_hover_text("Ctrl+Shift+Z or Ctrl+Y")
                .clicked()
            {
                self.undo(true, out);
            }
            if ui
                .add_enabled(dirty, egui::Button::new("Discard changes…"))
                .clicked()
                && let Some(file) = &file
            {
                self.confirm = Some(Confirm::Discard { file: file.clone() });
            }
            if ui
                .add_enabled(file.is_some(), egui::Button::new("Delete the army…"))
                .clicked()
                && let Some(file) = &file
            {
                self.confirm = Some(Confirm::DeleteArmy { file: file.clone() });
            }
            if ui.button("New army…").clicked() {
                let user = content.user_mods().is_some();
                self.form = Some(new_army::Form::new(
                    content.loaded(),
                    self.army.as_deref(),
                    user,
                ));
            }
            ui.separator();
            // The file's name and state, after the buttons.
            if let Some(d) = doc {
                let doc = &self.docs[d];
                if doc.dirty() {
                    ui.colored_label(
                        egui::Color32::YELLOW,
                        format!("{} (unsaved changes)", doc.file_name()),
                    );
                } else {
                    ui.label(doc.file_name());
                }
                let others = self
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

    /// When a buffer with unsaved edits meets a different text on disk: both versions shown, and
    /// nothing written or dropped until the designer keeps theirs or takes the disk's (from any
    /// tab).
    fn conflict_modal(&mut self, ctx: &egui::Context, out: &mut Vec<Msg>) {
        let lua = self.lua.as_ref().and_then(|l| {
            let disk = l.disk.conflict.clone()?;
            Some((Buffer::Lua, l.path.clone(), l.text.clone(), disk))
        });
        let found = lua.or_else(|| {
            self.docs.iter().enumerate().find_map(|(i, d)| {
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
            (Some(true), Buffer::Lua) => self.lua.as_mut().map_or(Ok(()), LuaEdit::keep_mine),
            (Some(false), Buffer::Lua) => {
                if let Some(l) = self.lua.as_mut() {
                    l.take_disk();
                }
                Ok(())
            }
            (Some(true), Buffer::Doc(d)) => self.docs[d].keep_mine().map_err(|e| e.to_string()),
            (Some(false), Buffer::Doc(d)) => self.docs[d].take_disk().map_err(|e| e.to_string()),
        };
        out.push(Msg::Status(match result {
            Ok(()) if keep == Some(true) => format!("saved your version of {}", file_name(&path)),
            Ok(()) => format!("took the version of {} on disk", file_name(&path)),
            Err(e) => e,
        }));
        out.push(Msg::FilesWritten);
    }

    /// The tile designer: the drawing and the edge being edited on the left, the tile's fields,
    /// abilities and problems on the right.
    fn tile_designer(
        &mut self,
        ui: &mut egui::Ui,
        content: &Content,
        d: usize,
        t: usize,
        out: &mut Vec<Msg>,
    ) {
        let mod_id = content.mod_id(&self.docs[d].mod_dir);
        let hooks = hexforge_script::hook_names(&content.loaded().mods, &mod_id);
        let Designer { docs, editing, .. } = self;
        let doc = &mut docs[d];
        let file = doc.path.clone();
        let lines = tile_lines(doc.text());
        // This tile's problems, and the army's own (its header: the size, the HQ count).
        let from = lines.get(t).copied().unwrap_or(0);
        let to = lines.get(t + 1).copied().unwrap_or(usize::MAX);
        let header = lines.first().copied().unwrap_or(usize::MAX);
        let mut problems: Vec<Diagnostic> = doc
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
                problems.push(Diagnostic {
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
                drawing(ui, editing, tile.as_ref());
                edge_editor(ui, editing, doc, t);
            });
            ui.vertical(|ui| {
                fields(ui, editing, doc, t, &bad_keys);
                ui.separator();
                abilities(ui, editing, doc, t, &hooks, &mut wanted_source);
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
            self.spot = Some(Spot::in_text(&p, self.docs[d].text()));
        }
        if std::mem::take(&mut self.editing.pending_hook) {
            let hook = self.editing.new_hook.trim().to_string();
            let note = match self.new_ability(&hook, content, out) {
                Ok(()) => {
                    format!(
                        "made the ability `{hook}`: write it below, save it, then save the army"
                    )
                }
                Err(e) => e,
            };
            out.push(Msg::Status(note));
        }
        if back {
            if let Some(o) = &mut self.open {
                o.tile = None;
            }
            self.selected = None;
        }
        match action {
            Some(army_view::DeckAction::Duplicate(i)) => {
                if let Some(n) = self.docs[d].duplicate_tile(i)
                    && let Some(o) = &mut self.open
                {
                    o.tile = Some(n);
                }
            }
            Some(army_view::DeckAction::Delete(i)) => {
                self.confirm = Some(Confirm::DeleteTile { file, tile: i });
            }
            _ => {}
        }
        if let Some(hook) = wanted_source {
            self.show_source(content, &mod_id, &hook, out);
        }
        self.source_view(ui, content, out);
        self.lua_editor(ui, out);
    }

    /// Looks up where `hook` is written, seen from the mod `mod_id`, to show it.
    fn show_source(&mut self, content: &Content, mod_id: &str, hook: &str, out: &mut Vec<Msg>) {
        self.source = hexforge_script::hook_source(&content.loaded().mods, mod_id, hook);
        if self.source.is_none() {
            out.push(Msg::Status(format!(
                "no Lua file defines the ability {hook:?}"
            )));
        }
    }

    /// The Lua source of the ability asked for, with its file and line; a mod's own file opens in
    /// the Lua editor on a click (one that cannot be read says why, and opens nothing).
    fn source_view(&mut self, ui: &mut egui::Ui, content: &Content, out: &mut Vec<Msg>) {
        let Some(source) = self.source.clone() else {
            return;
        };
        ui.separator();
        ui.horizontal(|ui| {
            ui.label(egui::RichText::new(format!("{}:{}", source.file, source.line)).strong());
            let path = PathBuf::from(&source.file);
            let own = content
                .loaded()
                .mods
                .iter()
                .any(|m| path.starts_with(&m.dir))
                && path.is_file();
            if own && ui.button("Edit the Lua file").clicked() {
                match crate::disk::read(&path) {
                    Ok(text) => {
                        let mut lua = LuaEdit::open(path, text);
                        lua.goto = Some(source.line);
                        self.lua = Some(lua);
                    }
                    Err(e) => out.push(Msg::Status(e.to_string())),
                }
            }
            if ui.button("Close the source").clicked() {
                self.source = None;
            }
        });
        egui::ScrollArea::vertical()
            .id_salt("hook_source")
            .max_height(220.0)
            .show(ui, |ui| {
                ui.label(egui::RichText::new(&source.text).monospace());
            });
    }

    /// Saves the Lua file being edited (atomically) unless it changed on disk meanwhile (then
    /// the designer is asked); the hot reload then loads it.
    fn save_lua(&mut self, out: &mut Vec<Msg>) {
        let Some(lua) = &mut self.lua else {
            return;
        };
        match lua.save() {
            Ok(()) => out.push(Msg::FilesWritten),
            Err(e) => out.push(Msg::Status(e)),
        }
    }

    /// The Lua file open for editing, below the tile: saved atomically (then reloaded like any
    /// saved file), closed, or a syntax error's spot shown, as the designer asks.
    fn lua_editor(&mut self, ui: &mut egui::Ui, out: &mut Vec<Msg>) {
        let Some(lua) = &mut self.lua else {
            return;
        };
        ui.separator();
        match lua.ui(ui) {
            Some(LuaAction::Save) => self.save_lua(out),
            Some(LuaAction::Close) => self.lua = None,
            Some(LuaAction::Show(spot)) => self.spot = Some(spot),
            None => {}
        }
    }

    /// The army editor: the army's id, name and size, its totals and size warning, new tiles,
    /// and the deck (a click opens a tile; its menu duplicates or deletes it).
    fn army_editor(&mut self, ui: &mut egui::Ui, content: &Content, d: usize) {
        let Designer {
            docs,
            editing,
            confirm,
            ..
        } = self;
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
                if let Some(new) = field(ui, &mut editing.focus, doc, &group, look, current) {
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
                *confirm = Some(Confirm::DeleteTile {
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
            self.spot = Some(Spot::in_text(&p, &text));
        }
        if let (Some(i), Some(id)) = (opened, opened_id) {
            if let Some(o) = &mut self.open {
                o.tile = Some(i);
            }
            self.editing.edge = None;
            self.source = None;
            self.selected = content.catalog().find(&format!("{army}/{id}"));
        }
    }

    /// An army or tile with no file of its own (a patch made it): shown, not edited.
    fn read_only(&mut self, ui: &mut egui::Ui, content: &Content, out: &mut Vec<Msg>) {
        let catalog = content.catalog();
        match (
            self.selected,
            self.army.as_deref().and_then(|a| catalog.army(a)),
        ) {
            (Some(t), _) => {
                let tile = catalog.get(t);
                ui.label("A patch makes this tile: edit the patch file to change it.");
                if let Some(hook) = tile_view::ui(ui, tile) {
                    let owner = content
                        .loaded()
                        .mods
                        .iter()
                        .find(|m| m.armies.iter().any(|a| a.id == tile.army))
                        .map_or_else(String::new, |m| m.id.clone());
                    self.show_source(content, &owner, &hook, out);
                }
                self.source_view(ui, content, out);
            }
            (None, Some(army)) => {
                if let Some(t) = army_view::ui(ui, catalog, army) {
                    self.select_tile(t, content, out);
                }
            }
            (None, None) => {
                ui.label("Select an army or a tile in the browser to see it.");
            }
        }
    }
}

/// What the designer is told when the file of an open buffer cannot be read after a reload: the
/// file and why, and that its text stays open.
fn still_open(e: &ReadError) -> String {
    if e.is_missing() {
        format!("{e}; its text stays open here, and saving writes it again")
    } else {
        format!("{e}; its text stays open here, and saving writes nothing over what cannot be read")
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Which buffer a conflict with the disk is in.
enum Buffer {
    Lua,
    Doc(usize),
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

/// The tile drawn large; a click on an edge selects it for the edge editor.
fn drawing(ui: &mut egui::Ui, editing: &mut Editing, tile: Option<&hexforge_core::Tile>) {
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
    if let Some(e) = editing.edge {
        outline(e, egui::Color32::WHITE, &painter);
    }
    if response.clicked()
        && let Some(p) = response.interact_pointer_pos()
    {
        editing.edge = tile_view::edge_at(c, r, 0, p).map(|e| e.index() as usize);
    }
}

/// The icons of the selected edge, each one click to change.
fn edge_editor(ui: &mut egui::Ui, editing: &mut Editing, doc: &mut ArmyDoc, t: usize) {
    let Some(e) = editing.edge else {
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
fn fields(ui: &mut egui::Ui, editing: &mut Editing, doc: &mut ArmyDoc, t: usize, bad: &[String]) {
    let prefix = format!("{}#{t}", doc.path.display());
    let row = Row {
        prefix: &prefix,
        t,
        bad,
    };
    let focus = &mut editing.focus;
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
    editing: &mut Editing,
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
                &mut editing.focus,
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
                    Ok(()) => editing.params_error = None,
                    Err(e) => editing.params_error = Some((key.clone(), e)),
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
            if let Some((key, e)) = &editing.params_error
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
        ui.add(egui::TextEdit::singleline(&mut editing.new_hook).desired_width(160.0))
            .labelled_by(l.id);
        if ui
            .button("New ability")
            .on_hover_text("Writes scripts/<name>.lua in this mod from the template, binds it to this tile and opens it")
            .clicked()
        {
            editing.pending_hook = true;
        }
    });
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
