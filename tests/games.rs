//! Random whole games of the base armies, with the state's invariants checked after every action:
//! no two tiles on a hex and none off the board, at most `hand_size` tiles in a hand (3, or 6 with
//! Reinforcements, R9.2), every tile of every
//! army in exactly one of its owner's draw pile, hand, discard pile or the board, HQ HP never
//! rising, and every game ending (rules section 2, R4.11, R4.13, section 8).

mod common;

use hexforge_bots::RandomBot;
use hexforge_content::ModInfo;
use hexforge_core::game::{LegalActions, Player};
use hexforge_core::rules::Preset;
use hexforge_core::{Action, BoardShape, Catalog, Event, Game, GameSetup, Rules, SeatSetup, Stage};
use hexforge_script::{Limits, ScriptHost};
use proptest::prelude::*;
use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

const ARMIES: [&str; 4] = ["moloch", "outpost", "borgo", "hegemony"];

/// No game of 34-tile decks takes anywhere near this many actions.
const ACTION_LIMIT: usize = 20_000;

/// The repository's mods, with every ability bound to its script.
fn content() -> &'static (Arc<Catalog>, Vec<ModInfo>) {
    static CONTENT: OnceLock<(Arc<Catalog>, Vec<ModInfo>)> = OnceLock::new();
    CONTENT.get_or_init(|| {
        let loaded = common::load_clean(&[common::root().join("mods")]);
        (Arc::new(loaded.mods.catalog), loaded.mods.mods)
    })
}

fn catalog() -> Arc<Catalog> {
    content().0.clone()
}

/// Runs `f` with this thread's script host (Lua states stay on their thread).
fn with_scripts<R>(f: impl FnOnce(&mut ScriptHost) -> R) -> R {
    thread_local! {
        static SCRIPTS: RefCell<Option<ScriptHost>> = const { RefCell::new(None) };
    }
    SCRIPTS.with(|cell| {
        let mut slot = cell.borrow_mut();
        let host = slot.get_or_insert_with(|| {
            let (catalog, mods) = content();
            let mut bound = Catalog::clone(catalog);
            ScriptHost::load(mods, &mut bound, Limits::default()).0
        });
        f(host)
    })
}

/// Everything that must hold in every state of every game.
fn check_invariants(game: &Game, army_sizes: &[usize], last_hp: &mut [i32]) {
    let field = game.field();
    let shape = field.shape();
    let cat = game.catalog();
    let tiles: Vec<_> = field.tiles().collect();
    assert_eq!(
        tiles.len(),
        field.occupied().count_ones() as usize,
        "one tile per occupied hex"
    );
    for (c, _) in &tiles {
        assert!(c.index() < shape.len(), "a tile off the board");
    }
    for p in field.players() {
        let most = usize::from(game.rules().hand_size);
        assert!(
            game.hand(p).len() <= most,
            "{p} holds more than {most} tiles"
        );
        let on_board = tiles.iter().filter(|(_, t)| t.owner == p).count();
        let hqs = tiles
            .iter()
            .filter(|(_, t)| t.owner == p && cat.get(t.tile).is_hq())
            .count();
        assert!(hqs <= 1, "{p} has {hqs} HQs on the board");
        let total = game.deck_len(p) + game.hand(p).len() + game.discard_pile(p).len() + on_board;
        // Before the HQ is placed it is set aside (R2.1).
        let set_aside = usize::from(hqs == 0 && game.stage() == Stage::PlaceHq);
        assert_eq!(
            total + set_aside,
            army_sizes[p.index()],
            "{p}: tiles lost or duplicated (deck {}, hand {}, discard {}, board {on_board})",
            game.deck_len(p),
            game.hand(p).len(),
            game.discard_pile(p).len()
        );
        let hp = field.hq_hp(p);
        assert!(hp <= last_hp[p.index()], "{p}'s HQ HP rose");
        last_hp[p.index()] = hp;
    }
    assert_eq!(
        game.current().is_none(),
        game.result().is_some(),
        "a game without a current player is over"
    );
}

thread_local! {
    /// How many placements [`assert_placements_previewed_as_played`] saw previewed and refused.
    static PREVIEWS: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Every listed placement whose board `Game::board_after_placing` gives leaves that board when
/// played on a copy of the game: how many were previewed and how many refused.
fn assert_placements_previewed_as_played(game: &Game, legal: &LegalActions) -> (usize, usize) {
    let mut board = game.field().clone();
    let (mut previewed, mut refused) = (0, 0);
    for a in legal.iter().filter(|a| matches!(a, Action::Place { .. })) {
        if !game.board_after_placing(&a, &mut board) {
            refused += 1;
            continue;
        }
        previewed += 1;
        let mut played = game.clone();
        with_scripts(|h| played.act(&a, h, &mut hexforge_core::DefaultPolicy, &mut ()))
            .unwrap_or_else(|e| panic!("listed placement {a:?} refused: {e}"));
        assert!(
            played.field() == &board,
            "{a:?}: the previewed board differs from the one played"
        );
    }
    (previewed, refused)
}

/// Plays one random game to its end, checking the invariants after every action.
fn random_game(rules: Rules, armies: &[&str], teams: &[u8], seed: u64) {
    play_random_game(rules, armies, teams, seed, false);
}

/// [`random_game`]; with `sweep`, also checks that the list of legal actions is complete in every
/// fourth state.
fn play_random_game(rules: Rules, armies: &[&str], teams: &[u8], seed: u64, sweep: bool) {
    let cat = catalog();
    let sizes: Vec<usize> = armies
        .iter()
        .map(|a| {
            let army = cat.army(a).expect("base army");
            army.tiles
                .iter()
                .map(|t| usize::from(cat.get(*t).count))
                .sum()
        })
        .collect();
    let mut game = Game::new(
        GameSetup {
            shape: BoardShape::standard(),
            seats: armies
                .iter()
                .zip(teams)
                .map(|(a, t)| SeatSetup {
                    army: a.to_string(),
                    team: *t,
                })
                .collect(),
            seed,
            marks: Vec::new(),
        },
        cat,
        Arc::new(rules),
    )
    .expect("a legal setup");
    let mut bots: Vec<RandomBot> = (0..armies.len())
        .map(|i| RandomBot::new(seed.wrapping_add(i as u64 + 1)))
        .collect();
    let mut last_hp: Vec<i32> = game
        .field()
        .players()
        .map(|p| game.field().hq_hp(p))
        .collect();
    let mut legal = LegalActions::new();
    let mut events: Vec<Event> = Vec::new();
    for step in 0..ACTION_LIMIT {
        let Some(seat) = game.current() else {
            check_invariants(&game, &sizes, &mut last_hp);
            return;
        };
        game.legal_actions(&mut legal);
        assert!(!legal.is_empty(), "a player to act always has an action");
        assert_eq!(legal.iter().count(), legal.len(), "the list reads whole");
        for a in legal.iter() {
            assert_eq!(game.check(&a), Ok(()), "listed but refused: {a:?}");
        }
        if sweep && step % 4 == 0 {
            common::assert_every_legal_action_listed(&game, &legal);
            let (previewed, refused) = assert_placements_previewed_as_played(&game, &legal);
            PREVIEWS.with(|p| {
                let (a, b) = p.get();
                p.set((a + previewed, b + refused));
            });
        }
        let pick = with_scripts(|h| bots[seat.index()].act(&game, &legal, h));
        let action = legal.get(pick).expect("the pick is listed");
        let mut players: Vec<&mut dyn Player> =
            bots.iter_mut().map(|b| b as &mut dyn Player).collect();
        events.clear();
        with_scripts(|h| {
            game.act(
                &action,
                h,
                &mut hexforge_core::game::Seats {
                    players: &mut players,
                },
                &mut events,
            )
        })
        .unwrap_or_else(|e| panic!("seed {seed}: legal action {action:?} refused: {e}"));
        check_invariants(&game, &sizes, &mut last_hp);
        if action == Action::EndTurn {
            assert!(
                events
                    .iter()
                    .any(|e| matches!(e, Event::TurnEnded { player } if *player == seat)),
                "ending a turn ends it"
            );
        }
    }
    panic!("seed {seed}: the game did not end within {ACTION_LIMIT} actions");
}

/// The rules of a table playing the base mod's Reinforcements variant in `mode` (R9.2), as
/// `--option` builds them: the engine keys come from the mod's `[[implies]]`.
fn reinforcements(preset: &str, mode: &str) -> Rules {
    let cat = catalog();
    let options = [
        "reinforcements=true".to_string(),
        format!("reinforcements_mode={mode}"),
    ];
    hexforge_content::table_rules(preset, &options, &[], cat.options(), cat.implications())
        .unwrap_or_else(|e| panic!("{mode}: {e}"))
}

/// Each mode of Reinforcements (R9.2.1-R9.2.3): random duels and a free for all end with every
/// invariant holding, hands of up to 6 tiles; in one duel per mode every accepted action is
/// listed (the play limit and the discards each mode allows).
#[test]
fn random_reinforcements_games_end_with_every_invariant_holding() {
    for (preset, mode) in [("v3", "v3"), ("v2025", "v2025"), ("v3", "monolith")] {
        let rules = reinforcements(preset, mode);
        assert_eq!((rules.hand_size, rules.tiles_per_turn), (6, 2), "{mode}");
        play_random_game(rules.clone(), &["moloch", "borgo"], &[0, 1], 1, true);
        for seed in 2..12 {
            let armies = [ARMIES[seed as usize % 4], ARMIES[(seed as usize + 1) % 4]];
            random_game(rules.clone(), &armies, &[0, 1], seed);
        }
        random_game(rules, &ARMIES, &[0, 1, 2, 3], 12);
    }
}

fn preset(i: usize) -> Rules {
    Rules::preset([Preset::Classic, Preset::V3, Preset::V2025][i % 3])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_duels_keep_every_invariant(seed in any::<u64>(), a in 0..4usize, b in 0..4usize, p in 0..3usize) {
        random_game(preset(p), &[ARMIES[a], ARMIES[b]], &[0, 1], seed);
    }

    #[test]
    fn random_multiplayer_games_keep_every_invariant(
        seed in any::<u64>(),
        mode in 0..4usize,
        p in 0..3usize,
        shift in 0..4usize,
    ) {
        let armies: Vec<&str> = (0..4).map(|i| ARMIES[(i + shift) % 4]).collect();
        let (n, teams): (usize, &[u8]) = match mode {
            0 => (3, &[0, 1, 2]),
            1 => (4, &[0, 1, 2, 3]),
            2 => (3, &[0, 1, 1]),
            _ => (4, &[0, 1, 0, 1]),
        };
        random_game(preset(p), &armies[..n], teams, seed);
    }
}

/// The listed actions are every action the engine accepts, in every preset and pairing (a unit
/// carried by a hijacked Transport was once missing).
#[test]
fn every_accepted_action_is_listed() {
    for k in 0..48u64 {
        let (a, b) = ((k % 4) as usize, ((k / 4) % 4) as usize);
        play_random_game(
            preset((k / 16) as usize),
            &[ARMIES[a], ARMIES[b]],
            &[0, 1],
            k,
            true,
        );
    }
    for k in 0..8u64 {
        let armies: Vec<&str> = (0..4).map(|i| ARMIES[(i + k as usize) % 4]).collect();
        play_random_game(preset(k as usize), &armies, &[0, 1, 0, 1], 100 + k, true);
    }
}

/// A bot's shortcut past a copy of the game (`Game::board_after_placing`) gives the board the
/// placement leaves when played, and is refused where something follows it (a full play area's
/// battle): `every_accepted_action_is_listed` checks each, this that both happen.
#[test]
fn a_previewed_placement_leaves_the_board_the_played_one_leaves() {
    PREVIEWS.with(|p| p.set((0, 0)));
    for k in 0..8u64 {
        let (a, b) = ((k % 4) as usize, ((k / 4) % 4) as usize);
        play_random_game(preset(1), &[ARMIES[a], ARMIES[b]], &[0, 1], 500 + k, true);
    }
    let (previewed, refused) = PREVIEWS.with(|p| p.get());
    assert!(previewed > 100, "{previewed} placements previewed");
    assert!(refused > 0, "{refused} placements refused");
}

/// The acceptance bar of whole games: 10,000 seeded random duels over every pairing and preset
/// finish with every invariant holding.
#[test]
fn ten_thousand_seeded_random_games_end_with_every_invariant_holding() {
    const GAMES: u64 = 10_000;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let mut k = t;
                while k < GAMES {
                    let (a, b) = ((k % 4) as usize, ((k / 4) % 4) as usize);
                    random_game(
                        preset((k / 16) as usize),
                        &[ARMIES[a], ARMIES[b]],
                        &[0, 1],
                        k,
                    );
                    k += threads;
                }
            });
        }
    });
}

/// Same seed, same bots: the same game, event for event (replays depend on it).
#[test]
fn a_seed_fixes_the_whole_game() {
    let play = |seed: u64| -> Vec<Event> {
        let mut game = Game::new(
            GameSetup {
                shape: BoardShape::standard(),
                seats: vec![
                    SeatSetup {
                        army: "borgo".into(),
                        team: 0,
                    },
                    SeatSetup {
                        army: "hegemony".into(),
                        team: 1,
                    },
                ],
                seed,
                marks: Vec::new(),
            },
            catalog(),
            Arc::new(Rules::default()),
        )
        .expect("setup");
        let mut a = RandomBot::new(seed);
        let mut b = RandomBot::new(seed + 1);
        let mut players: Vec<&mut dyn Player> = vec![&mut a, &mut b];
        let mut events = Vec::new();
        with_scripts(|h| hexforge_core::game::play_out(&mut game, &mut players, h, &mut events))
            .expect("a game");
        events
    };
    assert_eq!(play(5), play(5));
    assert_ne!(play(5), play(6));
}

/// The greedy bot scores a placement once for all the facings its tile cannot tell apart: a tile
/// with no scripted ability and no linked parts whose icons repeat after a turn of some sixths.
#[test]
fn the_facings_a_tile_cannot_tell_apart_are_those_its_icons_repeat_after() {
    let c = catalog();
    let period = |id: &str| hexforge_bots::turns_alike(c.get(common::tile(&c, id)));
    // Links at edges 0, 2 and 4: the same after a third of a turn.
    assert_eq!(period("moloch/brain"), 2);
    // Melee on every edge, no ability.
    assert_eq!(period("moloch/hq"), 1);
    assert_eq!(period("moloch/juggernaut"), 6);
    // A scripted ability may read the tile's facing: never taken as alike.
    assert_eq!(period("moloch/gauss_cannon"), 6);
    assert_eq!(period("hegemony/transport"), 6);
}
