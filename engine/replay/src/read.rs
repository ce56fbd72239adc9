//! Reading a replay file back: [`parse`] reads up to a cut-off last step, and a bad line is a
//! [`ReplayError`] giving its number and what the file should hold there.

use crate::action::decode_action;
use crate::format::{FORMAT, Header, Lines, Replay, Step};
use hexforge_core::{Action, Catalog};
use std::fmt;

/// A line of a replay file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// 1-based line number (0: the file as a whole).
    pub line: usize,
    /// What is wrong with the line and what the file should hold there.
    pub message: String,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for ReplayError {}

/// The words a line of a replay file starts with.
const KEYS: &[&str] = &[
    "engine",
    "rules",
    "option",
    "board",
    "seat",
    "teams",
    "mod",
    "file",
    "seed",
    "match_seed",
    "action",
    "pick",
    "phase",
    "hash",
    "end",
];

/// What to do about a damaged replay file.
const DAMAGED: &str =
    "the file is damaged here: record the game again, or cut the file before this line";

/// The message for a seed that is not one.
fn not_a_seed(rest: &str) -> String {
    format!(
        "`{rest}` is not a seed: a seed is a whole number from 0 to {}",
        u64::MAX
    )
}

/// Reads a replay file. A file cut off inside a step is read up to its last complete step
/// (`complete` is false); any other bad line is an error naming it.
pub fn parse(text: &str, catalog: &Catalog) -> Result<Replay, ReplayError> {
    let err = |line: usize, message: String| ReplayError { line, message };
    // Every line the recorder writes ends with a newline: a last line without one was cut off
    // while it was written, and is left out.
    let text = match text.rfind('\n') {
        Some(i) if !text.ends_with('\n') && text.starts_with("hexforge-replay") => &text[..=i],
        _ => text,
    };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end()));
    match lines.next() {
        Some((_, l)) if l == format!("hexforge-replay {FORMAT}") => {}
        Some((n, "hexforge-replay 1")) => {
            return Err(err(
                n,
                format!(
                    "`hexforge-replay 1`: recorded before the state hashes covered the scripts' reseed points (format {FORMAT}); record the game again with this Hexforge"
                ),
            ));
        }
        Some((n, l)) if l.starts_with("hexforge-replay ") => {
            return Err(err(
                n,
                format!(
                    "`{l}`: this Hexforge reads replay format {FORMAT}; replay it with the Hexforge that recorded it, or record the game again"
                ),
            ));
        }
        _ => {
            return Err(err(
                1,
                format!(
                    "not a Hexforge replay: the first line must be `hexforge-replay {FORMAT}`; pass a file written by `hexforge match --replay`"
                ),
            ));
        }
    }
    let mut header = Header::default();
    let mut steps = Vec::new();
    let mut current: Option<(Action, Vec<usize>, Vec<u64>)> = None;
    let mut seed_seen = false;
    let mut at = Lines::default();
    let mut last = 1;
    let mut complete = false;
    for (n, line) in lines {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        last = n;
        if complete {
            return Err(err(
                n,
                "nothing may follow `end`: remove the lines after it".into(),
            ));
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "engine" => header.engine = rest.to_string(),
            "rules" => {
                header.rules = rest.to_string();
                at.rules = n;
            }
            "option" => {
                header.options.push(rest.to_string());
                at.options.push(n);
            }
            "board" => {
                let id_like = rest.starts_with(|c: char| c.is_ascii_lowercase())
                    && rest
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                if !id_like {
                    return Err(err(
                        n,
                        format!(
                            "`{rest}` is not a board id: write `board ID`, e.g. `board standard`, `board extended` or a mod's board"
                        ),
                    ));
                }
                header.board = rest.to_string();
                at.board = n;
            }
            "seat" => {
                header.armies.push(rest.to_string());
                at.seats.push(n);
            }
            "teams" => {
                let teams: Option<Vec<u8>> = rest
                    .split_whitespace()
                    .map(|t| t.parse().ok().filter(|t| *t < 8))
                    .collect();
                match teams {
                    Some(teams) if !teams.is_empty() => header.teams = teams,
                    _ => {
                        return Err(err(
                            n,
                            format!(
                                "`{line}`: write `teams` and each seat's team in seat order, numbers from 0 to 7 (e.g. `teams 0 1 0 1`)"
                            ),
                        ));
                    }
                }
                at.teams = n;
            }
            "mod" => {
                let parts: Vec<&str> = rest.split_whitespace().collect();
                let hash = parts.get(2).and_then(|h| u64::from_str_radix(h, 16).ok());
                match (parts.len(), hash) {
                    (3, Some(h)) => {
                        header
                            .mods
                            .push((parts[0].to_string(), parts[1].to_string(), h));
                        at.mods.push(n);
                    }
                    _ => {
                        return Err(err(
                            n,
                            format!(
                                "`{line}`: write `mod ID VERSION HASH` (a hash of 16 hex digits)"
                            ),
                        ));
                    }
                }
            }
            "file" => {
                let mut words = rest.splitn(3, ' ');
                let (id, hash, path) = (words.next(), words.next(), words.next());
                let hash = hash
                    .filter(|h| h.len() == 8)
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                match (id, hash, path) {
                    (Some(id), Some(hash), Some(path)) if !id.is_empty() && !path.is_empty() => {
                        header.files.push((id.to_string(), path.to_string(), hash));
                    }
                    _ => {
                        return Err(err(
                            n,
                            format!(
                                "`{line}`: write `file MOD HASH PATH` (a hash of 8 hex digits, then the file's path in the mod)"
                            ),
                        ));
                    }
                }
            }
            "seed" => {
                header.seed = rest.parse().map_err(|_| err(n, not_a_seed(rest)))?;
                seed_seen = true;
            }
            "match_seed" => {
                header.match_seed = Some(rest.parse().map_err(|_| err(n, not_a_seed(rest)))?);
            }
            "action" => {
                if current.is_some() {
                    return Err(err(
                        n,
                        format!("an action without the `hash` of the one before: {DAMAGED}"),
                    ));
                }
                let action = decode_action(rest, catalog).map_err(|m| err(n, m))?;
                at.steps.push(n);
                current = Some((action, Vec::new(), Vec::new()));
            }
            "pick" => {
                let pick = rest.parse().map_err(|_| {
                    err(
                        n,
                        format!("`{rest}` is not an option number: write `pick N`, N from 0"),
                    )
                })?;
                match current.as_mut() {
                    Some((_, picks, _)) => picks.push(pick),
                    None => return Err(err(n, format!("a `pick` outside an action: {DAMAGED}"))),
                }
            }
            "phase" => {
                let hash = u64::from_str_radix(rest, 16).map_err(|_| {
                    err(
                        n,
                        format!("`{rest}` is not a hash (16 hex digits): {DAMAGED}"),
                    )
                })?;
                match current.as_mut() {
                    Some((_, _, phases)) => phases.push(hash),
                    None => return Err(err(n, format!("a `phase` outside an action: {DAMAGED}"))),
                }
            }
            "hash" => {
                let hash = u64::from_str_radix(rest, 16).map_err(|_| {
                    err(
                        n,
                        format!("`{rest}` is not a hash (16 hex digits): {DAMAGED}"),
                    )
                })?;
                match current.take() {
                    Some((action, picks, phases)) => steps.push(Step {
                        action,
                        picks,
                        phases,
                        hash,
                    }),
                    None => return Err(err(n, format!("a `hash` outside an action: {DAMAGED}"))),
                }
            }
            "end" => {
                // A finished recording hashes every action: one left without is a damaged file,
                // not a game cut short.
                if current.is_some() {
                    return Err(err(
                        n,
                        format!("`end` after an action without its `hash`: {DAMAGED}"),
                    ));
                }
                complete = true;
            }
            _ => {
                return Err(err(
                    n,
                    format!(
                        "unknown line `{line}`{}: a line starts with one of {}",
                        hexforge_core::names::did_you_mean(key, KEYS.iter().copied()),
                        KEYS.join(", ")
                    ),
                ));
            }
        }
    }
    if !header.teams.is_empty() && header.teams.len() != header.armies.len() {
        return Err(err(
            at.teams,
            format!(
                "{} teams for {} seats: the `teams` line gives one team per `seat` line, in seat order",
                header.teams.len(),
                header.armies.len()
            ),
        ));
    }
    if !seed_seen || header.armies.len() < 2 {
        return Err(err(
            last,
            "the replay's header is incomplete: it needs at least two `seat` lines and a `seed`; record the game again"
                .into(),
        ));
    }
    Ok(Replay {
        header,
        steps,
        complete: complete && current.is_none(),
        lines: at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Recorder;
    use hexforge_core::tile::{Tile, TileKind};
    use hexforge_core::{Dir, Hex, Target};
    use proptest::prelude::*;

    fn catalog() -> Catalog {
        let mut c = Catalog::new();
        c.add_army(
            "a",
            "A",
            3,
            vec![
                Tile::new("a", "hq", TileKind::Hq),
                Tile::new("a", "unit", TileKind::Soldier),
                Tile::new("a", "bomb", TileKind::Instant),
            ],
        )
        .expect("army");
        c
    }

    fn header() -> Header {
        Header {
            engine: "0.1.0".into(),
            rules: "v3".into(),
            options: vec!["tie_breaker=draw".into()],
            board: "standard".into(),
            armies: vec!["a".into(), "a".into()],
            teams: Vec::new(),
            mods: vec![("base".into(), "1.0.0".into(), 0x0123_4567_89ab_cdef)],
            files: vec![
                ("base".into(), "armies/a.toml".into(), 0x0000_00ff),
                ("base".into(), "scripts/a file.lua".into(), 0xdead_beef),
            ],
            seed: 7,
            match_seed: Some(3),
        }
    }

    #[test]
    fn a_mods_file_lines_read_back_and_a_bad_one_says_what_to_write() {
        let c = catalog();
        let mut file = Vec::new();
        Recorder::new(&mut file, &header())
            .expect("header")
            .finish()
            .expect("end");
        let text = String::from_utf8(file).expect("utf-8");
        assert!(
            text.contains("file base deadbeef scripts/a file.lua\n"),
            "{text}"
        );
        assert_eq!(parse(&text, &c).expect("reads back").header, header());
        let bad = text.replace("file base deadbeef", "file base dead");
        let e = parse(&bad, &c).expect_err("a short hash");
        assert!(
            e.message
                .contains("write `file MOD HASH PATH` (a hash of 8 hex digits"),
            "{e}"
        );
    }

    #[test]
    fn a_header_without_a_board_writes_a_file_that_reads_back() {
        // A recorder once wrote `board ` with an empty id, which the reader refused.
        let c = catalog();
        let h = Header {
            board: String::new(),
            ..header()
        };
        let mut file = Vec::new();
        Recorder::new(&mut file, &h)
            .expect("header")
            .finish()
            .expect("end");
        let text = String::from_utf8(file).expect("utf-8");
        assert!(!text.contains("board"), "{text}");
        let read = parse(&text, &c).expect("reads back");
        assert_eq!(read.header.board, "");
    }

    #[test]
    fn every_kind_of_action_reads_back_as_written() {
        let c = catalog();
        let t = |n: &str| c.find(n).expect("tile");
        let h = Hex::new;
        let actions = [
            Action::Place {
                tile: t("a/unit"),
                hex: h(1, -2),
                facing: Dir::new(3),
            },
            Action::Instant {
                tile: t("a/bomb"),
                target: Target::None,
            },
            Action::Instant {
                tile: t("a/bomb"),
                target: Target::Move {
                    unit: h(0, 0),
                    to: h(0, 1),
                    facing: Dir::new(5),
                },
            },
            Action::Instant {
                tile: t("a/bomb"),
                target: Target::Push {
                    pusher: h(0, 0),
                    target: h(1, 0),
                },
            },
            Action::Instant {
                tile: t("a/bomb"),
                target: Target::Unit(h(-1, 2)),
            },
            Action::Instant {
                tile: t("a/bomb"),
                target: Target::Hex(h(0, 0)),
            },
            Action::Move {
                unit: h(0, 0),
                to: h(1, -1),
                facing: Dir::new(1),
            },
            Action::Discard { tile: t("a/unit") },
            Action::Redraw,
            Action::EndTurn,
        ];
        let steps: Vec<Step> = actions
            .iter()
            .enumerate()
            .map(|(i, a)| Step {
                action: *a,
                picks: vec![i % 3; i % 2],
                phases: vec![i as u64 * 0x77; i % 3],
                hash: i as u64 * 0x1111,
            })
            .collect();
        let mut rec = Recorder::new(Vec::new(), &header()).expect("write");
        for s in &steps {
            rec.step(s, &c).expect("write");
        }
        let text = String::from_utf8(rec.finish().expect("end")).expect("utf-8");
        let r = parse(&text, &c).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(r.header, header());
        assert_eq!(r.steps, steps);
        assert!(r.complete);
        // Cut anywhere, the file reads up to its last complete step.
        let cut = &text[..text.len() / 2];
        let r = parse(cut, &c).expect("a cut file reads");
        assert!(!r.complete && r.steps.len() < steps.len());
        assert_eq!(r.steps[..], steps[..r.steps.len()]);
    }

    #[test]
    fn bad_lines_are_reported_by_number() {
        let c = catalog();
        let text = "hexforge-replay 2\nseat a\nseat a\nseed 1\naction place a/ghost 0 0 0\n";
        let e = parse(text, &c).expect_err("unknown tile");
        assert_eq!(
            e.to_string(),
            "line 5: no tile `a/ghost` is loaded: load the mods the replay was recorded with (--mods DIR)"
        );
        let e = parse("hexforge-replay 1\nseat a\n", &c).expect_err("format 1");
        assert!(e.to_string().contains("record the game again"), "{e}");
        let e = parse("hexforge-replay 9\n", &c).expect_err("format");
        assert!(e.to_string().contains("reads replay format 2"), "{e}");
        let e = parse("garbage", &c).expect_err("not a replay");
        assert!(e.to_string().contains("not a Hexforge replay"), "{e}");
    }

    #[test]
    fn replay_errors_say_what_to_do() {
        let c = catalog();
        let head = "hexforge-replay 2\nseat a\nseat a\nseed 1\n";
        for (body, line, want) in [
            (
                "acton end_turn\n",
                5,
                "unknown line `acton end_turn` (did you mean `action`?)",
            ),
            ("action plase a/hq 0 0 0\n", 5, "(did you mean `place`?)"),
            (
                "action place a/hq 0 0\n",
                5,
                "should have 5 words: write `place ARMY/TILE Q R FACING`",
            ),
            ("action place a/hq 0 x 0\n", 5, "`x` is not a whole number"),
            (
                "action place a/hq 0 0 9\n",
                5,
                "facing 9 is not a direction: use 0 to 5",
            ),
            (
                "hash 00\n",
                5,
                "a `hash` outside an action: the file is damaged here",
            ),
            ("pick x\n", 5, "write `pick N`"),
            (
                "action end_turn\nend\n",
                6,
                "`end` after an action without its `hash`: the file is damaged here",
            ),
            ("end\nend\n", 6, "remove the lines after it"),
            ("board Big Board\n", 5, "`Big Board` is not a board id"),
        ] {
            let e = parse(&format!("{head}{body}"), &c).expect_err(body);
            assert_eq!(e.line, line, "{body:?}: {e}");
            assert!(e.message.contains(want), "{body:?}: {e}");
        }
        let e = parse("hexforge-replay 2\nseat a\n", &c).expect_err("no seed");
        assert!(
            e.line == 2 && e.message.contains("record the game again"),
            "{e}"
        );
        let e = parse("hexforge-replay 2\nseed x\n", &c).expect_err("bad seed");
        assert!(e.message.contains("a seed is a whole number"), "{e}");
    }

    proptest! {
        /// Any text, replay-like or not, reads or fails with an error: never a panic.
        #[test]
        fn no_text_makes_the_reader_panic(
            lines in proptest::collection::vec(
                prop_oneof![
                    Just("hexforge-replay 2".to_string()),
                    Just("seat a".to_string()),
                    Just("seed 3".to_string()),
                    Just("end".to_string()),
                    Just("hash 00000000000000ff".to_string()),
                    "pick [0-9]{1,3}",
                    "action (place|move|instant|discard|redraw|end_turn)( a/(hq|unit|bomb))?( -?[0-9]){0,6}",
                    "mod [a-z]{1,4} [0-9.]{1,5} [0-9a-f]{0,16}",
                    ".{0,20}",
                ],
                0..20,
            )
        ) {
            let text = lines.join("\n");
            let _ = parse(&text, &catalog());
        }
    }
}
