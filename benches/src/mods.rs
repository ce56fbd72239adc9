//! Synthetic fan mods for the mod-loading bench (`benches/mod_loading.rs`, docs/PERFORMANCE.md):
//! N realistic mod folders written to disk, each with a manifest, one 35-tile army and a Lua
//! script, so that loading them exercises every step a player's mods folder goes through.
//!
//! Mod `i` (`fan_00`, `fan_01`, ...) holds:
//! - `mod.toml`: a semantic version (`1.x.y`), `hexforge = "^0.2"`, `[provides]`, and for most
//!   mods required, optional or incompatible dependencies on earlier mods (or on mods that are
//!   not installed), so the resolver orders a real dependency graph;
//! - `armies/army_NN.toml`: 35 tiles in 16 to 19 definitions: an HQ with an aura, soldiers with
//!   melee, ranged, armor and net edges, toughness, mobility and multi-value initiative, modules
//!   with links and effects (melee, initiative, medic, enemy initiative, a library `gives`
//!   ability), and instants bound to the shared library's `call_battle`, `move_unit`,
//!   `push_back`, `snipe`, `blast_near_hq` and `area_strike`;
//! - `scripts/army_NN.lua`: three abilities of the mod (an `initiative` hook, a `plan_attacks`
//!   hook and a `turn_started` hook that asks for effects through `fx`), bound by some tiles:
//!   `benches/fixtures/fan_mods/army_00.lua` named after the mod's army.
//!
//! The text varies from mod to mod (counts, strengths, edges, parameters, optional tiles), but
//! every army adds up to 35 tiles and every mod loads with no problem (tested below).

use hexforge_core::Catalog;
use hexforge_script::Loaded;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// How many mods the loading bench writes: 50 armies, 1,750 tiles (docs/PERFORMANCE.md).
pub const MODS: usize = 50;

/// Tiles in every generated army (the standard army size).
pub const TILES_PER_ARMY: u32 = 35;

/// The id of the `i`-th generated mod.
pub fn mod_id(i: usize) -> String {
    format!("fan_{i:02}")
}

/// The id of the army of the `i`-th generated mod.
pub fn army_id(i: usize) -> String {
    format!("army_{i:02}")
}

/// The tiles of every army of `catalog`: the sum of the definitions' counts (35 per army).
pub fn tile_count(catalog: &Catalog) -> u32 {
    (0..catalog.len())
        .filter_map(|i| catalog.tile_ref(i))
        .map(|r| u32::from(catalog.get(r).count))
        .sum()
}

/// Checks what [`hexforge_script::load`] made of `n` generated mods: no problem, no mod skipped,
/// every mod's army (35 tiles each) in the catalog and a Lua state per mod.
///
/// # Panics
/// If any of that is not so, with the problems reported.
pub fn check_loaded(loaded: &Loaded, n: usize) {
    let m = &loaded.mods;
    assert!(m.problems.is_empty(), "{}", m.problems);
    assert!(m.skipped.is_empty(), "{:?}", m.skipped);
    assert_eq!(m.mods.len(), n, "mods loaded");
    assert_eq!(m.catalog.armies().len(), n, "armies");
    assert_eq!(
        tile_count(&m.catalog),
        TILES_PER_ARMY * n as u32,
        "tiles in the catalog"
    );
    assert_eq!(loaded.scripts.mods().count(), n, "Lua states");
}

/// Writes `n` mods into `root` (created if needed), one folder per mod, and returns their
/// folders. Mods are numbered from 0; a dependency always names an earlier mod, so any `n`
/// resolves.
///
/// # Errors
/// If a folder or file cannot be written, or the script fixture cannot be read.
pub fn write_mods(root: &Path, n: usize) -> std::io::Result<Vec<PathBuf>> {
    let template = script_template()?;
    let mut dirs = Vec::with_capacity(n);
    for i in 0..n {
        let dir = root.join(mod_id(i));
        std::fs::create_dir_all(dir.join("armies"))?;
        std::fs::create_dir_all(dir.join("scripts"))?;
        std::fs::write(dir.join("mod.toml"), manifest(i))?;
        std::fs::write(
            dir.join("armies").join(format!("{}.toml", army_id(i))),
            army(i),
        )?;
        std::fs::write(
            dir.join("scripts").join(format!("{}.lua", army_id(i))),
            script(&template, i),
        )?;
        dirs.push(dir);
    }
    Ok(dirs)
}

/// A folder of generated mods below the system's temporary folder, removed when dropped.
#[derive(Debug)]
pub struct TempMods {
    /// The folder holding one subfolder per mod: the root to load them from.
    pub root: PathBuf,
    /// How many mods were written.
    pub count: usize,
}

impl TempMods {
    /// Writes `n` mods into a new folder with a unique name below [`std::env::temp_dir`].
    ///
    /// # Panics
    /// If the folder or a file cannot be written.
    pub fn new(n: usize) -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let root = std::env::temp_dir().join(format!(
            "hexforge-bench-mods-{n}-{}-{nanos}",
            std::process::id()
        ));
        write_mods(&root, n).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
        TempMods { root, count: n }
    }
}

impl Drop for TempMods {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn manifest(i: usize) -> String {
    let id = mod_id(i);
    let mut s = format!(
        r#"# A generated fan mod for the loading benchmark (benches/src/mods.rs).
id = "{id}"
name = "Fan Army {i}"
version = "1.{minor}.{patch}"
description = "Army {i}: soldiers, modules, instants and three Lua abilities."
authors = ["Bench Author {author}"]
hexforge = "^0.2"
"#,
        minor = i % 5,
        patch = i % 3,
        author = i % 7,
    );
    // Dependencies on earlier mods, in four patterns; every one is satisfiable.
    let mut required = Vec::new();
    let mut optional = Vec::new();
    let mut incompatible = Vec::new();
    match i % 4 {
        1 => required.push((mod_id(i - 1), "^1".to_string())),
        2 => {
            required.push((mod_id(i / 2), ">=1.0, <2".to_string()));
            optional.push((mod_id(i - 1), "^1.0".to_string()));
        }
        3 => {
            optional.push(("missing_pack".to_string(), "^2".to_string()));
            incompatible.push(("legacy_pack".to_string(), "<1".to_string()));
            if i >= 7 {
                required.push((mod_id(i - 7), format!("~1.{}", (i - 7) % 5)));
            }
        }
        _ => {
            if i >= 8 {
                optional.push((mod_id(i - 8), "*".to_string()));
            }
        }
    }
    for (table, deps) in [
        ("dependencies", &required),
        ("optional_dependencies", &optional),
        ("incompatible", &incompatible),
    ] {
        if deps.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\n[{table}]");
        for (dep, req) in deps {
            let _ = writeln!(s, "{dep} = \"{req}\"");
        }
    }
    let _ = write!(
        s,
        "\n[provides]\narmies = [\"{}\"]\nscripts = true\n",
        army_id(i)
    );
    s
}

/// One `[[tile]]` of a generated army.
struct TileSpec {
    id: &'static str,
    name: &'static str,
    kind: &'static str,
    count: u32,
    initiative: &'static str,
    toughness: u32,
    mobile: bool,
    edges: Vec<String>,
    /// `[tile.module]` or `[tile.aura]` lines.
    effects: Option<(&'static str, String)>,
    /// `hook`, `params` (a TOML inline table, or empty).
    ability: Option<(String, String)>,
    comment: &'static str,
}

impl TileSpec {
    fn new(id: &'static str, name: &'static str, kind: &'static str, count: u32) -> Self {
        TileSpec {
            id,
            name,
            kind,
            count,
            initiative: "",
            toughness: 0,
            mobile: false,
            edges: Vec::new(),
            effects: None,
            ability: None,
            comment: "",
        }
    }

    fn initiative(mut self, v: &'static str) -> Self {
        self.initiative = v;
        self
    }

    fn toughness(mut self, t: u32) -> Self {
        self.toughness = t;
        self
    }

    fn edges(mut self, edges: &[&str]) -> Self {
        self.edges = edges.iter().map(|e| (*e).to_string()).collect();
        self
    }

    fn effects(mut self, table: &'static str, lines: String) -> Self {
        self.effects = Some((table, lines));
        self
    }

    fn ability(mut self, hook: impl Into<String>, params: impl Into<String>) -> Self {
        self.ability = Some((hook.into(), params.into()));
        self
    }

    fn comment(mut self, c: &'static str) -> Self {
        self.comment = c;
        self
    }

    fn write(&self, s: &mut String) {
        let _ = write!(
            s,
            "\n[[tile]]\nid = \"{}\"\nname = \"{}\"\nkind = \"{}\"\ncount = {}\n",
            self.id, self.name, self.kind, self.count
        );
        if !self.initiative.is_empty() {
            let _ = writeln!(s, "initiative = [{}]", self.initiative);
        }
        if self.toughness > 0 {
            let _ = writeln!(s, "toughness = {}", self.toughness);
        }
        if self.mobile {
            s.push_str("mobile = true\n");
        }
        if !self.edges.is_empty() {
            let edges: Vec<String> = self.edges.iter().map(|e| format!("\"{e}\"")).collect();
            let _ = writeln!(s, "edges = [{}]", edges.join(", "));
        }
        if let Some((table, lines)) = &self.effects {
            let _ = write!(s, "\n[tile.{table}]\n{lines}");
        }
        if let Some((hook, params)) = &self.ability {
            if !self.comment.is_empty() {
                let _ = write!(s, "\n# {}", self.comment);
            }
            let _ = write!(s, "\n[[tile.ability]]\nhook = \"{hook}\"\n");
            if !params.is_empty() {
                let _ = writeln!(s, "params = {params}");
            }
        }
    }
}

fn army(i: usize) -> String {
    let army = army_id(i);
    let aura = match i % 3 {
        0 => "melee = 1\n",
        1 => "ranged = 1\n",
        _ => "initiative = 1\n",
    };
    let mut hq = TileSpec::new("hq", "HQ", "hq", 1)
        .initiative("0")
        .edges(&["melee:1@0,1,2,3,4,5"])
        .effects("aura", aura.to_string());
    if i % 2 == 0 {
        hq = hq
            .ability(format!("{army}_muster"), "{ wounds = 1 }")
            .comment(
                "At the start of each of its owner's turns, adjacent friendly units lose a wound.",
            );
    }
    let strong = if i % 3 == 0 { "2" } else { "1" };
    let mut tiles = vec![
        hq,
        TileSpec::new("trooper", "Trooper", "soldier", 0)
            .initiative(if i % 2 == 0 { "3" } else { "2" })
            .edges(&["melee:1@0,1,5"]),
        TileSpec::new("gunner", "Gunner", "soldier", 3 + (i % 3) as u32)
            .initiative("2")
            .edges(&[&format!("ranged:{strong}@0")]),
        TileSpec::new("brute", "Brute", "soldier", 2)
            .initiative("2, 1")
            .toughness(1)
            .edges(&["melee:2@0", "melee:1@1,5"])
            .ability(format!("{army}_fury"), format!("{{ max = {} }}", 1 + i % 3))
            .comment("+1 initiative for each adjacent enemy, up to `max`."),
        TileSpec::new("guard", "Guard", "soldier", 1)
            .initiative("1")
            .toughness(2)
            .edges(&["melee:1@0", "armor@0,1,5"]),
        TileSpec::new("netter", "Netter", "soldier", 1)
            .initiative("1")
            .toughness(1)
            .edges(&["net@0", "melee:1@0"]),
        TileSpec::new("marksman", "Marksman", "soldier", 1)
            .initiative("3")
            .edges(&["ranged:1@0"])
            .ability(format!("{army}_focus"), "")
            .comment("Its shot hits the most wounded enemy on its line."),
        TileSpec::new("runner", "Runner", "soldier", 1)
            .initiative("4")
            .edges(&["melee:1@0,1"]),
        TileSpec::new("officer", "Officer", "module", 1)
            .edges(&["link@0,1,5"])
            .effects("module", "melee = 1\n".to_string()),
        TileSpec::new("scout", "Scout", "module", 1)
            .edges(&["link@0,1,2,3,4,5"])
            .effects("module", "initiative = 1\n".to_string()),
        TileSpec::new("medic", "Medic", "module", 1)
            .toughness(if i % 4 == 0 { 1 } else { 0 })
            .edges(&["link@0,1,5"])
            .effects("module", "medic = true\n".to_string()),
        TileSpec::new("battle", "Battle", "instant", 5 + (i % 2) as u32).ability("call_battle", ""),
        TileSpec::new("move", "Move", "instant", 3).ability("move_unit", ""),
        TileSpec::new("sniper", "Sniper", "instant", 1)
            .ability("snipe", format!("{{ wounds = {} }}", 1 + i % 2)),
    ];
    tiles[7].mobile = true;
    // Optional tiles, so the armies differ in shape.
    if i % 2 == 0 {
        tiles.push(
            TileSpec::new("lancer", "Lancer", "soldier", 1)
                .initiative("1")
                .toughness(1)
                .edges(&["ranged:1@0"])
                .ability("line_shot", "")
                .comment("Its shot hits every enemy on the line (shared library)."),
        );
    }
    if i % 3 != 1 {
        tiles.push(
            TileSpec::new("saboteur", "Saboteur", "module", 1)
                .edges(&["link@0"])
                .effects("module", "enemy_initiative = -1\n".to_string()),
        );
    }
    if i % 3 != 2 {
        tiles.push(
            TileSpec::new("mother", "Mother Module", "module", 1)
                .edges(&["link@0,1,5"])
                .ability("extra_attack", "{ slots = 1 }"),
        );
    }
    if i % 4 != 3 {
        tiles.push(TileSpec::new("push", "Push", "instant", 1).ability("push_back", ""));
    }
    if i % 5 != 4 {
        tiles.push(TileSpec::new("grenade", "Grenade", "instant", 1).ability("blast_near_hq", ""));
    }
    if i % 2 == 1 {
        tiles.push(
            TileSpec::new("strike", "Air Strike", "instant", 1)
                .ability("area_strike", "{ wounds = 1, radius = 1 }"),
        );
    }
    // The Troopers fill the army up to 35.
    let others: u32 = tiles.iter().map(|t| t.count).sum();
    tiles[1].count = TILES_PER_ARMY - others;
    let mut s = format!(
        "# Army {i} of the loading benchmark: {TILES_PER_ARMY} tiles (docs/ARMY_FORMAT.md).\n\n[army]\nid = \"{army}\"\nname = \"Fan Army {i}\"\nnames = {{ fr = \"Armée {i}\", pl = \"Armia {i}\" }}\n"
    );
    for t in &tiles {
        t.write(&mut s);
    }
    s
}

/// The script of army 0 (`benches/fixtures/fan_mods/army_00.lua`), which every generated mod
/// holds with its own army's id and default `max`.
const SCRIPT: &str = "fixtures/fan_mods/army_00.lua";

/// The line of [`SCRIPT`] that sets the default of `max`.
const DEFAULT_MAX: &str = "local default_max = 1\n";

/// The script of army 0, read from the benches' fixtures.
fn script_template() -> std::io::Result<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCRIPT);
    let text = std::fs::read_to_string(&path)?;
    if text.contains(DEFAULT_MAX) && text.contains(&army_id(0)) {
        Ok(text)
    } else {
        Err(std::io::Error::other(format!(
            "{}: the script of {} should set `{}`",
            path.display(),
            army_id(0),
            DEFAULT_MAX.trim_end()
        )))
    }
}

/// The script of mod `i`: `template` ([`script_template`]) with the abilities named after its army
/// and its own default `max`.
fn script(template: &str, i: usize) -> String {
    template
        .replace(DEFAULT_MAX, &format!("local default_max = {}\n", 1 + i % 3))
        .replace(&army_id(0), &army_id(i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_script::{Limits, load};

    /// The bench's input: 50 generated mods load with no problem, in an order that puts every
    /// mod after its dependencies, with 1,750 tiles and a Lua state per mod.
    #[test]
    fn fifty_generated_mods_load_with_no_problem() {
        let mods = TempMods::new(MODS);
        let loaded = load(std::slice::from_ref(&mods.root), Limits::default());
        check_loaded(&loaded, MODS);
        let m = &loaded.mods;
        assert_eq!(tile_count(&m.catalog), 1_750);
        // Dependencies load first.
        let order: Vec<&str> = m.mods.iter().map(|x| x.id.as_str()).collect();
        let mut deps = 0;
        for (pos, x) in m.mods.iter().enumerate() {
            for d in &x.manifest.dependencies {
                if let Some(at) = order.iter().position(|id| *id == d.id) {
                    assert!(at < pos, "{} loads before its dependency {}", x.id, d.id);
                    deps += 1;
                }
            }
        }
        assert_eq!(
            deps, 59,
            "required and optional dependencies between the mods"
        );
        // The mods' own hooks and the library's abilities are bound.
        let a = army_id(0);
        let tile = |t: &str| {
            let r = m
                .catalog
                .find(&format!("{a}/{t}"))
                .unwrap_or_else(|| panic!("no tile {a}/{t}"));
            m.catalog.get(r)
        };
        for t in ["hq", "brute", "marksman", "lancer"] {
            let def = tile(t);
            assert!(!def.abilities.is_empty(), "{t}");
            for x in &def.abilities {
                assert!(x.merged && !x.points.is_empty(), "{t}: {x:?}");
            }
        }
        for t in ["battle", "move", "sniper", "push", "grenade"] {
            assert!(tile(t).instant.is_some(), "{t} plays an effect");
        }
        assert!(tile("mother").abilities.iter().all(|x| x.merged));
    }

    #[test]
    fn every_army_has_35_tiles_and_fewer_mods_load_too() {
        for n in [1, 10] {
            let mods = TempMods::new(n);
            let loaded = load(std::slice::from_ref(&mods.root), Limits::default());
            check_loaded(&loaded, n);
            for army in loaded.mods.catalog.armies() {
                assert_eq!(army.size, 35);
            }
        }
    }
}
