//! Mod folders: `mod.toml` and the armies in `armies/*.toml`, loaded into one engine catalog.
//! One broken mod or army never stops the others from loading; its problems are reported.

use crate::army::{ArmyFile, load_army};
use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml};
use hexforge_core::Catalog;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ModManifestDef {
    pub id: String,
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub authors: Vec<String>,
}

/// A mod that loaded, with the armies it provides.
#[derive(Clone, Debug, PartialEq)]
pub struct ModInfo {
    pub id: String,
    pub name: String,
    pub version: String,
    pub dir: PathBuf,
    pub armies: Vec<ArmyFile>,
}

/// Reads one mod folder. Every army file is validated; all problems are returned together.
pub fn load_mod(dir: &Path) -> Result<ModInfo, Diagnostics> {
    let manifest_path = dir.join("mod.toml");
    let text = std::fs::read_to_string(&manifest_path).map_err(|e| {
        Diagnostic::whole_file(
            &manifest_path,
            format!("cannot read the mod manifest: {e} (every mod folder needs a mod.toml)"),
        )
    })?;
    let manifest: ModManifestDef = parse_toml(&SourceText::new(&manifest_path, text))?;
    let mut problems = Vec::new();
    let mut armies = Vec::new();
    let armies_dir = dir.join("armies");
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&armies_dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    for f in files {
        match load_army(&f) {
            Ok(a) => {
                if let Some(prev) = armies.iter().find(|x: &&ArmyFile| x.id == a.id) {
                    problems.push(Diagnostic::whole_file(
                        &f,
                        format!(
                            "army id `{}` is already defined in this mod ({})",
                            a.id, prev.name
                        ),
                    ));
                } else {
                    armies.push(a);
                }
            }
            Err(d) => problems.extend(d.0),
        }
    }
    if !problems.is_empty() {
        return Err(Diagnostics(problems));
    }
    Ok(ModInfo {
        id: manifest.id,
        name: manifest.name,
        version: manifest.version,
        dir: dir.to_path_buf(),
        armies,
    })
}

/// Mods loaded into one catalog, with what could not be loaded.
#[derive(Debug, Default)]
pub struct LoadedMods {
    pub catalog: Catalog,
    pub mods: Vec<ModInfo>,
    pub problems: Diagnostics,
}

/// Loads every mod folder (each a directory with a `mod.toml`) below the given roots, sorted by
/// path, into one catalog.
pub fn load_mods(roots: &[PathBuf]) -> LoadedMods {
    let mut out = LoadedMods::default();
    let mut dirs = Vec::new();
    for root in roots {
        if root.join("mod.toml").is_file() {
            dirs.push(root.clone());
            continue;
        }
        match std::fs::read_dir(root) {
            Ok(rd) => dirs.extend(
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.join("mod.toml").is_file()),
            ),
            Err(e) => out.problems.0.push(Diagnostic::whole_file(
                root,
                format!("cannot read the mods folder: {e}"),
            )),
        }
    }
    dirs.sort();
    for dir in dirs {
        match load_mod(&dir) {
            Ok(m) => {
                for a in &m.armies {
                    if let Err(e) = out
                        .catalog
                        .add_army(&a.id, &a.name, a.size, a.tiles.clone())
                    {
                        out.problems.0.push(Diagnostic::whole_file(
                            &m.dir,
                            format!("mod `{}`: {e}", m.id),
                        ));
                    }
                }
                out.mods.push(m);
            }
            Err(d) => out.problems.0.extend(d.0),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_mod_loads_four_armies_of_35_tiles() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/base");
        let m = load_mod(&dir).unwrap_or_else(|e| panic!("{e}"));
        let ids: Vec<&str> = m.armies.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["borgo", "hegemony", "moloch", "outpost"]);
        for a in &m.armies {
            assert_eq!(
                a.tiles.iter().map(|t| t.count as u32).sum::<u32>(),
                35,
                "{}",
                a.id
            );
        }
    }
}
