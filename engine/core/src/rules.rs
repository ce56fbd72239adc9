//! Rule options: every key of RULES.md Appendix B as one typed struct, with the edition presets.
//!
//! A match or scenario starts from a preset (`classic`, `v3`, `v2025`) and overrides keys by name.
//! Keys that only change how things look (`hq_tracker`, `initiative_markers`, the Moloch instant's
//! name) are kept so that files using them stay valid.

use crate::tile::ParamValue;
use std::fmt;

macro_rules! option_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const VALUES: &'static [&'static str] = &[$($text),+];

            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$variant),)+ _ => None }
            }

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
    Preset { Classic = "classic", V3 = "v3", V2025 = "v2025" }
);
option_enum!(FirstPlayer { Random = "random", Choice = "choice" });
option_enum!(TieBreaker { Draw = "draw", ExtraTurnThenBattle = "extra_turn_then_battle" });
option_enum!(BattleTurnEnd { AfterBattle = "after_battle", AtStart = "at_start" });
option_enum!(BattleLoopGuard {
    None = "none",
    AtlasDraw = "atlas_draw",
    DrawIfNoChange = "draw_if_no_change",
    StopAfterN = "stop_after_n",
});
option_enum!(MoveTarget { Any = "any", Own = "own" });
option_enum!(AoeName { AirStrike = "air_strike", Bomb = "bomb" });
option_enum!(
    /// R7.2.4: the 3.0 explosion hits adjacent HQs too; the classic one is a Bomb that spares HQs.
    ClownExplosion { AdjacentInclHqs = "adjacent_incl_hqs", AsBombNoHqs = "as_bomb_no_hqs" }
);
option_enum!(
    /// R6.1.6: which rings of netters free their members.
    NetCycleRule {
        PairsOnly = "pairs_only",
        PairsAnd3Cycles = "pairs_and_3_cycles",
        PairsAndAllCycles = "pairs_and_all_cycles",
    }
);
option_enum!(MobilityTiming {
    DuringTurn = "during_turn",
    BeforeOrAfterPlacing = "before_or_after_placing",
    AnyTime = "any_time",
});
option_enum!(ScoperScope { ModulesOnly = "modules_only", AnyBonusGivingUnit = "any_bonus_giving_unit" });
option_enum!(MedicAbsorbs { OneAttack = "one_attack", OneEnemy = "one_enemy" });
option_enum!(QuartermasterMode {
    OnePerUnitPerBattle = "one_per_unit_per_battle",
    OnePerPhaseAnyConnectedUnit = "one_per_phase_any_connected_unit",
});
option_enum!(HqTracker { Dial = "dial", Track = "track", Marker = "marker" });
option_enum!(OneVsTeamCompare { BestTeamHq = "best_team_hq", Sum = "sum" });
option_enum!(AllyModuleScope { BonusesOnly = "bonuses_only", BonusesAndGlobal = "bonuses_and_global" });
option_enum!(InstantsOnAllies {
    ForbidMovePush = "forbid_move_push",
    ForbidAll = "forbid_all",
    AllowMoveForbidPush = "ma_allow_move_forbid_push",
});
option_enum!(TeamException { Mandatory = "mandatory", Optional = "optional", Off = "off" });
option_enum!(DestroyedHqRemoval {
    HqEndOfPhaseRestAfterBattle = "hq_end_of_phase_rest_after_battle",
    AllAfterBattle = "all_after_battle",
});
option_enum!(Ffa3Tie { None = "none", ExtraTurnsThenBattleShare = "extra_turns_then_battle_share" });
option_enum!(ScoredResolution { FirstTo20 = "first_to_20", EndOfBattleCapShare = "end_of_battle_cap_share" });
option_enum!(ExtendedTrigger { FinalBattle = "final_battle", Battle = "battle" });
option_enum!(ReinforcementsMode { V3 = "v3", V2025 = "v2025", Monolith = "monolith" });

/// A complete rule set. Build one with [`Rules::preset`] and change keys with [`Rules::set`].
#[derive(Clone, PartialEq, Debug)]
pub struct Rules {
    pub preset: Preset,
    pub hq_hp: u16,
    pub hq_can_damage_hq: bool,
    pub first_player_rule: FirstPlayer,
    pub bad_draw_rule: bool,
    pub bad_draw_exempt_armies: Vec<String>,
    pub tie_breaker: TieBreaker,
    pub battle_turn_end: BattleTurnEnd,
    pub repeat_battle_while_full: bool,
    pub battle_loop_guard: BattleLoopGuard,
    /// The N of `battle_loop_guard = stop_after_n`.
    pub battle_loop_limit: u16,
    pub move_tile_target: MoveTarget,
    pub grenade_blocked_if_hq_netted: bool,
    /// [impl] A netted unit may push (3.0, classic) or not (2025), R5.3.6 and R6.1.3.
    pub netted_can_push: bool,
    pub moloch_aoe_tile_name: AoeName,
    pub clown_explosion_mode: ClownExplosion,
    pub net_cycle_rule: NetCycleRule,
    pub netted_keeps_armor_toughness: bool,
    pub transport_stacks: bool,
    pub mobility_timing: MobilityTiming,
    pub scoper_scope: ScoperScope,
    pub medic_absorbs: MedicAbsorbs,
    pub quartermaster_mode: QuartermasterMode,
    pub initiative_markers: bool,
    pub hq_tracker: HqTracker,
    pub team_hq_hp: u16,
    pub one_vs_team_hq_hp: [u16; 2],
    pub one_vs_team_compare: OneVsTeamCompare,
    pub team_ally_module_scope: AllyModuleScope,
    pub team_instants_on_allies: InstantsOnAllies,
    pub moloch_team_exception: TeamException,
    pub destroyed_hq_removal: DestroyedHqRemoval,
    pub hq_loss_ends_game_4p: bool,
    pub ffa3_tie_procedure: Ffa3Tie,
    pub scored_target: u16,
    pub scored_team_target: u16,
    pub scored_resolution: ScoredResolution,
    pub extended_board: bool,
    pub extended_board_trigger: ExtendedTrigger,
    pub alternative_start: bool,
    pub reinforcements: bool,
    pub reinforcements_mode: ReinforcementsMode,
    pub structures: bool,
    pub leaders: bool,
    pub atlas_map: Option<String>,
    pub atlas_no_removal_draw: bool,
    pub king_of_the_hill: bool,
}

/// A rule option that could not be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    UnknownKey {
        key: String,
    },
    BadValue {
        key: String,
        expected: String,
        found: String,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::UnknownKey { key } => write!(
                f,
                "unknown rule option `{key}` (the keys are those of RULES.md Appendix B, e.g. `net_cycle_rule`)"
            ),
            OptionError::BadValue {
                key,
                expected,
                found,
            } => {
                write!(f, "rule option `{key}` expects {expected}, found {found}")
            }
        }
    }
}

impl std::error::Error for OptionError {}

impl Rules {
    /// The rules of an edition, with the defaults of RULES.md "Ambiguities" where an edition is silent.
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
            netted_can_push: true,
            moloch_aoe_tile_name: AoeName::AirStrike,
            clown_explosion_mode: ClownExplosion::AdjacentInclHqs,
            net_cycle_rule: NetCycleRule::PairsAnd3Cycles,
            netted_keeps_armor_toughness: true,
            transport_stacks: true,
            mobility_timing: MobilityTiming::BeforeOrAfterPlacing,
            scoper_scope: ScoperScope::ModulesOnly,
            medic_absorbs: MedicAbsorbs::OneAttack,
            quartermaster_mode: QuartermasterMode::OnePerUnitPerBattle,
            initiative_markers: false,
            hq_tracker: HqTracker::Dial,
            team_hq_hp: 15,
            one_vs_team_hq_hp: [20, 13],
            one_vs_team_compare: OneVsTeamCompare::BestTeamHq,
            team_ally_module_scope: AllyModuleScope::BonusesOnly,
            team_instants_on_allies: InstantsOnAllies::ForbidMovePush,
            moloch_team_exception: TeamException::Mandatory,
            destroyed_hq_removal: DestroyedHqRemoval::AllAfterBattle,
            hq_loss_ends_game_4p: false,
            ffa3_tie_procedure: Ffa3Tie::None,
            scored_target: 20,
            scored_team_target: 40,
            scored_resolution: ScoredResolution::FirstTo20,
            extended_board: false,
            extended_board_trigger: ExtendedTrigger::Battle,
            alternative_start: false,
            reinforcements: false,
            reinforcements_mode: ReinforcementsMode::V3,
            structures: false,
            leaders: false,
            atlas_map: None,
            atlas_no_removal_draw: false,
            king_of_the_hill: false,
        };
        match p {
            Preset::V3 => v3,
            Preset::Classic => Rules {
                preset: Preset::Classic,
                bad_draw_rule: false,
                tie_breaker: TieBreaker::Draw,
                grenade_blocked_if_hq_netted: false,
                moloch_aoe_tile_name: AoeName::Bomb,
                clown_explosion_mode: ClownExplosion::AsBombNoHqs,
                net_cycle_rule: NetCycleRule::PairsOnly,
                mobility_timing: MobilityTiming::DuringTurn,
                scoper_scope: ScoperScope::AnyBonusGivingUnit,
                medic_absorbs: MedicAbsorbs::OneEnemy,
                quartermaster_mode: QuartermasterMode::OnePerPhaseAnyConnectedUnit,
                hq_tracker: HqTracker::Marker,
                team_hq_hp: 20,
                destroyed_hq_removal: DestroyedHqRemoval::HqEndOfPhaseRestAfterBattle,
                hq_loss_ends_game_4p: true,
                scored_resolution: ScoredResolution::FirstTo20,
                ..v3
            },
            Preset::V2025 => Rules {
                preset: Preset::V2025,
                battle_turn_end: BattleTurnEnd::AtStart,
                netted_can_push: false,
                repeat_battle_while_full: true,
                moloch_aoe_tile_name: AoeName::Bomb,
                net_cycle_rule: NetCycleRule::PairsAndAllCycles,
                transport_stacks: false,
                mobility_timing: MobilityTiming::AnyTime,
                hq_tracker: HqTracker::Track,
                team_hq_hp: 20,
                one_vs_team_compare: OneVsTeamCompare::Sum,
                team_ally_module_scope: AllyModuleScope::BonusesAndGlobal,
                team_instants_on_allies: InstantsOnAllies::ForbidAll,
                moloch_team_exception: TeamException::Optional,
                ffa3_tie_procedure: Ffa3Tie::ExtraTurnsThenBattleShare,
                scored_resolution: ScoredResolution::EndOfBattleCapShare,
                reinforcements_mode: ReinforcementsMode::V2025,
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
        "netted_can_push",
        "moloch_aoe_tile_name",
        "clown_explosion_mode",
        "clown_hits_hqs",
        "net_cycle_rule",
        "netted_keeps_armor_toughness",
        "transport_stacks",
        "mobility_timing",
        "scoper_scope",
        "medic_absorbs",
        "quartermaster_mode",
        "initiative_markers",
        "hq_tracker",
        "team_hq_hp",
        "one_vs_team_hq_hp",
        "one_vs_team_compare",
        "team_ally_module_scope",
        "team_instants_on_allies",
        "moloch_team_exception",
        "destroyed_hq_removal",
        "hq_loss_ends_game_4p",
        "ffa3_tie_procedure",
        "scored_target",
        "scored_team_target",
        "scored_resolution",
        "extended_board",
        "extended_board_trigger",
        "alternative_start",
        "reinforcements",
        "reinforcements_mode",
        "structures",
        "leaders",
        "atlas_map",
        "atlas_no_removal_draw",
        "king_of_the_hill",
    ];

    /// Sets one option by its Appendix B key. On/off keys accept `true`/`false` and `"on"`/`"off"`.
    pub fn set(&mut self, key: &str, value: &ParamValue) -> Result<(), OptionError> {
        let v = Setter { key, value };
        match key {
            "hq_hp" => self.hq_hp = v.number()?,
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
            "netted_can_push" => self.netted_can_push = v.flag()?,
            "moloch_aoe_tile_name" => {
                self.moloch_aoe_tile_name = v.choice(AoeName::VALUES, AoeName::parse)?
            }
            "clown_explosion_mode" => {
                self.clown_explosion_mode =
                    v.choice(ClownExplosion::VALUES, ClownExplosion::parse)?
            }
            "clown_hits_hqs" => {
                self.clown_explosion_mode = if v.flag()? {
                    ClownExplosion::AdjacentInclHqs
                } else {
                    ClownExplosion::AsBombNoHqs
                }
            }
            "net_cycle_rule" => {
                self.net_cycle_rule = v.choice(NetCycleRule::VALUES, NetCycleRule::parse)?
            }
            "netted_keeps_armor_toughness" => self.netted_keeps_armor_toughness = v.flag()?,
            "transport_stacks" => self.transport_stacks = v.flag()?,
            "mobility_timing" => {
                self.mobility_timing = v.choice(MobilityTiming::VALUES, MobilityTiming::parse)?
            }
            "scoper_scope" => {
                self.scoper_scope = v.choice(ScoperScope::VALUES, ScoperScope::parse)?
            }
            "medic_absorbs" => {
                self.medic_absorbs = v.choice(MedicAbsorbs::VALUES, MedicAbsorbs::parse)?
            }
            "quartermaster_mode" => {
                self.quartermaster_mode =
                    v.choice(QuartermasterMode::VALUES, QuartermasterMode::parse)?
            }
            "initiative_markers" => self.initiative_markers = v.flag()?,
            "hq_tracker" => self.hq_tracker = v.choice(HqTracker::VALUES, HqTracker::parse)?,
            "team_hq_hp" => self.team_hq_hp = v.number()?,
            "one_vs_team_hq_hp" => self.one_vs_team_hq_hp = v.pair()?,
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
            "moloch_team_exception" => {
                self.moloch_team_exception =
                    v.choice(TeamException::VALUES, TeamException::parse)?
            }
            "destroyed_hq_removal" => {
                self.destroyed_hq_removal =
                    v.choice(DestroyedHqRemoval::VALUES, DestroyedHqRemoval::parse)?
            }
            "hq_loss_ends_game_4p" => self.hq_loss_ends_game_4p = v.flag()?,
            "ffa3_tie_procedure" => {
                self.ffa3_tie_procedure = v.choice(Ffa3Tie::VALUES, Ffa3Tie::parse)?
            }
            "scored_target" => self.scored_target = v.number()?,
            "scored_team_target" => self.scored_team_target = v.number()?,
            "scored_resolution" => {
                self.scored_resolution =
                    v.choice(ScoredResolution::VALUES, ScoredResolution::parse)?
            }
            "extended_board" => self.extended_board = v.flag()?,
            "extended_board_trigger" => {
                self.extended_board_trigger =
                    v.choice(ExtendedTrigger::VALUES, ExtendedTrigger::parse)?
            }
            "alternative_start" => self.alternative_start = v.flag()?,
            "reinforcements" => self.reinforcements = v.flag()?,
            "reinforcements_mode" => {
                self.reinforcements_mode =
                    v.choice(ReinforcementsMode::VALUES, ReinforcementsMode::parse)?
            }
            "structures" => self.structures = v.flag()?,
            "leaders" => self.leaders = v.flag()?,
            "atlas_map" => self.atlas_map = Some(v.string()?).filter(|m| !m.is_empty()),
            "atlas_no_removal_draw" => self.atlas_no_removal_draw = v.flag()?,
            "king_of_the_hill" => self.king_of_the_hill = v.flag()?,
            _ => {
                return Err(OptionError::UnknownKey {
                    key: key.to_string(),
                });
            }
        }
        Ok(())
    }
}

impl Rules {
    /// The value of one option by its Appendix B key, as [`Rules::set`] accepts it (choices as
    /// their names, on/off keys as booleans); `None` for an unknown key.
    pub fn get(&self, key: &str) -> Option<ParamValue> {
        use ParamValue::{Bool, Int, List, Str};
        let s = |v: &str| Some(Str(v.to_string()));
        let n = |v: u16| Some(Int(i64::from(v)));
        match key {
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
            "netted_can_push" => Some(Bool(self.netted_can_push)),
            "moloch_aoe_tile_name" => s(self.moloch_aoe_tile_name.as_str()),
            "clown_explosion_mode" => s(self.clown_explosion_mode.as_str()),
            "clown_hits_hqs" => Some(Bool(
                self.clown_explosion_mode == ClownExplosion::AdjacentInclHqs,
            )),
            "net_cycle_rule" => s(self.net_cycle_rule.as_str()),
            "netted_keeps_armor_toughness" => Some(Bool(self.netted_keeps_armor_toughness)),
            "transport_stacks" => Some(Bool(self.transport_stacks)),
            "mobility_timing" => s(self.mobility_timing.as_str()),
            "scoper_scope" => s(self.scoper_scope.as_str()),
            "medic_absorbs" => s(self.medic_absorbs.as_str()),
            "quartermaster_mode" => s(self.quartermaster_mode.as_str()),
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
            "moloch_team_exception" => s(self.moloch_team_exception.as_str()),
            "destroyed_hq_removal" => s(self.destroyed_hq_removal.as_str()),
            "hq_loss_ends_game_4p" => Some(Bool(self.hq_loss_ends_game_4p)),
            "ffa3_tie_procedure" => s(self.ffa3_tie_procedure.as_str()),
            "scored_target" => n(self.scored_target),
            "scored_team_target" => n(self.scored_team_target),
            "scored_resolution" => s(self.scored_resolution.as_str()),
            "extended_board" => Some(Bool(self.extended_board)),
            "extended_board_trigger" => s(self.extended_board_trigger.as_str()),
            "alternative_start" => Some(Bool(self.alternative_start)),
            "reinforcements" => Some(Bool(self.reinforcements)),
            "reinforcements_mode" => s(self.reinforcements_mode.as_str()),
            "structures" => Some(Bool(self.structures)),
            "leaders" => Some(Bool(self.leaders)),
            "atlas_map" => Some(Str(self.atlas_map.clone().unwrap_or_default())),
            "atlas_no_removal_draw" => Some(Bool(self.atlas_no_removal_draw)),
            "king_of_the_hill" => Some(Bool(self.king_of_the_hill)),
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

    fn string(&self) -> Result<String, OptionError> {
        match self.value {
            ParamValue::Str(s) => Ok(s.clone()),
            _ => Err(self.bad("a string")),
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
    fn presets_follow_appendix_b() {
        let c = Rules::preset(Preset::Classic);
        let v3 = Rules::preset(Preset::V3);
        let n = Rules::preset(Preset::V2025);
        assert_eq!(c.net_cycle_rule, NetCycleRule::PairsOnly);
        assert_eq!(v3.net_cycle_rule, NetCycleRule::PairsAnd3Cycles);
        assert_eq!(n.net_cycle_rule, NetCycleRule::PairsAndAllCycles);
        assert_eq!(c.medic_absorbs, MedicAbsorbs::OneEnemy);
        assert_eq!(v3.clown_explosion_mode, ClownExplosion::AdjacentInclHqs);
        assert_eq!(c.clown_explosion_mode, ClownExplosion::AsBombNoHqs);
        assert!(n.repeat_battle_while_full && !v3.repeat_battle_while_full);
        assert_eq!(v3.team_hq_hp, 15);
        assert_eq!(n.team_hq_hp, 20);
        assert!(!c.bad_draw_rule && v3.bad_draw_rule);
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
