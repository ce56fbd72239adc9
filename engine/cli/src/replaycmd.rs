//! `hexforge replay FILE`: plays a recorded game again with the engine, prints its log as the
//! match printed it, and with `--verify` checks the state after every action against the
//! recorded hash, reporting the first difference.

use crate::matches::{Printer, Table};
use anyhow::{Context as _, Result, bail};
use hexforge_content::LoadedMods;
use hexforge_core::{AbilityHooks, Event, Game, GameSetup, SeatSetup};
use hexforge_replay::{Picks, encode_action, parse};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// How to replay.
pub struct Options {
    pub verify: bool,
    pub force: bool,
    pub quiet: bool,
}

/// The recorded mods that are not loaded as they were: missing, or another version or content.
fn mod_differences(loaded: &LoadedMods, recorded: &[(String, String, u64)]) -> Vec<String> {
    recorded
        .iter()
        .filter_map(
            |(id, version, hash)| match loaded.mods.iter().find(|m| m.id == *id) {
                None => Some(format!("`{id}` {version} is not loaded")),
                Some(m) => {
                    let now = hexforge_content::mod_hash(m);
                    (m.manifest.version.to_string() != *version || now != *hash).then(|| {
                        format!(
                            "`{id}` was {version} #{hash:016x}, is {} #{now:016x}",
                            m.manifest.version
                        )
                    })
                }
            },
        )
        .collect()
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
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let replay =
        parse(&text, &loaded.catalog).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let h = &replay.header;
    let differences = mod_differences(loaded, &h.mods);
    if !differences.is_empty() {
        if !opts.force {
            bail!(
                "{}: the mods differ from those it was recorded with: {} (install those versions, or replay anyway with --force)",
                file.display(),
                differences.join("; ")
            );
        }
        writeln!(out, "warning: the mods differ: {}", differences.join("; "))?;
    }
    let mut presets = Vec::new();
    for p in loaded.mods.iter().flat_map(|m| &m.presets) {
        if !presets
            .iter()
            .any(|q: &hexforge_content::RulePreset| q.id == p.id)
        {
            presets.push(p.clone());
        }
    }
    let table = Table {
        preset: h.rules.clone(),
        options: h.options.clone(),
        extended: h.board == "extended",
        presets,
    };
    let rules = Arc::new(table.rules()?);
    let shape = table.shape(&rules);
    let mut game = Game::new(
        GameSetup {
            shape,
            seats: h
                .armies
                .iter()
                .enumerate()
                .map(|(i, a)| SeatSetup {
                    army: a.clone(),
                    team: i as u8,
                })
                .collect(),
            seed: h.seed,
        },
        Arc::new(loaded.catalog.clone()),
        rules,
    )?;
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
    for (n, step) in replay.steps.iter().enumerate() {
        events.clear();
        let mut picks = Picks::new(&step.picks);
        let acted = game.act(&step.action, &mut *scripts, &mut picks, &mut events);
        printer.events(out, &events)?;
        let what = || {
            format!(
                "step {} (turn {}, `{}`)",
                n + 1,
                game.turn_number(),
                encode_action(&step.action, game.catalog())
            )
        };
        if let Err(e) = acted {
            writeln!(out, "diverged at {}: the engine refuses it: {e}", what())?;
            return Ok(ExitCode::FAILURE);
        }
        if opts.verify {
            let found = game.state_hash();
            if found != step.hash || !picks.all_used() {
                writeln!(
                    out,
                    "diverged at {}: expected state {:016x}, found {found:016x}{}",
                    what(),
                    step.hash,
                    if picks.all_used() {
                        ""
                    } else {
                        " (the recorded decisions were not all asked for)"
                    }
                )?;
                return Ok(ExitCode::FAILURE);
            }
        }
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
