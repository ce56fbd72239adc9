//! The ability-hook interface: the points where scripted abilities take part in a battle, what
//! they see there, and the effects they may ask of the engine.
//!
//! A tile lists its abilities; each [`AbilityRef`] says which hook points its implementation
//! defines ([`HookPoints`]), so the engine calls only those, and boards of plain tiles pay
//! nothing. A hook never changes the state itself: it edits an [`AttackPlan`] (attacks, a blast)
//! that the engine then carries out with its own rules, so no script can break an invariant.
//! The scripting layer implements [`AbilityHooks`]; [`NoAbilities`] is the implementation for
//! content without scripts.

use crate::battlefield::Battlefield;
use crate::decision::Decider;
use crate::effect::Effect;
use crate::event::AttackKind;
use crate::hex::{Edge, Hex};
use crate::rules::Rules;
use crate::shape::Cell;
use crate::tile::{AbilityRef, Catalog, Effects, Tile};

pub use crate::points::{HookError, HookPoints, RulePoints};

/// An attack a unit is about to make, before targets are found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PlannedAttack {
    /// The unit's edge (front = 0, clockwise) the attack leaves from.
    pub edge: Edge,
    /// How the attack travels to its target.
    pub kind: AttackKind,
    /// Final strength including bonuses; a hook may change it (0 cancels the attack).
    pub strength: u8,
    /// The printed strength, before any bonus (what an attack that is never boosted uses).
    pub base: u8,
    /// A hook's choice of the one tile the attack hits: a hex on the attack's line (the adjacent
    /// hex for melee). Tiles before it on the line are passed over; `None`: the rules' target.
    pub target: Option<Hex>,
}

/// An explosion instead of attacks (R7.2.4): every unit within `radius` of the exploding unit
/// takes `wounds`, unboosted and through armor; HQs only if `hits_hqs`. The exploding unit is
/// then removed and no Medic can save it (R4.8.9).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Blast {
    /// How far from the exploding unit the blast reaches (1: the adjacent hexes).
    pub radius: u8,
    /// Wounds each unit in reach takes.
    pub wounds: u8,
    /// Whether HQs in reach take the wounds too.
    pub hits_hqs: bool,
}

/// What an acting unit does this phase: its attacks, or a blast that replaces them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AttackPlan {
    /// The attacks the unit makes this phase, in edge order; a hook may change, add or drop them.
    pub attacks: Vec<PlannedAttack>,
    /// A blast that replaces every attack when set.
    pub blast: Option<Blast>,
}

/// How an attack ended, as its attack events report it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// Wounds reached the target (`ResolvedAttack::wounds` of them, after armor and abilities).
    Landed,
    /// A Medic took the attack (R4.8): no wound reached the target.
    Absorbed,
    /// The target's armor stopped every point of it (R3.11).
    Armor,
    /// A `before_wound` ability lessened it to nothing, or turned it onto another tile.
    Stopped,
    /// It found nothing to hit: no enemy on its line, or only tiles it may not damage.
    Missed,
}

impl Outcome {
    /// The word scripts read (`a.outcome`) and logs print.
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Landed => "landed",
            Outcome::Absorbed => "absorbed",
            Outcome::Armor => "armor",
            Outcome::Stopped => "stopped",
            Outcome::Missed => "missed",
        }
    }
}

/// One attack once it has resolved, as the attacker's `attack_resolved` and the target's
/// `attacked` hooks see it. A pierce attack resolves once per tile it hits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ResolvedAttack {
    /// The attacking tile.
    pub from: Cell,
    /// The attacker's edge it left from; `None` for an explosion.
    pub edge: Option<Edge>,
    /// How it travelled.
    pub kind: AttackKind,
    /// The tile it reached (after any `before_wound` turned it); `None` when it missed.
    pub target: Option<Cell>,
    /// Its strength as made, bonuses included.
    pub strength: u8,
    /// The wounds it dealt to `target` (0 unless `Landed`).
    pub wounds: u8,
    /// How it ended.
    pub outcome: Outcome,
}

/// A hit on a unit this phase, as a `before_wound` hook sees it and may change it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IncomingHit {
    /// The attacking tile; `None` for an instant.
    pub from: Option<Cell>,
    /// How it hits; `None` for an instant.
    pub kind: Option<AttackKind>,
    /// Wounds it deals (a hook may only lessen them).
    pub wounds: u8,
    /// Where the wounds go: the unit itself, or another tile a hook turned them to.
    pub to: Cell,
}

/// What a tile whose ability has a `gives_to` point gives one tile its links or aura reach, in
/// the battle being fought.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Gift {
    /// The tile that gives.
    pub giver: Cell,
    /// The tile it gives to.
    pub target: Cell,
    /// What it gives that tile (the friend and enemy rules of the static effects apply).
    pub effects: Effects,
}

/// What a hook sees of the tile it runs for and of the board around it.
#[derive(Clone, Copy, Debug)]
pub struct HookContext<'a> {
    /// The board as it stands when the hook is called; read only.
    pub field: &'a Battlefield,
    /// The definitions of every tile on the board.
    pub catalog: &'a Catalog,
    /// The rule options of the game or battle.
    pub rules: &'a Rules,
    /// Where the tile whose ability runs stands.
    pub cell: Cell,
    /// That tile's definition.
    pub def: &'a Tile,
    /// The ability being called, with its parameters and binding.
    pub ability: &'a AbilityRef,
    /// The initiative phase being played; 0 outside battles.
    pub phase: u8,
    /// What initiative hooks add to each unit's values in the battle being fought, by cell
    /// index; empty outside battles.
    pub initiative_changes: &'a [i8],
    /// What `gives_to` hooks give in the battle being fought, by giver then target in reading
    /// order; empty outside battles.
    pub gifts: &'a [Gift],
}

/// What the hooks of a scripted instant see: the instant is in its player's hand, never on the
/// board, so it has no cell; its owner is the player who holds (and plays) it.
#[derive(Clone, Copy, Debug)]
pub struct InstantContext<'a> {
    /// The board as it stands; read only.
    pub field: &'a Battlefield,
    /// The definitions of every tile of the game.
    pub catalog: &'a Catalog,
    /// The rule options of the game.
    pub rules: &'a Rules,
    /// The player who holds the instant and would play it.
    pub player: crate::battlefield::Seat,
    /// The instant.
    pub tile: crate::tile::TileRef,
    /// Its definition.
    pub def: &'a Tile,
    /// The ability being called, with its parameters and binding.
    pub ability: &'a AbilityRef,
}

/// The targets a scripted instant's `targets` hook (or a rule action's) lists: hexes of the board
/// as a cell mask, whether it may be played with no target at all, and, for a rule action, tiles of
/// the acting player's army.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct InstantTargets {
    /// It may be played with no target (`"none"` in the list).
    pub none: bool,
    /// The cells it may be played on, one bit per cell index.
    pub cells: u64,
    /// A rule action only: the tiles it may be taken on, one bit per tile of the army of the
    /// player whose turn it is, in the army's order (`Army::tiles`; its first 64 tiles).
    pub tiles: u64,
}

impl InstantTargets {
    /// Whether nothing is listed: the instant cannot be played now.
    pub const fn is_empty(&self) -> bool {
        !self.none && self.cells == 0 && self.tiles == 0
    }

    /// The tiles listed, in the order of `army`'s tiles.
    pub fn tiles_of<'a>(
        &self,
        army: &'a crate::tile::Army,
    ) -> impl Iterator<Item = crate::tile::TileRef> + 'a {
        let bits = self.tiles;
        army.tiles
            .iter()
            .take(64)
            .enumerate()
            .filter(move |(i, _)| bits & 1u64 << i != 0)
            .map(|(_, t)| *t)
    }

    /// Whether `tile`, a tile of `army`, is listed.
    pub fn has_tile(&self, army: &crate::tile::Army, tile: crate::tile::TileRef) -> bool {
        army.tile_slot(tile)
            .is_some_and(|i| self.tiles & 1u64 << i != 0)
    }

    /// Whether `cell` is listed.
    pub const fn has(&self, cell: Cell) -> bool {
        self.cells & 1u64 << cell.index() != 0
    }

    /// The hexes listed, in reading order of `shape`.
    pub fn hexes<'s>(&self, shape: &'s crate::shape::BoardShape) -> impl Iterator<Item = Hex> + 's {
        shape.hexes_in(self.cells)
    }
}

/// What a game rule's hooks see of one player's tiles off the board.
#[derive(Clone, Copy, Debug)]
pub struct PlayerPiles<'a> {
    /// The id of the army the player plays.
    pub army: &'a str,
    /// The tiles the player holds, face up (R2.5.1).
    pub hand: &'a [crate::tile::TileRef],
    /// How many tiles are left in the draw pile (its order is hidden).
    pub deck: usize,
    /// The discard pile, oldest first.
    pub discard: &'a [crate::tile::TileRef],
    /// The reserve (docs/RULESETS.md, "The reserve"), in the order the tiles came.
    pub reserve: &'a [crate::tile::TileRef],
}

/// What a game rule's hooks see: the board, the game's progress and every player's piles.
#[derive(Clone, Copy, Debug)]
pub struct GameContext<'a> {
    /// The board as it stands (markers on tiles, hexes and players included); read only.
    pub field: &'a Battlefield,
    /// The definitions of every tile of the game, and the game rules (`Catalog::game_rules`).
    pub catalog: &'a Catalog,
    /// The rule options of the game.
    pub rules: &'a Rules,
    /// The rule whose hook runs: its index in `catalog.game_rules()`.
    pub rule: usize,
    /// The player whose turn it is (during setup, the player who places an HQ first).
    pub player: crate::battlefield::Seat,
    /// The number of the current turn; 0 before the first.
    pub turn: u16,
    /// Battles fought so far.
    pub battles: u32,
    /// Whether a last tile has been drawn (the final round runs, R2.8).
    pub last_tile_drawn: bool,
    /// Where the turn stands: `"hq"` (the HQs are being placed), `"discard"` (the player holds a
    /// full hand and discards first, R2.5.2), `"play"`, `"over"`, or `"turn_over"` while `check`
    /// is asked between two turns (the turn ended, the next not begun).
    pub stage: &'static str,
    /// Tiles placed and instants played this turn.
    pub played: u8,
    /// Tiles placed from the hand this turn.
    pub placed: u8,
    /// Whether the player whose turn it is has discarded a tile this turn.
    pub discarded: bool,
    /// Every player's piles, in seat order.
    pub piles: &'a [PlayerPiles<'a>],
}

/// A tile that left the board destroyed, as a rule's `destroyed` hook sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Lost {
    /// The hex it stood on (empty now).
    pub cell: Cell,
    /// Which tile it was.
    pub tile: crate::tile::TileRef,
    /// Its owner.
    pub owner: crate::battlefield::Seat,
}

/// HP an HQ lost, as a rule's `hq_damaged` hook sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HqLoss {
    /// The player whose HQ lost HP.
    pub player: crate::battlefield::Seat,
    /// HP lost at once (one phase of a battle, or one effect).
    pub amount: u16,
    /// The HQ's HP afterwards.
    pub hp: i32,
    /// How much of `amount` each player's units dealt, by seat (attacks of units; wounds an
    /// effect or an instant dealt are in `amount` but nobody's here).
    pub by: [u16; crate::battlefield::MAX_PLAYERS],
}

pub use crate::declared::Closed;

/// What the `restrict` hooks of the rules in play close to the current player until the next
/// action: kinds of action, and hexes where no tile may be placed or moved to. Ending the turn
/// is never closed, so a player always has an action.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Restriction {
    /// The kinds of action closed.
    pub closed: Closed,
    /// The cells no tile may be placed on or moved to, one bit per cell index.
    pub blocked: u64,
    /// The cells no tile may be placed on from a hand (moves may still end there).
    pub no_place: u64,
    /// The instants closed by what they do: bit `i` closes the instants whose effect is number
    /// `i` of [`InstantEffect::NAMES`](crate::tile::InstantEffect::NAMES) (`battle`, `push`, ...).
    pub instants: u8,
}

impl Restriction {
    /// Whether nothing is closed.
    pub const fn is_open(&self) -> bool {
        self.closed.bits() == 0 && self.blocked == 0 && self.no_place == 0 && self.instants == 0
    }
}

/// One call of a game rule's hook, with what it may change.
#[derive(Debug)]
pub enum RuleCall<'a> {
    /// `setup`, `drawn`, `turn_ended`, `battle_started` or `battle_ended` (the point named):
    /// effects, carried out at once.
    Effects(RulePoints, &'a mut Vec<Effect>),
    /// `turn_started`, before the draw: effects, and how many tiles the player draws (the
    /// engine's count comes in; `fx:draw(n)` changes it).
    TurnStarted {
        /// The number of tiles to draw.
        draw: &'a mut u8,
        /// Effects, carried out before the draw.
        effects: &'a mut Vec<Effect>,
    },
    /// `destroyed`: a tile that left the board; effects.
    Destroyed(Lost, &'a mut Vec<Effect>),
    /// `hq_damaged`: HP an HQ lost; effects.
    HqDamaged(HqLoss, &'a mut Vec<Effect>),
    /// `check`: the engine's result if the engine is ending the game now, else `None`; the
    /// hook's verdict (a result ends the game, or replaces the engine's).
    Check {
        /// The result the engine has reached, if it is ending the game.
        ended: Option<crate::event::GameResult>,
        /// What the hook decides; `None` leaves the game as the engine has it.
        verdict: &'a mut Option<crate::event::GameResult>,
    },
    /// `restrict`: what is closed to the current player until the next action.
    Restrict(&'a mut Restriction),
    /// The `targets` function of the rule's action number `action`: where it may be taken now.
    Targets {
        /// The action's index in the rule's `actions`.
        action: usize,
        /// What the function lists (nothing: the action cannot be taken now).
        targets: &'a mut InstantTargets,
        /// Why it cannot be taken now, when the function says so (it returns a string).
        why: &'a mut String,
    },
    /// The `play` function of the rule's action number `action`, taken on `target`: effects,
    /// carried out at once.
    Play {
        /// The action's index in the rule's `actions`.
        action: usize,
        /// The hex it is taken on, or `None` for an action taken with no target or on a tile.
        target: Option<Cell>,
        /// The facing the player picked with the hex, for an action that asks for one.
        facing: Option<crate::hex::Dir>,
        /// The tile of the player's army it is taken on, for an action its `targets` listed
        /// tiles for.
        tile: Option<crate::tile::TileRef>,
        /// Effects.
        effects: &'a mut Vec<Effect>,
    },
}

/// Scripted abilities. Every method has a default that does nothing; the engine calls a method
/// only for abilities whose [`AbilityRef::points`] contain its point.
pub trait AbilityHooks {
    /// A reseed point: the seed the scripts' random numbers start from. A game calls it before
    /// each battle and before each hook call outside a battle (`placed`, `turn_started`,
    /// `turn_ended`), with seeds of its own; whatever the scripts changed before it is to be
    /// forgotten, so what a hook does depends only on the game, never on other games (a bot's
    /// simulations) played with the same hooks in between.
    fn reseed(&mut self, _seed: u64) {}

    /// Once per battle, before the first phase, for each tile with this point: `effects` are
    /// carried out once every such tile has been asked, before the first phase.
    fn battle_started(
        &mut self,
        _ctx: &HookContext<'_>,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// For each acting unit with this point: change the attacks it makes this phase, or replace
    /// them with a blast. `decider` answers the decisions the ability puts to the unit's owner;
    /// `effects` are carried out at the end of the phase.
    fn plan_attacks(
        &mut self,
        _ctx: &HookContext<'_>,
        _plan: &mut AttackPlan,
        _decider: &mut dyn Decider,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// At the end of each phase, for each tile with this point still on the board: `effects` are
    /// carried out with the phase's other effects, once every such tile has been asked.
    fn phase_ended(
        &mut self,
        _ctx: &HookContext<'_>,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// For each attack of the unit with this point once it has resolved (after Medics and
    /// `before_wound`, before wounds count): `effects` are carried out at the end of the phase.
    fn attack_resolved(
        &mut self,
        _ctx: &HookContext<'_>,
        _attack: &ResolvedAttack,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// For each attack on the unit with this point once it has resolved (`ctx` is the target):
    /// `effects` are carried out at the end of the phase.
    fn attacked(
        &mut self,
        _ctx: &HookContext<'_>,
        _attack: &ResolvedAttack,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// After the last phase, for each tile with this point still on the board: `effects` are
    /// carried out once every such tile has been asked.
    fn battle_ended(
        &mut self,
        _ctx: &HookContext<'_>,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// At the start of a battle, for each unit with this point: added to each of its initiative
    /// values (like a module's modifier, R3.7.5); `effects` are carried out with those of
    /// `battle_started`, before the first phase.
    fn initiative(
        &mut self,
        _ctx: &HookContext<'_>,
        _effects: &mut Vec<Effect>,
    ) -> Result<i8, HookError> {
        Ok(0)
    }

    /// Each phase, for each unit with this point that is hit, after Medics: `hits` are the hits
    /// on it, whose wounds the hook may lessen or send to another tile; `effects` are carried
    /// out at the end of the phase.
    fn before_wound(
        &mut self,
        _ctx: &HookContext<'_>,
        _hits: &mut [IncomingHit],
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// At the start of each battle (and again when a unit moves during one), for each tile with
    /// this point that gives effects through its links or aura, and each tile those reach
    /// (`target`, in reading order): the effects it gives that tile, in place of the tile's
    /// static ones. The default gives the static ones.
    fn gives_to(&mut self, ctx: &HookContext<'_>, _target: Cell) -> Result<Effects, HookError> {
        Ok(*ctx.def.gives())
    }

    /// After the tile with this point is placed (R3.3).
    fn placed(
        &mut self,
        _ctx: &HookContext<'_>,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// At the start of each turn of the tile's owner.
    fn turn_started(
        &mut self,
        _ctx: &HookContext<'_>,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// When the tile with this point is destroyed in a battle (wounds, an explosion, a Medic
    /// used up), at the end of the phase before it leaves the board; the effects are carried out
    /// at the end of that phase, after the removals.
    fn destroyed(
        &mut self,
        _ctx: &HookContext<'_>,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// A scripted instant held by `ctx.player`: adds the hexes it may be played on (and whether
    /// it may be played with no target) to `targets`. Called after every action of a game, for
    /// the instants in the current player's hand; no effects.
    fn instant_targets(
        &mut self,
        _ctx: &InstantContext<'_>,
        _targets: &mut InstantTargets,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// A scripted instant played by `ctx.player` on `target` (a cell of the board, or none):
    /// `effects` are carried out at once.
    fn instant_played(
        &mut self,
        _ctx: &InstantContext<'_>,
        _target: Option<Cell>,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }

    /// At the end of each turn of the tile's owner.
    fn turn_ended(
        &mut self,
        _ctx: &HookContext<'_>,
        _effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        Ok(())
    }
    /// A game rule's hook (docs/RULESETS.md, "Game scripts"): the engine calls it only for the
    /// rules in play whose points contain the call's point.
    fn game_rule(&mut self, _ctx: &GameContext<'_>, _call: RuleCall<'_>) -> Result<(), HookError> {
        Ok(())
    }
}

/// The hooks of content without scripts: every hook point does nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoAbilities;

impl AbilityHooks for NoAbilities {
    /// A game rule needs its mod's scripts: without them its hooks fail, never pass silently.
    fn game_rule(&mut self, ctx: &GameContext<'_>, _call: RuleCall<'_>) -> Result<(), HookError> {
        let rule = &ctx.catalog.game_rules()[ctx.rule];
        Err(HookError {
            message: format!(
                "the game rule `{}` of mod `{}` is in play, but its scripts are not loaded: load the mods through the script host",
                rule.name, rule.mod_id
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_points_combine_and_test_as_flags() {
        let p = HookPoints::PLAN_ATTACKS.union(HookPoints::PHASE_ENDED);
        assert!(p.contains(HookPoints::PLAN_ATTACKS));
        assert!(p.contains(HookPoints::PHASE_ENDED));
        assert!(!p.contains(HookPoints::BATTLE_STARTED));
        assert!(HookPoints::NONE.is_empty());
        assert!(!p.is_empty());
    }
}
