//! Medics (R4.8): which Medic absorbs which attack on which unit, with chains (R4.8.7), mutual
//! Medics (R4.8.8), a Medic hit in the same phase (R4.8.6) and the player's choices (R4.8.3-R4.8.5).

use super::view::View;
use super::{Hit, ask};
use crate::battlefield::Battlefield;
use crate::decision::{Choice, Decider, Question};
use crate::event::{Event, EventSink};
use crate::shape::{MAX_CELLS, bits};
use crate::tile::Catalog;

/// What the assignment needs to know about the phase.
pub(crate) struct Phase<'a> {
    pub field: &'a Battlefield,
    pub catalog: &'a Catalog,
    pub view: &'a View,
    /// Wounds each cell would take this phase before any Medic.
    pub incoming: &'a [u16; MAX_CELLS],
    /// Tiles already certain to leave the board (exploded).
    pub doomed: u64,
}

/// Assigns Medics to wounded units and marks the absorbed hits. Returns the Medics used.
pub(crate) fn absorb<D: Decider + ?Sized, S: EventSink + ?Sized>(
    ph: &Phase<'_>,
    hits: &mut [Hit],
    decider: &mut D,
    sink: &mut S,
    options: &mut Vec<Choice>,
) -> u64 {
    let field = ph.field;
    let mut wounded = 0u64;
    for h in hits.iter() {
        if h.wounds > 0 {
            wounded |= h.target.bit();
        }
    }
    let mut medics = 0u64;
    for w in bits(wounded) {
        medics |= ph.view.medics[w];
    }
    if medics == 0 {
        return 0;
    }
    // Medics that work now: connected Medics are only listed when not netted; a Medic that this
    // phase's wounds destroy is destroyed first and saves nobody (R4.8.6).
    let mut avail = 0u64;
    for m in all_medics(ph) {
        let c = field.shape().cell_from_index(m);
        let Some(p) = field.at(c) else { continue };
        let hp = ph.catalog.get(p.tile).hit_points() as u16;
        if ph.doomed & (1 << m) == 0 && (p.wounds as u16 + ph.incoming[m]) < hp {
            avail |= 1 << m;
        }
    }
    let mut used = 0u64;
    let mut saved = 0u64;
    // Wounded units in reading order; a unit stays pending while a Medic it could use went to
    // another unit by its controller's choice.
    let mut pending = wounded;
    while pending != 0 {
        let t = pending.trailing_zeros() as usize;
        let opts = options_for(ph.view, t, avail & !used);
        if opts == 0 || saved & (1 << t) != 0 {
            pending &= !(1 << t);
            continue;
        }
        let cell_t = field.shape().cell_from_index(t);
        let medic = if opts.count_ones() > 1 {
            options.clear();
            options.extend(bits(opts).map(|m| Choice::Medic {
                medic: field.shape().cell_from_index(m),
            }));
            match options[ask(decider, field, Question::Medic, cell_t, options)] {
                Choice::Medic { medic } => medic.index(),
                _ => unreachable!("medic options"),
            }
        } else {
            opts.trailing_zeros() as usize
        };
        // R4.8.4: a Medic that could save several wounded units is assigned by its controller.
        let mut candidates = 0u64;
        for u in bits(wounded & !saved) {
            if options_for(ph.view, u, avail & !used) & (1 << medic) != 0 {
                candidates |= 1 << u;
            }
        }
        let unit = if candidates.count_ones() > 1 {
            let mut cells = [0usize; MAX_CELLS];
            let order = cells_of(candidates, &mut cells);
            order.sort_by_key(|u| (std::cmp::Reverse(ph.incoming[*u]), *u));
            options.clear();
            options.extend(order.iter().map(|u| Choice::Save {
                unit: field.shape().cell_from_index(*u),
            }));
            match options[ask(
                decider,
                field,
                Question::Save,
                field.shape().cell_from_index(medic),
                options,
            )] {
                Choice::Save { unit } => unit.index(),
                _ => unreachable!("save options"),
            }
        } else {
            t
        };
        used |= 1 << medic;
        saved |= 1 << unit;
        pending &= !(1 << unit);
        absorb_one(ph, hits, medic, unit, decider, sink, options);
    }
    used
}

fn all_medics(ph: &Phase<'_>) -> impl Iterator<Item = usize> {
    bits(ph.view.any_medics)
}

/// The Medics that may absorb for `unit`: each connected Medic, or the last Medic of the chain
/// that leads to it (R4.8.7), and both Medics of a mutual pair (R4.8.8).
fn options_for(view: &View, unit: usize, avail: u64) -> u64 {
    let mut visited = 1u64 << unit;
    let mut res = 0u64;
    for d in bits(view.medics[unit] & avail) {
        if visited & (1 << d) == 0 {
            res |= chain_ends(view, avail, d, &mut visited);
        }
    }
    res
}

fn chain_ends(view: &View, avail: u64, d: usize, visited: &mut u64) -> u64 {
    *visited |= 1 << d;
    let up = view.medics[d] & avail & !*visited;
    let mut one_way = 0u64;
    let mut mutual = 0u64;
    for u in bits(up) {
        if view.medics[u] & (1 << d) != 0 {
            mutual |= 1 << u;
        } else {
            one_way |= 1 << u;
        }
    }
    *visited |= mutual;
    let mut res = if one_way == 0 { 1 << d } else { 0 };
    for u in bits(one_way) {
        if *visited & (1 << u) == 0 {
            res |= chain_ends(view, avail, u, visited);
        }
    }
    res | mutual
}

/// The Medic absorbs every wound of one attacker's attack on the unit (R4.8.2, Q21).
fn absorb_one<D: Decider + ?Sized, S: EventSink + ?Sized>(
    ph: &Phase<'_>,
    hits: &mut [Hit],
    medic: usize,
    unit: usize,
    decider: &mut D,
    sink: &mut S,
    options: &mut Vec<Choice>,
) {
    let field = ph.field;
    let mut by = [0u16; MAX_CELLS];
    let mut attackers = 0u64;
    let mut instant = false;
    for h in hits
        .iter()
        .filter(|h| h.target.index() == unit && h.wounds > 0 && !h.absorbed)
    {
        match h.from {
            Some(from) => {
                by[from.index()] += h.wounds as u16;
                attackers |= from.bit();
            }
            None => instant = true,
        }
    }
    let medic_cell = field.shape().cell_from_index(medic);
    // An instant's wounds on a unit are one attack; instants never share a resolution with attacks.
    let attacker = if instant {
        None
    } else if attackers == 0 {
        return;
    } else if attackers.count_ones() > 1 {
        let mut cells = [0usize; MAX_CELLS];
        let order = cells_of(attackers, &mut cells);
        order.sort_by_key(|a| (std::cmp::Reverse(by[*a]), *a));
        options.clear();
        options.extend(order.iter().map(|a| Choice::Absorb {
            attacker: field.shape().cell_from_index(*a),
        }));
        match options[ask(decider, field, Question::Absorb, medic_cell, options)] {
            Choice::Absorb { attacker } => Some(attacker),
            _ => unreachable!("absorb options"),
        }
    } else {
        Some(
            field
                .shape()
                .cell_from_index(attackers.trailing_zeros() as usize),
        )
    };
    let mut wounds = 0u16;
    for h in hits
        .iter_mut()
        .filter(|h| h.target.index() == unit && h.from == attacker && !h.absorbed)
    {
        h.absorbed = true;
        wounds += h.wounds as u16;
    }
    sink.push(Event::Absorbed {
        medic: medic_cell,
        target: field.shape().cell_from_index(unit),
        attacker,
        wounds: wounds.min(u8::MAX as u16) as u8,
    });
}

/// The cells of `mask` written into `buf` in ascending order (no allocation: a battle on a
/// warmed-up board allocates nothing); the part of `buf` they fill.
fn cells_of(mask: u64, buf: &mut [usize; MAX_CELLS]) -> &mut [usize] {
    let mut n = 0;
    for c in bits(mask) {
        buf[n] = c;
        n += 1;
    }
    &mut buf[..n]
}
