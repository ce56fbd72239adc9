//! What every tile gets from nets, modules and HQ auras at one moment of a battle (R3.14, R3.5.2,
//! R6.1): computed at the start of a battle and again after tiles leave the board.

use super::nets;
use crate::battlefield::{Battlefield, Player};
use crate::hex::{Dir, Edge};
use crate::rules::{Rules, ScoperScope};
use crate::shape::{Cell, MAX_CELLS, bits};
use crate::tile::{Catalog, Effects, TileKind};

/// Modifiers of every cell. Entries of empty cells are zero.
#[derive(Clone, Debug)]
pub struct View {
    pub netted: u64,
    /// Who a tile's effects work for (its owner, or the owner of a module that hijacks it).
    pub controller: [Player; MAX_CELLS],
    pub melee: [i8; MAX_CELLS],
    pub ranged: [i8; MAX_CELLS],
    pub initiative: [i8; MAX_CELLS],
    pub extra: [u8; MAX_CELLS],
    /// For each cell, the Medics connected to it that work for its side.
    pub medics: [u64; MAX_CELLS],
    /// For each unit, the modules connected to it that may convert one of its attacks.
    pub converters: [u64; MAX_CELLS],
}

impl View {
    pub fn compute(field: &Battlefield, catalog: &Catalog, rules: &Rules) -> View {
        let mut v = View {
            netted: nets::netted(field, catalog, rules),
            controller: [Player::default(); MAX_CELLS],
            melee: [0; MAX_CELLS],
            ranged: [0; MAX_CELLS],
            initiative: [0; MAX_CELLS],
            extra: [0; MAX_CELLS],
            medics: [0; MAX_CELLS],
            converters: [0; MAX_CELLS],
        };
        let mut givers = 0u64;
        let mut hijackers = 0u64;
        for (c, p) in field.tiles() {
            v.controller[c.index()] = p.owner;
            let def = catalog.get(p.tile);
            if v.netted & c.bit() != 0 {
                continue; // a netted tile gives nothing (R3.11.1, R6.1.7, R6.1.8)
            }
            if def.gives().hijack {
                hijackers |= c.bit();
            }
            if !def.gives().is_none() {
                givers |= c.bit();
            }
        }
        v.hijack(field, catalog, rules, hijackers);
        for g in bits(givers) {
            let c = field.shape().cell_from_index(g);
            v.give(field, catalog, c);
        }
        v
    }

    /// R7.1.3: an enemy module connected to a hijacking module works for the hijacker's owner.
    fn hijack(&mut self, field: &Battlefield, catalog: &Catalog, rules: &Rules, hijackers: u64) {
        let mut taken = 0u64;
        for h in bits(hijackers) {
            let c = field.shape().cell_from_index(h);
            let Some(p) = field.at(c) else { continue };
            for n in linked(field, catalog, c) {
                let Some(t) = field.at(n) else { continue };
                let def = catalog.get(t.tile);
                let eligible = match rules.scoper_scope {
                    ScoperScope::ModulesOnly => def.kind == TileKind::Module,
                    ScoperScope::AnyBonusGivingUnit => !def.gives().is_none(),
                };
                if eligible
                    && !def.gives().hijack
                    && field.enemies(p.owner, t.owner)
                    && taken & n.bit() == 0
                {
                    self.controller[n.index()] = p.owner;
                    taken |= n.bit();
                }
            }
        }
    }

    fn give(&mut self, field: &Battlefield, catalog: &Catalog, giver: Cell) {
        let Some(p) = field.at(giver) else { return };
        let def = catalog.get(p.tile);
        let side = self.controller[giver.index()];
        let fx: &Effects = def.gives();
        let aura = def.is_hq();
        for dir in Dir::ALL {
            let edge = Edge::facing_toward(p.facing, dir);
            if !aura && !def.edge(edge).link {
                continue;
            }
            let Some(n) = field.shape().neighbour(giver, dir) else {
                continue;
            };
            let Some(t) = field.at(n) else { continue };
            let i = n.index();
            if field.friends(side, t.owner) {
                self.melee[i] = self.melee[i].saturating_add(fx.melee);
                self.ranged[i] = self.ranged[i].saturating_add(fx.ranged);
                self.initiative[i] = self.initiative[i].saturating_add(fx.initiative);
                self.extra[i] = self.extra[i].saturating_add(fx.extra_attack);
                if fx.medic {
                    self.medics[i] |= giver.bit();
                }
                if fx.convert_attack {
                    self.converters[i] |= giver.bit();
                }
            } else {
                self.initiative[i] = self.initiative[i].saturating_add(fx.enemy_initiative);
            }
        }
    }

    #[inline]
    pub fn is_netted(&self, c: Cell) -> bool {
        self.netted & c.bit() != 0
    }
}

/// The cells a module's links point at.
pub fn linked<'a>(
    field: &'a Battlefield,
    catalog: &'a Catalog,
    c: Cell,
) -> impl Iterator<Item = Cell> + 'a {
    let p = field.at(c);
    Edge::ALL.into_iter().filter_map(move |e| {
        let p = p?;
        if !catalog.get(p.tile).edge(e).link {
            return None;
        }
        field.shape().neighbour(c, e.direction(p.facing))
    })
}
