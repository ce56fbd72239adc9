//! The raw `*Def` structures a scenario file is read into, before validation, each value with
//! its place in the file.

use serde::Deserialize;
use std::collections::BTreeMap;
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
    /// Game mode: the causes of the battles fought, in order (see [`BATTLE_CAUSES`](super::scenario::BATTLE_CAUSES)).
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
