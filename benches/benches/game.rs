//! Criterion bench of whole random-vs-random games (docs/PERFORMANCE.md, "Whole games").
//!
//! `random_vs_random/game`: one complete 2-player game per iteration, from HQ placement to the
//! result, with two `RandomBot`s, no abilities and events dropped. Iteration `n` plays pairing
//! `n % 12` of the base armies with seed `n` (`GameBench::nth_game`), so the measured mix covers
//! every ordered pairing and many different games; the catalog and rules are built once, outside
//! the timed loop. Throughput is reported in games per second.
//!
//! `greedy_vs_greedy/game`: the same with two greedy bots, as `hexforge balance` plays by
//! default (`GameBench::nth_bot_game`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hexforge_benches::GameBench;
use std::hint::black_box;

fn games(c: &mut Criterion) {
    let bench = GameBench::new();
    let mut group = c.benchmark_group("random_vs_random");
    group.throughput(Throughput::Elements(1));
    let mut n = 0u64;
    group.bench_function("game", |b| {
        b.iter(|| {
            n += 1;
            black_box(bench.nth_game(black_box(n)))
        });
    });
    group.finish();
    // What `hexforge balance` plays by default: the greedy bot on both sides (issue target: 1,000
    // games a second on this 2-core machine, that is 2 ms of one core per game).
    let mut group = c.benchmark_group("greedy_vs_greedy");
    group.throughput(Throughput::Elements(1));
    let mut n = 0u64;
    group.bench_function("game", |b| {
        b.iter(|| {
            n += 1;
            black_box(bench.nth_bot_game("greedy", black_box(n)))
        });
    });
    group.finish();
}

criterion_group!(benches, games);
criterion_main!(benches);
