//! What the editor's UI tests share: the editor over the repo's mods in a headless window of a
//! laptop's size, copies of the base mod for tests that change files, and waiting for a reload.
#![allow(dead_code)] // each test file uses its own part of this module

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_core::Hex;
use hexforge_editor::Editor;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The editor over this checkout's `mods/`.
pub fn editor() -> Editor {
    Editor::load(vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods")])
}

/// The editor in a headless window of a laptop's size.
pub fn window(editor: Editor) -> Harness<'static, Editor> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(|ui, editor: &mut Editor| editor.ui(ui), editor)
}

/// The editor on the mod folders in `dir` alone (no user mods folder), drawn once.
pub fn on_folder(dir: &Path) -> Harness<'static, Editor> {
    let mut editor = Editor::load(vec![dir.to_path_buf()]);
    editor.set_user_mods(None);
    let mut harness = window(editor);
    harness.run();
    harness
}

/// The editor on the mods in `dir`, with the tile `label` of the base tiles matching `search`
/// open in the designer.
pub fn designing(dir: &Path, search: &str, label: &str) -> Harness<'static, Editor> {
    let mut harness = on_folder(dir);
    open_tile(&mut harness, search, label);
    harness
}

/// Opens the base tile `label` among those matching `search` in the designer.
pub fn open_tile(harness: &mut Harness<'static, Editor>, search: &str, label: &str) {
    harness.state_mut().browser_mut().set_search(search);
    harness.run();
    harness.get_by_label("base").click();
    harness.run();
    harness.get_by_label(label).click();
    harness.run();
}

/// A copy of the base mod in a fresh folder of its own, for tests that change files on disk.
pub fn base_copy(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-editor-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/base"),
        &dir.join("base"),
    );
    dir
}

pub fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for e in std::fs::read_dir(from).expect("read the base mod") {
        let e = e.expect("a folder entry");
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).expect("copy a file");
        }
    }
}

/// Polls the editor until a reload happened (the watch saw the change and it settled).
pub fn wait_for_reload(editor: &mut Editor) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if editor.poll(Instant::now()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no reload within 10 s of the change");
}

/// Waits for a reload, draws a frame and checks the reloaded content brought no problems.
pub fn settle(harness: &mut Harness<'static, Editor>) {
    wait_for_reload(harness.state_mut());
    harness.run();
    let refused = harness.state().content().refused();
    assert!(refused.is_empty(), "{refused:?}");
}

/// A click of the primary button at `pos`.
pub fn click_at(harness: &mut Harness<'static, Editor>, pos: egui::Pos2) {
    harness.hover_at(pos);
    harness.run();
    harness.drag_at(pos);
    harness.run();
    harness.drop_at(pos);
    harness.run();
}

/// Replaces the text of the field labelled `label` with `text`, as typed.
pub fn type_into(harness: &mut Harness<'static, Editor>, label: &str, text: &str) {
    harness
        .get_by_role_and_label(Role::TextInput, label)
        .focus();
    harness.run();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.run();
    harness
        .get_by_role_and_label(Role::TextInput, label)
        .type_text(text);
    harness.run();
}

/// The editor's sandbox with the scenario file `path` (from the editor's folder) loaded by
/// its button.
#[allow(dead_code)]
pub fn sandbox_with_file(path: &str) -> Harness<'static, Editor> {
    let mut harness = window(editor());
    harness.state_mut().show(hexforge_editor::Tab::Sandbox);
    harness.run();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    harness
        .state_mut()
        .sandbox_mut()
        .set_scenario_path(&path.display().to_string());
    harness.run();
    harness.get_by_label("Load scenario").click();
    harness.run();
    harness.get_by_label_contains(&format!("Loaded {}", path.display()));
    harness
}

/// A click at `hex` of the sandbox board as it was last drawn.
pub fn click_hex(harness: &mut Harness<'static, Editor>, hex: Hex) {
    let pos = harness
        .state()
        .sandbox()
        .hex_pos(hex)
        .expect("the board was drawn");
    click_at(harness, pos);
}

/// In the sandbox: picks the seat of `player` (`p1`...), then `army` in the palette, the palette
/// tile `name`, and clicks `hex`.
pub fn place(
    harness: &mut Harness<'static, Editor>,
    army: &str,
    player: &str,
    name: &str,
    hex: Hex,
) {
    harness.get_by_label(player).click();
    harness.run();
    harness.state_mut().sandbox_mut().show_army(army);
    harness.run();
    harness.get_by_label(name).click();
    harness.run();
    click_hex(harness, hex);
}

/// In the sandbox: presses Battle and steps to the end of the battle.
pub fn battle_to_the_end(harness: &mut Harness<'static, Editor>) {
    harness.get_by_label("Battle").click();
    harness.run();
    harness.get_by_label_contains("Before the battle (1 of ");
    harness.get_by_label("Next phase").click();
    harness.run();
    harness.get_by_label_contains("(2 of ");
    harness.get_by_label("End").click();
    harness.run();
    harness.get_by_label_contains("After the battle");
}

/// In the sandbox: saves the board as a scenario at `path` with its button, reads the file back
/// with the scenario crate and checks that it passes (its expectations hold). Returns what was read.
pub fn save_scenario_and_run(
    harness: &mut Harness<'static, Editor>,
    path: &Path,
) -> hexforge_scenario::Scenario {
    harness
        .state_mut()
        .sandbox_mut()
        .set_scenario_path(&path.display().to_string());
    harness.run();
    harness.get_by_label("Save as scenario").click();
    harness.run();
    harness.get_by_label(&format!("Saved {}", path.display()));
    let (content, scripts) = harness.state_mut().content_and_scripts();
    let s = hexforge_scenario::load_scenario(path, content.catalog())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let report = hexforge_scenario::run_scenario(&s, content.catalog(), scripts);
    assert!(report.passed(), "{:?}", report.failures);
    s
}
