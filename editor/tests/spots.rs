//! A problem clicked anywhere (the status bar from any tab, the sandbox's scenario problems, the
//! Lua editor) opens its spot in the file at its line and column, and the spot follows the file:
//! once the file is fixed, it no longer shows the error.

mod common;

use common::{base_copy, on_folder, open_tile, settle, type_into, wait_for_reload};
use egui_kittest::kittest::Queryable;
use hexforge_editor::Tab;

/// The caret line under a spot's marked line, for lines numbered with two digits.
fn caret(column: usize) -> String {
    format!("{:>2} | {}^", "", " ".repeat(column - 1))
}

#[test]
fn a_problem_clicked_on_the_sandbox_tab_opens_its_spot_at_its_line_and_column() {
    let dir = base_copy("spot-sandbox");
    let moloch = dir.join("base/armies/moloch.toml");
    let text = std::fs::read_to_string(&moloch).expect("read moloch.toml");
    let mut harness = on_folder(&dir);
    std::fs::write(
        &moloch,
        text.replace(r#"name = "Gauss Cannon""#, "name = 12"),
    )
    .expect("write moloch.toml");
    wait_for_reload(harness.state_mut());
    harness.run();
    let problem = harness
        .state()
        .content()
        .refused()
        .iter()
        .find(|p| p.file.ends_with("moloch.toml"))
        .cloned()
        .expect("the broken save is refused");
    assert_eq!((problem.line, problem.column), (44, 8), "{problem}");

    harness.get_by_label("Sandbox").click();
    harness.run();
    harness.get_by_label(&problem.to_string()).click();
    harness.run();
    assert_eq!(harness.state().tab(), Tab::Designer, "the spot is shown");
    harness.get_by_label("44 | name = 12");
    harness.get_by_label(&caret(8));
    harness.get_by_label_contains("line 44, column 8: ");

    // Fixed on disk: the spot no longer shows the error.
    std::fs::write(&moloch, &text).expect("write moloch.toml");
    settle(&mut harness);
    assert!(
        harness
            .query_by_label_contains("line 44, column 8: ")
            .is_none()
    );
    assert!(harness.query_by_label(&caret(8)).is_none());
    harness.get_by_label_contains("Fixed: ");
    harness.get_by_label("44 | name = \"Gauss Cannon\"");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_lua_syntax_error_opens_at_the_column_of_its_token() {
    let dir = base_copy("spot-lua");
    let mut harness = on_folder(&dir);
    open_tile(&mut harness, "moloch/gauss", "Gauss Cannon x1");
    type_into(&mut harness, "new ability", "overcharge");
    harness.get_by_label("New ability").click();
    harness.run();
    wait_for_reload(harness.state_mut());
    harness.run();
    harness.get_by_label("Save").click();
    harness.run();
    settle(&mut harness);
    // Saved broken from another program: the reload is refused with the Lua error.
    let lua = dir.join("base/scripts/overcharge.lua");
    let broken = "ability(\"overcharge\", {})\nlocal x = = 2\n";
    std::fs::write(&lua, broken).expect("write the script");
    wait_for_reload(harness.state_mut());
    harness.run();
    let problem = harness
        .state()
        .content()
        .refused()
        .iter()
        .find(|p| p.file.ends_with("overcharge.lua"))
        .cloned()
        .unwrap_or_else(|| panic!("{:?}", harness.state().content().refused()));
    // Listed at its token's column too (Lua's message names only the line).
    assert_eq!((problem.line, problem.column), (2, 11), "{problem}");
    harness.get_by_label("Replays").click();
    harness.run();
    harness.get_by_label(&problem.to_string()).click();
    harness.run();
    assert_eq!(harness.state().tab(), Tab::Designer);
    harness.get_by_label_contains("line 2, column 11: ");
    harness.get_by_label(&format!("{:>1} | {}^", "", " ".repeat(10)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_problem_of_a_scenario_file_opens_its_spot_from_the_sandbox() {
    let dir = base_copy("spot-scenario");
    let file = dir.join("broken.toml");
    std::fs::write(&file, "[board]\nshape = \"standard\"\nplayers = [\n").expect("write");
    let mut harness = on_folder(&dir);
    harness.get_by_label("Sandbox").click();
    harness.run();
    harness
        .state_mut()
        .sandbox_mut()
        .set_scenario_path(&file.display().to_string());
    harness.run();
    harness.get_by_label("Load scenario").click();
    harness.run();
    harness.get_by_label("The scenario file has problems:");
    harness
        .get_by_label_contains(&format!("{}:", file.display()))
        .click();
    harness.run();
    assert_eq!(harness.state().tab(), Tab::Designer, "the spot is shown");
    let spot = harness
        .state()
        .designer()
        .spot()
        .cloned()
        .expect("the spot opens");
    assert_eq!(spot.problem.file, file);
    harness.get_by_label_contains("1 | [board]");
    let _ = std::fs::remove_dir_all(&dir);
}
