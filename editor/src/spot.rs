//! The spot of a problem: the lines of its file around the line it names, read when the designer
//! clicks the problem, with the line marked and a caret under the column (for a Lua syntax error,
//! whose message names only the line, the column of the token it names); it follows the file and
//! its problems, and says so when the problem is gone.

use hexforge_content::Diagnostic;

/// How many lines are shown before and after the problem's line.
const CONTEXT: usize = 3;

/// A problem with the lines of its file around it.
#[derive(Clone, Debug, PartialEq)]
pub struct Spot {
    /// The problem, its column placed (see [`column()`]).
    pub problem: Diagnostic,
    /// Numbered lines (1-based) around the problem's line; empty when the file cannot be read or
    /// the problem is about the file as a whole.
    pub lines: Vec<(usize, String)>,
    /// Why there are no lines to show, when there are none, or that the problem is gone.
    pub note: Option<String>,
    /// The file no longer has the problem (it was fixed since it was clicked).
    pub fixed: bool,
}

impl Spot {
    /// Reads the lines around `problem` from its file as it is on disk now.
    pub fn read(problem: &Diagnostic) -> Spot {
        match crate::disk::read(&problem.file) {
            Ok(text) => Spot::in_text(problem, &text),
            Err(e) => Spot::unreadable(problem, &e),
        }
    }

    /// The spot of `problem` whose file cannot be read now: no lines, and why.
    pub fn unreadable(problem: &Diagnostic, e: &crate::disk::ReadError) -> Spot {
        Spot {
            problem: problem.clone(),
            lines: Vec::new(),
            note: Some(e.to_string()),
            fixed: false,
        }
    }

    /// The lines around `problem` in `text` (the file's content).
    pub fn in_text(problem: &Diagnostic, text: &str) -> Spot {
        let problem = &Diagnostic {
            column: column(problem, text),
            ..problem.clone()
        };
        if problem.line == 0 {
            return Spot {
                problem: problem.clone(),
                lines: Vec::new(),
                note: Some("the problem is about the whole file".to_string()),
                fixed: false,
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
            fixed: false,
        }
    }

    /// The spot again, with the file's text now and its problems now (`problems`: those of every
    /// file, or of this one): the problem where it is now, or marked fixed when the file no
    /// longer has it.
    pub fn refresh(&mut self, problems: &[Diagnostic], text: &str) {
        let file = &self.problem.file;
        let now = problems
            .iter()
            .filter(|p| &p.file == file)
            .find(|p| p.message == self.problem.message)
            .or_else(|| {
                problems
                    .iter()
                    .filter(|p| &p.file == file)
                    .find(|p| p.line == self.problem.line)
            });
        let spot = match now {
            Some(p) => Spot::in_text(p, text),
            None => Spot {
                fixed: true,
                note: Some(format!(
                    "Fixed: {} no longer has this problem.",
                    file.display()
                )),
                ..Spot::in_text(&self.problem, text)
            },
        };
        if spot != *self {
            *self = spot;
        }
    }

    /// The file's name, the problem (or that it is gone) and the lines around it.
    pub fn ui(&self, ui: &mut egui::Ui) {
        ui.heading(self.problem.file.display().to_string());
        if !self.fixed {
            ui.colored_label(
                egui::Color32::LIGHT_RED,
                format!(
                    "line {}, column {}: {}",
                    self.problem.line, self.problem.column, self.problem.message
                ),
            );
        }
        if let Some(note) = &self.note {
            ui.colored_label(
                if self.fixed {
                    egui::Color32::LIGHT_GREEN
                } else {
                    ui.visuals().text_color()
                },
                note,
            );
        }
        let width = self.lines.last().map_or(1, |(n, _)| n.to_string().len());
        for (n, line) in &self.lines {
            let text = format!("{n:>width$} | {line}");
            if *n == self.problem.line && !self.fixed {
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

/// A space of a fixed height (three lines, scrolled when more) for a list of problems or notes,
/// so what comes after it never moves as they come and go.
pub fn problem_area(ui: &mut egui::Ui, salt: &str, add_contents: impl FnOnce(&mut egui::Ui)) {
    let line = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
    let height = 3.0 * line;
    ui.allocate_ui(egui::vec2(ui.available_width(), height), |ui| {
        egui::ScrollArea::vertical()
            .id_salt(salt)
            .max_height(height)
            .auto_shrink([false, false])
            .show(ui, add_contents);
    });
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

/// A warning of the content loaded (a mod written for an earlier Hexforge), written as
/// `warning: file:line:column: message`, in yellow; true when clicked (to show its spot).
pub fn warning_link(ui: &mut egui::Ui, warning: &Diagnostic) -> bool {
    ui.add(
        egui::Label::new(
            egui::RichText::new(format!("warning: {warning}")).color(egui::Color32::YELLOW),
        )
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

/// Gives each problem of a Lua file whose message names no column the column of its token
/// ([`column()`], the file read from disk), so lists show where it is; one whose file cannot be
/// read keeps its column.
pub fn place_columns(problems: &mut [Diagnostic]) {
    for p in problems
        .iter_mut()
        .filter(|p| p.column <= 1 && p.file.extension().is_some_and(|e| e == "lua"))
    {
        // A file that cannot be read leaves the problem at the column it came with: its spot,
        // once clicked, says why the file cannot be read.
        p.column = crate::disk::read(&p.file).map_or(p.column, |text| column(p, &text));
    }
}

/// The token a Lua syntax error names (`'=' expected near 'x'` names `x`).
fn near_token(message: &str) -> Option<&str> {
    let rest = &message[message.rfind("near '")? + "near '".len()..];
    rest.rfind('\'').map(|end| &rest[..end])
}

/// The column (1-based) of `problem` in `text`: its own, except for a Lua syntax error, whose
/// message names the line and the token it stopped at but no column: the token's place on that
/// line is found by compiling the text up to each place it appears (the first place where the
/// same error comes is it).
pub fn column(problem: &Diagnostic, text: &str) -> usize {
    let lua = problem.file.extension().is_some_and(|e| e == "lua");
    let Some(token) = near_token(&problem.message).filter(|_| lua && problem.column <= 1) else {
        return problem.column;
    };
    if problem.line == 0 {
        return problem.column;
    }
    let start: usize = text
        .split_inclusive('\n')
        .take(problem.line - 1)
        .map(str::len)
        .sum();
    let line = text[start..].lines().next().unwrap_or_default();
    let col = |i: usize| line[..i].chars().count() + 1;
    if token == "<eof>" {
        return col(line.len());
    }
    let places: Vec<usize> = line.match_indices(token).map(|(i, _)| i).collect();
    places
        .iter()
        .copied()
        .find(|&i| {
            let upto = &text[..start + i + token.len()];
            hexforge_script::syntax_problem(&problem.file, upto)
                .is_some_and(|p| p.line == problem.line && near_token(&p.message) == Some(token))
        })
        .or(places.first().copied())
        .map_or(problem.column, col)
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
        assert!(!gone.fixed);
        assert!(gone.lines.is_empty());
        assert_eq!(
            gone.note.as_deref(),
            Some("the file has no line 40 any more")
        );
    }

    #[test]
    fn a_lua_syntax_error_is_placed_at_the_token_it_names() {
        let text = "local a = 1\nlocal x = = 2\n";
        let path = PathBuf::from("scripts/a.lua");
        let p = hexforge_script::syntax_problem(&path, text).expect("a syntax error");
        assert_eq!((p.line, p.column), (2, 1), "{p}");
        assert_eq!(column(&p, text), 11, "{p}");
        let s = Spot::in_text(&p, text);
        assert_eq!(s.problem.column, 11);
    }

    #[test]
    fn a_spot_follows_its_file_and_says_when_the_problem_is_gone() {
        let mut s = Spot::in_text(&problem(5), "1\n2\n3\n4\n5\n6\n");
        let mut moved = problem(6);
        moved.column = 4;
        s.refresh(std::slice::from_ref(&moved), "0\n1\n2\n3\n4\n5\n6\n");
        assert_eq!((s.problem.line, s.problem.column, s.fixed), (6, 4, false));
        s.refresh(&[], "0\n1\n2\n3\n4\n5\n6\n");
        assert!(s.fixed);
        assert!(s.note.as_deref().is_some_and(|n| n.starts_with("Fixed: ")));
    }
}
