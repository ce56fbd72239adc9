//! Several versions of a mod side by side: every archive installed is kept in the mods folder's
//! `.versions/` (`ID-VERSION.hexmod`, which the loader never reads), and a replay recorded with
//! another version than the one installed is played with the kept one (or, given a portal, with
//! that exact version fetched from it), unpacked in `.versions/unpacked/` and loaded ahead of the
//! installed copy (docs/PORTAL.md, "Versions side by side").

use anyhow::Result;
use hexforge_content::archive::{self, Archive, shelf};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `mod ID VERSION HASH` lines of a replay's header (an unreadable file gives none: the
/// replay command reports it).
fn recorded(text: &str) -> Vec<(String, String, u64)> {
    text.lines()
        .take_while(|l| !l.starts_with("action") && !l.starts_with("step"))
        .filter_map(|l| {
            let mut w = l.strip_prefix("mod ")?.split_whitespace();
            let (id, version, hash) = (w.next()?, w.next()?, w.next()?);
            Some((
                id.to_string(),
                version.to_string(),
                u64::from_str_radix(hash, 16).ok()?,
            ))
        })
        .collect()
}

/// The archive of `id` `version` with content hash `hash`: from the shelf, or fetched from
/// `portal` (and kept on the shelf); `None` when neither has it.
fn find(
    store: &Path,
    portal: Option<&str>,
    (id, version, hash): (&str, &str, u64),
    out: &mut impl Write,
) -> Result<Option<Archive>> {
    let path = shelf(store).join(format!("{id}-{version}.{}", archive::EXTENSION));
    if let Ok(bytes) = std::fs::read(&path)
        && let Ok(a) = archive::read(&bytes)
        && a.hash == hash
    {
        return Ok(Some(a));
    }
    let Some(portal) = portal else {
        return Ok(None);
    };
    let p = hexforge_portal::Portal::new(portal);
    let Ok(detail) = p.detail(id) else {
        return Ok(None);
    };
    let Some(v) = detail
        .versions
        .iter()
        .find(|v| v.version == version && v.hash == format!("{hash:016x}"))
    else {
        return Ok(None);
    };
    let a = p
        .download(id, v)
        .map_err(|e| anyhow::anyhow!("{portal}: `{id}` {version}: {e}"))?;
    archive::keep(store, &a)?;
    writeln!(out, "fetched `{id}` {version} #{hash:016x} from {portal}")?;
    Ok(Some(a))
}

/// The mod folders to load ahead of `roots` so that the replay `file` finds the versions it was
/// recorded with: for each recorded mod the loaded content lacks at that hash, the kept or
/// fetched archive unpacked below `store`'s shelf. Empty when nothing differs or nothing is found
/// (the replay then says what differs).
pub fn for_replay(
    out: &mut impl Write,
    file: &Path,
    roots: &[PathBuf],
    store: &Path,
    portal: Option<&str>,
) -> Result<Vec<PathBuf>> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Ok(Vec::new());
    };
    let mods = recorded(&text);
    if mods.is_empty() {
        return Ok(Vec::new());
    }
    let loaded = hexforge_content::load_mods(roots);
    let mut extra = Vec::new();
    for (id, version, hash) in &mods {
        let one = [(id.clone(), version.clone(), *hash)];
        if hexforge_replay::mod_differences(&loaded.mods, &one, &[]).is_empty() {
            continue;
        }
        let Some(a) = find(store, portal, (id, version, *hash), out)? else {
            continue;
        };
        let root = shelf(store)
            .join("unpacked")
            .join(format!("{id}-{version}"));
        if !root.join(id).join("mod.toml").is_file() {
            archive::install(&a, &root, Some(*hash))
                .map_err(|e| anyhow::anyhow!("`{id}` {version}: {e}"))?;
        }
        writeln!(
            out,
            "replaying with `{id}` {version} #{hash:016x} from {}",
            root.join(id).display()
        )?;
        if let Some(m) = loaded.mods.iter().find(|m| m.id == *id) {
            let files = archive::play_differences(&a, &m.dir);
            if !files.is_empty() {
                writeln!(
                    out,
                    "`{id}` in {} differs in play from the recorded {version} in: {}",
                    m.dir.display(),
                    files.join(", ")
                )?;
            }
        }
        extra.push(root);
    }
    Ok(extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replays_mod_lines_are_read_from_its_header() {
        let text = "hexforge-replay 1\nengine 0.2.0\nmod base 1.0.0 3328db7caa0ff346\nmod x 2.1.0 00000000000000ff\nrules v3\naction place moloch/hq 0 0 0\nmod y 1.0.0 0\n";
        assert_eq!(
            recorded(text),
            [
                (
                    "base".to_string(),
                    "1.0.0".to_string(),
                    0x3328_db7c_aa0f_f346
                ),
                ("x".to_string(), "2.1.0".to_string(), 0xff),
            ]
        );
    }
}
