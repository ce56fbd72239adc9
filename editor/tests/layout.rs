//! Controls never move under the pointer: the designer's toolbar buttons keep their place whether
//! the file has unsaved changes or not, while a reload is refused (its problems in the status
//! bar's own space) and while unsaved changes from last time are offered back (in a modal window).

mod common;

use common::{base_copy, type_into, wait_for_reload, window};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;
use std::path::Path;

const BUTTONS: [&str; 6] = [
    "Save",
    "Undo",
    "Redo",
    "Discard changes…",
    "Delete the army…",
    "New army…",
];

fn rects(harness: &Harness<'static, Editor>) -> Vec<egui::Rect> {
    BUTTONS
        .iter()
        .map(|b| harness.get_by_label(b).rect())
        .collect()
}

fn designing(dir: &Path) -> Harness<'static, Editor> {
    let mut editor = Editor::load(vec![dir.to_path_buf()]);
    editor.user_mods = None;
    let mut harness = window(editor);
    harness.state_mut().search = "moloch/gauss".into();
    harness.run();
    harness.get_by_label("base").click();
    harness.run();
    harness.get_by_label("Gauss Cannon x1").click();
    harness.run();
    harness
}

#[test]
fn the_toolbar_buttons_never_move() {
    let dir = base_copy("layout");
    let mut harness = designing(&dir);
    let before = rects(&harness);

    // Unsaved changes: the file's state shows after the buttons.
    type_into(&mut harness, "name", "Gauss Lance");
    harness.get_by_label("moloch.toml (unsaved changes)");
    assert_eq!(rects(&harness), before, "after an edit");
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(rects(&harness), before, "after an undo");
    harness.get_by_label("Redo").click();
    harness.run();
    assert_eq!(rects(&harness), before, "after a redo");

    // A refused reload: its problems are listed in the status bar, which does not grow.
    let borgo = dir.join("base/armies/borgo.toml");
    let text = std::fs::read_to_string(&borgo).expect("read borgo.toml");
    std::fs::write(&borgo, text.replacen("name = \"", "name = 12 # \"", 2)).expect("write");
    wait_for_reload(harness.state_mut());
    harness.run();
    assert!(!harness.state().refused.is_empty());
    harness.get_by_label("The last save has problems:");
    assert_eq!(rects(&harness), before, "after a refused reload");
    let tabs = harness.get_by_label("Sandbox").rect();

    // Unsaved changes kept from last time are offered back in a modal window.
    let later = std::time::Instant::now() + hexforge_editor::autosave::DELAY;
    harness.state_mut().poll(later);
    drop(harness);
    std::fs::write(&borgo, &text).expect("write");
    let mut harness = window(Editor::load(vec![dir.clone()]));
    harness.run();
    harness.get_by_label("Restore unsaved changes to moloch.toml");
    assert_eq!(rects(&harness), before, "with an autosave offer showing");
    assert_eq!(harness.get_by_label("Sandbox").rect(), tabs);
    let _ = std::fs::remove_dir_all(&dir);
}
