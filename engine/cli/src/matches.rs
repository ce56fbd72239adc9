//! `hexforge match` and `hexforge matches`: whole games between bots, one with a readable log, or
//! many in parallel with a table of results.

use anyhow::{Result, bail};
use hexforge_content::{Board, RulePreset};
use hexforge_core::game::{LegalActions, Player, Seats};
use hexforge_core::tile::DeclaredOption;
use hexforge_core::{AbilityHooks, ActionError, Catalog, Event, Game, GameResult, Rules};
use hexforge_lab::{Lineup, Seating, game_seed, stopped};
use hexforge_log::GameLog;
use hexforge_replay::act_noted;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What both commands share: the rules and the board.
pub struct Table {
    pub preset: String,
    pub options: Vec<String>,
    /// The board chosen (`--board`, built in or a mod's).
    pub board: Board,
    /// The rule presets the loaded mods define.
    pub presets: Vec<RulePreset>,
    /// The rule options the loaded mods declare, by key.
    pub declared: BTreeMap<String, DeclaredOption>,
    /// The loaded mods' implications of declared options on engine keys, in load order.
    pub implications: Vec<hexforge_core::tile::Implication>,
}

impl Table {
    /// The rules: a built-in edition or a mod's preset, then the options.
    pub fn rules(&self) -> Result<Rules> {
        Ok(hexforge_content::table_rules(
            &self.preset,
            &self.options,
            &self.presets,
            &self.declared,
            &self.implications,
        )?)
    }

    /// The rules as a command line gives them (`classic --option ... --board standard`), as a
    /// balance result file records them.
    pub fn rules_line(&self) -> String {
        hexforge_lab::rules_line(&self.preset, &self.options, &self.board.id)
    }

    /// The rules preset, the options and the board's id, as a replay's header takes them
    /// ([`hexforge_replay::header`]).
    pub fn setup(&self) -> (&str, &[String], &str) {
        (&self.preset, &self.options, &self.board.id)
    }

    /// The board played with `rules`: the one chosen, or the extended one when the rules ask
    /// for it on the standard board (R8.7).
    pub fn board(&self, rules: &Rules) -> &Board {
        hexforge_content::table_board(&self.board, rules)
    }
}

/// The teams of `--team` labels, one per army in seat order: the first label seen is team 0,
/// the next new one team 1, and so on (`1,2,1,2` and `b,a,b,a` both give 0, 1, 0, 1); `None`
/// when no label is given. Whether the teams make a game is the engine's to say (R8).
pub fn seat_teams(armies: &[String], labels: &[String]) -> Result<Option<Vec<u8>>> {
    if labels.is_empty() {
        return Ok(None);
    }
    if labels.len() != armies.len() {
        bail!(
            "{} teams for {} armies: give one team per --army, in seat order (e.g. --team 1,2,1,2 for four armies)",
            labels.len(),
            armies.len()
        );
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut teams = Vec::with_capacity(labels.len());
    for label in labels {
        let label = label.trim();
        if label.is_empty() {
            bail!("an empty team in --team: name each seat's team, e.g. --team 1,2,1,2");
        }
        let team = match seen.iter().position(|l| *l == label) {
            Some(i) => i,
            None => {
                seen.push(label);
                seen.len() - 1
            }
        };
        teams.push(team as u8);
    }
    Ok(Some(teams))
}

/// The bot of seat `seat`: its own `--bot`, else the last one given, else `random`.
fn bot_name(names: &[String], seat: usize) -> &str {
    names
        .get(seat)
        .or(names.last())
        .map_or("random", String::as_str)
}

/// What `hexforge match` prints besides the result line.
pub struct Show {
    /// Only the result line: no turn-by-turn log.
    pub quiet: bool,
    /// The final state's hash after the result line.
    pub hash: bool,
    /// What the game is played with, for the log's header: the mods, their versions and
    /// content hashes, and the engine's version.
    pub content: String,
}

/// Prints a game's events as the match log does (`hexforge_log::GameLog`): one line
/// per event worth telling, the HQ HP after each battle, then the result line.
pub struct Printer {
    log: GameLog,
    lines: Vec<String>,
    quiet: bool,
}

impl Printer {
    pub fn new(game: &Game, armies: &[&str], quiet: bool) -> Self {
        Printer {
            log: GameLog::new(game, armies),
            lines: Vec::new(),
            quiet,
        }
    }

    /// The printer for `reader`: what the log hides from them (another player's draws, secret
    /// markers' values, secret actions' tiles) is printed hidden.
    pub fn for_reader(mut self, reader: hexforge_log::Reader) -> Self {
        self.log = self.log.for_reader(reader);
        self
    }

    pub fn names(&self) -> &[String] {
        self.log.players()
    }

    /// The events of one action.
    pub fn events(&mut self, out: &mut impl Write, events: &[Event]) -> Result<()> {
        for e in events {
            if self.quiet {
                self.log.follow(e);
                continue;
            }
            self.lines.clear();
            self.log.tell(e, &mut self.lines);
            for line in &self.lines {
                writeln!(out, "{line}")?;
            }
        }
        Ok(())
    }

    /// The result line.
    pub fn result(&self, out: &mut impl Write, game: &Game, seed: u64) -> Result<()> {
        writeln!(out, "{}", self.log.result_line(game, seed))?;
        Ok(())
    }
}

/// Plays one game with a readable log (or only the result line).
#[allow(clippy::too_many_arguments)]
pub fn play_match(
    out: &mut impl Write,
    catalog: Catalog,
    scripts: &mut dyn AbilityHooks,
    table: &Table,
    (armies, teams): (&[String], Option<&[u8]>),
    bot_names: &[String],
    seed: u64,
    show: Show,
    record: Option<&dyn Fn(u64) -> Result<hexforge_replay::Recorder<std::fs::File>>>,
) -> Result<()> {
    let quiet = show.quiet;
    if armies.len() < 2 {
        bail!("give at least two armies: --army moloch --army borgo");
    }
    let rules = Arc::new(table.rules()?);
    let board = table.board(&rules);
    let catalog = Arc::new(catalog);
    let lineup = Lineup {
        armies: armies.iter().map(String::as_str).collect(),
        teams,
        bots: (0..armies.len()).map(|i| bot_name(bot_names, i)).collect(),
        seed,
    };
    let mut set_up: Vec<Event> = Vec::new();
    let (mut game, mut bots) = hexforge_lab::start(
        &lineup,
        (&catalog, &rules, board),
        &mut *scripts,
        &mut set_up,
    )?;
    let mut printer = Printer::new(&game, &lineup.armies, quiet);
    let names = printer.names().to_vec();
    let mut recorder = match record {
        Some(make) => Some(make(
            hexforge_bots::match_seeds(seed, lineup.armies.len()).0,
        )?),
        None => None,
    };
    if !quiet {
        let who: Vec<String> = names
            .iter()
            .zip(&lineup.bots)
            .map(|(n, b)| format!("{n} ({b})"))
            .collect();
        writeln!(
            out,
            "Match: {}; rules {}; seed {seed}",
            who.join(" vs "),
            table.preset
        )?;
        if !show.content.is_empty() {
            writeln!(out, "Content: {}", show.content)?;
        }
        writeln!(out, "Setup: each player places their HQ")?;
    }
    printer.events(out, &set_up)?;
    let mut legal = LegalActions::new();
    let mut events: Vec<Event> = Vec::new();
    while let Some(seat) = game.current() {
        game.legal_actions(&mut legal);
        let pick = bots[seat.index()]
            .act(&game, &legal, &mut *scripts)
            .min(legal.len().saturating_sub(1));
        let Some(action) = legal.get(pick) else {
            bail!("no legal action for {seat}: {}", game.nothing_open());
        };
        events.clear();
        let mut players: Vec<&mut dyn Player> = bots
            .iter_mut()
            .map(|b| b.as_mut() as &mut dyn Player)
            .collect();
        let mut seats = Seats {
            players: &mut players,
        };
        match recorder.as_mut() {
            Some(r) => {
                let step = act_noted(&mut game, action, &mut *scripts, &mut seats, &mut events)
                    .map_err(refused)?;
                r.step(&step, game.catalog())?;
            }
            None => game
                .act(&action, &mut *scripts, &mut seats, &mut events)
                .map_err(refused)?,
        }
        printer.events(out, &events)?;
    }
    if let Some(r) = recorder {
        r.finish()?;
    }
    printer.result(out, &game, seed)?;
    if show.hash {
        writeln!(out, "State hash: {:016x}", game.state_hash())?;
    }
    Ok(())
}

/// Makes the replay file of game `k` of a series, given its armies, game seed and match seed.
pub type MakeRecorder<'a> = dyn Fn(usize, &[&str], u64, u64) -> Result<hexforge_replay::Recorder<std::fs::File>>
    + Sync
    + 'a;

/// Plays a game to its end as `play_out` does, writing each action with its decisions and the
/// state hash after it to `recorder` (`hexforge_replay::record_game`).
fn play_recorded(
    game: &mut Game,
    players: &mut [&mut dyn Player],
    scripts: &mut dyn AbilityHooks,
    recorder: hexforge_replay::Recorder<std::fs::File>,
) -> Result<GameResult> {
    use hexforge_replay::RecordError;
    hexforge_replay::record_game(game, players, scripts, recorder).map_err(|e| match e {
        RecordError::Refused(e) => refused(e),
        RecordError::Write(e) => e.into(),
        RecordError::Unfinished => anyhow::anyhow!("the game stopped before its end"),
    })
}

/// Draws the progress bar of a series on the terminal's error stream, `n` games of `games`
/// done; the line ends once they all are.
pub fn progress_bar(n: usize, games: usize) {
    let width = 40;
    let filled = (n * width / games.max(1)).min(width);
    eprint!(
        "\r[{}{}] {n}/{games} games",
        "#".repeat(filled),
        ".".repeat(width - filled)
    );
    if n >= games {
        eprintln!();
    }
}

/// One finished game of a series.
struct Outcome {
    pairing: usize,
    /// Seat of each army of the pairing (the first army may sit second).
    swapped: bool,
    /// Which bot played each army of the pairing: the first bot the first army (`false`), or the
    /// second bot the first army (`true`); always `false` when both seats' bots are the same.
    bots_swapped: bool,
    result: GameResult,
}

/// A game that stopped on an error: which game and seed, when it got as far as having them.
struct Failed {
    /// The game's number and seed (`game 4 (seed 99)`); `None` when it failed before (a
    /// recorder that could not be made, say).
    game: Option<(usize, u64)>,
    /// What went wrong.
    error: anyhow::Error,
}

impl From<anyhow::Error> for Failed {
    fn from(error: anyhow::Error) -> Self {
        Failed { game: None, error }
    }
}

/// A series' armies and its lineups: each the indices of its armies in seat order (two for a
/// pairing, every army for a lineup of teams).
type Lineups = (Vec<String>, Vec<Vec<usize>>);

/// Which games a series plays (`hexforge matches`).
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// The armies to pair (`--army`); empty: every loaded army.
    pub armies: Vec<String>,
    /// The pairings asked for (`--pair A:B`, a mirror when A is B); empty: every pairing of
    /// `armies`.
    pub pairs: Vec<(String, String)>,
    /// Every army also plays itself (`--mirrors`); without it a mirror is played only when asked
    /// with `--pair A:A`, or when there is a single army.
    pub mirrors: bool,
    /// Each army's team (`--team`, as [`seat_teams`] gives them): every game seats all of
    /// `armies` in that order, allies by team.
    pub teams: Option<Vec<u8>>,
}

impl Series {
    /// The armies of the series and its lineups as indices into them.
    fn lineups(&self, catalog: &Catalog) -> Result<Lineups> {
        let mut armies: Vec<String> = self.armies.clone();
        if !self.pairs.is_empty() {
            let mut pairings = Vec::new();
            for (a, b) in &self.pairs {
                for x in [a, b] {
                    if !armies.contains(x) {
                        armies.push(x.clone());
                    }
                }
                let at = |x: &String| armies.iter().position(|y| y == x).unwrap_or(0);
                pairings.push(vec![at(a), at(b)]);
            }
            return Ok((armies, pairings));
        }
        if armies.is_empty() {
            armies = catalog.armies().iter().map(|a| a.id.clone()).collect();
        }
        if armies.is_empty() {
            bail!("no army is loaded");
        }
        if self.teams.is_some() {
            // One lineup: every army in the seat order given.
            let all = (0..armies.len()).collect();
            return Ok((armies, vec![all]));
        }
        let mirrors = self.mirrors || armies.len() == 1;
        let mut pairings = Vec::new();
        for i in 0..armies.len() {
            for j in i..armies.len() {
                if i != j || mirrors {
                    pairings.push(vec![i, j]);
                }
            }
        }
        Ok((armies, pairings))
    }
}

/// Reads `--pair A:B`: two army names around a colon.
pub fn parse_pair(text: &str) -> Result<(String, String)> {
    match text.split_once(':') {
        Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() && !b.contains(':') => {
            Ok((a.trim().to_string(), b.trim().to_string()))
        }
        _ => bail!(
            "--pair {text}: name two armies around a colon, `--pair moloch:borgo` (`--pair moloch:moloch` for a mirror match)"
        ),
    }
}

/// Plays `games` games of `series` on every core (its pairings in turn, each army sitting first
/// half the time; or its one lineup of teams), and prints a table of wins and draws.
#[allow(clippy::too_many_arguments)]
pub fn play_matches<H: AbilityHooks>(
    out: &mut impl Write,
    catalog: Catalog,
    scripts: impl Fn() -> H + Sync + Send,
    table: &Table,
    series: &Series,
    bot_names: &[String],
    games: usize,
    seed: u64,
    record: Option<&MakeRecorder<'_>>,
) -> Result<bool> {
    // The bots are named right, and one or two of them (one per army of a pairing), before
    // any game is played.
    if let Some(b) = bot_names
        .iter()
        .find(|b| !hexforge_bots::NAMES.contains(&b.as_str()))
    {
        return Err(hexforge_lab::unknown_bot(b).into());
    }
    let (armies, pairings) = series.lineups(&catalog)?;
    let teams = series.teams.as_deref();
    let seats = teams.map_or(2, <[u8]>::len);
    if bot_names.len() > seats {
        bail!(
            "--bot given {} times for {seats} seats: give one bot, or one per seat (the last one given plays the remaining seats)",
            bot_names.len()
        );
    }
    let bot = |k: usize| bot_name(bot_names, k);
    let two_bots = bot(0) != bot(1);
    let rules = Arc::new(table.rules()?);
    let board = table.board(&rules);
    let catalog = Arc::new(catalog);
    let done = AtomicUsize::new(0);
    let progress = std::io::stderr().is_terminal();
    let results: Vec<Result<Outcome, Failed>> = (0..games)
        .into_par_iter()
        .map_init(&scripts, |scripts, k| {
            let Seating {
                pairing,
                swapped,
                bots_swapped,
            } = Seating::of(k, pairings.len(), two_bots, teams.is_some());
            let seats = &pairings[pairing];
            let order: Vec<usize> = if swapped {
                (0..seats.len()).rev().collect()
            } else {
                (0..seats.len()).collect()
            };
            let lineup = Lineup {
                armies: order.iter().map(|&i| armies[seats[i]].as_str()).collect(),
                teams,
                // A bot goes with its army (`--bot` gives them in the order of the pairing's
                // armies, or of the lineup of teams), the two swapped in half the games.
                bots: order
                    .iter()
                    .map(|&i| bot(if bots_swapped { 1 - i } else { i }))
                    .collect(),
                seed: game_seed(seed, k),
            };
            let (mut game, mut bots) =
                hexforge_lab::start(&lineup, (&catalog, &rules, board), scripts, &mut Vec::new())
                    .map_err(anyhow::Error::from)?;
            let mut players: Vec<&mut dyn Player> = bots
                .iter_mut()
                .map(|b| b.as_mut() as &mut dyn Player)
                .collect();
            let failed = |error| Failed {
                game: Some((k, lineup.seed)),
                error,
            };
            let result = match record {
                Some(make) => {
                    let game_seed = hexforge_bots::match_seeds(lineup.seed, lineup.armies.len()).0;
                    let recorder = make(k, &lineup.armies, game_seed, lineup.seed)?;
                    play_recorded(&mut game, &mut players, scripts, recorder).map_err(failed)?
                }
                None => hexforge_core::game::play_out(&mut game, &mut players, scripts, &mut ())
                    .map_err(|e| failed(anyhow::anyhow!("{}", stopped(&e))))?,
            };
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if progress && (n % (games / 100).max(1) == 0 || n == games) {
                progress_bar(n, games);
            }
            Ok(Outcome {
                pairing,
                swapped,
                bots_swapped,
                result,
            })
        })
        .collect();
    if let Some(teams) = teams {
        return team_table(
            out,
            results,
            &armies,
            teams,
            (bot_names, games, seed, table),
        );
    }
    // [a wins, b wins, draws] per pairing; [first bot wins, second bot wins, draws].
    let mut tally = vec![[0usize; 3]; pairings.len()];
    let mut by_bot = [0usize; 3];
    let mut failures = Vec::new();
    for r in results {
        match r {
            Ok(o) => {
                let slot = match o.result {
                    GameResult::Won { team } => usize::from((team == 1) != o.swapped),
                    // Two armies sharing a victory count as a draw of the pairing.
                    GameResult::Draw { .. } | GameResult::Shared { .. } => 2,
                };
                tally[o.pairing][slot] += 1;
                // The pairing's first army was played by the first bot unless they swapped.
                let bot_slot = if slot == 2 {
                    2
                } else {
                    usize::from((slot == 1) != o.bots_swapped)
                };
                by_bot[bot_slot] += 1;
            }
            Err(e) => failures.push(e),
        }
    }
    writeln!(
        out,
        "{games} games{}; bots {} vs {}{}; rules {}; seed {seed}",
        failed_note(failures.len()),
        bot(0),
        bot(1),
        if two_bots {
            " (each army played by each bot in each seat equally)"
        } else {
            ""
        },
        table.preset
    )?;
    // The columns as wide as the longest pairing and army: long names keep the table straight.
    let wide = pairings
        .iter()
        .map(|p| armies[p[0]].len() + armies[p[1]].len() + 4)
        .chain(std::iter::once(24))
        .max()
        .unwrap_or(24);
    let name_wide = armies
        .iter()
        .map(String::len)
        .chain(std::iter::once(12))
        .max()
        .unwrap_or(12);
    writeln!(
        out,
        "{:<wide$} {:>6} {:>7} {:>7} {:>6} {:>7}",
        "pairing (first army A)", "games", "A wins", "B wins", "draws", "A win%"
    )?;
    for (p, t) in pairings.iter().zip(&tally) {
        let (a, b) = (&p[0], &p[1]);
        let n: usize = t.iter().sum();
        writeln!(
            out,
            "{:<wide$} {:>6} {:>7} {:>7} {:>6} {:>7}",
            format!("{} vs {}", armies[*a], armies[*b]),
            n,
            t[0],
            t[1],
            t[2],
            share(t[0], n)
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:<name_wide$} {:>6} {:>6} {:>6} {:>7} {:>6}",
        "army", "games", "wins", "draws", "losses", "win%"
    )?;
    for (i, army) in armies.iter().enumerate() {
        let (mut n, mut w, mut d, mut l) = (0, 0, 0, 0);
        for (p, t) in pairings.iter().zip(&tally) {
            let (a, b) = (&p[0], &p[1]);
            if a == b {
                continue; // a mirror match says nothing about the army against others
            }
            let (wins, losses) = if *a == i {
                (t[0], t[1])
            } else if *b == i {
                (t[1], t[0])
            } else {
                continue;
            };
            n += wins + losses + t[2];
            w += wins;
            l += losses;
            d += t[2];
        }
        writeln!(
            out,
            "{army:<name_wide$} {n:>6} {w:>6} {d:>6} {l:>7} {:>6}",
            share(w, n)
        )?;
    }
    if two_bots {
        let n: usize = by_bot.iter().sum();
        let pct = |w: usize| {
            if n == 0 {
                0.0
            } else {
                100.0 * w as f64 / n as f64
            }
        };
        writeln!(out)?;
        writeln!(out, "{:<12} {:>6} {:>6}", "bot", "wins", "win%")?;
        for (name, w) in [(bot(0), by_bot[0]), (bot(1), by_bot[1])] {
            writeln!(out, "{name:<12} {w:>6} {:>5.1}%", pct(w))?;
        }
        writeln!(out, "{:<12} {:>6}", "draws", by_bot[2])?;
    }
    write_failures(out, &failures)?;
    Ok(failures.is_empty())
}

/// What the first line of a table says of the games that failed: nothing when none did.
fn failed_note(failed: usize) -> String {
    match failed {
        0 => String::new(),
        n => format!(" ({n} failed and left out of the table: the errors are below it)"),
    }
}

/// The errors of the games that failed, each message once with how many games it stopped, in
/// the order they first happened.
fn write_failures(out: &mut impl Write, failures: &[Failed]) -> Result<()> {
    // The same error in many games is one line: grouped by what went wrong, the game and seed
    // of the first one kept to replay it.
    let mut seen: Vec<(String, String, usize)> = Vec::new();
    for f in failures {
        let what = format!("{:#}", f.error);
        match seen.iter_mut().find(|(_, w, _)| *w == what) {
            Some((_, _, n)) => *n += 1,
            None => {
                let first = f
                    .game
                    .map_or_else(String::new, |(k, seed)| format!("game {k} (seed {seed})"));
                seen.push((first, what, 1));
            }
        }
    }
    for (first, what, n) in seen {
        match (n, first.is_empty()) {
            (1, true) => writeln!(out, "error (1 game): {what}")?,
            (1, false) => writeln!(out, "error (1 game: {first}): {what}")?,
            (n, true) => writeln!(out, "error ({n} games): {what}")?,
            (n, false) => writeln!(out, "error ({n} games, the first {first}): {what}")?,
        }
    }
    Ok(())
}

/// `w` of `n` games as a share (`41.5%`), or `-` when no game counted (all failed, say).
fn share(w: usize, n: usize) -> String {
    if n == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * w as f64 / n as f64)
    }
}

/// The table of a series of team games: each team's armies, wins and share, the draws, then the
/// games that failed; `false` when any did.
fn team_table(
    out: &mut impl Write,
    results: Vec<Result<Outcome, Failed>>,
    armies: &[String],
    teams: &[u8],
    (bot_names, games, seed, table): (&[String], usize, u64, &Table),
) -> Result<bool> {
    let count = teams
        .iter()
        .copied()
        .max()
        .map_or(0, |t| usize::from(t) + 1);
    let (mut wins, mut draws, mut failures) = (vec![0usize; count], 0usize, Vec::new());
    for r in results {
        match r {
            Ok(o) => match o.result {
                GameResult::Won { team } => {
                    if let Some(w) = wins.get_mut(usize::from(team)) {
                        *w += 1;
                    }
                }
                GameResult::Draw { .. } | GameResult::Shared { .. } => draws += 1,
            },
            Err(e) => failures.push(e),
        }
    }
    let bots: Vec<&str> = (0..armies.len()).map(|k| bot_name(bot_names, k)).collect();
    writeln!(
        out,
        "{games} games{}; bots {}; rules {}; seed {seed}",
        failed_note(failures.len()),
        bots.join(", "),
        table.preset
    )?;
    writeln!(
        out,
        "{:<40} {:>6} {:>6}",
        "team (armies in seat order)", "wins", "win%"
    )?;
    let played = games - failures.len();
    for (t, w) in wins.iter().enumerate() {
        let members: Vec<&str> = armies
            .iter()
            .zip(teams)
            .filter(|(_, team)| usize::from(**team) == t)
            .map(|(a, _)| a.as_str())
            .collect();
        let pct = if played == 0 {
            0.0
        } else {
            100.0 * *w as f64 / played as f64
        };
        writeln!(
            out,
            "{:<40} {w:>6} {pct:>5.1}%",
            format!("{}: {}", t + 1, members.join(" + "))
        )?;
    }
    writeln!(out, "{:<40} {draws:>6}", "draws")?;
    write_failures(out, &failures)?;
    Ok(failures.is_empty())
}

/// The error for an action the engine listed as legal and then refused: a script that failed
/// (the modder's message, where and a Lua traceback), else an engine bug.
fn refused(e: ActionError) -> anyhow::Error {
    anyhow::anyhow!("{}", stopped(&e))
}
