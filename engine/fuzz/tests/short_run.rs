//! The short run of every fuzz target that the test suite makes: its seed corpus, the crashers
//! kept in `engine/fuzz/crashers/TARGET/` (each once made a reader panic, hang or blow up), then
//! mutants from the deterministic mutator. An input that panics fails the test and is written to
//! the target folder's `fuzz-failures/` for `cargo fuzz run TARGET FILE` to reproduce.

use hexforge_fuzz::mutate::Mutator;
use hexforge_fuzz::{Target, target};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How many mutants each target reads: `HEXFORGE_FUZZ_MUTANTS`, or `default`.
fn mutants(default: usize) -> usize {
    std::env::var("HEXFORGE_FUZZ_MUTANTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The kept crashers of `name`, sorted.
fn crashers(name: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crashers")
        .join(name);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.is_file() && p.extension().is_none_or(|x| x != "md"))
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect()
}

/// Writes an input that failed where `cargo fuzz` can replay it, and says where.
fn keep(name: &str, what: &str, input: &[u8]) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/fuzz-failures")
        .join(name);
    let path = dir.join(what.replace([' ', '/'], "_"));
    let _ = std::fs::create_dir_all(&dir);
    match std::fs::write(&path, input) {
        Ok(()) => path.display().to_string(),
        Err(e) => format!("(not written: {e})"),
    }
}

/// Runs one input; a panic or a read of more than `slow` becomes the failure's message.
fn one(t: &Target, what: &str, input: &[u8], slow: Duration) -> Option<String> {
    let started = Instant::now();
    let outcome = catch_unwind(AssertUnwindSafe(|| (t.run)(input)));
    let took = started.elapsed();
    if outcome.is_err() {
        let at = keep(t.name, what, input);
        return Some(format!("{}: {what} panicked (input kept in {at})", t.name));
    }
    if took > slow {
        let at = keep(t.name, what, input);
        return Some(format!(
            "{}: {what} took {took:?}, more than {slow:?}: a hang or a blow-up (input kept in {at})",
            t.name
        ));
    }
    None
}

/// The seeds, the crashers and `count` mutants of the target `name`; every failure at once.
fn short_run(name: &str, count: usize) {
    let t = target(name).expect("a target of hexforge_fuzz::TARGETS");
    let seeds = hexforge_fuzz::seeds::seeds(name);
    assert!(!seeds.is_empty(), "{name}: the seed corpus is empty");
    // A safeguard against hangs only, far above any input's time on a loaded machine.
    let slow = Duration::from_secs(20);
    let mut failures = Vec::new();
    for (i, s) in seeds.iter().enumerate() {
        failures.extend(one(t, &format!("seed {i}"), s, slow));
    }
    for (path, input) in crashers(name) {
        let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
        failures.extend(one(
            t,
            &format!("crasher {}", file.unwrap_or_default()),
            &input,
            slow,
        ));
    }
    let mut m = Mutator::new(name.len() as u64);
    for n in 0..count {
        let input = m.mutate(&seeds[n % seeds.len()], &seeds, t.max_len);
        failures.extend(one(t, &format!("mutant {n}"), &input, slow));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn army_files_short_run() {
    short_run("army", mutants(5000));
}

#[test]
fn mod_files_short_run() {
    short_run("mod_files", mutants(5000));
}

#[test]
fn patch_files_short_run() {
    short_run("patch", mutants(3000));
}

#[test]
fn scenario_files_short_run() {
    short_run("scenario", mutants(1500));
}

#[test]
fn replay_files_short_run() {
    short_run("replay", mutants(400));
}

#[test]
fn lua_arguments_short_run() {
    short_run("lua_args", mutants(300));
}

#[test]
fn replay_seeds_are_whole_games_that_verify() {
    // Seeds that the reader refuses would leave the replay target fuzzing its header alone.
    let seeds = hexforge_fuzz::seeds::seeds("replay");
    assert!(seeds.len() >= 3, "{} replay seeds", seeds.len());
    hexforge_fuzz::world::with_world(|w| {
        for (n, seed) in seeds.iter().enumerate() {
            let text = std::str::from_utf8(seed).expect("a replay is text");
            let replay = hexforge_replay::parse(text, &w.loaded.catalog)
                .unwrap_or_else(|e| panic!("seed {n}: {e}"));
            assert!(replay.complete && replay.steps.len() > 20, "seed {n}");
            let mut game = hexforge_replay::start_replay(
                &replay,
                &w.loaded.mods,
                w.catalog.clone(),
                &mut w.scripts,
            )
            .unwrap_or_else(|e| panic!("seed {n}: {e}"));
            for (i, step) in replay.steps.iter().enumerate() {
                hexforge_replay::replay_step(&mut game, step, &mut w.scripts, &mut ())
                    .unwrap_or_else(|e| panic!("seed {n}, step {i}: {e}"));
                assert_eq!(game.state_hash(), step.hash, "seed {n}, step {i}");
            }
            assert!(game.result().is_some(), "seed {n} ends");
        }
    });
}
