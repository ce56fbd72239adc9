//! Playing a step of a game so a replay can record it or check it: [`act_noted`] notes the
//! decisions taken and the board hash after each battle phase, [`replay_step`] and [`apply`] play a
//! recorded step again with its recorded decisions.

use crate::format::Step;
use hexforge_core::decision::{Decider, Decision};
use hexforge_core::{AbilityHooks, Action, ActionError, Battlefield, Event, EventSink, Game};

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
