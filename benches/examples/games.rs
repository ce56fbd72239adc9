//! Plays N whole random-vs-random games on one thread, for profilers (perf, callgrind) and a quick
//! games-per-second figure: `cargo run --release -p hexforge-benches --example games -- 4000`;
//! `-- 200 greedy` plays greedy-vs-greedy games instead (those `hexforge balance` plays).

use hexforge_benches::GameBench;
use std::time::Instant;

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let bot = std::env::args().nth(2);
    let bench = GameBench::new();
    let start = Instant::now();
    let mut turns = 0u64;
    let mut battles = 0u64;
    for i in 0..n {
        let g = match bot.as_deref() {
            Some(name) => bench.nth_bot_game(name, i),
            None => bench.nth_game(i),
        };
        turns += u64::from(g.turns);
        battles += u64::from(g.battles);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{n} games, {turns} turns, {battles} battles in {secs:.3} s: {:.0} games/s on one thread",
        n as f64 / secs
    );
}
