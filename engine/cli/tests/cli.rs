//! The `hexforge` binary as a user runs it.

use std::path::Path;
use std::process::Command;

fn hexforge(args: &[&str]) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_hexforge"))
        .args(args)
        .current_dir(&root)
        .output()
        .expect("run hexforge");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn scenario_command_ends_with_the_passed_failed_line() {
    let (ok, out) = hexforge(&["scenario", "tests/scenarios"]);
    let last = out.lines().last().unwrap_or_default();
    assert!(ok, "{out}");
    let passed: usize = last
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        last.ends_with(" passed, 0 failed") && passed >= 60,
        "last line: {last}"
    );
}

#[test]
fn armies_command_reports_a_malformed_file_with_line_and_column() {
    let (ok, out) = hexforge(&["armies", "--mods", "tests/content"]);
    assert!(!ok, "a broken mod must make the command fail");
    assert!(
        out.contains("broken.toml:18:8: unknown kind `sergeant`"),
        "{out}"
    );
}

#[test]
fn battle_command_prints_phases_and_hq_damage() {
    let (ok, out) = hexforge(&[
        "battle",
        "tests/scenarios/r11_worked_example/01_worked_example.toml",
    ]);
    assert!(ok, "{out}");
    for needed in ["Phase 4", "Phase 0", "loses", "Battle over"] {
        assert!(out.contains(needed), "missing {needed}:\n{out}");
    }
}
