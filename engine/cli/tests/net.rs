//! Matches over the network between `hexforge` processes (docs/NETWORK.md): host and join play
//! to the same end with replays that verify, through a relay too; a joiner whose mods differ is
//! refused naming each mod; a forced desync is reported with both replays; a joiner killed in
//! the middle of a game rejoins and the game ends; a bot fills a seat whose joiner left; a
//! spectator sees every step; malformed frames are refused with a clear error. Every process
//! listens on 127.0.0.1, port 0, so the tests run in parallel; the time limits only catch hangs.

mod common;
mod portal_server;

use portal_server::serve;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long a process may take before the test counts it as hung.
const HANG: Duration = Duration::from_secs(300);

/// The checkout's root, where every process runs.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh folder for one test's files.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-net-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// A running `hexforge`, its output read line by line as it comes.
struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Everything it printed so far (standard output, then error at the end).
    all: Arc<Mutex<String>>,
    what: String,
}

impl Proc {
    /// Starts `hexforge args` in the checkout, with only the checkout's mods.
    fn start(what: &str, args: &[&str]) -> Proc {
        Proc::start_with(what, args, Path::new("/nonexistent/hexforge-user-mods"))
    }

    /// Starts `hexforge args` in the checkout, with `user_mods` as the user mods folder.
    fn start_with(what: &str, args: &[&str], user_mods: &Path) -> Proc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hexforge"))
            .env("HEXFORGE_USER_MODS", user_mods)
            .args(args)
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hexforge");
        let (tx, lines) = channel();
        let all = Arc::new(Mutex::new(String::new()));
        let stdout = child.stdout.take().expect("its output");
        let seen = all.clone();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                seen.lock().expect("output").push_str(&format!("{line}\n"));
                let _ = tx.send(line);
            }
        });
        let mut stderr = child.stderr.take().expect("its errors");
        let seen = all.clone();
        thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            seen.lock().expect("output").push_str(&text);
        });
        let stdin = child.stdin.take();
        Proc {
            child,
            stdin,
            lines,
            all,
            what: what.to_string(),
        }
    }

    /// What it printed so far.
    fn output(&self) -> String {
        self.all.lock().expect("output").clone()
    }

    /// The first line from now on that `wanted` accepts.
    fn wait_for(&self, wanted: impl Fn(&str) -> bool) -> String {
        let until = Instant::now() + HANG;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if wanted(&line) => return line,
                Ok(_) => {}
                Err(_) => panic!(
                    "{}: the line waited for never came; it printed:\n{}",
                    self.what,
                    self.output()
                ),
            }
        }
    }

    /// The address it listens on, from its `net: hosting on` or `net: relay listening on` line.
    fn address(&self) -> String {
        let line = self.wait_for(|l| {
            l.starts_with("net: hosting on ") || l.starts_with("net: relay listening on ")
        });
        line.split_whitespace()
            .find(|w| w.starts_with("127.0.0.1:"))
            .unwrap_or_else(|| panic!("no address in `{line}`"))
            .to_string()
    }

    /// Types a line on its standard input.
    fn type_line(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("its standard input");
        writeln!(stdin, "{text}").expect("write to hexforge");
        stdin.flush().expect("flush");
    }

    /// Waits for its end and returns its status and everything it printed; kills it when it
    /// hangs.
    fn finish(mut self) -> (ExitStatus, String) {
        let until = Instant::now() + HANG;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait for hexforge") {
                // Let the readers take the last lines.
                thread::sleep(Duration::from_millis(200));
                return (status, self.output());
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                panic!("{} hung; it printed:\n{}", self.what, self.output());
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills it (a killed process, as a crash or a closed laptop leaves it).
    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // A test that failed leaves no process behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs `hexforge args` to its end: whether it succeeded, and what it printed.
fn run(args: &[&str]) -> (bool, String) {
    let (status, out) = Proc::start("hexforge", args).finish();
    (status.success(), out)
}

/// The line of `text` starting with `prefix`.
fn line<'t>(text: &'t str, prefix: &str) -> &'t str {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{text}"))
}

/// The game's log: every line but the network's news and the match's first lines.
fn log(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            !l.starts_with("net: ")
                && !l.starts_with("Match: ")
                && !l.starts_with("Content: ")
                && !l.starts_with("Setup: ")
        })
        // Each side sees the draws its reader may see: the tile drawn is left out to compare.
        .map(|l| match l.split_once(" draws ") {
            Some((who, _)) => format!("{who} draws a tile"),
            None => l.to_string(),
        })
        .collect()
}

/// A host of moloch against borgo, seat 1 played by `bot` here and seat 2 remote, with more
/// arguments.
fn host(bot: &str, seed: &str, more: &[&str]) -> Proc {
    host_of(["moloch", "borgo"], bot, seed, more)
}

/// A host of `armies`, seat 1 played by `bot` here and seat 2 remote, on 127.0.0.1 and a free
/// port, with more arguments.
fn host_of(armies: [&str; 2], bot: &str, seed: &str, more: &[&str]) -> Proc {
    let seat = format!("1=bot:{bot}");
    let mut args = vec![
        "host",
        "--army",
        armies[0],
        "--army",
        armies[1],
        "--seat",
        &seat,
        "--seat",
        "2=remote",
        "--seed",
        seed,
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
    ];
    args.extend(more);
    Proc::start("host", &args)
}

#[test]
fn a_bot_match_between_two_processes_ends_alike_and_both_replays_verify() {
    let dir = temp("pair");
    let (host_replay, join_replay) = (dir.join("host.txt"), dir.join("join.txt"));
    let h = host("greedy", "7", &["--replay", &host_replay.to_string_lossy()]);
    let at = h.address();
    let j = Proc::start(
        "join",
        &[
            "join",
            &at,
            "--bot",
            "greedy",
            "--replay",
            &join_replay.to_string_lossy(),
        ],
    );
    let (joined, join_out) = j.finish();
    let (hosted, host_out) = h.finish();
    assert!(hosted.success(), "host:\n{host_out}");
    assert!(joined.success(), "join:\n{join_out}");
    assert_eq!(line(&host_out, "Result: "), line(&join_out, "Result: "));
    assert_eq!(
        line(&host_out, "State hash: "),
        line(&join_out, "State hash: ")
    );
    assert_eq!(
        log(&host_out),
        log(&join_out),
        "both sides print the same game"
    );
    // The joiner (borgo) sees its own draws, not the host's bot's (RULESETS.md, "Secrets").
    let draws = |out: &str, who: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.trim_start().starts_with(&format!("{who} draws ")))
            .map(str::to_string)
            .collect()
    };
    assert!(
        draws(&join_out, "moloch")
            .iter()
            .all(|l| l.ends_with("draws a tile")),
        "{join_out}"
    );
    assert!(
        draws(&join_out, "borgo")
            .iter()
            .any(|l| !l.ends_with("draws a tile")),
        "{join_out}"
    );
    assert!(
        line(&host_out, "Match: ").contains("moloch (bot greedy) vs borgo (remote)"),
        "{host_out}"
    );
    // Decisions of the greedy bot are the engine's default, so the game is the one `hexforge
    // match` plays with the same seed.
    let (ok, alone) = run(&[
        "match", "--army", "moloch", "--army", "borgo", "--bot", "greedy", "--seed", "7",
        "--quiet", "--hash",
    ]);
    assert!(ok, "{alone}");
    assert_eq!(line(&alone, "Result: "), line(&host_out, "Result: "));
    assert_eq!(
        line(&alone, "State hash: "),
        line(&host_out, "State hash: ")
    );
    for file in [&host_replay, &join_replay] {
        let (ok, out) = run(&["replay", "--verify", "--quiet", &file.to_string_lossy()]);
        assert!(
            ok && out.contains("verified: "),
            "{}: {out}",
            file.display()
        );
        assert_eq!(line(&out, "Result: "), line(&host_out, "Result: "));
    }
    assert_eq!(
        std::fs::read_to_string(&host_replay).expect("host replay"),
        std::fs::read_to_string(&join_replay).expect("join replay"),
        "one match, one replay"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_match_through_the_relay_is_followed_by_a_spectator_that_sees_every_step() {
    let dir = temp("relay");
    let (host_replay, watch_replay) = (dir.join("host.txt"), dir.join("watch.txt"));
    let relay = Proc::start("serve", &["serve", "--bind", "127.0.0.1", "--port", "0"]);
    let r = relay.address();
    let h = Proc::start(
        "host",
        &[
            "host",
            "--army",
            "outpost",
            "--army",
            "hegemony",
            "--seat",
            "1=bot:random",
            "--seat",
            "2=remote",
            "--seed",
            "11",
            "--relay",
            &r,
            "--match",
            "friday-11",
            "--replay",
            &host_replay.to_string_lossy(),
        ],
    );
    h.wait_for(|l| l.starts_with("net: waiting for seat 2"));
    let w = Proc::start(
        "watch",
        &[
            "join",
            &r,
            "--match",
            "friday-11",
            "--watch",
            "--replay",
            &watch_replay.to_string_lossy(),
        ],
    );
    h.wait_for(|l| l.starts_with("net: a spectator joined"));
    let j = Proc::start(
        "join",
        &["join", &r, "--match", "friday-11", "--bot", "random"],
    );
    let (joined, join_out) = j.finish();
    let (hosted, host_out) = h.finish();
    let (watched, watch_out) = w.finish();
    assert!(hosted.success(), "host:\n{host_out}");
    assert!(joined.success(), "join:\n{join_out}");
    assert!(watched.success(), "watch:\n{watch_out}");
    for out in [&join_out, &watch_out] {
        assert_eq!(line(out, "Result: "), line(&host_out, "Result: "));
        assert_eq!(line(out, "State hash: "), line(&host_out, "State hash: "));
        assert_eq!(log(out), log(&host_out));
    }
    assert!(
        line(&watch_out, "Match: ").contains("(remote) vs"),
        "{watch_out}"
    );
    assert_eq!(
        std::fs::read_to_string(&watch_replay).expect("spectator's replay"),
        std::fs::read_to_string(&host_replay).expect("host's replay"),
        "the spectator saw every step with the host's hashes"
    );
    // The relay is still up for others, and says what it does not know.
    let (ok, out) = run(&["join", &r, "--match", "nothing-here", "--bot", "random"]);
    assert!(
        !ok && out.contains("no match `nothing-here` is hosted on this relay"),
        "{out}"
    );
    let (ok, out) = run(&["join", &r, "--bot", "random"]);
    assert!(!ok && out.contains("give the match's code"), "{out}");
    relay.kill();
    let _ = std::fs::remove_dir_all(dir);
}

/// A copy of the checkout's mods in `dir/mods` that differs from them three ways: another
/// version of `examples`, other content in `scored`, and `leaders` missing.
fn differing_mods(dir: &Path) -> PathBuf {
    let mods = dir.join("mods");
    common::copy(&root().join("mods"), &mods);
    let manifest = mods.join("examples/mod.toml");
    let text = std::fs::read_to_string(&manifest).expect("examples/mod.toml");
    std::fs::write(
        &manifest,
        text.replace("version = \"1.0.0\"", "version = \"1.0.1\""),
    )
    .expect("write");
    let script = std::fs::read_dir(mods.join("scored/scripts"))
        .expect("scored's scripts")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "lua"))
        .expect("a script of scored");
    let mut lua = std::fs::read_to_string(&script).expect("a script");
    // A line of code: a comment alone would not change what the hash covers.
    lua.push_str("\nlocal changed_on_this_side = 1\n");
    std::fs::write(&script, lua).expect("write");
    std::fs::remove_dir_all(mods.join("leaders")).expect("remove leaders");
    mods
}

#[test]
fn a_joiner_whose_mods_differ_is_refused_before_the_game_naming_each_mod() {
    let dir = temp("mods");
    let mods = differing_mods(&dir);
    let h = host("random", "3", &[]);
    let at = h.address();
    let (ok, out) = run(&[
        "--mods",
        &mods.to_string_lossy(),
        "join",
        &at,
        "--bot",
        "random",
    ]);
    assert!(!ok, "{out}");
    for expected in [
        "this side's content differs from the host's",
        "mod `examples`: the host plays 1.0.0 #",
        "(other version)",
        "mod `scored` 1.0.0: the host's content hash is ",
        "(other content hash); in play, scripts/",
        ".lua changed",
        "mod `leaders`: the host plays 1.0.0, it is not loaded here (missing)",
    ] {
        assert!(out.contains(expected), "`{expected}` not in:\n{out}");
    }
    assert!(!out.contains("Turn 1"), "refused before the game: {out}");
    let refused = h.wait_for(|l| l.contains("refused the match"));
    assert!(refused.contains("mod `examples`"), "{refused}");
    h.kill();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_joiner_fetches_the_mods_that_differ_from_the_host_installs_them_and_plays() {
    let dir = temp("fetch");
    let mods = differing_mods(&dir);
    let user_mods = dir.join("user-mods");
    let h = host("random", "4", &[]);
    let at = h.address();
    let j = Proc::start_with(
        "joiner",
        &[
            "--mods",
            &mods.to_string_lossy(),
            "join",
            &at,
            "--bot",
            "random",
            "--fetch-mods",
            "--yes",
        ],
        &user_mods,
    );
    let (status, out) = j.finish();
    assert!(status.success(), "{out}");
    for expected in [
        "mod `leaders`: the host plays 1.0.0, it is not loaded here (missing)",
        "net: installed `leaders` 1.0.0 into ",
        "net: installed `examples` 1.0.0 into ",
        "(the folder it replaced is kept in ",
        "net: joining again with the mods installed",
        "Result: ",
    ] {
        assert!(out.contains(expected), "`{expected}` not in:\n{out}");
    }
    // Each mod went where it belongs, and nothing of the user's was deleted.
    assert!(user_mods.join("leaders/mod.toml").is_file());
    assert!(mods.join(".replaced/examples-1/mod.toml").is_file());
    assert!(mods.join(".replaced/scored-1/mod.toml").is_file());
    let (hs, hout) = h.finish();
    assert!(hs.success(), "{hout}");
    assert!(hout.contains("sending mod `leaders` 1.0.0"), "{hout}");
    assert_eq!(
        line(&hout, "Result: "),
        line(&out, "Result: "),
        "both sides end alike"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A joiner with `--fetch-mods --portal URL` takes the versions the host plays from a mod
/// portal (docs/PORTAL.md), not from the host.
#[test]
fn a_joiner_fetches_the_hosts_versions_from_a_portal_and_plays() {
    let dir = temp("fetch-portal");
    let mods = differing_mods(&dir);
    let user_mods = dir.join("user-mods");
    // A portal holding the checkout's (the host's) leaders, examples and scored.
    let data = dir.join("portal");
    let (_portal, url) = serve(&data);
    let (ok, out) = run(&[
        "portal",
        "author",
        "host",
        "--data",
        &data.to_string_lossy(),
    ]);
    assert!(ok, "{out}");
    let token = out.lines().next().expect("a token").trim().to_string();
    for id in ["leaders", "examples", "scored"] {
        let (ok, out) = run(&["mods", "publish", id, "--portal", &url, "--token", &token]);
        assert!(ok, "{out}");
    }
    let h = host("random", "4", &[]);
    let at = h.address();
    let j = Proc::start_with(
        "joiner",
        &[
            "--mods",
            &mods.to_string_lossy(),
            "join",
            &at,
            "--bot",
            "random",
            "--fetch-mods",
            "--yes",
            "--portal",
            &url,
        ],
        &user_mods,
    );
    let (status, out) = j.finish();
    assert!(status.success(), "{out}");
    for expected in [
        "net: fetched `leaders` 1.0.0 from http://",
        "net: installed `leaders` 1.0.0 into ",
        "net: installed `examples` 1.0.0 into ",
        "net: joining again with the mods installed",
        "Result: ",
    ] {
        assert!(out.contains(expected), "`{expected}` not in:\n{out}");
    }
    assert!(user_mods.join("leaders/mod.toml").is_file());
    let (hs, hout) = h.finish();
    assert!(hs.success(), "{hout}");
    assert!(
        !hout.contains("sending mod"),
        "the host sent nothing: {hout}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_forced_desync_stops_both_sides_with_a_report_and_both_replays() {
    let dir = temp("desync");
    let replay = dir.join("game.txt");
    let h = host("random", "5", &["--replay", &replay.to_string_lossy()]);
    let at = h.address();
    let j = Proc::start(
        "join",
        &["join", &at, "--bot", "random", "--debug-corrupt-after", "4"],
    );
    let (joined, join_out) = j.finish();
    let (hosted, host_out) = h.finish();
    assert_eq!(hosted.code(), Some(1), "host:\n{host_out}");
    assert_eq!(joined.code(), Some(1), "join:\n{join_out}");
    let report = line(&host_out, "desync at step 4 (turn ");
    assert!(
        report.contains(" played `")
            && report.contains("the host's state is ")
            && report.contains("seat 2 (borgo)'s is "),
        "{report}"
    );
    let (host_file, join_file) = (dir.join("game.host.replay"), dir.join("game.join.replay"));
    let saved = line(&host_out, "replays saved: ");
    assert!(
        saved.contains(&*host_file.to_string_lossy())
            && saved.contains(&*join_file.to_string_lossy()),
        "{saved}"
    );
    assert!(join_out.contains("desync at step 4 (turn "), "{join_out}");
    // The host's replay plays as recorded; the joiner's parts from the engine at step 4.
    let (ok, out) = run(&[
        "replay",
        "--verify",
        "--quiet",
        &host_file.to_string_lossy(),
    ]);
    assert!(ok, "{out}");
    let (ok, out) = run(&[
        "replay",
        "--verify",
        "--quiet",
        &join_file.to_string_lossy(),
    ]);
    assert!(!ok && out.contains("diverged at step 4 "), "{out}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Answers the terminal's prompt `times` times with the first action listed.
fn answer(p: &mut Proc, times: usize) {
    for _ in 0..times {
        p.wait_for(|l| l.starts_with("Choose an action: "));
        p.type_line("0");
    }
}

#[test]
fn a_joiner_killed_in_the_middle_of_a_game_rejoins_and_the_game_ends() {
    let dir = temp("rejoin");
    let (host_replay, watch_replay) = (dir.join("host.txt"), dir.join("watch.txt"));
    let h = host("random", "9", &["--replay", &host_replay.to_string_lossy()]);
    let at = h.address();
    // A person at the terminal plays seat 2: the game waits for each answer.
    let mut person = Proc::start("person", &["join", &at, "--seat", "2"]);
    answer(&mut person, 3);
    person.wait_for(|l| l.starts_with("Choose an action: "));
    // A spectator who comes now is sent the steps so far.
    let w = Proc::start(
        "watch",
        &[
            "join",
            &at,
            "--watch",
            "--replay",
            &watch_replay.to_string_lossy(),
        ],
    );
    w.wait_for(|l| l.starts_with("net: caught up with the host: "));
    person.kill();
    h.wait_for(|l| l.starts_with("net: seat 2 (borgo) left"));
    h.wait_for(|l| l.starts_with("net: waiting for seat 2 (borgo) to rejoin"));
    let back = Proc::start("rejoin", &["join", &at, "--seat", "2", "--bot", "random"]);
    let (rejoined, back_out) = back.finish();
    let (hosted, host_out) = h.finish();
    let (watched, watch_out) = w.finish();
    assert!(hosted.success(), "host:\n{host_out}");
    assert!(rejoined.success(), "rejoin:\n{back_out}");
    assert!(watched.success(), "watch:\n{watch_out}");
    assert!(
        back_out.contains("net: caught up with the host: ")
            && host_out.contains("net: seat 2 (borgo) rejoined"),
        "{back_out}\n{host_out}"
    );
    assert_eq!(line(&back_out, "Result: "), line(&host_out, "Result: "));
    assert_eq!(
        line(&back_out, "State hash: "),
        line(&host_out, "State hash: ")
    );
    assert_eq!(
        line(&watch_out, "State hash: "),
        line(&host_out, "State hash: ")
    );
    let (ok, out) = run(&[
        "replay",
        "--verify",
        "--quiet",
        &host_replay.to_string_lossy(),
    ]);
    assert!(ok, "{out}");
    assert_eq!(
        std::fs::read_to_string(&watch_replay).expect("spectator's replay"),
        std::fs::read_to_string(&host_replay).expect("host's replay")
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_bot_fills_the_seat_of_a_joiner_who_left_until_the_end() {
    let dir = temp("fill");
    let replay = dir.join("host.txt");
    let h = host(
        "random",
        "13",
        &[
            "--fill-with-bot",
            "random",
            "--replay",
            &replay.to_string_lossy(),
        ],
    );
    let at = h.address();
    let mut person = Proc::start("person", &["join", &at]);
    answer(&mut person, 2);
    person.wait_for(|l| l.starts_with("Choose an action: "));
    person.kill();
    let (hosted, host_out) = h.finish();
    assert!(hosted.success(), "host:\n{host_out}");
    assert!(
        host_out.contains("net: seat 2 (borgo) left (")
            && host_out.contains("the bot random plays it until it rejoins"),
        "{host_out}"
    );
    let (ok, out) = run(&["replay", "--verify", "--quiet", &replay.to_string_lossy()]);
    assert!(ok, "{out}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Connects to `at`, sends `bytes` and returns the first line the other side answers.
fn poke(at: &str, bytes: &[u8]) -> String {
    let mut s = TcpStream::connect(at).expect("connect");
    s.set_read_timeout(Some(HANG)).expect("a time limit");
    // The other side may close before taking it all: what it answered is what counts.
    let _ = s.write_all(bytes);
    let mut answer = String::new();
    let _ = BufReader::new(s).read_line(&mut answer);
    answer
}

#[test]
fn malformed_frames_are_refused_with_a_clear_error_and_the_match_goes_on() {
    let h = host("random", "21", &[]);
    let at = h.address();
    let mut long = vec![b'x'; 40_000];
    long.push(b'\n');
    let cases: [(&[u8], &str); 6] = [
        (
            b"hello\n",
            "error malformed frame `hello`: unknown frame `hello`",
        ),
        (
            b"hexforge-net 9 join\n",
            "protocol version 9: this side speaks version 1",
        ),
        (&long, "error a frame longer than 16384 bytes"),
        (b"\xff\xfe\xfd\n", "error a frame that is not UTF-8 text"),
        (
            b"hexforge-net 1 join seat=1\n",
            "seat 1 (moloch) is played at the host",
        ),
        (b"hexforge-net 1 join seat=7\n", "there is no seat 7"),
    ];
    for (bytes, expected) in cases {
        let answer = poke(&at, bytes);
        assert!(answer.contains(expected), "`{expected}` not in `{answer}`");
    }
    // A frame out of place after the handshake.
    let mut s = TcpStream::connect(&at).expect("connect");
    s.write_all(b"hexforge-net 1 watch\n").expect("hello");
    let mut r = BufReader::new(s.try_clone().expect("clone"));
    let mut first = String::new();
    r.read_line(&mut first).expect("the host's hello");
    assert_eq!(first.trim(), "hexforge-net 1 host");
    s.write_all(b"end\n").expect("write");
    let answer: String = r
        .lines()
        .map_while(Result::ok)
        .find(|l| l.starts_with("error "))
        .unwrap_or_default();
    assert!(
        answer.contains("a `end` frame does not belong here"),
        "{answer}"
    );
    // The host is still there: a real joiner plays the match to its end.
    let j = Proc::start("join", &["join", &at, "--bot", "random"]);
    let (joined, join_out) = j.finish();
    let (hosted, host_out) = h.finish();
    assert!(joined.success(), "join:\n{join_out}");
    assert!(hosted.success(), "host:\n{host_out}");
    assert!(!host_out.contains("panicked"), "{host_out}");
    // A relay refuses the same way.
    let relay = Proc::start("serve", &["serve", "--bind", "127.0.0.1", "--port", "0"]);
    let r = relay.address();
    assert!(poke(&r, b"hello\n").contains("unknown frame `hello`"));
    assert!(poke(&r, &long).contains("a frame longer than 16384 bytes"));
    relay.kill();
}

#[test]
fn a_team_match_of_four_with_two_joiners_ends_alike_everywhere() {
    let dir = temp("teams");
    let replay = dir.join("host.txt");
    let h = Proc::start(
        "host",
        &[
            "host",
            "--army",
            "moloch",
            "--army",
            "borgo",
            "--army",
            "outpost",
            "--army",
            "hegemony",
            "--team",
            "1,2,1,2",
            "--seat",
            "1=bot:random",
            "--seat",
            "2=remote",
            "--seat",
            "3=bot:random",
            "--seat",
            "4=remote",
            "--seed",
            "17",
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--replay",
            &replay.to_string_lossy(),
        ],
    );
    let at = h.address();
    let second = Proc::start("seat 2", &["join", &at, "--seat", "2", "--bot", "random"]);
    h.wait_for(|l| l.starts_with("net: seat 2 (borgo) joined"));
    let fourth = Proc::start("seat 4", &["join", &at, "--bot", "greedy"]);
    let (s4, out4) = fourth.finish();
    let (s2, out2) = second.finish();
    let (hosted, host_out) = h.finish();
    assert!(hosted.success(), "host:\n{host_out}");
    for (status, out) in [(s2, &out2), (s4, &out4)] {
        assert!(status.success(), "{out}");
        assert_eq!(line(out, "Result: "), line(&host_out, "Result: "));
        assert_eq!(line(out, "State hash: "), line(&host_out, "State hash: "));
    }
    assert!(
        out4.contains("net: joined ") && out4.contains("as seat 4 (hegemony)"),
        "{out4}"
    );
    let (ok, out) = run(&["replay", "--verify", "--quiet", &replay.to_string_lossy()]);
    assert!(ok, "{out}");
    let text = std::fs::read_to_string(&replay).expect("replay");
    assert!(text.contains("\nteams 0 1 0 1\n"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A decider that answers with a step's recorded picks and notes whose decision each was.
struct Whose<'p> {
    picks: &'p [usize],
    next: usize,
    seen: Vec<(usize, usize)>,
}

impl hexforge_core::Decider for Whose<'_> {
    fn decide(
        &mut self,
        _: &hexforge_core::Battlefield,
        decision: &hexforge_core::Decision<'_>,
    ) -> usize {
        let pick = self.picks.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        self.seen.push((decision.player.index(), pick));
        pick
    }
}

/// Every decision of the replay file `path`: the seat that played the step, the seat the
/// decision was put to, and its pick.
fn decisions(path: &Path) -> Vec<(usize, usize, usize)> {
    let hexforge_script::Loaded { mods, mut scripts } =
        hexforge_script::load(&[root().join("mods")], hexforge_script::Limits::default());
    let text = std::fs::read_to_string(path).expect("the replay");
    let parsed = hexforge_replay::parse(&text, &mods.catalog).unwrap_or_else(|e| panic!("{e}"));
    let mut game = hexforge_replay::start(
        &parsed.header,
        &mods.mods,
        Arc::new(mods.catalog.clone()),
        &mut scripts,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for step in &parsed.steps {
        let by = game.current().map_or(0, |s| s.index());
        let mut whose = Whose {
            picks: &step.picks,
            next: 0,
            seen: Vec::new(),
        };
        game.act(&step.action, &mut scripts, &mut whose, &mut ())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(game.state_hash(), step.hash, "the replay verifies");
        out.extend(whose.seen.into_iter().map(|(to, pick)| (by, to, pick)));
    }
    out
}

#[test]
fn a_decision_put_to_a_seat_played_on_the_other_side_is_answered_by_its_player() {
    // Moloch and Hegemony push each other's units, and the owner of a pushed unit picks where
    // it goes (R5.3.3): random bots pick at random, so a pick other than the first option for
    // a seat played on the other side can only come from that side's player.
    let dir = temp("decide");
    let (mut host_asked, mut joiner_asked) = (false, false);
    for seed in 1..=12 {
        let replay = dir.join(format!("host-{seed}.txt"));
        let seed = seed.to_string();
        let replay_path = replay.to_string_lossy();
        let h = host_of(
            ["moloch", "hegemony"],
            "random",
            &seed,
            &["--replay", &replay_path, "--quiet"],
        );
        let at = h.address();
        let (ok, out) = run(&["join", &at, "--bot", "random", "--quiet"]);
        assert!(ok, "{out}");
        let (hosted, host_out) = h.finish();
        assert!(hosted.success(), "{host_out}");
        assert_eq!(line(&host_out, "Result: "), line(&out, "Result: "));
        for (by, to, pick) in decisions(&replay) {
            host_asked |= by == 0 && to == 1 && pick != 0;
            joiner_asked |= by == 1 && to == 0 && pick != 0;
        }
        if host_asked && joiner_asked {
            let _ = std::fs::remove_dir_all(dir);
            return;
        }
    }
    panic!(
        "no decision answered across the network in 12 games: the host asked {host_asked}, the joiner asked {joiner_asked}"
    );
}

#[test]
fn a_person_at_the_terminal_gets_help_the_board_and_the_list_again() {
    let h = host("random", "9", &[]);
    let at = h.address();
    let mut person = Proc::start("person", &["join", &at, "--seat", "2"]);
    person.wait_for(|l| l.starts_with("Choose an action: "));
    person.type_line("help");
    person.wait_for(|l| l.starts_with("Type an action's number, or its words"));
    person.wait_for(|l| l.starts_with("Facings: 0 N, 1 NE"));
    person.type_line("board");
    person.wait_for(|l| l.starts_with("HQs: player 1 (moloch) 20 HP, player 2 (borgo) 20 HP"));
    person.type_line("list");
    person.wait_for(|l| l.trim_start().starts_with("0  "));
    person.type_line("fly away");
    person.wait_for(|l| l.contains("(`help` tells what to type)"));
    person.kill();
    drop(h);
}
