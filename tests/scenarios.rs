//! Runs every scenario under `tests/scenarios/` against the base armies: the rules acceptance suite.

use hexforge_scenario::{load_scenario_with_boards, run_scenario};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            files(&e, out);
        } else if e.extension().is_some_and(|x| x == "toml") {
            out.push(e);
        }
    }
}

#[test]
fn every_scenario_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let hexforge_script::Loaded {
        mods: loaded,
        mut scripts,
    } = hexforge_script::load(&[root.join("../mods")], hexforge_script::Limits::default());
    assert!(
        loaded.problems.is_empty(),
        "content problems:\n{}",
        loaded.problems
    );
    let mut list = Vec::new();
    files(&root.join("scenarios"), &mut list);
    let boards: Vec<_> = loaded.boards().collect();
    let mut failures = Vec::new();
    for f in &list {
        match load_scenario_with_boards(f, &loaded.catalog, &boards) {
            Err(d) => failures.push(format!("{}:\n{d}", f.display())),
            Ok(s) => {
                let r = run_scenario(&s, &loaded.catalog, &mut scripts);
                if !r.passed() {
                    failures.push(format!(
                        "{} ({}):\n  {}\n  log:\n    {}",
                        f.display(),
                        s.name,
                        r.failures.join("\n  "),
                        r.log.join("\n    ")
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n\n{}",
        failures.len(),
        list.len(),
        failures.join("\n\n")
    );
    assert!(
        list.len() >= 60,
        "the corpus should hold at least 60 scenarios, found {}",
        list.len()
    );
}
