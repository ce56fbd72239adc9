//! Hexforge replay files (docs/REPLAY_FORMAT.md): a versioned, line-based text format holding a
//! game's setup (engine version, rules, board, armies, mods with their content hashes, seed) and
//! every action with the decisions taken during it and the state hash after it. [`Recorder`]
//! writes one action at a time and flushes, so a game that stops early leaves a readable file;
//! [`parse`] reads a file back, stopping at a cut-off last step, and reports bad lines by number;
//! a [`Timeline`] shows the game at any step, forwards and backwards.

#![warn(missing_docs)]

pub mod setup;

pub use setup::{StartError, header, header_board, mod_differences, start, start_replay};

use hexforge_core::decision::{Decider, Decision};
use hexforge_core::game::{LegalActions, Player, Seats, next_action};
use hexforge_core::{
    AbilityHooks, Action, ActionError, Battlefield, Catalog, Dir, Event, EventSink, Game,
    GameResult, Hex, Target, TileRef,
};
use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

/// The format this code writes and reads.
pub const FORMAT: u32 = 2;

/// What a game was set up with.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Header {
    /// The Hexforge version that recorded it.
    pub engine: String,
    /// The rules preset (a built-in edition or a mod's preset).
    pub rules: String,
    /// Rule options given on top of the preset, as `KEY=VALUE`.
    pub options: Vec<String>,
    /// The id of the board the game was played on: `standard`, `extended` or a mod's board
    /// (docs/RULESETS.md, "Boards"); empty in a file without a `board` line, which plays on the
    /// standard board.
    pub board: String,
    /// The army of each seat, in seat order.
    pub armies: Vec<String>,
    /// The team of each seat, in seat order (players of one team are allies, R8.4, R8.5);
    /// empty in a file without a `teams` line, where every player is on their own.
    pub teams: Vec<u8>,
    /// The mods loaded: id, version, content hash.
    pub mods: Vec<(String, String, u64)>,
    /// The seed of the game (its shuffles and first player).
    pub seed: u64,
    /// The seed the match was started with, from which the game's and the bots' seeds came
    /// (`hexforge match --seed`), when the game was a match.
    pub match_seed: Option<u64>,
}

/// One action of a player, the decisions taken while it resolved, and the state after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The action as the player made it, played again to replay the step.
    pub action: Action,
    /// The option picked for each decision asked during the action, in order.
    pub picks: Vec<usize>,
    /// `Battlefield::state_hash` after each battle phase fought during the action, in order.
    pub phases: Vec<u64>,
    /// `Game::state_hash` after the action.
    pub hash: u64,
}

/// A replay file read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// How the game was set up: what replaying it must load and start from.
    pub header: Header,
    /// Every complete step, in the order played.
    pub steps: Vec<Step>,
    /// The file ends with `end`; a file cut off (a game that stopped) is read up to its last
    /// complete step.
    pub complete: bool,
    /// Where the file says each thing, for errors that name the line to look at.
    pub lines: Lines,
}

/// The 1-based line of each header entry and step of a replay file (0: not in the file).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Lines {
    /// The `rules` line.
    pub rules: usize,
    /// The `board` line.
    pub board: usize,
    /// Each `option` line, in order.
    pub options: Vec<usize>,
    /// Each `seat` line, in seat order.
    pub seats: Vec<usize>,
    /// The `teams` line.
    pub teams: usize,
    /// Each `mod` line, in order.
    pub mods: Vec<usize>,
    /// Each step's `action` line, in order.
    pub steps: Vec<usize>,
}

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

fn tile_name(catalog: &Catalog, t: TileRef) -> String {
    catalog.get(t).full_id()
}

fn hex(h: Hex) -> String {
    format!("{} {}", h.q(), h.r())
}

/// An action as a replay line (after `action `): tiles by `army/tile`, hexes as `q r`.
pub fn encode_action(action: &Action, catalog: &Catalog) -> String {
    match *action {
        Action::Place {
            tile,
            hex: h,
            facing,
        } => format!(
            "place {} {} {}",
            tile_name(catalog, tile),
            hex(h),
            facing.index()
        ),
        Action::Instant { tile, target } => {
            let t = tile_name(catalog, tile);
            match target {
                Target::None => format!("instant {t} none"),
                Target::Move { unit, to, facing } => format!(
                    "instant {t} move {} {} {}",
                    hex(unit),
                    hex(to),
                    facing.index()
                ),
                Target::Push { pusher, target } => {
                    format!("instant {t} push {} {}", hex(pusher), hex(target))
                }
                Target::Unit(h) => format!("instant {t} unit {}", hex(h)),
                Target::Hex(h) => format!("instant {t} hex {}", hex(h)),
            }
        }
        Action::Move { unit, to, facing } => {
            format!("move {} {} {}", hex(unit), hex(to), facing.index())
        }
        Action::Discard { tile } => format!("discard {}", tile_name(catalog, tile)),
        Action::Redraw => "redraw".to_string(),
        Action::EndTurn => "end_turn".to_string(),
        Action::Rule {
            rule,
            action,
            target,
            facing,
            tile,
        } => {
            let (r, a) = catalog
                .game_rules()
                .get(usize::from(rule))
                .map(|r| {
                    let a = r
                        .actions
                        .get(usize::from(action))
                        .map_or_else(|| action.to_string(), |a| a.name.clone());
                    (format!("{}/{}", r.mod_id, r.name), a)
                })
                .unwrap_or_else(|| (rule.to_string(), action.to_string()));
            match (target, facing, tile) {
                (Some(h), Some(f), _) => format!("rule {r} {a} {} {}", hex(h), f.index()),
                (Some(h), None, _) => format!("rule {r} {a} {}", hex(h)),
                (None, _, Some(t)) => format!("rule {r} {a} tile {}", tile_name(catalog, t)),
                (None, _, None) => format!("rule {r} {a} none"),
            }
        }
    }
}

/// The words an action line starts with.
const ACTIONS: &[&str] = &[
    "place", "instant", "move", "discard", "redraw", "end_turn", "rule",
];

/// How each action is written, for errors about one.
const SHAPES: &str = "write `place ARMY/TILE Q R FACING`, `instant ARMY/TILE none|unit Q R|hex Q R|push Q R Q R|move Q R Q R FACING`, `move Q R Q R FACING`, `discard ARMY/TILE`, `redraw`, `end_turn` or `rule MOD/RULE ACTION none|Q R|Q R FACING|tile ARMY/TILE`";

/// The words a line of a replay file starts with.
const KEYS: &[&str] = &[
    "engine",
    "rules",
    "option",
    "board",
    "seat",
    "teams",
    "mod",
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

/// Reads an action written by [`encode_action`].
pub fn decode_action(text: &str, catalog: &Catalog) -> Result<Action, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let tile = |w: Option<&&str>| -> Result<TileRef, String> {
        let name = w.ok_or("a tile is missing")?;
        catalog.find(name).ok_or_else(|| {
            let ids: Vec<String> = catalog
                .armies()
                .iter()
                .flat_map(|a| a.tiles.iter().map(|t| catalog.get(*t).full_id()))
                .collect();
            format!(
                "no tile `{name}` is loaded{}: load the mods the replay was recorded with (--mods DIR)",
                hexforge_core::names::did_you_mean(name, ids.iter().map(String::as_str))
            )
        })
    };
    let int = |i: usize| -> Result<i32, String> {
        words
            .get(i)
            .ok_or_else(|| format!("`{text}` is too short: {SHAPES}"))?
            .parse()
            .map_err(|_| {
                format!(
                    "`{}` is not a whole number: hexes are `q r` and facings 0 to 5",
                    words[i]
                )
            })
    };
    let hx = |i: usize| -> Result<Hex, String> { Ok(Hex::new(int(i)?, int(i + 1)?)) };
    let dir = |i: usize| -> Result<Dir, String> {
        let d = int(i)?;
        u8::try_from(d)
            .ok()
            .filter(|d| *d < 6)
            .map(Dir::new)
            .ok_or_else(|| format!("facing {d} is not a direction: use 0 to 5"))
    };
    let exact = |n: usize| -> Result<(), String> {
        if words.len() == n {
            Ok(())
        } else {
            Err(format!("`{text}` should have {n} words: {SHAPES}"))
        }
    };
    let action = match words.first().copied() {
        Some("place") => {
            exact(5)?;
            Action::Place {
                tile: tile(words.get(1))?,
                hex: hx(2)?,
                facing: dir(4)?,
            }
        }
        Some("instant") => {
            let t = tile(words.get(1))?;
            let target = match words.get(2).copied() {
                Some("none") => {
                    exact(3)?;
                    Target::None
                }
                Some("move") => {
                    exact(8)?;
                    Target::Move {
                        unit: hx(3)?,
                        to: hx(5)?,
                        facing: dir(7)?,
                    }
                }
                Some("push") => {
                    exact(7)?;
                    Target::Push {
                        pusher: hx(3)?,
                        target: hx(5)?,
                    }
                }
                Some("unit") => {
                    exact(5)?;
                    Target::Unit(hx(3)?)
                }
                Some("hex") => {
                    exact(5)?;
                    Target::Hex(hx(3)?)
                }
                _ => {
                    return Err(format!(
                        "`{text}`: the target is none, move, push, unit or hex{}",
                        hexforge_core::names::did_you_mean(
                            words.get(2).copied().unwrap_or_default(),
                            ["none", "move", "push", "unit", "hex"]
                        )
                    ));
                }
            };
            Action::Instant { tile: t, target }
        }
        Some("move") => {
            exact(6)?;
            Action::Move {
                unit: hx(1)?,
                to: hx(3)?,
                facing: dir(5)?,
            }
        }
        Some("discard") => {
            exact(2)?;
            Action::Discard {
                tile: tile(words.get(1))?,
            }
        }
        Some("redraw") => {
            exact(1)?;
            Action::Redraw
        }
        Some("end_turn") => {
            exact(1)?;
            Action::EndTurn
        }
        Some("rule") => {
            let named = words.get(1).copied().unwrap_or_default();
            let rules = catalog.game_rules();
            let Some(rule) = rules
                .iter()
                .position(|r| format!("{}/{}", r.mod_id, r.name) == named)
            else {
                let known: Vec<String> = rules
                    .iter()
                    .map(|r| format!("{}/{}", r.mod_id, r.name))
                    .collect();
                return Err(format!(
                    "`{text}`: no loaded mod defines the game rule `{named}`{}; load its mod (rules loaded: {})",
                    hexforge_core::names::did_you_mean(named, known.iter().map(String::as_str)),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ));
            };
            let wanted = words.get(2).copied().unwrap_or_default();
            let actions = &rules[rule].actions;
            let Some(action) = actions.iter().position(|a| a.name == wanted) else {
                return Err(format!(
                    "`{text}`: the game rule `{named}` has no action `{wanted}`{}",
                    hexforge_core::names::did_you_mean(
                        wanted,
                        actions.iter().map(|a| a.name.as_str())
                    )
                ));
            };
            let (target, facing, tile) = match words.get(3).copied() {
                Some("none") => {
                    exact(4)?;
                    (None, None, None)
                }
                Some("tile") => {
                    exact(5)?;
                    (None, None, Some(tile(words.get(4))?))
                }
                _ if words.len() == 6 => (Some(hx(3)?), Some(dir(5)?), None),
                _ => {
                    exact(5)?;
                    (Some(hx(3)?), None, None)
                }
            };
            Action::Rule {
                rule: rule as u8,
                action: action as u8,
                target,
                facing,
                tile,
            }
        }
        _ => {
            return Err(format!(
                "unknown action `{text}`{}: an action is place, instant, move, discard, redraw, end_turn or rule",
                hexforge_core::names::did_you_mean(
                    words.first().copied().unwrap_or_default(),
                    ACTIONS.iter().copied()
                )
            ));
        }
    };
    Ok(action)
}

/// Writes a replay file one step at a time, flushing after each, so what was written stays
/// readable if the game stops.
pub struct Recorder<W: Write> {
    out: W,
}

impl<W: Write> Recorder<W> {
    /// Starts a file with its header.
    pub fn new(mut out: W, header: &Header) -> io::Result<Self> {
        writeln!(out, "hexforge-replay {FORMAT}")?;
        writeln!(out, "engine {}", header.engine)?;
        writeln!(out, "rules {}", header.rules)?;
        for o in &header.options {
            writeln!(out, "option {o}")?;
        }
        writeln!(out, "board {}", header.board)?;
        for a in &header.armies {
            writeln!(out, "seat {a}")?;
        }
        if !header.teams.is_empty() {
            let teams: Vec<String> = header.teams.iter().map(u8::to_string).collect();
            writeln!(out, "teams {}", teams.join(" "))?;
        }
        for (id, version, hash) in &header.mods {
            writeln!(out, "mod {id} {version} {hash:016x}")?;
        }
        writeln!(out, "seed {}", header.seed)?;
        if let Some(m) = header.match_seed {
            writeln!(out, "match_seed {m}")?;
        }
        out.flush()?;
        Ok(Recorder { out })
    }

    /// Appends one step: its action, its picks, and the hash after it.
    pub fn step(&mut self, step: &Step, catalog: &Catalog) -> io::Result<()> {
        writeln!(self.out, "action {}", encode_action(&step.action, catalog))?;
        for p in &step.picks {
            writeln!(self.out, "pick {p}")?;
        }
        for p in &step.phases {
            writeln!(self.out, "phase {p:016x}")?;
        }
        writeln!(self.out, "hash {:016x}", step.hash)?;
        self.out.flush()
    }

    /// Writes the `end` line that marks a complete game, flushes, and gives the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        writeln!(self.out, "end")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

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
            "end" => complete = true,
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

/// An event sink that keeps a copy of the board up to date from the events and notes its hash
/// at the end of every battle phase, passing every event on.
pub struct PhaseHashes<'s, S: ?Sized> {
    board: Battlefield,
    /// The board's state hash after each battle phase so far, in order.
    pub hashes: Vec<u64>,
    /// Where every event goes on to, unchanged.
    pub sink: &'s mut S,
}

impl<'s, S: EventSink + ?Sized> PhaseHashes<'s, S> {
    /// Starts from `board`, the board before the action.
    pub fn new(board: Battlefield, sink: &'s mut S) -> Self {
        PhaseHashes {
            board,
            hashes: Vec::new(),
            sink,
        }
    }
}

impl<S: EventSink + ?Sized> EventSink for PhaseHashes<'_, S> {
    fn push(&mut self, event: Event) {
        self.board.apply(&event);
        if let Event::PhaseEnded { .. } = event {
            self.hashes.push(self.board.state_hash());
        }
        self.sink.push(event);
    }
}

/// A decider that notes the option picked for each decision, passing the question on.
pub struct Noting<'d, D: ?Sized> {
    /// The decider that actually answers.
    pub inner: &'d mut D,
    /// The option picked for each decision so far, in order: what a step records.
    pub picks: Vec<usize>,
}

impl<D: Decider + ?Sized> Decider for Noting<'_, D> {
    fn decide(&mut self, field: &Battlefield, decision: &Decision<'_>) -> usize {
        let pick = self.inner.decide(field, decision);
        self.picks.push(pick);
        pick
    }
}

/// A decider that answers with the picks a replay recorded, in order (the first option once
/// they run out).
pub struct Picks<'p> {
    picks: &'p [usize],
    next: usize,
}

impl<'p> Picks<'p> {
    /// A decider that answers with `picks` in order, starting from the first.
    pub fn new(picks: &'p [usize]) -> Self {
        Picks { picks, next: 0 }
    }

    /// Whether every recorded pick was asked for.
    pub fn all_used(&self) -> bool {
        self.next == self.picks.len()
    }
}

impl Decider for Picks<'_> {
    fn decide(&mut self, _field: &Battlefield, _decision: &Decision<'_>) -> usize {
        let pick = self.picks.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        pick
    }
}

/// A recorded step the engine refuses: the replay does not belong to this engine and content.
#[derive(Debug)]
pub struct Refused {
    /// The step's index (0-based).
    pub step: usize,
    /// Why the engine refuses it.
    pub error: Box<ActionError>,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "step {} is refused: {}", self.step + 1, self.error)
    }
}

impl std::error::Error for Refused {}

/// A replayed game that can show the state at any step, forwards or backwards: it keeps a copy
/// of the game every [`Timeline::EVERY`] steps and plays on from the nearest one.
pub struct Timeline<'r> {
    steps: Cow<'r, [Step]>,
    /// The game before step `i * EVERY`, for every `i` up to the last step.
    snapshots: Vec<Game>,
}

impl<'r> Timeline<'r> {
    /// Steps between two kept copies of the game.
    pub const EVERY: usize = 16;

    /// Plays the whole replay once from `start` (the game before its first action), keeping the
    /// copies. Errors with the first step the engine refuses.
    pub fn new(
        start: Game,
        steps: &'r [Step],
        hooks: &mut dyn AbilityHooks,
    ) -> Result<Self, Refused> {
        Self::play(start, Cow::Borrowed(steps), hooks)
    }

    /// [`Timeline::new`] over steps it keeps, so it can outlive the replay it was read from.
    pub fn owned(
        start: Game,
        steps: Vec<Step>,
        hooks: &mut dyn AbilityHooks,
    ) -> Result<Timeline<'static>, Refused> {
        Timeline::play(start, Cow::Owned(steps), hooks)
    }

    fn play(
        start: Game,
        steps: Cow<'r, [Step]>,
        hooks: &mut dyn AbilityHooks,
    ) -> Result<Self, Refused> {
        let mut snapshots = vec![start.clone()];
        let mut game = start;
        for (i, step) in steps.iter().enumerate() {
            apply(&mut game, step, hooks).map_err(|e| Refused {
                step: i,
                error: Box::new(e),
            })?;
            if (i + 1) % Self::EVERY == 0 {
                snapshots.push(game.clone());
            }
        }
        Ok(Timeline { steps, snapshots })
    }

    /// Every step of the replay, in the order played.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// How many steps the replay has; [`Timeline::state_at`] takes 0 up to this.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the replay has no step: only the starting state can be shown.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The game after the first `n` steps (`n` up to [`Timeline::len`]).
    pub fn state_at(&self, n: usize, hooks: &mut dyn AbilityHooks) -> Result<Game, ActionError> {
        let n = n.min(self.steps.len());
        let k = (n / Self::EVERY).min(self.snapshots.len() - 1);
        let mut game = self.snapshots[k].clone();
        for step in &self.steps[k * Self::EVERY..n] {
            apply(&mut game, step, hooks)?;
        }
        Ok(game)
    }
}

/// Plays `action` and returns the step a replay records of it: the decisions `decider` gave,
/// the board hash after each battle phase and the state hash after the action. Events go on to
/// `sink`.
pub fn act_noted<H, D, S>(
    game: &mut Game,
    action: Action,
    hooks: &mut H,
    decider: &mut D,
    sink: &mut S,
) -> Result<Step, ActionError>
where
    H: AbilityHooks + ?Sized,
    D: Decider + ?Sized,
    S: EventSink + ?Sized,
{
    let mut noting = Noting {
        inner: decider,
        picks: Vec::new(),
    };
    let mut phased = PhaseHashes::new(game.field().clone(), sink);
    game.act(&action, hooks, &mut noting, &mut phased)?;
    Ok(Step {
        action,
        picks: noting.picks,
        phases: phased.hashes,
        hash: game.state_hash(),
    })
}

/// Why a game being recorded stopped before its end.
#[derive(Debug)]
pub enum RecordError {
    /// The engine refused an action it listed as legal (an engine bug).
    Refused(ActionError),
    /// The replay file cannot be written.
    Write(io::Error),
    /// The game stopped with no result: the engine listed no action.
    Unfinished,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Refused(e) => {
                write!(f, "the engine refused an action it listed as legal: {e}")
            }
            RecordError::Write(e) => write!(f, "cannot write the replay: {e}"),
            RecordError::Unfinished => f.write_str("the game stopped before its end"),
        }
    }
}

impl std::error::Error for RecordError {}

/// Plays `game` to its end with one player per seat, as `play_out` does, appending each action
/// to `recorder` (flushed at once, so a game that stops leaves a readable file) and ending the
/// file.
pub fn record_game<W: Write>(
    game: &mut Game,
    players: &mut [&mut dyn Player],
    hooks: &mut dyn AbilityHooks,
    mut recorder: Recorder<W>,
) -> Result<GameResult, RecordError> {
    let mut legal = LegalActions::new();
    while let Some(action) = next_action(game, players, &mut *hooks, &mut legal) {
        let mut seats = Seats {
            players: &mut *players,
        };
        let step = act_noted(game, action, &mut *hooks, &mut seats, &mut ())
            .map_err(RecordError::Refused)?;
        recorder
            .step(&step, game.catalog())
            .map_err(RecordError::Write)?;
    }
    recorder.finish().map_err(RecordError::Write)?;
    game.result().ok_or(RecordError::Unfinished)
}

/// What playing a recorded step again found, to compare with the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The board hash after each battle phase (the step recorded `phases`).
    pub phases: Vec<u64>,
    /// Whether the engine asked for every recorded decision.
    pub all_picks_used: bool,
}

/// Plays a recorded step again with its recorded decisions; compare what it returns with the
/// step, and `game.state_hash()` with `step.hash`. Events go on to `sink`.
pub fn replay_step<H, S>(
    game: &mut Game,
    step: &Step,
    hooks: &mut H,
    sink: &mut S,
) -> Result<Replayed, ActionError>
where
    H: AbilityHooks + ?Sized,
    S: EventSink + ?Sized,
{
    let mut picks = Picks::new(&step.picks);
    let mut phased = PhaseHashes::new(game.field().clone(), sink);
    game.act(&step.action, hooks, &mut picks, &mut phased)?;
    Ok(Replayed {
        phases: phased.hashes,
        all_picks_used: picks.all_used(),
    })
}

/// Plays one recorded step with its recorded decisions.
pub fn apply(
    game: &mut Game,
    step: &Step,
    hooks: &mut dyn AbilityHooks,
) -> Result<(), ActionError> {
    let mut picks = Picks::new(&step.picks);
    game.act(&step.action, hooks, &mut picks, &mut ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::tile::{Tile, TileKind};
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
            seed: 7,
            match_seed: Some(3),
        }
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
