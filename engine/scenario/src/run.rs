//! Running a scenario: build the battlefield, play its steps with the scenario's choices, then
//! compare the result with its expectations; a scenario of a game in progress is handed to the
//! `game` module.

use crate::file::{PlayStep, Scenario, Step};
use crate::report::{Frame, Report, check, refused, unused_choices, winners};
use crate::track::{ScenarioDecider, Tracked, labels, play_of, scripted_target, tracked};
use hexforge_core::battle::{self, Context};
use hexforge_core::battlefield::Outcome;
use hexforge_core::{
    AbilityHooks, Battlefield, Catalog, Event, Hex, Play, Seat, Turn, resolve_play,
};
use hexforge_log::Names;

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
    let total = s.steps.len();
    report
        .frames
        .push(Frame::after(0, total, &run.field, run.log.len()));
    for (i, step) in s.steps.iter().enumerate() {
        if let Err(message) = run.step(step) {
            report.log = run.log;
            refused(&mut report, s, &message);
            return report;
        }
        report
            .frames
            .push(Frame::after(i + 1, total, &run.field, run.log.len()));
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

/// The first seed of the scripted instants a plain scenario board plays (the battles' seeds count
/// up from 0).
const INSTANT_SEEDS: u64 = 1 << 32;

/// The state of a scenario between its steps.
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
        let battle = match step {
            Step::Battle => true,
            // Parsing refuses the steps of a game in progress on a board without `[game]`.
            Step::Discard { .. }
            | Step::Redraw { .. }
            | Step::EndTurn { .. }
            | Step::Rule { .. } => {
                unreachable!("a step of a game in progress on a board without `[game]`")
            }
            Step::Place {
                by,
                tile,
                label,
                hex,
                facing,
                line,
            } => {
                self.turn_of(*by);
                let event = self
                    .field
                    .check_place(self.ctx.catalog, *by, *tile, *hex, *facing)
                    .map_err(|e| format!("place (line {line}): {e}"))?;
                // A tile that leads a linked unit (`[tile.linked]`) brings its parts, as when a
                // player places it from the hand.
                let assembled = match event {
                    Event::Placed { cell, .. } => self
                        .field
                        .assemble(self.ctx.catalog, *by, *tile, cell, *facing)
                        .map_err(|e| {
                            format!(
                                "place (line {line}): `{}` cannot go down there: {}",
                                self.ctx.catalog.get(*tile).full_id(),
                                e.describe(self.ctx.catalog)
                            )
                        })?,
                    _ => None,
                };
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
                if let Some(a) = assembled {
                    for (cell, part) in a.parts {
                        let joined = Event::Joined {
                            cell,
                            tile: part,
                            owner: *by,
                            facing: *facing,
                        };
                        self.field.apply(&joined);
                        self.names.follow(&joined);
                        self.log.extend(self.names.describe(&joined));
                    }
                    self.field.apply(&a.link);
                    self.log.extend(self.names.describe(&a.link));
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
                self.turn_of(*by);
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
                self.turn_of(*by);
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

    /// Steps of one player in a row are one turn: a step of another player starts a new one.
    fn turn_of(&mut self, by: Seat) {
        if self.turn.map(|t| t.player()) != Some(by) {
            self.turn = Some(Turn::new(by));
        }
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
