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

    pub fn path(&self) -> &Path {
        &self.path
    }

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
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Diagnostic {
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
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

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
            Some(span) => src.error(span, message),
            None => src.file_error(message),
        }
    })
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
}
