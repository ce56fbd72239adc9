//! `hexforge mods`: the mods found and their state, a full check of one mod folder, and a new
//! mod made from a template that passes the check and plays.

use anyhow::{Context as _, Result, bail};
use hexforge_content::LoadedMods;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `hexforge mods list`: every mod found, loaded ones in load order, then the skipped ones.
pub fn list(out: &mut impl Write, loaded: &LoadedMods) -> Result<ExitCode> {
    writeln!(out, "{:<16} {:<9} {:<8} armies", "mod", "version", "state")?;
    for m in &loaded.mods {
        let armies: Vec<&str> = m.armies.iter().map(|a| a.id.as_str()).collect();
        writeln!(
            out,
            "{:<16} {:<9} {:<8} {}",
            m.id,
            m.manifest.version.to_string(),
            "loaded",
            armies.join(", ")
        )?;
    }
    for s in &loaded.skipped {
        let version = s
            .version
            .as_ref()
            .map_or("?".to_string(), |v| v.to_string());
        writeln!(out, "{:<16} {:<9} {:<8} -", s.id, version, "skipped")?;
        writeln!(out, "    {}", s.reason)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `hexforge mods explain army/tile`: the tile's history, definition first, then every patch in
/// load order, and the conflicts among them.
pub fn explain(out: &mut impl Write, loaded: &LoadedMods, tile: &str) -> Result<ExitCode> {
    let steps: Vec<_> = loaded.history.of(tile).collect();
    if steps.is_empty() {
        bail!("no tile `{tile}` was ever loaded: write `army/tile`, e.g. `moloch/juggernaut`");
    }
    writeln!(out, "{tile}")?;
    for c in &steps {
        let what = match c.field.as_str() {
            "defined" | "added" | "copied" | "removed" => c.field.clone(),
            f => format!("changes `{f}`"),
        };
        writeln!(
            out,
            "  {:<16} {what} ({}:{})",
            c.mod_id,
            c.at.file.display(),
            c.at.line
        )?;
    }
    for d in loaded
        .history
        .conflicts
        .iter()
        .filter(|d| d.message.contains(&format!("`{tile}`")))
    {
        writeln!(out, "  conflict: {d}")?;
    }
    if let Some(r) = loaded.catalog.find(tile) {
        let t = loaded.catalog.get(r);
        writeln!(
            out,
            "  now: {} x{}, initiative {:?}, toughness {}{}",
            t.name,
            t.count,
            t.initiative.values(),
            t.toughness,
            if t.mobile { ", mobile" } else { "" }
        )?;
    } else {
        writeln!(out, "  now: not in any army")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `hexforge mods check [PATH]`: every problem of the mod in `dir` (its manifest, armies,
/// dependencies and scripts), loaded together with the other mods it may depend on.
pub fn check(out: &mut impl Write, loaded: &LoadedMods, dir: &Path) -> Result<ExitCode> {
    let dir = dir
        .canonicalize()
        .with_context(|| format!("{}: no such mod folder", dir.display()))?;
    let inside = |p: &Path| p.canonicalize().is_ok_and(|p| p.starts_with(&dir));
    let problems: Vec<String> = loaded
        .problems
        .iter()
        .filter(|d| inside(&d.file))
        .map(|d| d.to_string())
        .collect();
    let Some(m) = loaded.mods.iter().find(|m| inside(&m.dir)) else {
        if problems.is_empty() {
            bail!("{}: no mod.toml here", dir.display());
        }
        for p in &problems {
            writeln!(out, "{p}")?;
        }
        writeln!(out, "{} problem(s): the mod does not load", problems.len())?;
        return Ok(ExitCode::FAILURE);
    };
    for p in &problems {
        writeln!(out, "{p}")?;
    }
    let tiles: usize = m.armies.iter().map(|a| a.tiles.len()).sum();
    let abilities: usize = m
        .armies
        .iter()
        .flat_map(|a| &a.tiles)
        .map(|t| t.abilities.len())
        .sum();
    if problems.is_empty() {
        writeln!(
            out,
            "ok: mod {} {}: {} arm{}, {tiles} tile kinds, {abilities} abilities bound",
            m.id,
            m.manifest.version,
            m.armies.len(),
            if m.armies.len() == 1 { "y" } else { "ies" }
        )?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(out, "{} problem(s) in mod {}", problems.len(), m.id)?;
        Ok(ExitCode::FAILURE)
    }
}

/// Writes `text` to `path` through a temporary file and a rename, so a file is never left half
/// written.
fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp-new");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// `hexforge mods new NAME`: a mod folder `into/NAME` with a manifest, a 35-tile army and one
/// Lua ability, ready to edit.
pub fn new(out: &mut impl Write, name: &str, into: &Path) -> Result<ExitCode> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !valid {
        bail!(
            "`{name}` is not a valid mod name: use snake_case (lowercase letters, digits and _, starting with a letter)"
        );
    }
    let dir = into.join(name);
    if dir.exists() {
        bail!("{} already exists: choose another name", dir.display());
    }
    for sub in ["armies", "scripts"] {
        std::fs::create_dir_all(dir.join(sub))
            .with_context(|| format!("cannot create {}", dir.join(sub).display()))?;
    }
    let files: [(PathBuf, String); 3] = [
        (dir.join("mod.toml"), manifest(name)),
        (dir.join("armies").join(format!("{name}.toml")), army(name)),
        (
            dir.join("scripts").join(format!("{name}.lua")),
            script(name),
        ),
    ];
    for (path, text) in &files {
        write_atomically(path, text)?;
    }
    writeln!(out, "created mod `{name}` in {}:", dir.display())?;
    for (path, _) in &files {
        writeln!(out, "  {}", path.display())?;
    }
    writeln!(
        out,
        "check it with `hexforge mods check {}`, play it with `hexforge match --army {name} --army moloch`",
        dir.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

fn manifest(name: &str) -> String {
    format!(
        r#"# The manifest of the mod `{name}` (docs/MODDING.md).
id = "{name}"
name = "{name}"
version = "0.1.0"
description = "A new army."
authors = []
hexforge = "^{major}.{minor}"

[provides]
armies = ["{name}"]
scripts = true
"#,
        major = env!("CARGO_PKG_VERSION_MAJOR"),
        minor = env!("CARGO_PKG_VERSION_MINOR"),
    )
}

fn army(name: &str) -> String {
    format!(
        r#"# The army `{name}` (docs/ARMY_FORMAT.md): 35 tiles, an HQ, soldiers, a module and instants.

[army]
id = "{name}"
name = "{name}"

[[tile]]
id = "hq"
name = "HQ"
kind = "hq"
count = 1
initiative = [0]
edges = ["melee:1@0,1,2,3,4,5"]

[tile.aura]
melee = 1

[[tile]]
id = "warrior"
name = "Warrior"
kind = "soldier"
count = 13
initiative = [2]
edges = ["melee:1@0,1,5"]

[[tile]]
id = "shooter"
name = "Shooter"
kind = "soldier"
count = 8
initiative = [3]
edges = ["ranged:1@0"]

[[tile]]
id = "rallier"
name = "Rallier"
kind = "soldier"
count = 2
initiative = [1]
edges = ["melee:2@0"]

# Acts sooner next to its own HQ: the ability is in ../scripts/{name}.lua.
[[tile.ability]]
hook = "{name}_rally"
params = {{ bonus = 2 }}

[[tile]]
id = "booster"
name = "Booster"
kind = "module"
count = 2
edges = ["link@0,1"]

[tile.module]
melee = 1

[[tile]]
id = "battle"
name = "Battle"
kind = "instant"
count = 5

[[tile.ability]]
hook = "call_battle"

[[tile]]
id = "move"
name = "Move"
kind = "instant"
count = 3

[[tile.ability]]
hook = "move_unit"

[[tile]]
id = "push"
name = "Push"
kind = "instant"
count = 1

[[tile.ability]]
hook = "push_back"
"#
    )
}

fn script(name: &str) -> String {
    format!(
        r#"-- The abilities of the mod `{name}` (docs/LUA_API.md).

-- {name}_rally: the unit gains `bonus` (default 1) initiative in a battle while it stands next
-- to its own HQ.
ability("{name}_rally", {{
  initiative = function(ctx)
    local q, r = ctx:hex()
    for d = 0, 5 do
      local t = ctx:tile_at(hex.neighbour(q, r, d))
      if t and t.hq and t.owner == ctx:owner() then
        return ctx:param("bonus", 1)
      end
    end
    return 0
  end,
}})
"#
    )
}
