//! Mod folders on disk: where they are (the mod folders below the mods folders, the user's own
//! mods folder), the files one holds by kind, and a text file of one read with its path
//! ([`ScriptFile`]).

use crate::diagnostic::Diagnostic;
use std::path::{Path, PathBuf};

/// A text file of a mod (a Lua script or a patch file) with the path it was read from.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptFile {
    /// Where the file is, as read.
    pub path: PathBuf,
    /// The file's whole text, as read when the mod loaded.
    pub text: String,
}

impl ScriptFile {
    /// The file at `path` with its text, or a problem about the whole file naming `what` it is.
    pub fn read(path: PathBuf, what: &str) -> Result<Self, Diagnostic> {
        let text = crate::diagnostic::read_text(&path, what)?;
        Ok(ScriptFile { path, text })
    }
}

/// The user's own mods folder, from the environment `var` gives: `HEXFORGE_USER_MODS`, else
/// `$XDG_DATA_HOME/hexforge/mods`, else `~/.local/share/hexforge/mods`; empty values count as unset.
/// Tools load it after the checkout's mods when it exists.
pub fn user_mods_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let env = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    env("HEXFORGE_USER_MODS")
        .or_else(|| env("XDG_DATA_HOME").map(|d| d.join("hexforge/mods")))
        .or_else(|| env("HOME").map(|h| h.join(".local/share/hexforge/mods")))
}

/// The `.toml` files of a mod's folder `sub` (`armies`, `rules`, `patches`), sorted by path.
pub(crate) fn toml_files(dir: &Path, sub: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir.join(sub)) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

/// The Lua files of a mod's `scripts/` folder, sorted by path.
pub fn script_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.join("scripts")];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "lua") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The mod folders below `roots`: a root with a `mod.toml` is a mod itself, any other root is a
/// folder of mods (one level deep). Roots keep their order; each root's mods are sorted by path.
pub fn mod_dirs(roots: &[PathBuf], problems: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for root in roots {
        if root.join("mod.toml").is_file() {
            dirs.push(root.clone());
            continue;
        }
        match std::fs::read_dir(root) {
            Ok(rd) => {
                let mut found: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.join("mod.toml").is_file())
                    .collect();
                found.sort();
                dirs.extend(found);
            }
            Err(e) => problems.push(Diagnostic::whole_file(
                root,
                format!("cannot read the mods folder: {e}"),
            )),
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_mods_folder_follows_the_environment_in_order() {
        fn from(pairs: &[(&str, &str)]) -> Option<PathBuf> {
            user_mods_dir(|k| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == k)
                    .map(|(_, v)| (*v).into())
            })
        }
        let explicit = [("HEXFORGE_USER_MODS", "/m"), ("HOME", "/h")];
        assert_eq!(from(&explicit), Some(PathBuf::from("/m")));
        let xdg = [
            ("HEXFORGE_USER_MODS", ""),
            ("XDG_DATA_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(from(&xdg), Some(PathBuf::from("/x/hexforge/mods")));
        let home = [("HOME", "/h")];
        assert_eq!(
            from(&home),
            Some(PathBuf::from("/h/.local/share/hexforge/mods"))
        );
        assert_eq!(from(&[]), None);
    }
}
