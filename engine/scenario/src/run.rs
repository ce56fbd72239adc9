//! Running a scenario: build the battlefield, play its steps with the scenario's choices, then
//! compare the result with its expectations.

use crate::file::{ChoiceSpec, Scenario, Step};
use crate::log::Names;
use hexforge_core::battle::{self, Context};
use hexforge_core::battlefield::Outcome;
use hexforge_core::{Battlefield, Catalog, Cell, Choice, Decider, Decision, Event, NoAbilities};

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
    let cells: Vec<(String, Option<Cell>)> = s
        .tiles
        .iter()
        .map(|t| (t.label.clone(), field.shape().cell(t.hex)))
        .collect();
    let label_of = |c: Cell| {
        cells
            .iter()
            .find(|(_, x)| *x == Some(c))
            .map(|(l, _)| l.clone())
    };
    let initial = field.clone();
    let names = Names::new(&field, ctx, label_of, &s.player_ids);
    let mut decider = ScenarioDecider {
        choices: &s.choices,
        used: vec![false; s.choices.len()],
        label_of: &label_of,
        defaults: Vec::new(),
    };
    for step in &s.steps {
        match step {
            Step::Battle => {
                let mut events: Vec<Event> = Vec::new();
                battle::resolve(&mut field, ctx, &mut NoAbilities, &mut decider, &mut events);
                report
                    .log
                    .extend(events.iter().filter_map(|e| names.describe(e)));
            }
            Step::NotYetPlayable { action, line } => {
                refused(
                    &mut report,
                    s,
                    &format!(
                        "step `{action}` (line {line}) cannot be played yet: instants and moves come with whole-game rules"
                    ),
                );
                return report;
            }
        }
    }
    report.defaults = decider.defaults;
    for (i, c) in s.choices.iter().enumerate() {
        if !decider.used[i] {
            report.failures.push(format!(
                "choice on line {} (`{}` by `{}`) was never asked or matched no option",
                c.line, c.pick, c.by
            ));
        }
    }
    if let Some(e) = &s.expect.error {
        report.failures.push(format!("expected a step to be refused with an error containing \"{e}\", but every step was played"));
    }
    check(&mut report, s, &initial, &field, ctx, &cells);
    report
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
    initial: &Battlefield,
    field: &Battlefield,
    ctx: Context<'_>,
    cells: &[(String, Option<Cell>)],
) {
    let fail = &mut report.failures;
    let on_board = |label: &str| -> Option<Cell> {
        let (_, c) = cells.iter().find(|(l, _)| l == label)?;
        let c = (*c)?;
        let now = field.at(c)?;
        let then = initial.at(c)?;
        (now.tile == then.tile && now.owner == then.owner).then_some(c)
    };
    for (p, id, hp) in &s.expect.hq {
        let got = field.hq_hp(*p);
        if got != *hp {
            fail.push(format!("HQ of {id}: expected {hp} HP, found {got}"));
        }
    }
    if let Some(expected) = &s.expect.removed {
        let gone: Vec<&str> = cells
            .iter()
            .map(|(l, _)| l.as_str())
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
        let netted: Vec<&str> = cells
            .iter()
            .filter(|(l, _)| on_board(l).is_some_and(|c| mask & (1u64 << c.index()) != 0))
            .map(|(l, _)| l.as_str())
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
struct ScenarioDecider<'a, L: Fn(Cell) -> Option<String>> {
    choices: &'a [ChoiceSpec],
    used: Vec<bool>,
    label_of: &'a L,
    defaults: Vec<String>,
}

impl<L: Fn(Cell) -> Option<String>> ScenarioDecider<'_, L> {
    fn option_label(&self, c: &Choice) -> String {
        let l = |cell: Cell| (self.label_of)(cell).unwrap_or_else(|| "?".to_string());
        match *c {
            Choice::Attack => "attack".to_string(),
            Choice::Explode => "explode".to_string(),
            Choice::NoConversion => "none".to_string(),
            Choice::Convert { unit, edge } => format!("convert:{}:{edge}", l(unit)),
            Choice::Absorb { attacker } => format!("absorb:{}", l(attacker)),
            Choice::Save { unit } => format!("save:{}", l(unit)),
            Choice::Medic { medic } => format!("medic:{}", l(medic)),
        }
    }
}

impl<L: Fn(Cell) -> Option<String>> Decider for ScenarioDecider<'_, L> {
    fn decide(&mut self, _field: &Battlefield, d: &Decision<'_>) -> usize {
        let by = (self.label_of)(d.by).unwrap_or_default();
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
