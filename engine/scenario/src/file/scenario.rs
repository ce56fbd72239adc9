//! What a scenario file becomes once validated: the [`Scenario`] with its steps, choices,
//! expectations and game in progress, ready to run.

use hexforge_core::marker::{Mark, MarkerName};
use hexforge_core::{Dir, Hex, Link, Rules, Seat, Setup, TileRef};

/// One `[[step]]` after validation: what a player does, with its line for reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Fight a battle on the board as it stands (R4).
    Battle,
    /// Put a board tile from outside the deck on the board (R3.3); a full board starts a battle (R4.11.1).
    Place {
        /// The player who places it.
        by: Seat,
        /// Which tile.
        tile: TileRef,
        /// The name later steps and expectations use for it.
        label: String,
        /// The empty hex it goes on.
        hex: Hex,
        /// Which direction its front points.
        facing: Dir,
        /// The line of the `[[step]]` in the file, for reports.
        line: usize,
    },
    /// An instant or a Mobility move by a player, on tiles named by label.
    Play {
        /// The player who plays.
        by: Seat,
        /// What is played, on tiles named by label.
        play: PlayStep,
        /// What the step plays, as refusals name it: the step's kind or the instant tile's name.
        name: String,
        /// The instant tile a `do = "instant"` step names.
        tile: Option<TileRef>,
        /// The line of the `[[step]]` in the file, for reports.
        line: usize,
    },
    /// Game mode: discard a held tile (R2.5.2, R2.5.3).
    Discard {
        /// The player who discards.
        by: Seat,
        /// The held tile discarded.
        tile: TileRef,
        /// The line of the `[[step]]` in the file, for reports.
        line: usize,
    },
    /// Game mode: redraw an all-instant hand (R2.6).
    Redraw {
        /// The player who redraws.
        by: Seat,
        /// The line of the `[[step]]` in the file, for reports.
        line: usize,
    },
    /// Game mode: end the turn, keeping the tiles held (R2.5.5).
    EndTurn {
        /// The player whose turn ends.
        by: Seat,
        /// The line of the `[[step]]` in the file, for reports.
        line: usize,
    },
    /// Game mode: an action of a mod's game rule (`Action::Rule`), on a hex or on none.
    Rule {
        /// The player who takes it.
        by: Seat,
        /// The rule's index in `Catalog::game_rules`.
        rule: u8,
        /// The action's index among the rule's actions.
        action: u8,
        /// The hex it is taken on; `None` for an action that takes no hex.
        at: Option<Hex>,
        /// The facing picked with the hex, for an action that asks for one (`facing`).
        facing: Option<Dir>,
        /// The tile of the player's army it is taken on (`tile`), for an action whose
        /// `targets` lists tiles.
        tile: Option<TileRef>,
        /// The label of the first tile the action puts on the board from a reserve (`label`).
        label: Option<String>,
        /// `MOD/RULE ACTION`, as replays write it and refusals name it.
        name: String,
        /// The line of the `[[step]]` in the file, for reports.
        line: usize,
    },
}

/// A play of a step, with tiles named by their labels (found on the board when the step runs).
#[derive(Clone, Debug, PartialEq)]
pub enum PlayStep {
    /// A Mobility move or a Move instant.
    Move {
        /// The label of the unit that moves.
        unit: String,
        /// Where it ends (its own hex to only turn).
        to: Hex,
        /// Its facing afterwards; `None` keeps it.
        facing: Option<Dir>,
        /// `true` for the Move instant, `false` for Mobility.
        instant: bool,
    },
    /// A Push instant.
    Push {
        /// The label of the player's unit that pushes.
        pusher: String,
        /// The label of the enemy unit pushed.
        target: String,
        /// Where the pushed unit ends.
        to: Hex,
    },
    /// A Sniper-like instant: wounds on one enemy unit.
    Wound {
        /// The label of the unit hit.
        target: String,
        /// Wounds dealt.
        wounds: u8,
    },
    /// A Grenade-like instant: destroys an enemy unit next to the player's HQ.
    DestroyNearHq {
        /// The label of the unit destroyed.
        target: String,
    },
    /// An Air Strike or Bomb: wounds on every unit around a hex.
    Area {
        /// The centre of the area.
        at: Hex,
        /// Wounds dealt to each unit in the area.
        wounds: u8,
        /// How far from `at` the area reaches.
        radius: u8,
    },
    /// A Battle instant.
    Battle,
    /// A scripted instant (docs/LUA_API.md, "Scripted instants"), played on the hex of the tile
    /// labelled `target`, on the hex `at`, or with no target when neither is given.
    Scripted {
        /// The label of the tile whose hex it is played on.
        target: Option<String>,
        /// The hex it is played on.
        at: Option<Hex>,
    },
}

/// A labelled tile: on the starting board, or put there by a `place` step.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    /// The name steps and expectations use for the tile, unique in the scenario.
    pub label: String,
    /// Where it stands at the start, or where its step places it.
    pub hex: Hex,
    /// False for tiles that a step places.
    pub at_start: bool,
}

/// A decision answer: the tile whose owner decides, and the option label.
#[derive(Clone, Debug, PartialEq)]
pub struct ChoiceSpec {
    /// The label of the tile whose owner decides.
    pub by: String,
    /// The option chosen, by its label.
    pub pick: String,
    /// The line of the `[[choice]]` in the file, for reports.
    pub line: usize,
}

/// What must hold after the steps, from `[expect]`; only what the file gives is checked.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Expect {
    /// HQ hit points afterwards: the player, its id and the HP.
    pub hq: Vec<(Seat, String, i32)>,
    /// The labels of exactly the tiles no longer on the board.
    pub removed: Option<Vec<String>>,
    /// Wound markers afterwards, by tile label.
    pub wounds: Vec<(String, u8)>,
    /// The labels of exactly the tiles netted afterwards.
    pub netted: Option<Vec<String>>,
    /// Where tiles stand afterwards and which way they face, by label.
    pub positions: Vec<(String, Hex, Dir)>,
    /// Who has won: a player id, or `draw`.
    pub winner: Option<String>,
    /// Text a step's refusal must contain.
    pub error: Option<String>,
    /// Game mode: each listed player's hand (as `army/tile` ids, any order).
    pub hands: Vec<(Seat, String, Vec<TileRef>)>,
    /// Game mode: each listed player's reserve (as `army/tile` ids, any order).
    pub reserves: Vec<(Seat, String, Vec<TileRef>)>,
    /// Game mode: the number of tiles left in draw piles.
    pub decks: Vec<(Seat, String, usize)>,
    /// Game mode: the number of tiles on discard piles.
    pub discards: Vec<(Seat, String, usize)>,
    /// Game mode: whose turn it is at the end (a player id, or "over").
    pub turn: Option<String>,
    /// Game mode: the causes of the battles fought, in order.
    pub battles: Option<Vec<String>>,
    /// Game mode: whether some player has drawn their last tile.
    pub last_tile_drawn: Option<bool>,
    /// Exactly the markers on tiles afterwards, by label.
    pub markers: Vec<(String, Vec<ExpectedMarker>)>,
    /// Exactly the markers on hexes afterwards.
    pub hex_markers: Vec<(Hex, Vec<ExpectedMarker>)>,
    /// Exactly the markers on players afterwards: the player, its id and the markers.
    pub player_markers: Vec<(Seat, String, Vec<ExpectedMarker>)>,
    /// Exactly the linked units afterwards, each shown as `kind [q, r] [q, r]...` (segments in
    /// reading order), sorted.
    pub links: Option<Vec<String>>,
}

/// A marker an expectation names, with the value it must carry when the file gives one.
pub type ExpectedMarker = (MarkerName, Option<i16>);

/// A game in progress (`[game]`): the piles of each player and whose turn begins.
#[derive(Clone, Debug, PartialEq)]
pub struct GameStart {
    /// Per player: the army id.
    pub armies: Vec<String>,
    /// Per player: draw pile (top first), hand, discard pile, reserve.
    pub piles: Vec<[Vec<TileRef>; 4]>,
    /// The player whose turn begins.
    pub next: Seat,
    /// The number of the turn that begins, from 1.
    pub turn: u16,
    /// The players who still play their last turn, once a last tile has been drawn.
    pub last_turns: Option<Vec<Seat>>,
    /// The seed of the game's generator from here on.
    pub seed: u64,
    /// The line of the `[game]` table, for a position the engine refuses.
    pub line: usize,
}

/// The battle causes `expect.battles` may list.
pub const BATTLE_CAUSES: &[&str] = &[
    "instant",
    "board_full",
    "still_full",
    "final",
    "tie_break",
    "rule",
];

/// A scenario file that passed validation against the loaded tiles, ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// What the scenario shows, in a few words.
    pub name: String,
    /// The rule numbers the scenario checks, as its `rules` key gives them.
    pub cites: Option<String>,
    /// The preset with the scenario's options set.
    pub rules: Rules,
    /// The starting board and players, checked when the scenario runs.
    pub setup: Setup,
    /// The markers in play at the start, put on the board once it is built.
    pub marks: Vec<Mark>,
    /// The linked units at the start, made on the board once it is built (numbered from 1).
    pub links: Vec<Link>,
    /// Each player's id, in seat order.
    pub player_ids: Vec<String>,
    /// The army id of each player, in seat order.
    pub armies: Vec<String>,
    /// Every labelled tile: the starting board's, then those the steps place.
    pub tiles: Vec<Labelled>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The answers given to decisions, in file order.
    pub choices: Vec<ChoiceSpec>,
    /// What must hold afterwards.
    pub expect: Expect,
    /// Set for a game in progress: the steps are then actions of a whole game.
    pub game: Option<GameStart>,
}
