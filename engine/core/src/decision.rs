//! Decisions the rules leave to a player during a battle or a play, and who answers them.
//!
//! The engine lists the legal options of each decision in a documented order; the
//! [`DefaultPolicy`] takes the first. The orders put the choice a careful player would usually
//! make first (see docs/DECISIONS.md).

use crate::battlefield::{Battlefield, Seat};
use crate::hex::Edge;
use crate::shape::Cell;

/// The kind of decision put to a player, which fixes the kind and order of its options.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Question {
    /// Explode or attack normally (R7.2.4). Options: `Attack`, `Explode`.
    Explode,
    /// Convert one attack of a connected unit (R7.4.3). Options: `NoConversion`, then `Convert`
    /// for each unit and edge in reading order.
    Convert,
    /// Which attack on the protected unit the Medic absorbs (R4.8.3). Options: `Absorb`, most
    /// wounds first, then attacker in reading order.
    Absorb,
    /// Which wounded unit the Medic saves (R4.8.4). Options: `Save`, most wounds taken first,
    /// then reading order.
    Save,
    /// Which of several Medics absorbs for the unit (R4.8.5, R4.8.8). Options: `Medic` in reading order.
    Medic,
    /// Where a pushed unit goes; its owner picks (R5.3.3). Options: `To` in reading order.
    PushTo,
    /// Which way a tile a game rule puts down faces; its owner picks (R10.6.10: a tile of theirs
    /// that another player's rule puts down). Options: `Facing`, the rule's own facing first,
    /// then clockwise.
    Facing,
}

/// One option of a decision, as listed to the player who answers it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Choice {
    /// The unit attacks as printed instead of exploding.
    Attack,
    /// The unit explodes instead of attacking (R7.2.4).
    Explode,
    /// The module converts no attack this time.
    NoConversion,
    /// The module converts one attack between melee and ranged.
    Convert {
        /// The connected unit whose attack is converted.
        unit: Cell,
        /// The unit's edge (front = 0, clockwise) that makes the attack.
        edge: Edge,
    },
    /// The Medic absorbs the attack of this tile on the protected unit.
    Absorb {
        /// The attacking tile whose wounds are absorbed.
        attacker: Cell,
    },
    /// The Medic saves this wounded unit.
    Save {
        /// The unit saved.
        unit: Cell,
    },
    /// This Medic is the one that absorbs.
    Medic {
        /// The Medic chosen.
        medic: Cell,
    },
    /// The pushed unit goes to this empty cell.
    To {
        /// Where the pushed unit ends.
        cell: Cell,
    },
    /// The tile put down faces this way.
    Facing {
        /// Where its front edge points.
        facing: crate::hex::Dir,
    },
}

/// A decision put to the player who controls `by`.
#[derive(Clone, Copy, Debug)]
pub struct Decision<'a> {
    /// What is decided, which fixes the kind of every option.
    pub question: Question,
    /// The tile whose owner decides (the Medic, the Clown, the Quartermaster, the wounded unit;
    /// for `Facing`, the empty cell the tile is put on).
    pub by: Cell,
    /// The player who answers: the owner of `by` (of the tile put down, for `Facing`).
    pub player: Seat,
    /// The legal options in the documented order; the answer is an index into them.
    pub options: &'a [Choice],
}

/// Answers decisions with the index of an option. An index out of range counts as 0.
pub trait Decider {
    /// Picks one of `decision.options` by index, seeing the board as it stands when asked.
    fn decide(&mut self, field: &Battlefield, decision: &Decision<'_>) -> usize;
}

/// Takes the first option of every decision.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultPolicy;

impl Decider for DefaultPolicy {
    fn decide(&mut self, _field: &Battlefield, _decision: &Decision<'_>) -> usize {
        0
    }
}
