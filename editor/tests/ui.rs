//! The editor's views driven headlessly: the mod browser lists the loaded mods, and picking a
//! tile shows it in the tile view.

mod common;

use common::{base_copy, editor, settle, wait_for_reload, window};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable};
use hexforge_editor::Editor;

/// The editor with `search` typed and the base mod opened in the browser.
fn browsing(editor: Editor, search: &str) -> Harness<'static, Editor> {
    let mut harness = window(editor);
    harness.state_mut().browser_mut().set_search(search);
    harness.run();
    harness.get_by_label("base").click();
    harness.run();
    harness
}

#[test]
fn the_browser_lists_mods_and_a_picked_tile_is_drawn() {
    // Only Moloch's tiles, so the list fits the window and the click lands on the tile.
    let mut harness = browsing(editor(), "moloch/");
    harness.get_by_label("Gauss Cannon x1").click();
    harness.run();
    assert!(harness.state().designer().selected().is_some());
    harness.get_by_label("moloch/gauss_cannon");
    // The ability's Lua source is one click away.
    harness.get_by_label("line_shot").click();
    harness.run();
    harness.get_by_label_contains("scripts/abilities/line_shot.lua:");
    harness.get_by_label_contains("ability(\"line_shot\", {");
}

#[test]
fn the_browser_and_the_designer_talk_through_messages() {
    let mut harness = browsing(editor(), "moloch/");
    let catalog = harness.state().content().catalog();
    let gauss = catalog.find("moloch/gauss_cannon").expect("a base tile");
    assert_eq!(harness.state().designer().selected(), None);
    // A tile clicked in the browser: the browser asks, and the designer opens the tile's army
    // file at it.
    harness.get_by_label("Gauss Cannon x1").click();
    harness.run();
    let designer = harness.state().designer();
    assert_eq!(designer.selected(), Some(gauss));
    assert_eq!(designer.army(), Some("moloch"));
    let open = designer.open().expect("the army file opens");
    assert!(open.file.ends_with("armies/moloch.toml"), "{open:?}");
    assert_eq!(open.tile, designer.docs()[0].tile_index("gauss_cannon"));
    harness.get_by_label("moloch/gauss_cannon");
    // The browser marks what the designer shows, as the designer says it.
    let marked = |h: &Harness<'static, Editor>, label: &str| {
        let toggled = h
            .get_all_by_label(label)
            .find_map(|n| n.accesskit_node().toggled())
            .unwrap_or_else(|| panic!("{label} is listed in the browser"));
        toggled == egui::accesskit::Toggled::True
    };
    assert!(marked(&harness, "Gauss Cannon x1"));
    assert!(!marked(&harness, "Moloch"));
    // The army clicked: the army editor, and the browser marks the army instead.
    harness
        .get_all_by_label("Moloch")
        .find(|n| n.accesskit_node().toggled().is_some())
        .expect("Moloch is listed in the browser")
        .click();
    harness.run();
    assert_eq!(harness.state().designer().selected(), None);
    assert_eq!(
        harness.state().designer().open().map(|o| o.tile),
        Some(None)
    );
    harness.get_by_label("35 tiles: 1 hq, 17 soldier, 6 module, 11 instant");
    assert!(marked(&harness, "Moloch"));
    assert!(!marked(&harness, "Gauss Cannon x1"));
}

#[test]
fn the_search_narrows_the_tiles() {
    let harness = browsing(editor(), "gauss");
    harness.get_by_label("Gauss Cannon x1");
    assert!(harness.query_by_label("Clown x1").is_none());
}

#[test]
fn the_kind_filter_lists_only_that_kind() {
    let mut harness = browsing(editor(), "moloch/");
    harness.get_by_label("Gauss Cannon x1");
    harness.get_by_label("instant").click();
    harness.run();
    assert!(harness.query_by_label("Gauss Cannon x1").is_none());
    harness.get_by_label("Battle x4");
}

#[test]
fn a_saved_file_reloads_and_a_broken_one_keeps_the_last_good_content() {
    let dir = base_copy("reload");
    let moloch = dir.join("base/armies/moloch.toml");
    let text = std::fs::read_to_string(&moloch).expect("read moloch.toml");
    let mut harness = browsing(Editor::load(vec![dir.clone()]), "moloch/gauss");
    // The window's waker: a change on disk must wake it (it sleeps while nothing happens).
    let woken = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = woken.clone();
    harness.state_mut().set_waker(Box::new(move || {
        flag.store(true, std::sync::atomic::Ordering::SeqCst)
    }));
    harness.get_by_label("Gauss Cannon x1").click();
    harness.run();

    // Saved from any text editor: the browser and the tile view show the new data.
    std::fs::write(
        &moloch,
        text.replace(r#"name = "Gauss Cannon""#, r#"name = "Gauss Lance""#),
    )
    .expect("write moloch.toml");
    settle(&mut harness);
    harness.get_by_label("Gauss Lance x1");
    assert!(
        harness.state().designer().selected().is_some(),
        "the selection follows the tile"
    );
    // Only the mod of the saved file was read again.
    let status = harness.state().status().to_string();
    assert!(
        status.starts_with("reloaded base (armies/moloch.toml) in "),
        "{status}"
    );
    assert!(
        woken.load(std::sync::atomic::Ordering::SeqCst),
        "the change woke the window"
    );

    // A broken save: its problem is listed with file and line, the last good content stays.
    std::fs::write(
        &moloch,
        text.replace(r#"name = "Gauss Cannon""#, "name = 12"),
    )
    .expect("write moloch.toml");
    wait_for_reload(harness.state_mut());
    harness.run();
    let refused = harness.state().content().refused().to_vec();
    let problem = refused
        .iter()
        .find(|p| p.file.ends_with("moloch.toml") && p.line == 44)
        .unwrap_or_else(|| panic!("no problem at moloch.toml:44 in {refused:?}"));
    harness.get_by_label("Gauss Lance x1");
    harness.get_by_label("The last save has problems:");

    // Clicking the problem (in the status bar, or under its mod in the browser) shows its spot.
    harness
        .get_all_by_label(&problem.to_string())
        .next()
        .expect("the problem is listed")
        .click();
    harness.run();
    assert!(
        harness.state().designer().spot().is_some(),
        "the spot opens"
    );
    harness.get_by_label("44 | name = 12");
    harness.get_by_label("Close the file view").click();
    harness.run();
    assert!(harness.state().designer().spot().is_none());
    let status = harness.state().status().to_string();
    assert!(
        status.starts_with("reload of base (armies/moloch.toml) refused after "),
        "{status}"
    );

    // Fixed on disk: the reload after the refused one reads the fix, not what was refused.
    std::fs::write(&moloch, &text).expect("write moloch.toml");
    settle(&mut harness);
    harness.get_by_label("Gauss Cannon x1");
    assert!(harness.query_by_label("Gauss Lance x1").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_saved_script_reloads_its_mod_alone_and_a_new_mod_folder_is_read() {
    let dir = base_copy("reload-script");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
    common::copy(&repo.join("examples"), &dir.join("examples"));
    let mut editor = Editor::load(vec![dir.clone()]);
    let full = editor.content().catalog().clone();
    let lua = dir.join("examples/scripts/scrappers.lua");
    let text = std::fs::read_to_string(&lua).expect("read scrappers.lua");
    std::fs::write(&lua, format!("{text}\n-- tuned\n")).expect("write scrappers.lua");
    wait_for_reload(&mut editor);
    assert!(
        editor
            .status()
            .starts_with("reloaded examples (scripts/scrappers.lua) in "),
        "{}",
        editor.status()
    );
    assert_eq!(
        format!("{:?}", editor.content().catalog()),
        format!("{full:?}")
    );
    assert_eq!(
        editor.content_and_scripts().1.mods().collect::<Vec<_>>(),
        ["base", "examples"]
    );

    // A fan mod copied in: its folder alone is read, and its army is loaded.
    common::copy(&repo.join("examples"), &dir.join("fan"));
    let fan = dir.join("fan");
    let manifest = std::fs::read_to_string(fan.join("mod.toml")).expect("read the manifest");
    let army = std::fs::read_to_string(fan.join("armies/scrappers.toml")).expect("read the army");
    std::fs::write(
        fan.join("armies/scrappers.toml"),
        army.replacen("id = \"scrappers\"", "id = \"rivets\"", 1),
    )
    .expect("write the army");
    // Its other armies get ids of their own too (two mods may not provide one army).
    let tides =
        std::fs::read_to_string(fan.join("armies/tidecallers.toml")).expect("read the army");
    std::fs::write(
        fan.join("armies/tidecallers.toml"),
        tides.replacen("id = \"tidecallers\"", "id = \"tides\"", 1),
    )
    .expect("write the army");
    let reef = std::fs::read_to_string(fan.join("armies/reefguard.toml")).expect("read the army");
    std::fs::write(
        fan.join("armies/reefguard.toml"),
        reef.replacen("id = \"reefguard\"", "id = \"reefs\"", 1),
    )
    .expect("write the army");
    // And its board (two mods may not define one board id either).
    let ford = fan.join("boards/sunken_ford.toml");
    let board = std::fs::read_to_string(&ford).expect("read the board");
    std::fs::write(
        &ford,
        board.replacen("id = \"sunken_ford\"", "id = \"fan_ford\"", 1),
    )
    .expect("write the board");
    std::fs::write(
        fan.join("mod.toml"),
        manifest
            .replacen("id = \"examples\"", "id = \"fan\"", 1)
            .replace("\"scrappers\"", "\"rivets\"")
            .replace("\"tidecallers\"", "\"tides\"")
            .replace("\"reefguard\"", "\"reefs\""),
    )
    .expect("write the manifest");
    let start = std::time::Instant::now();
    while editor.content().catalog().army("rivets").is_none() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "the fan mod loads: {} {:?}",
            editor.status(),
            editor.content().refused()
        );
        wait_for_reload(&mut editor);
    }
    assert!(editor.status().contains("fan"), "{}", editor.status());
    assert!(!editor.status().contains("base"), "{}", editor.status());
    // Told nothing, a reload reads every folder, and gives the same content.
    let before = format!("{:?}", editor.content().loaded());
    editor.reload();
    assert!(
        editor
            .status()
            .starts_with("reloaded base, examples, fan in "),
        "{}",
        editor.status()
    );
    assert_eq!(format!("{:?}", editor.content().loaded()), before);

    // The fan mod deleted: the status says so, and its army is gone.
    std::fs::remove_dir_all(&fan).expect("delete the fan mod");
    let start = std::time::Instant::now();
    while editor.content().catalog().army("rivets").is_some() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "the fan mod goes: {}",
            editor.status()
        );
        wait_for_reload(&mut editor);
    }
    assert!(
        editor.status().starts_with("reloaded fan (removed) in "),
        "{}",
        editor.status()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_army_view_shows_the_deck_and_opens_a_tile() {
    let mut harness = browsing(editor(), "moloch/");
    harness.get_by_label("Moloch").click();
    harness.run();
    // mods/base/armies/moloch.toml: Moloch's 35 tiles are its HQ, 17 soldiers, 6 modules and 11 instants.
    harness.get_by_label("35 tiles: 1 hq, 17 soldier, 6 module, 11 instant");
    harness.get_by_label("deck: Gauss Cannon x1").click();
    harness.run();
    assert!(harness.state().designer().selected().is_some());
    harness.get_by_label("moloch/gauss_cannon");
}

#[test]
fn opening_an_unknown_army_or_tile_names_what_there_is() {
    let mut editor = editor();
    let e = editor.open_army("molloch").expect_err("no such army");
    assert!(e.contains("borgo, hegemony, moloch, outpost"), "{e}");
    let e = editor.open_tile("moloch/gauss").expect_err("no such tile");
    assert!(e.contains("army/tile"), "{e}");
    editor
        .open_tile("moloch/gauss_cannon")
        .expect("a base tile opens");
    assert_eq!(editor.designer().army(), Some("moloch"));
}
