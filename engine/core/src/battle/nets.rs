//! Who is netted: the net graph of R6.1.9 with the ring rules of `net_cycle_rule` (R6.1.5, R6.1.6).
//!
//! 1. A net edge joins a netter to the adjacent enemy tile its net icon points at.
//! 2. Edges on rings the rule frees are void: pairs always; rings of three or of any length by option.
//! 3. On the rest, a tile is netted when a netter that is not netted points at it. Tiles that stay
//!    undecided sit on rings the rule does not free, and count as netted (Q19).

use crate::battlefield::Battlefield;
use crate::hex::Edge;
use crate::marker::MarkerName;
use crate::rules::{NetCycleRule, Rules};
use crate::shape::{Cell, MAX_CELLS, bits};
use crate::tile::Catalog;

/// The netted tiles of a battlefield, as a cell mask.
pub fn netted(field: &Battlefield, catalog: &Catalog, rules: &Rules) -> u64 {
    netted_among(field, catalog, rules, netters(field, catalog))
}

/// The cells of the tiles that may net: a net icon printed on an edge, or an `add_net` marker.
pub(crate) fn netters(field: &Battlefield, catalog: &Catalog) -> u64 {
    field
        .tiles()
        .filter(|(_, p)| catalog.traits(p.tile).nets != 0)
        .fold(0, |m, (c, _)| m | c.bit())
        | field.tiles_marked(MarkerName::ADD_NET)
}

/// The netted tiles of a battlefield, given the cells of every tile with a net icon (`nets`).
pub(crate) fn netted_among(
    field: &Battlefield,
    catalog: &Catalog,
    rules: &Rules,
    nets: u64,
) -> u64 {
    // Most boards have no net pointing at a netter: then there is no ring and no netter is
    // netted, so every tile a net points at is netted, and the graph need not be built.
    let mut netters = 0u64;
    let mut targets = 0u64;
    for i in bits(nets) {
        let c = field.shape().cell_from_index(i);
        let r = reach(field, catalog, rules, c);
        if r != 0 {
            netters |= c.bit();
            targets |= r;
        }
    }
    if targets & netters == 0 {
        debug_assert_eq!(targets, net_graph(field, catalog, rules, netters));
        return targets;
    }
    net_graph(field, catalog, rules, netters)
}

/// Who is netted, from the whole net graph of the `netters`.
fn net_graph(field: &Battlefield, catalog: &Catalog, rules: &Rules, netters: u64) -> u64 {
    let mut out = [0u64; MAX_CELLS];
    for c in bits(netters) {
        out[c] = reach(field, catalog, rules, field.shape().cell_from_index(c));
    }
    resolve(&out, netters, field.occupied(), rules.net_cycle_rule)
}

/// The tiles the nets of the tile on `c` point at and affect (enemies, or allies under R8.5.7).
pub(crate) fn reach(field: &Battlefield, catalog: &Catalog, rules: &Rules, c: Cell) -> u64 {
    let Some(p) = field.at(c) else { return 0 };
    // Markers may add or drop nets on its edges for a while.
    let nets = field.net_edges(c, catalog.traits(p.tile).nets);
    if nets == 0 {
        return 0;
    }
    let def = catalog.get(p.tile);
    let mut mask = 0u64;
    for e in Edge::ALL {
        if nets & (1 << e.index()) == 0 {
            continue;
        }
        if let Some(n) = field.shape().neighbour(c, e.direction(p.facing))
            && let Some(t) = field.at(n)
            && field.nets(p.owner, def, t.owner, catalog.get(t.tile), rules)
        {
            mask |= n.bit();
        }
    }
    // A unit with the `ignores_nets` marker is never netted.
    mask & !field.tiles_marked(MarkerName::IGNORES_NETS)
}

/// Who is netted, given each netter's reach (indexed by cell), the netters and the occupied cells.
pub(super) fn resolve(
    reach: &[u64; MAX_CELLS],
    netters: u64,
    occupied: u64,
    rule: NetCycleRule,
) -> u64 {
    let netters = netters & occupied;
    if netters == 0 {
        return 0;
    }
    let mut out = [0u64; MAX_CELLS];
    for s in bits(netters) {
        out[s] = reach[s] & occupied;
    }
    void_freed_rings(&mut out, netters, rule);

    let mut incoming = [0u64; MAX_CELLS];
    let mut targets = 0u64;
    for s in bits(netters) {
        for t in bits(out[s]) {
            incoming[t] |= 1 << s;
            targets |= 1 << t;
        }
    }
    // Netters nobody nets are free; resolve the rest in dependency order.
    let mut free = netters & !targets;
    let mut netted = 0u64;
    let mut open = targets;
    loop {
        let mut changed = false;
        for t in bits(open) {
            let by = incoming[t];
            if by & free != 0 {
                netted |= 1 << t;
            } else if by & !netted == 0 {
                free |= 1 << t;
            } else {
                continue;
            }
            open &= !(1 << t);
            changed = true;
        }
        if !changed {
            break;
        }
    }
    netted | open
}

fn void_freed_rings(out: &mut [u64; MAX_CELLS], netters: u64, rule: NetCycleRule) {
    let original = *out;
    for a in bits(netters) {
        for b in bits(original[a]) {
            let on_ring = match rule {
                _ if original[b] & (1 << a) != 0 => true,
                NetCycleRule::PairsOnly => false,
                NetCycleRule::PairsAnd3Cycles => {
                    bits(original[b]).any(|c| original[c] & (1 << a) != 0)
                }
                NetCycleRule::PairsAndAllCycles => reaches(&original, b, a),
            };
            if on_ring {
                out[a] &= !(1 << b);
            }
        }
    }
}

fn reaches(out: &[u64; MAX_CELLS], from: usize, to: usize) -> bool {
    let mut seen = 1u64 << from;
    let mut frontier = 1u64 << from;
    while frontier != 0 {
        let mut next = 0;
        for v in bits(frontier) {
            next |= out[v];
        }
        if next & (1 << to) != 0 {
            return true;
        }
        frontier = next & !seen;
        seen |= next;
    }
    false
}
