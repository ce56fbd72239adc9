//! Problems found in content files, each located as `file:line:column`.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A file's text with the offsets of its lines, to turn byte offsets into line and column.
#[derive(Clone, Debug)]
pub struct SourceText {
    path: PathBuf,
    text: String,
    line_starts: Vec<usize>,
}

impl SourceText {
    /// A file's text, with `path` the name its problems are reported under.
    pub fn new(path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceText {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// The text of the file at `path`, or a problem about the whole file naming `what` it is.
    pub fn read(path: &Path, what: &str) -> Result<Self, Diagnostic> {
        std::fs::read_to_string(path)
            .map(|text| SourceText::new(path, text))
            .map_err(|e| Diagnostic::whole_file(path, format!("cannot read the {what}: {e}")))
    }

    /// The name the file's problems are reported under.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's whole text, as spans index it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|s| *s <= offset) - 1;
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
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

/// Parses TOML into `T`, turning a syntax or type error into a located diagnostic.
pub fn parse_toml<T: serde::de::DeserializeOwned>(src: &SourceText) -> Result<T, Diagnostic> {
    toml::from_str(src.text()).map_err(|e| {
        let message = e.message().trim().to_string();
        match e.span() {
            Some(span) => {
                let key = key_at(src.text(), span.start);
                src.error(span, plain_words(&message, key.as_deref()))
            }
            None => src.file_error(message),
        }
    })
}

/// The key of the `key = value` line holding byte `offset`, if the value starts there.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let (key, _) = text.get(start..offset)?.split_once('=')?;
    let key = key.trim();
    (!key.is_empty() && !key.contains(['[', '"', '#'])).then(|| key.to_string())
}

/// The TOML reader's messages in a modder's words, naming the key where it is known.
fn plain_words(message: &str, key: Option<&str>) -> String {
    let what = |expected: &str| -> Option<&'static str> {
        Some(match expected {
            "i64" | "u64" | "u8" | "u16" | "i32" | "u32" => "a whole number, e.g. 3",
            "a boolean" => "true or false",
            "a string" => "a string in quotes, e.g. \"name\"",
            "a sequence" => "a list in brackets, e.g. [1, 2]",
            "a map" | "struct" => "a table",
            _ => return None,
        })
    };
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
        && let Some(want) = what(expected.trim())
    {
        return match key {
            Some(k) => format!("`{k}` must be {want}, not {found}"),
            None => format!("expected {want}, not {found}"),
        };
    }
    if message.starts_with("invalid basic string") {
        return "unterminated string: close it with `\"` on the same line".to_string();
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "a.toml:1:9: `count` must be a whole number, e.g. 3, not string \"three\""
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
}
