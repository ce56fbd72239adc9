//! The `lua_args` target's scripts: the input picks host functions and the arguments to call them
//! with (numbers at the edges of their range, NaN, huge strings, tables of the wrong shape, the
//! host's own objects), and every hook of a battle makes those calls.

use hexforge_core::battle::{Context, resolve};
use hexforge_core::{
    Battlefield, BoardShape, DefaultPolicy, Dir, Hex, PlayerSetup, Rules, Seat, Setup, TileSetup,
};
use hexforge_script::Limits;
use std::fmt::Write;

/// What a call is made on: `ctx`, `fx`, the hook's own object (`plan`, `hits` or `a`, or `nil`),
/// or the `hex` library.
const RECEIVERS: [&str; 4] = ["ctx", "fx", "x", "hex"];

/// The functions the host gives each receiver (docs/LUA_API.md), and a name no receiver has.
const METHODS: [&[&str]; 4] = [
    &[
        "army",
        "army_index",
        "army_tiles",
        "ask",
        "battles",
        "board",
        "current",
        "deck",
        "discard",
        "edges",
        "facing",
        "free",
        "game",
        "hand",
        "hex",
        "hq",
        "hq_hp",
        "is_enemy",
        "link",
        "links",
        "netted",
        "on_board",
        "option",
        "owner",
        "param",
        "phase",
        "players",
        "printed",
        "rule",
        "standing",
        "team",
        "tile",
        "tile_at",
        "tiles",
        "turn",
        "marked",
        "stage",
        "placed",
        "discarded",
        "marker",
        "markers",
        "hex_marked",
        "nothing_here",
    ],
    &[
        "add_initiative",
        "attack",
        "battle",
        "discard",
        "edge",
        "face",
        "grant",
        "heal",
        "lift",
        "link",
        "mark",
        "move",
        "place",
        "set_aside",
        "set_initiative",
        "swap_initiative",
        "unlink",
        "wound",
        "nothing_here",
    ],
    &[
        "add",
        "base",
        "clear",
        "count",
        "edge",
        "explode",
        "get",
        "kind",
        "remove",
        "set",
        "set_kind",
        "set_strength",
        "strength",
        "target",
        "targeted",
        "from",
        "redirect",
        "reflect",
        "set_wounds",
        "wounds",
        "nothing_here",
    ],
    &[
        "distance",
        "edge_direction",
        "neighbour",
        "first_on_line",
        "nothing_here",
    ],
];

/// The arguments a call may pass, as Lua expressions.
const ARGS: &[&str] = &[
    "nil",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "2",
    "5",
    "6",
    "-7",
    "100",
    "math.maxinteger",
    "math.mininteger",
    "2^53",
    "0.5",
    "-0.0",
    "1/0",
    "-1/0",
    "0/0",
    "1e308",
    "\"\"",
    "\"x\"",
    "\"N\"",
    "\"melee\"",
    "\"ranged\"",
    "\"armor\"",
    "\"net\"",
    "\"poison\"",
    "\"hq\"",
    "\"whole\"",
    "\"probe/gunner\"",
    "\"probe/hq\"",
    "\"moloch/hq\"",
    "\"a/b/c\"",
    "\"\\0\"",
    "string.rep(\"w\", 70000)",
    "{}",
    "{0, 0}",
    "{0, -1}",
    "{q = 0, r = 0}",
    "{q = 0, r = 2}",
    "{q = 1e300, r = -1e300}",
    "{q = 0/0, r = 1}",
    "{1, 2, 3}",
    "{{}}",
    "{kind = \"melee\", strength = 1}",
    "{kind = \"ranged\", strength = -5, dir = 9}",
    "{\"melee:1@0\"}",
    "setmetatable({}, {__index = function() error(\"index\") end})",
    "ctx",
    "fx",
    "x",
    "hex",
    "function() return 1 end",
    "function() error(\"inside\") end",
];

/// The Lua source of a probe ability whose every battle hook runs the calls `data` describes:
/// per call one byte for the receiver and the function, one for how many arguments (0 to 4) and
/// whether the call is left unprotected (an error then ends the hook), one byte per argument.
pub fn program(data: &[u8]) -> String {
    let mut calls = String::new();
    let mut bytes = data.iter().copied();
    let mut count = 0;
    while let Some(pick) = bytes.next() {
        if count == 64 {
            break;
        }
        count += 1;
        let receiver = usize::from(pick) % RECEIVERS.len();
        let methods = METHODS[receiver];
        let method = methods[usize::from(pick / 4) % methods.len()];
        let shape = bytes.next().unwrap_or(0);
        let argc = usize::from(shape % 5);
        let bare = shape >= 240;
        let args: Vec<&str> = (0..argc)
            .map(|_| ARGS[usize::from(bytes.next().unwrap_or(0)) % ARGS.len()])
            .collect();
        let call = if RECEIVERS[receiver] == "hex" {
            format!("hex.{method}({})", args.join(", "))
        } else {
            format!("{}:{method}({})", RECEIVERS[receiver], args.join(", "))
        };
        if bare {
            let _ = writeln!(calls, "  local _ = {call}");
        } else {
            let _ = writeln!(calls, "  pcall(function() return {call} end)");
        }
    }
    format!(
        "local function run(ctx, fx, x)\n{calls}end\n\
         ability(\"probe\", {{\n\
         \x20 initiative = function(ctx, fx) run(ctx, fx, nil) return 0 end,\n\
         \x20 battle_started = function(ctx, fx) run(ctx, fx, nil) end,\n\
         \x20 plan_attacks = function(ctx, plan, fx) run(ctx, fx, plan) end,\n\
         \x20 before_wound = function(ctx, hits, fx) run(ctx, fx, hits) end,\n\
         \x20 attack_resolved = function(ctx, a, fx) run(ctx, fx, a) end,\n\
         \x20 attacked = function(ctx, a, fx) run(ctx, fx, a) end,\n\
         \x20 destroyed = function(ctx, fx) run(ctx, fx, nil) end,\n\
         \x20 phase_ended = function(ctx, fx) run(ctx, fx, nil) end,\n\
         \x20 battle_ended = function(ctx, fx) run(ctx, fx, nil) end,\n\
         }})\n"
    )
}

/// The probe mod's army: an HQ and a gunner whose ability is the script's `probe`.
const ARMY: &str = r#"[army]
id = "probe"
name = "Probe"
size = 2

[[tile]]
id = "hq"
name = "HQ"
kind = "hq"
count = 1
initiative = [0]
edges = ["melee:1@0,1,2,3,4,5"]

[[tile]]
id = "gunner"
name = "Gunner"
kind = "soldier"
count = 1
initiative = [2, 1]
toughness = 2
edges = ["melee:1@0", "ranged:1@1", "net@5"]

[[tile.ability]]
hook = "probe"
"#;

/// The probe mod with `script` as its ability, loaded with its scripts from a folder of this
/// process and thread; `None` if the folder cannot be written.
pub fn load(script: &str) -> Option<hexforge_script::Loaded> {
    let dir = std::env::temp_dir().join(format!(
        "hexforge-fuzz-lua-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(dir.join("armies"))
        .and_then(|()| std::fs::create_dir_all(dir.join("scripts")))
        .and_then(|()| {
            std::fs::write(
                dir.join("mod.toml"),
                "id = \"probe\"\nname = \"Probe\"\nversion = \"1.0.0\"\n",
            )
        })
        .and_then(|()| std::fs::write(dir.join("armies/probe.toml"), ARMY))
        .and_then(|()| std::fs::write(dir.join("scripts/probe.lua"), script))
        .ok()?;
    Some(hexforge_script::load(&[dir], Limits::default()))
}

/// Loads `script` as the probe mod's ability and fights a battle with it: the gunner between the
/// two HQs. Whether the battle ran to its end (a hook's error refuses it).
pub fn run(script: &str) -> bool {
    let Some(hexforge_script::Loaded { mods, mut scripts }) = load(script) else {
        return false;
    };
    let catalog = &mods.catalog;
    let (Some(gunner), Some(hq)) = (catalog.find("probe/gunner"), catalog.find("probe/hq")) else {
        return false;
    };
    let at = |tile, owner: u8, q: i32, r: i32| TileSetup {
        tile,
        owner: Seat::new(owner),
        hex: Hex::new(q, r),
        facing: Dir::N,
        wounds: 0,
    };
    let Ok(mut field) = Battlefield::new(
        Setup {
            shape: BoardShape::standard(),
            players: vec![
                PlayerSetup { team: 0, hq_hp: 20 },
                PlayerSetup { team: 1, hq_hp: 20 },
            ],
            tiles: vec![at(gunner, 0, 0, 0), at(hq, 1, 0, -1), at(hq, 0, 0, 2)],
        },
        catalog,
    ) else {
        return false;
    };
    let rules = Rules::default();
    resolve(
        &mut field,
        Context {
            catalog,
            rules: &rules,
        },
        &mut scripts,
        &mut DefaultPolicy,
        &mut (),
    )
    .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_probe_script_loads_and_a_protected_one_fights_its_battle() {
        for input in [&[][..], &[0, 0], &[1, 2, 3, 4], &[255; 40]] {
            let loaded = load(&program(input)).expect("the probe folder");
            assert!(loaded.mods.problems.is_empty(), "{}", loaded.mods.problems);
            assert!(loaded.mods.catalog.find("probe/gunner").is_some());
        }
        // Every host function called with no argument, each under `pcall`: the battle ends.
        let all: Vec<u8> = (0..4u8)
            .flat_map(|r| (0..48u8).flat_map(move |m| [m * 4 + r, 0]))
            .collect();
        assert!(run(&program(&all)));
        // An unprotected call of a function no receiver has stops the hook, and the battle.
        assert!(!run(&program(&[4 * 40, 240])));
    }
}
