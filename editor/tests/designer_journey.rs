//! The editor issue's whole journey in one headless run of the real UI, on a copy of the base
//! mod: copy Borgo into a new fan army, give one of its tiles a new edge and a new Lua ability,
//! save, see the sandbox board take the reloaded tile, win a test battle with it, save that board
//! as a scenario (which then passes), and record and replay a match of the new army.

mod common;

use common::{
    base_copy, battle_to_the_end, click_at, click_hex, place, save_scenario_and_run, settle,
    type_into, window,
};
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_core::Hex;
use hexforge_editor::replays::play::SeatChoice;
use hexforge_editor::{Editor, Tab};

const P1_HQ: Hex = Hex::new(0, 1);
const P2_HQ: Hex = Hex::new(0, -1);
const BRAWLER: Hex = Hex::new(0, 0);

/// The ability written in the editor's Lua editor: every attack of its unit strikes at 3.
const FURY: &str = "ability(\"fury\", {\n  plan_attacks = function(ctx, plan)\n    for i = 1, plan:count() do\n      plan:set_strength(i, 3)\n    end\n  end,\n})\n";

/// Clicks the edge `e` (0 front, clockwise) of the designer's big drawing.
fn click_edge(harness: &mut Harness<'static, Editor>, e: usize) {
    let rect = harness.get_by_label("tile drawing").rect();
    // The edge's middle, 115 points from the centre (the front edge is the top side).
    let angle = (e as f32 * 60.0 - 90.0).to_radians();
    click_at(
        harness,
        rect.center() + 115.0 * egui::vec2(angle.cos(), angle.sin()),
    );
}

#[test]
fn a_copy_of_borgo_with_a_new_edge_and_ability_wins_a_test_battle_and_plays_a_recorded_match() {
    let dir = base_copy("journey");
    let mut editor = Editor::load(vec![dir.clone()]);
    editor.set_user_mods(None); // the new mod goes beside the copied base mod
    editor.replays_mut().set_folder(Some(dir.join("replays")));
    let mut harness = window(editor);
    harness.state_mut().browser_mut().set_search("borgo/");
    harness.run();
    harness.get_by_label("base").click();
    harness.run();
    harness.get_by_label("Borgo").click();
    harness.run();

    // 1. Copy Borgo into a new fan army.
    harness.get_by_label("New army…").click();
    harness.run();
    harness.get_by_label("Create the army").click();
    harness.run();
    settle(&mut harness);
    assert!(
        harness
            .state()
            .content()
            .catalog()
            .army("borgo_fan")
            .is_some()
    );

    // 2. Its Brawler gets a new edge (melee 1 on its front-right) and a new Lua ability.
    harness.get_by_label_contains("deck: Brawler").click();
    harness.run();
    harness.get_by_label("borgo_fan/brawler");
    click_edge(&mut harness, 1);
    harness.get_by_label("edge 1 (front-right)");
    harness.get_by_label("melee 1").click();
    harness.run();
    type_into(&mut harness, "new ability", "fury");
    harness.get_by_label("New ability").click();
    harness.run();
    let lua = dir.join("borgo_fan/scripts/fury.lua");
    assert!(lua.is_file(), "{:?}", harness.state().note());
    settle(&mut harness);
    let lua_label = lua.display().to_string();
    harness
        .get_by_role_and_label(Role::MultilineTextInput, &lua_label)
        .focus();
    harness.run();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.run();
    harness
        .get_by_role_and_label(Role::MultilineTextInput, &lua_label)
        .type_text(FURY);
    harness.run();
    harness.get_by_label("Save the Lua file").click();
    harness.run();
    assert_eq!(std::fs::read_to_string(&lua).expect("read fury.lua"), FURY);
    settle(&mut harness);

    // 3. Save the army: the reload brings the new tile.
    harness.get_by_label("Save").click();
    harness.run();
    settle(&mut harness);
    let cat = harness.state().content().catalog();
    let brawler = cat.get(cat.find("borgo_fan/brawler").expect("the fan brawler"));
    assert_eq!(brawler.edges[1].melee, 1, "the new edge");
    assert_eq!(brawler.abilities[0].hook, "fury", "the new ability");

    // 4. On the sandbox: the fan army's HQ and Brawler against Moloch's HQ at 3 HP.
    harness.get_by_label("Sandbox").click();
    harness.run();
    assert_eq!(harness.state().tab(), Tab::Sandbox);
    place(&mut harness, "borgo_fan", "p1", "HQ", P1_HQ);
    place(&mut harness, "moloch", "p2", "HQ", P2_HQ);
    place(&mut harness, "borgo_fan", "p1", "Brawler", BRAWLER);
    let p2_hp = |h: &Harness<'static, Editor>| {
        h.get_all_by_role_and_label(Role::SpinButton, "HQ HP")
            .nth(1)
            .expect("player 2's HQ HP")
            .focus();
    };
    p2_hp(&harness);
    harness.run();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.run();
    harness
        .get_all_by_role_and_label(Role::SpinButton, "HQ HP")
        .nth(1)
        .expect("player 2's HQ HP")
        .type_text("3");
    harness.key_press(Key::Enter);
    harness.run();
    assert_eq!(
        harness
            .state()
            .sandbox()
            .board()
            .map(|b| b.players[1].hq_hp),
        Some(3),
        "player 2's HQ HP typed in"
    );
    // The board holds the reloaded tile: its new edge and its ability.
    click_hex(&mut harness, BRAWLER);
    harness.get_by_label_contains("Selected: Brawler (borgo_fan/brawler)");

    // 5. The battle: the Brawler's blows strike at 3 (its Lua ability) and Moloch's HQ falls.
    battle_to_the_end(&mut harness);
    harness.get_by_label("p2 (moloch): HQ 0 HP");
    harness.get_by_label("Winner: p1");
    harness.get_by_label("Back to editing").click();
    harness.run();

    // 6. The board saved as a scenario passes `hexforge scenario`'s checks.
    save_scenario_and_run(&mut harness, &dir.join("fury_wins.toml"));

    // 7. A match of the fan army is recorded, opened in the viewer, and verifies.
    harness.get_by_label("Replays").click();
    harness.run();
    harness.state_mut().replays_mut().play_mut().seats = vec![
        SeatChoice {
            army: "borgo_fan".into(),
            bot: "greedy".into(),
        },
        SeatChoice {
            army: "moloch".into(),
            bot: "greedy".into(),
        },
    ];
    harness.run();
    harness.get_by_label("Play and record").click();
    harness.run();
    let files = hexforge_editor::replays::folder::list(&dir.join("replays"))
        .expect("the replay folder lists");
    assert_eq!(files.len(), 1, "one recording");
    let viewer = harness
        .state()
        .replays()
        .viewer()
        .expect("the replay opens");
    assert_eq!(viewer.path, files[0]);
    assert!(viewer.complete && viewer.len() > 10, "a whole game");
    harness.get_by_label("Last").click();
    harness.run();
    let editor = harness.state_mut();
    let text = std::fs::read_to_string(&files[0]).expect("read the replay");
    let replay = hexforge_replay::parse(&text, editor.content().catalog()).expect("it parses");
    assert!(replay.complete);
    assert_eq!(replay.header.armies, ["borgo_fan", "moloch"]);
    let catalog = std::sync::Arc::new(editor.content().catalog().clone());
    // Verified with a fresh Lua host, as `hexforge replay --verify` does in another process.
    let mut scripts =
        hexforge_script::load(editor.content().roots(), hexforge_script::Limits::default()).scripts;
    let mut game = hexforge_replay::start(
        &replay.header,
        &editor.content().loaded().mods,
        catalog,
        &mut scripts,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for (n, step) in replay.steps.iter().enumerate() {
        let r = hexforge_replay::replay_step(&mut game, step, &mut scripts, &mut ())
            .unwrap_or_else(|e| panic!("step {n}: {e}"));
        assert_eq!(r.phases, step.phases, "step {n}: every phase as recorded");
        assert!(r.all_picks_used, "step {n}: every decision as recorded");
        assert_eq!(
            game.state_hash(),
            step.hash,
            "step {n}: the state as recorded"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
