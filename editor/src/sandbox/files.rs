//! The sandbox board as a scenario file: saving it with the scenario crate's writer (atomically)
//! and loading a scenario's board back, with the file's problems shown by line.

use super::*;

impl Sandbox {
    pub(super) fn files_ui(
        &mut self,
        ui: &mut egui::Ui,
        catalog: &Catalog,
        scripts: &mut ScriptHost,
    ) {
        ui.label(egui::RichText::new("Scenario file").strong());
        ui.horizontal(|ui| {
            let named = ui.label("name");
            ui.add(egui::TextEdit::singleline(&mut self.title).desired_width(220.0))
                .labelled_by(named.id);
        });
        ui.horizontal(|ui| {
            let named = ui.label("path");
            ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(220.0))
                .labelled_by(named.id);
        });
        ui.horizontal(|ui| {
            if ui.button("Save as scenario").clicked() {
                self.save(catalog, scripts);
            }
            if ui.button("Load scenario").clicked() {
                self.load(catalog);
            }
        });
        if !self.problems.is_empty() {
            ui.label(egui::RichText::new("The scenario file has problems:").strong());
            for p in &self.problems {
                ui.colored_label(egui::Color32::from_rgb(255, 110, 110), p.to_string());
            }
        }
    }

    /// Writes the board as a scenario file at `path` (its expectations: what a battle gives now).
    pub(super) fn save(&mut self, catalog: &Catalog, scripts: &mut ScriptHost) {
        let Some(edits) = &self.edits else {
            return;
        };
        let field = match edits.built().complete() {
            Ok(f) => f,
            Err(why) => {
                self.note = Some(Note::Error(format!(
                    "Not saved: the board has tiles the engine does not accept:\n{why}"
                )));
                return;
            }
        };
        let board = edits.board();
        let armies = board.armies();
        let armies: Vec<&str> = armies.iter().map(String::as_str).collect();
        let ctx = Context {
            catalog,
            rules: &board.rules,
        };
        scripts.reseed(0);
        let text = match hexforge_scenario::write::scenario_text(
            field,
            ctx,
            &armies,
            scripts,
            &self.title,
            board.kind.name(),
        ) {
            Ok(t) => t,
            Err(e) => {
                self.note = Some(Note::Error(format!(
                    "Not saved: the board's battle stopped: {e}"
                )));
                return;
            }
        };
        let path = PathBuf::from(self.path.trim());
        self.note = Some(match write_atomically(&path, &text) {
            Ok(()) => Note::Info(format!("Saved {}", path.display())),
            Err(e) => Note::Error(format!("Not saved: {}: {e}", path.display())),
        });
    }

    /// Loads the scenario file at `path` onto the board (as one undoable edit).
    pub(super) fn load(&mut self, catalog: &Catalog) {
        let path = PathBuf::from(self.path.trim());
        let s = match hexforge_scenario::load_scenario(&path, catalog) {
            Ok(s) => s,
            Err(d) => {
                self.problems = d.0;
                self.note = Some(Note::Error(format!(
                    "{} was not loaded: see its problems below.",
                    path.display()
                )));
                return;
            }
        };
        self.problems.clear();
        let field = match Battlefield::new(s.setup.clone(), catalog) {
            Ok(f) => f,
            Err(e) => {
                self.note = Some(Note::Error(format!(
                    "{}: the engine refuses its board: {e}",
                    path.display()
                )));
                return;
            }
        };
        let board = Board::from_field(&field, catalog, &s.armies, &s.rules);
        if let Some(e) = &mut self.edits {
            e.replace(board, catalog);
        }
        self.title = s.name.clone();
        self.selected = None;
        // A file without steps fights one battle: what Battle does here.
        let steps = if s.steps.is_empty() || s.steps == [hexforge_scenario::file::Step::Battle] {
            String::new()
        } else {
            format!(
                " (its board only: its {} steps are for `hexforge scenario`)",
                s.steps.len()
            )
        };
        self.note = Some(Note::Info(format!("Loaded {}{steps}", path.display())));
    }
}

/// Writes `text` to `path` through a temporary file in the same folder, so the file is either the
/// old one or the whole new one.
pub(super) fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("give a file name, e.g. scenarios/test.toml"))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(".saving");
    let temp = path.with_file_name(temp_name);
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}
