//! The Lua editor opened from a tile's ability: the file opens at the line of the ability's
//! `ability("name", ...)` (the cursor there, the line scrolled into view), with line numbers
//! beside the text (the colours are the highlighter's, tested with it).

mod common;

use common::{copy, window};
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;
use hexforge_editor::lua_view::{ability_line, line_numbers};
use std::path::Path;

#[test]
fn the_lua_file_of_an_ability_opens_at_its_line_with_line_numbers() {
    let dir = std::env::temp_dir().join(format!("hexforge-editor-lua-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mods = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
    copy(&mods.join("examples"), &dir.join("examples"));
    let mut editor = Editor::load(vec![dir.clone()]);
    editor.set_user_mods(None);
    let mut harness = window(editor);
    harness
        .state_mut()
        .browser_mut()
        .set_search("scrappers/mechanic");
    harness.run();
    harness.get_by_label("examples").click();
    harness.run();
    harness.get_by_label("Mechanic x2").click();
    harness.run();
    harness.get_by_label("field_repair").click();
    harness.run();
    harness.get_by_label("Edit the Lua file").click();
    harness.run();
    harness.run();

    let lua = harness
        .state()
        .designer()
        .lua()
        .cloned()
        .expect("the Lua file is open");
    assert!(lua.path.ends_with("scripts/scrappers.lua"));
    let line = ability_line(&lua.text, "field_repair").expect("the ability's line");
    assert!(line > 40, "far enough down to need scrolling: {line}");
    // The cursor is at the start of that line, in the focused text.
    let id = egui::Id::unique("designer_lua_text");
    let state = egui::TextEdit::load_state(&harness.ctx, id).expect("the text's state");
    let at = state.cursor.char_range().expect("a cursor").primary.index.0;
    let cursor_line = lua.text.chars().take(at).filter(|&c| c == '\n').count() + 1;
    assert_eq!(cursor_line, line);
    assert!(harness.ctx.memory(|m| m.has_focus(id)));
    // Scrolled: the top of the text is above the editor's buttons.
    let text = harness.get_by_role(Role::MultilineTextInput).rect();
    let save = harness.get_by_label("Save the Lua file").rect();
    assert!(text.top() < save.bottom() - 200.0, "{text:?} {save:?}");
    // Line numbers beside the text.
    harness.get_by_label(&line_numbers(&lua.text));
    let _ = std::fs::remove_dir_all(&dir);
}
