//! The hook points abilities define and the error a failed hook reports: the leaf types that
//! tile definitions, effects and the hook interface ([`crate::hooks`]) share.

use std::fmt;

/// The hook points an ability's implementation defines (a set of flags).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct HookPoints(u16);

impl HookPoints {
    /// No point: the ability is never called (as every ability is before binding).
    pub const NONE: HookPoints = HookPoints(0);
    /// Once per battle, before the first phase.
    pub const BATTLE_STARTED: HookPoints = HookPoints(1);
    /// Each time the unit acts: change its attacks, or blow it up.
    pub const PLAN_ATTACKS: HookPoints = HookPoints(1 << 1);
    /// At the end of every phase while the tile is on the board.
    pub const PHASE_ENDED: HookPoints = HookPoints(1 << 2);
    /// Once per battle, after the last phase, if the tile is still on the board: effects.
    pub const BATTLE_ENDED: HookPoints = HookPoints(1 << 3);
    /// At the start of each battle: a change to the unit's initiative values.
    pub const INITIATIVE: HookPoints = HookPoints(1 << 4);
    /// Each phase, before the hits on the unit are counted: lessen or turn them away.
    pub const BEFORE_WOUND: HookPoints = HookPoints(1 << 5);
    /// Once the tile has been placed on the board: effects.
    pub const PLACED: HookPoints = HookPoints(1 << 6);
    /// At the start of each of its owner's turns: effects.
    pub const TURN_STARTED: HookPoints = HookPoints(1 << 7);
    /// At the end of each of its owner's turns: effects.
    pub const TURN_ENDED: HookPoints = HookPoints(1 << 8);
    /// When the tile is destroyed in a battle, before it leaves: effects, at the end of that phase.
    pub const DESTROYED: HookPoints = HookPoints(1 << 9);
    /// Each time one of the unit's attacks resolves (landed, absorbed, stopped by armor or an
    /// ability, or missed): effects, at the end of that phase.
    pub const ATTACK_RESOLVED: HookPoints = HookPoints(1 << 10);
    /// Each time an attack on the unit resolves (landed, absorbed, stopped): effects, at the end
    /// of that phase.
    pub const ATTACKED: HookPoints = HookPoints(1 << 11);
    /// At the start of each battle, for a tile that gives effects through links or an aura:
    /// what it gives each tile they reach, in place of `gives` (docs/LUA_API.md, `gives_to`).
    pub const GIVES_TO: HookPoints = HookPoints(1 << 12);
    /// A scripted instant in its player's hand: the hexes it may be played on (`targets`),
    /// asked after every action of a game (docs/LUA_API.md, "Scripted instants").
    pub const TARGETS: HookPoints = HookPoints(1 << 13);
    /// A scripted instant played on one of its targets (`play`): effects, at once.
    pub const PLAY: HookPoints = HookPoints(1 << 14);
    /// The points of a scripted instant, never on the board.
    pub const INSTANT: HookPoints = HookPoints(1 << 13 | 1 << 14);

    /// Every point with its name in scripts, in the order the engine documents them.
    pub const ALL: [(HookPoints, &'static str); 15] = [
        (HookPoints::BATTLE_STARTED, "battle_started"),
        (HookPoints::PLAN_ATTACKS, "plan_attacks"),
        (HookPoints::PHASE_ENDED, "phase_ended"),
        (HookPoints::BATTLE_ENDED, "battle_ended"),
        (HookPoints::INITIATIVE, "initiative"),
        (HookPoints::BEFORE_WOUND, "before_wound"),
        (HookPoints::PLACED, "placed"),
        (HookPoints::TURN_STARTED, "turn_started"),
        (HookPoints::TURN_ENDED, "turn_ended"),
        (HookPoints::DESTROYED, "destroyed"),
        (HookPoints::ATTACK_RESOLVED, "attack_resolved"),
        (HookPoints::ATTACKED, "attacked"),
        (HookPoints::TARGETS, "targets"),
        (HookPoints::PLAY, "play"),
        (HookPoints::GIVES_TO, "gives_to"),
    ];

    /// Every hook point at once, for a test against any of them.
    pub const ALL_POINTS: HookPoints = HookPoints(0x1fff | 0b110_0000_0000_0000);
    /// The points called during battles.
    pub const BATTLE: HookPoints = HookPoints(0b1_1110_0011_1111);
    /// The attack events: the points called as each attack resolves.
    pub const ATTACK_EVENTS: HookPoints = HookPoints(0b1100_0000_0000);
    /// The points called when turns start and end.
    pub const TURNS: HookPoints = HookPoints(0b1_1000_0000);

    /// The name scripts give a single point; `None` for a set of several or none.
    pub fn name(self) -> Option<&'static str> {
        HookPoints::ALL
            .iter()
            .find(|(p, _)| *p == self)
            .map(|(_, n)| *n)
    }

    /// Whether every point of `other` is in this set.
    pub const fn contains(self, other: HookPoints) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether this set and `other` share a point.
    pub const fn intersects(self, other: HookPoints) -> bool {
        self.0 & other.0 != 0
    }

    /// The points of both sets.
    pub const fn union(self, other: HookPoints) -> HookPoints {
        HookPoints(self.0 | other.0)
    }

    /// Whether the set holds no point, so nothing is ever called.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// A hook failed: the message names the mod, the file and line, the hook and the tile. The
/// engine refuses what the hook was part of and leaves the state as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookError {
    /// The whole message, ready to show: `mod, file:line, hook, tile: what went wrong`.
    pub message: String,
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HookError {}

/// The points a game rule (a mod's Lua attached to the game, not to a tile) defines: when the
/// game calls it (docs/RULESETS.md, "Game scripts"). A set of flags, like [`HookPoints`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct RulePoints(u16);

impl RulePoints {
    /// No point: the rule is never called.
    pub const NONE: RulePoints = RulePoints(0);
    /// Once, when the game is set up, before the first HQ is placed.
    pub const SETUP: RulePoints = RulePoints(1);
    /// At the start of each turn, before the draw: effects, and how many tiles are drawn.
    pub const TURN_STARTED: RulePoints = RulePoints(1 << 1);
    /// At the start of each turn, after the draw: effects.
    pub const DRAWN: RulePoints = RulePoints(1 << 2);
    /// At the end of each turn: effects.
    pub const TURN_ENDED: RulePoints = RulePoints(1 << 3);
    /// Before each battle: effects.
    pub const BATTLE_STARTED: RulePoints = RulePoints(1 << 4);
    /// After each battle: effects.
    pub const BATTLE_ENDED: RulePoints = RulePoints(1 << 5);
    /// For each tile that left the board destroyed, once the battle or action is over: effects.
    pub const DESTROYED: RulePoints = RulePoints(1 << 6);
    /// For each time an HQ lost HP, once the battle or action is over: effects.
    pub const HQ_DAMAGED: RulePoints = RulePoints(1 << 7);
    /// After every action and whenever the engine ends the game: who won, a shared victory or a
    /// draw, or nothing to let the game go on (or end as the engine says).
    pub const CHECK: RulePoints = RulePoints(1 << 8);
    /// After every action: which kinds of action and which hexes are closed to the player now.
    pub const RESTRICT: RulePoints = RulePoints(1 << 9);
    /// The rule offers actions of its own (`actions`): their targets are asked after every
    /// action, and an action taken is played by its `play` function.
    pub const ACTIONS: RulePoints = RulePoints(1 << 10);

    /// Every point with its name in scripts, in the order the docs give them.
    pub const ALL: [(RulePoints, &'static str); 11] = [
        (RulePoints::SETUP, "setup"),
        (RulePoints::TURN_STARTED, "turn_started"),
        (RulePoints::DRAWN, "drawn"),
        (RulePoints::TURN_ENDED, "turn_ended"),
        (RulePoints::BATTLE_STARTED, "battle_started"),
        (RulePoints::BATTLE_ENDED, "battle_ended"),
        (RulePoints::DESTROYED, "destroyed"),
        (RulePoints::HQ_DAMAGED, "hq_damaged"),
        (RulePoints::CHECK, "check"),
        (RulePoints::RESTRICT, "restrict"),
        (RulePoints::ACTIONS, "actions"),
    ];

    /// The points asked after every action, whose answers the game keeps until the next one.
    pub const AFTER_ACTIONS: RulePoints = RulePoints(1 << 9 | 1 << 10);
    /// The points that follow what a battle or an action destroyed and damaged.
    pub const LOSSES: RulePoints = RulePoints(1 << 6 | 1 << 7);

    /// The name scripts give a single point; `None` for a set of several or none.
    pub fn name(self) -> Option<&'static str> {
        RulePoints::ALL
            .iter()
            .find(|(p, _)| *p == self)
            .map(|(_, n)| *n)
    }

    /// Whether every point of `other` is in this set.
    pub const fn contains(self, other: RulePoints) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether this set and `other` share a point.
    pub const fn intersects(self, other: RulePoints) -> bool {
        self.0 & other.0 != 0
    }

    /// The points of both sets.
    pub const fn union(self, other: RulePoints) -> RulePoints {
        RulePoints(self.0 | other.0)
    }

    /// Whether the set holds no point.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}
