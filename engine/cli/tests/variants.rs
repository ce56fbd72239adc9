//! The variant mods from the command line (docs/VARIANTS.md): `--option leaders=true` (R9.4) and
//! an Atlas-style mission, `--board ID --option atlas_map=ID` (R9.5), play whole matches that
//! record and verify (`hexforge replay --verify`); a mission off its board is refused with what
//! to add.

use std::path::PathBuf;

mod common;

fn hexforge(args: &[&str]) -> (bool, String) {
    common::run(args, None)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("hexforge-variants-{}-{name}", std::process::id()))
}

/// Plays a match of moloch and borgo with `extra` arguments, records it and verifies the replay;
/// returns the match log.
fn match_and_verify(name: &str, bots: [&str; 2], extra: &[&str]) -> String {
    let file = temp(name);
    let path = file.to_string_lossy().to_string();
    let mut args = vec![
        "match", "--army", "moloch", "--army", "borgo", "--bot", bots[0], "--bot", bots[1],
        "--seed", "5", "--replay", &path,
    ];
    args.extend_from_slice(extra);
    let (ok, log) = hexforge(&args);
    assert!(ok && log.contains("\nResult: "), "{log}");
    let (ok, out) = hexforge(&["replay", &path, "--verify"]);
    assert!(ok, "{out}");
    let _ = std::fs::remove_file(file);
    log
}

#[test]
fn a_leaders_match_deals_picks_and_verifies() {
    let log = match_and_verify(
        "leaders",
        ["greedy", "random"],
        &["--option", "leaders=true"],
    );
    assert!(log.contains("moloch takes pick_"), "{log}");
    assert!(log.contains("borgo takes pick_"), "{log}");
    assert!(log.contains("is marked `leader_offer`"), "{log}");
}

#[test]
fn an_atlas_mission_plays_on_its_board_and_verifies() {
    for (mission, bots) in [
        ("ashen_crossing", ["random", "greedy"]),
        ("beacon_hill", ["greedy", "random"]),
    ] {
        let option = format!("atlas_map={mission}");
        let log = match_and_verify(mission, bots, &["--board", mission, "--option", &option]);
        assert!(log.contains("Result: "), "{log}");
    }
    let (ok, out) = hexforge(&[
        "match",
        "--army",
        "moloch",
        "--army",
        "borgo",
        "--quiet",
        "--option",
        "atlas_map=beacon_hill",
    ]);
    assert!(!ok, "{out}");
    assert!(
        out.contains(
            "the mission `beacon_hill` is played on its own board: add `--board beacon_hill`"
        ),
        "{out}"
    );
    let (ok, out) = hexforge(&[
        "rules",
        "--board",
        "beacon_hill",
        "--option",
        "atlas_map=beacon_hill",
    ]);
    assert!(
        ok && out.contains(
            "battle_loop_guard = \"no_removal_draw\"  # implied by atlas_map, atlas_no_removal_draw (mod atlas), engine"
        ),
        "{out}"
    );
}

#[test]
fn a_monolith_arena_match_hides_deploys_folds_and_verifies_in_another_process() {
    let log = match_and_verify(
        "monolith",
        ["greedy", "random"],
        &["--rules", "monolith_arena"],
    );
    // R10.6.1: two tiles hidden by each player before their banner.
    assert_eq!(log.matches(" takes hide on ").count(), 4, "{log}");
    assert!(log.contains("takes deploy_2 on"), "{log}");
    assert!(log.contains("monolith 1 stands on"), "{log}");
    assert!(log.contains("goes back to the reserve of"), "{log}");
}
