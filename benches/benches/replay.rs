//! Criterion benches of replays (docs/PERFORMANCE.md, "Replays").
//!
//! - `replay/play`: one whole random-vs-random game of Moloch and Outpost with the base abilities'
//!   scripts, its actions, decisions and battle-phase board hashes noted (what recording costs
//!   before writing);
//! - `replay/verify`: the same game played again from its recorded steps, with the board hash
//!   after every battle phase and the state hash after every action computed and compared (what
//!   `hexforge replay --verify` does per game);
//! - `replay/state_at`: the state at a step of that game (a replay slider), cycling over every
//!   step, from a `Timeline` built once.

use criterion::{Criterion, criterion_group, criterion_main};
use hexforge_benches::base_content;
use hexforge_bots::RandomBot;
use hexforge_core::game::{LegalActions, Player, Seats};
use hexforge_core::{BoardShape, Game, GameSetup, Rules, SeatSetup};
use hexforge_replay::{Step, Timeline, act_noted, replay_step};
use std::hint::black_box;
use std::sync::Arc;

fn new_game(seed: u64) -> (Game, hexforge_script::ScriptHost) {
    let (catalog, scripts) = base_content();
    let game = Game::new(
        GameSetup {
            shape: BoardShape::standard(),
            seats: SeatSetup::each_alone(&["moloch", "outpost"]),
            seed,
            marks: Vec::new(),
        },
        Arc::new(catalog),
        Arc::new(Rules::default()),
    )
    .expect("a game");
    (game, scripts)
}

/// Plays a game to its end with random bots, noting each step.
fn play(
    mut game: Game,
    scripts: &mut hexforge_script::ScriptHost,
    seed: u64,
    legal: &mut LegalActions,
) -> Vec<Step> {
    let mut bots = [RandomBot::new(seed + 1), RandomBot::new(seed + 2)];
    let mut steps = Vec::with_capacity(128);
    while let Some(seat) = game.current() {
        game.legal_actions(legal);
        let pick = bots[seat.index()].act(&game, legal, scripts);
        let Some(action) = legal.get(pick) else {
            break;
        };
        let mut players: Vec<&mut dyn Player> =
            bots.iter_mut().map(|b| b as &mut dyn Player).collect();
        let mut seats = Seats {
            players: &mut players,
        };
        steps.push(act_noted(&mut game, action, scripts, &mut seats, &mut ()).expect("legal"));
    }
    steps
}

fn replays(c: &mut Criterion) {
    let seed = 11;
    let (start, mut scripts) = new_game(seed);
    let mut legal = LegalActions::new();
    let steps = play(start.clone(), &mut scripts, seed, &mut legal);
    let mut group = c.benchmark_group("replay");
    group.bench_function("play", |b| {
        b.iter(|| black_box(play(start.clone(), &mut scripts, seed, &mut legal)))
    });
    group.bench_function("verify", |b| {
        b.iter(|| {
            let mut game = start.clone();
            for step in &steps {
                let replayed =
                    replay_step(&mut game, step, &mut scripts, &mut ()).expect("replays");
                assert_eq!(replayed.phases, step.phases);
                assert_eq!(game.state_hash(), step.hash);
            }
            black_box(game)
        })
    });
    let timeline = Timeline::new(start.clone(), &steps, &mut scripts).expect("replays");
    let mut n = 0;
    group.bench_function("state_at", |b| {
        b.iter(|| {
            n = (n + 7) % (steps.len() + 1);
            black_box(timeline.state_at(n, &mut scripts).expect("replays"))
        })
    });
    group.finish();
}

criterion_group!(benches, replays);
criterion_main!(benches);
