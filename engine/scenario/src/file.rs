//! The scenario file format: raw `*Def` structures and their validation into a [`Scenario`].

use hexforge_content::diagnostic::parse_toml;
use hexforge_content::value::param;
use hexforge_content::{Board, Diagnostic, Diagnostics, SourceText, find_board};
use hexforge_core::marker::{Lasts, Mark, MarkOn, MarkerName};
use hexforge_core::names::did_you_mean;
use hexforge_core::rules::Preset;
use hexforge_core::{
    BoardShape, Catalog, Dir, Hex, Link, LinkLoss, PlayerSetup, Rules, Seat, Setup, TileRef,
    TileSetup,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

/// A scenario file as parsed, before validation, with the positions of the values checked later.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ScenarioDef {
    /// What the scenario shows, in a few words; reports name it.
    pub name: Spanned<String>,
    /// The rule numbers the scenario checks (`R4.8.3, Q21`), for readers and reports.
    pub rules: Option<String>,
    /// The edition the rules start from (`classic`, `v3`, `v2025`); `v3` when omitted.
    pub preset: Option<Spanned<String>>,
    /// The board's id: `standard` (the default), `extended` or a loaded mod's board
    /// (docs/RULESETS.md, "Boards"), whose hex markers the scenario starts with.
    pub board: Option<Spanned<String>>,
    /// Rule options set on top of the preset, by their keys (`hexforge_core::Rules::KEYS`).
    #[serde(default)]
    pub options: BTreeMap<String, Spanned<toml::Value>>,
    /// The `[[player]]` tables, in seat order: 2 to 4.
    #[serde(default)]
    pub player: Vec<Spanned<PlayerDef>>,
    /// The `[[tile]]` tables: the board at the start.
    #[serde(default)]
    pub tile: Vec<Spanned<TileDef>>,
    /// The `[[hex_marker]]` tables: markers on hexes at the start.
    #[serde(default)]
    pub hex_marker: Vec<Spanned<HexMarkerDef>>,
    /// The `[[link]]` tables: linked units on the board at the start (docs/LINKED_UNITS.md).
    #[serde(default)]
    pub link: Vec<Spanned<LinkDef>>,
    /// The `[[step]]` tables, played in order.
    #[serde(default)]
    pub step: Vec<Spanned<StepDef>>,
    /// The `[[choice]]` tables: answers to decisions the steps raise.
    #[serde(default)]
    pub choice: Vec<Spanned<ChoiceDef>>,
    /// The `[expect]` table: what the board and game must look like afterwards.
    pub expect: Option<ExpectDef>,
    /// A game in progress: steps are then the players' actions in their turns.
    pub game: Option<Spanned<GameDef>>,
}

/// The raw `[game]` table of a game in progress.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct GameDef {
    /// The id of the player whose turn begins.
    pub next: Spanned<String>,
    /// The number of the turn that begins, from 1.
    pub turn: Option<Spanned<i64>>,
    /// The players who still play their last turn, once a last tile has been drawn.
    pub last_turns: Option<Vec<Spanned<String>>>,
    /// The seed of the game's generator from here on; 0 when omitted.
    pub seed: Option<Spanned<i64>>,
}

/// A raw `[[player]]` table: a seat with its army, team, HQ HP and, in game mode, piles.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PlayerDef {
    /// The name steps, tiles and expectations call the player by.
    pub id: Spanned<String>,
    /// The id of a loaded army.
    pub army: Spanned<String>,
    /// HQ hit points at the start; the rules' starting HP when omitted.
    pub hq: Option<Spanned<i64>>,
    /// A team name: players sharing one are allies; each player alone when omitted.
    pub team: Option<String>,
    /// Game mode: the draw pile from the top, as `army/tile` ids.
    pub deck: Option<Spanned<Vec<Spanned<String>>>>,
    /// Game mode: the tiles held (at most the rules' `hand_size`), as `army/tile` ids.
    pub hand: Option<Spanned<Vec<Spanned<String>>>>,
    /// Game mode: the discard pile, as `army/tile` ids.
    pub discard: Option<Spanned<Vec<Spanned<String>>>>,
    /// Game mode: the reserve (docs/RULESETS.md, "The reserve"), as `army/tile` ids of board
    /// tiles of any army.
    pub reserve: Option<Spanned<Vec<Spanned<String>>>>,
    /// Markers on the player at the start.
    #[serde(default)]
    pub markers: Vec<Spanned<MarkerDef>>,
}

/// A raw marker at the start, on a `[[tile]]` or `[[player]]`:
/// `{ name = "soaked", lasts = "permanent", value = 1 }`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct MarkerDef {
    /// The marker's name.
    pub name: Spanned<String>,
    /// `turn`, `battle`, `permanent` or a number of turns from 1 to 99; `permanent` when omitted.
    pub lasts: Option<Spanned<toml::Value>>,
    /// The number it carries, -999 to 999; 0 when omitted.
    pub value: Option<Spanned<i64>>,
}

/// A raw `[[hex_marker]]` table: a marker on a hex at the start.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct HexMarkerDef {
    /// The hex, as axial `[q, r]`.
    pub at: Spanned<Vec<Spanned<i64>>>,
    /// The marker's name.
    pub name: Spanned<String>,
    /// `turn`, `battle`, `permanent` or a number of turns from 1 to 99; `permanent` when omitted.
    pub lasts: Option<Spanned<toml::Value>>,
    /// The number it carries, -999 to 999; 0 when omitted.
    pub value: Option<Spanned<i64>>,
}

/// One entry of `expect.links`: a linked unit afterwards.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct LinkExpectDef {
    /// Its kind.
    pub kind: String,
    /// Its segments, as axial `[q, r]` pairs, in any order.
    pub hexes: Vec<Spanned<Vec<Spanned<i64>>>>,
}

/// A raw `[[link]]` table: tiles and hexes that make one linked unit at the start.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct LinkDef {
    /// What kind of unit it is, a name like a marker's (`structure`, `monolith`).
    pub kind: Spanned<String>,
    /// The id of the player it belongs to.
    pub owner: Spanned<String>,
    /// Its segments, as axial `[q, r]` pairs: 2 to 7 hexes in one piece.
    pub hexes: Spanned<Vec<Spanned<Vec<Spanned<i64>>>>>,
    /// `whole` (its tiles leave the board together) or `segment` (a destroyed tile leaves an
    /// empty segment); `whole` when omitted.
    pub loss: Option<Spanned<String>>,
    /// Whether nets and modules reaching one tile reach them all; `true` for `whole` when
    /// omitted, `false` for `segment`.
    pub shared: Option<bool>,
}

/// One table of `expect.hex_markers`: exactly the markers on a hex afterwards.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct HexMarkersDef {
    /// The hex, as axial `[q, r]`.
    pub at: Spanned<Vec<Spanned<i64>>>,
    /// Marker names, or `{ name, value }` tables to check a value too.
    pub markers: Vec<Spanned<toml::Value>>,
}

/// A raw `[[tile]]` table: one tile on the starting board.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct TileDef {
    /// The name steps and expectations use; the tile's id (`id_2`... for copies) if omitted.
    pub label: Option<Spanned<String>>,
    /// The id of the player the tile belongs to.
    pub owner: Spanned<String>,
    /// Which tile, as `army/tile`.
    pub tile: Spanned<String>,
    /// The hex it stands on, as axial `[q, r]`.
    pub at: Spanned<Vec<Spanned<i64>>>,
    /// Which direction its front points, 0 (N) to 5 clockwise; 0 when omitted.
    #[serde(default)]
    pub facing: Option<Spanned<i64>>,
    /// Wound markers already on it; 0 when omitted.
    #[serde(default)]
    pub wounds: Option<Spanned<i64>>,
    /// Markers on the tile at the start.
    #[serde(default)]
    pub markers: Vec<Spanned<MarkerDef>>,
}

/// A step keeps its fields as located TOML values: `do` names the step, and each kind of step reads
/// its own fields (mods' instants may bring any).
pub type StepDef = BTreeMap<String, Spanned<toml::Value>>;

/// A raw `[[choice]]` table: the answer to one decision.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ChoiceDef {
    /// The label of the tile whose owner decides (the Medic, the exploding unit...).
    pub by: Spanned<String>,
    /// The option chosen, by its label in the format.
    pub pick: Spanned<String>,
}

/// The raw `[expect]` table: every key is optional and only what is given is checked.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct ExpectDef {
    /// HQ hit points afterwards, by player id.
    #[serde(default)]
    pub hq: BTreeMap<String, Spanned<i64>>,
    /// The labels of exactly the tiles no longer on the board.
    pub removed: Option<Vec<Spanned<String>>>,
    /// Wound markers afterwards, by tile label.
    #[serde(default)]
    pub wounds: BTreeMap<String, Spanned<i64>>,
    /// The labels of exactly the tiles netted afterwards.
    pub netted: Option<Vec<Spanned<String>>>,
    /// Where tiles stand afterwards, by label, as `[q, r, facing]`.
    #[serde(default)]
    pub positions: BTreeMap<String, Spanned<Vec<Spanned<i64>>>>,
    /// Who has won: a player id (any of a winning team), or `draw`.
    pub winner: Option<Spanned<String>>,
    /// Text a step's refusal must contain: the scenario then passes only if a step is refused.
    pub error: Option<String>,
    /// Game mode: each listed player's hand, as `army/tile` ids in any order.
    #[serde(default)]
    pub hand: BTreeMap<String, Spanned<Vec<Spanned<String>>>>,
    /// Game mode: each listed player's reserve, as `army/tile` ids in any order.
    #[serde(default)]
    pub reserve: BTreeMap<String, Spanned<Vec<Spanned<String>>>>,
    /// Game mode: tiles left in each listed player's draw pile.
    #[serde(default)]
    pub deck: BTreeMap<String, Spanned<i64>>,
    /// Game mode: tiles on each listed player's discard pile.
    #[serde(default)]
    pub discard: BTreeMap<String, Spanned<i64>>,
    /// Game mode: whose turn it is at the end (a player id, or `over`).
    pub turn: Option<Spanned<String>>,
    /// Game mode: the causes of the battles fought, in order (see [`BATTLE_CAUSES`]).
    pub battles: Option<Spanned<Vec<Spanned<String>>>>,
    /// Game mode: whether some player has drawn their last tile.
    pub last_tile_drawn: Option<Spanned<bool>>,
    /// Exactly the markers on tiles afterwards, by label: names, or `{ name, value }` tables.
    #[serde(default)]
    pub markers: BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>,
    /// Exactly the markers on hexes afterwards, one `{ at = [q, r], markers = [...] }` per hex.
    #[serde(default)]
    pub hex_markers: Vec<Spanned<HexMarkersDef>>,
    /// Exactly the markers on players afterwards, by player id.
    #[serde(default)]
    pub player_markers: BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>,
    /// Exactly the linked units afterwards, each `{ kind, hexes = [[q, r], ...] }` (any order).
    pub links: Option<Vec<LinkExpectDef>>,
}

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

/// Reads and validates a scenario file against the loaded tiles, on a built-in board.
pub fn load_scenario(path: &Path, catalog: &Catalog) -> Result<Scenario, Diagnostics> {
    parse_scenario(&SourceText::read(path, "scenario")?, catalog)
}

/// Reads and validates a scenario file against the loaded tiles and `boards` (the built-in ones
/// and the mods', as `LoadedMods::boards` lists them).
pub fn load_scenario_with_boards(
    path: &Path,
    catalog: &Catalog,
    boards: &[&Board],
) -> Result<Scenario, Diagnostics> {
    parse_scenario_with_boards(&SourceText::read(path, "scenario")?, catalog, boards)
}

/// Parses then validates a scenario's text, on a built-in board; every problem is reported at
/// once.
pub fn parse_scenario(src: &SourceText, catalog: &Catalog) -> Result<Scenario, Diagnostics> {
    let built: Vec<&Board> = Board::built_in().iter().collect();
    parse_scenario_with_boards(src, catalog, &built)
}

/// Parses then validates a scenario's text whose `board` may name any of `boards`; every
/// problem is reported at once.
pub fn parse_scenario_with_boards(
    src: &SourceText,
    catalog: &Catalog,
    boards: &[&Board],
) -> Result<Scenario, Diagnostics> {
    let def: ScenarioDef = parse_toml(src)?;
    let mut errs = Vec::new();
    macro_rules! err {
        ($span:expr, $msg:expr $(,)?) => {
            errs.push(src.error($span, $msg))
        };
    }

    let preset = match &def.preset {
        None => Preset::V3,
        Some(p) => Preset::parse(p.get_ref()).unwrap_or_else(|| {
            err!(
                p.span(),
                format!(
                    "unknown preset `{}`{}: use classic, v3 or v2025",
                    p.get_ref(),
                    did_you_mean(p.get_ref(), Preset::VALUES.iter().copied())
                ),
            );
            Preset::V3
        }),
    };
    let mut rules = Rules::preset(preset);
    rules.start_options(catalog.options(), preset.as_str());
    let board: &Board = match &def.board {
        None => &Board::built_in()[0],
        Some(b) => match find_board(boards.iter().copied(), b.get_ref()) {
            Ok(found) => found,
            Err(e) => {
                err!(b.span(), e.to_string());
                &Board::built_in()[0]
            }
        },
    };
    let shape = board.shape.clone();
    if def
        .board
        .as_ref()
        .is_some_and(|b| b.get_ref() == "extended")
    {
        rules.extended_board = true;
    }
    for (key, value) in &def.options {
        match param(value.get_ref()) {
            Ok(v) => {
                if let Err(e) = rules.set_any(catalog.options(), key, &v) {
                    err!(value.span(), e.to_string());
                }
            }
            Err(msg) => err!(value.span(), format!("option `{key}`: {msg}")),
        }
    }
    // The engine keys the declared options imply, but those the scenario sets (docs/RULESETS.md).
    let explicit: Vec<&str> = def.options.keys().map(String::as_str).collect();
    if let Err(e) = rules.imply(catalog.options(), catalog.implications(), &explicit) {
        err!(def.name.span(), e.to_string());
    }

    let n = def.player.len();
    if !(2..=4).contains(&n) {
        err!(
            def.name.span(),
            format!("a scenario needs 2 to 4 `[[player]]` tables, this one has {n}"),
        );
    }
    let mut player_ids: Vec<String> = Vec::new();
    let mut players = Vec::new();
    let mut team_names: Vec<String> = Vec::new();
    for (i, p) in def.player.iter().enumerate() {
        let p = p.get_ref();
        if player_ids.contains(p.id.get_ref()) {
            err!(
                p.id.span(),
                format!("player id `{}` is used twice", p.id.get_ref()),
            );
        }
        player_ids.push(p.id.get_ref().clone());
        if catalog.army(p.army.get_ref()).is_none() {
            err!(
                p.army.span(),
                format!(
                    "unknown army `{}`{}: use one of the loaded armies ({})",
                    p.army.get_ref(),
                    did_you_mean(
                        p.army.get_ref(),
                        catalog.armies().iter().map(|a| a.id.as_str())
                    ),
                    army_list(catalog)
                ),
            );
        }
        let team = match &p.team {
            Some(t) => match team_names.iter().position(|x| x == t) {
                Some(k) => k as u8,
                None => {
                    team_names.push(t.clone());
                    (team_names.len() - 1) as u8
                }
            },
            None => {
                team_names.push(format!("\u{0}solo{i}"));
                (team_names.len() - 1) as u8
            }
        };
        players.push((team, p.hq.as_ref().map(|h| *h.get_ref() as i32)));
    }
    // The board's own markers first: a `[[hex_marker]]` of the same name on a hex replaces one.
    let mut marks: Vec<Mark> = board.start_marks();
    for (i, p) in def.player.iter().enumerate() {
        for m in &p.get_ref().markers {
            let on = MarkOn::Player(Seat::new(i as u8));
            marks.extend(start_mark(src, on, m.get_ref(), &mut errs));
        }
    }
    let game_mode = def.game.is_some();
    let mut piles: Vec<[Vec<TileRef>; 4]> = Vec::new();
    for p in &def.player {
        let p = p.get_ref();
        let army = p.army.get_ref();
        let mut three: [Vec<TileRef>; 4] = Default::default();
        for (k, (list, what)) in [
            (&p.deck, "deck"),
            (&p.hand, "hand"),
            (&p.discard, "discard"),
            (&p.reserve, "reserve"),
        ]
        .into_iter()
        .enumerate()
        {
            let Some(list) = list else { continue };
            if !game_mode {
                err!(
                    list.span(),
                    format!(
                        "`{what}` belongs to a game in progress: add a `[game]` table with `next = \"{}\"`",
                        p.id.get_ref()
                    ),
                );
                continue;
            }
            for t in list.get_ref() {
                match resolve_tile(catalog, t.get_ref()) {
                    // A reserve may hold any board tile but an HQ (an expansion's pieces).
                    Some(r)
                        if !catalog.get(r).is_hq()
                            && if k == 3 {
                                catalog.get(r).kind.is_board_tile()
                            } else {
                                catalog.get(r).army == *army
                            } =>
                    {
                        three[k].push(r)
                    }
                    Some(_) => err!(
                        t.span(),
                        format!(
                            "`{}` is not a tile of `{army}`'s draw pile (HQs start on the board)",
                            t.get_ref()
                        ),
                    ),
                    None => err!(t.span(), unknown_tile(catalog, t.get_ref())),
                }
            }
        }
        if three[1].len() > usize::from(rules.hand_size) {
            if let Some(h) = &p.hand {
                err!(
                    h.span(),
                    format!(
                        "a hand holds at most {} tiles (R2.5.1, `hand_size`)",
                        rules.hand_size
                    )
                );
            }
        }
        piles.push(three);
    }
    let player_of = |id: &Spanned<String>, what: &str, errs: &mut Vec<Diagnostic>| {
        let i = player_ids.iter().position(|p| p == id.get_ref());
        if i.is_none() {
            errs.push(src.error(
                id.span(),
                format!(
                    "{what} `{}` is not one of the players{}: use one of {}",
                    id.get_ref(),
                    did_you_mean(id.get_ref(), player_ids.iter().map(String::as_str)),
                    player_ids.join(", ")
                ),
            ));
        }
        i.map(|i| Seat::new(i as u8))
    };
    let game = def.game.as_ref().map(|g| {
        let line = src.line_col(g.span().start).0;
        let g = g.get_ref();
        let next = player_of(&g.next, "game.next", &mut errs).unwrap_or_default();
        let turn = match &g.turn {
            None => 3,
            Some(t) => u16::try_from(*t.get_ref())
                .ok()
                .filter(|t| *t >= 1)
                .unwrap_or_else(|| {
                    errs.push(src.error(
                        t.span(),
                        "game.turn is the number of the turn that begins, from 1".to_string(),
                    ));
                    3
                }),
        };
        let last_turns = g.last_turns.as_ref().map(|l| {
            l.iter()
                .filter_map(|p| player_of(p, "game.last_turns", &mut errs))
                .collect::<Vec<Seat>>()
        });
        let seed = g.seed.as_ref().map_or(0, |s| *s.get_ref() as u64);
        GameStart {
            armies: def
                .player
                .iter()
                .map(|p| p.get_ref().army.get_ref().clone())
                .collect(),
            piles: piles.clone(),
            next,
            turn,
            last_turns,
            seed,
            line,
        }
    });
    let teams: Vec<u8> = players.iter().map(|(t, _)| *t).collect();
    let defaults = rules.starting_hq_hp(&teams);
    let players: Vec<PlayerSetup> = players
        .iter()
        .zip(defaults)
        .map(|((team, hq), d)| PlayerSetup {
            team: *team,
            hq_hp: hq.unwrap_or(d as i32),
        })
        .collect();

    let mut tiles = Vec::new();
    // Where each tile of `tiles` is given (its `at`), for a board the engine refuses.
    let mut tile_spans: Vec<std::ops::Range<usize>> = Vec::new();
    let mut labelled: Vec<Labelled> = Vec::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for t in &def.tile {
        let t = t.get_ref();
        let owner = player_ids.iter().position(|p| p == t.owner.get_ref());
        if owner.is_none() {
            err!(
                t.owner.span(),
                format!(
                    "owner `{}` is not one of the players{}: use one of {}",
                    t.owner.get_ref(),
                    did_you_mean(t.owner.get_ref(), player_ids.iter().map(String::as_str)),
                    player_ids.join(", ")
                ),
            );
        }
        let tile_ref = resolve_tile(catalog, t.tile.get_ref());
        if tile_ref.is_none() {
            err!(t.tile.span(), unknown_tile(catalog, t.tile.get_ref()));
        }
        let facing = match &t.facing {
            None => Dir::N,
            Some(f) => Dir::from_index(*f.get_ref()).unwrap_or_else(|| {
                err!(
                    f.span(),
                    format!("facing {} is not a direction from 0 to 5", f.get_ref()),
                );
                Dir::N
            }),
        };
        let wounds = match &t.wounds {
            None => 0,
            Some(w) => u8::try_from(*w.get_ref()).unwrap_or_else(|_| {
                err!(
                    w.span(),
                    format!("wounds {} must be 0 or more", w.get_ref()),
                );
                0
            }),
        };
        let id = t
            .tile
            .get_ref()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string();
        let label = match &t.label {
            Some(l) => l.get_ref().clone(),
            None => {
                let k = counts.entry(id.clone()).or_insert(0);
                *k += 1;
                if *k == 1 { id } else { format!("{id}_{k}") }
            }
        };
        if labelled.iter().any(|l| l.label == label) {
            let span = t.label.as_ref().map_or(t.tile.span(), |l| l.span());
            err!(
                span,
                format!("label `{label}` is used twice: give the tile a `label`"),
            );
        }
        let hex = match ints(&t.at, 2, "at", "[q, r]") {
            Ok(v) => Hex::new(v[0], v[1]),
            Err(d) => {
                errs.push(src.error(d.0, d.1));
                continue;
            }
        };
        let (q, r) = (hex.q(), hex.r());
        if shape.cell(hex).is_none() {
            err!(
                t.at.span(),
                format!("hex [{q}, {r}] is not on the {} board", shape.name()),
            );
        }
        if let Some(c) = shape.cell(hex) {
            for m in &t.markers {
                marks.extend(start_mark(src, MarkOn::Tile(c), m.get_ref(), &mut errs));
            }
        }
        labelled.push(Labelled {
            label,
            hex,
            at_start: true,
        });
        if let (Some(o), Some(tr)) = (owner, tile_ref) {
            tile_spans.push(t.at.span());
            tiles.push(TileSetup {
                tile: tr,
                owner: Seat::new(o as u8),
                hex,
                facing,
                wounds,
            });
        }
    }

    for h in &def.hex_marker {
        let h = h.get_ref();
        let hex = match ints(&h.at, 2, "at", "[q, r]") {
            Ok(v) => Hex::new(v[0], v[1]),
            Err(d) => {
                errs.push(src.error(d.0, d.1));
                continue;
            }
        };
        let Some(c) = shape.cell(hex) else {
            err!(
                h.at.span(),
                format!(
                    "hex [{}, {}] is not on the {} board",
                    hex.q(),
                    hex.r(),
                    shape.name()
                ),
            );
            continue;
        };
        let def = MarkerDef {
            name: h.name.clone(),
            lasts: h.lasts.clone(),
            value: h.value.clone(),
        };
        marks.extend(start_mark(src, MarkOn::Hex(c), &def, &mut errs));
    }
    let links = start_links(src, &def.link, &shape, &player_ids, &mut errs);
    let mut steps = Vec::new();
    for st in &def.step {
        let action: Spanned<String> = match st.get_ref().get("do") {
            Some(v) => match v.get_ref() {
                toml::Value::String(a) => Spanned::new(v.span(), a.clone()),
                _ => {
                    err!(
                        v.span(),
                        "`do` must be a string naming the step, e.g. \"battle\"".to_string()
                    );
                    continue;
                }
            },
            None => {
                err!(
                    st.span(),
                    "a `[[step]]` needs `do`, e.g. `do = \"battle\"`".to_string()
                );
                continue;
            }
        };
        let st = StepBody {
            action,
            fields: st.get_ref(),
        };
        let (line, _) = src.line_col(st.action.span().start);
        match st.action.get_ref().as_str() {
            "battle" if game_mode => {
                let mut fields = StepFields { src, fields: st.fields, action: &st.action, errors: Vec::new() };
                fields.only(&["do", "by"]);
                let by = fields.player("by", &player_ids);
                errs.extend(fields.errors);
                if let Some(by) = by {
                    steps.push(Step::Play { by: Seat::new(by as u8), play: PlayStep::Battle, name: "battle".into(), tile: None, line });
                }
            }
            "battle" => steps.push(Step::Battle),
            "discard" | "redraw" | "end_turn" => {
                let mut fields = StepFields { src, fields: st.fields, action: &st.action, errors: Vec::new() };
                if !game_mode {
                    fields.error(st.action.span(), format!("`{}` is a step of a game in progress: add a `[game]` table", st.action.get_ref()));
                }
                let by = fields.player("by", &player_ids).map(|b| Seat::new(b as u8));
                let step = match st.action.get_ref().as_str() {
                    "discard" => {
                        fields.only(&["do", "by", "tile"]);
                        let tile = fields.string("tile").and_then(|(name, span)| {
                            let t = resolve_tile(catalog, &name);
                            if t.is_none() {
                                fields.error(span, unknown_tile(catalog, &name));
                            }
                            t
                        });
                        by.zip(tile).map(|(by, tile)| Step::Discard { by, tile, line })
                    }
                    "redraw" => {
                        fields.only(&["do", "by"]);
                        by.map(|by| Step::Redraw { by, line })
                    }
                    _ => {
                        fields.only(&["do", "by"]);
                        by.map(|by| Step::EndTurn { by, line })
                    }
                };
                errs.extend(fields.errors);
                if game_mode {
                    steps.extend(step);
                }
            }
            "rule" => {
                let mut fields = StepFields { src, fields: st.fields, action: &st.action, errors: Vec::new() };
                if !game_mode {
                    fields.error(st.action.span(), "`rule` is a step of a game in progress: add a `[game]` table".to_string());
                }
                fields.only(&["do", "by", "rule", "action", "at", "facing", "tile", "label"]);
                let label = fields.optional_string("label");
                let tile = fields.optional_string("tile").and_then(|name| {
                    let t = resolve_tile(catalog, &name);
                    if t.is_none() {
                        let span = fields.fields.get("tile").map_or(st.action.span(), |v| v.span());
                        fields.error(span, unknown_tile(catalog, &name));
                    }
                    t
                });
                let by = fields.player("by", &player_ids).map(|b| Seat::new(b as u8));
                let facing = fields.optional_facing("facing");
                let step = rule_step(catalog, &mut fields).map(|(rule, action, name)| (rule, action, name, fields.fields.contains_key("at").then(|| fields.hex("at"))));
                errs.extend(fields.errors);
                if game_mode
                    && let (Some(by), Some((rule, action, name, at))) = (by, step)
                    && at.is_none_or(|h| h.is_some())
                {
                    if let Some(l) = &label {
                        if labelled.iter().any(|x| &x.label == l) {
                            errs.push(src.error(st.action.span(), format!("label `{l}` is used twice: give the placed tile another `label`")));
                        }
                        let hex = at.flatten().unwrap_or(Hex::new(0, 0));
                        labelled.push(Labelled { label: l.clone(), hex, at_start: false });
                    }
                    steps.push(Step::Rule { by, rule, action, at: at.flatten(), facing, tile, label, name, line });
                }
            }
            "place" => {
                let mut fields = StepFields { src, fields: st.fields, action: &st.action, errors: Vec::new() };
                fields.only(&["do", "by", "tile", "label", "at", "facing"]);
                let by = fields.player("by", &player_ids);
                let tile = fields.string("tile").and_then(|(name, span)| {
                    let t = resolve_tile(catalog, &name);
                    if t.is_none() {
                        fields.error(span, unknown_tile(catalog, &name));
                    }
                    t.map(|t| (t, name))
                });
                let hex = fields.hex("at");
                let facing = fields.facing("facing");
                let label = fields.optional_string("label");
                errs.extend(fields.errors);
                if let (Some(by), Some((tile, name)), Some(hex)) = (by, tile, hex) {
                    let id = name.rsplit('/').next().unwrap_or_default().to_string();
                    let label = label.unwrap_or_else(|| {
                        let k = counts.entry(id.clone()).or_insert(0);
                        *k += 1;
                        if *k == 1 { id } else { format!("{id}_{k}") }
                    });
                    if labelled.iter().any(|l| l.label == label) {
                        errs.push(src.error(st.action.span(), format!("label `{label}` is used twice: give the placed tile a `label`")));
                    }
                    labelled.push(Labelled { label: label.clone(), hex, at_start: false });
                    steps.push(Step::Place { by: Seat::new(by as u8), tile, label, hex, facing, line });
                }
            }
            "move" | "push" | "sniper" | "grenade" | "air_strike" | "instant" => {
                let known: Vec<String> = labelled.iter().map(|l| l.label.clone()).collect();
                let mut fields = StepFields { src, fields: st.fields, action: &st.action, errors: Vec::new() };
                let by = fields.player("by", &player_ids);
                let play = match st.action.get_ref().as_str() {
                    "move" => {
                        fields.only(&["do", "by", "unit", "to", "facing", "instant"]);
                        move_step(&mut fields, &known)
                    }
                    "push" => {
                        fields.only(&["do", "by", "pusher", "target", "to"]);
                        push_step(&mut fields, &known)
                    }
                    "sniper" => {
                        fields.only(&["do", "by", "target"]);
                        fields.label("target", &known).map(|target| PlayStep::Wound { target, wounds: 1 })
                    }
                    "grenade" => {
                        fields.only(&["do", "by", "target"]);
                        fields.label("target", &known).map(|target| PlayStep::DestroyNearHq { target })
                    }
                    "air_strike" => {
                        fields.only(&["do", "by", "at"]);
                        fields.hex("at").map(|at| PlayStep::Area { at, wounds: 1, radius: 1 })
                    }
                    _ => instant_step(&mut fields, catalog, &known),
                };
                errs.extend(fields.errors);
                let tile = (st.action.get_ref() == "instant")
                    .then(|| st.fields.get("tile").and_then(|t| t.get_ref().as_str()))
                    .flatten()
                    .and_then(|t| resolve_tile(catalog, t));
                if let (Some(by), Some(play)) = (by, play) {
                    let name = match st.action.get_ref().as_str() {
                        "instant" => st
                            .fields
                            .get("tile")
                            .and_then(|t| t.get_ref().as_str())
                            .and_then(|t| t.rsplit('/').next())
                            .unwrap_or("instant"),
                        action => action,
                    };
                    let name = name.replace('_', " ");
                    steps.push(Step::Play { by: Seat::new(by as u8), play, name, tile, line });
                }
            }
            other => errs.push(src.error(
                st.action.span(),
                format!("unknown step `{other}`{}: use battle, place, move, push, sniper, grenade, air_strike, instant, or in a game discard, redraw, end_turn, rule", did_you_mean(other, STEP_KINDS.split(", "))),
            )),
        }
    }
    if steps.is_empty() && !game_mode {
        steps.push(Step::Battle);
    }

    let label_known = |l: &str| labelled.iter().any(|x| x.label == l);
    let mut choices = Vec::new();
    for c in &def.choice {
        let c = c.get_ref();
        if !label_known(c.by.get_ref()) {
            err!(
                c.by.span(),
                format!(
                    "choice by `{}`: no tile has that label{}: use the `label` of a `[[tile]]` or `place` step",
                    c.by.get_ref(),
                    did_you_mean(c.by.get_ref(), labelled.iter().map(|l| l.label.as_str()))
                ),
            );
        }
        let (line, _) = src.line_col(c.by.span().start);
        choices.push(ChoiceSpec {
            by: c.by.get_ref().clone(),
            pick: c.pick.get_ref().clone(),
            line,
        });
    }

    let mut expect = Expect::default();
    if let Some(e) = def.expect {
        for (pid, hp) in &e.hq {
            match player_ids.iter().position(|p| p == pid) {
                Some(i) => expect
                    .hq
                    .push((Seat::new(i as u8), pid.clone(), *hp.get_ref() as i32)),
                None => err!(
                    hp.span(),
                    format!(
                        "expect.hq names `{pid}`, who is not a player{}: use one of {}",
                        did_you_mean(pid, player_ids.iter().map(String::as_str)),
                        player_ids.join(", ")
                    ),
                ),
            }
        }
        let mut labels = |list: &Option<Vec<Spanned<String>>>, what: &str| {
            list.as_ref().map(|l| {
                l.iter()
                    .map(|x| {
                        if !label_known(x.get_ref()) {
                            err!(
                                x.span(),
                                format!(
                                    "expect.{what} names `{}`, which is no tile's label{}: use the `label` of a tile",
                                    x.get_ref(),
                                    did_you_mean(x.get_ref(), labelled.iter().map(|l| l.label.as_str()))
                                ),
                            );
                        }
                        x.get_ref().clone()
                    })
                    .collect()
            })
        };
        expect.removed = labels(&e.removed, "removed");
        expect.netted = labels(&e.netted, "netted");
        for (l, w) in &e.wounds {
            if !label_known(l) {
                err!(
                    w.span(),
                    format!(
                        "expect.wounds names `{l}`, which is no tile's label{}: use the `label` of a tile",
                        did_you_mean(l, labelled.iter().map(|x| x.label.as_str()))
                    ),
                );
            }
            expect
                .wounds
                .push((l.clone(), (*w.get_ref()).clamp(0, 255) as u8));
        }
        for (l, p) in &e.positions {
            if !label_known(l) {
                err!(
                    p.span(),
                    format!(
                        "expect.positions names `{l}`, which is no tile's label{}: use the `label` of a tile",
                        did_you_mean(l, labelled.iter().map(|x| x.label.as_str()))
                    ),
                );
            }
            let [q, r, f] = match ints(p, 3, &format!("expect.positions.{l}"), "[q, r, facing]") {
                Ok(v) => [v[0], v[1], v[2]],
                Err(d) => {
                    errs.push(src.error(d.0, d.1));
                    continue;
                }
            };
            expect
                .positions
                .push((l.clone(), Hex::new(q, r), Dir::new(f.rem_euclid(6) as u8)));
        }
        if let Some(w) = &e.winner {
            // A shared victory names its players joined by ` and ` (R8.2.5).
            if w.get_ref() != "draw"
                && !w
                    .get_ref()
                    .split(" and ")
                    .all(|p| player_ids.iter().any(|id| id == p))
            {
                err!(
                    w.span(),
                    format!(
                        "expect.winner must be a player id, players who share the victory (`a and c`) or \"draw\", not `{}`",
                        w.get_ref()
                    ),
                );
            }
            expect.winner = Some(w.get_ref().clone());
        }
        expect.error = e.error;
        let game_only = |span: std::ops::Range<usize>, key: &str, errs: &mut Vec<Diagnostic>| {
            if !game_mode {
                errs.push(src.error(
                    span,
                    format!("expect.{key} belongs to a game in progress: add a `[game]` table"),
                ));
            }
        };
        let seat = |pid: &str| {
            player_ids
                .iter()
                .position(|p| p == pid)
                .map(|i| Seat::new(i as u8))
        };
        for (key, map) in [("hand", &e.hand), ("reserve", &e.reserve)] {
            for (pid, list) in map {
                game_only(list.span(), key, &mut errs);
                let Some(p) = seat(pid) else {
                    err!(
                        list.span(),
                        format!(
                            "expect.{key} names `{pid}`, who is not a player{}: use one of {}",
                            did_you_mean(pid, player_ids.iter().map(String::as_str)),
                            player_ids.join(", ")
                        )
                    );
                    continue;
                };
                let mut tiles = Vec::new();
                for t in list.get_ref() {
                    match resolve_tile(catalog, t.get_ref()) {
                        Some(r) => tiles.push(r),
                        None => err!(t.span(), unknown_tile(catalog, t.get_ref())),
                    }
                }
                if key == "hand" {
                    expect.hands.push((p, pid.clone(), tiles));
                } else {
                    expect.reserves.push((p, pid.clone(), tiles));
                }
            }
        }
        for (map, key, out) in [
            (&e.deck, "deck", &mut expect.decks),
            (&e.discard, "discard", &mut expect.discards),
        ] {
            for (pid, n) in map {
                game_only(n.span(), key, &mut errs);
                match seat(pid) {
                    Some(p) => out.push((p, pid.clone(), (*n.get_ref()).max(0) as usize)),
                    None => err!(
                        n.span(),
                        format!(
                            "expect.{key} names `{pid}`, who is not a player{}: use one of {}",
                            did_you_mean(pid, player_ids.iter().map(String::as_str)),
                            player_ids.join(", ")
                        )
                    ),
                }
            }
        }
        if let Some(t) = &e.turn {
            game_only(t.span(), "turn", &mut errs);
            if t.get_ref() != "over" && seat(t.get_ref()).is_none() {
                err!(
                    t.span(),
                    format!(
                        "expect.turn must be a player id or \"over\", not `{}`",
                        t.get_ref()
                    )
                );
            }
            expect.turn = Some(t.get_ref().clone());
        }
        if let Some(b) = &e.battles {
            game_only(b.span(), "battles", &mut errs);
            for c in b.get_ref() {
                if !BATTLE_CAUSES.contains(&c.get_ref().as_str()) {
                    err!(
                        c.span(),
                        format!(
                            "unknown battle cause `{}`{}: use {}",
                            c.get_ref(),
                            did_you_mean(c.get_ref(), BATTLE_CAUSES.iter().copied()),
                            BATTLE_CAUSES.join(", ")
                        )
                    );
                }
            }
            expect.battles = Some(b.get_ref().iter().map(|c| c.get_ref().clone()).collect());
        }
        if let Some(l) = &e.last_tile_drawn {
            game_only(l.span(), "last_tile_drawn", &mut errs);
            expect.last_tile_drawn = Some(*l.get_ref());
        }
        for (l, list) in &e.markers {
            if !label_known(l) {
                err!(
                    list.span(),
                    format!(
                        "expect.markers names `{l}`, which is no tile's label{}: use the `label` of a tile",
                        did_you_mean(l, labelled.iter().map(|x| x.label.as_str()))
                    ),
                );
            }
            let names = expected_markers(src, list.get_ref(), &mut errs);
            expect.markers.push((l.clone(), names));
        }
        for h in &e.hex_markers {
            let h = h.get_ref();
            let names = expected_markers(src, &h.markers, &mut errs);
            match ints(&h.at, 2, "expect.hex_markers.at", "[q, r]") {
                Ok(v) => {
                    let hex = Hex::new(v[0], v[1]);
                    if shape.cell(hex).is_none() {
                        err!(
                            h.at.span(),
                            format!(
                                "hex [{}, {}] is not on the {} board",
                                hex.q(),
                                hex.r(),
                                shape.name()
                            ),
                        );
                    }
                    expect.hex_markers.push((hex, names));
                }
                Err(d) => errs.push(src.error(d.0, d.1)),
            }
        }
        if let Some(list) = &e.links {
            let mut shown = Vec::new();
            for l in list {
                let mut cells = Vec::new();
                for h in &l.hexes {
                    match ints(h, 2, "expect.links.hexes", "[q, r]") {
                        Ok(v) => match shape.cell(Hex::new(v[0], v[1])) {
                            Some(c) => cells.push(c),
                            None => err!(
                                h.span(),
                                format!(
                                    "hex [{}, {}] is not on the {} board",
                                    v[0],
                                    v[1],
                                    shape.name()
                                )
                            ),
                        },
                        Err(d) => errs.push(src.error(d.0, d.1)),
                    }
                }
                cells.sort();
                shown.push(link_shown(&l.kind, cells.iter().map(|c| shape.hex(*c))));
            }
            shown.sort();
            expect.links = Some(shown);
        }
        for (pid, list) in &e.player_markers {
            let names = expected_markers(src, list.get_ref(), &mut errs);
            match seat(pid) {
                Some(p) => expect.player_markers.push((p, pid.clone(), names)),
                None => err!(
                    list.span(),
                    format!(
                        "expect.player_markers names `{pid}`, who is not a player{}: use one of {}",
                        did_you_mean(pid, player_ids.iter().map(String::as_str)),
                        player_ids.join(", ")
                    )
                ),
            }
        }
    }

    let setup = Setup {
        shape,
        players,
        tiles,
    };
    // The starting board as the engine checks it, each refusal at the `[[tile]]` that causes
    // it (a scenario that expects an error is refused when it runs, as it says); then its
    // linked units, each refusal at its `[[link]]`.
    if errs.is_empty() && expect.error.is_none() {
        match hexforge_core::Battlefield::new(setup.clone(), catalog) {
            Err(e) => errs.push(setup_error(src, &setup, &tile_spans, &e)),
            Ok(mut field) => {
                for (l, d) in links.iter().zip(&def.link) {
                    match field.check_link(l.kind, l.owner, l.segments, l.loss(), l.shared()) {
                        Ok(e) => field.apply(&e),
                        Err(e) => errs.push(src.error(
                            d.get_ref().hexes.span(),
                            format!("this linked unit cannot stand here: {e}"),
                        )),
                    }
                }
            }
        }
    }
    if !errs.is_empty() {
        return Err(Diagnostics(errs));
    }
    Ok(Scenario {
        name: def.name.into_inner(),
        cites: def.rules,
        rules,
        setup,
        marks,
        links,
        player_ids,
        armies: def
            .player
            .iter()
            .map(|p| p.get_ref().army.get_ref().clone())
            .collect(),
        tiles: labelled,
        steps,
        choices,
        expect,
        game,
    })
}

fn move_step(f: &mut StepFields<'_>, known: &[String]) -> Option<PlayStep> {
    let unit = f.label("unit", known);
    let to = f.hex("to");
    let facing = f.optional_facing("facing");
    let instant = f.optional_bool("instant").unwrap_or(false);
    Some(PlayStep::Move {
        unit: unit?,
        to: to?,
        facing,
        instant,
    })
}

fn push_step(f: &mut StepFields<'_>, known: &[String]) -> Option<PlayStep> {
    let pusher = f.label("pusher", known);
    let target = f.label("target", known);
    let to = f.hex("to");
    Some(PlayStep::Push {
        pusher: pusher?,
        target: target?,
        to: to?,
    })
}

/// `do = "instant"`: any instant tile, read by its effect (docs/ARMY_FORMAT.md).
fn instant_step(f: &mut StepFields<'_>, catalog: &Catalog, known: &[String]) -> Option<PlayStep> {
    use hexforge_core::tile::InstantEffect;
    let (name, span) = f.string("tile")?;
    let Some(effect) = resolve_tile(catalog, &name).and_then(|t| catalog.get(t).instant) else {
        f.error(
            span,
            match resolve_tile(catalog, &name) {
                Some(_) => format!(
                    "`{name}` is not an instant tile: name an instant, e.g. `moloch/battle`"
                ),
                None => unknown_tile(catalog, &name),
            },
        );
        return None;
    };
    match effect {
        InstantEffect::Battle => {
            f.only(&["do", "by", "tile"]);
            Some(PlayStep::Battle)
        }
        InstantEffect::Move => {
            f.only(&["do", "by", "tile", "unit", "to", "facing"]);
            match move_step(f, known)? {
                PlayStep::Move {
                    unit, to, facing, ..
                } => Some(PlayStep::Move {
                    unit,
                    to,
                    facing,
                    instant: true,
                }),
                other => Some(other),
            }
        }
        InstantEffect::Push => {
            f.only(&["do", "by", "tile", "pusher", "target", "to"]);
            push_step(f, known)
        }
        InstantEffect::Wound { wounds } => {
            f.only(&["do", "by", "tile", "target"]);
            f.label("target", known)
                .map(|target| PlayStep::Wound { target, wounds })
        }
        InstantEffect::DestroyNearHq => {
            f.only(&["do", "by", "tile", "target"]);
            f.label("target", known)
                .map(|target| PlayStep::DestroyNearHq { target })
        }
        InstantEffect::Area { wounds, radius } => {
            f.only(&["do", "by", "tile", "at"]);
            f.hex("at").map(|at| PlayStep::Area { at, wounds, radius })
        }
        InstantEffect::Scripted => {
            f.only(&["do", "by", "tile", "target", "at"]);
            let target = match f.fields.contains_key("target") {
                true => Some(f.label("target", known)?),
                false => None,
            };
            let at = match f.fields.contains_key("at") {
                true => Some(f.hex("at")?),
                false => None,
            };
            if target.is_some() && at.is_some() {
                f.error(
                    f.action.span(),
                    format!(
                        "`{name}` is played on one hex: give `target` (a label) or `at` ([q, r]), not both"
                    ),
                );
                return None;
            }
            Some(PlayStep::Scripted { target, at })
        }
    }
}

/// The rule and action a `rule` step names (`rule = "MOD/RULE"` or `"RULE"`, `action =
/// "NAME"`), as indices, with the name refusals use; a name no loaded rule has is an error at its
/// place, with the closest known one.
fn rule_step(catalog: &Catalog, f: &mut StepFields<'_>) -> Option<(u8, u8, String)> {
    let rules = catalog.game_rules();
    let (name, span) = f.string("rule")?;
    let full = |r: &hexforge_core::tile::GameRule| format!("{}/{}", r.mod_id, r.name);
    let Some(i) = rules.iter().position(|r| full(r) == name || r.name == name) else {
        let known: Vec<String> = rules.iter().map(full).collect();
        let known_list = match known.is_empty() {
            true => "the rules mods define (none is loaded)".to_string(),
            false => known.join(", "),
        };
        f.error(
            span,
            format!(
                "no loaded game rule is named `{name}`{}: use one of {known_list}",
                did_you_mean(&name, known.iter().map(String::as_str))
            ),
        );
        return None;
    };
    let rule = &rules[i];
    let (action, span) = f.string("action")?;
    let Some(a) = rule.actions.iter().position(|x| x.name == action) else {
        let names: Vec<&str> = rule.actions.iter().map(|x| x.name.as_str()).collect();
        f.error(
            span,
            format!(
                "the rule `{}` has no action `{action}`{}: use one of {}",
                full(rule),
                did_you_mean(&action, names.iter().copied()),
                names.join(", ")
            ),
        );
        return None;
    };
    Some((i as u8, a as u8, format!("rule {} {action}", full(rule))))
}

/// A step's name and all its fields.
struct StepBody<'a> {
    action: Spanned<String>,
    fields: &'a StepDef,
}

/// Reads the fields of one step, collecting located errors.
struct StepFields<'a> {
    src: &'a SourceText,
    fields: &'a BTreeMap<String, Spanned<toml::Value>>,
    action: &'a Spanned<String>,
    errors: Vec<Diagnostic>,
}

impl StepFields<'_> {
    fn error(&mut self, span: std::ops::Range<usize>, msg: String) {
        self.errors.push(self.src.error(span, msg));
    }

    fn only(&mut self, allowed: &[&str]) {
        for (k, v) in self.fields {
            if !allowed.contains(&k.as_str()) {
                let msg = format!(
                    "`{k}` is not a field of a `{}` step{}: its fields are {}",
                    self.action.get_ref(),
                    did_you_mean(k, allowed.iter().copied()),
                    allowed.join(", ")
                );
                self.error(v.span(), msg);
            }
        }
    }

    fn optional_string(&mut self, key: &str) -> Option<String> {
        let v = self.fields.get(key)?;
        match v.get_ref() {
            toml::Value::String(s) => Some(s.clone()),
            _ => {
                self.error(
                    v.span(),
                    format!("`{key}` must be text in quotes, e.g. `{key} = \"a\"`"),
                );
                None
            }
        }
    }

    fn string(&mut self, key: &str) -> Option<(String, std::ops::Range<usize>)> {
        match self.fields.get(key) {
            None => {
                self.error(
                    self.action.span(),
                    format!(
                        "a `{}` step needs `{key}`: add `{key} = ...` to it",
                        self.action.get_ref()
                    ),
                );
                None
            }
            Some(v) => self.optional_string(key).map(|s| (s, v.span())),
        }
    }

    fn hex(&mut self, key: &str) -> Option<Hex> {
        let Some(v) = self.fields.get(key) else {
            self.error(
                self.action.span(),
                format!("a `{}` step needs `{key} = [q, r]`", self.action.get_ref()),
            );
            return None;
        };
        match v
            .get_ref()
            .as_array()
            .map(|a| a.iter().map(|x| x.as_integer()).collect::<Vec<_>>())
        {
            Some(a) if a.len() == 2 && a.iter().all(Option::is_some) => Some(Hex::new(
                a[0].unwrap_or_default() as i32,
                a[1].unwrap_or_default() as i32,
            )),
            _ => {
                self.error(
                    v.span(),
                    format!("`{key}` must be two whole numbers [q, r], e.g. [0, -1]"),
                );
                None
            }
        }
    }

    fn player(&mut self, key: &str, players: &[String]) -> Option<usize> {
        let (id, span) = self.string(key)?;
        let i = players.iter().position(|p| *p == id);
        if i.is_none() {
            self.error(
                span,
                format!(
                    "`{key} = \"{id}\"` is not one of the players{}: use one of {}",
                    did_you_mean(&id, players.iter().map(String::as_str)),
                    players.join(", ")
                ),
            );
        }
        i
    }

    fn label(&mut self, key: &str, known: &[String]) -> Option<String> {
        let (label, span) = self.string(key)?;
        if !known.contains(&label) {
            self.error(
                span,
                format!(
                    "`{key} = \"{label}\"`: no tile has that label (so far in the file){}: use the `label` of a `[[tile]]` or an earlier `place` step",
                    did_you_mean(&label, known.iter().map(String::as_str))
                ),
            );
            return None;
        }
        Some(label)
    }

    fn optional_bool(&mut self, key: &str) -> Option<bool> {
        let v = self.fields.get(key)?;
        match v.get_ref() {
            toml::Value::Boolean(b) => Some(*b),
            _ => {
                self.error(v.span(), format!("`{key}` must be true or false"));
                None
            }
        }
    }

    fn optional_facing(&mut self, key: &str) -> Option<Dir> {
        self.fields.contains_key(key).then(|| self.facing(key))
    }

    fn facing(&mut self, key: &str) -> Dir {
        let Some(v) = self.fields.get(key) else {
            return Dir::N;
        };
        match v.get_ref().as_integer().and_then(Dir::from_index) {
            Some(d) => d,
            None => {
                self.error(v.span(), format!("`{key}` must be a direction from 0 to 5"));
                Dir::N
            }
        }
    }
}

/// The words `lasts` takes besides a number of turns.
const LASTS: [&str; 3] = ["turn", "battle", "permanent"];

/// A marker's name, or a located error in the words of [`hexforge_core::marker::BadMarkerName`].
fn marker_name(
    src: &SourceText,
    name: &Spanned<String>,
    errs: &mut Vec<Diagnostic>,
) -> Option<MarkerName> {
    MarkerName::new(name.get_ref())
        .map_err(|e| errs.push(src.error(name.span(), e.to_string())))
        .ok()
}

/// A marker at the start, on `on`, from its raw table; `None` after a located error.
fn start_mark(
    src: &SourceText,
    on: MarkOn,
    m: &MarkerDef,
    errs: &mut Vec<Diagnostic>,
) -> Option<Mark> {
    let name = marker_name(src, &m.name, errs);
    let lasts = match &m.lasts {
        None => Some(Lasts::Permanent),
        Some(l) => match l.get_ref() {
            toml::Value::String(w) if w == "turn" => Some(Lasts::Turn),
            toml::Value::String(w) if w == "battle" => Some(Lasts::Battle),
            toml::Value::String(w) if w == "permanent" => Some(Lasts::Permanent),
            toml::Value::Integer(n) if (1..=99).contains(n) => Some(Lasts::Turns(*n as u8)),
            other => {
                let near = other
                    .as_str()
                    .map_or(String::new(), |w| did_you_mean(w, LASTS.iter().copied()));
                errs.push(src.error(
                    l.span(),
                    format!(
                        "`lasts = {other}`{near} is not how long a marker lasts: use \"turn\", \"battle\", \"permanent\" or a number of turns from 1 to 99"
                    ),
                ));
                None
            }
        },
    };
    let value = marker_value(src, m.value.as_ref(), errs);
    Some(Mark {
        on,
        name: name?,
        lasts: lasts?,
        value: value?,
    })
}

/// A marker's value, -999 to 999 (0 when omitted), or a located error.
fn marker_value(
    src: &SourceText,
    v: Option<&Spanned<i64>>,
    errs: &mut Vec<Diagnostic>,
) -> Option<i16> {
    let Some(v) = v else { return Some(0) };
    match i16::try_from(*v.get_ref()) {
        Ok(n) if (-999..=999).contains(&n) => Some(n),
        _ => {
            errs.push(src.error(
                v.span(),
                format!(
                    "marker value {} is out of range: use a whole number from -999 to 999",
                    v.get_ref()
                ),
            ));
            None
        }
    }
}

/// The markers an expectation lists: names, or `{ name = "...", value = n }` tables.
fn expected_markers(
    src: &SourceText,
    list: &[Spanned<toml::Value>],
    errs: &mut Vec<Diagnostic>,
) -> Vec<ExpectedMarker> {
    let mut out = Vec::new();
    for item in list {
        let (name, value) = match item.get_ref() {
            toml::Value::String(n) => (Spanned::new(item.span(), n.clone()), None),
            toml::Value::Table(t)
                if t.keys().all(|k| k == "name" || k == "value")
                    && t.get("name").is_some_and(toml::Value::is_str)
                    && t.get("value").is_none_or(toml::Value::is_integer) =>
            {
                let name = t.get("name").and_then(|n| n.as_str()).unwrap_or_default();
                let value = t.get("value").and_then(|v| v.as_integer());
                (
                    Spanned::new(item.span(), name.to_string()),
                    value.map(|v| Spanned::new(item.span(), v)),
                )
            }
            _ => {
                errs.push(src.error(
                    item.span(),
                    "a marker here is its name in quotes, or `{ name = \"soaked\", value = 2 }` to check its value too".to_string(),
                ));
                continue;
            }
        };
        let n = marker_name(src, &name, errs);
        let v = match &value {
            Some(v) => marker_value(src, Some(v), errs).map(Some),
            None => Some(None),
        };
        if let (Some(n), Some(v)) = (n, v) {
            out.push((n, v));
        }
    }
    out
}

/// `army/tile`, optionally qualified by a mod id (`base:moloch/netter`).
fn resolve_tile(catalog: &Catalog, name: &str) -> Option<hexforge_core::TileRef> {
    let bare = name.split_once(':').map_or(name, |(_, rest)| rest);
    catalog.find(bare)
}

/// A starting board the engine refuses, located at the `[[tile]]` that causes it (for a tile on
/// an occupied hex, the second one) and saying what to do.
fn setup_error(
    src: &SourceText,
    setup: &Setup,
    spans: &[std::ops::Range<usize>],
    e: &hexforge_core::SetupError,
) -> Diagnostic {
    use hexforge_core::SetupError as E;
    let hex = match e {
        E::OffBoard { hex }
        | E::Occupied { hex }
        | E::UnknownOwner { hex, .. }
        | E::NotABoardTile { hex, .. }
        | E::SecondHq { hex, .. }
        | E::TooManyWounds { hex, .. }
        | E::WoundsOnHq { hex } => Some(*hex),
        E::PlayerCount(_) => None,
    };
    let at: Vec<usize> = setup
        .tiles
        .iter()
        .enumerate()
        .filter(|(_, t)| Some(t.hex) == hex)
        .map(|(i, _)| i)
        .collect();
    let (culprit, first) = match e {
        E::Occupied { .. } => (at.get(1).copied(), at.first().copied()),
        _ => (at.first().copied(), None),
    };
    let line_of = |i: usize| src.line_col(spans[i].start).0;
    let message = match (e, first) {
        (E::Occupied { hex }, Some(f)) => format!(
            "hex {hex} already holds the tile of line {}: put this one on a free hex",
            line_of(f)
        ),
        (E::NotABoardTile { .. }, _) => format!("{e}: remove this `[[tile]]`"),
        (E::SecondHq { .. }, _) => format!("{e}: a player has one HQ, remove one of them"),
        (E::OffBoard { .. }, _) => format!("{e}: use a hex of the board"),
        _ => e.to_string(),
    };
    match culprit.and_then(|i| spans.get(i)) {
        Some(span) => src.error(span.clone(), message),
        None => src.error(0..0, message),
    }
}

/// The kinds of step a scenario may have, as messages list them.
const STEP_KINDS: &str = "battle, place, move, push, sniper, grenade, air_strike, instant, discard, redraw, end_turn, rule";

/// An unknown `army/tile` name: the closest loaded tile, and how tiles are named.
fn unknown_tile(catalog: &Catalog, name: &str) -> String {
    let ids: Vec<String> = catalog
        .armies()
        .iter()
        .flat_map(|a| a.tiles.iter().map(|t| catalog.get(*t).full_id()))
        .collect();
    format!(
        "unknown tile `{name}`{}: write `army/tile` with a loaded army's tile, e.g. `moloch/cyborg`",
        did_you_mean(name, ids.iter().map(String::as_str))
    )
}

/// A list of `n` whole numbers that fit an `i32` (a hex `[q, r]`, a position `[q, r, facing]`),
/// or where and why not.
/// A linked unit as `expect.links` and its failures show it: `kind [q, r] [q, r]`.
pub fn link_shown(kind: &str, hexes: impl Iterator<Item = Hex>) -> String {
    let mut out = kind.to_string();
    for h in hexes {
        out.push_str(&format!(" [{}, {}]", h.q(), h.r()));
    }
    out
}

/// The `[[link]]` tables as linked units, numbered from 1 in file order; the board checks them
/// once it is built.
fn start_links(
    src: &SourceText,
    defs: &[Spanned<LinkDef>],
    shape: &BoardShape,
    player_ids: &[String],
    errs: &mut Vec<Diagnostic>,
) -> Vec<Link> {
    let mut links = Vec::new();
    for (i, d) in defs.iter().enumerate() {
        let d = d.get_ref();
        let mut ok = true;
        let kind = MarkerName::new(d.kind.get_ref()).unwrap_or_else(|e| {
            errs.push(src.error(d.kind.span(), format!("kind: {e}")));
            ok = false;
            MarkerName::IGNORES_NETS
        });
        let owner = player_ids.iter().position(|p| p == d.owner.get_ref());
        if owner.is_none() {
            errs.push(src.error(
                d.owner.span(),
                format!(
                    "owner `{}` is not one of the players{}: use one of {}",
                    d.owner.get_ref(),
                    did_you_mean(d.owner.get_ref(), player_ids.iter().map(String::as_str)),
                    player_ids.join(", ")
                ),
            ));
            ok = false;
        }
        let loss = match &d.loss {
            None => LinkLoss::Whole,
            Some(l) => LinkLoss::parse(l.get_ref()).unwrap_or_else(|| {
                errs.push(src.error(
                    l.span(),
                    format!(
                        "loss `{}` is not known: use `whole` (its tiles leave the board together) or `segment` (a destroyed tile leaves an empty segment)",
                        l.get_ref()
                    ),
                ));
                ok = false;
                LinkLoss::Whole
            }),
        };
        let mut segments = 0u64;
        for h in d.hexes.get_ref() {
            match ints(h, 2, "hexes", "[q, r]") {
                Ok(v) => match shape.cell(Hex::new(v[0], v[1])) {
                    Some(c) => segments |= 1u64 << c.index(),
                    None => {
                        errs.push(src.error(
                            h.span(),
                            format!(
                                "hex [{}, {}] is not on the {} board",
                                v[0],
                                v[1],
                                shape.name()
                            ),
                        ));
                        ok = false;
                    }
                },
                Err(e) => {
                    errs.push(src.error(e.0, e.1));
                    ok = false;
                }
            }
        }
        if ok && let Some(o) = owner {
            links.push(Link::new(
                i as u8 + 1,
                kind,
                Seat::new(o as u8),
                segments,
                loss,
                d.shared.unwrap_or(loss == LinkLoss::Whole),
            ));
        }
    }
    links
}

fn ints(
    list: &Spanned<Vec<Spanned<i64>>>,
    n: usize,
    key: &str,
    shape: &str,
) -> Result<Vec<i32>, (std::ops::Range<usize>, String)> {
    let values = list.get_ref();
    if values.len() != n {
        return Err((
            list.span(),
            format!(
                "`{key}` must be {} whole numbers {shape}; found {} values",
                ["no", "one", "two", "three"]
                    .get(n)
                    .copied()
                    .unwrap_or("more"),
                values.len()
            ),
        ));
    }
    values
        .iter()
        .map(|v| {
            i32::try_from(*v.get_ref()).map_err(|_| {
                (
                    v.span(),
                    format!(
                        "`{key}`: {} is out of range: write {shape} with small whole numbers",
                        v.get_ref()
                    ),
                )
            })
        })
        .collect()
}

fn army_list(catalog: &Catalog) -> String {
    catalog
        .armies()
        .iter()
        .map(|a| a.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::BoardShape;
    use hexforge_core::tile::{Tile, TileKind};

    fn catalog() -> Catalog {
        let mut c = Catalog::new();
        let mut hq = Tile::new("x", "hq", TileKind::Hq);
        hq.initiative = hexforge_core::Initiative::new(&[0]).expect("init");
        c.add_army("x", "X", 35, vec![hq]).expect("army");
        c
    }

    #[test]
    fn every_scenario_problem_is_located() {
        let text = r#"name = "bad"
preset = "v4"

[options]
net_cycle_rule = "rings"

[[player]]
id = "a"
army = "x"

[[player]]
id = "b"
army = "nope"

[[tile]]
owner = "c"
tile = "x/hq"
at = [5, 0]

[expect]
removed = ["ghost"]
"#;
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("invalid");
        let shown: Vec<String> = errs.iter().map(|d| d.to_string()).collect();
        let expected = [
            "s.toml:2:10: unknown preset `v4`",
            "s.toml:5:18: rule option `net_cycle_rule` expects one of pairs_only",
            "s.toml:13:8: unknown army `nope`: use one of the loaded armies (x)",
            "s.toml:16:9: owner `c` is not one of the players: use one of a, b",
            "s.toml:18:6: hex [5, 0] is not on the standard board",
            "s.toml:21:12: expect.removed names `ghost`",
        ];
        assert_eq!(shown.len(), expected.len(), "{shown:#?}");
        for (s, e) in shown.iter().zip(expected) {
            assert!(s.starts_with(e), "\n got: {s}\nwant: {e}...");
        }
    }

    #[test]
    fn place_steps_are_checked_field_by_field() {
        let text = r#"name = "place"

[[player]]
id = "a"
army = "x"

[[player]]
id = "b"
army = "x"

[[step]]
do = "place"
by = "z"
tile = "x/hq"
at = [0]
colour = "red"
"#;
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("invalid");
        let shown: Vec<String> = errs.iter().map(|d| d.to_string()).collect();
        let expected = [
            "s.toml:15:6: `at` must be two whole numbers [q, r], e.g. [0, -1]",
            "s.toml:16:10: `colour` is not a field of a `place` step",
            "s.toml:13:6: `by = \"z\"` is not one of the players: use one of a, b",
        ];
        assert_eq!(shown.len(), expected.len(), "{shown:#?}");
        for e in expected {
            assert!(
                shown.iter().any(|s| s.starts_with(e)),
                "missing {e} in {shown:#?}"
            );
        }
    }

    const PLAYERS: &str = "name = \"s\"\n\n[[player]]\nid = \"a\"\narmy = \"x\"\n\n[[player]]\nid = \"b\"\narmy = \"x\"\n";

    #[test]
    fn a_refused_starting_board_names_the_tile_line() {
        let text = format!(
            "{PLAYERS}\n[[tile]]\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 0]\n\n[[tile]]\nowner = \"b\"\ntile = \"x/hq\"\nat = [0, 0]\n"
        );
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("occupied");
        assert_eq!(
            errs.to_string(),
            "s.toml:19:6: hex [0, 0] already holds the tile of line 14: put this one on a free hex"
        );
    }

    #[test]
    fn a_hex_of_the_wrong_length_is_refused_with_its_shape() {
        let text = format!("{PLAYERS}\n[[tile]]\nowner = \"a\"\ntile = \"x/hq\"\nat = [1, 2, 3]\n");
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("3 values");
        assert_eq!(
            errs.to_string(),
            "s.toml:14:6: `at` must be two whole numbers [q, r]; found 3 values"
        );
    }

    #[test]
    fn markers_at_the_start_and_in_expectations_are_read() {
        let text = format!(
            "{PLAYERS}markers = [{{ name = \"tide\", value = 3 }}]\n\n[[tile]]\nlabel = \"h\"\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 0]\nmarkers = [{{ name = \"soaked\", lasts = 2, value = -4 }}, {{ name = \"unpushable\", lasts = \"battle\" }}]\n\n[[hex_marker]]\nat = [1, 0]\nname = \"flooded\"\nlasts = \"turn\"\n\n[expect]\nmarkers = {{ h = [\"soaked\", {{ name = \"unpushable\", value = 0 }}] }}\nhex_markers = [{{ at = [1, 0], markers = [] }}]\nplayer_markers = {{ b = [\"tide\"] }}\n"
        );
        let s = parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect("valid");
        let shape = BoardShape::standard();
        let cell = |q, r| shape.cell(Hex::new(q, r)).expect("on the board");
        let name = |n| MarkerName::new(n).expect("a name");
        let mut marks = s.marks.clone();
        marks.sort_by_key(|m| (m.on, m.name));
        assert_eq!(
            marks,
            [
                Mark {
                    on: MarkOn::Tile(cell(0, 0)),
                    name: name("soaked"),
                    lasts: Lasts::Turns(2),
                    value: -4
                },
                Mark {
                    on: MarkOn::Tile(cell(0, 0)),
                    name: name("unpushable"),
                    lasts: Lasts::Battle,
                    value: 0
                },
                Mark {
                    on: MarkOn::Hex(cell(1, 0)),
                    name: name("flooded"),
                    lasts: Lasts::Turn,
                    value: 0
                },
                Mark {
                    on: MarkOn::Player(Seat::new(1)),
                    name: name("tide"),
                    lasts: Lasts::Permanent,
                    value: 3
                },
            ]
        );
        assert_eq!(
            s.expect.markers,
            [(
                "h".to_string(),
                vec![(name("soaked"), None), (name("unpushable"), Some(0))]
            )]
        );
        assert_eq!(s.expect.hex_markers, [(Hex::new(1, 0), vec![])]);
        assert_eq!(
            s.expect.player_markers,
            [(Seat::new(1), "b".to_string(), vec![(name("tide"), None)])]
        );
    }

    #[test]
    fn bad_markers_are_located_in_the_projects_words() {
        let text = format!(
            "{PLAYERS}\n[[tile]]\nlabel = \"h\"\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 0]\nmarkers = [{{ name = \"Soaked\" }}, {{ name = \"wet\", lasts = \"battel\" }}, {{ name = \"wet\", lasts = 100 }}, {{ name = \"wet\", value = 1000 }}]\n\n[expect]\nmarkers = {{ g = [\"wet\"] }}\nplayer_markers = {{ c = [] }}\n"
        );
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("invalid");
        let shown: Vec<String> = errs.iter().map(|d| d.to_string()).collect();
        let expected = [
            "s.toml:16:21: `Soaked` is not a marker name: use 1 to 12 lowercase letters",
            "s.toml:16:57: `lasts = \"battel\"` (did you mean `battle`?) is not how long a marker lasts",
            "s.toml:16:93: `lasts = 100` is not how long a marker lasts",
            "s.toml:16:124: marker value 1000 is out of range: use a whole number from -999 to 999",
            "s.toml:19:17: expect.markers names `g`, which is no tile's label: use the `label` of a tile",
            "s.toml:20:24: expect.player_markers names `c`, who is not a player: use one of a, b",
        ];
        assert_eq!(shown.len(), expected.len(), "{shown:#?}");
        for e in expected {
            assert!(
                shown.iter().any(|s| s.starts_with(e)),
                "missing {e} in {shown:#?}"
            );
        }
        // An unknown key of a marker suggests the closest.
        let text = format!("{PLAYERS}\n[[hex_marker]]\nat = [0, 0]\nname = \"wet\"\nlast = 2\n");
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("unknown key");
        assert!(
            errs.to_string().contains("(did you mean `lasts`?)"),
            "{errs}"
        );
    }

    #[test]
    fn markers_at_the_start_of_a_game_are_read_into_its_position() {
        let text = format!("{PLAYERS}markers = [{{ name = \"tide\" }}]\n\n[game]\nnext = \"a\"\n");
        let s = parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect("valid");
        assert!(s.game.is_some());
        assert_eq!(s.marks.len(), 1);
        assert_eq!(s.marks[0].name.to_string(), "tide");
    }

    #[test]
    fn unknown_names_in_a_scenario_suggest_the_closest() {
        let text = format!(
            "{PLAYERS}preset = \"v4\"\n\n[[tile]]\nowner = \"aa\"\ntile = \"x/hqq\"\nat = [0, 0]\n\n[[step]]\ndo = \"batle\"\n"
        )
        .replacen("name = \"s\"\n", "name = \"s\"\npreset = \"v4\"\n", 1)
        .replacen("preset = \"v4\"\n\n[[tile]]", "\n[[tile]]", 1);
        let errs =
            parse_scenario(&SourceText::new("s.toml", text), &catalog()).expect_err("unknown");
        let shown = errs.to_string();
        for want in [
            "unknown preset `v4` (did you mean `v3`?)",
            "owner `aa` is not one of the players (did you mean `a`?)",
            "unknown tile `x/hqq` (did you mean `x/hq`?)",
            "unknown step `batle` (did you mean `battle`?)",
        ] {
            assert!(shown.contains(want), "missing {want} in\n{shown}");
        }
    }
}
