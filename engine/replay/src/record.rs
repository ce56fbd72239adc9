//! Writing a replay: a [`Recorder`] writes a file one step at a time and flushes after each, and
//! [`record_game`] plays a game to its end into one.

use crate::action::encode_action;
use crate::format::{FORMAT, Header, Step};
use crate::play::act_noted;
use hexforge_core::game::{LegalActions, Player, Seats, next_action};
use hexforge_core::{AbilityHooks, ActionError, Catalog, Game, GameResult};
use std::fmt;
use std::io::{self, Write};

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
        // A header without a board plays on the standard one, as a file without the line does.
        if !header.board.is_empty() {
            writeln!(out, "board {}", header.board)?;
        }
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
        for (id, path, hash) in &header.files {
            writeln!(out, "file {id} {hash:08x} {path}")?;
        }
        writeln!(out, "seed {}", header.seed)?;
        if let Some(m) = header.match_seed {
            writeln!(out, "match_seed {m}")?;
        }
        out.flush()?;
        Ok(Recorder { out })
    }

    /// Goes on writing a file whose header and steps are already written (a game resumed from
    /// its replay), step by step from its last one.
    pub fn append(out: W) -> Self {
        Recorder { out }
    }

    /// The writer, flushed, without ending the file: a game stopped here can be resumed.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
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
            RecordError::Refused(e @ hexforge_core::ActionError::NothingOpen { .. }) => {
                write!(f, "the game rules stopped the match: {e}")
            }
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
