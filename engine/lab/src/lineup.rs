//! One game of a series set up: its seats, teams, bots and seed ([`Lineup`]), started with its
//! bots ([`start`]), and why a game stopped in the words of whoever can fix it ([`stopped`]).

use crate::error::{LabError, unknown_bot};
use hexforge_content::Board;
use hexforge_core::game::Player;
use hexforge_core::{AbilityHooks, ActionError, Catalog, Event, Game, GameSetup, Rules, SeatSetup};
use std::sync::Arc;

/// A game's seats, bots and seed.
#[derive(Clone, Debug)]
pub struct Lineup<'a> {
    /// Each seat's army.
    pub armies: Vec<&'a str>,
    /// Each seat's team; `None`: every player on their own.
    pub teams: Option<&'a [u8]>,
    /// Each seat's bot (`hexforge_bots::NAMES`).
    pub bots: Vec<&'a str>,
    /// The match seed the game's and the bots' seeds come from (`hexforge_bots::match_seeds`).
    pub seed: u64,
}

/// The bots of a game, one per seat, in seat order.
pub type Bots = Vec<Box<dyn Player + Send>>;

/// A new game of `lineup` with its bots; the `setup` hooks of the game rules in play run with
/// `scripts`, their events going to `sink`.
pub fn start(
    lineup: &Lineup<'_>,
    (catalog, rules, board): (&Arc<Catalog>, &Arc<Rules>, &Board),
    scripts: &mut dyn AbilityHooks,
    sink: &mut Vec<Event>,
) -> Result<(Game, Bots), LabError> {
    let (game_seed, bot_seeds) = hexforge_bots::match_seeds(lineup.seed, lineup.armies.len());
    let seats = match lineup.teams {
        Some(teams) => lineup
            .armies
            .iter()
            .zip(teams)
            .map(|(army, team)| SeatSetup {
                army: army.to_string(),
                team: *team,
            })
            .collect(),
        None => SeatSetup::each_alone(&lineup.armies),
    };
    let game = Game::start(
        GameSetup {
            shape: board.shape.clone(),
            seats,
            seed: game_seed,
            marks: board.start_marks(),
        },
        catalog.clone(),
        rules.clone(),
        scripts,
        sink,
    )?;
    let bots = lineup
        .bots
        .iter()
        .zip(&bot_seeds)
        .map(|(name, s)| hexforge_bots::by_name(name, *s).ok_or_else(|| unknown_bot(name)))
        .collect::<Result<_, _>>()?;
    Ok((game, bots))
}

/// Why a game stopped at an action the engine listed as legal, in the words of whoever can fix
/// it: a script's error is the mod's to fix, any other refusal the engine's.
pub fn stopped(e: &ActionError) -> String {
    match e {
        ActionError::Hook(h) => format!("a script error stopped the match: {h}"),
        // The mod's rules left the player nothing to do: theirs to fix.
        ActionError::NothingOpen { .. } => format!("the game rules stopped the match: {e}"),
        other => format!("the engine refused an action it listed as legal: {other}"),
    }
}
