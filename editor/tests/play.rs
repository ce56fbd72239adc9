//! The Play view driven headlessly, as a person plays: a hot-seat turn (the cover, "I'm ready",
//! picking a tile of the hand, turning it, placing it on a highlighted hex, ending the turn, the
//! next player's hand hidden), a whole game against the greedy bot through the buttons and the
//! board, and a game left and resumed from its file. Every game is checked against its replay,
//! which the engine verifies step by step.

mod common;

use common::{editor, window};
use egui::Key;
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

/// Ends the person's turn, discarding first when the hand is full (R2.5.2).
fn end_turn(h: &mut Harness<'static, Editor>) {
    if !table(h).legal().contains(&Action::EndTurn) {
        let tile = table(h)
            .legal()
            .iter()
            .find_map(|a| match *a {
                Action::Discard { tile } => Some(tile),
                _ => None,
            })
            .expect("a discard when the turn cannot end");
        let name = table(h)
            .game()
            .expect("started")
            .catalog()
            .get(tile)
            .name
            .clone();
        click(h, &format!("Discard {name}"));
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
            let discard = table(&h)
                .legal()
                .iter()
                .find_map(|a| match *a {
                    Action::Discard { tile } => Some(tile),
                    _ => None,
                })
                .expect("a discard is asked");
            let name = table(&h)
                .game()
                .expect("started")
                .catalog()
                .get(discard)
                .name
                .clone();
            click(&mut h, &format!("Discard {name}"));
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
    let mut battles_seen = 0;
    for _ in 0..2000 {
        until(&mut h, "something to do", |e| {
            e.play().table().is_some_and(|t| {
                t.person_to_act().is_some()
                    || t.deciding()
                    || t.over().is_some()
                    || t.showing_battle()
            })
        });
        let t = table(&h);
        if t.over().is_some() {
            break;
        }
        if t.showing_battle() {
            battles_seen += 1;
            // The first battle is stepped through; the rest are skipped.
            if battles_seen == 1 {
                click(&mut h, "Next phase");
            }
            if table(&h).showing_battle() {
                click(&mut h, "Skip the battle");
            }
            continue;
        }
        if t.deciding() {
            let first = h
                .get_all_by_role(egui::accesskit::Role::Button)
                .find(|b| {
                    b.accesskit_node()
                        .label()
                        .is_some_and(|l| l.starts_with("1. "))
                })
                .and_then(|b| b.accesskit_node().label());
            match first {
                Some(label) => click(&mut h, &label),
                None => panic!("a decision with no option shown"),
            }
            continue;
        }
        let legal = t.legal().to_vec();
        let cat = t.game().expect("started").catalog().clone();
        if let Some(hq) = legal.iter().find_map(|a| match *a {
            Action::Place { tile, .. } if cat.get(tile).kind == TileKind::Hq => Some(tile),
            _ => None,
        }) {
            pick_turn_place(&mut h, hq, 0);
        } else if !legal.contains(&Action::EndTurn) {
            let tile = legal
                .iter()
                .find_map(|a| match *a {
                    Action::Discard { tile } => Some(tile),
                    _ => None,
                })
                .expect("a discard when the turn cannot end");
            click(&mut h, &format!("Discard {}", cat.get(tile).name));
        } else if let Some(tile) = legal.iter().find_map(|a| match *a {
            Action::Place { tile, .. } => Some(tile),
            _ => None,
        }) {
            pick_turn_place(&mut h, tile, 0);
        } else {
            click(&mut h, "End turn");
        }
    }
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
