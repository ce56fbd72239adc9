//! Effects that ability hooks ask for (wound, heal, move a unit, markers, scripted attacks,
//! initiative changes), and their checks against the board; the battle carries them out as
//! events (`battle::apply_effects`), so a script never breaks an invariant.

use crate::battlefield::Battlefield;
use crate::event::AttackKind;
use crate::hex::Dir;
use crate::marker::{Mark, MarkOn, MarkerName};
use crate::points::HookError;
use crate::shape::{BoardShape, Cell};

/// A change asked for by a hook (docs/LUA_API.md).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Effect {
    /// `wounds` on the tile on `cell`: a unit takes wound markers (and is removed when destroyed,
    /// R3.12), an HQ loses HP. Not an attack: armor and Medics do not stop it.
    Wound {
        /// The tile wounded.
        cell: Cell,
        /// Wound markers added, or HP taken from an HQ.
        wounds: u8,
    },
    /// Takes up to `wounds` wound markers off the unit on `cell`.
    Heal {
        /// The unit healed.
        cell: Cell,
        /// The most wound markers taken off; fewer when the unit has fewer.
        wounds: u8,
    },
    /// The unit on `from` moves to the empty hex `to`, keeping its facing.
    Move {
        /// Where the unit stands.
        from: Cell,
        /// The empty cell it moves to.
        to: Cell,
    },
    /// Puts `mark` on its tile, hex or player, or replaces the marker of that name there.
    Mark(Mark),
    /// Takes the marker `name` off `on` (nothing happens if it is not there).
    Unmark {
        /// What it is on.
        on: MarkOn,
        /// Its name.
        name: MarkerName,
    },
    /// An attack made by the tile on its `from` cell: it goes through armor, Medics and
    /// `before_wound` like a printed one (docs/LUA_API.md, `fx:attack`).
    Attack(ScriptedAttack),
    /// Makes a linked unit on `segments` (docs/LINKED_UNITS.md), checked like any new one
    /// ([`Battlefield::check_link`]).
    Link {
        /// What kind of unit it is.
        kind: crate::marker::MarkerName,
        /// The player it belongs to.
        owner: crate::seat::Seat,
        /// Its segments.
        segments: u64,
        /// What destroying one of its tiles does.
        loss: crate::link::LinkLoss,
        /// Whether nets and modules reaching one tile reach them all.
        shared: bool,
    },
    /// Undoes the linked unit with a segment on `cell`: its tiles stand alone from now on.
    Unlink {
        /// A segment of the unit.
        cell: Cell,
    },
    /// A tile of `owner`'s reserve goes onto the empty `cell` (a game rule's effect only; the
    /// game checks the reserve holds it).
    Place {
        /// Which catalog tile.
        tile: crate::tile::TileRef,
        /// Whose reserve it leaves; it belongs to them.
        owner: crate::seat::Seat,
        /// The empty cell.
        cell: Cell,
        /// Which way its front edge points (with `ask`, the first option its owner is offered).
        facing: Dir,
        /// Its owner picks its facing as it is put down (a decision, `Question::Facing`).
        ask: bool,
    },
    /// The tile on `cell` leaves the board, not destroyed, for its owner's reserve (a game
    /// rule's effect only).
    Lift {
        /// Where it stands.
        cell: Cell,
    },
    /// The unit on `cell` turns to `facing` without moving (a game rule's effect only).
    Face {
        /// The unit.
        cell: Cell,
        /// Its new facing.
        facing: Dir,
    },
    /// A tile of `player`'s hand goes to their discard pile (a game rule's effect only; the game
    /// checks the hand holds it).
    Discard {
        /// The player.
        player: crate::seat::Seat,
        /// Which catalog tile.
        tile: crate::tile::TileRef,
    },
    /// A Battle right after the effects, which ends the turn (a rule action's effect only).
    Battle,
    /// A board tile from outside the game joins `player`'s reserve (a game rule's effect only).
    Grant {
        /// The player.
        player: crate::seat::Seat,
        /// Which catalog tile.
        tile: crate::tile::TileRef,
    },
    /// The copy nearest the top of `tile` in `player`'s draw pile goes to their reserve (a game
    /// rule's effect only; the game checks the pile holds it).
    SetAside {
        /// The player.
        player: crate::seat::Seat,
        /// Which catalog tile.
        tile: crate::tile::TileRef,
    },
    /// A change to the initiative values of the unit on `cell` for the rest of the battle being
    /// fought (only asked during battles; the battle carries it out).
    Initiative {
        /// The unit whose values change.
        cell: Cell,
        /// How they change.
        change: InitiativeChange,
    },
}

/// How an [`Effect::Initiative`] changes a unit's initiative values for the rest of a battle.
/// `Set` and `Swap` are worked out from the values when the effect is carried out, and become
/// an amount added to every value of the unit (its values keep their distances).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InitiativeChange {
    /// Adds this much (-9 to 9) to each of the unit's values.
    Add(i8),
    /// Its highest value becomes this (0 to 9).
    Set(u8),
    /// It and the unit on this cell trade their highest values.
    Swap(Cell),
}

/// Why an initiative change asked outside a battle is refused, and what to do instead.
pub const INITIATIVE_OUTSIDE_BATTLES: &str = "an initiative change lasts for the battle being fought, so it is asked in a battle's hooks; outside a battle, put the `initiative` marker on the unit instead, e.g. fx:mark(q, r, \"initiative\", \"battle\", 2) for the next battle";

/// The most an [`InitiativeChange`] may add or set.
pub const MAX_INITIATIVE_CHANGE: i8 = 9;

/// The most strength a scripted attack may have.
pub const MAX_ATTACK_STRENGTH: u8 = 9;
/// The largest radius of a scripted area attack.
pub const MAX_ATTACK_RADIUS: u8 = 3;

/// An attack a hook asks for (`fx:attack`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ScriptedAttack {
    /// The tile that attacks: its owner decides who is an enemy.
    pub from: Cell,
    /// Melee, ranged, pierce, or `Explosion` for an area attack.
    pub kind: AttackKind,
    /// 1 to [`MAX_ATTACK_STRENGTH`].
    pub strength: u8,
    /// The direction the attack travels in from `from` (unused by an area attack).
    pub dir: Dir,
    /// Melee, ranged, pierce: the one tile hit (on the line of `dir`); area: the centre
    /// (`None`: `from`).
    pub target: Option<Cell>,
    /// An area attack's radius, 1 to [`MAX_ATTACK_RADIUS`] (0 for the other kinds).
    pub radius: u8,
}

/// The direction of the straight line on the board from `from` to `to`, if `to` is on one (for
/// melee it must be adjacent).
pub fn line_to(shape: &BoardShape, from: Cell, to: Cell, melee: bool) -> Option<Dir> {
    Dir::ALL.into_iter().find(|&d| {
        let mut cur = from;
        while let Some(n) = shape.neighbour(cur, d) {
            if n == to {
                return true;
            }
            if melee {
                return false;
            }
            cur = n;
        }
        false
    })
}

/// Whether a scripted attack is well formed on `shape`: its strength and radius in range, its
/// target on its line. The error says what is wrong.
pub fn check_attack(shape: &BoardShape, a: &ScriptedAttack) -> Result<(), String> {
    if !(1..=MAX_ATTACK_STRENGTH).contains(&a.strength) {
        return Err(format!(
            "strength {}: use 1 to {MAX_ATTACK_STRENGTH}",
            a.strength
        ));
    }
    if a.kind == AttackKind::Explosion {
        if !(1..=MAX_ATTACK_RADIUS).contains(&a.radius) {
            return Err(format!("radius {}: use 1 to {MAX_ATTACK_RADIUS}", a.radius));
        }
        return Ok(());
    }
    if let Some(t) = a.target {
        let melee = a.kind == AttackKind::Melee;
        if line_to(shape, a.from, t, melee) != Some(a.dir) {
            return Err(format!(
                "the target {} is not {} {}",
                shape.hex(t),
                if melee {
                    "next to"
                } else {
                    "on a straight line from"
                },
                shape.hex(a.from)
            ));
        }
    }
    Ok(())
}

fn refuse(what: &str) -> HookError {
    HookError {
        message: what.to_string(),
    }
}

/// Checks effects against the board as it stands, in order (a move frees its hex for the effects
/// after it): every tile to wound or heal and every unit to move is there, and every hex to move
/// onto is free. The error names the first effect that is not.
pub fn check_effects(field: &Battlefield, effects: &[Effect]) -> Result<(), HookError> {
    let mut occupied = field.occupied();
    // The segments of the linked units asked for so far, and how many units.
    let mut claimed = 0u64;
    let mut asked_links = 0isize;
    for e in effects {
        match *e {
            Effect::Wound { cell, .. } | Effect::Heal { cell, .. } => {
                if occupied & cell.bit() == 0 {
                    return Err(refuse(&format!(
                        "no tile on {} to {}",
                        field.shape().hex(cell),
                        if matches!(e, Effect::Wound { .. }) {
                            "wound"
                        } else {
                            "heal"
                        }
                    )));
                }
            }
            Effect::Move { from, to } => {
                if occupied & from.bit() == 0 {
                    return Err(refuse(&format!(
                        "no unit on {} to move",
                        field.shape().hex(from)
                    )));
                }
                if occupied & to.bit() != 0 {
                    return Err(refuse(&format!(
                        "cannot move onto {}: the hex is taken",
                        field.shape().hex(to)
                    )));
                }
                if field.keeps_links(from, to.bit()) == 0 {
                    return Err(refuse(&format!(
                        "cannot move the tile on {} to {}: it would split its linked unit, or put it on another unit's segment (R9.3.3, R10.6.9)",
                        field.shape().hex(from),
                        field.shape().hex(to)
                    )));
                }
                occupied = occupied & !from.bit() | to.bit();
            }
            Effect::Mark(Mark {
                on, name, value, ..
            }) => {
                check_mark_on(field, occupied, on)?;
                name.check(on, value).map_err(|e| refuse(&e))?;
            }
            Effect::Unmark { on, .. } => {
                check_mark_on(field, occupied, on)?;
            }
            Effect::Initiative { cell, change } => {
                let other = match change {
                    InitiativeChange::Swap(other) => Some(other),
                    InitiativeChange::Add(n) if n.abs() > MAX_INITIATIVE_CHANGE => {
                        return Err(refuse(&format!("an initiative change of {n}: use -9 to 9")));
                    }
                    InitiativeChange::Set(v) if v as i8 > MAX_INITIATIVE_CHANGE => {
                        return Err(refuse(&format!("initiative {v}: use 0 to 9")));
                    }
                    _ => None,
                };
                for c in std::iter::once(cell).chain(other) {
                    if occupied & c.bit() == 0 {
                        return Err(refuse(&format!(
                            "no unit on {} to change the initiative of",
                            field.shape().hex(c)
                        )));
                    }
                }
            }
            Effect::Link {
                kind,
                owner,
                segments,
                loss,
                shared,
            } => {
                field
                    .check_link_on(kind, owner, segments, loss, shared, occupied)
                    .map_err(|e| refuse(&format!("link: {e}")))?;
                if claimed & segments != 0 {
                    return Err(refuse(
                        "link: a segment is already part of a linked unit asked for before it: a segment never goes on another unit's segment (R10.6.4)",
                    ));
                }
                asked_links += 1;
                if field.links().len() as isize + asked_links > crate::link::MAX_LINKS as isize {
                    return Err(refuse(&format!(
                        "link: the board holds {} linked units at most, and this one would be one more",
                        crate::link::MAX_LINKS
                    )));
                }
                claimed |= segments;
            }
            Effect::Place { cell, .. } => {
                if occupied & cell.bit() != 0 {
                    return Err(refuse(&format!(
                        "place: {} is taken",
                        field.shape().hex(cell)
                    )));
                }
                occupied |= cell.bit();
            }
            Effect::Lift { cell } => {
                if occupied & cell.bit() == 0 {
                    return Err(refuse(&format!(
                        "lift: no tile on {} to lift",
                        field.shape().hex(cell)
                    )));
                }
                occupied &= !cell.bit();
            }
            Effect::SetAside { .. }
            | Effect::Grant { .. }
            | Effect::Discard { .. }
            | Effect::Battle => {}
            Effect::Face { cell, .. } => {
                if occupied & cell.bit() == 0 {
                    return Err(refuse(&format!(
                        "face: no unit on {} to turn",
                        field.shape().hex(cell)
                    )));
                }
            }
            Effect::Unlink { cell } => {
                if field.link_at(cell).is_none() {
                    return Err(refuse(&format!(
                        "unlink: no linked unit has a segment on {}",
                        field.shape().hex(cell)
                    )));
                }
                // A unit undone leaves room for one asked after it.
                asked_links -= 1;
            }
            Effect::Attack(a) => {
                if occupied & a.from.bit() == 0 {
                    return Err(refuse(&format!(
                        "no tile on {} to attack from",
                        field.shape().hex(a.from)
                    )));
                }
                check_attack(field.shape(), &a).map_err(|e| refuse(&format!("attack: {e}")))?;
            }
        }
    }
    Ok(())
}

/// A marker's place must exist: a tile on the cell, a player of the game.
fn check_mark_on(field: &Battlefield, occupied: u64, on: MarkOn) -> Result<(), HookError> {
    match on {
        MarkOn::Tile(cell) if occupied & cell.bit() == 0 => Err(refuse(&format!(
            "no tile on {} to mark",
            field.shape().hex(cell)
        ))),
        MarkOn::Player(p) if p.index() >= field.player_count() => Err(refuse(&format!(
            "there is no {p} in this game of {} players",
            field.player_count()
        ))),
        _ => Ok(()),
    }
}

/// Drops the effects that what happened since they were asked made moot (checked when asked):
/// a tile to wound or heal, or a unit to move, that has left the board, and a move onto a hex
/// that has been taken, an attack whose tile has left, a linked unit on a hex an earlier effect
/// linked, a unit undone already. The others keep their order.
pub fn drop_moot(field: &Battlefield, effects: &mut Vec<Effect>) {
    let mut occupied = field.occupied();
    // The hexes of linked units: those on the board, less those undone, plus those linked.
    let mut linked = field.segments();
    effects.retain(|e| match *e {
        Effect::Link { segments, .. } => {
            let keep = linked & segments == 0;
            if keep {
                linked |= segments;
            }
            keep
        }
        Effect::Unlink { cell } => match field.link_at(cell) {
            Some(l) if linked & cell.bit() != 0 => {
                linked &= !l.segments;
                true
            }
            _ => false,
        },
        Effect::Wound { cell, .. } | Effect::Heal { cell, .. } => occupied & cell.bit() != 0,
        Effect::Move { from, to } => {
            let keep = occupied & from.bit() != 0
                && occupied & to.bit() == 0
                && field.keeps_links(from, to.bit()) != 0;
            if keep {
                occupied = occupied & !from.bit() | to.bit();
            }
            keep
        }
        Effect::Mark(Mark { on, .. }) | Effect::Unmark { on, .. } => match on {
            MarkOn::Tile(cell) => occupied & cell.bit() != 0,
            MarkOn::Hex(_) | MarkOn::Player(_) => true,
        },
        Effect::Attack(a) => occupied & a.from.bit() != 0,
        Effect::SetAside { .. }
        | Effect::Discard { .. }
        | Effect::Battle
        | Effect::Grant { .. } => true,
        Effect::Face { cell, .. } => occupied & cell.bit() != 0,
        Effect::Place { cell, .. } => {
            let keep = occupied & cell.bit() == 0;
            occupied |= cell.bit();
            keep
        }
        Effect::Lift { cell } => {
            let keep = occupied & cell.bit() != 0;
            occupied &= !cell.bit();
            keep
        }
        Effect::Initiative { cell, change } => {
            occupied & cell.bit() != 0
                && match change {
                    InitiativeChange::Swap(other) => occupied & other.bit() != 0,
                    _ => true,
                }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battlefield::{PlayerSetup, Seat, Setup, TileSetup};
    use crate::hex::{Dir, Hex};
    use crate::link::LinkLoss;
    use crate::shape::BoardShape;
    use crate::tile::{Catalog, Initiative, Tile, TileKind};

    #[test]
    fn a_link_on_hexes_an_earlier_effect_linked_is_moot_and_an_undone_unit_undone_once() {
        let mut c = Catalog::new();
        let mut hq = Tile::new("a", "hq", TileKind::Hq);
        hq.initiative = Initiative::new(&[0]).expect("initiative");
        let unit = Tile::new("a", "unit", TileKind::Soldier);
        c.add_army("a", "A", 4, vec![hq, unit]).expect("army");
        let at = |id: &str, q: i32, r: i32| TileSetup {
            tile: c.find(id).expect("tile"),
            owner: Seat::new(0),
            hex: Hex::new(q, r),
            facing: Dir::N,
            wounds: 0,
        };
        let field = Battlefield::new(
            Setup {
                shape: BoardShape::standard(),
                players: vec![
                    PlayerSetup { team: 0, hq_hp: 20 },
                    PlayerSetup { team: 1, hq_hp: 20 },
                ],
                tiles: vec![at("a/unit", 0, 0), at("a/unit", 0, 1), at("a/unit", 1, 0)],
            },
            &c,
        )
        .expect("board");
        let cell = |q, r| field.shape().cell(Hex::new(q, r)).expect("on the board");
        let link = |a: Cell, b: Cell| Effect::Link {
            kind: MarkerName::new("pair").expect("a name"),
            owner: Seat::new(0),
            segments: a.bit() | b.bit(),
            loss: LinkLoss::Whole,
            shared: false,
        };
        // Two hooks each link the centre to a neighbour: the second is moot.
        let mut effects = vec![link(cell(0, 0), cell(0, 1)), link(cell(0, 0), cell(1, 0))];
        drop_moot(&field, &mut effects);
        assert_eq!(effects, vec![link(cell(0, 0), cell(0, 1))]);
        // An unlink where no unit stands is moot too.
        let mut effects = vec![Effect::Unlink { cell: cell(0, 0) }];
        drop_moot(&field, &mut effects);
        assert!(effects.is_empty());
    }
}
