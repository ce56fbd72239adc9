//! The ability-hook interface: how scripted abilities take part in a battle.
//!
//! The engine calls these hooks only for tiles whose definition lists abilities, so boards of
//! plain tiles pay nothing. The scripting layer implements the trait; [`NoAbilities`] is the
//! implementation for content without scripts.

use crate::battlefield::Battlefield;
use crate::event::AttackKind;
use crate::hex::Edge;
use crate::shape::Cell;
use crate::tile::{AbilityRef, Tile};

/// An attack a unit is about to make, before targets are found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PlannedAttack {
    pub edge: Edge,
    pub kind: AttackKind,
    /// Final strength including bonuses; a hook may change it (0 cancels the attack).
    pub strength: u8,
}

/// What a hook sees of the tile it runs for.
#[derive(Clone, Copy, Debug)]
pub struct HookContext<'a> {
    pub field: &'a Battlefield,
    pub cell: Cell,
    pub def: &'a Tile,
    pub ability: &'a AbilityRef,
    pub phase: u8,
}

/// Scripted abilities. Every method has a no-op default.
pub trait AbilityHooks {
    /// Once per battle, before the first phase, for each tile with abilities.
    fn battle_started(&mut self, _ctx: &HookContext<'_>) {}

    /// For each acting unit with abilities: change the attacks it makes this phase.
    fn plan_attacks(&mut self, _ctx: &HookContext<'_>, _attacks: &mut Vec<PlannedAttack>) {}

    /// At the end of each phase, for each tile with abilities still on the board.
    fn phase_ended(&mut self, _ctx: &HookContext<'_>) {}
}

/// No scripted abilities.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoAbilities;

impl AbilityHooks for NoAbilities {}
