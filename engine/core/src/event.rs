//! Engine events: what happened during a battle, in order. The CLI, the editor and replays read
//! them; [`crate::Battlefield::apply`] is the only place they change state.

use crate::hex::{Dir, Edge};
use crate::seat::Seat;
use crate::shape::Cell;
use crate::tile::TileRef;

/// How an attack reaches its target.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AttackKind {
    /// Hits the adjacent tile the attacking edge faces.
    Melee,
    /// Flies along the edge's line, over friendly tiles, and hits the first enemy on it.
    Ranged,
    /// A ranged shot that hits every enemy on its line and is never boosted (R7.2.3).
    Pierce,
    /// A blast on every adjacent unit (R7.2.4).
    Explosion,
}

impl AttackKind {
    /// The lowercase word used for this kind in battle logs and messages.
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
        /// The empty hex the tile now stands on.
        cell: Cell,
        /// Which catalog tile was placed.
        tile: TileRef,
        /// The player the tile belongs to from now on.
        owner: Seat,
        /// Which way the tile's front edge points.
        facing: Dir,
    },
    /// A part of a tile just placed (its `[tile.linked]`) is put beside it, from outside every
    /// pile: the linked unit they make follows (`Linked`).
    Joined {
        /// The empty hex the part now stands on.
        cell: Cell,
        /// Which catalog tile.
        tile: TileRef,
        /// The player it belongs to: the lead tile's owner.
        owner: Seat,
        /// Which way its front edge points: the lead's facing.
        facing: Dir,
    },
    /// A tile of its owner's reserve is put on an empty hex by a game rule (`fx:place`).
    Fielded {
        /// The empty hex the tile now stands on.
        cell: Cell,
        /// Which catalog tile.
        tile: TileRef,
        /// The player it belongs to, whose reserve it leaves.
        owner: Seat,
        /// Which way the tile's front edge points.
        facing: Dir,
    },
    /// A tile leaves the board without being destroyed, back to its owner's reserve, by a game
    /// rule (`fx:lift`).
    Lifted {
        /// The cell it leaves; empty from now on.
        cell: Cell,
        /// Which catalog tile.
        tile: TileRef,
        /// The player it belongs to, whose reserve it joins.
        owner: Seat,
    },
    /// A tile from outside the game (any board tile of the loaded armies) joins the player's
    /// reserve, by a game rule (`fx:grant`): an expansion's pieces handed out before the game.
    Granted {
        /// The player.
        player: Seat,
        /// Which catalog tile.
        tile: TileRef,
    },
    /// A tile of the player's draw pile (the copy nearest the top) is set aside in their reserve
    /// by a game rule (`fx:set_aside`).
    SetAside {
        /// The player.
        player: Seat,
        /// Which catalog tile.
        tile: TileRef,
    },
    /// A unit moves (or only turns) by Mobility, a Move instant or a Push (R3.13, R5.2, R5.3).
    Moved {
        /// The cell the unit leaves (equal to `to` when it only turns).
        from: Cell,
        /// The cell the unit stands on afterwards.
        to: Cell,
        /// The unit's facing after the move.
        facing: Dir,
    },
    /// An instant wounds a unit (R5.4-R5.6); `wounds` before any Medic.
    Struck {
        /// The unit the instant hits.
        target: Cell,
        /// Wounds dealt, before any Medic absorbs them.
        wounds: u8,
    },
    /// A battle begins; the phases that follow count down from `first_phase` to 0 (R4.4).
    BattleStarted {
        /// The highest initiative any tile acts at in this battle, hence the first phase played.
        first_phase: u8,
    },
    /// An initiative phase begins; the units with a slot of this initiative act in it.
    PhaseStarted {
        /// The initiative value of the phase, counting down to 0.
        phase: u8,
    },
    /// An ability changes a unit's initiative values for the rest of the battle being fought
    /// (`fx:add_initiative`, `fx:set_initiative`, `fx:swap_initiative`); the battle keeps it.
    InitiativeChanged {
        /// The unit whose values change.
        cell: Cell,
        /// What is added to each of its values (its whole change this battle so far).
        by: i8,
        /// Its highest value now.
        highest: u8,
    },
    /// The tile is netted from now on (R6.1.9, recomputed when tiles leave the board).
    Netted {
        /// The netted tile.
        cell: Cell,
    },
    /// The tile is no longer netted.
    Freed {
        /// The tile whose net is gone.
        cell: Cell,
    },
    /// The unit acts in this phase (R4.4.1).
    Acts {
        /// The acting unit.
        cell: Cell,
        /// The initiative phase it acts in.
        phase: u8,
    },
    /// The unit explodes instead of attacking (R7.2.4).
    Exploded {
        /// The exploding unit.
        cell: Cell,
    },
    /// A module lets the unit make the attack through `edge` as the other kind (R7.4.3).
    Converted {
        /// The unit whose attack changes kind.
        unit: Cell,
        /// The unit's edge (front = 0, clockwise) whose attack is converted.
        edge: Edge,
        /// The module that grants the conversion.
        by: Cell,
        /// The kind the attack is made as instead.
        to: AttackKind,
    },
    /// An attack reaches its target; `wounds` is what it deals after armor (before any Medic).
    Attack {
        /// The attacking tile.
        from: Cell,
        /// The attacker's edge the attack leaves from; `None` for an explosion, which has no edge.
        edge: Option<Edge>,
        /// How the attack travels: melee, ranged, piercing shot or explosion.
        kind: AttackKind,
        /// The tile the attack reaches.
        target: Cell,
        /// The attack's strength after every modifier, before armor.
        strength: u8,
        /// Whether the target's armor faces the attack and takes one wound off.
        armored: bool,
        /// Wounds this attack deals: `strength`, less one when `armored`.
        wounds: u8,
    },
    /// A Medic absorbs the wounds of one attack on `target` and is discarded (R4.8).
    Absorbed {
        /// The Medic that takes the wounds and leaves the board.
        medic: Cell,
        /// The tile that would have taken them.
        target: Cell,
        /// The attacking tile, or `None` for an instant.
        attacker: Option<Cell>,
        /// How many wounds the Medic took off `target`.
        wounds: u8,
    },
    /// A non-HQ tile takes wounds; `total` is its wound count now (R4.6.3).
    Wounded {
        /// The wounded tile.
        cell: Cell,
        /// Wounds this event adds.
        added: u8,
        /// The tile's wound count after this event.
        total: u8,
        /// Whether the wounds reach the tile's toughness, so it is removed at the end of the phase.
        destroyed: bool,
    },
    /// An ability takes wound markers off a unit; `total` is its wound count now.
    Healed {
        /// The healed unit.
        cell: Cell,
        /// Wound markers taken off.
        removed: u8,
        /// The unit's wound count after healing.
        total: u8,
    },
    /// An ability turns `wounds` of the hits on `cell` away this phase: onto the tile on `to`, or
    /// nowhere.
    Deflected {
        /// The unit whose hits are turned away.
        cell: Cell,
        /// The tile that takes the turned wounds instead, or `None` when they are lost.
        to: Option<Cell>,
        /// How many wounds are turned away.
        wounds: u8,
    },
    /// The tile leaves the board at the end of the phase (R4.3.5).
    Removed {
        /// The cell the tile leaves; empty from now on.
        cell: Cell,
        /// Which catalog tile leaves (it goes to its owner's discard pile in a game).
        tile: TileRef,
        /// The player the tile belonged to.
        owner: Seat,
    },
    /// A player's HQ tracker goes down at the end of the phase (R4.7.1).
    HqDamaged {
        /// The player whose HQ is damaged.
        player: Seat,
        /// Damage taken in this phase.
        amount: u16,
        /// The HQ's hit points afterwards, never below 0.
        hp: i32,
    },
    /// A player's HQ tracker goes up: a script healed the HQ (`fx:heal` on its hex), never past
    /// the hit points the game's mode starts it with.
    HqHealed {
        /// The player whose HQ is healed.
        player: Seat,
        /// Hit points given back.
        amount: u16,
        /// The HQ's hit points afterwards.
        hp: i32,
    },
    /// An initiative phase is over: its removals and HQ damage are done.
    PhaseEnded {
        /// The initiative value of the phase that ended.
        phase: u8,
    },
    /// A marker was put on a tile, a hex or a player, or changed (its duration, its value).
    Marked {
        /// The marker as it now is.
        mark: crate::marker::Mark,
    },
    /// A marker that lasts some turns counts one down at the end of a turn (its value kept).
    MarkerCounted {
        /// The marker as it now is, one turn fewer.
        mark: crate::marker::Mark,
    },
    /// A marker came off: taken off by an ability, or its time ran out.
    Unmarked {
        /// What it was on.
        on: crate::marker::MarkOn,
        /// Its name.
        name: crate::marker::MarkerName,
    },
    /// The battle is over; the board is as it will stay until the next turn.
    BattleEnded,
    /// A linked unit is made, or changed, on the board (docs/LINKED_UNITS.md): from now on its
    /// segments stay in one piece (R9.3.3, R10.6.5).
    Linked {
        /// The unit as it now is.
        link: crate::link::Link,
    },
    /// A linked unit is undone: its tiles stand alone from now on (a unit folding up,
    /// R10.6.6), or its last tile left the board.
    Unlinked {
        /// Its number.
        id: u8,
    },

    // Game events: turns, hands and piles, and the end of the game (section 2).
    /// A player takes an action a mod's game rule offers (docs/RULESETS.md, "Mod actions"); its
    /// effects follow.
    RuleAction {
        /// The player who takes it.
        player: Seat,
        /// The rule's index in `Catalog::game_rules`.
        rule: u8,
        /// The action's index in the rule's `actions`.
        action: u8,
        /// The hex it is taken on, if any.
        at: Option<Cell>,
        /// The facing picked with the hex, for an action that asks for one.
        facing: Option<Dir>,
        /// The tile of the player's army it is taken on, if any.
        tile: Option<TileRef>,
    },
    /// A player's turn begins; `number` counts the turns of the game from 1 (R2.5).
    TurnStarted {
        /// The player whose turn it is.
        player: Seat,
        /// The turn's number within the game, counted from 1.
        number: u16,
    },
    /// The top tile of the player's draw pile goes to their hand, face up (R2.5.1).
    Drew {
        /// The player who drew.
        player: Seat,
        /// The tile drawn.
        tile: TileRef,
    },
    /// `player` drew the last tile of their pile: no Battle tile may be played any more, and the
    /// final round begins (R2.8.1, R2.8.2, R8.2.2).
    LastTileDrawn {
        /// The player whose pile is now empty.
        player: Seat,
    },
    /// The game has played [`crate::game::MAX_TURNS`] turns: as when a last tile is drawn, no
    /// Battle tile may be played any more, and the final round begins (a rule that keeps the
    /// piles from running out would otherwise never let the game end).
    TurnLimit {
        /// The turns played.
        turns: u16,
    },
    /// The player's hand is all instants and they redraw it (R2.6); the discards follow.
    BadDraw {
        /// The player who redraws.
        player: Seat,
    },
    /// A held tile goes to its owner's discard pile (R2.5.2, R2.5.3).
    Discarded {
        /// The player whose tile is discarded.
        player: Seat,
        /// The discarded tile.
        tile: TileRef,
    },
    /// An instant is played from the hand and goes to the discard pile (R5.7).
    InstantPlayed {
        /// The player who plays it.
        player: Seat,
        /// The instant played.
        tile: TileRef,
        /// The hex a scripted instant is played on (docs/LUA_API.md, "Scripted instants");
        /// `None` for the other instants, whose effects name their targets.
        at: Option<Cell>,
    },
    /// The player's turn is over; the next player's turn (or a battle) follows.
    TurnEnded {
        /// The player whose turn ends.
        player: Seat,
    },
    /// A battle is about to start, and why (R4.1).
    BattleCalled {
        /// What triggered the battle.
        cause: BattleCause,
    },
    /// Equal HP after the Final Battle: every player plays one more turn, then one more battle
    /// (R2.9.5, `tie_breaker = extra_turn_then_battle`); in a three-player tie only the players
    /// still in the race do (R8.2.5, after [`Event::OutOfRace`]).
    TieBreak,
    /// A three-player free for all ended tied: this player, who would lose, is out of the race
    /// (their HQ marker leaves the track) while their army stays on the board and fights on;
    /// the tied players play one more turn each, then one more battle (R8.2.5,
    /// `ffa3_tie_procedure = extra_turns_then_battle_share`).
    OutOfRace {
        /// The player out of the race.
        player: Seat,
    },
    /// The game is over, with its result; no action is accepted after it.
    GameEnded {
        /// Who won, or why it is a draw.
        result: GameResult,
        /// The game rule whose `check` gave the verdict (its number among the catalog's game
        /// rules), when one did.
        by_rule: Option<u8>,
    },
}

/// What started a battle (R4.1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BattleCause {
    /// A Battle instant (R5.1).
    Instant {
        /// The player who played the Battle tile.
        player: Seat,
    },
    /// The play area became full (R4.11).
    BoardFull,
    /// The board is still full after a battle (R4.13, `repeat_battle_while_full`).
    StillFull,
    /// After every player's last turn (R2.8).
    Final,
    /// After the extra turns of a tie (R2.9.5).
    TieBreak,
    /// A mod's rule action asked for one (`fx:battle`, a Structure's Boarding, R9.3.4); the turn
    /// ends after it, as after a Battle tile.
    Rule {
        /// The player who took the action.
        player: Seat,
    },
}

/// The result of a finished game: a winning team, or a draw and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameResult {
    /// The players of `team` won (a player's team is its own in a duel or free for all).
    Won {
        /// The winning team's number (the seat's own index in a duel or free for all).
        team: u8,
    },
    /// Several teams share the victory (R8.2.5, R8.3.2): one bit per team number.
    Shared {
        /// The winning teams, bit `t` for team `t`.
        teams: u8,
    },
    /// No side won; `reason` says why.
    Draw {
        /// Why the game was drawn.
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
    /// A game rule of a mod declared the draw (its `check` hook).
    Rule,
}

/// Where events go. `Vec<Event>` keeps them; `()` drops them (bots and benchmarks).
pub trait EventSink {
    /// Takes one event, in the order the engine emits them.
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
