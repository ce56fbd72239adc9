//! Players: whoever answers a game's questions, the turns' actions and the decisions of battles and
//! plays. Bots and people (through a front end) implement [`Player`]; [`play_out`] runs a game
//! with one player per seat, asking each for its action through [`next_action`].

use super::{Action, ActionError, Game, LegalActions};
use crate::battlefield::Battlefield;
use crate::decision::{Decider, Decision};
use crate::event::{EventSink, GameResult};
use crate::hooks::AbilityHooks;

/// Whoever chooses a seat's actions and answers its decisions: a bot, a person's interface.
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
    /// One player per seat, in seat order.
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
/// counts as the last listed one (ending the turn). Errors if an ability script fails
/// ([`ActionError::Hook`], the script's own message: show it as such), or if the engine refuses
/// an action it listed as legal, which would be an engine bug.
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
    while let Some(action) = next_action(game, players, hooks, &mut legal) {
        game.act(&action, hooks, &mut Seats { players }, sink)?;
    }
    game.result().ok_or_else(|| game.nothing_open())
}

/// The action the current player of `game` picks among the legal ones (listed into `legal`); a
/// pick outside the list counts as the last listed one. `None` when the game is over or the
/// engine lists nothing.
#[inline]
pub fn next_action(
    game: &Game,
    players: &mut [&mut dyn Player],
    hooks: &mut dyn AbilityHooks,
    legal: &mut LegalActions,
) -> Option<Action> {
    let seat = game.current()?;
    game.legal_actions(legal);
    let last = legal.len().checked_sub(1)?;
    let pick = players
        .get_mut(seat.index())
        .map(|p| p.act(game, legal, hooks))
        .unwrap_or(last)
        .min(last);
    legal.get(pick)
}
