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

/// Hooks that ask for scripted attacks: `at_start` at `battle_started`, `at_end` at the end of
/// the given phase, each by the tile on its `from` cell; tiles on `guards` lessen every hit on
/// them by 1 in `before_wound` (or fail there with `fail_guard`); `echo` re-asks a resolved
/// scripted attack that many times from `attack_resolved`.
#[derive(Default)]
struct Gunnery {
    at_start: Vec<crate::effect::ScriptedAttack>,
    at_end: Vec<(u8, crate::effect::ScriptedAttack)>,
    guards: u64,
    fail_guard: bool,
    echo: u32,
}

impl crate::hooks::AbilityHooks for Gunnery {
    fn battle_started(
        &mut self,
        ctx: &crate::hooks::HookContext<'_>,
        fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        for a in self.at_start.iter().filter(|a| a.from == ctx.cell) {
            fx.push(crate::effect::Effect::Attack(*a));
        }
        Ok(())
    }

    fn phase_ended(
        &mut self,
        ctx: &crate::hooks::HookContext<'_>,
        fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        for (_, a) in self
            .at_end
            .iter()
            .filter(|(p, a)| *p == ctx.phase && a.from == ctx.cell)
        {
            fx.push(crate::effect::Effect::Attack(*a));
        }
        Ok(())
    }

    fn before_wound(
        &mut self,
        ctx: &crate::hooks::HookContext<'_>,
        hits: &mut [IncomingHit],
        _fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        if self.guards & ctx.cell.bit() == 0 {
            return Ok(());
        }
        if self.fail_guard {
            return Err(HookError {
                message: "guard failed".into(),
            });
        }
        for h in hits.iter_mut() {
            h.wounds = h.wounds.saturating_sub(1);
        }
        Ok(())
    }

    fn attack_resolved(
        &mut self,
        _ctx: &crate::hooks::HookContext<'_>,
        attack: &ResolvedAttack,
        fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        if attack.edge.is_none() && self.echo > 0 {
            self.echo -= 1;
            fx.push(crate::effect::Effect::Attack(
                crate::effect::ScriptedAttack {
                    from: attack.from,
                    kind: attack.kind,
                    strength: attack.strength,
                    dir: Dir::NE,
                    target: None,
                    radius: 0,
                },
            ));
        }
        Ok(())
    }
}

fn shot(
    f: &Battlefield,
    q: i32,
    r: i32,
    kind: AttackKind,
    strength: u8,
    dir: Dir,
) -> crate::effect::ScriptedAttack {
    crate::effect::ScriptedAttack {
        from: f.shape().cell(Hex::new(q, r)).expect("on the board"),
        kind,
        strength,
        dir,
        target: None,
        radius: if kind == AttackKind::Explosion { 1 } else { 0 },
    }
}

fn fight(f: &mut Battlefield, c: &Catalog, hooks: &mut Gunnery) -> Result<Vec<Event>, HookError> {
    let rules = Rules::default();
    let mut events = Vec::new();
    resolve(
        f,
        Context {
            catalog: c,
            rules: &rules,
        },
        hooks,
        &mut DefaultPolicy,
        &mut events,
    )?;
    Ok(events)
}

#[test]
fn armor_stops_a_scripted_ranged_1_asked_at_the_start_of_a_battle() {
    let c = scripted_catalog();
    // The scripted brute at [0,0] shoots north at the battle's start; the enemy gunner at
    // [0,-2] faces south, its armored edge 0 toward the shot (R3.10).
    let mut f = field(
        &c,
        2,
        &[("s/scripted_brute", 0, 0, 0, 0), ("t/gunner", 1, 0, -2, 3)],
    );
    let gunner = f.shape().cell(Hex::new(0, -2)).expect("gunner");
    let brute = f.shape().cell(Hex::ORIGIN).expect("brute");
    let mut hooks = Gunnery {
        at_start: vec![shot(&f, 0, 0, AttackKind::Ranged, 1, Dir::N)],
        ..Gunnery::default()
    };
    let events = fight(&mut f, &c, &mut hooks).expect("the battle resolves");
    let started = events
        .iter()
        .position(|e| matches!(e, Event::BattleStarted { .. }))
        .expect("started");
    assert_eq!(
        events[0],
        Event::Attack {
            from: brute,
            edge: None,
            kind: AttackKind::Ranged,
            target: gunner,
            strength: 1,
            armored: true,
            wounds: 0,
        },
        "{events:?}"
    );
    assert!(
        !events[..started]
            .iter()
            .any(|e| matches!(e, Event::Wounded { .. })),
        "armor takes the only wound: {events:?}"
    );
    // The same shot from the side (the gunner turned east) wounds it.
    let mut f = field(
        &c,
        2,
        &[("s/scripted_brute", 0, 0, 0, 0), ("t/gunner", 1, 0, -2, 2)],
    );
    let events = fight(&mut f, &c, &mut hooks).expect("the battle resolves");
    assert!(
        matches!(events[1], Event::Wounded { cell, added: 1, .. } if cell == gunner),
        "{events:?}"
    );
}

#[test]
fn a_medic_absorbs_a_scripted_attack() {
    let c = scripted_catalog();
    // The enemy scripted brute at [0,-2] shoots south at the battle's start: the first enemy on
    // the line is the brute at [0,0], whose Medic at [0,1] links north to it (R4.8).
    let mut f = field(
        &c,
        2,
        &[
            ("s/scripted_brute", 1, 0, -2, 0),
            ("brute", 0, 0, 0, 1),
            ("medic", 0, 0, 1, 0),
        ],
    );
    let brute = f.shape().cell(Hex::ORIGIN).expect("brute");
    let medic = f.shape().cell(Hex::new(0, 1)).expect("medic");
    let mut hooks = Gunnery {
        at_start: vec![shot(&f, 0, -2, AttackKind::Ranged, 2, Dir::S)],
        ..Gunnery::default()
    };
    let events = fight(&mut f, &c, &mut hooks).expect("the battle resolves");
    let started = events
        .iter()
        .position(|e| matches!(e, Event::BattleStarted { .. }))
        .expect("started");
    let before = &events[..started];
    assert!(
        before.iter().any(|e| matches!(
            *e,
            Event::Absorbed { medic: m, target, wounds: 2, .. } if m == medic && target == brute
        )),
        "{events:?}"
    );
    assert!(
        before
            .iter()
            .any(|e| matches!(*e, Event::Removed { cell, .. } if cell == medic)),
        "the Medic leaves before the first phase: {events:?}"
    );
    assert!(!before.iter().any(|e| matches!(e, Event::Wounded { .. })));
}

#[test]
fn before_wound_lessens_a_scripted_attack_asked_at_a_phase_end_and_the_target_leaves() {
    let c = scripted_catalog();
    // Two scripted brutes, neither reaching the other with its printed attacks; at the end of
    // phase 2 the one at [0,0] shoots a ranged 2 north-east at the one at [2,-2], which lessens
    // every hit on it by 1 and still dies of the 1 left.
    let before = field(
        &c,
        2,
        &[
            ("s/scripted_brute", 0, 0, 0, 0),
            ("s/scripted_brute", 1, 2, -2, 3),
        ],
    );
    let target = before.shape().cell(Hex::new(2, -2)).expect("target");
    let mut hooks = Gunnery {
        at_end: vec![(2, shot(&before, 0, 0, AttackKind::Ranged, 2, Dir::NE))],
        guards: target.bit(),
        ..Gunnery::default()
    };
    let mut f = before.clone();
    let events = fight(&mut f, &c, &mut hooks).expect("the battle resolves");
    let end = events
        .iter()
        .position(|e| matches!(e, Event::PhaseEnded { phase: 2 }))
        .expect("phase 2 ends");
    let tail: Vec<Event> = events[..end].iter().rev().take(4).rev().copied().collect();
    assert!(
        matches!(
            tail[0],
            Event::Attack {
                strength: 2,
                wounds: 2,
                edge: None,
                ..
            }
        ),
        "{events:?}"
    );
    assert_eq!(
        tail[1],
        Event::Deflected {
            cell: target,
            to: None,
            wounds: 1
        }
    );
    assert!(matches!(
        tail[2],
        Event::Wounded { cell, added: 1, destroyed: true, .. } if cell == target
    ));
    assert!(matches!(tail[3], Event::Removed { cell, .. } if cell == target));
    assert!(f.at(target).is_none());

    // A failing `before_wound` in the volley abandons the battle: the board is as it was.
    let mut f = before.clone();
    hooks.fail_guard = true;
    let err = fight(&mut f, &c, &mut hooks).expect_err("the guard fails");
    assert!(err.message.contains("guard failed"), "{err}");
    assert_eq!(f, before);
}

#[test]
fn attacks_asked_by_a_volleys_hooks_make_the_next_volley_at_most_four_deep() {
    let c = scripted_catalog();
    // A ranged 1 on a unit that lessens it to nothing: its `attack_resolved` asks it again.
    let before = field(
        &c,
        2,
        &[
            ("s/scripted_brute", 0, 0, 0, 0),
            ("s/scripted_brute", 1, 2, -2, 3),
        ],
    );
    let target = before.shape().cell(Hex::new(2, -2)).expect("target");
    let volleys = |events: &[Event]| {
        events
            .iter()
            .filter(|e| matches!(e, Event::Attack { edge: None, .. }))
            .count()
    };
    let hooks = |echo| Gunnery {
        at_start: vec![shot(&before, 0, 0, AttackKind::Ranged, 1, Dir::NE)],
        guards: target.bit(),
        echo,
        ..Gunnery::default()
    };
    let mut f = before.clone();
    let events = fight(&mut f, &c, &mut hooks(3)).expect("four volleys are allowed");
    assert_eq!(volleys(&events), 4);
    let mut f = before.clone();
    let err = fight(&mut f, &c, &mut hooks(4)).expect_err("a fifth volley is refused");
    assert!(err.message.contains("more than 4 volleys"), "{err}");
    assert_eq!(f, before);
}

#[test]
fn an_area_attack_hits_friends_and_foes_but_not_hqs_nor_its_own_tile() {
    let c = scripted_catalog();
    let mut f = field(
        &c,
        2,
        &[
            ("s/scripted_brute", 0, 0, 0, 3),
            ("brute", 0, 1, 0, 3),
            ("brute", 1, -1, 0, 3),
            ("hq", 1, 0, -1, 3),
        ],
    );
    let mut hooks = Gunnery {
        at_start: vec![shot(&f, 0, 0, AttackKind::Explosion, 1, Dir::N)],
        ..Gunnery::default()
    };
    let events = fight(&mut f, &c, &mut hooks).expect("the battle resolves");
    let hit: Vec<Hex> = events
        .iter()
        .take_while(|e| !matches!(e, Event::BattleStarted { .. }))
        .filter_map(|e| match *e {
            Event::Attack {
                target,
                kind: AttackKind::Explosion,
                ..
            } => Some(f.shape().hex(target)),
            _ => None,
        })
        .collect();
    assert_eq!(hit.len(), 2, "{events:?}");
    assert!(hit.contains(&Hex::new(1, 0)) && hit.contains(&Hex::new(-1, 0)));
}

#[test]
fn an_attack_asked_outside_a_battle_goes_through_medics_at_once() {
    let c = scripted_catalog();
    let mut f = field(
        &c,
        2,
        &[
            ("s/scripted_brute", 1, 0, -2, 0),
            ("brute", 0, 0, 0, 1),
            ("medic", 0, 0, 1, 0),
        ],
    );
    let medic = f.shape().cell(Hex::new(0, 1)).expect("medic");
    let rules = Rules::default();
    let mut events = Vec::new();
    let a = shot(&f, 0, -2, AttackKind::Ranged, 2, Dir::S);
    resolve_effects(
        &mut f,
        Context {
            catalog: &c,
            rules: &rules,
        },
        &mut Gunnery::default(),
        &mut DefaultPolicy,
        &mut events,
        &[crate::effect::Effect::Attack(a)],
    )
    .expect("resolves");
    assert!(
        events
            .iter()
            .any(|e| matches!(*e, Event::Absorbed { medic: m, .. } if m == medic)),
        "{events:?}"
    );
    assert!(f.at(medic).is_none());
    assert!(f.at_hex(Hex::ORIGIN).is_some_and(|p| p.wounds == 0));
}

/// Hooks that ask for `start` at `battle_started` (each by the tile on its first cell), and
/// give through `gives_to` what `gifts` lists for a target cell (nothing to the others).
#[derive(Default)]
struct Changer {
    start: Vec<(Cell, crate::effect::Effect)>,
    gifts: Vec<(Cell, Effects)>,
}

impl crate::hooks::AbilityHooks for Changer {
    fn battle_started(
        &mut self,
        ctx: &crate::hooks::HookContext<'_>,
        fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), HookError> {
        fx.extend(
            self.start
                .iter()
                .filter(|(c, _)| *c == ctx.cell)
                .map(|(_, e)| *e),
        );
        Ok(())
    }

    fn gives_to(
        &mut self,
        _ctx: &crate::hooks::HookContext<'_>,
        target: Cell,
    ) -> Result<Effects, HookError> {
        Ok(self
            .gifts
            .iter()
            .find(|(c, _)| *c == target)
            .map_or(Effects::NONE, |(_, e)| *e))
    }
}

fn changed(f: &mut Battlefield, c: &Catalog, hooks: &mut Changer) -> Vec<Event> {
    let rules = Rules::default();
    let mut events = Vec::new();
    resolve(
        f,
        Context {
            catalog: c,
            rules: &rules,
        },
        hooks,
        &mut DefaultPolicy,
        &mut events,
    )
    .expect("the battle resolves");
    events
}

fn put(f: &mut Battlefield, q: i32, r: i32, name: MarkerName, value: i16) {
    let cell = f.shape().cell(Hex::new(q, r)).expect("on the board");
    f.apply(&Event::Marked {
        mark: Mark {
            on: crate::marker::MarkOn::Tile(cell),
            name,
            lasts: Lasts::Battle,
            value,
        },
    });
}

fn first_phase(events: &[Event]) -> u8 {
    events
        .iter()
        .find_map(|e| match e {
            Event::BattleStarted { first_phase } => Some(*first_phase),
            _ => None,
        })
        .expect("a battle")
}

#[test]
fn an_add_armor_marker_stops_a_shot_on_an_edge_without_printed_armor() {
    let c = scripted_catalog();
    // The enemy gunner on [0,-2] faces east: its unarmored edge 2 faces the shot from the south.
    let setup = [("s/scripted_brute", 0, 0, 0, 0), ("t/gunner", 1, 0, -2, 2)];
    let from_south = Edge::facing_toward(Dir::new(2), Dir::S);
    let mut f = field(&c, 2, &setup);
    let shot = shot(&f, 0, 0, AttackKind::Ranged, 1, Dir::N);
    let brute = f.shape().cell(Hex::ORIGIN).expect("brute");
    let mut hooks = Changer {
        start: vec![(brute, crate::effect::Effect::Attack(shot))],
        ..Changer::default()
    };
    let plain = changed(&mut f, &c, &mut hooks);
    assert!(
        matches!(
            plain[0],
            Event::Attack {
                armored: false,
                wounds: 1,
                ..
            }
        ),
        "{plain:?}"
    );
    let mut f = field(&c, 2, &setup);
    put(
        &mut f,
        0,
        -2,
        MarkerName::ADD_ARMOR,
        1 << from_south.index(),
    );
    let armored = changed(&mut f, &c, &mut hooks);
    assert!(
        matches!(
            armored[0],
            Event::Attack {
                armored: true,
                wounds: 0,
                ..
            }
        ),
        "{armored:?}"
    );
}

#[test]
fn a_drop_armor_marker_lets_a_shot_through_printed_armor() {
    let c = scripted_catalog();
    // The gunner faces south: its armored front edge 0 faces the shot (R3.10).
    let setup = [("s/scripted_brute", 0, 0, 0, 0), ("t/gunner", 1, 0, -2, 3)];
    let mut f = field(&c, 2, &setup);
    put(&mut f, 0, -2, MarkerName::DROP_ARMOR, 1);
    let shot = shot(&f, 0, 0, AttackKind::Ranged, 1, Dir::N);
    let brute = f.shape().cell(Hex::ORIGIN).expect("brute");
    let mut hooks = Changer {
        start: vec![(brute, crate::effect::Effect::Attack(shot))],
        ..Changer::default()
    };
    let events = changed(&mut f, &c, &mut hooks);
    assert!(
        matches!(
            events[0],
            Event::Attack {
                armored: false,
                wounds: 1,
                ..
            }
        ),
        "{events:?}"
    );
}

#[test]
fn net_markers_add_and_drop_nets_on_edges() {
    let c = catalog();
    let rules = Rules::default();
    let ctx = Context {
        catalog: &c,
        rules: &rules,
    };
    // The brute on [0,0] faces north with no net; the enemy gunner stands north of it.
    let mut f = field(&c, 2, &[("brute", 0, 0, 0, 0), ("gunner", 1, 0, -1, 3)]);
    let gunner = f.shape().cell(Hex::new(0, -1)).expect("gunner");
    assert_eq!(netted(&f, ctx), 0);
    put(&mut f, 0, 0, MarkerName::ADD_NET, 1);
    assert_eq!(
        netted(&f, ctx),
        gunner.bit(),
        "R6.1: a net on its front edge"
    );
    // A netter whose net is dropped nets nobody.
    let mut f = field(&c, 2, &[("netter", 0, 0, 0, 0), ("gunner", 1, 0, -1, 3)]);
    assert_eq!(netted(&f, ctx), gunner.bit());
    put(&mut f, 0, 0, MarkerName::DROP_NET, 1);
    assert_eq!(netted(&f, ctx), 0);
}

#[test]
fn the_initiative_marker_raises_every_value_of_its_unit() {
    let c = catalog();
    // The gunner's values 3 and 1 become 5 and 3.
    let mut f = field(&c, 2, &[("gunner", 0, 0, 0, 0), ("hq", 1, 2, -2, 0)]);
    put(&mut f, 0, 0, MarkerName::INITIATIVE, 2);
    let (events, _) = run(&mut f, &c);
    assert_eq!(first_phase(&events), 5);
    let gunner = f.shape().cell(Hex::ORIGIN).expect("gunner");
    let acts: Vec<u8> = events
        .iter()
        .filter_map(|e| match e {
            Event::Acts { cell, phase } if *cell == gunner => Some(*phase),
            _ => None,
        })
        .collect();
    assert_eq!(acts, [5, 3]);
}

/// Marks the hex `[q, r]` (whatever stands there) for the whole game.
fn put_on_hex(f: &mut Battlefield, q: i32, r: i32, name: MarkerName, value: i16) {
    let cell = f.shape().cell(Hex::new(q, r)).expect("on the board");
    f.apply(&Event::Marked {
        mark: Mark {
            on: crate::marker::MarkOn::Hex(cell),
            name,
            lasts: Lasts::Permanent,
            value,
        },
    });
}

fn phases_of(events: &[Event], cell: Cell) -> Vec<u8> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Acts { cell: c, phase } if *c == cell => Some(*phase),
            _ => None,
        })
        .collect()
}

#[test]
fn an_initiative_marker_on_a_hex_raises_the_unit_standing_there() {
    // R9.7: the hill's centre gives +2 to whoever stands on it, the gunner's 3 and 1 become 5
    // and 3; a tile's own marker adds to it.
    let c = catalog();
    let mut f = field(&c, 2, &[("gunner", 0, 0, 0, 0), ("hq", 1, 2, -2, 0)]);
    put_on_hex(&mut f, 0, 0, MarkerName::INITIATIVE, 2);
    let gunner = f.shape().cell(Hex::ORIGIN).expect("gunner");
    assert_eq!(f.initiative_mark(gunner), 2);
    let (events, _) = run(&mut f.clone(), &c);
    assert_eq!(first_phase(&events), 5);
    assert_eq!(phases_of(&events, gunner), [5, 3]);
    put(&mut f, 0, 0, MarkerName::INITIATIVE, 1);
    assert_eq!(f.initiative_mark(gunner), 3);
    let (events, _) = run(&mut f.clone(), &c);
    assert_eq!(phases_of(&events, gunner), [6, 4]);
}

#[test]
fn a_lowering_hex_marker_floors_initiative_at_zero() {
    // -4 on the gunner's hex: 3 and 1 become 0 and 0 (floored), it acts in phase 0 only once
    // per value.
    let c = catalog();
    let mut f = field(&c, 2, &[("gunner", 0, 0, 0, 0), ("hq", 1, 2, -2, 0)]);
    put_on_hex(&mut f, 0, 0, MarkerName::INITIATIVE, -4);
    let gunner = f.shape().cell(Hex::ORIGIN).expect("gunner");
    let (events, _) = run(&mut f, &c);
    assert!(
        phases_of(&events, gunner).iter().all(|p| *p == 0),
        "{events:?}"
    );
}

#[test]
fn a_hex_marker_stays_with_the_hex_not_the_unit() {
    // The marked hex is empty: the gunner elsewhere keeps its printed 3 and 1.
    let c = catalog();
    let mut f = field(&c, 2, &[("gunner", 0, 0, 0, 0), ("hq", 1, 2, -2, 0)]);
    put_on_hex(&mut f, 0, 1, MarkerName::INITIATIVE, 2);
    let gunner = f.shape().cell(Hex::ORIGIN).expect("gunner");
    let (events, _) = run(&mut f, &c);
    assert_eq!(phases_of(&events, gunner), [3, 1]);
}

#[test]
fn initiative_changes_asked_at_the_start_set_and_swap_the_highest_values() {
    use crate::effect::{Effect, InitiativeChange};
    let c = scripted_catalog();
    // The scripted brute (2) swaps with the gunner (3, 1): brute 3, gunner 2 and 0.
    let mut f = field(
        &c,
        2,
        &[("s/scripted_brute", 0, 0, 0, 0), ("t/gunner", 1, 2, -2, 0)],
    );
    let brute = f.shape().cell(Hex::ORIGIN).expect("brute");
    let gunner = f.shape().cell(Hex::new(2, -2)).expect("gunner");
    let swap = Effect::Initiative {
        cell: brute,
        change: InitiativeChange::Swap(gunner),
    };
    let mut hooks = Changer {
        start: vec![(brute, swap)],
        ..Changer::default()
    };
    let events = changed(&mut f, &c, &mut hooks);
    assert!(events.contains(&Event::InitiativeChanged {
        cell: brute,
        by: 1,
        highest: 3
    }));
    assert!(events.contains(&Event::InitiativeChanged {
        cell: gunner,
        by: -1,
        highest: 2
    }));
    assert_eq!(first_phase(&events), 3);
    // Set: the brute's highest value becomes 6, so the battle starts at 6.
    let mut f = field(
        &c,
        2,
        &[("s/scripted_brute", 0, 0, 0, 0), ("t/gunner", 1, 2, -2, 0)],
    );
    hooks.start = vec![(
        brute,
        Effect::Initiative {
            cell: brute,
            change: InitiativeChange::Set(6),
        },
    )];
    let events = changed(&mut f, &c, &mut hooks);
    assert_eq!(first_phase(&events), 6);
}

#[test]
fn an_initiative_change_outside_a_battle_is_refused_and_changes_nothing() {
    use crate::effect::{Effect, InitiativeChange};
    let c = catalog();
    let rules = Rules::default();
    let mut f = field(&c, 2, &[("gunner", 0, 0, 0, 0), ("hq", 1, 2, -2, 0)]);
    let before = f.clone();
    let gunner = f.shape().cell(Hex::ORIGIN).expect("gunner");
    let err = resolve_effects(
        &mut f,
        Context {
            catalog: &c,
            rules: &rules,
        },
        &mut NoAbilities,
        &mut DefaultPolicy,
        &mut (),
        &[Effect::Initiative {
            cell: gunner,
            change: InitiativeChange::Add(1),
        }],
    )
    .expect_err("refused");
    assert!(
        err.message.contains("`initiative` marker"),
        "{}",
        err.message
    );
    assert_eq!(f, before);
}

#[test]
fn gives_to_gives_each_linked_unit_its_own_bonus() {
    let mut c = catalog();
    let mut picky = c.get(c.find("t/booster").expect("booster")).clone();
    picky.id = "picky".into();
    let mut ability = crate::tile::AbilityRef::new("picky", Default::default());
    ability.points = HookPoints::GIVES_TO;
    picky.abilities.push(ability);
    c.add_army("p", "Picky", 35, vec![picky]).expect("army");
    // The picky booster on [0,0] faces north: its links (edges 0 and 2) reach [0,-1] and
    // [1,0], where two brutes stand facing the enemy HQ and an enemy gunner.
    let mut f = field(
        &c,
        2,
        &[
            ("p/picky", 0, 0, 0, 0),
            ("t/brute", 0, 0, -1, 0),
            ("t/brute", 0, 1, 0, 0),
            ("t/hq", 1, 0, -2, 0),
            ("t/gunner", 1, 1, -1, 0),
        ],
    );
    let north = f.shape().cell(Hex::new(0, -1)).expect("north");
    let east = f.shape().cell(Hex::new(1, 0)).expect("east");
    let mut hooks = Changer {
        gifts: vec![(
            north,
            Effects {
                melee: 2,
                ..Effects::NONE
            },
        )],
        ..Changer::default()
    };
    let events = changed(&mut f, &c, &mut hooks);
    let strength = |from: Cell| {
        events.iter().find_map(|e| match e {
            Event::Attack {
                from: f,
                edge: Some(e),
                strength,
                ..
            } if *f == from && e.index() == 0 => Some(*strength),
            _ => None,
        })
    };
    assert_eq!(strength(north), Some(3), "{events:?}");
    assert_eq!(strength(east), Some(1), "{events:?}");
}

mod linked_units {
    //! Linked units (docs/LINKED_UNITS.md): shared nets and modules, whole and segment losses,
    //! and moves that would split a unit (R9.3, R10.6).
    use super::*;
    use crate::link::{LinkError, LinkLoss};
    use crate::play::{Play, PlayChecker, Refusal, Turn};

    fn cells(f: &Battlefield, hexes: &[(i32, i32)]) -> u64 {
        hexes
            .iter()
            .map(|&(q, r)| f.shape().cell(Hex::new(q, r)).expect("on board").bit())
            .fold(0, |a, b| a | b)
    }

    fn link(f: &mut Battlefield, owner: u8, hexes: &[(i32, i32)], loss: LinkLoss, shared: bool) {
        let e = f
            .check_link(
                MarkerName::new("tower").expect("name"),
                Seat::new(owner),
                cells(f, hexes),
                loss,
                shared,
            )
            .expect("a legal link");
        f.apply(&e);
    }

    #[test]
    fn r9_3_2_a_net_on_either_tile_of_a_shared_unit_nets_the_whole_unit() {
        let c = catalog();
        // The netter on [0,1] faces N and nets the brute on [0,0]; its partner on [1,-1] is
        // out of every net.
        let mut f = field(
            &c,
            2,
            &[
                ("brute", 0, 0, 0, 0),
                ("brute", 0, 1, -1, 0),
                ("netter", 1, 0, 1, 0),
            ],
        );
        let alone = nets::netted(&f, &c, &Rules::default());
        assert_eq!(alone, cells(&f, &[(0, 0)]));
        link(&mut f, 0, &[(0, 0), (1, -1)], LinkLoss::Whole, true);
        let shared = nets::netted(&f, &c, &Rules::default());
        assert_eq!(shared, cells(&f, &[(0, 0), (1, -1)]));
        // Not shared (a `segment` unit, R10.6.7): each tile stands alone.
        let mut g = field(
            &c,
            2,
            &[
                ("brute", 0, 0, 0, 0),
                ("brute", 0, 1, -1, 0),
                ("netter", 1, 0, 1, 0),
            ],
        );
        link(&mut g, 0, &[(0, 0), (1, -1)], LinkLoss::Segment, false);
        assert_eq!(nets::netted(&g, &c, &Rules::default()), alone);
    }

    #[test]
    fn r9_3_2_a_module_next_to_either_tile_boosts_the_whole_unit_once() {
        let c = catalog();
        // The booster on [0,1] links N to [0,0] (and S); the partner on [0,-1] is not next to
        // it.
        let mut f = field(
            &c,
            2,
            &[
                ("brute", 0, 0, 0, 0),
                ("brute", 0, 0, -1, 0),
                ("booster", 0, 0, 1, 0),
            ],
        );
        link(&mut f, 0, &[(0, 0), (0, -1)], LinkLoss::Whole, true);
        let rules = Rules::default();
        let layout = Layout::new(&f, &c, &rules);
        let mut view = View::empty();
        view.compute(&f, &c, &rules, &layout, &[]);
        for h in [(0, 0), (0, -1)] {
            let i = f.shape().cell(Hex::new(h.0, h.1)).expect("cell").index();
            assert_eq!((view.melee[i], view.initiative[i]), (1, 1), "{h:?}");
        }
    }

    #[test]
    fn r9_3_2_destroying_one_tile_of_a_whole_unit_removes_every_tile_of_it() {
        let c = catalog();
        // The enemy brute on [0,-1] faces S (3) and hits [0,0] with melee 1 at initiative 2.
        let mut f = field(
            &c,
            2,
            &[
                ("netter", 0, 0, 0, 3),
                ("netter", 0, 1, 0, 3),
                ("brute", 1, 0, -1, 3),
            ],
        );
        link(&mut f, 0, &[(0, 0), (1, 0)], LinkLoss::Whole, true);
        let (events, _) = run(&mut f, &c);
        let removed: Vec<Hex> = events
            .iter()
            .filter_map(|e| match e {
                Event::Removed { cell, .. } => Some(f.shape().hex(*cell)),
                _ => None,
            })
            .collect();
        assert!(removed.contains(&Hex::new(0, 0)) && removed.contains(&Hex::new(1, 0)));
        assert!(f.links().is_empty(), "the unit is gone with its tiles");
    }

    #[test]
    fn r10_6_7_a_destroyed_segment_stays_an_empty_hex_of_the_unit_that_a_tile_may_enter() {
        let c = catalog();
        let mut f = field(
            &c,
            2,
            &[
                ("netter", 0, 0, 0, 3),
                ("netter", 0, 1, 0, 3),
                ("brute", 1, 0, -1, 3),
            ],
        );
        link(&mut f, 0, &[(0, 0), (1, 0)], LinkLoss::Segment, false);
        let (_, _) = run(&mut f, &c);
        assert!(f.at_hex(Hex::new(0, 0)).is_none());
        assert!(
            f.at_hex(Hex::new(1, 0)).is_some(),
            "the other segment's tile stays"
        );
        let link = f.links()[0];
        assert_eq!(link.segments, cells(&f, &[(0, 0), (1, 0)]));
        // The enemy brute steps into the empty segment: it is inside the unit from now on
        // (R10.6.10) and moves with that segment.
        let from = f.shape().cell(Hex::new(0, -1)).expect("cell");
        let to = f.shape().cell(Hex::new(0, 0)).expect("cell");
        assert_eq!(f.keeps_links(from, to.bit()), to.bit());
        f.apply(&Event::Moved {
            from,
            to,
            facing: Dir::new(3),
        });
        assert_eq!(f.link_at(to).map(|l| l.id), Some(link.id));
    }

    #[test]
    fn r9_3_3_moves_and_pushes_that_would_split_a_unit_are_refused() {
        let c = catalog();
        let mut f = field(
            &c,
            2,
            &[
                ("brute", 0, 0, 0, 0),
                ("brute", 0, 0, 1, 0),
                ("brute", 1, 0, -1, 3),
            ],
        );
        link(&mut f, 0, &[(0, 0), (0, 1)], LinkLoss::Whole, true);
        let rules = Rules::default();
        let ctx = Context {
            catalog: &c,
            rules: &rules,
        };
        let checker = PlayChecker::new(&f, ctx);
        let turn = Turn::new(Seat::new(0));
        // [1,-1] is not next to [0,1]: the unit would split.
        let split = Play::Move {
            unit: Hex::new(0, 0),
            to: Hex::new(1, -1),
            facing: None,
            instant: true,
        };
        let refused = checker.check(&turn, &split).expect_err("splits the unit");
        assert_eq!(refused.reason, Refusal::SplitsLink(Hex::new(1, -1)));
        // [1,0] touches both: the unit stays whole.
        let whole = Play::Move {
            unit: Hex::new(0, 0),
            to: Hex::new(1, 0),
            facing: None,
            instant: true,
        };
        assert_eq!(checker.check(&turn, &whole), Ok(()));
        let from = f.shape().cell(Hex::new(0, 0)).expect("cell");
        let dests = checker.move_destinations(from);
        assert_eq!(dests & cells(&f, &[(1, -1), (-1, 0)]), 0);
        assert_ne!(dests & cells(&f, &[(1, 0)]), 0);
        // The enemy on [0,-1] pushes [0,0]: the hexes two steps away are [0,1] (taken),
        // [-1,1] and [1,0]; only [1,0] and [-1,1] keep it next to [0,1].
        let pusher = f.shape().cell(Hex::new(0, -1)).expect("cell");
        let pushes = PlayChecker::new(&f, ctx).push_destinations(pusher, from);
        assert_eq!(pushes, cells(&f, &[(-1, 1), (1, 0)]));
    }

    #[test]
    fn a_link_is_refused_when_split_taken_too_small_or_missing_a_tile() {
        let c = catalog();
        let mut f = field(&c, 2, &[("brute", 0, 0, 0, 0), ("brute", 0, 0, 1, 0)]);
        let name = MarkerName::new("tower").expect("name");
        let s = Seat::new(0);
        let split = cells(&f, &[(0, 0), (0, 2)]);
        assert_eq!(
            f.check_link(name, s, split, LinkLoss::Segment, false),
            Err(LinkError::Split)
        );
        let one = cells(&f, &[(0, 0)]);
        assert_eq!(
            f.check_link(name, s, one, LinkLoss::Segment, false),
            Err(LinkError::Size(1))
        );
        let empty = cells(&f, &[(0, 0), (1, 0)]);
        assert_eq!(
            f.check_link(name, s, empty, LinkLoss::Whole, true),
            Err(LinkError::Empty)
        );
        link(&mut f, 0, &[(0, 0), (0, 1)], LinkLoss::Whole, true);
        let overlap = cells(&f, &[(0, 1), (0, 2)]);
        assert_eq!(
            f.check_link(name, s, overlap, LinkLoss::Segment, false),
            Err(LinkError::Taken { id: 1 })
        );
    }
}
