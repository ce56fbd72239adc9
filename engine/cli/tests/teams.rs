//! `hexforge match --team`: games of one player against a team (R8.4) and of two teams of two
//! (R8.5) play to their end, record their teams in the replay's `teams` line, and replay and
//! verify; team lists that make no game are refused with the engine's reason; `hexforge matches
//! --team` plays a series of one lineup of teams and counts each team's wins.

use std::path::{Path, PathBuf};

mod common;

fn hexforge(args: &[&str]) -> (bool, String) {
    common::run(args, None)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("hexforge-teams-{}-{name}", std::process::id()))
}

/// Plays and records a match of `armies` with `--team teams`; its log and the replay file.
fn record(name: &str, armies: &[&str], teams: &str, rules: &str) -> (String, PathBuf) {
    let file = temp(name);
    let path = file.to_string_lossy().to_string();
    let mut args = vec!["match"];
    for a in armies {
        args.extend(["--army", a]);
    }
    args.extend([
        "--team", teams, "--bot", "greedy", "--rules", rules, "--seed", "5", "--replay", &path,
    ]);
    let (ok, log) = hexforge(&args);
    assert!(ok, "{log}");
    (log, file)
}

/// The replay plays again to the same log and verifies every state.
fn replays_the_same(log: &str, file: &Path) {
    let (ok, replayed) = hexforge(&["replay", &file.to_string_lossy(), "--verify"]);
    assert!(ok, "{replayed}");
    assert!(replayed.contains("verified: "), "{replayed}");
    let body = |t: &str, skip: usize| -> Vec<String> {
        t.lines()
            .skip(skip)
            .filter(|l| !l.starts_with("verified"))
            .map(String::from)
            .collect()
    };
    assert_eq!(body(log, 3), body(&replayed, 2));
}

#[test]
fn two_teams_of_two_play_to_the_end_record_their_teams_and_verify() {
    for rules in ["v3", "v2025"] {
        let (log, file) = record(
            &format!("2v2-{rules}"),
            &["moloch", "borgo", "outpost", "hegemony"],
            "1,2,1,2",
            rules,
        );
        let text = std::fs::read_to_string(&file).expect("replay");
        assert!(text.lines().any(|l| l == "teams 0 1 0 1"), "{text}");
        assert!(text.trim_end().ends_with("end"), "the game ended");
        // R8.5.6: a side wins together (or the game is drawn).
        let result = log
            .lines()
            .find(|l| l.starts_with("Result: "))
            .expect("result");
        assert!(
            result.contains("moloch and outpost won")
                || result.contains("borgo and hegemony won")
                || result.contains("draw"),
            "{result}"
        );
        replays_the_same(&log, &file);
        let _ = std::fs::remove_file(file);
    }
}

#[test]
fn one_against_a_team_plays_to_the_end_records_and_verifies() {
    for rules in ["v3", "v2025"] {
        let (log, file) = record(
            &format!("1v2-{rules}"),
            &["borgo", "moloch", "outpost"],
            "a,b,b",
            rules,
        );
        let text = std::fs::read_to_string(&file).expect("replay");
        assert!(text.lines().any(|l| l == "teams 0 1 1"), "{text}");
        // R8.4.1: the lone HQ starts at 20, the team's at 13 each.
        let result = log
            .lines()
            .find(|l| l.starts_with("Result: "))
            .expect("result");
        assert!(
            result.contains("borgo won")
                || result.contains("moloch and outpost won")
                || result.contains("draw"),
            "{result}"
        );
        replays_the_same(&log, &file);
        let _ = std::fs::remove_file(file);
    }
}

#[test]
fn a_replay_without_a_teams_line_seats_every_player_alone() {
    let (log, file) = record("alone", &["moloch", "borgo", "outpost"], "1,2,3", "v3");
    let text = std::fs::read_to_string(&file).expect("replay");
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("teams "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(text, without, "the line was written");
    std::fs::write(&file, without).expect("write");
    replays_the_same(&log, &file);
    let _ = std::fs::remove_file(file);
}

#[test]
fn team_lists_that_make_no_game_are_refused_with_the_rule() {
    let four = ["moloch", "borgo", "outpost", "hegemony"];
    let mut args = vec!["match"];
    for a in four {
        args.extend(["--army", a]);
    }
    let with = |teams: &'static str| {
        let mut a = args.clone();
        a.extend(["--team", teams, "--quiet"]);
        hexforge(&a)
    };
    let (ok, out) = with("1,1,2,2");
    assert!(!ok);
    assert!(out.contains("R8.5.3"), "{out}");
    let (ok, out) = with("1,2,3,3");
    assert!(!ok);
    assert!(out.contains("make no game mode"), "{out}");
    let (ok, out) = with("1,2");
    assert!(!ok);
    assert!(out.contains("one team per --army"), "{out}");
    let (ok, out) = hexforge(&[
        "matches", "--army", "moloch", "--team", "1,2", "--games", "1",
    ]);
    assert!(!ok);
    assert!(out.contains("2 teams for 1 armies"), "{out}");
    let (ok, out) = hexforge(&[
        "matches", "--army", "moloch", "--army", "borgo", "--army", "outpost", "--army",
        "hegemony", "--team", "1,1,2,2", "--games", "3",
    ]);
    assert!(!ok);
    assert!(
        out.contains("R8.5.3") && !out.contains("games; bots"),
        "refused once, before any game: {out}"
    );
}

#[test]
fn a_series_of_team_games_counts_each_teams_wins() {
    let (ok, out) = hexforge(&[
        "matches", "--army", "moloch", "--army", "borgo", "--army", "outpost", "--army",
        "hegemony", "--team", "a,b,a,b", "--games", "6", "--seed", "4",
    ]);
    assert!(ok, "{out}");
    assert!(
        out.contains("6 games; bots random, random, random, random; rules v3; seed 4"),
        "{out}"
    );
    // The number `back` words from the end of the line that starts with `label`.
    let number = |label: &str, back: usize| -> usize {
        let line = out
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no line `{label}`: {out}"));
        line.split_whitespace()
            .nth_back(back)
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("no number in `{line}`"))
    };
    let (a, b, draws) = (
        number("1: moloch + outpost", 1),
        number("2: borgo + hegemony", 1),
        number("draws", 0),
    );
    assert_eq!(a + b + draws, 6, "every game counted once: {out}");
    assert!(!out.contains("error:"), "{out}");
}

#[test]
fn a_bad_teams_line_is_refused_at_its_line() {
    let (_, file) = record("badline", &["moloch", "borgo", "outpost"], "1,2,2", "v3");
    let text = std::fs::read_to_string(&file).expect("replay");
    let line = text
        .lines()
        .position(|l| l.starts_with("teams "))
        .expect("teams line")
        + 1;
    for (bad, says) in [
        ("teams 0 1", "2 teams for 3 seats"),
        ("teams 0 x 1", "numbers from 0 to 7"),
        ("teams 0 0 0", "make no game mode"),
    ] {
        let changed: String = text
            .lines()
            .map(|l| if l.starts_with("teams ") { bad } else { l })
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&file, changed).expect("write");
        let (ok, out) = hexforge(&["replay", &file.to_string_lossy(), "--verify"]);
        assert!(!ok, "{bad}: {out}");
        assert!(out.contains(&format!("line {line}")), "{bad}: {out}");
        assert!(out.contains(says), "{bad}: {out}");
    }
    let _ = std::fs::remove_file(file);
}
