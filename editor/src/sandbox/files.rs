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
        if let Some(path) = &self.steps_file {
            let name = path.display().to_string();
            if ui
                .button("Step through its steps")
                .on_hover_text(format!(
                    "Plays the steps of {name} as `hexforge scenario` does, and shows the board after each"
                ))
                .clicked()
            {
                self.step_scenario(catalog, scripts);
            }
        }
        if !self.problems.is_empty() {
            ui.label(egui::RichText::new("The scenario file has problems:").strong());
            for p in &self.problems {
                if crate::spot::problem_link(ui, p) {
                    self.clicked_problem = Some(p.clone());
                }
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

    /// Opens the scenario file `path` on the board (as one undoable edit); the error says why it
    /// did not open (its problems are listed in the sandbox too).
    pub fn open_scenario(
        &mut self,
        path: &std::path::Path,
        loaded: &hexforge_content::LoadedMods,
    ) -> Result<(), String> {
        self.follow_boards(loaded);
        self.path = path.display().to_string();
        self.load(&loaded.catalog);
        match &self.note {
            Some(Note::Error(e)) => {
                let problems: Vec<String> = self.problems.iter().map(|d| d.to_string()).collect();
                Err([e.clone()]
                    .into_iter()
                    .chain(problems)
                    .collect::<Vec<_>>()
                    .join("\n"))
            }
            _ => Ok(()),
        }
    }

    /// Reads the scenario file at `path` over the loaded boards; a broken file lists its
    /// problems and the note says the file was not `what` (`loaded`, `played`).
    fn read_scenario(
        &mut self,
        path: &Path,
        catalog: &Catalog,
        what: &str,
    ) -> Option<hexforge_scenario::Scenario> {
        let mut boards: Vec<&hexforge_content::Board> = self.boards.iter().collect();
        if boards.is_empty() {
            boards.extend(hexforge_content::Board::built_in());
        }
        match hexforge_scenario::load_scenario_with_boards(path, catalog, &boards) {
            Ok(s) => {
                self.problems.clear();
                Some(s)
            }
            Err(d) => {
                self.problems = d.0;
                self.note = Some(Note::Error(format!(
                    "{} was not {what}: see its problems below.",
                    path.display()
                )));
                None
            }
        }
    }

    /// Plays the steps of the scenario file loaded last (read again, so that an edit shows) and
    /// shows the board before them and after each, with the log: a game in progress, rule
    /// actions (a Monolith deploying), battles and game rules' hooks (its folding) included.
    pub(super) fn step_scenario(&mut self, catalog: &Catalog, scripts: &mut ScriptHost) {
        let Some(path) = self.steps_file.clone() else {
            return;
        };
        let Some(s) = self.read_scenario(&path, catalog, "played") else {
            return;
        };
        let report = hexforge_scenario::run_scenario(&s, catalog, scripts);
        match battle::of_scenario(&report) {
            Some(run) => {
                self.battle = Some(run);
                self.scroll_to_step = true;
                self.note = None;
            }
            None => {
                self.note = Some(Note::Error(format!(
                    "{} cannot be played:\n{}",
                    path.display(),
                    report.failures.join("\n")
                )));
            }
        }
    }

    /// Loads the scenario file at `path` onto the board (as one undoable edit).
    pub(super) fn load(&mut self, catalog: &Catalog) {
        let path = PathBuf::from(self.path.trim());
        let Some(s) = self.read_scenario(&path, catalog, "loaded") else {
            return;
        };
        let mut field = match Battlefield::new(s.setup.clone(), catalog) {
            Ok(f) => f,
            Err(e) => {
                self.note = Some(Note::Error(format!(
                    "{}: the engine refuses its board: {e}",
                    path.display()
                )));
                return;
            }
        };
        // Its markers too: its board's hex markers and its own.
        for mark in &s.marks {
            field.apply(&hexforge_core::Event::Marked { mark: *mark });
        }
        // And its linked units (`[[link]]`), checked when the file was read.
        for link in &s.links {
            field.apply(&hexforge_core::Event::Linked { link: *link });
        }
        let board = Board::from_field(&field, catalog, &s.armies, &s.rules);
        self.set_board(board, catalog);
        self.title = s.name.clone();
        // A file without steps fights one battle: what Battle does here. Its steps, when it
        // has more, can be stepped through.
        let steps = if s.steps.is_empty() || s.steps == [hexforge_scenario::file::Step::Battle] {
            self.steps_file = None;
            String::new()
        } else {
            self.steps_file = Some(path.clone());
            format!(
                " (its board before its {} steps: \"Step through its steps\" plays them)",
                s.steps.len()
            )
        };
        self.note = Some(Note::Info(format!("Loaded {}{steps}", path.display())));
    }
}

/// Writes `text` to `path` with `hexforge_content::write_atomically`, first making a new folder
/// typed into the path (e.g. `scenarios/`).
pub(super) fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    if path.file_name().is_none() {
        return Err(std::io::Error::other(
            "give a file name, e.g. scenarios/test.toml",
        ));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    hexforge_content::write_atomically(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_whole_into_a_new_folder_with_no_temporary_left() {
        let dir =
            std::env::temp_dir().join(format!("hexforge-sandbox-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("scenarios/board.toml");
        write_atomically(&path, "name = \"a\"\n").expect("written");
        write_atomically(&path, "name = \"b\"\n").expect("written again");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "name = \"b\"\n"
        );
        let names: Vec<String> = std::fs::read_dir(dir.join("scenarios"))
            .expect("the folder")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["board.toml"]);
        // A failed rename (onto a folder) leaves the folder and no temporary file.
        let folder = dir.join("scenarios");
        assert!(write_atomically(&folder, "x").is_err());
        assert!(folder.is_dir());
        assert!(!dir.join(".scenarios.saving").exists());
        let left: Vec<String> = std::fs::read_dir(&dir)
            .expect("the folder")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(left, ["scenarios"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_scenario_on_a_mod_board_opens_with_its_hex_markers() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let loaded = hexforge_content::load_mods(&[root.join("mods")]);
        let mut sandbox = Sandbox::default();
        let path = root
            .join("tests/scenarios/r9_king_of_the_hill/01_the_unit_on_the_hill_strikes_first.toml");
        sandbox
            .open_scenario(&path, &loaded)
            .unwrap_or_else(|e| panic!("{e}"));
        let board = sandbox.board().expect("a board");
        assert_eq!(board.kind.name(), "king_of_the_hill");
        let hill = board
            .marks
            .iter()
            .filter(|m| matches!(m.on, board::MarkPlace::Hex(_)))
            .count();
        assert_eq!(hill, 7, "the centre and the six around it");
    }
}
