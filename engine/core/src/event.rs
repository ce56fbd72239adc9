//! Engine events: what happened during a battle, in order. The CLI, the editor and replays read
//! them; [`crate::Battlefield::apply`] is the only place they change state.

use crate::battlefield::Seat;
use crate::hex::{Dir, Edge};
use crate::shape::Cell;
use crate::tile::TileRef;

/// How an attack reaches its target.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AttackKind {
    Melee,
    Ranged,
    /// A ranged shot that hits every enemy on its line and is never boosted (R7.2.3).
    Pierce,
    /// A blast on every adjacent unit (R7.2.4).
    Explosion,
}

impl AttackKind {
    pub const fn name(self) -> &'static str {
        match self {
            AttackKind::Melee => "melee",
            AttackKind::Ranged => "ranged",
            AttackKind::Pierce => "piercing shot",
            AttackKind::Explosion => "explosion",
        }
    }
}

/// One battle event. Cells refer to the battlefield's board shape; tiles do not move during a
/// battle, so a cell names a tile for the whole battle.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Event {
    /// A board tile is put on an empty hex (R3.3).
    Placed {
        cell: Cell,
        tile: TileRef,
        owner: Seat,
        facing: Dir,
    },
    /// A unit moves (or only turns) by Mobility, a Move instant or a Push (R3.13, R5.2, R5.3).
    Moved {
        from: Cell,
        to: Cell,
        facing: Dir,
    },
    /// An instant wounds a unit (R5.4-R5.6); `wounds` before any Medic.
    Struck {
        target: Cell,
        wounds: u8,
    },
    BattleStarted {
        first_phase: u8,
    },
    PhaseStarted {
        phase: u8,
    },
    /// The tile is netted from now on (R6.1.9, recomputed when tiles leave the board).
    Netted {
        cell: Cell,
    },
    /// The tile is no longer netted.
    Freed {
        cell: Cell,
    },
    /// The unit acts in this phase (R4.4.1).
    Acts {
        cell: Cell,
        phase: u8,
    },
    /// The unit explodes instead of attacking (R7.2.4).
    Exploded {
        cell: Cell,
    },
    /// A module lets the unit make the attack through `edge` as the other kind (R7.4.3).
    Converted {
        unit: Cell,
        edge: Edge,
        by: Cell,
        to: AttackKind,
    },
    /// An attack reaches its target; `wounds` is what it deals after armor (before any Medic).
    Attack {
        from: Cell,
        edge: Option<Edge>,
        kind: AttackKind,
        target: Cell,
        strength: u8,
        armored: bool,
        wounds: u8,
    },
    /// A Medic absorbs the wounds of one attack on `target` and is discarded (R4.8).
    Absorbed {
        medic: Cell,
        target: Cell,
        /// The attacking tile, or `None` for an instant.
        attacker: Option<Cell>,
        wounds: u8,
    },
    /// A non-HQ tile takes wounds; `total` is its wound count now (R4.6.3).
    Wounded {
        cell: Cell,
        added: u8,
        total: u8,
        destroyed: bool,
    },
    /// An ability takes wound markers off a unit; `total` is its wound count now.
    Healed {
        cell: Cell,
        removed: u8,
        total: u8,
    },
    /// An ability turns `wounds` of the hits on `cell` away this phase: onto the tile on `to`, or
    /// nowhere.
    Deflected {
        cell: Cell,
        to: Option<Cell>,
        wounds: u8,
    },
    /// The tile leaves the board at the end of the phase (R4.3.5).
    Removed {
        cell: Cell,
        tile: TileRef,
        owner: Seat,
    },
    /// A player's HQ tracker goes down at the end of the phase (R4.7.1).
    HqDamaged {
        player: Seat,
        amount: u16,
        hp: i32,
    },
    PhaseEnded {
        phase: u8,
    },
    BattleEnded,

    // Game events: turns, hands and piles, and the end of the game (section 2).
    /// A player's turn begins; `number` counts the turns of the game from 1 (R2.5).
    TurnStarted {
        player: Seat,
        number: u16,
    },
    /// The top tile of the player's draw pile goes to their hand, face up (R2.5.1).
    Drew {
        player: Seat,
        tile: TileRef,
    },
    /// `player` drew the last tile of their pile: no Battle tile may be played any more, and the
    /// final round begins (R2.8.1, R2.8.2, R8.2.2).
    LastTileDrawn {
        player: Seat,
    },
    /// The player's hand is all instants and they redraw it (R2.6); the discards follow.
    BadDraw {
        player: Seat,
    },
    /// A held tile goes to its owner's discard pile (R2.5.2, R2.5.3).
    Discarded {
        player: Seat,
        tile: TileRef,
    },
    /// An instant is played from the hand and goes to the discard pile (R5.7).
    InstantPlayed {
        player: Seat,
        tile: TileRef,
    },
    TurnEnded {
        player: Seat,
    },
    /// A battle is about to start, and why (R4.1).
    BattleCalled {
        cause: BattleCause,
    },
    /// Equal HP after the Final Battle: every player plays one more turn, then one more battle
    /// (R2.9.5, `tie_breaker = extra_turn_then_battle`).
    TieBreak,
    GameEnded {
        result: GameResult,
    },
}

/// What started a battle (R4.1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BattleCause {
    /// A Battle instant (R5.1).
    Instant { player: Seat },
    /// The play area became full (R4.11).
    BoardFull,
    /// The board is still full after a battle (R4.13, `repeat_battle_while_full`).
    StillFull,
    /// After every player's last turn (R2.8).
    Final,
    /// After the extra turns of a tie (R2.9.5).
    TieBreak,
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameResult {
    /// The players of `team` won (a player's team is its own in a duel or free for all).
    Won {
        team: u8,
    },
    Draw {
        reason: DrawReason,
    },
}

/// Why a game ended in a draw.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DrawReason {
    /// Every side lost its HQ in the same battle (R2.9.3, Q35).
    AllHqsDestroyed,
    /// Equal HP after the Final Battle (and after the tie-break, if any) (R2.9.5).
    EqualHp,
    /// A full-board battle changed nothing and would repeat forever (Q7, `battle_loop_guard`).
    BattleLoop,
}

/// Where events go. `Vec<Event>` keeps them; `()` drops them (bots and benchmarks).
pub trait EventSink {
    fn push(&mut self, event: Event);

    /// Whether the events pushed are kept (or looked at) at all: `false` for a sink that drops
    /// them, which spares the engine holding back the events of an action that may be undone.
    fn keeps_events(&self) -> bool {
        true
    }
}

impl EventSink for Vec<Event> {
    #[inline]
    fn push(&mut self, event: Event) {
        Vec::push(self, event);
    }
}

impl EventSink for () {
    #[inline]
    fn push(&mut self, _event: Event) {}

    fn keeps_events(&self) -> bool {
        false
    }
}
