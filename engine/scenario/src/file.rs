//! The scenario file format: raw `*Def` structures and their validation into a [`Scenario`], one
//! part of the file after the other (rules, players, game, board, steps, choices, expectations),
//! every problem located in the file.

mod board;
mod def;
mod expect;
mod game_start;
mod players;
mod read;
mod rules;
mod scenario;
mod steps;

pub use def::{
    ChoiceDef, ExpectDef, GameDef, HexMarkerDef, HexMarkersDef, LinkDef, LinkExpectDef, MarkerDef,
    PlayerDef, ScenarioDef, StepDef, TileDef,
};
pub use expect::link_shown;
pub use scenario::{
    BATTLE_CAUSES, ChoiceSpec, Expect, ExpectedMarker, GameStart, Labelled, PlayStep, Scenario,
    Step,
};

use hexforge_content::diagnostic::parse_toml;
use hexforge_content::{Board, Diagnostics, SourceText};
use hexforge_core::{Catalog, Setup};
use read::{Labels, PlayerIds, Reader};
use std::path::Path;

/// Reads and validates a scenario file against the loaded tiles, on a built-in board.
pub fn load_scenario(path: &Path, catalog: &Catalog) -> Result<Scenario, Diagnostics> {
    parse_scenario(&SourceText::read(path, "scenario")?, catalog)
}

/// Reads and validates a scenario file against the loaded tiles and `boards` (the built-in ones
/// and the mods', as `LoadedMods::boards` lists them).
pub fn load_scenario_with_boards(
    path: &Path,
    catalog: &Catalog,
    boards: &[&Board],
) -> Result<Scenario, Diagnostics> {
    parse_scenario_with_boards(&SourceText::read(path, "scenario")?, catalog, boards)
}

/// Parses then validates a scenario's text, on a built-in board; every problem is reported at
/// once.
pub fn parse_scenario(src: &SourceText, catalog: &Catalog) -> Result<Scenario, Diagnostics> {
    let built: Vec<&Board> = Board::built_in().iter().collect();
    parse_scenario_with_boards(src, catalog, &built)
}

/// Parses then validates a scenario's text whose `board` may name any of `boards`; every
/// problem is reported at once, in the order of the parts of the file read.
pub fn parse_scenario_with_boards(
    src: &SourceText,
    catalog: &Catalog,
    boards: &[&Board],
) -> Result<Scenario, Diagnostics> {
    // A replay given where a scenario goes reads as bad TOML: say what it is instead.
    if src.text().starts_with("hexforge-replay") {
        return Err(Diagnostics(vec![src.error(
            0..0,
            "this is a replay file, not a scenario: play it with `hexforge replay FILE`, or make a scenario of it with `hexforge replay FILE --to-scenario OUT.toml`",
        )]));
    }
    let def: ScenarioDef = parse_toml(src)?;
    let mut r = Reader::new(src);
    let game_mode = def.game.is_some();
    let (rules, board) = rules::read(&mut r, &def, catalog, boards);
    let shape = board.shape.clone();
    let players = players::read(&mut r, &def.name, &def.player, game_mode, catalog, &rules);
    let game = def
        .game
        .as_ref()
        .map(|g| game_start::read(&mut r, g, &players));
    let ids = PlayerIds(&players.ids);
    let mut labels = Labels::default();
    let tiles = board::tiles(&mut r, &def.tile, &shape, &ids, catalog, &mut labels);
    let hex_marks = board::hex_marks(&mut r, &def.hex_marker, &shape);
    let links = board::links(&mut r, &def.link, &shape, &ids);
    let steps = steps::read(
        &mut r,
        &def.step,
        &steps::Context {
            ids: PlayerIds(&players.ids),
            catalog,
            game_mode,
        },
        &mut labels,
    );
    let choices = steps::choices(&mut r, &def.choice, &labels);
    let expect = def.expect.map_or_else(Default::default, |e| {
        let cx = expect::Context {
            ids: PlayerIds(&players.ids),
            labels: &labels,
            shape: &shape,
            catalog,
            game_mode,
        };
        expect::read(&mut r, e, &cx)
    });
    let setup = Setup {
        shape,
        players: players.setups,
        tiles: tiles.tiles,
    };
    // The engine checks the starting board of a file that reads well; a scenario that expects an
    // error is refused when it runs, as it says.
    if r.is_clean() && expect.error.is_none() {
        board::check(
            &mut r,
            &setup,
            &tiles.spans,
            &links,
            &def.link,
            &ids,
            catalog,
        );
    }
    r.finish()?;
    // The board's own markers first: a `[[hex_marker]]` of the same name on a hex replaces one.
    let marks = [board.start_marks(), players.marks, tiles.marks, hex_marks].concat();
    Ok(Scenario {
        name: def.name.into_inner(),
        cites: def.rules,
        rules,
        setup,
        marks,
        links,
        player_ids: players.ids,
        armies: players.armies,
        tiles: labels.list,
        steps,
        choices,
        expect,
        game,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::marker::{Lasts, Mark, MarkOn, MarkerName};
    use hexforge_core::tile::{Tile, TileKind};
    use hexforge_core::{BoardShape, Dir, Hex, Seat};

    fn catalog() -> Catalog {
        let mut c = Catalog::new();
        let mut hq = Tile::new("x", "hq", TileKind::Hq);
        hq.initiative = hexforge_core::Initiative::new(&[0]).expect("init");
        c.add_army("x", "X", 35, vec![hq]).expect("army");
        c
    }

    #[test]
    fn every_scenario_problem_is_located() {
        let text = r#"name = "bad"
preset = "v4"

[options]
net_cycle_rule = "rings"

[[player]]
id = "a"
army = "x"

[[player]]
id = "b"
army = "nope"

[[tile]]
owner = "c"
tile = "x/hq"
at = [5, 0]

[expect]
removed = ["ghost"]
"#;
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("invalid");
        let shown: Vec<String> = errs.iter().map(|d| d.to_string()).collect();
        let expected = [
            "s.toml:2:10: unknown preset `v4`",
            "s.toml:5:18: rule option `net_cycle_rule` expects one of pairs_only",
            "s.toml:13:8: unknown army `nope`: use one of the loaded armies (x)",
            "s.toml:16:9: owner `c` is not one of the players: use one of a, b",
            "s.toml:18:6: hex [5, 0] is not on the standard board",
            "s.toml:21:12: expect.removed names `ghost`",
        ];
        assert_eq!(shown.len(), expected.len(), "{shown:#?}");
        for (s, e) in shown.iter().zip(expected) {
            assert!(s.starts_with(e), "\n got: {s}\nwant: {e}...");
        }
    }

    #[test]
    fn a_replay_given_as_a_scenario_is_named_as_one() {
        let src = SourceText::new("game.txt", "hexforge-replay 2\nengine 0.2.0\n");
        let e = parse_scenario(&src, &catalog())
            .expect_err("a replay")
            .to_string();
        assert!(
            e.starts_with("game.txt:1:1: this is a replay file, not a scenario"),
            "{e}"
        );
    }

    #[test]
    fn place_steps_are_checked_field_by_field() {
        let text = r#"name = "place"

[[player]]
id = "a"
army = "x"

[[player]]
id = "b"
army = "x"

[[step]]
do = "place"
by = "z"
tile = "x/hq"
at = [0]
colour = "red"
"#;
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("invalid");
        let shown: Vec<String> = errs.iter().map(|d| d.to_string()).collect();
        let expected = [
            "s.toml:15:6: `at` must be two whole numbers [q, r], e.g. [0, -1]",
            "s.toml:16:10: `colour` is not a field of a `place` step",
            "s.toml:13:6: `by = \"z\"` is not one of the players: use one of a, b",
        ];
        assert_eq!(shown.len(), expected.len(), "{shown:#?}");
        for e in expected {
            assert!(
                shown.iter().any(|s| s.starts_with(e)),
                "missing {e} in {shown:#?}"
            );
        }
    }

    const PLAYERS: &str = "name = \"s\"\n\n[[player]]\nid = \"a\"\narmy = \"x\"\n\n[[player]]\nid = \"b\"\narmy = \"x\"\n";

    #[test]
    fn a_refused_starting_board_names_the_tile_line() {
        let text = format!(
            "{PLAYERS}\n[[tile]]\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 0]\n\n[[tile]]\nowner = \"b\"\ntile = \"x/hq\"\nat = [0, 0]\n"
        );
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("occupied");
        assert_eq!(
            errs.to_string(),
            "s.toml:19:6: hex [0, 0] already holds the tile of line 14: put this one on a free hex"
        );
    }

    #[test]
    fn a_hex_of_the_wrong_length_is_refused_with_its_shape() {
        let text = format!("{PLAYERS}\n[[tile]]\nowner = \"a\"\ntile = \"x/hq\"\nat = [1, 2, 3]\n");
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("3 values");
        assert_eq!(
            errs.to_string(),
            "s.toml:14:6: `at` must be two whole numbers [q, r]; found 3 values"
        );
    }

    #[test]
    fn markers_at_the_start_and_in_expectations_are_read() {
        let text = format!(
            "{PLAYERS}markers = [{{ name = \"tide\", value = 3 }}]\n\n[[tile]]\nlabel = \"h\"\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 0]\nmarkers = [{{ name = \"soaked\", lasts = 2, value = -4 }}, {{ name = \"unpushable\", lasts = \"battle\" }}]\n\n[[hex_marker]]\nat = [1, 0]\nname = \"flooded\"\nlasts = \"turn\"\n\n[expect]\nmarkers = {{ h = [\"soaked\", {{ name = \"unpushable\", value = 0 }}] }}\nhex_markers = [{{ at = [1, 0], markers = [] }}]\nplayer_markers = {{ b = [\"tide\"] }}\n"
        );
        let s = parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect("valid");
        let shape = BoardShape::standard();
        let cell = |q, r| shape.cell(Hex::new(q, r)).expect("on the board");
        let name = |n| MarkerName::new(n).expect("a name");
        let mut marks = s.marks.clone();
        marks.sort_by_key(|m| (m.on, m.name));
        assert_eq!(
            marks,
            [
                Mark {
                    on: MarkOn::Tile(cell(0, 0)),
                    name: name("soaked"),
                    lasts: Lasts::Turns(2),
                    value: -4
                },
                Mark {
                    on: MarkOn::Tile(cell(0, 0)),
                    name: name("unpushable"),
                    lasts: Lasts::Battle,
                    value: 0
                },
                Mark {
                    on: MarkOn::Hex(cell(1, 0)),
                    name: name("flooded"),
                    lasts: Lasts::Turn,
                    value: 0
                },
                Mark {
                    on: MarkOn::Player(Seat::new(1)),
                    name: name("tide"),
                    lasts: Lasts::Permanent,
                    value: 3
                },
            ]
        );
        assert_eq!(
            s.expect.markers,
            [(
                "h".to_string(),
                vec![(name("soaked"), None), (name("unpushable"), Some(0))]
            )]
        );
        assert_eq!(s.expect.hex_markers, [(Hex::new(1, 0), vec![])]);
        assert_eq!(
            s.expect.player_markers,
            [(Seat::new(1), "b".to_string(), vec![(name("tide"), None)])]
        );
    }

    #[test]
    fn bad_markers_are_located_in_the_projects_words() {
        let text = format!(
            "{PLAYERS}\n[[tile]]\nlabel = \"h\"\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 0]\nmarkers = [{{ name = \"Soaked\" }}, {{ name = \"wet\", lasts = \"battel\" }}, {{ name = \"wet\", lasts = 100 }}, {{ name = \"wet\", value = 1000 }}]\n\n[expect]\nmarkers = {{ g = [\"wet\"] }}\nplayer_markers = {{ c = [] }}\n"
        );
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("invalid");
        let shown: Vec<String> = errs.iter().map(|d| d.to_string()).collect();
        let expected = [
            "s.toml:16:21: `Soaked` is not a marker name: use 1 to 12 lowercase letters",
            "s.toml:16:57: `lasts = \"battel\"` (did you mean `battle`?) is not how long a marker lasts",
            "s.toml:16:93: `lasts = 100` is not how long a marker lasts",
            "s.toml:16:124: marker value 1000 is out of range: use a whole number from -999 to 999",
            "s.toml:19:17: expect.markers names `g`, which is no tile's label: use the `label` of a tile",
            "s.toml:20:24: expect.player_markers names `c`, who is not a player: use one of a, b",
        ];
        assert_eq!(shown.len(), expected.len(), "{shown:#?}");
        for e in expected {
            assert!(
                shown.iter().any(|s| s.starts_with(e)),
                "missing {e} in {shown:#?}"
            );
        }
        // An unknown key of a marker suggests the closest.
        let text = format!("{PLAYERS}\n[[hex_marker]]\nat = [0, 0]\nname = \"wet\"\nlast = 2\n");
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("unknown key");
        assert!(
            errs.to_string().contains("(did you mean `lasts`?)"),
            "{errs}"
        );
    }

    #[test]
    fn markers_at_the_start_of_a_game_are_read_into_its_position() {
        let text = format!("{PLAYERS}markers = [{{ name = \"tide\" }}]\n\n[game]\nnext = \"a\"\n");
        let s = parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect("valid");
        assert!(s.game.is_some());
        assert_eq!(s.marks.len(), 1);
        assert_eq!(s.marks[0].name.to_string(), "tide");
    }

    #[test]
    fn unknown_names_in_a_scenario_suggest_the_closest() {
        let text = format!(
            "{PLAYERS}preset = \"v4\"\n\n[[tile]]\nowner = \"aa\"\ntile = \"x/hqq\"\nat = [0, 0]\n\n[[step]]\ndo = \"batle\"\n"
        )
        .replacen("name = \"s\"\n", "name = \"s\"\npreset = \"v4\"\n", 1)
        .replacen("preset = \"v4\"\n\n[[tile]]", "\n[[tile]]", 1);
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("unknown");
        let shown = errs.to_string();
        for want in [
            "unknown preset `v4` (did you mean `v3`?)",
            "owner `aa` is not one of the players (did you mean `a`?)",
            "unknown tile `x/hqq` (did you mean `x/hq`?)",
            "unknown step `batle` (did you mean `battle`?)",
        ] {
            assert!(shown.contains(want), "missing {want} in\n{shown}");
        }
    }

    /// Every problem of `text`, one line each.
    fn problems(text: &str) -> Vec<String> {
        parse_scenario(&SourceText::new("s.toml", text), &catalog())
            .expect_err("invalid")
            .iter()
            .map(|d| d.to_string())
            .collect()
    }

    #[test]
    fn a_battle_step_outside_a_game_refuses_unknown_fields() {
        let text = format!("{PLAYERS}\n[[step]]\ndo = \"battle\"\nby = \"zzz\"\ncolour = 1\n");
        assert_eq!(
            problems(&text),
            [
                "s.toml:13:6: `by` is not a field of a `battle` step: its fields are do",
                "s.toml:14:10: `colour` is not a field of a `battle` step: its fields are do",
            ]
        );
        // In a game, a battle step is a Battle tile played by `by`, and nothing else.
        let text = format!(
            "{PLAYERS}\n[game]\nnext = \"a\"\n\n[[step]]\ndo = \"battle\"\nby = \"a\"\ncolour = 1\n"
        );
        assert_eq!(
            problems(&text),
            ["s.toml:17:10: `colour` is not a field of a `battle` step: its fields are do, by"]
        );
    }

    #[test]
    fn step_hexes_out_of_range_are_refused_like_tile_hexes() {
        let text = format!(
            "{PLAYERS}\n[[tile]]\nlabel = \"h\"\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 0]\n\n[[step]]\ndo = \"move\"\nby = \"a\"\nunit = \"h\"\nto = [4294967296, -1]\n\n[[step]]\ndo = \"place\"\nby = \"b\"\ntile = \"x/hq\"\nat = [0, -2147483649]\n"
        );
        assert_eq!(
            problems(&text),
            [
                "s.toml:21:6: `to`: 4294967296 is out of range: write [q, r] with small whole numbers",
                "s.toml:27:6: `at`: -2147483649 is out of range: write [q, r] with small whole numbers",
            ]
        );
        // The largest coordinates that fit are read as written.
        let text = format!(
            "{PLAYERS}\n[[step]]\ndo = \"place\"\nby = \"b\"\ntile = \"x/hq\"\nat = [2147483647, -2147483648]\n"
        );
        let s = parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect("valid");
        assert!(matches!(
            &s.steps[..],
            [Step::Place { hex, .. }] if *hex == Hex::new(i32::MAX, i32::MIN)
        ));
    }

    #[test]
    fn an_expected_facing_outside_0_to_5_is_refused() {
        let text = format!(
            "{PLAYERS}\n[[tile]]\nlabel = \"h\"\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 0]\n\n[expect]\npositions = {{ h = [0, 0, 7] }}\n"
        );
        assert_eq!(
            problems(&text),
            ["s.toml:18:26: `expect.positions.h`: facing 7 is not a direction from 0 to 5"]
        );
        let text = text.replace("[0, 0, 7]", "[0, 0, -1]");
        assert_eq!(
            problems(&text),
            ["s.toml:18:26: `expect.positions.h`: facing -1 is not a direction from 0 to 5"]
        );
        let text = text.replace("[0, 0, -1]", "[0, 0, 5]");
        let s = parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect("valid");
        assert_eq!(
            s.expect.positions,
            [(
                "h".to_string(),
                Hex::new(0, 0),
                Dir::from_index(5).expect("a direction")
            )]
        );
    }

    #[test]
    fn negative_expectations_are_refused() {
        let text = format!(
            "{PLAYERS}deck = [\"x/hq\"]\n\n[game]\nnext = \"a\"\n\n[[tile]]\nlabel = \"h\"\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 0]\n\n[expect]\nwounds = {{ h = -3 }}\ndeck = {{ a = -1 }}\ndiscard = {{ b = -2 }}\nhq = {{ a = -5, b = 4294967316 }}\n"
        );
        let shown = problems(&text);
        let expected = [
            "s.toml:25:12: expect.hq.a = -5 is out of range: use a whole number of hit points, from 0 to 65535",
            "s.toml:25:20: expect.hq.b = 4294967316 is out of range: use a whole number of hit points, from 0 to 65535",
            "s.toml:22:16: expect.wounds.h = -3 is out of range: use a whole number of wounds, from 0 to 255",
            "s.toml:23:14: expect.deck.a = -1 is out of range: use a whole number of tiles, 0 or more",
            "s.toml:24:17: expect.discard.b = -2 is out of range: use a whole number of tiles, 0 or more",
        ];
        // `x/hq` is no tile of a draw pile: that problem comes first.
        assert_eq!(shown.len(), expected.len() + 1, "{shown:#?}");
        assert_eq!(&shown[1..], expected);
    }

    #[test]
    fn hq_and_seed_out_of_range_are_refused_with_the_range() {
        let text = "name = \"s\"\n\n[[player]]\nid = \"a\"\narmy = \"x\"\nhq = 4294967297\n\n[[player]]\nid = \"b\"\narmy = \"x\"\nhq = -1\n\n[game]\nnext = \"a\"\nseed = -1\n";
        assert_eq!(
            problems(text),
            [
                "s.toml:6:6: hq 4294967297 is out of range: use a whole number of hit points, from 0 to 65535",
                "s.toml:11:6: hq -1 is out of range: use a whole number of hit points, from 0 to 65535",
                "s.toml:15:8: game.seed -1 is out of range: use a whole number from 0 to 9223372036854775807",
            ]
        );
        let text = text
            .replace("4294967297", "65535")
            .replace("hq = -1", "hq = 0")
            .replace("seed = -1", "seed = 9223372036854775807");
        let s = parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect("valid");
        let hp: Vec<i32> = s.setup.players.iter().map(|p| p.hq_hp).collect();
        assert_eq!(hp, [65535, 0]);
        assert_eq!(s.game.map(|g| g.seed), Some(i64::MAX as u64));
    }

    #[test]
    fn a_second_hq_is_named_by_the_player_id() {
        let text = format!(
            "{PLAYERS}\n[[tile]]\nowner = \"b\"\ntile = \"x/hq\"\nat = [0, 0]\n\n[[tile]]\nowner = \"b\"\ntile = \"x/hq\"\nat = [1, 0]\n"
        );
        assert_eq!(
            problems(&text),
            [
                "s.toml:19:6: player `b` already has an HQ on the board; a second one is on [1, 0]: a player has one HQ, remove one of them"
            ]
        );
    }

    #[test]
    fn parsing_keeps_game_steps_off_a_board_and_bare_battles_out_of_a_game() {
        // The runners rely on it: a board without `[game]` has no step of a game in progress...
        for step in [
            "do = \"discard\"\nby = \"a\"\ntile = \"x/hq\"",
            "do = \"redraw\"\nby = \"a\"",
            "do = \"end_turn\"\nby = \"a\"",
            "do = \"rule\"\nby = \"a\"\nrule = \"r\"\naction = \"go\"",
        ] {
            let text = format!("{PLAYERS}\n[[step]]\n{step}\n");
            let errs = parse_scenario(&SourceText::new("s.toml", text), &catalog())
                .expect_err("a step of a game");
            assert!(
                errs.to_string()
                    .contains("is a step of a game in progress: add a `[game]` table"),
                "{errs}"
            );
        }
        // ...and every battle step of a game is a Battle tile its player plays.
        let text =
            format!("{PLAYERS}\n[game]\nnext = \"a\"\n\n[[step]]\ndo = \"battle\"\nby = \"a\"\n");
        let s = parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect("valid");
        assert!(matches!(
            &s.steps[..],
            [Step::Play {
                play: PlayStep::Battle,
                ..
            }]
        ));
        let text = format!("{PLAYERS}\n[game]\nnext = \"a\"\n\n[[step]]\ndo = \"battle\"\n");
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("no `by`");
        assert_eq!(
            errs.to_string(),
            "s.toml:15:6: a `battle` step needs `by`: add `by = ...` to it"
        );
    }
}
