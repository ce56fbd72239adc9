//! A replay opened for viewing: the engine's `Timeline` over its steps, where each step's turn and
//! battle phases lie, the position shown (a step, or a battle phase inside it), and the game,
//! board and log at that position, worked out once when the position changes.

use hexforge_content::LoadedMods;
use hexforge_core::{AbilityHooks, Battlefield, Catalog, Event, Game};
use hexforge_log::GameLog;
use hexforge_replay::{Header, Timeline, encode_action, replay_step};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where the viewer stands: after `step` actions (0: before the first), either after the whole
/// step (`phase: None`) or at the end of battle phase `phase` (0-based) of that step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Position {
    /// How many actions have been played (0: the start of the game).
    pub step: usize,
    /// The battle phase of that step shown, if one is (0-based); `None`: after the whole step.
    pub phase: Option<usize>,
}

/// Why a replay cannot be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// The recorded mods are not loaded as they were (each named); it can be replayed anyway.
    ModsDiffer(String),
    /// The file cannot be read, is not a replay, or the engine refuses it.
    Unreadable(String),
}

impl std::error::Error for OpenError {}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::ModsDiffer(m) | OpenError::Unreadable(m) => f.write_str(m),
        }
    }
}

/// What the viewer shows at its position.
pub struct Shown {
    /// The position shown.
    pub at: Position,
    /// The game before the step (the start for step 0).
    pub before: Game,
    /// The game after the step.
    pub after: Game,
    /// The board at the position: after the step, or at the end of the battle phase.
    pub board: Battlefield,
    /// The step's events.
    pub events: Vec<Event>,
    /// The battle phase of each event ([`phase_of_events`]).
    pub event_phases: Vec<Option<usize>>,
    /// The step's log lines, each with the battle phase it tells of.
    pub lines: Vec<(String, Option<usize>)>,
    /// The initiative of each battle phase of the step.
    pub initiatives: Vec<u8>,
}

/// A replay open in the viewer.
pub struct Viewer {
    /// The replay file open.
    pub path: PathBuf,
    /// The replay's header: its mods, seats, rules and seed.
    pub header: Header,
    /// The file ends with `end` (else the recorded game stopped early).
    pub complete: bool,
    /// Said when the replay was opened anyway: how its mods differ, where it diverges.
    pub warnings: Vec<String>,
    /// It was opened although its mods differ.
    pub forced: bool,
    timeline: Timeline<'static>,
    /// The tiles the replay's games use.
    catalog: Arc<Catalog>,
    /// The turn number after each step (index 0: before the first).
    turns: Vec<u16>,
    /// The battle phases fought in each step (index 0: none before the first).
    phases: Vec<usize>,
    at: Position,
    shown: Option<Shown>,
    /// The position the log was last scrolled to.
    scrolled: Option<Position>,
}

impl Viewer {
    /// Reads the replay at `path`, checks its mods against `loaded` (differences refuse it
    /// unless `force`), and plays it once with the engine.
    pub fn open(
        path: &Path,
        loaded: &LoadedMods,
        hooks: &mut dyn AbilityHooks,
        force: bool,
    ) -> Result<Viewer, OpenError> {
        let name = path.display();
        let text = crate::disk::read(path).map_err(|e| OpenError::Unreadable(e.to_string()))?;
        let replay = hexforge_replay::parse(&text, &loaded.catalog)
            .map_err(|e| OpenError::Unreadable(format!("{name}: {e}")))?;
        let mut warnings = Vec::new();
        let differences = hexforge_replay::mod_differences(
            &loaded.mods,
            &replay.header.mods,
            &replay.header.files,
        );
        if !differences.is_empty() {
            let list = differences.join("; ");
            if !force {
                return Err(OpenError::ModsDiffer(format!(
                    "{name}: the mods differ from those it was recorded with: {list} (install those versions, or replay it anyway)"
                )));
            }
            warnings.push(format!("the mods differ: {list}"));
        }
        let catalog = Arc::new(loaded.catalog.clone());
        let start =
            hexforge_replay::start(&replay.header, &loaded.mods, catalog.clone(), &mut *hooks)
                .map_err(|e| OpenError::Unreadable(format!("{name}: {e}")))?;
        // One pass for each step's turn and battle phases, checking the recorded hashes.
        let mut game = start.clone();
        let mut turns = vec![game.turn_number()];
        let mut phases = vec![0];
        let mut diverged = None;
        for (i, step) in replay.steps.iter().enumerate() {
            let replayed = replay_step(&mut game, step, &mut *hooks, &mut ()).map_err(|e| {
                OpenError::Unreadable(format!("{name}: step {} is refused: {e}", i + 1))
            })?;
            if diverged.is_none()
                && (replayed.phases != step.phases
                    || game.state_hash() != step.hash
                    || !replayed.all_picks_used)
            {
                diverged = Some(i + 1);
            }
            turns.push(game.turn_number());
            phases.push(replayed.phases.len());
        }
        if let Some(n) = diverged {
            warnings.push(format!(
                "from step {n} on, the engine's game differs from the recording"
            ));
        }
        let timeline = Timeline::owned(start, replay.steps, &mut *hooks)
            .map_err(|e| OpenError::Unreadable(format!("{name}: {e}")))?;
        Ok(Viewer {
            path: path.to_path_buf(),
            header: replay.header,
            complete: replay.complete,
            forced: force && !differences.is_empty(),
            warnings,
            timeline,
            catalog,
            turns,
            phases,
            at: Position::default(),
            shown: None,
            scrolled: None,
        })
    }

    /// The number of steps (actions).
    pub fn len(&self) -> usize {
        self.timeline.len()
    }

    /// Whether the replay holds no action.
    pub fn is_empty(&self) -> bool {
        self.timeline.is_empty()
    }

    /// The position shown.
    pub fn at(&self) -> Position {
        self.at
    }

    /// The turn number after step `n`.
    pub fn turn_after(&self, n: usize) -> u16 {
        self.turns.get(n).copied().unwrap_or(0)
    }

    /// The battle phases fought in step `n`.
    pub fn phases_in(&self, n: usize) -> usize {
        self.phases.get(n).copied().unwrap_or(0)
    }

    /// Moves to `at` (kept within the replay).
    pub fn go(&mut self, at: Position) {
        let step = at.step.min(self.len());
        let phase = at.phase.filter(|k| *k < self.phases_in(step));
        self.at = Position { step, phase };
    }

    /// Goes to the start of the game.
    pub fn first(&mut self) {
        self.go(Position::default());
    }

    /// Goes to the end of the recording.
    pub fn last(&mut self) {
        self.go(Position {
            step: self.len(),
            phase: None,
        });
    }

    /// Goes to the next battle phase of the step, else the end of the step, else on to the next step.
    pub fn next_phase(&mut self) {
        self.go(next_phase(&self.phases, self.at));
    }

    /// Goes back to the previous battle phase, or step.
    pub fn previous_phase(&mut self) {
        self.go(previous_phase(&self.phases, self.at));
    }

    /// Goes to the start of the next turn.
    pub fn next_turn(&mut self) {
        let step = next_turn(&self.turns, self.at.step);
        self.go(Position { step, phase: None });
    }

    /// Goes back to the start of this turn, or of the previous one when already there.
    pub fn previous_turn(&mut self) {
        let step = previous_turn(&self.turns, self.at);
        self.go(Position { step, phase: None });
    }

    /// Whether the log should scroll to the position's lines: once after each move.
    pub fn scroll_due(&mut self) -> bool {
        let due = self.scrolled != Some(self.at);
        self.scrolled = Some(self.at);
        due
    }

    /// The step's action as the replay file writes it (none before the first).
    pub fn action(&self, n: usize) -> Option<String> {
        let step = self.timeline.steps().get(n.checked_sub(1)?)?;
        Some(encode_action(&step.action, &self.catalog))
    }

    /// What to show at the position, worked out again only when the position changed.
    pub fn shown(&mut self, hooks: &mut dyn AbilityHooks) -> Result<&Shown, String> {
        let at = self.at;
        let same_step = self.shown.as_ref().is_some_and(|s| s.at.step == at.step);
        if !same_step {
            self.shown = Some(self.step_view(at.step, hooks)?);
        }
        let shown = self
            .shown
            .as_mut()
            .expect("the step's view was made just above");
        if shown.at != at {
            shown.board = board_at(&shown.before, &shown.after, &shown.events, at.phase);
            shown.at = at;
        }
        Ok(shown)
    }

    /// The game to open in the sandbox: after the step, or, inside a battle, before the step
    /// (the board the battle is fought on).
    pub fn game_for_sandbox(&mut self, hooks: &mut dyn AbilityHooks) -> Result<Game, String> {
        let inside = self.at.phase.is_some();
        let shown = self.shown(hooks)?;
        Ok(if inside {
            shown.before.clone()
        } else {
            shown.after.clone()
        })
    }

    fn step_view(&self, n: usize, hooks: &mut dyn AbilityHooks) -> Result<Shown, String> {
        let refused = |e: hexforge_core::ActionError| format!("the engine refuses step {n}: {e}");
        let before = self
            .timeline
            .state_at(n.saturating_sub(1), &mut *hooks)
            .map_err(refused)?;
        let mut after = before.clone();
        let mut events = Vec::new();
        if let Some(step) = n.checked_sub(1).and_then(|i| self.timeline.steps().get(i)) {
            replay_step(&mut after, step, &mut *hooks, &mut events).map_err(refused)?;
        } else {
            // Step 0 is the game as it starts: nothing was played.
            after = before.clone();
        }
        let armies: Vec<&str> = self.header.armies.iter().map(String::as_str).collect();
        let mut log = GameLog::new(&before, &armies);
        let event_phases = phase_of_events(&events);
        let mut lines = Vec::new();
        let mut told = Vec::new();
        for (e, tag) in events.iter().zip(&event_phases) {
            told.clear();
            log.tell(e, &mut told);
            lines.extend(told.drain(..).map(|l| (l, *tag)));
        }
        let initiatives = events
            .iter()
            .filter_map(|e| match e {
                Event::PhaseStarted { phase } => Some(*phase),
                _ => None,
            })
            .collect();
        let at = Position {
            step: n,
            phase: None,
        };
        Ok(Shown {
            at,
            board: after.field().clone(),
            before,
            after,
            events,
            event_phases,
            lines,
            initiatives,
        })
    }
}

/// The board after the step (`phase: None`) or at the end of battle phase `phase` of it.
fn board_at(before: &Game, after: &Game, events: &[Event], phase: Option<usize>) -> Battlefield {
    let Some(k) = phase else {
        return after.field().clone();
    };
    let mut board = before.field().clone();
    let upto = phase_ends(events).get(k).copied().unwrap_or(events.len());
    for e in &events[..upto] {
        board.apply(e);
    }
    board
}

/// The number of events up to and including the end of each battle phase, in order.
pub fn phase_ends(events: &[Event]) -> Vec<usize> {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::PhaseEnded { .. }))
        .map(|(i, _)| i + 1)
        .collect()
}

/// For each event, the battle phase (0-based, in the step) it happens in, from its phase's
/// start to its end; `None` outside the phases.
pub fn phase_of_events(events: &[Event]) -> Vec<Option<usize>> {
    let mut next = 0;
    let mut current = None;
    events
        .iter()
        .map(|e| match e {
            Event::PhaseStarted { .. } => {
                current = Some(next);
                next += 1;
                current
            }
            Event::PhaseEnded { .. } => current.take(),
            _ => current,
        })
        .collect()
}

/// The position after `at`: the next battle phase of the step, else the end of the step, else the
/// next step's first phase or its end.
pub fn next_phase(phases: &[usize], at: Position) -> Position {
    let in_step = |n: usize| phases.get(n).copied().unwrap_or(0);
    match at.phase {
        Some(k) if k + 1 < in_step(at.step) => Position {
            step: at.step,
            phase: Some(k + 1),
        },
        Some(_) => Position {
            step: at.step,
            phase: None,
        },
        None if at.step + 1 < phases.len() => Position {
            step: at.step + 1,
            phase: (in_step(at.step + 1) > 0).then_some(0),
        },
        None => at,
    }
}

/// The position before `at`, the reverse of [`next_phase`].
pub fn previous_phase(phases: &[usize], at: Position) -> Position {
    let in_step = |n: usize| phases.get(n).copied().unwrap_or(0);
    match at.phase {
        Some(k) if k > 0 => Position {
            step: at.step,
            phase: Some(k - 1),
        },
        None if in_step(at.step) > 0 => Position {
            step: at.step,
            phase: Some(in_step(at.step) - 1),
        },
        _ if at.step > 0 => Position {
            step: at.step - 1,
            phase: None,
        },
        _ => Position::default(),
    }
}

/// The first step of the next turn after step `n` (the step that started it), else the last.
pub fn next_turn(turns: &[u16], n: usize) -> usize {
    let now = turns.get(n).copied().unwrap_or(0);
    turns
        .iter()
        .enumerate()
        .skip(n + 1)
        .find(|(_, t)| **t > now)
        .map_or(turns.len().saturating_sub(1), |(i, _)| i)
}

/// The first step of the turn shown, or, when already there, of the turn before.
pub fn previous_turn(turns: &[u16], at: Position) -> usize {
    let first_of = |t: u16| turns.iter().position(|x| *x == t).unwrap_or(0);
    let n = at.step.min(turns.len().saturating_sub(1));
    let start = first_of(turns.get(n).copied().unwrap_or(0));
    if start < n || (start == n && at.phase.is_some()) {
        start
    } else if n > 0 {
        first_of(turns[n - 1])
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::Seat;

    fn at(step: usize, phase: Option<usize>) -> Position {
        Position { step, phase }
    }

    #[test]
    fn events_are_split_by_battle_phase() {
        let events = [
            Event::TurnStarted {
                player: Seat::new(0),
                number: 2,
            },
            Event::BattleStarted { first_phase: 1 },
            Event::PhaseStarted { phase: 1 },
            Event::TieBreak,
            Event::PhaseEnded { phase: 1 },
            Event::PhaseStarted { phase: 0 },
            Event::PhaseEnded { phase: 0 },
            Event::BattleEnded,
        ];
        assert_eq!(
            phase_of_events(&events),
            [
                None,
                None,
                Some(0),
                Some(0),
                Some(0),
                Some(1),
                Some(1),
                None
            ]
        );
        assert_eq!(phase_ends(&events), [5, 7]);
        assert!(phase_ends(&events[..2]).is_empty());
    }

    #[test]
    fn phase_steps_walk_through_every_battle_phase_both_ways() {
        // Step 1 has no battle, step 2 fights two phases, step 3 none.
        let phases = [0, 0, 2, 0];
        let order = [
            at(0, None),
            at(1, None),
            at(2, Some(0)),
            at(2, Some(1)),
            at(2, None),
            at(3, None),
        ];
        for w in order.windows(2) {
            assert_eq!(next_phase(&phases, w[0]), w[1]);
            assert_eq!(previous_phase(&phases, w[1]), w[0]);
        }
        assert_eq!(next_phase(&phases, at(3, None)), at(3, None));
        assert_eq!(previous_phase(&phases, at(0, None)), at(0, None));
    }

    #[test]
    fn turn_steps_go_to_the_step_that_starts_a_turn() {
        // The turn after each step: steps 3 and 6 start turns 2 and 3.
        let turns = [1, 1, 1, 2, 2, 2, 3, 3];
        assert_eq!(next_turn(&turns, 0), 3);
        assert_eq!(next_turn(&turns, 3), 6);
        assert_eq!(next_turn(&turns, 6), 7, "the last turn runs to the end");
        assert_eq!(previous_turn(&turns, at(7, None)), 6);
        assert_eq!(previous_turn(&turns, at(6, None)), 3);
        assert_eq!(previous_turn(&turns, at(6, Some(0))), 6);
        assert_eq!(previous_turn(&turns, at(4, None)), 3);
        assert_eq!(previous_turn(&turns, at(3, None)), 0);
        assert_eq!(previous_turn(&turns, at(0, None)), 0);
    }
}
