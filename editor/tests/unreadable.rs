//! A file that cannot be read is never taken for an empty one: on copies of the base mod, an open
//! army file that turns into bytes that are not UTF-8 text, then into a folder, is named in the
//! status bar with what to do, its buffer is kept and nothing is saved over it; unsaved changes
//! kept from last time are not restored over such a file (they stay offered); an autosave that
//! cannot be read is named on start and left on disk.

mod common;

use common::{base_copy, designing, type_into, wait_for_reload, window};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_editor::Editor;
use hexforge_editor::autosave::path_for;
use std::path::Path;
use std::time::{Duration, Instant};

/// An army file whose bytes are not UTF-8 text.
const NOT_TEXT: &[u8] = b"[army]\nid = \"moloch\xff\xfe\"\n";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The status bar's second line (what the last action did), as the editor keeps it.
fn note(harness: &Harness<'static, Editor>) -> String {
    harness.state().note().unwrap_or_default().to_string()
}

/// Reloads as the watch sees changes until the note says `what` (a change may come as two).
fn reload_until_noted(harness: &mut Harness<'static, Editor>, what: &str) {
    let start = Instant::now();
    while !note(harness).contains(what) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no note saying {what:?}: {:?}",
            note(harness)
        );
        wait_for_reload(harness.state_mut());
    }
    harness.run();
}

#[test]
fn an_open_army_file_that_cannot_be_read_is_named_and_never_emptied_or_saved_over() {
    let dir = base_copy("unreadable-open");
    let moloch = dir.join("base/armies/moloch.toml");
    let mut harness = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
    type_into(&mut harness, "name", "Gauss Lance");
    let mine = harness.state().designer().docs()[0].text().to_string();
    assert!(mine.contains(r#"name = "Gauss Lance""#));

    // Another program writes bytes that are not text: the status bar names the file and says
    // what to do; the buffer keeps the designer's text.
    std::fs::write(&moloch, NOT_TEXT).expect("write the bytes");
    reload_until_noted(&mut harness, "it is not UTF-8 text");
    let said = note(&harness);
    assert!(
        said.starts_with(&format!(
            "cannot read {}: it is not UTF-8 text (open it in a text editor and save it as UTF-8",
            moloch.display()
        )),
        "{said}"
    );
    harness.get_by_label(&said);
    let doc = &harness.state().designer().docs()[0];
    assert_eq!(doc.text(), mine, "never turned into an empty document");
    assert!(doc.dirty());
    // Save writes nothing over what it cannot read.
    harness.get_by_label("Save").click();
    harness.run();
    assert_eq!(std::fs::read(&moloch).expect("read the bytes"), NOT_TEXT);
    let said = note(&harness);
    assert!(
        said.starts_with(&format!("not saved: cannot read {}: ", moloch.display()))
            && said.contains("nothing was written over it"),
        "{said}"
    );
    assert_eq!(harness.state().designer().docs()[0].text(), mine);

    // A folder in the file's place: named as one, and still nothing saved over it.
    std::fs::remove_file(&moloch).expect("remove the file");
    std::fs::create_dir(&moloch).expect("a folder in its place");
    reload_until_noted(&mut harness, "it is a folder");
    let said = note(&harness);
    assert!(
        said.starts_with(&format!("cannot read {}: it is a folder", moloch.display())),
        "{said}"
    );
    harness.get_by_label("Save").click();
    harness.run();
    assert!(moloch.is_dir(), "the folder is left as it is");
    assert!(
        note(&harness).starts_with("not saved: "),
        "{}",
        note(&harness)
    );
    let doc = &harness.state().designer().docs()[0];
    assert_eq!(doc.text(), mine);
    assert!(doc.dirty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unsaved_changes_are_not_restored_over_a_file_that_cannot_be_read() {
    let dir = base_copy("unreadable-offer");
    let moloch = dir.join("base/armies/moloch.toml");
    let text = read(&moloch);
    let unsaved = text.replace(r#"name = "Gauss Cannon""#, r#"name = "Gauss Lance""#);
    assert_ne!(unsaved, text);
    hexforge_editor::autosave::write(&moloch, &unsaved).expect("an autosave");
    std::fs::write(&moloch, NOT_TEXT).expect("write the bytes");

    let mut harness = window(Editor::load(vec![dir.clone()]));
    harness.run();
    harness
        .get_by_label("Restore unsaved changes to moloch.toml")
        .click();
    harness.run();
    let said = note(&harness);
    assert!(
        said.starts_with(&format!(
            "cannot read {}: it is not UTF-8 text",
            moloch.display()
        )) && said.contains("the unsaved changes stay in their autosave"),
        "{said}"
    );
    assert!(
        harness.state().designer().docs().is_empty(),
        "no document, empty or not"
    );
    assert_eq!(
        harness.state().designer().offers().len(),
        1,
        "still offered"
    );
    harness.get_by_label("Restore unsaved changes to moloch.toml");
    assert_eq!(std::fs::read(&moloch).expect("read the bytes"), NOT_TEXT);
    assert_eq!(read(&path_for(&moloch)), unsaved);

    // Once the file reads again, the changes come back over it, unsaved.
    std::fs::write(&moloch, &text).expect("write the file");
    harness
        .get_by_label("Restore unsaved changes to moloch.toml")
        .click();
    harness.run();
    let doc = &harness.state().designer().docs()[0];
    assert_eq!(doc.text(), unsaved);
    assert!(doc.dirty());
    assert!(harness.state().designer().offers().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_autosave_that_cannot_be_read_is_named_on_start_and_left_on_disk() {
    let dir = base_copy("unreadable-autosave");
    let moloch = dir.join("base/armies/moloch.toml");
    let autosave = path_for(&moloch);
    std::fs::write(&autosave, NOT_TEXT).expect("write the bytes");
    let editor = Editor::load(vec![dir.clone()]);
    let said = editor.note().unwrap_or_default();
    assert!(
        said.contains(&format!(
            "cannot read {}: it is not UTF-8 text",
            autosave.display()
        )),
        "{said}"
    );
    assert!(editor.designer().offers().is_empty());
    assert_eq!(std::fs::read(&autosave).expect("read the bytes"), NOT_TEXT);
    let _ = std::fs::remove_dir_all(&dir);
}
