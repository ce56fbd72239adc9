//! Who is netted: the net graph of R6.1.9 with the ring rules of `net_cycle_rule` (R6.1.5, R6.1.6).
//!
//! 1. A net edge joins a netter to the adjacent enemy tile its net icon points at.
//! 2. Edges on rings the rule frees are void: pairs always; rings of three or of any length by option.
//! 3. On the rest, a tile is netted when a netter that is not netted points at it, and free when
//!    every netter pointing at it is netted (R6.1.2), decided from the netters nobody nets.
//! 4. What stays undecided hangs on rings the rule does not free. The first such rings (those no
//!    other undecided tile nets) are netted as a whole, every member held by a member of its ring;
//!    their members being netted, their nets stop working (R6.1.2), so what only they net is free.
//!    Step 3 then goes on from there, until every tile is decided (docs/DECISIONS.md, "Nets").

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
    // Netting a tile of a shared linked unit nets the whole unit (R9.3.2).
    if !field.links().is_empty() {
        mask = field.spread_shared(mask);
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
    // Most often no netter is netted: every netter is free, and nets all it reaches.
    let reached = bits(netters).fold(0u64, |m, s| m | reach[s] & occupied);
    if reached & netters == 0 {
        return reached;
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
    // Netters nobody nets are free; resolve the rest in dependency order (step 3).
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
        if changed {
            continue;
        }
        // Step 4: every tile still open is netted by another open one, so the open tiles hold
        // rings; the first of them are netted as a whole, and step 3 goes on from there.
        let rings = first_rings(&out, &incoming, open);
        debug_assert!(open == 0 || rings != 0, "open tiles always hold a ring");
        if rings == 0 {
            break;
        }
        netted |= rings;
        open &= !rings;
    }
    netted
}

/// The members of the first rings among the undecided tiles `open`: each open tile on a ring of
/// open tiles such that every open tile netting it, directly or through others, is on a ring with
/// it (the strongly connected parts of the undecided graph that no other part nets).
fn first_rings(out: &[u64; MAX_CELLS], incoming: &[u64; MAX_CELLS], open: u64) -> u64 {
    let mut rings = 0u64;
    for v in bits(open) {
        let ahead = reachable(out, v, open);
        if ahead & (1 << v) != 0 && reachable(incoming, v, open) & !ahead == 0 {
            rings |= 1 << v;
        }
    }
    rings
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
    reachable(out, from, !0) & (1 << to) != 0
}

/// The tiles of `within` reached from `from` by one or more `edges` that stay within it (`from`
/// itself only when it lies on a ring).
fn reachable(edges: &[u64; MAX_CELLS], from: usize, within: u64) -> u64 {
    let mut seen = 0u64;
    let mut frontier = 1u64 << from;
    while frontier != 0 {
        let mut next = 0;
        for v in bits(frontier) {
            next |= edges[v];
        }
        next &= within & !seen;
        seen |= next;
        frontier = next;
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const V3: NetCycleRule = NetCycleRule::PairsAnd3Cycles;
    const CLASSIC: NetCycleRule = NetCycleRule::PairsOnly;
    const V2025: NetCycleRule = NetCycleRule::PairsAndAllCycles;

    /// The netted tiles of a net graph given as `(netter, target)` edges between cells 0 to 63,
    /// every cell named in an edge occupied.
    fn netted_of(edges: &[(usize, usize)], rule: NetCycleRule) -> u64 {
        let mut reach = [0u64; MAX_CELLS];
        let mut netters = 0u64;
        let mut occupied = 0u64;
        for &(s, t) in edges {
            reach[s] |= 1 << t;
            netters |= 1 << s;
            occupied |= 1 << s | 1 << t;
        }
        resolve(&reach, netters, occupied, rule)
    }

    fn cells(list: &[usize]) -> u64 {
        list.iter().fold(0, |m, c| m | 1 << c)
    }

    /// A ring of four netters, 0 -> 1 -> 2 -> 3 -> 0, as in a 2-player game.
    const RING: [(usize, usize); 4] = [(0, 1), (1, 2), (2, 3), (3, 0)];

    fn with(extra: &[(usize, usize)]) -> Vec<(usize, usize)> {
        RING.iter().chain(extra).copied().collect()
    }

    #[test]
    fn a_ring_of_four_the_rule_does_not_free_is_netted_as_a_whole() {
        for rule in [CLASSIC, V3] {
            assert_eq!(netted_of(&RING, rule), cells(&[0, 1, 2, 3]), "{rule}");
        }
        assert_eq!(netted_of(&RING, V2025), 0, "R6.1.6: 2025 frees it");
    }

    #[test]
    fn a_tile_only_a_member_of_a_netted_ring_nets_is_free() {
        // 3 also nets 4, which nothing else nets: 3 is netted, so that net does not work (R6.1.2).
        let g = with(&[(3, 4)]);
        assert_eq!(netted_of(&g, V3), cells(&[0, 1, 2, 3]));
        assert_eq!(
            netted_of(&g, V2025),
            cells(&[4]),
            "a freed ring's other nets work (R6.1.6)"
        );
    }

    #[test]
    fn a_netter_freed_below_a_netted_ring_nets_what_it_points_at() {
        // 4, netted only by the ring, is free; its net on 5 works.
        let g = with(&[(3, 4), (4, 5)]);
        assert_eq!(netted_of(&g, V3), cells(&[0, 1, 2, 3, 5]));
    }

    #[test]
    fn a_tile_a_free_netter_also_nets_stays_netted() {
        let g = with(&[(3, 4), (6, 4)]);
        assert_eq!(netted_of(&g, V3), cells(&[0, 1, 2, 3, 4]));
    }

    #[test]
    fn a_ring_member_netted_from_outside_leaves_every_other_member_netted() {
        // 4 nets 0 from outside (Q19): 0 is netted, so 1 is free, 2 netted, 3 free, and 3's
        // other net, on 5, works.
        let g = with(&[(4, 0), (3, 5)]);
        assert_eq!(netted_of(&g, V3), cells(&[0, 2, 5]));
    }

    #[test]
    fn a_ring_below_a_netted_ring_is_decided_from_the_net_the_first_ring_frees() {
        // Ring A (0-3) nets 8 only; 8 is free and nets 10, on ring B (10 -> 11 -> 12 -> 13 -> 10),
        // from outside: B is decided as any ring netted from outside, not netted as a whole.
        let g = with(&[(3, 8), (8, 10), (10, 11), (11, 12), (12, 13), (13, 10)]);
        assert_eq!(netted_of(&g, V3), cells(&[0, 1, 2, 3, 10, 12]));
    }

    #[test]
    fn a_ring_of_three_in_classic_is_netted_and_its_other_nets_do_not_work() {
        let g = [(0, 1), (1, 2), (2, 0), (1, 3)];
        assert_eq!(netted_of(&g, CLASSIC), cells(&[0, 1, 2]));
        assert_eq!(netted_of(&g, V3), cells(&[3]), "R6.1.6: 3.0 frees it");
    }

    #[test]
    fn two_rings_joined_into_one_part_are_netted_together() {
        // Two rings of four share the tile 0, and 2 nets 9 outside: all seven members are netted.
        let g = with(&[(0, 4), (4, 5), (5, 6), (6, 0), (2, 9)]);
        assert_eq!(netted_of(&g, V3), cells(&[0, 1, 2, 3, 4, 5, 6]));
    }

    /// The tiles `from` reaches by one or more `edges` through tiles of `within`.
    fn closure(edges: &[(usize, usize)], from: usize, within: u64) -> u64 {
        let mut seen = 0u64;
        let mut stack = vec![from];
        while let Some(v) = stack.pop() {
            for &(s, t) in edges {
                if s == v && within & (1 << t) != 0 && seen & (1 << t) == 0 {
                    seen |= 1 << t;
                    stack.push(t);
                }
            }
        }
        seen
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// What R6.1.2 and R6.1.9 ask of any net graph: a free netter's nets work; a netted tile
        /// is netted by a free netter, or lies on a ring netted as a whole: a ring of netted tiles
        /// none of which a free netter nets (a member a free netter nets is decided from that
        /// net, Q19, and breaks the ring).
        #[test]
        fn nets_follow_r6_1_2_except_on_rings_netted_as_a_whole(
            raw in proptest::collection::vec((0usize..10, 0usize..10), 0..24),
            rule in 0usize..3,
        ) {
            let rule = [CLASSIC, V3, V2025][rule];
            let edges: Vec<(usize, usize)> = raw.into_iter().filter(|(s, t)| s != t).collect();
            let netted = netted_of(&edges, rule);
            let mut out = [0u64; MAX_CELLS];
            let mut netters = 0u64;
            for &(s, t) in &edges {
                out[s] |= 1 << t;
                netters |= 1 << s;
            }
            void_freed_rings(&mut out, netters, rule);
            let live: Vec<(usize, usize)> = bits(netters)
                .flat_map(|s| bits(out[s]).map(move |t| (s, t)))
                .collect();
            let free_nets = |t: usize| live.iter().any(|&(s, u)| u == t && netted & (1 << s) == 0);
            for &(s, t) in &live {
                prop_assert!(
                    netted & (1 << s) != 0 || netted & (1 << t) != 0,
                    "the free netter {} nets {}, which is not netted", s, t
                );
            }
            // The netted tiles no free netter nets: each lies on a ring of them.
            let held = bits(netted).filter(|&t| !free_nets(t)).fold(0u64, |m, t| m | 1 << t);
            for t in bits(held) {
                prop_assert!(
                    closure(&live, t, held) & (1 << t) != 0,
                    "{} is netted by no free netter and on no ring netted as a whole", t
                );
            }
        }
    }
}
