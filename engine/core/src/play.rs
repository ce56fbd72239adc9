//! Plays on the battlefield outside battles: Mobility moves (R3.13) and the instants of section 5
//! (Move, Push, Sniper, Grenade, Air Strike). Each play is checked first, with an error that says
//! why it is refused and leaves the battlefield untouched, then resolved into events.

use crate::battle::{
    Context, Hit, Layout, View, can_be_hijacked, link_reach, medic, nets, remove_tiles, wound,
};
use crate::battlefield::{Battlefield, MAX_PLAYERS, Seat};
use crate::decision::{Choice, Decider};
use crate::event::{Event, EventSink};
use crate::hex::{Dir, Hex};
use crate::marker::MarkerName;
use crate::rules::{AllyModuleScope, InstantsOnAllies, MoveTarget};
use crate::shape::{Cell, MAX_CELLS, bits};
use std::fmt;

/// A play a player makes on the battlefield.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Play {
    /// Mobility (`instant = false`, R3.13, R7.4.4) or the Move instant (R5.2): the unit on `unit`
    /// goes to `to` (its own hex to only turn) and faces `facing` (`None` keeps its facing).
    Move {
        /// The unit that moves.
        unit: Hex,
        /// Where it ends: an empty hex in reach, or its own hex to only turn.
        to: Hex,
        /// Its facing afterwards; `None` keeps the one it had.
        facing: Option<Dir>,
        /// `true` for the Move instant, `false` for the unit's Mobility (once per unit and turn).
        instant: bool,
    },
    /// The Push instant (R5.3): `pusher` pushes the adjacent enemy on `target` to `to`, which the
    /// pushed unit's owner picked among the legal hexes.
    Push {
        /// The player's unit that pushes.
        pusher: Hex,
        /// The enemy unit pushed, adjacent to the pusher.
        target: Hex,
        /// Where the pushed unit ends, one hex further from the pusher.
        to: Hex,
    },
    /// Wounds to one enemy unit anywhere, never an HQ (Sniper, R5.5).
    Wound {
        /// The enemy unit hit.
        target: Hex,
        /// Wounds dealt, before any Medic.
        wounds: u8,
    },
    /// Destroys an enemy unit adjacent to the player's HQ, never an HQ (Grenade, R5.4).
    DestroyNearHq {
        /// The enemy unit destroyed, next to the player's HQ.
        target: Hex,
    },
    /// Wounds every unit within `radius` of `at`, friends too, never HQs (Air Strike / Bomb, R5.6).
    Area {
        /// The centre of the area, chosen so that the whole area is on the board.
        at: Hex,
        /// Wounds dealt to each unit in the area.
        wounds: u8,
        /// How far from `at` the area reaches: 1 covers `at` and its six neighbours.
        radius: u8,
    },
}

impl Play {
    /// The name of the effect, which errors start with. The engine names no tile: a caller that
    /// knows which instant tile was played shows that tile's name with [`PlayError::reason`].
    pub fn name(&self) -> &'static str {
        match self {
            Play::Move { .. } => "move",
            Play::Push { .. } => "push",
            Play::Wound { .. } => "wound",
            Play::DestroyNearHq { .. } => "destroy",
            Play::Area { .. } => "area",
        }
    }
}

/// Why a play is refused: the effect's name and the reason, which cites the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayError {
    /// The refused effect's name ([`Play::name`]), which the message starts with.
    pub play: &'static str,
    /// Which rule refuses it, worded only when shown.
    pub reason: Refusal,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.play, self.reason)
    }
}

/// Whether the Move instant of `player` may move a unit of `owner` (R5.2, R5.8, R10.5.3): their
/// own; an ally's exactly where `team_instants_on_allies` allows moving allies (the team rule
/// names allied tiles, so `move_tile_target = own` does not take that back); an enemy's unless
/// `move_tile_target = own`. The refusal otherwise.
pub fn move_instant_reaches(
    rules: &crate::rules::Rules,
    field: &Battlefield,
    player: Seat,
    owner: Seat,
) -> Result<(), Refusal> {
    if owner == player {
        return Ok(());
    }
    if field.friends(player, owner) {
        return if rules.team_instants_on_allies == InstantsOnAllies::AllowMoveForbidPush {
            Ok(())
        } else {
            Err(Refusal::MoveOnAlly)
        };
    }
    if rules.move_tile_target == MoveTarget::Own {
        return Err(Refusal::MoveOwnUnitsOnly);
    }
    Ok(())
}

/// Why a play is refused. A small value: checking many plays (to list the legal ones) refuses
/// most of them, and no text is made until one is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A hex the play names is not on the board.
    OffBoard(Hex),
    /// No tile on a hex that must hold `what` ("unit", "pusher", "unit to push").
    Missing {
        /// What should stand there, in the words of the message.
        what: &'static str,
        /// The empty hex.
        hex: Hex,
    },
    /// The target is one of the player's own units, where an enemy is needed.
    OwnTarget,
    /// The target is an ally's unit, where an enemy is needed (R5.8).
    AllyTarget,
    /// The Move instant names an ally's unit, which `team_instants_on_allies` forbids (R5.8).
    MoveOnAlly,
    /// The Move instant names another player's unit under `move_tile_target = own` (R5.2).
    MoveOwnUnitsOnly,
    /// Mobility names another player's unit (R3.13).
    MobilityOwnUnitsOnly,
    /// The unit on this hex already used its Mobility this turn (R3.13, Q13).
    MobilityUsed(Hex),
    /// The unit on this hex has no Mobility and no connected Transport (R3.13, R7.4.4).
    NoMobility(Hex),
    /// The unit is netted and may not move (R6.1.3).
    NettedCannotMove,
    /// The unit carries the `cannot_move` marker.
    MarkedCannotMove,
    /// The unit to push carries the `unpushable` marker.
    MarkedUnpushable,
    /// The move leaves the unit on its hex with its facing: nothing to play.
    NoChange,
    /// The destination hex holds a tile.
    Occupied(Hex),
    /// The destination is further than the unit may move through empty hexes (R7.1.4).
    OutOfRange {
        /// The destination asked for.
        to: Hex,
        /// How many hexes the unit may move.
        range: u32,
    },
    /// The destination is not next to the unit, for a move of one hex.
    NotAdjacent {
        /// The destination asked for.
        to: Hex,
        /// Where the moving unit stands.
        unit: Hex,
    },
    /// The pusher is not one of the player's units (R5.3.1).
    PusherNotOwn,
    /// The unit to push is not an enemy's (R5.3.1, R5.8).
    PushOnlyEnemies,
    /// The unit to push is not next to the pusher (R5.3.1).
    PushNotAdjacent,
    /// The unit to push is netted, and netted units are never pushed (R5.3.6).
    PushNetted,
    /// The pusher is netted, and a netted unit never pushes (R5.3.6, R6.1.3, every edition).
    NettedCannotPush,
    /// The pusher is netted by the unit it pushes: the case R6.1.4 names of a netted unit pushing.
    NetterPushedByItsTarget,
    /// No empty hex lies two steps from the pusher next to the pushed unit (R5.3.5).
    NoPushHex,
    /// Every hex the unit could be pushed to would split its linked unit (R9.3.3, R10.6.9).
    PushSplitsLink,
    /// Moving the unit to the hex would split its linked unit, or put a segment on another
    /// unit's segment (R9.3.3, R10.6.4, R10.6.9).
    SplitsLink(Hex),
    /// `to` is not among the legal hexes, which are listed (at most six).
    PushHex {
        /// The hex asked for.
        to: Hex,
        /// The hexes the pushed unit may go to, first ones filled.
        legal: [Option<Hex>; 6],
    },
    /// Instants never hit an HQ; the rule of the instant.
    NeverHq(&'static str),
    /// The player's HQ is not on the board, and the play starts from it.
    NoHq,
    /// The player's HQ is netted, so it throws no Grenade (R5.4, R6.1.7).
    HqNetted,
    /// The Grenade's target is not adjacent to the player's HQ (R5.4).
    NotNextToHq,
    /// Part of the area falls off the board (R5.6.2).
    AreaOffBoard {
        /// How far the area reaches.
        radius: u8,
        /// The area's centre asked for.
        at: Hex,
        /// A hex of the area that is not on the board.
        off: Hex,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Refusal::OffBoard(h) => write!(f, "{h} is not on the board"),
            Refusal::Missing { what, hex } => write!(f, "no {what} on {hex}"),
            Refusal::OwnTarget => f.write_str("the target must be an enemy unit, not one of yours"),
            Refusal::AllyTarget => {
                f.write_str("the target must be an enemy unit, not an ally's (R5.8)")
            }
            Refusal::MoveOnAlly => {
                f.write_str("the Move instant cannot be played on an ally's unit (R5.8)")
            }
            Refusal::MoveOwnUnitsOnly => f.write_str(
                "the Move instant moves only your own units (`move_tile_target = own`, R5.2)",
            ),
            Refusal::MobilityOwnUnitsOnly => {
                f.write_str("Mobility moves only your own units (R3.13)")
            }
            Refusal::MobilityUsed(h) => write!(
                f,
                "the unit on {h} has already used its Mobility this turn (R3.13, Q13)"
            ),
            Refusal::NoMobility(h) => write!(
                f,
                "the unit on {h} has no Mobility and no connected Transport (R3.13, R7.4.4)"
            ),
            Refusal::NettedCannotMove => f.write_str("a netted unit cannot move (R6.1.3)"),
            Refusal::MarkedCannotMove => {
                f.write_str("the unit carries the marker `cannot_move`: it cannot move")
            }
            Refusal::MarkedUnpushable => {
                f.write_str("the unit carries the marker `unpushable`: it cannot be pushed")
            }
            Refusal::NoChange => f.write_str("the unit neither moves nor turns"),
            Refusal::Occupied(h) => write!(f, "{h} is not empty"),
            Refusal::OutOfRange { to, range } => write!(
                f,
                "{to} is not within {range} hexes through empty hexes (R7.1.4)"
            ),
            Refusal::NotAdjacent { to, unit } => write!(f, "{to} is not adjacent to {unit}"),
            Refusal::PusherNotOwn => f.write_str("the pusher must be one of your units (R5.3.1)"),
            Refusal::PushOnlyEnemies => {
                f.write_str("only an enemy unit can be pushed (R5.3.1, R5.8)")
            }
            Refusal::PushNotAdjacent => {
                f.write_str("the unit to push must be adjacent to the pusher (R5.3.1)")
            }
            Refusal::PushNetted => f.write_str("a netted unit can never be pushed (R5.3.6)"),
            Refusal::NettedCannotPush => f.write_str("a netted unit cannot push (R5.3.6, R6.1.3)"),
            Refusal::NetterPushedByItsTarget => {
                f.write_str("a netter cannot be pushed by the unit it nets (R6.1.4)")
            }
            Refusal::NoPushHex => f.write_str(
                "no empty hex two steps from the pusher next to the pushed unit (R5.3.5)",
            ),
            Refusal::PushSplitsLink => f.write_str(
                "the pushed tile is part of a linked unit, and every hex it could go to would split that unit: its segments must stay in one piece (R9.3.3, R10.6.9)",
            ),
            Refusal::SplitsLink(h) => write!(
                f,
                "moving the tile to {h} would split its linked unit, or put it on another unit's segment: its segments must stay in one piece (R9.3.3, R10.6.4, R10.6.9)"
            ),
            Refusal::PushHex { to, legal } => {
                write!(f, "{to} is not a legal hex for the pushed unit (legal: ")?;
                for (i, h) in legal.iter().flatten().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{h}")?;
                }
                f.write_str(")")
            }
            Refusal::NeverHq(rule) => write!(f, "never an HQ ({rule})"),
            Refusal::NoHq => f.write_str("your HQ is not on the board"),
            Refusal::HqNetted => {
                f.write_str("your HQ is netted, so it cannot throw a Grenade (R5.4, R6.1.7)")
            }
            Refusal::NotNextToHq => f.write_str("the target must be adjacent to your HQ (R5.4)"),
            Refusal::AreaOffBoard { radius, at, off } => write!(
                f,
                "every hex within {radius} of {at} must be on the board, and {off} is not (R5.6.2)"
            ),
        }
    }
}

impl std::error::Error for PlayError {}

/// The turn a play belongs to: whose it is and what it has already used (R2.5, R3.13).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Turn {
    player: Seat,
    /// Cells of the units that used Mobility this turn; the marks follow the units as they move.
    mobility_used: u64,
}

impl Turn {
    /// A new turn of `player`: nothing used yet.
    pub const fn new(player: Seat) -> Self {
        Turn {
            player,
            mobility_used: 0,
        }
    }

    /// The player whose turn it is, who makes every play of it.
    pub const fn player(&self) -> Seat {
        self.player
    }

    /// The cells of the units that have used their Mobility this turn.
    pub const fn mobility_used(&self) -> u64 {
        self.mobility_used
    }

    /// Follows the units of this turn through an event of a play.
    fn follow(&mut self, e: &Event) {
        if let Event::Moved { from, to, .. } = *e
            && self.mobility_used & from.bit() != 0
        {
            self.mobility_used = (self.mobility_used & !from.bit()) | to.bit();
        }
    }
}

/// What a checked play will do.
enum Checked {
    Move {
        from: Cell,
        to: Cell,
        facing: Dir,
    },
    Strike {
        targets: u64,
        wounds: u8,
        destroy: bool,
    },
}

/// Checks a play by `player`; nothing changes.
pub fn check_play(
    field: &Battlefield,
    ctx: Context<'_>,
    turn: &Turn,
    play: &Play,
) -> Result<(), PlayError> {
    PlayChecker::new(field, ctx).check(turn, play)
}

/// Checks then resolves a play in `turn`. A refused play leaves the battlefield and the turn unchanged.
pub fn resolve_play<D, S>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    turn: &mut Turn,
    play: &Play,
    decider: &mut D,
    sink: &mut S,
) -> Result<(), PlayError>
where
    D: Decider + ?Sized,
    S: EventSink + ?Sized,
{
    let views = Views::new(field, ctx);
    resolve_with(field, ctx, turn, play, &views, decider, sink)
}

/// What checking a play needs to know of a battlefield beyond its tiles: who is netted, who is
/// carried by a Transport and how far each player's units move. Computed once and kept while the
/// battlefield does not change: a [`PlayChecker`] checks plays with it and [`resolve_with`]
/// resolves the play it checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Views {
    /// The netted tiles (R6.1.9).
    netted: u64,
    /// Units connected to a working module that lets them move as if mobile (R7.4.4).
    mobility: u64,
    /// Some tile on the board gives Mobility, so `mobility` needed every module effect.
    modules: bool,
    /// Per player, the largest `move_range` of their tiles that are not netted (R7.1.4); 0 if none.
    ranges: [u8; MAX_PLAYERS],
}

impl Views {
    pub(crate) fn new(field: &Battlefield, ctx: Context<'_>) -> Self {
        // Mobility through links needs every module effect (hijacks, nets): only worked out
        // when some tile on the board gives it.
        let mut gives_mobility = false;
        let mut netters = 0u64;
        let mut far = 0u64;
        for (c, p) in field.tiles() {
            let traits = ctx.catalog.traits(p.tile);
            gives_mobility |= traits.gives_mobility;
            if field.net_edges(c, traits.nets) != 0 {
                netters |= c.bit();
            }
            if traits.move_range != 0 {
                far |= c.bit();
            }
        }
        // Without a net icon on the board nobody is netted.
        let netted = if netters != 0 {
            nets::netted_among(field, ctx.catalog, ctx.rules, netters)
        } else {
            0
        };
        let mobility = if gives_mobility {
            carried(field, ctx, netted)
        } else {
            0
        };
        debug_assert!(
            !gives_mobility || {
                let view = full_view(field, ctx);
                (view.netted, view.mobility) == (netted, mobility)
            }
        );
        let mut ranges = [0u8; MAX_PLAYERS];
        for i in bits(far & !netted) {
            if let Some(p) = field.at(field.shape().cell_from_index(i)) {
                let r = &mut ranges[p.owner.index()];
                *r = (*r).max(ctx.catalog.traits(p.tile).move_range);
            }
        }
        Views {
            netted,
            mobility,
            modules: gives_mobility,
            ranges,
        }
    }

    /// The views of `field` just after a tile was placed on the empty `cell`, from the views of
    /// the board before, when they can be kept: the new tile has no net and no tile gives
    /// Mobility, so only a net pointing at the new tile could change them, and none does (the
    /// net graph only gains a tile with no edge). `None` when they must be worked out again.
    pub(crate) fn after_placing(
        self,
        field: &Battlefield,
        ctx: Context<'_>,
        cell: Cell,
    ) -> Option<Self> {
        let placed = field.at(cell)?;
        let traits = ctx.catalog.traits(placed.tile);
        if self.modules || traits.nets != 0 || traits.gives_mobility {
            return None;
        }
        let netted_by_neighbour = Dir::ALL.into_iter().any(|d| {
            field.shape().neighbour(cell, d).is_some_and(|n| {
                field
                    .at(n)
                    .is_some_and(|p| field.net_edges(n, ctx.catalog.traits(p.tile).nets) != 0)
                    && nets::reach(field, ctx.catalog, ctx.rules, n) & cell.bit() != 0
            })
        });
        if netted_by_neighbour {
            return None;
        }
        // The new tile is not netted: its move range counts.
        let mut views = self;
        let r = &mut views.ranges[placed.owner.index()];
        *r = (*r).max(traits.move_range);
        Some(views)
    }
}

/// The units a working Mobility module carries (R7.4.4), as the full module view of a battle finds
/// them ([`View::compute`]: netted modules give nothing, R3.11.1; a hijacked module works for the
/// hijacker's side, R7.1.3), looking only at the modules that give Mobility and at the hijackers
/// that may take them. Debug builds check it against the full view.
fn carried(field: &Battlefield, ctx: Context<'_>, netted: u64) -> u64 {
    let shape = field.shape();
    let occupied = field.occupied();
    let working = occupied & !netted;
    let mut carried = 0u64;
    for g in bits(working) {
        let gc = shape.cell_from_index(g);
        let Some(module) = field.at(gc) else { continue };
        if !ctx.catalog.traits(module.tile).gives_mobility {
            continue;
        }
        let side = controller(field, ctx, working, gc);
        let reach = link_reach(
            field,
            gc,
            module.facing,
            ctx.catalog.traits(module.tile).links,
        );
        for i in bits(reach & occupied) {
            if let Some(t) = field.at(shape.cell_from_index(i))
                && field.friends(side, t.owner)
            {
                carried |= 1 << i;
            }
        }
    }
    carried
}

/// Whose side the effects of the tile on `c` work for: the owner of the first working hijacker,
/// in reading order, linked to it that may take it (R7.1.3, `hijack_scope`), else its owner.
fn controller(field: &Battlefield, ctx: Context<'_>, working: u64, c: Cell) -> Seat {
    let Some(p) = field.at(c) else {
        return Seat::default();
    };
    if !can_be_hijacked(ctx.catalog.get(p.tile), ctx.rules) {
        return p.owner;
    }
    for h in bits(working) {
        let hc = field.shape().cell_from_index(h);
        if let Some(hijacker) = field.at(hc)
            && ctx.catalog.traits(hijacker.tile).gives
            && ctx.catalog.get(hijacker.tile).gives().hijack
            && field.enemies(hijacker.owner, p.owner)
            && link_reach(
                field,
                hc,
                hijacker.facing,
                ctx.catalog.traits(hijacker.tile).links,
            ) & c.bit()
                != 0
        {
            return hijacker.owner;
        }
    }
    p.owner
}

/// Every net and module effect of a battlefield, as a battle sees them.
fn full_view(field: &Battlefield, ctx: Context<'_>) -> View {
    let layout = Layout::new(field, ctx.catalog, ctx.rules);
    let mut view = View::empty();
    view.compute(field, ctx.catalog, ctx.rules, &layout, &[]);
    view
}

/// [`resolve_play`] with the views of the battlefield as it is.
pub(crate) fn resolve_with<D, S>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    turn: &mut Turn,
    play: &Play,
    views: &Views,
    decider: &mut D,
    sink: &mut S,
) -> Result<(), PlayError>
where
    D: Decider + ?Sized,
    S: EventSink + ?Sized,
{
    match check(field, ctx, views, turn, play)? {
        Checked::Move { from, to, facing } => {
            let e = Event::Moved { from, to, facing };
            field.apply(&e);
            sink.push(e);
            turn.follow(&e);
            if let Play::Move { instant: false, .. } = play {
                turn.mobility_used |= to.bit();
            }
        }
        Checked::Strike {
            targets,
            wounds,
            destroy,
        } => {
            // Medics may absorb the wounds (R5.7): they need every module effect.
            let view = full_view(field, ctx);
            let removed = strike(field, ctx, &view, targets, wounds, destroy, decider, sink);
            turn.mobility_used &= !removed;
        }
    }
    Ok(())
}

/// Checks many plays on one unchanged battlefield, computing nets and module effects once: this is
/// how the legal plays of a position are listed.
pub struct PlayChecker<'f> {
    field: &'f Battlefield,
    ctx: Context<'f>,
    views: Views,
}

impl<'f> PlayChecker<'f> {
    /// A checker for `field` as it is now, with nets and module effects worked out once.
    pub fn new(field: &'f Battlefield, ctx: Context<'f>) -> Self {
        PlayChecker {
            field,
            ctx,
            views: Views::new(field, ctx),
        }
    }

    /// A checker with views already computed for `field` as it is.
    pub(crate) fn with_views(field: &'f Battlefield, ctx: Context<'f>, views: Views) -> Self {
        PlayChecker { field, ctx, views }
    }

    /// Checks a play in `turn`; nothing changes.
    pub fn check(&self, turn: &Turn, play: &Play) -> Result<(), PlayError> {
        check(self.field, self.ctx, &self.views, turn, play).map(|_| ())
    }

    /// The netted tiles (R6.1.9).
    pub fn netted(&self) -> u64 {
        self.views.netted
    }

    /// The units that may move as if mobile through a connected friendly module (R7.4.4).
    pub fn carried(&self) -> u64 {
        self.views.mobility
    }

    /// The units that may not move: netted (R6.1.3), or carrying the `cannot_move` marker.
    pub fn pinned(&self) -> u64 {
        self.views.netted | self.field.tiles_marked(MarkerName::CANNOT_MOVE)
    }

    /// The units that may not be pushed: netted (R5.3.6), or carrying `unpushable`.
    pub fn unpushable(&self) -> u64 {
        self.views.netted | self.field.tiles_marked(MarkerName::UNPUSHABLE)
    }

    /// The empty cells the unit on `unit` could reach with one move (not its own cell), ignoring
    /// whether it may move at all: [`PlayChecker::check`] says that.
    #[inline]
    pub fn move_destinations(&self, unit: Cell) -> u64 {
        let owner = self.field.at(unit).map(|p| p.owner).unwrap_or_default();
        self.field
            .keeps_links(unit, reach(self.field, unit, self.move_range(owner)))
    }

    /// How far the units of `owner` move (R7.1.4).
    pub(crate) fn move_range(&self, owner: Seat) -> u32 {
        move_range(self.field, self.ctx, &self.views, owner)
    }

    /// The empty cells within `range` steps of `unit` through empty hexes.
    pub(crate) fn reach(&self, unit: Cell, range: u32) -> u64 {
        reach(self.field, unit, range)
    }

    /// R5.3.2: the empty hexes where a Push by `pusher` could send the unit on `target`.
    #[inline]
    pub fn push_destinations(&self, pusher: Cell, target: Cell) -> u64 {
        self.field
            .keeps_links(target, push_destinations(self.field, pusher, target))
    }
}

fn check(
    field: &Battlefield,
    ctx: Context<'_>,
    views: &Views,
    turn: &Turn,
    play: &Play,
) -> Result<Checked, PlayError> {
    let player = turn.player;
    let no = |reason: Refusal| PlayError {
        play: play.name(),
        reason,
    };
    let cell_of = |h: Hex, what: &'static str| -> Result<Cell, PlayError> {
        let c = field
            .shape()
            .cell(h)
            .ok_or_else(|| no(Refusal::OffBoard(h)))?;
        if field.at(c).is_none() {
            return Err(no(Refusal::Missing { what, hex: h }));
        }
        Ok(c)
    };
    let is_hq = |c: Cell| field.def(ctx.catalog, c).is_some_and(|d| d.is_hq());
    let owner = |c: Cell| field.at(c).map(|p| p.owner).unwrap_or_default();
    let enemy_target = |c: Cell| -> Result<(), PlayError> {
        let o = owner(c);
        if o == player {
            return Err(no(Refusal::OwnTarget));
        }
        if field.friends(player, o) {
            return Err(no(Refusal::AllyTarget));
        }
        Ok(())
    };
    match *play {
        Play::Move {
            unit,
            to,
            facing,
            instant,
        } => {
            let from = cell_of(unit, "unit")?;
            let p = *field.at(from).ok_or_else(|| {
                no(Refusal::Missing {
                    what: "unit",
                    hex: unit,
                })
            })?;
            if instant {
                move_instant_reaches(ctx.rules, field, player, p.owner).map_err(no)?;
            } else {
                if p.owner != player {
                    return Err(no(Refusal::MobilityOwnUnitsOnly));
                }
                if turn.mobility_used & from.bit() != 0 {
                    return Err(no(Refusal::MobilityUsed(unit)));
                }
                if !ctx.catalog.traits(p.tile).mobile && views.mobility & from.bit() == 0 {
                    return Err(no(Refusal::NoMobility(unit)));
                }
            }
            if views.netted & from.bit() != 0 {
                return Err(no(Refusal::NettedCannotMove));
            }
            if field.tiles_marked(MarkerName::CANNOT_MOVE) & from.bit() != 0 {
                return Err(no(Refusal::MarkedCannotMove));
            }
            let facing_now = facing.unwrap_or(p.facing);
            let dest = field
                .shape()
                .cell(to)
                .ok_or_else(|| no(Refusal::OffBoard(to)))?;
            if dest == from {
                if facing_now == p.facing {
                    return Err(no(Refusal::NoChange));
                }
                return Ok(Checked::Move {
                    from,
                    to: dest,
                    facing: facing_now,
                });
            }
            if field.at(dest).is_some() {
                return Err(no(Refusal::Occupied(to)));
            }
            let range = move_range(field, ctx, views, p.owner);
            if reach(field, from, range) & dest.bit() == 0 {
                return Err(no(if range > 1 {
                    Refusal::OutOfRange { to, range }
                } else {
                    Refusal::NotAdjacent { to, unit }
                }));
            }
            if field.keeps_links(from, dest.bit()) == 0 {
                return Err(no(Refusal::SplitsLink(to)));
            }
            Ok(Checked::Move {
                from,
                to: dest,
                facing: facing_now,
            })
        }
        Play::Push { pusher, target, to } => {
            let pc = cell_of(pusher, "pusher")?;
            let tc = cell_of(target, "unit to push")?;
            if owner(pc) != player {
                return Err(no(Refusal::PusherNotOwn));
            }
            let (po, to_owner) = (owner(pc), owner(tc));
            let exception = field.friends(po, to_owner)
                && field
                    .def(ctx.catalog, pc)
                    .zip(field.def(ctx.catalog, tc))
                    .is_some_and(|(a, b)| field.nets(po, a, to_owner, b, ctx.rules));
            if field.friends(po, to_owner) && !exception {
                return Err(no(Refusal::PushOnlyEnemies));
            }
            if field.shape().hex(pc).distance(field.shape().hex(tc)) != 1 {
                return Err(no(Refusal::PushNotAdjacent));
            }
            if views.netted & tc.bit() != 0 {
                return Err(no(Refusal::PushNetted));
            }
            if field.tiles_marked(MarkerName::UNPUSHABLE) & tc.bit() != 0 {
                return Err(no(Refusal::MarkedUnpushable));
            }
            // A netted unit never pushes, in every edition (R3.11.1, R5.3.6, R6.1.3); pushing
            // the netter that nets it is the case R6.1.4 names, told as such.
            if views.netted & pc.bit() != 0 {
                return Err(no(
                    if nets::reach(field, ctx.catalog, ctx.rules, tc) & pc.bit() != 0 {
                        Refusal::NetterPushedByItsTarget
                    } else {
                        Refusal::NettedCannotPush
                    },
                ));
            }
            let legal = push_destinations(field, pc, tc);
            if legal == 0 {
                return Err(no(Refusal::NoPushHex));
            }
            let legal = field.keeps_links(tc, legal);
            if legal == 0 {
                return Err(no(Refusal::PushSplitsLink));
            }
            let dest = field
                .shape()
                .cell(to)
                .filter(|c| legal & c.bit() != 0)
                .ok_or_else(|| {
                    let mut list = [None; 6];
                    for (slot, i) in list.iter_mut().zip(bits(legal)) {
                        *slot = Some(field.shape().hex(field.shape().cell_from_index(i)));
                    }
                    no(Refusal::PushHex { to, legal: list })
                })?;
            let facing = field.at(tc).map(|p| p.facing).unwrap_or_default();
            Ok(Checked::Move {
                from: tc,
                to: dest,
                facing,
            })
        }
        Play::Wound { target, wounds } => {
            let tc = cell_of(target, "unit")?;
            if is_hq(tc) {
                return Err(no(Refusal::NeverHq("R5.5")));
            }
            enemy_target(tc)?;
            Ok(Checked::Strike {
                targets: tc.bit(),
                wounds,
                destroy: false,
            })
        }
        Play::DestroyNearHq { target } => {
            let tc = cell_of(target, "unit")?;
            if is_hq(tc) {
                return Err(no(Refusal::NeverHq("R5.4")));
            }
            enemy_target(tc)?;
            let hq = field
                .hq_cell(player, ctx.catalog)
                .ok_or_else(|| no(Refusal::NoHq))?;
            if ctx.rules.grenade_blocked_if_hq_netted && views.netted & hq.bit() != 0 {
                return Err(no(Refusal::HqNetted));
            }
            if field.shape().hex(hq).distance(target) != 1 {
                return Err(no(Refusal::NotNextToHq));
            }
            Ok(Checked::Strike {
                targets: tc.bit(),
                wounds: 0,
                destroy: true,
            })
        }
        Play::Area { at, wounds, radius } => {
            let shape = field.shape();
            let mut targets = 0u64;
            for h in at.area(u32::from(radius)) {
                let Some(c) = shape.cell(h) else {
                    // Name the first hex off the board, in reading order.
                    let off = at
                        .within(u32::from(radius))
                        .into_iter()
                        .find(|h| shape.cell(*h).is_none())
                        .unwrap_or(h);
                    return Err(no(Refusal::AreaOffBoard { radius, at, off }));
                };
                if field.at(c).is_some() && !is_hq(c) {
                    targets |= c.bit();
                }
            }
            Ok(Checked::Strike {
                targets,
                wounds,
                destroy: false,
            })
        }
    }
}

/// R5.3.2: empty hexes adjacent to the pushed unit and two steps from the pusher.
fn push_destinations(field: &Battlefield, pusher: Cell, target: Cell) -> u64 {
    let from = field.shape().hex(pusher);
    let mut legal = 0u64;
    for d in Dir::ALL {
        if let Some(n) = field.shape().neighbour(target, d)
            && field.at(n).is_none()
            && field.shape().hex(n).distance(from) == 2
        {
            legal |= n.bit();
        }
    }
    legal
}

/// How far a unit of `owner` moves: 1, or the largest `move_range` of a working tile of its owner
/// (R7.1.4), or of an ally when global modules help allies (`team_ally_module_scope`, R8.5.5a).
fn move_range(field: &Battlefield, ctx: Context<'_>, views: &Views, owner: Seat) -> u32 {
    let allies_too = ctx.rules.team_ally_module_scope == AllyModuleScope::BonusesAndGlobal;
    let own = views.ranges.get(owner.index()).copied().unwrap_or(0);
    let allies = if allies_too {
        field
            .players()
            .filter(|p| *p != owner && field.friends(owner, *p))
            .filter_map(|p| views.ranges.get(p.index()).copied())
            .max()
            .unwrap_or(0)
    } else {
        0
    };
    u32::from(own.max(allies).max(1))
}

/// The empty cells reachable from `from` in at most `range` steps through empty hexes (Q12).
fn reach(field: &Battlefield, from: Cell, range: u32) -> u64 {
    let mut frontier = from.bit();
    let mut seen = frontier;
    for _ in 0..range {
        let mut next = 0u64;
        for i in bits(frontier) {
            for d in Dir::ALL {
                if let Some(n) = field.shape().neighbour(field.shape().cell_from_index(i), d) {
                    next |= n.bit();
                }
            }
        }
        frontier = next & !seen & !field.occupied();
        seen |= frontier;
    }
    seen & !from.bit()
}

/// Wounds or destroys the target units at once; connected Medics absorb (R4.8.2, Q30); armor does
/// not help (R3.10.3). Destroyed tiles leave the board immediately; returns their cells.
#[allow(clippy::too_many_arguments)]
fn strike<D, S>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    view: &View,
    targets: u64,
    wounds: u8,
    destroy: bool,
    decider: &mut D,
    sink: &mut S,
) -> u64
where
    D: Decider + ?Sized,
    S: EventSink + ?Sized,
{
    let mut hits = Vec::new();
    let mut incoming = [0u16; MAX_CELLS];
    for t in bits(targets) {
        let cell = field.shape().cell_from_index(t);
        let Some(p) = field.at(cell) else { continue };
        let w = if destroy {
            ctx.catalog
                .get(p.tile)
                .hit_points()
                .saturating_sub(p.wounds)
        } else {
            wounds
        };
        sink.push(Event::Struck {
            target: cell,
            wounds: w,
        });
        incoming[t] = u16::from(w);
        hits.push(Hit {
            from: None,
            kind: None,
            target: cell,
            wounds: w,
            absorbed: false,
            edge: None,
            strength: w,
        });
    }
    let mut options: Vec<Choice> = Vec::new();
    let used = {
        let ph = medic::Phase {
            field,
            catalog: ctx.catalog,
            view,
            incoming: &incoming,
            doomed: 0,
        };
        medic::absorb(&ph, &mut hits, decider, sink, &mut options)
    };
    let mut doomed = used;
    for h in hits.iter().filter(|h| !h.absorbed) {
        if wound(field, ctx, view, h.target, h.wounds, sink) {
            doomed |= h.target.bit();
        }
    }
    remove_tiles(field, doomed, sink)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battlefield::{PlayerSetup, Setup, TileSetup};
    use crate::decision::DefaultPolicy;
    use crate::rules::Rules;
    use crate::shape::BoardShape;
    use crate::tile::{Catalog, Initiative, Tile, TileKind};

    fn catalog() -> Catalog {
        let mut c = Catalog::new();
        let mut hq = Tile::new("t", "hq", TileKind::Hq);
        hq.initiative = Initiative::new(&[0]).expect("init");
        let mut runner = Tile::new("t", "runner", TileKind::Soldier);
        runner.mobile = true;
        let mut block = Tile::new("t", "block", TileKind::Soldier);
        block.toughness = 2;
        let mut medic = Tile::new("t", "medic", TileKind::Module);
        medic.module.medic = true;
        medic.edges[0].link = true;
        c.add_army("t", "T", 35, vec![hq, runner, block, medic])
            .expect("army");
        c
    }

    fn field(c: &Catalog, tiles: &[(&str, u8, i32, i32)]) -> Battlefield {
        let setup = Setup {
            shape: BoardShape::standard(),
            players: vec![
                PlayerSetup { team: 0, hq_hp: 20 },
                PlayerSetup { team: 1, hq_hp: 20 },
            ],
            tiles: tiles
                .iter()
                .map(|(id, o, q, r)| TileSetup {
                    tile: c.find(&format!("t/{id}")).expect("tile"),
                    owner: Seat::new(*o),
                    hex: Hex::new(*q, *r),
                    facing: Dir::N,
                    wounds: 0,
                })
                .collect(),
        };
        Battlefield::new(setup, c).expect("legal")
    }

    fn play(f: &mut Battlefield, c: &Catalog, p: Play) -> Result<Vec<Event>, PlayError> {
        play_in(f, c, &mut Turn::new(Seat::new(0)), p)
    }

    fn play_in(
        f: &mut Battlefield,
        c: &Catalog,
        turn: &mut Turn,
        p: Play,
    ) -> Result<Vec<Event>, PlayError> {
        let rules = Rules::default();
        let mut events = Vec::new();
        resolve_play(
            f,
            Context {
                catalog: c,
                rules: &rules,
            },
            turn,
            &p,
            &mut DefaultPolicy,
            &mut events,
        )?;
        Ok(events)
    }

    #[test]
    fn push_needs_an_empty_hex_two_steps_from_the_pusher() {
        let c = catalog();
        // R5.3.7: the pushed unit at [1,0] has [2,-1], [2,0] and [1,1] behind it; all taken.
        let mut f = field(
            &c,
            &[
                ("block", 0, 0, 0),
                ("runner", 1, 1, 0),
                ("block", 1, 2, -1),
                ("block", 1, 2, 0),
                ("block", 1, 1, 1),
            ],
        );
        let before = f.clone();
        let e = play(
            &mut f,
            &c,
            Play::Push {
                pusher: Hex::ORIGIN,
                target: Hex::new(1, 0),
                to: Hex::new(2, 0),
            },
        )
        .expect_err("no legal hex");
        assert!(
            e.to_string()
                .starts_with("push: no empty hex two steps from the pusher"),
            "{e}"
        );
        assert_eq!(f, before, "a refused play changes nothing");
    }

    #[test]
    fn the_pushed_units_owner_picks_among_legal_hexes_and_facing_is_kept() {
        let c = catalog();
        let mut f = field(&c, &[("block", 0, 0, 0), ("runner", 1, 1, 0)]);
        let e = play(
            &mut f,
            &c,
            Play::Push {
                pusher: Hex::ORIGIN,
                target: Hex::new(1, 0),
                to: Hex::new(1, -1),
            },
        )
        .expect_err("[1,-1] is adjacent to the pusher");
        assert!(
            e.to_string().contains("legal: [2, -1], [2, 0], [1, 1]"),
            "{e}"
        );
        play(
            &mut f,
            &c,
            Play::Push {
                pusher: Hex::ORIGIN,
                target: Hex::new(1, 0),
                to: Hex::new(2, 0),
            },
        )
        .expect("legal");
        assert_eq!(f.at_hex(Hex::new(2, 0)).map(|p| p.facing), Some(Dir::N));
    }

    #[test]
    fn instants_never_hit_hqs_and_air_strikes_stay_on_the_board() {
        let c = catalog();
        let mut f = field(
            &c,
            &[("hq", 1, 1, 0), ("runner", 1, 0, 1), ("runner", 0, 0, 0)],
        );
        let e = play(
            &mut f,
            &c,
            Play::Wound {
                target: Hex::new(1, 0),
                wounds: 1,
            },
        )
        .expect_err("HQ");
        assert_eq!(e.reason.to_string(), "never an HQ (R5.5)");
        let e = play(
            &mut f,
            &c,
            Play::Area {
                at: Hex::new(2, 0),
                wounds: 1,
                radius: 1,
            },
        )
        .expect_err("edge");
        assert!(
            e.to_string()
                .starts_with("area: every hex within 1 of [2, 0] must be on the board"),
            "{e}"
        );
        let events = play(
            &mut f,
            &c,
            Play::Area {
                at: Hex::ORIGIN,
                wounds: 1,
                radius: 1,
            },
        )
        .expect("centre");
        let struck = events
            .iter()
            .filter(|e| matches!(e, Event::Struck { .. }))
            .count();
        assert_eq!(struck, 2, "both runners, friend and foe, and not the HQ");
        assert_eq!(f.hq_hp(Seat::new(1)), 20);
    }

    #[test]
    fn a_medic_absorbs_a_grenade_and_the_target_survives() {
        let c = catalog();
        // Own HQ at [0,0]; enemy block at [1,0] with an enemy medic below it linking north (edge 0).
        let mut f = field(
            &c,
            &[("hq", 0, 0, 0), ("block", 1, 1, 0), ("medic", 1, 1, 1)],
        );
        play(
            &mut f,
            &c,
            Play::DestroyNearHq {
                target: Hex::new(1, 0),
            },
        )
        .expect("adjacent to the HQ");
        assert!(
            f.at_hex(Hex::new(1, 0)).is_some(),
            "Q30: the Medic absorbs the Grenade"
        );
        assert!(f.at_hex(Hex::new(1, 1)).is_none(), "the Medic is discarded");
        play(
            &mut f,
            &c,
            Play::DestroyNearHq {
                target: Hex::new(1, 0),
            },
        )
        .expect("again");
        assert!(
            f.at_hex(Hex::new(1, 0)).is_none(),
            "toughness does not save it from a Grenade"
        );
    }

    #[test]
    fn mobility_needs_the_icon_and_moves_one_hex() {
        let c = catalog();
        let mut f = field(&c, &[("runner", 0, 0, 0), ("block", 0, 1, 1)]);
        let e = play(
            &mut f,
            &c,
            Play::Move {
                unit: Hex::new(1, 1),
                to: Hex::new(1, 0),
                facing: None,
                instant: false,
            },
        )
        .expect_err("no Mobility");
        assert!(
            e.to_string()
                .starts_with("move: the unit on [1, 1] has no Mobility"),
            "{e}"
        );
        let e = play(
            &mut f,
            &c,
            Play::Move {
                unit: Hex::ORIGIN,
                to: Hex::new(0, -2),
                facing: None,
                instant: false,
            },
        )
        .expect_err("two hexes");
        assert!(e.to_string().contains("is not adjacent"), "{e}");
        play(
            &mut f,
            &c,
            Play::Move {
                unit: Hex::ORIGIN,
                to: Hex::new(0, -1),
                facing: Some(Dir::S),
                instant: false,
            },
        )
        .expect("one hex");
        assert_eq!(f.at_hex(Hex::new(0, -1)).map(|p| p.facing), Some(Dir::S));
    }

    #[test]
    fn mobility_is_once_per_unit_per_turn_and_follows_the_unit() {
        let c = catalog();
        let mut f = field(&c, &[("runner", 0, 0, 0), ("runner", 0, 1, 1)]);
        let mut turn = Turn::new(Seat::new(0));
        let first = Play::Move {
            unit: Hex::ORIGIN,
            to: Hex::new(0, -1),
            facing: None,
            instant: false,
        };
        play_in(&mut f, &c, &mut turn, first).expect("first move");
        let again = Play::Move {
            unit: Hex::new(0, -1),
            to: Hex::new(0, -2),
            facing: None,
            instant: false,
        };
        let e = play_in(&mut f, &c, &mut turn, again)
            .expect_err("second Mobility move of the same unit");
        assert!(
            e.to_string()
                .starts_with("move: the unit on [0, -1] has already used its Mobility"),
            "{e}"
        );
        let other = Play::Move {
            unit: Hex::new(1, 1),
            to: Hex::new(1, 0),
            facing: None,
            instant: false,
        };
        play_in(&mut f, &c, &mut turn, other).expect("another unit may still move");
        let instant = Play::Move {
            unit: Hex::new(0, -1),
            to: Hex::new(0, -2),
            facing: None,
            instant: true,
        };
        play_in(&mut f, &c, &mut turn, instant).expect("a Move instant is not Mobility");
        let back = Play::Move {
            unit: Hex::new(0, -2),
            to: Hex::new(0, -1),
            facing: None,
            instant: false,
        };
        play_in(&mut f, &c, &mut Turn::new(Seat::new(0)), back).expect("a new turn");
    }
}
