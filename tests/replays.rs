//! Replays through the engine: a timeline shows the state at any step, forwards and backwards,
//! exactly as it was when the game was played.

mod common;

use hexforge_bots::{MonteCarloBot, RandomBot};
use hexforge_core::{BoardShape, Game, GameSetup, Rules, SeatSetup};
use hexforge_replay::{Step, Timeline, replay_step};
use hexforge_script::Limits;
use std::path::PathBuf;
use std::sync::Arc;

/// A random game of `armies` with its recorded steps, and the game before its first action.
fn played(armies: [&str; 2], seed: u64) -> (Game, Vec<Step>, hexforge_script::ScriptHost) {
    let loaded = hexforge_script::load(&[common::root().join("mods")], Limits::default());
    let mut scripts = loaded.scripts;
    let game = Game::new(
        GameSetup {
            shape: BoardShape::standard(),
            seats: SeatSetup::each_alone(&armies),
            seed,
            marks: Vec::new(),
        },
        Arc::new(loaded.mods.catalog),
        Arc::new(Rules::default()),
    )
    .expect("a game");
    let start = game.clone();
    let mut game = game;
    let steps = common::record(
        &mut game,
        &mut [&mut RandomBot::new(seed + 1), &mut RandomBot::new(seed + 2)],
        &mut scripts,
    );
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

/// A mod whose army's scripts keep state in local variables (a counter, a table) and draw
/// `math.random` in a turn hook and in battles, in a fresh folder.
fn keepers_mod() -> PathBuf {
    let dir = common::mod_folder(
        "keepers",
        "id = \"keepers\"\nname = \"Keepers\"\nversion = \"1.0.0\"\n",
    );
    let mut army = String::from(
        "[army]\nid = \"keepers\"\nname = \"Keepers\"\nsize = 17\n\n[[tile]]\nid = \"hq\"\nname = \"HQ\"\nkind = \"hq\"\ncount = 1\ninitiative = [0]\nedges = [\"melee:1@0,1,2,3,4,5\"]\n\n[[tile.ability]]\nhook = \"lash\"\n",
    );
    for (id, count, edges) in [
        ("brawler", 8, "melee:1@0,1,5"),
        ("shooter", 8, "ranged:1@0"),
    ] {
        army.push_str(&format!(
            "\n[[tile]]\nid = \"{id}\"\nname = \"{id}\"\nkind = \"soldier\"\ncount = {count}\ninitiative = [2]\nedges = [\"{edges}\"]\n\n[[tile.ability]]\nhook = \"surge\"\n"
        ));
    }
    std::fs::write(dir.join("armies/keepers.toml"), army).expect("army");
    std::fs::write(
        dir.join("scripts/keepers.lua"),
        r#"local calls = 0
local seen = { total = 0 }

-- At the start of its owner's turns the HQ lashes out, by chance and by how often it has: at
-- itself, or at an enemy next to it.
ability("lash", {
  turn_started = function(ctx, fx)
    calls = calls + 1
    seen.total = seen.total + math.random(0, 5)
    local q, r = ctx:hex()
    if (calls + seen.total) % 3 == 0 then
      fx:wound(q, r, 1)
      return
    end
    for d = 0, 5 do
      local nq, nr = hex.neighbour(q, r, (d + calls + seen.total) % 6)
      local t = ctx:tile_at(nq, nr)
      if t and not t.hq and ctx:is_enemy(nq, nr) then
        fx:wound(nq, nr, 1)
        return
      end
    end
  end,
})

-- Every other attack (by the count kept) gets stronger by chance.
ability("surge", {
  plan_attacks = function(ctx, plan)
    calls = calls + 1
    if calls % 2 == 0 and plan:count() > 0 then
      plan:set_strength(1, math.random(1, 3))
    end
  end,
})
"#,
    )
    .expect("script");
    dir
}

#[test]
fn a_monte_carlo_game_with_stateful_scripts_replays_in_a_fresh_host() {
    // The bot simulates whole games with the host it plays with; the recorded game must not
    // depend on them: a host that never simulated anything plays it again exactly.
    let roots = vec![common::root().join("mods"), keepers_mod()];
    let new_game = |catalog| {
        Game::new(
            GameSetup {
                shape: BoardShape::standard(),
                seats: SeatSetup::each_alone(&["keepers", "moloch"]),
                seed: 11,
                marks: Vec::new(),
            },
            Arc::new(catalog),
            Arc::new(Rules::default()),
        )
        .expect("a game")
    };
    let loaded = common::load_clean(&roots);
    let mut scripts = loaded.scripts;
    let mut game = new_game(loaded.mods.catalog);
    let steps = common::record(
        &mut game,
        &mut [&mut MonteCarloBot::new(1, 2), &mut MonteCarloBot::new(2, 2)],
        &mut scripts,
    );
    assert!(steps.len() > 20, "a whole game");
    let fresh = hexforge_script::load(&roots, Limits::default());
    let mut fresh_scripts = fresh.scripts;
    let mut again = new_game(fresh.mods.catalog);
    for (n, step) in steps.iter().enumerate() {
        let replayed = replay_step(&mut again, step, &mut fresh_scripts, &mut ())
            .unwrap_or_else(|e| panic!("step {}: {e}", n + 1));
        assert_eq!(replayed.phases, step.phases, "step {}", n + 1);
        assert!(replayed.all_picks_used, "step {}", n + 1);
        assert_eq!(again.state_hash(), step.hash, "step {}", n + 1);
    }
}
