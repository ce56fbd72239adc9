//! Unit and property tests of battle resolution on hand-built tiles.

use super::*;
use crate::battlefield::{PlayerSetup, Setup, TileSetup};
use crate::decision::DefaultPolicy;
use crate::hex::{Dir, Hex};
use crate::hooks::NoAbilities;
use crate::rules::NetCycleRule;
use crate::shape::BoardShape;
use crate::tile::{EdgeIcons, Effects, Initiative, Tile, TileKind};
use proptest::prelude::*;

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    let mut hq = Tile::new("t", "hq", TileKind::Hq);
    hq.initiative = Initiative::new(&[0]).expect("init");
    for e in &mut hq.edges {
        e.melee = 1;
    }
    let mut netter = Tile::new("t", "netter", TileKind::Soldier);
    netter.edges[0].net = true;
    let mut gunner = Tile::new("t", "gunner", TileKind::Soldier);
    gunner.initiative = Initiative::new(&[3, 1]).expect("init");
    gunner.edges[0] = EdgeIcons {
        ranged: 1,
        armor: true,
        ..EdgeIcons::default()
    };
    gunner.edges[2].melee = 2;
    gunner.toughness = 1;
    let mut brute = Tile::new("t", "brute", TileKind::Soldier);
    brute.initiative = Initiative::new(&[2]).expect("init");
    brute.edges[0].melee = 1;
    brute.edges[1].melee = 1;
    brute.edges[4].ranged = 1;
    let mut medic = Tile::new("t", "medic", TileKind::Module);
    medic.module.medic = true;
    medic.edges[0].link = true;
    medic.edges[3].link = true;
    let mut booster = Tile::new("t", "booster", TileKind::Module);
    booster.module = Effects {
        melee: 1,
        initiative: 1,
        extra_attack: 1,
        ..Effects::NONE
    };
    booster.edges[0].link = true;
    booster.edges[2].link = true;
    c.add_army(
        "t",
        "Test",
        35,
        vec![hq, netter, gunner, brute, medic, booster],
    )
    .expect("catalog");
    c
}

fn field(c: &Catalog, players: usize, tiles: &[(&str, u8, i32, i32, u8)]) -> Battlefield {
    let setup = Setup {
        shape: BoardShape::standard(),
        players: (0..players)
            .map(|i| PlayerSetup {
                team: i as u8,
                hq_hp: 20,
            })
            .collect(),
        tiles: tiles
            .iter()
            .map(|(id, owner, q, r, facing)| TileSetup {
                tile: c
                    .find(id)
                    .or_else(|| c.find(&format!("t/{id}")))
                    .expect("tile"),
                owner: Seat::new(*owner),
                hex: Hex::new(*q, *r),
                facing: Dir::new(*facing),
                wounds: 0,
            })
            .collect(),
    };
    Battlefield::new(setup, c).expect("legal setup")
}

/// Three netters of three players in a ring around the centre triangle [0,0] [1,-1] [1,0]:
/// A at [0,0] nets B at [1,-1] (NE), B nets C at [1,0] (S), C nets A at [0,0] (NW).
fn ring_of_three(c: &Catalog) -> Battlefield {
    field(
        c,
        3,
        &[
            ("netter", 0, 0, 0, 1),
            ("netter", 1, 1, -1, 3),
            ("netter", 2, 1, 0, 5),
        ],
    )
}

#[test]
fn a_ring_of_three_netters_is_free_from_v3_on_and_netted_in_classic() {
    let c = catalog();
    let f = ring_of_three(&c);
    for (rule, expected) in [
        (NetCycleRule::PairsOnly, 3),
        (NetCycleRule::PairsAnd3Cycles, 0),
        (NetCycleRule::PairsAndAllCycles, 0),
    ] {
        let rules = Rules {
            net_cycle_rule: rule,
            ..Rules::default()
        };
        assert_eq!(
            nets::netted(&f, &c, &rules).count_ones(),
            expected,
            "{rule}"
        );
    }
}

#[test]
fn a_ring_member_netted_from_outside_is_netted() {
    let c = catalog();
    // A fourth player's netter at [0,1] faces N and nets A at [0,0].
    let f = field(
        &c,
        4,
        &[
            ("netter", 0, 0, 0, 1),
            ("netter", 1, 1, -1, 3),
            ("netter", 2, 1, 0, 5),
            ("netter", 3, 0, 1, 0),
        ],
    );
    let netted = nets::netted(&f, &c, &Rules::default());
    let a = f.shape().cell(Hex::new(0, 0)).expect("a");
    assert_eq!(
        netted,
        a.bit(),
        "only A, netted from outside; its ring edges are void"
    );
}

#[test]
fn a_netted_netter_frees_what_it_nets() {
    let c = catalog();
    // Player 1 nets player 0's netter, which would net player 1's gunner.
    let f = field(
        &c,
        2,
        &[
            ("netter", 0, 0, 0, 2),
            ("gunner", 1, 1, 0, 0),
            ("netter", 1, 0, 1, 0),
        ],
    );
    let netted = nets::netted(&f, &c, &Rules::default());
    assert_eq!(netted, f.shape().cell(Hex::new(0, 0)).expect("a").bit());
}

fn run(f: &mut Battlefield, c: &Catalog) -> (Vec<Event>, BattleReport) {
    let rules = Rules::default();
    let mut events = Vec::new();
    let report = resolve(
        f,
        Context {
            catalog: c,
            rules: &rules,
        },
        &mut NoAbilities,
        &mut DefaultPolicy,
        &mut events,
    )
    .expect("no hooks");
    (events, report)
}

#[test]
fn extra_slot_from_a_module_acts_one_phase_below_the_last_normal_one() {
    let c = catalog();
    // Brute (init 2) with a booster below it (link 0 points N at the brute): +1 initiative -> 3,
    // extra slot -> 2. Enemy HQ to its front.
    let mut f = field(
        &c,
        2,
        &[
            ("brute", 0, 0, 0, 0),
            ("booster", 0, 0, 1, 0),
            ("hq", 1, 0, -1, 0),
        ],
    );
    let (events, _) = run(&mut f, &c);
    let acts: Vec<u8> = events
        .iter()
        .filter_map(|e| match e {
            Event::Acts { cell, phase } if f.shape().hex(*cell) == Hex::ORIGIN => Some(*phase),
            _ => None,
        })
        .collect();
    assert_eq!(acts, vec![3, 2]);
    assert_eq!(
        f.hq_hp(Seat::new(1)),
        16,
        "two melee attacks of strength 1 + 1"
    );
}

#[test]
fn a_medic_absorbs_one_attack_and_is_discarded() {
    let c = catalog();
    // Gunner of player 1 at [0,-2] facing S shoots down the column: first enemy is the brute at [0,0].
    // The brute's medic at [0,1] links N (edge 0) to it.
    let mut f = field(
        &c,
        2,
        &[
            ("gunner", 1, 0, -2, 3),
            ("brute", 0, 0, 0, 1),
            ("medic", 0, 0, 1, 0),
        ],
    );
    let (events, report) = run(&mut f, &c);
    let brute = f.shape().cell(Hex::ORIGIN).expect("brute");
    let mut phase = 0;
    let mut absorbed_in = None;
    let mut brute_removed_in = None;
    for e in &events {
        match *e {
            Event::PhaseStarted { phase: p } => phase = p,
            Event::Absorbed {
                target, wounds: 1, ..
            } if target == brute => absorbed_in = Some(phase),
            Event::Removed { cell, .. } if cell == brute => brute_removed_in = Some(phase),
            _ => {}
        }
    }
    assert_eq!(absorbed_in, Some(3), "the medic takes the phase-3 shot");
    assert_eq!(
        brute_removed_in,
        Some(1),
        "with the medic gone, the phase-1 shot kills the brute"
    );
    assert!(f.at_hex(Hex::new(0, 1)).is_none(), "the medic is discarded");
    assert_eq!(report.removed, 2);
}

fn random_field(c: &Catalog, picks: &[(u8, u8, u8, u8)]) -> Battlefield {
    let hexes = Hex::ORIGIN.within(2);
    let ids = ["netter", "gunner", "brute", "medic", "booster"];
    let mut tiles = vec![
        TileSetup {
            tile: c.find("t/hq").expect("hq"),
            owner: Seat::new(0),
            hex: hexes[0],
            facing: Dir::N,
            wounds: 0,
        },
        TileSetup {
            tile: c.find("t/hq").expect("hq"),
            owner: Seat::new(1),
            hex: hexes[18],
            facing: Dir::N,
            wounds: 0,
        },
    ];
    for (i, (kind, owner, facing, present)) in picks.iter().enumerate() {
        if *present % 4 != 0 {
            tiles.push(TileSetup {
                tile: c
                    .find(&format!("t/{}", ids[*kind as usize % ids.len()]))
                    .expect("tile"),
                owner: Seat::new(owner % 2),
                hex: hexes[i + 1],
                facing: Dir::new(*facing),
                wounds: 0,
            });
        }
    }
    let setup = Setup {
        shape: BoardShape::standard(),
        players: vec![
            PlayerSetup { team: 0, hq_hp: 20 },
            PlayerSetup { team: 1, hq_hp: 20 },
        ],
        tiles,
    };
    Battlefield::new(setup, c).expect("legal")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_battles_are_deterministic_and_never_heal(picks in proptest::collection::vec((0u8..5, 0u8..2, 0u8..6, 0u8..4), 17)) {
        let c = catalog();
        let start = random_field(&c, &picks);
        let mut a = start.clone();
        let mut b = start.clone();
        let (ea, ra) = run(&mut a, &c);
        let (eb, rb) = run(&mut b, &c);
        prop_assert_eq!(&ea, &eb);
        prop_assert_eq!(ra, rb);
        prop_assert_eq!(&a, &b);
        let removed = ea.iter().filter(|e| matches!(e, Event::Removed { .. })).count() as u32;
        prop_assert_eq!(removed, ra.removed);
        for p in start.players() {
            prop_assert!(a.hq_hp(p) <= start.hq_hp(p));
            prop_assert!(a.hq_hp(p) >= 0);
        }
        for (cell, t) in a.tiles() {
            let before = start.at(cell).expect("no tile appears during a battle");
            prop_assert_eq!(before.tile, t.tile);
            prop_assert!(t.wounds >= before.wounds);
            prop_assert!(t.wounds < c.get(t.tile).hit_points() || c.get(t.tile).is_hq());
        }
        let mut phases = ea.iter().filter_map(|e| match e { Event::PhaseStarted { phase } => Some(*phase), _ => None });
        let first = phases.next();
        prop_assert!(first.is_some());
        let mut last = first.unwrap_or(0);
        for p in phases {
            prop_assert_eq!(p + 1, last, "phases count down one at a time");
            last = p;
        }
        prop_assert_eq!(last, 0);
    }
}

/// A scripted ability for the hook tests: `double` doubles the strength of the unit's attacks;
/// with `fail_in_phase`, the phase-end hook fails in that phase.
#[derive(Default)]
struct Doubler {
    started: u32,
    planned: u32,
    ended: u32,
    fail_in_phase: Option<u8>,
}

impl crate::hooks::AbilityHooks for Doubler {
    fn battle_started(
        &mut self,
        _ctx: &crate::hooks::HookContext<'_>,
        _fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        self.started += 1;
        Ok(())
    }

    fn plan_attacks(
        &mut self,
        ctx: &crate::hooks::HookContext<'_>,
        plan: &mut AttackPlan,
        _decider: &mut dyn Decider,
        _fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        assert_eq!(ctx.ability.hook, "double");
        self.planned += 1;
        for a in plan.attacks.iter_mut() {
            a.strength *= 2;
        }
        Ok(())
    }

    fn phase_ended(
        &mut self,
        ctx: &crate::hooks::HookContext<'_>,
        _fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        self.ended += 1;
        if self.fail_in_phase == Some(ctx.phase) {
            return Err(HookError {
                message: format!("double failed in phase {}", ctx.phase),
            });
        }
        Ok(())
    }
}

/// A catalog with `s/scripted_brute`, a brute whose ability `double` has every hook point.
fn scripted_catalog() -> Catalog {
    let mut c = catalog();
    let mut brute = c.get(c.find("t/brute").expect("brute")).clone();
    brute.id = "scripted_brute".into();
    let mut ability = crate::tile::AbilityRef::new("double", Default::default());
    ability.points = HookPoints::ALL_POINTS;
    brute.abilities.push(ability);
    c.add_army("s", "Scripted", 35, vec![brute]).expect("army");
    c
}

#[test]
fn a_failing_hook_abandons_the_battle_and_leaves_the_board_as_it_was() {
    let c = scripted_catalog();
    let before = field(
        &c,
        2,
        &[
            ("s/scripted_brute", 0, 0, 0, 0),
            ("t/hq", 1, 0, -1, 0),
            ("t/hq", 0, 0, 2, 0),
        ],
    );
    let mut f = before.clone();
    let rules = Rules::default();
    let mut hooks = Doubler {
        fail_in_phase: Some(1),
        ..Doubler::default()
    };
    let result = resolve(
        &mut f,
        Context {
            catalog: &c,
            rules: &rules,
        },
        &mut hooks,
        &mut DefaultPolicy,
        &mut (),
    );
    assert_eq!(
        result.map(|r| r.phases),
        Err(HookError {
            message: "double failed in phase 1".into()
        })
    );
    // The brute's doubled attack in phase 2 hit the HQ, but the battle was abandoned.
    assert_eq!(f, before);
}

#[test]
fn ability_hooks_change_the_attacks_of_tiles_that_list_them() {
    let c = scripted_catalog();
    let setup = Setup {
        shape: BoardShape::standard(),
        players: vec![
            PlayerSetup { team: 0, hq_hp: 20 },
            PlayerSetup { team: 1, hq_hp: 20 },
        ],
        tiles: vec![
            TileSetup {
                tile: c.find("s/scripted_brute").expect("s"),
                owner: Seat::new(0),
                hex: Hex::ORIGIN,
                facing: Dir::N,
                wounds: 0,
            },
            TileSetup {
                tile: c.find("t/brute").expect("t"),
                owner: Seat::new(0),
                hex: Hex::new(2, 0),
                facing: Dir::N,
                wounds: 0,
            },
            TileSetup {
                tile: c.find("t/hq").expect("hq"),
                owner: Seat::new(1),
                hex: Hex::new(0, -1),
                facing: Dir::N,
                wounds: 0,
            },
            TileSetup {
                tile: c.find("t/hq").expect("hq"),
                owner: Seat::new(0),
                hex: Hex::new(0, 2),
                facing: Dir::N,
                wounds: 0,
            },
        ],
    };
    let mut f = Battlefield::new(setup, &c).expect("legal");
    let rules = Rules::default();
    let mut hooks = Doubler::default();
    let report = resolve(
        &mut f,
        Context {
            catalog: &c,
            rules: &rules,
        },
        &mut hooks,
        &mut DefaultPolicy,
        &mut (),
    )
    .expect("no hook fails");
    // The scripted brute's melee 1 at the enemy HQ becomes 2; the plain brute is untouched.
    assert_eq!(report.hq_damage[1], 2);
    assert_eq!((hooks.started, hooks.planned), (1, 1));
    // Phases 2, 1, 0; the enemy HQ kills the scripted brute in phase 0, and `phase_ended` runs only
    // for scripted tiles still on the board.
    assert_eq!(report.phases, 3);
    assert_eq!(hooks.ended, 2);
}

/// Hooks that ask for a wound on the enemy HQ at the end of each phase and note every attack
/// event, for the order of a phase's moments.
#[derive(Default)]
struct Timer {
    events: Vec<(u8, crate::hooks::Outcome)>,
    hq: Option<Cell>,
}

impl crate::hooks::AbilityHooks for Timer {
    fn phase_ended(
        &mut self,
        ctx: &crate::hooks::HookContext<'_>,
        fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        if let Some(cell) = self.hq {
            fx.push(crate::effect::Effect::Wound { cell, wounds: 1 });
        }
        assert!(ctx.field.at(ctx.cell).is_some());
        Ok(())
    }

    fn attack_resolved(
        &mut self,
        ctx: &crate::hooks::HookContext<'_>,
        attack: &crate::hooks::ResolvedAttack,
        _fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        assert_eq!(
            attack.from, ctx.cell,
            "the attacker's hook runs for the attacker"
        );
        self.events.push((ctx.phase, attack.outcome));
        Ok(())
    }
}

#[test]
fn effects_asked_in_a_phase_happen_at_its_end_before_the_next_phase() {
    let c = scripted_catalog();
    let f0 = field(
        &c,
        2,
        &[
            ("s/scripted_brute", 0, 0, 0, 0),
            ("t/hq", 1, 0, -1, 0),
            ("t/hq", 0, 0, 2, 0),
        ],
    );
    let enemy_hq = f0.shape().cell(Hex::new(0, -1)).expect("on the board");
    let mut f = f0.clone();
    let rules = Rules::default();
    let mut hooks = Timer {
        hq: Some(enemy_hq),
        ..Timer::default()
    };
    let mut events: Vec<Event> = Vec::new();
    resolve(
        &mut f,
        Context {
            catalog: &c,
            rules: &rules,
        },
        &mut hooks,
        &mut DefaultPolicy,
        &mut events,
    )
    .expect("the battle resolves");
    // The brute acts in phase 2: its melee 1 through edge 0 lands on the HQ; its melee through
    // edge 1 and its ranged 1 through edge 4 find nothing (R3.8, R3.9). All resolve in phase 2,
    // in edge order.
    assert_eq!(
        hooks.events,
        vec![
            (2, crate::hooks::Outcome::Landed),
            (2, crate::hooks::Outcome::Missed),
            (2, crate::hooks::Outcome::Missed)
        ]
    );
    // Each phase's effect (a wound on the enemy HQ) comes after that phase's attacks and
    // before its PhaseEnded event.
    let ends: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::PhaseEnded { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(ends.len(), 3, "phases 2, 1 and 0: {events:?}");
    for &end in &ends[..2] {
        assert!(
            matches!(events[end - 1], Event::HqDamaged { amount: 1, .. }),
            "the phase's effect comes right before its end: {:?}",
            &events[..=end]
        );
    }
    // In phase 0 the enemy HQ destroys the brute: no `phase_ended` for it, so no effect.
    assert!(matches!(events[ends[2] - 1], Event::Removed { .. }));
    // 1 from the brute's blow (R4.7.1), 2 from the effects of phases 2 and 1.
    assert_eq!(f.hq_hp(Seat::new(1)), 17);
}
