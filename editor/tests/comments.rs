//! Every kind of edit the designer makes keeps every comment of the army file: a copy of Moloch
//! with a comment above each key and table and after each value is edited field by field, edge by
//! edge, ability by ability, in its army header and deck, then saved, and every comment is still in
//! the file.

mod common;

use common::{base_copy, click_at, open_tile, type_into, window};
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;

/// `text` with a numbered comment above every key and table header, and after every value that
/// has none.
fn commented(text: &str) -> String {
    let mut out = String::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let key = !t.starts_with('#') && t.contains(" = ");
        if key || t.starts_with('[') {
            out.push_str(&format!("# above-{n}: about what follows\n"));
        }
        out.push_str(line);
        if key && !t.contains('#') {
            out.push_str(&format!("   # after-{n}"));
        }
        out.push('\n');
    }
    out.push_str("# the end of the file\n");
    out
}

/// The comment of each line of `text` (from its `#`).
fn comments(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.find('#').map(|at| l[at..].trim_end().to_string()))
        .collect()
}

fn click_front_edge(harness: &mut Harness<'static, Editor>) {
    let rect = harness.get_by_label("tile drawing").rect();
    click_at(harness, rect.center() - egui::vec2(0.0, 115.0));
}

/// Empties the field labelled `label`, as a person does (all selected, then Backspace).
fn empty(harness: &mut Harness<'static, Editor>, label: &str) {
    harness
        .get_by_role_and_label(Role::TextInput, label)
        .focus();
    harness.run();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.run();
    harness.key_press(Key::Backspace);
    harness.run();
    assert_eq!(
        harness
            .get_by_role_and_label(Role::TextInput, label)
            .value()
            .as_deref(),
        Some("")
    );
}

#[test]
fn every_kind_of_edit_keeps_every_comment() {
    let dir = base_copy("comments");
    let moloch = dir.join("base/armies/moloch.toml");
    let text = commented(&std::fs::read_to_string(&moloch).expect("read moloch.toml"));
    std::fs::write(&moloch, &text).expect("write moloch.toml");
    let wanted = comments(&text);
    assert!(wanted.len() > 300, "{}", wanted.len());
    assert!(text.contains("# above-"));

    let mut editor = Editor::load(vec![dir.clone()]);
    editor.set_user_mods(None);
    assert!(
        editor.content().loaded().problems.is_empty(),
        "{:?}",
        editor.content().loaded().problems
    );
    let mut harness = window(editor);
    open_tile(&mut harness, "moloch/", "Gauss Cannon x1");

    // Fields: typed, emptied (the key goes, its comments stay), a checkbox.
    type_into(&mut harness, "name", "Gauss Lance");
    type_into(&mut harness, "count", "2");
    type_into(&mut harness, "initiative", "2, 1");
    empty(&mut harness, "toughness");
    harness.get_by_label("mobile").click();
    harness.run();
    // Edges.
    click_front_edge(&mut harness);
    harness.get_by_label("melee 2").click();
    harness.run();
    harness.get_by_label("armor").click();
    harness.run();
    // Abilities: parameters typed, one bound from the list.
    type_into(&mut harness, "params", "range = 2");
    harness.get_by_label("bind").click();
    harness.run();
    harness.get_by_label("extra_attack").click();
    harness.run();
    // A module's table emptied (it goes, its comments stay).
    harness.get_by_label("Back to Moloch").click();
    harness.run();
    harness.get_by_label("deck: Brain x1").click();
    harness.run();
    empty(&mut harness, "module melee");
    empty(&mut harness, "module ranged");
    assert!(
        !harness.state().designer().docs()[0]
            .text()
            .contains("[tile.module]\n# above-163")
    );
    // The army's header and deck: fields, a new tile, a duplicated one.
    harness.get_by_label("Back to Moloch").click();
    harness.run();
    type_into(&mut harness, "army name", "Moloch Prime");
    type_into(&mut harness, "army size", "40");
    harness.get_by_label("New soldier").click();
    harness.run();
    harness.get_by_label("Back to Moloch Prime").click();
    harness.run();
    harness
        .get_by_label("deck: Hunter-Killer x2")
        .click_secondary();
    harness.run();
    harness.get_by_label("Duplicate the tile").click();
    harness.run();

    harness.get_by_label("Save").click();
    harness.run();
    let saved = std::fs::read_to_string(&moloch).expect("read moloch.toml");
    assert!(saved.contains(r#"name = "Gauss Lance""#), "{saved}");
    assert!(saved.contains(r#"name = "Moloch Prime""#), "{saved}");
    assert!(saved.contains("extra_attack"), "{saved}");
    assert!(saved.contains("hunter_killer_copy"), "{saved}");
    assert!(!saved.contains("toughness = 1   # after-48"), "{saved}");
    assert!(!saved.contains("[tile.module]\n# above-163"), "{saved}");
    let lost: Vec<&String> = wanted
        .iter()
        .filter(|c| !saved.contains(c.as_str()))
        .collect();
    assert!(lost.is_empty(), "comments lost: {lost:#?}\n{saved}");
    let _ = std::fs::remove_dir_all(&dir);
}
