//! Games under game rules, for the criterion benches and the instruction-counting example:
//! Moloch against Outpost with random bots, with the base abilities' scripts and the rules of
//! `mods/scored` and `mods/monolith_arena` loaded (in play or not, as the rule options say).

use hexforge_bots::RandomBot;
use hexforge_core::game::{Player, Seats};
use hexforge_core::tile::ParamValue;
use hexforge_core::{BoardShape, Catalog, Game, GameSetup, Rules, SeatSetup};
use hexforge_script::{Limits, ScriptHost};
use std::path::Path;
use std::sync::Arc;

/// The catalog and scripts of the base mod, `scored`, `monolith_arena` and the empty rule of
/// `benches/fixtures/empty_rule`.
pub fn content() -> (Arc<Catalog>, ScriptHost) {
    let mods = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
    let empty = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/empty_rule");
    let loaded = hexforge_script::load(
        &[
            mods.join("base"),
            mods.join("scored"),
            mods.join("monolith_arena"),
            empty,
        ],
        Limits::default(),
    );
    assert!(loaded.mods.problems.is_empty(), "{}", loaded.mods.problems);
    (Arc::new(loaded.mods.catalog), loaded.scripts)
}

/// The rules with the scored rule, or Monolith Arena's Monolith and poison, in play.
pub fn monolith_rules(catalog: &Catalog, scored: bool, monolith: bool) -> Arc<Rules> {
    let mut rules = Rules::default();
    rules
        .set_any(catalog.options(), "scored", &ParamValue::Bool(scored))
        .expect("a declared option");
    for key in ["monolith", "poison"] {
        rules
            .set_any(catalog.options(), key, &ParamValue::Bool(monolith))
            .expect("a declared option");
    }
    // What `[[implies]]` sets for the scored variant.
    rules.hq_hp = if scored { 9999 } else { rules.hq_hp };
    Arc::new(rules)
}

/// Moloch against Outpost on the standard board, seeded with `seed`.
pub fn start(
    catalog: &Arc<Catalog>,
    rules: &Arc<Rules>,
    scripts: &mut ScriptHost,
    seed: u64,
) -> Game {
    Game::start(
        GameSetup {
            shape: BoardShape::standard(),
            seats: SeatSetup::each_alone(&["moloch", "outpost"]),
            seed,
            marks: Vec::new(),
        },
        catalog.clone(),
        rules.clone(),
        scripts,
        &mut (),
    )
    .expect("a game")
}

/// Plays `game` with random bots for `actions` actions at most, or to its end.
pub fn play(game: &mut Game, scripts: &mut ScriptHost, seed: u64, actions: usize) {
    let mut bots = [RandomBot::new(seed), RandomBot::new(seed + 1)];
    let mut legal = hexforge_core::game::LegalActions::new();
    for _ in 0..actions {
        let Some(seat) = game.current() else { break };
        game.legal_actions(&mut legal);
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
            &mut (),
        )
        .expect("legal");
    }
}
