//! Every mod below the mods folders loaded into one engine catalog ([`LoadedMods`]): each folder
//! read on its own, then the mods resolved (versions, dependencies, load order), patched and put
//! together; and the rules a table plays with them. One broken mod never stops the others from
//! loading; what was skipped, and why, is reported. What concerns a single folder lives in
//! [`crate::folder`] and [`crate::folder_read`], and is named here too.

use crate::api_changes::written_for_earlier;
use crate::boards::{Board, UnknownBoard, find_board};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::folder_read::{FolderRead, read_folder};
use crate::manifest::{DepKind, ENGINE_VERSION, Manifest};
use crate::patch::{History, PatchedArmy, apply_patch_files, record_armies};
use crate::presets::{
    RuleInfo, RuleLine, RulePreset, RulesError, rule_info, rule_lines, table_rules,
};
use crate::resolve::resolve;
use hexforge_core::{Catalog, Rules};
use semver::Version;
use std::path::{Path, PathBuf};

pub use crate::folder::{ScriptFile, mod_dirs, script_files, user_mods_dir};
pub use crate::folder_read::{ArmyCheck, ModInfo, check_army_text, load_mod};

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

impl LoadedMods {
    /// [`table_rules`] with these mods' presets and the rule options their catalog declares.
    pub fn table_rules(&self, preset: &str, options: &[String]) -> Result<Rules, RulesError> {
        table_rules(
            preset,
            options,
            &mod_presets(&self.mods),
            self.catalog.options(),
            self.catalog.implications(),
        )
    }

    /// [`rule_lines`] with these mods' presets and the rule options their catalog declares, as
    /// `hexforge rules` prints them.
    pub fn rule_lines(
        &self,
        preset: &str,
        options: &[String],
    ) -> Result<Vec<RuleLine>, RulesError> {
        rule_lines(
            preset,
            options,
            &mod_presets(&self.mods),
            self.catalog.options(),
            self.catalog.implications(),
        )
    }

    /// [`rule_info`] of `key` with the rule options these mods declare.
    pub fn rule_info(&self, key: &str) -> Option<RuleInfo> {
        rule_info(key, self.catalog.options())
    }
}

/// The rule presets the loaded `mods` define, the first of an id in load order.
pub fn mod_presets(mods: &[ModInfo]) -> Vec<RulePreset> {
    let mut presets: Vec<RulePreset> = Vec::new();
    for p in mods.iter().flat_map(|m| &m.presets) {
        if !presets.iter().any(|q| q.id == p.id) {
            presets.push(p.clone());
        }
    }
    presets
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
    let mut root_problems = Vec::new();
    let dirs = mod_dirs(roots, &mut root_problems);
    let reads: Vec<FolderRead> = dirs.iter().map(|d| read_folder(d)).collect();
    let folders: Vec<(&Path, &FolderRead)> =
        dirs.iter().map(PathBuf::as_path).zip(&reads).collect();
    assemble(&root_problems, &folders, refused)
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
            let message = match e {
                hexforge_core::tile::CatalogError::BadPart { .. } => format!(
                    "mod `{}`: after the patches, {e}: add the part to the army or fix `[tile.linked]`",
                    p.mod_id
                ),
                _ => format!(
                    "mod `{}`: {e}{first}: give this army another id, or remove one of the mods",
                    p.mod_id
                ),
            };
            problems.push(Diagnostic {
                message,
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
