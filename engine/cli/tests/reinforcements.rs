//! The Reinforcements variant (R9.2) played from the base mod's data: each mode's whole games,
//! between the random, greedy and Monte-Carlo bots, end with a result, hands of up to 6 tiles,
//! and replay to the same states (`hexforge replay --verify`); `hexforge rules` names the keys
//! each mode implies.

use std::path::PathBuf;

mod common;

fn hexforge(args: &[&str]) -> (bool, String) {
    common::run(args, None)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "hexforge-reinforcements-{}-{name}",
        std::process::id()
    ))
}

/// The most tiles one player drew in one turn of a match log (`Turn N: army`, then `army draws
/// Tile` lines).
fn most_drawn_in_a_turn(log: &str) -> usize {
    let mut most = 0;
    let mut run = 0;
    for line in log.lines() {
        if line.starts_with("Turn ") {
            run = 0;
        } else if line.contains(" draws ") {
            run += 1;
            most = most.max(run);
        }
    }
    most
}

#[test]
fn every_mode_plays_whole_games_that_replay_and_verify() {
    for (mode, bots, seed) in [
        ("v3", ["random", "greedy"], "3"),
        ("v3", ["mc", "random"], "4"),
        ("v2025", ["greedy", "random"], "5"),
        ("v2025", ["random", "mc"], "6"),
        ("monolith", ["random", "random"], "7"),
        ("monolith", ["greedy", "mc"], "8"),
    ] {
        let file = temp(&format!("{mode}-{seed}"));
        let path = file.to_string_lossy().to_string();
        let option = format!("reinforcements_mode={mode}");
        let (ok, log) = hexforge(&[
            "match",
            "--army",
            "moloch",
            "--army",
            "borgo",
            "--bot",
            bots[0],
            "--bot",
            bots[1],
            "--seed",
            seed,
            "--option",
            "reinforcements=true",
            "--option",
            &option,
            "--replay",
            &path,
        ]);
        assert!(ok, "{mode} {bots:?}: {log}");
        assert!(
            log.contains("Result: "),
            "{mode} {bots:?}: no result\n{log}"
        );
        // Hands of 6 (R9.2): some turn draws more than the 3 of the base game.
        assert!(most_drawn_in_a_turn(&log) > 3, "{mode} {bots:?}\n{log}");
        let text = std::fs::read_to_string(&file).expect("the replay");
        assert!(
            text.contains("option reinforcements=true") && text.contains(&option),
            "{text}"
        );
        let (ok, replayed) = hexforge(&["replay", &path, "--verify"]);
        assert!(ok, "{mode} {bots:?}: {replayed}");
        assert!(replayed.contains("verified: "), "{replayed}");
        let _ = std::fs::remove_file(file);
    }
}

#[test]
fn the_monolith_first_turn_draws_six_and_places_one_tile() {
    let (ok, log) = hexforge(&[
        "match",
        "--army",
        "outpost",
        "--army",
        "hegemony",
        "--bot",
        "greedy",
        "--bot",
        "greedy",
        "--seed",
        "9",
        "--option",
        "reinforcements=true",
        "--option",
        "reinforcements_mode=monolith",
    ]);
    assert!(ok, "{log}");
    let first: Vec<&str> = log
        .lines()
        .skip_while(|l| !l.starts_with("Turn 1:"))
        .skip(1)
        .take_while(|l| !l.starts_with("Turn 2:"))
        .collect();
    let drawn = first.iter().filter(|l| l.contains(" draws ")).count();
    let placed = first.iter().filter(|l| l.contains(" is placed ")).count();
    assert_eq!(drawn, 6, "{}", first.join("\n"));
    assert!(placed <= 1, "{}", first.join("\n"));
}

#[test]
fn rules_shows_the_keys_each_mode_implies_and_an_explicit_key_over_them() {
    let (ok, out) = hexforge(&[
        "rules",
        "--rules",
        "v2025",
        "--option",
        "reinforcements=true",
        "--option",
        "tiles_per_turn=3",
    ]);
    assert!(ok, "{out}");
    for line in [
        "hand_size = 6  # implied by reinforcements, reinforcements_mode (mod base), engine",
        "tiles_per_turn = 3  # --option, engine",
        "extra_discards = \"counted\"  # implied by reinforcements, reinforcements_mode (mod base), engine",
        "bad_draw_full_hand = true  # implied by reinforcements, reinforcements_mode (mod base), engine",
        "alternative_start = false  # default, engine",
        "reinforcements = true  # --option, mod base",
        "reinforcements_mode = \"v2025\"  # preset v2025, mod base",
    ] {
        assert!(out.lines().any(|l| l == line), "no `{line}` in\n{out}");
    }
    let (ok, out) = hexforge(&["rules"]);
    assert!(ok, "{out}");
    assert!(
        out.lines().any(|l| l == "hand_size = 3  # default, engine"),
        "{out}"
    );
}
