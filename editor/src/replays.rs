//! The replay viewer: a recorded game opened from its file, stepped through with a timeline.

use hexforge_content::LoadedMods;
use hexforge_core::Game;
use hexforge_script::ScriptHost;

/// The replay open in the viewer and the step shown.
#[derive(Default)]
pub struct Replays {}

impl Replays {
    /// The viewer in the central area of `ui`; returns the game at the step shown when the
    /// designer asks to open it in the sandbox.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        _loaded: &LoadedMods,
        _scripts: &mut ScriptHost,
    ) -> Option<Game> {
        egui::CentralPanel::default().show(ui, |ui| {
            ui.label("The replay viewer.");
        });
        None
    }
}
