//! The status bar and the browser tell one story: during a refused reload the count in the status
//! line is the number of problems listed (the refused ones), the browser lists the same ones under
//! their mod, and once the file is fixed they all say there are none. Warnings (a mod written for
//! an earlier Hexforge) are counted and listed the same way, apart from the problems.

mod common;

use common::{base_copy, settle, wait_for_reload, window};
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;

#[test]
fn the_status_line_counts_the_problems_it_lists_during_a_refused_reload() {
    let dir = base_copy("status");
    let moloch = dir.join("base/armies/moloch.toml");
    let text = std::fs::read_to_string(&moloch).expect("read moloch.toml");
    let mut harness = window(Editor::load(vec![dir.clone()]));
    harness.run();
    harness.get_by_label("base").click();
    harness.run();
    harness.get_by_label_contains("0 problems; ");

    std::fs::write(
        &moloch,
        text.replace(r#"name = "Gauss Cannon""#, "name = 12"),
    )
    .expect("write moloch.toml");
    wait_for_reload(harness.state_mut());
    harness.run();
    let refused = harness.state().content().refused().to_vec();
    assert!(!refused.is_empty());
    let line = harness.state().status_line();
    let n = refused.len();
    assert!(
        line.contains(&format!(" {n} problem{}; ", if n == 1 { "" } else { "s" })),
        "{line}"
    );
    assert!(line.contains("refused"), "{line}");
    harness.get_by_label(&line);
    assert_eq!(harness.state().content().problems(), refused.as_slice());
    // Each one listed in the status bar and under its mod in the browser.
    for p in &refused {
        let shown = harness.get_all_by_label(&p.to_string()).count();
        assert_eq!(shown, 2, "{p}: the status bar and the browser");
    }

    std::fs::write(&moloch, &text).expect("write moloch.toml");
    settle(&mut harness);
    let line = harness.state().status_line();
    assert!(line.contains(" 0 problems; reloaded "), "{line}");
    harness.get_by_label(&line);
    for p in &refused {
        assert!(harness.query_by_label(&p.to_string()).is_none(), "{p}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_mod_written_for_an_earlier_hexforge_is_shown_with_its_warning_in_the_status_bar_and_browser() {
    // Two mods declaring `hexforge = "^0.1"` and `"~0.1.0"`: they load, each with a warning.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/broken_mods/written_for_hexforge_0_1");
    let mut harness = common::on_folder(&dir);
    let warnings = harness.state().content().loaded().warnings.clone();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    let line = harness.state().status_line();
    assert!(line.contains(" 0 problems, 2 warnings; "), "{line}");
    harness.get_by_label(&line);
    harness.get_by_label("relic").click();
    harness.run();
    // The relic's warning in the status bar and under its mod in the browser.
    let relic = warnings
        .iter()
        .find(|w| w.file.ends_with("relic/mod.toml"))
        .expect("the relic's warning");
    let shown = harness
        .get_all_by_label(&format!("warning: {relic}"))
        .count();
    assert_eq!(shown, 2, "the status bar and the browser");
}
