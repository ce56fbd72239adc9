//! Boards as data (docs/RULESETS.md, "Boards"): whole games on the base mod's King of the Hill
//! board (R9.7) and the example mod's map with holes play to their end and replay bit for bit,
//! and the complete example of the docs is a board file the content crate accepts.

mod common;

use hexforge_content::{Board, LoadedMods, SourceText};
use hexforge_core::game::Player;
use hexforge_core::marker::{MarkOn, MarkerName};
use hexforge_core::{Game, GameSetup, Hex, Rules, SeatSetup};
use hexforge_replay::{Step, Timeline};
use hexforge_script::ScriptHost;
use std::sync::Arc;

fn load() -> (LoadedMods, ScriptHost) {
    let loaded = common::load_clean(&[common::root().join("mods")]);
    (loaded.mods, loaded.scripts)
}

/// A new game of `armies` on `board`, seeded with `seed`.
fn new_game(loaded: &LoadedMods, board: &Board, armies: [&str; 2], seed: u64) -> Game {
    Game::new(
        GameSetup {
            shape: board.shape.clone(),
            seats: SeatSetup::each_alone(&armies),
            seed,
            marks: board.start_marks(),
        },
        Arc::new(loaded.catalog.clone()),
        Arc::new(Rules::default()),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Plays `game` to its end with `bots`, one per seat, and returns every step as recorded.
fn play_out(
    game: &mut Game,
    bots: &mut [Box<dyn Player + Send>],
    hooks: &mut ScriptHost,
) -> Vec<Step> {
    common::record_checking(game, &mut common::players(bots), hooks, |game| {
        // No tile ever stands off the board's hexes.
        for (c, _) in game.field().tiles() {
            assert!(c.index() < game.field().shape().len());
        }
    })
}

fn bots(names: [&str; 2], seed: u64) -> Vec<Box<dyn Player + Send>> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| hexforge_bots::by_name(n, seed + i as u64).expect("a bot"))
        .collect()
}

/// The game `steps` replays to, from `start`, at its last step.
fn replayed(start: Game, steps: Vec<Step>, hooks: &mut ScriptHost) -> u64 {
    let last = steps.last().map(|s| s.hash);
    let timeline = Timeline::owned(start, steps, hooks).unwrap_or_else(|e| panic!("{e}"));
    let end = timeline
        .state_at(timeline.len(), hooks)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        Some(end.state_hash()),
        last,
        "the replay ends where the game did"
    );
    end.state_hash()
}

#[test]
fn a_bot_match_on_the_hill_plays_to_the_end_and_replays_bit_for_bit() {
    let (loaded, mut scripts) = load();
    let hill = loaded
        .board("king_of_the_hill")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hill.rule.as_deref(), Some("R9.7"));
    let mut game = new_game(&loaded, hill, ["moloch", "borgo"], 7);
    // The hill is marked before the first action: the centre +2, the six around it +1.
    let centre = game.field().shape().cell(Hex::ORIGIN).expect("the centre");
    let mark = game
        .field()
        .mark(MarkOn::Hex(centre), MarkerName::INITIATIVE)
        .expect("the centre is marked");
    assert_eq!(mark.value, 2);
    assert_eq!(game.field().marks().len(), 7);
    let on_standard = new_game(&loaded, &Board::built_in()[0], ["moloch", "borgo"], 7);
    assert_ne!(
        game.state_hash(),
        on_standard.state_hash(),
        "the hill's markers are part of the state"
    );
    let start = game.clone();
    let steps = play_out(&mut game, &mut bots(["greedy", "greedy"], 7), &mut scripts);
    assert!(game.result().is_some(), "the game ends");
    assert_eq!(
        game.field().marks().len(),
        7,
        "the hill's markers last the whole game"
    );
    assert_eq!(replayed(start, steps, &mut scripts), game.state_hash());
}

#[test]
fn a_replay_header_names_the_board_and_starts_on_it() {
    let (loaded, _) = load();
    let header = hexforge_replay::header(
        ("v3", &[], "king_of_the_hill"),
        &loaded.mods,
        vec!["moloch".into(), "borgo".into()],
        3,
        3,
    );
    let mut written = Vec::new();
    hexforge_replay::Recorder::new(&mut written, &header).expect("write to memory");
    let text = String::from_utf8(written).expect("utf-8");
    assert!(
        text.lines().any(|l| l == "board king_of_the_hill"),
        "{text}"
    );
    let replay = hexforge_replay::parse(&text, &loaded.catalog).unwrap_or_else(|e| panic!("{e}"));
    let board = hexforge_replay::header_board(&replay.header, &loaded.mods)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(board.id, "king_of_the_hill");
}

#[test]
fn random_games_on_the_example_map_keep_off_its_holes_and_end() {
    let (loaded, mut scripts) = load();
    let ford = loaded
        .board("sunken_ford")
        .unwrap_or_else(|e| panic!("{e}"));
    let shape = &ford.shape;
    assert_eq!(shape.len(), 31);
    for blocked in [Hex::new(2, -1), Hex::new(-3, 2)] {
        assert!(shape.cell(blocked).is_none(), "{blocked} is a hole");
    }
    // Only the middle's 17 hexes start a battle when full (R4.11, R8.7).
    assert_eq!(shape.main_area().count_ones(), 17);
    for seed in 1..=3 {
        let mut game = new_game(&loaded, ford, ["outpost", "hegemony"], seed);
        let start = game.clone();
        let steps = play_out(
            &mut game,
            &mut bots(["random", "random"], seed),
            &mut scripts,
        );
        assert!(game.result().is_some(), "seed {seed}: the game ends");
        assert_eq!(replayed(start, steps, &mut scripts), game.state_hash());
    }
}

/// The first ```` ```toml ```` block after the line `heading` of `text`.
fn toml_block_after<'t>(text: &'t str, heading: &str) -> Vec<&'t str> {
    let mut lines = text.lines().skip_while(|l| l.trim() != heading);
    let _ = lines.by_ref().find(|l| l.trim() == "```toml");
    lines.take_while(|l| l.trim() != "```").collect()
}

#[test]
fn the_complete_example_of_the_docs_is_a_valid_board() {
    let path = common::root().join("docs/RULESETS.md");
    let text = std::fs::read_to_string(&path).expect("docs/RULESETS.md");
    let block = toml_block_after(&text, "### A complete board file").join("\n");
    assert!(!block.is_empty(), "the Boards section has its example");
    let board = hexforge_content::parse_board(
        &SourceText::new("boards/river_crossing.toml", block),
        "example",
    )
    .unwrap_or_else(|e| panic!("the example of docs/RULESETS.md is refused:\n{e}"));
    assert_eq!(board.id, "river_crossing");
    assert_eq!(board.shape.len(), 37 - 2);
    assert_eq!(board.shape.main_area().count_ones(), 19 - 2);
    assert_eq!(board.marks.len(), 2);
    assert!(board.marks.iter().any(|m| m.value == -1));
}

#[test]
fn a_game_refuses_board_markers_that_are_not_on_its_hexes_or_not_understood() {
    let (loaded, _) = load();
    let catalog = Arc::new(loaded.catalog.clone());
    let shape = Board::built_in()[0].shape.clone();
    let centre = shape.cell(Hex::ORIGIN).expect("the centre");
    let with = |on: MarkOn, name: MarkerName, value: i16| {
        Game::new(
            GameSetup {
                shape: shape.clone(),
                seats: SeatSetup::each_alone(&["moloch", "borgo"]),
                seed: 1,
                marks: vec![hexforge_core::marker::Mark {
                    on,
                    name,
                    lasts: hexforge_core::marker::Lasts::Permanent,
                    value,
                }],
            },
            catalog.clone(),
            Arc::new(Rules::default()),
        )
        .map(|g| g.field().marks().len())
        .map_err(|e| e.to_string())
    };
    assert_eq!(with(MarkOn::Hex(centre), MarkerName::INITIATIVE, 2), Ok(1));
    assert_eq!(
        with(MarkOn::Tile(centre), MarkerName::INITIATIVE, 2),
        Err("the board's markers: the marker `initiative` is not on a hex: a board marks only its hexes".into())
    );
    assert_eq!(
        with(MarkOn::Hex(centre), MarkerName::INITIATIVE, 12),
        Err("the board's markers: the `initiative` marker's value is added to initiative: use -9 to 9, not 12".into())
    );
    assert_eq!(
        with(MarkOn::Hex(centre), MarkerName::ADD_NET, 1),
        Err("the board's markers: the engine's marker `add_net` goes on a tile, not on a hex or a player".into())
    );
}
