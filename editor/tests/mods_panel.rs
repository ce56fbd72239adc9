//! The Mods tab driven headlessly against a real portal (on a free port, over SQLite in a
//! temporary folder): a search, a mod installed with the mod it needs into the user mods folder,
//! loaded; disabled and enabled again; updated when the portal has a newer version.

mod common;

use common::window;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_content::archive;
use hexforge_editor::{Editor, Tab};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-mods-tab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// A new mod `id` at `version` in `root`, needing `needs`: its archive.
fn archive_of(root: &Path, id: &str, version: &str, needs: &[(&str, &str)]) -> Vec<u8> {
    let _ = std::fs::remove_dir_all(root.join(id));
    hexforge_content::scaffold::new_mod(root, id).expect("a new mod");
    let manifest = root.join(id).join("mod.toml");
    let mut text = std::fs::read_to_string(&manifest).expect("its manifest");
    text = text.replace("version = \"0.1.0\"", &format!("version = \"{version}\""));
    if !needs.is_empty() {
        text.push_str("\n[dependencies]\n");
        for (d, req) in needs {
            text.push_str(&format!("{d} = \"{req}\"\n"));
        }
    }
    std::fs::write(&manifest, text).expect("written");
    let info = hexforge_content::load_mod(&root.join(id)).unwrap_or_else(|d| panic!("{d}"));
    archive::pack(&info).expect("packed").to_bytes()
}

/// Draws frames until the tab is done asking the portal.
fn until_answered(h: &mut Harness<'static, Editor>) {
    let start = Instant::now();
    loop {
        // The spinner repaints while the portal is asked: single steps, not `run`.
        h.step();
        if !h.state_mut().mods_panel_mut().busy() {
            h.run();
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the portal never answered"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn loaded(h: &Harness<'static, Editor>, id: &str) -> bool {
    h.state().content().loaded().mods.iter().any(|m| m.id == id)
}

#[test]
fn a_mod_is_found_installed_disabled_enabled_and_updated_from_the_mods_tab() {
    let dir = temp("journey");
    let store = Arc::new(hexforge_portal::Store::open(&dir.join("data")).expect("the store"));
    let token = store.add_author("fay").expect("an author");
    let src = dir.join("src");
    std::fs::create_dir_all(&src).expect("a folder");
    store
        .publish(&token, &archive_of(&src, "siege_lib", "1.0.0", &[]))
        .expect("published");
    store
        .publish(
            &token,
            &archive_of(&src, "war_wagons", "1.0.0", &[("siege_lib", "^1")]),
        )
        .expect("published");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let portal = format!("http://{}", listener.local_addr().expect("its address"));
    let served = store.clone();
    std::thread::spawn(move || {
        hexforge_portal::server::serve(listener, served, Arc::new(AtomicBool::new(false)))
    });

    let user = dir.join("user_mods");
    std::fs::create_dir_all(&user).expect("a folder");
    let mut editor = Editor::load(vec![
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods"),
        user.clone(),
    ]);
    editor.set_user_mods(Some(user.clone()));
    let mut h = window(editor);
    h.state_mut().show(Tab::Mods);
    h.state_mut().mods_panel_mut().set_portal(&portal);
    h.run();
    h.get_by_label("Search").click();
    until_answered(&mut h);
    let ids: Vec<String> = h
        .state_mut()
        .mods_panel_mut()
        .found()
        .iter()
        .map(|m| m.id.clone())
        .collect();
    assert_eq!(ids, ["siege_lib", "war_wagons"]);

    // Installed with the library it needs, each kept on the shelf of versions, then loaded.
    h.get_by_label("Install war_wagons").click();
    until_answered(&mut h);
    let note = h
        .state_mut()
        .mods_panel_mut()
        .note()
        .unwrap_or_default()
        .to_string();
    assert_eq!(note, "installed `siege_lib` 1.0.0, `war_wagons` 1.0.0");
    assert!(user.join("war_wagons/mod.toml").is_file());
    assert!(user.join(".versions/war_wagons-1.0.0.hexmod").is_file());
    h.state_mut().reload();
    h.run();
    assert!(loaded(&h, "war_wagons") && loaded(&h, "siege_lib"));
    // Both rows of the search now say so.
    assert_eq!(h.get_all_by_label_contains("installed 1.0.0").count(), 2);

    // Disabled: set aside, not loaded; enabled again: loaded.
    h.get_by_label("Disable war_wagons").click();
    h.run();
    assert!(user.join(".disabled/war_wagons/mod.toml").is_file());
    h.state_mut().reload();
    h.run();
    assert!(!loaded(&h, "war_wagons"));
    h.get_by_label("Enable war_wagons").click();
    h.run();
    h.state_mut().reload();
    h.run();
    assert!(loaded(&h, "war_wagons"));

    // A newer version on the portal: the tab offers the update.
    store
        .publish(
            &token,
            &archive_of(&src, "war_wagons", "1.1.0", &[("siege_lib", "^1")]),
        )
        .expect("published");
    h.get_by_label("Search").click();
    until_answered(&mut h);
    h.get_by_label("Update war_wagons to 1.1.0").click();
    until_answered(&mut h);
    let note = h
        .state_mut()
        .mods_panel_mut()
        .note()
        .unwrap_or_default()
        .to_string();
    assert_eq!(note, "installed `war_wagons` 1.1.0");
    let manifest = std::fs::read_to_string(user.join("war_wagons/mod.toml")).expect("installed");
    assert!(manifest.contains("version = \"1.1.0\""), "{manifest}");
    let _ = std::fs::remove_dir_all(&dir);
}
