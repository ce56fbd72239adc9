//! Hostile and broken ability scripts: escape attempts, endless loops, recursion, memory bombs,
//! writes to globals and the library, and errors, each contained and reported with the mod, file,
//! line, hook and tile; a battle whose hook fails leaves the board as it was.

mod common;

use hexforge_core::battle::{Context, resolve};
use hexforge_core::{Battlefield, Catalog, DefaultPolicy, Dir, Hex, Rules};
use hexforge_script::{Limits, ScriptHost};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A mod `probe` with one army: an HQ and a `gunner` (initiative 1, melee 1 on its front) whose
/// (toughness 1, so it survives the HQ's answer and sees the battle end) ability `probe` is defined by `script` (in `scripts/probe.lua`).
fn probe_mod(script: &str, hook: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = common::mod_folder(
        &format!("hostile-{}", N.fetch_add(1, Ordering::Relaxed)),
        "id = \"probe\"\nname = \"Probe\"\nversion = \"1.0.0\"\n",
    );
    std::fs::write(
        dir.join("armies/probe.toml"),
        format!(
            "[army]\nid = \"probe\"\nname = \"Probe\"\nsize = 2\n\n[[tile]]\nid = \"hq\"\nname = \"HQ\"\nkind = \"hq\"\ncount = 1\ninitiative = [0]\nedges = [\"melee:1@0,1,2,3,4,5\"]\n\n[[tile]]\nid = \"gunner\"\nname = \"Gunner\"\nkind = \"soldier\"\ncount = 1\ninitiative = [1]\ntoughness = 1\nedges = [\"melee:1@0\"]\n\n[[tile.ability]]\nhook = \"{hook}\"\n"
        ),
    )
    .expect("army");
    std::fs::write(dir.join("scripts/probe.lua"), script).expect("script");
    dir
}

fn load(script: &str) -> (Catalog, ScriptHost, String) {
    load_with(script, "probe", Limits::default())
}

fn load_with(script: &str, hook: &str, limits: Limits) -> (Catalog, ScriptHost, String) {
    let dir = probe_mod(script, hook);
    let mut mods = hexforge_content::load_mods(&[dir]);
    assert!(mods.problems.is_empty(), "{}", mods.problems);
    let (host, problems) = ScriptHost::load(&mods.mods, &mut mods.catalog, limits);
    (mods.catalog, host, problems.to_string())
}

/// The gunner at the centre facing the enemy HQ to its north; its own HQ to the south.
fn board(c: &Catalog) -> Battlefield {
    common::unit_between_hqs(c, "probe/gunner", "probe/hq")
}

/// Fights the probe board; the error message if a hook failed (the board must then be unchanged).
fn fight(c: &Catalog, host: &mut ScriptHost) -> Result<u16, String> {
    let before = board(c);
    let mut f = before.clone();
    let rules = Rules::default();
    let r = resolve(
        &mut f,
        Context {
            catalog: c,
            rules: &rules,
        },
        host,
        &mut DefaultPolicy,
        &mut (),
    );
    match r {
        Ok(report) => Ok(report.hq_damage[1]),
        Err(e) => {
            assert_eq!(f, before, "a failed battle leaves the board as it was");
            Err(e.to_string())
        }
    }
}

#[test]
fn escape_routes_are_closed() {
    let (_, _, problems) = load(
        r#"
for _, name in ipairs({ "io", "os", "package", "require", "load", "loadfile", "dofile",
                        "debug", "loadstring", "collectgarbage", "rawset", "rawget", "next",
                        "print", "coroutine", "setfenv", "getfenv", "module" }) do
  assert(_ENV[name] == nil, name .. " is reachable")
end
assert(string.dump == nil, "string.dump is reachable")
assert(("x").dump == nil, "string.dump is reachable through a string")
assert(getmetatable("") == false, "the string metatable is reachable")
assert(math.randomseed == nil, "math.randomseed is reachable")
ability("probe", {})
"#,
    );
    assert_eq!(problems, "");
}

#[test]
fn no_address_reaches_a_script() {
    let (_, _, problems) = load(
        r#"
local t, f = {}, function() end
assert(tostring(t) == "table", tostring(t))
assert(tostring(f) == "function", tostring(f))
assert(string.format("%s and %s", t, f) == "table and function")
assert(("%s|%5.1f|%d"):format({}, 1.25, 3) == "table|  1.2|3")
assert(tostring(setmetatable({}, { __tostring = function() return "unit" end })) == "unit")
assert(tostring(setmetatable({}, { __name = "Plan" })) == "Plan")
assert(tostring(12) == "12" and tostring(nil) == "nil" and tostring(true) == "true")
assert(string.format("100%%p") == "100%p", "an escaped percent is no %p")
local ok, e = pcall(string.format, "%p", t)
assert(not ok and e:find("not allowed"), e)
ok, e = pcall(function() return ("%10p"):format(t) end)
assert(not ok and e:find("not allowed"), e)
ability("probe", {})
"#,
    );
    assert_eq!(problems, "");
}

#[test]
fn an_endless_loop_is_stopped_and_the_battle_refused() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  while true do end\nend })\n",
    );
    assert_eq!(problems, "");
    let started = std::time::Instant::now();
    let err = fight(&c, &mut host).expect_err("stopped");
    assert!(err.contains("ran too long"), "{err}");
    assert!(err.contains("plan_attacks"), "{err}");
    assert!(err.contains("probe/gunner"), "{err}");
    // Generous bound for a loaded machine; the limit itself is 50 ms or 2M instructions.
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

#[test]
fn pcall_cannot_swallow_the_limit() {
    let (c, mut host, _) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  while true do pcall(function() while true do end end) end\nend })\n",
    );
    let err = fight(&c, &mut host).expect_err("stopped");
    assert!(err.contains("ran too long"), "{err}");
}

#[test]
fn endless_recursion_is_stopped() {
    let (c, mut host, _) = load(
        "local function f(n) return f(n + 1) + 1 end\nability(\"probe\", { plan_attacks = function(ctx, plan)\n  f(1)\nend })\n",
    );
    let err = fight(&c, &mut host).expect_err("stopped");
    assert!(
        err.contains("stack overflow") || err.contains("ran too long"),
        "{err}"
    );
}

#[test]
fn a_memory_bomb_hits_the_memory_cap_at_its_line() {
    let (c, mut host, _) = load_with(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  local t = {}\n  while true do t[#t + 1] = { #t } end\nend })\n",
        "probe",
        Limits {
            memory: 16 << 20,
            ..Limits::default()
        },
    );
    let err = fight(&c, &mut host).expect_err("stopped");
    assert!(err.contains("out of memory"), "{err}");
    assert!(
        err.contains("probe, scripts/probe.lua:3, plan_attacks, probe/gunner: "),
        "{err}"
    );
    // The state is still usable after the failure: the next battle fails the same way.
    let again = fight(&c, &mut host).expect_err("stopped again");
    assert_eq!(again, err);
}

#[test]
fn the_instruction_limit_names_the_loops_line() {
    let (c, mut host, _) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  local n = 0\n  while true do n = n + 1 end\nend })\n",
    );
    let err = fight(&c, &mut host).expect_err("stopped");
    assert!(err.contains("ran too long"), "{err}");
    assert!(
        err.contains("probe, scripts/probe.lua:3, plan_attacks, probe/gunner: "),
        "{err}"
    );
    // Inside a helper, through a `pcall`: still the loop's line, with the frames around it.
    let (c, mut host, _) = load(
        "local function spin()\n  while true do end\nend\nability(\"probe\", { plan_attacks = function(ctx, plan)\n  pcall(spin)\nend })\n",
    );
    let err = fight(&c, &mut host).expect_err("stopped");
    assert!(err.contains("scripts/probe.lua:2, plan_attacks"), "{err}");
    assert!(
        err.contains("Lua traceback:\n    scripts/probe.lua:2 in "),
        "{err}"
    );
    assert!(err.contains("scripts/probe.lua:5 in "), "{err}");
}

/// The pattern functions run in C in plain Lua, where no instruction count reaches: this one
/// would run for hours. Here it stops within the call's budget, at its line.
#[test]
fn a_pattern_bomb_is_stopped_at_its_line_within_the_budget() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  local s = string.rep(\"a\", 1e6)\n  return s:find(\".-.-.-.-.-b\")\nend })\n",
    );
    assert_eq!(problems, "");
    let started = std::time::Instant::now();
    let err = fight(&c, &mut host).expect_err("stopped");
    assert!(err.contains("ran too long"), "{err}");
    assert!(err.contains("scripts/probe.lua:3, plan_attacks"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // gsub and gmatch are bounded the same way.
    for call in [
        "s:gsub(\"(a-)-(a-)-b\", \"\")",
        "for w in s:gmatch(\".-.-.-b\") do end",
        "s:match(\"(.-)%1%1b\")",
    ] {
        let (c, mut host, _) = load(&format!(
            "ability(\"probe\", {{ plan_attacks = function(ctx, plan)\n  local s = string.rep(\"a\", 50000)\n  {call}\nend }})\n"
        ));
        let started = std::time::Instant::now();
        let err = fight(&c, &mut host).expect_err(call);
        assert!(err.contains("ran too long"), "{call}: {err}");
        assert!(err.contains("scripts/probe.lua:3"), "{call}: {err}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{call}"
        );
    }
}

#[test]
fn library_calls_past_their_caps_are_errors_naming_the_line_and_the_cap() {
    for (call, words) in [
        (
            "local s = string.rep(\"a\", 2000000)\n  s:find(\"a+b\")",
            "string.find on a 2,000,000-byte string: the pattern functions (find, match, gmatch, gsub) run on strings of at most 1,048,576 bytes",
        ),
        (
            "local s = \"x\"\n  s:rep(1 << 30)",
            "string.rep would build a string of 1,073,741,824 bytes or more: library functions build strings of at most 4,194,304 bytes",
        ),
        (
            "local s = string.rep(\"x\", 3000000)\n  local t = string.format(\"%s%s\", s, s)",
            "string.format would build a string of",
        ),
        (
            "local s = string.rep(\"x\", 3000000)\n  local t = table.concat({ s, s })",
            "table.concat would build a string of",
        ),
        (
            "local t = {}\n  table.move(t, 1, 1 << 50, 2)",
            "ran too long",
        ),
        ("local s = \"\"\n  s:rep(1 << 60)", "ran too long"),
        (
            "local s = \"\"\n  s = string.pack(\"c8000000\", s)",
            "string.pack would build a string of 8,000,000 bytes or more",
        ),
    ] {
        let (c, mut host, problems) = load(&format!(
            "ability(\"probe\", {{ plan_attacks = function(ctx, plan)\n  {call}\nend }})\n"
        ));
        assert_eq!(problems, "", "{call}");
        let started = std::time::Instant::now();
        let err = fight(&c, &mut host).expect_err(call);
        assert!(err.contains(words), "{call}: {err}");
        assert!(
            err.contains("probe, scripts/probe.lua:3, plan_attacks, probe/gunner: "),
            "{call}: {err}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{call}"
        );
    }
    // Under the caps, the functions work as in Lua, and a script may catch their errors.
    let (_, _, problems) = load(
        r#"
assert(("key = value"):match("(%w+)%s*=%s*(%w+)") == "key")
assert(select(2, ("a,b,c"):gsub(",", ";")) == 2)
assert(#string.rep("ab", 3, "-") == 8)
assert(table.concat({ 1, "x", 2.5 }, " ") == "1 x 2.5")
local ok, e = pcall(string.find, "abc", "[a")
assert(not ok and e:find("malformed pattern", 1, true), e)
ok, e = pcall(function() return ("x"):rep(1 << 40) end)
assert(not ok and e:find("probe.lua:8: string.rep would build", 1, true), e)
ability("probe", {})
"#,
    );
    assert_eq!(problems, "");
}
#[test]
fn globals_and_the_library_are_read_only() {
    let (c, mut host, _) =
        load("ability(\"probe\", { plan_attacks = function(ctx, plan)\n  counter = 1\nend })\n");
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(err.contains("cannot set the global `counter`"), "{err}");
    assert!(
        err.contains("probe, scripts/probe.lua:2, plan_attacks, probe/gunner: "),
        "{err}"
    );
    let (_, _, problems) = load("hex.neighbour = nil\nability(\"probe\", {})\n");
    assert!(problems.contains("cannot change `neighbour`"), "{problems}");
    assert!(problems.contains("probe.lua:1"), "{problems}");
}

#[test]
fn a_script_error_names_mod_file_line_hook_and_tile() {
    let (c, mut host, _) = load(
        "ability(\"probe\", {\n  plan_attacks = function(ctx, plan)\n    error(\"boom\")\n  end,\n})\n",
    );
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(err.starts_with("probe, "), "{err}");
    assert!(
        err.contains("scripts/probe.lua:3, plan_attacks, probe/gunner: boom"),
        "{err}"
    );
}

#[test]
fn errors_in_every_battle_hook_point_are_contained() {
    for point in [
        "battle_started",
        "initiative",
        "plan_attacks",
        "before_wound",
        "phase_ended",
        "battle_ended",
    ] {
        let (c, mut host, problems) = load(&format!(
            "ability(\"probe\", {{ {point} = function(ctx, plan) local x = nil; return x.y end }})\n"
        ));
        assert_eq!(problems, "", "{point}");
        let err = fight(&c, &mut host).expect_err(point);
        assert!(err.contains(point), "{point}: {err}");
        assert!(err.contains("probe.lua:1"), "{point}: {err}");
    }
}

#[test]
fn load_problems_are_located() {
    let (_, _, problems) = load("ability(\"probe\", {\n  plan_attacks = function(\nend })\n");
    assert!(problems.contains("probe.lua:"), "{problems}");
    let (_, _, problems) = load("ability(\"probe\", { plan_atacks = function() end })\n");
    assert!(
        problems.contains("unknown hook point `plan_atacks`"),
        "{problems}"
    );
    let (_, _, problems) = load_with("ability(\"probe\", {})\n", "nope", Limits::default());
    assert!(problems.contains("probe.toml:"), "{problems}");
    assert!(problems.contains("no ability `nope`"), "{problems}");
}

#[test]
fn pairs_visits_keys_in_a_fixed_order() {
    let (_, _, problems) = load(
        r#"
local t = { zeta = 1, alpha = 2, [10] = 3, [2] = 4, mid = 5, [true] = 6, [false] = 7 }
local seen = {}
for k in pairs(t) do seen[#seen + 1] = tostring(k) end
local got = table.concat(seen, " ")
assert(got == "2 10 alpha mid zeta false true", got)
ability("probe", {})
"#,
    );
    assert_eq!(problems, "");
}

#[test]
fn abilities_change_attacks_through_the_plan() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  for i = 1, plan:count() do plan:set_strength(i, plan:strength(i) + ctx:param(\"bonus\", 2)) end\nend })\n",
    );
    assert_eq!(problems, "");
    // Melee 1 plus the default bonus 2 on the enemy HQ.
    assert_eq!(fight(&c, &mut host), Ok(3));
    let (c, mut host, _) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  plan:set_strength(1, 99)\nend })\n",
    );
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(err.contains("out of range"), "{err}");
}

#[test]
fn math_random_follows_the_seed_it_is_given() {
    use hexforge_core::AbilityHooks;
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  plan:set_strength(1, math.random(1, 9))\nend })\n",
    );
    assert_eq!(problems, "");
    let mut draws = Vec::new();
    for seed in 0..8 {
        host.reseed(seed);
        let first = fight(&c, &mut host).expect("fights");
        host.reseed(seed);
        assert_eq!(fight(&c, &mut host), Ok(first), "seed {seed}");
        assert!((1..=9).contains(&first));
        draws.push(first);
    }
    draws.dedup();
    assert!(draws.len() > 1, "different seeds draw different numbers");
}

#[test]
fn only_a_declared_question_can_be_asked() {
    let (c, mut host, _) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  ctx:ask(\"explode\")\nend })\n",
    );
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(err.contains("asks = \"explode\""), "{err}");
    let (_, _, problems) = load("ability(\"probe\", { asks = \"surrender\" })\n");
    assert!(problems.contains("`asks`"), "{problems}");
}

#[test]
fn an_answer_is_read_only_in_the_plan_attacks_call_it_was_asked_for() {
    // The first battle's `plan_attacks` asks its question; in the second (no reseed between,
    // so the local counts on), the `initiative` hook asks it too: that hook is no
    // `plan_attacks` call, and the first answer must not reach it.
    let (c, mut host, problems) = load(
        r#"
local asked = 0
ability("probe", {
  asks = "explode",
  initiative = function(ctx)
    if asked > 0 then
      ctx:ask("explode")
    end
  end,
  plan_attacks = function(ctx, plan)
    ctx:ask("explode")
    asked = asked + 1
  end,
})
"#,
    );
    assert_eq!(problems, "");
    fight(&c, &mut host).expect("the first battle asks in plan_attacks");
    let err = fight(&c, &mut host).expect_err("asked outside plan_attacks");
    assert!(
        err.contains("an ability asks only in plan_attacks"),
        "{err}"
    );
}

#[test]
fn an_error_in_a_destroyed_hook_is_contained() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", {\n  destroyed = function(ctx, fx)\n    error(\"last words\")\n  end,\n})\n",
    );
    assert_eq!(problems, "");
    // The gunner starts with one wound: the enemy HQ's answer in phase 0 destroys it.
    let mut f = board(&c);
    let gunner = f.shape().cell(Hex::new(0, 0)).expect("on the board");
    let mut wounded = f.clone();
    wounded.apply(&hexforge_core::Event::Wounded {
        cell: gunner,
        added: 1,
        total: 1,
        destroyed: false,
    });
    f = wounded.clone();
    let rules = Rules::default();
    let err = resolve(
        &mut f,
        Context {
            catalog: &c,
            rules: &rules,
        },
        &mut host,
        &mut DefaultPolicy,
        &mut (),
    )
    .expect_err("the hook fails");
    assert!(
        err.to_string()
            .contains("scripts/probe.lua:3, destroyed, probe/gunner: last words"),
        "{err}"
    );
    assert_eq!(f, wounded, "the board is as before the battle");
}

/// A game of two probe armies in progress: HQs placed, `a` to play turn 5; the gunner in `a`'s
/// hand, or on the board for `on_board`'s seat.
fn probe_game(c: &Catalog, on_board: Option<u8>) -> hexforge_core::Game {
    let hq = common::tile(c, "probe/hq");
    let gunner = common::tile(c, "probe/gunner");
    let mut tiles = vec![common::placed(hq, 0, 0, 2), common::placed(hq, 1, 0, -2)];
    let mut hands = [Vec::new(), Vec::new()];
    match on_board {
        Some(owner) => tiles.push(common::placed(gunner, owner, 1, 0)),
        None => hands[0].push(gunner),
    }
    hexforge_core::Game::from_position(
        common::turn_five("probe", tiles, hands),
        std::sync::Arc::new(c.clone()),
        std::sync::Arc::new(Rules::default()),
        &mut hexforge_core::NoAbilities,
        &mut (),
    )
    .expect("a legal position")
}

#[test]
fn errors_in_placement_and_turn_hooks_refuse_the_action_and_keep_the_game() {
    use hexforge_core::{Action, ActionError};
    for (point, on_board) in [
        ("placed", None),
        ("turn_ended", Some(0)),
        ("turn_started", Some(1)),
    ] {
        let (c, mut host, problems) = load(&format!(
            "ability(\"probe\", {{ {point} = function(ctx, fx) fx:wound(9, 9) end }})\n"
        ));
        assert_eq!(problems, "", "{point}");
        let mut game = probe_game(&c, on_board);
        let action = match on_board {
            None => Action::Place {
                tile: c.find("probe/gunner").expect("gunner"),
                hex: Hex::new(1, 0),
                facing: Dir::N,
            },
            Some(_) => Action::EndTurn,
        };
        let before = game.state_hash();
        let mut events = Vec::new();
        let err = game
            .act(&action, &mut host, &mut DefaultPolicy, &mut events)
            .expect_err(point);
        let ActionError::Hook(e) = &err else {
            panic!("{point}: {err}");
        };
        assert!(e.message.contains(point), "{point}: {e}");
        assert!(e.message.contains("off the board"), "{point}: {e}");
        assert!(events.is_empty(), "{point}: no events of a refused action");
        assert_eq!(game.state_hash(), before, "{point}: the game is unchanged");
    }
}

#[test]
fn each_mod_has_its_own_globals() {
    // Two mods: the first sets a global while it loads, the second cannot see it.
    let a = probe_mod("shared_secret = 42\nability(\"probe\", {})\n", "probe");
    let b = probe_mod(
        "assert(shared_secret == nil, \"another mod's global is visible\")\nability(\"probe\", {})\n",
        "probe",
    );
    for (dir, id) in [(&a, "one"), (&b, "two")] {
        // Distinct mod and army ids, so both load side by side.
        let manifest = format!("id = \"{id}\"\nname = \"{id}\"\nversion = \"1.0.0\"\n");
        std::fs::write(dir.join("mod.toml"), manifest).expect("manifest");
        let army = std::fs::read_to_string(dir.join("armies/probe.toml"))
            .expect("army")
            .replace(
                "id = \"probe\"\nname = \"Probe\"",
                &format!("id = \"{id}\"\nname = \"{id}\""),
            );
        std::fs::write(dir.join("armies/probe.toml"), army).expect("army");
    }
    let mut mods = hexforge_content::load_mods(&[a, b]);
    assert!(mods.problems.is_empty(), "{}", mods.problems);
    assert_eq!(mods.catalog.armies().len(), 2);
    let (_, problems) = ScriptHost::load(&mods.mods, &mut mods.catalog, Limits::default());
    assert_eq!(problems.to_string(), "");
}

#[test]
fn a_chosen_target_off_the_attacks_line_is_refused() {
    // The gunner at [0,0] faces N: its melee reaches [0,-1] only.
    let (c, mut host, _) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  plan:target(1, 1, 0)\nend })\n",
    );
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(err.contains("cannot reach [1, 0]"), "{err}");
    let (c, mut host, _) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  plan:target(1, 0, -1)\nend })\n",
    );
    assert_eq!(
        fight(&c, &mut host),
        Ok(1),
        "the adjacent enemy HQ is on the line"
    );
}

#[test]
fn binding_a_bound_catalog_again_changes_nothing() {
    // Every thread of `hexforge matches` binds its own host to a copy of the bound catalog.
    let loaded = common::load_clean(&[common::root().join("mods")]);
    let mut again = loaded.mods.catalog.clone();
    let (_, problems) = ScriptHost::load(&loaded.mods.mods, &mut again, Limits::default());
    assert!(problems.is_empty(), "{problems}");
    assert!(
        again == loaded.mods.catalog,
        "binding twice merged effects twice"
    );
}

#[test]
fn hooks_read_edges_teams_and_nets() {
    // The gunner at [0,0] faces N with melee 1 on its front; the enemy HQ is at [0,-1].
    let (c, mut host, problems) = load(
        r#"
ability("probe", {
  plan_attacks = function(ctx, plan)
    local e = ctx:edges(0, 0)
    assert(e[0].melee == 1 and e[0].direction == 0 and e[3].melee == 0, "edges")
    assert(ctx:edges(2, 2) == nil, "no tile, no edges")
    assert(ctx:tile_at(0, -1).team == 2 and ctx:tile_at(0, 0).team == 1, "teams")
    assert(ctx:netted(0, 0) == false, "nets")
    assert(#ctx:tiles() == 3, "tiles")
  end,
})
"#,
    );
    assert_eq!(problems, "");
    assert_eq!(fight(&c, &mut host), Ok(1));
}

#[test]
fn a_hook_keeps_no_state_from_one_battle_to_the_next() {
    use hexforge_core::AbilityHooks;
    // A counter in an upvalue (globals are read-only, locals are not) and a table field.
    let (c, mut host, problems) = load(
        "local calls = 0\nlocal memo = { n = 0 }\nability(\"probe\", { plan_attacks = function(ctx, plan)\n  calls = calls + 1\n  memo.n = memo.n + 1\n  plan:set_strength(1, math.min(calls + memo.n, 9))\nend })\n",
    );
    assert_eq!(problems, "");
    host.reseed(3);
    let first = fight(&c, &mut host).expect("fights");
    host.reseed(3);
    assert_eq!(
        fight(&c, &mut host),
        Ok(first),
        "the same battle again gives the same result"
    );
}

#[test]
fn every_kind_of_kept_state_is_put_back_at_each_reseed() {
    use hexforge_core::AbilityHooks;
    // Nested tables, two locals naming one table, a local function reassigned, a global function
    // closing over a local (globals are read-only, what they close over is not), a metatable.
    let script = "local memo = { n = 0, inner = { k = 1 } }\nlocal alias = memo\nlocal function bump() memo.n = memo.n + 1 end\nfunction helper() bump(); memo.inner.k = memo.inner.k + 1 end\nability(\"probe\", { plan_attacks = function(ctx, plan)\n  helper()\n  alias.extra = (alias.extra or 0) + 1\n  memo.inner = { k = memo.inner.k }\n  bump = function() memo.n = memo.n + 5 end\n  setmetatable(memo, { __index = function() return 3 end })\n  plan:set_strength(1, math.min(memo.n + memo.inner.k + alias.extra + (memo.missing or 0), 9))\nend })\n";
    let (c, mut host, problems) = load(script);
    assert_eq!(problems, "");
    // 1 + 2 + 1 + 3: what the first battle after loading gives.
    for seed in [3, 3, 4, 3] {
        host.reseed(seed);
        assert_eq!(fight(&c, &mut host), Ok(7), "seed {seed}");
    }
    // Without a reseed in between, the state lives on (within a battle it may).
    assert_eq!(fight(&c, &mut host), Ok(9));
}

#[test]
fn a_turn_hooks_draws_do_not_depend_on_battles_fought_in_between() {
    use hexforge_core::{AbilityHooks, Action};
    // The hook reports what it drew and how often it ran, as an error: the action is refused and
    // the game unchanged, so the same action can be tried again.
    let (c, mut host, problems) = load(
        "local calls = 0\nability(\"probe\", {\n  turn_ended = function(ctx, fx)\n    calls = calls + 1\n    error(\"drew \" .. math.random(1, 1000000) .. \" in call \" .. calls)\n  end,\n  plan_attacks = function(ctx, plan)\n    calls = calls + 10\n    plan:set_strength(1, math.random(1, 9))\n  end,\n})\n",
    );
    assert_eq!(problems, "");
    let mut game = probe_game(&c, Some(0));
    let end_turn = |game: &mut hexforge_core::Game, host: &mut ScriptHost| {
        game.act(&Action::EndTurn, host, &mut DefaultPolicy, &mut ())
            .expect_err("the hook fails")
            .to_string()
    };
    let first = end_turn(&mut game, &mut host);
    assert!(first.contains("in call 1"), "{first}");
    // A bot's simulated battles in between: reseeds, draws and state changes of their own.
    for seed in [7, 8] {
        host.reseed(seed);
        fight(&c, &mut host).expect("fights");
    }
    assert_eq!(end_turn(&mut game, &mut host), first);
    // Another game on the same host, then this one again.
    let mut other = probe_game(&c, Some(0));
    assert_eq!(
        end_turn(&mut other, &mut host),
        first,
        "the same game draws the same"
    );
    assert_eq!(end_turn(&mut game, &mut host), first);
}

#[test]
fn finalizers_and_weak_tables_are_refused() {
    // What they do depends on when memory is collected, which differs between processes.
    let (_, _, problems) =
        load("local cache = setmetatable({}, { __mode = \"k\" })\nability(\"probe\", {})\n");
    assert!(
        problems.contains("probe.lua:1") && problems.contains("`__mode`"),
        "{problems}"
    );
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  setmetatable({}, { __gc = function() end })\nend })\n",
    );
    assert_eq!(problems, "");
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(
        err.contains("probe.lua:2") && err.contains("`__gc`"),
        "{err}"
    );
}

/// The error of a battle whose `plan_attacks` runs `body` (from line 2 of `scripts/probe.lua`),
/// in a fresh host each time.
fn plan_error(body: &str) -> String {
    let (c, mut host, problems) = load(&format!(
        "ability(\"probe\", {{ plan_attacks = function(ctx, plan)\n{body}\nend }})\n"
    ));
    assert_eq!(problems, "", "{body}");
    fight(&c, &mut host).expect_err(body)
}

#[test]
fn error_objects_of_any_type_are_shown_the_same_every_time() {
    for (body, words) in [
        ("  error({})", "the error object is a table, not a message"),
        (
            "  error(nil)",
            "error(nil): the script raised an error with no message",
        ),
        (
            "  error()",
            "error(nil): the script raised an error with no message",
        ),
        (
            "  error(false)",
            "error(false): the script raised a boolean",
        ),
        ("  error(42)", ": 42"),
        ("  error(1.5)", ": 1.5"),
        (
            "  error(ctx)",
            "the error object is a userdata, not a message",
        ),
        ("  error(function() end)", "the error object is a function"),
        (
            "  error(setmetatable({}, { __tostring = function() error(\"x\") end }))",
            "a table with a __tostring metamethod, which the host does not call",
        ),
        (
            "  error(setmetatable({}, { __tostring = function() while true do end end }))",
            "a table with a __tostring metamethod, which the host does not call",
        ),
    ] {
        let first = plan_error(body);
        assert_eq!(plan_error(body), first, "{body}: the same text every time");
        assert!(first.contains(words), "{body}: {first}");
        assert!(
            first.starts_with("probe, scripts/probe.lua:2, plan_attacks, probe/gunner: "),
            "{body}: {first}"
        );
        assert!(!first.contains("0x"), "{body}: no address: {first}");
    }
}

#[test]
fn a_huge_error_message_is_cut() {
    let err = plan_error(
        "  local s = string.rep(\"x\", 1 << 20)\n  s = s .. s .. s .. s .. s .. s .. s .. s .. s .. s\n  error(s)",
    );
    assert!(err.len() < 1_000, "{} bytes", err.len());
    assert!(err.contains("xxx\u{2026} (10,485,260 more bytes)"), "{err}");
    assert!(err.contains("scripts/probe.lua:4, plan_attacks"), "{err}");
}

#[test]
fn paths_are_shown_relative_to_the_mod_folder_and_never_cut() {
    let dir = probe_mod("", "probe");
    let deep = "scripts/a_folder_with_a_rather_long_name/and_another_one_below_it/probe.lua";
    std::fs::remove_file(dir.join("scripts/probe.lua")).expect("moved");
    std::fs::create_dir_all(dir.join(deep).parent().expect("folder")).expect("folders");
    std::fs::write(
        dir.join(deep),
        "local function fail(n)\n  if n > 0 then error(\"boom\") end\nend\nability(\"probe\", { plan_attacks = function(ctx, plan)\n  fail(1)\nend })\n",
    )
    .expect("script");
    let mut mods = hexforge_content::load_mods(&[dir]);
    assert!(mods.problems.is_empty(), "{}", mods.problems);
    let (mut host, problems) = ScriptHost::load(&mods.mods, &mut mods.catalog, Limits::default());
    assert_eq!(problems.to_string(), "");
    let err = fight(&mods.catalog, &mut host).expect_err("boom");
    assert!(
        err.starts_with(&format!(
            "probe, {deep}:2, plan_attacks, probe/gunner: boom"
        )),
        "{err}"
    );
    assert!(err.contains(&format!("{deep}:5 in ")), "{err}");
    assert!(!err.contains("..."), "{err}");
    assert!(
        !err.contains("hexforge-hostile"),
        "no temporary folder: {err}"
    );
    // An error found in what a hook returned is placed at the ability's definition, whole too.
    let dir = mods.mods[0].dir.clone();
    std::fs::write(
        dir.join(deep),
        "\nability(\"probe\", { initiative = function(ctx) return 99 end })\n",
    )
    .expect("script");
    let mut mods = hexforge_content::load_mods(&[dir]);
    let (mut host, _) = ScriptHost::load(&mods.mods, &mut mods.catalog, Limits::default());
    let err = fight(&mods.catalog, &mut host).expect_err("out of range");
    assert!(
        err.starts_with(&format!(
            "probe, {deep}:2, initiative, probe/gunner: initiative: 99 is out of range"
        )),
        "{err}"
    );
}

/// The instruction count, never the clock, decides whether a hook finishes: a heavy hook well
/// under the count gives the same battle on a machine busy with other work.
#[test]
fn a_heavy_hook_under_the_instruction_limit_finishes_however_loaded_the_machine() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", { initiative = function(ctx)\n  local n = 0\n  for i = 1, 300000 do n = n + i % 7 end\n  return n % 3\nend })\n",
    );
    assert_eq!(problems, "");
    let quiet = fight(&c, &mut host).expect("the hook finishes");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinners: Vec<_> = (0..cores * 4)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                }
            })
        })
        .collect();
    let busy: Vec<_> = (0..4).map(|_| fight(&c, &mut host)).collect();
    stop.store(true, Ordering::Relaxed);
    for s in spinners {
        s.join().expect("spinner");
    }
    for r in busy {
        assert_eq!(r, Ok(quiet));
    }
}

/// The wall-clock safeguard (set very low here, with no instruction limit to speak of) says
/// what it is and where the script is stuck.
#[test]
fn the_wall_clock_safeguard_says_it_is_not_a_game_rule() {
    let (c, mut host, _) = load_with(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  local n = 0\n  while true do n = n + 1 end\nend })\n",
        "probe",
        Limits {
            instructions: u64::MAX,
            time: std::time::Duration::from_millis(20),
            ..Limits::default()
        },
    );
    let err = fight(&c, &mut host).expect_err("stopped");
    assert!(
        err.contains(
            "scripts/probe.lua:3, plan_attacks, probe/gunner: stopped after 20 ms of wall-clock time: this is a host safeguard, not a game rule; the script is stuck in scripts/probe.lua:3"
        ),
        "{err}"
    );
}

/// Library calls whose work grows with their arguments count it, name the script's line even
/// when the script returns their result directly, and keep Lua's words for a bad argument.
#[test]
fn counted_library_calls_name_the_line_and_the_function() {
    let err = plan_error("  local t = {}\n  return table.unpack(t, 1, 1 << 40)");
    assert!(err.contains("ran too long"), "{err}");
    assert!(err.contains("scripts/probe.lua:3, plan_attacks"), "{err}");
    let err = plan_error("  local s = \"abc\"\n  return s:sub({})");
    assert!(
        err.contains("scripts/probe.lua:3, plan_attacks, probe/gunner: bad argument #2 to 'sub' (number expected, got table)"),
        "{err}"
    );
    let (_, _, problems) = load(
        r##"
assert(("hello"):sub(2, -2) == "ell" and ("abc"):upper() == "ABC" and tonumber("0x10") == 16)
local t = { 3, 1, 2 }
table.sort(t, function(a, b) return a > b end)
table.insert(t, 1, 9)
assert(table.concat(t, ",") == "9,3,2,1" and table.remove(t) == 1 and select("#", table.unpack(t)) == 3)
assert(utf8.len("h\u{e9}") == 2 and ("abc"):byte(-1) == 99)
local ok, e = pcall(table.sort, { 1, 2, 3 }, function(a, b) error("no order") end)
assert(not ok and e:find("probe.lua:8: no order", 1, true), e)
ability("probe", {})
"##,
    );
    assert_eq!(problems, "");
}

/// `ctx:option` reads an option the mod declares (its default, its preset's value, what is set)
/// and a key no loaded mod declares is a script error naming it and the declared ones.
#[test]
fn a_script_reads_declared_options_and_an_undeclared_key_is_an_error() {
    let dir = probe_mod(
        "ability(\"probe\", {\n  plan_attacks = function(ctx, plan)\n    if ctx:option(\"probe_fire\") then\n      error(\"range \" .. ctx:option(\"probe_range\"))\n    end\n    ctx:option(\"probe_rang\")\n  end,\n})\n",
        "probe",
    );
    std::fs::write(
        dir.join("options.toml"),
        "[[option]]\nkey = \"probe_fire\"\ntype = \"bool\"\ndefault = false\npresets = { classic = true }\ndoc = \"Whether the probe fires.\"\n\n[[option]]\nkey = \"probe_range\"\ntype = \"integer\"\nmin = 1\ndefault = 2\ndoc = \"How far it fires.\"\n",
    )
    .expect("options");
    let mut mods = hexforge_content::load_mods(&[dir]);
    assert!(mods.problems.is_empty(), "{}", mods.problems);
    let (mut host, problems) = ScriptHost::load(&mods.mods, &mut mods.catalog, Limits::default());
    assert!(problems.is_empty(), "{problems}");
    let c = mods.catalog;
    let mut fight_with = |rules: &Rules| {
        let mut f = board(&c);
        let context = Context { catalog: &c, rules };
        resolve(&mut f, context, &mut host, &mut DefaultPolicy, &mut ())
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let err = fight_with(&Rules::default()).expect_err("an undeclared key");
    assert!(
        err.contains(
            "no loaded mod declares the rule option `probe_rang` (did you mean `probe_range`?): declared options are probe_fire, probe_range"
        ),
        "{err}"
    );
    let mut classic = Rules::preset(hexforge_core::Preset::Classic);
    let err = fight_with(&classic).expect_err("the classic value fires");
    assert!(err.contains("range 2"), "{err}");
    classic
        .set_any(
            c.options(),
            "probe_range",
            &hexforge_core::tile::ParamValue::Int(3),
        )
        .expect("in range");
    let err = fight_with(&classic).expect_err("the value set");
    assert!(err.contains("range 3"), "{err}");
}

#[test]
fn a_tile_hook_reads_players_teams_and_hq_hp_but_not_the_game() {
    // Every hook reads the players on the board; the game's turn and piles are a game rule's.
    let (c, mut host, _) = load(
        "ability(\"probe\", {\n  plan_attacks = function(ctx, plan)\n    assert(ctx:players() == 2 and ctx:team(1) ~= ctx:team(2))\n    assert(ctx:hq_hp(2) == 20)\n    plan:clear()\n  end,\n})\n",
    );
    assert_eq!(fight(&c, &mut host), Ok(0), "the unit made no attack");
    let (c, mut host, _) = load(
        "ability(\"probe\", {\n  plan_attacks = function(ctx, plan)\n    local t = ctx:turn()\n  end,\n})\n",
    );
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(
        err.contains("scripts/probe.lua:3, plan_attacks, probe/gunner: ")
            && err.contains("read in a game rule's hooks"),
        "{err}"
    );
    let (c, mut host, _) = load(
        "ability(\"probe\", {\n  plan_attacks = function(ctx, plan)\n    local hp = ctx:hq_hp(5)\n  end,\n})\n",
    );
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(err.contains("player 5 is not playing: use 1 to 2"), "{err}");
}

#[test]
fn fx_link_mistakes_are_errors_at_their_line_and_refused_units_name_the_rule() {
    // The gunner stands on [0, 0], the enemy HQ on [0, -1], its own HQ on [0, 2].
    let cases = [
        (
            "fx:link{ kind = \"keep\", owner = 1 }",
            "scripts/probe.lua:3, plan_attacks, probe/gunner: fx:link: `hexes` is required",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 0, 1 } }, owner = 1 }",
            "probe.lua:3, plan_attacks, probe/gunner: fx:link: `kind` is required",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 0, 1 } }, kind = \"Keep\", owner = 1 }",
            "fx:link: `Keep` is not a marker name",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 0, 1 } }, kind = \"keep\" }",
            "fx:link: `owner` is required",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 0, 1 } }, kind = \"keep\", owner = 7 }",
            "fx:link: no player 7: players are 1 to 2",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 0, 1 } }, kind = \"keep\", owner = 1, loss = \"half\" }",
            "fx:link: loss `half`: use \"whole\"",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 0, 1 } }, kind = \"keep\", owner = 1, share = true, zz = 1 }",
            "fx:link: unknown key `share` (keys: hexes, kind, owner, loss, shared)",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 5, 0 } }, kind = \"keep\", owner = 1 }",
            "fx:link: (5, 0) is off the board",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 0, 2 } }, kind = \"keep\", owner = 1 }",
            "probe.lua:3, plan_attacks, probe/gunner: fx:link: the segments are not in one piece",
        ),
        (
            "fx:link{ hexes = { { 0, 0 } }, kind = \"keep\", owner = 1 }",
            "probe.lua:3, plan_attacks, probe/gunner: fx:link: a linked unit stands on 2 to 7 hexes, not 1",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 0, 1 } }, kind = \"keep\", owner = 1 }",
            "probe.lua:3, plan_attacks, probe/gunner: fx:link: a unit whose tiles leave together (`whole`) has a tile on every segment",
        ),
        (
            "fx:unlink(0, 0)",
            "plan_attacks, probe/gunner: unlink: no linked unit has a segment on [0, 0]",
        ),
        (
            "fx:link{ hexes = { { 0, 0 }, { 0, 1 } }, kind = \"keep\", owner = 1, loss = \"segment\" }\n    fx:link{ hexes = { { 0, 0 }, { 1, 0 } }, kind = \"keep\", owner = 1, loss = \"segment\" }",
            "plan_attacks, probe/gunner: link: a segment is already part of a linked unit asked for before it",
        ),
    ];
    for (call, expected) in cases {
        let (c, mut host, problems) = load(&format!(
            "ability(\"probe\", {{\n  plan_attacks = function(ctx, plan, fx)\n    {call}\n  end,\n}})\n"
        ));
        assert!(problems.is_empty(), "{problems}");
        let err = fight(&c, &mut host).expect_err(call);
        assert!(err.contains(expected), "{call}\n{err}");
    }
    // A good unit: the gunner and the empty hex behind it, each segment standing alone.
    let (c, mut host, _) = load(
        "ability(\"probe\", {\n  plan_attacks = function(ctx, plan, fx)\n    if not ctx:link(0, 0) then\n      fx:link{ hexes = { { 0, 0 }, { 0, 1 } }, kind = \"keep\", owner = 1, loss = \"segment\" }\n    end\n  end,\n})\n",
    );
    assert_eq!(fight(&c, &mut host), Ok(1));
}

#[test]
fn a_method_reached_again_from_inside_itself_is_an_error_not_a_crash() {
    // `plan:explode` reads its table's fields through their metamethods; this table's `__index`
    // calls `plan` again while the first call is changing it.
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  local sneaky = setmetatable({}, { __index = function() plan:count() end })\n  plan:explode(sneaky)\nend })\n",
    );
    assert_eq!(problems, "");
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(err.contains("probe.lua:3"), "{err}");
    assert!(err.contains("in use"), "{err}");
}

/// Fights `board` under `rules`: the damage the probe's enemy HQ takes.
fn fight_on(c: &Catalog, host: &mut ScriptHost, board: &Battlefield, rules: &Rules) -> u16 {
    let mut f = board.clone();
    let ctx = Context { catalog: c, rules };
    resolve(&mut f, ctx, host, &mut DefaultPolicy, &mut ())
        .expect("the battle resolves")
        .hq_damage[1]
}

/// The probe board with the gunner carrying `wounds` wounds.
fn wounded_board(c: &Catalog, wounds: u8) -> Battlefield {
    let at = |id: &str, owner: u8, q: i32, r: i32| common::placed(common::tile(c, id), owner, q, r);
    let mut gunner = at("probe/gunner", 0, 0, 0);
    gunner.wounds = wounds;
    Battlefield::new(
        common::duel(vec![
            gunner,
            at("probe/hq", 1, 0, -1),
            at("probe/hq", 0, 0, 2),
        ]),
        c,
    )
    .expect("legal board")
}

/// A `plan_attacks` call that read nothing but its plan is remembered and not run again
/// (docs/LUA_API.md, "Calls that are remembered"); these guard that a call that read anything else
/// always runs: a second board, other rules, a mod that keeps state, each gives what a fresh
/// host gives.
#[test]
fn a_plan_that_read_the_board_is_made_again_on_another_board() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  plan:set_strength(1, 1 + ctx:tile_at(0, 0).wounds)\nend })\n",
    );
    assert_eq!(problems, "");
    let rules = Rules::default();
    let (fresh, wounded) = (wounded_board(&c, 0), wounded_board(&c, 1));
    for _ in 0..2 {
        assert_eq!(fight_on(&c, &mut host, &fresh, &rules), 1);
        assert_eq!(fight_on(&c, &mut host, &wounded, &rules), 2);
    }
}

#[test]
fn a_plan_that_read_the_rules_is_made_again_under_other_rules() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  plan:set_strength(1, ctx:rule(\"hq_can_damage_hq\") and 2 or 1)\nend })\n",
    );
    assert_eq!(problems, "");
    let board = wounded_board(&c, 0);
    let no = Rules {
        hq_can_damage_hq: false,
        ..Rules::default()
    };
    let yes = Rules {
        hq_can_damage_hq: true,
        ..Rules::default()
    };
    for _ in 0..2 {
        assert_eq!(fight_on(&c, &mut host, &board, &no), 1);
        assert_eq!(fight_on(&c, &mut host, &board, &yes), 2);
    }
}

#[test]
fn a_plan_of_a_mod_that_keeps_state_is_made_at_every_call() {
    let (c, mut host, problems) = load(
        "local calls = 0\nability(\"probe\", { plan_attacks = function(ctx, plan)\n  calls = calls + 1\n  plan:set_strength(1, calls)\nend })\n",
    );
    assert_eq!(problems, "");
    let rules = Rules::default();
    let board = wounded_board(&c, 0);
    // No reseed point between the battles: the count goes on.
    let dealt: Vec<u16> = (0..3)
        .map(|_| fight_on(&c, &mut host, &board, &rules))
        .collect();
    assert_eq!(dealt, [1, 2, 3]);
}

#[test]
fn a_plan_that_asked_an_effect_is_made_at_every_call() {
    // The wound it asks lands each time: a remembered plan would skip it.
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan, fx)\n  fx:wound(0, 2, 1)\nend })\n",
    );
    assert_eq!(problems, "");
    let rules = Rules::default();
    let board = wounded_board(&c, 0);
    for _ in 0..2 {
        let mut f = board.clone();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let report = resolve(&mut f, ctx, &mut host, &mut DefaultPolicy, &mut ()).expect("fights");
        assert_eq!(report.hq_damage[0], 1, "the wound on its own HQ lands");
    }
}

#[test]
fn lua_mistakes_are_told_with_what_to_do() {
    let cases = [
        (
            "local t = ctx:tile_at(0, -3)\n  return t.wounds",
            "attempt to index a nil value (local 't'): that value is nil, so it has no fields: check it first",
        ),
        (
            "ctx:tile_att(0, 0)",
            "the object has no method of that name: docs/LUA_API.md lists",
        ),
        (
            "hex.neighbr(0, 0, 1)",
            "(field 'neighbr'): there is no function of that name in that table: check its spelling",
        ),
        (
            "local n = ctx:marker(0, 0, \"none\")\n  return n + 1",
            "a value on this line is nil: give it a default (`x or 0`)",
        ),
    ];
    for (body, expected) in cases {
        let (c, mut host, problems) = load(&format!(
            "ability(\"probe\", {{ plan_attacks = function(ctx, plan)\n  {body}\nend }})\n"
        ));
        assert_eq!(problems, "");
        let err = fight(&c, &mut host).expect_err(body);
        assert!(err.contains(expected), "{body}\n{err}");
    }
}

/// A determinism break found by trying: a global's metatable handed its `__index` or `__len`
/// function the writable table behind the read-only global, where a hook could keep a count from
/// one battle to the next that no reseed put back (nor a remembered call saw).
#[test]
fn a_globals_metamethods_get_the_read_only_global_not_the_table_behind_it() {
    for (global, reach) in [
        (
            "Store = setmetatable({}, { __index = function(t, k) if k == \"raw\" then return t end end })",
            "Store.raw",
        ),
        (
            "local mt = {}\nmt.__index = mt\nStore = setmetatable({}, mt)",
            "Store.__index",
        ),
        (
            "Store = setmetatable({}, { __len = function(t) t.n = (t.n or 0) + 1 return t.n end })",
            "Store",
        ),
    ] {
        let write = if reach == "Store" {
            "local n = #Store".to_string()
        } else {
            format!("local raw = {reach}\n  raw.n = 1")
        };
        let (c, mut host, problems) = load(&format!(
            "{global}\nability(\"probe\", {{ plan_attacks = function(ctx, plan)\n  {write}\nend }})\n"
        ));
        assert_eq!(problems, "", "{global}");
        let err = fight(&c, &mut host).expect_err(global);
        assert!(err.contains("cannot change `n`"), "{global}\n{err}");
    }
}

/// Lua's own `table.sort` picks pivots from the clock after a bad split: elements its order calls
/// equal came out in another order from one run to the next. The sandbox's sort is stable.
#[test]
fn table_sort_is_stable_and_the_same_in_every_run() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  local t = {}\n  for i = 1, 600 do t[i] = { k = 5, id = i } end\n  t[1].k, t[300].k, t[600].k = 0, 1, 2\n  table.sort(t, function(a, b) return a.k < b.k end)\n  local want = { 1, 300, 600 }\n  for i = 2, 599 do if i ~= 300 then want[#want + 1] = i end end\n  local ok = #want == 600\n  for i = 1, 600 do ok = ok and t[i].id == want[i] end\n  local s = { 3, 1, 2 }\n  table.sort(s)\n  ok = ok and s[1] == 1 and s[3] == 3\n  if not ok then error(\"not stable\") end\nend })\n",
    );
    assert_eq!(problems, "");
    for _ in 0..3 {
        assert_eq!(fight(&c, &mut host), Ok(1));
    }
    let (c, mut host, _) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  table.sort({ 1, 2 }, 3)\nend })\n",
    );
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(err.contains("bad argument #2 to 'sort'"), "{err}");
}

/// Weak tables by the back door: `__mode` added to a metatable after `setmetatable`.
#[test]
fn no_metatable_takes_gc_or_mode_after_it_is_set() {
    for add in [
        "local mt = {}\n  local w = setmetatable({}, mt)\n  mt.__mode = \"v\"",
        "local mt = {}\n  setmetatable({}, mt)\n  mt.__gc = function() end",
        "local base = {}\n  local mt = setmetatable({}, base)\n  local w = setmetatable({}, mt)\n  mt.__mode = \"k\"",
    ] {
        let (c, mut host, problems) = load(&format!(
            "ability(\"probe\", {{ plan_attacks = function(ctx, plan)\n  {add}\nend }})\n"
        ));
        assert_eq!(problems, "", "{add}");
        let err = fight(&c, &mut host).expect_err(add);
        assert!(
            err.contains("in a table used as a metatable"),
            "{add}\n{err}"
        );
    }
    // Any other key is set as Lua sets it, and the guard is no business of the script's.
    let (c, mut host, _) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  local mt = {}\n  local o = setmetatable({}, mt)\n  mt.__index = function() return 7 end\n  o.x = 1\n  if o.y ~= 7 or o.x ~= 1 or getmetatable(mt) ~= nil or getmetatable(o) ~= mt then error(\"changed\") end\nend })\n",
    );
    assert_eq!(fight(&c, &mut host), Ok(1));
}

/// The guard against `__mode` on a metatable that has a metatable of its own is a field of that
/// one, which a script can clear; a weak table made that way still shows no collection within a
/// call, since the collector runs only at reseed points. The plainer ways past the guards are
/// refused.
#[test]
fn a_weak_table_made_past_the_guards_keeps_its_values_within_a_call() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", { plan_attacks = function(ctx, plan)\n  local mt = setmetatable({}, {})\n  local w = setmetatable({}, mt)\n  getmetatable(mt).__newindex = nil\n  mt.__mode = \"v\"\n  w[1] = {}\n  for i = 1, 200000 do local junk = { i, i, i } end\n  if w[1] == nil then error(\"collected\") end\nend })\n",
    );
    assert_eq!(problems, "");
    for _ in 0..3 {
        assert_eq!(fight(&c, &mut host), Ok(1));
    }
    for (way, refused) in [
        (
            "local mt = {}\n  setmetatable({}, mt)\n  setmetatable(mt, nil)",
            "keeps the metatable the sandbox gave it",
        ),
        (
            "local mt = {}\n  setmetatable({}, mt)\n  setmetatable(mt, {})",
            "keeps the metatable the sandbox gave it",
        ),
        (
            "local t = {}\n  setmetatable(t, t)",
            "cannot be its own metatable",
        ),
        (
            "setmetatable({}, math)",
            "a read-only table (the library, a global) cannot be a metatable",
        ),
    ] {
        let (c, mut host, _) = load(&format!(
            "ability(\"probe\", {{ plan_attacks = function(ctx, plan)\n  {way}\nend }})\n"
        ));
        let err = fight(&c, &mut host).expect_err(way);
        assert!(err.contains(refused), "{way}\n{err}");
    }
}

/// A to-be-closed local's `__close` handler could run with the script's limits off while an
/// error unwinds (an endless loop there hung the host): a script declaring one is refused at
/// load, at its line, before any of it runs, and the other mods load.
#[test]
fn a_to_be_closed_local_is_refused_at_load_so_no_close_handler_can_hang_the_host() {
    let script = "ability(\"probe\", {\n  placed = function(ctx, fx)\n    local guard <close> = setmetatable({}, { __close = function() while true do end end })\n    while true do end\n  end,\n})\n";
    let (_, _, problems) = load(script);
    assert!(
        problems.contains("probe.lua:3:1: a to-be-closed local (`<close>`)"),
        "{problems}"
    );
    // At the top level too: refused before it runs, so loading cannot hang.
    let top = "local g <close> = setmetatable({}, { __close = function() while true do end end })\nerror(\"unwinding\")\n";
    let (_, _, problems) = load(top);
    assert!(
        problems.contains("probe.lua:1:1: a to-be-closed local"),
        "{problems}"
    );
}

/// A wrong argument to a host function is told in a modder's words: the object and method as
/// the script calls them (`ctx:tile_at`, not a Rust type), the argument as the script counts
/// them, what it must be and what it got; a method called with a dot is told to use a colon.
#[test]
fn a_wrong_argument_to_ctx_or_fx_is_told_in_the_scripts_words() {
    for (body, expected) in [
        (
            "ctx:tile_at(nil, 0)",
            "`ctx:tile_at`: argument 1: expected a whole number, got nil",
        ),
        (
            "ctx.hex()",
            "`ctx:hex` was called without its object (`ctx.hex(...)`): call a method with a colon, `ctx:hex(...)`",
        ),
    ] {
        let (c, mut host, problems) = load(&format!(
            "ability(\"probe\", {{\n  plan_attacks = function(ctx, plan)\n    {body}\n  end,\n}})\n"
        ));
        assert_eq!(problems, "", "{body}");
        let err = fight(&c, &mut host).expect_err(body);
        assert!(err.contains(expected), "{body}: {err}");
        assert!(!err.contains("Shared<"), "{body}: {err}");
        assert!(err.contains("probe.lua:3"), "{body}: {err}");
    }
}

/// An error raised inside the sandbox's own Lua (its stable `table.sort`) is told at the
/// script's line that called it, without the host's chunk and line.
#[test]
fn an_error_inside_a_library_function_is_told_at_the_scripts_line() {
    let (c, mut host, problems) = load(
        "ability(\"probe\", {\n  plan_attacks = function(ctx, plan)\n    table.sort({ 3, \"a\", 2 })\n  end,\n})\n",
    );
    assert_eq!(problems, "");
    let err = fight(&c, &mut host).expect_err("refused");
    assert!(err.contains("probe.lua:3"), "{err}");
    assert!(err.contains("attempt to compare"), "{err}");
    assert!(!err.contains("sandbox:"), "{err}");
}

/// An `initiative` hook returning what is not a whole number (1.5, "3", 0/0) is the script's
/// error, never a value cut down to fit.
#[test]
fn an_initiative_hook_returning_no_whole_number_is_refused() {
    for (value, shown) in [("1.5", "not 1.5"), ("\"3\"", "not \"3\""), ("0/0", "not ")] {
        let (c, mut host, problems) = load(&format!(
            "ability(\"probe\", {{\n  initiative = function(ctx)\n    return {value}\n  end,\n}})\n"
        ));
        assert_eq!(problems, "", "{value}");
        let err = fight(&c, &mut host).expect_err(value);
        assert!(
            err.contains("initiative returns a whole number from -9 to 9 (or nothing)")
                && err.contains(shown),
            "{value}: {err}"
        );
    }
    // A float that is a whole number is one.
    let (c, mut host, _) =
        load("ability(\"probe\", {\n  initiative = function(ctx)\n    return 1.0\n  end,\n})\n");
    fight(&c, &mut host).expect("1.0 is 1");
}
