//! Rule options: every option key of the editions as one typed struct, with the edition presets.
//!
//! A match or scenario starts from a preset (`classic`, `v3`, `v2025`) and overrides keys by name.
//! Keys that only change how things look (`hq_tracker`, `initiative_markers`) are kept so that
//! files using them stay valid. Options that only an army's abilities read are declared by that
//! army's mod ([`crate::tile::DeclaredOption`]) and kept in [`Rules::options`].

use crate::tile::{DeclaredOption, Implication, ParamValue};
use std::collections::BTreeMap;
use std::fmt;

macro_rules! option_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum $name { $($(#[$vm])* $variant),+ }

        impl $name {
            /// Every value's spelling in rule files, in declaration order; errors list them.
            pub const VALUES: &'static [&'static str] = &[$($text),+];

            /// The value rule files spell `s`; `None` for a spelling not in [`Self::VALUES`].
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$variant),)+ _ => None }
            }

            /// The spelling rule files use for this value; [`Self::parse`] reads it back.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

option_enum!(
    /// The edition a rule set starts from (R0.2).
    Preset {
        /// The first edition's rules.
        Classic = "classic",
        /// The 3.0 edition's rules; the default.
        V3 = "v3",
        /// The 2025 edition's rules.
        V2025 = "v2025",
    }
);
option_enum!(
    /// `first_player_rule`: how the player who starts the game is picked (R2.2).
    FirstPlayer {
        /// Drawn by the game's seeded generator (against a team, the lone player starts).
        Random = "random",
        /// The players agree; the engine keeps the seats' order.
        Choice = "choice",
    }
);
option_enum!(
    /// `tie_breaker`: what equal HP after the Final Battle leads to (R2.9.5).
    TieBreaker {
        /// The game is a draw at once.
        Draw = "draw",
        /// Every player plays one more turn, then one more battle decides.
        ExtraTurnThenBattle = "extra_turn_then_battle",
    }
);
option_enum!(
    /// `battle_turn_end`: whether a battle's turn ends before or after the battle.
    BattleTurnEnd {
        /// The turn ends once the battle is over.
        AfterBattle = "after_battle",
        /// The turn ends as the battle starts.
        AtStart = "at_start",
    }
);
option_enum!(
    /// `battle_loop_guard`: what stops full-board battles that keep repeating (Q7).
    BattleLoopGuard {
        /// No guard beyond the engine's fixed cap on repeats.
        None = "none",
        /// A full-board battle that removes no unit ends the game in a draw (R9.5.3).
        NoRemovalDraw = "no_removal_draw",
        /// A repeated battle that leaves the board as it was ends the game in a draw.
        DrawIfNoChange = "draw_if_no_change",
        /// Repeats stop after `battle_loop_limit` battles and the game goes on.
        StopAfterN = "stop_after_n",
    }
);
option_enum!(
    /// `move_tile_target`: whose units a Move instant may move (R5.2).
    MoveTarget {
        /// Any player's units, allies' as far as `team_instants_on_allies` allows.
        Any = "any",
        /// Only the player's own units.
        Own = "own",
    }
);
option_enum!(
    /// R6.1.6: which rings of netters free their members.
    NetCycleRule {
        /// Only two netters netting each other free each other.
        PairsOnly = "pairs_only",
        /// Pairs and rings of three netters.
        PairsAnd3Cycles = "pairs_and_3_cycles",
        /// Every ring of netters, whatever its length.
        PairsAndAllCycles = "pairs_and_all_cycles",
    }
);
option_enum!(
    /// `mobility_timing`: when in a turn a unit may use its Mobility (R3.13).
    MobilityTiming {
        /// At any point of the player's own turn (classic).
        DuringTurn = "during_turn",
        /// Before or after placing: Mobility used after a tile closes tile play for the turn (3.0).
        BeforeOrAfterPlacing = "before_or_after_placing",
        /// At any moment of the player's own turn, between any two plays (2025).
        AnyTime = "any_time",
    }
);
option_enum!(
    /// `hijack_scope`: which enemy tiles a hijacking module may take over (R7.1.3).
    HijackScope {
        /// Only modules.
        ModulesOnly = "modules_only",
        /// Any tile that gives effects to others, units included.
        AnyBonusGivingUnit = "any_bonus_giving_unit",
    }
);
option_enum!(
    /// `medic_absorbs`: how much a Medic takes off the unit it saves (R4.8).
    MedicAbsorbs {
        /// Every wound of one attack on the saved unit.
        OneAttack = "one_attack",
        /// All one enemy unit deals it this phase: as `one_attack`, one edge reaching a target.
        OneEnemy = "one_enemy",
    }
);
option_enum!(
    /// `convert_attack_limit`: how often a converting module changes an attack's kind (R7.4.3).
    ConvertLimit {
        /// Each connected unit may have one attack converted per battle (3.0).
        OnePerUnitPerBattle = "one_per_unit_per_battle",
        /// Each phase, one attack of any connected unit, melee or ranged (classic).
        OnePerPhaseAnyConnectedUnit = "one_per_phase_any_connected_unit",
    }
);
option_enum!(
    /// `hq_tracker`: how HQ hit points are shown at the table; only presentation changes.
    HqTracker {
        /// A dial on the HQ tile.
        Dial = "dial",
        /// A track beside the board.
        Track = "track",
        /// A marker on a scoring track.
        Marker = "marker",
    }
);
option_enum!(
    /// `one_vs_team_compare`: how a team's HP is counted against the lone player's (R8.4.5).
    OneVsTeamCompare {
        /// The team counts its best HQ.
        BestTeamHq = "best_team_hq",
        /// The team counts the sum of its HQs.
        Sum = "sum",
    }
);
option_enum!(
    /// `team_ally_module_scope`: which of a module's effects reach an ally's units (R8.5).
    AllyModuleScope {
        /// Only the module's bonuses to connected units.
        BonusesOnly = "bonuses_only",
        /// Bonuses and the module's global effects.
        BonusesAndGlobal = "bonuses_and_global",
    }
);
option_enum!(
    /// `team_instants_on_allies`: which instants a player may use on an ally's units (R5.8).
    InstantsOnAllies {
        /// No Move or Push on an ally's units.
        ForbidMovePush = "forbid_move_push",
        /// No instant on an ally's units at all.
        ForbidAll = "forbid_all",
        /// An ally's units may be moved (whatever `move_tile_target` says), not pushed (R10.5.3).
        AllowMoveForbidPush = "ma_allow_move_forbid_push",
    }
);
option_enum!(
    /// `ally_attack_rule`: whether tiles marked to attack allies do so in team games (R8.5.7).
    AllyAttackRule {
        /// They attack and net allies.
        Mandatory = "mandatory",
        /// The players may keep the exception; the engine plays it as on.
        Optional = "optional",
        /// They treat allies as friends.
        Off = "off",
    }
);
option_enum!(
    /// `destroyed_hq_removal`: when a fallen HQ and its player's tiles leave, with 3-4 players.
    DestroyedHqRemoval {
        /// The HQ at the end of the phase it falls; its player's other tiles after the battle.
        HqEndOfPhaseRestAfterBattle = "hq_end_of_phase_rest_after_battle",
        /// The HQ with its player's tiles after the battle (in a duel it leaves at once, Q16).
        AllAfterBattle = "all_after_battle",
    }
);
option_enum!(
    /// `ffa3_tie_procedure`: how a three-player free for all breaks equal HP (R8.2.5).
    Ffa3Tie {
        /// The ordinary tie-breaker applies.
        None = "none",
        /// Only the tied play extra turns, then a battle; wins may be shared (not played yet).
        ExtraTurnsThenBattleShare = "extra_turns_then_battle_share",
    }
);
option_enum!(
    /// `extra_discards`: what discarding more than the one compulsory tile costs in a turn.
    ExtraDiscards {
        /// Any number of held tiles may be discarded (R2.5.3).
        Free = "free",
        /// Each counts against `tiles_per_turn`, as a tile played does (R9.2.2).
        Counted = "counted",
        /// None: every tile neither played nor discarded first is kept (R9.2.1, R9.2.3).
        None = "none",
    }
);
option_enum!(
    /// `extended_board_trigger`: what a full centre of the extended board starts.
    ExtendedTrigger {
        /// The Final Battle instead of an ordinary one.
        FinalBattle = "final_battle",
        /// An ordinary battle, as a full standard board does.
        Battle = "battle",
    }
);

/// A complete rule set. Build one with [`Rules::preset`] and change keys with [`Rules::set`].
#[derive(Clone, PartialEq, Debug)]
pub struct Rules {
    /// The edition these rules started from; the keys set since may differ from it.
    pub preset: Preset,
    /// Starting HQ hit points in a duel or free for all (R2.10).
    pub hq_hp: u16,
    /// Whether an HQ's attacks damage an enemy HQ (R3.5.5); if not, its shot stops at that HQ.
    pub hq_can_damage_hq: bool,
    /// How the first player is picked (R2.2).
    pub first_player_rule: FirstPlayer,
    /// Whether a hand of only instants is redrawn (R2.6).
    pub bad_draw_rule: bool,
    /// Names of the armies the bad-draw redraw never applies to.
    pub bad_draw_exempt_armies: Vec<String>,
    /// What equal HP after the Final Battle leads to (R2.9.5).
    pub tie_breaker: TieBreaker,
    /// Whether a battle's turn ends before or after the battle.
    pub battle_turn_end: BattleTurnEnd,
    /// Whether battles repeat while the play area stays full after one (R4.13).
    pub repeat_battle_while_full: bool,
    /// What stops repeated full-board battles that change nothing (Q7).
    pub battle_loop_guard: BattleLoopGuard,
    /// The N of `battle_loop_guard = stop_after_n`.
    pub battle_loop_limit: u16,
    /// Whose units a Move instant may move (R5.2).
    pub move_tile_target: MoveTarget,
    /// Whether a player whose HQ is netted may not throw a Grenade.
    pub grenade_blocked_if_hq_netted: bool,
    /// Which rings of netters free each other (R6.1.6).
    pub net_cycle_rule: NetCycleRule,
    /// Whether a netted tile keeps armor and toughness; if not, its first wound destroys it.
    pub netted_keeps_armor_toughness: bool,
    /// Whether Transports' Mobility stacks; kept for rule files (units move once a turn anyway).
    pub transport_stacks: bool,
    /// When in a turn a unit may use Mobility (R3.13).
    pub mobility_timing: MobilityTiming,
    /// Which enemy tiles a hijacking module may take over (R7.1.3).
    pub hijack_scope: HijackScope,
    /// How much one Medic absorbs for the unit it saves (R4.8).
    pub medic_absorbs: MedicAbsorbs,
    /// How often a converting module turns an attack melee to ranged or back (R7.4.3).
    pub convert_attack_limit: ConvertLimit,
    /// Whether initiative markers are used at the table; only presentation changes.
    pub initiative_markers: bool,
    /// How HQ hit points are tracked at the table; only presentation changes.
    pub hq_tracker: HqTracker,
    /// Starting HQ hit points of each player in a game of two teams of two (R8.5.1).
    pub team_hq_hp: u16,
    /// Starting HQ HP against a team of two: `[lone player, each team member]` (R8.4.1).
    pub one_vs_team_hq_hp: [u16; 2],
    /// How the team's HP is counted against the lone player's after the Final Battle (R8.4.5).
    pub one_vs_team_compare: OneVsTeamCompare,
    /// Which of a module's effects reach allied units (R8.5.5a).
    pub team_ally_module_scope: AllyModuleScope,
    /// Which instants may target an ally's units (R5.8).
    pub team_instants_on_allies: InstantsOnAllies,
    /// Whether tiles marked to attack allies attack and net them in team games (R8.5.7).
    pub ally_attack_rule: AllyAttackRule,
    /// When a destroyed HQ and its player's tiles leave the board with 3-4 players.
    pub destroyed_hq_removal: DestroyedHqRemoval,
    /// Whether a 4-player game ends at the first HQ lost, the healthiest survivor winning.
    pub hq_loss_ends_game_4p: bool,
    /// How a three-player free for all breaks equal HP (R8.2.5).
    pub ffa3_tie_procedure: Ffa3Tie,
    /// Whether the game is played on the extended 37-hex board instead of the standard 19 hexes.
    pub extended_board: bool,
    /// What a full centre of the extended board starts.
    pub extended_board_trigger: ExtendedTrigger,
    /// Whether hands are drawn full from the first turn, which then plays at most one tile
    /// (R9.1; with a hand of 6, the opening of R9.2.3).
    pub alternative_start: bool,
    /// The most tiles a player holds, [`Rules::HAND_SIZES`]: 3 (R2.5.1), 6 in the variant of
    /// R9.2. A player holding that many after drawing discards one first (R2.5.2).
    pub hand_size: u8,
    /// The most tiles a player plays in a turn (placed or instants), 1 to 6; 0 for no limit
    /// beyond the hand (R9.2.1: at most 2).
    pub tiles_per_turn: u8,
    /// What discarding more than the one compulsory tile costs (R2.5.3, R9.2).
    pub extra_discards: ExtraDiscards,
    /// Whether the bad-draw redraw needs a full hand of instants, not only an all-instant one
    /// (R9.2.2).
    pub bad_draw_full_hand: bool,
    /// The values of the rule options mods declare ([`DeclaredOption`]) set for this match, by
    /// key; a declared key missing here has its preset's value ([`Rules::option`]).
    pub options: RuleOptions,
}

/// The values of mods' rule options in a [`Rules`]: a map from key to value (it derefs to a
/// `BTreeMap`, and to a mutable one), shared between copies of the rules until one of them
/// changes it, so comparing a copy with its original does not compare every key.
#[derive(Clone, Debug, Default)]
pub struct RuleOptions(std::sync::Arc<BTreeMap<String, ParamValue>>);

impl PartialEq for RuleOptions {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl std::ops::Deref for RuleOptions {
    type Target = BTreeMap<String, ParamValue>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for RuleOptions {
    /// The map, made this copy's own first if another copy shares it.
    fn deref_mut(&mut self) -> &mut Self::Target {
        std::sync::Arc::make_mut(&mut self.0)
    }
}

impl From<BTreeMap<String, ParamValue>> for RuleOptions {
    fn from(map: BTreeMap<String, ParamValue>) -> Self {
        RuleOptions(std::sync::Arc::new(map))
    }
}

impl FromIterator<(String, ParamValue)> for RuleOptions {
    fn from_iter<I: IntoIterator<Item = (String, ParamValue)>>(iter: I) -> Self {
        RuleOptions::from(iter.into_iter().collect::<BTreeMap<_, _>>())
    }
}

/// What values an engine key takes ([`KeyInfo`]), for the shells that show or change it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// On or off.
    Bool,
    /// A whole number from `min` to `max`.
    Number {
        /// The smallest value accepted.
        min: u16,
        /// The largest value accepted.
        max: u16,
    },
    /// One of the names listed.
    Choice(&'static [&'static str]),
    /// A list of names.
    Names,
    /// Two whole numbers.
    Pair,
}

/// What one engine key is: the values it takes, the rule it follows and a line saying what it
/// changes ([`Rules::key_info`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyInfo {
    /// The values it takes.
    pub kind: KeyKind,
    /// The rule it follows (`R8.5.7`), or a question of docs/DECISIONS.md (`Q7`); may be empty.
    pub rule: &'static str,
    /// One line saying what it changes.
    pub doc: &'static str,
}

/// A rule option that could not be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// The key is not one of [`Rules::KEYS`], nor one the loaded mods declare.
    UnknownKey {
        /// The key as written.
        key: String,
        /// The keys the loaded mods declare, each with the mod that declares it, by key.
        declared: Vec<(String, String)>,
    },
    /// The key is known but the value does not fit it.
    BadValue {
        /// The key whose value was refused.
        key: String,
        /// What the key accepts, worded for the message (the allowed choices, a number, on/off).
        expected: String,
        /// The value given, as written.
        found: String,
    },
    /// The key was an option once and has been removed; files that still set it are refused.
    Removed {
        /// The key as written.
        key: String,
        /// Why it was removed, citing the rules, and what to do instead.
        why: &'static str,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::UnknownKey { key, declared } => {
                write!(
                    f,
                    "unknown rule option `{key}`{}: use a known rule option key: the engine's {}",
                    crate::names::did_you_mean(
                        key,
                        Rules::KEYS
                            .iter()
                            .copied()
                            .chain(declared.iter().map(|(k, _)| k.as_str()))
                    ),
                    Rules::KEYS.join(", ")
                )?;
                if !declared.is_empty() {
                    let by_mod: Vec<String> = declared
                        .iter()
                        .map(|(k, m)| format!("{k} (mod {m})"))
                        .collect();
                    write!(f, "; declared by mods: {}", by_mod.join(", "))?;
                }
                Ok(())
            }
            OptionError::BadValue {
                key,
                expected,
                found,
            } => {
                write!(f, "rule option `{key}` expects {expected}, found {found}")?;
                // A misspelt choice: the closest of the choices `expected` lists.
                if let Some(choices) = expected.strip_prefix("one of ") {
                    let found = found.trim_matches('"');
                    write!(
                        f,
                        "{}",
                        crate::names::did_you_mean(found, choices.split(" | "))
                    )?;
                }
                Ok(())
            }
            OptionError::Removed { key, why } => {
                write!(f, "rule option `{key}` was removed: {why}")
            }
        }
    }
}

impl std::error::Error for OptionError {}

/// Why `netted_can_push` is no longer an option: no edition lets a netted unit push.
const NETTED_CAN_PUSH_REMOVED: &str =
    "a netted unit never pushes, in every edition (R3.11.1, R5.3.6, R6.1.3): remove the option";

impl Rules {
    /// The rules of an edition, with the defaults of docs/DECISIONS.md where an edition is silent.
    pub fn preset(p: Preset) -> Self {
        let v3 = Rules {
            preset: Preset::V3,
            hq_hp: 20,
            hq_can_damage_hq: false,
            first_player_rule: FirstPlayer::Random,
            bad_draw_rule: true,
            bad_draw_exempt_armies: Vec::new(),
            tie_breaker: TieBreaker::ExtraTurnThenBattle,
            battle_turn_end: BattleTurnEnd::AfterBattle,
            repeat_battle_while_full: false,
            battle_loop_guard: BattleLoopGuard::DrawIfNoChange,
            battle_loop_limit: 10,
            move_tile_target: MoveTarget::Own,
            grenade_blocked_if_hq_netted: true,
            net_cycle_rule: NetCycleRule::PairsAnd3Cycles,
            netted_keeps_armor_toughness: true,
            transport_stacks: true,
            mobility_timing: MobilityTiming::BeforeOrAfterPlacing,
            hijack_scope: HijackScope::ModulesOnly,
            medic_absorbs: MedicAbsorbs::OneAttack,
            convert_attack_limit: ConvertLimit::OnePerUnitPerBattle,
            initiative_markers: false,
            hq_tracker: HqTracker::Dial,
            team_hq_hp: 15,
            one_vs_team_hq_hp: [20, 13],
            one_vs_team_compare: OneVsTeamCompare::BestTeamHq,
            team_ally_module_scope: AllyModuleScope::BonusesOnly,
            team_instants_on_allies: InstantsOnAllies::ForbidMovePush,
            ally_attack_rule: AllyAttackRule::Mandatory,
            destroyed_hq_removal: DestroyedHqRemoval::AllAfterBattle,
            hq_loss_ends_game_4p: false,
            ffa3_tie_procedure: Ffa3Tie::None,
            extended_board: false,
            extended_board_trigger: ExtendedTrigger::Battle,
            alternative_start: false,
            hand_size: 3,
            tiles_per_turn: 0,
            extra_discards: ExtraDiscards::Free,
            bad_draw_full_hand: false,
            options: RuleOptions::default(),
        };
        match p {
            Preset::V3 => v3,
            Preset::Classic => Rules {
                preset: Preset::Classic,
                bad_draw_rule: false,
                tie_breaker: TieBreaker::Draw,
                grenade_blocked_if_hq_netted: false,
                net_cycle_rule: NetCycleRule::PairsOnly,
                mobility_timing: MobilityTiming::DuringTurn,
                hijack_scope: HijackScope::AnyBonusGivingUnit,
                medic_absorbs: MedicAbsorbs::OneEnemy,
                convert_attack_limit: ConvertLimit::OnePerPhaseAnyConnectedUnit,
                hq_tracker: HqTracker::Marker,
                team_hq_hp: 20,
                destroyed_hq_removal: DestroyedHqRemoval::HqEndOfPhaseRestAfterBattle,
                hq_loss_ends_game_4p: true,
                ..v3
            },
            Preset::V2025 => Rules {
                preset: Preset::V2025,
                battle_turn_end: BattleTurnEnd::AtStart,
                repeat_battle_while_full: true,
                net_cycle_rule: NetCycleRule::PairsAndAllCycles,
                transport_stacks: false,
                mobility_timing: MobilityTiming::AnyTime,
                hq_tracker: HqTracker::Track,
                team_hq_hp: 20,
                one_vs_team_compare: OneVsTeamCompare::Sum,
                team_ally_module_scope: AllyModuleScope::BonusesAndGlobal,
                team_instants_on_allies: InstantsOnAllies::ForbidAll,
                ally_attack_rule: AllyAttackRule::Optional,
                ffa3_tie_procedure: Ffa3Tie::ExtraTurnsThenBattleShare,
                ..v3
            },
        }
    }

    /// Every key [`Rules::set`] accepts.
    pub const KEYS: &'static [&'static str] = &[
        "hq_hp",
        "hq_can_damage_hq",
        "first_player_rule",
        "bad_draw_rule",
        "bad_draw_exempt_armies",
        "tie_breaker",
        "battle_turn_end",
        "repeat_battle_while_full",
        "battle_loop_guard",
        "battle_loop_limit",
        "move_tile_target",
        "grenade_blocked_if_hq_netted",
        "net_cycle_rule",
        "netted_keeps_armor_toughness",
        "transport_stacks",
        "mobility_timing",
        "hijack_scope",
        "medic_absorbs",
        "convert_attack_limit",
        "initiative_markers",
        "hq_tracker",
        "team_hq_hp",
        "one_vs_team_hq_hp",
        "one_vs_team_compare",
        "team_ally_module_scope",
        "team_instants_on_allies",
        "ally_attack_rule",
        "destroyed_hq_removal",
        "hq_loss_ends_game_4p",
        "ffa3_tie_procedure",
        "extended_board",
        "extended_board_trigger",
        "alternative_start",
        "hand_size",
        "tiles_per_turn",
        "extra_discards",
        "bad_draw_full_hand",
    ];

    /// The hand sizes `hand_size` takes.
    pub const HAND_SIZES: std::ops::RangeInclusive<u8> = 3..=6;

    /// What the engine key `key` (or a former key, [`Rules::ALIASES`]) takes, the rule it follows
    /// and what it changes; `None` for an unknown key.
    pub fn key_info(key: &str) -> Option<KeyInfo> {
        use KeyKind::{Bool, Choice, Names, Pair};
        const ANY: KeyKind = KeyKind::Number {
            min: 0,
            max: u16::MAX,
        };
        // An HQ starts with one hit point at least: at 0 it would be destroyed before the game.
        const HP: KeyKind = KeyKind::Number {
            min: 1,
            max: u16::MAX,
        };
        let (kind, rule, doc) = match Rules::canonical_key(key) {
            "hq_hp" => (
                HP,
                "R2.10",
                "Starting HQ hit points in a duel or a free for all.",
            ),
            "hq_can_damage_hq" => (
                Bool,
                "R3.5.5",
                "Whether an HQ's attacks damage an enemy HQ; if not, its shot stops at that HQ.",
            ),
            "first_player_rule" => (
                Choice(FirstPlayer::VALUES),
                "R2.2",
                "How the player who starts the game is picked.",
            ),
            "bad_draw_rule" => (Bool, "R2.6", "Whether a hand of only instants is redrawn."),
            "bad_draw_exempt_armies" => (
                Names,
                "R2.6",
                "The armies (by id) whose hands are never redrawn for holding only instants.",
            ),
            "tie_breaker" => (
                Choice(TieBreaker::VALUES),
                "R2.9.5",
                "What equal HP after the Final Battle leads to.",
            ),
            "battle_turn_end" => (
                Choice(BattleTurnEnd::VALUES),
                "R4.2",
                "Whether a battle's turn ends as the battle starts or once it is over.",
            ),
            "repeat_battle_while_full" => (
                Bool,
                "R4.13",
                "Whether battles repeat while the play area stays full after one.",
            ),
            "battle_loop_guard" => (
                Choice(BattleLoopGuard::VALUES),
                "Q7",
                "What stops repeated full-board battles that change nothing.",
            ),
            "battle_loop_limit" => (
                ANY,
                "Q7",
                "How many repeated battles `battle_loop_guard = stop_after_n` allows.",
            ),
            "move_tile_target" => (
                Choice(MoveTarget::VALUES),
                "R5.2",
                "Whose units a Move instant may move.",
            ),
            "grenade_blocked_if_hq_netted" => (
                Bool,
                "R6.1.7",
                "Whether a player whose HQ is netted may not throw a Grenade.",
            ),
            "net_cycle_rule" => (
                Choice(NetCycleRule::VALUES),
                "R6.1.6",
                "Which rings of netters free each other.",
            ),
            "netted_keeps_armor_toughness" => (
                Bool,
                "R3.11.4",
                "Whether a netted tile keeps its armor and toughness; if not, its first wound destroys it.",
            ),
            "transport_stacks" => (
                Bool,
                "R7.4.4",
                "Whether carrying stacks with Mobility; kept for rule files, as units move once a turn.",
            ),
            "mobility_timing" => (
                Choice(MobilityTiming::VALUES),
                "R3.13",
                "When in a turn a unit may use its Mobility.",
            ),
            "hijack_scope" => (
                Choice(HijackScope::VALUES),
                "R7.1.3",
                "Which enemy tiles a hijacking module may take over.",
            ),
            "medic_absorbs" => (
                Choice(MedicAbsorbs::VALUES),
                "R4.8",
                "How much a Medic takes off the unit it saves.",
            ),
            "convert_attack_limit" => (
                Choice(ConvertLimit::VALUES),
                "R7.4.3",
                "How often a converting module turns an attack melee to ranged or back.",
            ),
            "initiative_markers" => (
                Bool,
                "R9.6",
                "Whether initiative markers are used at the table; only presentation changes.",
            ),
            "hq_tracker" => (
                Choice(HqTracker::VALUES),
                "R2.1",
                "How HQ hit points are tracked at the table; only presentation changes.",
            ),
            "team_hq_hp" => (
                HP,
                "R8.5.1",
                "Starting HQ hit points of each player in a game of two teams of two.",
            ),
            "one_vs_team_hq_hp" => (
                Pair,
                "R8.4.1",
                "Starting HQ hit points against a team of two: the lone player's, then each member's.",
            ),
            "one_vs_team_compare" => (
                Choice(OneVsTeamCompare::VALUES),
                "R8.4.5",
                "How a team's HP is counted against the lone player's after the Final Battle.",
            ),
            "team_ally_module_scope" => (
                Choice(AllyModuleScope::VALUES),
                "R8.5.5a",
                "Which of a module's effects reach an ally's units.",
            ),
            "team_instants_on_allies" => (
                Choice(InstantsOnAllies::VALUES),
                "R5.8",
                "Which instants a player may use on an ally's units.",
            ),
            "ally_attack_rule" => (
                Choice(AllyAttackRule::VALUES),
                "R8.5.7",
                "Whether tiles marked to attack allies attack and net them in team games.",
            ),
            "destroyed_hq_removal" => (
                Choice(DestroyedHqRemoval::VALUES),
                "R8.2",
                "When a fallen HQ and its player's tiles leave the board, with 3 or 4 players.",
            ),
            "hq_loss_ends_game_4p" => (
                Bool,
                "R8.6",
                "Whether a 4-player game ends at the first HQ lost, the healthiest survivor winning.",
            ),
            "ffa3_tie_procedure" => (
                Choice(Ffa3Tie::VALUES),
                "R8.2.5",
                "How a three-player free for all breaks equal HP.",
            ),
            "extended_board" => (
                Bool,
                "R8.7",
                "Whether the game is played on the extended 37-hex board instead of the standard 19 hexes.",
            ),
            "extended_board_trigger" => (
                Choice(ExtendedTrigger::VALUES),
                "R8.7",
                "What a full centre of the extended board starts.",
            ),
            "alternative_start" => (
                Bool,
                "R9.1",
                "Whether hands are drawn full from the first turn, which then plays at most one tile.",
            ),
            "hand_size" => (
                KeyKind::Number {
                    min: u16::from(*Rules::HAND_SIZES.start()),
                    max: u16::from(*Rules::HAND_SIZES.end()),
                },
                "R2.5.1",
                "The most tiles a player holds; one holding that many after drawing discards one first.",
            ),
            "tiles_per_turn" => (
                KeyKind::Number { min: 0, max: 6 },
                "R9.2.1",
                "The most tiles a player plays in a turn, placed or instants; 0 for no limit beyond the hand.",
            ),
            "extra_discards" => (
                Choice(ExtraDiscards::VALUES),
                "R2.5.3",
                "What discarding more than the one compulsory tile costs in a turn.",
            ),
            "bad_draw_full_hand" => (
                Bool,
                "R9.2.2",
                "Whether the bad-draw redraw needs a full hand of instants, not only an all-instant one.",
            ),
            _ => return None,
        };
        Some(KeyInfo { kind, rule, doc })
    }

    /// Keys renamed since files were written with them, as (former key, key): every place a key
    /// is read ([`Rules::set`], [`Rules::get`], [`Rules::set_any`], so presets, `--option`,
    /// scenario files and replays) takes the former key as the key it became. Deprecated: files
    /// should use the new key.
    pub const ALIASES: &'static [(&'static str, &'static str)] = &[
        // It named the base army whose tiles attack allies; the rule is any such tile's (R8.5.7).
        ("moloch_team_exception", "ally_attack_rule"),
    ];

    /// `key` as [`Rules::KEYS`] spells it: a former key ([`Rules::ALIASES`]) gives the key it was
    /// renamed to, any other key comes back as it is.
    pub fn canonical_key(key: &str) -> &str {
        Rules::ALIASES
            .iter()
            .find(|(old, _)| *old == key)
            .map_or(key, |(_, new)| new)
    }

    /// Whether `key` is one of the engine's keys or a former one ([`Rules::ALIASES`]).
    pub fn is_key(key: &str) -> bool {
        Rules::KEYS.contains(&Rules::canonical_key(key))
    }

    /// Sets one option by its Appendix B key. On/off keys accept `true`/`false` and `"on"`/`"off"`.
    /// A former key ([`Rules::ALIASES`]) sets the key it was renamed to.
    pub fn set(&mut self, key: &str, value: &ParamValue) -> Result<(), OptionError> {
        let v = Setter { key, value };
        match Rules::canonical_key(key) {
            "hq_hp" => self.hq_hp = v.hit_points()?,
            "hq_can_damage_hq" => self.hq_can_damage_hq = v.flag()?,
            "first_player_rule" => {
                self.first_player_rule = v.choice(FirstPlayer::VALUES, FirstPlayer::parse)?
            }
            "bad_draw_rule" => self.bad_draw_rule = v.flag()?,
            "bad_draw_exempt_armies" => self.bad_draw_exempt_armies = v.strings()?,
            "tie_breaker" => self.tie_breaker = v.choice(TieBreaker::VALUES, TieBreaker::parse)?,
            "battle_turn_end" => {
                self.battle_turn_end = v.choice(BattleTurnEnd::VALUES, BattleTurnEnd::parse)?
            }
            "repeat_battle_while_full" => self.repeat_battle_while_full = v.flag()?,
            "battle_loop_guard" => {
                self.battle_loop_guard =
                    v.choice(BattleLoopGuard::VALUES, BattleLoopGuard::parse)?
            }
            "battle_loop_limit" => self.battle_loop_limit = v.number()?,
            "move_tile_target" => {
                self.move_tile_target = v.choice(MoveTarget::VALUES, MoveTarget::parse)?
            }
            "grenade_blocked_if_hq_netted" => self.grenade_blocked_if_hq_netted = v.flag()?,
            "netted_can_push" => {
                return Err(OptionError::Removed {
                    key: key.to_string(),
                    why: NETTED_CAN_PUSH_REMOVED,
                });
            }
            "net_cycle_rule" => {
                self.net_cycle_rule = v.choice(NetCycleRule::VALUES, NetCycleRule::parse)?
            }
            "netted_keeps_armor_toughness" => self.netted_keeps_armor_toughness = v.flag()?,
            "transport_stacks" => self.transport_stacks = v.flag()?,
            "mobility_timing" => {
                self.mobility_timing = v.choice(MobilityTiming::VALUES, MobilityTiming::parse)?
            }
            "hijack_scope" => {
                self.hijack_scope = v.choice(HijackScope::VALUES, HijackScope::parse)?
            }
            "medic_absorbs" => {
                self.medic_absorbs = v.choice(MedicAbsorbs::VALUES, MedicAbsorbs::parse)?
            }
            "convert_attack_limit" => {
                self.convert_attack_limit = v.choice(ConvertLimit::VALUES, ConvertLimit::parse)?
            }
            "initiative_markers" => self.initiative_markers = v.flag()?,
            "hq_tracker" => self.hq_tracker = v.choice(HqTracker::VALUES, HqTracker::parse)?,
            "team_hq_hp" => self.team_hq_hp = v.hit_points()?,
            "one_vs_team_hq_hp" => {
                let pair = v.pair()?;
                if pair.contains(&0) {
                    return Err(v.bad("two whole numbers from 1 to 65535 (an HQ starts with a hit point at least), e.g. [20, 13]"));
                }
                self.one_vs_team_hq_hp = pair;
            }
            "one_vs_team_compare" => {
                self.one_vs_team_compare =
                    v.choice(OneVsTeamCompare::VALUES, OneVsTeamCompare::parse)?
            }
            "team_ally_module_scope" => {
                self.team_ally_module_scope = match value {
                    ParamValue::Str(s) if s == "bonuses" => AllyModuleScope::BonusesOnly,
                    _ => v.choice(AllyModuleScope::VALUES, AllyModuleScope::parse)?,
                }
            }
            "team_instants_on_allies" => {
                self.team_instants_on_allies =
                    v.choice(InstantsOnAllies::VALUES, InstantsOnAllies::parse)?
            }
            "ally_attack_rule" => {
                self.ally_attack_rule = v.choice(AllyAttackRule::VALUES, AllyAttackRule::parse)?
            }
            "destroyed_hq_removal" => {
                self.destroyed_hq_removal =
                    v.choice(DestroyedHqRemoval::VALUES, DestroyedHqRemoval::parse)?
            }
            "hq_loss_ends_game_4p" => self.hq_loss_ends_game_4p = v.flag()?,
            "ffa3_tie_procedure" => {
                self.ffa3_tie_procedure = v.choice(Ffa3Tie::VALUES, Ffa3Tie::parse)?
            }
            "extended_board" => self.extended_board = v.flag()?,
            "extended_board_trigger" => {
                self.extended_board_trigger =
                    v.choice(ExtendedTrigger::VALUES, ExtendedTrigger::parse)?
            }
            "alternative_start" => self.alternative_start = v.flag()?,
            "hand_size" => self.hand_size = v.within(Rules::HAND_SIZES)?,
            "tiles_per_turn" => {
                self.tiles_per_turn = v
                    .within(0..=6)
                    .map_err(|_| v.bad("a whole number from 1 to 6, or 0 for no limit"))?
            }
            "extra_discards" => {
                self.extra_discards = v.choice(ExtraDiscards::VALUES, ExtraDiscards::parse)?
            }
            "bad_draw_full_hand" => self.bad_draw_full_hand = v.flag()?,
            _ => {
                return Err(OptionError::UnknownKey {
                    key: key.to_string(),
                    declared: Vec::new(),
                });
            }
        }
        Ok(())
    }
}

impl Rules {
    /// The value of the option `key` a mod declares (one of `declared`, the catalog's
    /// [`crate::Catalog::options`]): the value set for this match, else the value of these rules'
    /// preset, else its default; `None` when no loaded mod declares `key`.
    pub fn option(
        &self,
        declared: &BTreeMap<String, DeclaredOption>,
        key: &str,
    ) -> Option<ParamValue> {
        let d = declared.get(key)?;
        Some(
            self.options
                .get(key)
                .unwrap_or_else(|| d.value_for(self.preset.as_str()))
                .clone(),
        )
    }

    /// Gives every option of `declared` its value under the preset `preset` (a built-in
    /// edition or a mod's preset id): the preset's own value, else the default.
    pub fn start_options(&mut self, declared: &BTreeMap<String, DeclaredOption>, preset: &str) {
        self.options = declared
            .iter()
            .map(|(k, d)| (k.clone(), d.value_for(preset).clone()))
            .collect();
    }

    /// Applies the mods' implications (`implications`, the catalog's
    /// [`crate::Catalog::implications`]) once the preset and the table's overrides are set: each
    /// whose `when` the declared options' values meet (read as [`Rules::option`] does) sets its
    /// engine keys, in order (a later one wins), except the keys in `explicit`, which the table
    /// set itself and which keep their value. Every way a match's rules are built calls this
    /// last, so that the precedence is the same everywhere: default, preset, implied, explicit.
    /// Returns each key set with the index of the implication that set it last, in key order.
    pub fn imply(
        &mut self,
        declared: &BTreeMap<String, DeclaredOption>,
        implications: &[Implication],
        explicit: &[&str],
    ) -> Result<Vec<(String, usize)>, OptionError> {
        let mut set: BTreeMap<String, usize> = BTreeMap::new();
        // The conditions are read before any key is set: engine keys never enter a `when`.
        let met: Vec<bool> = implications
            .iter()
            .map(|i| {
                i.when
                    .iter()
                    .all(|(k, v)| self.option(declared, k).as_ref() == Some(v))
            })
            .collect();
        for (n, i) in implications.iter().enumerate() {
            if !met[n] {
                continue;
            }
            for (key, value) in &i.rules {
                if explicit.contains(&key.as_str()) {
                    continue;
                }
                self.set(key, value)?;
                set.insert(key.clone(), n);
            }
        }
        Ok(set.into_iter().collect())
    }

    /// Sets one option: an engine key as [`Rules::set`] does, else a key of `declared` (the
    /// options mods declare), checked against what it accepts. An unknown key's error lists the
    /// engine's keys and the declared ones with their mods.
    pub fn set_any(
        &mut self,
        declared: &BTreeMap<String, DeclaredOption>,
        key: &str,
        value: &ParamValue,
    ) -> Result<(), OptionError> {
        match self.set(key, value) {
            Err(OptionError::UnknownKey { .. }) => {}
            done => return done,
        }
        let Some(d) = declared.get(key) else {
            return Err(OptionError::UnknownKey {
                key: key.to_string(),
                declared: declared
                    .iter()
                    .map(|(k, d)| (k.clone(), d.declared_by.clone()))
                    .collect(),
            });
        };
        match d.kind.accept(value) {
            Some(v) => {
                self.options.insert(key.to_string(), v);
                Ok(())
            }
            None => Err(OptionError::BadValue {
                key: key.to_string(),
                expected: d.kind.expected(),
                found: value.to_string(),
            }),
        }
    }

    /// The value of one option by its Appendix B key, as [`Rules::set`] accepts it (choices as
    /// their names, on/off keys as booleans); `None` for an unknown key. A former key
    /// ([`Rules::ALIASES`]) reads the key it was renamed to.
    pub fn get(&self, key: &str) -> Option<ParamValue> {
        use ParamValue::{Bool, Int, List, Str};
        let s = |v: &str| Some(Str(v.to_string()));
        let n = |v: u16| Some(Int(i64::from(v)));
        match Rules::canonical_key(key) {
            "hq_hp" => n(self.hq_hp),
            "hq_can_damage_hq" => Some(Bool(self.hq_can_damage_hq)),
            "first_player_rule" => s(self.first_player_rule.as_str()),
            "bad_draw_rule" => Some(Bool(self.bad_draw_rule)),
            "bad_draw_exempt_armies" => Some(List(
                self.bad_draw_exempt_armies
                    .iter()
                    .map(|a| Str(a.clone()))
                    .collect(),
            )),
            "tie_breaker" => s(self.tie_breaker.as_str()),
            "battle_turn_end" => s(self.battle_turn_end.as_str()),
            "repeat_battle_while_full" => Some(Bool(self.repeat_battle_while_full)),
            "battle_loop_guard" => s(self.battle_loop_guard.as_str()),
            "battle_loop_limit" => n(self.battle_loop_limit),
            "move_tile_target" => s(self.move_tile_target.as_str()),
            "grenade_blocked_if_hq_netted" => Some(Bool(self.grenade_blocked_if_hq_netted)),
            "net_cycle_rule" => s(self.net_cycle_rule.as_str()),
            "netted_keeps_armor_toughness" => Some(Bool(self.netted_keeps_armor_toughness)),
            "transport_stacks" => Some(Bool(self.transport_stacks)),
            "mobility_timing" => s(self.mobility_timing.as_str()),
            "hijack_scope" => s(self.hijack_scope.as_str()),
            "medic_absorbs" => s(self.medic_absorbs.as_str()),
            "convert_attack_limit" => s(self.convert_attack_limit.as_str()),
            "initiative_markers" => Some(Bool(self.initiative_markers)),
            "hq_tracker" => s(self.hq_tracker.as_str()),
            "team_hq_hp" => n(self.team_hq_hp),
            "one_vs_team_hq_hp" => Some(List(
                self.one_vs_team_hq_hp
                    .iter()
                    .map(|v| Int(i64::from(*v)))
                    .collect(),
            )),
            "one_vs_team_compare" => s(self.one_vs_team_compare.as_str()),
            "team_ally_module_scope" => s(self.team_ally_module_scope.as_str()),
            "team_instants_on_allies" => s(self.team_instants_on_allies.as_str()),
            "ally_attack_rule" => s(self.ally_attack_rule.as_str()),
            "destroyed_hq_removal" => s(self.destroyed_hq_removal.as_str()),
            "hq_loss_ends_game_4p" => Some(Bool(self.hq_loss_ends_game_4p)),
            "ffa3_tie_procedure" => s(self.ffa3_tie_procedure.as_str()),
            "extended_board" => Some(Bool(self.extended_board)),
            "extended_board_trigger" => s(self.extended_board_trigger.as_str()),
            "alternative_start" => Some(Bool(self.alternative_start)),
            "hand_size" => n(u16::from(self.hand_size)),
            "tiles_per_turn" => n(u16::from(self.tiles_per_turn)),
            "extra_discards" => s(self.extra_discards.as_str()),
            "bad_draw_full_hand" => Some(Bool(self.bad_draw_full_hand)),
            _ => None,
        }
    }

    /// Starting HQ HP of each player, from the players' teams (`teams[i]` = team of player i):
    /// two teams of two use `team_hq_hp` (R8.5.1); one player against a team of two uses
    /// `one_vs_team_hq_hp` (R8.4.1); every other game `hq_hp` (R2.10).
    pub fn starting_hq_hp(&self, teams: &[u8]) -> Vec<u16> {
        let size = |t: u8| teams.iter().filter(|x| **x == t).count();
        let two_vs_two = teams.len() == 4 && teams.iter().all(|t| size(*t) == 2);
        let one_vs_two = teams.len() == 3 && teams.iter().any(|t| size(*t) == 2);
        teams
            .iter()
            .map(|t| match size(*t) {
                2 if two_vs_two => self.team_hq_hp,
                2 if one_vs_two => self.one_vs_team_hq_hp[1],
                1 if one_vs_two => self.one_vs_team_hq_hp[0],
                _ => self.hq_hp,
            })
            .collect()
    }
}

impl Default for Rules {
    fn default() -> Self {
        Rules::preset(Preset::V3)
    }
}

struct Setter<'a> {
    key: &'a str,
    value: &'a ParamValue,
}

impl Setter<'_> {
    fn bad(&self, expected: impl Into<String>) -> OptionError {
        OptionError::BadValue {
            key: self.key.to_string(),
            expected: expected.into(),
            found: self.value.to_string(),
        }
    }

    fn flag(&self) -> Result<bool, OptionError> {
        match self.value {
            ParamValue::Bool(b) => Ok(*b),
            ParamValue::Str(s) if s == "on" => Ok(true),
            ParamValue::Str(s) if s == "off" => Ok(false),
            _ => Err(self.bad("true/false (or \"on\"/\"off\")")),
        }
    }

    fn number(&self) -> Result<u16, OptionError> {
        match self.value {
            ParamValue::Int(i) => {
                u16::try_from(*i).map_err(|_| self.bad("a whole number from 0 to 65535"))
            }
            _ => Err(self.bad("a whole number")),
        }
    }

    /// An HQ's starting hit points: a whole number from 1 (at 0 it would be destroyed before
    /// the game) to 65535.
    fn hit_points(&self) -> Result<u16, OptionError> {
        match self.value {
            ParamValue::Int(i) => u16::try_from(*i).ok().filter(|hp| *hp >= 1).ok_or_else(|| {
                self.bad("a whole number from 1 to 65535 (an HQ starts with a hit point at least)")
            }),
            _ => Err(self.bad("a whole number from 1 to 65535")),
        }
    }

    /// A whole number within `range`.
    fn within(&self, range: std::ops::RangeInclusive<u8>) -> Result<u8, OptionError> {
        match self.value {
            ParamValue::Int(i) => u8::try_from(*i)
                .ok()
                .filter(|k| range.contains(k))
                .ok_or_else(|| {
                    self.bad(format!(
                        "a whole number from {} to {}",
                        range.start(),
                        range.end()
                    ))
                }),
            _ => Err(self.bad(format!(
                "a whole number from {} to {}",
                range.start(),
                range.end()
            ))),
        }
    }

    fn strings(&self) -> Result<Vec<String>, OptionError> {
        match self.value {
            ParamValue::List(l) => l
                .iter()
                .map(|v| match v {
                    ParamValue::Str(s) => Ok(s.clone()),
                    _ => Err(self.bad("a list of strings")),
                })
                .collect(),
            _ => Err(self.bad("a list of strings")),
        }
    }

    fn pair(&self) -> Result<[u16; 2], OptionError> {
        match self.value {
            ParamValue::List(l) if l.len() == 2 => {
                let n = |v: &ParamValue| match v {
                    ParamValue::Int(i) => u16::try_from(*i).ok(),
                    _ => None,
                };
                match (n(&l[0]), n(&l[1])) {
                    (Some(a), Some(b)) => Ok([a, b]),
                    _ => Err(self.bad("two whole numbers, e.g. [20, 13]")),
                }
            }
            _ => Err(self.bad("two whole numbers, e.g. [20, 13]")),
        }
    }

    fn choice<T>(&self, values: &[&str], parse: fn(&str) -> Option<T>) -> Result<T, OptionError> {
        match self.value {
            ParamValue::Str(s) => {
                parse(s).ok_or_else(|| self.bad(format!("one of {}", values.join(" | "))))
            }
            _ => Err(self.bad(format!("one of {}", values.join(" | ")))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_to_a_copys_options_leaves_the_original_as_it_was() {
        let mut a = Rules::default();
        a.options.insert("depth".into(), ParamValue::Int(2));
        let mut b = a.clone();
        assert_eq!(a, b);
        b.options.insert("depth".into(), ParamValue::Int(3));
        assert_ne!(a, b);
        assert_eq!(a.options.get("depth"), Some(&ParamValue::Int(2)));
        // Equal values built apart are equal.
        b.options.insert("depth".into(), ParamValue::Int(2));
        assert_eq!(a, b);
        let built: RuleOptions = [("depth".to_string(), ParamValue::Int(2))]
            .into_iter()
            .collect();
        assert_eq!(built, a.options);
    }

    #[test]
    fn every_key_reads_back_what_was_set() {
        for preset in [Preset::Classic, Preset::V3, Preset::V2025] {
            let rules = Rules::preset(preset);
            for key in Rules::KEYS {
                let value = rules
                    .get(key)
                    .unwrap_or_else(|| panic!("`{key}` cannot be read"));
                let mut again = rules.clone();
                again
                    .set(key, &value)
                    .unwrap_or_else(|e| panic!("`{key}` = {value}: {e}"));
                assert_eq!(again, rules, "{key}");
            }
        }
        assert_eq!(Rules::preset(Preset::V3).get("no_such_key"), None);
    }

    #[test]
    fn every_key_is_described_and_its_kind_reads_its_value() {
        let rules = Rules::preset(Preset::Classic);
        for key in Rules::KEYS {
            let info = Rules::key_info(key).unwrap_or_else(|| panic!("`{key}` is not described"));
            assert!(!info.doc.is_empty() && info.doc.ends_with('.'), "{key}");
            let value = rules.get(key).expect("a value");
            let fits = match (info.kind, &value) {
                (KeyKind::Bool, ParamValue::Bool(_)) => true,
                (KeyKind::Number { min, max }, ParamValue::Int(n)) => {
                    (i64::from(min)..=i64::from(max)).contains(n)
                }
                (KeyKind::Choice(values), ParamValue::Str(s)) => values.contains(&s.as_str()),
                (KeyKind::Names, ParamValue::List(l)) => {
                    l.iter().all(|v| matches!(v, ParamValue::Str(_)))
                }
                (KeyKind::Pair, ParamValue::List(l)) => l.len() == 2,
                _ => false,
            };
            assert!(fits, "`{key}` = {value} is not a {:?}", info.kind);
        }
        assert_eq!(Rules::key_info("no_such_key"), None);
    }

    #[test]
    fn a_former_key_reads_and_sets_the_key_it_became() {
        for (old, new) in Rules::ALIASES {
            assert!(
                Rules::KEYS.contains(new) && !Rules::KEYS.contains(old),
                "{old}"
            );
            assert!(Rules::is_key(old) && Rules::is_key(new));
            assert_eq!(Rules::key_info(old), Rules::key_info(new));
        }
        let mut r = Rules::preset(Preset::V3);
        r.set("moloch_team_exception", &ParamValue::Str("off".into()))
            .expect("the former key is accepted");
        assert_eq!(r.ally_attack_rule, AllyAttackRule::Off);
        assert_eq!(r.get("moloch_team_exception"), r.get("ally_attack_rule"));
        let e = r
            .set("moloch_team_exception", &ParamValue::Str("never".into()))
            .expect_err("a bad value");
        assert!(
            e.to_string().starts_with(
                "rule option `moloch_team_exception` expects one of mandatory | optional | off"
            ),
            "{e}"
        );
        assert_eq!(Rules::canonical_key("hq_hp"), "hq_hp");
    }

    #[test]
    fn presets_follow_appendix_b() {
        let c = Rules::preset(Preset::Classic);
        let v3 = Rules::preset(Preset::V3);
        let n = Rules::preset(Preset::V2025);
        assert_eq!(c.net_cycle_rule, NetCycleRule::PairsOnly);
        assert_eq!(v3.net_cycle_rule, NetCycleRule::PairsAnd3Cycles);
        assert_eq!(n.net_cycle_rule, NetCycleRule::PairsAndAllCycles);
        assert_eq!(c.medic_absorbs, MedicAbsorbs::OneEnemy);
        assert_eq!(c.hijack_scope, HijackScope::AnyBonusGivingUnit);
        assert_eq!(v3.convert_attack_limit, ConvertLimit::OnePerUnitPerBattle);
        assert!(n.repeat_battle_while_full && !v3.repeat_battle_while_full);
        assert_eq!(v3.team_hq_hp, 15);
        assert_eq!(n.team_hq_hp, 20);
        assert!(!c.bad_draw_rule && v3.bad_draw_rule);
    }

    #[test]
    fn declared_options_take_their_preset_then_what_is_set() {
        use crate::tile::OptionKind;
        let mut declared = BTreeMap::new();
        declared.insert(
            "blast".to_string(),
            DeclaredOption {
                kind: OptionKind::Integer {
                    min: Some(1),
                    max: Some(3),
                },
                default: ParamValue::Int(1),
                presets: [("classic".to_string(), ParamValue::Int(2))].into(),
                declared_by: "m".into(),
                doc: "How far a blast reaches.".into(),
                rule: String::new(),
                played: true,
            },
        );
        let mut r = Rules::preset(Preset::Classic);
        assert_eq!(r.option(&declared, "blast"), Some(ParamValue::Int(2)));
        r.start_options(&declared, "v3");
        assert_eq!(r.option(&declared, "blast"), Some(ParamValue::Int(1)));
        r.set_any(&declared, "blast", &ParamValue::Int(3))
            .expect("in range");
        assert_eq!(r.option(&declared, "blast"), Some(ParamValue::Int(3)));
        let e = r
            .set_any(&declared, "blast", &ParamValue::Int(4))
            .expect_err("out of range");
        assert_eq!(
            e.to_string(),
            "rule option `blast` expects a whole number from 1 to 3, found 4"
        );
        let e = r
            .set_any(&declared, "blastt", &ParamValue::Int(1))
            .expect_err("unknown");
        assert!(
            e.to_string().contains("(did you mean `blast`?)")
                && e.to_string().ends_with("; declared by mods: blast (mod m)"),
            "{e}"
        );
        assert_eq!(r.option(&declared, "nope"), None);
    }

    #[test]
    fn hand_and_turn_keys_refuse_values_out_of_range() {
        let mut r = Rules::default();
        assert_eq!((r.hand_size, r.tiles_per_turn), (3, 0));
        let e = r
            .set("hand_size", &ParamValue::Int(7))
            .expect_err("too big");
        assert_eq!(
            e.to_string(),
            "rule option `hand_size` expects a whole number from 3 to 6, found 7"
        );
        assert!(r.set("hand_size", &ParamValue::Int(2)).is_err());
        assert!(r.set("tiles_per_turn", &ParamValue::Int(7)).is_err());
        r.set("tiles_per_turn", &ParamValue::Int(2))
            .expect("in range");
        r.set("extra_discards", &ParamValue::Str("counted".into()))
            .expect("a value");
        assert_eq!(r.extra_discards, ExtraDiscards::Counted);
        let e = r
            .set("extra_discards", &ParamValue::Str("count".into()))
            .expect_err("misspelt");
        assert!(e.to_string().contains("(did you mean `counted`?)"), "{e}");
    }

    #[test]
    fn implications_set_engine_keys_unless_the_table_sets_them() {
        use crate::tile::OptionKind;
        let mut declared = BTreeMap::new();
        declared.insert(
            "big".to_string(),
            DeclaredOption {
                kind: OptionKind::Bool,
                default: ParamValue::Bool(false),
                presets: [("v2025".to_string(), ParamValue::Bool(true))].into(),
                declared_by: "m".into(),
                doc: "Bigger hands.".into(),
                rule: String::new(),
                played: true,
            },
        );
        let imply = |when: bool, rules: &[(&str, ParamValue)]| Implication {
            when: vec![("big".into(), ParamValue::Bool(when))],
            rules: rules
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            declared_by: "m".into(),
        };
        let all = [
            imply(
                true,
                &[
                    ("hand_size", ParamValue::Int(6)),
                    ("tiles_per_turn", ParamValue::Int(2)),
                ],
            ),
            imply(false, &[("hand_size", ParamValue::Int(4))]),
            imply(true, &[("tiles_per_turn", ParamValue::Int(3))]),
        ];
        // Off by default: only the second applies.
        let mut r = Rules::preset(Preset::V3);
        let set = r.imply(&declared, &all, &[]).expect("valid");
        assert_eq!((r.hand_size, r.tiles_per_turn), (4, 0));
        assert_eq!(set, vec![("hand_size".to_string(), 1)]);
        // On in the 2025 preset: the first and third apply, the later one winning.
        let mut r = Rules::preset(Preset::V2025);
        r.start_options(&declared, "v2025");
        let set = r.imply(&declared, &all, &[]).expect("valid");
        assert_eq!((r.hand_size, r.tiles_per_turn), (6, 3));
        assert_eq!(
            set,
            vec![
                ("hand_size".to_string(), 0),
                ("tiles_per_turn".to_string(), 2)
            ]
        );
        // A key the table sets itself keeps its value.
        let mut r = Rules::preset(Preset::V3);
        r.set_any(&declared, "big", &ParamValue::Bool(true))
            .expect("declared");
        r.set("hand_size", &ParamValue::Int(5)).expect("in range");
        r.imply(&declared, &all, &["hand_size"]).expect("valid");
        assert_eq!((r.hand_size, r.tiles_per_turn), (5, 3));
    }

    #[test]
    fn starting_hq_hp_follows_the_mode() {
        let v3 = Rules::preset(Preset::V3);
        assert_eq!(v3.starting_hq_hp(&[0, 1]), vec![20, 20]);
        assert_eq!(v3.starting_hq_hp(&[0, 1, 0, 1]), vec![15, 15, 15, 15]);
        assert_eq!(v3.starting_hq_hp(&[0, 1, 1]), vec![20, 13, 13]);
        assert_eq!(v3.starting_hq_hp(&[0, 1, 2]), vec![20, 20, 20]);
        assert_eq!(
            Rules::preset(Preset::V2025).starting_hq_hp(&[0, 1, 0, 1]),
            vec![20; 4]
        );
    }

    #[test]
    fn every_listed_key_is_accepted_by_set() {
        for key in Rules::KEYS {
            let mut r = Rules::default();
            let err = r.set(key, &ParamValue::Str("definitely-not-a-value".into()));
            assert!(
                !matches!(err, Err(OptionError::UnknownKey { .. })),
                "key {key} is listed but unknown to set()"
            );
        }
    }

    #[test]
    fn netted_can_push_is_refused_as_removed_with_the_rules_that_forbid_it() {
        for value in [ParamValue::Bool(true), ParamValue::Bool(false)] {
            let mut r = Rules::preset(Preset::Classic);
            let e = r.set("netted_can_push", &value).expect_err("removed");
            assert!(matches!(&e, OptionError::Removed { key, .. } if key == "netted_can_push"));
            let shown = e.to_string();
            assert!(shown.contains("`netted_can_push` was removed"), "{shown}");
            assert!(
                shown.contains("R5.3.6") && shown.contains("R6.1.3"),
                "{shown}"
            );
            assert_eq!(r, Rules::preset(Preset::Classic), "nothing was set");
        }
        assert!(!Rules::KEYS.contains(&"netted_can_push"));
        assert_eq!(Rules::default().get("netted_can_push"), None);
    }

    #[test]
    fn bad_values_name_the_allowed_ones() {
        let mut r = Rules::default();
        let e = r
            .set("net_cycle_rule", &ParamValue::Str("rings".into()))
            .expect_err("bad value");
        assert!(
            e.to_string()
                .contains("pairs_only | pairs_and_3_cycles | pairs_and_all_cycles")
        );
        assert!(matches!(
            r.set("nets", &ParamValue::Bool(true)),
            Err(OptionError::UnknownKey { .. })
        ));
        r.set("bad_draw_rule", &ParamValue::Str("off".into()))
            .expect("on/off accepted");
        assert!(!r.bad_draw_rule);
    }
}
