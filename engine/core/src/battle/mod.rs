//! Battle resolution (section 4): initiative phases from the highest down to 0, simultaneous
//! attacks, Medics, wounds, removal and HQ damage at the end of each phase.
//!
//! The algorithm is R4.14 with the slot model of R4.4.7: every printed initiative value is an
//! attack slot, extra-attack effects add slots just below the last normal one (R4.5.2), a slot is
//! used in the phase equal to its current value and lost once the phases pass it.

mod apply;
pub(crate) mod medic;
pub mod nets;
pub(crate) mod view;

pub use apply::{apply_effects, expire_marks};

pub(crate) use view::{Layout, View, can_be_hijacked, link_reach};

use crate::battlefield::{Battlefield, MAX_PLAYERS, Seat};
use crate::decision::{Choice, Decider, Decision, Question};
use crate::effect::{self, Effect, InitiativeChange, ScriptedAttack};
use crate::event::{AttackKind, Event, EventSink};
use crate::hex::{Edge, Hex};
use crate::hooks::{
    AbilityHooks, AttackPlan, Blast, Gift, HookContext, HookError, HookPoints, IncomingHit,
    Outcome, PlannedAttack, ResolvedAttack,
};
use crate::marker::{Lasts, Mark, MarkerName};
use crate::rules::{ConvertLimit, DestroyedHqRemoval, Rules};
use crate::shape::{Cell, MAX_CELLS, bits};
use crate::tile::{Catalog, Effects, Tile};

/// The definitions and rules a battle is fought with.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The definitions of every tile that may stand on the board.
    pub catalog: &'a Catalog,
    /// The rule options in force.
    pub rules: &'a Rules,
}

/// A summary of a resolved battle.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BattleReport {
    /// Tiles that left the board.
    pub removed: u32,
    /// HP each player's HQ lost.
    pub hq_damage: [u16; MAX_PLAYERS],
    /// Of that, what each player's units dealt: `hq_damage_by[hq owner][attacker's owner]`.
    /// Worked out only when the catalog holds game rules (their `hq_damaged` hooks read it);
    /// zeros otherwise.
    pub hq_damage_by: [[u16; MAX_PLAYERS]; MAX_PLAYERS],
    /// Number of phases played (highest initiative + 1).
    pub phases: u8,
}

/// One attack reaching one target in the current phase.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    /// The attacking tile; `None` for an instant (R4.8.2: a Medic absorbs those too).
    pub(crate) from: Option<Cell>,
    /// How it hits; `None` for an instant.
    pub(crate) kind: Option<AttackKind>,
    pub(crate) target: Cell,
    pub(crate) wounds: u8,
    pub(crate) absorbed: bool,
    /// The attacker's edge it left from; `None` for an explosion or an instant.
    pub(crate) edge: Option<Edge>,
    /// The attack's strength as made (before armor).
    pub(crate) strength: u8,
}

/// An attack of this phase for its attack events: a hit still open to Medics and `before_wound`
/// (an index into the phase's hits), or one already settled (stopped by armor, missed).
#[derive(Clone, Copy, Debug)]
enum Resolution {
    Open(usize),
    Settled(ResolvedAttack),
}

/// The cells of the tiles with each battle hook point, found once per battle (no tile joins a
/// battle) and carried along when an effect moves a tile.
#[derive(Clone, Copy, Debug, Default)]
struct Marks {
    /// `battle_started`.
    started: u64,
    /// `phase_ended`.
    ended: u64,
    /// `battle_ended`.
    finished: u64,
    /// `before_wound`: the units that see the hits on them.
    guarded: u64,
    /// `destroyed`.
    mortal: u64,
    /// `attack_resolved`.
    striking: u64,
    /// `attacked`.
    struck: u64,
    /// `gives_to`.
    giving: u64,
}

impl Marks {
    /// The tiles with an attack-event point.
    fn watching(&self) -> u64 {
        self.striking | self.struck
    }

    /// Applies `carry` (a tile moved) to every set.
    fn follow(&mut self, carry: impl Fn(&mut u64)) {
        for m in [
            &mut self.started,
            &mut self.ended,
            &mut self.finished,
            &mut self.guarded,
            &mut self.mortal,
            &mut self.striking,
            &mut self.struck,
            &mut self.giving,
        ] {
            carry(m);
        }
    }
}

const MAX_NORMAL_SLOTS: usize = 4;
/// The most volleys of scripted attacks one moment may resolve: attacks asked by a volley's own
/// hooks make the next one (docs/DECISIONS.md).
pub const MAX_VOLLEYS: u32 = 4;

fn too_many_volleys() -> HookError {
    HookError {
        message: format!(
            "attack: attacks asked by the hooks of scripted attacks went more than {MAX_VOLLEYS} volleys deep in one moment"
        ),
    }
}
/// The most initiative values a unit can have in a battle: 4 printed, 4 extra (R4.5.2).
pub const MAX_SLOTS: usize = 8;

/// Resolves a whole battle on `field`, sending every event to `sink`. If an ability hook fails,
/// the battle is abandoned: `field` is left as it was before the battle and the error returned
/// (the events sent until then describe the abandoned attempt).
pub fn resolve<H, D, S>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    hooks: &mut H,
    decider: &mut D,
    sink: &mut S,
) -> Result<BattleReport, HookError>
where
    H: AbilityHooks + ?Sized,
    D: Decider + ?Sized,
    S: EventSink + ?Sized,
{
    let mut r = Resolver::new(ctx, hooks, decider, sink);
    r.in_battle = true;
    let scripted = r.scripted(field, HookPoints::ALL_POINTS);
    if scripted == 0 {
        r.run(field, 0)?;
        return Ok(std::mem::take(&mut r.report));
    }
    let before = field.clone();
    match r.run(field, scripted) {
        Ok(()) => Ok(std::mem::take(&mut r.report)),
        Err(e) => {
            *field = before;
            Err(e)
        }
    }
}

/// Carries out effects asked outside a battle (`placed`, `turn_started`, `turn_ended`): their
/// attacks at once, as a volley with Medics, `before_wound`, attack events and removals (as in a
/// battle's moment, [`MAX_VOLLEYS`] deep at most), then the other effects in order. Without an
/// attack this is [`apply_effects`]. If a hook fails, `field` is left as it was and the
/// error returned.
pub fn resolve_effects<H, D, S>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    hooks: &mut H,
    decider: &mut D,
    sink: &mut S,
    effects: &[Effect],
) -> Result<(), HookError>
where
    H: AbilityHooks + ?Sized,
    D: Decider + ?Sized,
    S: EventSink + ?Sized,
{
    if effects
        .iter()
        .any(|e| matches!(e, Effect::Initiative { .. }))
    {
        return Err(HookError {
            message: effect::INITIATIVE_OUTSIDE_BATTLES.to_string(),
        });
    }
    let faced;
    let effects = if effects
        .iter()
        .any(|e| matches!(e, Effect::Place { ask: true, .. }))
    {
        faced = facings_asked(field, decider, effects);
        &faced[..]
    } else {
        effects
    };
    if !effects.iter().any(|e| matches!(e, Effect::Attack(_))) {
        return apply_effects(field, ctx, effects, sink);
    }
    effect::check_effects(field, effects)?;
    let mut r = Resolver::new(ctx, hooks, decider, sink);
    let scripted = r.scripted(field, HookPoints::ALL_POINTS);
    r.marks = r.marks_of(field, scripted);
    r.effects.extend_from_slice(effects);
    let before = field.clone();
    match r.carry_out(field, 0) {
        Ok(_) => Ok(()),
        Err(e) => {
            *field = before;
            Err(e)
        }
    }
}

/// A unit's values right now, with every modifier the board gives it: nets (R6.1.9), modules and
/// HQ auras (R3.14, R3.5.2) and an initiative hook's change for this battle. What scripts read
/// with `ctx:standing(q, r)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    /// Its current initiative values, the first `slots` of them: each printed value with its
    /// modifiers (floored at 0, R3.7.4), then its extra slots one phase apart below the lowest
    /// printed one (R4.5.2; those below 0 are lost).
    pub initiative: [u8; MAX_SLOTS],
    /// How many values of `initiative` the unit has.
    pub slots: u8,
    /// What connected modules and auras add to each of its melee attacks.
    pub melee_bonus: i8,
    /// What connected modules and auras add to each of its ranged attacks.
    pub ranged_bonus: i8,
    /// Whether a net holds it now.
    pub netted: bool,
    /// The wounds that destroy it now: 1 while netted unless netted tiles keep their toughness
    /// (R3.11.4), else 1 + its toughness.
    pub hit_points: u8,
    /// How many friendly Medics connected to it would absorb an attack on it (R4.8).
    pub medics: u8,
    /// Whether it may move with Mobility now: printed or given by a connected module, and not
    /// netted (R3.13, R7.4.4).
    pub mobile: bool,
}

/// The [`Standing`] of the tile on `cell`, or `None` on an empty hex. `hooked`: what initiative
/// hooks and initiative changes add to its values in the battle being fought (0 outside
/// battles; its `initiative` marker is counted here); `gifts`: what `gives_to` hooks give in
/// that battle (empty outside battles). Works the board's links and nets out afresh: meant for
/// reads, not for the engine's own loops.
pub fn standing(
    field: &Battlefield,
    ctx: Context<'_>,
    cell: Cell,
    hooked: i8,
    gifts: &[Gift],
) -> Option<Standing> {
    let p = field.at(cell)?;
    let def = ctx.catalog.get(p.tile);
    let mut layout = Layout::new(field, ctx.catalog, ctx.rules);
    if !gifts.is_empty() {
        let givers = gifts.iter().fold(0u64, |m, g| m | g.giver.bit());
        layout.set_custom(givers);
    }
    let mut view = View::empty();
    view.compute(field, ctx.catalog, ctx.rules, &layout, gifts);
    let slots = slot_values(
        def,
        &view,
        cell,
        hooked.saturating_add(field.initiative_mark(cell)),
    );
    let mut initiative = [0; MAX_SLOTS];
    let mut n = 0;
    for s in bits(u64::from(slots.present)) {
        initiative[n] = slots.values[s];
        n += 1;
    }
    let netted = view.is_netted(cell);
    Some(Standing {
        initiative,
        slots: n as u8,
        melee_bonus: view.melee[cell.index()],
        ranged_bonus: view.ranged[cell.index()],
        netted,
        hit_points: if netted && !ctx.rules.netted_keeps_armor_toughness {
            1
        } else {
            def.hit_points()
        },
        medics: view.medics[cell.index()].count_ones() as u8,
        mobile: !netted && (def.mobile || view.mobility & cell.bit() != 0),
    })
}

/// The netted tiles of a battlefield right now (R6.1.9).
pub fn netted(field: &Battlefield, ctx: Context<'_>) -> u64 {
    nets::netted(field, ctx.catalog, ctx.rules)
}

struct Resolver<'a, H: ?Sized, D: ?Sized, S: ?Sized> {
    cat: &'a Catalog,
    rules: &'a Rules,
    hooks: &'a mut H,
    decider: &'a mut D,
    sink: &'a mut S,
    /// Per cell, the slots already used or lost (bits 0-3 printed values, 4-7 extra slots).
    used: [u8; MAX_CELLS],
    /// The cells of the tiles with initiative values, which may act (found once per battle, and
    /// carried along when an effect moves a tile).
    units: u64,
    /// Units that converted an attack this battle (`one_per_unit_per_battle`).
    converted: u64,
    /// Per cell, what initiative hooks and initiative changes add to the unit's values this
    /// battle.
    initiative: [i8; MAX_CELLS],
    /// A battle is being fought (not only effects asked outside one): hooks see its initiative
    /// changes, and may ask for more.
    in_battle: bool,
    /// What `gives_to` hooks give in the layout in force (a copy of the layout's, for hooks).
    gifts: Vec<Gift>,
    /// Which tiles have which hook points (they follow a tile an effect moves).
    marks: Marks,
    /// Effects asked for since the last time effects were carried out: at the start of the
    /// battle, then at the end of each phase.
    effects: Vec<Effect>,
    /// This phase's attacks for their attack events, in the order they were made (only while a
    /// tile with an attack-event point is on the board).
    resolutions: Vec<Resolution>,
    hits: Vec<Hit>,
    plan: AttackPlan,
    options: Vec<Choice>,
    report: BattleReport,
}

/// The buffers a battle works in (its hits, the attack plan handed to hooks, a decision's
/// options), kept per thread between battles so that a battle on a warmed-up thread allocates
/// nothing. A resolver takes them when it starts and gives them back, emptied, when it ends;
/// one started inside another finds them taken and makes its own. No result depends on them.
struct Scratch {
    hits: Vec<Hit>,
    attacks: Vec<PlannedAttack>,
    options: Vec<Choice>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch {
            hits: Vec::new(),
            attacks: Vec::new(),
            options: Vec::new(),
        })
    };
}

/// Gives `mine` back as the kept buffer, emptied, when it is the larger one.
fn keep<T>(mine: &mut Vec<T>, kept: &mut Vec<T>) {
    if mine.capacity() > kept.capacity() {
        mine.clear();
        std::mem::swap(mine, kept);
    }
}

impl<H: ?Sized, D: ?Sized, S: ?Sized> Drop for Resolver<'_, H, D, S> {
    fn drop(&mut self) {
        // A thread being torn down has no scratch to give back to.
        let _ = SCRATCH.try_with(|s| {
            let mut s = s.borrow_mut();
            keep(&mut self.hits, &mut s.hits);
            keep(&mut self.plan.attacks, &mut s.attacks);
            keep(&mut self.options, &mut s.options);
        });
    }
}

impl<'a, H, D, S> Resolver<'a, H, D, S>
where
    H: AbilityHooks + ?Sized,
    D: Decider + ?Sized,
    S: EventSink + ?Sized,
{
    fn new(ctx: Context<'a>, hooks: &'a mut H, decider: &'a mut D, sink: &'a mut S) -> Self {
        Resolver {
            cat: ctx.catalog,
            rules: ctx.rules,
            hooks,
            decider,
            sink,
            used: [0; MAX_CELLS],
            units: 0,
            converted: 0,
            initiative: [0; MAX_CELLS],
            in_battle: false,
            gifts: Vec::new(),
            marks: Marks::default(),
            effects: Vec::new(),
            resolutions: Vec::new(),
            hits: SCRATCH.with(|s| std::mem::take(&mut s.borrow_mut().hits)),
            plan: AttackPlan {
                attacks: SCRATCH.with(|s| std::mem::take(&mut s.borrow_mut().attacks)),
                blast: None,
            },
            options: SCRATCH.with(|s| std::mem::take(&mut s.borrow_mut().options)),
            report: BattleReport::default(),
        }
    }

    /// The tiles on `scripted` whose abilities define `p`.
    fn marks_of_point(&self, field: &Battlefield, scripted: u64, p: HookPoints) -> u64 {
        bits(scripted)
            .filter(|&c| {
                field
                    .at(field.shape().cell_from_index(c))
                    .is_some_and(|t| self.cat.traits(t.tile).hooks.intersects(p))
            })
            .fold(0u64, |m, c| m | 1 << c)
    }

    /// Which of the tiles on `scripted` have which battle hook point.
    fn marks_of(&self, field: &Battlefield, scripted: u64) -> Marks {
        let on = |p: HookPoints| self.marks_of_point(field, scripted, p);
        Marks {
            started: on(HookPoints::BATTLE_STARTED),
            ended: on(HookPoints::PHASE_ENDED),
            finished: on(HookPoints::BATTLE_ENDED),
            guarded: on(HookPoints::BEFORE_WOUND),
            mortal: on(HookPoints::DESTROYED),
            striking: on(HookPoints::ATTACK_RESOLVED),
            struck: on(HookPoints::ATTACKED),
            giving: on(HookPoints::GIVES_TO),
        }
    }

    /// `scripted`: the cells of tiles with hook points (tiles never join a battle, so they are
    /// known once).
    fn run(&mut self, field: &mut Battlefield, scripted: u64) -> Result<(), HookError> {
        self.marks = self.marks_of(field, scripted);
        self.units = field
            .tiles()
            .filter(|(_, p)| !self.cat.get(p.tile).initiative.is_empty())
            .fold(0, |m, (c, _)| m | c.bit());
        let mut layout = Layout::new(field, self.cat, self.rules);
        self.give_to(field, &mut layout)?;
        let mut view = View::empty();
        view.compute(field, self.cat, self.rules, &layout, &self.gifts);
        let initiative = self.marks_of_point(field, scripted, HookPoints::INITIATIVE);
        for c in bits(initiative) {
            let mut delta = 0i8;
            self.call_hooks(field, c, 0, HookPoints::INITIATIVE, |h, ctx, fx| {
                delta = delta.saturating_add(h.initiative(ctx, fx)?);
                Ok(())
            })?;
            self.initiative[c] = delta;
        }
        let mut first = self.first_phase(field, &view);
        for c in bits(self.marks.started) {
            self.call_hooks(field, c, first, HookPoints::BATTLE_STARTED, |h, ctx, fx| {
                h.battle_started(ctx, fx)
            })?;
        }
        // The start's effects happen before the first phase, so the first phase and the nets
        // it opens with are those of the board they leave.
        if !self.effects.is_empty() {
            let (_, moved) = self.carry_out(field, first)?;
            if moved {
                layout = self.layout(field)?;
            }
            view.compute(field, self.cat, self.rules, &layout, &self.gifts);
            first = self.first_phase(field, &view);
        }
        self.sink.push(Event::BattleStarted { first_phase: first });
        for c in bits(view.netted) {
            self.sink.push(Event::Netted {
                cell: field.shape().cell_from_index(c),
            });
        }
        self.report.phases = first + 1;
        for phase in (0..=first).rev() {
            let mut changed = self.phase(field, &view, phase)?;
            for c in bits(self.marks.ended & field.occupied()) {
                self.call_hooks(field, c, phase, HookPoints::PHASE_ENDED, |h, ctx, fx| {
                    h.phase_ended(ctx, fx)
                })?;
            }
            let mut moved = false;
            if !self.effects.is_empty() {
                let (gone, m) = self.carry_out(field, phase)?;
                changed |= gone;
                moved = m;
            }
            self.sink.push(Event::PhaseEnded { phase });
            if moved {
                layout = self.layout(field)?;
            }
            if moved || layout.matters(changed) {
                let before = view.netted;
                if phase > 0 {
                    view.compute(field, self.cat, self.rules, &layout, &self.gifts);
                } else {
                    // Nothing acts after phase 0: only the nets matter, for the events.
                    view.netted = layout.netted(field.occupied(), self.rules);
                }
                for c in bits(view.netted & !before) {
                    self.sink.push(Event::Netted {
                        cell: field.shape().cell_from_index(c),
                    });
                }
                for c in bits(before & !view.netted & field.occupied()) {
                    self.sink.push(Event::Freed {
                        cell: field.shape().cell_from_index(c),
                    });
                }
            }
        }
        for c in bits(self.marks.finished & field.occupied()) {
            self.call_hooks(field, c, 0, HookPoints::BATTLE_ENDED, |h, ctx, fx| {
                h.battle_ended(ctx, fx)
            })?;
        }
        if !self.effects.is_empty() {
            self.carry_out(field, 0)?;
        }
        self.remove_eliminated(field);
        expire_marks(field, Lasts::Battle, false, &mut *self.sink);
        self.sink.push(Event::BattleEnded);
        Ok(())
    }

    /// What initiative hooks, `fx` initiative changes and the `initiative` marker add to the
    /// values of the unit on `cell` in this battle.
    #[inline]
    /// `marked`: some marker is in play (else no unit's `initiative` marker is looked for).
    fn hooked(&self, field: &Battlefield, cell: Cell, marked: bool) -> i8 {
        let changed = self.initiative[cell.index()];
        if marked {
            changed.saturating_add(field.initiative_mark(cell))
        } else {
            changed
        }
    }

    /// The highest phase any unit acts in, with the modifiers of `view` and the initiative hooks.
    fn first_phase(&self, field: &Battlefield, view: &View) -> u8 {
        let marked = !field.marks().is_empty();
        let shape = field.shape();
        bits(self.units & field.occupied())
            .filter_map(|i| {
                let c = shape.cell_from_index(i);
                let p = field.at(c)?;
                let hooked = self.hooked(field, c, marked);
                slot_values(self.cat.get(p.tile), view, c, hooked).highest()
            })
            .max()
            .unwrap_or(0)
    }

    /// Carries out the effects asked since the last time, in the order they were asked, less
    /// those that what happened since made moot ([`effect::drop_moot`]). The attacks among them
    /// go first, as one volley ([`Self::volley`]); what the volley's own hooks ask for is carried
    /// out after the other effects, as a round of its own (its attacks a volley of their own, at
    /// most [`MAX_VOLLEYS`] in one moment). The tiles' battle state (used slots, hook points)
    /// follows the units that move. Returns the cells whose tiles left the board and whether the
    /// layout must be worked out again (a unit moved, or a marker that changes nets came or went).
    fn carry_out(&mut self, field: &mut Battlefield, phase: u8) -> Result<(u64, bool), HookError> {
        let before = field.occupied();
        let mut moved = false;
        let mut volleys = 0;
        while !self.effects.is_empty() {
            let mut effects = std::mem::take(&mut self.effects);
            effect::drop_moot(field, &mut effects);
            if effects.iter().any(|e| matches!(e, Effect::Attack(_))) {
                volleys += 1;
                if volleys > MAX_VOLLEYS {
                    return Err(too_many_volleys());
                }
                let attacks: Vec<ScriptedAttack> = effects
                    .iter()
                    .filter_map(|e| match *e {
                        Effect::Attack(a) => Some(a),
                        _ => None,
                    })
                    .collect();
                effects.retain(|e| !matches!(e, Effect::Attack(_)));
                // The volley's hooks ask into `self.effects`: the next round.
                let asked = std::mem::take(&mut self.effects);
                let gone = self.volley(field, phase, &attacks);
                let next = std::mem::replace(&mut self.effects, asked);
                gone?;
                effect::drop_moot(field, &mut effects);
                self.effects.extend(next);
            }
            let count = field.occupied().count_ones();
            let mut hp = [0i32; MAX_PLAYERS];
            for p in field.players() {
                hp[p.index()] = field.hq_hp(p);
            }
            let ctx = Context {
                catalog: self.cat,
                rules: self.rules,
            };
            apply_effects(field, ctx, &effects, &mut *self.sink)?;
            for e in &effects {
                match *e {
                    Effect::Move { from, to } if field.at(to).is_some() => {
                        moved = true;
                        self.follow(from, to);
                    }
                    // Who ignores nets changes the nets: worked out again like a move.
                    Effect::Mark(Mark { name, .. }) | Effect::Unmark { name, .. }
                        if matches!(
                            name,
                            MarkerName::IGNORES_NETS | MarkerName::ADD_NET | MarkerName::DROP_NET
                        ) =>
                    {
                        moved = true;
                    }
                    _ => {}
                }
            }
            for e in &effects {
                if let Effect::Initiative { cell, change } = *e {
                    self.change_initiative(field, cell, change);
                }
            }
            for p in field.players() {
                let lost = hp[p.index()] - field.hq_hp(p);
                self.report.hq_damage[p.index()] += lost.max(0) as u16;
            }
            self.report.removed += count - field.occupied().count_ones();
        }
        Ok((before & !field.occupied(), moved))
    }

    /// The reach of every tile on the board now, with what the `gives_to` hooks of the givers
    /// that have one give each tile they reach (asked in reading order of givers, then of
    /// targets; a tile's abilities add up).
    fn layout(&mut self, field: &Battlefield) -> Result<Layout, HookError> {
        let mut layout = Layout::new(field, self.cat, self.rules);
        self.give_to(field, &mut layout)?;
        Ok(layout)
    }

    /// Asks the `gives_to` hooks of the givers that have one what they give each tile they reach
    /// in `layout` (see [`Self::layout`]), and sets it there. Works on the layout in place, so
    /// that `run` does not copy its first layout through a `Result` (1 KB, twice per battle).
    fn give_to(&mut self, field: &Battlefield, layout: &mut Layout) -> Result<(), HookError> {
        let custom = self.marks.giving;
        if custom == 0 {
            if !self.gifts.is_empty() {
                self.gifts.clear();
            }
            return Ok(());
        }
        let mut gifts = Vec::new();
        let mut givers = 0u64;
        let reaches: Vec<(usize, u64)> = layout
            .reaches()
            .filter(|(g, _)| custom & (1 << g) != 0)
            .collect();
        for (g, reach) in reaches {
            givers |= 1 << g;
            let giver = field.shape().cell_from_index(g);
            let Some(def) = field.def(self.cat, giver) else {
                continue;
            };
            for t in bits(reach & field.occupied()) {
                let target = field.shape().cell_from_index(t);
                let mut effects = Effects::NONE;
                for ability in def
                    .abilities
                    .iter()
                    .filter(|a| a.points.contains(HookPoints::GIVES_TO))
                {
                    let ctx = HookContext {
                        field,
                        catalog: self.cat,
                        rules: self.rules,
                        cell: giver,
                        def,
                        ability,
                        phase: 0,
                        initiative_changes: &self.initiative,
                        gifts: &[],
                    };
                    let e = self.hooks.gives_to(&ctx, target)?;
                    effects = effects.plus(&e);
                }
                gifts.push(Gift {
                    giver,
                    target,
                    effects,
                });
            }
        }
        self.gifts = gifts;
        layout.set_custom(givers);
        Ok(())
    }

    /// The highest initiative value of the unit on `cell` now, with every modifier and the
    /// changes of this battle; `None` for a tile without initiative.
    fn highest_now(&self, field: &Battlefield, cell: Cell) -> Option<u8> {
        let ctx = Context {
            catalog: self.cat,
            rules: self.rules,
        };
        let s = standing(field, ctx, cell, self.initiative[cell.index()], &self.gifts)?;
        s.initiative[..usize::from(s.slots)].iter().copied().max()
    }

    /// Carries out an initiative change of an ability ([`InitiativeChange`]) on the unit on
    /// `cell`, from its values now; a tile without initiative values is left as it is.
    fn change_initiative(&mut self, field: &mut Battlefield, cell: Cell, change: InitiativeChange) {
        let Some(now) = self.highest_now(field, cell) else {
            return;
        };
        let by = |r: &mut Self, c: Cell, d: i16| {
            let i = &mut r.initiative[c.index()];
            *i = (i16::from(*i) + d).clamp(-20, 20) as i8;
        };
        let mut changed = vec![cell];
        match change {
            InitiativeChange::Add(n) => by(self, cell, i16::from(n)),
            InitiativeChange::Set(v) => by(self, cell, i16::from(v) - i16::from(now)),
            InitiativeChange::Swap(other) => {
                let Some(theirs) = self.highest_now(field, other) else {
                    return;
                };
                let d = i16::from(theirs) - i16::from(now);
                by(self, cell, d);
                by(self, other, -d);
                changed.push(other);
            }
        }
        for c in changed {
            if let Some(highest) = self.highest_now(field, c) {
                let e = Event::InitiativeChanged {
                    cell: c,
                    by: self.initiative[c.index()],
                    highest,
                };
                self.emit(field, e);
            }
        }
    }

    /// Resolves scripted attacks together, as the attacks of a phase are (simultaneous among
    /// themselves): hits, Medics, `before_wound`, attack events, wounds, `destroyed`, removals and
    /// HQ damage. Returns the cells whose tiles left the board.
    fn volley(
        &mut self,
        field: &mut Battlefield,
        phase: u8,
        attacks: &[ScriptedAttack],
    ) -> Result<u64, HookError> {
        let layout = self.layout(field)?;
        let mut view = View::empty();
        view.compute(field, self.cat, self.rules, &layout, &self.gifts);
        self.hits.clear();
        self.resolutions.clear();
        let watching = self.marks.watching() != 0;
        for a in attacks {
            let Some(p) = field.at(a.from).copied() else {
                continue;
            };
            let def = self.cat.get(p.tile);
            let made = self.resolutions.len();
            if a.kind == AttackKind::Explosion {
                self.area(field, *a);
            } else {
                self.aim_along(
                    field, &view, a.from, p.owner, def, a.kind, a.strength, None, a.dir, a.target,
                );
            }
            if watching && self.resolutions.len() == made {
                self.resolutions.push(Resolution::Settled(ResolvedAttack {
                    from: a.from,
                    edge: None,
                    kind: a.kind,
                    target: None,
                    strength: a.strength,
                    wounds: 0,
                    outcome: Outcome::Missed,
                }));
            }
        }
        self.settle(field, &view, phase, 0)
    }

    /// A scripted area attack: unboosted wounds through armor on every unit (not HQs) within its
    /// radius of its centre, friends and foes, but not the attacker.
    fn area(&mut self, field: &Battlefield, a: ScriptedAttack) {
        let shape = field.shape();
        let centre = shape.hex(a.target.unwrap_or(a.from));
        for h in centre.area(u32::from(a.radius)) {
            let Some(n) = shape.cell(h).filter(|n| *n != a.from) else {
                continue;
            };
            let Some(t) = field.at(n) else { continue };
            if self.cat.get(t.tile).is_hq() {
                continue;
            }
            self.hit(a.from, None, AttackKind::Explosion, n, a.strength, false);
        }
    }

    /// A unit moved from `from` to `to` during the battle: what the battle keeps per tile
    /// follows it.
    fn follow(&mut self, from: Cell, to: Cell) {
        let (f, t) = (from.index(), to.index());
        self.used[t] = std::mem::take(&mut self.used[f]);
        self.initiative[t] = std::mem::take(&mut self.initiative[f]);
        let carry = |m: &mut u64| {
            if *m & from.bit() != 0 {
                *m = *m & !from.bit() | to.bit();
            }
        };
        carry(&mut self.converted);
        carry(&mut self.units);
        self.marks.follow(carry);
    }

    /// The cells of tiles whose abilities define any of the hook points `p`.
    fn scripted(&self, field: &Battlefield, p: HookPoints) -> u64 {
        let mut m = 0;
        for (c, t) in field.tiles() {
            if self.cat.traits(t.tile).hooks.intersects(p) {
                m |= c.bit();
            }
        }
        m
    }

    /// Calls `f` for each ability of the tile on cell index `c` that defines `point`, with the
    /// list the effects they ask for join; those are checked against the board as it stands.
    fn call_hooks(
        &mut self,
        field: &Battlefield,
        c: usize,
        phase: u8,
        point: HookPoints,
        mut f: impl FnMut(&mut H, &HookContext<'_>, &mut Vec<Effect>) -> Result<(), HookError>,
    ) -> Result<(), HookError> {
        let cell = field.shape().cell_from_index(c);
        let Some(def) = field.def(self.cat, cell) else {
            return Ok(());
        };
        let mut effects = std::mem::take(&mut self.effects);
        let asked = effects.len();
        let mut result = Ok(());
        for ability in def.abilities.iter().filter(|a| a.points.contains(point)) {
            let ctx = HookContext {
                field,
                catalog: self.cat,
                rules: self.rules,
                cell,
                def,
                ability,
                phase,
                initiative_changes: if self.in_battle {
                    &self.initiative
                } else {
                    &[]
                },
                gifts: &self.gifts,
            };
            result = f(self.hooks, &ctx, &mut effects);
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() && effects.len() > asked {
            result = effect::check_effects(field, &effects[asked..]).map_err(|e| HookError {
                message: format!(
                    "{}, {}: {}",
                    point.name().unwrap_or("hook"),
                    def.full_id(),
                    e.message
                ),
            });
        }
        self.effects = effects;
        result
    }

    /// One initiative phase. Returns the cells whose tiles left the board.
    fn phase(&mut self, field: &mut Battlefield, view: &View, phase: u8) -> Result<u64, HookError> {
        self.sink.push(Event::PhaseStarted { phase });
        let acting = self.acting_units(field, view, phase);
        self.hits.clear();
        self.resolutions.clear();
        if acting == 0 {
            // No attack, so no hit: nothing for Medics, guards, wounds or removals to do.
            return Ok(0);
        }
        let mut doomed = 0u64;
        for c in bits(acting) {
            let cell = field.shape().cell_from_index(c);
            self.sink.push(Event::Acts { cell, phase });
        }
        let conversions = self.conversions(field, view, acting);
        for c in bits(acting) {
            let cell = field.shape().cell_from_index(c);
            if self.attack(field, view, cell, phase, conversions[c])? {
                doomed |= 1 << c;
            }
        }
        self.settle(field, view, phase, doomed)
    }

    /// The end of a phase's or a volley's attacks (`self.hits`): Medics, `before_wound`, attack
    /// events, wounds, `destroyed`, removals (with `doomed`, the tiles already certain to leave)
    /// and HQ damage. Returns the cells whose tiles left the board.
    fn settle(
        &mut self,
        field: &mut Battlefield,
        view: &View,
        phase: u8,
        mut doomed: u64,
    ) -> Result<u64, HookError> {
        let mut incoming = [0u16; MAX_CELLS];
        for h in &self.hits {
            incoming[h.target.index()] += h.wounds as u16;
        }
        let used_medics = {
            let ph = medic::Phase {
                field,
                catalog: self.cat,
                view,
                incoming: &incoming,
                doomed,
            };
            medic::absorb(
                &ph,
                &mut self.hits,
                self.decider,
                self.sink,
                &mut self.options,
            )
        };
        doomed |= used_medics;
        if self.marks.guarded & field.occupied() != 0 {
            self.guard(field, phase)?;
        }
        if !self.resolutions.is_empty() {
            self.attack_events(field, phase)?;
        }
        let mut total = [0u16; MAX_CELLS];
        let mut struck = 0u64;
        for h in self.hits.iter().filter(|h| !h.absorbed && h.wounds > 0) {
            total[h.target.index()] += h.wounds as u16;
            struck |= h.target.bit();
        }
        let mut hq_damage = [0u16; MAX_PLAYERS];
        for t in bits(struck) {
            let sum = total[t];
            let cell = field.shape().cell_from_index(t);
            let Some(p) = field.at(cell).copied() else {
                continue;
            };
            let def = self.cat.get(p.tile);
            if def.is_hq() {
                hq_damage[p.owner.index()] += sum;
                if !self.cat.game_rules().is_empty() {
                    let by = &mut self.report.hq_damage_by[p.owner.index()];
                    for h in self.hits.iter().filter(|h| !h.absorbed && h.target == cell) {
                        if let Some(attacker) = h.from.and_then(|f| field.at(f)) {
                            by[attacker.owner.index()] += u16::from(h.wounds);
                        }
                    }
                }
                continue;
            }
            let added = sum.min(u8::MAX as u16) as u8;
            let ctx = Context {
                catalog: self.cat,
                rules: self.rules,
            };
            if wound(field, ctx, view, cell, added, &mut *self.sink) {
                doomed |= 1 << t;
            }
        }
        for c in bits(doomed & self.marks.mortal & field.occupied()) {
            self.call_hooks(field, c, phase, HookPoints::DESTROYED, |h, ctx, fx| {
                h.destroyed(ctx, fx)
            })?;
        }
        let removed = remove_tiles(field, doomed, &mut *self.sink);
        self.report.removed += removed.count_ones();
        Ok(removed | self.damage_hqs(field, hq_damage))
    }

    /// `before_wound` hooks, in reading order, for the guarded units that are hit: each sees the
    /// hits on it (those turned to it by units before it included), and may lessen them or turn
    /// them onto another tile.
    fn guard(&mut self, field: &Battlefield, phase: u8) -> Result<(), HookError> {
        let mut incoming: Vec<IncomingHit> = Vec::new();
        let mut index: Vec<usize> = Vec::new();
        for c in bits(self.marks.guarded & field.occupied()) {
            let cell = field.shape().cell_from_index(c);
            incoming.clear();
            index.clear();
            for (i, h) in self.hits.iter().enumerate() {
                if h.target == cell && !h.absorbed && h.wounds > 0 {
                    index.push(i);
                    incoming.push(IncomingHit {
                        from: h.from,
                        kind: h.kind,
                        wounds: h.wounds,
                        to: cell,
                    });
                }
            }
            if incoming.is_empty() {
                continue;
            }
            self.call_hooks(field, c, phase, HookPoints::BEFORE_WOUND, |h, ctx, fx| {
                h.before_wound(ctx, &mut incoming, fx)
            })?;
            for (k, &i) in index.iter().enumerate() {
                let now = incoming[k];
                let before = self.hits[i].wounds;
                if now.to != cell && field.at(now.to).is_none() {
                    return Err(HookError {
                        message: format!(
                            "before_wound: hits can only be turned onto a tile, and {} is empty",
                            field.shape().hex(now.to)
                        ),
                    });
                }
                let kept = now.wounds.min(before);
                if kept < before {
                    self.sink.push(Event::Deflected {
                        cell,
                        to: None,
                        wounds: before - kept,
                    });
                }
                if now.to != cell && kept > 0 {
                    self.sink.push(Event::Deflected {
                        cell,
                        to: Some(now.to),
                        wounds: kept,
                    });
                }
                self.hits[i].wounds = kept;
                self.hits[i].target = now.to;
            }
        }
        Ok(())
    }

    /// R4.4.7: units with an unused slot at this phase act unless netted; passed slots are lost.
    fn acting_units(&mut self, field: &Battlefield, view: &View, phase: u8) -> u64 {
        let mut acting = 0u64;
        // Markers are rare: without any, no unit's `initiative` marker is looked for.
        let marked = !field.marks().is_empty();
        let shape = field.shape();
        for i in bits(self.units & field.occupied()) {
            let cell = shape.cell_from_index(i);
            let Some(p) = field.at(cell) else { continue };
            let def = self.cat.get(p.tile);
            let hooked = self.hooked(field, cell, marked);
            let slots = slot_values(def, view, cell, hooked);
            let used = &mut self.used[cell.index()];
            let mut now = 0u8;
            for s in bits(u64::from(slots.present & !*used)) {
                let v = slots.values[s];
                if v > phase {
                    *used |= 1 << s;
                } else if v == phase {
                    now |= 1 << s;
                }
            }
            if now != 0 && !view.is_netted(cell) {
                *used |= now;
                acting |= cell.bit();
            }
        }
        acting
    }

    /// R7.4.3: modules that may convert an attack ask their owner, in reading order.
    fn conversions(
        &mut self,
        field: &Battlefield,
        view: &View,
        acting: u64,
    ) -> [Option<Edge>; MAX_CELLS] {
        let mut conv = [None; MAX_CELLS];
        let mut modules = 0u64;
        for u in bits(acting) {
            modules |= view.converters[u];
        }
        let per_battle = self.rules.convert_attack_limit == ConvertLimit::OnePerUnitPerBattle;
        for q in bits(modules) {
            let qcell = field.shape().cell_from_index(q);
            loop {
                self.options.clear();
                self.options.push(Choice::NoConversion);
                for u in bits(acting) {
                    if view.converters[u] & (1 << q) == 0
                        || conv[u].is_some()
                        || (per_battle && self.converted & (1 << u) != 0)
                    {
                        continue;
                    }
                    let ucell = field.shape().cell_from_index(u);
                    let Some(def) = field.def(self.cat, ucell) else {
                        continue;
                    };
                    for e in Edge::ALL {
                        let icons = def.edge(e);
                        if icons.melee > 0 || icons.ranged > 0 {
                            self.options.push(Choice::Convert {
                                unit: ucell,
                                edge: e,
                            });
                        }
                    }
                }
                if self.options.len() == 1 {
                    break;
                }
                let pick = ask(self.decider, field, Question::Convert, qcell, &self.options);
                let Choice::Convert { unit, edge } = self.options[pick] else {
                    break;
                };
                conv[unit.index()] = Some(edge);
                self.converted |= unit.bit();
                let to = match field.def(self.cat, unit) {
                    Some(d) if d.edge(edge).melee > 0 => AttackKind::Ranged,
                    _ => AttackKind::Melee,
                };
                self.sink.push(Event::Converted {
                    unit,
                    edge,
                    by: qcell,
                    to,
                });
                if !per_battle {
                    break;
                }
            }
        }
        conv
    }

    /// R7.2.4: unboostable wounds through armor on every unit within the blast's radius, friends
    /// and foes, HQs only if the blast hits them; the caller removes the exploded unit.
    fn explode(&mut self, field: &Battlefield, cell: Cell, blast: Blast) {
        self.sink.push(Event::Exploded { cell });
        let shape = field.shape();
        let centre = shape.hex(cell);
        for h in centre.area(u32::from(blast.radius)) {
            let Some(n) = shape.cell(h).filter(|n| *n != cell) else {
                continue;
            };
            let Some(t) = field.at(n) else { continue };
            if !blast.hits_hqs && self.cat.get(t.tile).is_hq() {
                continue;
            }
            self.hit(cell, None, AttackKind::Explosion, n, blast.wounds, false);
        }
    }

    /// The unit on `cell` acts: its attacks, changed by its hooks, are aimed; or it explodes.
    /// Returns whether it exploded (and so leaves the board at the end of the phase).
    fn attack(
        &mut self,
        field: &Battlefield,
        view: &View,
        cell: Cell,
        phase: u8,
        conversion: Option<Edge>,
    ) -> Result<bool, HookError> {
        let Some(p) = field.at(cell).copied() else {
            return Ok(false);
        };
        let def = self.cat.get(p.tile);
        let melee_bonus = view.melee[cell.index()];
        let ranged_bonus = view.ranged[cell.index()];
        let both = self.rules.convert_attack_limit == ConvertLimit::OnePerPhaseAnyConnectedUnit;
        let plan = &mut self.plan.attacks;
        plan.clear();
        self.plan.blast = None;
        let mut push = |edge: Edge, kind: AttackKind, base: u8, bonus: i8| {
            plan.push(PlannedAttack {
                edge,
                kind,
                strength: boosted(base, bonus),
                base,
                target: None,
            })
        };
        // The edges with an attack, and the one a conversion names (which has one).
        let edges = self.cat.traits(p.tile).attacks | conversion.map_or(0, |e| 1 << e.index());
        for e in bits(u64::from(edges)).map(|i| Edge::ALL[i]) {
            let icons = def.edge(e);
            let (mut melee, mut ranged) = (icons.melee, icons.ranged);
            if conversion == Some(e) {
                if melee > 0 {
                    let bonus = melee_bonus + if both { ranged_bonus } else { 0 };
                    push(e, AttackKind::Ranged, melee, bonus);
                    melee = 0;
                } else {
                    let bonus = ranged_bonus + if both { melee_bonus } else { 0 };
                    push(e, AttackKind::Melee, ranged, bonus);
                    ranged = 0;
                }
            }
            if melee > 0 {
                push(e, AttackKind::Melee, melee, melee_bonus);
            }
            if ranged > 0 {
                push(e, AttackKind::Ranged, ranged, ranged_bonus);
            }
        }
        if self
            .cat
            .traits(p.tile)
            .hooks
            .contains(HookPoints::PLAN_ATTACKS)
        {
            let mut plan = std::mem::take(&mut self.plan);
            let mut effects = std::mem::take(&mut self.effects);
            let asked = effects.len();
            let mut result = Ok(());
            for ability in def
                .abilities
                .iter()
                .filter(|a| a.points.contains(HookPoints::PLAN_ATTACKS))
            {
                let ctx = HookContext {
                    field,
                    catalog: self.cat,
                    rules: self.rules,
                    cell,
                    def,
                    ability,
                    phase,
                    initiative_changes: if self.in_battle {
                        &self.initiative
                    } else {
                        &[]
                    },
                    gifts: &self.gifts,
                };
                result = self.hooks.plan_attacks(
                    &ctx,
                    &mut plan,
                    &mut Ask(&mut *self.decider),
                    &mut effects,
                );
                if result.is_err() {
                    break;
                }
            }
            if result.is_ok() && effects.len() > asked {
                result = effect::check_effects(field, &effects[asked..]).map_err(|e| HookError {
                    message: format!("plan_attacks, {}: {}", def.full_id(), e.message),
                });
            }
            self.plan = plan;
            self.effects = effects;
            result?;
            if let Some(blast) = self.plan.blast {
                self.explode(field, cell, blast);
                return Ok(true);
            }
        }
        let watching = self.marks.watching() != 0;
        for i in 0..self.plan.attacks.len() {
            let a = self.plan.attacks[i];
            if a.strength > 0 {
                let target = match a.target {
                    Some(h) => Some(self.chosen_target(field, cell, &p, def, a, h)?),
                    None => None,
                };
                let made = self.resolutions.len();
                self.aim(field, view, cell, &p, def, a, target);
                if watching && self.resolutions.len() == made {
                    self.resolutions.push(Resolution::Settled(ResolvedAttack {
                        from: cell,
                        edge: Some(a.edge),
                        kind: a.kind,
                        target: None,
                        strength: a.strength,
                        wounds: 0,
                        outcome: Outcome::Missed,
                    }));
                }
            }
        }
        Ok(false)
    }

    /// The cell of a target a hook chose for an attack, if it is on the attack's line (the
    /// adjacent hex for melee); else the hook's error.
    fn chosen_target(
        &self,
        field: &Battlefield,
        cell: Cell,
        p: &crate::battlefield::Placed,
        def: &Tile,
        a: PlannedAttack,
        h: Hex,
    ) -> Result<Cell, HookError> {
        let dir = a.edge.direction(p.facing);
        let mut cur = cell;
        while let Some(n) = field.shape().neighbour(cur, dir) {
            if field.shape().hex(n) == h {
                return Ok(n);
            }
            if a.kind == AttackKind::Melee {
                break;
            }
            cur = n;
        }
        Err(HookError {
            message: format!(
                "plan_attacks, {}: the {} attack through edge {} cannot reach {h}: a chosen target must be on the attack's line",
                def.full_id(),
                a.kind.name(),
                a.edge.index()
            ),
        })
    }

    /// Finds the targets of one planned attack (R3.8, R3.9, R3.10, R7.2.3); with `chosen`, only
    /// that cell is hit, the tiles before it on the line passed over.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn aim(
        &mut self,
        field: &Battlefield,
        view: &View,
        cell: Cell,
        p: &crate::battlefield::Placed,
        def: &Tile,
        a: PlannedAttack,
        chosen: Option<Cell>,
    ) {
        let dir = a.edge.direction(p.facing);
        self.aim_along(
            field,
            view,
            cell,
            p.owner,
            def,
            a.kind,
            a.strength,
            Some(a.edge),
            dir,
            chosen,
        );
    }

    /// Finds the targets of an attack of `kind` leaving `cell` (a tile of `owner`, `def`) in
    /// `dir`, through `edge` (`None` for a scripted attack); with `chosen`, only that cell is hit.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn aim_along(
        &mut self,
        field: &Battlefield,
        view: &View,
        cell: Cell,
        owner: Seat,
        def: &Tile,
        kind: AttackKind,
        strength: u8,
        edge: Option<Edge>,
        dir: crate::hex::Dir,
        chosen: Option<Cell>,
    ) {
        let hq_vs_hq = |t: &Tile| def.is_hq() && t.is_hq() && !self.rules.hq_can_damage_hq;
        match kind {
            AttackKind::Melee => {
                let Some(n) = field.shape().neighbour(cell, dir) else {
                    return;
                };
                let Some(t) = field.at(n) else { return };
                if field.attacks(owner, def, t.owner, self.rules) && !hq_vs_hq(self.cat.get(t.tile))
                {
                    self.hit(cell, edge, kind, n, strength, false);
                }
            }
            AttackKind::Ranged | AttackKind::Pierce => {
                let mut cur = cell;
                while let Some(n) = field.shape().neighbour(cur, dir) {
                    cur = n;
                    if chosen.is_some_and(|c| c != n) {
                        continue; // a chosen target: the tiles before it are passed over
                    }
                    let Some(t) = field.at(n) else {
                        if chosen.is_some() {
                            return;
                        }
                        continue;
                    };
                    if !field.attacks(owner, def, t.owner, self.rules) {
                        if chosen.is_some() {
                            return;
                        }
                        continue; // shots pass over friendly tiles (R3.9.2)
                    }
                    let tdef = self.cat.get(t.tile);
                    if !hq_vs_hq(tdef) {
                        let armor_edge = Edge::facing_toward(t.facing, dir.opposite());
                        let armored = field.armored(n, armor_edge, tdef.edge(armor_edge).armor)
                            && (self.rules.netted_keeps_armor_toughness || !view.is_netted(n));
                        self.hit(cell, edge, kind, n, strength, armored);
                    } else if kind == AttackKind::Pierce && chosen.is_none() {
                        continue;
                    }
                    if kind == AttackKind::Ranged || chosen.is_some() {
                        return;
                    }
                }
            }
            AttackKind::Explosion => {}
        }
    }

    /// One attack reaching `target`: reported, and kept for the Medics and wounds of the phase if
    /// armor leaves it any wound (and for the attack events while a tile watches them).
    #[inline(always)]
    fn hit(
        &mut self,
        from: Cell,
        edge: Option<Edge>,
        kind: AttackKind,
        target: Cell,
        strength: u8,
        armored: bool,
    ) {
        let wounds = if armored {
            strength.saturating_sub(1)
        } else {
            strength
        };
        self.sink.push(Event::Attack {
            from,
            edge,
            kind,
            target,
            strength,
            armored,
            wounds,
        });
        let watching = self.marks.watching() != 0;
        if wounds > 0 {
            if watching {
                self.resolutions.push(Resolution::Open(self.hits.len()));
            }
            self.hits.push(Hit {
                from: Some(from),
                kind: Some(kind),
                target,
                wounds,
                absorbed: false,
                edge,
                strength,
            });
        } else if watching {
            self.resolutions.push(Resolution::Settled(ResolvedAttack {
                from,
                edge,
                kind,
                target: Some(target),
                strength,
                wounds: 0,
                outcome: if armored {
                    Outcome::Armor
                } else {
                    Outcome::Stopped
                },
            }));
        }
    }

    /// The attack events of the phase, in the order the attacks were made: the attacker's
    /// `attack_resolved`, then the target's `attacked`, once Medics and `before_wound` have
    /// settled every hit and before the wounds count.
    fn attack_events(&mut self, field: &Battlefield, phase: u8) -> Result<(), HookError> {
        let resolutions = std::mem::take(&mut self.resolutions);
        let mut result = Ok(());
        for r in &resolutions {
            let a = match *r {
                Resolution::Settled(a) => a,
                Resolution::Open(i) => {
                    let h = self.hits[i];
                    let (Some(from), Some(kind)) = (h.from, h.kind) else {
                        continue;
                    };
                    let (outcome, wounds) = if h.absorbed {
                        (Outcome::Absorbed, 0)
                    } else if h.wounds == 0 {
                        (Outcome::Stopped, 0)
                    } else {
                        (Outcome::Landed, h.wounds)
                    };
                    ResolvedAttack {
                        from,
                        edge: h.edge,
                        kind,
                        target: Some(h.target),
                        strength: h.strength,
                        wounds,
                        outcome,
                    }
                }
            };
            if self.marks.striking & a.from.bit() != 0 {
                result = self.call_hooks(
                    field,
                    a.from.index(),
                    phase,
                    HookPoints::ATTACK_RESOLVED,
                    |h, ctx, fx| h.attack_resolved(ctx, &a, fx),
                );
                if result.is_err() {
                    break;
                }
            }
            if let Some(t) = a.target
                && self.marks.struck & t.bit() != 0
            {
                result = self.call_hooks(
                    field,
                    t.index(),
                    phase,
                    HookPoints::ATTACKED,
                    |h, ctx, fx| h.attacked(ctx, &a, fx),
                );
                if result.is_err() {
                    break;
                }
            }
        }
        self.resolutions = resolutions;
        result
    }

    /// R4.7.1: HQ trackers go down at the end of the phase; a destroyed HQ leaves the board now in a
    /// 2-player game (Q16) or when `destroyed_hq_removal` says so.
    fn damage_hqs(&mut self, field: &mut Battlefield, damage: [u16; MAX_PLAYERS]) -> u64 {
        let mut removed = 0u64;
        for p in field.players() {
            let amount = damage[p.index()];
            if amount == 0 {
                continue;
            }
            let hp = (field.hq_hp(p) - amount as i32).max(0);
            self.report.hq_damage[p.index()] += amount;
            self.emit(
                field,
                Event::HqDamaged {
                    player: p,
                    amount,
                    hp,
                },
            );
            let now = field.player_count() == 2
                || self.rules.destroyed_hq_removal
                    == DestroyedHqRemoval::HqEndOfPhaseRestAfterBattle;
            if hp == 0 && now {
                removed |= self.remove_hq(field, p);
            }
        }
        removed
    }

    fn remove_hq(&mut self, field: &mut Battlefield, p: Seat) -> u64 {
        let Some(cell) = field.hq_cell(p, self.cat) else {
            return 0;
        };
        let removed = remove_tiles(field, cell.bit(), &mut *self.sink);
        self.report.removed += removed.count_ones();
        removed
    }

    /// R8.2.3: with 3 or more players, an eliminated player's tiles leave after the battle.
    fn remove_eliminated(&mut self, field: &mut Battlefield) {
        if field.player_count() <= 2 {
            return;
        }
        let mut gone = 0u64;
        for (cell, t) in field.tiles() {
            if field.hq_hp(t.owner) <= 0 {
                gone |= cell.bit();
            }
        }
        let removed = remove_tiles(field, gone, &mut *self.sink);
        self.report.removed += removed.count_ones();
    }

    fn emit(&mut self, field: &mut Battlefield, e: Event) {
        field.apply(&e);
        self.sink.push(e);
    }
}

/// Puts `added` wounds on the non-HQ tile on `cell` and reports it (R4.6.3, R3.12); a netted tile
/// keeps its toughness only with `netted_keeps_armor_toughness` (R3.11.4). Returns whether the wounds
/// destroy it; destroyed tiles leave through [`remove_tiles`].
pub(crate) fn wound<S: EventSink + ?Sized>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    view: &View,
    cell: Cell,
    added: u8,
    sink: &mut S,
) -> bool {
    wound_netted(field, ctx, view.is_netted(cell), cell, added, sink)
}

/// [`wound`], knowing whether the tile is netted.
pub(crate) fn wound_netted<S: EventSink + ?Sized>(
    field: &mut Battlefield,
    ctx: Context<'_>,
    netted: bool,
    cell: Cell,
    added: u8,
    sink: &mut S,
) -> bool {
    let Some(p) = field.at(cell).copied() else {
        return false;
    };
    let def = ctx.catalog.get(p.tile);
    let total = p.wounds.saturating_add(added);
    let hp = if netted && !ctx.rules.netted_keeps_armor_toughness {
        1
    } else {
        def.hit_points()
    };
    let destroyed = total >= hp;
    let e = Event::Wounded {
        cell,
        added,
        total,
        destroyed,
    };
    field.apply(&e);
    sink.push(e);
    destroyed
}

/// Takes the tiles on `cells` off the board, in reading order (R4.3.5). Returns the cells that
/// held a tile.
pub(crate) fn remove_tiles<S: EventSink + ?Sized>(
    field: &mut Battlefield,
    cells: u64,
    sink: &mut S,
) -> u64 {
    let mut removed = 0u64;
    // A destroyed tile of a `whole` linked unit takes the unit's other tiles along (R9.3.2).
    let cells = if field.links().is_empty() {
        cells
    } else {
        field.with_whole_units(cells)
    };
    for t in bits(cells) {
        let cell = field.shape().cell_from_index(t);
        if let Some(p) = field.at(cell).copied() {
            let e = Event::Removed {
                cell,
                tile: p.tile,
                owner: p.owner,
            };
            field.apply(&e);
            sink.push(e);
            removed |= cell.bit();
        }
    }
    removed
}

/// Current values of a unit's slots: bits of `present` mark the slots that exist.
#[derive(Clone, Copy, Debug)]
struct Slots {
    values: [u8; MAX_SLOTS],
    present: u8,
}

impl Slots {
    #[inline(always)]
    fn highest(&self) -> Option<u8> {
        bits(u64::from(self.present)).map(|s| self.values[s]).max()
    }
}

/// Printed values plus modifiers (of modules and auras, and `hooked` from ability hooks; floored at 0, R3.7.4), then extra slots one phase apart below
/// the lowest printed one (R4.5.2; lost below 0).
#[inline(always)]
fn slot_values(def: &Tile, view: &View, cell: Cell, hooked: i8) -> Slots {
    let mut slots = Slots {
        values: [0; MAX_SLOTS],
        present: 0,
    };
    let printed = def.initiative.values();
    if printed.is_empty() {
        return slots;
    }
    let delta = view.initiative[cell.index()] as i16 + hooked as i16;
    let mut lowest = i16::MAX;
    for (i, v) in printed.iter().enumerate().take(MAX_NORMAL_SLOTS) {
        let now = (*v as i16 + delta).max(0);
        lowest = lowest.min(now);
        slots.values[i] = now as u8;
        slots.present |= 1 << i;
    }
    let extra = (view.extra[cell.index()] as usize).min(MAX_SLOTS - MAX_NORMAL_SLOTS);
    for j in 0..extra {
        let v = lowest - 1 - j as i16;
        if v >= 0 {
            slots.values[MAX_NORMAL_SLOTS + j] = v as u8;
            slots.present |= 1 << (MAX_NORMAL_SLOTS + j);
        }
    }
    slots
}

#[inline(always)]
fn boosted(base: u8, bonus: i8) -> u8 {
    (base as i16 + bonus as i16).clamp(0, u8::MAX as i16) as u8
}

/// A decider of any size seen as a `dyn Decider`, for hooks.
struct Ask<'a, D: ?Sized>(&'a mut D);

impl<D: Decider + ?Sized> Decider for Ask<'_, D> {
    fn decide(&mut self, field: &Battlefield, decision: &Decision<'_>) -> usize {
        self.0.decide(field, decision)
    }
}

/// Puts a decision to the player who controls `by`; an out-of-range answer counts as the first option.
/// `effects` with the facing of every tile put down with `ask` picked by its owner
/// (`Question::Facing`: the effect's facing first, then the others clockwise).
fn facings_asked<D: Decider + ?Sized>(
    field: &Battlefield,
    decider: &mut D,
    effects: &[Effect],
) -> Vec<Effect> {
    effects
        .iter()
        .map(|e| match *e {
            Effect::Place {
                tile,
                owner,
                cell,
                facing,
                ask: true,
            } => {
                let options: Vec<Choice> = (0..6)
                    .map(|k| Choice::Facing {
                        facing: crate::hex::Dir::new((facing.index() + k) % 6),
                    })
                    .collect();
                let pick = decider.decide(
                    field,
                    &Decision {
                        question: Question::Facing,
                        by: cell,
                        player: owner,
                        options: &options,
                    },
                );
                let facing = match options.get(pick) {
                    Some(Choice::Facing { facing }) => *facing,
                    _ => facing,
                };
                Effect::Place {
                    tile,
                    owner,
                    cell,
                    facing,
                    ask: false,
                }
            }
            other => other,
        })
        .collect()
}

fn ask<D: Decider + ?Sized>(
    decider: &mut D,
    field: &Battlefield,
    question: Question,
    by: Cell,
    options: &[Choice],
) -> usize {
    let player = field.at(by).map(|p| p.owner).unwrap_or_default();
    let d = Decision {
        question,
        by,
        player,
        options,
    };
    let pick = decider.decide(field, &d);
    if pick < options.len() { pick } else { 0 }
}

#[cfg(test)]
mod tests;
