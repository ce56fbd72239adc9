//! The editor's replay folder: where the games it plays are recorded, and the replays it lists
//! for opening.

use crate::disk::ReadError;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The replay folder, from the environment `var` gives: `HEXFORGE_REPLAYS`, else
/// `$XDG_DATA_HOME/hexforge/replays`, else `~/.local/share/hexforge/replays` (beside the user
/// mods folder); empty values count as unset.
pub fn replay_dir(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let env = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    env("HEXFORGE_REPLAYS")
        .or_else(|| env("XDG_DATA_HOME").map(|d| d.join("hexforge/replays")))
        .or_else(|| env("HOME").map(|h| h.join(".local/share/hexforge/replays")))
}

/// The replay files (`*.txt`) of `dir`, sorted by name; none when the folder does not exist yet,
/// and an error naming it when it exists but cannot be listed.
pub fn list(dir: &Path) -> Result<Vec<PathBuf>, ReadError> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            let e = ReadError::new(dir, e);
            return if e.is_missing() {
                Ok(Vec::new())
            } else {
                Err(e)
            };
        }
    };
    let mut files = Vec::new();
    for entry in rd {
        let p = entry.map_err(|e| ReadError::new(dir, e))?.path();
        if p.is_file() && p.extension().is_some_and(|x| x == "txt") {
            files.push(p);
        }
    }
    files.sort();
    Ok(files)
}

/// Creates a new replay file `STEM.txt` in `dir` (made if missing), or `STEM-2.txt`, `STEM-3.txt`
/// ... when that name is taken: an existing replay is never overwritten.
pub fn create_new(dir: &Path, stem: &str) -> io::Result<(PathBuf, File)> {
    std::fs::create_dir_all(dir)?;
    for n in 1.. {
        let name = if n == 1 {
            format!("{stem}.txt")
        } else {
            format!("{stem}-{n}.txt")
        };
        let path = dir.join(name);
        match File::options().write(true).create_new(true).open(&path) {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    unreachable!("some file name is free")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_comes_from_the_variable_then_the_data_folders() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        assert_eq!(
            replay_dir(env(&[("HEXFORGE_REPLAYS", "/r"), ("HOME", "/h")])),
            Some(PathBuf::from("/r"))
        );
        assert_eq!(
            replay_dir(env(&[("HEXFORGE_REPLAYS", ""), ("XDG_DATA_HOME", "/x")])),
            Some(PathBuf::from("/x/hexforge/replays"))
        );
        assert_eq!(
            replay_dir(env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/share/hexforge/replays"))
        );
        assert_eq!(replay_dir(env(&[])), None);
    }

    #[test]
    fn new_files_never_overwrite_and_are_listed_by_name() {
        let dir = std::env::temp_dir().join(format!("hexforge-folder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            list(&dir).expect("nothing to read").is_empty(),
            "a missing folder lists nothing"
        );
        let (a, _) = create_new(&dir, "m").expect("create");
        let (b, _) = create_new(&dir, "m").expect("create");
        let (c, _) = create_new(&dir, "a").expect("create");
        std::fs::write(dir.join("notes.md"), "not a replay").expect("write");
        assert_eq!(a.file_name(), Some("m.txt".as_ref()));
        assert_eq!(b.file_name(), Some("m-2.txt".as_ref()));
        assert_eq!(list(&dir).expect("listed"), vec![c, b, a]);
        // A file where the folder should be is an error naming it, not an empty folder.
        let e = list(&dir.join("notes.md")).expect_err("not a folder");
        assert_eq!(e.path(), dir.join("notes.md"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
