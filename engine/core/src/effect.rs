//! Effects that ability hooks ask for outside attacks (wound, heal, move a unit): checked against
//! the board, then carried out by the engine as events, so a script never breaks an invariant.

use crate::battle::{self, Context};
use crate::battlefield::Battlefield;
use crate::event::{AttackKind, Event, EventSink};
use crate::hex::Dir;
use crate::hooks::HookError;
use crate::marker::{Mark, MarkOn, MarkerName};
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
/// that has been taken, an attack whose tile has left. The others keep their order.
pub fn drop_moot(field: &Battlefield, effects: &mut Vec<Effect>) {
    let mut occupied = field.occupied();
    effects.retain(|e| match *e {
        Effect::Wound { cell, .. } | Effect::Heal { cell, .. } => occupied & cell.bit() != 0,
        Effect::Move { from, to } => {
            let keep = occupied & from.bit() != 0 && occupied & to.bit() == 0;
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
        Effect::Initiative { cell, change } => {
            occupied & cell.bit() != 0
                && match change {
                    InitiativeChange::Swap(other) => occupied & other.bit() != 0,
                    _ => true,
                }
        }
    });
}

/// Checks every effect ([`check_effects`]), then carries them out in order. Refused effects
/// change nothing: the error names the first one. Attacks are not carried out here: they need
/// the hooks and Medics of a volley (`battle::resolve_effects`), which resolves them first; nor
/// are initiative changes, which the battle being fought keeps. A marker of edges
/// ([`MarkerName::is_edges`]) put where one is already adds its edges to those there.
pub fn apply_effects<S: EventSink + ?Sized>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    effects: &[Effect],
    sink: &mut S,
) -> Result<(), HookError> {
    check_effects(field, effects)?;
    let netted = if ctx.rules.netted_keeps_armor_toughness {
        0
    } else {
        battle::netted(field, ctx)
    };
    for e in effects {
        match *e {
            Effect::Wound { cell, wounds } => wound(field, ctx, netted, cell, wounds, sink),
            Effect::Heal { cell, wounds } => {
                if let Some(p) = field.at(cell).copied()
                    && p.wounds > 0
                    && wounds > 0
                {
                    let removed = wounds.min(p.wounds);
                    emit(
                        field,
                        sink,
                        Event::Healed {
                            cell,
                            removed,
                            total: p.wounds - removed,
                        },
                    );
                }
            }
            Effect::Move { from, to } => {
                if let Some(p) = field.at(from).copied()
                    && field.at(to).is_none()
                {
                    emit(
                        field,
                        sink,
                        Event::Moved {
                            from,
                            to,
                            facing: p.facing,
                        },
                    );
                }
            }
            Effect::Mark(mut mark) => {
                if mark.name.is_edges()
                    && let Some(old) = field.mark(mark.on, mark.name)
                {
                    mark.value |= old.value;
                }
                let there = match mark.on {
                    MarkOn::Tile(cell) => field.at(cell).is_some(),
                    MarkOn::Hex(_) | MarkOn::Player(_) => true,
                };
                if there && field.mark(mark.on, mark.name) != Some(&mark) {
                    emit(field, sink, Event::Marked { mark });
                }
            }
            Effect::Unmark { on, name } => {
                if field.mark(on, name).is_some() {
                    emit(field, sink, Event::Unmarked { on, name });
                }
            }
            Effect::Attack(_) | Effect::Initiative { .. } => {}
        }
    }
    Ok(())
}

/// Takes off every marker whose time runs out at this moment (`ends`: which durations end now,
/// e.g. `Lasts::Battle` at the end of a battle), and counts down those that last a number of
/// turns when `turn_ended`. Emits the changes as events.
pub fn expire_marks<S: EventSink + ?Sized>(
    field: &mut Battlefield,
    ends: crate::marker::Lasts,
    turn_ended: bool,
    sink: &mut S,
) {
    use crate::marker::Lasts;
    if field.marks().is_empty() {
        return;
    }
    let marks: Vec<Mark> = field.marks().to_vec();
    for m in marks {
        let event = match m.lasts {
            l if l == ends => Event::Unmarked {
                on: m.on,
                name: m.name,
            },
            Lasts::Turns(n) if turn_ended && n <= 1 => Event::Unmarked {
                on: m.on,
                name: m.name,
            },
            Lasts::Turns(n) if turn_ended => Event::Marked {
                mark: Mark {
                    lasts: Lasts::Turns(n - 1),
                    ..m
                },
            },
            _ => continue,
        };
        emit(field, sink, event);
    }
}

fn emit<S: EventSink + ?Sized>(field: &mut Battlefield, sink: &mut S, e: Event) {
    field.apply(&e);
    sink.push(e);
}

/// Wounds on a unit, or HP off an HQ (an HQ at 0 leaves the board, R2.9.1).
fn wound<S: EventSink + ?Sized>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    netted: u64,
    cell: Cell,
    wounds: u8,
    sink: &mut S,
) {
    let Some(p) = field.at(cell).copied() else {
        return;
    };
    if wounds == 0 {
        return;
    }
    if ctx.catalog.get(p.tile).is_hq() {
        let hp = (field.hq_hp(p.owner) - i32::from(wounds)).max(0);
        emit(
            field,
            sink,
            Event::HqDamaged {
                player: p.owner,
                amount: u16::from(wounds),
                hp,
            },
        );
        if hp == 0 {
            battle::remove_tiles(field, cell.bit(), sink);
        }
        return;
    }
    if battle::wound_netted(field, ctx, netted & cell.bit() != 0, cell, wounds, sink) {
        battle::remove_tiles(field, cell.bit(), sink);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battlefield::{PlayerSetup, Seat, Setup, TileSetup};
    use crate::hex::{Dir, Hex};
    use crate::rules::Rules;
    use crate::shape::BoardShape;
    use crate::tile::{Catalog, Initiative, Tile, TileKind};

    fn board() -> (Catalog, Battlefield) {
        let mut c = Catalog::new();
        let mut hq = Tile::new("a", "hq", TileKind::Hq);
        hq.initiative = Initiative::new(&[0]).expect("initiative");
        let mut unit = Tile::new("a", "unit", TileKind::Soldier);
        unit.toughness = 2;
        c.add_army("a", "A", 2, vec![hq, unit]).expect("army");
        let at = |id: &str, owner: u8, q: i32, r: i32, wounds: u8| TileSetup {
            tile: c.find(id).expect("tile"),
            owner: Seat::new(owner),
            hex: Hex::new(q, r),
            facing: Dir::N,
            wounds,
        };
        let f = Battlefield::new(
            Setup {
                shape: BoardShape::standard(),
                players: vec![
                    PlayerSetup { team: 0, hq_hp: 3 },
                    PlayerSetup { team: 1, hq_hp: 20 },
                ],
                tiles: vec![
                    at("a/unit", 0, 0, 0, 1),
                    at("a/hq", 0, 0, 2, 0),
                    at("a/hq", 1, 0, -2, 0),
                ],
            },
            &c,
        )
        .expect("board");
        (c, f)
    }

    fn cell(f: &Battlefield, q: i32, r: i32) -> Cell {
        f.shape().cell(Hex::new(q, r)).expect("on the board")
    }

    #[test]
    fn effects_heal_move_and_wound_through_events() {
        let (c, mut f) = board();
        let rules = Rules::default();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let (unit, east, hq) = (cell(&f, 0, 0), cell(&f, 1, 0), cell(&f, 0, 2));
        let mut events = Vec::new();
        apply_effects(
            &mut f,
            ctx,
            &[
                Effect::Heal {
                    cell: unit,
                    wounds: 5,
                },
                Effect::Move {
                    from: unit,
                    to: east,
                },
                Effect::Wound {
                    cell: east,
                    wounds: 2,
                },
                Effect::Wound {
                    cell: hq,
                    wounds: 3,
                },
            ],
            &mut events,
        )
        .expect("legal effects");
        assert_eq!(
            events[0],
            Event::Healed {
                cell: unit,
                removed: 1,
                total: 0
            }
        );
        assert_eq!(f.at(east).map(|p| p.wounds), Some(2));
        assert!(f.at(unit).is_none());
        // The HQ at 3 HP takes 3 and leaves the board.
        assert_eq!(f.hq_hp(Seat::new(0)), 0);
        assert!(f.at(hq).is_none());
    }

    #[test]
    fn a_refused_effect_changes_nothing() {
        let (c, mut f) = board();
        let before = f.clone();
        let rules = Rules::default();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let (unit, hq, empty) = (cell(&f, 0, 0), cell(&f, 0, 2), cell(&f, 1, 1));
        let err = apply_effects(
            &mut f,
            ctx,
            &[
                Effect::Wound {
                    cell: unit,
                    wounds: 1,
                },
                Effect::Move { from: unit, to: hq },
            ],
            &mut (),
        )
        .expect_err("taken hex");
        assert!(err.message.contains("taken"), "{err}");
        let err = apply_effects(
            &mut f,
            ctx,
            &[Effect::Heal {
                cell: empty,
                wounds: 1,
            }],
            &mut (),
        )
        .expect_err("no tile");
        assert!(err.message.contains("no tile"), "{err}");
        assert_eq!(f, before);
    }

    #[test]
    fn markers_follow_their_tile_come_off_with_it_and_run_out_on_time() {
        use crate::marker::{Lasts, Mark, MarkOn, MarkerName};
        let (c, mut f) = board();
        let rules = Rules::default();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let (unit, east) = (cell(&f, 0, 0), cell(&f, 1, 0));
        let name = |s: &str| MarkerName::new(s).expect("a marker name");
        let mark = |on, n: &str, lasts| Mark {
            on,
            name: name(n),
            lasts,
            value: 0,
        };
        apply_effects(
            &mut f,
            ctx,
            &[
                Effect::Mark(mark(MarkOn::Tile(unit), "soaked", Lasts::Turns(2))),
                Effect::Mark(mark(MarkOn::Tile(unit), "dazed", Lasts::Turn)),
                Effect::Mark(mark(MarkOn::Hex(unit), "flooded", Lasts::Battle)),
                Effect::Mark(mark(
                    MarkOn::Player(Seat::new(1)),
                    "cursed",
                    Lasts::Permanent,
                )),
                Effect::Move {
                    from: unit,
                    to: east,
                },
            ],
            &mut (),
        )
        .expect("legal effects");
        // The tile's markers moved with it; the hex's stayed.
        assert!(f.mark(MarkOn::Tile(east), name("soaked")).is_some());
        assert!(f.mark(MarkOn::Tile(unit), name("soaked")).is_none());
        assert!(f.mark(MarkOn::Hex(unit), name("flooded")).is_some());
        let mut events = Vec::new();
        expire_marks(&mut f, Lasts::Turn, true, &mut events);
        // The turn's marker went; the two-turn one counts down.
        assert!(f.mark(MarkOn::Tile(east), name("dazed")).is_none());
        assert_eq!(
            f.mark(MarkOn::Tile(east), name("soaked")).map(|m| m.lasts),
            Some(Lasts::Turns(1))
        );
        assert_eq!(events.len(), 2, "{events:?}");
        expire_marks(&mut f, Lasts::Battle, false, &mut ());
        assert!(f.mark(MarkOn::Hex(unit), name("flooded")).is_none());
        expire_marks(&mut f, Lasts::Turn, true, &mut ());
        assert!(f.mark(MarkOn::Tile(east), name("soaked")).is_none());
        assert_eq!(f.marks().len(), 1, "the permanent player marker stays");
        // A tile leaving the board takes its markers along.
        apply_effects(
            &mut f,
            ctx,
            &[Effect::Mark(mark(
                MarkOn::Tile(east),
                "doomed",
                Lasts::Permanent,
            ))],
            &mut (),
        )
        .expect("legal");
        apply_effects(
            &mut f,
            ctx,
            &[Effect::Wound {
                cell: east,
                wounds: 5,
            }],
            &mut (),
        )
        .expect("legal");
        assert!(f.at(east).is_none());
        assert_eq!(f.marks().len(), 1);
    }

    #[test]
    fn a_marker_on_an_empty_hex_tile_or_a_missing_player_is_refused() {
        use crate::marker::{Lasts, Mark, MarkOn, MarkerName};
        let (c, mut f) = board();
        let before = f.clone();
        let rules = Rules::default();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let name = MarkerName::new("soaked").expect("name");
        for on in [MarkOn::Tile(cell(&f, 1, 1)), MarkOn::Player(Seat::new(3))] {
            let effect = Effect::Mark(Mark {
                on,
                name,
                lasts: Lasts::Turn,
                value: 0,
            });
            assert!(apply_effects(&mut f, ctx, &[effect], &mut ()).is_err());
        }
        assert_eq!(f, before);
    }
}
