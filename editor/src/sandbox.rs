//! The sandbox board: tiles of any loaded army placed for any side, and test battles stepped
//! through phase by phase with the engine's events.

use hexforge_content::LoadedMods;
use hexforge_core::{Catalog, Game};
use hexforge_script::ScriptHost;

/// The sandbox's board and what the designer is doing on it.
#[derive(Default)]
pub struct Sandbox {}

impl Sandbox {
    /// The sandbox in the central area of `ui`.
    pub fn ui(&mut self, ui: &mut egui::Ui, _loaded: &LoadedMods, _scripts: &mut ScriptHost) {
        egui::CentralPanel::default().show(ui, |ui| {
            ui.label("The sandbox board.");
        });
    }

    /// The content was reloaded: tiles follow their ids into `catalog`.
    pub fn content_changed(&mut self, _catalog: &Catalog) {}

    /// Puts the board of `game` (a replay's step) on the sandbox.
    pub fn open_game(&mut self, _game: &Game) {}
}
