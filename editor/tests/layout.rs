//! Controls never move under the pointer: the designer's toolbar buttons keep their place whether
//! the file has unsaved changes or not, while a reload is refused (its problems in the status
//! bar's own space) and while unsaved changes from last time are offered back (in a modal window).

mod common;

use common::{base_copy, designing, type_into, wait_for_reload, window};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;

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

#[test]
fn the_toolbar_buttons_never_move() {
    let dir = base_copy("layout");
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
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
    assert!(!harness.state().content().refused().is_empty());
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

#[test]
fn problems_coming_and_going_move_no_control() {
    let dir = base_copy("layout-problems");
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
    // The tile designer, its ability's source shown: a bad count and a bad parameter bring
    // problems; the controls after them stay.
    harness.get_by_label("line_shot").click();
    harness.run();
    let tile_controls = ["Close the source", "New ability", "Duplicate the tile"];
    let rects = |h: &Harness<'static, Editor>, labels: &[&str]| -> Vec<egui::Rect> {
        labels
            .iter()
            .filter_map(|l| h.query_by_label(l).map(|n| n.rect()))
            .collect()
    };
    let before = rects(&harness, &tile_controls);
    assert_eq!(before.len(), 3);
    type_into(&mut harness, "count", "300");
    type_into(&mut harness, "toughness", "9");
    type_into(&mut harness, "params", "range =");
    harness.get_by_label_contains("count 300 is out of range");
    harness.get_by_label_contains("is not `name = value, ...`");
    assert_eq!(rects(&harness, &tile_controls), before, "a tile's problems");
    type_into(&mut harness, "params", "");
    type_into(&mut harness, "toughness", "1");
    type_into(&mut harness, "count", "1");
    // The army editor: a wrong size brings a problem; the new-tile buttons and the deck stay.
    harness.get_by_label("Back to Moloch").click();
    harness.run();
    let army_controls = ["New soldier", "New module", "deck: Gauss Cannon x1"];
    let before = rects(&harness, &army_controls);
    assert_eq!(before.len(), 3);
    type_into(&mut harness, "army size", "3");
    harness.get_by_label_contains("but the army must have 3 tiles");
    assert_eq!(
        rects(&harness, &army_controls),
        before,
        "the army's problem"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_sandbox_controls_stay_put_when_a_placement_is_refused() {
    use hexforge_core::Hex;
    let mut harness = window(common::editor());
    harness.state_mut().show(hexforge_editor::Tab::Sandbox);
    harness.run();
    common::place(&mut harness, "borgo", "p1", "HQ", Hex::new(0, 1));
    common::place(&mut harness, "moloch", "p2", "HQ", Hex::new(0, -1));
    common::place(&mut harness, "borgo", "p1", "Brawler", Hex::new(0, 0));
    let controls = ["nets", "module links", "lines of fire"];
    let rects = |h: &Harness<'static, Editor>| -> Vec<egui::Rect> {
        controls.iter().map(|c| h.get_by_label(c).rect()).collect()
    };
    let before = rects(&harness);
    // A second HQ is refused with the engine's reason, shown in the notes' own space.
    common::place(&mut harness, "moloch", "p2", "HQ", Hex::new(1, 0));
    harness.get_by_label_contains("already has an HQ");
    assert_eq!(rects(&harness), before);
}
