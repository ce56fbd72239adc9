//! Mod archives: one file holding a whole mod folder, to hand a mod to a friend or fetch it from
//! a match's host (docs/MODDING.md, "Mod archives"). [`pack`] writes a loaded mod's folder into
//! one; [`read`] reads one back, refusing anything malformed, oversized, with a path outside its
//! folder or a wrong checksum; [`install`] unpacks it beside the other mods only once the mod
//! loads and its content hash is the one the archive (and the caller) expects, setting aside the
//! folder it replaces instead of deleting it.
//!
//! The format is line-framed and binary-safe:
//!
//! ```text
//! hexforge-mod 1
//! mod ID VERSION CONTENT_HASH
//! file PATH BYTES
//! <BYTES bytes of the file>
//! ...
//! end CHECKSUM
//! ```
//!
//! `CONTENT_HASH` is the content hash of the mod folder read on its own (`hexforge_content::
//! mod_hash` of [`load_mod`]; a replay records a mod's hash once the mods it is loaded with have
//! patched it, which is the same when nothing patches it) and `CHECKSUM` the FNV-1a hash
//! of every byte before the `end` line, both 16 hexadecimal digits; each file's bytes are
//! followed by a newline.

use crate::folder_read::{ModInfo, load_mod};
use crate::identity::mod_hash;
use hexforge_core::fnv::Fnv1a;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The first word of an archive.
pub const MAGIC: &str = "hexforge-mod";
/// The archive format this code writes and reads.
pub const FORMAT: u32 = 1;
/// The largest archive read or written, in bytes.
pub const MAX_BYTES: usize = 16 * 1024 * 1024;
/// The most files an archive holds.
pub const MAX_FILES: usize = 4000;
/// The longest path of a file inside an archive, in bytes.
pub const MAX_PATH: usize = 240;
/// The file name extension of archives (`base-0.2.0.hexmod`).
pub const EXTENSION: &str = "hexmod";

/// A mod archive read back: the mod it holds and its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Archive {
    /// The mod's id.
    pub id: String,
    /// The mod's version, as its manifest gives it.
    pub version: String,
    /// The content hash of the mod folder read on its own.
    pub hash: u64,
    /// Every file, by its path inside the mod folder (`/`-separated), in path order.
    pub files: Vec<(String, Vec<u8>)>,
}

impl Archive {
    /// The archive's bytes, as [`read`] reads them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(format!("{MAGIC} {FORMAT}\n").as_bytes());
        out.extend_from_slice(
            format!("mod {} {} {:016x}\n", self.id, self.version, self.hash).as_bytes(),
        );
        for (path, bytes) in &self.files {
            out.extend_from_slice(format!("file {path} {}\n", bytes.len()).as_bytes());
            out.extend_from_slice(bytes);
            out.push(b'\n');
        }
        let mut h = Fnv1a::new();
        h.bytes(&out);
        out.extend_from_slice(format!("end {:016x}\n", h.finish()).as_bytes());
        out
    }

    /// The archive's usual file name: `ID-VERSION.hexmod`.
    pub fn file_name(&self) -> String {
        format!("{}-{}.{EXTENSION}", self.id, self.version)
    }

    /// The size of all its files, in bytes.
    pub fn size(&self) -> usize {
        self.files.iter().map(|(_, b)| b.len()).sum()
    }
}

/// Why an archive cannot be made, read or installed.
#[derive(Debug)]
pub enum ArchiveError {
    /// A file or folder cannot be read or written.
    Io {
        /// The path.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The archive is not one, or is cut or malformed: at which byte, and what was expected.
    Format {
        /// The byte offset where reading stopped.
        at: usize,
        /// What was expected there.
        what: String,
    },
    /// The archive names a file outside its mod folder, or a path that is not plain.
    UnsafePath {
        /// The path as the archive gives it.
        path: String,
        /// Why it is refused.
        why: &'static str,
    },
    /// The archive's checksum does not match its bytes: it was damaged or changed.
    Checksum {
        /// The checksum the archive ends with.
        written: u64,
        /// The checksum of its bytes.
        found: u64,
    },
    /// The archive, or the mod, is larger than the limits.
    TooLarge(String),
    /// The mod unpacked does not load: every problem, in the words of `hexforge mods check`.
    Load(String),
    /// The mod unpacked loads with another id, version or content hash than expected.
    Mismatch(String),
    /// No mod of that id is installed in the folder (`remove`): the folder and the ids that are.
    NotInstalled {
        /// The id asked for.
        id: String,
        /// The mods folder looked in.
        dir: PathBuf,
        /// The ids of the mods installed there, sorted.
        installed: Vec<String>,
    },
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ArchiveError::Format { at, what } => {
                write!(
                    f,
                    "not a readable mod archive: at byte {at}, expected {what}"
                )
            }
            ArchiveError::UnsafePath { path, why } => write!(
                f,
                "the archive holds the path {path:?}, which is refused ({why}): it may try to \
                 write outside its mod folder; do not install it"
            ),
            ArchiveError::Checksum { written, found } => write!(
                f,
                "the archive is damaged: its checksum says {written:016x}, its bytes give \
                 {found:016x}; get it again"
            ),
            ArchiveError::TooLarge(what) => write!(f, "{what}"),
            ArchiveError::Load(why) => write!(f, "the mod in the archive does not load: {why}"),
            ArchiveError::Mismatch(why) => write!(f, "{why}"),
            ArchiveError::NotInstalled { id, dir, installed } => write!(
                f,
                "no mod `{id}` is installed in {}{}: {}",
                dir.display(),
                hexforge_core::names::did_you_mean(id, installed.iter().map(String::as_str)),
                if installed.is_empty() {
                    "it holds no mod".to_string()
                } else {
                    format!("installed there: {}", installed.join(", "))
                }
            ),
        }
    }
}

impl std::error::Error for ArchiveError {}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> ArchiveError + '_ {
    move |source| ArchiveError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The archive of the mod folder of `m` as it is on disk now: every file of the folder (any
/// depth; hidden files and folders, whose names start with `.`, and links are left out), in
/// path order, with the content hash of the folder read on its own. Refused when the folder no
/// longer loads or is beyond the limits.
pub fn pack(m: &ModInfo) -> Result<Archive, ArchiveError> {
    let now = load_mod(&m.dir).map_err(|d| ArchiveError::Load(d.to_string()))?;
    let mut files = Vec::new();
    let mut total = 0usize;
    collect(&m.dir, "", &mut files, &mut total)?;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Archive {
        id: now.id.clone(),
        version: now.manifest.version.to_string(),
        hash: mod_hash(&now),
        files,
    })
}

/// Adds the files below `dir` (named from `prefix`) to `files`.
fn collect(
    dir: &Path,
    prefix: &str,
    files: &mut Vec<(String, Vec<u8>)>,
    total: &mut usize,
) -> Result<(), ArchiveError> {
    let rd = std::fs::read_dir(dir).map_err(io_error(dir))?;
    for entry in rd {
        let entry = entry.map_err(io_error(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type().map_err(io_error(&path))?;
        let inside = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        if kind.is_dir() {
            collect(&path, &inside, files, total)?;
        } else if kind.is_file() {
            check_path(&inside)?;
            let bytes = std::fs::read(&path).map_err(io_error(&path))?;
            *total += bytes.len() + inside.len() + 32;
            if *total > MAX_BYTES || files.len() >= MAX_FILES {
                return Err(ArchiveError::TooLarge(format!(
                    "the mod folder {} is larger than an archive holds ({} MiB, {MAX_FILES} files)",
                    dir.display(),
                    MAX_BYTES / (1024 * 1024)
                )));
            }
            files.push((inside, bytes));
        }
    }
    Ok(())
}

/// The files through which the mod folder `dir` differs in play from the archive `a` (a
/// recorded version of the same mod): each file the content hash reads (the manifest without
/// its version, name, description and authors; army, patch, preset, option and board files; the
/// scripts), compared by what the hash reads of it (TOML as data, Lua without comments and
/// blank lines), so a comment or a version string never counts. One line per file, in path
/// order: `scripts/army.lua (changed)`, `armies/new.toml (only here)`, `armies/old.toml (only
/// in the recorded version)`. A file of the folder that cannot be read counts as changed.
pub fn play_differences(a: &Archive, dir: &Path) -> Vec<String> {
    let mut here = Vec::new();
    // A folder too large for an archive still lists what it could read.
    let _ = collect(dir, "", &mut here, &mut 0);
    let play = |path: &str, bytes: &[u8]| -> Option<String> {
        if path.starts_with("scenarios/") {
            return None;
        }
        let text = String::from_utf8_lossy(bytes);
        if path == "mod.toml" {
            return Some(match text.parse::<toml::Table>() {
                Ok(mut t) => {
                    for key in ["version", "name", "description", "authors"] {
                        t.remove(key);
                    }
                    t.to_string()
                }
                Err(_) => text.into_owned(),
            });
        }
        if path.ends_with(".lua") {
            Some(crate::play_text::lua_play_text(&text))
        } else if path.ends_with(".toml") {
            Some(crate::play_text::toml_play_text(&text))
        } else {
            None
        }
    };
    let mut paths: Vec<&str> = a
        .files
        .iter()
        .map(|(p, _)| p.as_str())
        .chain(here.iter().map(|(p, _)| p.as_str()))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let mut lines = Vec::new();
    for path in paths {
        let find = |files: &[(String, Vec<u8>)]| {
            files
                .iter()
                .find(|(p, _)| p == path)
                .and_then(|(_, b)| play(path, b))
        };
        match (find(&a.files), find(&here)) {
            (Some(was), Some(is)) if was != is => lines.push(format!("{path} (changed)")),
            (Some(_), None) if play(path, b"").is_some() => {
                lines.push(format!("{path} (only in the recorded version)"));
            }
            (None, Some(_)) => lines.push(format!("{path} (only here)")),
            _ => {}
        }
    }
    lines
}

/// Refuses a path that is not a plain relative path of plain names inside the mod folder.
fn check_path(path: &str) -> Result<(), ArchiveError> {
    let refuse = |why| {
        Err(ArchiveError::UnsafePath {
            path: path.to_string(),
            why,
        })
    };
    if path.is_empty() || path.len() > MAX_PATH {
        return refuse("empty, or longer than 240 bytes");
    }
    if path.starts_with('/') || path.contains('\\') || path.contains(':') {
        return refuse("absolute, or with `\\` or `:`");
    }
    for part in path.split('/') {
        if part.is_empty() || part == "." || part == ".." {
            return refuse("an empty, `.` or `..` part");
        }
        if part.starts_with('.') {
            return refuse("a hidden name");
        }
        if !part
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ' | '+'))
        {
            return refuse("a character other than letters, digits, space, `_`, `-`, `+`, `.`");
        }
    }
    Ok(())
}

/// Reads an archive's bytes, checking its format, its paths, its limits and its checksum.
pub fn read(bytes: &[u8]) -> Result<Archive, ArchiveError> {
    if bytes.len() > MAX_BYTES + 64 * 1024 {
        return Err(ArchiveError::TooLarge(format!(
            "the archive is {} bytes; an archive holds at most {} MiB",
            bytes.len(),
            MAX_BYTES / (1024 * 1024)
        )));
    }
    let mut at = 0usize;
    let bad = |at: usize, what: &str| ArchiveError::Format {
        at,
        what: what.to_string(),
    };
    let line = |at: &mut usize| -> Result<String, ArchiveError> {
        let rest = &bytes[*at..];
        let end = rest
            .iter()
            .take(MAX_PATH + 200)
            .position(|b| *b == b'\n')
            .ok_or_else(|| bad(*at, "a line ending with a newline"))?;
        let text = std::str::from_utf8(&rest[..end]).map_err(|_| bad(*at, "a line of text"))?;
        *at += end + 1;
        Ok(text.to_string())
    };
    let first = line(&mut at)?;
    if first != format!("{MAGIC} {FORMAT}") {
        return Err(bad(
            0,
            &format!("`{MAGIC} {FORMAT}` (a Hexforge mod archive)"),
        ));
    }
    let mod_at = at;
    let head = line(&mut at)?;
    let words: Vec<&str> = head.split(' ').collect();
    let (id, version, hash) = match words.as_slice() {
        ["mod", id, version, hash] if hash.len() == 16 => (
            id.to_string(),
            version.to_string(),
            u64::from_str_radix(hash, 16)
                .map_err(|_| bad(mod_at, "`mod ID VERSION HASH` with a hexadecimal hash"))?,
        ),
        _ => return Err(bad(mod_at, "`mod ID VERSION HASH`")),
    };
    if id.is_empty()
        || id.len() > 64
        || !id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
    {
        return Err(ArchiveError::UnsafePath {
            path: id,
            why: "a mod id is lowercase letters, digits, `_` and `-`",
        });
    }
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    loop {
        let start = at;
        let l = line(&mut at)?;
        if let Some(sum) = l.strip_prefix("end ") {
            let written = u64::from_str_radix(sum, 16)
                .ok()
                .filter(|_| sum.len() == 16)
                .ok_or_else(|| bad(start, "`end CHECKSUM` with 16 hexadecimal digits"))?;
            let mut h = Fnv1a::new();
            h.bytes(&bytes[..start]);
            let found = h.finish();
            if found != written {
                return Err(ArchiveError::Checksum { written, found });
            }
            if at != bytes.len() {
                return Err(bad(at, "nothing after the `end` line"));
            }
            break;
        }
        let Some(rest) = l.strip_prefix("file ") else {
            return Err(bad(start, "`file PATH BYTES` or `end CHECKSUM`"));
        };
        let (path, len) = rest
            .rsplit_once(' ')
            .ok_or_else(|| bad(start, "`file PATH BYTES`"))?;
        let len: usize = len
            .parse()
            .map_err(|_| bad(start, "`file PATH BYTES` with a whole number of bytes"))?;
        check_path(path)?;
        if files.iter().any(|(p, _)| p == path) {
            return Err(bad(
                start,
                &format!("each path once (`{path}` comes twice)"),
            ));
        }
        if files.len() >= MAX_FILES {
            return Err(ArchiveError::TooLarge(format!(
                "the archive holds more than {MAX_FILES} files"
            )));
        }
        let end = at
            .checked_add(len)
            .filter(|e| *e < bytes.len())
            .ok_or_else(|| bad(at, &format!("{len} bytes of `{path}` (the archive is cut)")))?;
        if bytes[end] != b'\n' {
            return Err(bad(
                end,
                &format!("a newline after the {len} bytes of `{path}`"),
            ));
        }
        files.push((path.to_string(), bytes[at..end].to_vec()));
        at = end + 1;
    }
    if !files.iter().any(|(p, _)| p == "mod.toml") {
        return Err(bad(at, "a `mod.toml` among the files (every mod has one)"));
    }
    // No path may be both a file and a folder.
    for (p, _) in &files {
        if files
            .iter()
            .any(|(q, _)| q.len() > p.len() && q.starts_with(&format!("{p}/")))
        {
            return Err(ArchiveError::UnsafePath {
                path: p.clone(),
                why: "both a file and a folder",
            });
        }
    }
    Ok(Archive {
        id,
        version,
        hash,
        files,
    })
}

/// What [`install`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// The mod's folder now.
    pub dir: PathBuf,
    /// Where the folder it replaced was set aside, if there was one.
    pub set_aside: Option<PathBuf>,
}

/// Installs `archive` as the folder `into/ID`: unpacked into a hidden folder of `into` first,
/// loaded there and refused unless its content hash is the archive's (and `expect`, when
/// given); then a folder already at `into/ID` is moved to `into/.replaced/ID-N` (never deleted)
/// and the new one takes its place.
pub fn install(
    archive: &Archive,
    into: &Path,
    expect: Option<u64>,
) -> Result<Installed, ArchiveError> {
    if let Some(e) = expect
        && e != archive.hash
    {
        return Err(ArchiveError::Mismatch(format!(
            "the archive holds `{}` {} #{:016x}, not #{e:016x} as expected",
            archive.id, archive.version, archive.hash
        )));
    }
    std::fs::create_dir_all(into).map_err(io_error(into))?;
    let staging = into.join(format!(".{}.installing-{}", archive.id, std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let unpacked = unpack(archive, &staging).and_then(|()| check(archive, &staging));
    if let Err(e) = unpacked {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let dir = into.join(&archive.id);
    let mut set_aside = None;
    if dir.exists() {
        set_aside = Some(shelve(into, &archive.id)?);
    }
    if let Err(e) = std::fs::rename(&staging, &dir) {
        // Put back what was set aside: the mods folder is as it was.
        if let Some(old) = &set_aside {
            let _ = std::fs::rename(old, &dir);
        }
        let _ = std::fs::remove_dir_all(&staging);
        return Err(ArchiveError::Io {
            path: dir,
            source: e,
        });
    }
    Ok(Installed { dir, set_aside })
}

/// Moves the folder `into/id` to `into/.replaced/id-N` (the first free N), never deleting it;
/// where it went.
fn shelve(into: &Path, id: &str) -> Result<PathBuf, ArchiveError> {
    let dir = into.join(id);
    let shelf = into.join(".replaced");
    std::fs::create_dir_all(&shelf).map_err(io_error(&shelf))?;
    let free = (1..)
        .map(|n| shelf.join(format!("{id}-{n}")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| shelf.join(id));
    std::fs::rename(&dir, &free).map_err(io_error(&dir))?;
    Ok(free)
}

/// The ids of the mods installed in `into` (its folders holding a `mod.toml`), sorted.
pub fn installed(into: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(into)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().join("mod.toml").is_file())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}

/// The folder of the mod `id` installed in the mods folder `into`; refused, with the ids
/// installed there, when `into` holds no mod folder of that id (or `id` is not a plain name).
pub fn installed_folder(into: &Path, id: &str) -> Result<PathBuf, ArchiveError> {
    let plain = !id.is_empty() && !id.contains(['/', '\\']) && !id.starts_with('.');
    let dir = into.join(id);
    if !plain || !dir.join("mod.toml").is_file() {
        return Err(ArchiveError::NotInstalled {
            id: id.to_string(),
            dir: into.to_path_buf(),
            installed: installed(into),
        });
    }
    Ok(dir)
}

/// Removes the mod `id` from the mods folder `into`: its folder is set aside in
/// `into/.replaced/` (as an install sets aside the folder it replaces), never deleted; where it
/// went. Refused as [`installed_folder`] refuses.
pub fn remove(into: &Path, id: &str) -> Result<PathBuf, ArchiveError> {
    installed_folder(into, id)?;
    shelve(into, id)
}

/// The folder of a mods folder `into` where every archive installed is kept (`ID-VERSION.hexmod`;
/// the loader never reads folders whose names start with `.`), so that several versions of a
/// mod stay at hand for the replays recorded with them.
pub fn shelf(into: &Path) -> PathBuf {
    into.join(".versions")
}

/// Keeps a copy of `archive` on the shelf of the mods folder `into` (once: a version kept is
/// never rewritten); where it is.
pub fn keep(into: &Path, archive: &Archive) -> Result<PathBuf, ArchiveError> {
    let dir = shelf(into);
    std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
    let path = dir.join(archive.file_name());
    if !path.is_file() {
        crate::scaffold::write_atomically(&path, archive.to_bytes()).map_err(io_error(&path))?;
    }
    Ok(path)
}

/// The folder of a mods folder `into` where disabled mods wait (`.disabled/ID`), never loaded.
pub fn disabled_folder(into: &Path) -> PathBuf {
    into.join(".disabled")
}

/// The ids of the mods disabled in `into`, sorted.
pub fn disabled(into: &Path) -> Vec<String> {
    installed(&disabled_folder(into))
}

/// Disables the mod `id` of the mods folder `into`: its folder moves to `into/.disabled/ID`,
/// where the loader does not look; refused as [`installed_folder`] refuses, or when a disabled
/// copy of that id waits already.
pub fn disable(into: &Path, id: &str) -> Result<PathBuf, ArchiveError> {
    let dir = installed_folder(into, id)?;
    let shelf = disabled_folder(into);
    std::fs::create_dir_all(&shelf).map_err(io_error(&shelf))?;
    let to = shelf.join(id);
    if to.exists() {
        return Err(ArchiveError::Mismatch(format!(
            "a disabled `{id}` waits already in {}: enable or remove that one first",
            shelf.display()
        )));
    }
    std::fs::rename(&dir, &to).map_err(io_error(&dir))?;
    Ok(to)
}

/// Enables the disabled mod `id` of the mods folder `into`: its folder moves back to `into/ID`;
/// refused when none waits, or when an enabled copy of that id is there.
pub fn enable(into: &Path, id: &str) -> Result<PathBuf, ArchiveError> {
    let from = installed_folder(&disabled_folder(into), id)?;
    let to = into.join(id);
    if to.exists() {
        return Err(ArchiveError::Mismatch(format!(
            "`{id}` is enabled already in {}: remove one of the two",
            into.display()
        )));
    }
    std::fs::rename(&from, &to).map_err(io_error(&from))?;
    Ok(to)
}

/// Writes the archive's files below `dir`.
fn unpack(archive: &Archive, dir: &Path) -> Result<(), ArchiveError> {
    for (path, bytes) in &archive.files {
        check_path(path)?;
        let to = dir.join(path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io_error(parent))?;
        }
        std::fs::write(&to, bytes).map_err(io_error(&to))?;
    }
    Ok(())
}

/// Loads the unpacked mod and compares it with what the archive says it is.
fn check(archive: &Archive, dir: &Path) -> Result<(), ArchiveError> {
    let m = load_mod(dir).map_err(|d| ArchiveError::Load(d.to_string()))?;
    let hash = mod_hash(&m);
    let version = m.manifest.version.to_string();
    // An archive packed by an earlier release carries the text hash (`legacy_mod_hash`).
    let same = hash == archive.hash || crate::identity::legacy_mod_hash(&m) == archive.hash;
    if m.id != archive.id || version != archive.version || !same {
        return Err(ArchiveError::Mismatch(format!(
            "the archive says it holds `{}` {} #{:016x}, but its files load as `{}` {version} \
             #{hash:016x}: it was made wrongly or changed; do not install it",
            archive.id, archive.version, archive.hash, m.id
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> ModInfo {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/base");
        load_mod(&dir).unwrap_or_else(|d| panic!("{d}"))
    }

    fn temp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("hexforge-archive-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_removed_mod_is_set_aside_and_an_unknown_one_refused_with_the_installed_ids() {
        let into = std::env::temp_dir().join(format!("hexforge-remove-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&into);
        std::fs::create_dir_all(into.join("relic")).expect("a mod folder");
        std::fs::write(into.join("relic/mod.toml"), "id = \"relic\"\n").expect("a manifest");
        let e = remove(&into, "relik").expect_err("no such mod");
        assert_eq!(
            e.to_string(),
            format!(
                "no mod `relik` is installed in {} (did you mean `relic`?): installed there: relic",
                into.display()
            )
        );
        assert!(remove(&into, "../relic").is_err(), "only a plain id");
        let kept = remove(&into, "relic").expect("removed");
        assert_eq!(kept, into.join(".replaced/relic-1"));
        assert!(kept.join("mod.toml").is_file(), "set aside, not deleted");
        assert!(!into.join("relic").exists());
        assert!(installed(&into).is_empty());
        let _ = std::fs::remove_dir_all(&into);
    }

    #[test]
    fn a_packed_mod_reads_back_and_installs_with_its_content_hash() {
        let m = base();
        let archive = pack(&m).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(archive.hash, mod_hash(&m), "the folder read on its own");
        assert!(archive.files.iter().any(|(p, _)| p == "mod.toml"));
        let bytes = archive.to_bytes();
        let back = read(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, archive);
        let into = temp("install");
        let done = install(&back, &into, Some(archive.hash)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(done.dir, into.join("base"));
        assert_eq!(done.set_aside, None);
        let again = load_mod(&done.dir).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(mod_hash(&again), archive.hash);
        // Installing again sets the first copy aside instead of deleting it.
        let twice = install(&back, &into, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(twice.set_aside, Some(into.join(".replaced/base-1")));
        assert!(into.join(".replaced/base-1/mod.toml").is_file());
        let _ = std::fs::remove_dir_all(&into);
    }

    #[test]
    fn hostile_or_damaged_archives_are_refused_and_nothing_is_written() {
        let archive = pack(&base()).unwrap_or_else(|e| panic!("{e}"));
        let into = temp("hostile");
        for path in [
            "../evil.lua",
            "/etc/passwd",
            "a/../../b",
            ".hidden",
            "a\\b",
            "c:x",
        ] {
            let mut bad = archive.clone();
            bad.files.push((path.to_string(), b"x".to_vec()));
            let e = read(&bad.to_bytes()).expect_err(path);
            assert!(matches!(e, ArchiveError::UnsafePath { .. }), "{path}: {e}");
            assert!(e.to_string().contains("outside its mod folder"), "{e}");
        }
        // One byte changed: the checksum says so.
        let mut bytes = archive.to_bytes();
        let i = bytes.len() / 2;
        bytes[i] ^= 1;
        assert!(matches!(
            read(&bytes),
            Err(ArchiveError::Checksum { .. }) | Err(ArchiveError::Format { .. })
        ));
        // Cut short.
        let bytes = archive.to_bytes();
        let e = read(&bytes[..bytes.len() / 3]).expect_err("cut");
        assert!(matches!(e, ArchiveError::Format { .. }), "{e}");
        // The right format with another content than it claims: refused before installing.
        let mut lying = archive.clone();
        lying.hash ^= 1;
        let e = install(&read(&lying.to_bytes()).expect("well formed"), &into, None)
            .expect_err("wrong hash");
        assert!(e.to_string().contains("do not install it"), "{e}");
        assert!(!into.join("base").exists(), "nothing installed");
        let left: Vec<_> = std::fs::read_dir(&into)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "no staging folder left: {left:?}");
        // The hash the caller expects is checked too.
        let e = install(&archive, &into, Some(archive.hash ^ 2)).expect_err("not expected");
        assert!(e.to_string().contains("as expected"), "{e}");
        let _ = std::fs::remove_dir_all(&into);
    }

    #[test]
    fn a_folder_that_differs_in_play_names_its_files_and_comments_do_not_count() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/examples");
        let m = load_mod(&src).unwrap_or_else(|d| panic!("{d}"));
        let a = pack(&m).expect("packs");
        let dir = temp("differences");
        install(&a, &dir, Some(a.hash)).expect("installs");
        let copy = dir.join(&a.id);
        assert!(play_differences(&a, &copy).is_empty(), "the same files");
        // A comment, a blank line and a new version: no difference in play.
        let script = a
            .files
            .iter()
            .find(|(p, _)| p.ends_with(".lua"))
            .map(|(p, _)| p.clone())
            .expect("a script");
        let text = std::fs::read_to_string(copy.join(&script)).expect("read");
        std::fs::write(copy.join(&script), format!("-- a note\n\n{text}")).expect("written");
        let manifest = std::fs::read_to_string(copy.join("mod.toml")).expect("read");
        let bumped = manifest.replacen(
            &format!("version = \"{}\"", a.version),
            "version = \"9.9.9\"",
            1,
        );
        assert_ne!(bumped, manifest);
        std::fs::write(copy.join("mod.toml"), bumped).expect("written");
        assert!(
            play_differences(&a, &copy).is_empty(),
            "comments and versions do not count"
        );
        // A changed line of code, a new army file and a removed one do.
        std::fs::write(copy.join(&script), format!("{text}\nlocal changed = 1\n"))
            .expect("written");
        std::fs::write(copy.join("armies/zz_new.toml"), "id = \"zz\"\n").expect("written");
        let army = a
            .files
            .iter()
            .find(|(p, _)| p.starts_with("armies/"))
            .map(|(p, _)| p.clone())
            .expect("an army");
        std::fs::remove_file(copy.join(&army)).expect("removed");
        let mut want = vec![
            format!("{script} (changed)"),
            "armies/zz_new.toml (only here)".to_string(),
            format!("{army} (only in the recorded version)"),
        ];
        want.sort();
        let mut got = play_differences(&a, &copy);
        got.sort();
        assert_eq!(got, want);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
