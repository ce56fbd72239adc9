//! `hexforge match --replay` and `hexforge replay`: a recorded game replays to the same log and
//! the same states; tampering is caught at the step it touches; cut and garbage files are read
//! with clear messages.

use std::path::PathBuf;

mod common;

fn hexforge(args: &[&str]) -> (bool, String) {
    common::run(args, None)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("hexforge-replay-{}-{name}", std::process::id()))
}

/// Records a match; its log and the replay file.
fn record(name: &str, armies: [&str; 2], seed: &str) -> (String, PathBuf) {
    let file = temp(name);
    let path = file.to_string_lossy().to_string();
    let (ok, log) = hexforge(&[
        "match", "--army", armies[0], "--army", armies[1], "--bot", "greedy", "--bot", "random",
        "--seed", seed, "--replay", &path,
    ]);
    assert!(ok, "{log}");
    (log, file)
}

#[test]
fn a_recorded_match_replays_to_the_same_log_and_verifies() {
    for (i, (armies, seed)) in [(["moloch", "borgo"], "7"), (["scrappers", "outpost"], "11")]
        .into_iter()
        .enumerate()
    {
        let (log, file) = record(&format!("same{i}"), armies, seed);
        let (ok, replayed) = hexforge(&["replay", &file.to_string_lossy(), "--verify"]);
        assert!(ok, "{replayed}");
        // The same lines after the headers (the match names its bots, the replay its version).
        let body = |t: &str, skip: usize| -> Vec<String> {
            t.lines()
                .skip(skip)
                .filter(|l| !l.starts_with("verified"))
                .map(String::from)
                .collect()
        };
        assert_eq!(body(&log, 3), body(&replayed, 2));
        assert!(replayed.contains("verified: "), "{replayed}");
        let _ = std::fs::remove_file(file);
    }
}

#[test]
fn tampering_is_caught_at_the_step_it_touches() {
    let (_, file) = record("tamper", ["moloch", "hegemony"], "5");
    let text = std::fs::read_to_string(&file).expect("replay");
    let path = file.to_string_lossy().to_string();
    // A changed action: the first HQ goes on another hex.
    let lines: Vec<&str> = text.lines().collect();
    let actions: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("action "))
        .collect();
    let hq = lines[actions[0]];
    // `action place ARMY/hq Q R F`: the same HQ on another hex is legal, but another state.
    let words: Vec<&str> = hq.split_whitespace().collect();
    assert_eq!(words[..2], ["action", "place"], "{hq}");
    let other = if (words[3], words[4]) == ("0", "0") {
        "1 0"
    } else {
        "0 0"
    };
    let moved = format!("action place {} {other} {}", words[2], words[5]);
    std::fs::write(&file, text.replacen(hq, &moved, 1)).expect("write");
    let (ok, out) = hexforge(&["replay", &path, "--verify", "--quiet"]);
    assert!(!ok, "{out}");
    assert!(out.contains("diverged at step 1 "), "{out}");
    // A changed seed: the shuffles differ, caught within the first draws.
    let seed_line = text.lines().find(|l| l.starts_with("seed ")).expect("seed");
    std::fs::write(&file, text.replacen(seed_line, "seed 12345", 1)).expect("write");
    let (ok, out) = hexforge(&["replay", &path, "--verify", "--quiet"]);
    assert!(!ok && out.contains("diverged at step "), "{out}");
    // A changed board after a battle phase: caught at that phase.
    let phase_line = text
        .lines()
        .find(|l| l.starts_with("phase "))
        .expect("a battle was fought");
    std::fs::write(
        &file,
        text.replacen(phase_line, "phase 0000000000000001", 1),
    )
    .expect("write");
    let (ok, out) = hexforge(&["replay", &path, "--verify", "--quiet"]);
    assert!(
        !ok && out.contains(", battle phase 1 of the action: expected board 0000000000000001"),
        "{out}"
    );
    // A changed mod: refused with the mod named, unless forced.
    let mod_line = text
        .lines()
        .find(|l| l.starts_with("mod base "))
        .expect("mod");
    std::fs::write(
        &file,
        text.replacen(mod_line, "mod base 1.0.0 00000000000000ff", 1),
    )
    .expect("write");
    let (ok, out) = hexforge(&["replay", &path, "--verify", "--quiet"]);
    assert!(
        !ok && out.contains("`base` was 1.0.0 #00000000000000ff"),
        "{out}"
    );
    let (ok, out) = hexforge(&["replay", &path, "--verify", "--quiet", "--force"]);
    assert!(ok && out.contains("warning: the mods differ"), "{out}");
    let _ = std::fs::remove_file(file);
}

#[test]
fn a_replay_names_the_files_of_a_mod_that_differ_in_play_with_no_copy_of_the_recorded_version() {
    // The mods of the checkout copied, a match recorded with them, then one army file changed
    // in play and another given a comment: no shelf and no portal holds the version it was
    // recorded with, yet the refusal names the file that changed, and only that one.
    let dir = temp("files");
    let mods = dir.join("mods");
    common::copy(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods"),
        &mods,
    );
    let m = mods.to_string_lossy().to_string();
    let file = dir.join("game.txt");
    let path = file.to_string_lossy().to_string();
    let (ok, log) = hexforge(&[
        "--mods", &m, "match", "--army", "moloch", "--army", "borgo", "--bot", "random", "--bot",
        "random", "--seed", "5", "--replay", &path,
    ]);
    assert!(ok, "{log}");
    let text = std::fs::read_to_string(&file).expect("replay");
    assert!(text.contains("\nfile base "), "{text}");
    // A tile of an army not in the game made tougher; a comment added to another army's file.
    let armies = mods.join("base/armies");
    let hegemony = armies.join("hegemony.toml");
    let data = std::fs::read_to_string(&hegemony).expect("hegemony.toml");
    assert!(data.contains("toughness = 1"), "{data}");
    std::fs::write(
        &hegemony,
        data.replacen("toughness = 1", "toughness = 2", 1),
    )
    .expect("write");
    let borgo = armies.join("borgo.toml");
    let data = std::fs::read_to_string(&borgo).expect("borgo.toml");
    std::fs::write(
        &borgo,
        format!("{data}\n# a comment changes nothing in play\n"),
    )
    .expect("write");
    let (ok, out) = hexforge(&["--mods", &m, "replay", &path, "--verify", "--quiet"]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("; in play, armies/hegemony.toml changed"),
        "{out}"
    );
    assert!(!out.contains("borgo.toml"), "a comment is no change: {out}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cut_and_garbage_files_are_read_with_clear_messages() {
    let (_, file) = record("cut", ["borgo", "outpost"], "3");
    let text = std::fs::read_to_string(&file).expect("replay");
    let path = file.to_string_lossy().to_string();
    std::fs::write(&file, &text[..text.len() * 2 / 3]).expect("write");
    let (ok, out) = hexforge(&["replay", &path, "--verify", "--quiet"]);
    assert!(ok, "{out}");
    assert!(out.contains("the replay stops after step"), "{out}");
    std::fs::write(&file, "PK\u{3}\u{4} not a replay").expect("write");
    let (ok, out) = hexforge(&["replay", &path]);
    assert!(!ok && out.contains("not a Hexforge replay"), "{out}");
    let broken = text.replacen("action ", "action fly ", 1);
    // The first action's line follows the header, whose length depends on the mods loaded.
    let first = 1 + text
        .lines()
        .position(|l| l.starts_with("action "))
        .expect("an action");
    std::fs::write(&file, broken).expect("write");
    let (ok, out) = hexforge(&["replay", &path]);
    assert!(
        !ok && out.contains(&format!(": line {first}: unknown action `fly")),
        "{out}"
    );
    let _ = std::fs::remove_file(file);
}

#[test]
fn a_replay_naming_an_army_that_is_not_loaded_gives_its_line_and_the_loaded_armies() {
    let (_, file) = record("molloch", ["moloch", "borgo"], "1");
    let text = std::fs::read_to_string(&file).expect("replay");
    let path = file.to_string_lossy().to_string();
    let line = text
        .lines()
        .position(|l| l == "seat moloch")
        .expect("seat line")
        + 1;
    std::fs::write(&file, text.replacen("seat moloch", "seat molloch", 1)).expect("write");
    let (ok, out) = hexforge(&["replay", &path]);
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!(
            "{path}: line {line}: no army `molloch` is loaded; did you mean `moloch`? Loaded: borgo, hegemony, moloch, outpost, "
        )),
        "{out}"
    );
    std::fs::write(&file, b"hexforge-replay 2\nengine \xff\n").expect("write");
    let (ok, out) = hexforge(&["replay", &path]);
    assert!(
        !ok && out.contains(&format!(
            "{path}:2:8: line 2, byte 25: this replay is not UTF-8 text; save it as UTF-8"
        )),
        "{out}"
    );
    let _ = std::fs::remove_file(file);
}

#[test]
fn a_thousand_recorded_games_verify_in_another_process() {
    // Every pairing of the loaded armies (the base armies and the fan army), 1,000 seeded games
    // recorded by one process and verified by another.
    let dir = temp("thousand");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_string_lossy().to_string();
    let (ok, out) = hexforge(&["matches", "--games", "1000", "--seed", "9", "--replays", &d]);
    assert!(ok, "{out}");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("replays")
        .filter_map(|e| e.ok().map(|e| e.path().to_string_lossy().to_string()))
        .collect();
    files.sort();
    assert_eq!(files.len(), 1000);
    let scrappers = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains("\nseat scrappers\n")))
        .count();
    assert!(scrappers > 100, "the fan army plays: {scrappers} games");
    let mut args = vec!["replay", "--verify"];
    args.extend(files.iter().map(String::as_str));
    let (ok, out) = hexforge(&args);
    assert!(ok, "{out}");
    assert!(out.ends_with("1000 verified, 0 failed\n"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_replay_step_becomes_a_scenario_that_passes() {
    let (_, file) = record("scenario", ["scrappers", "moloch"], "4");
    let path = file.to_string_lossy().to_string();
    let out_file = temp("scenario.toml");
    let out_path = out_file.to_string_lossy().to_string();
    for at in ["20", "45"] {
        let (ok, out) = hexforge(&[
            "replay",
            &path,
            "--quiet",
            "--at",
            at,
            "--to-scenario",
            &out_path,
        ]);
        assert!(ok, "{out}");
        assert!(out.contains(&format!("the board after step {at}")), "{out}");
        let text = std::fs::read_to_string(&out_file).expect("scenario");
        assert!(text.contains("[expect]"), "{text}");
        let (ok, out) = hexforge(&["scenario", &out_path]);
        assert!(ok && out.ends_with("1 passed, 0 failed\n"), "{out}\n{text}");
    }
    let (ok, out) = hexforge(&[
        "replay",
        &path,
        "--at",
        "100000",
        "--to-scenario",
        &out_path,
    ]);
    assert!(!ok && out.contains("is past its"), "{out}");
    let _ = std::fs::remove_file(file);
    let _ = std::fs::remove_file(out_file);
}
