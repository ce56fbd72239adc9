//! Hexforge's editor, as a library of egui views over the engine's content: a mod browser (mods,
//! their armies and tiles, with search, a kind filter and each mod's problems beside it), the
//! designer (a tile drawn large with its real icons and edited field by field, edge by edge; the
//! army's deck with its totals; army files edited as TOML documents that keep their comments,
//! with undo, atomic saving, autosaves offered back, new armies and abilities), and hot reload of
//! the mod folders. The binary (`main.rs`) only opens a window around [`Editor::ui`]; tests drive
//! the same views headlessly. The editor reads definitions and never works out a rule itself:
//! validation is the content crate's.

#![warn(missing_docs)]

pub mod army_view;
pub mod autosave;
pub mod board_view;
pub mod browser;
pub mod designer;
pub mod disk;
pub mod document;
pub mod history;
pub mod lua_view;
pub mod new_army;
pub mod reload;
pub mod replays;
pub mod rules_panel;
pub mod sandbox;
pub mod spot;
pub mod tile_view;

use hexforge_content::{Diagnostic, LoadedMods};
use hexforge_core::{TileKind, TileRef};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The editor's main views, one shown at a time beside the status bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// The mod browser with the tile designer and the army editor.
    Designer,
    /// The sandbox board: place tiles for any side and step through test battles.
    Sandbox,
    /// The replay viewer: recorded games, step by step.
    Replays,
}

/// The editor's state: the loaded content and what the designer is looking at.
pub struct Editor {
    /// The content in play: the mods, their catalog and problems (the last good load).
    pub loaded: LoadedMods,
    /// The Lua abilities of `loaded`, which the sandbox's battles and the replays run.
    pub scripts: hexforge_script::ScriptHost,
    /// The view shown.
    pub tab: Tab,
    /// The sandbox board.
    pub sandbox: sandbox::Sandbox,
    /// The replay viewer.
    pub replays: replays::Replays,
    /// Text that filters the browser's tiles (by id or name).
    pub search: String,
    /// Only tiles of this kind are listed (all kinds when `None`).
    pub kind: Option<TileKind>,
    /// The army shown in the army view (by id) when no tile is selected.
    pub army: Option<String>,
    /// The tile shown in the tile view.
    pub selected: Option<TileRef>,
    /// The folders the content was loaded from.
    pub roots: Vec<PathBuf>,
    /// The watch on `roots` that drives hot reload (`None` when it could not start: see `status`).
    watch: Option<reload::FolderWatch>,
    /// What the last reload did, for the status bar.
    pub status: String,
    /// The problems of the last reload that was refused (the last good content stayed in play).
    pub refused: Vec<Diagnostic>,
    /// The Lua source of an ability of the tile shown, when the designer asked for it.
    pub source: Option<hexforge_script::HookSource>,
    /// The problem whose spot in its file is shown (it takes the place of the tile or army view).
    pub spot: Option<spot::Spot>,
    /// The army files open in the designer, each with its unsaved changes and history.
    pub docs: Vec<document::ArmyDoc>,
    /// What the designer is editing and asking.
    pub designer: designer::Designer,
    /// Unsaved changes found on start (autosaves), offered back.
    pub offers: Vec<autosave::Offer>,
    /// Where new mods of the user go (`None`: there is no such folder).
    pub user_mods: Option<PathBuf>,
    /// The window's waker, kept to watch again when a folder is added.
    waker: Option<Arc<Mutex<reload::Waker>>>,
    /// What each mod folder gave when last read, and each mod's Lua state: a reload reads and
    /// rebuilds only the mods that changed. It follows the disk even when a reload is refused.
    reloader: hexforge_script::Reloader,
}

impl Editor {
    /// Loads the mods below `roots` (manifests, armies, scripts), as the CLI does.
    pub fn load(roots: Vec<PathBuf>) -> Self {
        let mut reloader = hexforge_script::Reloader::new(hexforge_script::Limits::default());
        let mut loaded = reloader.reload(&roots, None).loaded;
        spot::place_columns(&mut loaded.mods.problems.0);
        let (watch, status) = watch(&roots, None);
        let offers = autosave::find(&hexforge_content::mod_dirs(&roots, &mut Vec::new()));
        Editor {
            loaded: loaded.mods,
            scripts: loaded.scripts,
            tab: Tab::Designer,
            sandbox: sandbox::Sandbox::default(),
            replays: replays::Replays::default(),
            search: String::new(),
            kind: None,
            army: None,
            selected: None,
            roots,
            watch,
            status,
            refused: Vec::new(),
            spot: None,
            source: None,
            docs: Vec::new(),
            designer: designer::Designer::default(),
            offers,
            user_mods: hexforge_content::user_mods_dir(|k| std::env::var_os(k)),
            waker: None,
            reloader,
        }
    }

    /// Starts the watch again with `wake` called on every change (from the watcher's thread), so
    /// a window that sleeps while nothing happens looks at the change at once.
    pub fn set_waker(&mut self, wake: reload::Waker) {
        self.waker = Some(Arc::new(Mutex::new(wake)));
        self.watch_again();
    }

    fn watch_again(&mut self) {
        let wake = self.waker.clone().map(|w| -> reload::Waker {
            Box::new(move || {
                if let Ok(wake) = w.lock() {
                    wake();
                }
            })
        });
        (self.watch, self.status) = watch(&self.roots, wake);
    }

    /// Loads and watches `root` too (a mod folder made outside the folders loaded), at once.
    pub fn add_root(&mut self, root: PathBuf) {
        if !self.roots.contains(&root) {
            self.roots.push(root);
            self.watch_again();
        }
        self.reload();
    }

    /// Shows the army `id` (e.g. `moloch`), or says which armies there are.
    pub fn open_army(&mut self, id: &str) -> Result<(), String> {
        if self.loaded.catalog.army(id).is_none() {
            let known: Vec<&str> = self
                .loaded
                .catalog
                .armies()
                .iter()
                .map(|a| a.id.as_str())
                .collect();
            return Err(format!(
                "no army {id:?} in the loaded mods; the armies are: {}",
                known.join(", ")
            ));
        }
        self.select_army(id);
        Ok(())
    }

    /// Shows the tile `full_id` (e.g. `moloch/gauss_cannon`) in the tile view.
    pub fn open_tile(&mut self, full_id: &str) -> Result<(), String> {
        let t = self.loaded.catalog.find(full_id).ok_or_else(|| {
            format!("no tile {full_id:?} in the loaded mods; give it as army/tile, e.g. moloch/gauss_cannon")
        })?;
        self.select_tile(t);
        Ok(())
    }

    /// Reloads the content if a watched file changed and settled (only the mods of the files
    /// that changed are read again); true when it reloaded (adopted or refused). Called every
    /// frame; a test may call it directly.
    pub fn poll(&mut self, now: Instant) -> bool {
        self.autosave_docs(now);
        let changes = self.watch.as_mut().and_then(|w| w.due(now));
        if let Some(changes) = &changes {
            self.reload_changed(changes.paths());
        }
        changes.is_some()
    }

    /// Whether a change is waiting to settle, so the window should look again soon.
    pub fn reload_waiting(&self) -> bool {
        self.watch.as_ref().is_some_and(|w| w.waiting())
    }

    /// Loads all the content again (every mod folder is read): the new content replaces the
    /// current one unless it brings new problems, which are then listed while the last good
    /// content stays in play.
    pub fn reload(&mut self) {
        self.reload_changed(None);
    }

    /// [`Editor::reload`] after the files `changed` changed (`None`: not known, read every mod
    /// folder): only the mod folders holding them, or whose files look different, are read
    /// again, and only the Lua states of mods whose scripts changed are built again; the result
    /// is the same as a full load's. The status bar names the mods read, e.g.
    /// `reloaded base (armies/moloch.toml) in 1.3 ms`.
    pub fn reload_changed(&mut self, changed: Option<&[PathBuf]>) {
        let start = Instant::now();
        let hexforge_script::Reloaded {
            loaded:
                hexforge_script::Loaded {
                    mods: mut new,
                    scripts,
                },
            read,
            gone,
            ..
        } = self.reloader.reload(&self.roots, changed);
        let took = start.elapsed();
        // Placed before comparing, as the content in play's were.
        spot::place_columns(&mut new.problems.0);
        let what = reload::describe(&read, &gone, changed, &new);
        if reload::adopt(&self.loaded, &new) {
            // Tile refs index the catalog: follow the selected tile by its id.
            let selected = self.selected.map(|t| self.loaded.catalog.get(t).full_id());
            self.selected = selected.and_then(|id| new.catalog.find(&id));
            self.loaded = new;
            self.scripts = scripts;
            self.sandbox.content_changed(&self.loaded.catalog);
            self.replays
                .content_changed(&self.loaded, &mut self.scripts);
            self.source = None;
            self.refused.clear();
            self.status = format!("reloaded {what} in {}", ms(took));
        } else {
            let mut refused: Vec<Diagnostic> = new.problems.iter().cloned().collect();
            for s in &new.skipped {
                if !refused.contains(&s.reason) {
                    refused.push(s.reason.clone());
                }
            }
            spot::place_columns(&mut refused);
            self.refused = refused;
            self.status = format!(
                "reload of {what} refused after {}: the last good content stays (see the problems)",
                ms(took)
            );
        }
        self.content_reloaded();
    }

    /// The whole editor in `ui`: the browser on the left, the selected tile on the right, and a
    /// status line below.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        designer::conflict_modal(self, ui.ctx());
        designer::offer_modal(self, ui.ctx());
        designer::confirm_modal(self, ui.ctx());
        // A panel of a fixed height, so the status and the problems stay in view whatever the
        // views hold, and nothing above moves when they change.
        egui::Panel::bottom("status")
            .resizable(false)
            .exact_size(STATUS_HEIGHT)
            .show(ui, |ui| self.status_bar(ui));
        egui::Panel::top("tabs").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.tab, Tab::Designer, "Designer");
                ui.selectable_value(&mut self.tab, Tab::Sandbox, "Sandbox");
                ui.selectable_value(&mut self.tab, Tab::Replays, "Replays");
            });
        });
        match self.tab {
            Tab::Designer => {
                egui::Panel::left("browser")
                    .default_size(320.0)
                    .show(ui, |ui| browser::ui(ui, self));
                egui::CentralPanel::default().show(ui, |ui| {
                    egui::ScrollArea::both().show(ui, |ui| self.main_view(ui));
                });
            }
            Tab::Sandbox => {
                self.sandbox.ui(ui, &self.loaded, &mut self.scripts);
                if let Some(p) = self.sandbox.clicked_problem.take() {
                    self.open_spot(&p, None);
                }
            }
            Tab::Replays => {
                if let Some(game) = self.replays.ui(ui, &self.loaded, &mut self.scripts) {
                    self.sandbox.open_game(&game);
                    self.tab = Tab::Sandbox;
                }
            }
        }
    }

    /// The problems the editor shows and counts: those of the reload that was refused while one
    /// is (the last good content stays in play), else those of the content loaded.
    pub fn problems(&self) -> &[Diagnostic] {
        if self.refused.is_empty() {
            &self.loaded.problems.0
        } else {
            &self.refused
        }
    }

    /// The status line: what is loaded, how many problems [`Editor::problems`] lists (and
    /// warnings, when a loaded mod has some), and what the last reload did.
    pub fn status_line(&self) -> String {
        let n = self.problems().len();
        let w = self.loaded.warnings.len();
        let warnings = if w == 0 {
            String::new()
        } else {
            format!(", {w} warning{}", if w == 1 { "" } else { "s" })
        };
        format!(
            "{} mods loaded, {} skipped, {n} problem{}{warnings}; {}",
            self.loaded.mods.len(),
            self.loaded.skipped.len(),
            if n == 1 { "" } else { "s" },
            self.status
        )
    }

    /// Shows where `problem` is, from any tab: its file's lines around it (`text`: the file's
    /// text in an editor buffer, else it is read from disk).
    pub fn open_spot(&mut self, problem: &Diagnostic, text: Option<&str>) {
        self.spot = Some(match text {
            Some(text) => spot::Spot::in_text(problem, text),
            None => spot::Spot::read(problem),
        });
        self.tab = Tab::Designer;
    }

    /// The status bar: the status line, what the last action did, and the problems (each one
    /// click from its spot), in a space of its own that never grows.
    fn status_bar(&mut self, ui: &mut egui::Ui) {
        ui.add(egui::Label::new(self.status_line()).truncate());
        let note = self.designer.note.clone().unwrap_or_default();
        ui.add(egui::Label::new(note).truncate());
        let mut clicked = None;
        egui::ScrollArea::vertical()
            .id_salt("status_problems")
            .auto_shrink([false, false])
            .max_height(ui.available_height())
            .show(ui, |ui| {
                if !self.refused.is_empty() {
                    ui.label(egui::RichText::new("The last save has problems:").strong());
                }
                for p in self.problems() {
                    if spot::problem_link(ui, p) {
                        clicked = Some(p.clone());
                    }
                }
                // What loaded mods are told without being refused (a mod written for an
                // earlier Hexforge): they play, and say what to check.
                for w in &self.loaded.warnings {
                    if spot::warning_link(ui, w) {
                        clicked = Some(w.clone());
                    }
                }
            });
        if let Some(p) = clicked {
            self.open_spot(&p, None);
        }
    }

    /// Keeps the spot shown up to date: with its file's open document (its text and problems as
    /// they are now), else, after a reload (`reloaded`), with the file on disk and the problems.
    pub(crate) fn refresh_spot(&mut self, reloaded: bool) {
        let Some(spot) = &mut self.spot else {
            return;
        };
        if let Some(d) = self.docs.iter().find(|d| d.path == spot.problem.file) {
            spot.refresh(d.problems(), d.text());
        } else if reloaded && let Some(text) = disk::read(&spot.problem.file) {
            let problems: Vec<Diagnostic> = self
                .refused
                .iter()
                .chain(self.loaded.problems.iter())
                .cloned()
                .collect();
            spot.refresh(&problems, &text);
        }
    }

    /// The spot of a problem, else the designer.
    fn main_view(&mut self, ui: &mut egui::Ui) {
        self.refresh_spot(false);
        if let Some(spot) = &self.spot {
            if ui.button("Close the file view").clicked() {
                self.spot = None;
            } else {
                spot.ui(ui);
            }
            return;
        }
        designer::ui(self, ui);
    }
}

/// A watch on `roots`, and the status line that says whether hot reload is on.
fn watch(roots: &[PathBuf], wake: Option<reload::Waker>) -> (Option<reload::FolderWatch>, String) {
    match reload::FolderWatch::new(roots, wake) {
        Ok(w) => (Some(w), "watching the mod folders".to_string()),
        Err(e) => (
            None,
            format!("hot reload is off: cannot watch the mod folders: {e}"),
        ),
    }
}

/// The height of the status bar: two lines and a few problems.
const STATUS_HEIGHT: f32 = 112.0;

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}
