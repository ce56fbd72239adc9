//! A replayed game shown at any step, forwards and backwards ([`Timeline`]), and the recorded
//! step the engine refuses ([`Refused`]).

use crate::format::Step;
use crate::play::apply;
use hexforge_core::{AbilityHooks, ActionError, Game};
use std::borrow::Cow;
use std::fmt;

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
