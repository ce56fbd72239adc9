//! The evaluation the greedy and Monte-Carlo bots share.
//!
//! From the point of view of one player, a position is worth:
//! - 10 points per HQ hit point of their side (own and allied HQs), minus 10 per HQ hit point of
//!   every enemy;
//! - plus the worth of each of their side's units on the board, minus the worth of each enemy
//!   unit, where a unit is worth 3 per hit point left, plus the strength of all its attacks, plus
//!   2 per module effect it gives, plus 1 per initiative value;
//! - a won game is worth [`WIN`], a lost one `-WIN`, a draw 0.

use hexforge_core::tile::InstantEffect;
use hexforge_core::{Battlefield, Catalog, Effects, GameResult, Seat, Tile, TileKind};

/// The worth of a won game; far above any position.
pub const WIN: i32 = 1_000_000;

/// How good `field` is for `me`.
pub fn evaluate(field: &Battlefield, catalog: &Catalog, me: Seat) -> i32 {
    let mut score = 0i32;
    for p in field.players() {
        let sign = if field.friends(me, p) { 1 } else { -1 };
        score += sign * 10 * field.hq_hp(p).max(0);
    }
    for (_, t) in field.tiles() {
        let def = catalog.get(t.tile);
        if def.is_hq() {
            continue;
        }
        let sign = if field.friends(me, t.owner) { 1 } else { -1 };
        let left = i32::from(def.hit_points().saturating_sub(t.wounds));
        score += sign * (3 * left + tile_worth(def));
    }
    score
}

/// The worth of a finished game for `me`.
pub fn terminal(result: GameResult, field: &Battlefield, me: Seat) -> i32 {
    match result {
        GameResult::Won { team } if team == field.team(me) => WIN,
        GameResult::Won { .. } => -WIN,
        // A shared victory is worth half a win to those who share it.
        GameResult::Shared { teams } if teams & 1 << field.team(me) != 0 => WIN / 2,
        GameResult::Shared { .. } => -WIN,
        GameResult::Draw { .. } => 0,
    }
}

/// What a tile in hand is worth, to pick the mandatory discard: a unit as on the board at full
/// health, an instant by its effect.
pub fn tile_value(def: &Tile) -> i32 {
    match (def.kind, def.instant) {
        (TileKind::Instant, Some(effect)) => match effect {
            InstantEffect::Battle => 4,
            InstantEffect::Move => 3,
            InstantEffect::Push => 4,
            InstantEffect::Wound { wounds } => 3 + 2 * i32::from(wounds),
            InstantEffect::DestroyNearHq => 8,
            InstantEffect::Area { wounds, radius } => 3 + 3 * i32::from(wounds) * i32::from(radius),
            // What a script does is known only by playing it: worth a middling instant.
            InstantEffect::Scripted => 5,
        },
        (TileKind::Instant, None) => 4,
        _ => 3 * i32::from(def.hit_points()) + tile_worth(def),
    }
}

fn tile_worth(def: &Tile) -> i32 {
    let attacks: i32 = def
        .edges
        .iter()
        .map(|e| i32::from(e.melee) + i32::from(e.ranged))
        .sum();
    attacks + 2 * effects(def.gives()) + def.initiative.values().len() as i32
}

fn effects(e: &Effects) -> i32 {
    [
        e.melee != 0,
        e.ranged != 0,
        e.initiative != 0,
        e.enemy_initiative != 0,
        e.medic,
        e.extra_attack != 0,
        e.hijack,
        e.convert_attack,
        e.mobility,
    ]
    .iter()
    .filter(|x| **x)
    .count() as i32
}
