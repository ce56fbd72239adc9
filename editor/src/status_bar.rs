//! The status bar: what is loaded and how many problems and warnings there are, what the last
//! reload did, what the last action did (or why it failed), and the problems and warnings, each
//! one click from its spot, in a space of its own that never grows.

use crate::content::Content;
use crate::msg::Msg;
use crate::spot;

/// The height of the status bar: two lines and a few problems.
pub const HEIGHT: f32 = 112.0;

/// What the status bar says beside the content: the last reload and the last action.
#[derive(Debug, Default)]
pub struct StatusBar {
    /// What the last reload did (or whether hot reload is on).
    reload: String,
    /// What the last action did, or why it failed.
    note: Option<String>,
}

impl StatusBar {
    /// A status bar saying `reload` of the content.
    pub fn new(reload: String) -> Self {
        StatusBar { reload, note: None }
    }

    /// What the last reload did (or whether hot reload is on).
    pub fn reload(&self) -> &str {
        &self.reload
    }

    /// Says what the last reload did.
    pub fn set_reload(&mut self, reload: String) {
        self.reload = reload;
    }

    /// What the last action did, or why it failed.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Says what the last action did, or why it failed.
    pub fn set_note(&mut self, note: String) {
        self.note = Some(note);
    }

    /// The status line: what is loaded, how many problems [`Content::problems`] lists (and
    /// warnings, when a loaded mod has some), and what the last reload did.
    pub fn line(&self, content: &Content) -> String {
        let loaded = content.loaded();
        let n = content.problems().len();
        let w = loaded.warnings.len();
        let warnings = if w == 0 {
            String::new()
        } else {
            format!(", {w} warning{}", if w == 1 { "" } else { "s" })
        };
        format!(
            "{} mods loaded, {} skipped, {n} problem{}{warnings}; {}",
            loaded.mods.len(),
            loaded.skipped.len(),
            if n == 1 { "" } else { "s" },
            self.reload
        )
    }

    /// The bar in `ui`: the status line, the note, and the problems and warnings; a click on
    /// one asks for its spot ([`Msg::OpenSpot`]).
    pub fn ui(&self, ui: &mut egui::Ui, content: &Content, out: &mut Vec<Msg>) {
        ui.add(egui::Label::new(self.line(content)).truncate());
        ui.add(egui::Label::new(self.note.as_deref().unwrap_or("")).truncate());
        egui::ScrollArea::vertical()
            .id_salt("status_problems")
            .auto_shrink([false, false])
            .max_height(ui.available_height())
            .show(ui, |ui| {
                if !content.refused().is_empty() {
                    ui.label(egui::RichText::new("The last save has problems:").strong());
                }
                for p in content.problems() {
                    if spot::problem_link(ui, p) {
                        out.push(Msg::OpenSpot(p.clone()));
                    }
                }
                // What loaded mods are told without being refused (a mod written for an
                // earlier Hexforge): they play, and say what to check.
                for w in &content.loaded().warnings {
                    if spot::warning_link(ui, w) {
                        out.push(Msg::OpenSpot(w.clone()));
                    }
                }
            });
    }
}
