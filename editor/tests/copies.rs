//! "New army…" copies what the army needs: a copy of the Scrappers (every ability in the Lua of
//! their own mod) into a new mod brings those Lua files along, declared in the new mod's manifest,
//! and the copy loads with no problem and its abilities bound to its own mod's scripts.

mod common;

use common::{copy, settle, window};
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;
use std::path::Path;

#[test]
fn a_copy_of_the_scrappers_in_a_new_mod_brings_their_lua_and_loads_clean() {
    let dir = std::env::temp_dir().join(format!("hexforge-editor-copies-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mods = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
    copy(&mods.join("base"), &dir.join("base"));
    copy(&mods.join("examples"), &dir.join("examples"));
    let mut editor = Editor::load(vec![dir.clone()]);
    editor.set_user_mods(None);
    assert!(
        editor.content().loaded().problems.is_empty(),
        "{:?}",
        editor.content().loaded().problems
    );
    let mut harness = window(editor);
    harness.run();
    harness.get_by_label("examples").click();
    harness.run();
    harness.get_by_label("Scrappers").click();
    harness.run();
    harness.get_by_label("New army…").click();
    harness.run();
    harness.get_by_label("Create the army").click();
    harness.run();
    let new_mod = dir.join("scrappers_fan");
    assert!(
        new_mod.join("armies/scrappers_fan.toml").is_file(),
        "{:?}",
        harness.state().note()
    );
    // The Lua came along, and the manifest says the mod has scripts.
    let lua = new_mod.join("scripts/scrappers.lua");
    assert_eq!(
        std::fs::read_to_string(&lua).expect("the Lua file was copied"),
        std::fs::read_to_string(dir.join("examples/scripts/scrappers.lua")).expect("read")
    );
    let manifest = std::fs::read_to_string(new_mod.join("mod.toml")).expect("read the manifest");
    if manifest.contains("[provides]") {
        assert!(manifest.contains("scripts = true"), "{manifest}");
    }
    // Loaded with no problem (settle checks the reload was not refused), every ability bound to
    // the copy's own scripts.
    settle(&mut harness);
    let editor = harness.state();
    assert!(
        editor.content().loaded().problems.is_empty(),
        "{:?}",
        editor.content().loaded().problems
    );
    let catalog = editor.content().catalog();
    let fan = catalog.army("scrappers_fan").expect("the copy loads");
    let mut bound = 0;
    for &t in &fan.tiles {
        for a in &catalog.get(t).abilities {
            let source = hexforge_script::hook_source(
                &editor.content().loaded().mods,
                "scrappers_fan",
                &a.hook,
            )
            .unwrap_or_else(|| panic!("no source for {}", a.hook));
            if Path::new(&source.file).starts_with(&new_mod) {
                bound += 1;
            }
        }
    }
    assert!(bound >= 8, "{bound} abilities bound to the copy's Lua");
    // The note names the Lua files copied (every script of the mod, in path order).
    harness.get_by_label_contains("its abilities' Lua files were copied too: ");
    let note = harness.state().note().unwrap_or_default().to_string();
    assert!(
        note.contains("Lua files were copied too: ") && note.contains("scripts/scrappers.lua"),
        "{note}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
