//! Unsaved changes kept safe: each open file's unsaved text is written, a moment after the last
//! edit, to a hidden file beside it (`.moloch.toml.autosave`), atomically; saving or discarding
//! removes it, and on the next start the autosaves found are offered back, never applied or
//! deleted without the designer's say (one that cannot be read is reported, and left on disk).

use crate::disk::ReadError;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long after the last edit the autosave is written.
pub const DELAY: Duration = Duration::from_secs(1);

const SUFFIX: &str = ".autosave";

/// The autosave beside `file`: `dir/.name.autosave`. Its extension is not a content file's, so
/// writing it does not reload the mods.
pub fn path_for(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    file.with_file_name(format!(".{name}{SUFFIX}"))
}

/// The file an autosave at `autosave` belongs to, if it is one.
pub fn file_of(autosave: &Path) -> Option<PathBuf> {
    let name = autosave.file_name()?.to_str()?;
    let original = name.strip_prefix('.')?.strip_suffix(SUFFIX)?;
    original
        .ends_with(".toml")
        .then(|| autosave.with_file_name(original))
}

/// Whether the autosave of a file edited at `changed` (and not written since) is due at `now`.
pub fn due(changed: Option<Instant>, now: Instant) -> bool {
    changed.is_some_and(|at| now.duration_since(at) >= DELAY)
}

/// Writes `text` as the autosave of `file`.
pub fn write(file: &Path, text: &str) -> std::io::Result<()> {
    hexforge_content::write_atomically(&path_for(file), text)
}

/// Removes the autosave of `file`, if there is one.
pub fn remove(file: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path_for(file)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Unsaved changes found on start, to offer back.
#[derive(Clone, Debug, PartialEq)]
pub struct Offer {
    /// The army file the changes belong to.
    pub file: PathBuf,
    /// The folder of the mod it is in.
    pub mod_dir: PathBuf,
    /// The unsaved text.
    pub text: String,
}

/// What [`find`] found: the unsaved changes to offer back, and the autosaves (or `armies/`
/// folders) that exist but cannot be read, to tell the designer about (they are left on disk).
#[derive(Debug, Default)]
pub struct Found {
    /// The unsaved changes read, in path order.
    pub offers: Vec<Offer>,
    /// What could not be read, with why.
    pub unreadable: Vec<ReadError>,
}

/// The autosaves in the `armies/` folders of the mods in `mod_dirs`, in path order; an autosave
/// that cannot be read is reported, never skipped.
pub fn find(mod_dirs: &[PathBuf]) -> Found {
    let mut out = Found::default();
    for dir in mod_dirs {
        let armies = dir.join("armies");
        let rd = match std::fs::read_dir(&armies) {
            Ok(rd) => rd,
            Err(e) => {
                let e = ReadError::new(&armies, e);
                // A mod without armies has no autosaves.
                if !e.is_missing() {
                    out.unreadable.push(e);
                }
                continue;
            }
        };
        let mut found: Vec<(PathBuf, PathBuf)> = Vec::new();
        for entry in rd {
            match entry {
                Ok(entry) => {
                    let p = entry.path();
                    if let Some(f) = file_of(&p) {
                        found.push((p, f));
                    }
                }
                Err(e) => out.unreadable.push(ReadError::new(&armies, e)),
            }
        }
        found.sort();
        for (autosave, file) in found {
            match crate::disk::read(&autosave) {
                Ok(text) => out.offers.push(Offer {
                    file,
                    mod_dir: dir.clone(),
                    text,
                }),
                Err(e) => out.unreadable.push(e),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_autosave_sits_beside_its_file_and_is_found_again() {
        let dir = std::env::temp_dir().join(format!("hexforge-autosave-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let armies = dir.join("fan/armies");
        std::fs::create_dir_all(&armies).expect("create the folder");
        let file = armies.join("fan.toml");
        std::fs::write(&file, "saved").expect("write the file");
        assert_eq!(path_for(&file), armies.join(".fan.toml.autosave"));
        assert_eq!(file_of(&path_for(&file)), Some(file.clone()));
        assert_eq!(file_of(&file), None);
        assert!(!crate::reload::is_content_file(&path_for(&file)));

        assert!(find(&[dir.join("fan")]).offers.is_empty());
        write(&file, "unsaved").expect("autosave");
        let offers = find(&[dir.join("fan")]).offers;
        assert_eq!(
            offers,
            [Offer {
                file: file.clone(),
                mod_dir: dir.join("fan"),
                text: "unsaved".into()
            }]
        );
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "saved");
        remove(&file).expect("remove");
        remove(&file).expect("removing twice is fine");
        let found = find(&[dir.join("fan")]);
        assert!(found.offers.is_empty() && found.unreadable.is_empty());

        // An autosave that is not text is reported with its path, and left where it is.
        std::fs::write(path_for(&file), b"\xff\xfe").expect("write the bytes");
        let found = find(&[dir.join("fan")]);
        assert!(found.offers.is_empty());
        assert_eq!(found.unreadable.len(), 1, "{:?}", found.unreadable);
        assert_eq!(found.unreadable[0].path(), path_for(&file));
        assert!(path_for(&file).is_file());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_autosave_waits_a_moment_after_the_last_edit() {
        let now = Instant::now();
        assert!(!due(None, now));
        assert!(!due(Some(now), now + DELAY / 2));
        assert!(due(Some(now), now + DELAY));
    }
}
