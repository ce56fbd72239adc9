//! The sandbox driven headlessly: tiles placed from the palette onto hexes, a battle stepped to
//! its end with the engine's result shown, the board following a changed file on disk, and the
//! board saved as a scenario file that runs and loads back.

mod common;

use common::{
    base_copy, battle_to_the_end, click_hex, editor, place, save_scenario_and_run, wait_for_reload,
    window,
};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_core::battle::{self, Context};
use hexforge_core::{
    Battlefield, BoardShape, DefaultPolicy, Dir, Hex, PlayerSetup, Seat, Setup, TileSetup,
};
use hexforge_editor::sandbox::board::MarkPlace;
use hexforge_editor::{Editor, Tab};

/// The board every test builds: each player's HQ, and a Borgo Brawler of player 1 between them
/// facing player 2's HQ.
const P1_HQ: Hex = Hex::new(0, 1);
const P2_HQ: Hex = Hex::new(0, -1);
const BRAWLER: Hex = Hex::new(0, 0);

/// The editor on the sandbox tab.
fn sandbox(editor: Editor) -> Harness<'static, Editor> {
    let mut harness = window(editor);
    harness.state_mut().show(Tab::Sandbox);
    harness.run();
    harness
}

/// Places the test board through the palette.
fn set_up_board(harness: &mut Harness<'static, Editor>) {
    place(harness, "borgo", "p1", "HQ", P1_HQ);
    place(harness, "moloch", "p2", "HQ", P2_HQ);
    place(harness, "borgo", "p1", "Brawler", BRAWLER);
    // Nothing armed any more: a click on the brawler selects it.
    harness.get_by_label("Brawler").click();
    harness.run();
    click_hex(harness, BRAWLER);
    harness.get_by_label_contains("Selected: Brawler (borgo/brawler)");
}

/// Player 2's HQ HP after one battle on the test board, by the engine directly.
fn engine_p2_hp(editor: &mut Editor) -> i32 {
    let (content, scripts) = editor.content_and_scripts();
    let cat = content.catalog();
    let t = |id: &str| cat.find(id).unwrap_or_else(|| panic!("{id} is loaded"));
    let tile = |id: &str, owner: u8, hex| TileSetup {
        tile: t(id),
        owner: Seat::new(owner),
        hex,
        facing: Dir::N,
        wounds: 0,
    };
    let setup = Setup {
        shape: BoardShape::standard(),
        players: vec![
            PlayerSetup { team: 0, hq_hp: 20 },
            PlayerSetup { team: 1, hq_hp: 20 },
        ],
        tiles: vec![
            tile("borgo/hq", 0, P1_HQ),
            tile("moloch/hq", 1, P2_HQ),
            tile("borgo/brawler", 0, BRAWLER),
        ],
    };
    let mut field = Battlefield::new(setup, cat).expect("a legal board");
    let rules = hexforge_core::Rules::default();
    let ctx = Context {
        catalog: cat,
        rules: &rules,
    };
    scripts.reseed(0);
    battle::resolve(&mut field, ctx, scripts, &mut DefaultPolicy, &mut ())
        .expect("the battle resolves");
    field.hq_hp(Seat::new(1))
}

use hexforge_core::AbilityHooks as _;

#[test]
fn tiles_placed_from_the_palette_fight_the_engines_battle() {
    let mut harness = sandbox(editor());
    set_up_board(&mut harness);
    // The R key turns the selected tile, and Ctrl+Z takes it back.
    harness.key_press(egui::Key::R);
    harness.run();
    harness.get_by_label_contains("facing NE");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    harness.get_by_label("facing N");
    let board = harness.state().sandbox().board().expect("a board").clone();
    assert_eq!(board.pieces.len(), 3);
    // A second HQ for player 2 is refused with the engine's reason.
    place(&mut harness, "moloch", "p2", "HQ", Hex::new(1, 0));
    harness.get_by_label_contains("already has an HQ");
    assert_eq!(
        harness
            .state()
            .sandbox()
            .board()
            .expect("a board")
            .pieces
            .len(),
        3
    );

    let expected = engine_p2_hp(harness.state_mut());
    assert!(expected < 20, "the brawler hits the HQ: {expected}");
    battle_to_the_end(&mut harness);
    harness.get_by_label(&format!("p2 (moloch): HQ {expected} HP"));
    harness.get_by_label("p1 (borgo): HQ 20 HP");
    // Back to editing: the board is the one before the battle.
    harness.get_by_label("Back to editing").click();
    harness.run();
    assert_eq!(harness.state().sandbox().board(), Some(&board));
}

#[test]
fn a_changed_file_updates_the_board_and_a_vanished_tile_is_marked() {
    let dir = base_copy("sandbox-reload");
    let borgo = dir.join("base/armies/borgo.toml");
    let text = std::fs::read_to_string(&borgo).expect("read borgo.toml");
    let mut harness = sandbox(Editor::load(vec![dir.clone()]));
    set_up_board(&mut harness);
    let before = engine_p2_hp(harness.state_mut());
    battle_to_the_end(&mut harness);
    harness.get_by_label(&format!("p2 (moloch): HQ {before} HP"));

    // The brawler hits harder: the battle shown is fought again with the new strength.
    let at = text.find("id = \"brawler\"").expect("the brawler");
    let (head, tail) = text.split_at(at);
    let stronger = format!(
        "{head}{}",
        tail.replacen("edges = [\"melee:2@0\"]", "edges = [\"melee:3@0\"]", 1)
    );
    std::fs::write(&borgo, &stronger).expect("write borgo.toml");
    wait_for_reload(harness.state_mut());
    harness.run();
    let after = engine_p2_hp(harness.state_mut());
    assert_eq!(
        after,
        before - 1,
        "the new strength is loaded: {} {:?}",
        harness.state().status(),
        harness.state().content().refused()
    );
    harness.get_by_label("The content changed: the battle was fought again with the new data.");
    harness.get_by_label_contains("After the battle");
    harness.get_by_label(&format!("p2 (moloch): HQ {after} HP"));
    // Fought from the editing board, too.
    harness.get_by_label("Back to editing").click();
    harness.run();
    battle_to_the_end(&mut harness);
    harness.get_by_label(&format!("p2 (moloch): HQ {after} HP"));
    harness.get_by_label("Back to editing").click();
    harness.run();

    // The brawler's id vanishes: it stays on the board, marked, and battles are refused.
    let renamed = stronger.replacen("id = \"brawler\"", "id = \"bruiser\"", 1);
    std::fs::write(&borgo, renamed).expect("write borgo.toml");
    wait_for_reload(harness.state_mut());
    harness.run();
    harness.get_by_label("missing: borgo/brawler");
    assert_eq!(
        harness
            .state()
            .sandbox()
            .board()
            .expect("a board")
            .pieces
            .len(),
        3
    );
    harness.get_by_label("Battle").click();
    harness.run();
    harness.get_by_label_contains("No battle until these tiles are removed or fixed");
    assert!(harness.state().sandbox().battle_result().is_none());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_board_saved_as_a_scenario_passes_and_loads_back() {
    let mut harness = sandbox(editor());
    set_up_board(&mut harness);
    let board = harness.state().sandbox().board().expect("a board").clone();
    let dir = std::env::temp_dir().join(format!("hexforge-sandbox-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let path = dir.join("brawler.toml");
    // The file runs as a scenario and its expectations hold.
    let s = save_scenario_and_run(&mut harness, &path);
    assert_eq!(s.armies, ["borgo", "moloch"]);

    // The brawler is removed (Delete), then the file brings it back.
    harness.key_press(egui::Key::Delete);
    harness.run();
    assert_eq!(
        harness
            .state()
            .sandbox()
            .board()
            .expect("a board")
            .pieces
            .len(),
        2
    );
    harness.get_by_label("Load scenario").click();
    harness.run();
    harness.get_by_label(&format!("Loaded {}", path.display()));
    let loaded = harness.state().sandbox().board().expect("a board").clone();
    let mut ids: Vec<(String, Hex)> = loaded
        .pieces
        .iter()
        .map(|p| (p.id.clone(), p.hex))
        .collect();
    let mut want: Vec<(String, Hex)> = board.pieces.iter().map(|p| (p.id.clone(), p.hex)).collect();
    ids.sort();
    want.sort();
    assert_eq!(ids, want);
    assert_eq!(loaded.armies(), ["borgo", "moloch"]);

    // A broken file is refused with its line, and the board stays.
    std::fs::write(
        &path,
        "name = \"broken\"\n[[player]]\nid = \"p1\"\narmy = \"nobody\"\n",
    )
    .expect("write a broken file");
    harness.get_by_label("Load scenario").click();
    harness.run();
    harness.get_by_label_contains("brawler.toml:4:");
    assert_eq!(harness.state().sandbox().board(), Some(&loaded));
    let _ = std::fs::remove_dir_all(dir);
}

/// A press at `from`, a move to `to` in steps, and a release there.
fn drag(harness: &mut Harness<'static, Editor>, from: egui::Pos2, to: egui::Pos2) {
    harness.hover_at(from);
    harness.run();
    harness.drag_at(from);
    harness.run();
    for k in 1..=4 {
        harness.hover_at(from.lerp(to, k as f32 / 4.0));
        harness.run();
    }
    harness.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run();
}

#[test]
fn tiles_are_dragged_turned_and_removed_with_the_mouse() {
    let mut harness = sandbox(editor());
    harness.state_mut().sandbox_mut().show_army("borgo");
    harness.run();
    // From the palette onto a hex.
    let from = harness.get_by_label("Brawler").rect().center();
    let hex = |h: &Harness<'static, Editor>, x| h.state().sandbox().hex_pos(x).expect("drawn");
    let to = hex(&harness, BRAWLER);
    drag(&mut harness, from, to);
    let pieces =
        |h: &Harness<'static, Editor>| h.state().sandbox().board().expect("a board").pieces.clone();
    assert_eq!(pieces(&harness).len(), 1, "dropped on the board");
    assert_eq!(pieces(&harness)[0].hex, BRAWLER);
    assert_eq!(pieces(&harness)[0].id, "borgo/brawler");
    // Dragged from its hex to another.
    let there = Hex::new(1, 0);
    let there_pos = hex(&harness, there);
    drag(&mut harness, to, there_pos);
    assert_eq!(pieces(&harness)[0].hex, there);
    // The mouse wheel over it turns it one sixth per notch.
    harness.hover_at(hex(&harness, there));
    harness.run();
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -50.0),
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
    });
    harness.run();
    assert_ne!(pieces(&harness)[0].facing, Dir::N, "turned by the wheel");
    // A right click removes it; Undo brings it back.
    harness.hover_at(hex(&harness, there));
    harness.run();
    harness.event(egui::Event::PointerButton {
        pos: hex(&harness, there),
        button: egui::PointerButton::Secondary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    harness.event(egui::Event::PointerButton {
        pos: hex(&harness, there),
        button: egui::PointerButton::Secondary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run();
    assert!(pieces(&harness).is_empty(), "removed");
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(pieces(&harness).len(), 1);
}

#[test]
fn an_instant_is_aimed_on_the_board_and_the_engine_checks_it() {
    let mut harness = sandbox(editor());
    place(&mut harness, "borgo", "p1", "HQ", P1_HQ);
    place(&mut harness, "moloch", "p2", "HQ", P2_HQ);
    // An enemy next to player 1's HQ, and one far from it.
    let near = Hex::new(1, 0);
    let far = Hex::new(0, -2);
    place(&mut harness, "moloch", "p2", "Hunter-Killer", near);
    // Still armed: a second click places a second one.
    click_hex(&mut harness, far);
    harness.get_by_label("Hunter-Killer").click();
    harness.run();
    harness.state_mut().sandbox_mut().show_army("borgo");
    harness.run();
    harness.get_by_label("p1").click();
    harness.run();
    // A Grenade on the far unit: the engine refuses it, and the board stays.
    harness.get_by_label("Grenade instant").click();
    harness.run();
    click_hex(&mut harness, far);
    harness.get_by_label("Play it").click();
    harness.run();
    harness.get_by_label_contains("Grenade: ");
    let pieces =
        |h: &Harness<'static, Editor>| h.state().sandbox().board().expect("a board").pieces.len();
    assert_eq!(pieces(&harness), 4);
    // On the unit next to the HQ: it is destroyed.
    click_hex(&mut harness, near);
    harness.get_by_label("Play it").click();
    harness.run();
    assert_eq!(pieces(&harness), 3);
    let board = harness.state().sandbox().board().expect("a board").clone();
    assert!(board.piece_at(near).is_none());
    assert!(board.piece_at(far).is_some());
}

#[test]
fn a_scripted_instant_is_aimed_at_a_hex_its_script_lists_and_played_by_its_hooks() {
    let mut harness = sandbox(editor());
    place(&mut harness, "tidecallers", "p1", "Tide Altar", P1_HQ);
    place(&mut harness, "moloch", "p2", "HQ", P2_HQ);
    let enemy = Hex::new(1, 0);
    place(&mut harness, "moloch", "p2", "Hunter-Killer", enemy);
    harness.get_by_label("Hunter-Killer").click();
    harness.run();
    harness.state_mut().sandbox_mut().show_army("tidecallers");
    harness.run();
    harness.get_by_label("p1").click();
    harness.run();
    // The Snare (mods/examples/scripts/tide_instants.lua) lists the enemy units: one here.
    harness.get_by_label("Snare instant").click();
    harness.run();
    harness.get_by_label_contains("click one of the 1 hexes its script lists");
    // A hex it does not list is refused on the click.
    click_hex(&mut harness, Hex::new(-1, 0));
    harness.get_by_label_contains("is not a hex its script lists");
    click_hex(&mut harness, enemy);
    harness.get_by_label_contains("Played by p1 on [1, 0].");
    harness.get_by_label("Play it").click();
    harness.run();
    harness.get_by_label_contains("Snare: ");
    let board = harness.state().sandbox().board().expect("a board").clone();
    assert!(
        board
            .marks
            .iter()
            .any(|m| m.on == MarkPlace::Tile(enemy) && m.name.to_string() == "cannot_move"),
        "{:?}",
        board.marks
    );
}

#[test]
fn a_new_edge_and_lua_ability_reload_win_a_battle_and_save_as_a_scenario() {
    let dir = base_copy("sandbox-designer");
    let mut harness = sandbox(Editor::load(vec![dir.clone()]));
    set_up_board(&mut harness);
    // The designer gives the Brawler a second edge and a Lua ability that makes its blows
    // strength 3, and saves.
    std::fs::create_dir_all(dir.join("base/scripts")).expect("a scripts folder");
    let manifest = dir.join("base/mod.toml");
    let m = std::fs::read_to_string(&manifest).expect("read mod.toml");
    std::fs::write(
        &manifest,
        m.replacen("[provides]\n", "[provides]\nscripts = true\n", 1),
    )
    .expect("write mod.toml");
    std::fs::write(
        dir.join("base/scripts/fury.lua"),
        "ability(\"fury\", {\n  plan_attacks = function(ctx, plan)\n    for i = 1, plan:count() do\n      plan:set_strength(i, 3)\n    end\n  end,\n})\n",
    )
    .expect("write the Lua file");
    let borgo = dir.join("base/armies/borgo.toml");
    let text = std::fs::read_to_string(&borgo).expect("read borgo.toml");
    let at = text.find("id = \"brawler\"").expect("the brawler");
    let (head, tail) = text.split_at(at);
    let changed = format!(
        "{head}{}",
        tail.replacen(
            "edges = [\"melee:2@0\"]\n",
            "edges = [\"melee:2@0\", \"melee:1@1\"]\n\n[[tile.ability]]\nhook = \"fury\"\n",
            1
        )
    );
    std::fs::write(&borgo, changed).expect("write borgo.toml");
    wait_for_reload(harness.state_mut());
    harness.run();
    assert!(
        harness.state().status().starts_with("reloaded"),
        "{} {:?}",
        harness.state().status(),
        harness.state().content().refused()
    );
    // The board shows the new tile: its definition has the new edge and the ability.
    let editor = harness.state();
    let cat = editor.content().catalog();
    let field = editor
        .sandbox()
        .built()
        .and_then(|b| b.field.clone())
        .expect("a field");
    let brawler = cat.get(field.at_hex(BRAWLER).expect("the brawler").tile);
    assert_eq!(brawler.edges[1].melee, 1);
    assert_eq!(brawler.abilities[0].hook, "fury");
    // Player 2's HQ is down to 3 HP: the brawler's strength-3 blow wins the battle.
    let mut board = editor.sandbox().board().expect("a board").clone();
    board.players[1].hq_hp = 3;
    let catalog = cat.clone();
    harness.state_mut().sandbox_mut().set_board(board, &catalog);
    harness.run();
    battle_to_the_end(&mut harness);
    harness.get_by_label("p2 (moloch): HQ 0 HP");
    harness.get_by_label("Winner: p1");
    harness.get_by_label("Back to editing").click();
    harness.run();
    // Saved as a scenario, the file passes with the same content and scripts.
    let path = dir.join("fury.toml");
    let s = save_scenario_and_run(&mut harness, &path);
    assert_eq!(s.expect.hq[1].2, 0, "the file pins the win down");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_palette_follows_the_player_who_places() {
    let mut harness = sandbox(editor());
    let armies = |h: &Harness<'static, Editor>| {
        let b = h.state().sandbox().board().expect("a board");
        (b.players[0].army.clone(), b.players[1].army.clone())
    };
    let (first, second) = armies(&harness);
    assert_ne!(first, second, "the two players start with two armies");
    assert_eq!(
        harness.state().sandbox().palette_army(),
        Some(first.as_str())
    );
    harness.get_by_label("p2").click();
    harness.run();
    assert_eq!(
        harness.state().sandbox().palette_army(),
        Some(second.as_str())
    );
    // Another army stays one pick away, and a new pick of the player brings theirs back.
    harness.state_mut().sandbox_mut().show_army("moloch");
    harness.run();
    harness.get_by_label("p1").click();
    harness.run();
    assert_eq!(
        harness.state().sandbox().palette_army(),
        Some(first.as_str())
    );
}

#[test]
fn a_monolith_deploys_and_folds_as_the_sandbox_steps_through_a_scenario() {
    // R10.6.3-R10.6.6: tests/scenarios/r10_monolith/13_... discards, deploys in two steps and
    // plays a Battle, after which the Monolith folds.
    let mut harness = common::sandbox_with_file(
        "../tests/scenarios/r10_monolith/13_folds_right_after_a_battle_keeping_wounds_and_poison.toml",
    );
    harness.get_by_label_contains("\"Step through its steps\" plays them");
    harness.get_by_label("Step through its steps").click();
    harness.run();
    harness.get_by_label_contains("Before the first step (1 of 5)");
    harness.get_by_label("Every expectation of the file holds.");
    let links = |h: &Harness<'static, Editor>| {
        let run = h.state().sandbox().battle().expect("the steps shown");
        run.steps[run.at].field.links().len()
    };
    assert_eq!(links(&harness), 0, "folded at the start");
    for (step, linked) in [(2, 0), (3, 0), (4, 1), (5, 0)] {
        harness.get_by_label("Next step").click();
        harness.run();
        harness.get_by_label_contains(&format!("After step {} of 4 ({step} of 5)", step - 1));
        assert_eq!(links(&harness), linked, "after step {}", step - 1);
    }
    // The deployed Monolith's board kept in the sandbox, linked unit and all.
    harness.get_by_label("Previous step").click();
    harness.run();
    harness.get_by_label("Keep this board").click();
    harness.run();
    let board = harness.state().sandbox().board().expect("a board");
    assert_eq!(board.units.len(), 1, "{:?}", board.units);
    assert_eq!(board.units[0].kind.to_string(), "monolith");
    assert_eq!(board.units[0].hexes.len(), 3);
    let field = harness
        .state()
        .sandbox()
        .built()
        .and_then(|b| b.field.clone())
        .expect("built");
    assert_eq!(
        field.links().len(),
        1,
        "the kept board builds its linked unit"
    );
}
