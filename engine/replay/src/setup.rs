//! A replay's setup against the loaded content: the header of a game about to be recorded, which
//! recorded mods are not loaded as they were, and the game a header starts from.

use crate::format::{Header, Replay};
use crate::read::ReplayError;
use hexforge_content::{
    Board, ModInfo, RulesError, UnknownBoard, find_board, mod_presets, table_board, table_rules,
};
use hexforge_core::rules::OptionError;
use hexforge_core::{AbilityHooks, Catalog, EventSink, Game, GameError, GameSetup, SeatSetup};
use std::fmt;
use std::sync::Arc;

/// The header of a replay of a game of `armies` on the table `(rules preset, options, board
/// id)` with `mods` (their versions and content hashes), the game seeded with `seed` and the
/// match (its bots' seeds) with `match_seed`.
pub fn header(
    (rules, options, board): (&str, &[String], &str),
    mods: &[ModInfo],
    armies: Vec<String>,
    seed: u64,
    match_seed: u64,
) -> Header {
    Header {
        engine: hexforge_content::ENGINE_VERSION.to_string(),
        rules: rules.to_string(),
        options: options.to_vec(),
        board: board.to_string(),
        armies,
        teams: Vec::new(),
        mods: mods
            .iter()
            .map(|m| {
                (
                    m.id.clone(),
                    m.manifest.version.to_string(),
                    hexforge_content::mod_hash(m),
                )
            })
            .collect(),
        files: mods
            .iter()
            .flat_map(|m| {
                hexforge_content::mod_files(m)
                    .into_iter()
                    .map(|(path, hash)| (m.id.clone(), path, hash))
            })
            .collect(),
        seed,
        match_seed: Some(match_seed),
    }
}

/// The recorded mods that are not loaded as they were, one line each: missing, or with other
/// content. The content hash covers what changes play (`hexforge_content::mod_hash`): a mod
/// whose comments or version string alone changed plays the replay; a hash recorded by an
/// earlier release (`legacy_mod_hash`, the whole text and the version) is accepted too. Where
/// the replay recorded the mod's `files` (mod id, path, play hash), a mod with other content
/// names the files that differ in play: changed, added since, or gone.
pub fn mod_differences(
    loaded: &[ModInfo],
    recorded: &[(String, String, u64)],
    files: &[(String, String, u32)],
) -> Vec<String> {
    recorded
        .iter()
        .filter_map(
            |(id, version, hash)| match loaded.iter().find(|m| m.id == *id) {
                None => Some(format!("`{id}` {version} is not loaded")),
                Some(m) => {
                    let now = hexforge_content::mod_hash(m);
                    let same = now == *hash || hexforge_content::legacy_mod_hash(m) == *hash;
                    (!same).then(|| {
                        let mut line = format!(
                            "`{id}` was {version} #{hash:016x}, is {} #{now:016x}",
                            m.manifest.version
                        );
                        let differ = file_differences(m, files);
                        if !differ.is_empty() {
                            line.push_str(&format!("; in play, {}", differ.join(", ")));
                        }
                        line
                    })
                }
            },
        )
        .collect()
}

/// The files of the loaded mod `m` that differ in play from those a replay recorded for it
/// (`files`: mod id, path, play hash), in path order: `PATH changed`, `PATH is new`, `PATH is
/// gone`. Empty when the replay recorded none of the mod's files.
pub fn file_differences(m: &ModInfo, files: &[(String, String, u32)]) -> Vec<String> {
    let was: Vec<(&str, u32)> = files
        .iter()
        .filter(|(id, _, _)| *id == m.id)
        .map(|(_, path, hash)| (path.as_str(), *hash))
        .collect();
    if was.is_empty() {
        return Vec::new();
    }
    let now = hexforge_content::mod_files(m);
    let mut paths: Vec<&str> = was
        .iter()
        .map(|(p, _)| *p)
        .chain(now.iter().map(|(p, _)| p.as_str()))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|p| {
            let before = was.iter().find(|(q, _)| *q == p).map(|(_, h)| *h);
            let after = now.iter().find(|(q, _)| q == p).map(|(_, h)| *h);
            match (before, after) {
                (Some(a), Some(b)) if a != b => Some(format!("{p} changed")),
                (None, Some(_)) => Some(format!("{p} is new")),
                (Some(_), None) => Some(format!("{p} is gone")),
                _ => None,
            }
        })
        .collect()
}

/// Why the game of a header cannot be set up with the loaded content.
#[derive(Debug)]
pub enum StartError {
    /// The rules preset or an option is not known.
    Rules(RulesError),
    /// The engine refuses the setup (an army that is not loaded, a seat count it does not play).
    Game(GameError),
    /// The board is neither built in nor one of the loaded mods'.
    Board(UnknownBoard),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Rules(e) => e.fmt(f),
            StartError::Game(e) => e.fmt(f),
            StartError::Board(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StartError {}

/// The game a replay with `header` starts from (before its first action), with the rules presets
/// of `mods` and the tiles of `catalog`; `hooks` (the mods' scripts) run the `setup` hooks of the
/// game rules in play.
pub fn start(
    header: &Header,
    mods: &[ModInfo],
    catalog: Arc<Catalog>,
    hooks: &mut dyn AbilityHooks,
) -> Result<Game, StartError> {
    start_noted(header, mods, catalog, hooks, &mut ())
}

/// [`start`], the events of the set-up (what the `setup` hooks of the game rules in play do)
/// going to `sink`, as `hexforge match` prints them before the first action.
pub fn start_noted<S: EventSink + ?Sized>(
    header: &Header,
    mods: &[ModInfo],
    catalog: Arc<Catalog>,
    hooks: &mut dyn AbilityHooks,
    sink: &mut S,
) -> Result<Game, StartError> {
    let rules = table_rules(
        &header.rules,
        &header.options,
        &mod_presets(mods),
        catalog.options(),
        catalog.implications(),
    )
    .map_err(StartError::Rules)?;
    let board = table_board(header_board(header, mods)?, &rules);
    Game::start(
        GameSetup {
            shape: board.shape.clone(),
            seats: seats(header),
            seed: header.seed,
            marks: board.start_marks(),
        },
        catalog,
        Arc::new(rules),
        hooks,
        sink,
    )
    .map_err(StartError::Game)
}

/// The seats of a header: each army with its team from the `teams` line, or every player on
/// their own when the file has none.
pub fn seats(header: &Header) -> Vec<SeatSetup> {
    if header.teams.is_empty() {
        return SeatSetup::each_alone(&header.armies);
    }
    header
        .armies
        .iter()
        .zip(&header.teams)
        .map(|(army, team)| SeatSetup {
            army: army.clone(),
            team: *team,
        })
        .collect()
}

/// The board a header names among the built-in boards and those of `mods`; a header without a
/// board (a file without a `board` line) plays on the standard one.
pub fn header_board<'m>(header: &Header, mods: &'m [ModInfo]) -> Result<&'m Board, StartError> {
    let id = if header.board.is_empty() {
        hexforge_content::boards::DEFAULT_BOARD
    } else {
        header.board.as_str()
    };
    find_board(
        Board::built_in()
            .iter()
            .chain(mods.iter().flat_map(|m| m.boards.iter())),
        id,
    )
    .map_err(StartError::Board)
}

/// [`start`] for a replay read from a file, with a refusal located at the line of the file that
/// causes it (the `seat` of an army that is not loaded, the `rules` or `option` line) and saying
/// what to do.
pub fn start_replay(
    replay: &Replay,
    mods: &[ModInfo],
    catalog: Arc<Catalog>,
    hooks: &mut dyn AbilityHooks,
) -> Result<Game, ReplayError> {
    let h = &replay.header;
    let at = &replay.lines;
    start(h, mods, catalog, hooks).map_err(|e| {
        let first_seat = at.seats.first().copied().unwrap_or(1);
        let seat_of = |army: &str| {
            h.armies
                .iter()
                .position(|a| a == army)
                .and_then(|i| at.seats.get(i).copied())
                .unwrap_or(first_seat)
        };
        let option_of = |key: &str| {
            h.options
                .iter()
                .position(|o| o.split('=').next().map(str::trim) == Some(key))
                .and_then(|i| at.options.get(i).copied())
                .or(at.options.first().copied())
                .unwrap_or(at.rules)
        };
        let line = match &e {
            StartError::Game(GameError::UnknownArmy { army, .. })
            | StartError::Game(GameError::ArmyHq { army, .. }) => seat_of(army),
            StartError::Game(GameError::Unsupported { key }) => option_of(key.as_str()),
            StartError::Rules(RulesError::Option(
                OptionError::UnknownKey { key, .. }
                | OptionError::BadValue { key, .. }
                | OptionError::Removed { key, .. },
            )) => option_of(key),
            StartError::Rules(RulesError::NotKeyValue(o)) => option_of(o),
            StartError::Rules(RulesError::UnknownPreset { .. }) => at.rules,
            StartError::Board(_) => at.board,
            StartError::Game(GameError::Teams(_)) if at.teams != 0 => at.teams,
            StartError::Game(_) => first_seat,
        };
        let message = match &e {
            // Other content would not bring a removed option back.
            StartError::Game(GameError::UnknownArmy { .. } | GameError::Teams(_))
            | StartError::Rules(RulesError::Option(OptionError::Removed { .. })) => e.to_string(),
            _ => format!(
                "{e} (the replay was recorded with other content: load its mods with --mods DIR)"
            ),
        };
        ReplayError {
            line: line.max(1),
            message,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`start`] with no scripts: none of these games has a game rule in play.
    fn begin(header: &Header, mods: &[ModInfo], catalog: Arc<Catalog>) -> Result<Game, StartError> {
        start(header, mods, catalog, &mut hexforge_core::NoAbilities)
    }

    /// [`start_replay`] with no scripts.
    fn begin_replay(
        replay: &Replay,
        mods: &[ModInfo],
        catalog: Arc<Catalog>,
    ) -> Result<Game, ReplayError> {
        start_replay(replay, mods, catalog, &mut hexforge_core::NoAbilities)
    }
    use std::path::Path;

    fn loaded() -> hexforge_content::LoadedMods {
        hexforge_content::load_mods(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods")])
    }

    fn table_header(loaded: &hexforge_content::LoadedMods, rules: &str) -> Header {
        let armies: Vec<String> = loaded
            .catalog
            .armies()
            .iter()
            .take(2)
            .map(|a| a.id.clone())
            .collect();
        header(
            (rules, &["tie_breaker=draw".to_string()], "standard"),
            &loaded.mods,
            armies,
            11,
            5,
        )
    }

    #[test]
    fn the_loaded_mods_match_the_header_made_from_them() {
        let loaded = loaded();
        let h = table_header(&loaded, "v3");
        assert_eq!(h.mods.len(), loaded.mods.len());
        assert_eq!(h.match_seed, Some(5));
        assert!(mod_differences(&loaded.mods, &h.mods, &h.files).is_empty());
        let mut other = h.mods.clone();
        other[0].2 ^= 1;
        other.push(("ghost".into(), "1.0.0".into(), 0));
        let d = mod_differences(&loaded.mods, &other, &[]);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].starts_with(&format!("`{}` was ", other[0].0)), "{d:?}");
        assert!(!d[0].contains("in play"), "no files recorded: {d:?}");
        assert_eq!(d[1], "`ghost` 1.0.0 is not loaded");
        // With the files recorded, the mod that differs names them: one changed, one gone,
        // one new since.
        let id = &other[0].0;
        let mut files = h.files.clone();
        let mine: Vec<usize> = (0..files.len()).filter(|i| files[*i].0 == *id).collect();
        assert!(mine.len() >= 2, "{files:?}");
        files[mine[0]].2 ^= 1;
        let changed = files[mine[0]].1.clone();
        let new = files.remove(mine[1]).1;
        files.push((id.clone(), "scripts/old.lua".into(), 7));
        let d = mod_differences(&loaded.mods, &other[..1], &files);
        assert_eq!(
            d,
            [format!(
                "`{id}` was {} #{:016x}, is {} #{:016x}; in play, {}",
                other[0].1,
                other[0].2,
                loaded.mods[0].manifest.version,
                hexforge_content::mod_hash(&loaded.mods[0]),
                {
                    let mut each = [
                        format!("{changed} changed"),
                        format!("{new} is new"),
                        "scripts/old.lua is gone".to_string(),
                    ];
                    each.sort();
                    each.join(", ")
                }
            )]
        );
        // A replay recorded by an earlier release names the text hash; a version string alone
        // changes nothing.
        let mut old = h.mods.clone();
        old[0].2 = hexforge_content::legacy_mod_hash(&loaded.mods[0]);
        old[0].1 = "0.9.0".into();
        assert!(mod_differences(&loaded.mods, &old, &[]).is_empty());
    }

    #[test]
    fn a_header_starts_its_game_or_says_why_not() {
        let loaded = loaded();
        let catalog = Arc::new(loaded.catalog.clone());
        let h = table_header(&loaded, "v3");
        let game = begin(&h, &loaded.mods, catalog.clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(game.field().player_count(), 2);
        assert_eq!(game.army(hexforge_core::Seat::new(1)), h.armies[1]);
        let again = begin(&h, &loaded.mods, catalog.clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            game.state_hash(),
            again.state_hash(),
            "the seed fixes the game"
        );
        let e = begin(&table_header(&loaded, "v9"), &loaded.mods, catalog.clone())
            .expect_err("unknown preset");
        assert!(
            e.to_string().starts_with("unknown rules preset `v9`"),
            "{e}"
        );
        let mut ghost = h.clone();
        ghost.armies[0] = "ghosts".into();
        assert!(matches!(
            begin(&ghost, &loaded.mods, catalog),
            Err(StartError::Game(_))
        ));
    }

    #[test]
    fn an_army_that_is_not_loaded_names_its_seat_line_and_the_loaded_armies() {
        let loaded = loaded();
        let catalog = Arc::new(loaded.catalog.clone());
        let mut h = table_header(&loaded, "v3");
        h.armies[1] = "molloch".into();
        let mut written = Vec::new();
        crate::record::Recorder::new(&mut written, &h).expect("write to memory");
        let text = String::from_utf8(written).expect("utf-8");
        let replay = crate::read::parse(&text, &loaded.catalog).unwrap_or_else(|e| panic!("{e}"));
        let e = begin_replay(&replay, &loaded.mods, catalog.clone()).expect_err("molloch");
        let seat = text
            .lines()
            .position(|l| l == "seat molloch")
            .expect("seat line")
            + 1;
        assert_eq!(e.line, seat, "{e}");
        let ids: Vec<&str> = loaded
            .catalog
            .armies()
            .iter()
            .map(|a| a.id.as_str())
            .collect();
        assert!(
            e.message.starts_with(&format!(
                "no army `molloch` is loaded; did you mean `moloch`? Loaded: {}",
                ids.join(", ")
            )),
            "{e}"
        );
        let mut preset = h.clone();
        preset.armies[1] = "moloch".into();
        preset.rules = "v33".into();
        let mut written = Vec::new();
        crate::record::Recorder::new(&mut written, &preset).expect("write to memory");
        let text = String::from_utf8(written).expect("utf-8");
        let replay = crate::read::parse(&text, &loaded.catalog).unwrap_or_else(|e| panic!("{e}"));
        let e = begin_replay(&replay, &loaded.mods, catalog).expect_err("v33");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("(did you mean `v3`?)"), "{e}");
    }

    #[test]
    fn a_header_plays_on_its_board_and_an_unknown_board_names_its_line() {
        let loaded = loaded();
        let catalog = Arc::new(loaded.catalog.clone());
        let mut h = table_header(&loaded, "v3");
        h.board = "king_of_the_hill".into();
        let game = begin(&h, &loaded.mods, catalog.clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(game.field().shape().name(), "king_of_the_hill");
        assert_eq!(game.field().marks().len(), 7, "the hill's hexes are marked");
        // A file without a `board` line plays on the standard board.
        h.board = String::new();
        let old = begin(&h, &loaded.mods, catalog.clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(old.field().shape().name(), "standard");
        assert!(old.field().marks().is_empty());
        h.board = "king_of_the_hil".into();
        let mut written = Vec::new();
        crate::record::Recorder::new(&mut written, &h).expect("write to memory");
        let text = String::from_utf8(written).expect("utf-8");
        let replay = crate::read::parse(&text, &loaded.catalog).unwrap_or_else(|e| panic!("{e}"));
        let e = begin_replay(&replay, &loaded.mods, catalog).expect_err("unknown board");
        let line = text
            .lines()
            .position(|l| l == "board king_of_the_hil")
            .expect("board line")
            + 1;
        assert_eq!(e.line, line, "{e}");
        // The loaded mods' boards follow the built-in ones, whichever mods ship them.
        assert!(
            e.message.starts_with(
                "unknown board `king_of_the_hil` (did you mean `king_of_the_hill`?): use one of standard, extended, "
            ) && e.message.contains(" king_of_the_hill"),
            "{e}"
        );
        assert!(e.message.contains("--mods"), "{e}");
    }

    #[test]
    fn a_removed_option_names_its_line_and_why_it_was_removed() {
        let loaded = loaded();
        let catalog = Arc::new(loaded.catalog.clone());
        let mut h = table_header(&loaded, "v3");
        h.options.push("netted_can_push=true".into());
        let mut written = Vec::new();
        crate::record::Recorder::new(&mut written, &h).expect("write to memory");
        let text = String::from_utf8(written).expect("utf-8");
        let replay = crate::read::parse(&text, &loaded.catalog).unwrap_or_else(|e| panic!("{e}"));
        let e = begin_replay(&replay, &loaded.mods, catalog).expect_err("removed option");
        let line = text
            .lines()
            .position(|l| l == "option netted_can_push=true")
            .expect("option line")
            + 1;
        assert_eq!(e.line, line, "{e}");
        assert!(
            e.message.starts_with(
                "rule option `netted_can_push` was removed: a netted unit never pushes"
            ),
            "{e}"
        );
        assert!(
            !e.message.contains("--mods"),
            "other mods would not help: {e}"
        );
    }

    #[test]
    fn a_recorded_game_reads_back_and_replays_to_every_recorded_state() {
        let loaded = loaded();
        let h = table_header(&loaded, "v3");
        let mut game = begin(&h, &loaded.mods, Arc::new(loaded.catalog.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        let begin = game.clone();
        let mut written = Vec::new();
        let recorder = crate::record::Recorder::new(&mut written, &h).expect("write to memory");
        // No players: every seat ends its turn, so the game runs to the end of the piles.
        let result = crate::record::record_game(
            &mut game,
            &mut [],
            &mut hexforge_core::NoAbilities,
            recorder,
        );
        assert!(result.is_ok(), "{result:?}");
        let text = String::from_utf8(written).expect("utf-8");
        let replay = crate::read::parse(&text, &loaded.catalog).unwrap_or_else(|e| panic!("{e}"));
        assert!(replay.complete && !replay.steps.is_empty());
        assert_eq!(replay.header, h);
        let last = replay.steps.last().map(|s| s.hash);
        let timeline =
            crate::timeline::Timeline::owned(begin, replay.steps, &mut hexforge_core::NoAbilities)
                .unwrap_or_else(|e| panic!("{e}"));
        let end = timeline
            .state_at(timeline.len(), &mut hexforge_core::NoAbilities)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(Some(end.state_hash()), last);
        assert_eq!(end.state_hash(), game.state_hash());
    }
}
