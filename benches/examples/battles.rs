//! Resolves a benchmark position N times, for profilers that count instructions (callgrind):
//! `cargo build --release -p hexforge-benches --example battles` then
//! `valgrind --tool=callgrind --toggle-collect='hexforge_core::battle::resolve*' target/release/examples/battles moloch 2000`.
//! A third argument `plain` resolves with the abilities' hooks removed (`NoAbilities`), to
//! measure what the Lua scripts cost. The position `listeners` is the attack-event board
//! (`attack_event_battle`): its hooked and plain counts differ by the attack-event calls.

use hexforge_benches::{
    attack_event_battle, base_content, borgo_vs_hegemony_battle, full_board_battle,
};
use hexforge_core::battle::{Context, resolve};
use hexforge_core::{AbilityHooks, DefaultPolicy, NoAbilities};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (catalog, rules, field, mut scripts) = match args.get(1).map(String::as_str) {
        Some("borgo") => {
            let (c, r, f) = borgo_vs_hegemony_battle();
            (c, r, f, base_content().1)
        }
        Some("listeners") => attack_event_battle(),
        _ => {
            let (c, r, f) = full_board_battle();
            (c, r, f, base_content().1)
        }
    };
    let n: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let hooks: &mut dyn AbilityHooks = match args.get(3).map(String::as_str) {
        Some("plain") => &mut NoAbilities,
        _ => &mut scripts,
    };
    let mut removed = 0;
    for _ in 0..n {
        let mut f = field.clone();
        let ctx = Context {
            catalog: &catalog,
            rules: &rules,
        };
        removed +=
            resolve(&mut f, ctx, &mut *hooks, &mut DefaultPolicy, &mut ()).map_or(0, |r| r.removed);
    }
    println!("{n} battles, {removed} tiles removed");
}
