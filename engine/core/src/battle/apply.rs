//! Carrying out the effects hooks ask for ([`crate::effect::Effect`]) as events: wounds, heals,
//! moves and markers, and markers running out. Attacks and initiative changes are the battle's
//! own (`battle::resolve_effects`, the battle's moments).

use super::{Context, remove_tiles, wound_netted};
use crate::battlefield::{Battlefield, Seat};
use crate::effect::{Effect, check_effects};
use crate::event::{Event, EventSink};
use crate::marker::{Mark, MarkOn};
use crate::points::HookError;
use crate::shape::Cell;

/// Checks every effect ([`check_effects`]), then carries them out in order. Refused effects
/// change nothing: the error names the first one. Attacks are not carried out here: they need
/// the hooks and Medics of a volley (`battle::resolve_effects`), which resolves them first; nor
/// are initiative changes, which the battle being fought keeps. A marker of edges
/// ([`crate::marker::MarkerName::is_edges`]) put where one is already adds its edges to those
/// there.
pub fn apply_effects<S: EventSink + ?Sized>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    effects: &[Effect],
    sink: &mut S,
) -> Result<(), HookError> {
    check_effects(field, effects)?;
    no_hq_leaves_whole(field, ctx, effects)?;
    let netted = if ctx.rules.netted_keeps_armor_toughness {
        0
    } else {
        super::netted(field, ctx)
    };
    for e in effects {
        match *e {
            Effect::Wound { cell, wounds } => wound(field, ctx, netted, cell, wounds, sink),
            Effect::Heal { cell, wounds } => {
                if let Some(p) = field.at(cell).copied()
                    && wounds > 0
                    && ctx.catalog.get(p.tile).is_hq()
                {
                    heal_hq(field, ctx, p.owner, wounds, sink);
                } else if let Some(p) = field.at(cell).copied()
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
                    && field.keeps_links(from, to.bit()) != 0
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
            Effect::Link {
                kind,
                owner,
                segments,
                loss,
                shared,
            } => {
                if let Ok(e) = field.check_link(kind, owner, segments, loss, shared) {
                    emit(field, sink, e);
                }
            }
            Effect::Place {
                tile,
                owner,
                cell,
                facing,
                ask: _,
            } => {
                if field.at(cell).is_none() {
                    emit(
                        field,
                        sink,
                        Event::Fielded {
                            cell,
                            tile,
                            owner,
                            facing,
                        },
                    );
                }
            }
            Effect::Lift { cell } => {
                if let Some(p) = field.at(cell).copied() {
                    emit(
                        field,
                        sink,
                        Event::Lifted {
                            cell,
                            tile: p.tile,
                            owner: p.owner,
                        },
                    );
                }
            }
            Effect::SetAside { player, tile } => {
                emit(field, sink, Event::SetAside { player, tile })
            }
            Effect::Grant { player, tile } => emit(field, sink, Event::Granted { player, tile }),
            Effect::Discard { player, tile } => {
                emit(field, sink, Event::Discarded { player, tile })
            }
            Effect::Face { cell, facing } => {
                if field.at(cell).is_some_and(|p| p.facing != facing) {
                    emit(
                        field,
                        sink,
                        Event::Moved {
                            from: cell,
                            to: cell,
                            facing,
                        },
                    );
                }
            }
            Effect::Unlink { cell } => {
                if let Some(l) = field.link_at(cell) {
                    let id = l.id;
                    emit(field, sink, Event::Unlinked { id });
                }
            }
            // A Battle is the game flow's to fight, after the effects (`game::flow`).
            Effect::Attack(_) | Effect::Initiative { .. } | Effect::Battle => {}
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
            Lasts::Turns(n) if turn_ended => Event::MarkerCounted {
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

/// No linked unit whose tiles leave together (`loss = "whole"`) holds an HQ: an HQ leaves the
/// board at 0 hit points alone (R2.9.1), never because another tile of its unit was destroyed.
/// (A unit losing a segment at a time may hold one: a variant's banner standing in it, say.)
fn no_hq_leaves_whole(
    field: &Battlefield,
    ctx: Context<'_>,
    effects: &[Effect],
) -> Result<(), HookError> {
    for e in effects {
        if let Effect::Link {
            segments,
            loss: crate::link::LinkLoss::Whole,
            ..
        } = *e
            && let Some(c) = crate::shape::bits(segments)
                .map(|i| field.shape().cell_from_index(i))
                .find(|c| {
                    field
                        .at(*c)
                        .is_some_and(|p| ctx.catalog.get(p.tile).is_hq())
                })
        {
            return Err(HookError {
                message: format!(
                    "link: the HQ on {} would leave the board with its unit (`loss = \"whole\"`), but an HQ leaves only at 0 hit points (R2.9.1): link it with `loss = \"segment\"`, or leave it out",
                    field.shape().hex(c)
                ),
            });
        }
    }
    Ok(())
}

/// An HQ healed by `amount`: its hit points go up, never past those the game's mode starts it
/// with (R4.7.1 counts HQ damage in hit points, not wound markers).
fn heal_hq<S: EventSink + ?Sized>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    player: Seat,
    amount: u8,
    sink: &mut S,
) {
    let teams: Vec<u8> = field.players().map(|p| field.team(p)).collect();
    let start = ctx
        .rules
        .starting_hq_hp(&teams)
        .get(player.index())
        .map_or(0, |hp| i32::from(*hp));
    let hp = field.hq_hp(player);
    if hp <= 0 || hp >= start {
        return;
    }
    let given = i32::from(amount).min(start - hp);
    emit(
        field,
        sink,
        Event::HqHealed {
            player,
            amount: given as u16,
            hp: hp + given,
        },
    );
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
            remove_tiles(field, cell.bit(), sink);
        }
        return;
    }
    if wound_netted(field, ctx, netted & cell.bit() != 0, cell, wounds, sink) {
        remove_tiles(field, cell.bit(), sink);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battlefield::{PlayerSetup, Seat, Setup, TileSetup};
    use crate::effect::Effect;
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
    fn healing_an_hq_gives_back_hit_points_up_to_its_start() {
        let (c, mut f) = board();
        let rules = Rules::default();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let (mine, theirs) = (cell(&f, 0, 2), cell(&f, 0, -2));
        let heal = |cell, wounds| Effect::Heal { cell, wounds };
        let mut events = Vec::new();
        // At 3 HP of the 20 the rules start an HQ with: 2 given back. At 20: nothing.
        apply_effects(&mut f, ctx, &[heal(mine, 2), heal(theirs, 4)], &mut events)
            .expect("legal effects");
        assert_eq!(
            events,
            vec![Event::HqHealed {
                player: Seat::new(0),
                amount: 2,
                hp: 5
            }]
        );
        assert_eq!(f.hq_hp(Seat::new(0)), 5);
        assert_eq!(f.hq_hp(Seat::new(1)), 20);
        // Never past the start: 5 + 99 stops at 20.
        apply_effects(&mut f, ctx, &[heal(mine, 99)], &mut ()).expect("legal");
        assert_eq!(f.hq_hp(Seat::new(0)), 20);
    }

    #[test]
    fn no_hq_joins_a_unit_whose_tiles_leave_together() {
        use crate::link::LinkLoss;
        use crate::marker::MarkerName;
        let (c, _) = board();
        let at = |id: &str, owner: u8, q: i32, r: i32| TileSetup {
            tile: c.find(id).expect("tile"),
            owner: Seat::new(owner),
            hex: Hex::new(q, r),
            facing: Dir::N,
            wounds: 0,
        };
        let mut f = Battlefield::new(
            Setup {
                shape: BoardShape::standard(),
                players: vec![
                    PlayerSetup { team: 0, hq_hp: 20 },
                    PlayerSetup { team: 1, hq_hp: 20 },
                ],
                tiles: vec![
                    at("a/unit", 0, 0, 1),
                    at("a/hq", 1, 0, 2),
                    at("a/hq", 0, 0, -2),
                ],
            },
            &c,
        )
        .expect("board");
        let rules = Rules::default();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let segments = cell(&f, 0, 1).bit() | cell(&f, 0, 2).bit();
        let link = |loss| Effect::Link {
            kind: MarkerName::new("chain").expect("a name"),
            owner: Seat::new(0),
            segments,
            loss,
            shared: false,
        };
        let before = f.clone();
        let err = apply_effects(&mut f, ctx, &[link(LinkLoss::Whole)], &mut ())
            .expect_err("an HQ in a unit that leaves whole");
        assert!(err.message.contains("the HQ on [0, 2]"), "{err}");
        assert!(err.message.contains("R2.9.1"), "{err}");
        assert_eq!(f, before);
        // A unit that loses a segment at a time may hold one (a variant's banner).
        apply_effects(&mut f, ctx, &[link(LinkLoss::Segment)], &mut ()).expect("allowed");
        assert_eq!(f.links().len(), 1);
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
