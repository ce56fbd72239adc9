//! What the acceptance suites share: the workspace's folders, mods loaded without a problem, fresh
//! mod folders, boards and positions of two players, and whole games recorded step by step.

// Each suite uses a part of this module.
#![allow(dead_code)]

use hexforge_core::game::{LegalActions, Piles, Player, Position, Seats};
use hexforge_core::{
    Battlefield, BoardShape, Catalog, Dir, Game, Hex, PlayerSetup, Seat, Setup, TileRef, TileSetup,
};
use hexforge_replay::{Step, act_noted};
use hexforge_script::{Limits, Loaded, ScriptHost};
use std::path::{Path, PathBuf};

/// The workspace's root folder.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the acceptance crate sits one folder below the workspace root")
        .to_path_buf()
}

/// The mods below `roots` and their scripts, loaded with the default limits; a problem in any of
/// them fails the test.
pub fn load_clean(roots: &[PathBuf]) -> Loaded {
    let loaded = hexforge_script::load(roots, Limits::default());
    assert!(loaded.mods.problems.is_empty(), "{}", loaded.mods.problems);
    loaded
}

/// An empty folder `hexforge-{name}-{process id}` in the temporary folder (emptied first when an
/// earlier run left it).
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// A mod in a fresh folder ([`fresh_dir`]): its `mod.toml` is `manifest`, and its `armies` and
/// `scripts` folders are made, empty.
pub fn mod_folder(name: &str, manifest: &str) -> PathBuf {
    let dir = fresh_dir(name);
    std::fs::create_dir_all(dir.join("armies")).expect("armies dir");
    std::fs::create_dir_all(dir.join("scripts")).expect("scripts dir");
    std::fs::write(dir.join("mod.toml"), manifest).expect("manifest");
    dir
}

/// The tile `id` of `c`.
pub fn tile(c: &Catalog, id: &str) -> TileRef {
    c.find(id)
        .unwrap_or_else(|| panic!("no tile `{id}` in the catalog"))
}

/// `tile` of seat `owner` on the hex (`q`, `r`), facing north and unwounded.
pub fn placed(tile: TileRef, owner: u8, q: i32, r: i32) -> TileSetup {
    TileSetup {
        tile,
        owner: Seat::new(owner),
        hex: Hex::new(q, r),
        facing: Dir::N,
        wounds: 0,
    }
}

/// `tiles` on the standard board of two players, on teams 0 and 1 with 20 HP each.
pub fn duel(tiles: Vec<TileSetup>) -> Setup {
    Setup {
        shape: BoardShape::standard(),
        players: vec![
            PlayerSetup { team: 0, hq_hp: 20 },
            PlayerSetup { team: 1, hq_hp: 20 },
        ],
        tiles,
    }
}

/// `unit` at the centre facing north, the enemy's `hq` just north of it and its own `hq` to the
/// south, on the standard board (two players, 20 HP each).
pub fn unit_between_hqs(c: &Catalog, unit: &str, hq: &str) -> Battlefield {
    let at = |id: &str, owner: u8, q: i32, r: i32| placed(tile(c, id), owner, q, r);
    Battlefield::new(
        duel(vec![at(unit, 0, 0, 0), at(hq, 1, 0, -1), at(hq, 0, 0, 2)]),
        c,
    )
    .expect("legal board")
}

/// A game of two `army` players in turn 5 on the standard board ([`duel`]), seeded 1: `tiles`
/// on the board, each seat holding its hand of `hands` with no draw or discard pile, and the
/// first seat's turn beginning.
pub fn turn_five(army: &str, tiles: Vec<TileSetup>, hands: [Vec<TileRef>; 2]) -> Position {
    Position {
        setup: duel(tiles),
        piles: hands
            .into_iter()
            .map(|hand| Piles {
                army: army.into(),
                deck: Vec::new(),
                hand,
                discard: Vec::new(),
                reserve: Vec::new(),
            })
            .collect(),
        next: Seat::new(0),
        turn_number: 5,
        last_turns: None,
        seed: 1,
        marks: Vec::new(),
        links: Vec::new(),
    }
}

/// `bots`, one per seat, as the engine and [`record`] take players.
pub fn players(bots: &mut [Box<dyn Player + Send>]) -> Vec<&mut dyn Player> {
    bots.iter_mut()
        .map(|b| b.as_mut() as &mut dyn Player)
        .collect()
}

/// Plays `game` to its end, `bots` one per seat, and returns every step as recorded.
pub fn record(
    game: &mut Game,
    bots: &mut [&mut dyn Player],
    scripts: &mut ScriptHost,
) -> Vec<Step> {
    record_checking(game, bots, scripts, |_| {})
}

/// [`record`], calling `check` with the game after every step.
pub fn record_checking(
    game: &mut Game,
    bots: &mut [&mut dyn Player],
    scripts: &mut ScriptHost,
    mut check: impl FnMut(&Game),
) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut legal = LegalActions::new();
    while let Some(seat) = game.current() {
        assert!(steps.len() < 20_000, "the game does not end");
        game.legal_actions(&mut legal);
        let pick = bots[seat.index()].act(game, &legal, scripts);
        let action = legal.get(pick).expect("listed");
        let mut seats = Seats {
            players: &mut *bots,
        };
        steps.push(act_noted(game, action, scripts, &mut seats, &mut ()).expect("a legal action"));
        check(game);
    }
    steps
}

/// Plays `game` with a seeded random bot per seat while `going(game)` holds and the game goes
/// on, the events of every action into `events`; `look(game, legal)` sees each list of legal
/// actions before the bot picks from it. An action the engine refuses fails the test.
pub fn play_random(
    game: &mut Game,
    scripts: &mut ScriptHost,
    seed: u64,
    events: &mut Vec<hexforge_core::Event>,
    mut going: impl FnMut(&Game) -> bool,
    mut look: impl FnMut(&Game, &LegalActions),
) {
    let mut bots = [
        hexforge_bots::RandomBot::new(seed),
        hexforge_bots::RandomBot::new(seed + 1),
    ];
    let mut legal = LegalActions::new();
    while let Some(seat) = game.current() {
        if !going(game) {
            break;
        }
        game.legal_actions(&mut legal);
        look(game, &legal);
        let pick = bots[seat.index()].act(game, &legal, scripts);
        let action = legal.get(pick).expect("listed");
        let mut players: Vec<&mut dyn Player> =
            bots.iter_mut().map(|b| b as &mut dyn Player).collect();
        game.act(
            &action,
            scripts,
            &mut Seats {
                players: &mut players,
            },
            events,
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

/// A game of `armies`, each alone, on the standard board under the default rules, started with
/// `scripts` and played to its end by seeded random bots: the game and all its events.
pub fn random_game(
    catalog: &std::sync::Arc<Catalog>,
    scripts: &mut ScriptHost,
    armies: &[&str],
    seed: u64,
) -> (Game, Vec<hexforge_core::Event>) {
    let mut events = Vec::new();
    let mut game = Game::start(
        hexforge_core::GameSetup {
            shape: BoardShape::standard(),
            seats: hexforge_core::SeatSetup::each_alone(armies),
            seed,
            marks: Vec::new(),
        },
        catalog.clone(),
        std::sync::Arc::new(hexforge_core::Rules::default()),
        scripts,
        &mut events,
    )
    .expect("a game");
    play_random(&mut game, scripts, seed, &mut events, |_| true, |_, _| {});
    (game, events)
}

/// Every action the engine accepts in this state is listed (the list is complete, not just
/// legal): every candidate over the board's hexes, facings, the hand and every instant target
/// is checked. HQs are listed facing north only, since their facing does not matter (R2.3).
pub fn assert_every_legal_action_listed(game: &Game, legal: &LegalActions) {
    use hexforge_core::{Action, Stage, Target};
    let legal = legal.to_vec();
    let shape = game.field().shape();
    let hexes: Vec<Hex> = shape.cells().map(|c| shape.hex(c)).collect();
    let Some(seat) = game.current() else { return };
    let mut hand = game.hand(seat).to_vec();
    if game.stage() == Stage::PlaceHq {
        hand = game.catalog().hq_of(game.army(seat)).into_iter().collect();
    }
    let facings: &[Dir] = if game.stage() == Stage::PlaceHq {
        &[Dir::N]
    } else {
        &Dir::ALL
    };
    let mut candidates = vec![Action::Redraw, Action::EndTurn];
    let mut targets = vec![Target::None];
    for &a in &hexes {
        targets.push(Target::Unit(a));
        targets.push(Target::Hex(a));
        for &b in &hexes {
            if a.distance(b) == 1 {
                targets.push(Target::Push {
                    pusher: a,
                    target: b,
                });
            }
            for &facing in &Dir::ALL {
                targets.push(Target::Move {
                    unit: a,
                    to: b,
                    facing,
                });
                candidates.push(Action::Move {
                    unit: a,
                    to: b,
                    facing,
                });
            }
        }
    }
    for &tile in &hand {
        candidates.push(Action::Discard { tile });
        for &hex in &hexes {
            for &facing in facings {
                candidates.push(Action::Place { tile, hex, facing });
            }
        }
        if game.catalog().get(tile).instant.is_some() {
            candidates.extend(
                targets
                    .iter()
                    .map(|&target| Action::Instant { tile, target }),
            );
        }
    }
    for a in candidates {
        if game.check(&a).is_ok() {
            assert!(legal.contains(&a), "accepted but not listed: {a:?}");
        }
    }
}
