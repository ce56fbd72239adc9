//! Open buffers against their files on disk, driven headlessly on copies of the base mod: an
//! unedited buffer (an army file, the Lua editor's file) follows an outside change silently; when
//! both sides changed, saving writes nothing and the editor shows both versions until the designer
//! keeps theirs or takes the disk's.

mod common;

use common::{base_copy, designing, type_into, wait_for_reload};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;
use std::path::{Path, PathBuf};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// One keystroke typed at the end of the Lua editor's text.
fn type_in_lua(harness: &mut Harness<'static, Editor>, typed: &str) {
    harness.get_by_role(Role::MultilineTextInput).focus();
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::End);
    harness.run();
    harness
        .get_by_role(Role::MultilineTextInput)
        .type_text(typed);
    harness.run();
}

fn lua_text(harness: &Harness<'static, Editor>) -> String {
    let lua = harness
        .state()
        .designer()
        .lua()
        .expect("the Lua file is open");
    lua.text.clone()
}

fn asks(harness: &Harness<'static, Editor>) {
    harness.get_by_label("Keep mine (overwrite the file)");
    harness.get_by_label("Take the disk version");
    harness.get_by_label_contains("yours (from line");
    harness.get_by_label_contains("on disk (from line");
}

fn asks_nothing(harness: &Harness<'static, Editor>) {
    assert!(
        harness
            .query_by_label("Keep mine (overwrite the file)")
            .is_none(),
        "no question"
    );
}

#[test]
fn the_lua_buffer_follows_outside_changes_and_asks_when_both_sides_changed() {
    let dir = base_copy("disk-lua");
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
    type_into(&mut harness, "new ability", "overcharge");
    harness.get_by_label("New ability").click();
    harness.run();
    let lua: PathBuf = dir.join("base/scripts/overcharge.lua");
    wait_for_reload(harness.state_mut());
    harness.run();
    let template = read(&lua);

    // Unedited: an outside save is taken silently.
    let outside = format!("-- saved elsewhere\n{template}");
    write(&lua, &outside);
    wait_for_reload(harness.state_mut());
    harness.run();
    assert_eq!(lua_text(&harness), outside);
    asks_nothing(&harness);

    // One keystroke, then an outside save, then "Save the Lua file": nothing is written.
    type_in_lua(&mut harness, "-- mine");
    let mine = lua_text(&harness);
    assert!(mine.contains("-- mine"), "{mine}");
    let outside2 = format!("-- saved elsewhere again\n{template}");
    write(&lua, &outside2);
    harness.get_by_label("Save the Lua file").click();
    harness.run();
    assert_eq!(read(&lua), outside2, "the outside edit is not overwritten");
    asks(&harness);
    assert_eq!(lua_text(&harness), mine, "the unsaved edit is kept");
    harness.get_by_label("Take the disk version").click();
    harness.run();
    assert_eq!(lua_text(&harness), outside2);
    assert_eq!(read(&lua), outside2);
    asks_nothing(&harness);

    // Edited again, and the hot reload notices an outside save: it asks, then keeps mine.
    type_in_lua(&mut harness, "-- mine again");
    let mine = lua_text(&harness);
    let outside3 = format!("-- a third save elsewhere\n{template}");
    write(&lua, &outside3);
    wait_for_reload(harness.state_mut());
    harness.run();
    asks(&harness);
    assert_eq!(read(&lua), outside3, "nothing written before the choice");
    assert_eq!(
        lua_text(&harness),
        mine,
        "nothing dropped before the choice"
    );
    harness
        .get_by_label("Keep mine (overwrite the file)")
        .click();
    harness.run();
    assert_eq!(read(&lua), mine);
    asks_nothing(&harness);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_army_file_follows_outside_changes_and_asks_when_both_sides_changed() {
    let dir = base_copy("disk-army");
    let moloch = dir.join("base/armies/moloch.toml");
    let text = read(&moloch);
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");

    // Unedited: an outside save is taken silently.
    let outside = text.replace(r#"name = "Moloch""#, r#"name = "Moloch Prime""#);
    assert_ne!(outside, text);
    write(&moloch, &outside);
    wait_for_reload(harness.state_mut());
    harness.run();
    assert_eq!(harness.state().designer().docs()[0].text(), outside);
    assert!(!harness.state().designer().docs()[0].dirty());
    asks_nothing(&harness);

    // Edited, then saved elsewhere, then Save: nothing is written, both versions are shown.
    type_into(&mut harness, "name", "Gauss Lance");
    let mine = harness.state().designer().docs()[0].text().to_string();
    let outside2 = outside.replace(r#"name = "Moloch Prime""#, r#"name = "Moloch II""#);
    write(&moloch, &outside2);
    harness.get_by_label("Save").click();
    harness.run();
    assert_eq!(
        read(&moloch),
        outside2,
        "the outside edit is not overwritten"
    );
    asks(&harness);
    harness.get_by_label("Take the disk version").click();
    harness.run();
    assert_eq!(harness.state().designer().docs()[0].text(), outside2);
    assert!(!harness.state().designer().docs()[0].dirty());

    // Edited again; the hot reload notices an outside save and asks; mine is kept.
    type_into(&mut harness, "name", "Gauss Pike");
    let mine2 = harness.state().designer().docs()[0].text().to_string();
    assert_ne!(mine, mine2);
    let outside3 = outside2.replace(r#"name = "Moloch II""#, r#"name = "Moloch III""#);
    write(&moloch, &outside3);
    wait_for_reload(harness.state_mut());
    harness.run();
    asks(&harness);
    assert_eq!(read(&moloch), outside3);
    assert_eq!(harness.state().designer().docs()[0].text(), mine2);
    harness
        .get_by_label("Keep mine (overwrite the file)")
        .click();
    harness.run();
    assert_eq!(read(&moloch), mine2);
    assert!(!harness.state().designer().docs()[0].dirty());
    asks_nothing(&harness);
    let _ = std::fs::remove_dir_all(&dir);
}
