//! The content as it would load with one army file's unsaved text in place of the saved one:
//! the mod folders copied to a temporary folder, the text written there, loaded as the editor
//! loads (mods, then scripts), and the copy removed. The user's files are only read.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Told apart the temporary folders of one process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The mods below `roots` loaded with `text` as the content of `file` (an army file of one of
/// them); the error says why not (`file` is not in a mod folder, a folder cannot be copied).
pub fn load_with_text(
    roots: &[PathBuf],
    file: &Path,
    text: &str,
) -> Result<hexforge_script::Loaded, String> {
    let dirs = hexforge_content::mod_dirs(roots, &mut Vec::new());
    let tmp = std::env::temp_dir().join(format!(
        "hexforge-balance-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let copied = copy_mods(&dirs, &tmp, file, text);
    let loaded =
        copied.map(|copies| hexforge_script::load(&copies, hexforge_script::Limits::default()));
    let _ = std::fs::remove_dir_all(&tmp);
    loaded
}

/// Copies each mod folder of `dirs` to `tmp/<i>` (its hidden folders left out, such as the
/// versions kept aside), `text` written in place of `file`; the copies' folders, in order.
fn copy_mods(
    dirs: &[PathBuf],
    tmp: &Path,
    file: &Path,
    text: &str,
) -> Result<Vec<PathBuf>, String> {
    let mut copies = Vec::with_capacity(dirs.len());
    let mut written = false;
    for (i, dir) in dirs.iter().enumerate() {
        let to = tmp.join(i.to_string());
        copy_dir(dir, &to).map_err(|e| {
            format!(
                "cannot copy {} to try the unsaved changes: {e}",
                dir.display()
            )
        })?;
        if let Ok(rel) = file.strip_prefix(dir) {
            std::fs::write(to.join(rel), text)
                .map_err(|e| format!("cannot write the unsaved changes to try them: {e}"))?;
            written = true;
        }
        copies.push(to);
    }
    if !written {
        return Err(format!(
            "{} is not in a loaded mod folder: save it in one to compare it",
            file.display()
        ));
    }
    Ok(copies)
}

/// Copies the folder `from` to `to`, leaving out entries whose names start with a dot.
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()))?;
        } else {
            std::fs::copy(&path, to.join(entry.file_name()))?;
        }
    }
    Ok(())
}
