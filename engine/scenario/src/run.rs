//! Running a scenario: build the battlefield, play its steps with the scenario's choices, then
//! compare the result with its expectations.

use crate::file::{ChoiceSpec, ExpectedMarker, PlayStep, Scenario, Step};
use crate::log::Names;
use hexforge_core::battle::{self, Context};
use hexforge_core::battlefield::Outcome;
use hexforge_core::marker::MarkOn;
use hexforge_core::{
    AbilityHooks, Battlefield, Catalog, Cell, Choice, Decider, Decision, Event, Hex, MAX_CELLS,
    Play, Seat, TileRef, Turn, resolve_play,
};

/// The result of running one scenario: what failed, the defaults taken and the log.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Every expectation that did not hold, worded for the reader; empty when the scenario passed.
    pub failures: Vec<String>,
    /// Decisions left to the engine's default, as the format requires them to be shown.
    pub defaults: Vec<String>,
    /// The events of the run, one readable line each.
    pub log: Vec<String>,
}

impl Report {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// A labelled tile and where it is: `cell` is `None` until a step places it.
pub(crate) struct Tracked {
    pub(crate) label: String,
    pub(crate) cell: Option<Cell>,
    pub(crate) tile: Option<(TileRef, Seat)>,
}

/// The labelled tiles of a scenario at the start, found on its board.
pub(crate) fn tracked(s: &Scenario, field: &Battlefield) -> Vec<Tracked> {
    s.tiles
        .iter()
        .map(|t| {
            let cell = if t.at_start {
                field.shape().cell(t.hex)
            } else {
                None
            };
            let tile = cell.and_then(|c| field.at(c)).map(|p| (p.tile, p.owner));
            Tracked {
                label: t.label.clone(),
                cell,
                tile,
            }
        })
        .collect()
}

/// Runs a validated scenario; `hooks` run the scripted abilities of its tiles.
pub fn run_scenario(s: &Scenario, catalog: &Catalog, hooks: &mut dyn AbilityHooks) -> Report {
    if let Some(start) = &s.game {
        return crate::game::run_game(s, start, catalog, hooks);
    }
    let mut report = Report::default();
    let field = match Battlefield::new(s.setup.clone(), catalog) {
        Ok(mut f) => {
            for mark in &s.marks {
                f.apply(&Event::Marked { mark: *mark });
            }
            for link in &s.links {
                f.apply(&Event::Linked { link: *link });
            }
            f
        }
        Err(e) => {
            refused(&mut report, s, &e.to_string());
            return report;
        }
    };
    let mut run = Runner::new(
        s,
        Context {
            catalog,
            rules: &s.rules,
        },
        field,
        hooks,
    );
    for step in &s.steps {
        if let Err(message) = run.step(step) {
            report.log = run.log;
            refused(&mut report, s, &message);
            return report;
        }
    }
    report.log = run.log;
    report.defaults = run.defaults;
    unused_choices(&mut report, s, &run.used);
    check(&mut report, s, &run.field, run.ctx, &run.tracked);
    if let Some(w) = &s.expect.winner {
        let got = match run.field.outcome() {
            Outcome::Ongoing => "nobody yet (the game goes on)".to_string(),
            Outcome::Draw => "draw".to_string(),
            Outcome::Won { team } => winners(s, &run.field, team, w),
        };
        if got != *w {
            report
                .failures
                .push(format!("winner: expected {w}, found {got}"));
        }
    }
    report
}

/// Fails on `[[choice]]` tables that answered nothing, and on an expected refusal that never came.
pub(crate) fn unused_choices(report: &mut Report, s: &Scenario, used: &[bool]) {
    for (i, c) in s.choices.iter().enumerate() {
        if !used[i] {
            report.failures.push(format!(
                "choice on line {} (`{}` by `{}`) was never asked or matched no option",
                c.line, c.pick, c.by
            ));
        }
    }
    if let Some(e) = &s.expect.error {
        report.failures.push(format!(
            "expected a step to be refused with an error containing \"{e}\", but every step was played"
        ));
    }
}

/// The players of a winning team, as `expect.winner` names one of them.
pub(crate) fn winners(s: &Scenario, field: &Battlefield, team: u8, expected: &str) -> String {
    let winners: Vec<&str> = field
        .players()
        .filter(|p| field.team(*p) == team)
        .map(|p| s.player_ids[p.index()].as_str())
        .collect();
    if winners.contains(&expected) {
        expected.to_string()
    } else {
        winners.join(" and ")
    }
}

/// The state of a scenario between its steps.
/// The first seed of the scripted instants a plain scenario board plays (the battles' seeds count
/// up from 0).
const INSTANT_SEEDS: u64 = 1 << 32;

struct Runner<'a> {
    s: &'a Scenario,
    ctx: Context<'a>,
    hooks: &'a mut dyn AbilityHooks,
    /// Battles fought so far.
    battles: u64,
    /// Scripted instants played so far.
    instants: u64,
    field: Battlefield,
    tracked: Vec<Tracked>,
    names: Names,
    /// Which `[[choice]]` tables answered a decision.
    used: Vec<bool>,
    defaults: Vec<String>,
    /// Steps of one player in a row are one turn; a step of another player starts a new turn, and a
    /// Battle ends the turn (R4.2).
    turn: Option<Turn>,
    log: Vec<String>,
}

impl<'a> Runner<'a> {
    fn new(
        s: &'a Scenario,
        ctx: Context<'a>,
        field: Battlefield,
        hooks: &'a mut dyn AbilityHooks,
    ) -> Self {
        let tracked = tracked(s, &field);
        let by_cell = labels(&tracked);
        let names = Names::new(&field, ctx, |c| by_cell[c.index()].clone(), &s.player_ids);
        Runner {
            s,
            ctx,
            hooks,
            battles: 0,
            instants: 0,
            field,
            tracked,
            names,
            used: vec![false; s.choices.len()],
            defaults: Vec::new(),
            turn: None,
            log: Vec::new(),
        }
    }

    /// Plays one step; an error is the message of a refused step.
    fn step(&mut self, step: &Step) -> Result<(), String> {
        let by = match step {
            Step::Place { by, .. } | Step::Play { by, .. } => Some(*by),
            Step::Battle => None,
            Step::Discard { line, .. }
            | Step::Redraw { line, .. }
            | Step::EndTurn { line, .. }
            | Step::Rule { line, .. } => {
                return Err(format!(
                    "step on line {line} needs a game in progress (`[game]`)"
                ));
            }
        };
        if by != self.turn.map(|t| t.player()) {
            self.turn = by.map(Turn::new);
        }
        let battle = match step {
            Step::Battle => true,
            Step::Discard { .. }
            | Step::Redraw { .. }
            | Step::EndTurn { .. }
            | Step::Rule { .. } => false,
            Step::Place {
                by,
                tile,
                label,
                hex,
                facing,
                line,
            } => {
                let event = self
                    .field
                    .check_place(self.ctx.catalog, *by, *tile, *hex, *facing)
                    .map_err(|e| format!("place (line {line}): {e}"))?;
                self.field.apply(&event);
                if let Event::Placed {
                    cell, tile, owner, ..
                } = event
                    && let Some(t) = self.tracked.iter_mut().find(|t| t.label == *label)
                {
                    t.cell = Some(cell);
                    t.tile = Some((tile, owner));
                    self.names.placed(&self.field, self.ctx, cell, label);
                    self.log.extend(self.names.describe(&event));
                }
                // R4.11.1: a full play area starts a battle at once.
                self.field.main_area_full()
            }
            Step::Play {
                by,
                play: play @ PlayStep::Scripted { .. },
                name,
                line,
                tile,
            } => {
                let fail = |msg: String| format!("{name} (line {line}): {msg}");
                let target = scripted_target(play, |label| self.hex_of(label)).map_err(fail)?;
                let tile = tile.ok_or_else(|| fail("no such instant".into()))?;
                self.play_scripted(*by, tile, target).map_err(fail)?;
                false
            }
            Step::Play {
                by,
                play,
                name,
                line,
                ..
            } => {
                match play_of(play, |label| self.hex_of(label))
                    .map_err(|msg| format!("{name} (line {line}): {msg}"))?
                {
                    // A Battle instant (R5.1).
                    None => true,
                    Some(core) => {
                        self.play(*by, &core)
                            .map_err(|reason| format!("{name}: {reason}"))?;
                        false
                    }
                }
            }
        };
        if battle {
            self.battle()?;
        }
        Ok(())
    }

    /// Where the tile with `label` stands now, if it is still on the board.
    fn hex_of(&self, label: &str) -> Result<Hex, String> {
        let t = self
            .tracked
            .iter()
            .find(|t| t.label == label)
            .ok_or_else(|| format!("no tile `{label}`"))?;
        t.cell
            .filter(|c| self.field.at(*c).map(|p| (p.tile, p.owner)) == t.tile)
            .map(|c| self.field.shape().hex(c))
            .ok_or_else(|| format!("`{label}` is not on the board any more"))
    }

    /// Plays a scripted instant of `by` on `target` (a hex its `targets` hooks list, or none),
    /// its effects at once, as a game does (docs/LUA_API.md, "Scripted instants"); an error is
    /// the reason it is refused, and the board is then as it was.
    fn play_scripted(
        &mut self,
        by: Seat,
        tile: hexforge_core::TileRef,
        target: Option<Hex>,
    ) -> Result<(), String> {
        // Scripts draw from the same numbers in every run of the scenario, whatever ran before:
        // each instant has a seed of its own, apart from the battles' (0, 1, ...).
        self.hooks.reseed(INSTANT_SEEDS + self.instants);
        self.instants += 1;
        let listed =
            hexforge_core::instant::targets(&self.field, self.ctx, by, tile, &mut *self.hooks)
                .map_err(|e| e.to_string())?;
        let cell = match target {
            None if listed.none => None,
            Some(h) => match self.field.shape().cell(h) {
                Some(c) if listed.has(c) => Some(c),
                _ => return Err(format!("{h} is not a hex its script lists")),
            },
            None => return Err("it needs a target: give `target` or `at`".into()),
        };
        let effects =
            hexforge_core::instant::asked(&self.field, self.ctx, by, tile, cell, &mut *self.hooks)
                .map_err(|e| e.to_string())?;
        let by_cell = labels(&self.tracked);
        let mut decider = ScenarioDecider {
            choices: &self.s.choices,
            used: &mut self.used,
            labels: &by_cell,
            defaults: &mut self.defaults,
            push_to: None,
        };
        let mut events: Vec<Event> = Vec::new();
        hexforge_core::battle::resolve_effects(
            &mut self.field,
            self.ctx,
            &mut *self.hooks,
            &mut decider,
            &mut events,
            &effects,
        )
        .map_err(|e| e.to_string())?;
        for e in &events {
            if let Event::Moved { from, to, .. } = *e
                && let Some(t) = self.tracked.iter_mut().find(|t| t.cell == Some(from))
            {
                t.cell = Some(to);
            }
            self.log.extend(self.names.describe(e));
            self.names.follow(e);
        }
        Ok(())
    }

    /// Resolves a play; an error is the reason it is refused.
    fn play(&mut self, by: Seat, play: &Play) -> Result<(), String> {
        let by_cell = labels(&self.tracked);
        let mut decider = ScenarioDecider {
            choices: &self.s.choices,
            used: &mut self.used,
            labels: &by_cell,
            defaults: &mut self.defaults,
            push_to: None,
        };
        let mut events: Vec<Event> = Vec::new();
        let turn = self.turn.get_or_insert_with(|| Turn::new(by));
        resolve_play(
            &mut self.field,
            self.ctx,
            turn,
            play,
            &mut decider,
            &mut events,
        )
        .map_err(|e| e.reason.to_string())?;
        for e in &events {
            self.log.extend(self.names.describe(e));
            self.names.follow(e);
            if let Event::Moved { from, to, .. } = *e
                && let Some(t) = self.tracked.iter_mut().find(|t| t.cell == Some(from))
            {
                t.cell = Some(to);
            }
        }
        Ok(())
    }

    /// A battle, which also ends the turn (R4.2).
    fn battle(&mut self) -> Result<(), String> {
        self.turn = None;
        let by_cell = labels(&self.tracked);
        let mut decider = ScenarioDecider {
            choices: &self.s.choices,
            used: &mut self.used,
            labels: &by_cell,
            defaults: &mut self.defaults,
            push_to: None,
        };
        let mut events: Vec<Event> = Vec::new();
        // Scripts draw from the same numbers in every run of the scenario.
        self.hooks.reseed(self.battles);
        self.battles += 1;
        let result = battle::resolve(
            &mut self.field,
            self.ctx,
            &mut *self.hooks,
            &mut decider,
            &mut events,
        );
        self.log
            .extend(events.iter().filter_map(|e| self.names.describe(e)));
        result.map(|_| ()).map_err(|e| format!("battle: {e}"))
    }
}

/// The label of the tile on each cell.
pub(crate) fn labels(tracked: &[Tracked]) -> Vec<Option<String>> {
    let mut by_cell = vec![None; MAX_CELLS];
    for t in tracked {
        if let Some(c) = t.cell {
            by_cell[c.index()] = Some(t.label.clone());
        }
    }
    by_cell
}

/// The engine play of a step, with labels turned into hexes; `None` for a Battle instant.
pub(crate) fn play_of(
    step: &PlayStep,
    at: impl Fn(&str) -> Result<Hex, String>,
) -> Result<Option<Play>, String> {
    Ok(Some(match step {
        // A Battle instant; a scripted instant is played by its hooks (`scripted_target`).
        PlayStep::Battle | PlayStep::Scripted { .. } => return Ok(None),
        PlayStep::Move {
            unit,
            to,
            facing,
            instant,
        } => Play::Move {
            unit: at(unit)?,
            to: *to,
            facing: *facing,
            instant: *instant,
        },
        PlayStep::Push { pusher, target, to } => Play::Push {
            pusher: at(pusher)?,
            target: at(target)?,
            to: *to,
        },
        PlayStep::Wound { target, wounds } => Play::Wound {
            target: at(target)?,
            wounds: *wounds,
        },
        PlayStep::DestroyNearHq { target } => Play::DestroyNearHq {
            target: at(target)?,
        },
        PlayStep::Area {
            at: hex,
            wounds,
            radius,
        } => Play::Area {
            at: *hex,
            wounds: *wounds,
            radius: *radius,
        },
    }))
}

/// The hex a scripted instant's step plays it on: its `target` label's hex, its `at`, or none.
pub(crate) fn scripted_target(
    step: &PlayStep,
    at: impl Fn(&str) -> Result<Hex, String>,
) -> Result<Option<Hex>, String> {
    match step {
        PlayStep::Scripted {
            target: Some(label),
            ..
        } => at(label).map(Some),
        PlayStep::Scripted { at: hex, .. } => Ok(*hex),
        _ => Ok(None),
    }
}

pub(crate) fn refused(report: &mut Report, s: &Scenario, message: &str) {
    match &s.expect.error {
        Some(e) if loose(message).contains(&loose(e)) => {}
        Some(e) => report.failures.push(format!(
            "refused with \"{message}\", expected an error containing \"{e}\""
        )),
        None => report.failures.push(format!("refused: {message}")),
    }
}

/// Lowercase with `_` read as a space, for comparing error texts.
fn loose(s: &str) -> String {
    s.to_lowercase().replace('_', " ")
}

pub(crate) fn check(
    report: &mut Report,
    s: &Scenario,
    field: &Battlefield,
    ctx: Context<'_>,
    tracked: &[Tracked],
) {
    let fail = &mut report.failures;
    let on_board = |label: &str| -> Option<Cell> {
        let t = tracked.iter().find(|t| t.label == label)?;
        let c = t.cell?;
        let now = field.at(c)?;
        (Some((now.tile, now.owner)) == t.tile).then_some(c)
    };
    for (p, id, hp) in &s.expect.hq {
        let got = field.hq_hp(*p);
        if got != *hp {
            fail.push(format!("HQ of {id}: expected {hp} HP, found {got}"));
        }
    }
    if let Some(expected) = &s.expect.removed {
        let gone: Vec<&str> = tracked
            .iter()
            .map(|t| t.label.as_str())
            .filter(|l| on_board(l).is_none())
            .collect();
        compare_sets(fail, "removed", expected, &gone);
    }
    for (label, w) in &s.expect.wounds {
        match on_board(label).and_then(|c| field.at(c)) {
            Some(t) if t.wounds == *w => {}
            Some(t) => fail.push(format!(
                "wounds on {label}: expected {w}, found {}",
                t.wounds
            )),
            None => fail.push(format!(
                "wounds on {label}: expected {w}, but it left the board"
            )),
        }
    }
    if let Some(expected) = &s.expect.netted {
        let mask = battle::netted(field, ctx);
        let netted: Vec<&str> = tracked
            .iter()
            .filter(|t| on_board(&t.label).is_some_and(|c| mask & (1u64 << c.index()) != 0))
            .map(|t| t.label.as_str())
            .collect();
        compare_sets(fail, "netted", expected, &netted);
    }
    for (label, hex, facing) in &s.expect.positions {
        match on_board(label).and_then(|c| field.at(c).map(|t| (field.shape().hex(c), t.facing))) {
            Some((h, f)) if h == *hex && f == *facing => {}
            Some((h, f)) => fail.push(format!(
                "position of {label}: expected [{}, {}] facing {}, found [{}, {}] facing {}",
                hex.q(),
                hex.r(),
                facing.index(),
                h.q(),
                h.r(),
                f.index()
            )),
            None => fail.push(format!("position of {label}: it left the board")),
        }
    }
    for (label, expected) in &s.expect.markers {
        match on_board(label) {
            Some(c) => compare_marks(
                fail,
                &format!("markers on {label}"),
                expected,
                field,
                MarkOn::Tile(c),
            ),
            None if expected.is_empty() => {}
            None => fail.push(format!(
                "markers on {label}: expected [{}], but it left the board",
                expected
                    .iter()
                    .map(|m| shown(m.0, m.1))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    for (hex, expected) in &s.expect.hex_markers {
        if let Some(c) = field.shape().cell(*hex) {
            let what = format!("markers on hex [{}, {}]", hex.q(), hex.r());
            compare_marks(fail, &what, expected, field, MarkOn::Hex(c));
        }
    }
    if let Some(expected) = &s.expect.links {
        let mut found: Vec<String> = field
            .links()
            .iter()
            .map(|l| {
                crate::file::link_shown(&l.kind.to_string(), field.shape().hexes_in(l.segments))
            })
            .collect();
        found.sort();
        if &found != expected {
            fail.push(format!(
                "linked units: expected [{}], found [{}]",
                expected.join("; "),
                found.join("; ")
            ));
        }
    }
    for (p, id, expected) in &s.expect.player_markers {
        compare_marks(
            fail,
            &format!("markers on {id}"),
            expected,
            field,
            MarkOn::Player(*p),
        );
    }
}

/// A marker as a failure shows it: its name, and its value when there is one to show.
fn shown(name: hexforge_core::marker::MarkerName, value: Option<i16>) -> String {
    match value {
        Some(v) => format!("{name} = {v}"),
        None => name.to_string(),
    }
}

/// Fails unless the markers on `on` are exactly the `expected` names, with the values given.
fn compare_marks(
    fail: &mut Vec<String>,
    what: &str,
    expected: &[ExpectedMarker],
    field: &Battlefield,
    on: MarkOn,
) {
    let found: Vec<_> = field.marks().iter().filter(|m| m.on == on).collect();
    let mut names: Vec<_> = expected.iter().map(|m| m.0).collect();
    names.sort_unstable();
    // The field keeps each place's markers sorted by name.
    let same = names.iter().copied().eq(found.iter().map(|m| m.name))
        && expected
            .iter()
            .all(|(n, v)| v.is_none_or(|v| found.iter().any(|m| m.name == *n && m.value == v)));
    if !same {
        let mut e: Vec<&ExpectedMarker> = expected.iter().collect();
        e.sort_unstable_by_key(|m| m.0);
        let wants_value = |n| expected.iter().any(|m| m.0 == n && m.1.is_some());
        fail.push(format!(
            "{what}: expected [{}], found [{}]",
            e.iter()
                .map(|m| shown(m.0, m.1))
                .collect::<Vec<_>>()
                .join(", "),
            found
                .iter()
                .map(|m| shown(m.name, wants_value(m.name).then_some(m.value)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
}

pub(crate) fn compare_sets(
    fail: &mut Vec<String>,
    what: &str,
    expected: &[String],
    found: &[&str],
) {
    let mut e: Vec<&str> = expected.iter().map(String::as_str).collect();
    let mut f = found.to_vec();
    e.sort_unstable();
    f.sort_unstable();
    if e != f {
        fail.push(format!(
            "{what}: expected [{}], found [{}]",
            e.join(", "),
            f.join(", ")
        ));
    }
}

/// Answers decisions from the scenario's `[[choice]]` tables; records the defaults it takes.
pub(crate) struct ScenarioDecider<'a> {
    pub(crate) choices: &'a [ChoiceSpec],
    pub(crate) used: &'a mut [bool],
    pub(crate) labels: &'a [Option<String>],
    pub(crate) defaults: &'a mut Vec<String>,
    /// Where a push step sends the pushed unit (the owner's pick, R5.3.3).
    pub(crate) push_to: Option<Cell>,
}

impl ScenarioDecider<'_> {
    fn label(&self, cell: Cell) -> String {
        self.labels[cell.index()]
            .clone()
            .unwrap_or_else(|| "?".to_string())
    }

    fn option_label(&self, c: &Choice) -> String {
        match *c {
            Choice::Attack => "attack".to_string(),
            Choice::Explode => "explode".to_string(),
            Choice::NoConversion => "none".to_string(),
            Choice::Convert { unit, edge } => format!("convert:{}:{edge}", self.label(unit)),
            Choice::Absorb { attacker } => format!("absorb:{}", self.label(attacker)),
            Choice::Save { unit } => format!("save:{}", self.label(unit)),
            Choice::Medic { medic } => format!("medic:{}", self.label(medic)),
            Choice::To { cell } => format!("to:{}", self.label(cell)),
        }
    }
}

impl Decider for ScenarioDecider<'_> {
    fn decide(&mut self, _field: &Battlefield, d: &Decision<'_>) -> usize {
        if let Some(to) = self.push_to
            && let Some(k) = d.options.iter().position(|o| *o == Choice::To { cell: to })
        {
            return k;
        }
        let by = self.label(d.by);
        let labels: Vec<String> = d.options.iter().map(|o| self.option_label(o)).collect();
        for (i, c) in self.choices.iter().enumerate() {
            if c.by != by {
                continue;
            }
            if let Some(k) = labels.iter().position(|l| l.eq_ignore_ascii_case(&c.pick)) {
                self.used[i] = true;
                return k;
            }
        }
        self.defaults.push(format!(
            "{by} took the default `{}` of [{}]",
            labels[0],
            labels.join(", ")
        ));
        0
    }
}
