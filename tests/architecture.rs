//! ARCHITECTURE.md's table of crates is the truth about dependencies: this test reads the
//! workspace's real dependencies from `cargo metadata` and fails when a crate depends on one the
//! table does not allow it, or when the table lists one the crate does not use (so it cannot drift).

mod common;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// What ARCHITECTURE.md allows one crate: normal dependencies, and those for tests and benches only.
#[derive(Debug, Default, PartialEq)]
struct Allowed {
    normal: BTreeSet<String>,
    dev: BTreeSet<String>,
}

/// The names written in backticks in one table cell.
fn ticked(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The table under "## Crates and their allowed dependencies", by crate name, with the line of
/// each row for error messages.
fn table(text: &str) -> BTreeMap<String, (usize, Allowed)> {
    let mut rows = BTreeMap::new();
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("## ") {
            inside = line.starts_with("## Crates and their allowed dependencies");
            continue;
        }
        if !inside || !line.starts_with("| `") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
        assert_eq!(
            cells.len(),
            5,
            "ARCHITECTURE.md:{}: a crate row has five cells (crate | path | what it is | may depend on | dev and test only)",
            i + 1
        );
        let name = ticked(cells[0])
            .into_iter()
            .next()
            .expect("the first cell names the crate in backticks");
        let allowed = Allowed {
            normal: ticked(cells[3]),
            dev: ticked(cells[4]),
        };
        rows.insert(name, (i + 1, allowed));
    }
    rows
}

/// Every workspace crate's real dependencies, from `cargo metadata --no-deps`.
fn metadata() -> BTreeMap<String, Allowed> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(common::root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let mut crates = BTreeMap::new();
    for package in json["packages"].as_array().expect("a list of packages") {
        let name = package["name"]
            .as_str()
            .expect("a package name")
            .to_string();
        let mut deps = Allowed::default();
        for dep in package["dependencies"]
            .as_array()
            .expect("a list of dependencies")
        {
            let dep_name = dep["name"].as_str().expect("a dependency name").to_string();
            match dep["kind"].as_str() {
                Some("dev") => deps.dev.insert(dep_name),
                _ => deps.normal.insert(dep_name),
            };
        }
        crates.insert(name, deps);
    }
    crates
}

/// The differences between a table and the metadata, one readable line each.
fn drift(
    table: &BTreeMap<String, (usize, Allowed)>,
    real: &BTreeMap<String, Allowed>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, deps) in real {
        let Some((line, allowed)) = table.get(name) else {
            problems.push(format!(
                "ARCHITECTURE.md: the crate `{name}` has no row in the table of crates; add one"
            ));
            continue;
        };
        for dep in &deps.normal {
            if !allowed.normal.contains(dep) {
                problems.push(format!(
                    "ARCHITECTURE.md:{line}: `{name}` depends on `{dep}`, which its row does not allow; \
                     remove the dependency or add it to \"may depend on\" with the reason"
                ));
            }
        }
        for dep in &deps.dev {
            if !allowed.dev.contains(dep) && !allowed.normal.contains(dep) {
                problems.push(format!(
                    "ARCHITECTURE.md:{line}: `{name}` has the dev-dependency `{dep}`, which its row does not list; \
                     add it to \"dev and test only\""
                ));
            }
        }
        for dep in allowed.normal.iter().chain(&allowed.dev) {
            if !deps.normal.contains(dep) && !deps.dev.contains(dep) {
                problems.push(format!(
                    "ARCHITECTURE.md:{line}: the row of `{name}` lists `{dep}`, which it does not depend on; \
                     remove it from the row"
                ));
            }
        }
    }
    for (name, (line, _)) in table {
        if !real.contains_key(name) {
            problems.push(format!(
                "ARCHITECTURE.md:{line}: no workspace crate is called `{name}`; remove the row or fix the name"
            ));
        }
    }
    problems
}

#[test]
fn every_crate_depends_only_on_what_architecture_md_allows() {
    let text =
        std::fs::read_to_string(common::root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let problems = drift(&table(&text), &metadata());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_dependency_check_catches_a_crate_that_reaches_up() {
    let text = "## Crates and their allowed dependencies\n\n| crate | path | what | may depend on | dev |\n|---|---|---|---|---|\n| `a` | `a` | a | `b` | |\n";
    let mut real = BTreeMap::new();
    real.insert(
        "a".to_string(),
        Allowed {
            normal: ["b", "c"].map(String::from).into(),
            dev: BTreeSet::new(),
        },
    );
    let problems = drift(&table(text), &real);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("`a` depends on `c`"),
        "{}",
        problems[0]
    );
    assert!(
        problems[0].starts_with("ARCHITECTURE.md:5:"),
        "{}",
        problems[0]
    );
}

#[test]
fn the_dependency_check_catches_a_row_that_lists_too_much() {
    let text = "## Crates and their allowed dependencies\n\n| `a` | `a` | a | `b` | `p` |\n";
    let mut real = BTreeMap::new();
    real.insert(
        "a".to_string(),
        Allowed {
            normal: ["b"].map(String::from).into(),
            dev: BTreeSet::new(),
        },
    );
    let problems = drift(&table(text), &real);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("lists `p`"), "{}", problems[0]);
}
