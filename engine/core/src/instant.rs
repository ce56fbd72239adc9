//! Scripted instants (docs/LUA_API.md, "Scripted instants"): the targets the scripts of an
//! instant in a player's hand list, and the effects its scripts ask for when it is played.
//!
//! An instant whose effect is [`InstantEffect::Scripted`] is played by its abilities' hooks: each
//! ability with the `targets` point adds the hexes it may be played on (the union of them is its
//! list; an instant with no `targets` hook is played with no target), and each ability with the
//! `play` point asks for effects when it is played, carried out at once. A game keeps the list of
//! each scripted instant in the current player's hand, worked out after every action, so that
//! [`crate::Game::legal_actions`] calls no hook; the editor's sandbox calls these functions on its
//! own board.

use crate::Context;
use crate::battlefield::{Battlefield, Seat};
use crate::effect::Effect;
use crate::hooks::{AbilityHooks, HookError, HookPoints, InstantContext, InstantTargets};
use crate::shape::Cell;
use crate::tile::{Catalog, InstantEffect, TileRef};

/// Whether `tile` is an instant played by its scripts.
pub fn is_scripted(catalog: &Catalog, tile: TileRef) -> bool {
    catalog.get(tile).instant == Some(InstantEffect::Scripted)
}

/// Where the scripted instant `tile`, held by `player`, may be played on `field`: the union of
/// what its abilities' `targets` hooks list (cells of the board only); with no `targets` hook, it
/// is played with no target. A hook's failure is returned as it is.
pub fn targets<H>(
    field: &Battlefield,
    ctx: Context<'_>,
    player: Seat,
    tile: TileRef,
    hooks: &mut H,
) -> Result<InstantTargets, HookError>
where
    H: AbilityHooks + ?Sized,
{
    let def = ctx.catalog.get(tile);
    let mut out = InstantTargets::default();
    let mut listed = false;
    for ability in def
        .abilities
        .iter()
        .filter(|a| a.points.contains(HookPoints::TARGETS))
    {
        listed = true;
        let ictx = InstantContext {
            field,
            catalog: ctx.catalog,
            rules: ctx.rules,
            player,
            tile,
            def,
            ability,
        };
        hooks.instant_targets(&ictx, &mut out)?;
    }
    if !listed {
        out.none = true;
    }
    out.cells &= field.shape().all();
    Ok(out)
}

/// The effects the `play` hooks of the scripted instant `tile` ask for when `player` plays it on
/// `target` (a cell, or none), in ability order; the caller carries them out
/// (`battle::resolve_effects`) at once.
pub fn asked<H>(
    field: &Battlefield,
    ctx: Context<'_>,
    player: Seat,
    tile: TileRef,
    target: Option<Cell>,
    hooks: &mut H,
) -> Result<Vec<Effect>, HookError>
where
    H: AbilityHooks + ?Sized,
{
    let def = ctx.catalog.get(tile);
    let mut effects = Vec::new();
    for ability in def
        .abilities
        .iter()
        .filter(|a| a.points.contains(HookPoints::PLAY))
    {
        let ictx = InstantContext {
            field,
            catalog: ctx.catalog,
            rules: ctx.rules,
            player,
            tile,
            def,
            ability,
        };
        hooks.instant_played(&ictx, target, &mut effects)?;
    }
    Ok(effects)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battlefield::{PlayerSetup, Setup};
    use crate::rules::Rules;
    use crate::shape::BoardShape;
    use crate::tile::{AbilityRef, Tile, TileKind};

    /// Lists two cells, the second off the shape's mask, and wounds the target when played.
    struct Listing;

    impl AbilityHooks for Listing {
        fn instant_targets(
            &mut self,
            ctx: &InstantContext<'_>,
            targets: &mut InstantTargets,
        ) -> Result<(), HookError> {
            assert_eq!(ctx.player, Seat::new(1));
            targets.cells |= 1 | 1 << 63;
            Ok(())
        }

        fn instant_played(
            &mut self,
            _ctx: &InstantContext<'_>,
            target: Option<Cell>,
            effects: &mut Vec<Effect>,
        ) -> Result<(), HookError> {
            let cell = target.expect("a target");
            effects.push(Effect::Wound { cell, wounds: 2 });
            Ok(())
        }
    }

    fn catalog(points: HookPoints) -> (Catalog, TileRef) {
        let mut c = Catalog::new();
        let hq = Tile::new("a", "hq", TileKind::Hq);
        let mut gas = Tile::new("a", "gas", TileKind::Instant);
        gas.instant = Some(InstantEffect::Scripted);
        let mut ability = AbilityRef::new("gas", Default::default());
        ability.points = points;
        gas.abilities.push(ability);
        c.add_army("a", "a", 2, vec![hq, gas]).expect("army");
        let t = c.find("a/gas").expect("gas");
        (c, t)
    }

    fn field() -> Battlefield {
        Battlefield::new(
            Setup {
                shape: BoardShape::standard(),
                players: vec![
                    PlayerSetup { team: 0, hq_hp: 20 },
                    PlayerSetup { team: 1, hq_hp: 20 },
                ],
                tiles: Vec::new(),
            },
            &Catalog::new(),
        )
        .expect("board")
    }

    #[test]
    fn targets_are_the_union_of_the_hooks_cells_on_the_board() {
        let (c, gas) = catalog(HookPoints::INSTANT);
        let rules = Rules::default();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let t = targets(&field(), ctx, Seat::new(1), gas, &mut Listing).expect("targets");
        assert_eq!(
            t,
            InstantTargets {
                none: false,
                cells: 1,
                tiles: 0
            }
        );
        let board = field();
        let first = board.shape().cell_from_index(0);
        let asked = asked(&board, ctx, Seat::new(1), gas, Some(first), &mut Listing);
        assert_eq!(
            asked.expect("effects"),
            vec![Effect::Wound {
                cell: first,
                wounds: 2
            }]
        );
    }

    #[test]
    fn an_instant_without_a_targets_hook_is_played_with_no_target() {
        let (c, gas) = catalog(HookPoints::PLAY);
        let rules = Rules::default();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let t = targets(&field(), ctx, Seat::new(1), gas, &mut Listing).expect("targets");
        assert_eq!(
            t,
            InstantTargets {
                none: true,
                cells: 0,
                tiles: 0
            }
        );
    }
}
