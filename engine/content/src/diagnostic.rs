//! Problems found in content files, each located as `file:line:column`.

use std::fmt;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A file's text with the offsets of its lines and of its characters wider than one byte, to
/// turn byte offsets into line and column in O(log n).
#[derive(Clone, Debug)]
pub struct SourceText {
    path: PathBuf,
    text: String,
    line_starts: Vec<usize>,
    /// For each character of more than one byte: the offset just after it, and the extra bytes
    /// of all such characters up to it (so columns count characters, not bytes).
    wide: Vec<(usize, usize)>,
}

impl SourceText {
    /// A file's text, with `path` the name its problems are reported under.
    pub fn new(path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let mut wide = Vec::new();
        let mut extra = 0;
        for (i, c) in text.char_indices().filter(|(_, c)| !c.is_ascii()) {
            extra += c.len_utf8() - 1;
            wide.push((i + c.len_utf8(), extra));
        }
        SourceText {
            path: path.into(),
            text,
            line_starts,
            wide,
        }
    }

    /// The text of the file at `path`, or a problem naming `what` it is: unreadable, or not
    /// UTF-8 (located at the first byte that is not).
    pub fn read(path: &Path, what: &str) -> Result<Self, Diagnostic> {
        read_text(path, what).map(|text| SourceText::new(path, text))
    }

    /// The name the file's problems are reported under.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's whole text, as spans index it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// 1-based line and column (in characters) of a byte offset, found by binary search.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|s| *s <= offset) - 1;
        let start = self.line_starts[line];
        let extra = |at: usize| match self.wide.partition_point(|(end, _)| *end <= at) {
            0 => 0,
            k => self.wide[k - 1].1,
        };
        let col = offset - start - (extra(offset) - extra(start)) + 1;
        (line + 1, col)
    }

    /// A problem at the start of `span`.
    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> Diagnostic {
        let (line, column) = self.line_col(span.start);
        Diagnostic {
            file: self.path.clone(),
            line,
            column,
            message: message.into(),
        }
    }

    /// A problem about the file as a whole.
    pub fn file_error(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic::whole_file(&self.path, message)
    }
}

/// One problem in one file. `line` and `column` are 1-based; 0 means the whole file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file the problem is in, as it was named when read.
    pub file: PathBuf,
    /// 1-based line of the problem; 0 when it concerns the whole file.
    pub line: usize,
    /// 1-based column, counted in characters; 0 when it concerns the whole file.
    pub column: usize,
    /// What is wrong and what to do about it.
    pub message: String,
}

impl Diagnostic {
    /// A problem about the file at `path` as a whole (unreadable, missing), with no line.
    pub fn whole_file(path: &Path, message: impl Into<String>) -> Self {
        Diagnostic {
            file: path.to_path_buf(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file.display(),
                self.line,
                self.column,
                self.message
            )
        }
    }
}

/// Every problem found in one load or validation, in file order.
#[derive(Clone, Debug, PartialEq, Eq, Default, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Whether nothing was found: the load or validation succeeded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many problems were found.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The problems in file order.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

/// The text of the file at `path`, or a problem naming `what` it is: a file that cannot be read,
/// or one that is not UTF-8, located at the line and column of its first bad byte.
pub fn read_text(path: &Path, what: &str) -> Result<String, Diagnostic> {
    let cannot = |e: std::io::Error| {
        Diagnostic::whole_file(
            path,
            format!("cannot read the {what} ({e}): check that it exists and can be read"),
        )
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES as u64 + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(Diagnostic::whole_file(path, too_big(what)));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let good = std::str::from_utf8(&e.as_bytes()[..at]).unwrap_or_default();
        let line = good.matches('\n').count() + 1;
        let column = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Diagnostic {
            file: path.to_path_buf(),
            line,
            column,
            message: format!(
                "line {line}, byte {at}: this {what} is not UTF-8 text; save it as UTF-8"
            ),
        }
    })
}

/// Parses TOML into `T`, turning a syntax or type error into a located diagnostic in the
/// project's words ([`toml_error`]).
pub fn parse_toml<T: serde::de::DeserializeOwned>(src: &SourceText) -> Result<T, Diagnostic> {
    if src.text().len() > MAX_FILE_BYTES {
        return Err(src.file_error(too_big("file")));
    }
    if let Some((at, message)) = past_limits(src.text()) {
        return Err(src.error(at..at, message));
    }
    toml::from_str(src.text()).map_err(|e| toml_error(src, &e))
}

/// [`parse_toml`], reporting every value of the wrong type at once rather than the first: after a
/// type error the value is set aside (written over, in a copy of the text, with a value of the
/// expected type, the lines and columns of everything else kept) and the text read again, until it
/// reads or a problem remains that no stand-in value answers (a syntax error, a missing key).
/// The errors come in file order; a file with none gives its value.
pub fn parse_toml_every<T: serde::de::DeserializeOwned>(
    src: &SourceText,
) -> Result<T, Diagnostics> {
    let first = match parse_toml::<T>(src) {
        Ok(v) => return Ok(v),
        Err(d) => d,
    };
    let mut found = vec![first];
    let mut text = src.text().to_string();
    // A file with more wrong values than this is told the first ones.
    for _ in 0..MAX_TYPE_ERRORS {
        let Err(e) = toml::from_str::<T>(&text) else {
            break;
        };
        let Some(span) = e.span() else { break };
        // An unknown key is set aside whole (its line, or its table); a value of the wrong
        // type is written over with one of the right type.
        let message = e.message();
        let unknown = message.starts_with("unknown field");
        // Only what serde says of a value read whole: a syntax error is no value to stand in for.
        let wrong_value = [
            "invalid type: ",
            "invalid value: ",
            "invalid length ",
            "unknown variant ",
        ]
        .iter()
        .any(|p| message.starts_with(p));
        let set_aside = if unknown {
            blank_entry(&mut text, span.start)
        } else if wrong_value {
            stand_in(message).is_some_and(|v| stand_in_over(&mut text, span.clone(), v))
        } else {
            false
        };
        if !set_aside {
            break;
        }
        match toml::from_str::<T>(&text) {
            Ok(_) => break,
            Err(next) => {
                // Located in the text as it now reads: a stand-in longer than the value it
                // replaced moves nothing but the rest of its own line.
                let d = toml_error(&SourceText::new(src.path(), text.clone()), &next);
                let Some(at) = next.span() else { break };
                // An error on the stand-in itself is the stand-in's own, not the file's (errors
                // elsewhere may come before it: the reader meets tables in its own order).
                let on_stand_in = !unknown && (span.start..=span.end).contains(&at.start);
                if on_stand_in || found.contains(&d) {
                    break;
                }
                // A key missing now may be the one set aside: not a problem of the file.
                if next.message().contains("missing field") {
                    break;
                }
                found.push(d);
            }
        }
    }
    found.sort_by_key(|d| (d.line, d.column));
    Err(Diagnostics(found))
}

/// The most type errors [`parse_toml_every`] reports from one file.
const MAX_TYPE_ERRORS: usize = 32;

/// A TOML value of the type a serde message expects (`expected u8`, `expected a boolean`, `expected
/// one of `a`, `b``), standing in for a value of the wrong type; `None` when the message is not a
/// type error.
fn stand_in(message: &str) -> Option<String> {
    let (_, expected) = message.rsplit_once("expected ")?;
    let expected = expected.trim();
    if let Some(first) = listed(expected).first() {
        return Some(format!("\"{first}\""));
    }
    let is = |words: &[&str]| words.iter().any(|w| expected.contains(w));
    Some(
        if is(&[
            "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "usize", "integer",
        ]) {
            "0"
        } else if is(&["f32", "f64", "float"]) {
            "0.0"
        } else if is(&["bool"]) {
            "false"
        } else if is(&["string", "str", "char"]) {
            "\"\""
        } else if is(&["sequence", "array", "tuple"]) {
            "[]"
        } else if is(&["map", "struct", "table"]) {
            "{}"
        } else {
            return None;
        }
        .to_string(),
    )
}

/// Writes `value` over the bytes `span` of `text`, the rest of them blanked with spaces and its
/// line breaks kept, so that nothing after it moves; `false` when `value` does not fit on the
/// span's first line.
fn stand_in_over(text: &mut String, span: std::ops::Range<usize>, value: String) -> bool {
    let Some(old) = text.get(span.clone()) else {
        return false;
    };
    let room = old.split('\n').next().map_or(0, str::len);
    if value.len() > room {
        // Longer than the value (`[]` for `1`): written in whole when nothing but blanks or a
        // comment follows on its line, so that no other value moves.
        let rest = text[span.end..]
            .split('\n')
            .next()
            .unwrap_or("")
            .trim_start();
        if old.contains('\n') || !(rest.is_empty() || rest.starts_with('#')) {
            return false;
        }
        text.replace_range(span, &value);
        return true;
    }
    let mut new: Vec<u8> = old
        .chars()
        .flat_map(|c| {
            let b = if c == '\n' { b'\n' } else { b' ' };
            std::iter::repeat_n(b, c.len_utf8())
        })
        .collect();
    new[..value.len()].copy_from_slice(value.as_bytes());
    let Ok(new) = String::from_utf8(new) else {
        return false;
    };
    text.replace_range(span, &new);
    true
}

/// Blanks out (with spaces, lines kept) the entry whose key starts at byte `at`: its
/// `key = value` line, or, when the key is named in a table header (`[tile.modul]`), that
/// header and the lines of its table up to the next header. `false` when `at` is on neither.
fn blank_entry(text: &mut String, at: usize) -> bool {
    let Some(before) = text.get(..at) else {
        return false;
    };
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i);
    let header = text[start..].trim_start().starts_with('[');
    let mut end = line_end(start);
    if header {
        // The table's own lines, up to the next header.
        while end < text.len() {
            let next = end + 1;
            if text[next..].trim_start().starts_with('[') {
                break;
            }
            end = line_end(next);
        }
    } else {
        // A `key = value` line whose value ends on it (a list or text running over more lines
        // is not set aside: its other lines would read as errors of their own).
        let Some((_, value)) = text[start..end].split_once('=') else {
            return false;
        };
        let count = |c: char| value.matches(c).count();
        if count('[') != count(']')
            || count('{') != count('}')
            || value.contains("\"\"\"")
            || value.contains("\'\'\'")
        {
            return false;
        }
    }
    let blank: String = text[start..end]
        .chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .collect();
    text.replace_range(start..end, &blank);
    true
}

/// What is wrong with `text`, a one-line text people read in lists, logs and tables (a name, a
/// description): a line break, another control character, or a mark that turns the direction of
/// the text around it (which would forge or hide what a terminal shows). `None` when it is fine.
pub fn one_line_problem(what: &str, text: &str) -> Option<String> {
    let bad = text.chars().find(|c| {
        c.is_control()
            || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })?;
    Some(format!(
        "{what} holds the character {}: write it on one line, with no control characters or direction marks",
        bad.escape_unicode()
    ))
}

/// The largest file Hexforge reads: 4 MiB (a whole army, scenario or replay takes a few dozen
/// kilobytes).
pub const MAX_FILE_BYTES: usize = 4 << 20;
/// The most values one TOML array or inline table may hold.
pub const MAX_ITEMS: usize = 10_000;
/// The most values (keys set, array items) one TOML file may hold.
pub const MAX_VALUES: usize = 200_000;
/// The deepest nesting of arrays and inline tables in a TOML file.
pub const MAX_DEPTH: usize = 32;

/// The message for a file over [`MAX_FILE_BYTES`].
fn too_big(what: &str) -> String {
    format!(
        "this {what} is larger than {} MiB, the most Hexforge reads: split it, or remove what is repeated",
        MAX_FILE_BYTES >> 20
    )
}

/// Where a TOML text passes [`MAX_ITEMS`], [`MAX_VALUES`] or [`MAX_DEPTH`], and which, found in
/// one pass over its bytes before the TOML reader builds anything: the reader would otherwise
/// hold every value of a huge array in memory before the first error could be given.
fn past_limits(text: &str) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let mut open: Vec<(usize, usize)> = Vec::new(); // (where the bracket is, values so far)
    let mut values = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                let triple = bytes[i..].starts_with(if q == b'"' { b"\"\"\"" } else { b"'''" });
                i += if triple { 3 } else { 1 };
                while i < bytes.len() {
                    if q == b'"' && bytes[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if bytes[i] == q && (!triple || bytes[i..].starts_with(&[q, q, q])) {
                        i += if triple { 3 } else { 1 };
                        // A closing triple may be followed by up to two more quotes of the text.
                        while triple && i < bytes.len() && bytes[i] == q {
                            i += 1;
                        }
                        break;
                    }
                    if !triple && bytes[i] == b'\n' {
                        break;
                    }
                    i += 1;
                }
                continue;
            }
            b'[' | b'{' => {
                open.push((i, 0));
                if open.len() > MAX_DEPTH {
                    return Some((
                        i,
                        format!(
                            "arrays and inline tables are nested too deeply here (more than {MAX_DEPTH} levels): Hexforge's files never need so many"
                        ),
                    ));
                }
            }
            b']' | b'}' => {
                open.pop();
            }
            b',' | b'=' => {
                values += 1;
                if values > MAX_VALUES {
                    return Some((
                        i,
                        format!(
                            "the file holds more than {MAX_VALUES} values, the most Hexforge reads in one file: split it, or remove what is repeated"
                        ),
                    ));
                }
                if bytes[i] == b',' {
                    if let Some((at, n)) = open.last_mut() {
                        *n += 1;
                        if *n > MAX_ITEMS {
                            return Some((
                                *at,
                                format!(
                                    "this array or inline table holds more than {MAX_ITEMS} values, the most Hexforge reads in one: remove what is repeated"
                                ),
                            ));
                        }
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A TOML reader's error as a located problem that names the key, what was found, what is
/// expected and what to do. A problem without a position is put at the start of the file.
pub fn toml_error(src: &SourceText, e: &toml::de::Error) -> Diagnostic {
    let message = e.message().trim();
    let span = e.span().unwrap_or(0..0);
    let words = plain_words(src.text(), message, span.start);
    src.error(span, words)
}

/// The key of the `key = value` line holding byte `offset`, if the value starts on that line.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let (key, _) = text.get(start..offset)?.split_once('=')?;
    let key = key.trim().trim_matches(['"', '\'']);
    (!key.is_empty() && !key.contains(['[', '"', '#', '{'])).then(|| key.to_string())
}

/// The header of the table holding byte `offset` (`[army]`, `[[tile]]`), if it is not the top:
/// the last header of the lines before the one `offset` is on (when `offset` is inside a header,
/// `[tile.modul]` say, the table that header names a key of).
fn table_at(text: &str, offset: usize) -> Option<&str> {
    let line_start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    text.get(..line_start)?
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| l.split('#').next().unwrap_or(l).trim())
}

/// "in `[[tile]]`" or "at the top of the file", for the table holding `offset`.
fn where_in(text: &str, offset: usize) -> String {
    match table_at(text, offset) {
        Some(t) => format!("in `{t}`"),
        None => "at the top of the file".to_string(),
    }
}

/// `the key `x`` when the key is known, else `this value`.
fn subject(key: Option<&str>) -> String {
    key.map_or("this value".to_string(), |k| format!("`{k}`"))
}

/// The names a serde message lists after `expected`: `a`, `b` or `c` / one of `a`, `b`.
fn listed(expected: &str) -> Vec<&str> {
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| !s.is_empty())
        .collect()
}

/// A serde "found" (`integer `5``, `string "x"`) in a modder's words.
fn found_words(found: &str) -> String {
    let found = found.trim();
    // `5` or `5` as i128: what is between the backquotes.
    let tick = |s: &str| {
        let s = s.trim();
        listed(s)
            .first()
            .map_or(s.to_string(), |v| (*v).to_string())
    };
    if let Some(n) = found.strip_prefix("integer ") {
        format!("the number {}", tick(n))
    } else if let Some(n) = found.strip_prefix("floating point ") {
        format!("the number {}", tick(n))
    } else if let Some(s) = found.strip_prefix("string ") {
        format!("the text {s}")
    } else if let Some(b) = found.strip_prefix("boolean ") {
        tick(b)
    } else {
        match found {
            "map" => "a table".to_string(),
            "sequence" => "a list".to_string(),
            other => other.to_string(),
        }
    }
}

/// The range of an integer type serde names.
fn int_range(ty: &str) -> Option<(i128, i128)> {
    Some(match ty {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// What serde says it expected, as what to write.
fn expected_words(expected: &str) -> String {
    let e = expected.trim();
    if int_range(e).is_some() {
        return "a whole number, e.g. 3".to_string();
    }
    if let Some(n) = e
        .strip_prefix("an array of length ")
        .or_else(|| e.strip_prefix("a tuple of size "))
    {
        return format!("a list of {n} values in brackets, e.g. [1, 2]");
    }
    match e {
        "f32" | "f64" => "a number, e.g. 1.5".to_string(),
        "a boolean" => "true or false".to_string(),
        "a string" | "a character" | "a borrowed string" => {
            "text in quotes, e.g. \"name\"".to_string()
        }
        "a sequence" => "a list in brackets, e.g. [1, 2]".to_string(),
        "a map" => "a table".to_string(),
        s if s.starts_with("struct ") => "a table".to_string(),
        s if s.starts_with("enum ") => "one of the names this key takes".to_string(),
        _ => "another kind of value".to_string(),
    }
}

/// The TOML reader's messages, located at byte `offset` of `text`, in a modder's words: what is
/// wrong, naming the key where it is known, and what to do.
fn plain_words(text: &str, message: &str, offset: usize) -> String {
    let key = key_at(text, offset);
    let key = key.as_deref();
    let what = subject(key);
    if message == "duplicate key" {
        return duplicate_key(text, offset);
    }
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        // A number too large for any whole number is read as an `i128`.
        let range = int_range(expected.trim()).or_else(|| {
            found
                .contains(" as i128")
                .then(|| int_range("i64"))
                .flatten()
        });
        if let (true, Some((lo, hi))) = (found.starts_with("integer "), range) {
            return format!(
                "{what} is out of range: found {}; use a whole number from {lo} to {hi}",
                found_words(found)
            );
        }
        // One value where a list goes: the list of that value is what to write.
        if expected.trim() == "a sequence"
            && let Some(one) = found
                .strip_prefix("string ")
                .map(str::to_string)
                .or_else(|| {
                    found.strip_prefix("integer ").map(|n| {
                        listed(n)
                            .first()
                            .map_or(n.trim().to_string(), |v| (*v).to_string())
                    })
                })
        {
            return format!(
                "{what} must be a list in brackets; found {}: write [{one}]",
                found_words(found)
            );
        }
        return format!(
            "{what} must be {}; found {}",
            expected_words(expected),
            found_words(found)
        );
    }
    if let Some(rest) = message.strip_prefix("invalid value: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        let found = found_words(found);
        return match int_range(expected.trim()) {
            Some((lo, hi)) => format!(
                "{what} is out of range: found {found}; use a whole number from {lo} to {hi}"
            ),
            None => format!("{what} cannot be {found}: use {}", expected_words(expected)),
        };
    }
    if let Some(rest) = message.strip_prefix("invalid length ")
        && let Some((n, expected)) = rest.split_once(", expected ")
    {
        let want = expected
            .trim()
            .strip_prefix("an array of length ")
            .or_else(|| expected.trim().strip_prefix("a tuple of size "))
            .map_or_else(|| expected.to_string(), |m| format!("{m} values"));
        return format!("{what} must be a list of {want}; found {n} values: write e.g. [1, 2]");
    }
    if let Some(rest) = message.strip_prefix("unknown field ")
        && let Some((field, expected)) = rest.split_once(", expected ").or(Some((rest, "")))
        && let Some(field) = listed(field).first().copied()
    {
        let known = listed(expected);
        let near = hexforge_core::names::did_you_mean(field, known.iter().copied());
        let keys = if known.is_empty() {
            " (this table takes no keys)".to_string()
        } else if near.is_empty() {
            format!(" (the keys here are {})", known.join(", "))
        } else {
            String::new()
        };
        return format!(
            "unknown key `{field}` {}{near}{keys}: remove it or correct its name",
            where_in(text, offset)
        );
    }
    if let Some(rest) = message.strip_prefix("unknown variant ")
        && let Some((variant, expected)) = rest.split_once(", expected ")
        && let Some(variant) = listed(variant).first().copied()
    {
        let known = listed(expected);
        let near = hexforge_core::names::did_you_mean(variant, known.iter().copied());
        return format!(
            "{what} cannot be `{variant}`{near}: use one of {}",
            known.join(", ")
        );
    }
    if let Some(rest) = message.strip_prefix("missing field ")
        && let Some(field) = listed(rest).first().copied()
    {
        let holder = text
            .get(offset..)
            .and_then(|t| t.lines().next())
            .map(str::trim)
            .filter(|l| l.starts_with('['))
            .map(|l| format!("the table `{}`", l.split('#').next().unwrap_or(l).trim()))
            .or_else(|| key.map(|k| format!("`{k}`")))
            .unwrap_or_else(|| "the file".to_string());
        return if holder == "the file" {
            format!("the file needs `{field}`: add `{field} = ...` (or a `[{field}]` table)")
        } else {
            format!("{holder} needs `{field}`: add `{field} = ...`")
        };
    }
    syntax_words(message, &what)
}

/// The TOML syntax errors (and the reader's other messages) in a modder's words.
fn syntax_words(message: &str, what: &str) -> String {
    let head = message.split(", expected").next().unwrap_or(message).trim();
    let number = "this number is malformed: write digits, e.g. 3, -2 or 1.5";
    let key = "a key is missing or malformed here: keys are letters, digits, `_` and `-` (put others in quotes), e.g. `name = \"x\"`";
    let inline =
        "this inline table is malformed: write it on one line as `{ key = value, other = value }`";
    match head {
        "unclosed table" => "this table header is not closed: end it with `]`".into(),
        "unclosed array table" => "this table header is not closed: end it with `]]`".into(),
        "unclosed array" => "this list is not closed: end it with `]`".into(),
        "unclosed inline table" => {
            "this inline table is not closed: end it with `}` on the same line".into()
        }
        "invalid basic string" | "invalid multi-line basic string" | "invalid string" => {
            "unterminated string: close it with `\"` on the same line (`\"\"\"` for text over several lines)".into()
        }
        "invalid literal string" | "invalid multi-line literal string" => {
            "unterminated string: close it with `'` on the same line".into()
        }
        "missing escaped value" | "too few unicode value digits" | "invalid unicode" => {
            "a bad escape in this string: write `\\\\` for a backslash, or use a 'literal string'"
                .into()
        }
        "string values must be quoted" => {
            let key = what.trim_matches('`');
            let key = if key == "this value" { "name" } else { key };
            format!("{what} has no value, or its text is not in quotes: write e.g. `{key} = \"text\"`")
        }
        "key with no value" | "missing value for key" | "missing value" => match what {
            "this value" => "a key without a value here: write `key = value`".into(),
            what => format!("{what} has no value: write `key = value`"),
        },
        "extra `=`" => "one `=` too many: write `key = value`".into(),
        "missing comma between array elements" => {
            "a comma is missing between the values of this list".into()
        }
        "extra comma in array" => "two commas in a row in this list: remove one".into(),
        "unexpected `=` in array" => {
            "`=` inside a list: a list holds values, e.g. [1, 2]; use a table for `key = value`"
                .into()
        }
        "extra comma in inline table" => {
            "a comma too many in this inline table: remove it".into()
        }
        "missing key for inline table element"
        | "missing assignment between key-value pairs"
        | "extra assignment between key-value pairs"
        | "invalid inline table element"
        | "missing comma between key-value pairs" => inline.into(),
        "unexpected key or value" => {
            "one `key = value` per line: put what follows on a line of its own".into()
        }
        "unexpected content between comment and newline"
        | "unexpected content"
        | "invalid comment character"
        | "missing comment start" => {
            "unexpected text here: remove it, or start a comment with `#`".into()
        }
        "unquoted keys cannot be empty"
        | "invalid unquoted key"
        | "keys cannot be multi-line basic strings"
        | "keys cannot be multi-line literal strings"
        | "invalid key-value pair"
        | "missing table open"
        | "missing opening quote"
        | "invalid key" => key.into(),
        "missing array opening" => "a `[` is missing here".into(),
        "missing inline table opening" => "a `{` is missing here".into(),
        "invalid boolean" => "write true or false, in lowercase".into(),
        "integer number overflowed" | "u64 value was too large" => format!(
            "{what} is too large: whole numbers go from {} to {}",
            i64::MIN,
            i64::MAX
        ),
        "floating-point number overflowed" => format!("{what} is too large a number"),
        "cannot recurse further; max recursion depth met" | "recursion limit" => {
            "lists or tables are nested too deeply here: flatten this value".into()
        }
        "carriage return must be followed by newline" => {
            "a carriage return alone ends this line: save the file with LF or CRLF line ends"
                .into()
        }
        "wanted string or table" => format!("{what} must be a name in quotes or a table"),
        h if h.starts_with("invalid date") || h.starts_with("invalid time") => {
            "this date or time is malformed: put text in quotes, e.g. \"name\"".into()
        }
        "invalid value" => {
            "this value cannot be read: write text in quotes (\"name\"), a number, true/false, a list [..] or a table"
                .into()
        }
        h if h.starts_with("invalid ")
            && (h.ends_with(" number") || h.ends_with("float") || h.ends_with("integer")) =>
        {
            number.into()
        }
        "unexpected leading zero"
        | "`_` may only go between digits"
        | "redundant numeric sign"
        | "redundant integer number prefix"
        | "radix must be lowercase"
        | "integers with a radix cannot be signed"
        | "unexpected sign" => number.into(),
        h if h.starts_with("invalid ") && h.ends_with(" key") => key.into(),
        h => format!("this line cannot be read as TOML ({h}): fix its syntax, e.g. `key = value`"),
    }
}

/// The path of a key as a line defines it: a table header's, or the current table's and the key.
fn defined_path(line: &str, table: &[String]) -> Option<(bool, Vec<String>)> {
    let line = line.trim();
    let unquote = |k: &str| k.trim().trim_matches(['"', '\'']).to_string();
    let path = |s: &str| -> Vec<String> { s.split('.').map(unquote).collect() };
    if let Some(inner) = line.strip_prefix("[[") {
        let inner = inner.split("]]").next().unwrap_or(inner);
        return Some((true, path(inner)));
    }
    if let Some(inner) = line.strip_prefix('[') {
        let inner = inner.split(']').next().unwrap_or(inner);
        return Some((true, path(inner)));
    }
    if line.starts_with('#') || line.is_empty() {
        return None;
    }
    let (key, _) = line.split_once('=')?;
    let mut full = table.to_vec();
    full.extend(path(key));
    Some((false, full))
}

/// "the key `x` is defined twice": which key, in which table, where first, and what to do.
fn duplicate_key(text: &str, offset: usize) -> String {
    let start = text
        .get(..offset)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let here = text
        .get(start..)
        .and_then(|t| t.lines().next())
        .unwrap_or("");
    // Each path defined so far, with its first line; an array table's element starts afresh.
    let mut table: Vec<String> = Vec::new();
    let mut first: Vec<(Vec<String>, usize)> = Vec::new();
    for (n, line) in text.get(..start).unwrap_or("").lines().enumerate() {
        let Some((header, path)) = defined_path(line, &table) else {
            continue;
        };
        if header {
            if line.trim().starts_with("[[") {
                first.retain(|(p, _)| !p.starts_with(&path));
            }
            table = path.clone();
        }
        if !first.iter().any(|(p, _)| *p == path) {
            first.push((path, n + 1));
        }
    }
    let Some((header, path)) = defined_path(here, &table) else {
        return "a key is defined twice in this table: remove one of them".into();
    };
    let name = path.last().cloned().unwrap_or_default();
    let at = first
        .iter()
        .find(|(p, _)| *p == path)
        .map_or(String::new(), |(_, n)| format!(" (first at line {n})"));
    if header {
        format!(
            "the table `[{}]` is defined twice{at}; merge the two into one",
            path.join(".")
        )
    } else {
        format!("the key `{name}` is defined twice in this table{at}; remove one of them")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_array_is_refused_at_its_line_before_it_is_read() {
        // 5 million integers peaked at 1.3 GB in the TOML reader before the first error.
        let text = format!("name = \"x\"\nat = [{}]\n", vec!["7"; 2_000_000].join(","));
        let src = SourceText::new("s.toml", text);
        let e = parse_toml::<toml::Table>(&src).expect_err("refused");
        assert_eq!((e.line, e.column), (2, 6));
        assert!(
            e.message.contains("more than 10000 values"),
            "{}",
            e.message
        );
        // At the limit, the array reads.
        let ok = format!("at = [{}]\n", vec!["1"; MAX_ITEMS].join(", "));
        assert!(parse_toml::<toml::Table>(&SourceText::new("s.toml", ok)).is_ok());
    }

    #[test]
    fn deep_nesting_and_too_many_values_are_refused() {
        let deep = format!("x = {}{}\n", "[".repeat(40), "]".repeat(40));
        let e = parse_toml::<toml::Table>(&SourceText::new("d.toml", deep)).expect_err("deep");
        assert!(
            e.message
                .contains("nested too deeply here (more than 32 levels)"),
            "{}",
            e.message
        );
        let many: String = (0..MAX_VALUES + 1).map(|i| format!("k{i} = 1\n")).collect();
        let e = parse_toml::<toml::Table>(&SourceText::new("m.toml", many)).expect_err("many");
        assert_eq!(e.line, MAX_VALUES + 1);
        // Brackets, commas and equals signs inside strings and comments are text.
        let quoted = format!(
            "a = \"{}\"\nb = '{}'\nc = \"\"\"\n{}\"\"\"\n# {}\n",
            "[,".repeat(20_000),
            "{=".repeat(20_000),
            "],\\\"".repeat(20_000),
            "[[,".repeat(20_000)
        );
        assert!(parse_toml::<toml::Table>(&SourceText::new("q.toml", quoted)).is_ok());
    }

    #[test]
    fn a_file_over_the_size_limit_is_refused_unread() {
        let dir = std::env::temp_dir().join(format!("hexforge-big-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("big.toml");
        std::fs::write(&path, vec![b'#'; MAX_FILE_BYTES + 1]).expect("write");
        let e = read_text(&path, "scenario").expect_err("too big");
        assert_eq!(e.line, 0);
        assert!(e.message.contains("larger than 4 MiB"), "{}", e.message);
        std::fs::write(&path, vec![b'#'; MAX_FILE_BYTES]).expect("write");
        assert!(read_text(&path, "scenario").is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn offsets_become_one_based_lines_and_columns() {
        let s = SourceText::new("a.toml", "ab\ncdé\nx");
        assert_eq!(s.line_col(0), (1, 1));
        assert_eq!(s.line_col(3), (2, 1));
        assert_eq!(s.line_col("ab\ncdé".len()), (2, 4));
        assert_eq!(s.line_col(8), (3, 1));
        assert_eq!(s.error(4..5, "bad").to_string(), "a.toml:2:2: bad");
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Tile {
        count: i64,
        mobile: Option<bool>,
    }

    #[test]
    fn type_errors_name_the_key_and_what_it_takes() {
        let src = SourceText::new("a.toml", "count = \"three\"\n");
        let e = parse_toml::<Tile>(&src).expect_err("wrong type");
        assert_eq!(
            e.to_string(),
            "a.toml:1:9: `count` must be a whole number, e.g. 3; found the text \"three\""
        );
        let src = SourceText::new("a.toml", "count = 1\nmobile = 2\n");
        let e = parse_toml::<Tile>(&src).expect_err("wrong type");
        assert!(
            e.to_string().contains("`mobile` must be true or false"),
            "{e}"
        );
        let src = SourceText::new("a.toml", "count = \"1\n");
        let e = parse_toml::<Tile>(&src).expect_err("bad string");
        assert!(e.to_string().contains("unterminated string"), "{e}");
    }

    #[test]
    fn values_of_the_wrong_type_are_all_reported_where_they_are_written() {
        // A list over two lines where a number goes, a text with a wide letter, then a boolean:
        // the stand-ins keep every later line and column where it was.
        let text = "count = [1,\n  2]\nmobile = \"ünf\"\n";
        let e = parse_toml_every::<Tile>(&SourceText::new("a.toml", text)).expect_err("refused");
        let lines: Vec<String> = e.0.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("a.toml:1:9: `count`"), "{lines:?}");
        assert!(lines[1].starts_with("a.toml:3:10: `mobile`"), "{lines:?}");
        // A syntax error stops there: no stand-in answers it.
        let text = "count = \"x\"\nmobile = = 1\n";
        let e = parse_toml_every::<Tile>(&SourceText::new("a.toml", text)).expect_err("refused");
        assert_eq!(e.0.len(), 1, "{e}");
        // A file with none reads.
        let ok =
            parse_toml_every::<Tile>(&SourceText::new("a.toml", "count = 2\n")).expect("reads");
        assert_eq!(ok.count, 2);
        let mut t = String::from("a = \"é\"\nb = 1");
        assert!(stand_in_over(&mut t, 4..8, "0".into()));
        assert_eq!(t, "a = 0   \nb = 1");
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Board {
        hex: Option<[i32; 2]>,
        small: Option<u8>,
        initiative: Option<i64>,
        toughness: Option<i64>,
        deep: Option<toml::Value>,
        inner: Option<Inner>,
        list: Option<Vec<String>>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        id: String,
    }

    fn board_error(text: &str) -> String {
        parse_toml::<Board>(&SourceText::new("b.toml", text))
            .expect_err("an error")
            .to_string()
    }

    #[test]
    fn a_duplicate_key_is_named_with_its_first_line() {
        let e = board_error("toughness = 1\n\n[inner]\nid = \"a\"\nid = \"b\"\n");
        assert_eq!(
            e,
            "b.toml:5:1: the key `id` is defined twice in this table (first at line 4); remove one of them"
        );
        let e = board_error("initiative = 2\ntoughness = 1\ninitiative = 3\n");
        assert!(
            e.starts_with(
                "b.toml:3:1: the key `initiative` is defined twice in this table (first at line 1)"
            ),
            "{e}"
        );
        let e = board_error("[inner]\nid = \"a\"\n[inner]\n");
        assert!(
            e.contains("the table `[inner]` is defined twice (first at line 1)"),
            "{e}"
        );
    }

    #[test]
    fn a_file_that_is_not_utf8_is_located_with_advice() {
        let dir = std::env::temp_dir().join(format!("hexforge-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("army.toml");
        std::fs::write(&path, b"[army]\nid = \"x\"\nname = \"\xff\"\n").expect("write");
        let e = SourceText::read(&path, "army file").expect_err("not UTF-8");
        assert_eq!((e.line, e.column), (3, 9), "{e}");
        assert!(
            e.message == "line 3, byte 24: this army file is not UTF-8 text; save it as UTF-8",
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn out_of_range_integers_say_the_range() {
        let e = board_error("small = 300\n");
        assert_eq!(
            e,
            "b.toml:1:9: `small` is out of range: found the number 300; use a whole number from 0 to 255"
        );
        let e = board_error("hex = [1, 99999999999]\n");
        assert!(e.contains("`hex` is out of range: found the number 99999999999; use a whole number from -2147483648 to 2147483647"), "{e}");
        let e = board_error("initiative = 99999999999999999999\n");
        assert!(e.contains("`initiative` is out of range: found the number 99999999999999999999; use a whole number from"), "{e}");
    }

    #[test]
    fn lists_of_the_wrong_length_say_how_many_values() {
        let e = board_error("hex = [1]\n");
        assert_eq!(
            e,
            "b.toml:1:7: `hex` must be a list of 2 values; found 1 values: write e.g. [1, 2]"
        );
    }

    #[test]
    fn a_name_with_a_line_break_an_escape_or_a_direction_mark_is_refused() {
        assert_eq!(one_line_problem("the army's `name`", "Moloch Élite"), None);
        for bad in [
            "a\nResult: won",
            "\u{1b}[41mX",
            "evil\u{202e}txt",
            "tab\there",
            "line\u{2028}separator",
        ] {
            let said = one_line_problem("the army's `name`", bad).expect("refused");
            assert!(said.contains("write it on one line"), "{said}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_in_plain_words() {
        let deep = format!("deep = {}1{}\n", "[".repeat(300), "]".repeat(300));
        let e = board_error(&deep);
        assert!(e.contains("nested too deeply"), "{e}");
        assert!(!e.contains("recursion"), "{e}");
    }

    #[test]
    fn unknown_and_missing_keys_name_the_closest_and_the_table() {
        let e = board_error("toughnes = 1\n");
        assert!(
            e.starts_with("b.toml:1:1: unknown key `toughnes` at the top of the file (did you mean `toughness`?): remove it"),
            "{e}"
        );
        let e = board_error("[inner]\nname = \"x\"\n");
        assert!(
            e.starts_with("b.toml:2:1: unknown key `name` in `[inner]`"),
            "{e}"
        );
        // Every unknown key and wrong value is told, not only the first.
        let every = |text: &str| {
            parse_toml_every::<Board>(&SourceText::new("b.toml", text))
                .expect_err("errors")
                .to_string()
        };
        let e = every(
            "toughnes = 1\nsmall = \"x\"\n\n[inner]\nid = \"a\"\nnme = 2\n\n[inner.deeper]\nx = 1\n",
        );
        assert!(e.contains("b.toml:1:1: unknown key `toughnes`"), "{e}");
        assert!(e.contains("b.toml:2:9: `small` must be"), "{e}");
        assert!(
            e.contains("b.toml:6:1: unknown key `nme` in `[inner]`"),
            "{e}"
        );
        assert!(
            e.contains("b.toml:8:8: unknown key `deeper` in `[inner]`"),
            "{e}"
        );
        // A whole number where a list goes hides nothing after it.
        let e = every("list = 1\nsmall = \"x\"\n");
        assert!(
            e.contains("b.toml:1:8: `list` must be a list in brackets"),
            "{e}"
        );
        assert!(e.contains("b.toml:2:9: `small` must be"), "{e}");
        // One value where a list goes: the list of it.
        let e = board_error("list = \"a\"\n");
        assert!(
            e.contains("must be a list in brackets; found the text \"a\": write [\"a\"]"),
            "{e}"
        );
        // A key named in a header (`[inner.nme]`) is a key of the table above it, named whole.
        let e = board_error("[inner]\nid = \"x\"\n\n[inner.nme]\nx = 1\n");
        assert!(
            e.starts_with("b.toml:4:8: unknown key `nme` in `[inner]`"),
            "{e}"
        );
        let e = board_error("[inner]\n");
        assert_eq!(
            e,
            "b.toml:1:1: the table `[inner]` needs `id`: add `id = ...`"
        );
    }

    #[test]
    fn syntax_errors_are_in_plain_words() {
        for (text, want) in [
            ("hex = [1, 2\n", "this list is not closed"),
            ("[inner\n", "this table header is not closed"),
            (
                "initiative = 1 toughness = 2\n",
                "one `key = value` per line",
            ),
            ("initiative = \n", "`initiative` has no value"),
            ("initiative = 0x\n", "too large"),
            ("= 1\n", "a key is missing"),
        ] {
            let e = board_error(text);
            assert!(e.contains(want), "{text:?}: {e}");
            assert!(!e.contains("expected"), "{text:?}: {e}");
        }
    }

    #[test]
    fn columns_count_characters_and_many_errors_on_one_line_stay_fast() {
        let s = SourceText::new("a.toml", "é = \"ü\" # ω\nx");
        assert_eq!(s.line_col("é = \"ü".len()), (1, 7));
        assert_eq!(s.line_col(s.text().len() - 1), (2, 1));
        let long = "é".repeat(200_000);
        let s = SourceText::new("a.toml", long.clone());
        let started = std::time::Instant::now();
        for k in 0..100_000 {
            assert_eq!(s.line_col(k * 2), (1, k + 1));
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }
}
