//! The broken-mod corpus (`tests/broken_mods/`): one folder per mistake a modder can make, each
//! loaded alone through the script host. Every case must report exactly the problems and then
//! the warnings (`warning: ...`) of its `expected.txt` (paths relative to the case folder, in the
//! order reported), and the good mods of the case, listed in `loads.txt`, must still load.
//!
//! `HEXFORGE_BLESS=1 cargo test -p hexforge-acceptance --test broken_mods` rewrites every
//! `expected.txt` from what the load reports; review the diff by hand before committing it.

use hexforge_content::Diagnostic;
use hexforge_script::{Limits, load};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// Every case folder, sorted by name.
fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("broken_mods");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no cases in {}", root.display());
    dirs
}

fn case_name(case: &Path) -> String {
    case.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A path below `case` written relative to it with `/` separators (so goldens do not depend on
/// where the repository lives, nor on the platform); other paths as they are.
fn relative(path: &Path, case: &Path) -> String {
    match path.strip_prefix(case) {
        Ok(rel) => rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.display().to_string(),
    }
}

/// One problem as a modder sees it, with the case folder stripped from its file and message.
fn render(d: &Diagnostic, case: &Path) -> String {
    let file = relative(&d.file, case);
    let prefix = format!("{}{}", case.display(), std::path::MAIN_SEPARATOR);
    let message = d.message.replace(&prefix, "");
    if d.line == 0 {
        format!("{file}: {message}")
    } else {
        format!("{file}:{}:{}: {message}", d.line, d.column)
    }
}

/// The non-empty lines of a case file (`expected.txt`, `loads.txt`).
fn lines_of(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e} (run with HEXFORGE_BLESS=1 to create expected.txt)",
            path.display()
        )
    });
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn listing(lines: &[String]) -> String {
    if lines.is_empty() {
        return "    (nothing)\n".to_string();
    }
    lines.iter().map(|l| format!("    {l}\n")).collect()
}

#[test]
fn every_broken_mod_reports_its_exact_error() {
    let bless = std::env::var_os("HEXFORGE_BLESS").is_some_and(|v| v == "1");
    let mut failures = String::new();
    for case in cases() {
        let name = case_name(&case);
        let loaded = load(std::slice::from_ref(&case), Limits::default());
        let found: Vec<String> = loaded
            .mods
            .problems
            .iter()
            .map(|d| render(d, &case))
            .chain(
                loaded
                    .mods
                    .warnings
                    .iter()
                    .map(|d| format!("warning: {}", render(d, &case))),
            )
            .collect();
        let golden = case.join("expected.txt");
        if bless {
            let mut text = found.join("\n");
            text.push('\n');
            std::fs::write(&golden, text)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", golden.display()));
        }
        if found.is_empty() {
            let _ = writeln!(
                failures,
                "{name}: the load reports no problem and no warning, but every case is broken on purpose"
            );
            continue;
        }
        let expected = lines_of(&golden);
        if expected != found {
            let first = expected
                .iter()
                .zip(&found)
                .position(|(e, f)| e != f)
                .unwrap_or(expected.len().min(found.len()));
            let _ = write!(
                failures,
                "{name}: the problems differ from {name}/expected.txt (first at line {}):\n  expected:\n{}  found:\n{}",
                first + 1,
                listing(&expected),
                listing(&found)
            );
        }
    }
    assert!(
        failures.is_empty(),
        "\n{failures}\nIf the new messages are right, rerun with HEXFORGE_BLESS=1 and review the diff of every expected.txt."
    );
}

#[test]
fn the_good_mods_of_each_broken_case_still_load() {
    let mut failures = String::new();
    for case in cases() {
        let name = case_name(&case);
        let loaded = load(std::slice::from_ref(&case), Limits::default());
        let found: Vec<String> = loaded.mods.mods.iter().map(|m| m.id.clone()).collect();
        let expected = lines_of(&case.join("loads.txt"));
        if expected != found {
            let _ = write!(
                failures,
                "{name}: the mods that load (in load order) differ from {name}/loads.txt:\n  expected:\n{}  found:\n{}",
                listing(&expected),
                listing(&found)
            );
        }
    }
    assert!(failures.is_empty(), "\n{failures}");
}

#[test]
fn a_mod_written_for_hexforge_0_1_loads_and_is_told_what_changed_that_it_relies_on() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("broken_mods/written_for_hexforge_0_1");
    let loaded = load(std::slice::from_ref(&case), Limits::default());
    assert!(
        loaded.mods.problems.is_empty(),
        "a warning, not a refusal: {}",
        loaded.mods.problems
    );
    let ids: Vec<&str> = loaded.mods.mods.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["drifter", "relic"]);
    let warning = |id: &str| -> String {
        let found: Vec<String> = loaded
            .mods
            .warnings
            .iter()
            .filter(|d| d.message.starts_with(&format!("mod `{id}` ")))
            .map(|d| render(d, &case))
            .collect();
        assert_eq!(found.len(), 1, "one warning for {id}: {found:?}");
        found[0].clone()
    };
    // The relic's `destroyed` hook: the timing of its effects changed; located at the hexforge
    // line, naming the hook's line and what to write once it is checked.
    let relic = warning("relic");
    for words in [
        "relic/mod.toml:6:12: mod `relic` declares `hexforge = \"^0.1\"`, written for Hexforge 0.1, and this is 0.2.0: it loads",
        "the effects its `destroyed` hook asks for (scripts/relic.lua:6) now happen at the end of the phase the unit is destroyed in",
        "not after the battle's last phase",
        "no longer after 50 ms",
        "then write `hexforge = \"^0.2\"`",
    ] {
        assert!(relic.contains(words), "`{words}` is missing from: {relic}");
    }
    assert!(
        !relic.contains("marker name"),
        "the relic names no marker: {relic}"
    );
    // The drifter's own marker took a name the engine now reads, and it already uses 0.2's API.
    let drifter = warning("drifter");
    for words in [
        "`unpushable` (scripts/drifter.lua:6) is now a marker name the engine gives a meaning to",
        "it already uses what 0.2 added (the attack_resolved hook at scripts/drifter.lua:3; fx:mark at scripts/drifter.lua:6)",
        "then write `hexforge = \"^0.2\"`",
    ] {
        assert!(
            drifter.contains(words),
            "`{words}` is missing from: {drifter}"
        );
    }
    assert!(
        !drifter.contains("`destroyed` hook asks"),
        "the drifter defines no destroyed hook: {drifter}"
    );
}
