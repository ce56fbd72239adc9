//! Hexforge's editor, as a library of egui views over the engine's content: a mod browser (mods,
//! their armies and tiles, with search and each mod's problems beside it) and a tile view that
//! draws the selected tile as a hex with its edge icons. The binary (`main.rs`) only opens a window
//! around [`Editor::ui`]; tests drive the same views headlessly. The editor reads definitions and
//! never works out a rule itself.

pub mod browser;
pub mod tile_view;

use hexforge_content::LoadedMods;
use hexforge_core::{TileKind, TileRef};
use std::path::PathBuf;

/// The editor's state: the loaded content and what the designer is looking at.
pub struct Editor {
    pub loaded: LoadedMods,
    /// Text that filters the browser's tiles (by id or name).
    pub search: String,
    /// Only tiles of this kind are listed (all kinds when `None`).
    pub kind: Option<TileKind>,
    /// The tile shown in the tile view.
    pub selected: Option<TileRef>,
    /// The folders the content was loaded from.
    pub roots: Vec<PathBuf>,
}

impl Editor {
    /// Loads the mods below `roots` (manifests, armies, scripts), as the CLI does.
    pub fn load(roots: Vec<PathBuf>) -> Self {
        let loaded = hexforge_script::load(&roots, hexforge_script::Limits::default());
        Editor {
            loaded: loaded.mods,
            search: String::new(),
            kind: None,
            selected: None,
            roots,
        }
    }

    /// The whole editor in `ui`: the browser on the left, the selected tile on the right, and a
    /// status line below.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(300.0);
                browser::ui(ui, self);
            });
            ui.separator();
            ui.vertical(|ui| match self.selected {
                Some(t) => tile_view::ui(ui, self.loaded.catalog.get(t)),
                None => {
                    ui.label("Select a tile in the browser to see it.");
                }
            });
        });
        ui.separator();
        ui.label(format!(
            "{} mods loaded, {} skipped, {} problems",
            self.loaded.mods.len(),
            self.loaded.skipped.len(),
            self.loaded.problems.len()
        ));
    }
}
