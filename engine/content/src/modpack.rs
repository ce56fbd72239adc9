//! Mod folders: `mod.toml` and the armies in `armies/*.toml`, found below the mods folders,
//! resolved (versions, dependencies, load order) and loaded into one engine catalog. One broken
//! mod never stops the others from loading; what was skipped, and why, is reported.

use crate::api_changes::written_for_earlier;
use crate::army::{ArmyFile, load_army_open};
use crate::boards::{BOARDS_DIR, Board, UnknownBoard, find_board, load_board};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::manifest::DepKind;
use crate::manifest::{ENGINE_VERSION, Manifest, load_manifest};
use crate::options::{OPTIONS_FILE, OptionDecl, load_options};
use crate::patch::{History, PatchedArmy, apply_patch_files, read_patch_files, record_armies};
use crate::presets::{RulePreset, load_preset};
use crate::resolve::resolve;
use hexforge_core::Catalog;
use hexforge_core::tile::Implication;
use semver::Version;
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

/// A mod that was found but not loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    /// The mod's id, or its folder's name when the manifest cannot be read.
    pub id: String,
    /// The version its manifest gives, when it can be read.
    pub version: Option<Version>,
    /// The folder the mod was found in, for the user to look at.
    pub dir: PathBuf,
    /// Why, located in the mod's files.
    pub reason: Diagnostic,
}

/// Reads one mod folder: its manifest and every army file, all validated; every problem is
/// returned together. Dependencies are not checked here (see [`load_mods`]).
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
    match crate::army::parse_army_open(&crate::diagnostic::SourceText::new(path, text)) {
        Ok(a) => {
            let problems = if crate::patch::built_armies(mod_dir).contains(&a.id) {
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
    let built = crate::patch::built_armies_in(patches);
    for f in files {
        match load_army_open(&f) {
            Ok(a) => {
                // An army the mod's own patches complete is measured once they have applied.
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
    for f in toml_files(dir, "rules") {
        match load_preset(&f) {
            Ok(p) if presets.iter().any(|q| q.id == p.id) => problems.push(Diagnostic {
                message: format!("preset `{}` is defined twice in this mod: rename one", p.id),
                ..p.at
            }),
            Ok(p) => presets.push(p),
            Err(d) => problems.extend(d.0),
        }
    }
    let mut options = Vec::new();
    let mut implies = Vec::new();
    let options_file = dir.join(OPTIONS_FILE);
    if options_file.is_file() {
        let ids: Vec<&str> = presets.iter().map(|p| p.id.as_str()).collect();
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
/// folder's files alone: dependencies, load order and patches are worked out from these by
/// [`assemble`], so a folder whose files did not change need not be read again.
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

/// Mods loaded into one catalog, with what could not be loaded.
#[derive(Debug, Default)]
pub struct LoadedMods {
    /// Every tile of the loaded mods' armies, with patches applied, for the engine.
    pub catalog: Catalog,
    /// The mods that loaded, in load order (dependencies first, then by id).
    pub mods: Vec<ModInfo>,
    /// The mods found but not loaded, with why.
    pub skipped: Vec<Skipped>,
    /// Every problem: of the skipped mods, and of the catalog.
    pub problems: Diagnostics,
    /// What loaded mods should be told without being refused, in load order: a mod written for
    /// an earlier Hexforge, with what changed since ([`crate::api_changes`]).
    pub warnings: Vec<Diagnostic>,
    /// Who defined and changed each tile, and the patches that conflict.
    pub history: History,
}

impl LoadedMods {
    /// Every board there is: the built-in ones (`standard`, `extended`), then the loaded mods'
    /// in load order.
    pub fn boards(&self) -> impl Iterator<Item = &Board> + Clone {
        Board::built_in()
            .iter()
            .chain(self.mods.iter().flat_map(|m| m.boards.iter()))
    }

    /// The board named `id`, built in or of a loaded mod, or an error listing them all.
    pub fn board(&self, id: &str) -> Result<&Board, UnknownBoard> {
        find_board(self.boards(), id)
    }
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

/// Loads every mod below the given roots: manifests first (a second mod with an id already
/// found is skipped), then each mod's files, then the dependency resolution, then the armies of
/// the mods that remain into one catalog, in load order.
pub fn load_mods(roots: &[PathBuf]) -> LoadedMods {
    load_mods_except(roots, &[])
}

/// [`load_mods`], with the mods named in `refused` (by id) not loaded, for the reason given:
/// a later step (the scripts) found them broken. Mods that need them are skipped too.
pub fn load_mods_except(roots: &[PathBuf], refused: &[(String, String)]) -> LoadedMods {
    let mut cache = crate::cache::ModCache::default();
    cache.refresh(roots, None);
    cache.assemble(refused)
}

/// The mods of the folders read (`root_problems`: what listing the roots found; `folders`: each
/// mod folder in the order [`mod_dirs`] gives, with what it gave), resolved and loaded into one
/// catalog as [`load_mods_except`] describes.
pub(crate) fn assemble(
    root_problems: &[Diagnostic],
    folders: &[(&Path, &FolderRead)],
    refused: &[(String, String)],
) -> LoadedMods {
    let mut out = LoadedMods::default();
    let mut problems = root_problems.to_vec();
    let mut found: Vec<(PathBuf, Manifest, &FolderRead)> = Vec::new();
    for (dir, read) in folders {
        let dir = dir.to_path_buf();
        match &read.manifest {
            Ok(m) => {
                if let Some((first, _, _)) = found.iter().find(|(_, f, _)| f.id == m.id) {
                    let reason = Diagnostic {
                        message: format!(
                            "mod id `{}` is already loaded from {}: give one of them another id",
                            m.id,
                            first.display()
                        ),
                        ..m.at.clone()
                    };
                    out.skipped.push(Skipped {
                        id: m.id.clone(),
                        version: Some(m.version.clone()),
                        dir,
                        reason,
                    });
                } else {
                    found.push((dir, m.clone(), read));
                }
            }
            Err(d) => {
                let id = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                for reason in d.0.iter().cloned() {
                    out.skipped.push(Skipped {
                        id: id.clone(),
                        version: None,
                        dir: dir.clone(),
                        reason,
                    });
                }
            }
        }
    }
    // Each mod's own files; a mod whose files have errors does not load.
    let mut loaded: Vec<Option<ModInfo>> = Vec::new();
    let mut broken = Vec::new();
    for (i, (_, m, read)) in found.iter().enumerate() {
        match &read.files {
            Some(Ok(info)) => loaded.push(Some(info.clone())),
            Some(Err(d)) => {
                problems.extend(d.0.iter().cloned());
                broken.push((
                    i,
                    Diagnostic {
                        message: format!("mod `{}` has errors in its files (listed above)", m.id),
                        ..m.at.clone()
                    },
                ));
                loaded.push(None);
            }
            // A valid manifest is always followed by its files.
            None => loaded.push(None),
        }
    }
    for (i, (_, m, _)) in found.iter().enumerate() {
        if let Some((_, why)) = refused.iter().find(|(id, _)| *id == m.id)
            && loaded[i].is_some()
        {
            broken.push((
                i,
                Diagnostic {
                    message: format!("mod `{}` {why}", m.id),
                    ..m.at.clone()
                },
            ));
            loaded[i] = None;
        }
    }
    let manifests: Vec<Manifest> = found.iter().map(|(_, m, _)| m.clone()).collect();
    let engine = Version::parse(ENGINE_VERSION).unwrap_or_else(|_| Version::new(0, 0, 0));
    let resolution = resolve(&manifests, &engine, broken);
    for (i, reason) in resolution.skipped {
        out.skipped.push(Skipped {
            id: manifests[i].id.clone(),
            version: Some(manifests[i].version.clone()),
            dir: found[i].0.clone(),
            reason,
        });
    }
    // Each mod's armies, then its patches over the armies loaded so far (its own and those of
    // its dependencies).
    let mut armies: Vec<PatchedArmy> = Vec::new();
    let mut patched_by: Vec<(String, Diagnostic)> = Vec::new();
    for i in resolution.order {
        let Some(m) = loaded[i].take() else { continue };
        if let Some((_, release)) = resolution.earlier.iter().find(|(j, _)| *j == i) {
            out.warnings.push(written_for_earlier(
                &m.id,
                &m.manifest.hexforge,
                release,
                &engine,
                m.manifest.hexforge_at.as_ref().unwrap_or(&m.manifest.at),
                &m.dir,
                m.scripts
                    .iter()
                    .map(|s| (s.path.as_path(), s.text.as_str())),
            ));
        }
        record_armies(&mut out.history, &m.id, &m.armies);
        armies.extend(m.armies.iter().map(|a| PatchedArmy {
            mod_id: m.id.clone(),
            army: a.clone(),
        }));
        let deps: Vec<String> = m
            .manifest
            .dependencies
            .iter()
            .filter(|d| d.kind != DepKind::Incompatible)
            .map(|d| d.id.clone())
            .collect();
        let patches = &found[i].2.patches;
        problems.extend(apply_patch_files(&mut armies, &mut out.history, &m.id, &deps, patches).0);
        out.mods.push(m);
    }
    for (tile, c) in &out.history.changes {
        if c.field != "defined" {
            patched_by.push((tile.clone(), c.at.clone()));
        }
    }
    for p in &armies {
        let total: u32 = p.army.tiles.iter().map(|t| u32::from(t.count)).sum();
        let last = patched_by
            .iter()
            .rev()
            .find(|(t, _)| t.split('/').next() == Some(p.army.id.as_str()));
        if let (Some((_, at)), Some(_)) = (last, p.army.size_problem()) {
            problems.push(Diagnostic {
                message: format!(
                    "after the patches, army `{}` has {total} tiles but must have {} (R1.1): fix the counts",
                    p.army.id, p.army.size
                ),
                ..at.clone()
            });
        }
        if let Err(e) =
            out.catalog
                .add_army(&p.army.id, &p.army.name, p.army.size, p.army.tiles.clone())
        {
            // Located at the army's id, which another loaded mod already uses.
            let first = armies
                .iter()
                .find(|q| q.army.id == p.army.id && q.mod_id != p.mod_id)
                .map_or(String::new(), |q| format!(" (also by mod `{}`)", q.mod_id));
            problems.push(Diagnostic {
                message: format!(
                    "mod `{}`: {e}{first}: give this army another id, or remove one of the mods",
                    p.mod_id
                ),
                ..p.army.at.clone()
            });
        }
    }
    // The options the mods declare, the first declaration of a key kept (in load order).
    let mut declared_at: Vec<(String, Diagnostic)> = Vec::new();
    for m in &out.mods {
        for o in &m.options {
            if out
                .catalog
                .declare_option(&o.key, o.option.clone())
                .is_err()
            {
                let first = declared_at
                    .iter()
                    .find(|(k, _)| *k == o.key)
                    .map(|(_, at)| at);
                problems.push(Diagnostic {
                    message: format!(
                        "mod `{}` declares option `{}`, which {} already declares: rename the key in one of the two mods",
                        m.id,
                        o.key,
                        first.map_or(String::from("another mod"), |at| format!(
                            "{}:{}:{} (mod `{}`)",
                            at.file.display(),
                            at.line,
                            at.column,
                            out.catalog.options()[&o.key].declared_by
                        )),
                    ),
                    ..o.at.clone()
                });
            } else {
                declared_at.push((o.key.clone(), o.at.clone()));
            }
        }
        for i in &m.implies {
            out.catalog.add_implication(i.clone());
        }
    }
    // A board id names one board: the first in load order keeps it.
    let mut board_ids: Vec<(String, Diagnostic, String)> = Vec::new();
    for m in &mut out.mods {
        let mut kept = Vec::new();
        for b in std::mem::take(&mut m.boards) {
            let at =
                b.at.clone()
                    .unwrap_or_else(|| Diagnostic::whole_file(&m.dir, ""));
            match board_ids.iter().find(|(id, _, _)| *id == b.id) {
                Some((_, first, by)) => problems.push(Diagnostic {
                    message: format!(
                        "mod `{}` defines board `{}`, which {}:{}:{} (mod `{by}`) already defines: rename the board in one of the two mods",
                        m.id,
                        b.id,
                        first.file.display(),
                        first.line,
                        first.column
                    ),
                    ..at
                }),
                None => {
                    board_ids.push((b.id.clone(), at, m.id.clone()));
                    kept.push(b);
                }
            }
        }
        m.boards = kept;
    }
    // Each mod lists its armies as the patches left them.
    for m in &mut out.mods {
        for a in &mut m.armies {
            if let Some(p) = armies.iter().find(|p| p.army.id == a.id) {
                *a = p.army.clone();
            }
        }
    }
    problems.extend(out.skipped.iter().map(|s| Diagnostic {
        message: format!("skipped: {}", s.reason.message),
        ..s.reason.clone()
    }));
    out.problems = Diagnostics(problems);
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
