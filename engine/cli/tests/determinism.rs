//! Determinism across processes: the same seeded match, played by two separate `hexforge`
//! processes, ends in the same state (compared by `hexforge match --hash`).

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Starts `hexforge` in the checkout, its output captured.
fn start(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_hexforge"))
        // Only the checkout's mods: a user mods folder on this machine must not change results.
        .env("HEXFORGE_USER_MODS", "/nonexistent/hexforge-user-mods")
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start hexforge")
}

/// Waits for a started `hexforge` and returns its standard output; panics if it failed.
fn finish(child: Child, what: &str) -> String {
    let out = child.wait_with_output().expect("wait for hexforge");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what}: {}\n{stdout}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The arguments of `hexforge match --quiet --hash` for a lineup and a seed.
fn match_args<'a>(armies: &[&'a str], bots: &[&'a str], seed: &'a str) -> Vec<&'a str> {
    let mut args = vec!["match"];
    for a in armies {
        args.extend(["--army", a]);
    }
    for b in bots {
        args.extend(["--bot", b]);
    }
    args.extend(["--seed", seed, "--quiet", "--hash"]);
    args
}

/// The 16 hex digits of the `State hash: ` line.
fn state_hash(output: &str) -> &str {
    let hash = output
        .lines()
        .find_map(|l| l.strip_prefix("State hash: "))
        .unwrap_or_else(|| panic!("no state hash line:\n{output}"));
    assert!(
        hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "not 16 hex digits: {hash:?}"
    );
    hash
}

/// Plays the same match in two processes at once and returns both outputs.
fn twice(args: &[&str]) -> (String, String) {
    let what = args.join(" ");
    let (a, b) = (start(args), start(args));
    (finish(a, &what), finish(b, &what))
}

/// Each base army against each other (both seats), every bot in both seats, different seeds, the
/// fan army of mods/examples (whose abilities are all Lua hooks), and one
/// four-player free for all.
const LINEUPS: &[(&[&str], [&str; 2], &str)] = &[
    (&["moloch", "borgo"], ["greedy", "mc"], "7"),
    (&["borgo", "moloch"], ["mc", "random"], "11"),
    (&["outpost", "hegemony"], ["random", "greedy"], "3"),
    (&["hegemony", "outpost"], ["mc", "mc"], "42"),
    (&["moloch", "outpost"], ["random", "random"], "1"),
    (&["outpost", "borgo"], ["greedy", "greedy"], "2024"),
    (&["hegemony", "moloch"], ["greedy", "mc"], "5"),
    (
        &["borgo", "hegemony"],
        ["random", "mc"],
        "18446744073709551615",
    ),
    (&["scrappers", "moloch"], ["greedy", "random"], "13"),
    (&["hegemony", "scrappers"], ["mc", "greedy"], "21"),
    (&["moloch", "hegemony"], ["search", "greedy"], "17"),
    (&["outpost", "borgo"], ["random", "search"], "23"),
    (
        &["moloch", "outpost", "borgo", "hegemony"],
        ["mc", "greedy"],
        "9",
    ),
];

#[test]
fn a_seeded_match_ends_in_the_same_state_in_two_processes() {
    for (armies, bots, seed) in LINEUPS {
        let args = match_args(armies, bots, seed);
        let (first, second) = twice(&args);
        assert_eq!(
            first,
            second,
            "`hexforge {}` ended differently in two processes",
            args.join(" ")
        );
        assert!(first.starts_with("Result: "), "{first}");
        state_hash(&first);
    }
}

#[test]
fn different_seeds_end_in_different_states() {
    let hashes: Vec<String> = ["1", "2", "3"]
        .iter()
        .map(|seed| {
            let args = match_args(&["moloch", "hegemony"], &["greedy", "random"], seed);
            state_hash(&finish(start(&args), &args.join(" "))).to_string()
        })
        .collect();
    assert_ne!(hashes[0], hashes[1], "seeds 1 and 2");
    assert_ne!(hashes[0], hashes[2], "seeds 1 and 3");
    assert_ne!(hashes[1], hashes[2], "seeds 2 and 3");
}

#[test]
fn the_hash_line_follows_the_result_and_appears_only_when_asked() {
    let mut args = vec![
        "match", "--army", "outpost", "--army", "borgo", "--bot", "greedy", "--seed", "13",
    ];
    let plain = finish(start(&args), "match without --hash");
    args.push("--hash");
    let hashed = finish(start(&args), "match with --hash");
    assert!(!plain.contains("State hash"), "{plain}");
    let (log, last) = hashed
        .trim_end()
        .rsplit_once('\n')
        .expect("more than one line");
    state_hash(last);
    assert_eq!(
        format!("{log}\n"),
        plain,
        "--hash adds one line after the result and changes nothing else"
    );
}
