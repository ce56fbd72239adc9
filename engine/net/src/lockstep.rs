//! What hosting and joining share: the content a side plays with ([`Content`]), the [`Watcher`]
//! a front end shows a match through, where a side stands ([`Here`]), how a match ended
//! ([`Outcome`]), the stand-in player of seats played elsewhere ([`Elsewhere`]), a step played
//! here ([`play_turn`]) or received ([`play_wire`]) and a side's replay as lines.

use crate::desync::Found;
use crate::error::NetError;
use crate::message::WireStep;
use hexforge_content::ModInfo;
use hexforge_core::game::{LegalActions, Player, Seats};
use hexforge_core::{AbilityHooks, Catalog, Event, Game, GameResult};
use hexforge_replay::{Header, Recorder, Step, act_noted, replay_step};
use std::sync::Arc;

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
/// put to its seat during an action played here takes the engine's default, the first option
/// (docs/NETWORK.md, "Limits").
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
    stop: Option<&crate::Stop>,
) -> Result<Step, NetError> {
    game.legal_actions(legal);
    let Some(last) = legal.len().checked_sub(1) else {
        return Err(NetError::Protocol(format!(
            "the engine lists no action for seat {}",
            seat + 1
        )));
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
    if stop.is_some_and(crate::Stop::stopped) {
        return Err(NetError::Stopped("this side left the match".to_string()));
    }
    let action = legal.get(pick).ok_or_else(|| {
        NetError::Protocol(format!(
            "the engine lists no action {pick} for seat {}",
            seat + 1
        ))
    })?;
    let mut seats = Seats { players: &mut refs };
    act_noted(game, action, hooks, &mut seats, events).map_err(NetError::Engine)
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
