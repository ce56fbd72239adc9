//! Whole three-player games under the 2025 rules, with their tie procedure (R8.2.5): bots play
//! them to their end, a tie puts whoever would lose out of the race and only the tied players play
//! on, and every game replays and verifies.

mod common;

fn hexforge(args: &[&str]) -> (bool, String) {
    common::run(args, None)
}

/// The turn lines (`Turn N: army`) of a log from `from` on.
fn turns_after<'a>(log: &'a str, from: &str) -> Vec<&'a str> {
    log.lines()
        .skip_while(|l| !l.contains(from))
        .filter_map(|l| l.strip_prefix("Turn ").and_then(|t| t.split_once(": ")))
        .map(|(_, who)| who)
        .collect()
}

#[test]
fn three_player_v2025_games_play_to_the_end_with_the_tie_procedure_and_verify() {
    let armies = ["moloch", "borgo", "outpost"];
    let mut ties = 0;
    for (bot, seed) in (1..=12).map(|s| ("random", s)).chain([("greedy", 1)]) {
        let seed = seed.to_string();
        let file =
            std::env::temp_dir().join(format!("hexforge-ffa3-{}-{bot}-{seed}", std::process::id()));
        let path = file.to_string_lossy().to_string();
        let (ok, log) = hexforge(&[
            "match", "--army", armies[0], "--army", armies[1], "--army", armies[2], "--rules",
            "v2025", "--bot", bot, "--seed", &seed, "--replay", &path,
        ]);
        assert!(ok, "{bot} {seed}: {log}");
        let result = log
            .lines()
            .find(|l| l.starts_with("Result: "))
            .unwrap_or_else(|| panic!("{bot} {seed}: no result: {log}"));
        if let Some(out) = log.lines().find(|l| l.contains("out of the race")) {
            ties += 1;
            // R8.2.5 (1), (2): the player out plays no more turn; the two tied players play one
            // each.
            let loser = out.split_whitespace().next().expect("a name");
            let extra = turns_after(&log, "out of the race");
            assert_eq!(extra.len(), 2, "{bot} {seed}: {extra:?}");
            assert!(!extra.contains(&loser), "{bot} {seed}: {extra:?}");
            assert_ne!(extra[0], extra[1], "{bot} {seed}");
            assert!(log.contains("Tie-break battle"), "{bot} {seed}");
            // (4): the loser cannot win, whoever else does.
            assert!(!result.contains(&format!("{loser} won")), "{result}");
            assert!(!result.contains("draw (equal HQ HP)"), "{result}");
        }
        let (ok, replayed) = hexforge(&["replay", &path, "--verify", "--quiet"]);
        assert!(ok, "{bot} {seed}: {replayed}");
        assert!(replayed.contains(result), "{bot} {seed}: {replayed}");
        let _ = std::fs::remove_file(file);
    }
    assert!(
        ties > 0,
        "some of these games end tied after the Final Battle"
    );
}
