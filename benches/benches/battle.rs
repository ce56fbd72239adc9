//! Criterion benches of whole-battle resolution on full 19-hex boards (docs/PERFORMANCE.md).
//!
//! For each position (see `hexforge_benches`):
//! - `no_log`: one battle with the `()` sink, which drops events (bots, searches), the base
//!   abilities run by their Lua scripts;
//! - `no_log_hooks_removed`: the same battle with the scripts' hooks removed (the tiles keep
//!   their data effects; the Gauss Cannon shoots as a plain ranged unit, the Clown never
//!   explodes): what the Lua layer costs is the difference;
//! - `event_log`: one battle with a fresh `Vec<Event>` sink, which keeps the log (CLI, replays);
//!   the vector starts empty, so its growth is part of the measured time;
//! - `clone`: cloning the battlefield alone, the cost a caller adds per battle.
//!
//! `attack_events`: a full board of units whose `attack_resolved` and `attacked` hooks read the
//! attack's outcome and return (`benches/fixtures/listeners`), resolved with the scripts
//! (`hooked`) and without (`plain`): the difference divided by the calls per battle (printed once)
//! is what one attack-event call costs.
//!
//! `allocations`: before the timings, each position's battles are counted by this bench's
//! allocation-counting global allocator (`hexforge_benches::allocations::Counting`), ten
//! battles on a warmed-up thread, and the allocations per battle printed, with the hooks
//! removed and with the scripts (`benches/tests/battle_allocations.rs` checks the same figures).
//!
//! The battles run on a fresh clone of the position for every iteration: `iter_batched_ref` with
//! `BatchSize::SmallInput` makes the clones (and the empty vectors) before the timed routine and
//! drops them after it, so the battle benches time `resolve` alone.

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, criterion_group, criterion_main};
use hexforge_benches::allocations::{Counting, allocations_during};
use hexforge_benches::{
    attack_event_battle, base_content, borgo_vs_hegemony_battle, full_board_battle,
};
use hexforge_core::battle::resolve;
use hexforge_core::effect::Effect;
use hexforge_core::hooks::{AbilityHooks, HookContext, HookError, ResolvedAttack};
use hexforge_core::{Battlefield, Catalog, Context, DefaultPolicy, Event, NoAbilities, Rules};
use std::hint::black_box;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations per battle of `field` with `hooks`, over ten battles after a warm-up one.
fn allocations_per_battle<H: AbilityHooks>(
    field: &Battlefield,
    ctx: Context<'_>,
    hooks: &mut H,
) -> u64 {
    let mut warm = field.clone();
    let _ = resolve(&mut warm, ctx, hooks, &mut DefaultPolicy, &mut ());
    let mut boards: Vec<Battlefield> = (0..10).map(|_| field.clone()).collect();
    let (_, n) = allocations_during(|| {
        for b in &mut boards {
            let _ = resolve(b, ctx, hooks, &mut DefaultPolicy, &mut ());
        }
    });
    n / 10
}

/// One battle bench: `resolve` on a fresh clone of `field` with `hooks`, events dropped.
fn bench_battle<H: AbilityHooks>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    field: &Battlefield,
    ctx: Context<'_>,
    hooks: &mut H,
) {
    group.bench_function(name, |b| {
        b.iter_batched_ref(
            || field.clone(),
            |f| black_box(resolve(f, ctx, hooks, &mut DefaultPolicy, &mut ())),
            BatchSize::SmallInput,
        );
    });
}

fn bench_position(c: &mut Criterion, name: &str, position: (Catalog, Rules, Battlefield)) {
    let (catalog, rules, field) = position;
    let ctx = Context {
        catalog: &catalog,
        rules: &rules,
    };
    let mut scripts = base_content().1;
    eprintln!(
        "{name}: {} allocations per battle with the hooks removed, {} with the scripts",
        allocations_per_battle(&field, ctx, &mut NoAbilities),
        allocations_per_battle(&field, ctx, &mut scripts)
    );
    let mut group = c.benchmark_group(name);
    bench_battle(&mut group, "no_log", &field, ctx, &mut scripts);
    bench_battle(
        &mut group,
        "no_log_hooks_removed",
        &field,
        ctx,
        &mut NoAbilities,
    );
    group.bench_function("event_log", |b| {
        b.iter_batched_ref(
            || (field.clone(), Vec::<Event>::new()),
            |(f, log)| black_box(resolve(f, ctx, &mut scripts, &mut DefaultPolicy, log)),
            BatchSize::SmallInput,
        );
    });
    group.bench_function("clone", |b| b.iter(|| black_box(black_box(&field).clone())));
    group.finish();
}

/// Counts the attack-event calls a battle makes, and makes none itself.
#[derive(Default)]
struct CountCalls(u32);

impl AbilityHooks for CountCalls {
    fn attack_resolved(
        &mut self,
        _: &HookContext<'_>,
        _: &ResolvedAttack,
        _: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.0 += 1;
        Ok(())
    }

    fn attacked(
        &mut self,
        _: &HookContext<'_>,
        _: &ResolvedAttack,
        _: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.0 += 1;
        Ok(())
    }
}

fn attack_events(c: &mut Criterion) {
    let (catalog, rules, field, mut scripts) = attack_event_battle();
    let ctx = Context {
        catalog: &catalog,
        rules: &rules,
    };
    let mut count = CountCalls::default();
    resolve(
        &mut field.clone(),
        ctx,
        &mut count,
        &mut DefaultPolicy,
        &mut (),
    )
    .expect("the attack-event battle resolves");
    eprintln!("attack_events: {} attack-event calls per battle", count.0);
    let mut group = c.benchmark_group("attack_events");
    bench_battle(&mut group, "hooked", &field, ctx, &mut scripts);
    bench_battle(&mut group, "plain", &field, ctx, &mut NoAbilities);
    group.finish();
}

fn battles(c: &mut Criterion) {
    bench_position(c, "moloch_vs_outpost", full_board_battle());
    bench_position(c, "borgo_vs_hegemony", borgo_vs_hegemony_battle());
    attack_events(c);
}

criterion_group!(benches, battles);
criterion_main!(benches);
