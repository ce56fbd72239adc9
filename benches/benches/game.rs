//! Criterion bench of whole random-vs-random games (docs/PERFORMANCE.md, "Whole games").
//!
//! `random_vs_random/game`: one complete 2-player game per iteration, from HQ placement to the
//! result, with two `RandomBot`s, no abilities and events dropped. Iteration `n` plays pairing
//! `n % 12` of the base armies with seed `n` (`GameBench::nth_game`), so the measured mix covers
//! every ordered pairing and many different games; the catalog and rules are built once, outside
//! the timed loop. Throughput is reported in games per second.

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
}

criterion_group!(benches, games);
criterion_main!(benches);
