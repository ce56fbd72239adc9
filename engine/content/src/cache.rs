//! Loading again after a change: what each mod folder gave when it was last read, with the
//! identity of the files it read, so that only the folders that changed are read again and the
//! global steps (dependencies, load order, patches, catalog) are redone from the parts kept.

use crate::diagnostic::Diagnostic;
use crate::folder::{mod_dirs, script_files, toml_files};
use crate::folder_read::{FolderRead, read_folder};
use crate::modpack::{LoadedMods, assemble};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The identity of one file or folder a mod folder's read depended on: its path, its length and
/// its modification time (a folder: its path alone, as whether it exists is what matters).
///
/// Length and time rather than a hash of the content: checking them costs one `stat` per file,
/// while hashing would read every file of every mod on each reload, which is most of what a
/// reload of an unchanged folder would cost anyway. What they miss (a rewrite of the same
/// length within one tick of the file system's clock) is covered by the paths the caller says
/// changed: the editor's watcher reports every write, and a load told nothing reads every
/// folder again.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    path: PathBuf,
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(path: PathBuf) -> Stamp {
        let meta = std::fs::metadata(&path).ok();
        Stamp {
            len: meta.as_ref().map_or(0, |m| m.len()),
            modified: meta.and_then(|m| m.modified().ok()),
            path,
        }
    }
}

/// The identities of every file reading the mod folder `dir` depends on, in a fixed order: the
/// manifest, the army, preset and patch files, whether `scripts/` exists, and the Lua files.
fn stamps(dir: &Path) -> Vec<Stamp> {
    let mut out = vec![Stamp::of(dir.join("mod.toml"))];
    for sub in ["armies", "rules", "patches"] {
        out.extend(toml_files(dir, sub).into_iter().map(Stamp::of));
    }
    let scripts = dir.join("scripts");
    if scripts.is_dir() {
        out.push(Stamp {
            path: scripts,
            len: 0,
            modified: None,
        });
    }
    out.extend(script_files(dir).into_iter().map(Stamp::of));
    out
}

/// A mod folder as last read.
#[derive(Clone, Debug)]
struct Cached {
    stamps: Vec<Stamp>,
    read: FolderRead,
}

/// What a refresh did: the mod folders read again, and those that are gone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refreshed {
    /// The folders read (new, changed, or named by the caller), in load-listing order.
    pub read: Vec<PathBuf>,
    /// The folders read before that are no longer mod folders (deleted, renamed, or their
    /// `mod.toml` removed), sorted.
    pub gone: Vec<PathBuf>,
}

/// What each mod folder gave when it was last read, keyed by folder. [`ModCache::refresh`]
/// brings it up to date with the disk (reading only the folders that changed) and
/// [`ModCache::assemble`] loads the mods from it; the result is exactly what
/// [`crate::load_mods_except`] gives for the same files.
#[derive(Clone, Debug, Default)]
pub struct ModCache {
    /// The mod folders below the roots, in [`mod_dirs`] order, at the last refresh.
    dirs: Vec<PathBuf>,
    /// What listing the roots found.
    root_problems: Vec<Diagnostic>,
    folders: BTreeMap<PathBuf, Cached>,
}

impl ModCache {
    /// Finds the mod folders below `roots` again and reads the ones that need it: those holding a
    /// path of `changed`, those whose files' identity changed (a file edited, added or removed),
    /// and new folders; folders that are gone are forgotten. `changed: None` reads every folder
    /// again.
    pub fn refresh(&mut self, roots: &[PathBuf], changed: Option<&[PathBuf]>) -> Refreshed {
        let mut root_problems = Vec::new();
        let dirs = mod_dirs(roots, &mut root_problems);
        let mut folders = BTreeMap::new();
        let mut read = Vec::new();
        for dir in &dirs {
            let touched = changed.is_none_or(|paths| {
                paths.iter().any(|p| {
                    // The innermost mod folder holding the path: a mod may sit inside another's.
                    p.starts_with(dir)
                        && !dirs
                            .iter()
                            .any(|d| d != dir && d.starts_with(dir) && p.starts_with(d))
                })
            });
            let now = stamps(dir);
            let kept = self
                .folders
                .remove(dir)
                .filter(|c| !touched && c.stamps == now);
            let entry = match kept {
                Some(c) => c,
                None => {
                    read.push(dir.clone());
                    Cached {
                        stamps: now,
                        read: read_folder(dir),
                    }
                }
            };
            folders.insert(dir.clone(), entry);
        }
        let gone = std::mem::replace(&mut self.folders, folders)
            .into_keys()
            .collect();
        self.dirs = dirs;
        self.root_problems = root_problems;
        Refreshed { read, gone }
    }

    /// The mods of the folders as last read, resolved and loaded into one catalog, with the mods
    /// in `refused` left out as [`crate::load_mods_except`] does.
    pub fn assemble(&self, refused: &[(String, String)]) -> LoadedMods {
        let folders: Vec<(&Path, &FolderRead)> = self
            .dirs
            .iter()
            .filter_map(|d| self.folders.get(d).map(|c| (d.as_path(), &c.read)))
            .collect();
        assemble(&self.root_problems, &folders, refused)
    }

    /// The mod folders found at the last refresh, in load-listing order.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refresh_reads_only_what_changed() {
        let dir = std::env::temp_dir().join(format!("hexforge-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods");
        copy(&repo.join("base"), &dir.join("base"));
        copy(&repo.join("examples"), &dir.join("examples"));
        let roots = vec![dir.clone()];
        let mut cache = ModCache::default();
        let read = |cache: &mut ModCache, changed: Option<&[PathBuf]>| {
            let r = cache.refresh(&roots, changed);
            assert!(r.gone.is_empty(), "{:?}", r.gone);
            r.read
        };
        let all = read(&mut cache, None);
        assert_eq!(all, [dir.join("base"), dir.join("examples")]);
        assert_eq!(read(&mut cache, Some(&[])), Vec::<PathBuf>::new());
        // A path the caller names: its folder alone, even when its identity looks the same.
        let moloch = dir.join("base/armies/moloch.toml");
        assert_eq!(
            read(&mut cache, Some(std::slice::from_ref(&moloch))),
            [dir.join("base")]
        );
        // A file whose length changed is seen without being named.
        let army = std::fs::read_dir(dir.join("examples/armies"))
            .expect("examples has armies")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "toml"))
            .expect("an army file");
        let text = std::fs::read_to_string(&army).expect("read the army");
        std::fs::write(&army, format!("{text}\n# a note\n")).expect("write the army");
        assert_eq!(read(&mut cache, Some(&[])), [dir.join("examples")]);
        // A new mod folder is read; a deleted one is forgotten.
        copy(&dir.join("examples"), &dir.join("zcopy"));
        assert_eq!(read(&mut cache, Some(&[])), [dir.join("zcopy")]);
        let loaded = cache.assemble(&[]);
        assert!(loaded.skipped.iter().any(|s| s.dir == dir.join("zcopy")));
        std::fs::remove_dir_all(dir.join("zcopy")).expect("remove the copy");
        assert_eq!(
            cache.refresh(&roots, Some(&[])),
            Refreshed {
                read: Vec::new(),
                gone: vec![dir.join("zcopy")]
            }
        );
        assert_eq!(cache.dirs(), [dir.join("base"), dir.join("examples")]);
        let _ = std::fs::remove_dir_all(dir);
    }

    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("create the copy");
        for e in std::fs::read_dir(from).expect("read the folder") {
            let e = e.expect("a folder entry");
            if e.path().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).expect("copy a file");
            }
        }
    }
}
