//! Validated tile and army definitions, and the catalog that the engine indexes them by.
//!
//! These are built by the content layer from TOML (after validation) or by tests directly. The
//! engine refers to a tile by its [`TileRef`] index; names are for people and files.

use crate::hex::{Dir, Edge, Hex};
use crate::link_loss::LinkLoss;
use crate::marker_name::MarkerName;
use crate::points::{HookPoints, RulePoints};
use std::collections::BTreeMap;
use std::fmt;

/// What a tile is (R3.1, R3.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TileKind {
    /// The player's headquarters: placed first, takes HP damage, gives adjacent friends its aura.
    Hq,
    /// A unit that attacks, nets or moves by its edges' icons.
    Soldier,
    /// A board tile that gives effects to the tiles its links reach.
    Module,
    /// A tile played from the hand for a one-off effect and discarded; never on the board.
    Instant,
}

impl TileKind {
    /// The lowercase word used for the kind in files, logs and messages.
    pub const fn name(self) -> &'static str {
        match self {
            TileKind::Hq => "hq",
            TileKind::Soldier => "soldier",
            TileKind::Module => "module",
            TileKind::Instant => "instant",
        }
    }

    /// Board tiles are placed on hexes; instants never are (R3.16).
    pub const fn is_board_tile(self) -> bool {
        !matches!(self, TileKind::Instant)
    }
}

impl fmt::Display for TileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The icons printed against one edge of a tile.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct EdgeIcons {
    /// Melee strength (R3.8), 0 = none.
    pub melee: u8,
    /// Ranged strength (R3.9), 0 = none.
    pub ranged: u8,
    /// Armor against ranged attacks entering through this edge (R3.10).
    pub armor: bool,
    /// Net on the adjacent hex (R3.11).
    pub net: bool,
    /// Module connection toward the adjacent hex (R3.14.2).
    pub link: bool,
}

impl EdgeIcons {
    /// Whether this edge makes an attack of any kind (a melee or ranged strength above 0).
    pub const fn attacks(&self) -> bool {
        self.melee > 0 || self.ranged > 0
    }
}

/// Effects a module gives to the tiles it is connected to, or an HQ to adjacent friendly units.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Effects {
    /// Added to the melee strength of each connected unit's melee attacks.
    pub melee: i8,
    /// Added to the ranged strength of each connected unit's ranged attacks.
    pub ranged: i8,
    /// Added to the initiative of connected friendly units.
    pub initiative: i8,
    /// Added to the initiative of connected **enemy** units (Saboteur: -1).
    pub enemy_initiative: i8,
    /// A Medic: it may absorb one attack's wounds on a connected friendly unit (R4.8).
    pub medic: bool,
    /// Extra attack slots for connected units, each one below their last normal slot (R4.5.2).
    pub extra_attack: u8,
    /// A connected enemy module works for this tile's owner (R7.1.3).
    pub hijack: bool,
    /// A connected friendly unit may convert one attack between melee and ranged (R7.4.3).
    pub convert_attack: bool,
    /// Connected friendly units may move as if mobile (R7.4.4).
    pub mobility: bool,
}

impl Effects {
    /// No effect at all: what a tile that gives nothing carries.
    pub const NONE: Effects = Effects {
        melee: 0,
        ranged: 0,
        initiative: 0,
        enemy_initiative: 0,
        medic: false,
        extra_attack: 0,
        hijack: false,
        convert_attack: false,
        mobility: false,
    };

    /// These effects and `other`'s together: numbers added (within -9..9, extra attacks 0..4),
    /// flags of either.
    pub fn plus(&self, other: &Effects) -> Effects {
        let add = |a: i8, b: i8| (a as i16 + b as i16).clamp(-9, 9) as i8;
        Effects {
            melee: add(self.melee, other.melee),
            ranged: add(self.ranged, other.ranged),
            initiative: add(self.initiative, other.initiative),
            enemy_initiative: add(self.enemy_initiative, other.enemy_initiative),
            medic: self.medic || other.medic,
            extra_attack: self.extra_attack.saturating_add(other.extra_attack).min(4),
            hijack: self.hijack || other.hijack,
            convert_attack: self.convert_attack || other.convert_attack,
            mobility: self.mobility || other.mobility,
        }
    }

    /// Whether this gives nothing, so the tile needs no place in the effect computations.
    pub fn is_none(&self) -> bool {
        *self == Effects::NONE
    }
}

/// Effects that need no connection (R7.1.4).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct GlobalEffects {
    /// Friendly units move up to this many hexes (0 = the normal 1).
    pub move_range: u8,
}

/// What an instant tile does when played (section 5).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InstantEffect {
    /// Starts a battle at once (R5.1).
    Battle,
    /// Moves one unit to an empty adjacent hex (or further, by move range) and may turn it (R5.2).
    Move,
    /// Pushes an enemy unit adjacent to one of the player's units one hex away (R5.3).
    Push,
    /// Wounds to one enemy unit anywhere, never an HQ (R5.5).
    Wound {
        /// Wounds dealt to the target.
        wounds: u8,
    },
    /// Destroys an enemy unit adjacent to the player's HQ, never an HQ (R5.4).
    DestroyNearHq,
    /// Wounds every unit within `radius` of a hex, never HQs (R5.6).
    Area {
        /// Wounds dealt to each unit in the area.
        wounds: u8,
        /// How far from the chosen hex the area reaches: 1 is the hex and its six neighbours.
        radius: u8,
    },
    /// Played by its abilities' scripts: their `targets` hooks list where it may be played,
    /// their `play` hooks say what it does (docs/LUA_API.md, "Scripted instants").
    Scripted,
}

impl InstantEffect {
    /// Every effect's name in scripts, in the order of [`InstantEffect::number`].
    pub const NAMES: [&'static str; 7] = [
        "battle",
        "move",
        "push",
        "wound",
        "destroy_near_hq",
        "area",
        "scripted",
    ];

    /// The effect's place in [`InstantEffect::NAMES`] (its parameters left out).
    pub const fn number(&self) -> u8 {
        match self {
            InstantEffect::Battle => 0,
            InstantEffect::Move => 1,
            InstantEffect::Push => 2,
            InstantEffect::Wound { .. } => 3,
            InstantEffect::DestroyNearHq => 4,
            InstantEffect::Area { .. } => 5,
            InstantEffect::Scripted => 6,
        }
    }

    /// The effect's name in scripts: `battle`, `move`, `push`, `wound`, `destroy_near_hq`,
    /// `area` or `scripted`.
    pub const fn name(&self) -> &'static str {
        Self::NAMES[self.number() as usize]
    }
}

/// A scripted ability bound to a tile: a hook name and its parameters; once a hook
/// implementation has bound it, the hook points it defines and the implementation's own index.
#[derive(Clone, PartialEq, Debug)]
pub struct AbilityRef {
    /// The ability's name, as files write it; a script registered under this name implements it.
    pub hook: String,
    /// The ability's parameters from the tile's file, by name, passed to its script.
    pub params: BTreeMap<String, ParamValue>,
    /// The points the engine calls for this ability (none until bound).
    pub points: HookPoints,
    /// An index the hook implementation assigns when it binds the ability.
    pub binding: u32,
    /// The ability's static effects have been merged into the tile (binding again skips them).
    pub merged: bool,
}

impl AbilityRef {
    /// An ability as a file names it, not yet bound to a script (no hook points).
    pub fn new(hook: &str, params: BTreeMap<String, ParamValue>) -> Self {
        AbilityRef {
            hook: hook.to_string(),
            params,
            points: HookPoints::NONE,
            binding: 0,
            merged: false,
        }
    }
}

/// A parameter value of an ability or a rule option.
#[derive(Clone, PartialEq, Debug)]
pub enum ParamValue {
    /// An on/off value.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A number with a fractional part.
    Float(f64),
    /// A text value (also a choice among named values).
    Str(String),
    /// A list of values.
    List(Vec<ParamValue>),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Str(s) => write!(f, "\"{s}\""),
            ParamValue::List(l) => {
                f.write_str("[")?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// Up to four printed initiative values, highest first.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Initiative {
    values: [u8; 4],
    len: u8,
}

impl Initiative {
    /// No printed initiative: the tile never acts in a battle by itself.
    pub const NONE: Initiative = Initiative {
        values: [0; 4],
        len: 0,
    };

    /// Initiative from printed values; `None` when there are more than four.
    pub fn new(values: &[u8]) -> Option<Self> {
        if values.len() > 4 {
            return None;
        }
        let mut v = [0u8; 4];
        v[..values.len()].copy_from_slice(values);
        v[..values.len()].sort_unstable_by(|a, b| b.cmp(a));
        Some(Initiative {
            values: v,
            len: values.len() as u8,
        })
    }

    /// The printed values, highest first; one slot in the battle per value.
    #[inline]
    pub fn values(&self) -> &[u8] {
        &self.values[..self.len as usize]
    }

    /// Whether the tile has no printed initiative.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A tile as the engine plays it: every printed icon and effect, checked by the content layer.
#[derive(Clone, PartialEq, Debug)]
pub struct Tile {
    /// The army's id (`moloch`).
    pub army: String,
    /// The tile's id within the army (`hunter_killer`).
    pub id: String,
    /// The name people see, as printed on the tile.
    pub name: String,
    /// HQ, soldier, module or instant.
    pub kind: TileKind,
    /// How many copies of the tile the army's deck holds.
    pub count: u8,
    /// The initiative values printed on the tile: the phases it acts in.
    pub initiative: Initiative,
    /// Toughness icons: the tile is destroyed by `1 + toughness` wounds (R3.12).
    pub toughness: u8,
    /// The Mobility icon: the unit may move one hex and turn, once per turn (R3.13).
    pub mobile: bool,
    /// The icons against each edge, by edge index (front = 0, clockwise), before facing turns them.
    pub edges: [EdgeIcons; 6],
    /// Effects a module gives the tiles its links connect to.
    pub module: Effects,
    /// Effects an HQ gives to adjacent friendly units.
    pub aura: Effects,
    /// Effects on the owner's units that need no connection.
    pub global: GlobalEffects,
    /// The tile's army attacks and nets allied units too (R8.5.7, `ally_attack_rule`).
    pub attacks_allies: bool,
    /// What the tile does when played, for instants; `None` for board tiles.
    pub instant: Option<InstantEffect>,
    /// The scripted abilities of the tile, in file order.
    pub abilities: Vec<AbilityRef>,
    /// `[tile.linked]`: the tiles placed beside this one, when it is placed, as one linked unit.
    pub linked: Option<Box<Assembly>>,
}

/// `[tile.linked]`: a unit on several hexes declared by its army. When its lead tile (the one
/// that declares it) is placed from a hand, each part is put on the hex its steps reach, facing
/// the same way, and the lead and its parts become one linked unit.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Assembly {
    /// The linked unit's kind (`wagon`), as logs and scripts show it.
    pub kind: MarkerName,
    /// What destroying one of its tiles does.
    pub loss: LinkLoss,
    /// Whether a net or a module reaching one of its tiles reaches all of them (R9.3.2).
    pub shared: bool,
    /// The other tiles, 1 to 6, each with where it goes.
    pub parts: Vec<Part>,
}

/// One tile of an [`Assembly`] besides its lead.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Part {
    /// The tile's id within the lead's army.
    pub tile: String,
    /// The steps from the lead's hex to the part's, each across an edge counted from the lead's
    /// front (0 front, clockwise), so the unit turns with the lead's facing.
    pub steps: Vec<Edge>,
}

impl Assembly {
    /// The hex each part goes on when the lead stands on `at` facing `facing`, in part order.
    pub fn hexes(&self, at: Hex, facing: Dir) -> impl Iterator<Item = Hex> + '_ {
        self.parts
            .iter()
            .map(move |p| p.steps.iter().fold(at, |h, e| h.step(e.direction(facing))))
    }
}

impl Tile {
    /// A blank definition of `kind`, to be filled in by builders and tests.
    pub fn new(army: &str, id: &str, kind: TileKind) -> Self {
        Tile {
            army: army.to_string(),
            id: id.to_string(),
            name: id.to_string(),
            kind,
            count: 1,
            initiative: Initiative::NONE,
            toughness: 0,
            mobile: false,
            edges: [EdgeIcons::default(); 6],
            module: Effects::NONE,
            aura: Effects::NONE,
            global: GlobalEffects::default(),
            attacks_allies: false,
            instant: None,
            abilities: Vec::new(),
            linked: None,
        }
    }

    /// The tile's `army/tile` id, as files, messages and [`Catalog::find`] name it.
    pub fn full_id(&self) -> String {
        format!("{}/{}", self.army, self.id)
    }

    /// The icons against one edge, counted from the tile's front (not from the board's north).
    pub fn edge(&self, e: Edge) -> &EdgeIcons {
        &self.edges[e.index() as usize]
    }

    /// Wounds that destroy this tile (HQs use HP instead).
    pub const fn hit_points(&self) -> u8 {
        1 + self.toughness
    }

    /// Whether the tile is an HQ, which counts damage in hit points rather than wound markers.
    pub fn is_hq(&self) -> bool {
        self.kind == TileKind::Hq
    }

    /// The effects this tile gives through its links (modules) or to adjacent friends (HQ aura).
    pub fn gives(&self) -> &Effects {
        if self.is_hq() {
            &self.aura
        } else {
            &self.module
        }
    }
}

/// Index of a tile definition in its [`Catalog`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct TileRef(u16);

impl TileRef {
    /// The position of the definition in its catalog, for per-tile tables indexed alike.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// An army: its id, names and tiles (as catalog references, in file order).
#[derive(Clone, PartialEq, Debug)]
pub struct Army {
    /// The army's id, the first half of every tile's `army/tile` id.
    pub id: String,
    /// The army's name as people see it.
    pub name: String,
    /// How many tiles its deck must hold (R1.1).
    pub size: u16,
    /// The army's tiles, HQ included, in file order.
    pub tiles: Vec<TileRef>,
}

impl Army {
    /// Where `tile` stands among the army's first 64 tiles: the bit a rule action's tile targets
    /// use for it (`InstantTargets::tiles`).
    pub fn tile_slot(&self, tile: TileRef) -> Option<usize> {
        self.tiles.iter().take(64).position(|t| *t == tile)
    }

    /// How many tiles the army's deck holds when that is not its size (R1.1).
    pub fn size_mismatch(&self, catalog: &Catalog) -> Option<u32> {
        deck_mismatch(self.tiles.iter().map(|&t| catalog.get(t).count), self.size)
    }
}

/// How many tiles a deck of tiles with `counts` holds, when that is not `size`: an army has
/// exactly its size in tiles (R1.1: 35 in the base game, or what its file or preset says).
pub fn deck_mismatch(counts: impl IntoIterator<Item = u8>, size: u16) -> Option<u32> {
    let total: u32 = counts.into_iter().map(u32::from).sum();
    (total != u32::from(size)).then_some(total)
}

/// Why tiles could not be added to a catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CatalogError {
    /// An army with this id is already in the catalog.
    DuplicateArmy(String),
    /// A tile with this `army/tile` id is already in the catalog.
    DuplicateTile(String),
    /// The catalog already holds as many tiles as a [`TileRef`] can index.
    Full,
    /// A tile's `[tile.linked]` names a part that is not a board tile of its army, or that
    /// declares a linked unit of its own.
    BadPart {
        /// The lead tile, `army/tile`.
        tile: String,
        /// The part as written.
        part: String,
    },
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::DuplicateArmy(a) => write!(f, "army `{a}` is defined twice"),
            CatalogError::DuplicateTile(t) => write!(f, "tile `{t}` is defined twice"),
            CatalogError::Full => write!(f, "too many tiles (at most 65535)"),
            CatalogError::BadPart { tile, part } => write!(
                f,
                "`{tile}` is placed with `{part}`, which is not a soldier or module of its army without a `[tile.linked]` of its own"
            ),
        }
    }
}

impl std::error::Error for CatalogError {}

/// What the engine's inner loops ask of a tile definition, worked out once when it is added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traits {
    /// Edges (bit = edge index) with a net icon.
    pub nets: u8,
    /// Edges (bit = edge index) with a melee or ranged attack.
    pub attacks: u8,
    /// Edges (bit = edge index) that carry its effects to neighbours: the link icons of a module,
    /// every edge of an HQ (its aura).
    pub links: u8,
    /// It gives effects to connected tiles (a module with effects, an HQ with an aura).
    pub gives: bool,
    /// Its effects take over connected enemy modules (R7.1.3).
    pub hijacks: bool,
    /// Its effects include Mobility for connected units (R7.4.4).
    pub gives_mobility: bool,
    /// The hook points of all its abilities.
    pub hooks: HookPoints,
    /// How far it lets its owner's units move (its `move_range` effect; 0 when it gives none).
    pub move_range: u8,
    /// It is a unit that may use Mobility by itself.
    pub mobile: bool,
}

impl Traits {
    fn of(t: &Tile) -> Traits {
        let mask = |f: fn(&EdgeIcons) -> bool| {
            t.edges
                .iter()
                .enumerate()
                .fold(0u8, |m, (i, e)| if f(e) { m | 1 << i } else { m })
        };
        let fx = t.gives();
        let hooks = t
            .abilities
            .iter()
            .fold(HookPoints::NONE, |p, a| p.union(a.points));
        Traits {
            nets: mask(|e| e.net),
            attacks: mask(|e| e.melee > 0 || e.ranged > 0),
            links: if t.is_hq() { 0x3f } else { mask(|e| e.link) },
            // A `gives_to` hook gives through the links (or aura) whatever the static effects.
            gives: !fx.is_none() || hooks.contains(HookPoints::GIVES_TO),
            gives_mobility: fx.mobility,
            hijacks: fx.hijack,
            hooks,
            move_range: t.global.move_range,
            mobile: t.mobile,
        }
    }
}

/// What values a rule option a mod declares accepts (docs/RULESETS.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `true` or `false` (`"on"` and `"off"` are read as them).
    Bool,
    /// A whole number, within `min` and `max` when they are given.
    Integer {
        /// The smallest value accepted, if any.
        min: Option<i64>,
        /// The largest value accepted, if any.
        max: Option<i64>,
    },
    /// One of the listed names.
    Enum(Vec<String>),
    /// Any text.
    String,
}

impl OptionKind {
    /// The kind's name as option files write it (`type = "..."`).
    pub fn name(&self) -> &'static str {
        match self {
            OptionKind::Bool => "bool",
            OptionKind::Integer { .. } => "integer",
            OptionKind::Enum(_) => "enum",
            OptionKind::String => "string",
        }
    }

    /// What the kind accepts, worded for messages: `true/false`, `a whole number from 1 to 3`,
    /// `one of a | b`, `a string`.
    pub fn expected(&self) -> String {
        match self {
            OptionKind::Bool => "true/false (or \"on\"/\"off\")".into(),
            OptionKind::Integer { min, max } => match (min, max) {
                (Some(a), Some(b)) => format!("a whole number from {a} to {b}"),
                (Some(a), None) => format!("a whole number of at least {a}"),
                (None, Some(b)) => format!("a whole number of at most {b}"),
                (None, None) => "a whole number".into(),
            },
            OptionKind::Enum(values) => format!("one of {}", values.join(" | ")),
            OptionKind::String => "a string".into(),
        }
    }

    /// `value` as this kind keeps it (`"on"`/`"off"` become booleans), or `None` when the kind
    /// does not accept it.
    pub fn accept(&self, value: &ParamValue) -> Option<ParamValue> {
        match (self, value) {
            (OptionKind::Bool, ParamValue::Bool(_)) => Some(value.clone()),
            (OptionKind::Bool, ParamValue::Str(s)) if s == "on" || s == "off" => {
                Some(ParamValue::Bool(s == "on"))
            }
            (OptionKind::Integer { min, max }, ParamValue::Int(i))
                if min.is_none_or(|m| *i >= m) && max.is_none_or(|m| *i <= m) =>
            {
                Some(value.clone())
            }
            (OptionKind::Enum(values), ParamValue::Str(s)) if values.contains(s) => {
                Some(value.clone())
            }
            (OptionKind::String, ParamValue::Str(_)) => Some(value.clone()),
            _ => None,
        }
    }
}

/// An `[[implies]]` of a mod's `options.toml` (docs/RULESETS.md): when every declared option of
/// `when` has its value there, the engine's rule options of `rules` take theirs, unless the table
/// sets them itself ([`crate::Rules::imply`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Implication {
    /// Declared option keys and the value each must have, in file order.
    pub when: Vec<(String, ParamValue)>,
    /// Engine keys ([`crate::Rules::KEYS`]) and the value each then takes, in file order.
    pub rules: Vec<(String, ParamValue)>,
    /// The id of the mod whose `options.toml` holds it.
    pub declared_by: String,
}

/// A rule option a mod declares (its `options.toml`), as the engine keeps it: what it accepts,
/// its value by default and in each preset, and who declares it.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredOption {
    /// What values it accepts.
    pub kind: OptionKind,
    /// Its value when no preset names it and no override sets it.
    pub default: ParamValue,
    /// Its value in each preset that names it, by preset id (`classic`, a mod's preset).
    pub presets: BTreeMap<String, ParamValue>,
    /// The id of the mod that declares it.
    pub declared_by: String,
    /// One line saying what it changes.
    pub doc: String,
    /// The rule it follows (e.g. `R7.2.4`); may be empty.
    pub rule: String,
    /// Whether games play it: when not, a game whose value differs from the default is refused
    /// (`GameError::Unsupported`) rather than played without it.
    pub played: bool,
}

impl DeclaredOption {
    /// Its value under the preset `preset`: the preset's own value, else the default.
    pub fn value_for(&self, preset: &str) -> &ParamValue {
        self.presets.get(preset).unwrap_or(&self.default)
    }
}

/// A game rule: Lua a mod attaches to the game rather than to a tile (docs/RULESETS.md, "Game
/// scripts"), as the engine keeps it once the script host has bound it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRule {
    /// The name the script gives it (`rule("last_stand", { ... })`), unique in its mod.
    pub name: String,
    /// The id of the mod whose scripts define it.
    pub mod_id: String,
    /// The points it defines.
    pub points: RulePoints,
    /// When it is in play: every declared option named has the value given (an empty list: in
    /// every game of a catalog that holds it).
    pub when: Vec<(String, ParamValue)>,
    /// The actions it offers players, in the order the script lists them.
    pub actions: Vec<RuleAction>,
    /// When some of its hooks are asked (`restrict_when`, `turn_ended_when`, ...; docs/RULESETS.md,
    /// "When a hook is asked"): a hook listed here is asked only when its [`AskWhen`] holds; the
    /// others at every one of their moments.
    pub asked_when: Vec<(RulePoints, AskWhen)>,
    /// Player markers whose values only the player they are on may see (`secret`): a view of the
    /// game for anyone else shows such a marker without its value.
    pub secret: Vec<MarkerName>,
    /// Its `restrict` declared as a list (docs/RULESETS.md, "Declared targets and
    /// restrictions"): worked out by the engine after every action, with no call into a script.
    pub restrictions: Vec<crate::declared::DeclaredRestriction>,
}

/// When a game rule's hook is asked (`restrict_when = { stages = ..., markers = ... }`, and the
/// same for every hook): when any of what it lists holds, the stage, a marker on the player whose
/// turn it is, a marker on any player, or a marker on some tile or hex; never otherwise, which a
/// game pays for at each of the hook's moments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AskWhen {
    /// The stages, as `RuleAction::stages` flags (0: none).
    pub stages: u8,
    /// Player markers on the player whose turn it is (`markers`).
    pub markers: Vec<MarkerName>,
    /// Player markers on any player (`anyone`).
    pub anyone: Vec<MarkerName>,
    /// Markers on any tile or hex (`marked`).
    pub marked: Vec<MarkerName>,
}

impl AskWhen {
    /// Whether it lists nothing, so that the hook would never be asked.
    pub fn is_empty(&self) -> bool {
        self.stages == 0
            && self.markers.is_empty()
            && self.anyone.is_empty()
            && self.marked.is_empty()
    }
}

/// A player action a game rule offers (docs/RULESETS.md, "Mod actions").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleAction {
    /// Its name, unique in the rule: `snake_case`.
    pub name: String,
    /// One line saying what it does, shown to players.
    pub doc: String,
    /// The player also picks a facing (0 to 5) for each hex listed: the action puts a tile down.
    pub facing: bool,
    /// The stages of a turn in which it may be offered (`stages`), as flags: 1 the HQs' placement,
    /// 2 the compulsory discard, 4 play; 0 for every stage. In the others its `targets` is not
    /// asked.
    pub stages: u8,
    /// A player marker the player whose turn it is must carry for it to be offered (`marker`);
    /// without it, its `targets` is not asked.
    pub marker: Option<MarkerName>,
    /// Player markers the player whose turn it is must not carry for it to be offered (`lacks`).
    pub lacks: Vec<MarkerName>,
    /// What the player must have done this turn for it to be offered, as flags:
    /// [`RuleAction::AFTER_DISCARD`] (`after_discard`), [`RuleAction::BEFORE_PLACING`]
    /// (`before_placing`); 0 for nothing.
    pub turn: u8,
    /// The rule it follows, cited when it is refused for what it declares (`cites`, e.g.
    /// `R10.6.3`); may be empty.
    pub cites: String,
    /// The tile it is taken on is shown only to the player who takes it (`secret = true`): a
    /// view of the game for anyone else says "a tile".
    pub secret: bool,
    /// Counters on the player whose turn it is that it waits for (`at_least`, `below`): it is
    /// not offered, and its `targets` not asked, while one does not hold.
    pub counts: crate::declared::Counts,
    /// Its targets declared as data (`targets = { spots = ... }` or `{ pile = ... }`), which
    /// the engine lists itself; `None` when a script function lists them.
    pub declared: Option<crate::declared::Declared>,
}

impl RuleAction {
    /// The `stages` flag of the HQs' placement.
    pub const STAGE_HQ: u8 = 1;
    /// The `stages` flag of the compulsory discard.
    pub const STAGE_DISCARD: u8 = 2;
    /// The `stages` flag of play.
    pub const STAGE_PLAY: u8 = 4;
    /// The `turn` flag of `after_discard`: offered only once the player has discarded a tile
    /// this turn.
    pub const AFTER_DISCARD: u8 = 1;
    /// The `turn` flag of `before_placing`: offered only while the player has placed no tile
    /// this turn.
    pub const BEFORE_PLACING: u8 = 2;
    /// Each `stages` flag with its word in scripts and its name in messages.
    pub const STAGES: [(u8, &'static str, &'static str); 3] = [
        (Self::STAGE_HQ, "hq", "the HQs' placement"),
        (Self::STAGE_DISCARD, "discard", "the compulsory discard"),
        (Self::STAGE_PLAY, "play", "play"),
    ];
}

impl Catalog {
    /// Whether a game rule declares player markers named `name` secret (`secret`).
    pub fn secret_marker(&self, name: MarkerName) -> bool {
        self.game_rules.iter().any(|r| r.secret.contains(&name))
    }

    /// Whether the action `action` of the game rule `rule` is secret (`secret = true`).
    pub fn secret_action(&self, rule: usize, action: usize) -> bool {
        self.game_rules
            .get(rule)
            .and_then(|r| r.actions.get(action))
            .is_some_and(|a| a.secret)
    }
}

impl GameRule {
    /// When the hook at `point` is asked, if the rule declares it (`<point>_when`).
    pub fn asked_when(&self, point: RulePoints) -> Option<&AskWhen> {
        self.asked_when
            .iter()
            .find(|(p, _)| *p == point)
            .map(|(_, w)| w)
    }

    /// Whether the rule is in play under `value`, the value of each declared option by key.
    pub fn applies(&self, value: impl Fn(&str) -> Option<ParamValue>) -> bool {
        self.when
            .iter()
            .all(|(key, want)| value(key).as_ref() == Some(want))
    }
}

/// Every tile definition a match or battle may use, indexed by [`TileRef`], with the rule
/// options the loaded mods declare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    tiles: Vec<Tile>,
    traits: Vec<Traits>,
    /// The loaded mods' implications of declared options on engine keys, in load order.
    implications: Vec<Implication>,
    /// The hook points of every tile's abilities together.
    hooks: HookPoints,
    armies: Vec<Army>,
    by_name: BTreeMap<String, TileRef>,
    options: BTreeMap<String, DeclaredOption>,
    /// The game rules the loaded mods' scripts define, in load order.
    game_rules: Vec<GameRule>,
    /// Per tile, the parts its `[tile.linked]` places with it, in part order (empty for most).
    parts: Vec<Vec<TileRef>>,
}

impl Catalog {
    /// An empty catalog, to add armies to.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an army and its tiles. Tile defs must all name this army.
    pub fn add_army(
        &mut self,
        id: &str,
        name: &str,
        size: u16,
        tiles: Vec<Tile>,
    ) -> Result<(), CatalogError> {
        if self.armies.iter().any(|a| a.id == id) {
            return Err(CatalogError::DuplicateArmy(id.to_string()));
        }
        let mut refs = Vec::with_capacity(tiles.len());
        for mut t in tiles {
            t.army = id.to_string();
            let key = t.full_id();
            if self.by_name.contains_key(&key) {
                return Err(CatalogError::DuplicateTile(key));
            }
            let r = TileRef(u16::try_from(self.tiles.len()).map_err(|_| CatalogError::Full)?);
            self.by_name.insert(key, r);
            let traits = Traits::of(&t);
            self.hooks = self.hooks.union(traits.hooks);
            self.traits.push(traits);
            self.tiles.push(t);
            refs.push(r);
        }
        let parts = refs
            .iter()
            .map(|&r| self.resolve_parts(id, r))
            .collect::<Result<Vec<_>, _>>();
        let parts = match parts {
            Ok(p) => p,
            Err(e) => {
                // Nothing of the army stays: the catalog is as it was.
                for &r in &refs {
                    self.by_name.remove(&self.tiles[r.index()].full_id());
                }
                let first = refs[0].index();
                self.tiles.truncate(first);
                self.traits.truncate(first);
                self.hooks = self
                    .traits
                    .iter()
                    .fold(HookPoints::NONE, |h, t| h.union(t.hooks));
                return Err(e);
            }
        };
        self.parts.extend(parts);
        self.armies.push(Army {
            id: id.to_string(),
            name: name.to_string(),
            size,
            tiles: refs,
        });
        Ok(())
    }

    /// The parts of the tile `r` of army `army`, looked up by id: each a soldier or module of the
    /// army with no `[tile.linked]` of its own.
    fn resolve_parts(&self, army: &str, r: TileRef) -> Result<Vec<TileRef>, CatalogError> {
        let Some(a) = &self.tiles[r.index()].linked else {
            return Ok(Vec::new());
        };
        a.parts
            .iter()
            .map(|p| {
                self.by_name
                    .get(&format!("{army}/{}", p.tile))
                    .copied()
                    .filter(|&t| {
                        let def = &self.tiles[t.index()];
                        def.kind.is_board_tile() && !def.is_hq() && def.linked.is_none()
                    })
                    .ok_or_else(|| CatalogError::BadPart {
                        tile: self.tiles[r.index()].full_id(),
                        part: p.tile.clone(),
                    })
            })
            .collect()
    }

    /// What `[tile.linked]` of the tile `r` declares, with its parts' tiles in part order.
    #[inline]
    pub fn assembly(&self, r: TileRef) -> Option<(&Assembly, &[TileRef])> {
        self.tiles[r.index()]
            .linked
            .as_deref()
            .map(|a| (a, self.parts[r.index()].as_slice()))
    }

    /// The definition a reference points to; panics for a reference from another catalog.
    #[inline]
    pub fn get(&self, r: TileRef) -> &Tile {
        &self.tiles[r.index()]
    }

    /// The per-tile facts the engine's inner loops need, worked out once when the tile was added.
    #[inline]
    pub fn traits(&self, r: TileRef) -> Traits {
        self.traits[r.index()]
    }

    /// Looks a tile up by `army/tile`.
    pub fn find(&self, full_id: &str) -> Option<TileRef> {
        self.by_name.get(full_id).copied()
    }

    /// Lets a binding step (the scripting layer) complete the definitions: the hook points of
    /// abilities and the effects their scripts give. The per-tile traits are worked out again.
    pub fn edit_tiles(&mut self, mut f: impl FnMut(TileRef, &mut Tile)) {
        self.hooks = HookPoints::NONE;
        for (i, t) in self.tiles.iter_mut().enumerate() {
            f(TileRef(i as u16), t);
            self.traits[i] = Traits::of(t);
            self.hooks = self.hooks.union(self.traits[i].hooks);
        }
    }

    /// The hook points of all the catalog's abilities together: what a game may ever call.
    pub fn hook_points(&self) -> HookPoints {
        self.hooks
    }

    /// The army with this id, if the catalog holds it.
    pub fn army(&self, id: &str) -> Option<&Army> {
        self.armies.iter().find(|a| a.id == id)
    }

    /// Every army, in the order they were added.
    pub fn armies(&self) -> &[Army] {
        &self.armies
    }

    /// Every tile's full id (`army/tile`), army by army in the order they were added: the names
    /// an unknown tile's message suggests from.
    pub fn full_ids(&self) -> Vec<String> {
        self.armies
            .iter()
            .flat_map(|a| a.tiles.iter().map(|t| self.get(*t).full_id()))
            .collect()
    }

    /// The army's HQ tile; `None` for an army the catalog lacks or one without an HQ.
    pub fn hq_of(&self, army: &str) -> Option<TileRef> {
        self.army(army)?
            .tiles
            .iter()
            .copied()
            .find(|t| self.get(*t).is_hq())
    }

    /// How many tile definitions the catalog holds, over all armies.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// The reference of the `i`-th tile definition, if there is one.
    pub fn tile_ref(&self, i: usize) -> Option<TileRef> {
        (i < self.tiles.len()).then_some(TileRef(i as u16))
    }

    /// Whether the catalog holds no tile at all.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// Adds a rule option a mod declares; a key already declared is refused and the first
    /// declaration kept (the error gives the mod that declared it).
    pub fn declare_option(&mut self, key: &str, option: DeclaredOption) -> Result<(), String> {
        match self.options.get(key) {
            Some(first) => Err(first.declared_by.clone()),
            None => {
                self.options.insert(key.to_string(), option);
                Ok(())
            }
        }
    }

    /// The rule options the loaded mods declare, by key.
    pub fn options(&self) -> &BTreeMap<String, DeclaredOption> {
        &self.options
    }

    /// Adds a mod's implication of declared options on engine keys; later ones are applied after
    /// earlier ones ([`crate::Rules::imply`]).
    pub fn add_implication(&mut self, implication: Implication) {
        self.implications.push(implication);
    }

    /// The implications of declared options on engine keys, in the order they were added.
    pub fn implications(&self) -> &[Implication] {
        &self.implications
    }

    /// The game rules the loaded mods' scripts define, in load order (at most
    /// [`Catalog::MAX_GAME_RULES`]).
    pub fn game_rules(&self) -> &[GameRule] {
        &self.game_rules
    }

    /// The most game rules a catalog holds: a game keeps those in play as a 64-bit set.
    pub const MAX_GAME_RULES: usize = 64;

    /// Sets the game rules (the script host's binding does); those beyond
    /// [`Catalog::MAX_GAME_RULES`] are returned, not kept.
    pub fn set_game_rules(&mut self, mut rules: Vec<GameRule>) -> Vec<GameRule> {
        let over = rules.split_off(rules.len().min(Self::MAX_GAME_RULES));
        self.game_rules = rules;
        over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initiative_values_are_kept_highest_first() {
        let i = Initiative::new(&[2, 3]).expect("two values");
        assert_eq!(i.values(), &[3, 2]);
        assert!(Initiative::new(&[1, 2, 3, 4, 5]).is_none());
    }

    #[test]
    fn catalog_finds_tiles_by_full_id_and_refuses_duplicates() {
        let mut c = Catalog::new();
        let hq = Tile::new("x", "hq", TileKind::Hq);
        c.add_army("x", "X", 35, vec![hq.clone()])
            .expect("first army");
        assert_eq!(
            c.find("x/hq").map(|r| c.get(r).id.clone()),
            Some("hq".into())
        );
        assert_eq!(c.hq_of("x"), c.find("x/hq"));
        assert_eq!(
            c.add_army("x", "X again", 35, vec![hq]),
            Err(CatalogError::DuplicateArmy("x".into()))
        );
    }

    #[test]
    fn a_deck_that_is_not_its_size_is_a_mismatch_r1_1() {
        assert_eq!(deck_mismatch([1, 17, 6, 11], 35), None);
        assert_eq!(deck_mismatch([1, 17, 6, 10], 35), Some(34));
        assert_eq!(deck_mismatch([1, 3], 3), Some(4));
    }
}
