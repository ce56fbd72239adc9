//! Army files (docs/ARMY_FORMAT.md): the raw `*Def` structures and their validation into
//! engine [`Tile`]s. Validation reports every problem of a file at once.

use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml_every};
use crate::edges::apply_feature;
use crate::value::param;
use hexforge_core::hex::{Dir, Edge, Hex};
use hexforge_core::link::LinkLoss;
use hexforge_core::marker::MarkerName;
use hexforge_core::tile::{
    AbilityRef, Assembly, EdgeIcons, Effects, Initiative, Part, Tile, TileKind,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

/// The default number of tiles in an army (R1.1).
pub const DEFAULT_ARMY_SIZE: i64 = 35;

/// An army file as parsed, before validation: its `[army]` and `[[tile]]` tables, located.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ArmyFileDef {
    /// The `[army]` table, with its position for messages about the whole army.
    pub army: Spanned<ArmyHeaderDef>,
    /// The `[[tile]]` tables in file order, each with its position.
    #[serde(default)]
    pub tile: Vec<Spanned<TileRawDef>>,
}

/// The raw `[army]` table of an army file.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ArmyHeaderDef {
    /// The army's snake_case id, unique among loaded armies; the first half of `army/tile` ids.
    pub id: Spanned<String>,
    /// The army's name as players see it (`Moloch`); files refer to the id.
    pub name: String,
    /// Display names in other languages, keyed by language code (`fr`, `pl`).
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// The number of tiles the deck must hold; omitted means [`DEFAULT_ARMY_SIZE`].
    pub size: Option<Spanned<i64>>,
    /// The army's units attack and net allied units too (R8.5.7).
    #[serde(default)]
    pub attacks_allies: bool,
}

/// The raw `[[tile]]` table of an army file, as written.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct TileRawDef {
    /// The tile's snake_case id, unique within its army.
    pub id: Spanned<String>,
    /// The tile's name as printed (`Gauss Cannon`); files refer to the id.
    pub name: String,
    /// Display names in other languages, keyed by language code.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
    /// `hq`, `soldier`, `module` or `instant`, checked during validation.
    pub kind: Spanned<String>,
    /// Copies of the tile in the deck (at least 1).
    pub count: Spanned<i64>,
    /// Printed initiative values, 0-9 without repeats; omitted or empty for none.
    pub initiative: Option<Spanned<Vec<Spanned<i64>>>>,
    /// Toughness icons: the tile takes `1 + toughness` wounds; not allowed on an HQ.
    pub toughness: Option<Spanned<i64>>,
    /// The Mobility icon: the unit may move by itself.
    #[serde(default)]
    pub mobile: bool,
    /// Edge features, each written `feature[:strength]@edge,edge,...` (docs/ARMY_FORMAT.md).
    #[serde(default)]
    pub edges: Vec<Spanned<String>>,
    /// The `[tile.module]` effects on connected units; only on modules.
    pub module: Option<Spanned<EffectsDef>>,
    /// The `[tile.aura]` effects on adjacent friendly units; only on HQs.
    pub aura: Option<Spanned<EffectsDef>>,
    /// The `[[tile.ability]]` tables, in file order.
    #[serde(default)]
    pub ability: Vec<Spanned<AbilityDef>>,
    /// `[tile.linked]`: the tiles placed with this one as one linked unit.
    pub linked: Option<Spanned<LinkedDef>>,
}

/// The raw `[tile.linked]` table: a unit on several hexes whose lead is this tile.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct LinkedDef {
    /// The unit's kind, written like a marker name (`wagon`).
    pub kind: Spanned<String>,
    /// The other tiles, 1 to 6, each with where it goes.
    pub parts: Spanned<Vec<Spanned<PartDef>>>,
    /// `whole` (the default) or `segment`.
    pub loss: Option<Spanned<String>>,
    /// Whether nets and modules reaching one tile reach all; `true` for `whole` by default.
    pub shared: Option<Spanned<bool>>,
}

/// One part of a `[tile.linked]` table: `{ tile = "wagon_rear", at = [3] }`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PartDef {
    /// The part's tile id in the same army.
    pub tile: Spanned<String>,
    /// The steps from the lead's hex, each an edge of the lead (0 front, clockwise).
    pub at: Spanned<Vec<Spanned<i64>>>,
}

/// The raw effect keys of a `[tile.module]` or `[tile.aura]` table.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct EffectsDef {
    /// Added to the melee strength of each friendly unit reached.
    pub melee: Option<Spanned<i64>>,
    /// Added to the ranged strength of each friendly unit reached.
    pub ranged: Option<Spanned<i64>>,
    /// Added to every initiative value of each friendly unit reached.
    pub initiative: Option<Spanned<i64>>,
    /// Added to every initiative value of each connected enemy unit (the Saboteur's -1).
    pub enemy_initiative: Option<Spanned<i64>>,
    /// The Medic effect: absorbs one attack's wounds for a connected friendly unit (R4.8).
    #[serde(default)]
    pub medic: bool,
}

/// The raw `[[tile.ability]]` table: which ability, with which parameters.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct AbilityDef {
    /// The ability's name; a script of the mod or of the shared library must define it.
    pub hook: Spanned<String>,
    /// Parameters passed to the ability, by name, each with its position.
    #[serde(default)]
    pub params: BTreeMap<String, Spanned<toml::Value>>,
}

/// Where a tile binds an ability hook (`[[tile.ability]] hook = ...`), so that the layer that
/// resolves hooks can report an unknown one at its line.
#[derive(Clone, Debug, PartialEq)]
pub struct HookSite {
    /// The tile's id within the army.
    pub tile: String,
    /// The ability's name as the file writes it.
    pub hook: String,
    /// The position of the hook name (the message is empty).
    pub at: Diagnostic,
}

/// An army file that passed validation: its engine tiles, and where each thing is written.
#[derive(Clone, Debug, PartialEq)]
pub struct ArmyFile {
    /// The army's snake_case id.
    pub id: String,
    /// The army's name as players see it; files refer to the id.
    pub name: String,
    /// Display names in other languages, keyed by language code.
    pub names: BTreeMap<String, String>,
    /// The number of tiles the deck must hold.
    pub size: u16,
    /// The validated tiles in file order, HQ included.
    pub tiles: Vec<Tile>,
    /// Names of each tile in other languages, parallel to `tiles`.
    pub tile_names: Vec<BTreeMap<String, String>>,
    /// Every ability binding of the file, in file order.
    pub hook_sites: Vec<HookSite>,
    /// Where each tile is defined (its `id`; the message is empty), parallel to `tiles`.
    pub tile_sites: Vec<Diagnostic>,
    /// Where the army's id is (the message is empty).
    pub at: Diagnostic,
    /// What is wrong with the parts its `[tile.linked]` tables name, each at the part (a tile
    /// not in the army, one that cannot be a part), for an army read open: a patch may still add
    /// the part, so its mod reports these only for an army no patch of its own completes.
    pub part_problems: Vec<Diagnostic>,
}

/// Reads and validates one army file.
pub fn load_army(path: &Path) -> Result<ArmyFile, Diagnostics> {
    parse_army(&SourceText::read(path, "army file")?)
}

/// Parses then validates an army file's text.
pub fn parse_army(src: &SourceText) -> Result<ArmyFile, Diagnostics> {
    let def: ArmyFileDef = parse_toml_every(src)?;
    validate_army(src, def)
}

/// Reads and validates one army file, all but its size: an army that patches complete (docs/
/// MODDING.md) is checked once they have applied ([`ArmyFile::size_problem`]).
pub fn load_army_open(path: &Path) -> Result<ArmyFile, Diagnostics> {
    parse_army_open(&SourceText::read(path, "army file")?)
}

/// [`load_army_open`] for a file's text: parsed and validated, all but its size.
pub fn parse_army_open(src: &SourceText) -> Result<ArmyFile, Diagnostics> {
    let def: ArmyFileDef = parse_toml_every(src)?;
    validate(src, def, false)
}

/// The one validation pass: every problem of the file, in file order.
pub fn validate_army(src: &SourceText, def: ArmyFileDef) -> Result<ArmyFile, Diagnostics> {
    validate(src, def, true)
}

impl ArmyFile {
    /// The tile counts against the army's size (R1.1), located at the army's id.
    pub fn size_problem(&self) -> Option<Diagnostic> {
        let counts = self.tiles.iter().map(|t| t.count);
        hexforge_core::tile::deck_mismatch(counts, self.size).map(|total| Diagnostic {
            message: format!(
                "the tile counts add up to {total}, but the army must have {} tiles (R1.1): fix the counts or set `size`",
                self.size
            ),
            ..self.at.clone()
        })
    }
}

fn validate(src: &SourceText, def: ArmyFileDef, check_size: bool) -> Result<ArmyFile, Diagnostics> {
    let mut v = Validator {
        src,
        errors: Vec::new(),
    };
    let header = def.army.into_inner();
    v.snake_case(&header.id, "army id");
    if let Some(message) = crate::diagnostic::one_line_problem("the army's `name`", &header.name) {
        v.at(&header.id, message);
    }
    let size = match &header.size {
        Some(s) => v.range(s, 1, 999, "army size").unwrap_or(DEFAULT_ARMY_SIZE),
        None => DEFAULT_ARMY_SIZE,
    };
    let mut tiles = Vec::new();
    let mut tile_names = Vec::new();
    let mut seen: BTreeMap<String, std::ops::Range<usize>> = BTreeMap::new();
    let mut total = 0i64;
    let mut hqs = Vec::new();
    let mut hook_sites = Vec::new();
    let mut tile_sites = Vec::new();
    for t in &def.tile {
        let raw = t.get_ref();
        for a in &raw.ability {
            let hook = &a.get_ref().hook;
            hook_sites.push(HookSite {
                tile: raw.id.get_ref().clone(),
                hook: hook.get_ref().clone(),
                at: src.error(hook.span(), ""),
            });
        }
        if let Some(first) = seen.get(raw.id.get_ref()) {
            let (line, _) = src.line_col(first.start);
            v.at(&raw.id, format!("tile id `{}` is already used on line {line}: tile ids must be unique in an army", raw.id.get_ref()));
        }
        seen.insert(raw.id.get_ref().clone(), raw.id.span());
        if let Some(mut tile) = v.tile(header.id.get_ref(), raw) {
            tile.attacks_allies = header.attacks_allies;
            total += tile.count as i64;
            if tile.kind == TileKind::Hq {
                hqs.push(t.span());
            }
            tiles.push(tile);
            tile_names.push(raw.names.clone());
            tile_sites.push(src.error(raw.id.span(), ""));
        }
    }
    let mut parts = Validator {
        src,
        errors: Vec::new(),
    };
    check_parts(&mut parts, &def.tile, &tiles);
    let part_problems = if check_size {
        v.errors.append(&mut parts.errors);
        Vec::new()
    } else {
        parts.errors
    };
    let army_span = header.id.span();
    let army_span_for_site = army_span.clone();
    if def.tile.is_empty() {
        v.errors.push(src.error(
            army_span.clone(),
            "the army has no tiles: add `[[tile]]` tables",
        ));
    } else if hqs.is_empty() {
        v.errors.push(src.error(
            army_span.clone(),
            "the army has no HQ: exactly one tile must have `kind = \"hq\"`",
        ));
    } else if hqs.len() > 1 {
        v.errors.push(src.error(
            hqs[1].clone(),
            "a second HQ: an army has exactly one tile of kind `hq` (R1.1)",
        ));
    } else if hqs.len() == 1 && tiles.iter().any(|t| t.is_hq() && t.count != 1) {
        v.errors
            .push(src.error(hqs[0].clone(), "the HQ's count must be 1 (R1.1)"));
    }
    if check_size && !def.tile.is_empty() && total != size && v.errors.is_empty() {
        v.errors.push(src.error(
            army_span,
            format!("the tile counts add up to {total}, but the army must have {size} tiles (R1.1): fix the counts or set `size`"),
        ));
    }
    if !v.errors.is_empty() {
        v.errors.sort_by_key(|d| (d.line, d.column));
        return Err(Diagnostics(v.errors));
    }
    Ok(ArmyFile {
        id: header.id.into_inner(),
        name: header.name,
        names: header.names,
        size: size as u16,
        tiles,
        tile_names,
        hook_sites,
        tile_sites,
        at: src.error(army_span_for_site, ""),
        part_problems,
    })
}

/// Validates one tile table of `src` (an army file's, or a patch's) for the army `army`.
pub(crate) fn validate_tile(
    src: &SourceText,
    army: &str,
    raw: &TileRawDef,
) -> Result<Tile, Vec<Diagnostic>> {
    let mut v = Validator {
        src,
        errors: Vec::new(),
    };
    match v.tile(army, raw) {
        Some(t) if v.errors.is_empty() => Ok(t),
        _ => Err(v.errors),
    }
}

/// Every part a `[tile.linked]` names is a soldier or module of the army with no
/// `[tile.linked]` of its own, reported at the part's `tile`. (An army that patches complete is
/// checked when the catalog is built.)
fn check_parts(v: &mut Validator<'_>, raw: &[Spanned<TileRawDef>], tiles: &[Tile]) {
    for t in raw {
        let Some(l) = &t.get_ref().linked else {
            continue;
        };
        for p in l.get_ref().parts.get_ref() {
            let id = p.get_ref().tile.get_ref();
            let msg = match tiles.iter().find(|x| x.id == *id) {
                // A tile that failed its own checks is reported there.
                None if raw.iter().any(|r| r.get_ref().id.get_ref() == id) => continue,
                None => format!(
                    "no tile `{id}` in this army{}: a part is a tile of the lead's army, usually with `count = 0`",
                    hexforge_core::names::did_you_mean(id, tiles.iter().map(|x| x.id.as_str()))
                ),
                Some(x) if !matches!(x.kind, TileKind::Soldier | TileKind::Module) => {
                    format!(
                        "`{id}` is {}: a part is a soldier or a module",
                        a_kind(x.kind)
                    )
                }
                Some(x) if x.linked.is_some() => format!(
                    "`{id}` leads a linked unit of its own (`[tile.linked]`): a part cannot"
                ),
                Some(_) => continue,
            };
            v.at(&p.get_ref().tile, msg);
        }
    }
}

/// Whether `hexes` are connected through their shared sides.
fn in_one_piece(hexes: &[Hex]) -> bool {
    let mut reached = vec![false; hexes.len()];
    let mut todo = vec![0];
    reached[0] = true;
    while let Some(i) = todo.pop() {
        for (j, h) in hexes.iter().enumerate() {
            if !reached[j] && h.distance(hexes[i]) == 1 {
                reached[j] = true;
                todo.push(j);
            }
        }
    }
    reached.iter().all(|r| *r)
}

/// A tile kind with its article, as messages name it ("an instant", "a soldier").
fn a_kind(kind: TileKind) -> String {
    match kind {
        TileKind::Hq => "an HQ".to_string(),
        TileKind::Instant => "an instant".to_string(),
        other => format!("a {other}"),
    }
}

struct Validator<'a> {
    src: &'a SourceText,
    errors: Vec<Diagnostic>,
}

impl Validator<'_> {
    fn at<T>(&mut self, s: &Spanned<T>, msg: impl Into<String>) {
        self.errors.push(self.src.error(s.span(), msg));
    }

    fn snake_case(&mut self, s: &Spanned<String>, what: &str) {
        let id = s.get_ref();
        if !crate::scaffold::valid_id(id) {
            let shown: String = id.chars().take(crate::scaffold::MAX_ID_LEN).collect();
            self.at(s, format!("{what} `{shown}` must be snake_case: lowercase letters, digits and `_`, starting with a letter, at most {} characters", crate::scaffold::MAX_ID_LEN));
        }
    }

    fn range(&mut self, s: &Spanned<i64>, lo: i64, hi: i64, what: &str) -> Option<i64> {
        let v = *s.get_ref();
        if (lo..=hi).contains(&v) {
            Some(v)
        } else {
            self.at(s, format!("{what} {v} is out of range: use {lo} to {hi}"));
            None
        }
    }

    fn tile(&mut self, army: &str, raw: &TileRawDef) -> Option<Tile> {
        let before = self.errors.len();
        self.snake_case(&raw.id, "tile id");
        if let Some(message) = crate::diagnostic::one_line_problem("the tile's `name`", &raw.name) {
            self.at(&raw.id, message);
        }
        let kind = match raw.kind.get_ref().as_str() {
            "hq" => TileKind::Hq,
            "soldier" => TileKind::Soldier,
            "module" => TileKind::Module,
            "instant" => TileKind::Instant,
            other => {
                self.at(
                    &raw.kind,
                    format!(
                        "unknown kind `{other}`{}: use hq, soldier, module or instant",
                        hexforge_core::names::did_you_mean(
                            other,
                            ["hq", "soldier", "module", "instant"]
                        )
                    ),
                );
                return None;
            }
        };
        let mut tile = Tile::new(army, raw.id.get_ref(), kind);
        tile.name = raw.name.clone();
        tile.count = self.range(&raw.count, 0, 255, "count").unwrap_or(1) as u8;
        if tile.count == 0 && !matches!(kind, TileKind::Soldier | TileKind::Module) {
            self.at(
                &raw.count,
                "count 0 keeps a soldier or module out of the draw pile, for a game rule to hand out (`fx:grant`, docs/RULESETS.md): an HQ or an instant needs a count of 1 or more",
            );
        }
        tile.mobile = raw.mobile;
        let board = kind.is_board_tile();
        if let Some(init) = &raw.initiative {
            let mut values = Vec::new();
            for i in init.get_ref() {
                if let Some(x) = self.range(i, 0, 9, "initiative") {
                    if values.contains(&(x as u8)) {
                        self.at(i, format!("initiative {x} is listed twice"));
                    }
                    values.push(x as u8);
                }
            }
            match Initiative::new(&values) {
                Some(i) => tile.initiative = i,
                None => self.at(init, "at most four initiative values"),
            }
            if !board && !values.is_empty() {
                self.at(init, "an instant has no initiative");
            }
            if kind == TileKind::Module && !values.is_empty() {
                self.at(
                    init,
                    "a module has no initiative: modules work continuously (R3.7.3)",
                );
            }
        }
        if kind == TileKind::Hq && tile.initiative.values() != [0] {
            let msg = "an HQ has initiative 0 (R3.5.4): write `initiative = [0]`";
            match &raw.initiative {
                Some(i) => self.at(i, msg),
                None => self.at(&raw.kind, msg),
            }
        }
        if let Some(t) = &raw.toughness {
            if kind == TileKind::Hq {
                self.at(
                    t,
                    "an HQ has no toughness: its hit points come from the rules (`hq_hp`)",
                );
            } else if !board {
                self.at(t, "an instant has no toughness");
            } else {
                tile.toughness = self.range(t, 0, 9, "toughness").unwrap_or(0) as u8;
            }
        }
        if raw.mobile && !board {
            self.at(&raw.kind, "an instant cannot be mobile");
        }
        for e in &raw.edges {
            if let Err(err) = apply_feature(&mut tile.edges, e.get_ref()) {
                let span = e.span();
                let start = (span.start + 1 + err.offset).min(span.end);
                self.errors
                    .push(self.src.error(start..span.end, err.message));
            }
        }
        self.check_edges(&tile, raw);
        if let Some(m) = &raw.module {
            if kind == TileKind::Module {
                tile.module = self.effects(m);
            } else {
                self.at(m, format!("only modules have `[tile.module]` effects; this tile is {} (an HQ uses `[tile.aura]`)", a_kind(kind)));
            }
        }
        if let Some(a) = &raw.aura {
            if kind == TileKind::Hq {
                tile.aura = self.effects(a);
            } else {
                self.at(a, format!("only an HQ has an `[tile.aura]`; this tile is {} (a module uses `[tile.module]`)", a_kind(kind)));
            }
        }
        if kind == TileKind::Instant && raw.ability.is_empty() {
            self.at(
                &raw.kind,
                "an instant needs an ability that says what it does, e.g. `[[tile.ability]] hook = \"snipe\"` (scripts/README.md lists the library's)",
            );
        }
        for a in &raw.ability {
            let hook = a.get_ref().hook.get_ref();
            if hook.trim().is_empty() {
                self.at(&a.get_ref().hook, "the ability's hook name is empty");
            }
            let mut params = BTreeMap::new();
            for (k, val) in &a.get_ref().params {
                match param(val.get_ref()) {
                    Ok(p) => {
                        params.insert(k.clone(), p);
                    }
                    Err(msg) => self.at(val, format!("parameter `{k}`: {msg}")),
                }
            }
            tile.abilities.push(AbilityRef::new(hook, params));
        }
        if let Some(l) = &raw.linked {
            if matches!(kind, TileKind::Soldier | TileKind::Module) {
                tile.linked = self.assembly(l).map(Box::new);
            } else {
                self.at(
                    l,
                    format!("only a soldier or a module leads a linked unit; this tile is {}: remove `[tile.linked]`", a_kind(kind)),
                );
            }
        }
        (self.errors.len() == before).then_some(tile)
    }

    /// A `[tile.linked]` table: its kind, loss, sharing and parts, the parts' hexes distinct,
    /// not the lead's, and the unit in one piece.
    fn assembly(&mut self, def: &Spanned<LinkedDef>) -> Option<Assembly> {
        let before = self.errors.len();
        let d = def.get_ref();
        let kind = MarkerName::new(d.kind.get_ref())
            .map_err(|e| self.at(&d.kind, format!("the linked unit's kind: {e}")))
            .ok();
        let loss = match &d.loss {
            None => LinkLoss::Whole,
            Some(l) => LinkLoss::parse(l.get_ref()).unwrap_or_else(|| {
                self.at(l, format!("loss `{}`: use \"whole\" (its tiles leave together, R9.3.2) or \"segment\" (a destroyed tile leaves its segment empty, R10.6.7)", l.get_ref()));
                LinkLoss::Whole
            }),
        };
        let shared = d
            .shared
            .as_ref()
            .map_or(loss == LinkLoss::Whole, |s| *s.get_ref());
        let list = d.parts.get_ref();
        if list.is_empty() || list.len() > 6 {
            self.at(
                &d.parts,
                format!(
                    "a linked unit has 1 to 6 parts besides its lead (2 to 7 hexes), not {}",
                    list.len()
                ),
            );
        }
        let mut parts = Vec::new();
        let mut hexes = vec![Hex::new(0, 0)];
        for p in list {
            let p = p.get_ref();
            self.snake_case(&p.tile, "part tile id");
            let steps_def = p.at.get_ref();
            if steps_def.is_empty() || steps_def.len() > 6 {
                self.at(&p.at, "`at` lists 1 to 6 steps from the lead's hex, each an edge of the lead: 0 front, 1 front-right, ... 5 front-left, e.g. [3] for the hex behind it");
                continue;
            }
            let mut steps = Vec::new();
            for e in steps_def {
                match self.range(e, 0, 5, "edge") {
                    Some(n) => steps.push(Edge::ALL[n as usize]),
                    None => return None,
                }
            }
            let hex = steps
                .iter()
                .fold(Hex::new(0, 0), |h, e| h.step(e.direction(Dir::N)));
            if let Some(i) = hexes.iter().position(|h| *h == hex) {
                let what = if i == 0 {
                    "the lead's own hex".to_string()
                } else {
                    format!("the hex of part {i}")
                };
                self.at(
                    &p.at,
                    format!("these steps lead to {what}: every part needs a hex of its own"),
                );
            }
            hexes.push(hex);
            parts.push(Part {
                tile: p.tile.get_ref().clone(),
                steps,
            });
        }
        if self.errors.len() == before && !in_one_piece(&hexes) {
            self.at(&d.parts, "the lead and its parts are not in one piece: each hex must be next to another of the unit (R9.3.3, R10.6.5)");
        }
        (self.errors.len() == before).then(|| Assembly {
            kind: kind.expect("checked above"),
            loss,
            shared,
            parts,
        })
    }

    fn check_edges(&mut self, tile: &Tile, raw: &TileRawDef) {
        let attacks = tile.edges.iter().any(EdgeIcons::attacks);
        let links = tile.edges.iter().any(|e| e.link);
        let any = tile.edges.iter().any(|e| *e != EdgeIcons::default());
        let Some(first) = raw.edges.first() else {
            return;
        };
        match tile.kind {
            TileKind::Instant if any => self.at(first, "an instant has no edges"),
            TileKind::Module if attacks => self.at(first, "a module never attacks: remove its melee/ranged features"),
            TileKind::Soldier if links => self.at(first, "a soldier has no module links: `link` is for modules"),
            TileKind::Soldier | TileKind::Hq if attacks && tile.initiative.is_empty() => {
                self.at(first, "this tile has attacks but no initiative, so it would never attack: add `initiative`")
            }
            _ => {}
        }
    }

    fn effects(&mut self, def: &Spanned<EffectsDef>) -> Effects {
        let d = def.get_ref();
        let mut n = |s: &Option<Spanned<i64>>, lo: i64, hi: i64, what: &str| {
            s.as_ref()
                .and_then(|s| self.range(s, lo, hi, what))
                .unwrap_or(0)
        };
        let fx = Effects {
            melee: n(&d.melee, -9, 9, "melee") as i8,
            ranged: n(&d.ranged, -9, 9, "ranged") as i8,
            initiative: n(&d.initiative, -9, 9, "initiative") as i8,
            enemy_initiative: n(&d.enemy_initiative, -9, 9, "enemy_initiative") as i8,
            medic: d.medic,
            ..Effects::NONE
        };
        if fx.is_none() && self.errors.is_empty() {
            self.at(
                def,
                "this effects table gives nothing: remove it or add an effect",
            );
        }
        fx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn army(tiles: &str) -> String {
        format!("[army]\nid = \"fan\"\nname = \"Fan\"\nsize = 3\n\n{tiles}")
    }

    const HQ: &str = "[[tile]]\nid = \"hq\"\nname = \"HQ\"\nkind = \"hq\"\ncount = 1\ninitiative = [0]\nedges = [\"melee:1@0,1,2,3,4,5\"]\n[tile.aura]\nmelee = 1\n\n";

    fn check(text: &str) -> Result<ArmyFile, Diagnostics> {
        parse_army(&SourceText::new("fan.toml", text))
    }

    /// An army of an HQ, a lead with `linked` as its `[tile.linked]` body, and a part `tail` of
    /// `tail_kind` (count 0 for a soldier, so that the size is 2).
    fn with_linked(linked: &str, tail_kind: &str) -> String {
        let tail = match tail_kind {
            "instant" => "kind = \"instant\"\ncount = 1\n[[tile.ability]]\nhook = \"snipe\"\n",
            _ => "kind = \"soldier\"\ncount = 0\n",
        };
        let size = if tail_kind == "instant" { 3 } else { 2 };
        format!(
            "[army]\nid = \"fan\"\nname = \"Fan\"\nsize = {size}\n\n{HQ}[[tile]]\nid = \"lead\"\nname = \"Lead\"\nkind = \"soldier\"\ncount = 1\ninitiative = [2]\n\n[tile.linked]\n{linked}\n[[tile]]\nid = \"tail\"\nname = \"Tail\"\n{tail}"
        )
    }

    #[test]
    fn every_value_of_the_wrong_type_is_reported_at_once() {
        // Three values of the wrong type in two tiles: all three, each at its place. What the
        // validation finds (the misspelt kind) follows once the file reads.
        let text = army(&format!(
            "{HQ}[[tile]]\nid = \"a\"\nname = \"A\"\nkind = \"soldier\"\ncount = \"two\"\ninitiative = [1]\n\n[[tile]]\nid = \"b\"\nname = \"B\"\nkind = \"soldir\"\ncount = \"two\"\ntoughness = \"1\"\ninitiative = [1]\n"
        ));
        let e = check(&text).expect_err("refused").to_string();
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(
            lines,
            [
                "fan.toml:20:9: `count` must be a whole number, e.g. 3; found the text \"two\"",
                "fan.toml:27:9: `count` must be a whole number, e.g. 3; found the text \"two\"",
                "fan.toml:28:13: `toughness` must be a whole number, e.g. 3; found the text \"1\"",
            ],
            "{e}"
        );
        let typed = text
            .replace("count = \"two\"", "count = 1")
            .replace("toughness = \"1\"", "toughness = 1");
        let e = check(&typed).expect_err("refused").to_string();
        assert!(
            e.starts_with("fan.toml:26:8: ") && e.contains("soldir"),
            "{e}"
        );
    }

    #[test]
    fn a_declared_linked_unit_loads_with_its_parts_and_defaults() {
        let text = with_linked(
            "kind = \"wagon\"\nparts = [{ tile = \"tail\", at = [3] }]\n",
            "soldier",
        );
        let a = check(&text).expect("valid");
        let l = a.tiles[1].linked.as_ref().expect("declared");
        assert_eq!(l.kind.to_string(), "wagon");
        assert_eq!((l.loss, l.shared), (LinkLoss::Whole, true));
        assert_eq!(l.parts[0].tile, "tail");
        assert_eq!(l.parts[0].steps, vec![Edge::ALL[3]]);
        // Facing NE, the back edge points SW.
        let hexes: Vec<Hex> = l.hexes(Hex::new(0, 0), Dir::new(1)).collect();
        assert_eq!(hexes, vec![Hex::new(-1, 1)]);
    }

    #[test]
    fn every_mistake_in_a_declared_linked_unit_is_reported_at_its_place() {
        let cases = [
            (
                "kind = \"wagon\"\nparts = [{ tile = \"tial\", at = [3] }]\n",
                "soldier",
                "fan.toml:25:19: no tile `tial` in this army (did you mean `tail`?)",
            ),
            (
                "kind = \"wagon\"\nparts = [{ tile = \"tail\", at = [3] }]\n",
                "instant",
                "`tail` is an instant: a part is a soldier or a module",
            ),
            (
                "kind = \"wagon\"\nparts = [{ tile = \"tail\", at = [3, 0] }]\n",
                "soldier",
                "these steps lead to the lead's own hex: every part needs a hex of its own",
            ),
            (
                "kind = \"wagon\"\nparts = [{ tile = \"tail\", at = [3, 3] }]\n",
                "soldier",
                "not in one piece",
            ),
            (
                "kind = \"wagon\"\nparts = [{ tile = \"tail\", at = [6] }]\n",
                "soldier",
                "edge 6 is out of range: use 0 to 5",
            ),
            (
                "kind = \"wagon\"\nloss = \"half\"\nparts = [{ tile = \"tail\", at = [3] }]\n",
                "soldier",
                "loss `half`: use \"whole\"",
            ),
            (
                "kind = \"Wagon\"\nparts = [{ tile = \"tail\", at = [3] }]\n",
                "soldier",
                "the linked unit's kind:",
            ),
            (
                "kind = \"wagon\"\nparts = []\n",
                "soldier",
                "a linked unit has 1 to 6 parts besides its lead (2 to 7 hexes), not 0",
            ),
        ];
        for (linked, tail, expected) in cases {
            let errs = check(&with_linked(linked, tail)).expect_err(expected);
            let shown: Vec<String> = errs.iter().map(|d| d.to_string()).collect();
            assert!(
                shown.iter().any(|m| m.contains(expected)),
                "{expected}: {shown:#?}"
            );
        }
        let hq_leads = army(
            "[[tile]]\nid = \"hq\"\nname = \"HQ\"\nkind = \"hq\"\ncount = 1\ninitiative = [0]\n[tile.linked]\nkind = \"keep\"\nparts = [{ tile = \"hq\", at = [0] }]\n",
        );
        let errs = check(&hq_leads).expect_err("an HQ leads nothing");
        assert!(
            errs.iter().any(|d| d
                .message
                .contains("only a soldier or a module leads a linked unit")),
            "{errs:?}"
        );
    }

    #[test]
    fn a_valid_army_loads() {
        let text = army(&format!(
            "{HQ}[[tile]]\nid = \"gunner\"\nname = \"Gunner\"\nkind = \"soldier\"\ncount = 2\ninitiative = [3, 2]\ntoughness = 1\nedges = [\"ranged:1@0\", \"armor@0\"]\n"
        ));
        let a = check(&text).expect("valid");
        assert_eq!(a.tiles.len(), 2);
        let g = &a.tiles[1];
        assert_eq!(g.initiative.values(), &[3, 2]);
        assert_eq!(g.hit_points(), 2);
        assert!(g.edges[0].armor && g.edges[0].ranged == 1);
    }

    #[test]
    fn every_problem_is_reported_with_its_line_and_column() {
        let text = army(&format!(
            "{HQ}[[tile]]\nid = \"Bad Id\"\nname = \"X\"\nkind = \"soldier\"\ncount = -1\ninitiative = [2]\nedges = [\"melee:5@0\", \"net@9\"]\n"
        ));
        let errs = check(&text).expect_err("invalid");
        let shown: Vec<String> = errs.iter().map(|d| d.to_string()).collect();
        assert_eq!(errs.len(), 4, "{shown:#?}");
        assert!(
            shown[0].starts_with("fan.toml:17:6: tile id `Bad Id` must be snake_case"),
            "{}",
            shown[0]
        );
        assert!(
            shown[1].starts_with("fan.toml:20:9: count -1 is out of range"),
            "{}",
            shown[1]
        );
        assert!(
            shown[2].starts_with("fan.toml:22:17: strength 5 is out of range"),
            "{}",
            shown[2]
        );
        assert!(
            shown[3].starts_with("fan.toml:22:28: edge `9` is not a number from 0 to 5"),
            "{}",
            shown[3]
        );
    }

    #[test]
    fn unknown_keys_are_errors_with_a_position() {
        let text = army(&format!(
            "{HQ}[[tile]]\nid = \"a\"\nname = \"A\"\nkind = \"soldier\"\ncount = 2\ntoughnes = 1\n"
        ));
        let errs = check(&text).expect_err("unknown key");
        let d = &errs.0[0];
        assert_eq!((d.line, d.column), (21, 1), "{d}");
        assert!(
            d.message
                .contains("unknown key `toughnes` in `[[tile]]` (did you mean `toughness`?)"),
            "{d}"
        );
    }

    #[test]
    fn counts_must_add_up_to_the_army_size() {
        let text = army(HQ);
        let errs = check(&text).expect_err("1 of 3 tiles");
        assert!(
            errs.to_string()
                .contains("add up to 1, but the army must have 3 tiles"),
            "{errs}"
        );
    }

    #[test]
    fn kind_rules_are_enforced() {
        let text = army(&format!(
            "{HQ}[[tile]]\nid = \"m\"\nname = \"M\"\nkind = \"module\"\ncount = 2\nedges = [\"melee:1@0\"]\n[tile.aura]\nmelee = 1\n"
        ));
        let errs = check(&text)
            .expect_err("module with attacks and aura")
            .to_string();
        assert!(errs.contains("a module never attacks"), "{errs}");
        assert!(errs.contains("only an HQ has an `[tile.aura]`"), "{errs}");
    }
}
