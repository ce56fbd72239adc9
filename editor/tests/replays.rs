//! The replay viewer driven headlessly: a match played from the "Play a match" panel is recorded
//! into the replay folder and opened; the timeline steps as the engine's `Timeline` says; the
//! recording verifies; broken files are refused with their line; a step opens in the sandbox.

mod common;

use common::{editor, window};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_core::Game;
use hexforge_editor::replays::play::SeatChoice;
use hexforge_editor::{Editor, Tab};
use hexforge_replay::{Replay, Timeline};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A fresh replay folder of the test's own.
fn replay_folder(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-replays-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The editor on its Replays tab, recording into `dir`, with a match of `seats` (army, bot) set.
fn replays_window(dir: &Path, seats: &[(&str, &str)], seed: u64) -> Harness<'static, Editor> {
    let mut e = editor();
    e.replays_mut().set_folder(Some(dir.to_path_buf()));
    e.show(Tab::Replays);
    e.replays_mut().play_mut().seats = seats
        .iter()
        .map(|(army, bot)| SeatChoice {
            army: army.to_string(),
            bot: bot.to_string(),
        })
        .collect();
    e.replays_mut().play_mut().seed = seed.to_string();
    let mut h = window(e);
    h.run();
    h
}

/// Plays the match set in the panel and returns the file it recorded.
fn play_and_record(h: &mut Harness<'static, Editor>, dir: &Path) -> PathBuf {
    h.get_by_label("Play and record").click();
    h.run();
    let files = hexforge_editor::replays::folder::list(dir).expect("the replay folder lists");
    assert_eq!(files.len(), 1, "one recording in {}", dir.display());
    files[0].clone()
}

/// The recorded file read back with the editor's content.
fn read(editor: &Editor, path: &Path) -> Replay {
    let text = std::fs::read_to_string(path).expect("read the replay");
    hexforge_replay::parse(&text, editor.content().catalog()).unwrap_or_else(|e| panic!("{e}"))
}

fn start(editor: &Editor, replay: &Replay) -> Game {
    hexforge_replay::start(
        &replay.header,
        &editor.content().loaded().mods,
        Arc::new(editor.content().catalog().clone()),
        &mut hexforge_core::NoAbilities,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The viewer shows step `n` with the turn and every player's HQ HP the engine gives for it.
fn shows_as_the_engine_says(
    h: &Harness<'static, Editor>,
    timeline: &Timeline<'_>,
    scripts: &mut hexforge_script::ScriptHost,
    names: &[String],
) -> Game {
    let at = h.state().replays().viewer().expect("a replay is open").at();
    let game = timeline
        .state_at(at.step, scripts)
        .unwrap_or_else(|e| panic!("{e}"));
    h.get_by_label(&format!(
        "Step {} of {}, turn {}",
        at.step,
        timeline.len(),
        game.turn_number()
    ));
    if at.phase.is_none() {
        for p in game.field().players() {
            h.get_by_label(&format!(
                "{}: HQ {}",
                names[p.index()],
                game.field().hq_hp(p)
            ));
        }
    }
    game
}

#[test]
fn a_recorded_match_opens_and_its_timeline_steps_as_the_engine_says() {
    let dir = replay_folder("timeline");
    let mut h = replays_window(&dir, &[("moloch", "greedy"), ("borgo", "greedy")], 5);
    let file = play_and_record(&mut h, &dir);
    // The recording is open at its start.
    let viewer = h.state().replays().viewer().expect("the recording opens");
    assert_eq!(viewer.path, file);
    assert!(viewer.complete && viewer.warnings.is_empty());
    let replay = read(h.state(), &file);
    let begin = start(h.state(), &replay);
    // An engine timeline of its own, with a Lua host of its own.
    let mut scripts = hexforge_script::load(
        h.state().content().roots(),
        hexforge_script::Limits::default(),
    )
    .scripts;
    let timeline =
        Timeline::new(begin.clone(), &replay.steps, &mut scripts).unwrap_or_else(|e| panic!("{e}"));
    let names = vec!["moloch".to_string(), "borgo".to_string()];
    let at_start = shows_as_the_engine_says(&h, &timeline, &mut scripts, &names);
    assert_eq!(at_start.state_hash(), begin.state_hash());
    // Next turn moves to the step that started turn 2.
    h.get_by_label("Next turn").click();
    h.run();
    let g = shows_as_the_engine_says(&h, &timeline, &mut scripts, &names);
    assert_eq!(g.turn_number(), at_start.turn_number() + 1);
    let step = h.state().replays().viewer().map(|v| v.at().step);
    let before = timeline
        .state_at(step.expect("open") - 1, &mut scripts)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        before.turn_number(),
        at_start.turn_number(),
        "the first step of the turn"
    );
    // The slider goes anywhere; Last goes to the end, where HQs have taken damage.
    let len = timeline.len();
    h.get_by_role(egui::accesskit::Role::Slider)
        .set_value_accesskit((len / 2) as f64);
    h.run();
    assert_eq!(
        h.state().replays().viewer().map(|v| v.at().step),
        Some(len / 2)
    );
    shows_as_the_engine_says(&h, &timeline, &mut scripts, &names);
    h.get_by_label("Last").click();
    h.run();
    let end = shows_as_the_engine_says(&h, &timeline, &mut scripts, &names);
    assert!(end.result().is_some(), "the recorded game ran to its end");
    assert_ne!(
        end.field()
            .players()
            .map(|p| end.field().hq_hp(p))
            .collect::<Vec<_>>(),
        begin
            .field()
            .players()
            .map(|p| begin.field().hq_hp(p))
            .collect::<Vec<_>>(),
    );
    // Back to the start, then the arrow key walks into the first battle, phase by phase.
    h.get_by_label("First").click();
    h.run();
    let first_battle = (1..=len)
        .find(|n| !replay.steps[n - 1].phases.is_empty())
        .expect("the game fought a battle");
    let mut guard = 0;
    while h
        .state()
        .replays()
        .viewer()
        .is_some_and(|v| v.at().phase.is_none())
    {
        h.key_press(egui::Key::ArrowRight);
        h.run();
        guard += 1;
        assert!(guard <= len, "the arrow never reached a battle phase");
    }
    let at = h.state().replays().viewer().map(|v| v.at()).expect("open");
    assert_eq!((at.step, at.phase), (first_battle, Some(0)));
    let phases = replay.steps[first_battle - 1].phases.len();
    h.get_by_label_contains(&format!("Battle phase 1 of {phases} (initiative"));
    // The board shown is the engine's board at the end of that phase: its recorded hash.
    let shown = h
        .state_mut()
        .replays_mut()
        .viewer_mut()
        .map(|v| v.shown(&mut scripts).map(|s| s.board.state_hash()));
    assert_eq!(
        shown,
        Some(Ok(replay.steps[first_battle - 1].phases[0])),
        "the board of battle phase 1"
    );
    // The log highlights that phase's lines: "Phase N" is among them.
    h.get_by_label_contains("Phase ");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_recorded_match_verifies_every_state_hash() {
    let dir = replay_folder("verify");
    let mut h = replays_window(
        &dir,
        &[
            ("hegemony", "greedy"),
            ("outpost", "random"),
            ("moloch", "greedy"),
        ],
        11,
    );
    let file = play_and_record(&mut h, &dir);
    let replay = read(h.state(), &file);
    assert!(replay.complete, "the file ends with `end`");
    assert_eq!(replay.header.armies, ["hegemony", "outpost", "moloch"]);
    assert_eq!(replay.header.match_seed, Some(11));
    assert!(
        hexforge_replay::mod_differences(
            &h.state().content().loaded().mods,
            &replay.header.mods,
            &replay.header.files
        )
        .is_empty()
    );
    let mut game = start(h.state(), &replay);
    let mut scripts = hexforge_script::load(
        h.state().content().roots(),
        hexforge_script::Limits::default(),
    )
    .scripts;
    let mut battles = 0;
    for (n, step) in replay.steps.iter().enumerate() {
        let again = hexforge_replay::replay_step(&mut game, step, &mut scripts, &mut ())
            .unwrap_or_else(|e| panic!("step {}: {e}", n + 1));
        assert_eq!(
            again.phases,
            step.phases,
            "the battle phases of step {}",
            n + 1
        );
        assert!(again.all_picks_used, "step {}", n + 1);
        assert_eq!(
            game.state_hash(),
            step.hash,
            "the state after step {}",
            n + 1
        );
        battles += usize::from(!step.phases.is_empty());
    }
    assert!(game.result().is_some());
    assert!(
        battles > 0,
        "a game with battles checks the phase hashes too"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_replays_are_refused_with_their_line_and_a_cut_one_opens() {
    let dir = replay_folder("broken");
    let mut h = replays_window(&dir, &[("moloch", "greedy"), ("borgo", "random")], 3);
    let file = play_and_record(&mut h, &dir);
    let text = std::fs::read_to_string(&file).expect("read");
    let open = |h: &mut Harness<'static, Editor>, path: &Path| {
        h.state_mut()
            .replays_mut()
            .set_path(&path.display().to_string());
        h.run();
        h.get_by_label("Open").click();
        h.run();
    };
    // Not a replay at all.
    let garbage = dir.join("garbage.txt");
    std::fs::write(&garbage, "this is not a replay\n").expect("write");
    open(&mut h, &garbage);
    h.get_by_label_contains("not a Hexforge replay: the first line must be `hexforge-replay 2`");
    assert!(
        h.state().replays().viewer().is_some_and(|v| v.path == file),
        "the open replay stays"
    );
    // A bad line in the middle is named by its number.
    let mut lines: Vec<&str> = text.lines().collect();
    let bad = lines
        .iter()
        .position(|l| l.starts_with("action "))
        .expect("an action")
        + 3;
    lines[bad] = "gibberish here";
    let broken = dir.join("broken.txt");
    std::fs::write(&broken, lines.join("\n") + "\n").expect("write");
    open(&mut h, &broken);
    h.get_by_label_contains(&format!("line {}: unknown line `gibberish here`", bad + 1));
    // A recorded state hash the engine does not reach: the replay opens, saying from where the
    // game differs.
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let (fifth, _) = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("hash "))
        .nth(4)
        .expect("five steps");
    lines[fifth] = "hash 0000000000000000".to_string();
    let diverging = dir.join("diverging.txt");
    std::fs::write(&diverging, lines.join("\n") + "\n").expect("write");
    open(&mut h, &diverging);
    h.get_by_label("Warning: from step 5 on, the engine's game differs from the recording");
    // A missing file.
    open(&mut h, &dir.join("missing.txt"));
    h.get_by_label_contains("cannot read");
    // A file cut in the middle of a line (a game killed while it was written) opens up to its
    // last complete step.
    let cut = dir.join("cut.txt");
    std::fs::write(&cut, &text[..text.len() * 2 / 3]).expect("write");
    open(&mut h, &cut);
    let v = h.state().replays().viewer().expect("the cut file opens");
    assert!(!v.complete && !v.is_empty());
    h.get_by_label(&format!(
        "The recording stops after step {}: the game ended early.",
        v.len()
    ));
    // Recorded with other mods: refused with the mod named, unless replayed anyway.
    let other: Vec<String> = text
        .lines()
        .map(|l| match l.strip_prefix("mod base ") {
            // The same version with other content: its hash changed.
            Some(rest) => format!(
                "mod base {} 00000000000000ff",
                rest.split_whitespace().next().unwrap_or_default()
            ),
            None => l.to_string(),
        })
        .collect();
    let other_mods = dir.join("other-mods.txt");
    std::fs::write(&other_mods, other.join("\n") + "\n").expect("write");
    open(&mut h, &other_mods);
    h.get_by_label_contains("the mods differ from those it was recorded with: `base` was ");
    h.get_by_label_contains("#00000000000000ff");
    h.get_by_label("Replay anyway").click();
    h.run();
    assert!(
        h.state()
            .replays()
            .viewer()
            .is_some_and(|v| v.path == other_mods)
    );
    h.get_by_label_contains("Warning: the mods differ: `base` was ");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_step_opens_in_the_sandbox() {
    let dir = replay_folder("sandbox");
    let mut h = replays_window(&dir, &[("outpost", "greedy"), ("moloch", "greedy")], 8);
    play_and_record(&mut h, &dir);
    // The replay folder lists the recording, and opens it on a click.
    h.state_mut().replays_mut().close();
    h.get_by_label("outpost-vs-moloch-seed8.txt").click();
    h.run();
    assert!(h.state().replays().viewer().is_some());
    h.get_by_label("Next turn").click();
    h.run();
    // Reloaded content reads the replay again, at the same step.
    let at = h.state().replays().viewer().map(|v| v.at());
    let e = h.state_mut();
    e.reload();
    assert_eq!(h.state().replays().viewer().map(|v| v.at()), at);
    h.run();
    h.get_by_label("Open this step in the sandbox").click();
    h.run();
    assert_eq!(h.state().tab(), Tab::Sandbox);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_monte_carlo_match_plays_off_the_ui_thread_and_opens() {
    let dir = replay_folder("mc");
    let mut h = replays_window(&dir, &[("moloch", "mc"), ("borgo", "random")], 2);
    h.get_by_label("Play and record").click();
    h.step();
    // The window keeps drawing while the worker plays.
    assert!(h.state().replays().play().playing());
    h.step();
    h.get_by_label_contains("Playing");
    let start = std::time::Instant::now();
    while h.state().replays().play().playing() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "the match did not end"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    h.run();
    let files = hexforge_editor::replays::folder::list(&dir).expect("the replay folder lists");
    assert_eq!(files.len(), 1);
    let v = h.state().replays().viewer().expect("the recording opens");
    assert_eq!(v.path, files[0]);
    assert!(v.complete && v.warnings.is_empty(), "{:?}", v.warnings);
    let _ = std::fs::remove_dir_all(&dir);
}
