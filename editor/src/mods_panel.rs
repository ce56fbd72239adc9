//! The Mods tab: a mod portal browsed (search, each mod's newest version, author, downloads and
//! description), a mod installed or updated from it with the mods it needs, and the mods of the
//! user mods folder listed with their versions, each disabled (set aside in `.disabled/`, never
//! loaded) or enabled again. The portal is asked on a thread of its own; the panel shows what it
//! answered on a later frame. What changes the mods folder asks the editor to load the content
//! again ([`Msg::FilesWritten`]).

use crate::msg::Msg;
use hexforge_content::LoadedMods;
use hexforge_content::archive;
use hexforge_portal::{ModSummary, Portal, PortalError, plan};
use semver::{Version, VersionReq};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};

/// What a job on the portal's thread answers.
enum Answer {
    /// The mods a search found.
    Found(Result<Vec<ModSummary>, PortalError>),
    /// What an install or update did: the mods installed, or why not.
    Installed(Result<Vec<String>, PortalError>),
}

/// The Mods tab's state.
#[derive(Default)]
pub struct ModsPanel {
    /// The portal's address as typed.
    portal: String,
    /// The search text.
    query: String,
    /// What the last search found.
    found: Vec<ModSummary>,
    /// The job under way, if any.
    waiting: Option<Receiver<Answer>>,
    /// What the last action did, or why it failed.
    note: Option<String>,
    /// The user mods folder's mods as last read, with what they were read for (the folder and
    /// the loaded mods' ids and versions): read again only when that changes or the tab changed
    /// the folder, not on every frame.
    mine: Option<(String, Vec<Installed>)>,
}

/// A mod of the user mods folder: its id, its version, and whether it is enabled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// Its id.
    pub id: String,
    /// Its version, as its manifest says (`?` when it does not read).
    pub version: String,
    /// Loaded (`true`) or set aside in `.disabled/`.
    pub enabled: bool,
}

/// The mods of the mods folder `dir`, enabled ones first, each sorted by id.
pub fn installed(dir: &Path) -> Vec<Installed> {
    let version = |d: PathBuf| {
        hexforge_content::load_manifest(&d).map_or("?".to_string(), |m| m.version.to_string())
    };
    archive::installed(dir)
        .into_iter()
        .map(|id| Installed {
            version: version(dir.join(&id)),
            id,
            enabled: true,
        })
        .chain(archive::disabled(dir).into_iter().map(|id| Installed {
            version: version(archive::disabled_folder(dir).join(&id)),
            id,
            enabled: false,
        }))
        .collect()
}

impl ModsPanel {
    /// Sets the portal's address (as if typed).
    pub fn set_portal(&mut self, address: &str) {
        self.portal = address.to_string();
    }

    /// What the last search found.
    pub fn found(&self) -> &[ModSummary] {
        &self.found
    }

    /// What the last action did, or why it failed.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Whether the portal is being asked.
    pub fn busy(&self) -> bool {
        self.waiting.is_some()
    }

    /// The user mods folder's mods, read from disk only when the folder or the loaded content
    /// changed since the last read, or the tab changed the folder ([`Self::forget_mine`]).
    fn mine(&mut self, dir: &Path, loaded: &LoadedMods) -> Vec<Installed> {
        let mut key = dir.display().to_string();
        for m in &loaded.mods {
            key.push_str(&format!(" {}@{}", m.id, m.manifest.version));
        }
        match &self.mine {
            Some((k, list)) if *k == key => list.clone(),
            _ => {
                let list = installed(dir);
                self.mine = Some((key, list.clone()));
                list
            }
        }
    }

    /// Reads the user mods folder again on the next frame.
    fn forget_mine(&mut self) {
        self.mine = None;
    }

    /// Runs `job` on a thread of its own; its answer shows on a later frame.
    fn start(&mut self, ctx: &egui::Context, job: impl FnOnce() -> Answer + Send + 'static) {
        let (tx, rx) = channel();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let _ = tx.send(job());
            ctx.request_repaint();
        });
        self.waiting = Some(rx);
    }

    /// Takes the answer of the job under way, if it came.
    fn poll(&mut self, out: &mut Vec<Msg>) {
        let Some(rx) = &self.waiting else {
            return;
        };
        let Ok(answer) = rx.try_recv() else {
            return;
        };
        self.waiting = None;
        match answer {
            Answer::Found(Ok(found)) => {
                self.note = Some(format!("{} mods found on {}", found.len(), self.portal));
                self.found = found;
            }
            Answer::Installed(Ok(done)) => {
                self.note = Some(format!("installed {}", done.join(", ")));
                self.forget_mine();
                out.push(Msg::FilesWritten);
            }
            Answer::Found(Err(e)) | Answer::Installed(Err(e)) => {
                self.note = Some(format!("{}: {e}", self.portal));
            }
        }
    }

    /// Searches the portal for the text typed.
    fn search(&mut self, ctx: &egui::Context) {
        let (portal, query) = (Portal::new(self.portal.trim()), self.query.clone());
        self.start(ctx, move || Answer::Found(portal.search(&query)));
    }

    /// Installs the newest version of `id` into `into`, with what it needs that `loaded` lacks.
    fn install(&mut self, ctx: &egui::Context, id: &str, into: &Path, loaded: &LoadedMods) {
        let portal = Portal::new(self.portal.trim());
        let have: Vec<(String, Version)> = loaded
            .mods
            .iter()
            .map(|m| (m.id.clone(), m.manifest.version.clone()))
            .collect();
        let (id, into) = (id.to_string(), into.to_path_buf());
        self.start(ctx, move || {
            let has = |d: &str, r: &VersionReq| have.iter().any(|(i, v)| i == d && r.matches(v));
            let done = plan(&portal, &id, &VersionReq::STAR, &has)
                .and_then(|steps| hexforge_portal::client::install_steps(&portal, &steps, &into))
                .map(|done| {
                    done.into_iter()
                        .map(|d| format!("`{}` {}", d.id, d.version))
                        .collect()
                });
            Answer::Installed(done)
        });
    }

    /// The tab in `ui`: the portal and its mods on the left, the user mods folder on the right.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        loaded: &LoadedMods,
        user_mods: Option<&Path>,
        out: &mut Vec<Msg>,
    ) {
        self.poll(out);
        let ctx = ui.ctx().clone();
        egui::Panel::right("mods_installed")
            .default_size(320.0)
            .show(ui, |ui| self.installed_ui(ui, loaded, user_mods, out));
        egui::CentralPanel::default().show(ui, |ui| {
            ui.heading("Mod portal");
            ui.horizontal(|ui| {
                let label = ui.label("portal");
                ui.add(
                    egui::TextEdit::singleline(&mut self.portal)
                        .hint_text("http://127.0.0.1:7878")
                        .desired_width(260.0),
                )
                .labelled_by(label.id);
            });
            ui.horizontal(|ui| {
                let label = ui.label("search");
                let field = ui
                    .add(egui::TextEdit::singleline(&mut self.query).desired_width(200.0))
                    .labelled_by(label.id);
                let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                let ready = !self.busy() && !self.portal.trim().is_empty();
                if (ui.add_enabled(ready, egui::Button::new("Search")).clicked() || enter) && ready
                {
                    self.search(&ctx);
                }
                if self.busy() {
                    ui.spinner();
                }
            });
            if let Some(note) = &self.note {
                ui.label(note);
            }
            ui.separator();
            let mine: Vec<Installed> = user_mods.map(|d| self.mine(d, loaded)).unwrap_or_default();
            let mut install = None;
            egui::ScrollArea::vertical().show(ui, |ui| {
                for m in &self.found {
                    ui.horizontal(|ui| {
                        ui.label(egui::RichText::new(&m.id).strong());
                        ui.label(format!(
                            "{} by {}, {} downloads",
                            m.latest, m.author, m.downloads
                        ));
                        let have = mine.iter().find(|i| i.id == m.id);
                        let newer = |v: &str| match (Version::parse(&m.latest), Version::parse(v)) {
                            (Ok(l), Ok(v)) => l > v,
                            _ => false,
                        };
                        let action = match have {
                            None => Some(format!("Install {}", m.id)),
                            Some(i) if newer(&i.version) => {
                                Some(format!("Update {} to {}", m.id, m.latest))
                            }
                            Some(i) => {
                                ui.label(format!("installed {}", i.version));
                                None
                            }
                        };
                        if let Some(text) = action
                            && ui
                                .add_enabled(
                                    user_mods.is_some() && !self.busy(),
                                    egui::Button::new(text),
                                )
                                .clicked()
                        {
                            install = Some(m.id.clone());
                        }
                    });
                    ui.add(egui::Label::new(&m.description).wrap());
                    ui.add_space(6.0);
                }
            });
            if let (Some(id), Some(into)) = (install, user_mods) {
                self.install(&ctx, &id, into, loaded);
            }
        });
    }

    /// The user mods folder's mods, each with its version and a button to disable or enable it.
    fn installed_ui(
        &mut self,
        ui: &mut egui::Ui,
        loaded: &LoadedMods,
        user_mods: Option<&Path>,
        out: &mut Vec<Msg>,
    ) {
        ui.heading("Your mods");
        let Some(dir) = user_mods else {
            ui.label("No user mods folder: set HEXFORGE_USER_MODS or HOME.");
            return;
        };
        ui.label(dir.display().to_string());
        let mods = self.mine(dir, loaded);
        if mods.is_empty() {
            ui.label("None yet: install one from a portal.");
        }
        for m in mods {
            ui.horizontal(|ui| {
                ui.label(format!("{} {}", m.id, m.version));
                let text = if m.enabled { "Disable" } else { "Enable" };
                if ui.button(format!("{text} {}", m.id)).clicked() {
                    let done = if m.enabled {
                        archive::disable(dir, &m.id)
                    } else {
                        archive::enable(dir, &m.id)
                    };
                    self.note = Some(match done {
                        Ok(_) if m.enabled => format!("`{}` disabled: it is not loaded", m.id),
                        Ok(_) => format!("`{}` enabled", m.id),
                        Err(e) => e.to_string(),
                    });
                    self.forget_mine();
                    out.push(Msg::FilesWritten);
                }
            });
        }
    }
}
