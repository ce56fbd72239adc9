//! Each target's seed corpus, made from the repository's own files: its armies, mods, patches and
//! scenarios, replays of games between the base armies recorded on the spot, and one call of each
//! host function for the scripts.

use crate::world::{repo_root, with_world};
use hexforge_bots::RandomBot;
use hexforge_core::game::Player;
use hexforge_replay::{Recorder, header, record_game, start};
use std::path::{Path, PathBuf};

/// The files below `dir` (sorted, all depths) whose path ends with `suffix`.
fn files(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            files(&e, suffix, out);
        } else if e.to_string_lossy().ends_with(suffix) {
            out.push(e);
        }
    }
}

/// The contents of the files below the repository's `dirs` whose path ends with `suffix` and
/// contains `within` (a folder name such as `/armies/`).
fn read(dirs: &[&str], suffix: &str, within: &str) -> Vec<Vec<u8>> {
    let root = repo_root();
    let mut paths = Vec::new();
    for d in dirs {
        files(&root.join(d), suffix, &mut paths);
    }
    paths
        .iter()
        .filter(|p| p.to_string_lossy().contains(within))
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}

/// The seeds of the target `name` (see [`crate::TARGETS`]).
pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    match name {
        "army" => read(&["mods", "tests"], ".toml", "/armies/"),
        "mod_files" => {
            let mut out = read(&["mods", "tests"], "mod.toml", "");
            out.extend(read(&["mods"], "options.toml", ""));
            out.extend(read(&["mods"], ".toml", "/rules/"));
            out.extend(read(&["mods"], ".toml", "/boards/"));
            out
        }
        "patch" => read(&["mods", "tests/patches"], ".toml", "/patches/"),
        "scenario" => read(&["tests/scenarios"], ".toml", ""),
        "replay" => replays(),
        "lua_args" => calls(),
        _ => Vec::new(),
    }
}

/// Replay files of whole games between random bots: each base army against the next, recorded
/// with the engine's own recorder.
fn replays() -> Vec<Vec<u8>> {
    with_world(|w| {
        let pairs = [
            ["moloch", "outpost"],
            ["borgo", "hegemony"],
            ["outpost", "borgo"],
        ];
        let mut out = Vec::new();
        for (n, armies) in (0u64..).zip(pairs) {
            let h = header(
                ("v3", &[], if n == 1 { "" } else { "standard" }),
                &w.loaded.mods,
                armies.iter().map(|a| a.to_string()).collect(),
                n,
                n,
            );
            let Ok(mut game) = start(&h, &w.loaded.mods, w.catalog.clone(), &mut w.scripts) else {
                continue;
            };
            let mut file = Vec::new();
            let Ok(recorder) = Recorder::new(&mut file, &h) else {
                continue;
            };
            let (mut a, mut b) = (RandomBot::new(n + 1), RandomBot::new(n + 2));
            let mut players: [&mut dyn Player; 2] = [&mut a, &mut b];
            if record_game(&mut game, &mut players, &mut w.scripts, recorder).is_ok() {
                out.push(file);
            }
        }
        out
    })
}

/// For the scripts: one input per host function, each called with two arguments, and one that
/// calls every function with none.
fn calls() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut all = Vec::new();
    for receiver in 0..4u8 {
        for method in 0..48u8 {
            let pick = method * 4 + receiver;
            out.push(vec![pick, 2, method, method.wrapping_mul(7)]);
            all.extend([pick, 0]);
        }
    }
    out.push(all);
    out
}
