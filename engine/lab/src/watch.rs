//! What each tile did in one game, followed from its events ([`TileWatch`]): placed by which
//! seat, discarded, wounds dealt to HQs, kills.

use hexforge_core::Catalog;

/// Follows one game's events to see what each tile did: a mirror of the board (which tile and
/// owner on each cell), each seat's placed tiles, discards, wounds dealt to HQs, and the last
/// tile to strike each cell in the battle under way (credited with a kill when that cell's tile
/// leaves the board destroyed).
pub(crate) struct TileWatch<'c> {
    catalog: &'c Catalog,
    board: Vec<Option<(hexforge_core::TileRef, hexforge_core::Seat)>>,
    last_hit: Vec<Option<hexforge_core::TileRef>>,
    /// Per seat, per catalog tile: placed in this game.
    pub(crate) placed: [Vec<bool>; 2],
    pub(crate) discards: Vec<u64>,
    pub(crate) hq_damage: Vec<u64>,
    pub(crate) kills: Vec<u64>,
}

impl<'c> TileWatch<'c> {
    pub(crate) fn new(catalog: &'c Catalog) -> Self {
        let n = catalog.len();
        TileWatch {
            catalog,
            board: vec![None; hexforge_core::MAX_CELLS],
            last_hit: vec![None; hexforge_core::MAX_CELLS],
            placed: [vec![false; n], vec![false; n]],
            discards: vec![0; n],
            hq_damage: vec![0; n],
            kills: vec![0; n],
        }
    }
}

impl hexforge_core::EventSink for TileWatch<'_> {
    fn push(&mut self, event: hexforge_core::Event) {
        use hexforge_core::Event as E;
        match event {
            E::Placed {
                cell, tile, owner, ..
            } => {
                self.board[cell.index()] = Some((tile, owner));
                if let Some(p) = self.placed.get_mut(owner.index()) {
                    p[tile.index()] = true;
                }
            }
            E::Fielded {
                cell, tile, owner, ..
            }
            | E::Joined {
                cell, tile, owner, ..
            } => self.board[cell.index()] = Some((tile, owner)),
            E::Moved { from, to, .. } if from != to => {
                self.board[to.index()] = self.board[from.index()].take();
                self.last_hit[to.index()] = self.last_hit[from.index()].take();
            }
            E::Attack {
                from,
                target,
                wounds,
                ..
            } => {
                if let Some((attacker, _)) = self.board[from.index()] {
                    self.last_hit[target.index()] = Some(attacker);
                    if let Some((t, _)) = self.board[target.index()]
                        && self.catalog.get(t).is_hq()
                    {
                        self.hq_damage[attacker.index()] += u64::from(wounds);
                    }
                }
            }
            E::Removed { cell, .. } => {
                if let Some(killer) = self.last_hit[cell.index()].take() {
                    self.kills[killer.index()] += 1;
                }
                self.board[cell.index()] = None;
            }
            E::Lifted { cell, .. } => {
                self.board[cell.index()] = None;
                self.last_hit[cell.index()] = None;
            }
            E::BattleEnded => self.last_hit.iter_mut().for_each(|h| *h = None),
            E::Discarded { tile, .. } => self.discards[tile.index()] += 1,
            _ => {}
        }
    }
}
