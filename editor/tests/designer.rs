//! The designer driven headlessly on copies of the base mod: an edge clicked in the drawing and
//! changed, then saved, leaves every other byte of the file as it was; a bad value is a problem
//! at once while the last valid drawing stays; undo and redo; unsaved changes survive a crash
//! through their autosave; a copy of Borgo becomes a fan army of its own that gets a new edge
//! and a new Lua ability, saved and reloaded.

mod common;

use common::{base_copy, click_at, designing, settle, type_into, wait_for_reload, window};
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;
use std::path::{Path, PathBuf};

const GAUSS_EDGES: &str = r#"edges = ["ranged:1@0"]        # the reference's gauss:1@0"#;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Clicks the front edge (the top side) of the big drawing.
fn click_front_edge(harness: &mut Harness<'static, Editor>) {
    let rect = harness.get_by_label("tile drawing").rect();
    click_at(harness, rect.center() - egui::vec2(0.0, 115.0));
}

fn gauss(editor: &Editor) -> &hexforge_core::Tile {
    let t = editor
        .content()
        .catalog()
        .find("moloch/gauss_cannon")
        .expect("the Gauss Cannon is loaded");
    editor.content().catalog().get(t)
}

#[test]
fn an_edge_clicked_changed_and_saved_changes_only_its_line() {
    let dir = base_copy("designer-edge");
    let moloch = dir.join("base/armies/moloch.toml");
    let before = read(&moloch);
    assert_eq!(before.matches(GAUSS_EDGES).count(), 1);
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
    click_front_edge(&mut harness);
    assert_eq!(harness.state().designer().edge(), Some(0), "the front edge");
    harness.get_by_label("edge 0 (front)");
    harness.get_by_label("melee 2").click();
    harness.run();
    harness.get_by_label("moloch.toml (unsaved changes)");
    assert_eq!(read(&moloch), before, "nothing is written before saving");
    harness.get_by_label("Save").click();
    harness.run();
    let want = before.replace(
        GAUSS_EDGES,
        r#"edges = ["melee:2@0", "ranged:1@0"]        # the reference's gauss:1@0"#,
    );
    assert_eq!(read(&moloch), want, "one line changed, its comment kept");
    harness.get_by_label("moloch.toml");
    // The hot reload picks the saved file up, and the engine's tile has the new edge.
    settle(&mut harness);
    assert_eq!(gauss(harness.state()).edges[0].melee, 2);
    assert_eq!(
        harness.state().designer().edge(),
        Some(0),
        "the designer stays on the tile"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_value_is_a_problem_at_once_and_the_last_valid_drawing_stays() {
    let dir = base_copy("designer-bad");
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
    type_into(&mut harness, "count", "300");
    let doc = &harness.state().designer().docs()[0];
    assert!(
        doc.text().contains("count = 300"),
        "typed into the file's text"
    );
    harness.get_by_label_contains("count 300 is out of range");
    harness.get_by_label("(the drawing shows the last valid tile)");
    let t = doc.tile_index("gauss_cannon").expect("the tile");
    assert_eq!(doc.tile(t).map(|t| t.count), Some(1), "the last valid tile");
    // Fixed, the problem goes at once.
    type_into(&mut harness, "count", "1");
    assert!(
        harness
            .query_by_label_contains("count 300 is out of range")
            .is_none()
    );
    assert!(
        harness
            .query_by_label("(the drawing shows the last valid tile)")
            .is_none()
    );
    // A valid count that makes the deck 36 tiles: the army shows the engine's size problem (R1.1).
    type_into(&mut harness, "count", "2");
    harness.get_by_label("Back to Moloch").click();
    harness.run();
    harness.get_by_label("36 tiles: 1 hq, 18 soldier, 6 module, 11 instant");
    harness.get_by_label_contains(
        "the tile counts add up to 36, but the army must have 35 tiles (R1.1)",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn undo_and_redo_restore_each_edit() {
    let dir = base_copy("designer-undo");
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
    let original = harness.state().designer().docs()[0].text().to_string();
    type_into(&mut harness, "name", "Gauss Lance");
    let renamed = harness.state().designer().docs()[0].text().to_string();
    assert!(renamed.contains(r#"name = "Gauss Lance""#));
    click_front_edge(&mut harness);
    harness.get_by_label("armor").click();
    harness.run();
    let armored = harness.state().designer().docs()[0].text().to_string();
    assert!(
        armored.contains(r#"edges = ["ranged:1@0", "armor@0"]"#),
        "{armored}"
    );
    // Ctrl+Z undoes the edge, then the whole name typed (one step for the field).
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run();
    assert_eq!(harness.state().designer().docs()[0].text(), renamed);
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(harness.state().designer().docs()[0].text(), original);
    assert!(!harness.state().designer().docs()[0].dirty());
    // Ctrl+Shift+Z and Ctrl+Y redo.
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.run();
    assert_eq!(harness.state().designer().docs()[0].text(), renamed);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    harness.run();
    assert_eq!(harness.state().designer().docs()[0].text(), armored);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unsaved_changes_are_offered_back_on_the_next_start() {
    let dir = base_copy("designer-autosave");
    let moloch = dir.join("base/armies/moloch.toml");
    let before = read(&moloch);
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
    type_into(&mut harness, "name", "Gauss Lance");
    let unsaved = harness.state().designer().docs()[0].text().to_string();
    // A moment later the autosave is written beside the file; then the editor "crashes".
    let later = std::time::Instant::now() + hexforge_editor::autosave::DELAY;
    harness.state_mut().poll(later);
    drop(harness);
    assert_eq!(read(&moloch), before, "the file itself is untouched");
    assert_eq!(read(&hexforge_editor::autosave::path_for(&moloch)), unsaved);

    let mut harness = window(Editor::load(vec![dir.clone()]));
    harness.run();
    assert!(
        harness.state().designer().docs().is_empty(),
        "never applied silently"
    );
    harness
        .get_by_label("Restore unsaved changes to moloch.toml")
        .click();
    harness.run();
    let doc = &harness.state().designer().docs()[0];
    assert_eq!(doc.text(), unsaved);
    assert!(doc.dirty(), "restored changes are still unsaved");
    harness.get_by_label("moloch.toml (unsaved changes)");
    assert!(harness.state().designer().offers().is_empty());
    // Saving writes them and removes the autosave.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run();
    assert_eq!(read(&moloch), unsaved);
    assert!(!hexforge_editor::autosave::path_for(&moloch).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_copy_of_borgo_becomes_a_fan_army_with_a_new_edge_and_a_lua_ability() {
    let dir = base_copy("designer-fan");
    let mut harness = designing(&dir, "borgo/", "Borgo");
    harness.get_by_label("New army…").click();
    harness.run();
    let from = harness.state().designer().form().map(|f| f.from.clone());
    assert_eq!(
        from,
        Some(Some("borgo".to_string())),
        "a copy of the army shown"
    );
    assert_eq!(
        harness
            .get_by_role_and_label(Role::TextInput, "army id")
            .value()
            .as_deref(),
        Some("borgo_fan")
    );
    harness.get_by_label("Create the army").click();
    harness.run();
    let file: PathBuf = dir.join("borgo_fan/armies/borgo_fan.toml");
    assert!(file.is_file(), "{:?}", harness.state().note());
    settle(&mut harness);
    let editor = harness.state();
    let fan = editor
        .content()
        .catalog()
        .army("borgo_fan")
        .expect("the copy loads");
    let borgo = editor
        .content()
        .catalog()
        .army("borgo")
        .expect("Borgo stays");
    assert_eq!(fan.tiles.len(), borgo.tiles.len());
    assert!(
        fan.tiles
            .iter()
            .all(|&t| editor.content().catalog().get(t).army == "borgo_fan")
    );
    assert_eq!(
        editor.designer().open().map(|o| o.file.clone()),
        Some(file.clone()),
        "the new army opens"
    );
    harness.get_by_label("Borgo (fan)");

    // A tile of the copy gets a new edge and a new Lua ability; saved, it reloads.
    harness.get_by_label_contains("deck: Butcher").click();
    harness.run();
    click_front_edge(&mut harness);
    harness.get_by_label("net").click();
    harness.run();
    type_into(&mut harness, "new ability", "fan_rally");
    harness.get_by_label("New ability").click();
    harness.run();
    let lua = dir.join("borgo_fan/scripts/fan_rally.lua");
    assert!(lua.is_file(), "{:?}", harness.state().note());
    wait_for_reload(harness.state_mut());
    harness.run();
    harness.get_by_label("Save").click();
    harness.run();
    settle(&mut harness);
    let editor = harness.state();
    let t = editor
        .content()
        .catalog()
        .find("borgo_fan/butcher")
        .expect("the copy's butcher");
    let butcher = editor.content().catalog().get(t);
    assert!(butcher.edges[0].net);
    assert!(butcher.abilities.iter().any(|a| a.hook == "fan_rally"));
    let original = editor
        .content()
        .catalog()
        .find("borgo/butcher")
        .expect("Borgo's butcher");
    assert!(!editor.content().catalog().get(original).edges[0].net);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tiles_are_duplicated_from_the_deck_and_deleted_after_asking() {
    let dir = base_copy("designer-deck");
    let mut harness = designing(&dir, "moloch/", "Moloch");
    let tiles = harness.state().designer().docs()[0].tile_count();
    harness
        .get_by_label("deck: Gauss Cannon x1")
        .click_secondary();
    harness.run();
    harness.get_by_label("Duplicate the tile").click();
    harness.run();
    let doc = &harness.state().designer().docs()[0];
    assert_eq!(doc.tile_count(), tiles + 1);
    let copy = doc.tile_index("gauss_cannon_copy").expect("the copy");
    assert_eq!(
        doc.tile_index("gauss_cannon"),
        Some(copy - 1),
        "right after it"
    );
    // The copy opens in the tile designer; a 36th tile is a problem until a count changes.
    harness.get_by_label("moloch/gauss_cannon_copy");
    harness.get_by_label_contains("add up to 36");
    harness.get_by_label("Delete the tile…").click();
    harness.run();
    assert_eq!(
        harness.state().designer().docs()[0].tile_count(),
        tiles + 1,
        "it asks first"
    );
    harness.get_by_label_contains("Delete the tile `gauss_cannon_copy`?");
    harness.get_by_label("Delete the tile").click();
    harness.run();
    let doc = &harness.state().designer().docs()[0];
    assert_eq!(doc.tile_count(), tiles);
    assert!(!doc.dirty(), "back to the file as saved");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_new_army_in_the_user_mods_folder_is_loaded_and_watched_at_once() {
    let dir = base_copy("designer-user");
    let user = dir.join("user-mods");
    let mut editor = Editor::load(vec![dir.join("base")]);
    editor.set_user_mods(Some(user.clone()));
    let form = hexforge_editor::new_army::Form::new(editor.content().loaded(), None, true);
    assert_eq!(form.id, "fan_army");
    editor.create_army(&form).unwrap_or_else(|e| panic!("{e}"));
    let file = user.join("fan_army/armies/fan_army.toml");
    assert!(file.is_file());
    assert!(
        editor.content().roots().contains(&user.join("fan_army")),
        "{:?}",
        editor.content().roots()
    );
    assert!(
        editor.content().refused().is_empty(),
        "{:?}",
        editor.content().refused()
    );
    assert!(editor.content().catalog().army("fan_army").is_some());
    assert_eq!(editor.designer().open().map(|o| o.file.clone()), Some(file));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_lua_syntax_error_shows_as_it_is_typed() {
    let dir = base_copy("designer-lua");
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
    type_into(&mut harness, "new ability", "overcharge");
    harness.get_by_label("New ability").click();
    harness.run();
    let lua = harness
        .state()
        .designer()
        .lua()
        .map(|l| l.path.display().to_string())
        .expect("the new Lua file is open");
    assert!(lua.ends_with("scripts/overcharge.lua"), "{lua}");
    wait_for_reload(harness.state_mut());
    harness.run();
    // The template compiles.
    assert!(harness.query_by_label_contains("line ").is_none());
    let text = |h: &mut Harness<'static, Editor>, t: &str| {
        // The Lua editor, labelled by its path (and "(unsaved changes)" once typed into).
        h.get_by_role(Role::MultilineTextInput).focus();
        h.run();
        h.key_press_modifiers(Modifiers::COMMAND, Key::A);
        h.run();
        h.get_by_role(Role::MultilineTextInput).type_text(t);
        h.run();
    };
    text(
        &mut harness,
        "ability(\"overcharge\", {\n  initiative = function(ctx)\n    return 1\n})\n",
    );
    harness.get_by_label_contains("line 4:");
    text(
        &mut harness,
        "ability(\"overcharge\", {\n  initiative = function(ctx)\n    return 1\n  end,\n})\n",
    );
    assert!(harness.query_by_label_contains("line 4:").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}
