//! A script error that stops a match reaches the modder in their own words: the mod, file:line,
//! hook and tile, the message and a short Lua traceback.

use std::path::{Path, PathBuf};

mod common;

/// A mod folder `probe` with one army whose gunners' `placed` hook fails in a helper function.
fn failing_mod(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "hexforge-script-errors-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("probe/armies")).expect("armies");
    std::fs::create_dir_all(dir.join("probe/scripts")).expect("scripts");
    std::fs::write(
        dir.join("probe/mod.toml"),
        "id = \"probe\"\nname = \"Probe\"\nversion = \"1.0.0\"\n",
    )
    .expect("manifest");
    std::fs::write(
        dir.join("probe/armies/probe.toml"),
        "[army]\nid = \"probe\"\nname = \"Probe\"\nsize = 6\n\n[[tile]]\nid = \"hq\"\nname = \"HQ\"\nkind = \"hq\"\ncount = 1\ninitiative = [0]\nedges = [\"melee:1@0,1,2,3,4,5\"]\n\n[[tile]]\nid = \"gunner\"\nname = \"Gunner\"\nkind = \"soldier\"\ncount = 5\ninitiative = [1]\nedges = [\"melee:1@0\"]\n\n[[tile.ability]]\nhook = \"jam\"\n",
    )
    .expect("army");
    std::fs::write(
        dir.join("probe/scripts/jam.lua"),
        "local function check(ctx)\n  error(\"the gun jammed at \" .. ctx:phase())\nend\n\nability(\"jam\", {\n  placed = function(ctx, fx)\n    check(ctx)\n  end,\n})\n",
    )
    .expect("script");
    dir
}

fn hexforge(args: &[&str]) -> (bool, String) {
    common::run(args, Some(Path::new("/nonexistent/hexforge-user-mods")))
}

#[test]
fn a_script_error_that_stops_a_match_is_shown_in_the_modders_words() {
    let dir = failing_mod("match");
    let mods = dir.to_string_lossy().to_string();
    let expected = "a script error stopped the match: probe, scripts/jam.lua:2, placed, probe/gunner: the gun jammed at 0\n  Lua traceback:\n    scripts/jam.lua:2 in function 'check'\n    scripts/jam.lua:7 in the function at scripts/jam.lua:6";
    let (ok, out) = hexforge(&[
        "match", "--mods", &mods, "--army", "probe", "--army", "probe", "--quiet",
    ]);
    assert!(!ok, "{out}");
    assert!(out.contains(expected), "{out}");
    assert!(!out.contains("listed as legal"), "{out}");
    // The searching bots play the failing placement too, rather than steering round it.
    for bot in ["greedy", "mc"] {
        let (ok, out) = hexforge(&[
            "match", "--mods", &mods, "--army", "probe", "--army", "probe", "--bot", bot, "--bot",
            bot, "--quiet",
        ]);
        assert!(!ok && out.contains(expected), "{bot}: {out}");
    }
    let (ok, out) = hexforge(&["matches", "--mods", &mods, "--games", "2", "--seed", "1"]);
    assert!(!ok, "{out}");
    assert!(out.contains(expected), "{out}");
    // The same error in both games is one line, naming the first game to replay it.
    assert_eq!(out.matches(expected).count(), 1, "{out}");
    assert!(
        out.contains("error (2 games, the first game 0 (seed "),
        "{out}"
    );
    assert!(out.contains("probe vs probe                0"), "{out}");
    assert!(!out.contains("listed as legal"), "{out}");
    // Recorded, the failing games are named too.
    let folder = dir.join("recorded").to_string_lossy().to_string();
    let (ok, out) = hexforge(&[
        "matches",
        "--mods",
        &mods,
        "--games",
        "2",
        "--seed",
        "1",
        "--replays",
        &folder,
    ]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("error (2 games, the first game 0 (seed "),
        "{out}"
    );
    assert!(out.contains(expected), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_script_error_that_stops_a_replay_is_shown_in_the_modders_words() {
    let dir = failing_mod("replay");
    let mods = dir.to_string_lossy().to_string();
    let script = dir.join("probe/scripts/jam.lua");
    let failing = std::fs::read_to_string(&script).expect("script");
    // Recorded while the hook did nothing, replayed once it fails.
    std::fs::write(&script, failing.replace("    check(ctx)\n", "\n")).expect("script");
    let file = dir.join("game.txt");
    let path = file.to_string_lossy().to_string();
    let (ok, out) = hexforge(&[
        "match", "--mods", &mods, "--army", "probe", "--army", "probe", "--quiet", "--replay",
        &path,
    ]);
    assert!(ok, "{out}");
    std::fs::write(&script, failing).expect("script");
    let (ok, out) = hexforge(&["replay", &path, "--mods", &mods, "--force"]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("a script error stopped the replay: probe, scripts/jam.lua:2, placed, probe/gunner: the gun jammed at 0\n  Lua traceback:\n    scripts/jam.lua:2 in function 'check'"),
        "{out}"
    );
    assert!(!out.contains("refuses it"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
