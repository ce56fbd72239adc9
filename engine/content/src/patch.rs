//! Patches (`patches/*.toml`): a mod changes the armies of the mods it depends on — changes a
//! tile's stats, removes a tile, adds a tile, or copies one into another army — and every change
//! is recorded, so `hexforge mods explain army/tile` can show who made a tile what it is.

use crate::army::{ArmyFile, TileRawDef, validate_tile};
use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml};
use crate::edges::apply_feature;
use crate::folder::{ScriptFile, toml_files};
use hexforge_core::tile::{EdgeIcons, Initiative, Tile};
use serde::Deserialize;
use std::path::Path;
use toml::Spanned;

/// A patch file as parsed, before it is applied: its steps by kind, each with its position.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct PatchFileDef {
    /// The `[[change]]` tables: stats of existing tiles changed.
    #[serde(default)]
    pub change: Vec<Spanned<ChangeDef>>,
    /// The `[[remove]]` tables: tiles taken out of their armies.
    #[serde(default)]
    pub remove: Vec<Spanned<RemoveDef>>,
    /// The `[[add]]` tables: new tiles in other mods' armies.
    #[serde(default)]
    pub add: Vec<Spanned<AddDef>>,
    /// The `[[copy]]` tables: tiles copied into another army.
    #[serde(default)]
    pub copy: Vec<Spanned<CopyDef>>,
}

/// Changes some fields of a tile; the others stay.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ChangeDef {
    /// The tile changed, as `army/tile`.
    pub tile: Spanned<String>,
    /// A new display name.
    pub name: Option<Spanned<String>>,
    /// A new number of copies in the deck (at least 1).
    pub count: Option<Spanned<i64>>,
    /// New printed initiative values, replacing the old ones.
    pub initiative: Option<Spanned<Vec<i64>>>,
    /// A new number of toughness icons.
    pub toughness: Option<Spanned<i64>>,
    /// Whether the tile now has the Mobility icon.
    pub mobile: Option<Spanned<bool>>,
    /// Replaces all the tile's edge features.
    pub edges: Option<Spanned<Vec<String>>>,
}

/// A `[[remove]]` table: takes a tile out of its army.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RemoveDef {
    /// The tile removed, as `army/tile`.
    pub tile: Spanned<String>,
}

/// A new tile in another mod's army: `army`, and a `[add.tile]` table as in army files.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct AddDef {
    /// The id of the army that gets the tile.
    pub army: Spanned<String>,
    /// The new tile, written as in army files.
    pub tile: Spanned<TileRawDef>,
}

/// A copy of a tile into another army (a new army that reuses another's tiles).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct CopyDef {
    /// The tile copied, as `army/tile`.
    pub tile: Spanned<String>,
    /// The id of the army that gets the copy.
    pub army: Spanned<String>,
    /// Copies in the receiving army's deck; the original's count when omitted.
    pub count: Option<Spanned<i64>>,
}

/// One step of a tile's history: who defined or changed what, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The mod whose file made the step.
    pub mod_id: String,
    /// The line of the definition or patch (the message says what changed).
    pub at: Diagnostic,
    /// The field changed (`toughness`), or `defined`, `removed`, `added`, `copied`.
    pub field: String,
}

/// A loaded army, with the mod that defines it and the history of each of its tiles.
#[derive(Clone, Debug, PartialEq)]
pub struct PatchedArmy {
    /// The mod that defines the army.
    pub mod_id: String,
    /// The army with every patch applied.
    pub army: ArmyFile,
}

/// What applying patches found: the history of every tile (`army/tile`), the problems, and the
/// conflicts (two mods changing the same field of a tile: the later one wins).
#[derive(Debug, Default)]
pub struct History {
    /// Every step of every tile, in load order, keyed by the tile's `army/tile` id.
    pub changes: Vec<(String, Change)>,
    /// Where a later mod overrode a field an earlier one had changed, located at the later change.
    pub conflicts: Vec<Diagnostic>,
}

impl History {
    /// The history of one tile, in order.
    pub fn of<'a>(&'a self, full_id: &'a str) -> impl Iterator<Item = &'a Change> + 'a {
        self.changes
            .iter()
            .filter(move |(t, _)| t == full_id)
            .map(|(_, c)| c)
    }

    fn record(&mut self, tile: &str, mod_id: &str, at: Diagnostic, field: &str) {
        if !matches!(field, "defined" | "added" | "copied" | "removed")
            && let Some((_, prev)) = self
                .changes
                .iter()
                .rev()
                .find(|(t, c)| t == tile && c.field == field && c.mod_id != mod_id)
        {
            self.conflicts.push(Diagnostic {
                message: format!(
                    "`{field}` of `{tile}` is changed by mod `{}` ({}:{}) and again by mod `{mod_id}`, which loads later and wins",
                    prev.mod_id,
                    prev.at.file.display(),
                    prev.at.line
                ),
                ..at.clone()
            });
        }
        self.changes.push((
            tile.to_string(),
            Change {
                mod_id: mod_id.to_string(),
                at,
                field: field.to_string(),
            },
        ));
    }
}

/// The patch files of a mod, in path order.
pub fn patch_files(dir: &Path) -> Vec<std::path::PathBuf> {
    toml_files(dir, "patches")
}

/// The patch files of a mod, in path order, each with its text or why it cannot be read.
pub fn read_patch_files(dir: &Path) -> Vec<Result<ScriptFile, Diagnostic>> {
    patch_files(dir)
        .into_iter()
        .map(|path| ScriptFile::read(path, "patch"))
        .collect()
}

/// The armies a mod's own patches add or copy tiles into: their size is checked after patching.
pub fn built_armies(dir: &Path) -> Vec<String> {
    built_armies_in(&read_patch_files(dir))
}

/// [`built_armies`] of patch files already read ([`read_patch_files`]).
pub fn built_armies_in(files: &[Result<ScriptFile, Diagnostic>]) -> Vec<String> {
    let mut out = Vec::new();
    for file in files.iter().flatten() {
        if let Ok(def) =
            parse_toml::<PatchFileDef>(&SourceText::new(&file.path, file.text.as_str()))
        {
            out.extend(def.add.iter().map(|a| a.get_ref().army.get_ref().clone()));
            out.extend(def.copy.iter().map(|c| c.get_ref().army.get_ref().clone()));
        }
    }
    out
}

/// Records the definition of every tile of a mod's own armies.
pub fn record_armies(history: &mut History, mod_id: &str, armies: &[ArmyFile]) {
    for a in armies {
        for (t, site) in a.tiles.iter().zip(&a.tile_sites) {
            history.record(&t.full_id(), mod_id, site.clone(), "defined");
        }
    }
}

/// Applies the patch files of the mod `mod_id` (whose dependencies are `may_patch`, by mod id) to
/// `armies`, recording each change. Problems are returned; a patch with a problem changes
/// nothing.
pub fn apply_patches(
    armies: &mut [PatchedArmy],
    history: &mut History,
    mod_id: &str,
    may_patch: &[String],
    dir: &Path,
) -> Diagnostics {
    apply_patch_files(armies, history, mod_id, may_patch, &read_patch_files(dir))
}

/// [`apply_patches`] with the patch files already read ([`read_patch_files`]): a file that
/// could not be read gives its problem in its place.
pub fn apply_patch_files(
    armies: &mut [PatchedArmy],
    history: &mut History,
    mod_id: &str,
    may_patch: &[String],
    files: &[Result<ScriptFile, Diagnostic>],
) -> Diagnostics {
    let mut problems = Vec::new();
    for file in files {
        let file = match file {
            Ok(f) => f,
            Err(d) => {
                problems.push(d.clone());
                continue;
            }
        };
        let src = SourceText::new(&file.path, file.text.as_str());
        match parse_toml::<PatchFileDef>(&src) {
            Ok(def) => apply_file(armies, history, mod_id, may_patch, &src, def, &mut problems),
            Err(d) => problems.push(d),
        }
    }
    Diagnostics(problems)
}

/// Where in `armies` the tile `full` (`army/tile`) is, if this mod may patch it.
fn find(
    armies: &[PatchedArmy],
    mod_id: &str,
    may_patch: &[String],
    src: &SourceText,
    full: &Spanned<String>,
) -> Result<(usize, usize), Diagnostic> {
    let name = full.get_ref();
    let Some((army, tile)) = name.split_once('/') else {
        return Err(src.error(
            full.span(),
            format!("`{name}` is not a tile: write `army/tile`, e.g. `moloch/juggernaut`"),
        ));
    };
    let a = army_index(armies, mod_id, may_patch, src, army, full.span())?;
    match armies[a].army.tiles.iter().position(|t| t.id == tile) {
        Some(t) => Ok((a, t)),
        None => {
            let ids: Vec<&str> = armies[a].army.tiles.iter().map(|t| t.id.as_str()).collect();
            Err(src.error(
                full.span(),
                format!(
                    "army `{army}` has no tile `{tile}`{}: its tiles are {}",
                    hexforge_core::names::did_you_mean(tile, ids.iter().copied()),
                    ids.join(", ")
                ),
            ))
        }
    }
}

fn army_index(
    armies: &[PatchedArmy],
    mod_id: &str,
    may_patch: &[String],
    src: &SourceText,
    army: &str,
    span: std::ops::Range<usize>,
) -> Result<usize, Diagnostic> {
    let Some(a) = armies.iter().position(|p| p.army.id == army) else {
        let ids: Vec<&str> = armies.iter().map(|p| p.army.id.as_str()).collect();
        return Err(src.error(
            span,
            format!(
                "no army `{army}` is loaded before this mod{}: the armies loaded are {} (name one, or add its mod to [dependencies])",
                hexforge_core::names::did_you_mean(army, ids.iter().copied()),
                ids.join(", ")
            ),
        ));
    };
    let owner = &armies[a].mod_id;
    if owner != mod_id && !may_patch.contains(owner) {
        return Err(src.error(
            span,
            format!(
                "army `{army}` belongs to mod `{owner}`, which is not among this mod's dependencies: add it to [dependencies]"
            ),
        ));
    }
    Ok(a)
}

fn apply_file(
    armies: &mut [PatchedArmy],
    history: &mut History,
    mod_id: &str,
    may_patch: &[String],
    src: &SourceText,
    def: PatchFileDef,
    problems: &mut Vec<Diagnostic>,
) {
    for c in &def.change {
        let c = c.get_ref();
        let (a, t) = match find(armies, mod_id, may_patch, src, &c.tile) {
            Ok(found) => found,
            Err(d) => {
                problems.push(d);
                continue;
            }
        };
        let mut tile = armies[a].army.tiles[t].clone();
        let mut changed = Vec::new();
        let before = problems.len();
        change_tile(&mut tile, c, src, &mut changed, problems);
        if problems.len() > before {
            continue;
        }
        let full = tile.full_id();
        for (field, at) in changed {
            history.record(&full, mod_id, src.error(at, ""), field);
        }
        armies[a].army.tiles[t] = tile;
    }
    for r in &def.remove {
        let r = r.get_ref();
        match find(armies, mod_id, may_patch, src, &r.tile) {
            Ok((a, t)) => {
                let gone = armies[a].army.tiles.remove(t);
                armies[a].army.tile_names.remove(t);
                armies[a].army.tile_sites.remove(t);
                history.record(
                    &gone.full_id(),
                    mod_id,
                    src.error(r.tile.span(), ""),
                    "removed",
                );
            }
            Err(d) => problems.push(d),
        }
    }
    for add in &def.add {
        let add = add.get_ref();
        let army = add.army.get_ref();
        let a = match army_index(armies, mod_id, may_patch, src, army, add.army.span()) {
            Ok(a) => a,
            Err(d) => {
                problems.push(d);
                continue;
            }
        };
        match validate_tile(src, army, add.tile.get_ref()) {
            Ok(mut tile) => {
                tile.attacks_allies = armies[a].army.tiles.iter().any(|t| t.attacks_allies);
                if armies[a].army.tiles.iter().any(|t| t.id == tile.id) {
                    problems.push(src.error(
                        add.tile.get_ref().id.span(),
                        format!(
                            "army `{army}` already has a tile `{}`: change it with [[change]], or give this one another id",
                            tile.id
                        ),
                    ));
                    continue;
                }
                let at = src.error(add.tile.get_ref().id.span(), "");
                history.record(&tile.full_id(), mod_id, at.clone(), "added");
                push_tile(&mut armies[a].army, tile, at);
            }
            Err(d) => problems.extend(d),
        }
    }
    for c in &def.copy {
        let c = c.get_ref();
        let (from_a, from_t) = match find(armies, mod_id, may_patch, src, &c.tile) {
            Ok(found) => found,
            Err(d) => {
                problems.push(d);
                continue;
            }
        };
        let army = c.army.get_ref();
        let a = match army_index(armies, mod_id, may_patch, src, army, c.army.span()) {
            Ok(a) => a,
            Err(d) => {
                problems.push(d);
                continue;
            }
        };
        let mut tile = armies[from_a].army.tiles[from_t].clone();
        tile.army = army.clone();
        tile.attacks_allies = armies[a].army.tiles.iter().any(|t| t.attacks_allies);
        if let Some(n) = &c.count {
            match u8::try_from(*n.get_ref()).ok().filter(|n| *n >= 1) {
                Some(n) => tile.count = n,
                None => {
                    problems.push(src.error(n.span(), "`count` must be 1 or more"));
                    continue;
                }
            }
        }
        if armies[a].army.tiles.iter().any(|t| t.id == tile.id) {
            problems.push(src.error(
                c.tile.span(),
                format!(
                    "army `{army}` already has a tile `{}`: change it with [[change]], or give this one another id",
                    tile.id
                ),
            ));
            continue;
        }
        let at = src.error(c.tile.span(), "");
        history.record(&tile.full_id(), mod_id, at.clone(), "copied");
        push_tile(&mut armies[a].army, tile, at);
    }
}

fn push_tile(army: &mut ArmyFile, tile: Tile, at: Diagnostic) {
    army.tiles.push(tile);
    army.tile_names.push(Default::default());
    army.tile_sites.push(at);
}

/// Applies the fields of a `[[change]]` to `tile`, noting each changed field and where.
fn change_tile(
    tile: &mut Tile,
    c: &ChangeDef,
    src: &SourceText,
    changed: &mut Vec<(&'static str, std::ops::Range<usize>)>,
    problems: &mut Vec<Diagnostic>,
) {
    if let Some(n) = &c.name {
        tile.name = n.get_ref().clone();
        changed.push(("name", n.span()));
    }
    if let Some(n) = &c.count {
        match u8::try_from(*n.get_ref())
            .ok()
            .filter(|n| *n >= 1 || tile.kind.is_board_tile() && !tile.is_hq())
        {
            Some(v) => {
                tile.count = v;
                changed.push(("count", n.span()));
            }
            None => problems.push(src.error(
                n.span(),
                "`count` must be 0 to 255, and 1 or more for an HQ or an instant (0 keeps a soldier or module out of the draw pile, for a game rule to hand out)",
            )),
        }
    }
    if let Some(t) = &c.toughness {
        match u8::try_from(*t.get_ref()).ok().filter(|t| *t <= 9) {
            Some(_) if tile.is_hq() => {
                problems.push(src.error(t.span(), "an HQ has no toughness: it has HP (R2.10)"))
            }
            Some(v) => {
                tile.toughness = v;
                changed.push(("toughness", t.span()));
            }
            None => problems.push(src.error(t.span(), "`toughness` must be 0 to 9")),
        }
    }
    if let Some(m) = &c.mobile {
        tile.mobile = *m.get_ref();
        changed.push(("mobile", m.span()));
    }
    if let Some(i) = &c.initiative {
        let values: Option<Vec<u8>> = i
            .get_ref()
            .iter()
            .map(|v| u8::try_from(*v).ok().filter(|v| *v <= 9))
            .collect();
        match values.and_then(|v| Initiative::new(&v)) {
            Some(init) => {
                tile.initiative = init;
                changed.push(("initiative", i.span()));
            }
            None => problems.push(src.error(
                i.span(),
                "`initiative` takes up to four values from 0 to 9, e.g. [3, 2]",
            )),
        }
    }
    if let Some(e) = &c.edges {
        let mut edges = [EdgeIcons::default(); 6];
        let mut ok = true;
        for text in e.get_ref() {
            if let Err(err) = apply_feature(&mut edges, text) {
                problems.push(src.error(e.span(), format!("`{text}`: {}", err.message)));
                ok = false;
            }
        }
        if ok {
            tile.edges = edges;
            changed.push(("edges", e.span()));
        }
    }
}
