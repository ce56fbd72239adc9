//! The Lua editor: a Lua file open for editing beside its file on disk (following it, or holding
//! a conflict), its syntax checked as it is typed, and its view: Save and Close, line numbers
//! beside the text, Lua coloured as it is typed (keywords, strings, comments, numbers) by a small
//! highlighter of its own, and a line brought into view with the cursor on it (the line of an
//! ability's `ability("name", ...)`).

use crate::disk::{DiskState, Seen};
use crate::spot;
use egui::text::{CCursor, CCursorRange, LayoutJob, TextFormat};
use egui::{Color32, FontId};
use std::path::{Path, PathBuf};

/// The id of the Lua editor's text field (its focus keeps Ctrl+Z for the text).
pub const TEXT_ID: &str = "designer_lua_text";

/// A Lua file open in the designer's text editor, and its view.
#[derive(Clone, Debug)]
pub struct LuaEdit {
    /// Where the Lua file is on disk.
    pub path: PathBuf,
    /// The text as edited (saved only on request).
    pub text: String,
    /// The file's text as loaded or saved, and a different one found on disk while `text` has
    /// unsaved edits.
    pub disk: DiskState,
    /// The syntax error of `text` as it is now (checked on every change, never run).
    pub problem: Option<hexforge_content::Diagnostic>,
    /// A line to bring into view with the cursor on it, on the next frame.
    pub goto: Option<usize>,
}

impl LuaEdit {
    /// The Lua file `path`, whose saved text is `text`, open for editing.
    pub fn open(path: PathBuf, text: String) -> LuaEdit {
        let problem = lua_problem(&path, &text);
        LuaEdit {
            path,
            disk: DiskState::new(text.clone()),
            text,
            problem,
            goto: None,
        }
    }

    /// The same, opened at the line where the ability `hook` is defined (when it is there).
    pub fn at_ability(mut self, hook: &str) -> LuaEdit {
        self.goto = crate::lua_view::ability_line(&self.text, hook);
        self
    }

    /// Whether the text differs from the file as loaded or saved.
    pub fn dirty(&self) -> bool {
        self.text != self.disk.base
    }

    /// The file on disk now reads `disk`: an unedited buffer takes it, an edited one holds it as
    /// a conflict.
    pub fn disk_changed(&mut self, disk: String) {
        if let Seen::Follow(disk) = self.disk.seen(&self.text, disk) {
            self.set_text(disk.clone());
            self.disk.settled(&disk);
        }
    }

    fn set_text(&mut self, text: String) {
        self.problem = lua_problem(&self.path, &text);
        self.text = text;
    }

    /// Writes the text (atomically) unless the file changed on disk since it was loaded (then the
    /// disk text is held as a conflict) or what is there cannot be read: nothing is written then.
    pub fn save(&mut self) -> Result<(), String> {
        let may = self.disk.may_write(&self.path, &self.text).map_err(|e| {
            format!("not saved: {e}; nothing was written over it (your changes are kept here)")
        })?;
        if !may {
            return Err(format!(
                "{} changed on disk since it was opened: keep your version or take the one on disk",
                self.path.display()
            ));
        }
        self.write()
    }

    /// The designer keeps their version over a changed file: it is written.
    pub fn keep_mine(&mut self) -> Result<(), String> {
        self.disk.conflict = None;
        self.write()
    }

    /// The designer takes the version on disk over their unsaved edits.
    pub fn take_disk(&mut self) {
        if let Some(disk) = self.disk.conflict.clone() {
            self.set_text(disk.clone());
            self.disk.settled(&disk);
        }
    }

    fn write(&mut self) -> Result<(), String> {
        hexforge_content::write_atomically(&self.path, &self.text)
            .map_err(|e| format!("cannot save {}: {e}", self.path.display()))?;
        self.disk.settled(&self.text.clone());
        Ok(())
    }
}

/// The syntax error of the Lua `text` of `path`, placed at its line and column.
fn lua_problem(path: &Path, text: &str) -> Option<hexforge_content::Diagnostic> {
    let p = hexforge_script::syntax_problem(path, text)?;
    Some(hexforge_content::Diagnostic {
        column: spot::column(&p, text),
        ..p
    })
}

/// What the designer asked of the Lua editor in a frame.
#[derive(Clone, Debug)]
pub enum LuaAction {
    /// Save the file.
    Save,
    /// Close the file (its unsaved edits dropped).
    Close,
    /// Show the spot of the syntax error.
    Show(spot::Spot),
}

impl LuaEdit {
    /// The editor in `ui`: its buttons (always in place), the file's name and state, the text
    /// with its line numbers and colours, and its syntax error (a click shows its spot).
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<LuaAction> {
        let mut action = None;
        let mut label = None;
        // The buttons first, then the file and its state, so no button moves as it changes.
        ui.horizontal(|ui| {
            let dirty = self.dirty();
            if ui
                .add_enabled(dirty, egui::Button::new("Save the Lua file"))
                .on_hover_text("Ctrl+S while editing it")
                .clicked()
            {
                action = Some(LuaAction::Save);
            }
            // The last button: its text may change without moving another.
            if ui
                .button(if dirty {
                    "Close without saving"
                } else {
                    "Close"
                })
                .clicked()
            {
                action = Some(LuaAction::Close);
            }
            let name = format!(
                "{}{}",
                self.path.display(),
                if dirty { " (unsaved changes)" } else { "" }
            );
            label = Some(ui.strong(name).id);
        });
        egui::ScrollArea::vertical()
            .id_salt("lua_editor")
            .max_height(260.0)
            .show(ui, |ui| {
                let label = label.unwrap_or_else(|| ui.scope_id());
                let id = egui::Id::unique(TEXT_ID);
                if code_editor(ui, id, &mut self.text, &mut self.goto, label) {
                    self.problem = lua_problem(&self.path, &self.text);
                }
            });
        // Problems as you type: the syntax; what the script does is checked when it loads.
        if let Some(p) = &self.problem
            && spot::line_link(ui, p)
        {
            action = Some(LuaAction::Show(spot::Spot::in_text(p, &self.text)));
        }
        action
    }
}

/// What a piece of Lua text is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// A reserved word (`function`, `local`, `end`, ...).
    Keyword,
    /// A quoted or long-bracket string.
    String,
    /// A line or block comment.
    Comment,
    /// A number literal.
    Number,
    /// Anything else: names, operators, spaces.
    Plain,
}

const KEYWORDS: [&str; 22] = [
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

/// The level of a long bracket opening `text` (`[[` is 0, `[==[` is 2), if one does.
fn long_bracket(text: &str) -> Option<usize> {
    let rest = text.strip_prefix('[')?;
    let level = rest.bytes().take_while(|&b| b == b'=').count();
    rest[level..].starts_with('[').then_some(level)
}

/// The length of the long bracket text opening `text` at `level`, up to its close (or the end).
fn long_len(text: &str, level: usize) -> usize {
    let close = format!("]{}]", "=".repeat(level));
    let open = level + 2;
    text[open..]
        .find(&close)
        .map_or(text.len(), |e| open + e + close.len())
}

/// Cuts Lua `text` into its pieces, each with what it is, in order (together they are `text`).
pub fn tokens(text: &str) -> Vec<(Token, &str)> {
    let mut out: Vec<(Token, &str)> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap_or(' ');
        let (token, n) = if let Some(after) = rest.strip_prefix("--") {
            match long_bracket(after) {
                Some(level) => (Token::Comment, 2 + long_len(after, level)),
                None => (Token::Comment, rest.find('\n').unwrap_or(rest.len())),
            }
        } else if let Some(level) = long_bracket(rest) {
            (Token::String, long_len(rest, level))
        } else if c == '"' || c == '\'' {
            let mut end = rest.len();
            let mut escaped = false;
            for (k, ch) in rest.char_indices().skip(1) {
                if ch == '\n' {
                    end = k;
                    break;
                }
                if !escaped && ch == c {
                    end = k + 1;
                    break;
                }
                escaped = !escaped && ch == '\\';
            }
            (Token::String, end)
        } else if c.is_ascii_digit()
            || (c == '.' && rest[1..].starts_with(|d: char| d.is_ascii_digit()))
        {
            let mut prev = ' ';
            let end = rest
                .char_indices()
                .find(|&(_, ch)| {
                    let part = ch.is_ascii_alphanumeric()
                        || ch == '.'
                        || ((ch == '-' || ch == '+') && matches!(prev, 'e' | 'E' | 'p' | 'P'));
                    prev = ch;
                    !part
                })
                .map_or(rest.len(), |(k, _)| k);
            (Token::Number, end)
        } else if c.is_alphabetic() || c == '_' {
            let end = rest
                .char_indices()
                .find(|&(_, ch)| !(ch.is_alphanumeric() || ch == '_'))
                .map_or(rest.len(), |(k, _)| k);
            let word = &rest[..end];
            let token = if KEYWORDS.contains(&word) {
                Token::Keyword
            } else {
                Token::Plain
            };
            (token, end)
        } else {
            (Token::Plain, c.len_utf8())
        };
        let piece = &rest[..n.max(c.len_utf8()).min(rest.len())];
        match out.last_mut() {
            // Plain text runs are joined (fewer sections to lay out).
            Some((Token::Plain, last)) if token == Token::Plain => {
                let start = last.as_ptr() as usize - text.as_ptr() as usize;
                *last = &text[start..i + piece.len()];
            }
            _ => out.push((token, piece)),
        }
        i += piece.len();
    }
    out
}

/// The colour of a piece of Lua of kind `token`, on a dark or light background.
pub fn colour(token: Token, dark: bool) -> Color32 {
    match (token, dark) {
        (Token::Keyword, true) => Color32::from_rgb(198, 120, 221),
        (Token::Keyword, false) => Color32::from_rgb(130, 40, 160),
        (Token::String, true) => Color32::from_rgb(152, 195, 121),
        (Token::String, false) => Color32::from_rgb(40, 120, 40),
        (Token::Comment, true) => Color32::from_rgb(120, 130, 140),
        (Token::Comment, false) => Color32::from_rgb(110, 110, 110),
        (Token::Number, true) => Color32::from_rgb(209, 154, 102),
        (Token::Number, false) => Color32::from_rgb(170, 90, 20),
        (Token::Plain, true) => Color32::from_gray(220),
        (Token::Plain, false) => Color32::from_gray(30),
    }
}

/// Lua `text` laid out in `font`, each piece in its colour.
pub fn highlight(text: &str, font: FontId, dark: bool) -> LayoutJob {
    let mut job = LayoutJob::default();
    for (token, piece) in tokens(text) {
        job.append(
            piece,
            0.0,
            TextFormat::simple(font.clone(), colour(token, dark)),
        );
    }
    job
}

/// The line numbers of `text`, one a line, right-aligned.
pub fn line_numbers(text: &str) -> String {
    let lines = text.split('\n').count().max(1);
    let width = lines.to_string().len();
    (1..=lines)
        .map(|n| format!("{n:>width$}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The line (1-based) of `text` where the ability `hook` is defined with `ability("hook", ...)`.
pub fn ability_line(text: &str, hook: &str) -> Option<usize> {
    let opens = [format!("ability(\"{hook}\""), format!("ability('{hook}'")];
    text.lines()
        .position(|l| opens.iter().any(|o| l.trim_start().starts_with(o.as_str())))
        .map(|i| i + 1)
}

/// The character index where line `line` (1-based) of `text` starts.
pub fn line_start(text: &str, line: usize) -> usize {
    text.split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(|l| l.chars().count())
        .sum()
}

/// The Lua `text` edited in `ui` with its line numbers beside it and its colours, labelled by
/// `label`; when `goto` holds a line, the cursor is put at its start and it is brought into view
/// (once). True when the text changed.
pub fn code_editor(
    ui: &mut egui::Ui,
    id: egui::Id,
    text: &mut String,
    goto: &mut Option<usize>,
    label: egui::Id,
) -> bool {
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let dark = ui.visuals().dark_mode;
    let mut layouter = |ui: &egui::Ui, buf: &dyn egui::TextBuffer, wrap: f32| {
        let mut job = highlight(buf.as_str(), font.clone(), dark);
        job.wrap.max_width = wrap;
        ui.fonts_mut(|f| f.layout_job(job))
    };
    let margin = egui::Margin::symmetric(4, 2);
    let mut changed = false;
    ui.horizontal_top(|ui| {
        // The numbers start where the text does, inside the text field's margin.
        ui.vertical(|ui| {
            ui.add_space(f32::from(margin.top));
            ui.label(
                egui::RichText::new(line_numbers(text))
                    .font(font.clone())
                    .color(ui.visuals().weak_text_color()),
            );
        });
        if let Some(line) = *goto {
            let mut state = egui::TextEdit::load_state(ui.ctx(), id).unwrap_or_default();
            let at = CCursor::new(line_start(text, line));
            state.cursor.set_char_range(Some(CCursorRange::one(at)));
            state.store(ui.ctx(), id);
        }
        let output = egui::TextEdit::multiline(text)
            .id(id)
            .code_editor()
            .margin(margin)
            .desired_width(f32::INFINITY)
            .desired_rows(12)
            .layouter(&mut layouter)
            .show(ui);
        let response = output.response.response.labelled_by(label);
        changed = response.changed();
        if let Some(line) = goto.take() {
            response.request_focus();
            let at = CCursor::new(line_start(text, line));
            let rect = output
                .galley
                .pos_from_cursor(at)
                .translate(output.galley_pos.to_vec2());
            ui.scroll_to_rect(rect.expand(8.0), Some(egui::Align::TOP));
        }
    });
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lua_is_cut_into_keywords_strings_comments_and_numbers() {
        let text =
            "local x = 12.5e-3 -- a note\nif s == \"end\" then return [[a]] end --[[ long\n]]";
        let kinds: Vec<(Token, &str)> = tokens(text)
            .into_iter()
            .filter(|(t, _)| *t != Token::Plain)
            .collect();
        assert_eq!(
            kinds,
            [
                (Token::Keyword, "local"),
                (Token::Number, "12.5e-3"),
                (Token::Comment, "-- a note"),
                (Token::Keyword, "if"),
                (Token::String, "\"end\""),
                (Token::Keyword, "then"),
                (Token::Keyword, "return"),
                (Token::String, "[[a]]"),
                (Token::Keyword, "end"),
                (Token::Comment, "--[[ long\n]]"),
            ]
        );
        let whole: String = tokens(text).iter().map(|(_, p)| *p).collect();
        assert_eq!(whole, text, "nothing lost or doubled");
        // Unfinished strings and odd characters end the piece, never the text.
        let odd = "x = 'open\ny = «é» 0x1F";
        let whole: String = tokens(odd).iter().map(|(_, p)| *p).collect();
        assert_eq!(whole, odd);
    }

    #[test]
    fn lines_are_numbered_and_an_ability_is_found_by_its_line() {
        assert_eq!(line_numbers("a\nb\n"), "1\n2\n3");
        let numbers = line_numbers(&"x\n".repeat(11));
        assert!(numbers.starts_with(" 1\n 2") && numbers.ends_with("12"));
        let text = "-- x\nability(\"a\", {})\n\nability('b', {})\n";
        assert_eq!(ability_line(text, "b"), Some(4));
        assert_eq!(ability_line(text, "c"), None);
        assert_eq!(line_start(text, 2), 5);
        assert_eq!(line_start(text, 1), 0);
    }
}
