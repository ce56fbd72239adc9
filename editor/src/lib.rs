//! Hexforge's editor, as a library of egui views over the engine's content: a mod browser (mods,
//! their armies and tiles, with search, a kind filter and each mod's problems beside it), the
//! designer (a tile drawn large with its real icons and edited field by field, edge by edge; the
//! army's deck with its totals; army files edited as TOML documents that keep their comments,
//! with undo, atomic saving, autosaves offered back, new armies and abilities), the sandbox, the
//! replay viewer, the Play view (people and bots playing a game), and hot reload of the mod folders. The binary (`main.rs`) only opens a window
//! around [`Editor::ui`]; tests drive the same views headlessly. The editor reads definitions and
//! never works out a rule itself: validation is the content crate's.
//!
//! Each view owns its state behind a small API and draws with only what it needs: the content
//! read-only ([`Content`]), and the Lua host passed in for the one call that runs scripts. A view
//! changes nothing outside itself: what it asks of the rest of the editor is a [`Msg`], which
//! [`Editor::ui`] applies in one place once every view has drawn.

#![warn(missing_docs)]

pub mod army_view;
pub mod autosave;
pub mod balance;
pub mod board_view;
pub mod browser;
pub mod content;
pub mod designer;
pub mod disk;
pub mod document;
pub mod history;
pub mod lua_view;
pub mod mods_panel;
pub mod msg;
pub mod new_army;
pub mod play;
pub mod reload;
pub mod replays;
pub mod rules_panel;
pub mod sandbox;
pub mod spot;
pub mod status_bar;
pub mod tile_view;

pub use content::Content;
pub use msg::{Msg, Tab};

use hexforge_script::ScriptHost;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The editor: the content in play, its views, the tab shown, and the reload of the mod folders.
pub struct Editor {
    /// The content in play, which every view reads.
    content: Content,
    /// The Lua abilities of the content, which the sandbox's battles and the replays run.
    scripts: ScriptHost,
    /// The view shown.
    tab: Tab,
    /// The mod browser beside the designer.
    browser: browser::Browser,
    /// The tile designer and army editor.
    designer: designer::Designer,
    /// The sandbox board.
    sandbox: sandbox::Sandbox,
    /// The replay viewer and "Play a match".
    replays: replays::Replays,
    /// The Play view: people and bots playing a game.
    play: play::Play,
    /// The Mods tab: a portal browsed, the user's mods installed, updated, enabled.
    mods: mods_panel::ModsPanel,
    /// The Balance tab: series of bot games for the army being edited.
    balance: balance::BalancePanel,
    /// What the last reload and the last action did.
    status: status_bar::StatusBar,
    /// The watch on the content's folders that drives hot reload (`None` when it could not
    /// start: the status bar says why).
    watch: Option<reload::FolderWatch>,
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
        let (watch, reload) = watch(&roots, None);
        let found = autosave::find(&hexforge_content::mod_dirs(&roots, &mut Vec::new()));
        let mut status = status_bar::StatusBar::new(reload);
        if !found.unreadable.is_empty() {
            let why: Vec<String> = found.unreadable.iter().map(|e| e.to_string()).collect();
            status.set_note(format!(
                "unsaved changes from last time that cannot be read are left on disk: {}",
                why.join("; ")
            ));
        }
        Editor {
            content: Content {
                loaded: loaded.mods,
                refused: Vec::new(),
                roots,
                user_mods: hexforge_content::user_mods_dir(|k| std::env::var_os(k)),
            },
            scripts: loaded.scripts,
            tab: Tab::Designer,
            browser: browser::Browser::default(),
            designer: designer::Designer::new(found.offers),
            sandbox: sandbox::Sandbox::default(),
            replays: replays::Replays::default(),
            play: play::Play::default(),
            mods: mods_panel::ModsPanel::default(),
            balance: balance::BalancePanel::default(),
            status,
            watch,
            waker: None,
            reloader,
        }
    }

    /// Makes new mods of the user go into `dir` (`None`: there is no such folder, new mods go
    /// beside the loaded ones).
    pub fn set_user_mods(&mut self, dir: Option<PathBuf>) {
        self.content.user_mods = dir;
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
        let (watch, reload) = watch(&self.content.roots, wake);
        self.watch = watch;
        self.status.set_reload(reload);
    }

    /// Loads and watches `root` too (a mod folder made outside the folders loaded), at once.
    fn add_root(&mut self, root: PathBuf) {
        if !self.content.roots.contains(&root) {
            self.content.roots.push(root);
            self.watch_again();
        }
        self.reload();
    }

    /// The Balance tab.
    pub fn balance(&self) -> &balance::BalancePanel {
        &self.balance
    }

    /// The Balance tab, to set a series up.
    pub fn balance_mut(&mut self) -> &mut balance::BalancePanel {
        &mut self.balance
    }

    /// Starts the Balance tab's series as set up, for the designer's army and its unsaved
    /// changes; the error says what to change.
    pub fn start_balance(&mut self) -> Result<(), String> {
        let unsaved = self.designer.unsaved_edits();
        self.balance
            .start(&self.content, self.designer.army(), &unsaved)
    }

    /// The Mods tab, to drive it.
    pub fn mods_panel_mut(&mut self) -> &mut mods_panel::ModsPanel {
        &mut self.mods
    }

    /// The content in play: the mods, their catalog and problems, and where they come from.
    pub fn content(&self) -> &Content {
        &self.content
    }

    /// The content and the Lua host of its abilities, to run the engine beside the editor (the
    /// host is the one the sandbox's battles and the replays run).
    pub fn content_and_scripts(&mut self) -> (&Content, &mut ScriptHost) {
        (&self.content, &mut self.scripts)
    }

    /// The view shown.
    pub fn tab(&self) -> Tab {
        self.tab
    }

    /// Shows the view `tab`.
    pub fn show(&mut self, tab: Tab) {
        self.apply(vec![Msg::ShowTab(tab)]);
    }

    /// The mod browser, to search it.
    pub fn browser_mut(&mut self) -> &mut browser::Browser {
        &mut self.browser
    }

    /// The tile designer and army editor.
    pub fn designer(&self) -> &designer::Designer {
        &self.designer
    }

    /// The sandbox board.
    pub fn sandbox(&self) -> &sandbox::Sandbox {
        &self.sandbox
    }

    /// The sandbox board, to set it up.
    pub fn sandbox_mut(&mut self) -> &mut sandbox::Sandbox {
        &mut self.sandbox
    }

    /// The replay viewer and "Play a match".
    pub fn replays(&self) -> &replays::Replays {
        &self.replays
    }

    /// The replay viewer and "Play a match", to set them up.
    pub fn replays_mut(&mut self) -> &mut replays::Replays {
        &mut self.replays
    }

    /// The Play view.
    pub fn play(&self) -> &play::Play {
        &self.play
    }

    /// The Play view, to set a game up and play it.
    pub fn play_mut(&mut self) -> &mut play::Play {
        &mut self.play
    }

    /// Shows the army `id` (e.g. `moloch`), or says which armies there are.
    pub fn open_army(&mut self, id: &str) -> Result<(), String> {
        let catalog = self.content.catalog();
        if catalog.army(id).is_none() {
            let known: Vec<&str> = catalog.armies().iter().map(|a| a.id.as_str()).collect();
            return Err(format!(
                "no army {id:?} in the loaded mods; the armies are: {}",
                known.join(", ")
            ));
        }
        self.apply(vec![Msg::SelectArmy(id.to_string())]);
        Ok(())
    }

    /// Shows the tile `full_id` (e.g. `moloch/gauss_cannon`) in the tile view.
    pub fn open_tile(&mut self, full_id: &str) -> Result<(), String> {
        let t = self.content.catalog().find(full_id).ok_or_else(|| {
            format!("no tile {full_id:?} in the loaded mods; give it as army/tile, e.g. moloch/gauss_cannon")
        })?;
        self.apply(vec![Msg::SelectTile(t)]);
        Ok(())
    }

    /// Opens the scenario file `path` on the sandbox board and shows the sandbox; the error says
    /// why it did not open.
    pub fn open_scenario(&mut self, path: &Path) -> Result<(), String> {
        self.sandbox.open_scenario(path, &self.content.loaded)?;
        self.apply(vec![Msg::ShowTab(Tab::Sandbox)]);
        Ok(())
    }

    /// Presses Battle on the sandbox: the engine resolves a battle on its board, shown step by
    /// step. The error is why there is no battle (as the sandbox shows it).
    pub fn start_battle(&mut self) -> Result<(), String> {
        self.sandbox
            .start_battle(&self.content.loaded.catalog, &mut self.scripts)
    }

    /// Opens the replay at `path` in the viewer (refused when its mods differ from those loaded)
    /// and shows the viewer.
    pub fn open_replay(&mut self, path: &Path) -> Result<(), replays::viewer::OpenError> {
        self.replays
            .open(path, &self.content.loaded, &mut self.scripts, false)?;
        self.apply(vec![Msg::ShowTab(Tab::Replays)]);
        Ok(())
    }

    /// Creates the army the form asks for (in a new mod folder, which is then loaded and
    /// watched, when it asks for one); it opens in the designer once the reload has loaded it.
    pub fn create_army(&mut self, form: &new_army::Form) -> Result<(), String> {
        let mut out = Vec::new();
        let made = self.designer.create_army(form, &self.content, &mut out);
        self.apply(out);
        made
    }

    /// The window is asked to close: true when it may (nothing is unsaved, or the designer
    /// already agreed); else the unsaved changes are autosaved, the designer is shown and asked,
    /// and false.
    pub fn may_close(&mut self) -> bool {
        if self.designer.quit_agreed() || self.designer.unsaved().is_empty() {
            return true;
        }
        let mut out = vec![Msg::ShowTab(Tab::Designer)];
        self.designer.ask_to_quit(&mut out);
        self.apply(out);
        false
    }

    /// Reloads the content if a watched file changed and settled (only the mods of the files
    /// that changed are read again), after writing the autosaves that are due; true when it
    /// reloaded (adopted or refused). Called every frame; a test may call it directly.
    pub fn poll(&mut self, now: Instant) -> bool {
        let mut out = Vec::new();
        self.designer.autosave(now, &mut out);
        self.apply(out);
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

    /// Whether an autosave is waiting to be written, so the window should look again soon.
    pub fn autosave_waiting(&self) -> bool {
        self.designer.autosave_waiting()
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
        } = self.reloader.reload(&self.content.roots, changed);
        let took = start.elapsed();
        // Placed before comparing, as the content in play's were.
        spot::place_columns(&mut new.problems.0);
        let what = reload::describe(&read, &gone, changed, &new);
        if reload::adopt(&self.content.loaded, &new) {
            self.designer
                .content_adopted(&self.content.loaded.catalog, &new.catalog);
            self.content.loaded = new;
            self.scripts = scripts;
            self.sandbox.content_changed(&self.content.loaded.catalog);
            self.replays
                .content_changed(&self.content.loaded, &mut self.scripts);
            self.content.refused.clear();
            self.status
                .set_reload(format!("reloaded {what} in {}", ms(took)));
        } else {
            let mut refused: Vec<hexforge_content::Diagnostic> =
                new.problems.iter().cloned().collect();
            for s in &new.skipped {
                if !refused.contains(&s.reason) {
                    refused.push(s.reason.clone());
                }
            }
            spot::place_columns(&mut refused);
            self.content.refused = refused;
            self.status.set_reload(format!(
                "reload of {what} refused after {}: the last good content stays (see the problems)",
                ms(took)
            ));
        }
        let mut out = Vec::new();
        self.designer.reloaded(&self.content, &mut out);
        self.apply(out);
    }

    /// The whole editor in `ui`: the tabs, the view shown, and the status bar below; then what
    /// the views asked, applied in one place.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let mut out = Vec::new();
        self.designer.modals(ui.ctx(), &mut out);
        // A panel of a fixed height, so the status and the problems stay in view whatever the
        // views hold, and nothing above moves when they change.
        egui::Panel::bottom("status")
            .resizable(false)
            .exact_size(status_bar::HEIGHT)
            .show(ui, |ui| self.status.ui(ui, &self.content, &mut out));
        egui::Panel::top("tabs").show(ui, |ui| {
            ui.horizontal(|ui| {
                for (tab, name) in [
                    (Tab::Designer, "Designer"),
                    (Tab::Sandbox, "Sandbox"),
                    (Tab::Replays, "Replays"),
                    (Tab::Play, "Play"),
                    (Tab::Mods, "Mods"),
                    (Tab::Balance, "Balance"),
                ] {
                    if ui.selectable_label(self.tab == tab, name).clicked() && self.tab != tab {
                        out.push(Msg::ShowTab(tab));
                    }
                }
            });
        });
        match self.tab {
            Tab::Designer => {
                let unsaved = self.designer.unsaved_armies();
                let showing = self.designer.showing(&unsaved);
                egui::Panel::left("browser")
                    .default_size(320.0)
                    .show(ui, |ui| {
                        self.browser.ui(ui, &self.content, showing, &mut out)
                    });
                egui::CentralPanel::default().show(ui, |ui| {
                    egui::ScrollArea::both()
                        .show(ui, |ui| self.designer.ui(ui, &self.content, &mut out));
                });
            }
            Tab::Sandbox => self
                .sandbox
                .ui(ui, &self.content.loaded, &mut self.scripts, &mut out),
            Tab::Replays => self
                .replays
                .ui(ui, &self.content.loaded, &mut self.scripts, &mut out),
            Tab::Play => self.play.ui(
                ui,
                &self.content.loaded,
                self.content.user_mods.as_deref(),
                &mut out,
            ),
            Tab::Mods => self.mods.ui(
                ui,
                &self.content.loaded,
                self.content.user_mods.as_deref(),
                &mut out,
            ),
            Tab::Balance => {
                let unsaved = self.designer.unsaved_edits();
                self.balance.ui(
                    ui,
                    &self.content,
                    (self.designer.army(), &unsaved),
                    &mut out,
                );
            }
        }
        if !out.is_empty() {
            // What changed shows on the next frame.
            ui.ctx().request_repaint();
            self.apply(out);
        }
    }

    /// Applies what the views asked, in order (what applying one asks is applied after it).
    fn apply(&mut self, msgs: Vec<Msg>) {
        let mut queue = std::collections::VecDeque::from(msgs);
        while let Some(msg) = queue.pop_front() {
            let mut more = Vec::new();
            match msg {
                Msg::SelectTile(t) => self.designer.select_tile(t, &self.content, &mut more),
                Msg::SelectArmy(id) => self.designer.select_army(&id, &self.content, &mut more),
                Msg::OpenSpot(problem) => {
                    self.designer.show_spot(&problem);
                    self.tab = Tab::Designer;
                }
                Msg::ShowTab(tab) => self.tab = tab,
                Msg::OpenInSandbox(game) => {
                    self.sandbox.open_game(&game);
                    self.tab = Tab::Sandbox;
                }
                Msg::Status(note) => self.status.set_note(note),
                // The watch reloads what was written once it settles; without one, now.
                Msg::FilesWritten => {
                    if self.watch.is_none() {
                        self.reload();
                    }
                }
                Msg::WatchFolder(root) => self.add_root(root),
                Msg::OpenReplay(path) => {
                    match self
                        .replays
                        .open(&path, &self.content.loaded, &mut self.scripts, false)
                    {
                        Ok(()) => self.tab = Tab::Replays,
                        Err(e) => self.status.set_note(format!("{}: {e}", path.display())),
                    }
                }
            }
            queue.extend(more);
        }
    }

    /// The status line: what is loaded, how many problems [`Content::problems`] lists (and
    /// warnings, when a loaded mod has some), and what the last reload did.
    pub fn status_line(&self) -> String {
        self.status.line(&self.content)
    }

    /// What the last reload did (or whether hot reload is on), as the status line ends.
    pub fn status(&self) -> &str {
        self.status.reload()
    }

    /// What the last action did, or why it failed (the status bar's second line).
    pub fn note(&self) -> Option<&str> {
        self.status.note()
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

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}
