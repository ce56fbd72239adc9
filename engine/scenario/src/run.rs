//! Running a scenario: build the battlefield, play its steps with the scenario's choices, then
//! compare the result with its expectations.

use crate::file::{ChoiceSpec, PlayStep, Scenario, Step};
use crate::log::Names;
use hexforge_core::battle::{self, Context};
use hexforge_core::battlefield::Outcome;
use hexforge_core::{
    Battlefield, Catalog, Cell, Choice, Decider, Decision, Event, Hex, MAX_CELLS, NoAbilities,
    Play, Player, TileRef, resolve_play,
};

/// What running one scenario gave.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub failures: Vec<String>,
    /// Decisions left to the engine's default, as the format requires them to be shown.
    pub defaults: Vec<String>,
    /// The readable event log.
    pub log: Vec<String>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// A labelled tile and where it is: `cell` is `None` until a step places it.
struct Tracked {
    label: String,
    cell: Option<Cell>,
    tile: Option<(TileRef, Player)>,
}

/// Runs a validated scenario.
pub fn run_scenario(s: &Scenario, catalog: &Catalog) -> Report {
    let mut report = Report::default();
    let ctx = Context {
        catalog,
        rules: &s.rules,
    };
    let mut field = match Battlefield::new(s.setup.clone(), catalog) {
        Ok(f) => f,
        Err(e) => {
            refused(&mut report, s, &e.to_string());
            return report;
        }
    };
    let mut tracked: Vec<Tracked> = s
        .tiles
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
        .collect();
    let labels = |tracked: &[Tracked]| {
        let mut by_cell = vec![None; MAX_CELLS];
        for t in tracked {
            if let Some(c) = t.cell {
                by_cell[c.index()] = Some(t.label.clone());
            }
        }
        by_cell
    };
    let by_cell = labels(&tracked);
    let mut names = Names::new(&field, ctx, |c| by_cell[c.index()].clone(), &s.player_ids);
    let mut used = vec![false; s.choices.len()];
    let mut defaults = Vec::new();
    let mut turn: Option<Player> = None;
    let mut moved: Vec<String> = Vec::new();
    for step in &s.steps {
        // Steps of one player in a row are one turn (Mobility is once per unit per turn, Q13); a step
        // of another player starts a new turn, and a Battle ends the turn (R4.2).
        let by = match step {
            Step::Place { by, .. } | Step::Play { by, .. } => Some(*by),
            Step::Battle => None,
        };
        if by.is_none() || turn != by {
            turn = by;
            moved.clear();
        }
        let battle = match step {
            Step::Battle => true,
            Step::Place {
                by,
                tile,
                label,
                hex,
                facing,
                line,
            } => {
                let event = match field.check_place(catalog, *by, *tile, *hex, *facing) {
                    Ok(e) => e,
                    Err(e) => {
                        refused(&mut report, s, &format!("place (line {line}): {e}"));
                        return report;
                    }
                };
                field.apply(&event);
                if let Some(t) = tracked.iter_mut().find(|t| t.label == *label)
                    && let Event::Placed {
                        cell, tile, owner, ..
                    } = event
                {
                    t.cell = Some(cell);
                    t.tile = Some((tile, owner));
                    names.placed(&field, ctx, cell, label);
                    report.log.extend(names.describe(&event));
                }
                // R4.11.1: a full play area starts a battle at once.
                field.main_area_full()
            }
            Step::Play { by, play, line } => {
                let at = |label: &str| -> Result<Hex, String> {
                    let t = tracked
                        .iter()
                        .find(|t| t.label == label)
                        .ok_or_else(|| format!("no tile `{label}`"))?;
                    t.cell
                        .filter(|c| field.at(*c).map(|p| (p.tile, p.owner)) == t.tile)
                        .map(|c| field.shape().hex(c))
                        .ok_or_else(|| format!("`{label}` is not on the board any more"))
                };
                match play_of(play, at) {
                    Err(msg) => {
                        refused(
                            &mut report,
                            s,
                            &format!("{} (line {line}): {msg}", step_name(play)),
                        );
                        return report;
                    }
                    // A Battle instant (R5.1).
                    Ok(None) => true,
                    Ok(Some(core)) => {
                        if let PlayStep::Move {
                            unit,
                            instant: false,
                            ..
                        } = play
                            && moved.contains(unit)
                        {
                            refused(
                                &mut report,
                                s,
                                &format!(
                                    "move: `{unit}` has already used its Mobility this turn (R3.13, Q13)"
                                ),
                            );
                            return report;
                        }
                        let by_cell = labels(&tracked);
                        let mut decider = ScenarioDecider {
                            choices: &s.choices,
                            used: &mut used,
                            labels: &by_cell,
                            defaults: &mut defaults,
                        };
                        let mut events: Vec<Event> = Vec::new();
                        if let Err(e) =
                            resolve_play(&mut field, ctx, *by, &core, &mut decider, &mut events)
                        {
                            refused(&mut report, s, &e.to_string());
                            return report;
                        }
                        for e in &events {
                            report.log.extend(names.describe(e));
                            names.follow(e);
                            if let Event::Moved { from, to, .. } = *e
                                && let Some(t) = tracked.iter_mut().find(|t| t.cell == Some(from))
                            {
                                t.cell = Some(to);
                            }
                        }
                        if let PlayStep::Move {
                            unit,
                            instant: false,
                            ..
                        } = play
                        {
                            moved.push(unit.clone());
                        }
                        false
                    }
                }
            }
        };
        if battle {
            turn = None;
            moved.clear();
            let by_cell = labels(&tracked);
            let mut decider = ScenarioDecider {
                choices: &s.choices,
                used: &mut used,
                labels: &by_cell,
                defaults: &mut defaults,
            };
            let mut events: Vec<Event> = Vec::new();
            battle::resolve(&mut field, ctx, &mut NoAbilities, &mut decider, &mut events);
            report
                .log
                .extend(events.iter().filter_map(|e| names.describe(e)));
        }
    }
    report.defaults = defaults;
    for (i, c) in s.choices.iter().enumerate() {
        if !used[i] {
            report.failures.push(format!(
                "choice on line {} (`{}` by `{}`) was never asked or matched no option",
                c.line, c.pick, c.by
            ));
        }
    }
    if let Some(e) = &s.expect.error {
        report.failures.push(format!("expected a step to be refused with an error containing \"{e}\", but every step was played"));
    }
    check(&mut report, s, &field, ctx, &tracked);
    report
}

/// The engine play of a step, with labels turned into hexes; `None` for a Battle instant.
fn play_of(
    step: &PlayStep,
    at: impl Fn(&str) -> Result<Hex, String>,
) -> Result<Option<Play>, String> {
    Ok(Some(match step {
        PlayStep::Battle => return Ok(None),
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

fn step_name(step: &PlayStep) -> &'static str {
    match step {
        PlayStep::Battle => "battle",
        PlayStep::Move { .. } => "move",
        PlayStep::Push { .. } => "push",
        PlayStep::Wound { .. } => "sniper",
        PlayStep::DestroyNearHq { .. } => "grenade",
        PlayStep::Area { .. } => "air strike",
    }
}

fn refused(report: &mut Report, s: &Scenario, message: &str) {
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

fn check(
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
    if let Some(w) = &s.expect.winner {
        let got = match field.outcome() {
            Outcome::Ongoing => "nobody yet (the game goes on)".to_string(),
            Outcome::Draw => "draw".to_string(),
            Outcome::Won { team } => {
                let winners: Vec<&str> = field
                    .players()
                    .filter(|p| field.team(*p) == team)
                    .map(|p| s.player_ids[p.index()].as_str())
                    .collect();
                if winners.contains(&w.as_str()) {
                    w.clone()
                } else {
                    winners.join(" and ")
                }
            }
        };
        if got != *w {
            fail.push(format!("winner: expected {w}, found {got}"));
        }
    }
}

fn compare_sets(fail: &mut Vec<String>, what: &str, expected: &[String], found: &[&str]) {
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
struct ScenarioDecider<'a> {
    choices: &'a [ChoiceSpec],
    used: &'a mut [bool],
    labels: &'a [Option<String>],
    defaults: &'a mut Vec<String>,
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
        }
    }
}

impl Decider for ScenarioDecider<'_> {
    fn decide(&mut self, _field: &Battlefield, d: &Decision<'_>) -> usize {
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
