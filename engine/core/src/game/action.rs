//! Player actions: what a player may do in a game, the check that refuses an illegal one with the
//! rule it breaks, and the list of every legal action of a state.

use super::legal::Whole;
use super::{Game, LegalActions, Stage, is_instant};
use crate::battlefield::{Battlefield, MAX_PLAYERS, Seat, SetupError};
use crate::event::Event;
use crate::hex::{Dir, Hex};
use crate::hooks::Closed;
use crate::play::{Play, PlayChecker, PlayError};
use crate::rules::{ExtraDiscards, MobilityTiming};
use crate::shape::{BoardShape, Cell, bits};
use crate::tile::{Catalog, InstantEffect, TileKind, TileRef};
use std::fmt;

/// Everything a player can do. The game lists the legal ones ([`Game::legal_actions`]) and
/// refuses any other with an [`ActionError`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Action {
    /// Put a board tile from the hand on an empty hex (R3.3); during setup, the player's HQ (R2.3).
    Place {
        /// The held tile placed (the HQ during setup).
        tile: TileRef,
        /// The empty hex it goes on.
        hex: Hex,
        /// Which way its front edge points.
        facing: Dir,
    },
    /// Play an instant from the hand (section 5).
    Instant {
        /// The held instant played.
        tile: TileRef,
        /// What it is played on; the kind must fit the instant's effect.
        target: Target,
    },
    /// Mobility: the unit on `unit` moves to `to` (its own hex to only turn) facing `facing` (R3.13).
    Move {
        /// The player's unit that moves.
        unit: Hex,
        /// Where it ends: an empty hex in reach, or its own hex to only turn.
        to: Hex,
        /// Its facing afterwards.
        facing: Dir,
    },
    /// Put a held tile on the discard pile (R2.5.2, R2.5.3).
    Discard {
        /// The held tile discarded.
        tile: TileRef,
    },
    /// Bad draw: discard an all-instant hand and draw as many tiles again (R2.6).
    Redraw,
    /// Keep the tiles still held and end the turn (R2.5.5).
    EndTurn,
    /// An action a mod's game rule offers (docs/RULESETS.md, "Mod actions"), taken on one of the
    /// hexes or tiles its `targets` function lists, or with no target when it lists `"none"`.
    Rule {
        /// The rule's index in `Catalog::game_rules`.
        rule: u8,
        /// The action's index in the rule's `actions`.
        action: u8,
        /// The hex it is taken on; `None` for no target or a tile.
        target: Option<Hex>,
        /// The facing picked with the hex, for an action that asks for one (`facing = true`).
        facing: Option<Dir>,
        /// The tile of the player's army it is taken on, when its `targets` lists tiles
        /// (`{ tile = "army/tile" }`); `None` otherwise. Never given with a hex.
        tile: Option<TileRef>,
    },
}

/// What an instant is played on.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Target {
    /// No target: the Battle instant (R5.1).
    None,
    /// Move (R5.2): the unit on `unit` goes to `to` (or turns on its hex) facing `facing`.
    Move {
        /// The unit moved.
        unit: Hex,
        /// Where it ends, or its own hex to only turn.
        to: Hex,
        /// Its facing afterwards.
        facing: Dir,
    },
    /// Push (R5.3): the pushed unit's owner then picks where it goes.
    Push {
        /// The player's unit that pushes.
        pusher: Hex,
        /// The adjacent enemy unit pushed.
        target: Hex,
    },
    /// One unit (Sniper R5.5, Grenade R5.4).
    Unit(Hex),
    /// A hex (Air Strike / Bomb, R5.6).
    Hex(Hex),
}

/// Why an action is refused. The message says which rule and what to do instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionError {
    /// The game has a result; nothing more is played.
    GameOver,
    /// The game goes on but the player whose turn it is has no action at all: the game rules in
    /// play close every kind of action open to them now and offer none of their own (a
    /// restriction that closes the HQ's placement without an action of its rule to take).
    NothingOpen {
        /// The kinds of action the rules close, by their names in scripts (`hq`, `place`...).
        closed: String,
    },
    /// Setup: only the HQ may be placed (R2.3).
    PlaceHqFirst,
    /// A full hand after drawing: one tile must be discarded first (R2.5.2).
    DiscardFirst,
    /// The player does not hold the tile the action names.
    NotInHand {
        /// The tile's `army/tile` id.
        tile: String,
    },
    /// A board tile played as an instant, or the reverse.
    WrongKind {
        /// The tile's `army/tile` id.
        tile: String,
        /// What the tile actually is.
        kind: TileKind,
    },
    /// The placement breaks a rule of the board (an occupied or missing hex, a second HQ).
    Board(SetupError),
    /// The tile declares a linked unit (`[tile.linked]`) whose parts cannot go down with it here.
    Parts {
        /// The tile's `army/tile` id.
        tile: String,
        /// Why, in words ([`crate::battlefield::PartsError::describe`]).
        why: String,
    },
    /// The instant's effect is refused; `name` is the instant's name.
    Play {
        /// The instant's name as printed.
        name: String,
        /// Why the effect is refused, with its rule.
        error: PlayError,
    },
    /// The instant is played on the wrong kind of [`Target`].
    WrongTarget {
        /// The instant's name as printed.
        name: String,
        /// The target it takes, in the words of the message.
        expected: &'static str,
    },
    /// The instant has no effect the engine can play (a scripted one needs its hook).
    NoEffect {
        /// The instant's `army/tile` id.
        tile: String,
    },
    /// A Battle tile played once a player has drawn their last tile (R2.8.2).
    BattleAfterLastTile,
    /// Q13: a unit used Mobility after tiles were played.
    TilesClosed,
    /// R9.1: the first turn of the alternative start plays at most one tile.
    OpeningLimit,
    /// R9.2: the turn has played (and, when they count, discarded) as many tiles as
    /// `tiles_per_turn` allows.
    TileLimit {
        /// The limit.
        limit: u8,
        /// Whether discards beyond the compulsory one count against it (`extra_discards`).
        discards_count: bool,
    },
    /// R9.2.1, R9.2.3: beyond the compulsory discard, held tiles are kept (`extra_discards =
    /// none`).
    MustKeep,
    /// A game rule's action that may not be taken now, or not on that target.
    RuleAction {
        /// `rule/action`.
        action: String,
        /// Why, and what to do.
        why: String,
    },
    /// A game rule in play closes this kind of action now (its `restrict` hook).
    ClosedByRule {
        /// The kind closed: `place`, `instant`, `move`, `discard` or `redraw`.
        what: &'static str,
    },
    /// A game rule in play closes the instants with this effect now (`close` naming it).
    InstantClosedByRule {
        /// The effect's name: `battle`, `move`, `push`, `wound`, `destroy_near_hq`, `area` or
        /// `scripted`.
        effect: &'static str,
    },
    /// A game rule in play blocks this hex now: no tile may be placed on it or moved to it.
    BlockedByRule {
        /// The hex.
        hex: Hex,
    },
    /// A game rule in play closes this hex to placing now (`block_place`, `place_only`): no
    /// tile may be placed on it from the hand, but units may still move there.
    PlacingBlockedByRule {
        /// The hex.
        hex: Hex,
    },
    /// R2.6 does not allow a redraw now; the reason is given.
    NoRedraw(&'static str),
    /// An ability hook failed during a battle the action started.
    Hook(crate::hooks::HookError),
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::GameOver => f.write_str("the game is over"),
            ActionError::NothingOpen { closed } => write!(
                f,
                "no action is open to the player whose turn it is: the game rules in play close {closed} now and offer no action of their own; a restriction that closes the HQ's placement must leave an action of its rule to take (`offered`, docs/RULESETS.md, \"Declared targets and restrictions\")"
            ),
            ActionError::PlaceHqFirst => {
                f.write_str("every player places their HQ before anything else (R2.3)")
            }
            ActionError::DiscardFirst => f.write_str(
                "you hold a full hand after drawing: discard one before anything else (R2.5.2)",
            ),
            ActionError::NotInHand { tile } => write!(f, "`{tile}` is not in your hand"),
            ActionError::WrongKind { tile, kind } => match kind {
                TileKind::Instant => write!(
                    f,
                    "`{tile}` is an instant: play it, it is never placed on the board (R3.16)"
                ),
                _ => write!(f, "`{tile}` is a board tile: place it on a hex (R3.3)"),
            },
            ActionError::Board(e) => write!(f, "{e}"),
            ActionError::Parts { tile, why } => write!(
                f,
                "`{tile}` is placed with its parts as one linked unit (`[tile.linked]`), but {why}: place it on another hex or face it another way"
            ),
            ActionError::Play { name, error } => write!(f, "{name}: {}", error.reason),
            ActionError::WrongTarget { name, expected } => {
                write!(f, "{name}: the target must be {expected}")
            }
            ActionError::NoEffect { tile } => write!(
                f,
                "`{tile}` has no instant effect the engine can play: give it `[tile.instant]` or a script hook"
            ),
            ActionError::BattleAfterLastTile => f.write_str(
                "battle: no Battle tile may be played once a player has drawn their last tile (R2.8.2)",
            ),
            ActionError::TilesClosed => f.write_str(
                "no more tiles this turn: a unit used Mobility after tiles were played (`mobility_timing = before_or_after_placing`, R3.13, Q13)",
            ),
            ActionError::OpeningLimit => f.write_str(
                "the first turn plays at most one tile when hands are full from the first turn (`alternative_start`, R9.1, R9.2.3): keep the others",
            ),
            ActionError::TileLimit {
                limit,
                discards_count: false,
            } => write!(
                f,
                "you have played {limit} tiles this turn, the most `tiles_per_turn` allows: keep the others for a later turn (R9.2)"
            ),
            ActionError::TileLimit {
                limit,
                discards_count: true,
            } => write!(
                f,
                "you have played or discarded {limit} tiles this turn besides the compulsory discard, the most `tiles_per_turn` allows: keep the others for a later turn (R9.2.2)"
            ),
            ActionError::MustKeep => f.write_str(
                "no more discards this turn: the tiles you neither play nor discarded first are kept for a later turn (`extra_discards = none`, R9.2.1, R9.2.3)",
            ),
            ActionError::NoRedraw(why) => write!(f, "no redraw: {why} (R2.6)"),
            ActionError::RuleAction { action, why } => {
                write!(f, "the action `{action}` is refused: {why}")
            }
            ActionError::ClosedByRule { what } => write!(
                f,
                "a game rule in play closes `{what}` actions now (its `restrict` hook): take another action, or end the turn"
            ),
            ActionError::InstantClosedByRule { effect } => write!(
                f,
                "a game rule in play closes `{effect}` instants now (its `restrict` hook): play another tile, or end the turn"
            ),
            ActionError::BlockedByRule { hex } => write!(
                f,
                "a game rule in play blocks {hex} now (its `restrict` hook): no tile may be placed on it or moved to it"
            ),
            ActionError::PlacingBlockedByRule { hex } => write!(
                f,
                "a game rule in play closes {hex} to placing now (its `restrict` hook): place the tile on another hex; units may still move there"
            ),
            ActionError::Hook(e) => write!(f, "an ability script failed: {e}"),
        }
    }
}

impl std::error::Error for ActionError {}

/// A checked action, ready to perform.
pub(super) enum Checked {
    Place {
        tile: TileRef,
        cell: Cell,
        facing: Dir,
    },
    Discard(TileRef),
    Redraw,
    EndTurn,
    Battle(TileRef),
    /// An instant (`Some(tile)`) or Mobility (`None`) resolved as a core play.
    Play(Option<TileRef>, Play),
    /// A scripted instant played on a cell its scripts listed, or with no target.
    Scripted {
        tile: TileRef,
        target: Option<Cell>,
    },
    /// A Push: the pushed unit's owner picks one of `options`.
    Push {
        tile: TileRef,
        pusher: Cell,
        target: Cell,
        options: u64,
    },
    /// A game rule's action on a target its `targets` function listed.
    Rule {
        rule: usize,
        action: usize,
        target: Option<Cell>,
        facing: Option<Dir>,
        tile: Option<TileRef>,
    },
}

/// Who might use Mobility on a board, before its views are worked out. The game keeps it from one
/// action to the next, following the tiles placed, moved and removed (`Game::movers`).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(super) struct Movers {
    /// Each player's units.
    owned: [u64; MAX_PLAYERS],
    /// The units with the Mobility icon, any player's.
    mobile: u64,
    /// The tiles that give Mobility: while there is one, other units may be carried (R7.4.4; any
    /// owner's: a hijacked module works for the hijacker's side, R7.1.3).
    carriers: u64,
}

impl Movers {
    /// One pass over the board.
    pub(super) fn of(field: &Battlefield, catalog: &Catalog) -> Self {
        let mut movers = Movers::default();
        for (c, p) in field.tiles() {
            movers.count(catalog, c, p.owner, p.tile);
        }
        movers
    }

    /// Follows an event that changes the board: a tile placed, moved or removed.
    #[inline]
    pub(super) fn follow(&mut self, catalog: &Catalog, event: &Event) {
        match *event {
            Event::Placed {
                cell, tile, owner, ..
            }
            | Event::Fielded {
                cell, tile, owner, ..
            }
            | Event::Joined {
                cell, tile, owner, ..
            } => self.count(catalog, cell, owner, tile),
            Event::Moved { from, to, .. } => {
                let shift = |m: &mut u64| {
                    if *m & from.bit() != 0 {
                        *m = *m & !from.bit() | to.bit();
                    }
                };
                self.owned.iter_mut().for_each(shift);
                shift(&mut self.mobile);
                shift(&mut self.carriers);
            }
            Event::Removed { cell, .. } | Event::Lifted { cell, .. } => {
                let gone = !cell.bit();
                self.owned.iter_mut().for_each(|m| *m &= gone);
                self.mobile &= gone;
                self.carriers &= gone;
            }
            _ => {}
        }
    }

    fn count(&mut self, catalog: &Catalog, c: Cell, owner: Seat, tile: TileRef) {
        if let Some(owned) = self.owned.get_mut(owner.index()) {
            *owned |= c.bit();
        }
        let traits = catalog.traits(tile);
        if traits.mobile {
            self.mobile |= c.bit();
        }
        if traits.gives_mobility {
            self.carriers |= c.bit();
        }
    }

    /// Whether any unit of `player` might move.
    fn any(self, player: Seat) -> bool {
        self.mobile & self.own(player) != 0 || self.carriers != 0
    }

    fn own(self, player: Seat) -> u64 {
        self.owned.get(player.index()).copied().unwrap_or(0)
    }

    /// The units that may use Mobility: the player's, mobile or carried, not netted (R6.1.3), not
    /// moved with Mobility this turn (`used`, R3.13). These are all the tests of a Mobility check
    /// that turns a unit in place.
    fn units(self, player: Seat, checker: &PlayChecker<'_>, used: u64) -> u64 {
        self.own(player) & (self.mobile | checker.carried()) & !checker.pinned() & !used
    }
}

/// What an instant's check found.
enum Found {
    Battle,
    Push {
        pusher: Cell,
        target: Cell,
        options: u64,
    },
    Play(Play),
}

/// Why an instant's target fails, before it is worded as an [`ActionError`].
enum Miss {
    BattleAfterLastTile,
    Target(&'static str),
    Play(PlayError),
}

impl Action {
    /// The action in words, for logs.
    pub fn describe(&self, catalog: &Catalog) -> String {
        let name = |t: TileRef| catalog.get(t).name.clone();
        match *self {
            Action::Place { tile, hex, facing } => {
                format!("place {} on {hex} facing {}", name(tile), facing.index())
            }
            Action::Instant { tile, target } => match target {
                Target::None => format!("play {}", name(tile)),
                Target::Move { unit, to, facing } if unit == to => {
                    format!(
                        "play {}: turn {unit} to face {}",
                        name(tile),
                        facing.index()
                    )
                }
                Target::Move { unit, to, facing } => format!(
                    "play {}: {unit} to {to} facing {}",
                    name(tile),
                    facing.index()
                ),
                Target::Push { pusher, target } => {
                    format!("play {}: {pusher} pushes {target}", name(tile))
                }
                Target::Unit(h) | Target::Hex(h) => format!("play {} on {h}", name(tile)),
            },
            Action::Move { unit, to, facing } if unit == to => {
                format!("turn {unit} to face {}", facing.index())
            }
            Action::Move { unit, to, facing } => {
                format!("move {unit} to {to} facing {}", facing.index())
            }
            Action::Discard { tile } => format!("discard {}", name(tile)),
            Action::Redraw => "redraw an all-instant hand".to_string(),
            Action::EndTurn => "end the turn".to_string(),
            Action::Rule {
                rule,
                action,
                target,
                facing,
                tile,
            } => {
                let name = catalog
                    .game_rules()
                    .get(usize::from(rule))
                    .and_then(|r| r.actions.get(usize::from(action)))
                    .map_or_else(
                        || format!("rule action {rule}.{action}"),
                        |a| a.name.clone(),
                    );
                match (target, facing, tile) {
                    (Some(h), Some(f), _) => format!("{name} on {h} facing {}", f.index()),
                    (Some(h), None, _) => format!("{name} on {h}"),
                    (None, _, Some(t)) => format!("{name} on {}", catalog.get(t).full_id()),
                    (None, _, None) => name,
                }
            }
        }
    }
}

impl Game {
    /// Checks an action of the current player; nothing changes.
    pub fn check(&self, action: &Action) -> Result<(), ActionError> {
        self.check_action(action).map(|_| ())
    }

    pub(super) fn check_action(&self, action: &Action) -> Result<Checked, ActionError> {
        // A rule's action, in play or not, is the rule's to check (one not in play is refused
        // naming the option that turns it on).
        if let Action::Rule {
            rule,
            action,
            target,
            facing,
            tile,
        } = *action
        {
            return self.rule_action(
                usize::from(rule),
                usize::from(action),
                (target, facing, tile),
            );
        }
        // A game with no rule in play tests one flag.
        if !self.rule_points.is_empty() && !self.restriction.is_open() {
            self.open_to(action)?;
        }
        let player = self.state.turn.player();
        let cat = &*self.catalog;
        match self.stage {
            Stage::Over(_) => Err(ActionError::GameOver),
            Stage::PlaceHq => match *action {
                Action::Place { tile, hex, facing } if cat.get(tile).is_hq() => {
                    if cat.get(tile).army != self.armies[player.index()] {
                        return Err(ActionError::NotInHand {
                            tile: cat.get(tile).full_id(),
                        });
                    }
                    self.place(tile, hex, facing)
                }
                _ => Err(ActionError::PlaceHqFirst),
            },
            Stage::Discard => match *action {
                Action::Discard { tile } => {
                    self.held(tile)?;
                    Ok(Checked::Discard(tile))
                }
                Action::Redraw => self.redraw(),
                _ => Err(ActionError::DiscardFirst),
            },
            Stage::Play => match *action {
                Action::Rule { .. } => unreachable!("a rule's action is checked before the stage"),
                Action::Redraw => self.redraw(),
                Action::Discard { tile } => {
                    self.held(tile)?;
                    self.may_discard()?;
                    Ok(Checked::Discard(tile))
                }
                Action::EndTurn => Ok(Checked::EndTurn),
                Action::Place { tile, hex, facing } => {
                    self.held(tile)?;
                    let def = cat.get(tile);
                    if def.kind == TileKind::Instant || def.is_hq() {
                        return Err(ActionError::WrongKind {
                            tile: def.full_id(),
                            kind: def.kind,
                        });
                    }
                    self.may_play_tile()?;
                    self.place(tile, hex, facing)
                }
                Action::Instant { tile, target } => {
                    self.held(tile)?;
                    let def = cat.get(tile);
                    if def.kind != TileKind::Instant {
                        return Err(ActionError::WrongKind {
                            tile: def.full_id(),
                            kind: def.kind,
                        });
                    }
                    self.may_play_tile()?;
                    if def.instant == Some(InstantEffect::Scripted) {
                        return self.scripted_target(tile, target);
                    }
                    let checker = self.checker();
                    match self.instant(&checker, tile, target)? {
                        Found::Battle => Ok(Checked::Battle(tile)),
                        Found::Push {
                            pusher,
                            target,
                            options,
                        } => Ok(Checked::Push {
                            tile,
                            pusher,
                            target,
                            options,
                        }),
                        Found::Play(play) => Ok(Checked::Play(Some(tile), play)),
                    }
                }
                Action::Move { unit, to, facing } => {
                    let play = Play::Move {
                        unit,
                        to,
                        facing: Some(facing),
                        instant: false,
                    };
                    self.checker()
                        .check(&self.state.turn, &play)
                        .map_err(|error| ActionError::Play {
                            name: "mobility".into(),
                            error,
                        })?;
                    Ok(Checked::Play(None, play))
                }
            },
        }
    }

    /// The error of a game that goes on with no legal action listed: what the rules close now.
    pub fn nothing_open(&self) -> ActionError {
        if self.result().is_some() {
            return ActionError::GameOver;
        }
        let closed: Vec<String> = Closed::ALL
            .iter()
            .filter(|(k, _)| self.restriction.closed.contains(*k))
            .map(|(_, n)| format!("`{n}`"))
            .collect();
        ActionError::NothingOpen {
            closed: if closed.is_empty() {
                "the hexes a tile could go on".to_string()
            } else {
                closed.join(", ")
            },
        }
    }

    fn held(&self, tile: TileRef) -> Result<(), ActionError> {
        if self.hand(self.state.turn.player()).contains(&tile) {
            Ok(())
        } else {
            Err(ActionError::NotInHand {
                tile: self.catalog.get(tile).full_id(),
            })
        }
    }

    /// A game rule's action: listed by its `targets` function after the last action, on a target
    /// it listed.
    #[cold]
    #[inline(never)]
    fn rule_action(
        &self,
        rule: usize,
        action: usize,
        (target, facing, tile): (Option<Hex>, Option<Dir>, Option<TileRef>),
    ) -> Result<Checked, ActionError> {
        if let Stage::Over(_) = self.stage {
            return Err(ActionError::GameOver);
        }
        let def = self
            .catalog
            .game_rules()
            .get(rule)
            .and_then(|r| r.actions.get(action));
        let asks_facing = def.is_some_and(|a| a.facing);
        // What lists its targets, in the refusals: its script function or its declaration.
        let lists = if def.is_some_and(|a| a.declared.is_some()) {
            "its declared `targets` lists"
        } else {
            "its `targets` function lists"
        };
        let name = || {
            self.catalog
                .game_rules()
                .get(rule)
                .and_then(|r| Some(format!("{}/{}", r.name, r.actions.get(action)?.name)))
                .unwrap_or_else(|| format!("rule {rule}, action {action}"))
        };
        let Some(listed) = self.rule_action_targets(rule, action) else {
            return Err(ActionError::RuleAction {
                action: name(),
                why: match self.rule_action_refusal(rule, action) {
                    Some(why) => format!("it may not be taken now: {why}"),
                    None => self.unoffered(rule, action),
                },
            });
        };
        let shape = self.field.shape();
        match (asks_facing, target.is_some(), facing.is_some()) {
            (true, true, false) => {
                return Err(ActionError::RuleAction {
                    action: name(),
                    why: "it needs a facing with its hex (0 north to 5, clockwise): it puts a tile down".into(),
                });
            }
            (false, _, true) | (true, false, true) => {
                return Err(ActionError::RuleAction {
                    action: name(),
                    why: "it takes no facing: leave the facing out".into(),
                });
            }
            _ => {}
        }
        if let Some(tile) = tile {
            let army = self
                .catalog
                .army(&self.armies[self.state.turn.player().index()]);
            return match army {
                _ if target.is_some() => Err(ActionError::RuleAction {
                    action: name(),
                    why: "it is taken on a hex or on a tile, not both".into(),
                }),
                Some(army) if listed.has_tile(army, tile) => Ok(Checked::Rule {
                    rule,
                    action,
                    target: None,
                    facing: None,
                    tile: Some(tile),
                }),
                _ => Err(ActionError::RuleAction {
                    action: name(),
                    why: format!(
                        "`{}` is not among the tiles {lists}",
                        self.catalog.get(tile).full_id()
                    ),
                }),
            };
        }
        match target {
            None if listed.none => Ok(Checked::Rule {
                rule,
                action,
                target: None,
                facing: None,
                tile: None,
            }),
            None => Err(ActionError::RuleAction {
                action: name(),
                why: if listed.cells == 0 && listed.tiles != 0 {
                    format!("it needs a tile: one of the tiles {lists}")
                } else {
                    format!("it needs a target: one of the hexes {lists}")
                },
            }),
            Some(hex) => match shape.cell(hex) {
                Some(cell) if listed.has(cell) => Ok(Checked::Rule {
                    rule,
                    action,
                    target: Some(cell),
                    facing,
                    tile: None,
                }),
                _ => Err(ActionError::RuleAction {
                    action: name(),
                    why: format!("{hex} is not among the targets {lists}"),
                }),
            },
        }
    }

    /// Why a rule action whose `targets` listed nothing may not be taken: what it declares
    /// (`stages`, `after_discard`, `before_placing`, `lacks`, `marker`) kept it from being
    /// offered, with the rule it `cites`, or its `targets` said nothing.
    #[cold]
    fn unoffered(&self, rule: usize, action: usize) -> String {
        use super::scripts::KeptBack;
        let Some(def) = self
            .catalog
            .game_rules()
            .get(rule)
            .and_then(|r| r.actions.get(action))
        else {
            return "no game rule offers it".into();
        };
        if self.rules_in_play & (1 << rule) == 0 {
            let r = &self.catalog.game_rules()[rule];
            let needs: Vec<String> = r
                .when
                .iter()
                .map(|(key, value)| match value {
                    crate::tile::ParamValue::Str(s) => format!("{key}={s}"),
                    other => format!("{key}={other}"),
                })
                .collect();
            return format!(
                "its rule `{}` is not in play in this game: it plays when {} (`--option {}`, or a preset that sets it)",
                r.name,
                needs.join(" and "),
                needs.first().map_or("", String::as_str)
            );
        }
        let (why, key) = match self.kept_back(def) {
            Some(KeptBack::TurnFull) => {
                return format!(
                    "the turn has taken {} rule actions, the most a turn takes: end the turn",
                    super::MAX_RULE_ACTIONS_PER_TURN
                );
            }
            Some(KeptBack::Stages(flags)) => {
                let names: Vec<&str> = crate::tile::RuleAction::STAGES
                    .iter()
                    .filter(|(f, _, _)| flags & f != 0)
                    .map(|(_, _, name)| *name)
                    .collect();
                (
                    format!("it is offered only during {}", names.join(" or ")),
                    "stages",
                )
            }
            Some(KeptBack::AfterDiscard) => (
                "it is offered only once a tile has been discarded this turn".to_string(),
                "after_discard",
            ),
            Some(KeptBack::BeforePlacing) => (
                "it is offered only in a turn in which no tile has been placed yet".to_string(),
                "before_placing",
            ),
            Some(KeptBack::Lacks(m)) => (
                format!("it is not offered to a player who carries the marker `{m}`"),
                "lacks",
            ),
            Some(KeptBack::Marker(m)) => (
                format!("it is offered only to a player who carries the marker `{m}`"),
                "marker",
            ),
            Some(KeptBack::Count(m, n, true)) => (
                format!("it is offered only while the player's marker `{m}` is at least {n}"),
                "at_least",
            ),
            Some(KeptBack::Count(m, n, false)) => (
                format!("it is offered only while the player's marker `{m}` is below {n}"),
                "below",
            ),
            None => return "it may not be taken now (its `targets` function lists nothing)".into(),
        };
        let said = if def.cites.is_empty() {
            format!("it may not be taken now: {why} (its `{key}`)")
        } else {
            format!(
                "it may not be taken now: {why} (its `{key}`; {})",
                def.cites
            )
        };
        if key != "stages" {
            return said;
        }
        let now = crate::tile::RuleAction::STAGES
            .iter()
            .find(|(f, _, _)| self.stage.rule_flag() & f != 0)
            .map_or("over", |(_, _, name)| *name);
        format!("{said}, and the turn is in {now} now")
    }

    /// Whether what the game rules' `restrict` hooks closed leaves `action` open.
    #[cold]
    #[inline(never)]
    fn open_to(&self, action: &Action) -> Result<(), ActionError> {
        let r = self.restriction;
        let shape = self.field.shape();
        let blocked = |hex: Hex| shape.cell(hex).is_some_and(|c| r.blocked & c.bit() != 0);
        if let Action::Place { hex, .. } = *action
            && self.stage != Stage::PlaceHq
            && shape.cell(hex).is_some_and(|c| r.no_place & c.bit() != 0)
        {
            return Err(ActionError::PlacingBlockedByRule { hex });
        }
        let closed = |kind: Closed| r.closed.contains(kind);
        let (kind, to) = match *action {
            Action::Place { hex, .. } if self.stage == Stage::PlaceHq => {
                (Some(Closed::HQ), Some(hex))
            }
            Action::Place { hex, .. } => (Some(Closed::PLACE), Some(hex)),
            Action::Instant { target, .. } => (
                Some(Closed::INSTANT),
                match target {
                    Target::Move { unit, to, .. } if to != unit => Some(to),
                    _ => None,
                },
            ),
            Action::Move { unit, to, .. } => (Some(Closed::MOVE), (to != unit).then_some(to)),
            Action::Discard { .. } if self.stage == Stage::Play => (Some(Closed::DISCARD), None),
            Action::Redraw => (Some(Closed::REDRAW), None),
            _ => (None, None),
        };
        if let Some(kind) = kind.filter(|k| closed(*k)) {
            let what = Closed::ALL
                .iter()
                .find(|(k, _)| *k == kind)
                .map_or("", |(_, n)| *n);
            return Err(ActionError::ClosedByRule { what });
        }
        if r.instants != 0
            && let Action::Instant { tile, .. } = *action
            && let Some(effect) = self.catalog.get(tile).instant
            && r.instants & (1 << effect.number()) != 0
        {
            return Err(ActionError::InstantClosedByRule {
                effect: effect.name(),
            });
        }
        match to {
            Some(hex) if blocked(hex) => Err(ActionError::BlockedByRule { hex }),
            _ => Ok(()),
        }
    }

    fn may_play_tile(&self) -> Result<(), ActionError> {
        if self.state.tiles_closed {
            return Err(ActionError::TilesClosed);
        }
        if self.rules.alternative_start && self.turn_number == 1 && self.state.tiles_played >= 1 {
            return Err(ActionError::OpeningLimit);
        }
        self.within_tile_limit()
    }

    /// R9.2: the tiles played this turn, and the discards that count, are below `tiles_per_turn`.
    fn within_tile_limit(&self) -> Result<(), ActionError> {
        match self.rules.tiles_per_turn {
            0 => Ok(()),
            limit if self.state.tiles_played + self.state.discards_counted >= limit => {
                Err(ActionError::TileLimit {
                    limit,
                    discards_count: self.rules.extra_discards == ExtraDiscards::Counted,
                })
            }
            _ => Ok(()),
        }
    }

    /// Whether a held tile may be discarded in the play stage (the compulsory discard is the
    /// discard stage's): always (R2.5.3), within `tiles_per_turn` (R9.2.2), or never (R9.2.1).
    fn may_discard(&self) -> Result<(), ActionError> {
        match self.rules.extra_discards {
            ExtraDiscards::Free => Ok(()),
            ExtraDiscards::Counted => self.within_tile_limit(),
            ExtraDiscards::None => Err(ActionError::MustKeep),
        }
    }

    fn place(&self, tile: TileRef, hex: Hex, facing: Dir) -> Result<Checked, ActionError> {
        let player = self.state.turn.player();
        match self
            .field
            .check_place(&self.catalog, player, tile, hex, facing)
            .map_err(ActionError::Board)?
        {
            crate::event::Event::Placed { cell, .. } => {
                self.field
                    .assemble(&self.catalog, player, tile, cell, facing)
                    .map_err(|e| ActionError::Parts {
                        tile: self.catalog.get(tile).full_id(),
                        why: e.describe(&self.catalog),
                    })?;
                Ok(Checked::Place { tile, cell, facing })
            }
            _ => Err(ActionError::Board(SetupError::OffBoard { hex })),
        }
    }

    /// R2.6: the redraw is open before anything else is done in the turn, when every held tile is
    /// an instant (Battle tiles included) and the rule is on for this army.
    pub(super) fn redraw_open(&self) -> Result<(), &'static str> {
        let p = self.state.turn.player();
        let rules = &self.rules;
        if !rules.bad_draw_rule {
            return Err("the bad-draw rule is off (`bad_draw_rule`)");
        }
        let army = &self.armies[p.index()];
        let name = self
            .catalog
            .army(army)
            .map(|a| a.name.as_str())
            .unwrap_or("");
        if rules
            .bad_draw_exempt_armies
            .iter()
            .any(|x| x.eq_ignore_ascii_case(army) || x.eq_ignore_ascii_case(name))
        {
            return Err("this army is exempt (`bad_draw_exempt_armies`)");
        }
        if self.state.acted {
            return Err("only before anything else is done in the turn");
        }
        if !self.all_instants() {
            return Err("only when every tile you hold is an instant");
        }
        if rules.bad_draw_full_hand && self.hand(p).len() < usize::from(rules.hand_size) {
            return Err(
                "only when you hold a full hand of instants (`bad_draw_full_hand`, R9.2.2)",
            );
        }
        if self.deck_len(p) == 0 {
            return Err("your draw pile is empty");
        }
        Ok(())
    }

    fn all_instants(&self) -> bool {
        let hand = self.hand(self.state.turn.player());
        !hand.is_empty() && hand.iter().all(|t| is_instant(&self.catalog, *t))
    }

    /// Whether a redraw is legal, for listing: the cheap tests first.
    fn may_redraw(&self) -> bool {
        !self.state.acted && self.all_instants() && self.redraw_open().is_ok()
    }

    fn redraw(&self) -> Result<Checked, ActionError> {
        self.redraw_open().map_err(ActionError::NoRedraw)?;
        Ok(Checked::Redraw)
    }

    fn instant(
        &self,
        checker: &PlayChecker<'_>,
        tile: TileRef,
        target: Target,
    ) -> Result<Found, ActionError> {
        let def = self.catalog.get(tile);
        let Some(effect) = def.instant else {
            return Err(ActionError::NoEffect {
                tile: def.full_id(),
            });
        };
        self.instant_target(checker, effect, target)
            .map_err(|miss| match miss {
                Miss::BattleAfterLastTile => ActionError::BattleAfterLastTile,
                Miss::Target(expected) => ActionError::WrongTarget {
                    name: def.name.to_lowercase(),
                    expected,
                },
                Miss::Play(error) => ActionError::Play {
                    name: def.name.to_lowercase(),
                    error,
                },
            })
    }

    /// A scripted instant's target: one its scripts listed after the last action (a hex of the
    /// board, or none).
    fn scripted_target(&self, tile: TileRef, target: Target) -> Result<Checked, ActionError> {
        let listed = self.instant_targets(tile).unwrap_or_default();
        let wrong = |expected| ActionError::WrongTarget {
            name: self.catalog.get(tile).name.to_lowercase(),
            expected,
        };
        match target {
            Target::None if listed.none => Ok(Checked::Scripted { tile, target: None }),
            Target::Hex(h) => match self.field.shape().cell(h) {
                Some(c) if listed.has(c) => Ok(Checked::Scripted {
                    tile,
                    target: Some(c),
                }),
                _ => Err(wrong(if listed.is_empty() {
                    "one its script lists, and it lists none now"
                } else {
                    "a hex its script lists"
                })),
            },
            _ if listed.none && listed.cells == 0 => Err(wrong("none: it is played on nothing")),
            _ if listed.is_empty() => Err(wrong("one its script lists, and it lists none now")),
            _ => Err(wrong("a hex its script lists")),
        }
    }

    /// What an instant's effect does on a target, or why it cannot; no text is made here, since
    /// listing the legal actions tries many targets that fail.
    fn instant_target(
        &self,
        checker: &PlayChecker<'_>,
        effect: InstantEffect,
        target: Target,
    ) -> Result<Found, Miss> {
        let play = match (effect, target) {
            (InstantEffect::Battle, Target::None) => {
                self.battle_open()?;
                return Ok(Found::Battle);
            }
            (InstantEffect::Battle, _) => return Err(Miss::Target("none: a Battle has no target")),
            (InstantEffect::Move, Target::Move { unit, to, facing }) => Play::Move {
                unit,
                to,
                facing: Some(facing),
                instant: true,
            },
            (InstantEffect::Move, _) => return Err(Miss::Target("a unit, a hex and a facing")),
            (InstantEffect::Push, Target::Push { pusher, target }) => {
                let cell = |h: Hex| self.field.shape().cell(h);
                let options = match (cell(pusher), cell(target)) {
                    (Some(p), Some(t)) => checker.push_destinations(p, t),
                    _ => 0,
                };
                // Any legal destination checks the push; the owner picks the real one later.
                let to = bits(options)
                    .next()
                    .map(|i| {
                        self.field
                            .shape()
                            .hex(self.field.shape().cell_from_index(i))
                    })
                    .unwrap_or(target);
                let play = Play::Push { pusher, target, to };
                checker.check(&self.state.turn, &play).map_err(Miss::Play)?;
                let (Some(pusher), Some(target)) = (cell(pusher), cell(target)) else {
                    return Err(Miss::Target("two units on the board"));
                };
                return Ok(Found::Push {
                    pusher,
                    target,
                    options,
                });
            }
            (InstantEffect::Push, _) => return Err(Miss::Target("a pusher and a unit to push")),
            (InstantEffect::Wound { wounds }, Target::Unit(h)) => Play::Wound { target: h, wounds },
            (InstantEffect::DestroyNearHq, Target::Unit(h)) => Play::DestroyNearHq { target: h },
            (InstantEffect::Wound { .. } | InstantEffect::DestroyNearHq, _) => {
                return Err(Miss::Target("one unit"));
            }
            (InstantEffect::Area { wounds, radius }, Target::Hex(h)) => Play::Area {
                at: h,
                wounds,
                radius,
            },
            (InstantEffect::Area { .. }, _) => return Err(Miss::Target("a hex")),
            // Checked against the list its scripts gave (`scripted_target`), never here.
            (InstantEffect::Scripted, _) => return Err(Miss::Target("a hex its script lists")),
        };
        checker.check(&self.state.turn, &play).map_err(Miss::Play)?;
        Ok(Found::Play(play))
    }

    /// R2.8.2: no Battle tile once a last tile has been drawn.
    fn battle_open(&self) -> Result<(), Miss> {
        if self.last_drawn {
            Err(Miss::BattleAfterLastTile)
        } else {
            Ok(())
        }
    }

    /// Every legal action of the current player, in a fixed order: redraw, discards, then for each
    /// distinct held tile in hand order its placements (hexes in reading order, then facings) or
    /// its instants, then Mobility moves, then ending the turn.
    pub fn legal_actions(&self, out: &mut LegalActions) {
        let player = self.state.turn.player();
        let field = &self.field;
        let shape = field.shape();
        out.clear(shape);
        let empty = shape.all() & !field.occupied();
        match self.stage {
            Stage::Over(_) => {}
            Stage::PlaceHq => {
                // The HQ attacks on all sides, so its facing does not matter (R2.3): one per hex.
                if let Some(hq) = self.catalog.hq_of(&self.armies[player.index()]) {
                    for i in bits(empty) {
                        out.push(Action::Place {
                            tile: hq,
                            hex: shape.hex(shape.cell_from_index(i)),
                            facing: Dir::N,
                        });
                    }
                }
            }
            Stage::Discard => {
                if self.may_redraw() {
                    out.push(Action::Redraw);
                }
                for tile in self.distinct_hand() {
                    out.push(Action::Discard { tile });
                }
            }
            Stage::Play => {
                if self.may_redraw() {
                    out.push(Action::Redraw);
                }
                if self.may_discard().is_ok() {
                    for tile in self.distinct_hand() {
                        out.push(Action::Discard { tile });
                    }
                }
                if self.may_play_tile().is_ok() {
                    for tile in self.distinct_hand() {
                        let def = self.catalog.get(tile);
                        if self.catalog.assembly(tile).is_some() {
                            self.assembly_placements(tile, empty, out);
                        } else if def.kind.is_board_tile() {
                            out.push_placements(tile, empty);
                        } else {
                            self.instant_actions(tile, out);
                        }
                    }
                }
                let movers = self.movers();
                if movers.any(player) {
                    let checker = self.checker();
                    let units = movers.units(player, &checker, self.state.turn.mobility_used());
                    self.unit_moves(&checker, false, units, |unit, facing, to| {
                        out.push_moves(None, unit, facing, to);
                    });
                }
                out.push(Action::EndTurn);
            }
        }
        if !self.rule_points.is_empty()
            && (!self.rule_targets.is_empty() || !self.restriction.is_open())
        {
            self.legal_by_rules(out);
        }
    }

    /// The placements of a tile that declares a linked unit (`[tile.linked]`): each empty hex of
    /// `empty` and facing where its parts can go down with it, in reading order, then facings.
    #[cold]
    fn assembly_placements(&self, tile: TileRef, empty: u64, out: &mut LegalActions) {
        let player = self.state.turn.player();
        let shape = self.field.shape();
        for i in bits(empty) {
            let cell = shape.cell_from_index(i);
            for facing in Dir::ALL {
                if self
                    .field
                    .assemble(&self.catalog, player, tile, cell, facing)
                    .is_ok()
                {
                    out.push(Action::Place {
                        tile,
                        hex: shape.hex(cell),
                        facing,
                    });
                }
            }
        }
    }

    /// What the game rules change in the list of legal actions: what their `restrict` hooks
    /// closed is taken out, the actions their `targets` functions listed are added.
    #[cold]
    #[inline(never)]
    fn legal_by_rules(&self, out: &mut LegalActions) {
        let shape = self.field.shape();
        if !self.restriction.is_open() {
            // A rule closes something now: runs are narrowed as a whole, exactly as `open_to`
            // would judge each of their actions, and the other actions judged one by one.
            let r = self.restriction;
            let hq = self.stage == Stage::PlaceHq;
            out.retain(
                |run| match run {
                    Whole::Place { cells, .. } => {
                        let kind = if hq { Closed::HQ } else { Closed::PLACE };
                        let no_place = if hq { 0 } else { r.no_place };
                        (!r.closed.contains(kind)).then_some(cells & !no_place & !r.blocked)
                    }
                    Whole::Move { tile, unit, to } => {
                        let closed = match tile {
                            None => r.closed.contains(Closed::MOVE),
                            Some(tile) => {
                                r.closed.contains(Closed::INSTANT)
                                    || self
                                        .catalog
                                        .get(tile)
                                        .instant
                                        .is_some_and(|e| r.instants & (1 << e.number()) != 0)
                            }
                        };
                        // Turning in place goes nowhere: only a move's destination is blocked.
                        (!closed).then_some(to & !(r.blocked & !unit.bit()))
                    }
                },
                |a| self.open_to(a).is_ok(),
            );
        }
        if !matches!(self.stage, Stage::Over(_)) {
            for (rule, action, targets) in self.rule_actions() {
                let asks_facing = self.catalog.game_rules()[rule].actions[action].facing;
                let (rule, action) = (rule as u8, action as u8);
                if targets.none {
                    out.push(Action::Rule {
                        rule,
                        action,
                        target: None,
                        facing: None,
                        tile: None,
                    });
                }
                if targets.tiles != 0 {
                    let army = &self.armies[self.state.turn.player().index()];
                    if let Some(army) = self.catalog.army(army) {
                        for tile in targets.tiles_of(army) {
                            out.push(Action::Rule {
                                rule,
                                action,
                                target: None,
                                facing: None,
                                tile: Some(tile),
                            });
                        }
                    }
                }
                for hex in targets.hexes(shape) {
                    if asks_facing {
                        for f in Dir::ALL {
                            out.push(Action::Rule {
                                rule,
                                action,
                                target: Some(hex),
                                facing: Some(f),
                                tile: None,
                            });
                        }
                    } else {
                        out.push(Action::Rule {
                            rule,
                            action,
                            target: Some(hex),
                            facing: None,
                            tile: None,
                        });
                    }
                }
            }
        }
    }

    fn distinct_hand(&self) -> impl Iterator<Item = TileRef> + '_ {
        let hand = self.hand(self.state.turn.player());
        debug_assert!(hand.len() <= usize::from(self.rules.hand_size));
        hand.iter()
            .enumerate()
            .filter(|(i, t)| !hand[..*i].contains(t))
            .map(|(_, t)| *t)
    }

    fn instant_actions(&self, tile: TileRef, out: &mut LegalActions) {
        let Some(effect) = self.catalog.get(tile).instant else {
            return;
        };
        if effect == InstantEffect::Scripted {
            // The targets its scripts listed after the last action: no hook is called here.
            let Some(listed) = self.instant_targets(tile) else {
                return;
            };
            if listed.none {
                out.push(Action::Instant {
                    tile,
                    target: Target::None,
                });
            }
            for hex in listed.hexes(self.field.shape()) {
                out.push(Action::Instant {
                    tile,
                    target: Target::Hex(hex),
                });
            }
            return;
        }
        if effect == InstantEffect::Battle {
            // No target, and nothing of the board to know.
            if self.battle_open().is_ok() {
                out.push(Action::Instant {
                    tile,
                    target: Target::None,
                });
            }
            return;
        }
        let checker = self.checker();
        let checker = &checker;
        let field = &self.field;
        let shape = field.shape();
        // `checked`: the target passed every test of the instant's check already, which is then
        // repeated only in debug builds.
        let mut push = |target: Target, checked: bool| {
            if checked {
                debug_assert!(
                    self.instant_target(checker, effect, target).is_ok(),
                    "{target:?}"
                );
            } else if self.instant_target(checker, effect, target).is_err() {
                return;
            }
            out.push(Action::Instant { tile, target });
        };
        match effect {
            InstantEffect::Battle | InstantEffect::Scripted => {}
            InstantEffect::Move => {
                // `unit_moves` lists only reachable empty hexes of units the instant may move:
                // every move it finds is legal, so none is checked again.
                let units = field.occupied() & !checker.pinned();
                self.unit_moves(checker, true, units, |unit, facing, to| {
                    out.push_moves(Some(tile), unit, facing, to);
                });
            }
            InstantEffect::Push => {
                // Every test of the check: the player's own pusher, not netted (R5.3.6, R6.1.3, in
                // every edition), a neighbour that is an enemy (or an ally Moloch's team exception
                // lets them push, R5.8, R8.5.7), not netted (R5.3.6), with a hex to go to (R5.3.2).
                let player = self.state.turn.player();
                let netted = checker.netted();
                let unpushable = checker.unpushable();
                for (pc, p) in field.tiles() {
                    if p.owner != player || netted & pc.bit() != 0 {
                        continue;
                    }
                    let pusher = self.catalog.get(p.tile);
                    for d in Dir::ALL {
                        if let Some(tc) = shape.neighbour(pc, d)
                            && unpushable & tc.bit() == 0
                            && field.at(tc).is_some_and(|t| {
                                field.nets(
                                    player,
                                    pusher,
                                    t.owner,
                                    self.catalog.get(t.tile),
                                    &self.rules,
                                )
                            })
                            && checker.push_destinations(pc, tc) != 0
                        {
                            push(
                                Target::Push {
                                    pusher: shape.hex(pc),
                                    target: shape.hex(tc),
                                },
                                true,
                            );
                        }
                    }
                }
            }
            InstantEffect::Wound { .. } | InstantEffect::DestroyNearHq => {
                // Only enemy units that are not HQs can be targets (R5.4, R5.5, R5.8): all a
                // Sniper's check asks; the Grenade's also asks for the player's HQ next to it.
                let player = self.state.turn.player();
                let checked = matches!(effect, InstantEffect::Wound { .. });
                for (c, p) in field.tiles() {
                    if !field.friends(player, p.owner) && !self.catalog.get(p.tile).is_hq() {
                        push(Target::Unit(shape.hex(c)), checked);
                    }
                }
            }
            InstantEffect::Area { radius, .. } => {
                // Any hex whose whole area is on the board (R5.6.2), all the check asks.
                for i in bits(inner_cells(shape, radius)) {
                    push(Target::Hex(shape.hex(shape.cell_from_index(i))), true);
                }
            }
        }
    }

    /// The moves of the units on `units`, which are not netted: Mobility (`instant = false`, units
    /// from [`Movers::units`]) or the Move instant (units of any owner it may move). `found` gets
    /// the unit's cell, its facing (it may turn to the five others) and the reachable empty cells
    /// (each with all six facings).
    fn unit_moves(
        &self,
        checker: &PlayChecker<'_>,
        instant: bool,
        units: u64,
        mut found: impl FnMut(Cell, Dir, u64),
    ) {
        let field = &self.field;
        let shape = field.shape();
        for i in bits(units) {
            let c = shape.cell_from_index(i);
            let Some(p) = field.at(c) else { continue };
            if instant && !self.instant_moves(p.owner) {
                continue;
            }
            // The units passed every test of a check that turns them in place already (for
            // Mobility, `Movers::units`): it is repeated only in debug builds.
            debug_assert_eq!(
                checker.check(
                    &self.state.turn,
                    &Play::Move {
                        unit: shape.hex(c),
                        to: shape.hex(c),
                        facing: Some(p.facing.rotate(1)),
                        instant,
                    }
                ),
                Ok(())
            );
            found(
                c,
                p.facing,
                field.keeps_links(c, checker.reach(c, checker.move_range(p.owner))),
            );
        }
    }

    /// Whether the Move instant of the current player may move units of `owner`
    /// (`play::move_instant_reaches`).
    fn instant_moves(&self, owner: Seat) -> bool {
        crate::play::move_instant_reaches(&self.rules, &self.field, self.state.turn.player(), owner)
            .is_ok()
    }

    /// Whether the current turn may still use Mobility without closing tile play.
    pub(super) fn closes_tiles(&self) -> bool {
        self.rules.mobility_timing == MobilityTiming::BeforeOrAfterPlacing
            && self.state.tiles_played > 0
    }
}

/// The cells whose area of `radius` lies wholly on the board (R5.6.2): the board worn down one ring
/// per step, keeping the cells whose six neighbours all remain.
fn inner_cells(shape: &BoardShape, radius: u8) -> u64 {
    let mut inner = shape.all();
    for _ in 0..radius {
        let mut kept = 0u64;
        for i in bits(inner) {
            let c = shape.cell_from_index(i);
            if Dir::ALL
                .into_iter()
                .all(|d| shape.neighbour(c, d).is_some_and(|n| inner & n.bit() != 0))
            {
                kept |= c.bit();
            }
        }
        inner = kept;
    }
    inner
}
