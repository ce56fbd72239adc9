//! What a run reports: the [`Report`], a refused step against `expect.error`, the choices never
//! used, and the board afterwards checked against `[expect]`.

use crate::file::{ExpectedMarker, Scenario, link_shown};
use crate::track::Tracked;
use hexforge_core::battle::{self, Context};
use hexforge_core::marker::{MarkOn, MarkerName};
use hexforge_core::{Battlefield, Cell};

/// The result of running one scenario: what failed, the defaults taken and the log.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Every expectation that did not hold, worded for the reader; empty when the scenario passed.
    pub failures: Vec<String>,
    /// Decisions left to the engine's default, as the format requires them to be shown.
    pub defaults: Vec<String>,
    /// The events of the run, one readable line each.
    pub log: Vec<String>,
    /// The board before the first step and after each step played, to step through.
    pub frames: Vec<Frame>,
}

/// The board at one point of a scenario's run (the editor's sandbox steps through them).
#[derive(Clone, Debug)]
pub struct Frame {
    /// Where the run is: `Before the first step`, `After step 2 of 5`.
    pub title: String,
    /// The board then.
    pub field: Battlefield,
    /// How many lines of [`Report::log`] the run had written by then.
    pub log_end: usize,
}

impl Frame {
    /// The frame of the board `field` after `done` of `total` steps, with `log_end` lines told.
    pub(crate) fn after(done: usize, total: usize, field: &Battlefield, log_end: usize) -> Frame {
        Frame {
            title: if done == 0 {
                "Before the first step".to_string()
            } else {
                format!("After step {done} of {total}")
            },
            field: field.clone(),
            log_end,
        }
    }
}

impl Report {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
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

/// Notes a refused step: the log's last line, and a failure unless `expect.error` expects its
/// message.
pub(crate) fn refused(report: &mut Report, s: &Scenario, message: &str) {
    // The log ends with the refusal, whether the file expected it or not.
    report.log.push(format!("Refused: {message}"));
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

/// Checks the board afterwards against the expectations every scenario may have (HQs,
/// removed, wounds, netted, positions, markers, linked units), noting each that does not hold.
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
            .map(|l| link_shown(&l.kind.to_string(), field.shape().hexes_in(l.segments)))
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
fn shown(name: MarkerName, value: Option<i16>) -> String {
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

/// Fails unless `found` holds exactly the `expected` names, in any order.
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
