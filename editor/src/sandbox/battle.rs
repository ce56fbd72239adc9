//! A test battle on the sandbox board: the engine resolves a copy of the board, and its events
//! are cut into steps (before the battle, each initiative phase, after the battle) with each
//! phase's board, attacks, wounds, absorbed wounds, removals and log lines; a step drawn over
//! the board ([`paint_step`]). The Play view cuts and draws a game's battles with the same code.

use hexforge_core::battle::{self, Context};
use hexforge_core::battlefield::Outcome;
use hexforge_core::marker::{MarkOn, MarkerName};
use hexforge_core::{
    AbilityHooks, AttackKind, Battlefield, Cell, DefaultPolicy, Edge, Event, Seat,
};
use hexforge_log::Names;
use hexforge_scenario::write::player_id;
use std::ops::Range;

/// An attack drawn on a phase: from the attacker's edge (its centre for an edgeless attack) to
/// the target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attack {
    /// The attacker's cell.
    pub from: Cell,
    /// The attacker's edge the attack leaves from (`None`: an attack with no edge).
    pub edge: Option<Edge>,
    /// Melee or ranged.
    pub kind: AttackKind,
    /// The cell attacked.
    pub target: Cell,
    /// The wounds the attack deals.
    pub wounds: u8,
}

/// One step of a battle as the sandbox shows it.
#[derive(Clone, Debug)]
pub struct Step {
    /// What the step is, e.g. `Phase 3` or `Before the battle`.
    pub title: String,
    /// The board when the step begins (for the last step: after the battle).
    pub field: Battlefield,
    /// The step's lines of the log.
    pub lines: Range<usize>,
    /// The attacks of the step, for their arrows.
    pub attacks: Vec<Attack>,
    /// Tiles wounded in the step, with their wounds then and whether they were destroyed.
    pub wounded: Vec<(Cell, u8, bool)>,
    /// Tiles whose wounds a Medic absorbed.
    pub absorbed: Vec<Cell>,
    /// Tiles that leave the board at the end of the step.
    pub removed: Vec<Cell>,
    /// HQ damage: the player, the damage and the HP left.
    pub hq: Vec<(Seat, u16, i32)>,
    /// Markers put (`true`) or taken off (`false`) in the step.
    pub marked: Vec<(MarkOn, MarkerName, bool)>,
}

impl Step {
    fn new(title: String, field: &Battlefield, first_line: usize) -> Step {
        Step {
            title,
            field: field.clone(),
            lines: first_line..first_line,
            attacks: Vec::new(),
            wounded: Vec::new(),
            absorbed: Vec::new(),
            removed: Vec::new(),
            hq: Vec::new(),
            marked: Vec::new(),
        }
    }
}

/// A resolved battle, stepped through by the designer.
#[derive(Clone, Debug)]
pub struct Run {
    /// The battle's steps: before it, each initiative phase, and after it.
    pub steps: Vec<Step>,
    /// The readable event log (`hexforge battle FILE`'s lines).
    pub log: Vec<String>,
    /// The board after the battle.
    pub after: Battlefield,
    /// The result, a line each: HQ HP of each player, removed tiles, the winner.
    pub result: Vec<String>,
    /// The step shown.
    pub at: usize,
    /// What a step is: `phase` for a battle, `step` for a scenario's steps.
    pub step_word: &'static str,
}

/// A scenario's run as the sandbox steps through it: the board before its first step, then
/// after each step played, each with the log lines of what the step did; the result is whether
/// its expectations held.
pub fn of_scenario(report: &hexforge_scenario::Report) -> Option<Run> {
    let last = report.frames.last()?;
    let mut from = 0;
    let steps = report
        .frames
        .iter()
        .map(|f| {
            let mut step = Step::new(f.title.clone(), &f.field, from);
            step.lines = from..f.log_end;
            from = f.log_end;
            step
        })
        .collect();
    let mut result = if report.passed() {
        vec!["Every expectation of the file holds.".to_string()]
    } else {
        report.failures.clone()
    };
    result.extend(report.defaults.iter().cloned());
    Some(Run {
        steps,
        log: report.log.clone(),
        after: last.field.clone(),
        result,
        at: 0,
        step_word: "step",
    })
}

/// Resolves a battle on a copy of `field` with the engine's default decisions; the error is a
/// failing ability script's. `armies[i]` is seat `i`'s army, named in the result.
pub fn run(
    field: &Battlefield,
    ctx: Context<'_>,
    hooks: &mut dyn AbilityHooks,
    armies: &[String],
) -> Result<Run, String> {
    let mut after = field.clone();
    let mut events: Vec<Event> = Vec::new();
    // The first battle of a scenario run draws from seed 0: a saved board gives the same battle.
    hooks.reseed(0);
    battle::resolve(&mut after, ctx, hooks, &mut DefaultPolicy, &mut events)
        .map_err(|e| format!("the battle stopped: {e}"))?;
    let ids: Vec<String> = field.players().map(player_id).collect();
    let names = Names::new(field, ctx, |_| None, &ids);
    let (mut steps, log) = cut(field, &events, |e, log| {
        if let Some(line) = names.describe(e) {
            log.push(line);
        }
    });
    if let Some(last) = steps.last_mut() {
        last.field = after.clone();
    }
    let result = result_lines(field, &after, armies, &names);
    Ok(Run {
        steps,
        log,
        after,
        result,
        at: 0,
        step_word: "phase",
    })
}

/// Cuts the events of a battle (or of a game action that fought one) into the steps the
/// sandbox shows: before the battle (the board `before` the events), each initiative phase, and
/// after the battle; `tell` adds the log lines of an event. Gives the steps and the log.
pub fn cut(
    before: &Battlefield,
    events: &[Event],
    mut tell: impl FnMut(&Event, &mut Vec<String>),
) -> (Vec<Step>, Vec<String>) {
    let mut log = Vec::new();
    let mut now = before.clone();
    let mut steps = vec![Step::new("Before the battle".to_string(), &now, 0)];
    for e in events {
        if let Event::PhaseStarted { phase } = *e {
            steps.push(Step::new(format!("Phase {phase}"), &now, log.len()));
        }
        if let Event::BattleEnded = e {
            // The battle's end, and what follows it (the next turn's draws), are told with the
            // board after it.
            steps.push(Step::new("After the battle".to_string(), &now, log.len()));
        }
        tell(e, &mut log);
        now.apply(e);
        let Some(step) = steps.last_mut() else {
            continue;
        };
        step.lines.end = log.len();
        match *e {
            Event::Attack {
                from,
                edge,
                kind,
                target,
                wounds,
                ..
            } => step.attacks.push(Attack {
                from,
                edge,
                kind,
                target,
                wounds,
            }),
            Event::Wounded {
                cell,
                total,
                destroyed,
                ..
            } => step.wounded.push((cell, total, destroyed)),
            Event::Absorbed { target, .. } => step.absorbed.push(target),
            Event::Removed { cell, .. } | Event::Lifted { cell, .. } => step.removed.push(cell),
            Event::HqDamaged { player, amount, hp } => step.hq.push((player, amount, hp)),
            Event::Marked { mark } => step.marked.push((mark.on, mark.name, true)),
            Event::Unmarked { on, name } => step.marked.push((on, name, false)),
            _ => {}
        }
    }
    match steps.last_mut() {
        Some(last) if last.title == "After the battle" => last.field = now,
        _ => {
            let mut last = Step::new("After the battle".to_string(), &now, log.len());
            last.lines = log.len()..log.len();
            steps.push(last);
        }
    }
    (steps, log)
}

/// What the battle left: each player's HQ HP, the tiles removed, and the winner if destroyed HQs
/// decide the game (the engine's outcome).
fn result_lines(
    before: &Battlefield,
    after: &Battlefield,
    armies: &[String],
    names: &Names,
) -> Vec<String> {
    let mut lines: Vec<String> = after
        .players()
        .map(|p| {
            let army = armies.get(p.index()).map_or("", String::as_str);
            format!("{} ({army}): HQ {} HP", player_id(p), after.hq_hp(p))
        })
        .collect();
    let removed: Vec<String> = before
        .tiles()
        .filter(|(c, t)| {
            after
                .at(*c)
                .is_none_or(|now| now.tile != t.tile || now.owner != t.owner)
        })
        .map(|(c, _)| names.name(c))
        .collect();
    lines.push(if removed.is_empty() {
        "Removed: none".to_string()
    } else {
        format!("Removed: {}", removed.join(", "))
    });
    lines.push(match after.outcome() {
        Outcome::Ongoing => "Winner: none yet, the game goes on".to_string(),
        Outcome::Draw => "Winner: none, a draw".to_string(),
        Outcome::Won { team } => {
            let who: Vec<String> = after
                .players()
                .filter(|p| after.team(*p) == team)
                .map(player_id)
                .collect();
            format!("Winner: {}", who.join(" and "))
        }
    });
    lines
}

/// A battle step's overlays: attacks, wounds, absorbed wounds, removals, HQ damage and the
/// markers put (`+ name`) or taken off (`- name`).
pub fn paint_step(
    painter: &egui::Painter,
    layout: &crate::board_view::Layout,
    step: &Step,
    catalog: &hexforge_core::Catalog,
) {
    let field = &step.field;
    let size = layout.radius * 0.2;
    for (cell, total, destroyed) in &step.wounded {
        let h = field.shape().hex(*cell);
        let c = egui::Color32::from_rgb(255, 80, 80);
        crate::board_view::outline(painter, layout, h, egui::Stroke::new(3.0, c));
        let plural = if *total == 1 { "" } else { "s" };
        let text = if *destroyed {
            format!("destroyed ({total} wound{plural})")
        } else {
            format!("{total} wound{plural}")
        };
        crate::board_view::label(
            painter,
            layout.centre(h) + egui::vec2(0.0, layout.radius * 0.6),
            &text,
            size,
            c,
        );
    }
    for cell in &step.absorbed {
        let h = field.shape().hex(*cell);
        let c = egui::Color32::from_rgb(90, 200, 255);
        crate::board_view::outline(painter, layout, h, egui::Stroke::new(3.0, c));
        crate::board_view::label(
            painter,
            layout.centre(h) + egui::vec2(0.0, layout.radius * 0.35),
            "absorbed",
            size,
            c,
        );
    }
    for cell in &step.removed {
        let h = field.shape().hex(*cell);
        let c = egui::Color32::from_rgb(255, 40, 40);
        let corners = layout.corners(h);
        let cross = egui::Stroke::new(3.0, c.gamma_multiply(0.6));
        painter.line_segment([corners[0], corners[3]], cross);
        painter.line_segment([corners[1], corners[4]], cross);
        crate::board_view::label(painter, layout.centre(h), "removed", size * 1.2, c);
    }
    let mut told: Vec<(hexforge_core::Hex, f32)> = Vec::new();
    for (on, name, put) in &step.marked {
        let hex = match *on {
            hexforge_core::marker::MarkOn::Tile(c) | hexforge_core::marker::MarkOn::Hex(c) => {
                Some(field.shape().hex(c))
            }
            hexforge_core::marker::MarkOn::Player(p) => {
                field.hq_cell(p, catalog).map(|c| field.shape().hex(c))
            }
        };
        let Some(h) = hex else {
            continue;
        };
        // Several markers on one hex stack upwards from its top.
        let k = told.iter().filter(|(t, _)| *t == h).count() as f32;
        told.push((h, k));
        let colour = if *put {
            egui::Color32::from_rgb(120, 255, 140)
        } else {
            egui::Color32::from_rgb(255, 150, 150)
        };
        let sign = if *put { "+" } else { "-" };
        crate::board_view::label(
            painter,
            layout.centre(h) - egui::vec2(0.0, layout.radius * (0.75 + 0.28 * k)),
            &format!("{sign} {name}"),
            size,
            colour,
        );
    }
    for a in &step.attacks {
        let text = format!("{}", a.wounds);
        crate::board_view::paint_attack(
            painter,
            layout,
            field,
            (a.from, a.edge, a.kind, a.target),
            &text,
        );
    }
    for (player, amount, hp) in &step.hq {
        if let Some(c) = field.hq_cell(*player, catalog) {
            let h = field.shape().hex(c);
            let colour = egui::Color32::from_rgb(255, 220, 90);
            crate::board_view::outline(painter, layout, h, egui::Stroke::new(4.0, colour));
            crate::board_view::label(
                painter,
                layout.centre(h) + egui::vec2(0.0, layout.radius * 0.6),
                &format!("HQ -{amount}: {hp} HP"),
                size,
                colour,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::{
        BoardShape, Catalog, Dir, Hex, Initiative, NoAbilities, PlayerSetup, Rules, Setup, Tile,
        TileKind, TileSetup,
    };

    #[test]
    fn a_battle_is_cut_into_phases_with_its_attacks() {
        let mut cat = Catalog::new();
        let mut hq = Tile::new("x", "hq", TileKind::Hq);
        hq.initiative = Initiative::new(&[0]).expect("a valid initiative");
        let mut brute = Tile::new("x", "brute", TileKind::Soldier);
        brute.initiative = Initiative::new(&[2]).expect("a valid initiative");
        brute.edges[0].melee = 2;
        cat.add_army("x", "X", 35, vec![hq, brute])
            .expect("a valid army");
        let hq = cat.find("x/hq").expect("hq");
        let brute = cat.find("x/brute").expect("brute");
        let tile = |tile, owner: u8, q, r| TileSetup {
            tile,
            owner: Seat::new(owner),
            hex: Hex::new(q, r),
            facing: Dir::N,
            wounds: 0,
        };
        let setup = Setup {
            shape: BoardShape::standard(),
            players: vec![
                PlayerSetup { team: 0, hq_hp: 20 },
                PlayerSetup { team: 1, hq_hp: 20 },
            ],
            tiles: vec![tile(hq, 0, 0, 1), tile(hq, 1, 0, -1), tile(brute, 0, 0, 0)],
        };
        let field = Battlefield::new(setup, &cat).expect("legal");
        let rules = Rules::default();
        let ctx = Context {
            catalog: &cat,
            rules: &rules,
        };
        let run = run(&field, ctx, &mut NoAbilities, &["x".into(), "x".into()]).expect("resolved");
        let titles: Vec<&str> = run.steps.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles.first(), Some(&"Before the battle"));
        assert_eq!(titles.last(), Some(&"After the battle"));
        let phase2 = run
            .steps
            .iter()
            .find(|s| s.title == "Phase 2")
            .expect("the brute's phase");
        assert_eq!(phase2.attacks.len(), 1);
        assert_eq!(
            phase2.attacks[0].target,
            field.shape().cell(Hex::new(0, -1)).expect("cell")
        );
        assert_eq!(phase2.hq, vec![(Seat::new(1), 2, 18)]);
        assert!(
            run.log[phase2.lines.clone()]
                .iter()
                .any(|l| l.contains("brute"))
        );
        assert!(
            run.result.contains(&"p2 (x): HQ 18 HP".to_string()),
            "{:?}",
            run.result
        );
        assert!(run.result.contains(&"Removed: none".to_string()));
        assert_eq!(run.after.hq_hp(Seat::new(1)), 18);
    }
}
