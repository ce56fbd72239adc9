//! Scripted instants (docs/LUA_API.md, "Scripted instants") through whole games: their targets
//! are legal actions, bots play them and replays play them again bit for bit, and what the
//! engine refuses (a target list naming a hex off the board or no hex, a `play` that fails, an
//! effect that fails its check, a marker lasting a negative number of turns) is refused with the
//! mod, the file and line, the hook and the tile, the game as it was. The refused abilities are
//! in `tests/fixtures/bad_instants`.

mod common;

use hexforge_bots::{GreedyBot, RandomBot};
use hexforge_core::game::LegalActions;
use hexforge_core::{
    Action, ActionError, BoardShape, Catalog, DefaultPolicy, Event, Game, GameError, GameSetup,
    Hex, Rules, Seat, SeatSetup, Target,
};
use hexforge_replay::{Timeline, decode_action, encode_action};
use hexforge_script::{Limits, ScriptHost};
use std::path::PathBuf;
use std::sync::Arc;

fn fixture() -> (Arc<Catalog>, ScriptHost) {
    let loaded = common::load_clean(&[common::root().join("tests/fixtures/bad_instants")]);
    (Arc::new(loaded.mods.catalog), loaded.scripts)
}

/// A game of two `bi` players in turn 5: player 1's HQ on [0, 2], player 2's on [0, -2] with a
/// Grunt of player 2 on [0, 0]; player 1's turn begins holding `hand`, player 2 holds `other`,
/// and both draw piles are empty.
fn game(
    catalog: &Arc<Catalog>,
    scripts: &mut ScriptHost,
    hand: &[&str],
    other: &[&str],
) -> Result<Game, GameError> {
    let t = |id: &str| common::tile(catalog, &format!("bi/{id}"));
    let at = |id: &str, owner: u8, q: i32, r: i32| common::placed(t(id), owner, q, r);
    let held = |ids: &[&str]| ids.iter().map(|id| t(id)).collect();
    Game::from_position(
        common::turn_five(
            "bi",
            vec![at("hq", 0, 0, 2), at("hq", 1, 0, -2), at("grunt", 1, 0, 0)],
            [held(hand), held(other)],
        ),
        catalog.clone(),
        Arc::new(Rules::default()),
        scripts,
        &mut (),
    )
}

fn instant(catalog: &Catalog, id: &str, target: Target) -> Action {
    Action::Instant {
        tile: catalog.find(&format!("bi/{id}")).expect("an instant"),
        target,
    }
}

/// Plays `action`, which must be refused by a hook, and returns the message, checking that the
/// game is as it was.
fn hook_refusal(game: &mut Game, scripts: &mut ScriptHost, action: &Action) -> String {
    let before = game.state_hash();
    let hand = game.hand(Seat::new(0)).to_vec();
    let err = game
        .act(action, scripts, &mut DefaultPolicy, &mut ())
        .expect_err("refused");
    assert_eq!(game.state_hash(), before, "the game is as it was");
    assert_eq!(game.hand(Seat::new(0)), hand, "the instant is still held");
    match err {
        ActionError::Hook(e) => e.message,
        other => panic!("refused by the rules, not a hook: {other}"),
    }
}

#[test]
fn a_scripted_instants_targets_are_legal_actions_and_it_is_played_on_one() {
    let (catalog, mut scripts) = fixture();
    let mut g = game(&catalog, &mut scripts, &["sting"], &[]).expect("a game");
    let mut legal = LegalActions::new();
    g.legal_actions(&mut legal);
    let stings: Vec<Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Instant { .. }))
        .collect();
    // Only the enemy Grunt: not the HQs, nothing else.
    assert_eq!(
        stings,
        vec![instant(&catalog, "sting", Target::Hex(Hex::new(0, 0)))]
    );
    let mut events = Vec::new();
    g.act(&stings[0], &mut scripts, &mut DefaultPolicy, &mut events)
        .expect("played");
    let grunt = catalog.find("bi/grunt").expect("grunt");
    assert!(g.field().at_hex(Hex::new(0, 0)).is_none(), "{events:?}");
    // R5.7: the instant goes to its player's discard pile; the Grunt to its owner's (R4.3.5).
    assert_eq!(
        g.discard_pile(Seat::new(0)),
        [catalog.find("bi/sting").expect("sting")]
    );
    assert_eq!(g.discard_pile(Seat::new(1)), [grunt]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::InstantPlayed { at: Some(_), .. }))
    );
}

#[test]
fn none_in_the_list_plays_it_with_no_target_and_a_hex_listed_twice_counts_once() {
    let (catalog, mut scripts) = fixture();
    let mut g = game(&catalog, &mut scripts, &["anywhere"], &[]).expect("a game");
    let mut legal = LegalActions::new();
    g.legal_actions(&mut legal);
    let listed: Vec<Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Instant { .. }))
        .collect();
    assert_eq!(
        listed,
        vec![
            instant(&catalog, "anywhere", Target::None),
            instant(&catalog, "anywhere", Target::Hex(Hex::new(0, 0))),
        ]
    );
    let mut events = Vec::new();
    g.act(&listed[0], &mut scripts, &mut DefaultPolicy, &mut events)
        .expect("played with no target");
    // `ctx:owner()` is the player who plays it: the marker is on player 1.
    assert!(
        events.iter().any(|e| matches!(
            e,
            Event::Marked { mark } if mark.on == hexforge_core::marker::MarkOn::Player(Seat::new(0))
        )),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::InstantPlayed { at: None, .. }))
    );
}

#[test]
fn a_target_its_script_does_not_list_is_refused_by_the_rules() {
    let (catalog, mut scripts) = fixture();
    let mut g = game(&catalog, &mut scripts, &["sting"], &[]).expect("a game");
    let before = g.state_hash();
    for target in [
        Target::Hex(Hex::new(1, 0)),
        Target::None,
        Target::Unit(Hex::new(0, 0)),
    ] {
        let err = g
            .act(
                &instant(&catalog, "sting", target),
                &mut scripts,
                &mut DefaultPolicy,
                &mut (),
            )
            .expect_err("not listed");
        assert!(
            err.to_string()
                .contains("sting: the target must be a hex its script lists"),
            "{err}"
        );
    }
    assert_eq!(g.state_hash(), before);
}

#[test]
fn a_target_list_with_a_hex_off_the_board_refuses_the_action_that_asks_it() {
    let (catalog, mut scripts) = fixture();
    // Player 2 holds it: the list is worked out when their turn begins, so ending player 1's
    // turn is refused.
    let mut g = game(&catalog, &mut scripts, &["grunt"], &["off_board"]).expect("a game");
    let m = hook_refusal(&mut g, &mut scripts, &Action::EndTurn);
    assert!(
        m.contains("bad_instants, scripts/bad_instants.lua:5, targets, bi/off_board"),
        "{m}"
    );
    assert!(m.contains("target 2, (9, 9), is off the board"), "{m}");
    // Held as the game starts, it refuses the position.
    let err = game(&catalog, &mut scripts, &["off_board"], &[]).expect_err("refused");
    assert!(
        err.to_string().contains("(9, 9), is off the board"),
        "{err}"
    );
}

#[test]
fn a_target_that_is_no_hex_is_refused_at_the_targets_function() {
    let (catalog, mut scripts) = fixture();
    let mut g = game(&catalog, &mut scripts, &["grunt"], &["not_a_hex"]).expect("a game");
    let m = hook_refusal(&mut g, &mut scripts, &Action::EndTurn);
    assert!(
        m.contains("bad_instants, scripts/bad_instants.lua:12, targets, bi/not_a_hex"),
        "{m}"
    );
    assert!(
        m.contains("target 1 is the string \"somewhere\": give a hex {q, r} or \"none\""),
        "{m}"
    );
}

#[test]
fn a_play_that_fails_is_refused_at_its_line() {
    let (catalog, mut scripts) = fixture();
    let mut g = game(&catalog, &mut scripts, &["failing"], &[]).expect("a game");
    let play = instant(&catalog, "failing", Target::Hex(Hex::new(0, 0)));
    let m = hook_refusal(&mut g, &mut scripts, &play);
    assert!(
        m.contains("bad_instants, scripts/bad_instants.lua:23, play, bi/failing"),
        "{m}"
    );
    assert!(m.contains("the tide is out"), "{m}");
}

#[test]
fn an_effect_that_fails_its_check_is_refused_at_its_line() {
    let (catalog, mut scripts) = fixture();
    let mut g = game(&catalog, &mut scripts, &["empty_wound"], &[]).expect("a game");
    // No `targets` function: it is played with no target.
    let play = instant(&catalog, "empty_wound", Target::None);
    let mut legal = LegalActions::new();
    g.legal_actions(&mut legal);
    assert!(legal.iter().any(|a| a == play));
    let m = hook_refusal(&mut g, &mut scripts, &play);
    assert!(
        m.contains("bad_instants, scripts/bad_instants.lua:29, play, bi/empty_wound"),
        "{m}"
    );
    assert!(m.contains("fx:wound: no tile on (1, 1) to wound"), "{m}");
}

#[test]
fn a_marker_with_a_negative_duration_is_refused_at_its_line() {
    let (catalog, mut scripts) = fixture();
    let mut g = game(&catalog, &mut scripts, &["minus_one"], &[]).expect("a game");
    let play = instant(&catalog, "minus_one", Target::Hex(Hex::new(0, 0)));
    let m = hook_refusal(&mut g, &mut scripts, &play);
    assert!(
        m.contains("bad_instants, scripts/bad_instants.lua:38, play, bi/minus_one"),
        "{m}"
    );
    assert!(
        m.contains("a marker lasts \"turn\", \"battle\", \"permanent\" or 1 to 99 turns; got -1"),
        "{m}"
    );
}

/// A mod in a fresh folder with one army whose tiles bind `lua`'s abilities as `tiles` says.
fn one_army_mod(name: &str, lua: &str, tiles: &str) -> PathBuf {
    let dir = common::mod_folder(
        name,
        &format!(
            "id = \"{name}\"\nname = \"x\"\nversion = \"1.0.0\"\nhexforge = \"^0.2\"\n\n[provides]\narmies = [\"xa\"]\nscripts = true\n"
        ),
    );
    let write = |p: &str, s: &str| std::fs::write(dir.join(p), s).expect("write");
    write("scripts/x.lua", lua);
    write(
        "armies/xa.toml",
        &format!(
            "[army]\nid = \"xa\"\nname = \"X\"\nsize = 2\n\n[[tile]]\nid = \"hq\"\nname = \"HQ\"\nkind = \"hq\"\ncount = 1\ninitiative = [0]\n\n{tiles}"
        ),
    );
    dir
}

#[test]
fn targets_and_play_bind_only_to_instants_without_a_built_in_effect() {
    let lua = "ability(\"aim\", { targets = function(ctx) return {} end, play = function(ctx, t, fx) end })\n\
               ability(\"both\", { instant = function(p) return { effect = \"battle\" } end })\n\
               ability(\"aim_only\", { targets = function(ctx) return {} end })\n";
    for (name, tiles, problem) in [
        (
            "aim_soldier",
            "[[tile]]\nid = \"s\"\nname = \"S\"\nkind = \"soldier\"\ncount = 1\ninitiative = [1]\n\n[[tile.ability]]\nhook = \"aim\"\n",
            "only instant tiles have `targets` and `play`; this tile is a soldier",
        ),
        (
            "aim_both",
            "[[tile]]\nid = \"i\"\nname = \"I\"\nkind = \"instant\"\ncount = 1\n\n[[tile.ability]]\nhook = \"both\"\n\n[[tile.ability]]\nhook = \"aim\"\n",
            "an instant plays a built-in effect (`instant`) or its scripts (`play`), not both",
        ),
        (
            "aim_no_play",
            "[[tile]]\nid = \"i\"\nname = \"I\"\nkind = \"instant\"\ncount = 1\n\n[[tile.ability]]\nhook = \"aim_only\"\n",
            "plays nothing",
        ),
    ] {
        let dir = one_army_mod(name, lua, tiles);
        let loaded = hexforge_script::load(std::slice::from_ref(&dir), Limits::default());
        let text = loaded.mods.problems.to_string();
        assert!(text.contains(problem), "{name}: {text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Whether `action` plays a scripted instant (the Tidecallers' Snare or Tidal Wave).
fn scripted(catalog: &Catalog, action: &Action) -> bool {
    matches!(action, Action::Instant { tile, .. } if hexforge_core::instant::is_scripted(catalog, *tile))
}

#[test]
fn a_bot_plays_a_scripted_instant_and_the_replay_plays_it_again_identically() {
    let loaded = common::load_clean(&[common::root().join("mods")]);
    let catalog = Arc::new(loaded.mods.catalog);
    let mut scripts = loaded.scripts;
    for seed in 0..40 {
        let start = Game::new(
            GameSetup {
                shape: BoardShape::standard(),
                seats: SeatSetup::each_alone(&["tidecallers", "moloch"]),
                seed,
                marks: Vec::new(),
            },
            catalog.clone(),
            Arc::new(Rules::default()),
        )
        .expect("a game");
        let mut game = start.clone();
        let mut steps = common::record(
            &mut game,
            &mut [&mut GreedyBot::new(seed), &mut RandomBot::new(seed + 1)],
            &mut scripts,
        );
        if !steps.iter().any(|s| scripted(&catalog, &s.action)) {
            continue;
        }
        // Written and read back as a replay file writes actions, then played again: every
        // state is the one recorded.
        for s in &mut steps {
            let text = encode_action(&s.action, &catalog);
            s.action = decode_action(&text, &catalog).expect("reads back");
        }
        let timeline = Timeline::new(start.clone(), &steps, &mut scripts).expect("replays");
        for n in 1..=steps.len() {
            let hash = timeline
                .state_at(n, &mut scripts)
                .expect("replays")
                .state_hash();
            assert_eq!(hash, steps[n - 1].hash, "seed {seed}, step {n}");
        }
        assert_eq!(steps.last().map(|s| s.hash), Some(game.state_hash()));
        return;
    }
    panic!("the greedy bot never played the Snare or the Tidal Wave in 40 games");
}

/// A plain scenario board that plays the `roll` instant on the Grunt on [0, 0].
const ROLL: &str = r#"
name = "roll"
rules = "R5.7"

[[player]]
id = "a"
army = "bi"

[[player]]
id = "b"
army = "bi"

[[tile]]
label = "a_hq"
owner = "a"
tile = "bi/hq"
at = [0, 2]

[[tile]]
label = "b_hq"
owner = "b"
tile = "bi/hq"
at = [0, -2]

[[tile]]
label = "grunt"
owner = "b"
tile = "bi/grunt"
at = [0, 0]

[[step]]
do = "instant"
by = "a"
tile = "bi/dice"
at = [0, 0]
"#;

#[test]
fn a_scripted_instant_on_a_scenario_board_draws_the_same_numbers_in_every_run() {
    let (catalog, mut scripts) = fixture();
    let src = hexforge_content::SourceText::new("roll.toml", ROLL);
    let s = hexforge_scenario::parse_scenario(&src, &catalog).expect("the scenario reads");
    // The same host plays it three times: what the instant draws must not depend on what the
    // scripts drew in the runs before.
    let first = hexforge_scenario::run_scenario(&s, &catalog, &mut scripts);
    assert!(first.passed(), "{:?}", first.failures);
    let rolled = |log: &[String]| {
        log.iter()
            .find(|l| l.contains("`rolled`"))
            .cloned()
            .unwrap_or_else(|| panic!("no roll in {log:?}"))
    };
    for _ in 0..2 {
        let again = hexforge_scenario::run_scenario(&s, &catalog, &mut scripts);
        assert_eq!(rolled(&again.log), rolled(&first.log));
    }
}
