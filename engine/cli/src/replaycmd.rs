//! `hexforge replay FILE`: plays a recorded game again with the engine, prints its log as the
//! match printed it, and with `--verify` checks the state after every action against the
//! recorded hash, reporting the first difference.

use crate::matches::Printer;
use anyhow::{Context as _, Result, bail};
use hexforge_content::LoadedMods;
use hexforge_core::{AbilityHooks, Event, Game};
/// The header of a replay of a match (`hexforge match --replay`, `matches --replays`).
pub use hexforge_replay::header;
use hexforge_replay::{Replayed, encode_action, parse, replay_step};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// What to do when a replay diverges.
const CHANGED: &str = "the file was changed since it was written, or the engine, the rules or the mods differ from those it was recorded with: replay it with them, or record the game again";

/// How to replay.
pub struct Options {
    pub verify: bool,
    pub force: bool,
    pub quiet: bool,
}

/// Where to stop a replay and write its board as a scenario file.
pub struct ToScenario<'a> {
    /// The number of actions to play first.
    pub at: usize,
    pub out: &'a Path,
}

/// Verifies or replays many files, one after another, and sums up.
pub fn replay_all(
    out: &mut impl Write,
    loaded: &LoadedMods,
    scripts: &mut dyn AbilityHooks,
    files: &[std::path::PathBuf],
    opts: Options,
) -> Result<ExitCode> {
    let mut failed = Vec::new();
    for f in files {
        let o = Options {
            verify: opts.verify,
            force: opts.force,
            quiet: true,
        };
        let mut log = Vec::new();
        let ok = match replay(&mut log, loaded, scripts, f, o) {
            Ok(code) => code == ExitCode::SUCCESS,
            Err(e) => {
                writeln!(log, "{e:#}")?;
                false
            }
        };
        if !ok {
            writeln!(out, "{}:", f.display())?;
            out.write_all(&log)?;
            failed.push(f);
        }
    }
    writeln!(
        out,
        "{} {}, {} failed",
        files.len() - failed.len(),
        if opts.verify { "verified" } else { "replayed" },
        failed.len()
    )?;
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub fn replay(
    out: &mut impl Write,
    loaded: &LoadedMods,
    scripts: &mut dyn AbilityHooks,
    file: &Path,
    opts: Options,
) -> Result<ExitCode> {
    replay_to(out, loaded, scripts, file, opts, None)
}

/// [`replay`], stopping after `to.at` actions to write the board as a scenario file.
pub fn replay_to(
    out: &mut impl Write,
    loaded: &LoadedMods,
    scripts: &mut dyn AbilityHooks,
    file: &Path,
    opts: Options,
    to: Option<ToScenario<'_>>,
) -> Result<ExitCode> {
    let text = hexforge_content::diagnostic::read_text(file, "replay")
        .map_err(|d| anyhow::anyhow!("{d}"))?;
    let replay =
        parse(&text, &loaded.catalog).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let h = &replay.header;
    // Each recorded mod that differs, with the line of its `mod` entry.
    let differences: Vec<String> = h
        .mods
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            let line = replay.lines.mods.get(i).copied().unwrap_or(0);
            hexforge_replay::mod_differences(&loaded.mods, std::slice::from_ref(m), &h.files)
                .into_iter()
                .map(move |d| format!("line {line}: {d}"))
        })
        .collect();
    if !differences.is_empty() {
        if !opts.force {
            bail!(
                "{}: the mods differ from those it was recorded with: {} (install those versions, give a portal that has them with --portal URL, or replay anyway with --force)",
                file.display(),
                differences.join("; ")
            );
        }
        writeln!(out, "warning: the mods differ: {}", differences.join("; "))?;
    }
    // Checked before anything is printed.
    if let Some(t) = &to
        && t.at > replay.steps.len()
    {
        bail!(
            "{}: --at {} is past its {} steps",
            file.display(),
            t.at,
            replay.steps.len()
        );
    }
    let mut game = hexforge_replay::start_replay(
        &replay,
        &loaded.mods,
        Arc::new(loaded.catalog.clone()),
        &mut *scripts,
    )
    .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let armies: Vec<&str> = h.armies.iter().map(String::as_str).collect();
    let mut printer = Printer::new(&game, &armies, opts.quiet);
    if !opts.quiet {
        writeln!(
            out,
            "Replay: {}; rules {}; recorded with Hexforge {}",
            printer.names().join(" vs "),
            h.rules,
            h.engine
        )?;
        writeln!(out, "Setup: each player places their HQ")?;
    }
    let mut events: Vec<Event> = Vec::new();
    let stop = to.as_ref().map_or(replay.steps.len(), |t| t.at);
    for (n, step) in replay.steps.iter().enumerate().take(stop) {
        events.clear();
        let acted = replay_step(&mut game, step, &mut *scripts, &mut events);
        printer.events(out, &events)?;
        let what = || {
            format!(
                "step {} (line {}, turn {}, `{}`)",
                n + 1,
                replay.lines.steps.get(n).copied().unwrap_or(0),
                game.turn_number(),
                encode_action(&step.action, game.catalog())
            )
        };
        let Replayed {
            phases,
            all_picks_used,
        } = match acted {
            Ok(r) => r,
            Err(hexforge_core::ActionError::Hook(h)) => {
                writeln!(
                    out,
                    "stopped at {}: a script error stopped the replay: {h}",
                    what()
                )?;
                return Ok(ExitCode::FAILURE);
            }
            Err(e) => {
                writeln!(
                    out,
                    "diverged at {}: the engine refuses it: {e}; {CHANGED}",
                    what()
                )?;
                return Ok(ExitCode::FAILURE);
            }
        };
        if opts.verify {
            if let Some(k) = (0..step.phases.len().max(phases.len()))
                .find(|&k| step.phases.get(k) != phases.get(k))
            {
                let show = |h: Option<&u64>| h.map_or("none".to_string(), |h| format!("{h:016x}"));
                writeln!(
                    out,
                    "diverged at {}, battle phase {} of the action: expected board {}, found {}; {CHANGED}",
                    what(),
                    k + 1,
                    show(step.phases.get(k)),
                    show(phases.get(k))
                )?;
                return Ok(ExitCode::FAILURE);
            }
            let found = game.state_hash();
            if found != step.hash || !all_picks_used {
                writeln!(
                    out,
                    "diverged at {}: expected state {:016x}, found {found:016x}{}; {CHANGED}",
                    what(),
                    step.hash,
                    if all_picks_used {
                        ""
                    } else {
                        " (the recorded decisions were not all asked for)"
                    }
                )?;
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    if let Some(t) = to {
        let title = format!(
            "Replay {}, after step {} (turn {})",
            file.file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
            t.at,
            game.turn_number()
        );
        let text = scenario_text(&game, scripts, &title, &h.board)?;
        hexforge_content::write_atomically(t.out, &text)
            .with_context(|| format!("cannot write {}", t.out.display()))?;
        writeln!(
            out,
            "wrote {} (the board after step {})",
            t.out.display(),
            t.at
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    printer.result(out, &game, h.match_seed.unwrap_or(h.seed))?;
    if !replay.complete {
        writeln!(
            out,
            "the replay stops after step {}: the recorded game ended early",
            replay.steps.len()
        )?;
    }
    if opts.verify {
        writeln!(
            out,
            "verified: {} steps, every state as recorded",
            replay.steps.len()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The board of `game` as a scenario file (`hexforge_scenario::scenario_text`).
pub fn scenario_text(
    game: &Game,
    scripts: &mut dyn AbilityHooks,
    title: &str,
    board: &str,
) -> Result<String> {
    let armies: Vec<&str> = game.field().players().map(|p| game.army(p)).collect();
    hexforge_scenario::scenario_text(game.field(), game.context(), &armies, scripts, title, board)
        .map_err(|e| anyhow::anyhow!("the battle on this board fails: {e}"))
}
