//! Hot reload: watching the mod folders for saved TOML and Lua files, waiting for the writes to
//! settle, loading the content again, and deciding whether the new content replaces the last good
//! one (it does unless it brings problems the last good content did not have).

use hexforge_content::LoadedMods;
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// How long the files must stay quiet before a reload: editors save in several writes (or by
/// writing a temporary file and renaming it), and one reload should see the final content.
pub const SETTLE: Duration = Duration::from_millis(50);

/// Called from the watcher's thread when a file changes.
pub type Waker = Box<dyn Fn() + Send + 'static>;

/// Watches folders (recursively: editors save by rename, so single files cannot be watched) and
/// reports when a content file changed and then stayed quiet for [`SETTLE`].
pub struct FolderWatch {
    _watcher: notify::RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
    /// When the last change to a content file arrived, while a reload is due.
    pending: Option<Instant>,
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
        })
    }

    /// Takes the events that arrived; true when a reload is due now (a content file changed and
    /// nothing changed since for [`SETTLE`]).
    pub fn due(&mut self, now: Instant) -> bool {
        while let Ok(event) = self.events.try_recv() {
            let touches_content = match event {
                Ok(e) => !e.kind.is_access() && e.paths.iter().any(|p| is_content_file(p)),
                // A lost or failed notification: reload to be sure.
                Err(_) => true,
            };
            if touches_content {
                self.pending = Some(now);
            }
        }
        match self.pending {
            Some(at) if now.duration_since(at) >= SETTLE => {
                self.pending = None;
                true
            }
            _ => false,
        }
    }

    /// Whether a change is waiting for the files to settle (the caller should look again soon).
    pub fn waiting(&self) -> bool {
        self.pending.is_some()
    }
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
}
