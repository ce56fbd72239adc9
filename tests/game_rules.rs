//! Game scripts (docs/RULESETS.md, "Game scripts" and "Mod actions"): Lua a mod attaches to the
//! game through `rule(...)`, in play only when its `when` options hold. The fixture
//! `tests/fixtures/rule_test` touches every point: setup markers, the draw count, what a turn
//! drew, losses, the end-of-game check, what is closed, and an action of its own, which bots
//! take, replays record and a fresh host plays again bit for bit.

mod common;

use hexforge_bots::{GreedyBot, MonteCarloBot, RandomBot};
use hexforge_core::game::{LegalActions, Player, Seats};
use hexforge_core::hooks::{Closed, RulePoints};
use hexforge_core::marker::{MarkOn, MarkerName};
use hexforge_core::tile::ParamValue;
use hexforge_core::{
    Action, ActionError, BoardShape, Catalog, Event, Game, GameError, GameResult, GameSetup, Hex,
    Rules, Seat, SeatSetup, Stage,
};
use hexforge_replay::{decode_action, encode_action, replay_step};
use hexforge_script::{Limits, ScriptHost};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn roots() -> Vec<PathBuf> {
    vec![base(), common::root().join("tests/fixtures/rule_test")]
}

/// The base mod's folder.
fn base() -> PathBuf {
    common::root().join("mods/base")
}

fn load() -> (Arc<Catalog>, ScriptHost) {
    let loaded = common::load_clean(&roots());
    (Arc::new(loaded.mods.catalog), loaded.scripts)
}

/// The rules with the declared options `set` (key, value).
fn rules(catalog: &Catalog, set: &[(&str, ParamValue)]) -> Arc<Rules> {
    let mut rules = Rules::default();
    for (key, value) in set {
        rules
            .set_any(catalog.options(), key, value)
            .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    Arc::new(rules)
}

fn counting(catalog: &Catalog) -> Arc<Rules> {
    rules(catalog, &[("counting", ParamValue::Bool(true))])
}

fn setup(seed: u64) -> GameSetup {
    GameSetup {
        shape: BoardShape::standard(),
        seats: SeatSetup::each_alone(&["moloch", "outpost"]),
        seed,
        marks: Vec::new(),
    }
}

fn score(game: &Game, p: u8) -> Option<i16> {
    let name = MarkerName::new("score").expect("a name");
    game.field()
        .mark(MarkOn::Player(Seat::new(p)), name)
        .map(|m| m.value)
}

#[test]
fn a_rule_whose_options_are_off_is_not_in_play_and_costs_nothing() {
    let (catalog, _) = load();
    assert_eq!(catalog.game_rules().len(), 4);
    let game = Game::new(setup(1), catalog.clone(), Arc::new(Rules::default())).expect("a game");
    assert!(game.rule_points().is_empty());
    assert_eq!(game.rules_in_play().count(), 0);
}

#[test]
fn a_game_with_a_rule_in_play_needs_its_scripts_from_the_start() {
    let (catalog, _) = load();
    let err = Game::new(setup(1), catalog.clone(), counting(&catalog)).expect_err("refused");
    assert!(matches!(err, GameError::NeedsScripts { .. }));
    assert!(
        err.to_string().contains("`counting` of mod `rule_test`"),
        "{err}"
    );
    // Without the scripts, a rule's hook fails rather than doing nothing.
    let err = Game::start(
        setup(1),
        catalog.clone(),
        counting(&catalog),
        &mut hexforge_core::NoAbilities,
        &mut (),
    )
    .expect_err("refused");
    assert!(
        err.to_string().contains("its scripts are not loaded"),
        "{err}"
    );
}

#[test]
fn setup_marks_players_and_hexes_before_the_first_hq() {
    let (catalog, mut scripts) = load();
    let mut events: Vec<Event> = Vec::new();
    let game = Game::start(
        setup(1),
        catalog.clone(),
        counting(&catalog),
        &mut scripts,
        &mut events,
    )
    .expect("a game");
    assert_eq!(game.stage(), Stage::PlaceHq);
    assert!(game.rule_points().contains(RulePoints::SETUP));
    assert_eq!(score(&game, 0), Some(0));
    assert_eq!(score(&game, 1), Some(0));
    let hill = MarkerName::new("hill").expect("a name");
    let centre = game
        .field()
        .shape()
        .cell(Hex::new(0, 0))
        .expect("on the board");
    assert_eq!(
        game.field()
            .mark(MarkOn::Hex(centre), hill)
            .map(|m| m.value),
        Some(1)
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Marked { .. }))
            .count(),
        3,
        "the setup's markers are events"
    );
}

/// A game of the fixture at the start of turn `n` (the first player's HQ placed first), played
/// by a random bot.
fn at_turn(n: u16, seed: u64) -> (Game, ScriptHost) {
    let (catalog, mut scripts) = load();
    let mut game = Game::start(
        setup(seed),
        catalog.clone(),
        counting(&catalog),
        &mut scripts,
        &mut (),
    )
    .expect("a game");
    let mut bots = [RandomBot::new(seed), RandomBot::new(seed + 1)];
    let mut legal = LegalActions::new();
    while game.turn_number() < n && game.current().is_some() {
        let seat = game.current().expect("a player");
        game.legal_actions(&mut legal);
        // Rally is never taken here, so each turn's actions stay as the engine's.
        let pick = loop {
            let k = bots[seat.index()].act(&game, &legal, &mut scripts);
            if !matches!(legal.get(k), Some(Action::Rule { .. })) {
                break k;
            }
        };
        let action = legal.get(pick).expect("listed");
        let mut players: Vec<&mut dyn Player> =
            bots.iter_mut().map(|b| b as &mut dyn Player).collect();
        game.act(
            &action,
            &mut scripts,
            &mut Seats {
                players: &mut players,
            },
            &mut (),
        )
        .expect("legal");
    }
    (game, scripts)
}

#[test]
fn turn_started_changes_how_many_tiles_are_drawn_and_drawn_sees_the_hand() {
    // R2.4: turn 2 draws up to 2 tiles; the fixture's `turn_started` returns 0 for it.
    let (game, _) = at_turn(2, 4);
    assert_eq!(game.turn_number(), 2);
    let p = game.current().expect("a player");
    assert!(game.hand(p).is_empty(), "{:?}", game.hand(p));
    let drew = MarkerName::new("drew").expect("a name");
    assert_eq!(
        game.field().mark(MarkOn::Player(p), drew).map(|m| m.value),
        Some(0),
        "`drawn` ran after the draw"
    );
    let (game, _) = at_turn(3, 4);
    let p = game.current().expect("a player");
    assert!(!game.hand(p).is_empty(), "turn 3 draws as usual");
}

#[test]
fn restrict_closes_moves_and_blocks_a_hex_for_the_turn() {
    let (game, _) = at_turn(4, 9);
    assert_eq!(game.turn_number(), 4);
    let r = game.restriction();
    assert!(r.closed.contains(Closed::MOVE));
    let centre = game
        .field()
        .shape()
        .cell(Hex::new(0, 0))
        .expect("on the board");
    assert_ne!(r.blocked & (1u64 << centre.index()), 0);
    let mut legal = LegalActions::new();
    game.legal_actions(&mut legal);
    for a in legal.iter() {
        match a {
            Action::Move { .. } => panic!("a move is listed: {a:?}"),
            Action::Place { hex, .. } => assert_ne!(hex, Hex::new(0, 0)),
            _ => {}
        }
    }
    if game.field().at(centre).is_none()
        && let Some(tile) = game
            .hand(game.current().expect("a player"))
            .iter()
            .copied()
            .find(|t| game.catalog().get(*t).kind.is_board_tile())
    {
        let refused = game.check(&Action::Place {
            tile,
            hex: Hex::new(0, 0),
            facing: hexforge_core::Dir::N,
        });
        assert!(
            matches!(refused, Err(ActionError::BlockedByRule { .. })),
            "{refused:?}"
        );
        assert!(refused.expect_err("refused").to_string().contains("blocks"));
    }
    let (game, _) = at_turn(5, 9);
    assert!(game.restriction().is_open(), "turn 5 is open again");
}

#[test]
fn a_rule_action_is_listed_taken_once_per_turn_and_written_in_replays() {
    let (mut game, mut scripts) = at_turn(3, 2);
    let p = game.current().expect("a player");
    let own_units = game
        .field()
        .tiles()
        .filter(|(_, t)| t.owner == p && !game.catalog().get(t.tile).is_hq())
        .count();
    let mut legal = LegalActions::new();
    game.legal_actions(&mut legal);
    let rallies: Vec<Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Rule { .. }))
        .collect();
    assert_eq!(
        rallies.len(),
        own_units,
        "one target per unit of the player"
    );
    if let Some(rally) = rallies.first().copied() {
        let text = encode_action(&rally, game.catalog());
        assert!(text.starts_with("rule rule_test/counting rally "), "{text}");
        assert_eq!(decode_action(&text, game.catalog()), Ok(rally));
        let mut events: Vec<Event> = Vec::new();
        game.act(
            &rally,
            &mut scripts,
            &mut hexforge_core::DefaultPolicy,
            &mut events,
        )
        .expect("legal");
        assert!(matches!(events[0], Event::RuleAction { .. }), "{events:?}");
        let rallied = MarkerName::new("rallied").expect("a name");
        assert!(game.field().mark(MarkOn::Player(p), rallied).is_some());
        game.legal_actions(&mut legal);
        assert!(
            !legal.iter().any(|a| matches!(a, Action::Rule { .. })),
            "once per turn"
        );
        let again = game.check(&rally).expect_err("refused");
        assert!(
            again.to_string().contains("may not be taken now"),
            "{again}"
        );
    }
    let unknown =
        decode_action("rule rule_test/countng rally none", game.catalog()).expect_err("refused");
    assert!(
        unknown.contains("(did you mean `rule_test/counting`?)"),
        "{unknown}"
    );
}

#[test]
fn bots_play_games_with_rules_to_the_end_and_a_fresh_host_replays_them_bit_for_bit() {
    for seed in [1u64, 5] {
        let (catalog, mut scripts) = load();
        let rules = counting(&catalog);
        let mut game = Game::start(
            setup(seed),
            catalog.clone(),
            rules.clone(),
            &mut scripts,
            &mut (),
        )
        .expect("a game");
        let start = game.clone();
        let steps = if seed == 1 {
            common::record(
                &mut game,
                &mut [&mut RandomBot::new(3), &mut RandomBot::new(4)],
                &mut scripts,
            )
        } else {
            common::record(
                &mut game,
                &mut [&mut GreedyBot::new(7), &mut MonteCarloBot::new(2, 2)],
                &mut scripts,
            )
        };
        let result = game.result().expect("the game ended");
        let (s0, s1) = (score(&game, 0).unwrap_or(0), score(&game, 1).unwrap_or(0));
        match result {
            GameResult::Won { team } => {
                let (mine, theirs) = if team == 0 { (s0, s1) } else { (s1, s0) };
                assert!(
                    mine >= theirs,
                    "the check names the best score: {s0} to {s1}"
                );
            }
            GameResult::Shared { .. } => assert_eq!(s0, s1),
            GameResult::Draw { .. } => assert_eq!(s0, s1),
        }
        assert!(
            steps
                .iter()
                .any(|s| matches!(s.action, Action::Rule { .. }))
                || seed == 5,
            "a random bot takes the rule's action at some point"
        );
        let fresh = hexforge_script::load(&roots(), Limits::default());
        let mut fresh_scripts = fresh.scripts;
        let fresh_catalog = Arc::new(fresh.mods.catalog);
        let mut again = Game::start(
            setup(seed),
            fresh_catalog.clone(),
            counting(&fresh_catalog),
            &mut fresh_scripts,
            &mut (),
        )
        .expect("a game");
        assert_eq!(again.state_hash(), start.state_hash());
        for (n, step) in steps.iter().enumerate() {
            replay_step(&mut again, step, &mut fresh_scripts, &mut ())
                .unwrap_or_else(|e| panic!("step {}: {e}", n + 1));
            assert_eq!(again.state_hash(), step.hash, "step {}", n + 1);
        }
    }
}

#[test]
fn a_failing_rule_hook_is_refused_with_its_mod_file_line_hook_and_rule() {
    let (catalog, mut scripts) = load();
    let rules = rules(
        &catalog,
        &[("broken_rule", ParamValue::Str("turn_ended".into()))],
    );
    let mut game =
        Game::start(setup(2), catalog.clone(), rules, &mut scripts, &mut ()).expect("a game");
    let mut legal = LegalActions::new();
    let mut failure = None;
    for _ in 0..50 {
        game.legal_actions(&mut legal);
        let before = game.state_hash();
        let end = legal
            .iter()
            .find(|a| matches!(a, Action::EndTurn))
            .or_else(|| legal.get(0))
            .expect("an action");
        match game.act(
            &end,
            &mut scripts,
            &mut hexforge_core::DefaultPolicy,
            &mut (),
        ) {
            Ok(()) => {}
            Err(e) => {
                assert_eq!(game.state_hash(), before, "the game is as it was");
                failure = Some(e.to_string());
                break;
            }
        }
    }
    let failure = failure.expect("ending a turn fails");
    assert!(
        failure.contains("rule_test, scripts/rules.lua:")
            && failure.contains(", turn_ended, rule broken: ")
            && failure.contains("the broken rule fails here"),
        "{failure}"
    );
}

#[test]
fn a_check_naming_no_player_is_refused_at_its_line() {
    let (catalog, mut scripts) = load();
    let rules = rules(
        &catalog,
        &[("broken_rule", ParamValue::Str("check".into()))],
    );
    let mut game =
        Game::start(setup(2), catalog.clone(), rules, &mut scripts, &mut ()).expect("a game");
    let mut legal = LegalActions::new();
    game.legal_actions(&mut legal);
    let err = game
        .act(
            &legal.get(0).expect("an action"),
            &mut scripts,
            &mut hexforge_core::DefaultPolicy,
            &mut (),
        )
        .expect_err("the check fails");
    let text = err.to_string();
    assert!(
        text.contains("check, rule broken_check: ") && text.contains("from 1 to 2, not 7"),
        "{text}"
    );
}

/// The base mods and the mod in `dir` loaded, and a game of seed 4 started with the default
/// rules: its catalog, its scripts and the game.
fn started(dir: &Path) -> (Arc<Catalog>, ScriptHost, Game) {
    let loaded = common::load_clean(&[base(), dir.to_path_buf()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let game = Game::start(
        setup(4),
        catalog.clone(),
        Arc::new(Rules::default()),
        &mut scripts,
        &mut (),
    )
    .expect("a game");
    (catalog, scripts, game)
}

/// The fixture copied to a temporary folder with `rules.lua` replaced by `script`.
fn mod_with(name: &str, script: &str) -> PathBuf {
    let dir = common::fresh_dir(&format!("rules-{name}"));
    std::fs::create_dir_all(dir.join("scripts")).expect("a scripts folder");
    let fixture = common::root().join("tests/fixtures/rule_test");
    for f in ["mod.toml", "options.toml"] {
        std::fs::copy(fixture.join(f), dir.join(f)).expect("copy");
    }
    std::fs::write(dir.join("scripts/rules.lua"), script).expect("write");
    dir
}

#[test]
fn bad_rules_are_refused_at_load_with_file_line_and_what_to_do() {
    let cases = [
        (
            "when_unknown",
            "-- one\nrule(\"a\", {\n  when = \"countng\",\n  setup = function(ctx, fx) end,\n})\n",
            "rules.lua:2",
            "names the option `countng`, which no loaded mod declares (did you mean `counting`?)",
        ),
        (
            "when_value",
            "rule(\"a\", { when = { counting_target = \"many\" }, setup = function() end })\n",
            "rules.lua:1",
            "a value it does not take: use a whole number from 1 to 99",
        ),
        (
            "no_targets",
            "rule(\"a\", {\n  actions = {\n    { name = \"go\", play = function(ctx, t, fx) end },\n  },\n})\n",
            "rules.lua:1",
            "action `go` has no `targets` function: every action says who may take it and where",
        ),
        (
            "unknown_point",
            "rule(\"a\", { turn_start = function() end })\n",
            "rules.lua:1",
            "unknown key `turn_start` (did you mean `turn_started`?)",
        ),
        (
            "restrict_when_empty",
            "rule(\"a\", { restrict_when = {}, restrict = function() end })\n",
            "rules.lua:1",
            "`restrict_when` names no stage and no marker, so `restrict` would never be asked",
        ),
        (
            "restrict_when_stage",
            "rule(\"a\", { restrict_when = { stages = { \"plya\" } }, restrict = function() end })\n",
            "rules.lua:1",
            "`restrict_when`: `plya` is no stage (did you mean `play`?)",
        ),
        (
            "when_without_hook",
            "rule(\"a\", { turn_ended_when = { markers = { \"go\" } }, setup = function() end })\n",
            "rules.lua:1",
            "`turn_ended_when` says when `turn_ended` is asked, but the rule has no `turn_ended` function",
        ),
        (
            "when_empty",
            "rule(\"a\", { battle_ended_when = {}, battle_ended = function() end })\n",
            "rules.lua:1",
            "`battle_ended_when` names no stage and no marker, so `battle_ended` would never be asked",
        ),
        (
            "when_unknown_key",
            "rule(\"a\", { turn_ended_when = { player = { \"go\" } }, turn_ended = function() end })\n",
            "rules.lua:1",
            "unknown key `player` in `turn_ended_when`",
        ),
        (
            "setup_when",
            "rule(\"a\", { setup_when = { markers = { \"go\" } }, setup = function() end })\n",
            "rules.lua:1",
            "unknown key `setup_when`",
        ),
        (
            "lacks_bad_name",
            "rule(\"a\", { actions = { { name = \"go\", lacks = { \"Bad Name\" }, targets = function() end, play = function() end } } })\n",
            "rules.lua:1",
            "rule `a`, action `go`: `lacks`:",
        ),
        (
            "secret_bad_name",
            "rule(\"a\", { secret = { \"Vault\" }, setup = function() end })\n",
            "rules.lua:1",
            "rule `a`: `secret`:",
        ),
        (
            "secret_not_a_list",
            "rule(\"a\", { secret = \"vault\", setup = function() end })\n",
            "rules.lua:1",
            "rule `a`: `secret` is a list of marker names, not",
        ),
        (
            "secret_action_not_bool",
            "rule(\"a\", { actions = { { name = \"go\", secret = \"yes\", targets = function() end, play = function() end } } })\n",
            "rules.lua:1",
            "rule `a`, action `go`: `secret` is true or false",
        ),
        (
            "after_discard_not_bool",
            "rule(\"a\", { actions = { { name = \"go\", after_discard = 1, targets = function() end, play = function() end } } })\n",
            "rules.lua:1",
            "rule `a`, action `go`: `after_discard` is true or false, not 1",
        ),
        (
            "declared_targets_unknown_key",
            "rule(\"a\", { actions = { { name = \"go\", targets = { spot = { from = { \"hq\" }, size = 3 } }, play = function() end } } })\n",
            "rules.lua:1",
            "rule `a`, action `go`: unknown key `spot` in `targets` (did you mean `spots`?)",
        ),
        (
            "declared_targets_both",
            "rule(\"a\", { actions = { { name = \"go\", targets = { spots = { from = { \"hq\" }, size = 3 }, pile = { \"soldier\" } }, play = function() end } } })\n",
            "rules.lua:1",
            "`targets` declares both `spots` and `pile`",
        ),
        (
            "declared_spots_size",
            "rule(\"a\", { actions = { { name = \"go\", targets = { spots = { from = { \"hq\" }, size = 9 } }, play = function() end } } })\n",
            "rules.lua:1",
            "`targets.spots.size` is the number of hexes of the whole unit, 2 to 7, not 9",
        ),
        (
            "declared_spots_from",
            "rule(\"a\", { actions = { { name = \"go\", targets = { spots = { from = { \"banner\" }, size = 3 } }, play = function() end } } })\n",
            "rules.lua:1",
            "`targets.spots.from` lists \"hq\" or { marked = \"name\" }",
        ),
        (
            "declared_spots_too_many",
            "rule(\"a\", { actions = { { name = \"go\", targets = { spots = { from = { \"hq\", { marked = \"m\" } }, size = 2 } }, play = function() end } } })\n",
            "rules.lua:1",
            "`targets.spots.from` lists 2 hexes for a unit of 2",
        ),
        (
            "declared_pile_kind",
            "rule(\"a\", { actions = { { name = \"go\", targets = { pile = { \"champion\" } }, play = function() end } } })\n",
            "rules.lua:1",
            "`targets.pile`: `champion` is no kind of tile: hq, soldier, module or instant",
        ),
        (
            "at_least_not_a_number",
            "rule(\"a\", { actions = { { name = \"go\", at_least = { charges = \"two\" }, targets = function() end, play = function() end } } })\n",
            "rules.lua:1",
            "rule `a`, action `go`: `at_least` is a table of player markers and whole numbers",
        ),
        (
            "restriction_offered_unknown",
            "rule(\"a\", { restrict = { { offered = \"hid\", close = { \"hq\" } } }, actions = { { name = \"hide\", targets = function() end, play = function() end } } })\n",
            "rules.lua:1",
            "rule `a`, restriction 1: `offered` names `hid`, which is none of the rule's actions (did you mean `hide`?)",
        ),
        (
            "restriction_closes_nothing",
            "rule(\"a\", { restrict = { { marker = \"busy\" } } })\n",
            "rules.lua:1",
            "rule `a`, restriction 1: it closes nothing: give `close` or `place_only`",
        ),
        (
            "restriction_unknown_kind",
            "rule(\"a\", { restrict = { { marker = \"busy\", close = { \"palce\" } } } })\n",
            "rules.lua:1",
            "`close`: `palce` is no kind of action (did you mean `place`?)",
        ),
        (
            "restriction_unknown_key",
            "rule(\"a\", { restrict = { { markers = \"busy\", close = { \"place\" } } } })\n",
            "rules.lua:1",
            "rule `a`, restriction 1: unknown key `markers` (did you mean `marker`?)",
        ),
    ];
    for (name, script, at, message) in cases {
        let dir = mod_with(name, script);
        let loaded = hexforge_script::load(&[base(), dir.clone()], Limits::default());
        let text = loaded.mods.problems.to_string();
        assert!(
            text.contains(at) && text.contains(message),
            "{name}: {text}"
        );
        assert!(
            loaded.mods.catalog.army("moloch").is_some(),
            "{name}: the other mods still load"
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A two-player game of `setup(seed)` under the default rules, its rules' `setup` run.
fn plain_game(seed: u64, catalog: &Arc<Catalog>, scripts: &mut ScriptHost) -> Game {
    Game::start(
        setup(seed),
        catalog.clone(),
        Arc::new(Rules::default()),
        scripts,
        &mut (),
    )
    .expect("a game")
}

/// A rule that would close the HQ placement to everyone, but whose `restrict` is asked only when
/// the player on turn carries `locked` (`restrict_when`), which its setup gives player 2 alone.
const LOCKED: &str = r#"rule("locked", {
  setup = function(ctx, fx)
    fx:mark_player(2, "locked", "permanent", 1)
  end,
  restrict_when = { markers = { "locked" } },
  restrict = function(ctx)
    return { close = { "hq" } }
  end,
})
"#;

#[test]
fn restrict_is_asked_only_under_the_stages_and_markers_of_restrict_when() {
    let dir = mod_with("locked", LOCKED);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let mut game = plain_game(3, &catalog, &mut scripts);
    let mut legal = LegalActions::new();
    let mut seen = [false; 2];
    while let Some(seat) = game.current().filter(|_| game.stage() == Stage::PlaceHq) {
        game.legal_actions(&mut legal);
        let hq = legal.iter().find(|a| matches!(a, Action::Place { .. }));
        let locked = seat.index() == 1;
        seen[seat.index()] = true;
        assert_eq!(
            game.restriction().closed.contains(Closed::HQ),
            locked,
            "restrict is asked for {seat} only when it carries `locked`"
        );
        match hq {
            Some(a) if !locked => game
                .act(&a, &mut scripts, &mut hexforge_core::DefaultPolicy, &mut ())
                .expect("the HQ goes down"),
            Some(_) => panic!("the HQ of the locked player is closed"),
            None => break,
        }
    }
    assert_eq!(seen, [true, true], "both players were looked at");
    let _ = std::fs::remove_dir_all(dir);
}

/// A rule that closes the Battle instants and nothing else (`close_instants`).
const NO_BATTLE: &str = r#"rule("no_battle", {
  restrict = function(ctx)
    return { close_instants = { "battle" } }
  end,
})
"#;

#[test]
fn close_instants_closes_the_battle_tile_and_no_other_instant() {
    let dir = mod_with("no_battle", NO_BATTLE);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let battle = |tile| {
        matches!(
            catalog.get(tile).instant,
            Some(hexforge_core::tile::InstantEffect::Battle)
        )
    };
    let mut other_instants = 0;
    for seed in 1..=6 {
        let mut game = plain_game(seed, &catalog, &mut scripts);
        let look = |game: &Game, legal: &LegalActions| {
            let seat = game.current().expect("a player");
            for a in legal.iter() {
                if let Action::Instant { tile, .. } = a {
                    assert!(!battle(tile), "a Battle instant is listed: {a:?}");
                    other_instants += 1;
                }
            }
            // A held Battle tile is refused with the rule's words.
            if let Some(tile) = game.hand(seat).iter().copied().find(|t| battle(*t)) {
                let refused = game.check(&Action::Instant {
                    tile,
                    target: hexforge_core::game::Target::None,
                });
                assert!(
                    matches!(
                        refused,
                        Err(ActionError::InstantClosedByRule { effect: "battle" })
                    ),
                    "{refused:?}"
                );
                let text = refused.expect_err("refused").to_string();
                assert!(text.contains("closes `battle` instants"), "{text}");
            }
        };
        let going = |game: &Game| game.turn_number() < 12;
        common::play_random(&mut game, &mut scripts, seed, &mut Vec::new(), going, look);
    }
    assert!(other_instants > 0, "the other instants stay open");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn close_instants_naming_no_effect_stops_the_game_with_the_names_it_takes() {
    let script = "rule(\"a\", {\n  restrict = function(ctx)\n    return { close_instants = { \"batle\" } }\n  end,\n})\n";
    let dir = mod_with("close_instants_unknown", script);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let err = Game::start(
        setup(1),
        catalog.clone(),
        Arc::new(Rules::default()),
        &mut scripts,
        &mut (),
    )
    .expect_err("refused");
    let text = err.to_string();
    assert!(
        text.contains("rules.lua:2")
            && text.contains("`batle` is no instant effect (did you mean `battle`?)")
            && text.contains("destroy_near_hq"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_action_of_a_rule_not_in_play_is_refused_naming_the_option_that_turns_it_on() {
    let (catalog, mut scripts) = load();
    let game = plain_game(1, &catalog, &mut scripts);
    let refused = game
        .check(&Action::Rule {
            rule: 0,
            action: 0,
            target: Some(Hex::new(0, 0)),
            facing: None,
            tile: None,
        })
        .expect_err("the rule is off");
    let text = refused.to_string();
    assert!(
        text.contains(
            "its rule `counting` is not in play in this game: it plays when counting=true (`--option counting=true`"
        ),
        "{text}"
    );
}

#[test]
fn a_value_a_hook_returns_that_the_engine_cannot_take_is_quoted_at_the_hooks_line() {
    let script = "rule(\"a\", {\n  turn_started = function(ctx, fx, draw)\n    return \"three\"\n  end,\n})\n";
    let dir = mod_with("draw_string", script);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let mut game = plain_game(1, &catalog, &mut scripts);
    let mut legal = LegalActions::new();
    let mut refused = None;
    while refused.is_none() && game.current().is_some() {
        game.legal_actions(&mut legal);
        let action = legal.get(0).expect("an action");
        if let Err(e) = game.act(
            &action,
            &mut scripts,
            &mut hexforge_core::DefaultPolicy,
            &mut (),
        ) {
            refused = Some(e.to_string());
        }
    }
    let text = refused.expect("turn_started is asked when the first turn begins");
    assert!(
        text.contains("rules.lua:2") && text.contains("or nothing, not \"three\""),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_global_the_scripts_read_that_nothing_defines_is_a_warning_at_its_line() {
    let script = "function helper(ctx) return ctx:turn() end\nlocal function count(ctx)\n  return helper(ctx) + lenght(ctx)\nend\nrule(\"a\", {\n  check = function(ctx)\n    if count(ctx) > 99 and math.max(1, 2) > 1 then return { winner = 1 } end\n  end,\n})\n";
    let dir = mod_with("undefined_global", script);
    let loaded = hexforge_script::load(&[base(), dir.clone()], Limits::default());
    assert!(loaded.mods.problems.is_empty(), "{}", loaded.mods.problems);
    let warnings: Vec<String> = loaded.mods.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("rules.lua:3:")
            && warnings[0]
                .contains("`lenght` is read as a global, but no script of the mod defines it"),
        "{warnings:#?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A rule that ends the game once six turns are over: player 1 wins.
const SIX_TURNS: &str = r#"rule("six_turns", {
  check = function(ctx, ended)
    if ended == nil and ctx:stage() == "turn_over" and ctx:turn() >= 6 then
      return { winner = 1 }
    end
  end,
})
"#;

#[test]
fn check_between_turns_ends_the_game_before_the_next_turn_draws() {
    let dir = mod_with("six_turns", SIX_TURNS);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let mut ended_by_rule = 0;
    for seed in 1..=4 {
        let (game, events) =
            common::random_game(&catalog, &mut scripts, &["moloch", "outpost"], seed);
        // Unless a battle ended it first, the rule ended it after turn 6, and turn 7 never began.
        if matches!(game.result(), Some(GameResult::Won { .. })) && game.turn_number() == 6 {
            assert!(
                !events
                    .iter()
                    .any(|e| matches!(e, Event::TurnStarted { number: 7, .. })),
                "seed {seed}: turn 7 began"
            );
            assert!(
                matches!(events.last(), Some(Event::GameEnded { by_rule: Some(r), .. })
                    if catalog.game_rules()[usize::from(*r)].name == "six_turns"),
                "the event names the rule that decided"
            );
            ended_by_rule += 1;
        } else {
            assert!(game.turn_number() < 6, "seed {seed}: {:?}", game.result());
        }
        assert!(
            game.turn_number() <= 6,
            "seed {seed}: turn {}",
            game.turn_number()
        );
    }
    assert!(ended_by_rule > 0, "no game lasted six turns");
    let _ = std::fs::remove_dir_all(dir);
}

/// The shipped scored deathmatch (mods/scored, R8.3): three players, each wound on an opposing
/// HQ scores for the attacker, and the points decide the game.
#[test]
fn scored_deathmatch_counts_hq_wounds_and_the_points_decide_r8_3() {
    let roots = [base(), common::root().join("mods/scored")];
    for seed in [2u64, 9] {
        let loaded = common::load_clean(&roots);
        let catalog = Arc::new(loaded.mods.catalog);
        let mut scripts = loaded.scripts;
        let mut rules = Rules::default();
        rules
            .set_any(catalog.options(), "scored", &ParamValue::Bool(true))
            .expect("declared");
        // What the mod's [[implies]] gives: no HQ is ever destroyed (R8.3.1).
        rules.hq_hp = 9999;
        let setup = GameSetup {
            shape: BoardShape::standard(),
            seats: SeatSetup::each_alone(&["moloch", "borgo", "outpost"]),
            seed,
            marks: Vec::new(),
        };
        let rules = Arc::new(rules);
        let mut game = Game::start(
            setup.clone(),
            catalog.clone(),
            rules.clone(),
            &mut scripts,
            &mut (),
        )
        .expect("a game");
        let steps = common::record(
            &mut game,
            &mut [
                &mut RandomBot::new(seed),
                &mut RandomBot::new(seed + 1),
                &mut RandomBot::new(seed + 2),
            ],
            &mut scripts,
        );
        let scores: Vec<i16> = (0..3).map(|p| score(&game, p).expect("a score")).collect();
        let lost: Vec<i32> = (0..3)
            .map(|p| 9999 - game.field().hq_hp(Seat::new(p)))
            .collect();
        // Every wound an HQ took was dealt by an opponent's unit or by an instant (nobody's).
        assert!(
            scores.iter().map(|s| i32::from(*s)).sum::<i32>() <= lost.iter().sum::<i32>(),
            "{scores:?} {lost:?}"
        );
        let best = *scores.iter().max().expect("three scores");
        match game.result().expect("the game ended") {
            GameResult::Won { team } => assert_eq!(scores[usize::from(team)], best, "{scores:?}"),
            GameResult::Shared { teams } => {
                for t in 0..3 {
                    assert_eq!(teams & 1 << t != 0, scores[t] == best, "{scores:?}");
                }
            }
            GameResult::Draw { .. } => {
                assert!(
                    scores.iter().filter(|s| **s == best).count() > 1,
                    "{scores:?}"
                )
            }
        }
        let fresh = hexforge_script::load(&roots, Limits::default());
        let mut fresh_scripts = fresh.scripts;
        let mut again = Game::start(
            setup,
            Arc::new(fresh.mods.catalog),
            rules.clone(),
            &mut fresh_scripts,
            &mut (),
        )
        .expect("a game");
        for (n, step) in steps.iter().enumerate() {
            replay_step(&mut again, step, &mut fresh_scripts, &mut ())
                .unwrap_or_else(|e| panic!("step {}: {e}", n + 1));
            assert_eq!(again.state_hash(), step.hash, "step {}", n + 1);
        }
    }
}

#[test]
fn pile_effects_are_checked_against_the_piles_and_refused_with_what_went_wrong() {
    let cases = [
        (
            "fx:place({ tile = \"moloch/cyborg\", q = 0, r = 0, facing = 0, owner = 1 })",
            "place: player 1 has no `moloch/cyborg` in reserve (the reserve holds nothing)",
        ),
        (
            "fx:grant(1, \"moloch/hq\")",
            "grant: `moloch/hq` is not a tile for the board other than an HQ",
        ),
        (
            "fx:set_aside(1, \"outpost/runner\")",
            "set_aside: the draw pile of player 1 holds no `outpost/runner`",
        ),
        (
            "fx:discard(1, \"moloch/cyborg\")",
            "discard: player 1 holds no `moloch/cyborg` (the hand holds nothing)",
        ),
        (
            "fx:grant(1, \"moloch/cyborg\")\n    fx:lift(0, 0)",
            "fx:lift: no tile on (0, 0) to lift",
        ),
        (
            "fx:battle()",
            "battle: a Battle is asked by a rule action's `play`",
        ),
        (
            "fx:place({ tile = \"moloch/cyburg\", q = 0, r = 0, owner = 1 })",
            "scripts/rules.lua:3, setup, rule piles: fx:place: no tile `moloch/cyburg` is loaded (did you mean `moloch/cyborg`?): name it `army/tile`",
        ),
        (
            "fx:place({ tile = \"moloch/cyborg\", q = 0, owner = 1 })",
            "fx:place: `q` and `r` are required: the hex to place it on",
        ),
        (
            "fx:place({ tile = \"moloch/cyborg\", q = 0, r = 0, facing = 7, owner = 1 })",
            "fx:place: facing 7: use 0 (north) to 5, clockwise",
        ),
        (
            "fx:place({ tile = \"moloch/cyborg\", q = 0, r = 0, facng = 1, owner = 1 })",
            "fx:place: unknown key `facng` (keys: tile, q, r, facing, owner, ask_owner)",
        ),
    ];
    for (call, expected) in cases {
        let dir = mod_with(
            "piles",
            &format!("rule(\"piles\", {{\n  setup = function(ctx, fx)\n    {call}\n  end,\n}})\n"),
        );
        let loaded = common::load_clean(&[base(), dir]);
        let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
        let err = Game::start(
            setup(1),
            catalog,
            Arc::new(Rules::default()),
            &mut scripts,
            &mut (),
        )
        .err()
        .unwrap_or_else(|| panic!("{call}: the game starts"));
        assert!(err.to_string().contains(expected), "{call}\n{err}");
    }
    // Granted, placed, lifted: the tile is back in the reserve, the board as it was.
    let dir = mod_with(
        "piles",
        "rule(\"piles\", {\n  setup = function(ctx, fx)\n    fx:grant(1, \"moloch/cyborg\")\n    fx:place({ tile = \"moloch/cyborg\", q = 0, r = 0, facing = 2, owner = 1 })\n    fx:lift(0, 0)\n  end,\n})\n",
    );
    let loaded = hexforge_script::load(&[base(), dir], Limits::default());
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let game = Game::start(
        setup(1),
        catalog.clone(),
        Arc::new(Rules::default()),
        &mut scripts,
        &mut (),
    )
    .expect("a game");
    let cyborg = catalog.find("moloch/cyborg").expect("the cyborg");
    assert_eq!(game.reserve(Seat::new(0)), &[cyborg]);
    assert!(game.field().at_hex(Hex::new(0, 0)).is_none());
}

/// A rule whose `restrict` tries to change the list `ctx:army_tiles` hands out, then checks that
/// the change was refused and that the next call hands out the same, unchanged list; and that
/// `ctx:army_index` finds each entry's place in it.
const ARMY_LIST: &str = r#"rule("army_list", {
  restrict = function(ctx)
    local list = ctx:army_tiles(ctx:army(ctx:current()))
    local ok, err = pcall(function() list[1].count = 99 end)
    assert(not ok and err:find("cannot change `count`", 1, true), tostring(err))
    ok = pcall(function() list[#list + 1] = { id = "x" } end)
    assert(not ok, "a new entry was added")
    local again = ctx:army_tiles(ctx:army(ctx:current()))
    assert(rawequal(list, again), "another list")
    assert(again[1].count ~= 99 and #again > 5, "the list changed")
    local ids = 0
    for _, e in ipairs(again) do
      ids = ids + (e.id:find("/", 1, true) and 1 or 0)
    end
    assert(ids == #again, "an entry without its id")
    -- `ctx:army_index` finds an entry's place in the list again, without walking it.
    for n = 1, #again do
      assert(ctx:army_index(again[n].id) == n, "the place of " .. again[n].id)
    end
    local army = ctx:army(ctx:current())
    assert(ctx:army_index(army .. "/no_such_tile") == nil, "a tile the army lacks")
    local bad, why = pcall(function() return ctx:army_index("no_army/x") end)
    assert(not bad and why:find("no army `no_army` is loaded", 1, true), tostring(why))
  end,
})
"#;

#[test]
fn the_army_list_is_read_only_and_handed_out_again_so_no_call_leaves_a_change_for_the_next() {
    let dir = mod_with("army_list", ARMY_LIST);
    // `restrict` runs after every action: a failed assertion would stop the game with its error.
    let (_, mut scripts, mut game) = started(&dir);
    let mut legal = LegalActions::new();
    for _ in 0..6 {
        game.legal_actions(&mut legal);
        let Some(a) = legal.iter().next() else { break };
        game.act(&a, &mut scripts, &mut hexforge_core::DefaultPolicy, &mut ())
            .expect("the rule's checks pass");
    }
    std::fs::remove_dir_all(dir).ok();
}

/// A rule that has each player pick a module of their army before their HQ (a tile target, the
/// HQ closed until then), and keeps (0, 1) free of placed tiles once the pick is made.
const PICK: &str = r#"rule("pick", {
  restrict = function(ctx)
    local p = ctx:current()
    local g = ctx:game()
    if g.stage == "hq" and not ctx:player_marker(p, "picked") then
      return { close = { "hq" } }
    end
    if g.stage == "play" then
      return { block_place = { { 0, 1 } } }
    end
  end,
  actions = {
    {
      name = "pick",
      targets = function(ctx)
        local p = ctx:current()
        if ctx:game().stage ~= "hq" or ctx:player_marker(p, "picked") then
          return {}
        end
        local list = {}
        for _, e in ipairs(ctx:army_tiles(ctx:army(p))) do
          if e.kind == "module" and e.count > 0 then
            list[#list + 1] = { tile = e.id }
          end
        end
        return list
      end,
      play = function(ctx, target, fx)
        local p = ctx:current()
        fx:set_aside(p, target.tile)
        fx:mark_player(p, "picked", "permanent", 1)
      end,
    },
  },
})
"#;

#[test]
fn a_rule_action_on_a_tile_is_listed_checked_and_written_in_replays_and_closes_the_hq_until_taken()
{
    let dir = mod_with("pick", PICK);
    let (catalog, mut scripts, mut game) = started(&dir);
    let first = game.current().expect("a player");
    let army = catalog
        .army(if first.index() == 0 {
            "moloch"
        } else {
            "outpost"
        })
        .expect("the army");
    let modules: Vec<_> = army
        .tiles
        .iter()
        .copied()
        .filter(|t| catalog.get(*t).kind == hexforge_core::TileKind::Module)
        .collect();
    // Only the picks are legal while the HQ is closed: one per module of the army.
    let mut legal = LegalActions::new();
    game.legal_actions(&mut legal);
    let picks: Vec<Action> = legal.iter().collect();
    assert_eq!(picks.len(), modules.len(), "{picks:?}");
    assert!(picks.iter().all(
        |a| matches!(a, Action::Rule { tile: Some(t), target: None, .. } if modules.contains(t))
    ));
    let hq = catalog.hq_of(&army.id).expect("an HQ");
    let place_hq = Action::Place {
        tile: hq,
        hex: Hex::new(0, 0),
        facing: hexforge_core::Dir::N,
    };
    assert_eq!(
        game.check(&place_hq),
        Err(ActionError::ClosedByRule { what: "hq" })
    );
    // A tile it did not list is refused; one it listed is taken and written in replays.
    let Action::Rule { rule, action, .. } = picks[0] else {
        panic!("a rule action")
    };
    let hq_pick = Action::Rule {
        rule,
        action,
        target: None,
        facing: None,
        tile: Some(hq),
    };
    let err = game.check(&hq_pick).expect_err("not listed").to_string();
    assert!(
        err.contains("is not among the tiles its `targets` function lists"),
        "{err}"
    );
    let text = encode_action(&picks[0], &catalog);
    assert!(
        text.starts_with("rule rule_test/pick pick tile ")
            && text.ends_with(&catalog.get(modules[0]).full_id()),
        "{text}"
    );
    assert_eq!(decode_action(&text, &catalog), Ok(picks[0]));
    game.act(
        &picks[0],
        &mut scripts,
        &mut hexforge_core::DefaultPolicy,
        &mut (),
    )
    .expect("the pick");
    assert_eq!(game.reserve(first), &[modules[0]]);
    // The HQ is open now; once play starts, (0, 1) is closed to placed tiles (`block_place`).
    assert_eq!(game.check(&place_hq), Ok(()));
    let mut policy = hexforge_core::DefaultPolicy;
    game.act(&place_hq, &mut scripts, &mut policy, &mut ())
        .expect("the HQ");
    let second = game.current().expect("a player");
    game.legal_actions(&mut legal);
    let pick = legal.get(0).expect("the second pick");
    game.act(&pick, &mut scripts, &mut policy, &mut ())
        .expect("the pick");
    let hq2 = catalog.hq_of(game.army(second)).expect("an HQ");
    let place_hq2 = Action::Place {
        tile: hq2,
        hex: Hex::new(0, -2),
        facing: hexforge_core::Dir::N,
    };
    game.act(&place_hq2, &mut scripts, &mut policy, &mut ())
        .expect("the second HQ");
    let mut blocked = 0;
    for seed_turn in 0..6 {
        let p = game.current().expect("a player");
        let held: Vec<_> = game.hand(p).to_vec();
        for t in held {
            if catalog.get(t).kind != hexforge_core::TileKind::Instant
                && game.stage() == Stage::Play
            {
                let at = |hex| Action::Place {
                    tile: t,
                    hex,
                    facing: hexforge_core::Dir::N,
                };
                assert_eq!(
                    game.check(&at(Hex::new(0, 1))),
                    Err(ActionError::PlacingBlockedByRule {
                        hex: Hex::new(0, 1)
                    }),
                    "turn {seed_turn}"
                );
                blocked += 1;
            }
        }
        game.legal_actions(&mut legal);
        let end = legal
            .iter()
            .find(|a| matches!(a, Action::EndTurn | Action::Discard { .. }))
            .expect("an end or a discard");
        game.act(&end, &mut scripts, &mut policy, &mut ())
            .expect("the turn goes on");
    }
    assert!(blocked > 0, "a board tile was held");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_tile_target_of_another_army_or_no_army_is_refused_naming_the_entry() {
    let cases = [
        (
            "{ { tile = \"outpost/medic\" } }",
            "target 1: `outpost/medic` is not a tile of the army `moloch`",
        ),
        (
            "{ { tile = \"moloch/medik\" } }",
            "target 1: no tile `moloch/medik` is loaded (did you mean `moloch/medic`?)",
        ),
        (
            "{ { tile = 3 } }",
            "target 1: `tile` is the tile's `army/tile` id, not",
        ),
    ];
    for (list, expected) in cases {
        let script = format!(
            "rule(\"pick\", {{ actions = {{ {{ name = \"pick\", targets = function(ctx) if ctx:current() == 1 then return {list} end return {{}} end, play = function() end }} }} }})\n"
        );
        let dir = mod_with("bad_pick", &script);
        let loaded = hexforge_script::load(&[base(), dir.clone()], Limits::default());
        let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
        let seats = GameSetup {
            seats: SeatSetup::each_alone(&["moloch", "moloch"]),
            ..setup(1)
        };
        let err = match Game::start(
            seats,
            catalog,
            Arc::new(Rules::default()),
            &mut scripts,
            &mut (),
        ) {
            Err(e) => e.to_string(),
            Ok(mut game) => {
                let mut legal = LegalActions::new();
                game.legal_actions(&mut legal);
                let first = legal.get(0).expect("an action");
                game.act(
                    &first,
                    &mut scripts,
                    &mut hexforge_core::DefaultPolicy,
                    &mut (),
                )
                .expect_err("refused")
                .to_string()
            }
        };
        assert!(err.contains(expected), "{list}\n{err}");
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn a_rule_reads_the_hqs_free_hexes_and_the_tiles_that_carry_a_marker() {
    let script = r#"rule("reads", {
  drawn = function(ctx, fx)
    local p = ctx:current()
    local q, r = ctx:hq(p)
    fx:mark_player(p, "hq_q", "permanent", q)
    fx:mark_player(p, "hq_r", "permanent", r)
    fx:mark_player(p, "free_hq", "permanent", ctx:free(q, r) and 1 or 0)
    fx:mark_player(p, "free_off", "permanent", ctx:free(9, 9) and 1 or 0)
    -- A unit of two on the HQ's hex takes any free neighbour; a unit of three, any free hex
    -- two steps away with a free hex between as well.
    fx:mark_player(p, "spots_2", "permanent", #ctx:link_spots({ { q, r } }, 2))
    fx:mark_player(p, "spots_3", "permanent", #ctx:link_spots({ { q, r } }, 3))
    local ok_size, size_err = pcall(function() return ctx:link_spots({ { q, r } }, 1) end)
    local ok_off, off_err = pcall(function() return ctx:link_spots({ { 9, 9 } }, 3) end)
    fx:mark_player(p, "spots_no", "permanent",
      ((not ok_size and size_err:find("give 2 to 7", 1, true)) and 1 or 0)
        + ((not ok_off and off_err:find("(9, 9) is off the board", 1, true)) and 2 or 0))
    local total = 0
    for _, h in ipairs(ctx:marked("tagged")) do
      total = total + h.value
    end
    fx:mark_player(p, "seen", "permanent", total)
    fx:mark(q, r, "tagged", "permanent", p * 10)
  end,
})
"#;
    let dir = mod_with("reads", script);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let mut game = Game::start(
        setup(4),
        catalog,
        Arc::new(Rules::default()),
        &mut scripts,
        &mut (),
    )
    .expect("a game");
    let mut bots = [RandomBot::new(1), RandomBot::new(2)];
    let mut legal = LegalActions::new();
    while game.turn_number() < 3 {
        let seat = game.current().expect("a player");
        game.legal_actions(&mut legal);
        let pick = bots[seat.index()].act(&game, &legal, &mut scripts);
        let action = legal.get(pick).expect("listed");
        game.act(
            &action,
            &mut scripts,
            &mut hexforge_core::DefaultPolicy,
            &mut (),
        )
        .expect("legal");
    }
    let marker = |p: u8, name: &str| {
        game.field()
            .mark(
                MarkOn::Player(Seat::new(p)),
                MarkerName::new(name).expect("a name"),
            )
            .map(|m| m.value)
    };
    for p in 0..2u8 {
        let hq = game
            .field()
            .hq_cell(Seat::new(p), game.catalog())
            .map(|c| game.field().shape().hex(c))
            .expect("an HQ");
        assert_eq!(marker(p, "hq_q"), Some(hq.q() as i16), "player {p}");
        assert_eq!(marker(p, "hq_r"), Some(hq.r() as i16), "player {p}");
        assert_eq!(marker(p, "free_hq"), Some(0), "an HQ's hex is not free");
        // What `ctx:link_spots` gave at the player's last draw (its exact hexes are checked in
        // `hexforge_core::link`'s tests): an HQ has a free neighbour this early, and a unit of
        // three has at least the spots of a unit of two.
        let spots_2 = marker(p, "spots_2").expect("spots of two");
        let spots_3 = marker(p, "spots_3").expect("spots of three");
        assert!((1..=6).contains(&spots_2), "player {p}: {spots_2}");
        assert!(spots_3 >= spots_2, "player {p}: {spots_3} < {spots_2}");
        assert_eq!(marker(p, "spots_no"), Some(3), "both refusals said why");
        assert_eq!(
            marker(p, "free_off"),
            Some(0),
            "a hex off the board is not free"
        );
    }
    // The third turn's player sees the markers the first two turns put on the HQs.
    let third = game.current().expect("a player").index() as u8;
    assert_eq!(
        marker(third, "seen"),
        Some(10 + 20),
        "{:?}",
        game.field().marks()
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Two actions alike but for how they say when they are offered: `gated` declares it (`stages`,
/// `after_discard`, `before_placing`, `lacks`, `cites`), `asked` works it out in its `targets`.
/// Two `turn_ended` hooks alike but for the same: `counted` declares `turn_ended_when`, `tested`
/// tests the marker itself; a third rule gives player 1 the `go` marker for every third turn.
const DECLARED: &str = r#"local function count(ctx, fx, name)
  fx:mark_player(1, name, "permanent", (ctx:player_marker(1, name) or 0) + 1)
end

rule("toggle", {
  turn_started = function(ctx, fx)
    if ctx:turn() % 3 == 0 then
      fx:mark_player(1, "go", "permanent", 1)
    else
      fx:unmark_player(1, "go")
    end
  end,
})

rule("counted", {
  turn_ended_when = { anyone = { "go" } },
  turn_ended = function(ctx, fx)
    count(ctx, fx, "counted")
  end,
})

rule("tested", {
  turn_ended = function(ctx, fx)
    for p = 1, ctx:players() do
      if ctx:player_marker(p, "go") then
        count(ctx, fx, "tested")
        return
      end
    end
  end,
})

rule("shout", {
  actions = {
    {
      name = "gated",
      doc = "Once a turn, after the discard and before any placement.",
      stages = { "play" },
      after_discard = true,
      before_placing = true,
      lacks = { "hoarse" },
      cites = "R0.1",
      targets = function(ctx)
        return { "none" }
      end,
      play = function(ctx, target, fx)
        fx:mark_player(ctx:current(), "hoarse", "turn", 1)
      end,
    },
    {
      name = "asked",
      doc = "The same, worked out in Lua.",
      targets = function(ctx)
        local p = ctx:current()
        if ctx:stage() == "play" and ctx:discarded() and ctx:placed() == 0
          and not ctx:player_marker(p, "hoarse") then
          return { "none" }
        end
        return {}
      end,
      play = function(ctx, target, fx)
        fx:mark_player(ctx:current(), "hoarse", "turn", 1)
      end,
    },
  },
})
"#;

/// Whether the legal list holds the action `action` of the rule `rule`.
fn offers(legal: &LegalActions, rule: u8, action: u8) -> bool {
    legal
        .iter()
        .any(|a| matches!(a, Action::Rule { rule: r, action: x, .. } if r == rule && x == action))
}

#[test]
fn what_an_action_and_a_hook_declare_matches_what_their_lua_works_out() {
    let dir = mod_with("declared", DECLARED);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let shout = catalog
        .game_rules()
        .iter()
        .position(|r| r.name == "shout")
        .expect("the rule") as u8;
    let marker = |game: &Game, name: &str| {
        game.field()
            .mark(
                MarkOn::Player(Seat::new(0)),
                MarkerName::new(name).expect("a name"),
            )
            .map_or(0, |m| m.value)
    };
    let (mut offered, mut kept) = (0, 0);
    for seed in 1..=4u64 {
        let mut game = plain_game(seed, &catalog, &mut scripts);
        let mut legal = LegalActions::new();
        let mut bots = [RandomBot::new(seed), RandomBot::new(seed + 10)];
        for _ in 0..400 {
            if game.result().is_some() {
                break;
            }
            game.legal_actions(&mut legal);
            let gated = offers(&legal, shout, 0);
            assert_eq!(
                gated,
                offers(&legal, shout, 1),
                "seed {seed}, turn {}: the declared action is offered exactly when its Lua twin is",
                game.turn_number()
            );
            if gated {
                offered += 1;
            } else {
                kept += 1;
                let refused = game
                    .act(
                        &Action::Rule {
                            rule: shout,
                            action: 0,
                            target: None,
                            facing: None,
                            tile: None,
                        },
                        &mut scripts,
                        &mut hexforge_core::DefaultPolicy,
                        &mut (),
                    )
                    .expect_err("not offered now")
                    .to_string();
                assert!(
                    refused.contains("it may not be taken now: it ")
                        && refused.contains("(its `")
                        && refused.contains("; R0.1)"),
                    "{refused}"
                );
            }
            let seat = game.current().expect("a player");
            let pick = bots[seat.index()].act(&game, &legal, &mut scripts);
            let action = legal.get(pick).expect("a legal action");
            game.act(
                &action,
                &mut scripts,
                &mut hexforge_core::DefaultPolicy,
                &mut (),
            )
            .expect("a legal action");
        }
        assert_eq!(
            marker(&game, "counted"),
            marker(&game, "tested"),
            "seed {seed}: `turn_ended_when` passes over exactly the turns its Lua twin does nothing in"
        );
        assert!(
            marker(&game, "counted") > 0,
            "seed {seed}: some turns counted"
        );
    }
    assert!(
        offered > 0 && kept > 0,
        "{offered} offered, {kept} kept back"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A rule action that discards from another player's hand, taken in the compulsory discard
/// (R2.5.2): it is not the turn's discard, which is still owed.
const STEAL: &str = r#"rule("steal", {
  actions = {
    { name = "steal", stages = { "discard" },
      targets = function(ctx)
        local o = ctx:current() == 1 and 2 or 1
        if #ctx:hand(o) > 0 then return { "none" } end
        return {}
      end,
      play = function(ctx, t, fx)
        local o = ctx:current() == 1 and 2 or 1
        fx:discard(o, ctx:hand(o)[1])
      end },
  },
})
"#;

#[test]
fn a_discard_from_another_players_hand_is_not_the_turns_compulsory_discard() {
    let dir = mod_with("steal", STEAL);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let mut game = plain_game(1, &catalog, &mut scripts);
    // Played until a player in the compulsory discard is offered the steal.
    common::play_random(
        &mut game,
        &mut scripts,
        1,
        &mut Vec::new(),
        |g| {
            let mut legal = LegalActions::new();
            g.legal_actions(&mut legal);
            !(g.stage() == Stage::Discard && legal.iter().any(|a| matches!(a, Action::Rule { .. })))
        },
        |_, _| {},
    );
    assert_eq!(game.stage(), Stage::Discard, "a steal was offered");
    let me = game.current().expect("a player");
    let mut legal = LegalActions::new();
    game.legal_actions(&mut legal);
    let steal = legal
        .iter()
        .find(|a| matches!(a, Action::Rule { .. }))
        .expect("the steal");
    game.act(
        &steal,
        &mut scripts,
        &mut hexforge_core::DefaultPolicy,
        &mut (),
    )
    .expect("taken");
    // R2.5.2: the player still owes their own discard.
    assert_eq!(game.current(), Some(me));
    assert_eq!(game.stage(), Stage::Discard);
    let _ = std::fs::remove_dir_all(dir);
}

/// A rule under which nobody ever draws, and a rule action any turn may take again and again:
/// the game still ends (the turn limit starts the final round; a turn takes at most so many rule
/// actions), whatever the bots do.
const NO_DRAW_AND_SPIN: &str = r#"rule("stall", {
  turn_started = function(ctx, fx, draw)
    if ctx:turn() > 3 then return 0 end
  end,
  actions = {
    { name = "spin", stages = { "play" },
      targets = function(ctx) return { "none" } end,
      play = function(ctx, t, fx) end },
  },
})
"#;

#[test]
fn a_game_whose_rules_stall_it_still_ends() {
    use hexforge_core::game::{MAX_RULE_ACTIONS_PER_TURN, MAX_TURNS};
    let dir = mod_with("stall", NO_DRAW_AND_SPIN);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let mut game = plain_game(1, &catalog, &mut scripts);
    let mut events = Vec::new();
    let mut bot = GreedyBot::new(1);
    let mut other = GreedyBot::new(2);
    let mut legal = LegalActions::new();
    let (mut spins_this_turn, mut turn) = (0u32, 0u16);
    while let Some(seat) = game.current() {
        if game.turn_number() != turn {
            (spins_this_turn, turn) = (0, game.turn_number());
        }
        game.legal_actions(&mut legal);
        let pick = if seat.index() == 0 {
            bot.act(&game, &legal, &mut scripts)
        } else {
            other.act(&game, &legal, &mut scripts)
        };
        let action = legal.get(pick).expect("listed");
        if matches!(action, Action::Rule { .. }) {
            spins_this_turn += 1;
            assert!(spins_this_turn <= u32::from(MAX_RULE_ACTIONS_PER_TURN));
        }
        game.act(
            &action,
            &mut scripts,
            &mut hexforge_core::DefaultPolicy,
            &mut events,
        )
        .expect("legal");
    }
    assert!(game.result().is_some());
    assert!(
        game.turn_number() <= MAX_TURNS + 8,
        "{}",
        game.turn_number()
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::TurnLimit { turns } if *turns == MAX_TURNS)),
        "the turn limit started the final round"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_check_naming_its_winner_with_a_whole_float_is_taken() {
    let script = "rule(\"a\", {\n  check = function(ctx, ended)\n    return { winner = 4 / 2 }\n  end,\n})\n";
    let dir = mod_with("float_winner", script);
    let loaded = common::load_clean(&[base(), dir.clone()]);
    let (catalog, mut scripts) = (Arc::new(loaded.mods.catalog), loaded.scripts);
    let mut game = plain_game(1, &catalog, &mut scripts);
    let mut legal = LegalActions::new();
    game.legal_actions(&mut legal);
    game.act(
        &legal.get(0).expect("an action"),
        &mut scripts,
        &mut hexforge_core::DefaultPolicy,
        &mut (),
    )
    .expect("the check decides");
    assert_eq!(game.result(), Some(GameResult::Won { team: 1 }));
    let _ = std::fs::remove_dir_all(dir);
}

/// Standing stones (`tests/fixtures/rule_test/scripts/stones.lua`), the worked example of
/// declared targets and restrictions in docs/RULESETS.md: the HQ waits for a soldier buried from
/// the draw pile (`pile` targets, a restriction `offered` by `bury`), a standing stone goes on a
/// free hex beside the HQ (`spots` targets), and no instant is played the turn it goes up. The
/// engine lists and closes all of it; only `setup` and the plays are Lua.
#[test]
fn a_rule_whose_targets_and_restrictions_are_declared_is_offered_and_closes_as_declared() {
    let (catalog, mut scripts) = load();
    let rules = rules(&catalog, &[("stones", ParamValue::Bool(true))]);
    let rule = catalog
        .game_rules()
        .iter()
        .position(|r| r.name == "stones")
        .expect("the stones rule") as u8;
    let mut game =
        Game::start(setup(3), catalog.clone(), rules, &mut scripts, &mut ()).expect("a game");
    let mut legal = LegalActions::new();
    let act = |game: &mut Game, scripts: &mut ScriptHost, action: &Action| {
        game.act(action, scripts, &mut hexforge_core::DefaultPolicy, &mut ())
            .unwrap_or_else(|e| panic!("{action:?}: {e}"))
    };
    // Setup: each player's HQ waits until they have buried a soldier; the soldiers listed are
    // the distinct soldiers of their draw pile.
    for _ in 0..2 {
        let seat = game.current().expect("a player");
        game.legal_actions(&mut legal);
        let listed: Vec<Action> = legal.iter().collect();
        assert!(
            listed.iter().all(|a| matches!(
                a,
                Action::Rule {
                    action: 0,
                    tile: Some(_),
                    ..
                }
            )),
            "only `bury` while the HQ waits: {listed:?}"
        );
        let army = catalog.army(game.army(seat)).expect("the army");
        let soldiers = army
            .tiles
            .iter()
            .filter(|t| catalog.get(**t).kind == hexforge_core::TileKind::Soldier)
            .count();
        assert_eq!(
            listed.len(),
            soldiers,
            "one target per soldier, not per copy"
        );
        act(&mut game, &mut scripts, &listed[0]);
        assert_eq!(
            game.reserve(seat).len(),
            1,
            "the soldier went to the reserve"
        );
        game.legal_actions(&mut legal);
        assert!(
            legal.iter().all(|a| matches!(a, Action::Place { .. })),
            "buried: the HQ goes down now, and no second burial"
        );
        let place = legal.get(0).expect("an HQ spot");
        act(&mut game, &mut scripts, &place);
    }
    // Play on: the first turn in play whose player may raise a standing stone, it is offered on
    // exactly the free hexes beside their HQ.
    let raise = loop {
        game.legal_actions(&mut legal);
        let offered: Vec<Action> = legal
            .iter()
            .filter(|a| matches!(a, Action::Rule { rule: r, action: 1, .. } if *r == rule))
            .collect();
        if !offered.is_empty() {
            break offered;
        }
        // Anything but a rule action: discard when asked, else end the turn.
        let next = legal
            .iter()
            .find(|a| matches!(a, Action::Discard { .. } | Action::EndTurn))
            .expect("a discard or the end of the turn");
        act(&mut game, &mut scripts, &next);
    };
    let seat = game.current().expect("a player");
    let shape = game.field().shape();
    let hq = game.field().hq_cell(seat, &catalog).expect("the HQ");
    let free = shape.neighbours_toward(hq, 0x3f) & !game.field().occupied();
    let hexes: Vec<Hex> = raise
        .iter()
        .filter_map(|a| match a {
            Action::Rule { target, .. } => *target,
            _ => None,
        })
        .collect();
    assert_eq!(
        hexes,
        shape.hexes_in(free).collect::<Vec<_>>(),
        "the free hexes beside the HQ"
    );
    act(&mut game, &mut scripts, &raise[0]);
    // Raised: no instant this turn, and no second stone, refused with the key that keeps it back.
    assert!(game.restriction().closed.contains(Closed::INSTANT));
    game.legal_actions(&mut legal);
    assert!(!legal.iter().any(|a| matches!(a, Action::Instant { .. })));
    let again = Action::Rule {
        rule,
        action: 1,
        target: hexes.get(1).copied(),
        facing: None,
        tile: None,
    };
    let refused = game.check(&again).expect_err("refused").to_string();
    assert!(
        refused.contains(
            "it is not offered to a player who carries the marker `stone` (its `lacks`; stones)"
        ),
        "{refused}"
    );
}

/// A rule that closes the HQ's placement and offers nothing in its place leaves the player no
/// action at all: the game stops with what the rules close and what to do, not as if it were
/// over.
#[test]
fn a_rule_that_leaves_no_action_open_stops_the_game_saying_what_it_closes() {
    let dir = mod_with(
        "nothing_open",
        "rule(\"stuck\", {\n  restrict = {\n    { stages = { \"hq\" }, close = { \"hq\" } },\n  },\n})\n",
    );
    let (_, mut scripts, mut game) = started(&dir);
    let mut bots = [RandomBot::new(1), RandomBot::new(2)];
    let mut players: Vec<&mut dyn Player> = bots.iter_mut().map(|b| b as &mut dyn Player).collect();
    let err = hexforge_core::game::play_out(&mut game, &mut players, &mut scripts, &mut ())
        .expect_err("nothing is open");
    assert!(matches!(err, ActionError::NothingOpen { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("the game rules in play close `hq` now and offer no action of their own")
            && text.contains("`offered`"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
