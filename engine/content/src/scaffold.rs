//! New content from templates, written atomically: a mod folder that passes its check and plays
//! (`hexforge mods new`, the editor's new mods), a manifest, a starter army, and a documented
//! Lua ability to fill in.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why new content could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    /// The name asked for is not snake_case.
    #[error(
        "`{0}` is not a valid mod name: use snake_case (lowercase letters, digits and _, starting with a letter)"
    )]
    BadName(String),
    /// The file or folder to create is already there; nothing is overwritten.
    #[error("{} already exists: choose another name", .0.display())]
    Exists(PathBuf),
    /// A file or folder could not be created or written.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The file or folder that could not be written.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
}

/// The longest id a mod, army, tile, preset, board or option may have.
pub const MAX_ID_LEN: usize = 64;

/// Whether `id` is a valid mod, army or tile id: snake_case, starting with a lowercase letter, at
/// most [`MAX_ID_LEN`] characters.
pub fn valid_id(id: &str) -> bool {
    id.len() <= MAX_ID_LEN
        && id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Writes `contents` (text or bytes) to `path` through a temporary file in the same folder and a
/// rename, so the file is never seen half written (a crash leaves the old file or the new one,
/// never a mix).
pub fn write_atomically(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "file".to_string(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents.as_ref())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

fn write(path: &Path, text: &str) -> Result<(), ScaffoldError> {
    write_atomically(path, text).map_err(|source| ScaffoldError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn create_dir(dir: &Path) -> Result<(), ScaffoldError> {
    std::fs::create_dir_all(dir).map_err(|source| ScaffoldError::Io {
        path: dir.to_path_buf(),
        source,
    })
}

/// A mod folder `into/name` with a manifest, a 35-tile army and one Lua ability, ready to edit
/// (`hexforge mods new`); returns the files written.
pub fn new_mod(into: &Path, name: &str) -> Result<Vec<PathBuf>, ScaffoldError> {
    if !valid_id(name) {
        return Err(ScaffoldError::BadName(name.to_string()));
    }
    let dir = into.join(name);
    if dir.exists() {
        return Err(ScaffoldError::Exists(dir));
    }
    for sub in ["armies", "scripts", "scenarios"] {
        create_dir(&dir.join(sub))?;
    }
    let files: [(PathBuf, String); 4] = [
        (
            dir.join("mod.toml"),
            manifest(name, "A new army.", Some((&[name], true))),
        ),
        (
            dir.join("armies").join(format!("{name}.toml")),
            rally_army(name),
        ),
        (
            dir.join("scripts").join(format!("{name}.lua")),
            rally_script(name),
        ),
        (
            dir.join("scenarios")
                .join("01_the_shooter_destroys_the_unit_in_front_of_it.toml"),
            first_scenario(name),
        ),
    ];
    for (path, text) in &files {
        write(path, text)?;
    }
    Ok(files.into_iter().map(|(p, _)| p).collect())
}

/// An empty mod folder `into/id` with only its manifest (no `[provides]`, so armies and scripts
/// can be added without touching it); returns the mod's folder.
pub fn new_empty_mod(into: &Path, id: &str, description: &str) -> Result<PathBuf, ScaffoldError> {
    if !valid_id(id) {
        return Err(ScaffoldError::BadName(id.to_string()));
    }
    let dir = into.join(id);
    if dir.exists() {
        return Err(ScaffoldError::Exists(dir));
    }
    create_dir(&dir.join("armies"))?;
    write(&dir.join("mod.toml"), &manifest(id, description, None))?;
    Ok(dir)
}

/// The text of a manifest for the mod `id` of this engine's version; `provides` lists its
/// armies and whether it has scripts (docs/MODDING.md), or leaves `[provides]` out.
pub fn manifest(id: &str, description: &str, provides: Option<(&[&str], bool)>) -> String {
    let mut text = format!(
        r#"# The manifest of the mod `{id}` (docs/MODDING.md).
id = "{id}"
name = "{id}"
version = "0.1.0"
description = "{description}"
authors = []
hexforge = "^{major}.{minor}"
"#,
        description = description.replace(['"', '\\'], ""),
        major = env!("CARGO_PKG_VERSION_MAJOR"),
        minor = env!("CARGO_PKG_VERSION_MINOR"),
    );
    if let Some((armies, scripts)) = provides {
        let armies: Vec<String> = armies.iter().map(|a| format!("\"{a}\"")).collect();
        text.push_str(&format!(
            "\n[provides]\narmies = [{}]\nscripts = {scripts}\n",
            armies.join(", ")
        ));
    }
    text
}

/// The tiles every starter army shares: the HQ, a module and the instants (9 tiles).
fn common_tiles() -> &'static str {
    r#"[[tile]]
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
}

fn header(id: &str, name: &str, what: &str) -> String {
    format!(
        r#"# The army `{id}` (docs/ARMY_FORMAT.md): {what}

[army]
id = "{id}"
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

"#,
        name = name.replace(['"', '\\'], ""),
    )
}

/// A valid 35-tile army `id` of plain tiles (an HQ, soldiers, a module, instants of the shared
/// library), the start of an army made from nothing.
pub fn starter_army(id: &str, name: &str) -> String {
    format!(
        r#"{}[[tile]]
id = "warrior"
name = "Warrior"
kind = "soldier"
count = 15
initiative = [2]
edges = ["melee:1@0,1,5"]

[[tile]]
id = "shooter"
name = "Shooter"
kind = "soldier"
count = 8
initiative = [3]
edges = ["ranged:1@0"]

{}"#,
        header(
            id,
            name,
            "35 tiles, an HQ, soldiers, a module and instants."
        ),
        common_tiles()
    )
}

/// The first scenario of a new mod (`hexforge mods test NAME` runs it): the army's Shooter
/// destroys the Warrior of another player in front of it before the Warrior acts.
fn first_scenario(name: &str) -> String {
    format!(
        r#"# The first scenario of the mod `{name}` (docs/SCENARIO_FORMAT.md): `hexforge mods test {name}`
# runs every file of this folder. The Shooter (initiative 3, ranged 1 to its front) shoots the
# Warrior of the other player (initiative 2, no toughness) in front of it in phase 3, before the
# Warrior can act: it is destroyed (R4.3, R3.9). Change the army, and write what must happen.
name = "{name}: the Shooter destroys the unit in front of it"
rules = "R4.3 R3.9"

[[player]]
id = "a"
army = "{name}"

[[player]]
id = "b"
army = "{name}"

[[tile]]
label = "a_hq"
owner = "a"
tile = "{name}/hq"
at = [-2, 2]

[[tile]]
label = "b_hq"
owner = "b"
tile = "{name}/hq"
at = [2, -2]

[[tile]]
label = "shooter"
owner = "a"
tile = "{name}/shooter"
at = [0, 0]
facing = 0

[[tile]]
label = "warrior"
owner = "b"
tile = "{name}/warrior"
at = [0, -1]
facing = 0

[expect]
hq = {{ a = 20, b = 20 }}
removed = ["warrior"]
"#
    )
}

fn rally_army(name: &str) -> String {
    format!(
        r#"{}[[tile]]
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

{}"#,
        header(
            name,
            name,
            "35 tiles, an HQ, soldiers, a module and instants."
        ),
        common_tiles()
    )
}

fn rally_script(name: &str) -> String {
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

/// A new ability `hook` to fill in (docs/LUA_API.md): it loads and binds as it is, and does
/// nothing until one of its points is written. The comments list the points and the context.
pub fn ability_template(hook: &str) -> String {
    format!(
        r#"-- {hook}: describe what the ability does here; its parameters are read with
-- ctx:param("name", default) (docs/LUA_API.md lists every point and what `ctx` offers).
ability("{hook}", {{
  -- The engine calls only the points defined here. Uncomment one to start, e.g. a unit that
  -- acts sooner by `bonus` (default 1):
  --
  -- initiative = function(ctx, fx)
  --   return ctx:param("bonus", 1)
  -- end,
  --
  -- Other points, each with `fx` last to ask for effects: battle_started(ctx, fx),
  -- plan_attacks(ctx, plan, fx), before_wound(ctx, hits, fx), attack_resolved(ctx, a, fx),
  -- attacked(ctx, a, fx), phase_ended(ctx, fx), destroyed(ctx, fx), battle_ended(ctx, fx),
  -- placed(ctx, fx), turn_started(ctx, fx), turn_ended(ctx, fx); on a module or an HQ,
  -- gives_to(ctx, q, r); on an instant tile, targets(ctx) and play(ctx, target, fx); and the
  -- static `gives` and `instant`.
}})
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hexforge-scaffold-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    #[test]
    fn the_ability_template_names_every_hook_point() {
        let text = ability_template("fury");
        for (_, name) in hexforge_core::hooks::HookPoints::ALL {
            assert!(
                text.contains(&format!("{name}(ctx"))
                    || text.contains(&format!("{name} = function(ctx")),
                "the template does not name `{name}`:\n{text}"
            );
        }
    }

    #[test]
    fn a_new_mod_and_a_starter_army_pass_validation() {
        let into = temp("new");
        let files = new_mod(&into, "raiders").expect("a new mod");
        assert_eq!(files.len(), 4);
        let m = crate::load_mod(&into.join("raiders")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.armies[0].id, "raiders");
        assert!(matches!(
            new_mod(&into, "raiders"),
            Err(ScaffoldError::Exists(_))
        ));
        assert!(matches!(
            new_mod(&into, "Bad-Name"),
            Err(ScaffoldError::BadName(_))
        ));
        let dir = new_empty_mod(&into, "fans", "Fan armies \"quoted\"").expect("an empty mod");
        let army = dir.join("armies/fan.toml");
        write_atomically(&army, starter_army("fan", "Fan")).expect("write the army");
        let m = crate::load_mod(&dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            m.armies[0]
                .tiles
                .iter()
                .map(|t| u32::from(t.count))
                .sum::<u32>(),
            35
        );
        // No temporary file is left beside the army.
        let left: Vec<_> = std::fs::read_dir(dir.join("armies"))
            .expect("read armies")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from("fan.toml")]);
        let _ = std::fs::remove_dir_all(&into);
    }

    #[test]
    fn ids_are_snake_case() {
        assert!(valid_id("borgo_2"));
        assert!(!valid_id("2borgo") && !valid_id("Borgo") && !valid_id("") && !valid_id("a-b"));
        assert!(valid_id(&"a".repeat(MAX_ID_LEN)) && !valid_id(&"a".repeat(MAX_ID_LEN + 1)));
    }
}
