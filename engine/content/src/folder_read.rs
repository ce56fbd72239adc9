//! One mod folder read on its own, before any other mod is looked at: its manifest and files
//! checked into a [`ModInfo`] ([`load_mod`], and what loading keeps of a folder), and the text of
//! an army file checked as loading checks it ([`check_army_text`]).

use crate::army::{ArmyFile, load_army_open, parse_army_open};
use crate::boards::{BOARDS_DIR, Board, load_board};
use crate::diagnostic::{Diagnostic, Diagnostics, SourceText};
use crate::folder::{ScriptFile, script_files, toml_files};
use crate::manifest::{Manifest, load_manifest};
use crate::options::{OPTIONS_FILE, OptionDecl, load_options};
use crate::patch::{built_armies, built_armies_in, read_patch_files};
use crate::presets::{RulePreset, load_preset};
use hexforge_core::tile::Implication;
use std::path::{Path, PathBuf};

/// A mod that loaded, with the armies and scripts it provides.
#[derive(Clone, Debug, PartialEq)]
pub struct ModInfo {
    /// The mod's id, from its manifest.
    pub id: String,
    /// The mod's name as mod lists show it.
    pub name: String,
    /// The mod's folder, as found below the mods folders.
    pub dir: PathBuf,
    /// The validated `mod.toml`.
    pub manifest: Manifest,
    /// Its army files, validated, in path order.
    pub armies: Vec<ArmyFile>,
    /// The Lua files of `scripts/` (any depth), in path order, as read when the mod loaded.
    pub scripts: Vec<ScriptFile>,
    /// The rule presets of `rules/*.toml`, in path order.
    pub presets: Vec<RulePreset>,
    /// The rule options its `options.toml` declares, in file order (docs/RULESETS.md).
    pub options: Vec<OptionDecl>,
    /// The `[[implies]]` of its `options.toml`: declared options' values that set engine keys,
    /// in file order.
    pub implies: Vec<Implication>,
    /// The text of its patch files (`patches/*.toml`), for the content hash.
    pub patches: Vec<ScriptFile>,
    /// The boards of `boards/*.toml`, in path order (docs/RULESETS.md, "Boards"); a board whose
    /// id an earlier mod already has is dropped when the mods are put together.
    pub boards: Vec<Board>,
}

/// Reads one mod folder: its manifest and every army file, all validated; every problem is
/// returned together. Dependencies are not checked here (see [`crate::load_mods`]).
pub fn load_mod(dir: &Path) -> Result<ModInfo, Diagnostics> {
    let manifest = load_manifest(dir)?;
    load_mod_files(dir, manifest, &read_patch_files(dir))
}

/// What checking an army file's text found: every problem, and the army when each of its tiles
/// is valid (its size may still be wrong: that is then among the problems).
#[derive(Clone, Debug)]
pub struct ArmyCheck {
    /// The validated army, when every tile is valid.
    pub army: Option<ArmyFile>,
    /// Every problem found, in file order, with `file:line:column`.
    pub problems: Vec<Diagnostic>,
}

/// Checks the text of one army file of the mod in `mod_dir` as loading checks it (parsed, then
/// validated, every problem at once with `file:line:column`; the size too, unless the mod's own
/// patches complete the army), reading nothing but the mod's patch files. Tools that edit an
/// army file call it on every change, before the file is saved.
pub fn check_army_text(path: &Path, text: &str, mod_dir: &Path) -> ArmyCheck {
    match parse_army_open(&SourceText::new(path, text)) {
        Ok(a) => {
            let problems = if built_armies(mod_dir).contains(&a.id) {
                Vec::new()
            } else {
                a.size_problem().into_iter().collect()
            };
            ArmyCheck {
                army: Some(a),
                problems,
            }
        }
        Err(d) => ArmyCheck {
            army: None,
            problems: d.0,
        },
    }
}

/// A mod's own files (armies, presets, scripts; `patches` already read), checked against its
/// manifest.
fn load_mod_files(
    dir: &Path,
    manifest: Manifest,
    patches: &[Result<ScriptFile, Diagnostic>],
) -> Result<ModInfo, Diagnostics> {
    let mut problems = Vec::new();
    let mut armies: Vec<ArmyFile> = Vec::new();
    let files = toml_files(dir, "armies");
    let built = built_armies_in(patches);
    for f in files {
        match load_army_open(&f) {
            Ok(a) => {
                // An army the mod's own patches complete is measured (and its linked units'
                // parts looked for) once they have applied.
                if !built.contains(&a.id) && !a.part_problems.is_empty() {
                    problems.extend(a.part_problems.iter().cloned());
                    continue;
                }
                if !built.contains(&a.id)
                    && let Some(d) = a.size_problem()
                {
                    problems.push(d);
                    continue;
                }
                if let Some(prev) = armies.iter().find(|x| x.id == a.id) {
                    problems.push(Diagnostic {
                        message: format!(
                            "army id `{}` is already defined in this mod ({}, {}): rename one",
                            a.id,
                            prev.name,
                            prev.at.file.display()
                        ),
                        ..a.at.clone()
                    });
                } else {
                    armies.push(a);
                }
            }
            Err(d) => problems.extend(d.0),
        }
    }
    let mut presets: Vec<RulePreset> = Vec::new();
    // The ids of the preset files that failed, as far as they can be read: `options.toml` may
    // name them without a second problem about a preset it cannot find.
    let mut failed: Vec<String> = Vec::new();
    for f in toml_files(dir, "rules") {
        match load_preset(&f) {
            Ok(p) if presets.iter().any(|q| q.id == p.id) => problems.push(Diagnostic {
                message: format!("preset `{}` is defined twice in this mod: rename one", p.id),
                ..p.at
            }),
            Ok(p) => presets.push(p),
            Err(d) => {
                problems.extend(d.0);
                failed.extend(preset_id_of_failed(&f));
            }
        }
    }
    let mut options = Vec::new();
    let mut implies = Vec::new();
    let options_file = dir.join(OPTIONS_FILE);
    if options_file.is_file() {
        let mut ids: Vec<&str> = presets.iter().map(|p| p.id.as_str()).collect();
        ids.extend(failed.iter().map(String::as_str));
        match load_options(&options_file, &manifest.id, &ids) {
            Ok(o) => (options, implies) = (o.options, o.implies),
            Err(d) => problems.extend(d.0),
        }
    }
    let mut boards: Vec<Board> = Vec::new();
    for f in toml_files(dir, BOARDS_DIR) {
        match load_board(&f, &manifest.id) {
            Ok(b) => match boards.iter().find(|o| o.id == b.id) {
                Some(first) => problems.push(Diagnostic {
                    message: format!(
                        "board `{}` is defined twice in this mod (also at {}): rename one",
                        b.id,
                        first.at.as_ref().map_or(String::new(), |at| format!(
                            "{}:{}:{}",
                            at.file.display(),
                            at.line,
                            at.column
                        ))
                    ),
                    ..b.at
                        .clone()
                        .unwrap_or_else(|| Diagnostic::whole_file(&f, ""))
                }),
                None => boards.push(b),
            },
            Err(d) => problems.extend(d.0),
        }
    }
    // What `[provides]` declares is compared once the army and preset files have loaded.
    if let Some(p) = manifest.provides.as_ref().filter(|_| problems.is_empty()) {
        let at = |message: String| match &p.at {
            Some(at) => Diagnostic {
                message,
                ..at.clone()
            },
            None => Diagnostic::whole_file(&dir.join("mod.toml"), message),
        };
        let mut agree = |key: &str, folder: &str, declared: &[String], mut found: Vec<&str>| {
            let mut declared: Vec<&str> = declared.iter().map(String::as_str).collect();
            declared.sort();
            found.sort();
            if declared != found {
                problems.push(at(format!(
                    "`provides.{key}` says [{}] but {folder}/ holds [{}]: make them agree",
                    declared.join(", "),
                    found.join(", ")
                )));
            }
        };
        agree(
            "armies",
            "armies",
            &p.armies,
            armies.iter().map(|a| a.id.as_str()).collect(),
        );
        agree(
            "presets",
            "rules",
            &p.presets,
            presets.iter().map(|p| p.id.as_str()).collect(),
        );
        let has_scripts = dir.join("scripts").is_dir();
        if p.scripts && !has_scripts {
            problems.push(at(
                "`provides.scripts = true` but the mod has no scripts/ folder: add one, or set `scripts = false`".into(),
            ));
        } else if !p.scripts && has_scripts {
            problems.push(at(
                "the mod has a scripts/ folder but `provides.scripts` is not true: set `scripts = true`, or remove the folder".into(),
            ));
        }
    }
    let mut scripts = Vec::new();
    for path in script_files(dir) {
        match ScriptFile::read(path, "script") {
            Ok(file) => scripts.push(file),
            Err(d) => problems.push(d),
        }
    }
    if !problems.is_empty() {
        return Err(Diagnostics(problems));
    }
    Ok(ModInfo {
        id: manifest.id.clone(),
        name: manifest.name.clone(),
        dir: dir.to_path_buf(),
        manifest,
        armies,
        scripts,
        presets,
        options,
        implies,
        patches: patches
            .iter()
            .filter_map(|p| p.as_ref().ok().cloned())
            .collect(),
        boards,
    })
}

/// What one mod folder gave when it was read: its manifest and, when that is valid, its own
/// files checked (armies, presets, scripts) and its patch files' text. A function of the
/// folder's files alone: dependencies, load order and patches are worked out from these when
/// the mods are put together, so a folder whose files did not change need not be read again.
#[derive(Clone, Debug)]
pub(crate) struct FolderRead {
    pub(crate) manifest: Result<Manifest, Diagnostics>,
    pub(crate) files: Option<Result<ModInfo, Diagnostics>>,
    pub(crate) patches: Vec<Result<ScriptFile, Diagnostic>>,
}

/// Reads the mod folder `dir` ([`FolderRead`]).
pub(crate) fn read_folder(dir: &Path) -> FolderRead {
    let manifest = load_manifest(dir);
    let patches = read_patch_files(dir);
    let files = manifest
        .as_ref()
        .ok()
        .map(|m| load_mod_files(dir, m.clone(), &patches));
    FolderRead {
        manifest,
        files,
        patches,
    }
}

/// The id a preset file that failed to load gives itself (`[preset] id`), when its text is TOML
/// at all; else the file's name without `.toml`.
fn preset_id_of_failed(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let from_text = text
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("preset")?.get("id")?.as_str().map(str::to_string));
    from_text.or_else(|| Some(path.file_stem()?.to_str()?.to_string()))
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

    #[test]
    fn an_army_text_is_checked_as_loading_checks_it() {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/base");
        let path = base.join("armies/moloch.toml");
        let text = std::fs::read_to_string(&path).expect("read moloch.toml");
        let ok = check_army_text(&path, &text, &base);
        assert!(ok.problems.is_empty(), "{:?}", ok.problems);
        let a = ok.army.expect("moloch is valid");
        assert_eq!((a.id.as_str(), a.tiles.len() > 10), ("moloch", true));
        // A bad value: its line and column, and no army (the size is only measured once every
        // tile is valid).
        let bad = text.replacen("count = 2", "count = 256", 1);
        let e = check_army_text(&path, &bad, &base);
        assert_eq!(e.problems.len(), 1, "{:?}", e.problems);
        assert!(e.problems[0].message.contains("count 256 is out of range"));
        assert!(e.problems[0].file.ends_with("moloch.toml") && e.problems[0].line > 1);
        assert!(e.army.is_none());
        // A short deck: the army is there, with its size problem.
        let short = text.replacen("count = 2", "count = 1", 1);
        let e = check_army_text(&path, &short, &base);
        assert!(e.army.is_some());
        assert!(
            e.problems[0].message.contains("add up to 34"),
            "{:?}",
            e.problems
        );
        let broken = text.replacen("[army]", "[army", 1);
        let e = check_army_text(&path, &broken, &base);
        assert!(e.army.is_none() && !e.problems.is_empty());
    }
}
