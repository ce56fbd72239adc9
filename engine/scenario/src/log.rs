//! Readable battle logs: one line per event, tiles named by their scenario labels.

use hexforge_core::battle::Context;
use hexforge_core::{Battlefield, Cell, Event, MAX_CELLS};

/// Names the tiles of a battlefield by label and tile id, and follows them as they move; removed
/// tiles keep their names for the rest of the log.
#[derive(Clone, Debug)]
pub struct Names {
    /// Label and `army/tile` of the tile on each cell.
    names: Vec<Option<(String, String)>>,
    hexes: Vec<hexforge_core::Hex>,
    players: Vec<String>,
}

impl Names {
    /// Names every tile on the board, e.g. `m_net (moloch/netter) [0, 1]`.
    pub fn new(
        field: &Battlefield,
        ctx: Context<'_>,
        label_of: impl Fn(Cell) -> Option<String>,
        players: &[String],
    ) -> Self {
        let mut names = vec![None; MAX_CELLS];
        for (c, p) in field.tiles() {
            let def = ctx.catalog.get(p.tile);
            let label = label_of(c).unwrap_or_else(|| def.id.clone());
            names[c.index()] = Some((label, def.full_id()));
        }
        Names {
            names,
            hexes: field.shape().hexes().to_vec(),
            players: players.to_vec(),
        }
    }

    /// Names a tile placed after the names were taken.
    pub fn placed(&mut self, field: &Battlefield, ctx: Context<'_>, c: Cell, label: &str) {
        if let Some(p) = field.at(c) {
            self.names[c.index()] = Some((label.to_string(), ctx.catalog.get(p.tile).full_id()));
        }
    }

    /// Keeps names on their tiles when an event moves one.
    pub fn follow(&mut self, e: &Event) {
        if let Event::Moved { from, to, .. } = *e
            && from != to
        {
            self.names[to.index()] = self.names[from.index()].take();
        }
    }

    /// The name of the tile on `c`, with the hex it stands on.
    pub fn name(&self, c: Cell) -> String {
        match &self.names[c.index()] {
            Some((label, id)) => format!("{label} ({id}) {}", self.hexes[c.index()]),
            None => "an empty hex".to_string(),
        }
    }

    /// One line for an event, or `None` for events that only mark structure.
    pub fn describe(&self, e: &Event) -> Option<String> {
        Some(match *e {
            Event::Placed { cell, .. } => format!("{} is placed", self.name(cell)),
            Event::Moved { from, to, facing } => {
                if from == to {
                    format!("{} turns to face {}", self.name(from), facing.name())
                } else {
                    format!(
                        "{} moves to {} facing {}",
                        self.name(from),
                        self.hexes[to.index()],
                        facing.name()
                    )
                }
            }
            Event::Struck { target, wounds } => format!(
                "{} is struck for {wounds} wound{}",
                self.name(target),
                if wounds == 1 { "" } else { "s" }
            ),
            Event::BattleStarted { first_phase } => {
                format!("Battle: initiative phases {first_phase} down to 0")
            }
            Event::PhaseStarted { phase } => format!("Phase {phase}"),
            Event::Netted { cell } => format!("  {} is netted", self.name(cell)),
            Event::Freed { cell } => format!("  {} is no longer netted", self.name(cell)),
            Event::Acts { cell, .. } => format!("  {} acts", self.name(cell)),
            Event::Exploded { cell } => {
                format!("  {} explodes instead of attacking", self.name(cell))
            }
            Event::Converted { unit, edge, by, to } => {
                format!(
                    "  {} turns the attack through edge {edge} of {} into {}",
                    self.name(by),
                    self.name(unit),
                    to.name()
                )
            }
            Event::Attack {
                from,
                edge,
                kind,
                target,
                strength,
                armored,
                wounds,
            } => {
                let via = edge
                    .map(|e| format!(" through edge {e}"))
                    .unwrap_or_default();
                let armor = if armored { ", armor -1" } else { "" };
                format!(
                    "  {} {} {strength}{via} -> {}: {wounds} wound{}{armor}",
                    self.name(from),
                    kind.name(),
                    self.name(target),
                    if wounds == 1 { "" } else { "s" }
                )
            }
            Event::Absorbed {
                medic,
                target,
                attacker,
                wounds,
            } => format!(
                "  {} absorbs {wounds} wound{} of {} on {} and is discarded",
                self.name(medic),
                if wounds == 1 { "" } else { "s" },
                attacker.map_or("the instant".to_string(), |a| self.name(a)),
                self.name(target)
            ),
            Event::Wounded {
                cell,
                added,
                total,
                destroyed,
            } => format!(
                "  {} takes {added}, {total} wound{} in all{}",
                self.name(cell),
                if total == 1 { "" } else { "s" },
                if destroyed { ": destroyed" } else { "" }
            ),
            Event::Removed { cell, .. } => format!("  {} leaves the board", self.name(cell)),
            Event::HqDamaged { player, amount, hp } => {
                let who = self
                    .players
                    .get(player.index())
                    .cloned()
                    .unwrap_or_else(|| player.to_string());
                format!("  HQ of {who} loses {amount}: {hp} HP")
            }
            Event::PhaseEnded { .. } => return None,
            Event::BattleEnded => "Battle over".to_string(),
        })
    }
}
