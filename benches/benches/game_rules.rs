//! Criterion benches of game scripts (docs/PERFORMANCE.md, "Game scripts").
//!
//! - `game_rules/hook/empty`: one call of a `check` hook that does nothing
//!   (`benches/fixtures/empty_rule`): what the engine and the script host cost per call;
//! - `game_rules/hook/check` and `game_rules/hook/hq_damaged`: one call of a game rule's hook
//!   through the script host, as the engine makes it: the scored deathmatch rule of
//!   `mods/scored` (its `check` reads `ctx:game()` and every player's score marker; its
//!   `hq_damaged` reads them and asks for a marker), on the board of a game in progress;
//! - `game_rules/game/plain` and `game_rules/game/scored`: one whole random-vs-random game of
//!   Moloch and Outpost with the base abilities' scripts, without and with the scored rule in
//!   play (what a game pays for a rule's hooks at every turn, battle and action);
//! - `game_rules/game/monolith`: the same game under Monolith Arena's rules (`mods/monolith_arena`
//!   with `monolith` and `poison` on: hidden tiles, deploying, folding, poison).

use criterion::{Criterion, criterion_group, criterion_main};
use hexforge_benches::rule_games::{content, monolith_rules, play, start};
use hexforge_core::effect::Effect;
use hexforge_core::hooks::{GameContext, HqLoss, PlayerPiles, RuleCall};
use hexforge_core::{AbilityHooks, Seat};
use std::hint::black_box;

fn hooks(c: &mut Criterion) {
    let (catalog, mut scripts) = content();
    let rules = monolith_rules(&catalog, true, false);
    let mut game = start(&catalog, &rules, &mut scripts, 5);
    play(&mut game, &mut scripts, 5, 40);
    let rule = catalog
        .game_rules()
        .iter()
        .position(|r| r.name == "scored_deathmatch")
        .expect("the scored rule");
    let piles: Vec<PlayerPiles<'_>> = (0..2)
        .map(|i| {
            let p = Seat::new(i);
            PlayerPiles {
                army: game.army(p),
                hand: game.hand(p),
                deck: game.deck_len(p),
                discard: game.discard_pile(p),
                reserve: game.reserve(p),
            }
        })
        .collect();
    let ctx = GameContext {
        field: game.field(),
        catalog: &catalog,
        rules: &rules,
        rule,
        player: game.current().unwrap_or_default(),
        turn: game.turn_number(),
        battles: game.battles(),
        last_tile_drawn: game.last_tile_drawn(),
        stage: "play",
        played: 0,
        placed: 0,
        discarded: true,
        piles: &piles,
    };
    let mut group = c.benchmark_group("game_rules/hook");
    let empty = GameContext {
        rule: catalog
            .game_rules()
            .iter()
            .position(|r| r.name == "empty")
            .expect("the empty rule"),
        ..ctx
    };
    group.bench_function("empty", |b| {
        b.iter(|| {
            let mut verdict = None;
            scripts
                .game_rule(
                    black_box(&empty),
                    RuleCall::Check {
                        ended: None,
                        verdict: &mut verdict,
                    },
                )
                .expect("the hook runs");
            black_box(verdict)
        });
    });
    group.bench_function("check", |b| {
        b.iter(|| {
            let mut verdict = None;
            scripts
                .game_rule(
                    black_box(&ctx),
                    RuleCall::Check {
                        ended: None,
                        verdict: &mut verdict,
                    },
                )
                .expect("the hook runs");
            black_box(verdict)
        });
    });
    let mut effects: Vec<Effect> = Vec::with_capacity(8);
    group.bench_function("hq_damaged", |b| {
        b.iter(|| {
            effects.clear();
            let hq = HqLoss {
                player: Seat::new(1),
                amount: 2,
                hp: 9997,
                by: [2, 0, 0, 0],
            };
            scripts
                .game_rule(black_box(&ctx), RuleCall::HqDamaged(hq, &mut effects))
                .expect("the hook runs");
            black_box(effects.len())
        });
    });
    group.finish();
}

fn games(c: &mut Criterion) {
    let (catalog, mut scripts) = content();
    let mut group = c.benchmark_group("game_rules/game");
    for (name, scored, monolith) in [
        ("plain", false, false),
        ("scored", true, false),
        ("monolith", false, true),
    ] {
        let rules = monolith_rules(&catalog, scored, monolith);
        let mut n = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                n += 1;
                let mut game = start(&catalog, &rules, &mut scripts, n);
                play(&mut game, &mut scripts, n, usize::MAX);
                black_box(game.result())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, hooks, games);
criterion_main!(benches);
