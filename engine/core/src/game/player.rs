//! Players: whoever answers a game's questions, the turns' actions and the decisions of battles and
//! plays. Bots and people (through a front end) implement [`Player`]; [`play_out`] runs a game
//! with one player per seat.

use super::{ActionError, Game, LegalActions};
use crate::battlefield::Battlefield;
use crate::decision::{Decider, Decision};
use crate::event::{EventSink, GameResult};
use crate::hooks::AbilityHooks;

/// A player of a game.
pub trait Player {
    /// Picks one of `legal` (never empty) for the current player of `game`: its index. `hooks`
    /// are the game's ability scripts, for players that try actions on copies of the game.
    fn act(&mut self, game: &Game, legal: &LegalActions, hooks: &mut dyn AbilityHooks) -> usize;

    /// Answers a decision of a battle or a play put to this player: an index into
    /// `decision.options`. The default takes the first option, the engine's documented default.
    fn decide(&mut self, field: &Battlefield, decision: &Decision<'_>) -> usize {
        let _ = (field, decision);
        0
    }
}

/// The players of a game by seat, answering each decision through the player it is put to.
pub struct Seats<'a, 'p> {
    pub players: &'a mut [&'p mut dyn Player],
}

impl Decider for Seats<'_, '_> {
    fn decide(&mut self, field: &Battlefield, decision: &Decision<'_>) -> usize {
        match self.players.get_mut(decision.player.index()) {
            Some(p) => p.decide(field, decision),
            None => 0,
        }
    }
}

/// Plays a game to its end with one player per seat. An action a player picks outside the list
/// counts as the last listed one (ending the turn). Errors only if the engine refuses an action it
/// listed as legal, which would be an engine bug.
pub fn play_out<S>(
    game: &mut Game,
    players: &mut [&mut dyn Player],
    hooks: &mut dyn AbilityHooks,
    sink: &mut S,
) -> Result<GameResult, ActionError>
where
    S: EventSink + ?Sized,
{
    let mut legal = LegalActions::new();
    while let Some(seat) = game.current() {
        game.legal_actions(&mut legal);
        let Some(last) = legal.len().checked_sub(1) else {
            break;
        };
        let pick = players
            .get_mut(seat.index())
            .map(|p| p.act(game, &legal, &mut *hooks))
            .unwrap_or(last)
            .min(last);
        let Some(action) = legal.get(pick) else {
            break;
        };
        game.act(&action, hooks, &mut Seats { players }, sink)?;
    }
    game.result().ok_or(ActionError::GameOver)
}
