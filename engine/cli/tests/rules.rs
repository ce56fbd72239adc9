//! `hexforge rules`: every rule option with its value and where the value comes from, and
//! `--option` routed to the options mods declare.

mod common;

fn hexforge(args: &[&str]) -> (bool, String) {
    common::run(args, None)
}

#[test]
fn rules_lists_every_key_with_its_value_and_source() {
    let (ok, out) = hexforge(&[
        "rules",
        "--rules",
        "classic",
        "--option",
        "tie_breaker=extra_turn_then_battle",
        "--option",
        "clown_explosion_mode=adjacent_incl_hqs",
    ]);
    assert!(ok, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    for want in [
        "hq_hp = 20  # default, engine",
        "bad_draw_rule = false  # preset classic, engine",
        "tie_breaker = \"extra_turn_then_battle\"  # --option, engine",
        "clown_explosion_mode = \"adjacent_incl_hqs\"  # --option, mod base",
        "moloch_aoe_tile_name = \"bomb\"  # preset classic, mod base",
    ] {
        assert!(lines.contains(&want), "{want}\n---\n{out}");
    }
    // The engine's keys first, then the declared ones by key: the same output every time.
    let first_declared = lines.iter().position(|l| l.ends_with("mod base"));
    assert!(first_declared.is_some_and(|i| lines[i..].iter().all(|l| !l.ends_with("engine"))));
    assert_eq!(
        hexforge(&[
            "rules",
            "--rules",
            "classic",
            "--option",
            "tie_breaker=extra_turn_then_battle",
            "--option",
            "clown_explosion_mode=adjacent_incl_hqs"
        ])
        .1,
        out
    );
}

#[test]
fn an_unknown_option_lists_the_engine_keys_and_the_declared_ones_with_their_mod() {
    let (ok, out) = hexforge(&["rules", "--option", "clown_mode=as_bomb_no_hqs"]);
    assert!(!ok);
    assert!(
        out.contains("unknown rule option `clown_mode`")
            && out.contains("use a known rule option key: the engine's hq_hp, ")
            && out.contains("clown_explosion_mode (mod base)"),
        "{out}"
    );
    let (ok, out) = hexforge(&["rules", "--option", "clown_explosion_mode=loud"]);
    assert!(!ok);
    assert!(
        out.contains(
            "rule option `clown_explosion_mode` expects one of adjacent_incl_hqs | as_bomb_no_hqs, found \"loud\""
        ),
        "{out}"
    );
}

#[test]
fn a_declared_option_set_on_the_command_line_reaches_a_match() {
    let (ok, out) = hexforge(&[
        "match",
        "--army",
        "moloch",
        "--army",
        "borgo",
        "--bot",
        "greedy",
        "--seed",
        "3",
        "--quiet",
        "--option",
        "clown_explosion_mode=as_bomb_no_hqs",
    ]);
    assert!(ok && out.starts_with("Result: "), "{out}");
}

#[test]
fn a_declared_option_games_do_not_play_yet_is_refused_by_name() {
    // A mod that declares an expansion it does not play yet (`played = false`).
    let dir = std::env::temp_dir().join(format!("hexforge-unplayed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("unplayed")).expect("mod dir");
    std::fs::write(
        dir.join("unplayed/mod.toml"),
        "id = \"unplayed\"\nname = \"Unplayed\"\nversion = \"1.0.0\"\nhexforge = \"^0.2\"\n",
    )
    .expect("manifest");
    std::fs::write(
        dir.join("unplayed/options.toml"),
        "[[option]]\nkey = \"siege_towers\"\ntype = \"bool\"\ndefault = false\ndoc = \"Not played yet.\"\nplayed = false\n",
    )
    .expect("options");
    // The folder is the user mods folder: loaded after the checkout's mods.
    let (ok, out) = common::run(
        &[
            "match",
            "--army",
            "moloch",
            "--army",
            "borgo",
            "--quiet",
            "--option",
            "siege_towers=true",
        ],
        Some(&dir),
    );
    assert!(!ok);
    assert!(
        out.contains(
            "the rule option `siege_towers` is not supported in whole games yet; turn it off to play"
        ),
        "{out}"
    );
    let (ok, out) = common::run(&["rules", "--option", "siege_towers=true"], Some(&dir));
    assert!(
        ok && out.contains("siege_towers = true  # --option, mod unplayed"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
