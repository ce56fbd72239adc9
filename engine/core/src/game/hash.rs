//! The state hash of a game: a 64-bit FNV-1a over an explicit little-endian encoding of everything
//! that decides how a game goes on, identical across processes, platforms and Rust versions.
//!
//! What is hashed: the players' armies and the mode; the board (its hexes and main area, then every
//! cell in reading order: empty, or the tile's catalog index, owner, facing and wounds); each
//! player's team and HQ HP; every pile (draw pile in its order, hand, discard pile); the turn
//! cycle and whose turn it is; the stage and the result once over; what the current turn has used
//! (the discards that count against `tiles_per_turn` only when there are any);
//! the turn number, the battles fought, the last-tile, final-round and tie-break marks, the players
//! out of the race of a three-player tie (only when there are any); the game's
//! random number generator, the seed of its ability scripts and the count of hook calls made
//! outside battles (each reseeds the scripts); the targets the scripted instants in the current
//! player's hand list (only when there are any, so other games hash as they did); what the game
//! rules in play close and where their actions may be taken (likewise only when there are any).
//!
//! What is not: the catalog and the rules, which a game is given rather than plays (a tile is
//! hashed by its catalog index), the kept board views (worked out again from the board) and the
//! hook failure of an action in progress, whether the armies hold scripted instants (the
//! catalog's) and which game rules are in play (the rules'). std's `Hash`/`DefaultHasher` are not used: their output
//! may change with the Rust version.

use super::{Game, Hand, Mode, Stage, TurnState};
use crate::event::{DrawReason, GameResult};
use crate::fnv::Fnv1a;
use crate::tile::TileRef;

/// Bumped whenever the encoding changes, so that hashes of different encodings never match.
const ENCODING: &[u8] = b"hexforge game state 2";

/// A pile of tiles: its length, then each tile's catalog index.
fn tiles(h: &mut Fnv1a, tiles: &[TileRef]) {
    h.len(tiles.len());
    for t in tiles {
        h.u16(t.index() as u16);
    }
}

/// The hash of `game`'s state (see the module documentation for what it covers).
pub(super) fn state_hash(game: &Game) -> u64 {
    // Every field named, so that a new one cannot be left out of the hash unnoticed.
    let Game {
        catalog: _,
        rules: _,
        field,
        mode,
        armies,
        piles,
        order,
        cursor,
        stage,
        state,
        turn_number,
        last_drawn,
        owed,
        tie_break,
        out,
        battles,
        rng,
        views: _,
        movers: _,
        hook_failure: _,
        hook_seed,
        hook_calls,
        has_scripted: _,
        scripted,
        rules_in_play: _,
        rule_points,
        restriction,
        rule_targets,
        losses: _,
        rule_refusals: _,
    } = game;
    let mut h = Fnv1a::new();
    h.bytes(ENCODING);

    h.len(armies.len());
    for a in armies.iter() {
        h.str(a);
    }
    h.u8(match mode {
        Mode::Duel => 0,
        Mode::FreeForAll => 1,
        Mode::OneVsTeam => 2,
        Mode::Teams => 3,
    });

    let shape = field.shape();
    h.len(shape.len());
    for hex in shape.hexes() {
        h.i32(hex.q());
        h.i32(hex.r());
    }
    h.u64(shape.main_area());
    field.hash_cells(&mut h);

    h.len(field.player_count());
    for p in field.players() {
        h.u8(field.team(p));
        h.i32(field.hq_hp(p));
    }
    h.len(piles.len());
    for Hand {
        deck,
        hand,
        discard,
        reserve,
    } in piles
    {
        tiles(&mut h, deck);
        tiles(&mut h, hand);
        tiles(&mut h, discard);
        // Only a reserve with tiles in it: games without one hash as before it existed.
        if !reserve.is_empty() {
            h.u8(0x52);
            tiles(&mut h, reserve);
        }
    }

    h.len(order.len());
    for p in order {
        h.u8(p.index() as u8);
    }
    h.len(*cursor);
    match stage {
        Stage::PlaceHq => h.u8(0),
        Stage::Discard => h.u8(1),
        Stage::Play => h.u8(2),
        Stage::Over(result) => {
            h.u8(3);
            match result {
                GameResult::Won { team } => {
                    h.u8(0);
                    h.u8(*team);
                }
                GameResult::Draw { reason } => {
                    h.u8(1);
                    h.u8(match reason {
                        DrawReason::AllHqsDestroyed => 0,
                        DrawReason::EqualHp => 1,
                        DrawReason::BattleLoop => 2,
                        DrawReason::Rule => 3,
                    });
                }
                GameResult::Shared { teams } => {
                    h.u8(2);
                    h.u8(*teams);
                }
            }
        }
    }
    let TurnState {
        turn,
        tiles_played,
        discards_counted,
        acted,
        discarded,
        placed,
        tiles_closed,
        rule_actions,
    } = state;
    h.u8(turn.player().index() as u8);
    h.u64(turn.mobility_used());
    h.u8(*tiles_played);
    h.bool(*acted);
    h.bool(*tiles_closed);
    // Only a turn that has taken its most rule actions hashes them (its rules' actions are no
    // longer offered); other games hash as before the count existed.
    if *rule_actions >= super::MAX_RULE_ACTIONS_PER_TURN {
        h.u8(0x5a);
        h.u8(*rule_actions);
    }
    // Only `extra_discards = counted` counts discards: other games hash as before it existed.
    if *discards_counted != 0 {
        h.u8(*discards_counted);
    }
    // Only game rules read whether the turn discarded: other games hash as before it existed.
    if !rule_points.is_empty() {
        h.bool(*discarded);
        h.u8(*placed);
    }

    h.u16(*turn_number);
    h.u32(*battles);
    h.bool(*last_drawn);
    match owed {
        None => h.u8(0),
        Some(mask) => {
            h.u8(1);
            h.u8(*mask);
        }
    }
    h.bool(*tie_break);
    // Only a three-player tie puts players out of the race: other games hash as before.
    if *out != 0 {
        h.u8(*out);
    }
    // The generator's state is private to it; four outputs of a copy fix all 256 bits of it
    // (xoshiro256** can be run backwards from them), and the game's own generator does not move.
    let mut copy = rng.clone();
    for _ in 0..4 {
        h.u64(copy.next_u64());
    }
    h.u64(*hook_seed);
    h.u32(*hook_calls);
    // Games whose hands hold no scripted instant hash as before there were any.
    if !scripted.is_empty() {
        h.len(scripted.len());
        for (tile, targets) in scripted {
            h.u16(tile.index() as u16);
            hash_targets(&mut h, targets);
        }
    }
    // Likewise for what game rules close and where their actions may be taken.
    if !restriction.is_open() || !rule_targets.is_empty() {
        h.u8(restriction.closed.bits());
        h.u64(restriction.blocked);
        // Hashed only when set, so games without it keep their hashes.
        if restriction.no_place != 0 {
            h.u64(restriction.no_place);
        }
        if restriction.instants != 0 {
            h.u8(0x1e);
            h.u8(restriction.instants);
        }
        h.len(rule_targets.len());
        for (rule, action, targets) in rule_targets {
            h.u8(*rule);
            h.u8(*action);
            hash_targets(&mut h, targets);
        }
    }
    h.finish()
}

/// The targets an instant or a rule action lists. Tiles are hashed only when listed, so games
/// without them keep their hashes.
fn hash_targets(h: &mut Fnv1a, targets: &crate::hooks::InstantTargets) {
    h.bool(targets.none);
    h.u64(targets.cells);
    if targets.tiles != 0 {
        h.u64(targets.tiles);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::DefaultPolicy;
    use crate::event::Event;
    use crate::game::{GameSetup, LegalActions, SeatSetup};
    use crate::hooks::NoAbilities;
    use crate::rng::Rng;
    use crate::rules::Rules;
    use crate::shape::BoardShape;
    use crate::tile::{Catalog, InstantEffect, Tile, TileKind};
    use std::sync::Arc;

    /// Two armies `a` and `b`: an HQ, 5 soldiers with a melee front and 2 Battle tiles each.
    fn catalog() -> Arc<Catalog> {
        let mut c = Catalog::new();
        for army in ["a", "b"] {
            let mut hq = Tile::new(army, "hq", TileKind::Hq);
            hq.initiative = crate::tile::Initiative::new(&[0]).expect("initiative");
            for e in &mut hq.edges {
                e.melee = 1;
            }
            let mut soldier = Tile::new(army, "soldier", TileKind::Soldier);
            soldier.count = 5;
            soldier.initiative = crate::tile::Initiative::new(&[2]).expect("initiative");
            soldier.edges[0].melee = 1;
            let mut battle = Tile::new(army, "battle", TileKind::Instant);
            battle.count = 2;
            battle.instant = Some(InstantEffect::Battle);
            c.add_army(army, army, 8, vec![hq, soldier, battle])
                .expect("army");
        }
        Arc::new(c)
    }

    fn new_game(seed: u64) -> Game {
        Game::new(
            GameSetup {
                shape: BoardShape::standard(),
                seats: SeatSetup::each_alone(&["a", "b"]),
                seed,
                marks: Vec::new(),
            },
            catalog(),
            Arc::new(Rules::default()),
        )
        .expect("game")
    }

    /// Plays `game` to its end with actions picked by a generator seeded with `picks`, and
    /// returns the hash after every action (the first is the hash before any).
    fn play(mut game: Game, picks: u64) -> (Game, Vec<u64>) {
        let mut rng = Rng::seeded(picks);
        let mut legal = LegalActions::new();
        let mut hashes = vec![game.state_hash()];
        while game.current().is_some() {
            game.legal_actions(&mut legal);
            let action = legal.get(rng.below(legal.len())).expect("a legal action");
            game.act(
                &action,
                &mut NoAbilities,
                &mut DefaultPolicy,
                &mut Vec::<Event>::new(),
            )
            .unwrap_or_else(|e| panic!("{action:?} refused: {e}"));
            hashes.push(game.state_hash());
            assert!(hashes.len() < 10_000, "the game should end");
        }
        (game, hashes)
    }

    #[test]
    fn the_hasher_is_fnv_1a_64() {
        // Published FNV-1a 64-bit test vectors.
        let fnv = |s: &[u8]| {
            let mut h = Fnv1a::new();
            h.bytes(s);
            h.finish()
        };
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_same_seed_and_actions_give_the_same_hash_at_every_step() {
        let (first, a) = play(new_game(11), 5);
        let (second, b) = play(new_game(11), 5);
        assert!(first.result().is_some());
        assert_eq!(a, b);
        assert_eq!(first.state_hash(), second.state_hash());
    }

    #[test]
    fn every_action_changes_the_hash() {
        for seed in 0..4 {
            let (_, hashes) = play(new_game(seed), seed + 100);
            for (i, w) in hashes.windows(2).enumerate() {
                assert_ne!(
                    w[0], w[1],
                    "seed {seed}: action {i} left the hash as it was"
                );
            }
        }
    }

    #[test]
    fn a_different_seed_gives_a_different_hash() {
        let hashes: Vec<u64> = (0..32).map(|s| new_game(s).state_hash()).collect();
        for (i, a) in hashes.iter().enumerate() {
            for b in &hashes[i + 1..] {
                assert_ne!(a, b);
            }
        }
        let (_, a) = play(new_game(1), 9);
        let (_, b) = play(new_game(2), 9);
        assert_ne!(a.last(), b.last());
    }

    #[test]
    fn hashing_reads_the_game_without_changing_it() {
        let mut g = new_game(3);
        let h = g.state_hash();
        assert_eq!(g.state_hash(), h, "the generator must not move");
        assert_eq!(g.clone().state_hash(), h);
        let _ = g.views();
        assert_eq!(g.state_hash(), h, "kept views are not state");
        let mut legal = LegalActions::new();
        g.legal_actions(&mut legal);
        assert_eq!(g.state_hash(), h, "listing actions is not state");
        g.shuffle_unknown(&mut Rng::seeded(1));
        assert_ne!(g.state_hash(), h, "the order of a draw pile is state");
    }

    #[test]
    fn a_move_of_one_tile_between_piles_changes_the_hash() {
        let mut g = new_game(4);
        let before = g.state_hash();
        let top = *g.piles[0].deck.last().expect("a deck");
        let mut moved = g.clone();
        moved.piles[0].deck.pop();
        moved.piles[0].discard.push(top);
        assert_ne!(moved.state_hash(), before);
        // The same tiles split differently between a pile and the next one hash differently.
        let mut shifted = g.clone();
        shifted.piles[0].deck.pop();
        shifted.piles[0].hand.insert(0, top);
        assert_ne!(shifted.state_hash(), moved.state_hash());
        assert_ne!(shifted.state_hash(), before);
        g.battles += 1;
        assert_ne!(g.state_hash(), before);
        let fought = g.state_hash();
        g.hook_calls += 1;
        assert_ne!(g.state_hash(), fought, "the scripts' next seed is state");
    }

    #[test]
    fn the_hash_of_a_new_game_is_pinned() {
        // The encoding is part of the format: two builds, machines or Rust versions that hash the
        // same game differently would make cross-process checks meaningless. Change the value
        // only with the encoding (and bump `ENCODING`).
        assert_eq!(
            format!("{:016x}", new_game(7).state_hash()),
            "bd1d1c71703c45db"
        );
    }
}
