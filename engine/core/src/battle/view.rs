//! What every tile gets from nets, modules and HQ auras at one moment of a battle (R3.14, R3.5.2,
//! R6.1). Tiles do not move during a battle, so which cells each tile's links, aura and nets reach
//! is worked out once per battle ([`Layout`]); the [`View`] is recomputed from it when a tile that
//! gives effects or nets leaves the board.

use super::nets;
use crate::battlefield::{Battlefield, MAX_PLAYERS, Seat};
use crate::hex::Dir;
use crate::hooks::Gift;
use crate::rules::{HijackScope, Rules};
use crate::shape::{Cell, MAX_CELLS, bits};
use crate::tile::{Catalog, Effects, Tile, TileKind};

/// The reach of every tile on the board when a battle starts.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Cells a module's links point at, or the neighbours of an HQ (its aura), for tiles that give effects.
    links: [u64; MAX_CELLS],
    /// Cells whose tiles a netter's nets affect.
    nets: [u64; MAX_CELLS],
    /// Tiles that give effects (modules with effects, HQs with an aura).
    givers: u64,
    hijackers: u64,
    netters: u64,
    /// Givers whose `gives_to` hooks say what they give each tile (the gifts given to
    /// [`View::compute`]).
    custom: u64,
}

impl Layout {
    pub fn new(field: &Battlefield, catalog: &Catalog, rules: &Rules) -> Self {
        let mut l = Layout {
            links: [0; MAX_CELLS],
            nets: [0; MAX_CELLS],
            givers: 0,
            hijackers: 0,
            netters: 0,
            custom: 0,
        };
        // Without markers, only a tile with printed nets nets (markers may add nets).
        let marked = !field.marks().is_empty();
        for (c, p) in field.tiles() {
            let i = c.index();
            let traits = catalog.traits(p.tile);
            if traits.nets != 0 || marked {
                l.nets[i] = nets::reach(field, catalog, rules, c);
                if l.nets[i] != 0 {
                    l.netters |= c.bit();
                }
            }
            if !traits.gives {
                continue;
            }
            l.givers |= c.bit();
            if traits.hijacks {
                l.hijackers |= c.bit();
            }
            l.links[i] = link_reach(field, c, p.facing, traits.links);
        }
        l
    }

    /// The cells of givers that give effects through links or an aura, with the cells each one
    /// reaches, in reading order.
    pub fn reaches(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        bits(self.givers).map(|g| (g, self.links[g]))
    }

    /// Marks the givers whose `gives_to` hooks say what they give each tile: the view gives
    /// their gifts in place of their static effects.
    pub fn set_custom(&mut self, custom: u64) {
        self.custom = custom & self.givers;
    }

    /// Whether the view can change when the tiles in `removed` leave the board.
    pub fn matters(&self, removed: u64) -> bool {
        removed & (self.givers | self.netters) != 0
    }

    /// Who is netted among the tiles on the board.
    pub fn netted(&self, occupied: u64, rules: &Rules) -> u64 {
        nets::resolve(&self.nets, self.netters, occupied, rules.net_cycle_rule)
    }
}

/// The cells the `links` (edge bits, every edge for an HQ's aura) of a tile on `c` facing
/// `facing` point at.
pub(crate) fn link_reach(field: &Battlefield, c: Cell, facing: Dir, links: u8) -> u64 {
    // Edge `e` of a tile facing `f` points toward direction `(e + f) % 6`: the link bits
    // turned by the facing are the directions they reach.
    let (links, f) = (u16::from(links & 0x3f), u16::from(facing.index()));
    let dirs = ((links << f | links >> (6 - f)) & 0x3f) as u8;
    let reach = field.shape().neighbours_toward(c, dirs);
    if field.links().is_empty() {
        reach
    } else {
        field.spread_shared(reach)
    }
}

/// Whether an enemy hijacking module may take over the tile `def` (R7.1.3, `hijack_scope`):
/// never another hijacker.
pub(crate) fn can_be_hijacked(def: &Tile, rules: &Rules) -> bool {
    let eligible = match rules.hijack_scope {
        HijackScope::ModulesOnly => def.kind == TileKind::Module,
        HijackScope::AnyBonusGivingUnit => !def.gives().is_none(),
    };
    eligible && !def.gives().hijack
}

/// Modifiers of every cell. Entries of empty cells are zero.
#[derive(Clone, Debug)]
pub struct View {
    pub netted: u64,
    /// Who a tile's effects work for (its owner, or the owner of a module that hijacks it).
    pub controller: [Seat; MAX_CELLS],
    pub melee: [i8; MAX_CELLS],
    pub ranged: [i8; MAX_CELLS],
    pub initiative: [i8; MAX_CELLS],
    pub extra: [u8; MAX_CELLS],
    /// For each cell, the Medics connected to it that work for its side.
    pub medics: [u64; MAX_CELLS],
    /// Every Medic some cell's `medics` holds.
    pub any_medics: u64,
    /// The cells whose `medics` entry is set, and whose `converters` entry is.
    medic_cells: u64,
    converter_cells: u64,
    /// For each unit, the modules connected to it that may convert one of its attacks.
    pub converters: [u64; MAX_CELLS],
    /// Units connected to a working friendly module that lets them move as if mobile (R7.4.4).
    pub mobility: u64,
}

impl View {
    pub fn empty() -> View {
        View {
            netted: 0,
            controller: [Seat::default(); MAX_CELLS],
            melee: [0; MAX_CELLS],
            ranged: [0; MAX_CELLS],
            initiative: [0; MAX_CELLS],
            extra: [0; MAX_CELLS],
            medics: [0; MAX_CELLS],
            any_medics: 0,
            medic_cells: 0,
            converter_cells: 0,
            converters: [0; MAX_CELLS],
            mobility: 0,
        }
    }

    /// Recomputes the view in place for the tiles now on the board; `gifts`: what the givers
    /// the layout marks as custom give each tile (empty when none is).
    pub fn compute(
        &mut self,
        field: &Battlefield,
        catalog: &Catalog,
        rules: &Rules,
        layout: &Layout,
        gifts: &[Gift],
    ) {
        let occupied = field.occupied();
        self.netted = layout.netted(occupied, rules);
        // The cells of each player's tiles, then of each player's friends' (theirs included).
        let mut owned = [0u64; MAX_PLAYERS];
        for (c, p) in field.tiles() {
            self.controller[c.index()] = p.owner;
            owned[p.owner.index()] |= c.bit();
        }
        let mut friends = [0u64; MAX_PLAYERS];
        for a in field.players() {
            for b in field.players() {
                if field.friends(a, b) {
                    friends[a.index()] |= owned[b.index()];
                }
            }
        }
        self.melee = [0; MAX_CELLS];
        self.ranged = [0; MAX_CELLS];
        self.initiative = [0; MAX_CELLS];
        self.extra = [0; MAX_CELLS];
        // Only the entries set last time are cleared (most are never set).
        for i in bits(self.medic_cells) {
            self.medics[i] = 0;
        }
        for i in bits(self.converter_cells) {
            self.converters[i] = 0;
        }
        self.medic_cells = 0;
        self.converter_cells = 0;
        self.any_medics = 0;
        self.mobility = 0;
        // A netted tile gives nothing (R3.11.1, R6.1.7, R6.1.8).
        let active = occupied & !self.netted;
        self.hijack(field, catalog, rules, layout, layout.hijackers & active);
        for g in bits(layout.givers & active & !layout.custom) {
            let Some(p) = field.at(field.shape().cell_from_index(g)) else {
                continue;
            };
            let reach = layout.links[g] & occupied;
            let friendly = friends[self.controller[g].index()];
            self.give(
                catalog.get(p.tile).gives(),
                g,
                reach & friendly,
                reach & !friendly,
            );
        }
        if layout.custom & active != 0 {
            for gift in gifts {
                let g = gift.giver.index();
                if layout.custom & active & (1 << g) != 0 {
                    self.give_one(field, g, gift.target.index(), &gift.effects);
                }
            }
        }
    }

    /// R7.1.3: an enemy module connected to a hijacking module works for the hijacker's owner.
    fn hijack(
        &mut self,
        field: &Battlefield,
        catalog: &Catalog,
        rules: &Rules,
        layout: &Layout,
        hijackers: u64,
    ) {
        let mut taken = 0u64;
        for h in bits(hijackers) {
            let Some(p) = field.at(field.shape().cell_from_index(h)) else {
                continue;
            };
            for n in bits(layout.links[h] & field.occupied() & !taken) {
                let Some(t) = field.at(field.shape().cell_from_index(n)) else {
                    continue;
                };
                if can_be_hijacked(catalog.get(t.tile), rules) && field.enemies(p.owner, t.owner) {
                    self.controller[n] = p.owner;
                    taken |= 1 << n;
                }
            }
        }
    }

    /// The effects `fx` of the giver on cell index `giver` on the tiles it reaches: all of them
    /// to `friendly` (the friends of the side it works for), its enemy initiative to `hostile`,
    /// an effect at a time over the cells.
    fn give(&mut self, fx: &Effects, giver: usize, friendly: u64, hostile: u64) {
        let add = |values: &mut [i8; MAX_CELLS], by: i8, cells: u64| {
            if by != 0 {
                for i in bits(cells) {
                    values[i] = values[i].saturating_add(by);
                }
            }
        };
        add(&mut self.melee, fx.melee, friendly);
        add(&mut self.ranged, fx.ranged, friendly);
        add(&mut self.initiative, fx.initiative, friendly);
        add(&mut self.initiative, fx.enemy_initiative, hostile);
        if fx.extra_attack != 0 {
            for i in bits(friendly) {
                self.extra[i] = self.extra[i].saturating_add(fx.extra_attack);
            }
        }
        if fx.medic && friendly != 0 {
            self.any_medics |= 1 << giver;
            self.medic_cells |= friendly;
            for i in bits(friendly) {
                self.medics[i] |= 1 << giver;
            }
        }
        if fx.convert_attack {
            self.converter_cells |= friendly;
            for i in bits(friendly) {
                self.converters[i] |= 1 << giver;
            }
        }
        if fx.mobility {
            self.mobility |= friendly;
        }
    }

    /// The effects `fx` of the giver on cell index `giver` on the tile on cell index `i`: to a
    /// friend of the side it works for, all of them; to an enemy, its enemy initiative.
    fn give_one(&mut self, field: &Battlefield, giver: usize, i: usize, fx: &Effects) {
        let Some(t) = field.at(field.shape().cell_from_index(i)) else {
            return;
        };
        let cell = 1u64 << i;
        if field.friends(self.controller[giver], t.owner) {
            self.give(fx, giver, cell, 0);
        } else {
            self.give(fx, giver, 0, cell);
        }
    }

    #[inline]
    pub fn is_netted(&self, c: crate::shape::Cell) -> bool {
        self.netted & c.bit() != 0
    }
}
