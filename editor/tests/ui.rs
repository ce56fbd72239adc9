//! The editor's views driven headlessly: the mod browser lists the loaded mods, and picking a
//! tile shows it in the tile view.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;
use std::path::Path;

fn editor() -> Editor {
    Editor::load(vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods")])
}

#[test]
fn the_browser_lists_mods_and_a_picked_tile_is_drawn() {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, editor: &mut Editor| editor.ui(ui), editor());
    // Only Moloch's tiles, so the list fits the window and the click lands on the tile.
    harness.state_mut().search = "moloch/".into();
    harness.run();
    harness.get_by_label("base").click();
    harness.run();
    harness.get_by_label("Gauss Cannon x1").click();
    harness.run();
    assert!(harness.state().selected.is_some());
    harness.get_by_label("moloch/gauss_cannon");
    harness.get_by_label("line_shot");
}

#[test]
fn the_search_narrows_the_tiles() {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, editor: &mut Editor| editor.ui(ui), editor());
    harness.state_mut().search = "gauss".into();
    harness.run();
    harness.get_by_label("base").click();
    harness.run();
    harness.get_by_label("Gauss Cannon x1");
    assert!(harness.query_by_label("Clown x1").is_none());
}

#[test]
fn the_kind_filter_lists_only_that_kind() {
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, editor: &mut Editor| editor.ui(ui), editor());
    harness.state_mut().search = "moloch/".into();
    harness.run();
    harness.get_by_label("base").click();
    harness.run();
    harness.get_by_label("Gauss Cannon x1");
    harness.get_by_label("instant").click();
    harness.run();
    assert!(harness.query_by_label("Gauss Cannon x1").is_none());
    harness.get_by_label("Battle x4");
}
