//! The Rules panel driven headlessly: a key changed on the sandbox changes what its battles do; a
//! key changed under "Play a match" is the one the match plays with and its replay records; a
//! value the engine refuses is shown with the engine's message and not applied; an option games
//! do not play yet is shown disabled.

mod common;

use common::{battle_to_the_end, editor, place, type_into, window};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable};
use hexforge_core::battle::{self, Context};
use hexforge_core::{
    AbilityHooks as _, Battlefield, BoardShape, DefaultPolicy, Dir, Hex, PlayerSetup, Rules, Seat,
    Setup, TileSetup,
};
use hexforge_editor::replays::play::SeatChoice;
use hexforge_editor::{Editor, Tab};

/// Two HQs side by side: only the HQs attack, so their damage is `hq_can_damage_hq`'s.
const P1_HQ: Hex = Hex::new(0, 0);
const P2_HQ: Hex = Hex::new(0, -1);

/// Player 2's HQ HP after one battle between the two HQs with `rules`, by the engine directly.
fn engine_p2_hp(editor: &mut Editor, rules: &Rules) -> i32 {
    let (content, scripts) = editor.content_and_scripts();
    let cat = content.catalog();
    let tile = |id: &str, owner: u8, hex| TileSetup {
        tile: cat.find(id).unwrap_or_else(|| panic!("{id} is loaded")),
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
        tiles: vec![tile("borgo/hq", 0, P1_HQ), tile("moloch/hq", 1, P2_HQ)],
    };
    let mut field = Battlefield::new(setup, cat).expect("a legal board");
    let ctx = Context {
        catalog: cat,
        rules,
    };
    scripts.reseed(0);
    battle::resolve(&mut field, ctx, scripts, &mut DefaultPolicy, &mut ())
        .expect("the battle resolves");
    field.hq_hp(Seat::new(1))
}

/// Opens the list of keys of the panel shown.
fn open_the_keys(harness: &mut Harness<'static, Editor>) {
    harness.get_by_label("Rule options").click();
    harness.run();
}

#[test]
fn a_key_changed_on_the_sandbox_changes_its_battles() {
    let mut harness = window(editor());
    harness.state_mut().show(Tab::Sandbox);
    harness.run();
    place(&mut harness, "borgo", "p1", "HQ", P1_HQ);
    place(&mut harness, "moloch", "p2", "HQ", P2_HQ);
    open_the_keys(&mut harness);
    // Every key is listed with its rule and where its value comes from, as `hexforge rules` says.
    harness.get_by_label("hq_can_damage_hq");
    harness.get_by_label("R3.5.5 · default, engine");
    harness.get_by_label("ally_attack_rule");

    let mut rules = Rules::default();
    let before = engine_p2_hp(harness.state_mut(), &rules);
    assert_eq!(before, 20, "an HQ does not hurt an HQ in v3");
    harness
        .get_by_role_and_label(Role::CheckBox, "hq_can_damage_hq")
        .click();
    harness.run();
    let board = harness.state().sandbox().board().expect("a board").clone();
    assert!(board.rules.hq_can_damage_hq, "the board's battles use it");
    harness.get_by_label("R3.5.5 · --option, engine");
    harness.get_by_label("1 changed");

    rules.hq_can_damage_hq = true;
    let after = engine_p2_hp(harness.state_mut(), &rules);
    assert!(after < 20, "an HQ hurts an HQ: {after}");
    battle_to_the_end(&mut harness);
    harness.get_by_label(&format!("p2 (moloch): HQ {after} HP"));
    harness.get_by_label("Back to editing").click();
    harness.run();

    // An undo takes the change back, and the panel follows the board.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    harness.run();
    assert!(
        !harness
            .state()
            .sandbox()
            .board()
            .expect("a board")
            .rules
            .hq_can_damage_hq
    );
    assert!(harness.state().sandbox().rules().options.is_empty());
    harness.get_by_label("R3.5.5 · default, engine");
}

#[test]
fn a_value_the_engine_refuses_shows_its_message_and_is_not_applied() {
    let mut harness = window(editor());
    harness.state_mut().show(Tab::Sandbox);
    harness.run();
    open_the_keys(&mut harness);
    let before = harness.state().sandbox().board().expect("a board").clone();
    type_into(&mut harness, "one_vs_team_hq_hp", "[20]");
    harness.key_press(egui::Key::Enter);
    harness.run();
    harness.get_by_label_contains(
        "not applied: rule option `one_vs_team_hq_hp` expects two whole numbers, e.g. [20, 13], found [20]",
    );
    assert_eq!(harness.state().sandbox().board(), Some(&before));
    // A value it takes is applied, and the message goes.
    type_into(&mut harness, "one_vs_team_hq_hp", "[18, 12]");
    harness.key_press(egui::Key::Enter);
    harness.run();
    assert!(harness.query_by_label_contains("not applied").is_none());
    let board = harness.state().sandbox().board().expect("a board");
    assert_eq!(board.rules.one_vs_team_hq_hp, [18, 12]);
}

#[test]
fn an_option_games_do_not_play_yet_is_shown_disabled_with_the_reason() {
    // A mod that declares an expansion it does not play yet (`played = false`).
    let dir = std::env::temp_dir().join(format!("hexforge-unplayed-ed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("unplayed")).expect("mod dir");
    std::fs::write(
        dir.join("unplayed/mod.toml"),
        "id = \"unplayed\"\nname = \"Unplayed\"\nversion = \"1.0.0\"\nhexforge = \"^0.2\"\n",
    )
    .expect("manifest");
    std::fs::write(
        dir.join("unplayed/options.toml"),
        "[[option]]\nkey = \"siege_towers\"\ntype = \"bool\"\ndefault = false\ndoc = \"Not played yet.\"\nplayed = false\n",
    )
    .expect("options");
    let mods = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
    let mut harness = window(Editor::load(vec![mods, dir.clone()]));
    harness.state_mut().show(Tab::Sandbox);
    harness.run();
    open_the_keys(&mut harness);
    let unplayed = harness.get_by_role_and_label(Role::CheckBox, "siege_towers");
    assert!(unplayed.accesskit_node().is_disabled());
    harness.get_by_label_contains(
        "disabled: the rule option `siege_towers` is not supported in whole games yet",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_key_changed_for_a_match_is_played_and_recorded_in_its_replay() {
    let dir = std::env::temp_dir().join(format!("hexforge-rules-panel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut e = editor();
    e.replays_mut().set_folder(Some(dir.clone()));
    e.show(Tab::Replays);
    e.replays_mut().play_mut().seats = ["moloch", "borgo"]
        .iter()
        .map(|army| SeatChoice {
            army: army.to_string(),
            bot: "random".to_string(),
        })
        .collect();
    e.replays_mut().play_mut().seed = "3".to_string();
    let mut harness = window(e);
    harness.run();
    open_the_keys(&mut harness);
    harness
        .get_by_role_and_label(Role::CheckBox, "hq_can_damage_hq")
        .click();
    harness.run();
    // The former name of a key sets the key it became.
    let mut panel = std::mem::take(&mut harness.state_mut().replays_mut().play_mut().rules);
    assert!(panel.set_text(
        harness.state().content().loaded(),
        "moloch_team_exception=off"
    ));
    harness.state_mut().replays_mut().play_mut().rules = panel;
    harness.run();
    harness.get_by_label("Play and record").click();
    harness.run();
    let files = hexforge_editor::replays::folder::list(&dir).expect("the replay folder lists");
    assert_eq!(files.len(), 1, "one recording in {}", dir.display());
    let text = std::fs::read_to_string(&files[0]).expect("read the replay");
    assert!(text.contains("\noption hq_can_damage_hq=true\n"), "{text}");
    assert!(
        text.contains("\noption ally_attack_rule=\"off\"\n"),
        "{text}"
    );
    // The header's preset and options give the engine's rules of the match.
    let h = harness.state().content().loaded();
    let replay = hexforge_replay::parse(&text, &h.catalog).unwrap_or_else(|e| panic!("{e}"));
    let rules = h
        .table_rules(&replay.header.rules, &replay.header.options)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(rules.hq_can_damage_hq);
    assert_eq!(
        rules.get("ally_attack_rule"),
        Some(hexforge_core::tile::ParamValue::Str("off".into()))
    );
    let _ = std::fs::remove_dir_all(&dir);
}
