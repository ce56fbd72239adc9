//! `hexforge balance` as a designer runs it: the tables with 95% intervals, result files and CSV,
//! four shards merged giving exactly one run, and every bad input refused with nothing merged.

mod common;

use std::path::{Path, PathBuf};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hexforge-balance-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp folder");
    d
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temp path")
}

const ARMIES: [&str; 6] = ["--army", "moloch", "--army", "borgo", "--army", "outpost"];

/// `hexforge balance` on the three armies with `more` arguments.
fn balance(more: &[&str]) -> (bool, String) {
    let mut args = vec!["balance"];
    args.extend(ARMIES);
    args.extend(more);
    common::run(&args, None)
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("a result file")).expect("JSON")
}

#[test]
fn four_shards_merged_equal_one_run() {
    let dir = temp("shards");
    let all = dir.join("all.json");
    let report = dir.join("report.html");
    let (ok, out) = balance(&[
        "--games",
        "36",
        "--seed",
        "4",
        "--out",
        path(&all),
        "--csv",
        path(&dir.join("all.csv")),
        "--svg",
        path(&dir.join("charts")),
        "--html",
        path(&report),
    ]);
    assert!(ok, "{out}");
    assert!(out.starts_with("36 games; bots greedy vs greedy"), "{out}");
    assert!(out.contains("95% intervals (Wilson)"), "{out}");
    assert!(out.contains("first seat wins "), "{out}");
    // The charts, drawn with a plotting crate, and one page holding everything.
    let heatmap = std::fs::read_to_string(dir.join("charts/heatmap.svg")).expect("the heatmap");
    assert!(
        heatmap.starts_with("<svg") && heatmap.contains("\nmoloch\n"),
        "{heatmap}"
    );
    let html = std::fs::read_to_string(&report).expect("the report");
    assert!(html.contains("<div id=\"heatmap\"><svg"), "{html}");
    assert!(html.contains("borgo vs outpost"), "{html}");
    assert!(
        !html.contains("src=") && !html.contains("<link"),
        "self-contained: {html}"
    );
    let csv = std::fs::read_to_string(dir.join("all.csv")).expect("the CSV");
    assert!(csv.starts_with("army_a,army_b,games,a_wins,"), "{csv}");
    assert_eq!(csv.lines().count(), 4, "a header and three pairings: {csv}");
    let mut shards = Vec::new();
    for i in 1..=4 {
        let f = dir.join(format!("shard{i}.json"));
        let (ok, out) = balance(&[
            "--games",
            "36",
            "--seed",
            "4",
            "--shard",
            &format!("{i}/4"),
            "--out",
            path(&f),
        ]);
        assert!(ok, "{out}");
        shards.push(f);
    }
    let merged = dir.join("merged.json");
    let mut args = vec!["balance", "merge"];
    args.extend(shards.iter().map(|f| path(f)));
    args.extend(["--out", path(&merged)]);
    let (ok, out) = common::run(&args, None);
    assert!(ok, "{out}");
    let (a, m) = (json(&all), json(&merged));
    assert_eq!(a["pairings"], m["pairings"]);
    assert_eq!(a["by_bot"], m["by_bot"]);
    assert_eq!(a["tiles"], m["tiles"]);
    // Every tile of the three armies is followed; an HQ is placed in every game of its army
    // (each army plays 24 of the 36 games).
    let tiles = a["tiles"].as_array().expect("tiles");
    let hq = tiles
        .iter()
        .find(|t| t["tile"] == "moloch/hq")
        .unwrap_or_else(|| panic!("{tiles:?}"));
    assert_eq!(
        (hq["placed_games"].as_u64(), hq["unplaced_games"].as_u64()),
        (Some(24), Some(0))
    );
    assert!(
        tiles.iter().any(|t| t["kills"].as_u64() > Some(0))
            && tiles.iter().any(|t| t["hq_damage"].as_u64() > Some(0)),
        "kills and HQ damage are credited to some tile"
    );
    assert_eq!(m["shards"], serde_json::json!([1, 2, 3, 4]));
    // The same tables as one run's (but the content line the merge has no mods to print).
    let one = balance(&["--games", "36", "--seed", "4"]).1;
    assert!(one.starts_with(&out), "{one}\n---\n{out}");

    // Refused, nothing merged: a shard twice, one missing, another series.
    let (ok, e) = common::run(
        &["balance", "merge", path(&shards[0]), path(&shards[0])],
        None,
    );
    assert!(!ok && e.contains("shard 1/4 is given twice"), "{e}");
    let (ok, e) = common::run(
        &["balance", "merge", path(&shards[0]), path(&shards[1])],
        None,
    );
    assert!(
        !ok && e.contains("shards 3/4, 4/4 are missing; nothing was merged"),
        "{e}"
    );
    let other = dir.join("other.json");
    let (ok, out) = balance(&[
        "--games",
        "36",
        "--seed",
        "5",
        "--shard",
        "2/4",
        "--out",
        path(&other),
    ]);
    assert!(ok, "{out}");
    let (ok, e) = common::run(&["balance", "merge", path(&shards[0]), path(&other)], None);
    assert!(
        !ok && e.contains("are not shards of one series: their seeds differ; nothing was merged"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_bots_each_play_every_army_and_bad_input_is_refused() {
    let (ok, out) = balance(&[
        "--games", "48", "--seed", "2", "--bot", "random", "--bot", "greedy",
    ]);
    assert!(ok, "{out}");
    let bots = out
        .lines()
        .find(|l| l.starts_with("bots: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(bots.starts_with("bots: random wins "), "{bots}");
    for army in ["moloch", "borgo", "outpost"] {
        let row = out
            .lines()
            .find(|l| l.starts_with(&format!("{army} ")) && !l.contains(" vs "))
            .unwrap_or_else(|| panic!("no row for {army}:\n{out}"));
        let rate: f64 = row
            .split_whitespace()
            .nth(2)
            .and_then(|r| r.trim_end_matches('%').parse().ok())
            .expect("a rate");
        assert!((20.0..=80.0).contains(&rate), "{army}: {row}\n{out}");
    }
    let (ok, e) = balance(&["--shard", "5/4"]);
    assert!(
        !ok && e.contains("--shard 5/4: write I/N with 1 <= I <= N"),
        "{e}"
    );
    let (ok, e) = common::run(&["balance", "--army", "molloch", "--army", "borgo"], None);
    assert!(!ok && e.contains("did you mean `moloch`"), "{e}");
    let (ok, e) = balance(&["--bot", "greddy"]);
    assert!(!ok && e.contains("unknown bot `greddy`"), "{e}");
    let dir = temp("bad");
    let not_one = dir.join("x.json");
    std::fs::write(&not_one, "{\"hello\": 1}").expect("written");
    let (ok, e) = common::run(&["balance", "merge", path(&not_one)], None);
    assert!(!ok && e.contains("is not a balance result file"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Copies the folder `from` to `to` (files and folders).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for e in std::fs::read_dir(from).expect("readable").flatten() {
        let (p, target) = (e.path(), to.join(e.file_name()));
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).expect("copied");
        }
    }
}

#[test]
fn a_tweak_is_compared_on_the_same_seeds_with_what_changed_named() {
    let dir = temp("against");
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/base");
    let tweaked = dir.join("base");
    copy_dir(&base, &tweaked);
    let army = tweaked.join("armies/moloch.toml");
    let text = std::fs::read_to_string(&army).expect("the army");
    let at = text.find("id = \"juggernaut\"").expect("the Juggernaut");
    let tough = at + text[at..].find("toughness = 1").expect("its toughness");
    let changed = format!(
        "{}toughness = 3{}",
        &text[..tough],
        &text[tough + "toughness = 1".len()..]
    );
    std::fs::write(&army, changed).expect("written");
    let (ok, out) = common::run(
        &[
            "balance",
            "--army",
            "moloch",
            "--army",
            "borgo",
            "--games",
            "40",
            "--seed",
            "3",
            "--against",
            path(&tweaked),
        ],
        None,
    );
    assert!(ok, "{out}");
    assert!(
        out.contains("What changed:\n  moloch/juggernaut: toughness 1 -> 3\n"),
        "{out}"
    );
    let line = out
        .lines()
        .find(|l| l.starts_with("  moloch vs borgo: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("% -> ") && (line.ends_with("significant") || line.ends_with("within noise")),
        "{line}"
    );
    assert!(out.contains("Content after: "), "{out}");
    // The checkout's own revision changes nothing.
    let (ok, out) = common::run(
        &[
            "balance",
            "--army",
            "moloch",
            "--army",
            "borgo",
            "--games",
            "8",
            "--against",
            "HEAD",
        ],
        None,
    );
    assert!(ok, "{out}");
    assert!(out.contains("no tile of these armies differs"), "{out}");
    let (ok, e) = common::run(
        &[
            "balance",
            "--army",
            "moloch",
            "--army",
            "borgo",
            "--against",
            "no_such_revision_x",
        ],
        None,
    );
    assert!(
        !ok && e.contains("--against no_such_revision_x: neither a folder nor a git revision"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
