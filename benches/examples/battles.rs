//! Resolves a benchmark position N times, for profilers that count instructions (callgrind):
//! `cargo build --release -p hexforge-benches --example battles` then
//! `valgrind --tool=callgrind --toggle-collect='hexforge_core::battle::resolve*' target/release/examples/battles moloch 2000`.

use hexforge_benches::{base_content, borgo_vs_hegemony_battle, full_board_battle};
use hexforge_core::DefaultPolicy;
use hexforge_core::battle::{Context, resolve};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (catalog, rules, field) = match args.get(1).map(String::as_str) {
        Some("borgo") => borgo_vs_hegemony_battle(),
        _ => full_board_battle(),
    };
    let n: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let mut scripts = base_content().1;
    let mut removed = 0;
    for _ in 0..n {
        let mut f = field.clone();
        let ctx = Context {
            catalog: &catalog,
            rules: &rules,
        };
        removed += resolve(&mut f, ctx, &mut scripts, &mut DefaultPolicy, &mut ())
            .map_or(0, |r| r.removed);
    }
    println!("{n} battles, {removed} tiles removed");
}
