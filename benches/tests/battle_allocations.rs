//! What a battle on a warmed-up board allocates, counted by the `Counting` allocator of this
//! test binary: nothing with the hooks removed, nor with the base armies' scripts
//! (docs/PERFORMANCE.md, "Allocations"). The boards are cloned before counting; the first battle
//! of each kind warms up what is built once per thread (the battle's buffers, the Lua states'
//! tables, the plans remembered).

use hexforge_benches::allocations::{Counting, allocations_during};
use hexforge_benches::{base_content, borgo_vs_hegemony_battle, full_board_battle};
use hexforge_core::battle::resolve;
use hexforge_core::hooks::AbilityHooks;
use hexforge_core::{Battlefield, Catalog, Context, DefaultPolicy, NoAbilities, Rules};

#[global_allocator]
static A: Counting = Counting;

/// Allocations of one battle of `position` with `hooks`, after a warm-up battle.
fn per_battle(position: &(Catalog, Rules, Battlefield), hooks: &mut dyn AbilityHooks) -> u64 {
    let (catalog, rules, field) = position;
    let ctx = Context { catalog, rules };
    let mut warm = field.clone();
    resolve(&mut warm, ctx, hooks, &mut DefaultPolicy, &mut ()).expect("the battle resolves");
    let mut boards: Vec<Battlefield> = (0..10).map(|_| field.clone()).collect();
    let (_, n) = allocations_during(|| {
        for b in &mut boards {
            resolve(b, ctx, hooks, &mut DefaultPolicy, &mut ()).expect("the battle resolves");
        }
    });
    n / 10
}

#[test]
fn a_battle_on_a_warmed_up_board_allocates_nothing_in_the_engine() {
    let mut scripts = base_content().1;
    for (name, position, lua) in [
        // The Gauss Cannon's `line_shot` reads only its plan: after the warm-up battle its plan
        // is remembered (docs/LUA_API.md, "Calls that are remembered") and copied into the
        // battle's own list, so no call into Lua copies a kind's name out into a Rust string.
        ("moloch_vs_outpost", full_board_battle(), 0),
        ("borgo_vs_hegemony", borgo_vs_hegemony_battle(), 0),
    ] {
        let plain = per_battle(&position, &mut NoAbilities);
        let hooked = per_battle(&position, &mut scripts);
        assert_eq!(
            plain, 0,
            "{name}: the engine alone allocated {plain} times per battle"
        );
        assert!(
            hooked <= lua,
            "{name}: {hooked} allocations per battle with the scripts, {lua} expected at most"
        );
    }
}
