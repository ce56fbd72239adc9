//! Whole games (section 2): seats, draw piles, hands and discard piles, turn order, the final round
//! and the result. A [`GameSetup`] becomes a [`Game`] only through [`Game::new`] (or a mid-game
//! [`Position`] through [`Game::from_position`]); after that the state changes only by
//! [`Game::act`] with a legal [`Action`], which produces events that the game applies to itself.

mod action;
mod flow;
mod hash;
mod judge;
mod legal;
mod player;
mod scripts;

use action::Movers;
pub use action::{Action, ActionError, Target};
pub use judge::Mode;
pub use legal::LegalActions;
pub use player::{Player, Seats, next_action, play_out};

use crate::battle::Context;
use crate::battlefield::{Battlefield, MAX_PLAYERS, PlayerSetup, Seat, Setup, SetupError};
use crate::event::{Event, GameResult};
use crate::hooks::{Restriction, RulePoints};
use crate::play::{PlayChecker, Turn, Views};
use crate::rng::Rng;
use crate::rules::{FirstPlayer, Rules};
use crate::shape::BoardShape;
use crate::tile::{Catalog, TileKind, TileRef};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// One player of a new game.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SeatSetup {
    /// The army id in the catalog (`moloch`).
    pub army: String,
    /// Players with the same team number are allies (R0.5); give every player its own in a duel.
    pub team: u8,
}

impl SeatSetup {
    /// One seat per army in seat order, each player its own team (a duel or a free-for-all).
    pub fn each_alone<A: AsRef<str>>(armies: &[A]) -> Vec<SeatSetup> {
        armies
            .iter()
            .enumerate()
            .map(|(i, a)| SeatSetup {
                army: a.as_ref().to_string(),
                team: i as u8,
            })
            .collect()
    }
}

/// A new game, not yet checked: players in seat order, the board and the seed.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The board the game is played on.
    pub shape: BoardShape,
    /// The players in seat order, with their armies and teams; the teams fix the mode.
    pub seats: Vec<SeatSetup>,
    /// Fixes every shuffle and the first player: the same seed and actions give the same game.
    pub seed: u64,
    /// The markers the board puts on its hexes before the first action (a board file's special
    /// hexes, such as hexes that raise initiative, R9.7): each on a hex of `shape`
    /// (`MarkOn::Hex`), checked by [`crate::marker::MarkerName::check`].
    pub marks: Vec<crate::marker::Mark>,
}

/// A game in progress, as a scenario describes it (not yet checked): the board, each player's
/// piles and hand, whose turn begins next, and the final round if it has begun.
#[derive(Clone, Debug)]
pub struct Position {
    /// The board, with every player's HQ on it.
    pub setup: Setup,
    /// Per player: the army, then the draw pile from the top, the hand and the discard pile.
    pub piles: Vec<Piles>,
    /// The player whose turn begins (they draw first).
    pub next: Seat,
    /// The number of the turn that begins: turns 1 and 2 draw 1 and 2 tiles (R2.4, R8.1).
    pub turn_number: u16,
    /// The players who still play their last turn, when a last tile has been drawn (R2.8.1).
    pub last_turns: Option<Vec<Seat>>,
    /// Seeds the game's generator and its hooks' seeds from this position on.
    pub seed: u64,
    /// The markers in play on the board's tiles and hexes and on the players.
    pub marks: Vec<crate::marker::Mark>,
    /// The linked units on the board (docs/LINKED_UNITS.md), each checked like a new one
    /// ([`Battlefield::check_link`]) and numbered again from 1 in this order.
    pub links: Vec<crate::link::Link>,
}

/// One player's tiles off the board.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Piles {
    /// The id of the player's army in the catalog.
    pub army: String,
    /// The draw pile, top first.
    pub deck: Vec<TileRef>,
    /// The tiles held, at most the rules' [`Rules::hand_size`].
    pub hand: Vec<TileRef>,
    /// The discard pile, oldest first.
    pub discard: Vec<TileRef>,
    /// The reserve (docs/RULESETS.md, "The reserve"), in the order the tiles came.
    pub reserve: Vec<TileRef>,
}

/// Why a game cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// A seat names an army the catalog does not hold.
    UnknownArmy {
        /// The army as the seat names it.
        army: String,
        /// The ids of the armies the catalog holds, in its order.
        loaded: Vec<String>,
    },
    /// The army has no HQ, or more than one.
    ArmyHq {
        /// The army's id.
        army: String,
        /// How many HQ tiles it has.
        hqs: usize,
    },
    /// The seats' teams make no mode of section 8.
    Teams(String),
    /// The rules start an HQ with no hit points (`hq_hp`, `team_hq_hp` or `one_vs_team_hq_hp`
    /// set to 0 in code): it would be destroyed before the game.
    NoHitPoints,
    /// A rule option the game flow does not support yet.
    Unsupported {
        /// The option's key, to turn it off.
        key: String,
    },
    /// The position's board is not a legal battlefield.
    Board(SetupError),
    /// A mid-game position is inconsistent.
    Position(String),
    /// A marker the board starts with is not on one of its hexes, or carries a value its name
    /// cannot take.
    BoardMark(String),
    /// An ability hook or a game rule's hook failed as the game was set up or the first turn
    /// began.
    Hook(crate::hooks::HookError),
    /// A mod's game rule is in play, so the game needs its scripts: use [`Game::start`].
    NeedsScripts {
        /// The rule's name.
        rule: String,
        /// The mod that defines it.
        mod_id: String,
    },
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::UnknownArmy { army, loaded } => write!(
                f,
                "no army `{army}` is loaded{} Loaded: {} (name one of them, or load its mod with --mods)",
                match crate::names::closest(army, loaded.iter().map(String::as_str)) {
                    Some(near) => format!("; did you mean `{near}`?"),
                    None => ".".to_string(),
                },
                loaded.join(", ")
            ),
            GameError::ArmyHq { army, hqs } => write!(
                f,
                "army `{army}` has {hqs} HQ tiles; a playable army has exactly one (R1.1)"
            ),
            GameError::Teams(why) => f.write_str(why),
            GameError::NoHitPoints => f.write_str(
                "the rules start an HQ with 0 hit points (`hq_hp`, `team_hq_hp` or `one_vs_team_hq_hp`): give it 1 at least",
            ),
            GameError::Unsupported { key } => write!(
                f,
                "the rule option `{key}` is not supported in whole games yet; turn it off to play"
            ),
            GameError::Board(e) => write!(f, "{e}"),
            GameError::Position(why) => f.write_str(why),
            GameError::BoardMark(why) => write!(f, "the board's markers: {why}"),
            GameError::Hook(e) => write!(f, "a script failed as the game began: {e}"),
            GameError::NeedsScripts { rule, mod_id } => write!(
                f,
                "the game rule `{rule}` of mod `{mod_id}` is in play: the game needs its scripts from the start (set it up with Game::start and the mods' script host)"
            ),
        }
    }
}

impl std::error::Error for GameError {}

/// Where a game stands: who must do what.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stage {
    /// The current player puts their HQ on the board (R2.3).
    PlaceHq,
    /// The current player holds a full hand after drawing and must discard one first (R2.5.2).
    Discard,
    /// The current player plays, keeps or discards tiles, uses Mobility, or ends the turn (R2.5.3).
    Play,
    /// The game has ended with this result; no action is accepted.
    Over(GameResult),
}

#[derive(PartialEq, Eq, Debug, Default)]
struct Hand {
    deck: Vec<TileRef>,
    hand: Vec<TileRef>,
    discard: Vec<TileRef>,
    /// Tiles set aside off the board and out of the draw pile (docs/RULESETS.md, "The
    /// reserve"), in the order they came.
    reserve: Vec<TileRef>,
}

/// What the current turn has done so far.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct TurnState {
    turn: Turn,
    /// Tiles placed or instants played this turn.
    tiles_played: u8,
    /// Tiles discarded beyond the compulsory one that count against `tiles_per_turn`
    /// (`extra_discards = counted`, R9.2.2); always 0 under the other rules.
    discards_counted: u8,
    /// Something other than a bad-draw redraw happened: no redraw any more (R2.6).
    acted: bool,
    /// A tile has been discarded this turn (game rules read it).
    discarded: bool,
    /// Tiles placed from the hand this turn (game rules read it; `tiles_played` counts
    /// instants too).
    placed: u8,
    /// A unit used Mobility after tiles were played: no more tiles this turn
    /// (`mobility_timing = before_or_after_placing`, Q13).
    tiles_closed: bool,
    /// The game rules' actions taken this turn (at most [`MAX_RULE_ACTIONS_PER_TURN`]).
    rule_actions: u8,
}

/// The most turns a game plays before its final round: a rule that keeps the draw piles from
/// running out (no draws, tiles set aside) would otherwise never let the game reach its Final
/// Battle (R2.8). Every game of the shipped armies ends well before.
pub const MAX_TURNS: u16 = 500;

/// The most game rules' actions one turn takes: a rule action offered again and again (turn a
/// unit, say) would otherwise let a turn, and a bot that always takes it, go on for ever. Past
/// it, the rules' actions are not offered until the next turn.
pub const MAX_RULE_ACTIONS_PER_TURN: u8 = 50;

/// A game of Hexforge. Fields are private: the state changes only through [`Game::act`].
#[derive(Debug)]
pub struct Game {
    catalog: Arc<Catalog>,
    rules: Arc<Rules>,
    field: Battlefield,
    mode: Mode,
    armies: Arc<[String]>,
    piles: [Hand; MAX_PLAYERS],
    /// The turn cycle (R8.4.2, R8.5.3); `cursor` is the current turn's place in it.
    order: Vec<Seat>,
    cursor: usize,
    stage: Stage,
    state: TurnState,
    /// Turns played so far (the current one included).
    turn_number: u16,
    /// A last tile has been drawn: no more Battle tiles (R2.8.2).
    last_drawn: bool,
    /// Players who still owe their last turn (bit per player) while a final round runs.
    owed: Option<u8>,
    /// The tie-break of R2.9.5 has begun.
    tie_break: bool,
    /// The players out of the race of a three-player tie (R8.2.5), one bit each: they play no
    /// more turns and cannot win, but their army stays on the board. 0 in every other game.
    out: u8,
    /// Battles fought so far.
    battles: u32,
    rng: Rng,
    /// The netted and carried units of `field`, worked out when first needed and dropped whenever
    /// an action may have changed the board.
    views: OnceLock<Views>,
    /// The first ability hook that failed during the current action.
    hook_failure: Option<crate::hooks::HookError>,
    /// The game's seed, from which each battle's seed for ability scripts is derived, so that
    /// what a script draws depends only on the game and the battle, never on how often other
    /// copies of the game (a bot's simulations) called the scripts.
    hook_seed: u64,
    /// Hook calls made outside battles so far (`placed`, `turn_started`, `turn_ended`): each is
    /// a reseed point, with a seed of `hook_seed` and this count.
    hook_calls: u32,
    /// Who might use Mobility on `field`, kept like `views`.
    movers: OnceLock<Movers>,
    /// Whether some army of the game holds a scripted instant: then every action may call hooks
    /// (the targets of the instants in the next hand are worked out after it).
    has_scripted: bool,
    /// The targets of each scripted instant in the current player's hand (distinct tiles in hand
    /// order), worked out by the hooks after every action (`Game::refresh_targets`), so that
    /// listing the legal actions calls no hook.
    scripted: Vec<(TileRef, crate::hooks::InstantTargets)>,
    /// The game rules in play (`Catalog::game_rules`), one bit per rule index: fixed for the
    /// game by its rule options.
    rules_in_play: u64,
    /// The points of the rules in play together; empty, the game calls no rule at all.
    rule_points: RulePoints,
    /// What the rules' `restrict` hooks closed after the last action.
    restriction: Restriction,
    /// The targets of the rules' actions after the last action: rule index, action index and
    /// where it may be taken, for every action that may be taken now.
    rule_targets: Vec<(u8, u8, crate::hooks::InstantTargets)>,
    /// Why rule actions listing nothing may not be taken now, when their `targets` said so
    /// (messages only: not part of the state hash).
    rule_refusals: Vec<(u8, u8, String)>,
    /// Tiles destroyed and HQ HP lost that the rules' `destroyed` and `hq_damaged` hooks have not
    /// seen yet (kept only while such a rule is in play).
    losses: Vec<Loss>,
}

impl Clone for Hand {
    fn clone(&self) -> Self {
        Hand {
            deck: self.deck.clone(),
            hand: self.hand.clone(),
            discard: self.discard.clone(),
            reserve: self.reserve.clone(),
        }
    }

    /// Field by field, keeping the lists' room: a bot trying actions on one copy after another
    /// allocates nothing once the copy has grown.
    fn clone_from(&mut self, source: &Self) {
        let Hand {
            deck,
            hand,
            discard,
            reserve,
        } = source;
        self.deck.clone_from(deck);
        self.hand.clone_from(hand);
        self.discard.clone_from(discard);
        self.reserve.clone_from(reserve);
    }
}

impl Clone for Game {
    fn clone(&self) -> Self {
        Game {
            catalog: self.catalog.clone(),
            rules: self.rules.clone(),
            field: self.field.clone(),
            mode: self.mode,
            armies: self.armies.clone(),
            piles: self.piles.clone(),
            order: self.order.clone(),
            cursor: self.cursor,
            stage: self.stage,
            state: self.state,
            turn_number: self.turn_number,
            last_drawn: self.last_drawn,
            owed: self.owed,
            tie_break: self.tie_break,
            out: self.out,
            battles: self.battles,
            rng: self.rng.clone(),
            views: self.views.clone(),
            hook_failure: self.hook_failure.clone(),
            hook_seed: self.hook_seed,
            hook_calls: self.hook_calls,
            movers: self.movers.clone(),
            has_scripted: self.has_scripted,
            scripted: self.scripted.clone(),
            rules_in_play: self.rules_in_play,
            rule_points: self.rule_points,
            restriction: self.restriction,
            rule_targets: self.rule_targets.clone(),
            rule_refusals: self.rule_refusals.clone(),
            losses: self.losses.clone(),
        }
    }

    /// Field by field, keeping the lists' room (the piles, the board's markers and links): a bot
    /// that tries each action on a copy of the same game allocates nothing once it has grown.
    /// The pattern below lists every field, so a field added to `Game` must be added here.
    fn clone_from(&mut self, source: &Self) {
        let Game {
            catalog,
            rules,
            field,
            mode,
            armies,
            piles,
            order,
            cursor,
            stage,
            state,
            turn_number,
            last_drawn,
            owed,
            tie_break,
            out,
            battles,
            rng,
            views,
            hook_failure,
            hook_seed,
            hook_calls,
            movers,
            has_scripted,
            scripted,
            rules_in_play,
            rule_points,
            restriction,
            rule_targets,
            rule_refusals,
            losses,
        } = source;
        self.catalog.clone_from(catalog);
        self.rules.clone_from(rules);
        self.field.clone_from(field);
        self.mode = *mode;
        self.armies.clone_from(armies);
        self.piles.clone_from(piles);
        self.order.clone_from(order);
        self.cursor = *cursor;
        self.stage = *stage;
        self.state = *state;
        self.turn_number = *turn_number;
        self.last_drawn = *last_drawn;
        self.owed = *owed;
        self.tie_break = *tie_break;
        self.out = *out;
        self.battles = *battles;
        self.rng.clone_from(rng);
        self.views.clone_from(views);
        self.hook_failure.clone_from(hook_failure);
        self.hook_seed = *hook_seed;
        self.hook_calls = *hook_calls;
        self.movers.clone_from(movers);
        self.has_scripted = *has_scripted;
        self.scripted.clone_from(scripted);
        self.rules_in_play = *rules_in_play;
        self.rule_points = *rule_points;
        self.restriction = *restriction;
        self.rule_targets.clone_from(rule_targets);
        self.rule_refusals.clone_from(rule_refusals);
        self.losses.clone_from(losses);
    }
}

/// A loss the rules' hooks are still to see.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Loss {
    /// A tile left the board destroyed.
    Tile(crate::hooks::Lost),
    /// An HQ lost HP.
    Hq(crate::hooks::HqLoss),
}

impl Game {
    /// Sets up a new game: each army's tiles but the HQ shuffled into a draw pile with the game's
    /// seeded RNG (R2.1), the first player chosen (R2.2), and the first HQ to place (R2.3).
    ///
    /// A game whose rule options put a mod's game rule in play needs its scripts from the
    /// start: it is refused here ([`GameError::NeedsScripts`]); set it up with [`Game::start`].
    pub fn new(
        setup: GameSetup,
        catalog: Arc<Catalog>,
        rules: Arc<Rules>,
    ) -> Result<Self, GameError> {
        let game = Self::build(setup, catalog, rules)?;
        if let Some(i) = game.rules_in_play().next() {
            let rule = &game.catalog.game_rules()[i];
            return Err(GameError::NeedsScripts {
                rule: rule.name.clone(),
                mod_id: rule.mod_id.clone(),
            });
        }
        Ok(game)
    }

    /// Sets up a new game as [`Game::new`] does, then runs the `setup` hooks of the game rules
    /// in play (docs/RULESETS.md, "Game scripts") with `hooks`, their events going to `sink`,
    /// and asks the rules what is closed and where their actions may be taken. With no rule in
    /// play it is [`Game::new`].
    pub fn start<H, S>(
        setup: GameSetup,
        catalog: Arc<Catalog>,
        rules: Arc<Rules>,
        hooks: &mut H,
        sink: &mut S,
    ) -> Result<Self, GameError>
    where
        H: crate::hooks::AbilityHooks + ?Sized,
        S: crate::event::EventSink + ?Sized,
    {
        let mut game = Self::build(setup, catalog, rules)?;
        if game.rule_points.is_empty() {
            return Ok(game);
        }
        game.rule_effects(
            RulePoints::SETUP,
            &mut (&mut *hooks, &mut crate::decision::DefaultPolicy, sink),
        );
        if let Some(e) = game.hook_failure.take() {
            return Err(GameError::Hook(e));
        }
        game.refresh_rules(hooks).map_err(GameError::Hook)?;
        Ok(game)
    }

    /// The game of `setup`, checked, with the rules in play worked out and no hook called.
    #[inline]
    fn build(
        setup: GameSetup,
        catalog: Arc<Catalog>,
        rules: Arc<Rules>,
    ) -> Result<Self, GameError> {
        let teams: Vec<u8> = setup.seats.iter().map(|s| s.team).collect();
        let mode = Mode::of(&teams)?;
        supported(&rules, &catalog)?;
        let hp = rules.starting_hq_hp(&teams);
        if hp.contains(&0) {
            return Err(GameError::NoHitPoints);
        }
        let mut field = Battlefield::new(
            Setup {
                shape: setup.shape,
                players: teams
                    .iter()
                    .zip(&hp)
                    .map(|(t, h)| PlayerSetup {
                        team: *t,
                        hq_hp: i32::from(*h),
                    })
                    .collect(),
                tiles: Vec::new(),
            },
            &catalog,
        )
        .map_err(GameError::Board)?;
        for mark in setup.marks {
            let crate::marker::MarkOn::Hex(cell) = mark.on else {
                return Err(GameError::BoardMark(format!(
                    "the marker `{}` is not on a hex: a board marks only its hexes",
                    mark.name
                )));
            };
            if cell.index() >= field.shape().len() {
                return Err(GameError::BoardMark(format!(
                    "the marker `{}` is on cell {} of a board of {} hexes",
                    mark.name,
                    cell.index(),
                    field.shape().len()
                )));
            }
            mark.name
                .check(mark.on, mark.value)
                .map_err(GameError::BoardMark)?;
            field.apply(&Event::Marked { mark });
        }
        let mut rng = Rng::seeded(setup.seed);
        let mut piles: [Hand; MAX_PLAYERS] = Default::default();
        for (seat, pile) in setup.seats.iter().zip(piles.iter_mut()) {
            let army = catalog
                .army(&seat.army)
                .ok_or_else(|| GameError::UnknownArmy {
                    army: seat.army.clone(),
                    loaded: catalog.armies().iter().map(|a| a.id.clone()).collect(),
                })?;
            let hqs = army
                .tiles
                .iter()
                .filter(|t| catalog.get(**t).is_hq())
                .count();
            if hqs != 1 {
                return Err(GameError::ArmyHq {
                    army: seat.army.clone(),
                    hqs,
                });
            }
            // Every pile is made big enough for the whole army once: no growing during play.
            let size: usize = army
                .tiles
                .iter()
                .map(|t| usize::from(catalog.get(*t).count))
                .sum();
            pile.deck.reserve_exact(size);
            pile.hand.reserve_exact(usize::from(rules.hand_size));
            pile.discard.reserve_exact(size);
            for t in &army.tiles {
                let def = catalog.get(*t);
                if !def.is_hq() {
                    pile.deck
                        .extend(std::iter::repeat_n(*t, usize::from(def.count)));
                }
            }
            rng.shuffle(&mut pile.deck);
        }
        let mut order = mode.turn_order(&teams);
        if rules.first_player_rule == FirstPlayer::Random && mode != Mode::OneVsTeam {
            // R2.2; the lone player always starts against a team (R8.4.1, R8.1).
            let k = rng.below(order.len());
            order.rotate_left(k);
        }
        let first = order[0];
        let has_scripted = scripted_in(&catalog, setup.seats.iter().map(|s| s.army.as_str()));
        let (rules_in_play, rule_points) = scripts::rules_in_play(&catalog, &rules);
        Ok(Game {
            catalog,
            rules,
            field,
            mode,
            armies: setup.seats.into_iter().map(|s| s.army).collect(),
            piles,
            order,
            cursor: 0,
            stage: Stage::PlaceHq,
            state: TurnState::new(first),
            turn_number: 0,
            last_drawn: false,
            owed: None,
            tie_break: false,
            out: 0,
            battles: 0,
            rng,
            views: OnceLock::new(),
            hook_failure: None,
            hook_seed: setup.seed,
            hook_calls: 0,
            movers: OnceLock::new(),
            has_scripted,
            scripted: Vec::new(),
            rules_in_play,
            rule_points,
            restriction: Restriction::default(),
            rule_targets: Vec::new(),
            rule_refusals: Vec::new(),
            losses: Vec::new(),
        })
    }

    /// A game in progress, checked: the board is legal, every player has an HQ on it, hands hold
    /// at most [`Rules::hand_size`] tiles of the player's army. The turn of `next` begins at
    /// once (with its draws and its `turn_started` hooks, run by `hooks`).
    pub fn from_position<H, S>(
        position: Position,
        catalog: Arc<Catalog>,
        rules: Arc<Rules>,
        hooks: &mut H,
        sink: &mut S,
    ) -> Result<Self, GameError>
    where
        H: crate::hooks::AbilityHooks + ?Sized,
        S: crate::event::EventSink + ?Sized,
    {
        let teams: Vec<u8> = position.setup.players.iter().map(|p| p.team).collect();
        let mode = Mode::of(&teams)?;
        supported(&rules, &catalog)?;
        let mut field = Battlefield::new(position.setup, &catalog).map_err(GameError::Board)?;
        let n = field.player_count();
        for mark in position.marks {
            let there = match mark.on {
                crate::marker::MarkOn::Tile(c) => field.at(c).is_some(),
                crate::marker::MarkOn::Hex(_) => true,
                crate::marker::MarkOn::Player(p) => p.index() < n,
            };
            if !there {
                return Err(GameError::Position(format!(
                    "the marker `{}` is on {}, which the position does not have",
                    mark.name,
                    match mark.on {
                        crate::marker::MarkOn::Player(p) => p.to_string(),
                        _ => "an empty hex".to_string(),
                    }
                )));
            }
            field.apply(&Event::Marked { mark });
        }
        for l in position.links {
            let e = field
                .check_link(l.kind, l.owner, l.segments, l.loss(), l.shared())
                .map_err(|e| GameError::Position(format!("the linked unit {}: {e}", l.kind)))?;
            field.apply(&e);
        }
        if position.piles.len() != n {
            return Err(GameError::Position(format!(
                "{} players but {} sets of piles",
                n,
                position.piles.len()
            )));
        }
        let mut piles: [Hand; MAX_PLAYERS] = Default::default();
        for (i, p) in position.piles.iter().enumerate() {
            let seat = Seat::new(i as u8);
            if field.hq_cell(seat, &catalog).is_none() {
                return Err(GameError::Position(format!(
                    "{seat} has no HQ on the board: a game in progress needs every HQ (R2.3)"
                )));
            }
            if p.hand.len() > usize::from(rules.hand_size) {
                return Err(GameError::Position(format!(
                    "{seat} holds {} tiles; nobody may hold more than {} (R2.5.1, `hand_size`)",
                    p.hand.len(),
                    rules.hand_size
                )));
            }
            for t in p.deck.iter().chain(&p.hand).chain(&p.discard) {
                let def = catalog.get(*t);
                if def.army != p.army || def.is_hq() {
                    return Err(GameError::Position(format!(
                        "`{}` cannot be in the piles of {seat}, who plays `{}`",
                        def.full_id(),
                        p.army
                    )));
                }
            }
            for t in &p.reserve {
                let def = catalog.get(*t);
                if !def.kind.is_board_tile() || def.is_hq() {
                    return Err(GameError::Position(format!(
                        "`{}` cannot be in the reserve of {seat}: a reserve holds board tiles other than HQs",
                        def.full_id()
                    )));
                }
            }
            let mut deck = p.deck.clone();
            deck.reverse(); // the top of the pile is the end of the vector
            piles[i] = Hand {
                deck,
                hand: p.hand.clone(),
                discard: p.discard.clone(),
                reserve: p.reserve.clone(),
            };
        }
        let order = mode.turn_order(&teams);
        let cursor = order
            .iter()
            .position(|s| *s == position.next)
            .ok_or_else(|| GameError::Position(format!("{} is not playing", position.next)))?;
        let owed = position
            .last_turns
            .as_ref()
            .map(|v| v.iter().fold(0u8, |m, p| m | 1 << p.index()));
        let (rules_in_play, rule_points) = scripts::rules_in_play(&catalog, &rules);
        let mut game = Game {
            catalog,
            rules,
            field,
            mode,
            armies: position.piles.into_iter().map(|p| p.army).collect(),
            piles,
            order,
            cursor,
            stage: Stage::Play,
            state: TurnState::new(position.next),
            turn_number: position.turn_number.saturating_sub(1),
            last_drawn: owed.is_some(),
            owed,
            tie_break: false,
            out: 0,
            battles: 0,
            rng: Rng::seeded(position.seed),
            views: OnceLock::new(),
            hook_failure: None,
            hook_seed: position.seed,
            hook_calls: 0,
            movers: OnceLock::new(),
            has_scripted: false,
            scripted: Vec::new(),
            rules_in_play,
            rule_points,
            restriction: Restriction::default(),
            rule_targets: Vec::new(),
            rule_refusals: Vec::new(),
            losses: Vec::new(),
        };
        game.has_scripted = scripted_in(&game.catalog, game.armies.iter().map(String::as_str));
        let outside = &mut (&mut *hooks, &mut crate::decision::DefaultPolicy, sink);
        game.begin_turn(position.next, outside);
        game.turn_hooks(
            position.next,
            crate::hooks::HookPoints::TURN_STARTED,
            outside,
        );
        if let Some(e) = game.hook_failure.take() {
            return Err(GameError::Hook(e));
        }
        game.refresh_targets(hooks).map_err(GameError::Hook)?;
        game.refresh_rules(hooks).map_err(GameError::Hook)?;
        Ok(game)
    }

    /// The definitions of every tile the game's armies use.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The rule options this game was set up with; fixed for the whole game.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The catalog and rules, as battles and plays take them.
    pub fn context(&self) -> Context<'_> {
        Context {
            catalog: &self.catalog,
            rules: &self.rules,
        }
    }

    /// The netted and carried units of the board as it is, worked out once per board.
    pub(crate) fn views(&self) -> Views {
        *self
            .views
            .get_or_init(|| Views::new(&self.field, self.context()))
    }

    /// Who might use Mobility on the board as it is, worked out once per board.
    fn movers(&self) -> Movers {
        *self
            .movers
            .get_or_init(|| Movers::of(&self.field, &self.catalog))
    }

    /// A checker of plays on the board as it is, with the kept views.
    pub(crate) fn checker(&self) -> PlayChecker<'_> {
        PlayChecker::with_views(&self.field, self.context(), self.views())
    }

    /// The board as it stands, with wounds and HQ hit points.
    pub fn field(&self) -> &Battlefield {
        &self.field
    }

    /// Duel, free for all, one against a team or two teams, from the seats' teams.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// What the current player must do next, or the result once the game is over.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// How the game ended; `None` while it goes on.
    pub fn result(&self) -> Option<GameResult> {
        match self.stage {
            Stage::Over(r) => Some(r),
            _ => None,
        }
    }

    /// Whose input the game waits for; `None` once it is over.
    pub fn current(&self) -> Option<Seat> {
        match self.stage {
            Stage::Over(_) => None,
            _ => Some(self.state.turn.player()),
        }
    }

    /// The id of the army the player plays.
    pub fn army(&self, p: Seat) -> &str {
        &self.armies[p.index()]
    }

    /// The tiles a player holds, face up for everyone (R2.5.1).
    pub fn hand(&self, p: Seat) -> &[TileRef] {
        &self.piles[p.index()].hand
    }

    /// How many tiles are left in the player's draw pile (its order is hidden).
    pub fn deck_len(&self, p: Seat) -> usize {
        self.piles[p.index()].deck.len()
    }

    /// The player's discard pile, face up for everyone, oldest first.
    pub fn discard_pile(&self, p: Seat) -> &[TileRef] {
        &self.piles[p.index()].discard
    }

    /// The player's reserve (docs/RULESETS.md, "The reserve"), in the order the tiles came. Its
    /// owner and the game's rules see it; what other players see of it is the mods' business.
    pub fn reserve(&self, p: Seat) -> &[TileRef] {
        &self.piles[p.index()].reserve
    }

    /// The number of the current turn (1 is the first turn after the HQs are placed).
    pub fn turn_number(&self) -> u16 {
        self.turn_number
    }

    /// Battles fought so far.
    pub fn battles(&self) -> u32 {
        self.battles
    }

    /// A last tile has been drawn, so no Battle tile may be played (R2.8.2).
    pub fn last_tile_drawn(&self) -> bool {
        self.last_drawn
    }

    /// The players who still play a last turn before the Final Battle (or the tie-break battle).
    pub fn last_turns(&self) -> Option<Vec<Seat>> {
        self.owed.map(|m| {
            self.field
                .players()
                .filter(|p| m & 1 << p.index() != 0)
                .collect()
        })
    }

    /// A player is in the game until their HQ is destroyed (R8.2.3).
    pub fn active(&self, p: Seat) -> bool {
        self.field.hq_hp(p) > 0
    }

    /// The players still in the game, one bit each.
    fn active_mask(&self) -> u8 {
        self.field
            .players()
            .filter(|p| self.active(*p))
            .fold(0u8, |m, p| m | 1 << p.index())
    }

    /// Whether the player is still in the race: in the game, and not out of the race of a
    /// three-player tie (R8.2.5). Only players in the race take turns and may win.
    pub fn racing(&self, p: Seat) -> bool {
        self.active(p) && self.out & 1 << p.index() == 0
    }

    /// The players in the race, one bit each.
    fn racing_mask(&self) -> u8 {
        self.active_mask() & !self.out
    }

    /// Reshuffles every draw pile with `rng`: a bot sampling futures must not read the real order.
    pub fn shuffle_unknown(&mut self, rng: &mut Rng) {
        for p in &mut self.piles {
            rng.shuffle(&mut p.deck);
        }
    }

    /// Where the scripted instant `tile` may be played now, if the current player holds it: the
    /// targets its scripts listed after the last action (docs/LUA_API.md, "Scripted instants").
    pub fn instant_targets(&self, tile: TileRef) -> Option<crate::hooks::InstantTargets> {
        self.scripted
            .iter()
            .find(|(t, _)| *t == tile)
            .map(|(_, targets)| *targets)
    }

    /// The game's random number generator (for scripted effects in later layers).
    pub fn rng_state(&self) -> &Rng {
        &self.rng
    }

    /// A stable 64-bit hash of the whole game state (board, HQ HP, piles, turn, stage, result,
    /// generator): equal games hash equally in every process, on every platform and with every
    /// Rust version, so two runs of a seeded game can be compared by their hashes.
    pub fn state_hash(&self) -> u64 {
        hash::state_hash(self)
    }

    /// A tile was discarded this turn, by the player or a rule's `fx:discard`: the turn's
    /// discard (R2.5.2) is made.
    fn turn_discarded(&mut self) {
        if self.stage == Stage::Discard {
            self.stage = Stage::Play;
        }
        self.state.acted = true;
        self.state.discarded = true;
    }

    /// Applies an event of this game. Board events go to the battlefield; the rest move tiles
    /// between piles or advance the turn.
    fn apply(&mut self, event: &Event) {
        self.field.apply(event);
        apply_piles(&mut self.piles, event);
        if let Some(movers) = self.movers.get_mut() {
            movers.follow(&self.catalog, event);
        }
        match *event {
            Event::Placed { .. } if self.stage != Stage::PlaceHq => {
                self.state.tiles_played += 1;
                self.state.placed += 1;
                self.state.acted = true;
            }
            Event::InstantPlayed { .. } => {
                self.state.tiles_played += 1;
                self.state.acted = true;
            }
            Event::TurnStarted { player, number } => {
                self.state = TurnState::new(player);
                self.turn_number = number;
                self.stage = self.stage_for_hand(player);
            }
            Event::Drew { player, .. } => self.stage = self.stage_for_hand(player),
            Event::LastTileDrawn { .. } | Event::TurnLimit { .. } => {
                self.last_drawn = true;
                self.owed = Some(self.active_mask());
            }
            Event::Discarded { .. } => self.turn_discarded(),
            Event::TurnEnded { player } => {
                if let Some(m) = self.owed.as_mut() {
                    *m &= !(1 << player.index());
                }
            }
            Event::TieBreak => {
                self.tie_break = true;
                self.owed = Some(self.racing_mask());
            }
            Event::OutOfRace { player } => self.out |= 1 << player.index(),
            Event::BattleCalled { .. } => self.battles += 1,
            Event::RuleAction { .. } => {
                self.state.acted = true;
                self.state.rule_actions = self.state.rule_actions.saturating_add(1);
            }
            Event::GameEnded { result, .. } => self.stage = Stage::Over(result),
            _ => {}
        }
    }
}

impl Game {
    /// How many tiles turn `number` draws up to: the opening turns 1, 2 and 3 draw up to 1, 2 and
    /// 3 (R2.4, R8.1), every later turn up to [`Rules::hand_size`] (R2.5.1, R9.2); with
    /// `alternative_start`, a full hand from the first turn (R9.1, R9.2.3).
    fn draw_target(&self, number: u16) -> usize {
        if self.rules.alternative_start || number > 3 {
            usize::from(self.rules.hand_size)
        } else {
            usize::from(number)
        }
    }

    /// Holding a full hand after drawing, the player must discard one first (R2.5.2, R2.7, Q31):
    /// the turn's draw target, and at least 3 (the opening turns that draw 1 and 2 discard
    /// nothing, R2.4).
    fn stage_for_hand(&self, p: Seat) -> Stage {
        let full = self.draw_target(self.turn_number).max(3);
        if self.piles[p.index()].hand.len() >= full {
            Stage::Discard
        } else {
            Stage::Play
        }
    }
}

impl Stage {
    /// The stage as game rules read it (`ctx:stage()`): `"hq"`, `"discard"`, `"play"`, `"over"`.
    pub fn word(self) -> &'static str {
        match self {
            Stage::PlaceHq => "hq",
            Stage::Discard => "discard",
            Stage::Play => "play",
            Stage::Over(_) => "over",
        }
    }

    /// The stage's flag in a rule action's `stages` (`RuleAction::STAGES`); 0 once it is over.
    pub fn rule_flag(self) -> u8 {
        use crate::tile::RuleAction;
        match self {
            Stage::PlaceHq => RuleAction::STAGE_HQ,
            Stage::Discard => RuleAction::STAGE_DISCARD,
            Stage::Play => RuleAction::STAGE_PLAY,
            Stage::Over(_) => 0,
        }
    }
}

impl TurnState {
    const fn new(p: Seat) -> Self {
        TurnState {
            turn: Turn::new(p),
            tiles_played: 0,
            discards_counted: 0,
            acted: false,
            discarded: false,
            placed: 0,
            tiles_closed: false,
            rule_actions: 0,
        }
    }
}

/// Moves tiles between a player's piles for an event (shared by game events and battle events).
fn apply_piles(piles: &mut [Hand; MAX_PLAYERS], event: &Event) {
    let take = |v: &mut Vec<TileRef>, t: TileRef| {
        if let Some(i) = v.iter().position(|x| *x == t) {
            v.remove(i);
        }
    };
    match *event {
        Event::Placed { tile, owner, .. } => take(&mut piles[owner.index()].hand, tile),
        Event::Drew { player, tile } => {
            let p = &mut piles[player.index()];
            if p.deck.last() == Some(&tile) {
                p.deck.pop();
                p.hand.push(tile);
            }
        }
        Event::Discarded { player, tile } | Event::InstantPlayed { player, tile, .. } => {
            let p = &mut piles[player.index()];
            take(&mut p.hand, tile);
            p.discard.push(tile);
        }
        // R4.3.5: destroyed tiles go to their owners' discard piles.
        Event::Removed { tile, owner, .. } => piles[owner.index()].discard.push(tile),
        Event::Fielded { tile, owner, .. } => take(&mut piles[owner.index()].reserve, tile),
        Event::Lifted { tile, owner, .. } => piles[owner.index()].reserve.push(tile),
        Event::Granted { player, tile } => piles[player.index()].reserve.push(tile),
        Event::SetAside { player, tile } => {
            let p = &mut piles[player.index()];
            if let Some(i) = p.deck.iter().rposition(|x| *x == tile) {
                p.deck.remove(i);
                p.reserve.push(tile);
            }
        }
        _ => {}
    }
}

/// Options that change the game flow in ways not built yet are refused rather than ignored:
/// every option a mod declares as not played yet (`played = false`) set to anything but its
/// default.
fn supported(rules: &Rules, catalog: &Catalog) -> Result<(), GameError> {
    let declared = catalog.options();
    match declared
        .iter()
        .find(|(key, d)| !d.played && rules.option(declared, key).is_some_and(|v| v != d.default))
    {
        Some((key, _)) => Err(GameError::Unsupported { key: key.clone() }),
        None => Ok(()),
    }
}

/// Whether one of `armies` holds an instant played by its scripts.
fn scripted_in<'a>(catalog: &Catalog, mut armies: impl Iterator<Item = &'a str>) -> bool {
    armies.any(|a| {
        catalog.army(a).is_some_and(|army| {
            army.tiles
                .iter()
                .any(|t| crate::instant::is_scripted(catalog, *t))
        })
    })
}

/// Whether a tile id is an instant (R3.16); bad draw counts Battle tiles as instants (R2.6).
fn is_instant(catalog: &Catalog, t: TileRef) -> bool {
    catalog.get(t).kind == TileKind::Instant
}

#[cfg(test)]
mod tests;
