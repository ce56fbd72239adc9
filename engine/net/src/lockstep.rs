//! What hosting and joining share: the content a side plays with ([`Content`]), the [`Watcher`]
//! a front end shows a match through, where a side stands ([`Here`]), how a match ended
//! ([`Outcome`]), the stand-in player of seats played elsewhere ([`Elsewhere`]), a step played
//! here ([`play_turn`], its decisions put to the seats' own players, asked over the network for
//! seats played elsewhere) or received ([`play_wire`]), a decision answered for another side
//! ([`answer_for`]) and a side's replay as lines.

use crate::desync::Found;
use crate::error::NetError;
use crate::message::WireStep;
use hexforge_content::ModInfo;
use hexforge_core::decision::{Decider, Decision};
use hexforge_core::game::{LegalActions, Player};
use hexforge_core::{AbilityHooks, Action, Battlefield, Catalog, Event, Game, GameResult};
use hexforge_replay::{Header, Recorder, Step, act_noted, replay_step};
use std::sync::Arc;

/// How long a decision put to a seat played on another side may take (a person thinks).
pub(crate) const DECIDE_WITHIN: std::time::Duration = std::time::Duration::from_secs(600);

/// What a side has loaded: its mods (with their versions and content hashes, compared at the
/// handshake) and the catalog built from them.
pub struct Content<'m> {
    /// The loaded mods, in load order.
    pub mods: &'m [ModInfo],
    /// Every tile of the loaded mods, with their abilities bound.
    pub catalog: Arc<Catalog>,
}

/// Where a side stands in a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Here {
    /// The host: it keeps the match's log and checks every side's hashes.
    Host,
    /// A joiner playing this seat (from 0).
    Seat(usize),
    /// A spectator.
    Watch,
}

/// What a front end is told of a match, in order: where it can be joined, its start, every
/// step, news, its end.
pub trait Watcher {
    /// The host listens on `at` (`IP:PORT`, `0.0.0.0:PORT` for every address of the machine,
    /// or `RELAY --match CODE`).
    fn listening(&mut self, at: &str) {
        let _ = at;
    }

    /// The match starts: its header, the game before its first action, the events of its
    /// set-up, and where this side stands.
    fn begin(&mut self, header: &Header, game: &Game, events: &[Event], here: Here);

    /// Step `number` (from 1) was played: the game after it and its events.
    fn step(&mut self, game: &Game, number: usize, step: &Step, events: &[Event]);

    /// News: who joined, left, is waited for, which bot took a seat.
    fn notice(&mut self, text: &str);

    /// The match is over: the game at its end.
    fn end(&mut self, game: &Game);
}

/// A watcher that shows nothing (bots' matches, load tests).
pub struct Unseen;

impl Watcher for Unseen {
    fn begin(&mut self, _: &Header, _: &Game, _: &[Event], _: Here) {}
    fn step(&mut self, _: &Game, _: usize, _: &Step, _: &[Event]) {}
    fn notice(&mut self, _: &str) {}
    fn end(&mut self, _: &Game) {}
}

/// How a match ended on one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The game's result.
    pub result: GameResult,
    /// The steps played.
    pub steps: usize,
    /// `Game::state_hash` at the end.
    pub hash: u64,
}

/// The player of a seat played on another side. It is never asked for an action; a decision
/// put to its seat during an action played here is asked of that side (docs/NETWORK.md,
/// "Decisions"), and takes the engine's default, the first option, when no one plays the seat
/// (a joiner gone).
pub struct Elsewhere;

impl Player for Elsewhere {
    fn act(&mut self, _: &Game, legal: &LegalActions, _: &mut dyn AbilityHooks) -> usize {
        legal.len().saturating_sub(1)
    }
}

/// `seat N (army)`, the seat from 1 as players count them.
pub fn seat_name(header: &Header, seat: usize) -> String {
    match header.armies.get(seat) {
        Some(army) => format!("seat {} ({army})", seat + 1),
        None => format!("seat {}", seat + 1),
    }
}

/// Asks the player of `seat` for its action among the legal ones and plays it, every decision
/// answered by the player of the seat it is put to: the step as a replay records it. Events go
/// to `events`.
pub fn play_turn(
    game: &mut Game,
    players: &mut [Box<dyn Player + '_>],
    seat: usize,
    hooks: &mut dyn AbilityHooks,
    legal: &mut LegalActions,
    events: &mut Vec<Event>,
    (stop, elsewhere): (Option<&crate::stop::Stop>, &mut AskElsewhere<'_>),
) -> Result<Step, NetError> {
    game.legal_actions(legal);
    let Some(last) = legal.len().checked_sub(1) else {
        return Err(NetError::Engine(game.nothing_open()));
    };
    let mut refs: Vec<&mut dyn Player> = players
        .iter_mut()
        .map(|p| p.as_mut() as &mut dyn Player)
        .collect();
    let pick = match refs.get_mut(seat) {
        Some(p) => p.act(game, legal, &mut *hooks).min(last),
        None => last,
    };
    // A side left while its player chose: nothing more is played.
    if stop.is_some_and(crate::stop::Stop::stopped) {
        return Err(NetError::Stopped("this side left the match".to_string()));
    }
    let action = legal.get(pick).ok_or_else(|| {
        NetError::Protocol(format!(
            "the engine lists no action {pick} for seat {}",
            seat + 1
        ))
    })?;
    let mut asking = Asking {
        players: &mut refs,
        elsewhere: &mut |s, picks: &[usize]| elsewhere(s, &action, picks),
        taken: Vec::new(),
    };
    act_noted(game, action, hooks, &mut asking, events).map_err(NetError::Engine)
}

/// Where a decision of a step played here goes: `elsewhere(seat, picks so far)` answers for a
/// seat played on another side (`None`: the seat's player here answers).
pub type AskElsewhere<'e> = dyn FnMut(usize, &Action, &[usize]) -> Option<usize> + 'e;

/// Answers a step's decisions: each by the player of the seat it is put to, or by the side
/// that plays that seat; an answer out of range counts as the first option.
struct Asking<'p, 'q, 'e> {
    players: &'p mut [&'q mut dyn Player],
    elsewhere: &'e mut dyn FnMut(usize, &[usize]) -> Option<usize>,
    /// The options picked so far in the step, which a side asked plays again.
    taken: Vec<usize>,
}

impl Decider for Asking<'_, '_, '_> {
    fn decide(&mut self, field: &Battlefield, decision: &Decision<'_>) -> usize {
        let seat = decision.player.index();
        let pick = match (self.elsewhere)(seat, &self.taken) {
            Some(p) => p,
            None => self
                .players
                .get_mut(seat)
                .map_or(0, |p| p.decide(field, decision)),
        };
        let pick = if pick < decision.options.len() {
            pick
        } else {
            0
        };
        self.taken.push(pick);
        pick
    }
}

/// The pick of the player of `seat` for the next decision of `action` played on `game`, the
/// step's earlier decisions answered with `picks`: the action is played on a copy of the game
/// up to that decision. The first option when that decision is not put to `seat` (a side that
/// asks wrongly) or the action asks no more decisions.
pub fn answer_for(
    game: &Game,
    action: Action,
    picks: &[usize],
    seat: usize,
    player: &mut dyn Player,
    hooks: &mut dyn AbilityHooks,
) -> usize {
    struct Probe<'a> {
        picks: &'a [usize],
        seen: usize,
        seat: usize,
        player: &'a mut dyn Player,
        answer: Option<usize>,
    }
    impl Decider for Probe<'_> {
        fn decide(&mut self, field: &Battlefield, decision: &Decision<'_>) -> usize {
            let k = self.seen;
            self.seen += 1;
            if let Some(p) = self.picks.get(k) {
                return *p;
            }
            if k == self.picks.len() && decision.player.index() == self.seat {
                let p = self.player.decide(field, decision);
                let p = if p < decision.options.len() { p } else { 0 };
                self.answer = Some(p);
                return p;
            }
            0
        }
    }
    let mut probe = Probe {
        picks,
        seen: 0,
        seat,
        player,
        answer: None,
    };
    let mut copy = game.clone();
    let _ = copy.act(&action, hooks, &mut probe, &mut ());
    probe.answer.unwrap_or(0)
}

/// A step received and played here.
pub struct Checked {
    /// The step as played here: the sender's action and decisions, this side's phases and hash.
    pub step: Step,
    /// What this side found after it.
    pub found: Found,
}

/// Plays a step another side sent with its decisions; `Err` when its action cannot be read
/// here. A step the engine refuses leaves the game as it was (`found` says why).
pub fn play_wire(
    game: &mut Game,
    wire: &WireStep,
    hooks: &mut dyn AbilityHooks,
    events: &mut Vec<Event>,
) -> Result<Checked, String> {
    let step = wire.to_step(game.catalog())?;
    match replay_step(game, &step, hooks, events) {
        Ok(replayed) => {
            let hash = game.state_hash();
            Ok(Checked {
                step: Step {
                    phases: replayed.phases,
                    hash,
                    ..step
                },
                found: Found::State(hash),
            })
        }
        Err(e) => Ok(Checked {
            step,
            found: Found::Refused(e.to_string()),
        }),
    }
}

/// A side's replay of a match: the header and each step with this side's hashes (a file
/// `hexforge replay` reads; no `end` line, as of a game that stopped).
pub fn replay_lines(header: &Header, steps: &[Step], catalog: &Catalog) -> Vec<String> {
    let mut text = Vec::new();
    // Writing to memory cannot fail.
    if let Ok(mut r) = Recorder::new(&mut text, header) {
        for s in steps {
            let _ = r.step(s, catalog);
        }
    }
    String::from_utf8_lossy(&text)
        .lines()
        .map(str::to_string)
        .collect()
}
