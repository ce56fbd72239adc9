//! Effects an ability asks for that the engine must refuse (docs/LUA_API.md, `fx`, `gives_to`):
//! a hex off the board, an empty hex to heal, a move onto a tile, an attack on a target off its
//! line, a marker lasting -1 turns, initiative and engine-marker values out of range, an edge that
//! does not exist, a per-unit bonus that only `gives` may give. Each is refused where it is asked,
//! with the mod, the file and line of the call, the hook and the tile, and the battle leaves the
//! board as it was. The abilities are in `tests/fixtures/bad_effects`.

mod common;

use hexforge_core::battle::{Context, resolve};
use hexforge_core::{Battlefield, Catalog, DefaultPolicy, Rules};
use hexforge_script::ScriptHost;

fn fixture() -> (Catalog, ScriptHost) {
    let loaded = common::load_clean(&[common::root().join("tests/fixtures/bad_effects")]);
    (loaded.mods.catalog, loaded.scripts)
}

/// `unit` at the centre facing north, the enemy HQ just north of it, its own HQ to the south.
fn board(c: &Catalog, unit: &str) -> Battlefield {
    common::unit_between_hqs(c, unit, "bad/hq")
}

/// Fights a battle with `unit` on the board and returns the refusal, checking the board is as
/// it was.
fn refusal(unit: &str) -> String {
    let (catalog, mut scripts) = fixture();
    let before = board(&catalog, unit);
    let mut field = before.clone();
    let rules = Rules::default();
    let ctx = Context {
        catalog: &catalog,
        rules: &rules,
    };
    let err = resolve(&mut field, ctx, &mut scripts, &mut DefaultPolicy, &mut ())
        .expect_err("the effect is refused");
    assert_eq!(field, before, "a refused battle leaves the board as it was");
    err.message
}

#[test]
fn an_effect_off_the_board_is_refused_at_the_line_that_asks_it() {
    let m = refusal("bad/off_board");
    assert!(m.contains("bad, scripts/bad.lua:6"), "{m}");
    assert!(m.contains("attack_resolved"), "{m}");
    assert!(m.contains("bad/off_board"), "{m}");
    assert!(m.contains("(9, 9) is off the board"), "{m}");
}

#[test]
fn healing_an_empty_hex_is_refused_at_the_line_that_asks_it() {
    let m = refusal("bad/empty_heal");
    assert!(m.contains("bad, scripts/bad.lua:13"), "{m}");
    assert!(m.contains("battle_started"), "{m}");
    assert!(m.contains("no tile on (1, 0) to heal"), "{m}");
}

#[test]
fn a_move_onto_a_tile_is_refused_at_the_line_that_asks_it() {
    let m = refusal("bad/onto_taken");
    assert!(m.contains("bad, scripts/bad.lua:21"), "{m}");
    assert!(m.contains("phase_ended"), "{m}");
    assert!(
        m.contains("cannot move onto (0, -1): the hex is taken"),
        "{m}"
    );
}

#[test]
fn a_marker_with_a_negative_duration_is_refused_at_the_line_that_asks_it() {
    let m = refusal("bad/bad_duration");
    assert!(m.contains("bad, scripts/bad.lua:28"), "{m}");
    assert!(m.contains("battle_started"), "{m}");
    assert!(
        m.contains("a marker lasts \"turn\", \"battle\", \"permanent\" or 1 to 99 turns; got -1"),
        "{m}"
    );
}

#[test]
fn the_attack_a_hook_reads_cannot_carry_state_to_the_next_call() {
    let m = refusal("bad/keeper");
    assert!(m.contains("bad, scripts/bad.lua:34"), "{m}");
    assert!(m.contains("the attack `a` has no field `kept`"), "{m}");
}

#[test]
fn a_scripted_attack_on_a_target_off_its_line_is_refused_at_the_line_that_asks_it() {
    let m = refusal("bad/off_line");
    assert!(m.contains("bad, scripts/bad.lua:41"), "{m}");
    assert!(m.contains("battle_started"), "{m}");
    assert!(m.contains("bad/off_line"), "{m}");
    assert!(
        m.contains("fx:attack: the target [1, -2] is not on a straight line from [0, 0]"),
        "{m}"
    );
}

#[test]
fn an_initiative_change_out_of_range_is_refused_at_the_line_that_asks_it() {
    let m = refusal("bad/fast");
    assert!(m.contains("bad, scripts/bad.lua:48"), "{m}");
    assert!(m.contains("fx:add_initiative: 12: add -9 to 9"), "{m}");
}

#[test]
fn an_engine_marker_with_a_value_it_cannot_read_is_refused_at_the_line_that_asks_it() {
    let m = refusal("bad/marked_fast");
    assert!(m.contains("bad, scripts/bad.lua:55"), "{m}");
    assert!(
        m.contains("the `initiative` marker's value is added to initiative: use -9 to 9, not 12"),
        "{m}"
    );
}

#[test]
fn an_edge_change_on_an_edge_that_does_not_exist_is_refused_at_the_line_that_asks_it() {
    let m = refusal("bad/seven_edges");
    assert!(m.contains("bad, scripts/bad.lua:61"), "{m}");
    assert!(
        m.contains("fx:edge: edge 7: edges are 0 (front) to 5, clockwise"),
        "{m}"
    );
}

#[test]
fn gives_to_returning_an_effect_of_gives_is_refused_naming_the_function() {
    let m = refusal("bad/greedy_beacon");
    assert!(m.contains("bad, scripts/bad.lua:66"), "{m}");
    assert!(m.contains("gives_to"), "{m}");
    assert!(
        m.contains(
            "unknown effect `mobility` (it works outside battles too, so it stays with `gives`)"
        ),
        "{m}"
    );
}

/// Two units' `turn_started` hooks each move their unit onto the first free hex around it: when
/// the second's hex was taken by the first's move, that move is moot and dropped (docs/LUA_API.md,
/// "Effects that what happened since they were asked made moot"), not an error that stops the
/// game.
#[test]
fn a_move_another_tiles_hook_made_moot_is_dropped_not_an_error() {
    use std::sync::Arc;
    let dir = common::mod_folder(
        "moot-moves",
        "id = \"drift\"\nname = \"Drift\"\nversion = \"1.0.0\"\n",
    );
    std::fs::write(
        dir.join("armies/drift.toml"),
        "[army]\nid = \"drift\"\nname = \"Drift\"\nsize = 12\n\n[[tile]]\nid = \"hq\"\nname = \"HQ\"\nkind = \"hq\"\ncount = 1\ninitiative = [0]\nedges = [\"melee:1@0,1,2,3,4,5\"]\n\n[[tile]]\nid = \"drifter\"\nname = \"Drifter\"\nkind = \"soldier\"\ncount = 11\ninitiative = [1]\nedges = [\"melee:1@0\"]\n\n[[tile.ability]]\nhook = \"drift\"\n",
    )
    .expect("army");
    std::fs::write(
        dir.join("scripts/drift.lua"),
        "ability(\"drift\", {\n  turn_started = function(ctx, fx)\n    local q, r = ctx:hex()\n    for d = 0, 5 do\n      local nq, nr = hex.neighbour(q, r, d)\n      if ctx:free(nq, nr) then\n        fx:move(q, r, nq, nr)\n        return\n      end\n    end\n  end,\n})\n",
    )
    .expect("script");
    let loaded = common::load_clean(&[common::root().join("mods/base"), dir.clone()]);
    let catalog = Arc::new(loaded.mods.catalog);
    let mut scripts = loaded.scripts;
    let mut moves = 0;
    for seed in 1..=6 {
        let (_, events) = common::random_game(&catalog, &mut scripts, &["drift", "moloch"], seed);
        moves += events
            .iter()
            .filter(|e| matches!(e, hexforge_core::Event::Moved { .. }))
            .count();
    }
    assert!(moves > 0, "the drifters moved");
    let _ = std::fs::remove_dir_all(dir);
}
