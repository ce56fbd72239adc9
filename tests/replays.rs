//! Replays through the engine: a timeline shows the state at any step, forwards and backwards,
//! exactly as it was when the game was played.

use hexforge_bots::RandomBot;
use hexforge_core::game::{LegalActions, Player, Seats};
use hexforge_core::{BoardShape, Game, GameSetup, Rules, SeatSetup};
use hexforge_replay::{Step, Timeline, act_noted};
use hexforge_script::Limits;
use std::path::Path;
use std::sync::Arc;

/// A random game of `armies` with its recorded steps, and the game before its first action.
fn played(armies: [&str; 2], seed: u64) -> (Game, Vec<Step>, hexforge_script::ScriptHost) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
    let loaded = hexforge_script::load(&[root], Limits::default());
    let mut scripts = loaded.scripts;
    let game = Game::new(
        GameSetup {
            shape: BoardShape::standard(),
            seats: SeatSetup::each_alone(&armies),
            seed,
        },
        Arc::new(loaded.mods.catalog),
        Arc::new(Rules::default()),
    )
    .expect("a game");
    let start = game.clone();
    let mut game = game;
    let mut bots = [RandomBot::new(seed + 1), RandomBot::new(seed + 2)];
    let mut steps = Vec::new();
    let mut legal = LegalActions::new();
    while let Some(seat) = game.current() {
        game.legal_actions(&mut legal);
        let pick = bots[seat.index()].act(&game, &legal, &mut scripts);
        let action = legal.get(pick).expect("listed");
        let mut players: Vec<&mut dyn Player> =
            bots.iter_mut().map(|b| b as &mut dyn Player).collect();
        let mut seats = Seats {
            players: &mut players,
        };
        steps.push(act_noted(&mut game, action, &mut scripts, &mut seats, &mut ()).expect("legal"));
    }
    (start, steps, scripts)
}

#[test]
fn a_timeline_rebuilds_every_step_forwards_and_backwards() {
    for (armies, seed) in [(["moloch", "scrappers"], 3), (["outpost", "hegemony"], 8)] {
        let (start, steps, mut scripts) = played(armies, seed);
        assert!(steps.len() > 40, "a whole game");
        let timeline = Timeline::new(start.clone(), &steps, &mut scripts).expect("replays");
        assert_eq!(timeline.len(), steps.len());
        let at = |n: usize, s: &mut hexforge_script::ScriptHost| {
            timeline.state_at(n, s).expect("replays").state_hash()
        };
        assert_eq!(at(0, &mut scripts), start.state_hash());
        // Backwards, then forwards: every state is the one recorded.
        for n in (1..=steps.len()).rev().chain(1..=steps.len()) {
            assert_eq!(at(n, &mut scripts), steps[n - 1].hash, "step {n}");
        }
    }
}
