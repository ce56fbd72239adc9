//! The spot of a problem: the lines of its file around the line it names, read when the designer
//! clicks the problem, with the line marked and a caret under the column.

use hexforge_content::Diagnostic;

/// How many lines are shown before and after the problem's line.
const CONTEXT: usize = 3;

/// A problem with the lines of its file around it.
#[derive(Clone, Debug, PartialEq)]
pub struct Spot {
    pub problem: Diagnostic,
    /// Numbered lines (1-based) around the problem's line; empty when the file cannot be read or
    /// the problem is about the file as a whole.
    pub lines: Vec<(usize, String)>,
    /// Why there are no lines to show, when there are none.
    pub note: Option<String>,
}

impl Spot {
    /// Reads the lines around `problem` from its file as it is on disk now.
    pub fn read(problem: &Diagnostic) -> Spot {
        match std::fs::read_to_string(&problem.file) {
            Ok(text) => Spot::in_text(problem, &text),
            Err(e) => Spot {
                problem: problem.clone(),
                lines: Vec::new(),
                note: Some(format!("{} cannot be read: {e}", problem.file.display())),
            },
        }
    }

    /// The lines around `problem` in `text` (the file's content).
    pub fn in_text(problem: &Diagnostic, text: &str) -> Spot {
        if problem.line == 0 {
            return Spot {
                problem: problem.clone(),
                lines: Vec::new(),
                note: Some("the problem is about the whole file".to_string()),
            };
        }
        let first = problem.line.saturating_sub(CONTEXT).max(1);
        let lines: Vec<(usize, String)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.to_string()))
            .filter(|(n, _)| *n >= first && *n <= problem.line + CONTEXT)
            .collect();
        let note = lines
            .is_empty()
            .then(|| format!("the file has no line {} any more", problem.line));
        Spot {
            problem: problem.clone(),
            lines,
            note,
        }
    }

    pub fn ui(&self, ui: &mut egui::Ui) {
        ui.heading(self.problem.file.display().to_string());
        ui.colored_label(egui::Color32::LIGHT_RED, &self.problem.message);
        if let Some(note) = &self.note {
            ui.label(note);
        }
        let width = self.lines.last().map_or(1, |(n, _)| n.to_string().len());
        for (n, line) in &self.lines {
            let text = format!("{n:>width$} | {line}");
            if *n == self.problem.line {
                ui.label(
                    egui::RichText::new(text)
                        .monospace()
                        .color(egui::Color32::WHITE)
                        .background_color(egui::Color32::from_rgb(90, 30, 30)),
                );
                let caret = format!(
                    "{:>width$} | {}^",
                    "",
                    " ".repeat(self.problem.column.saturating_sub(1))
                );
                ui.label(
                    egui::RichText::new(caret)
                        .monospace()
                        .color(egui::Color32::LIGHT_RED),
                );
            } else {
                ui.label(egui::RichText::new(text).monospace());
            }
        }
    }
}

/// A problem written as `file:line:column: message`, in red; true when clicked (to show its spot).
pub fn problem_link(ui: &mut egui::Ui, problem: &Diagnostic) -> bool {
    ui.add(
        egui::Label::new(egui::RichText::new(problem.to_string()).color(egui::Color32::LIGHT_RED))
            .sense(egui::Sense::click()),
    )
    .on_hover_text("Show the spot in the file")
    .clicked()
}

/// A problem of the file being edited, written as `line L:C: message` (the file is the one in
/// view), in red; true when clicked (to show its spot).
pub fn line_link(ui: &mut egui::Ui, problem: &Diagnostic) -> bool {
    let text = format!(
        "line {}:{}: {}",
        problem.line, problem.column, problem.message
    );
    ui.add(
        egui::Label::new(egui::RichText::new(text).color(egui::Color32::LIGHT_RED))
            .sense(egui::Sense::click()),
    )
    .on_hover_text("Show the spot in the text being edited")
    .clicked()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn problem(line: usize) -> Diagnostic {
        Diagnostic {
            file: PathBuf::from("a.toml"),
            line,
            column: 3,
            message: "bad".into(),
        }
    }

    #[test]
    fn the_spot_shows_three_lines_either_side_clipped_to_the_file() {
        let text = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let s = Spot::in_text(&problem(5), text);
        let numbers: Vec<usize> = s.lines.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [2, 3, 4, 5, 6, 7, 8]);
        let s = Spot::in_text(&problem(1), text);
        assert_eq!(s.lines.first().map(|(n, _)| *n), Some(1));
        assert_eq!(s.lines.len(), 4);
        let gone = Spot::in_text(&problem(40), text);
        assert!(gone.lines.is_empty());
        assert_eq!(
            gone.note.as_deref(),
            Some("the file has no line 40 any more")
        );
    }
}
