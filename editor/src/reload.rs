//! Hot reload: watching the mod folders for saved TOML and Lua files, waiting for the writes to
//! settle, naming the files that changed (so only their mods are read again), saying what a
//! reload did, and deciding whether the new content replaces the last good one (it does unless it
//! brings problems the last good content did not have).

use hexforge_content::LoadedMods;
use notify::{RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// How long a file written must stay quiet before a reload where the system does not say when it
/// is closed (where it does, the close ends the wait at once: [`FolderWatch::due`]).
pub const SETTLE: Duration = Duration::from_millis(50);

/// Whether the system tells when a file written is closed (Linux's inotify does): a file left
/// open is then waited for up to [`OPEN_LIMIT`], not [`SETTLE`].
const REPORTS_CLOSES: bool = cfg!(target_os = "linux");

/// The longest a file written and not closed is waited for, where closes are reported (a writer
/// that keeps a file open, or died with it open, does not hold reloads back for ever).
pub const OPEN_LIMIT: Duration = Duration::from_secs(2);

/// Called from the watcher's thread when a file changes.
pub type Waker = Box<dyn Fn() + Send + 'static>;

/// What changed on disk since the last reload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Changes {
    /// These paths: content files, and folders created or removed (a mod copied in or deleted),
    /// sorted, each once.
    Paths(Vec<PathBuf>),
    /// Not known (a notification was lost or failed): everything is read again.
    Unknown,
}

impl Changes {
    /// The paths that changed, or `None` when everything must be read again.
    pub fn paths(&self) -> Option<&[PathBuf]> {
        match self {
            Changes::Paths(p) => Some(p),
            Changes::Unknown => None,
        }
    }
}

/// Watches folders (recursively: editors save by rename, so single files cannot be watched) and
/// reports the content files that changed once their saves are complete: every file written has
/// been closed (or renamed into place), or, where the system does not report closes, nothing
/// changed for [`SETTLE`] (a file left open is given up on after [`OPEN_LIMIT`]).
pub struct FolderWatch {
    _watcher: notify::RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
    /// When the last change to a content file arrived, while a reload is due.
    pending: Option<Instant>,
    /// Content files written to and not closed yet: a save still under way.
    open: BTreeSet<PathBuf>,
    /// The paths changed since the last reload (sorted, each once).
    changed: BTreeSet<PathBuf>,
    /// A notification was lost since the last reload: the paths are not all known.
    lost: bool,
}

/// Whether a change to `path` can change the loaded content.
pub fn is_content_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("toml" | "lua")
    )
}

impl FolderWatch {
    /// Starts watching `roots` (the folders that do not exist are skipped); `wake` is called on
    /// every change, from the watcher's thread (a window asks for a repaint there).
    pub fn new(roots: &[PathBuf], wake: Option<Waker>) -> notify::Result<Self> {
        let (tx, events) = channel();
        let mut watcher = notify::recommended_watcher(move |e| {
            // The receiver only goes away with the editor itself.
            let _ = tx.send(e);
            if let Some(wake) = &wake {
                wake();
            }
        })?;
        for root in roots.iter().filter(|r| r.is_dir()) {
            watcher.watch(root, RecursiveMode::Recursive)?;
        }
        Ok(FolderWatch {
            _watcher: watcher,
            events,
            pending: None,
            open: BTreeSet::new(),
            changed: BTreeSet::new(),
            lost: false,
        })
    }

    /// Takes the events that arrived; once content files changed and every one written has been
    /// closed since (a save is complete the moment its writer closes the file, or renames it into
    /// place), or nothing changed for [`SETTLE`] (a system that reports no closes), returns what
    /// changed and starts collecting afresh. A save in several writes is seen whole: the file
    /// stays open between them.
    pub fn due(&mut self, now: Instant) -> Option<Changes> {
        use notify::EventKind;
        use notify::event::{AccessKind, AccessMode, ModifyKind};
        while let Ok(event) = self.events.try_recv() {
            match event {
                // Closed after writing: that file's save is complete.
                Ok(e)
                    if matches!(
                        e.kind,
                        EventKind::Access(AccessKind::Close(AccessMode::Write))
                    ) =>
                {
                    for p in e.paths.into_iter().filter(|p| is_content_file(p)) {
                        self.open.remove(&p);
                        self.changed.insert(p);
                        self.pending = Some(now);
                    }
                }
                Ok(e) if e.kind.is_access() => {}
                Ok(e) => {
                    // Written to (or created): open until its close, where closes are reported.
                    if matches!(
                        e.kind,
                        EventKind::Create(_)
                            | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Any)
                    ) {
                        self.open
                            .extend(e.paths.iter().filter(|p| is_content_file(p)).cloned());
                    } else {
                        // Renamed into place or removed: nothing more to wait for there.
                        for p in &e.paths {
                            self.open.remove(p);
                        }
                    }
                    // A folder created, removed or renamed can be a whole mod copied in, deleted
                    // or moved: its path counts too.
                    let structural = matches!(
                        e.kind,
                        notify::EventKind::Create(_)
                            | notify::EventKind::Remove(_)
                            | notify::EventKind::Modify(notify::event::ModifyKind::Name(_))
                    );
                    let touched: Vec<PathBuf> = e
                        .paths
                        .into_iter()
                        .filter(|p| is_content_file(p) || (structural && p.extension().is_none()))
                        .collect();
                    if !touched.is_empty() {
                        self.changed.extend(touched);
                        self.pending = Some(now);
                    }
                }
                // A lost or failed notification: reload everything to be sure.
                Err(_) => {
                    self.lost = true;
                    self.pending = Some(now);
                }
            }
        }
        match self.pending {
            Some(at)
                if self.open.is_empty()
                    || now.duration_since(at)
                        >= if REPORTS_CLOSES { OPEN_LIMIT } else { SETTLE } =>
            {
                self.open.clear();
                self.pending = None;
                let paths = std::mem::take(&mut self.changed);
                Some(if std::mem::take(&mut self.lost) {
                    Changes::Unknown
                } else {
                    Changes::Paths(paths.into_iter().collect())
                })
            }
            _ => None,
        }
    }

    /// Whether a change is waiting for the files to settle (the caller should look again soon).
    pub fn waiting(&self) -> bool {
        self.pending.is_some()
    }
}

/// What a reload read, for the status bar: each mod folder read again by its mod's id (its
/// folder's name when no mod of `loaded` has that folder), with the files of `changed` in it,
/// e.g. `base (armies/moloch.toml)`, then the folders `gone` (`fan (removed)`); many folders are
/// counted instead.
pub fn describe(
    read: &[PathBuf],
    gone: &[PathBuf],
    changed: Option<&[PathBuf]>,
    loaded: &LoadedMods,
) -> String {
    let name = |dir: &Path| {
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string())
    };
    if read.is_empty() && gone.is_empty() {
        return "no mod".to_string();
    }
    if read.len() + gone.len() > 3 {
        return match gone.len() {
            0 => format!("{} mods", read.len()),
            n => format!("{} mods ({n} removed)", read.len() + n),
        };
    }
    let parts: Vec<String> = read
        .iter()
        .map(|dir| {
            let id = loaded
                .mods
                .iter()
                .find(|m| &m.dir == dir)
                .map(|m| m.id.clone())
                .or_else(|| {
                    let s = loaded.skipped.iter().find(|s| &s.dir == dir)?;
                    Some(s.id.clone())
                })
                .unwrap_or_else(|| name(dir));
            let files: Vec<String> = changed
                .unwrap_or_default()
                .iter()
                .filter_map(|p| p.strip_prefix(dir).ok())
                .filter(|rel| !rel.as_os_str().is_empty())
                .map(|rel| rel.to_string_lossy().replace('\\', "/"))
                .collect();
            if files.is_empty() {
                id
            } else {
                format!("{id} ({})", files.join(", "))
            }
        })
        .chain(gone.iter().map(|dir| format!("{} (removed)", name(dir))))
        .collect();
    parts.join(", ")
}

/// Whether a freshly loaded `new` content replaces the last good `old` one: it does unless it has
/// a problem `old` did not have or skips a mod `old` loaded. A broken save thus leaves the last good
/// content in play while its problems are shown.
pub fn adopt(old: &LoadedMods, new: &LoadedMods) -> bool {
    let old_problems: Vec<String> = old.problems.iter().map(|d| d.to_string()).collect();
    let new_problem = new
        .problems
        .iter()
        .any(|d| !old_problems.contains(&d.to_string()));
    let newly_skipped = new
        .skipped
        .iter()
        .any(|s| !old.skipped.iter().any(|o| o.id == s.id));
    !new_problem && !newly_skipped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_toml_and_lua_files_count_as_content() {
        assert!(is_content_file(Path::new("mods/x/armies/a.toml")));
        assert!(is_content_file(Path::new("mods/x/scripts/b.lua")));
        assert!(!is_content_file(Path::new("mods/x/armies/a.toml~")));
        assert!(!is_content_file(Path::new("mods/x/.a.toml.swp")));
        assert!(!is_content_file(Path::new("mods/x/README.md")));
    }

    #[test]
    fn a_reload_is_described_by_its_mods_and_files() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
        let loaded = hexforge_content::load_mods(std::slice::from_ref(&dir));
        let base = dir.join("base");
        let moloch = base.join("armies/moloch.toml");
        let read = [base.clone()];
        assert_eq!(
            describe(&read, &[], Some(std::slice::from_ref(&moloch)), &loaded),
            "base (armies/moloch.toml)"
        );
        assert_eq!(describe(&read, &[], None, &loaded), "base");
        let two = [base.clone(), dir.join("examples")];
        let lua = dir.join("examples/scripts/scrappers.lua");
        assert_eq!(
            describe(&two, &[], Some(&[moloch, lua]), &loaded),
            "base (armies/moloch.toml), examples (scripts/scrappers.lua)"
        );
        // A folder no mod loaded from is named by its folder.
        assert_eq!(describe(&[dir.join("fresh")], &[], None, &loaded), "fresh");
        assert_eq!(
            describe(&read, &[dir.join("fan")], None, &loaded),
            "base, fan (removed)"
        );
        assert_eq!(describe(&[], &[], Some(&[]), &loaded), "no mod");
        let many: Vec<PathBuf> = (0..5).map(|i| dir.join(format!("m{i}"))).collect();
        assert_eq!(describe(&many, &[], None, &loaded), "5 mods");
        assert_eq!(describe(&many, &read, None, &loaded), "6 mods (1 removed)");
    }

    #[test]
    fn the_watch_names_the_content_files_that_changed_once_their_saves_are_complete() {
        let dir = std::env::temp_dir().join(format!("hexforge-watch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("m/armies")).expect("create the folder");
        let mut watch = FolderWatch::new(std::slice::from_ref(&dir), None).expect("watch");
        let a = dir.join("m/armies/a.toml");
        std::fs::write(&a, "x").expect("write a.toml");
        std::fs::write(dir.join("m/notes.md"), "x").expect("write notes.md");
        std::fs::write(dir.join("m/armies/b.toml"), "x").expect("write b.toml");
        // Each save is due once its file is closed: the two may come in one batch or two.
        let start = Instant::now();
        let mut seen: Vec<PathBuf> = Vec::new();
        let b = dir.join("m/armies/b.toml");
        while !(seen.contains(&a) && seen.contains(&b)) {
            if let Some(changes) = watch.due(Instant::now()) {
                let paths = changes.paths().expect("the paths are known");
                assert!(paths.iter().all(|p| is_content_file(p)), "{paths:?}");
                assert!(paths.windows(2).all(|w| w[0] < w[1]), "sorted, once each");
                seen.extend_from_slice(paths);
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "saw only {seen:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // Collected afresh: nothing more is due.
        std::thread::sleep(SETTLE * 2);
        assert_eq!(watch.due(Instant::now()), None);
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A save in several writes, slower than the settling delay between them, is reloaded once,
    /// whole: not while the file is open, and at once when it is closed.
    #[test]
    fn a_save_in_several_writes_is_due_when_its_file_is_closed() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("hexforge-watch-close-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("m")).expect("create the folder");
        let mut watch = FolderWatch::new(std::slice::from_ref(&dir), None).expect("watch");
        let a = dir.join("m/a.toml");
        let mut f = std::fs::File::create(&a).expect("create a.toml");
        f.write_all(b"first half\n").expect("write");
        f.flush().expect("flush");
        // Longer than the settling delay: a fixed delay would reload half a file here.
        let open_until = Instant::now() + SETTLE * 3;
        while Instant::now() < open_until {
            if let Some(c) = watch.due(Instant::now()) {
                // Only a system that reports no closes may get here, after the delay.
                if REPORTS_CLOSES {
                    panic!("due while the file is still open: {c:?}");
                }
                let _ = std::fs::remove_dir_all(&dir);
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        f.write_all(b"second half\n").expect("write");
        drop(f);
        let closed = Instant::now();
        let changes = loop {
            if let Some(c) = watch.due(Instant::now()) {
                break c;
            }
            assert!(closed.elapsed() < Duration::from_secs(10), "no change seen");
            std::thread::sleep(Duration::from_millis(1));
        };
        assert_eq!(changes.paths(), Some(&[a.clone()][..]));
        assert!(
            closed.elapsed() < SETTLE,
            "due at the close, not after the delay: {:?}",
            closed.elapsed()
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}
