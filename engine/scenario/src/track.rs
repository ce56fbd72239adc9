//! What a run follows by label: the labelled tiles on the board as steps move them, the engine
//! play a step names by labels, and the decider that answers from the `[[choice]]` tables.

use crate::file::{ChoiceSpec, PlayStep, Scenario};
use hexforge_core::{
    Battlefield, Cell, Choice, Decider, Decision, Hex, MAX_CELLS, Play, Seat, TileRef,
};

/// A labelled tile and where it is: `cell` is `None` until a step places it.
pub(crate) struct Tracked {
    /// Its label.
    pub(crate) label: String,
    /// The cell it stands on.
    pub(crate) cell: Option<Cell>,
    /// The tile and its owner once on the board, to tell it from a tile that took its place.
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

/// Answers decisions from the scenario's `[[choice]]` tables; records the defaults it takes.
pub(crate) struct ScenarioDecider<'a> {
    /// The scenario's answers.
    pub(crate) choices: &'a [ChoiceSpec],
    /// Which answers were taken, one per choice.
    pub(crate) used: &'a mut [bool],
    /// The label of the tile on each cell ([`labels`]).
    pub(crate) labels: &'a [Option<String>],
    /// The decisions left to their default, worded for the report.
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
            Choice::Facing { facing } => format!("facing:{}", facing.index()),
        }
    }
}

impl Decider for ScenarioDecider<'_> {
    fn decide(&mut self, field: &Battlefield, d: &Decision<'_>) -> usize {
        if let Some(to) = self.push_to
            && let Some(k) = d.options.iter().position(|o| *o == Choice::To { cell: to })
        {
            return k;
        }
        // A tile put down by a rule stands nowhere yet: its hex names the decision.
        let by = if d.question == hexforge_core::Question::Facing {
            field.shape().hex(d.by).to_string()
        } else {
            self.label(d.by)
        };
        let labels: Vec<String> = d.options.iter().map(|o| self.option_label(o)).collect();
        let squeeze = |t: &str| t.replace(' ', "");
        for (i, c) in self.choices.iter().enumerate() {
            if c.by != by && squeeze(&c.by) != squeeze(&by) {
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
