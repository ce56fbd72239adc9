//! The Play view driven headlessly, as a person plays: a hot-seat turn (the cover, "I'm ready",
//! picking a tile of the hand, turning it, placing it on a highlighted hex, ending the turn, the
//! next player's hand hidden), a whole game against the greedy bot through the buttons and the
//! board, and a game left and resumed from its file. Every game is checked against its replay,
//! which the engine verifies step by step.

mod common;

use common::{editor, window};
use egui::Key;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use hexforge_core::{Action, Dir, Hex, TileKind};
use hexforge_editor::play::SeatSetup;
use hexforge_editor::play::worker::Who;
use hexforge_editor::{Editor, Tab};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A fresh replay folder of the test's own.
fn replay_folder(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-play-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The editor on its Play tab, saving into `dir`, with `seats` (army, who) set up.
fn play_window(dir: &Path, seats: &[(&str, Who)], seed: u64) -> Harness<'static, Editor> {
    let mut e = editor();
    e.play_mut().set_folder(Some(dir.to_path_buf()));
    e.show(Tab::Play);
    e.play_mut().seats = seats
        .iter()
        .map(|(army, who)| SeatSetup {
            army: army.to_string(),
            who: who.clone(),
        })
        .collect();
    e.play_mut().seed = seed.to_string();
    let mut h = window(e);
    h.run();
    h
}

/// Draws frames (the worker runs meanwhile) until `done` holds; fails after 60 s.
fn until(h: &mut Harness<'static, Editor>, what: &str, done: impl Fn(&Editor) -> bool) {
    let start = Instant::now();
    loop {
        h.step();
        if done(h.state()) {
            h.step();
            return;
        }
        let table = h.state().play().table();
        if let Some(why) = table.and_then(|t| t.stopped()) {
            panic!("the game stopped while waiting for {what}: {why}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no {what} within 60 s; the log: {:?}",
            table.map(|t| t.log())
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A click of the primary button at `pos`, frame by frame.
fn click_at(h: &mut Harness<'static, Editor>, pos: egui::Pos2) {
    h.hover_at(pos);
    h.step();
    h.drag_at(pos);
    h.step();
    h.drop_at(pos);
    h.step();
    h.step();
}

/// Clicks the widget labelled `label` (the first, when the hand holds two alike).
fn click(h: &mut Harness<'static, Editor>, label: &str) {
    h.get_all_by_label(label)
        .next()
        .unwrap_or_else(|| panic!("no {label:?} on screen"))
        .click();
    h.step();
    h.step();
}

fn table<'a>(h: &'a Harness<'static, Editor>) -> &'a hexforge_editor::play::table::Table {
    h.state().play().table().expect("a game on the table")
}

/// Waits until a person must act, decide, or the game is over; says the cover hides a hand.
fn until_person(h: &mut Harness<'static, Editor>) {
    until(h, "a person's turn or the end", |e| {
        e.play().table().is_some_and(|t| {
            (t.person_to_act().is_some() || t.deciding() || t.over().is_some())
                && !t.showing_battle()
        })
    });
}

/// The label of a held tile in the hand: `name (kind)`.
fn hand_label(h: &Harness<'static, Editor>, tile: hexforge_core::TileRef) -> String {
    let cat = table(h).game().expect("started").catalog();
    let t = cat.get(tile);
    format!("{} ({})", t.name, t.kind.name())
}

/// Picks the held `tile`, turns it `turns` steps clockwise with R, clicks the first
/// highlighted hex; returns the hex.
fn pick_turn_place(
    h: &mut Harness<'static, Editor>,
    tile: hexforge_core::TileRef,
    turns: usize,
) -> Hex {
    let label = hand_label(h, tile);
    click(h, &label);
    assert_eq!(table(h).aim().tile, Some(tile), "{label} is picked");
    for _ in 0..turns {
        h.key_press(Key::R);
        h.step();
    }
    let hexes = table(h).clickable();
    let hex = *hexes.first().expect("highlighted hexes to place on");
    let pos = table(h).hex_pos(hex).expect("the board was drawn");
    let told = table(h).log().len();
    click_at(h, pos);
    assert_eq!(table(h).hint(), None, "the click on {hex} plays");
    until(h, "the placement in the log", |e| {
        e.play().table().is_some_and(|t| t.log().len() > told)
    });
    hex
}

/// Clicks the first option of the decision shown (its button reads `1. ...`).
fn answer_first_option(h: &mut Harness<'static, Editor>) {
    let first = h
        .get_all_by_role(egui::accesskit::Role::Button)
        .find(|b| {
            b.accesskit_node()
                .label()
                .is_some_and(|l| l.starts_with("1. "))
        })
        .and_then(|b| b.accesskit_node().label())
        .expect("a decision with its options shown");
    click(h, &first);
}

/// Discards the first tile the person may discard, through its button (a full hand, R2.5.2).
fn discard_first(h: &mut Harness<'static, Editor>) {
    let t = table(h);
    let tile = t
        .legal()
        .iter()
        .find_map(|a| match *a {
            Action::Discard { tile } => Some(tile),
            _ => None,
        })
        .expect("a discard is asked");
    let name = t.game().expect("started").catalog().get(tile).name.clone();
    click(h, &format!("Discard {name}"));
}

/// Ends the person's turn, discarding first when the hand is full (R2.5.2).
fn end_turn(h: &mut Harness<'static, Editor>) {
    if !table(h).legal().contains(&Action::EndTurn) {
        discard_first(h);
        until_person(h);
    }
    click(h, "End turn");
}

/// The replay of `path` verified step by step by the engine; gives its actions.
fn verified(h: &Harness<'static, Editor>, path: &Path) -> (Vec<Action>, bool) {
    let editor = h.state();
    let text = std::fs::read_to_string(path).expect("read the replay");
    let replay =
        hexforge_replay::parse(&text, editor.content().catalog()).unwrap_or_else(|e| panic!("{e}"));
    let mods = &editor.content().loaded().mods;
    let mut catalog = editor.content().catalog().clone();
    let (mut host, _) =
        hexforge_script::ScriptHost::load(mods, &mut catalog, hexforge_script::Limits::default());
    let mut game = hexforge_replay::start(&replay.header, mods, Arc::new(catalog), &mut host)
        .unwrap_or_else(|e| panic!("{e}"));
    for (n, step) in replay.steps.iter().enumerate() {
        hexforge_replay::apply(&mut game, step, &mut host)
            .unwrap_or_else(|e| panic!("step {}: {e}", n + 1));
        assert_eq!(game.state_hash(), step.hash, "step {} verifies", n + 1);
    }
    (
        replay.steps.iter().map(|s| s.action).collect(),
        replay.complete,
    )
}

/// Plays the person's seat through the UI until the game is over: the HQ placed, a full hand
/// discarded from, a tile placed when one can be, else the turn ended; decisions take their
/// first option; the first battle is stepped through and the others skipped.
fn play_to_the_end(h: &mut Harness<'static, Editor>) {
    let mut battles_seen = 0;
    for _ in 0..2000 {
        until(h, "something to do", |e| {
            e.play().table().is_some_and(|t| {
                t.person_to_act().is_some()
                    || t.deciding()
                    || t.over().is_some()
                    || t.showing_battle()
            })
        });
        let t = table(h);
        if t.over().is_some() {
            break;
        }
        if t.showing_battle() {
            battles_seen += 1;
            // The first battle is stepped through; the rest are skipped.
            if battles_seen == 1 {
                // The log tells the battle as it is shown, not its end before its phases.
                let told = t.log().len();
                if t.battle_step() != Some("After the battle") {
                    assert!(
                        !t.log().iter().any(|l| l.starts_with("  HQ: ")),
                        "the battle's end is not told before it is shown ({:?}): {:?}",
                        t.battle_step(),
                        t.log()
                    );
                }
                click(h, "Next phase");
                assert!(table(h).log().len() >= told);
            }
            if table(h).showing_battle() {
                click(h, "Skip the battle");
            }
            continue;
        }
        if t.deciding() {
            answer_first_option(h);
            continue;
        }
        let legal = t.legal().to_vec();
        let cat = t.game().expect("started").catalog().clone();
        if let Some(hq) = legal.iter().find_map(|a| match *a {
            Action::Place { tile, .. } if cat.get(tile).kind == TileKind::Hq => Some(tile),
            _ => None,
        }) {
            pick_turn_place(h, hq, 0);
        } else if !legal.contains(&Action::EndTurn) {
            discard_first(h);
        } else if let Some(tile) = legal.iter().find_map(|a| match *a {
            Action::Place { tile, .. } => Some(tile),
            _ => None,
        }) {
            pick_turn_place(h, tile, 0);
        } else {
            click(h, "End turn");
        }
    }
}

#[test]
fn a_hot_seat_turn_is_played_through_the_ui_pick_rotate_place_end_turn() {
    let dir = replay_folder("hotseat");
    let mut h = play_window(&dir, &[("moloch", Who::Person), ("borgo", Who::Person)], 3);
    click(&mut h, "Start the game");
    // Both place their HQs, each behind the cover until they say they are ready.
    for _ in 0..2 {
        until_person(&mut h);
        assert!(
            table(&h).covered(),
            "the cover hides the hand of the player on turn: {:?} {:?} {:?}",
            table(&h).person_to_act(),
            table(&h).who(),
            table(&h).log()
        );
        h.get_by_label("(hidden)");
        click(&mut h, "I'm ready");
        assert!(!table(&h).covered());
        let hq = table(&h)
            .legal()
            .iter()
            .find_map(|a| match *a {
                Action::Place { tile, .. } => Some(tile),
                _ => None,
            })
            .expect("the HQ is placed first (R2.3)");
        pick_turn_place(&mut h, hq, 1);
    }
    // A turn: discard when the hand is full (R2.5.2), then place a board tile turned twice, then
    // end the turn (a player with no board tile in hand ends the turn and the next one plays).
    let (seat, board_tile, hex) = loop {
        until_person(&mut h);
        click(&mut h, "I'm ready");
        let seat = table(&h).person_to_act().expect("a person's turn");
        if !table(&h).legal().contains(&Action::EndTurn) {
            discard_first(&mut h);
            until_person(&mut h);
        }
        let board_tile = {
            let t = table(&h);
            let cat = t.game().expect("started").catalog();
            t.legal().iter().find_map(|a| match *a {
                Action::Place { tile, .. } if cat.get(tile).kind != TileKind::Hq => Some(tile),
                _ => None,
            })
        };
        match board_tile {
            Some(tile) => break (seat, tile, pick_turn_place(&mut h, tile, 2)),
            None => click(&mut h, "End turn"),
        }
    };
    until_person(&mut h);
    assert_eq!(
        table(&h).person_to_act(),
        Some(seat),
        "still this player's turn"
    );
    click(&mut h, "End turn");
    // The next player's turn begins behind the cover: their hand is hidden.
    until_person(&mut h);
    assert_ne!(table(&h).person_to_act(), Some(seat));
    assert!(table(&h).covered());
    h.get_by_label("(hidden)");
    let path = table(&h).path().expect("saved").clone();
    let (actions, complete) = verified(&h, &path);
    assert!(!complete, "the game goes on");
    assert!(
        actions.contains(&Action::Place {
            tile: board_tile,
            hex,
            facing: Dir::new(2),
        }),
        "the tile was placed on {hex} turned twice: {actions:?}"
    );
    assert_eq!(actions.last(), Some(&Action::EndTurn));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_game_against_the_greedy_bot_is_played_to_its_end_through_the_ui() {
    let dir = replay_folder("greedy");
    let mut h = play_window(
        &dir,
        &[
            ("moloch", Who::Person),
            ("borgo", Who::Bot("greedy".into())),
        ],
        5,
    );
    click(&mut h, "Start the game");
    play_to_the_end(&mut h);
    let over = table(&h).over().expect("the game ended").to_string();
    assert!(over.starts_with("Result: "), "{over}");
    assert!(
        h.get_all_by_label(&over).next().is_some(),
        "{over} is shown"
    );
    let path = table(&h).path().expect("saved").clone();
    let (actions, complete) = verified(&h, &path);
    assert!(complete, "the file ends the game");
    assert!(actions.len() > 10, "{actions:?}");
    // The finished game opens in the replay viewer.
    click(&mut h, "Open in the replay viewer");
    assert_eq!(h.state().tab(), Tab::Replays);
    assert!(h.state().replays().viewer().is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_game_left_is_resumed_from_its_file_where_it_stopped() {
    let dir = replay_folder("resume");
    let mut h = play_window(
        &dir,
        &[
            ("moloch", Who::Person),
            ("borgo", Who::Bot("random".into())),
        ],
        9,
    );
    click(&mut h, "Start the game");
    until_person(&mut h);
    let hq = table(&h)
        .legal()
        .iter()
        .find_map(|a| match *a {
            Action::Place { tile, .. } => Some(tile),
            _ => None,
        })
        .expect("the HQ first");
    let hex = pick_turn_place(&mut h, hq, 0);
    until_person(&mut h);
    let path = table(&h).path().expect("saved").clone();
    let before = verified(&h, &path).0;
    click(&mut h, "Leave the game");
    assert!(h.state().play().table().is_none());
    let name = path
        .file_name()
        .expect("a file")
        .to_string_lossy()
        .into_owned();
    click(&mut h, &format!("Resume {name}"));
    assert_eq!(h.state().play().status, "", "the game resumes");
    assert!(
        h.state().play().table().is_some(),
        "the game is on the table"
    );
    until_person(&mut h);
    assert_eq!(table(&h).path(), Some(&path), "it goes on in the same file");
    assert!(
        table(&h).log().iter().any(|l| l.contains("Resumed from")),
        "{:?}",
        table(&h).log()
    );
    let game = table(&h).game().expect("started");
    let placed = game
        .field()
        .shape()
        .cell(hex)
        .and_then(|c| game.field().at(c))
        .map(|p| p.tile);
    assert_eq!(
        placed,
        Some(hq),
        "the HQ placed before leaving is on the board"
    );
    end_turn(&mut h);
    until_person(&mut h);
    let after = verified(&h, &path).0;
    assert!(after.len() > before.len(), "{before:?} then {after:?}");
    assert_eq!(after[..before.len()], before[..], "the steps before stay");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The content of this checkout's mods with their scripts, as a side of a network match loads it.
fn net_side() -> hexforge_script::Loaded {
    hexforge_script::load(
        &[Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods")],
        hexforge_script::Limits::default(),
    )
}

/// The replay a side of a network match wrote, read back: its steps.
fn steps_of(h: &Harness<'static, Editor>, text: &str) -> Vec<hexforge_replay::Step> {
    hexforge_replay::parse(text, h.state().content().catalog())
        .unwrap_or_else(|e| panic!("{e}"))
        .steps
}

#[test]
fn the_editor_hosts_a_network_match_that_a_joiner_plays_to_the_end() {
    let dir = replay_folder("host");
    let mut h = play_window(
        &dir,
        &[
            ("moloch", Who::Bot("greedy".into())),
            ("borgo", Who::Remote),
        ],
        8,
    );
    h.state_mut().play_mut().mode = hexforge_editor::play::Mode::Host;
    h.state_mut().play_mut().port = "0".to_string();
    h.step();
    click(&mut h, "Start the game");
    until(&mut h, "the host listening", |e| {
        e.play()
            .table()
            .is_some_and(|t| t.log().iter().any(|l| l.starts_with("net: hosting on ")))
    });
    let line = table(&h)
        .log()
        .iter()
        .find(|l| l.starts_with("net: hosting on "))
        .expect("the listening line")
        .clone();
    let port = line["net: hosting on 0.0.0.0:".len()..]
        .split(':')
        .next()
        .and_then(|p| p.split(' ').next())
        .expect("a port")
        .to_string();
    let address = format!("127.0.0.1:{port}");
    let (tx, rx) = std::sync::mpsc::channel();
    let joiner = std::thread::spawn(move || {
        let hexforge_script::Loaded { mods, mut scripts } = net_side();
        let content = hexforge_net::Content {
            mods: &mods.mods,
            catalog: Arc::new(mods.catalog.clone()),
        };
        let replay = Arc::new(std::sync::Mutex::new(Vec::new()));
        struct Shared(Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().expect("the replay").extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let joining = hexforge_net::Joining {
            address,
            seat: None,
            watch: false,
            code: None,
            player: Box::new(|seat, header: &hexforge_replay::Header| {
                let seed = header.match_seed.unwrap_or(header.seed);
                let seeds = hexforge_bots::match_seeds(seed, 2).1;
                hexforge_bots::by_name("random", seeds[seat]).expect("a bot")
                    as Box<dyn hexforge_core::game::Player>
            }),
            replay: Some(Box::new(Shared(replay.clone()))),
            corrupt_after: None,
            fetch: None,
            stop: None,
        };
        let r = hexforge_net::join(joining, &content, &mut scripts, &mut hexforge_net::Unseen)
            .map_err(|e| e.to_string());
        let text = String::from_utf8(replay.lock().expect("the replay").clone()).expect("text");
        let _ = tx.send((r.map(|o| o.hash), text));
    });
    until(&mut h, "the end of the match", |e| {
        e.play().table().is_some_and(|t| t.over().is_some())
    });
    let (hash, joined) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the joiner ends");
    joiner.join().expect("the joiner's thread");
    hash.unwrap_or_else(|e| panic!("the joiner: {e}"));
    let path = table(&h).path().expect("saved").clone();
    let (_, complete) = verified(&h, &path);
    assert!(complete, "the host's replay ends the game");
    let hosted = std::fs::read_to_string(&path).expect("the host's replay");
    assert_eq!(
        steps_of(&h, &hosted),
        steps_of(&h, &joined),
        "both sides played the same steps with the same hashes"
    );
    assert!(
        table(&h).log().iter().any(|l| l.contains("joined")),
        "{:?}",
        table(&h).log()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hosts moloch (the greedy bot) against a remote borgo on a thread of its own, seeded with
/// `seed`, with this checkout's mods: where it listens, and its thread, which gives the final
/// state hash.
fn host_elsewhere(seed: u64) -> (String, std::thread::JoinHandle<Result<u64, String>>) {
    let (tx, rx) = std::sync::mpsc::channel();
    let hosting = std::thread::spawn(move || {
        let hexforge_script::Loaded { mods, mut scripts } = net_side();
        let content = hexforge_net::Content {
            mods: &mods.mods,
            catalog: Arc::new(mods.catalog.clone()),
        };
        let header = hexforge_replay::header(
            ("v3", &[], "standard"),
            &mods.mods,
            vec!["moloch".into(), "borgo".into()],
            seed,
            seed,
        );
        let seeds = hexforge_bots::match_seeds(seed, 2).1;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
        let _ = tx.send(listener.local_addr().expect("an address").to_string());
        let hosting = hexforge_net::Hosting {
            header,
            seats: vec![
                hexforge_net::Play::Local(
                    hexforge_bots::by_name("greedy", seeds[0]).expect("a bot"),
                ),
                hexforge_net::Play::Remote,
            ],
            fill: None,
            replay: None,
            desync_name: std::env::temp_dir().join(format!("hexforge-play-{seed}-desync")),
            stop: None,
        };
        hexforge_net::host(
            hosting,
            hexforge_net::Listen::Direct(listener),
            &content,
            &mut scripts,
            &mut hexforge_net::Unseen,
        )
        .map(|o| o.hash)
        .map_err(|e| e.to_string())
    });
    let address = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the host listens");
    (address, hosting)
}

#[test]
fn the_editor_joins_a_network_match_and_its_person_plays_to_the_end() {
    let dir = replay_folder("join");
    let (address, hosting) = host_elsewhere(11);
    let mut h = play_window(&dir, &[], 1);
    h.state_mut().play_mut().mode = hexforge_editor::play::Mode::Join;
    h.state_mut().play_mut().address = address;
    h.step();
    click(&mut h, "Join the match");
    assert_eq!(h.state().play().status, "", "the join starts");
    play_to_the_end(&mut h);
    let over = table(&h).over().expect("the game ended").to_string();
    assert!(over.starts_with("Result: "), "{over}");
    let host_hash = hosting
        .join()
        .expect("the host's thread")
        .unwrap_or_else(|e| panic!("the host: {e}"));
    assert_eq!(
        table(&h).game().expect("the game").state_hash(),
        host_hash,
        "the joiner's game ends as the host's"
    );
    let path = table(&h).path().expect("saved").clone();
    let (_, complete) = verified(&h, &path);
    assert!(complete);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn leaving_a_hosted_match_stops_the_host_and_frees_its_port() {
    let dir = replay_folder("leave-host");
    let mut h = play_window(&dir, &[("moloch", Who::Person), ("borgo", Who::Remote)], 2);
    h.state_mut().play_mut().mode = hexforge_editor::play::Mode::Host;
    h.state_mut().play_mut().port = "0".to_string();
    h.step();
    click(&mut h, "Start the game");
    until(&mut h, "the host listening", |e| {
        e.play()
            .table()
            .is_some_and(|t| t.log().iter().any(|l| l.starts_with("net: hosting on ")))
    });
    let line = table(&h)
        .log()
        .iter()
        .find(|l| l.starts_with("net: hosting on "))
        .expect("the listening line")
        .clone();
    let port: u16 = line["net: hosting on 0.0.0.0:".len()..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|p| p.parse().ok())
        .expect("a port");
    click(&mut h, "Leave the game");
    assert!(h.state().play().table().is_none());
    // The host stops: its port can be listened on again.
    let start = Instant::now();
    while std::net::TcpListener::bind(("0.0.0.0", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "port {port} is still held 10 s after leaving"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Checks that the joined game in `h` ends in the state the host's thread ended in.
fn ends_as_the_host(
    h: &Harness<'static, Editor>,
    hosting: std::thread::JoinHandle<Result<u64, String>>,
) {
    let host_hash = hosting
        .join()
        .expect("the host's thread")
        .unwrap_or_else(|e| panic!("the host: {e}"));
    assert_eq!(
        table(h).game().expect("the game").state_hash(),
        host_hash,
        "the game ends as the host's"
    );
}

/// A match hosted on another thread (seed `seed`) and an editor in `dir` set to join it, its
/// mods the checkout's without `leaders`, its user mods folder `dir/user-mods`: the window, that
/// folder and the host's thread.
fn joiner_without_leaders(
    dir: &Path,
    seed: u64,
) -> (
    Harness<'static, Editor>,
    PathBuf,
    std::thread::JoinHandle<Result<u64, String>>,
) {
    let mods = dir.join("mods");
    common::copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods"),
        &mods,
    );
    std::fs::remove_dir_all(mods.join("leaders")).expect("remove leaders here");
    let user_mods = dir.join("user-mods");
    let (address, hosting) = host_elsewhere(seed);
    let mut e = Editor::load(vec![mods]);
    e.set_user_mods(Some(user_mods.clone()));
    e.play_mut().set_folder(Some(dir.join("replays")));
    e.show(Tab::Play);
    e.play_mut().mode = hexforge_editor::play::Mode::Join;
    e.play_mut().address = address;
    let mut h = window(e);
    h.step();
    (h, user_mods, hosting)
}

#[test]
fn joining_a_host_with_a_mod_missing_here_fetches_it_after_asking_and_plays() {
    let dir = replay_folder("fetch");
    let (mut h, user_mods, hosting) = joiner_without_leaders(&dir, 12);
    click(&mut h, "Join the match");
    until(&mut h, "the question about the host's mods", |e| {
        e.play().table().is_some_and(|t| t.confirming().is_some())
    });
    let asked = table(&h).confirming().expect("asked").to_vec();
    assert!(
        asked
            .iter()
            .any(|l| l.contains("mod `leaders`") && l.contains("(missing)")),
        "{asked:?}"
    );
    click(&mut h, "Fetch and install them");
    play_to_the_end(&mut h);
    assert!(user_mods.join("leaders/mod.toml").is_file(), "installed");
    assert!(
        h.state()
            .content()
            .loaded()
            .mods
            .iter()
            .any(|m| m.id == "leaders"),
        "loaded after the install"
    );
    ends_as_the_host(&h, hosting);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn joining_a_host_with_a_mod_missing_here_fetches_it_from_a_portal_and_plays() {
    // The portal holds the exact version the host plays (`leaders` of the checkout, packed);
    // the joiner, given the portal's address, fetches it there and not from the host.
    let dir = replay_folder("fetch-portal");
    let store = Arc::new(hexforge_portal::Store::open(&dir.join("portal")).expect("the store"));
    let token = store.add_author("fay").expect("an author");
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
    let leaders = hexforge_content::load_mod(&checkout.join("leaders")).expect("leaders");
    let bytes = hexforge_content::archive::pack(&leaders)
        .expect("packed")
        .to_bytes();
    store.publish(&token, &bytes).expect("published");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let portal = format!("http://{}", listener.local_addr().expect("its address"));
    let served = store.clone();
    std::thread::spawn(move || {
        hexforge_portal::server::serve(
            listener,
            served,
            Arc::new(std::sync::atomic::AtomicBool::new(false)),
        )
    });
    let (mut h, user_mods, hosting) = joiner_without_leaders(&dir, 12);
    // The field is there, labelled, and enabled once mods may be fetched.
    let field = h.get_by_role_and_label(Role::TextInput, "Fetch them from the portal");
    assert!(!field.accesskit_node().is_disabled());
    h.state_mut().play_mut().portal = portal.clone();
    h.step();
    click(&mut h, "Join the match");
    until(&mut h, "the question about the host's mods", |e| {
        e.play().table().is_some_and(|t| t.confirming().is_some())
    });
    click(&mut h, "Fetch and install them");
    play_to_the_end(&mut h);
    let fetched = format!("net: fetched `leaders` 1.0.0 from {portal}");
    assert!(table(&h).log().contains(&fetched), "{:?}", table(&h).log());
    assert!(user_mods.join("leaders/mod.toml").is_file(), "installed");
    ends_as_the_host(&h, hosting);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The name of a mod action of `game`'s rules (`hide`, `deploy`...).
fn rule_action_name(game: &hexforge_core::Game, a: &Action) -> Option<String> {
    match *a {
        Action::Rule { rule, action, .. } => game
            .catalog()
            .game_rules()
            .get(usize::from(rule))
            .and_then(|r| r.actions.get(usize::from(action)))
            .map(|x| x.name.clone()),
        _ => None,
    }
}

#[test]
fn a_monolith_is_hidden_deployed_and_folded_through_the_play_tab() {
    let dir = replay_folder("monolith");
    let mut h = play_window(
        &dir,
        &[
            ("ashen_legion", Who::Person),
            ("thornwardens", Who::Bot("random".into())),
        ],
        4,
    );
    h.state_mut().play_mut().rules.preset = "monolith_arena".to_string();
    h.state_mut().play_mut().rules.options.clear();
    h.step();
    click(&mut h, "Start the game");
    let (mut hidden, mut deployed, mut folded) = (0, false, false);
    for _ in 0..400 {
        until(&mut h, "something to do", |e| {
            e.play()
                .table()
                .is_some_and(|t| t.person_to_act().is_some() || t.deciding() || t.over().is_some())
        });
        let t = table(&h);
        if t.over().is_some() || folded {
            break;
        }
        if t.deciding() {
            answer_first_option(&mut h);
            continue;
        }
        let game = t.game().expect("started").clone();
        let legal = t.legal().to_vec();
        let me = t.person_to_act().expect("a person's turn");
        let linked = !game.field().links().is_empty();
        if deployed && !linked {
            // The Monolith folded after a Battle (R10.6.6).
            folded = true;
            break;
        }
        // R10.6.1: before the banner, two tiles are hidden: the action on a tile is a button.
        if let Some(a) = legal
            .iter()
            .find(|a| rule_action_name(&game, a).as_deref() == Some("hide"))
        {
            let label = a.describe(game.catalog());
            click(&mut h, &label);
            hidden += 1;
            continue;
        }
        // R10.6.3: after the discard, the Monolith deploys in two steps, each a click on a
        // highlighted hex.
        let deploy = legal.iter().find(|a| {
            matches!(
                rule_action_name(&game, a).as_deref(),
                Some("deploy") | Some("deploy_2")
            )
        });
        if let Some(&Action::Rule {
            target: Some(hex), ..
        }) = deploy
        {
            let before = table(&h).log().len();
            let pos = table(&h).hex_pos(hex).expect("the board was drawn");
            click_at(&mut h, pos);
            until(&mut h, "the deploy step in the log", |e| {
                e.play().table().is_some_and(|t| t.log().len() > before)
            });
            if rule_action_name(&game, deploy.expect("found")).as_deref() == Some("deploy_2") {
                until(&mut h, "the Monolith standing", |e| {
                    e.play()
                        .table()
                        .and_then(|t| t.game())
                        .is_some_and(|g| !g.field().links().is_empty())
                });
                deployed = true;
            }
            continue;
        }
        let cat = game.catalog();
        if let Some(hq) = legal.iter().find_map(|a| match *a {
            Action::Place { tile, .. } if cat.get(tile).kind == TileKind::Hq => Some(tile),
            _ => None,
        }) {
            pick_turn_place(&mut h, hq, 0);
        } else if !legal.contains(&Action::EndTurn) {
            discard_first(&mut h);
        } else if deployed && game.field().hq_hp(me) > 0 {
            // Play tiles towards a full board, so that a Battle comes and folds the Monolith.
            match legal.iter().find_map(|a| match *a {
                Action::Place { tile, .. } => Some(tile),
                _ => None,
            }) {
                Some(tile) => {
                    pick_turn_place(&mut h, tile, 0);
                }
                None => click(&mut h, "End turn"),
            }
        } else {
            click(&mut h, "End turn");
        }
    }
    assert_eq!(hidden, 2, "two tiles hidden before the banner (R10.6.1)");
    assert!(deployed, "the Monolith was deployed through the board");
    assert!(folded, "the Monolith folded after a Battle (R10.6.6)");
    // Secrets (docs/RULESETS.md): the person reads which tiles they hid, not the bot's, and
    // none of the bot's draws.
    let t = table(&h);
    assert_eq!(
        t.reader(),
        hexforge_log::Reader::Player(hexforge_core::Seat::new(0))
    );
    let log = t.log();
    let said = |start: &str| log.iter().filter(|l| l.starts_with(start)).count();
    assert_eq!(said("thornwardens: hide on a tile"), 2, "{log:#?}");
    assert_eq!(said("ashen_legion: hide on "), 2, "{log:#?}");
    assert_eq!(said("ashen_legion: hide on a tile"), 0, "{log:#?}");
    assert!(said("  thornwardens draws a tile") > 0, "{log:#?}");
    assert_eq!(
        said("  thornwardens draws "),
        said("  thornwardens draws a tile"),
        "{log:#?}"
    );
    let path = table(&h).path().expect("saved").clone();
    verified(&h, &path);
    let _ = std::fs::remove_dir_all(&dir);
}
