//! Markers where a board is shown: a battle's markers on the sandbox board at its phases and
//! after it, kept with the result and following hand edits; a tile marked `cannot_move` shows it;
//! a recorded game's markers on the replay viewer's board at the step that has them; a
//! Monolith Arena unit's poison and a team's life on a loaded scenario.

mod common;

use common::{click_hex, editor, window};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_core::Hex;
use hexforge_core::marker::{MarkOn, MarkerName};
use hexforge_editor::replays::play::SeatChoice;
use hexforge_editor::replays::viewer::Position;
use hexforge_editor::{Editor, Tab};
use hexforge_replay::Timeline;
use std::sync::Arc;

/// The editor's sandbox with the scenario `name` of the examples loaded by its button.
fn sandbox_with(name: &str) -> Harness<'static, Editor> {
    common::sandbox_with_file(&format!("../tests/scenarios/examples/{name}"))
}

/// Presses Battle and steps to its end.
fn fight(harness: &mut Harness<'static, Editor>) {
    harness.get_by_label("Battle").click();
    harness.run();
    harness.get_by_label_contains("Before the battle (1 of ");
}

/// How many labels on screen read exactly `text`.
fn shown(harness: &Harness<'static, Editor>, text: &str) -> usize {
    harness.query_all_by_label(text).count()
}

const BORGO_HQ: Hex = Hex::new(0, 0);

#[test]
fn a_battles_own_marker_shows_on_the_board_is_kept_and_leaves_with_its_tile() {
    let mut harness = sandbox_with("46_salt_and_storm_read_a_mods_own_marker.toml");
    assert_eq!(
        shown(&harness, "soaked 1"),
        0,
        "no marker before the battle"
    );
    fight(&mut harness);
    // Phase 3: the Witch's shot soaks the Borgo HQ; the phase's log says so.
    while harness.query_by_label_contains("Phase 3 (").is_none() {
        harness.get_by_label("Next phase").click();
        harness.run();
    }
    harness.get_by_label_contains("is marked `soaked` (1) permanently");
    harness.get_by_label("Next phase").click();
    harness.run();
    // From the next phase on, the HQ's tile carries the badge.
    assert_eq!(shown(&harness, "soaked 1"), 1);
    harness.get_by_label("End").click();
    harness.run();
    harness.get_by_label_contains("After the battle");
    assert_eq!(shown(&harness, "soaked 1"), 1);
    let soaked = MarkerName::new("soaked").expect("a marker name");
    // Kept: the sandbox's own board now has it, on the same tile.
    harness.get_by_label("Keep the result").click();
    harness.run();
    assert_eq!(shown(&harness, "soaked 1"), 1);
    let built = |h: &Harness<'static, Editor>| {
        h.state()
            .sandbox()
            .built()
            .and_then(|b| b.field.clone())
            .expect("a field")
    };
    let field = built(&harness);
    let cell = field.shape().cell(BORGO_HQ).expect("on the board");
    assert!(field.mark(MarkOn::Tile(cell), soaked).is_some());
    // Hovering the HQ tells how long the marker lasts.
    let at = harness
        .state()
        .sandbox()
        .hex_pos(BORGO_HQ)
        .expect("the board was drawn");
    harness.hover_at(at);
    harness.run();
    harness.run();
    harness.get_by_label("Marker: soaked (value 1), permanently");
    // Selected, its panel lists it.
    click_hex(&mut harness, BORGO_HQ);
    harness.get_by_label_contains("Selected: ");
    harness.get_by_label("  soaked (value 1), permanently");
    // Removed by hand, the tile takes its marker with it.
    harness.get_by_label("Remove").click();
    harness.run();
    assert_eq!(shown(&harness, "soaked 1"), 0);
    assert!(built(&harness).marks().is_empty());
    assert!(
        harness
            .state()
            .sandbox()
            .board()
            .expect("a board")
            .marks
            .is_empty()
    );
}

#[test]
fn a_tile_marked_cannot_move_shows_it_and_keeps_it_when_moved() {
    let mut harness = sandbox_with("43_entangle_stops_a_move.toml");
    fight(&mut harness);
    harness.get_by_label("End").click();
    harness.run();
    // The engine's marker is badged on the tile.
    assert_eq!(shown(&harness, "cannot_move"), 1);
    harness.get_by_label("Keep the result").click();
    harness.run();
    assert_eq!(shown(&harness, "cannot_move"), 1);
    let mutant = Hex::new(0, -1);
    let field = harness
        .state()
        .sandbox()
        .built()
        .and_then(|b| b.field.clone())
        .expect("a field");
    let cell = field.shape().cell(mutant).expect("on the board");
    assert!(
        field
            .mark(MarkOn::Tile(cell), MarkerName::CANNOT_MOVE)
            .is_some()
    );
    // The Super Mutant moved by hand carries its marker to its new hex.
    let to = Hex::new(-1, -1);
    let catalog = harness.state().content().catalog().clone();
    let mut board = harness.state().sandbox().board().expect("a board").clone();
    board.move_piece(mutant, to).expect("a free hex");
    harness.state_mut().sandbox_mut().set_board(board, &catalog);
    harness.run();
    let field = harness
        .state()
        .sandbox()
        .built()
        .and_then(|b| b.field.clone())
        .expect("a field");
    let moved = field.shape().cell(to).expect("on the board");
    assert!(
        field
            .mark(MarkOn::Tile(moved), MarkerName::CANNOT_MOVE)
            .is_some()
    );
    assert_eq!(shown(&harness, "cannot_move"), 1);
}

#[test]
fn a_replays_markers_show_at_the_step_that_has_them() {
    let dir = std::env::temp_dir().join(format!("hexforge-replays-markers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut e = editor();
    e.replays_mut().set_folder(Some(dir.clone()));
    e.show(Tab::Replays);
    e.replays_mut().play_mut().seats = [("tidecallers", "greedy"), ("borgo", "greedy")]
        .iter()
        .map(|(army, bot)| SeatChoice {
            army: army.to_string(),
            bot: bot.to_string(),
        })
        .collect();
    e.replays_mut().play_mut().seed = "3".to_string();
    let mut h = window(e);
    h.run();
    // Recorded by the replay crate's `record_game` behind the panel's button.
    h.get_by_label("Play and record").click();
    h.run();
    let files = hexforge_editor::replays::folder::list(&dir).expect("the replay folder lists");
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(&files[0]).expect("read the replay");
    let replay = hexforge_replay::parse(&text, h.state().content().catalog())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut scripts = hexforge_script::load(
        h.state().content().roots(),
        hexforge_script::Limits::default(),
    )
    .scripts;
    let begin = hexforge_replay::start(
        &replay.header,
        &h.state().content().loaded().mods,
        Arc::new(h.state().content().catalog().clone()),
        &mut scripts,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let timeline =
        Timeline::new(begin, &replay.steps, &mut scripts).unwrap_or_else(|e| panic!("{e}"));
    // The first step after which the engine's board has a marker on a tile, and the step before.
    let marked = (1..=timeline.len())
        .find(|n| {
            let g = timeline.state_at(*n, &mut scripts).expect("a step");
            g.field()
                .marks()
                .iter()
                .any(|m| matches!(m.on, MarkOn::Tile(_)))
        })
        .expect("the Tidecallers marked a tile in the game");
    let game = timeline.state_at(marked, &mut scripts).expect("a step");
    let mark = *game
        .field()
        .marks()
        .iter()
        .find(|m| matches!(m.on, MarkOn::Tile(_)))
        .expect("a tile's marker");
    let badge = hexforge_editor::board_view::marker_text(&mark);
    let go = |h: &mut Harness<'static, Editor>, step: usize| {
        h.state_mut()
            .replays_mut()
            .viewer_mut()
            .expect("the recording is open")
            .go(Position { step, phase: None });
        h.run();
    };
    go(&mut h, marked - 1);
    let before = timeline.state_at(marked - 1, &mut scripts).expect("a step");
    let had = before
        .field()
        .marks()
        .iter()
        .filter(|m| hexforge_editor::board_view::marker_text(m) == badge)
        .count();
    assert_eq!(h.query_all_by_label(&badge).count(), had);
    go(&mut h, marked);
    let has = game
        .field()
        .marks()
        .iter()
        .filter(|m| hexforge_editor::board_view::marker_text(m) == badge)
        .count();
    assert_eq!(h.query_all_by_label(&badge).count(), has);
    assert!(has > had);
    // The step's log tells of it.
    h.get_by_label_contains(&format!("is marked `{}`", mark.name));
    let _ = std::fs::remove_dir_all(dir);
}

/// The sandbox with a scenario of the Monolith Arena mod loaded by its button.
fn monolith_sandbox_with(name: &str) -> Harness<'static, Editor> {
    common::sandbox_with_file(&format!("../tests/scenarios/r10_monolith/{name}"))
}

#[test]
fn the_sandbox_shows_a_units_poison_and_a_teams_life() {
    let harness = monolith_sandbox_with(
        "20_poison_wounds_once_per_marker_at_the_end_of_its_owners_turn.toml",
    );
    assert_eq!(shown(&harness, "poison 2"), 1, "the poisoned unit's marker");
    let harness = monolith_sandbox_with("23_team_life_a_wound_on_one_banner_brings_both_down.toml");
    // Each of the four players carries the team's life: a chip in the players panel and a badge
    // above their banner on the board.
    assert_eq!(
        shown(&harness, "team_life 40"),
        8,
        "each player's team life, twice"
    );
}
