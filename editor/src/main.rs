//! The `hexforge-editor` window: the editor's views (the `hexforge_editor` library) in an eframe
//! window, over this checkout's `mods/` and the user mods folder (or the folders given as arguments).

use anyhow::Result;
use hexforge_editor::Editor;
use std::path::PathBuf;

struct App(Editor);

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.0.poll(std::time::Instant::now());
        if self.0.reload_waiting() {
            ui.ctx()
                .request_repaint_after(hexforge_editor::reload::SETTLE);
        } else {
            // Look at the watch now and then even when nothing moves on screen.
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(250));
        }
        self.0.ui(ui);
    }
}

fn main() -> Result<()> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let roots = if args.is_empty() {
        let mut roots = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mods")];
        roots.extend(
            hexforge_content::user_mods_dir(|k| std::env::var_os(k)).filter(|d| d.is_dir()),
        );
        roots
    } else {
        args
    };
    let editor = Editor::load(roots);
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_inner_size([1280.0, 800.0]),
        ..Default::default()
    };
    eframe::run_native(
        "Hexforge editor",
        options,
        Box::new(|_| Ok(Box::new(App(editor)))),
    )
    .map_err(|e| anyhow::anyhow!("the editor window could not open: {e}"))
}
