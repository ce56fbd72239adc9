//! The `hexforge` binary as a user runs it.

mod common;

fn hexforge(args: &[&str]) -> (bool, String) {
    common::run(args, None)
}

#[test]
fn scenario_command_ends_with_the_passed_failed_line() {
    let (ok, out) = hexforge(&["scenario", "tests/scenarios"]);
    let last = out.lines().last().unwrap_or_default();
    assert!(ok, "{out}");
    let passed: usize = last
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        last.ends_with(" passed, 0 failed") && passed >= 60,
        "last line: {last}"
    );
}

#[test]
fn armies_command_reports_a_malformed_file_with_line_and_column() {
    let (ok, out) = hexforge(&["armies", "--mods", "tests/content"]);
    assert!(!ok, "a broken mod must make the command fail");
    assert!(
        out.contains("broken.toml:18:8: unknown kind `sergeant`"),
        "{out}"
    );
}

#[test]
fn battle_command_prints_phases_and_hq_damage() {
    let (ok, out) = hexforge(&[
        "battle",
        "tests/scenarios/r11_worked_example/01_worked_example.toml",
    ]);
    assert!(ok, "{out}");
    for needed in ["Phase 4", "Phase 0", "loses", "Battle over"] {
        assert!(out.contains(needed), "missing {needed}:\n{out}");
    }
}

const ARMIES: [&str; 4] = ["moloch", "outpost", "borgo", "hegemony"];

#[test]
fn match_plays_every_pairing_of_the_base_armies_to_a_result() {
    for (i, a) in ARMIES.iter().enumerate() {
        for (j, b) in ARMIES.iter().enumerate() {
            let bots = if (i + j) % 2 == 0 {
                ["greedy", "random"]
            } else {
                ["random", "greedy"]
            };
            let seed = (i * 4 + j).to_string();
            let (ok, out) = hexforge(&[
                "match", "--army", a, "--army", b, "--bot", bots[0], "--bot", bots[1], "--seed",
                &seed, "--quiet",
            ]);
            assert!(ok, "{a} vs {b}: {out}");
            let line = out.lines().last().unwrap_or_default();
            assert!(
                line.starts_with("Result: ") && (line.contains(" won;") || line.contains("draw")),
                "{a} vs {b}: {line}"
            );
        }
    }
}

#[test]
fn match_log_shows_turns_draws_placements_battles_and_hq() {
    let (ok, out) = hexforge(&[
        "match", "--army", "moloch", "--army", "borgo", "--bot", "greedy", "--bot", "mc", "--seed",
        "7",
    ]);
    assert!(ok, "{out}");
    for needed in [
        "Match: moloch (greedy) vs borgo (mc)",
        "Turn 1: ",
        " draws ",
        " discards ",
        "is placed facing",
        "Phase 0",
        "  HQ: moloch ",
        "Result: ",
    ] {
        assert!(out.contains(needed), "missing {needed:?}:\n{out}");
    }
    let (_, again) = hexforge(&[
        "match", "--army", "moloch", "--army", "borgo", "--bot", "greedy", "--bot", "mc", "--seed",
        "7",
    ]);
    assert_eq!(out, again, "a seed fixes the whole match");
}

#[test]
fn matches_keeps_its_columns_straight_with_long_army_names() {
    let (ok, out) = hexforge(&[
        "matches",
        "--army",
        "thornwardens",
        "--army",
        "ashen_legion",
        "--army",
        "moloch",
        "--games",
        "6",
    ]);
    assert!(ok, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.starts_with("pairing (first army A)"))
        .unwrap_or_else(|| panic!("no pairing table:\n{out}"));
    // Every column is right-aligned after the first: a straight table has rows as long as its
    // header.
    for row in lines[header + 1..].iter().take_while(|l| !l.is_empty()) {
        assert_eq!(row.len(), lines[header].len(), "{row:?}\n{out}");
    }
    let armies = lines
        .iter()
        .position(|l| l.starts_with("army "))
        .unwrap_or_else(|| panic!("no army table:\n{out}"));
    for row in lines[armies + 1..].iter().take(3) {
        assert_eq!(row.len(), lines[armies].len(), "{row:?}\n{out}");
    }
}

#[test]
fn matches_prints_a_table_of_every_pairing() {
    let (ok, out) = hexforge(&["matches", "--games", "40", "--seed", "3"]);
    assert!(ok, "{out}");
    assert!(out.starts_with("40 games; bots random vs random"), "{out}");
    // The mods the games were played with, as a match's log names them.
    let content = out
        .lines()
        .find(|l| l.starts_with("Content: "))
        .unwrap_or_else(|| panic!("no content line: {out}"));
    assert!(
        content.contains("base 1.0.0 #")
            && content.ends_with(&format!("Hexforge {}", env!("CARGO_PKG_VERSION"))),
        "{content}"
    );
    for pairing in ["borgo vs outpost", "hegemony vs moloch"] {
        assert!(out.contains(pairing), "missing {pairing}:\n{out}");
    }
    assert!(
        !out.contains("moloch vs moloch"),
        "no mirror match unless asked:\n{out}"
    );
    let games: usize = out
        .lines()
        .filter(|l| l.contains(" vs "))
        .filter_map(|l| l.split_whitespace().nth(3)?.parse::<usize>().ok())
        .sum();
    assert_eq!(games, 40, "every game is counted once:\n{out}");
}

/// Two different bots: each army is played by each bot, in each seat, as often; so the
/// stronger bot's wins are not credited to the army it played (greedy against random over four
/// armies once reported the last army winning every game and the first losing all).
#[test]
fn a_stronger_bot_does_not_make_the_army_it_plays_look_stronger() {
    let (ok, out) = hexforge(&[
        "matches", "--army", "moloch", "--army", "borgo", "--army", "outpost", "--bot", "random",
        "--bot", "greedy", "--games", "48", "--seed", "2",
    ]);
    assert!(ok, "{out}");
    assert!(
        out.starts_with(
            "48 games; bots random vs greedy (each army played by each bot in each seat equally)"
        ),
        "{out}"
    );
    // Each army's row: games, wins, draws, losses, win%.
    for army in ["moloch", "borgo", "outpost"] {
        let row = out
            .lines()
            .find(|l| l.starts_with(&format!("{army} ")) && !l.contains(" vs "))
            .unwrap_or_else(|| panic!("no row for {army}:\n{out}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        let (games, wins): (usize, usize) = (
            cells[1].parse().expect("games"),
            cells[2].parse().expect("wins"),
        );
        assert_eq!(games, 32, "{row}");
        assert!((8..=24).contains(&wins), "{army} wins {wins} of 32:\n{out}");
    }
    // The bots' own table: the searching bot wins most games.
    let greedy = out
        .lines()
        .find(|l| l.starts_with("greedy "))
        .unwrap_or_else(|| panic!("no bot table:\n{out}"));
    let wins: usize = greedy
        .split_whitespace()
        .nth(1)
        .expect("wins")
        .parse()
        .expect("a number");
    assert!(wins > 30, "{greedy}");
}

#[test]
fn matches_plays_the_pairings_asked_and_mirrors_only_when_asked() {
    let (ok, out) = hexforge(&[
        "matches",
        "--games",
        "6",
        "--pair",
        "moloch:borgo",
        "--pair",
        "outpost:outpost",
    ]);
    assert!(ok, "{out}");
    let pairings: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" vs ") && !l.contains("games; bots"))
        .map(|l| l.split("  ").next().unwrap_or_default().trim())
        .collect();
    assert_eq!(pairings, ["moloch vs borgo", "outpost vs outpost"], "{out}");
    let (ok, out) = hexforge(&[
        "matches",
        "--games",
        "6",
        "--army",
        "moloch",
        "--army",
        "borgo",
        "--mirrors",
    ]);
    assert!(ok, "{out}");
    for pairing in ["moloch vs moloch", "moloch vs borgo", "borgo vs borgo"] {
        assert!(out.contains(pairing), "missing {pairing}:\n{out}");
    }
    let (ok, out) = hexforge(&["matches", "--pair", "molloch:borgo"]);
    assert!(!ok);
    assert!(
        out.contains("no army `molloch` is loaded; did you mean `moloch`?"),
        "{out}"
    );
    let (ok, out) = hexforge(&["matches", "--pair", "moloch"]);
    assert!(!ok);
    assert!(out.contains("name two armies around a colon"), "{out}");
}

#[test]
fn match_refuses_an_unknown_army_or_bot_with_the_choices() {
    let (ok, out) = hexforge(&["match", "--army", "moloch", "--army", "elves"]);
    assert!(!ok);
    assert!(out.contains("no army `elves`"), "{out}");
    let (ok, out) = hexforge(&[
        "match", "--army", "moloch", "--army", "borgo", "--bot", "genius",
    ]);
    assert!(!ok);
    assert!(
        out.contains("unknown bot `genius`: use one of random, greedy, mc, search"),
        "{out}"
    );
}

#[test]
fn battle_of_a_scenario_whose_step_is_refused_prints_the_refusal() {
    let (ok, out) = hexforge(&[
        "battle",
        "tests/scenarios/r10_monolith/02_deploy_refused_before_the_turns_discard.toml",
    ]);
    assert!(ok, "{out}");
    assert!(
        out.contains("Refused: rule monolith_arena/monolith deploy (line 45): the action `monolith/deploy` is refused"),
        "{out}"
    );
}

#[test]
fn rules_names_the_board_the_game_is_played_on() {
    let (ok, out) = hexforge(&["rules", "--option", "extended_board=true"]);
    assert!(ok, "{out}");
    assert!(
        out.lines()
            .last()
            .is_some_and(|l| l.starts_with("board = \"extended\"  # extended_board")),
        "{out}"
    );
    // An unknown board is refused before anything is printed.
    let (ok, out) = hexforge(&["rules", "--board", "nope"]);
    assert!(
        !ok && out.starts_with("error: unknown board `nope`"),
        "{out}"
    );
}
