//! The `[[step]]` tables, each read by its kind (`do`) and checked field by field, and the
//! `[[choice]]` tables that answer the decisions the steps raise.

use super::def::{ChoiceDef, StepDef};
use super::read::{Labels, PlayerIds, Reader, resolve_tile, unknown_tile};
use super::scenario::{ChoiceSpec, Labelled, PlayStep, Step};
use hexforge_core::names::did_you_mean;
use hexforge_core::tile::{GameRule, InstantEffect};
use hexforge_core::{Catalog, Dir, Hex, Seat};
use std::ops::Range;
use toml::Spanned;

/// The kinds of step a scenario may have, as messages list them.
const STEP_KINDS: &str = "battle, place, move, push, sniper, grenade, air_strike, instant, discard, redraw, end_turn, rule";

/// What every step is read against: the players, the loaded tiles and whether the file is a game
/// in progress.
pub(super) struct Context<'c> {
    /// The players' ids.
    pub(super) ids: PlayerIds<'c>,
    /// The loaded tiles and game rules.
    pub(super) catalog: &'c Catalog,
    /// Whether the file has a `[game]` table.
    pub(super) game_mode: bool,
}

/// Reads the steps in file order; a board without `[game]` and without steps fights one battle.
pub(super) fn read(
    r: &mut Reader<'_>,
    defs: &[Spanned<StepDef>],
    cx: &Context<'_>,
    labels: &mut Labels,
) -> Vec<Step> {
    let mut steps = Vec::new();
    for st in defs {
        let Some(action) = kind(r, st) else { continue };
        let line = r.line(action.span());
        let mut f = StepFields {
            r: &mut *r,
            fields: st.get_ref(),
            action: &action,
        };
        let step = match action.get_ref().as_str() {
            "battle" => battle(&mut f, cx, line),
            "discard" | "redraw" | "end_turn" => turn_step(&mut f, cx, line),
            "rule" => rule(&mut f, cx, labels, line),
            "place" => place(&mut f, cx, labels, line),
            "move" | "push" | "sniper" | "grenade" | "air_strike" | "instant" => {
                play(&mut f, cx, labels, line)
            }
            other => {
                f.error(
                    action.span(),
                    format!(
                        "unknown step `{other}`{}: use battle, place, move, push, sniper, grenade, air_strike, instant, or in a game discard, redraw, end_turn, rule",
                        did_you_mean(other, STEP_KINDS.split(", "))
                    ),
                );
                None
            }
        };
        steps.extend(step);
    }
    if steps.is_empty() && !cx.game_mode {
        steps.push(Step::Battle);
    }
    steps
}

/// The kind of a step (its `do`), or a located error.
fn kind(r: &mut Reader<'_>, st: &Spanned<StepDef>) -> Option<Spanned<String>> {
    match st.get_ref().get("do") {
        Some(v) => match v.get_ref() {
            toml::Value::String(a) => Some(Spanned::new(v.span(), a.clone())),
            _ => {
                r.err(
                    v.span(),
                    "`do` must be a string naming the step, e.g. \"battle\"",
                );
                None
            }
        },
        None => {
            r.err(st.span(), "a `[[step]]` needs `do`, e.g. `do = \"battle\"`");
            None
        }
    }
}

/// `do = "battle"`: a battle on the board as it stands, or in a game a Battle tile played by `by`.
fn battle(f: &mut StepFields<'_, '_>, cx: &Context<'_>, line: usize) -> Option<Step> {
    if !cx.game_mode {
        f.only(&["do"]);
        return Some(Step::Battle);
    }
    f.only(&["do", "by"]);
    let by = f.player("by", &cx.ids)?;
    Some(Step::Play {
        by,
        play: PlayStep::Battle,
        name: "battle".into(),
        tile: None,
        line,
    })
}

/// `discard`, `redraw` and `end_turn`: steps of a game in progress, by the player whose turn it is.
fn turn_step(f: &mut StepFields<'_, '_>, cx: &Context<'_>, line: usize) -> Option<Step> {
    if !cx.game_mode {
        f.error(
            f.action.span(),
            format!(
                "`{}` is a step of a game in progress: add a `[game]` table",
                f.action.get_ref()
            ),
        );
    }
    let by = f.player("by", &cx.ids);
    let step = match f.action.get_ref().as_str() {
        "discard" => {
            f.only(&["do", "by", "tile"]);
            let tile = f.tile("tile", cx.catalog).map(|(t, _)| t);
            by.zip(tile)
                .map(|(by, tile)| Step::Discard { by, tile, line })
        }
        "redraw" => {
            f.only(&["do", "by"]);
            by.map(|by| Step::Redraw { by, line })
        }
        _ => {
            f.only(&["do", "by"]);
            by.map(|by| Step::EndTurn { by, line })
        }
    };
    step.filter(|_| cx.game_mode)
}

/// `do = "rule"`: an action of a mod's game rule, in a game in progress; a tile it puts on the
/// board may take a `label`.
fn rule(
    f: &mut StepFields<'_, '_>,
    cx: &Context<'_>,
    labels: &mut Labels,
    line: usize,
) -> Option<Step> {
    if !cx.game_mode {
        f.error(
            f.action.span(),
            "`rule` is a step of a game in progress: add a `[game]` table".to_string(),
        );
    }
    f.only(&[
        "do", "by", "rule", "action", "at", "facing", "tile", "label",
    ]);
    let label = f.optional_string("label");
    let tile = f.optional_string("tile").and_then(|name| {
        let t = resolve_tile(cx.catalog, &name);
        if t.is_none() {
            let span = f.fields.get("tile").map_or(f.action.span(), |v| v.span());
            f.error(span, unknown_tile(cx.catalog, &name));
        }
        t
    });
    let by = f.player("by", &cx.ids);
    let facing = f.optional_facing("facing");
    let (rule, action, name) = rule_action(cx.catalog, f)?;
    let at = match f.fields.contains_key("at") {
        true => Some(f.hex("at")?),
        false => None,
    };
    if !cx.game_mode {
        return None;
    }
    let by = by?;
    if let Some(l) = &label {
        if labels.has(l) {
            f.error(
                f.action.span(),
                format!("label `{l}` is used twice: give the placed tile another `label`"),
            );
        }
        labels.list.push(Labelled {
            label: l.clone(),
            hex: at.unwrap_or(Hex::new(0, 0)),
            at_start: false,
        });
    }
    Some(Step::Rule {
        by,
        rule,
        action,
        at,
        facing,
        tile,
        label,
        name,
        line,
    })
}

/// `do = "place"`: a board tile put on an empty hex, labelled for the steps after it.
fn place(
    f: &mut StepFields<'_, '_>,
    cx: &Context<'_>,
    labels: &mut Labels,
    line: usize,
) -> Option<Step> {
    f.only(&["do", "by", "tile", "label", "at", "facing"]);
    let by = f.player("by", &cx.ids);
    let tile = f.tile("tile", cx.catalog);
    let hex = f.hex("at");
    let facing = f.facing("facing");
    let label = f.optional_string("label");
    let (by, (tile, name), hex) = (by?, tile?, hex?);
    let label = label.unwrap_or_else(|| labels.unnamed(&name));
    if labels.has(&label) {
        f.error(
            f.action.span(),
            format!("label `{label}` is used twice: give the placed tile a `label`"),
        );
    }
    labels.list.push(Labelled {
        label: label.clone(),
        hex,
        at_start: false,
    });
    Some(Step::Place {
        by,
        tile,
        label,
        hex,
        facing,
        line,
    })
}

/// The steps that play: a Mobility move or an instant, on tiles named by the labels so far.
fn play(
    f: &mut StepFields<'_, '_>,
    cx: &Context<'_>,
    labels: &Labels,
    line: usize,
) -> Option<Step> {
    let known: Vec<String> = labels.list.iter().map(|l| l.label.clone()).collect();
    let by = f.player("by", &cx.ids);
    let kind = f.action.get_ref().as_str();
    let play = match kind {
        "move" => {
            f.only(&["do", "by", "unit", "to", "facing", "instant"]);
            move_step(f, &known)
        }
        "push" => {
            f.only(&["do", "by", "pusher", "target", "to"]);
            push_step(f, &known)
        }
        "sniper" => {
            f.only(&["do", "by", "target"]);
            f.label("target", &known)
                .map(|target| PlayStep::Wound { target, wounds: 1 })
        }
        "grenade" => {
            f.only(&["do", "by", "target"]);
            f.label("target", &known)
                .map(|target| PlayStep::DestroyNearHq { target })
        }
        "air_strike" => {
            f.only(&["do", "by", "at"]);
            f.hex("at").map(|at| PlayStep::Area {
                at,
                wounds: 1,
                radius: 1,
            })
        }
        _ => instant_step(f, cx.catalog, &known),
    };
    // An `instant` step names its tile, and is named after it.
    let named = (kind == "instant")
        .then(|| f.fields.get("tile").and_then(|t| t.get_ref().as_str()))
        .flatten();
    let tile = named.and_then(|t| resolve_tile(cx.catalog, t));
    let name = match named {
        Some(t) => t.rsplit('/').next().unwrap_or("instant"),
        None if kind == "instant" => "instant",
        None => kind,
    };
    Some(Step::Play {
        by: by?,
        play: play?,
        name: name.replace('_', " "),
        tile,
        line,
    })
}

/// A Mobility move, or the Move instant with `instant = true`.
fn move_step(f: &mut StepFields<'_, '_>, known: &[String]) -> Option<PlayStep> {
    let unit = f.label("unit", known);
    let to = f.hex("to");
    let facing = f.optional_facing("facing");
    let instant = f.optional_bool("instant").unwrap_or(false);
    Some(PlayStep::Move {
        unit: unit?,
        to: to?,
        facing,
        instant,
    })
}

/// The Push instant: `pusher` pushes `target` to `to`.
fn push_step(f: &mut StepFields<'_, '_>, known: &[String]) -> Option<PlayStep> {
    let pusher = f.label("pusher", known);
    let target = f.label("target", known);
    let to = f.hex("to");
    Some(PlayStep::Push {
        pusher: pusher?,
        target: target?,
        to: to?,
    })
}

/// `do = "instant"`: any instant tile, read by its effect (docs/ARMY_FORMAT.md).
fn instant_step(
    f: &mut StepFields<'_, '_>,
    catalog: &Catalog,
    known: &[String],
) -> Option<PlayStep> {
    let (name, span) = f.string("tile")?;
    let Some(effect) = resolve_tile(catalog, &name).and_then(|t| catalog.get(t).instant) else {
        f.error(
            span,
            match resolve_tile(catalog, &name) {
                Some(_) => format!(
                    "`{name}` is not an instant tile: name an instant, e.g. `moloch/battle`"
                ),
                None => unknown_tile(catalog, &name),
            },
        );
        return None;
    };
    match effect {
        InstantEffect::Battle => {
            f.only(&["do", "by", "tile"]);
            Some(PlayStep::Battle)
        }
        InstantEffect::Move => {
            f.only(&["do", "by", "tile", "unit", "to", "facing"]);
            match move_step(f, known)? {
                PlayStep::Move {
                    unit, to, facing, ..
                } => Some(PlayStep::Move {
                    unit,
                    to,
                    facing,
                    instant: true,
                }),
                other => Some(other),
            }
        }
        InstantEffect::Push => {
            f.only(&["do", "by", "tile", "pusher", "target", "to"]);
            push_step(f, known)
        }
        InstantEffect::Wound { wounds } => {
            f.only(&["do", "by", "tile", "target"]);
            f.label("target", known)
                .map(|target| PlayStep::Wound { target, wounds })
        }
        InstantEffect::DestroyNearHq => {
            f.only(&["do", "by", "tile", "target"]);
            f.label("target", known)
                .map(|target| PlayStep::DestroyNearHq { target })
        }
        InstantEffect::Area { wounds, radius } => {
            f.only(&["do", "by", "tile", "at"]);
            f.hex("at").map(|at| PlayStep::Area { at, wounds, radius })
        }
        InstantEffect::Scripted => {
            f.only(&["do", "by", "tile", "target", "at"]);
            let target = match f.fields.contains_key("target") {
                true => Some(f.label("target", known)?),
                false => None,
            };
            let at = match f.fields.contains_key("at") {
                true => Some(f.hex("at")?),
                false => None,
            };
            if target.is_some() && at.is_some() {
                f.error(
                    f.action.span(),
                    format!(
                        "`{name}` is played on one hex: give `target` (a label) or `at` ([q, r]), not both"
                    ),
                );
                return None;
            }
            Some(PlayStep::Scripted { target, at })
        }
    }
}

/// The rule and action a `rule` step names (`rule = "MOD/RULE"` or `"RULE"`, `action =
/// "NAME"`), as indices, with the name refusals use; a name no loaded rule has is an error at its
/// place, with the closest known one.
fn rule_action(catalog: &Catalog, f: &mut StepFields<'_, '_>) -> Option<(u8, u8, String)> {
    let rules = catalog.game_rules();
    let (name, span) = f.string("rule")?;
    let full = |r: &GameRule| format!("{}/{}", r.mod_id, r.name);
    let Some(i) = rules.iter().position(|r| full(r) == name || r.name == name) else {
        let known: Vec<String> = rules.iter().map(full).collect();
        let known_list = match known.is_empty() {
            true => "the rules mods define (none is loaded)".to_string(),
            false => known.join(", "),
        };
        f.error(
            span,
            format!(
                "no loaded game rule is named `{name}`{}: use one of {known_list}",
                did_you_mean(&name, known.iter().map(String::as_str))
            ),
        );
        return None;
    };
    let rule = &rules[i];
    let (action, span) = f.string("action")?;
    let Some(a) = rule.actions.iter().position(|x| x.name == action) else {
        let names: Vec<&str> = rule.actions.iter().map(|x| x.name.as_str()).collect();
        f.error(
            span,
            format!(
                "the rule `{}` has no action `{action}`{}: use one of {}",
                full(rule),
                did_you_mean(&action, names.iter().copied()),
                names.join(", ")
            ),
        );
        return None;
    };
    Some((i as u8, a as u8, format!("rule {} {action}", full(rule))))
}

/// The `[[choice]]` tables, each by the label of a tile (of the board or of a step).
pub(super) fn choices(
    r: &mut Reader<'_>,
    defs: &[Spanned<ChoiceDef>],
    labels: &Labels,
) -> Vec<ChoiceSpec> {
    let mut choices = Vec::new();
    for c in defs {
        let c = c.get_ref();
        if !labels.has(c.by.get_ref()) && !is_hex_text(c.by.get_ref()) {
            r.err(
                c.by.span(),
                format!(
                    "choice by `{}`: no tile has that label{}: use the `label` of a `[[tile]]` or `place` step, or the hex `[q, r]` a rule puts a tile down on (its owner picks its facing)",
                    c.by.get_ref(),
                    labels.near(c.by.get_ref())
                ),
            );
        }
        choices.push(ChoiceSpec {
            by: c.by.get_ref().clone(),
            pick: c.pick.get_ref().clone(),
            line: r.line(c.by.span()),
        });
    }
    choices
}

/// Whether `text` is a hex as a decision names one: `[q, r]`, two whole numbers.
fn is_hex_text(text: &str) -> bool {
    text.strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .and_then(|t| t.split_once(','))
        .is_some_and(|(q, r)| q.trim().parse::<i32>().is_ok() && r.trim().parse::<i32>().is_ok())
}

/// Reads the fields of one step, noting located errors.
struct StepFields<'r, 's> {
    r: &'r mut Reader<'s>,
    fields: &'r StepDef,
    action: &'r Spanned<String>,
}

impl StepFields<'_, '_> {
    /// Notes a problem at `span`.
    fn error(&mut self, span: Range<usize>, msg: String) {
        self.r.err(span, msg);
    }

    /// Refuses every field but `allowed`, naming the closest allowed one.
    fn only(&mut self, allowed: &[&str]) {
        for (k, v) in self.fields {
            if !allowed.contains(&k.as_str()) {
                let msg = format!(
                    "`{k}` is not a field of a `{}` step{}: its fields are {}",
                    self.action.get_ref(),
                    did_you_mean(k, allowed.iter().copied()),
                    allowed.join(", ")
                );
                self.error(v.span(), msg);
            }
        }
    }

    /// A text field, if given.
    fn optional_string(&mut self, key: &str) -> Option<String> {
        let v = self.fields.get(key)?;
        match v.get_ref() {
            toml::Value::String(s) => Some(s.clone()),
            _ => {
                self.error(
                    v.span(),
                    format!("`{key}` must be text in quotes, e.g. `{key} = \"a\"`"),
                );
                None
            }
        }
    }

    /// A required text field, with where it is written.
    fn string(&mut self, key: &str) -> Option<(String, Range<usize>)> {
        match self.fields.get(key) {
            None => {
                self.error(
                    self.action.span(),
                    format!(
                        "a `{}` step needs `{key}`: add `{key} = ...` to it",
                        self.action.get_ref()
                    ),
                );
                None
            }
            Some(v) => self.optional_string(key).map(|s| (s, v.span())),
        }
    }

    /// A required `army/tile`, with its name as written.
    fn tile(&mut self, key: &str, catalog: &Catalog) -> Option<(hexforge_core::TileRef, String)> {
        let (name, span) = self.string(key)?;
        let t = resolve_tile(catalog, &name);
        if t.is_none() {
            self.error(span, unknown_tile(catalog, &name));
        }
        t.map(|t| (t, name))
    }

    /// A required hex `[q, r]` of whole numbers that fit the board's coordinates.
    fn hex(&mut self, key: &str) -> Option<Hex> {
        let Some(v) = self.fields.get(key) else {
            self.error(
                self.action.span(),
                format!("a `{}` step needs `{key} = [q, r]`", self.action.get_ref()),
            );
            return None;
        };
        let q_r = match v.get_ref().as_array().map(|a| a.as_slice()) {
            Some([q, r]) => q.as_integer().zip(r.as_integer()),
            _ => None,
        };
        let Some((q, r)) = q_r else {
            self.error(
                v.span(),
                format!("`{key}` must be two whole numbers [q, r], e.g. [0, -1]"),
            );
            return None;
        };
        for n in [q, r] {
            if i32::try_from(n).is_err() {
                self.error(
                    v.span(),
                    format!("`{key}`: {n} is out of range: write [q, r] with small whole numbers"),
                );
                return None;
            }
        }
        Some(Hex::new(q as i32, r as i32))
    }

    /// A required player id.
    fn player(&mut self, key: &str, ids: &PlayerIds<'_>) -> Option<Seat> {
        let (id, span) = self.string(key)?;
        let seat = ids.seat(&id);
        if seat.is_none() {
            self.error(
                span,
                format!(
                    "`{key} = \"{id}\"` is not one of the players{}",
                    ids.hint(&id)
                ),
            );
        }
        seat
    }

    /// A required label of a tile so far in the file.
    fn label(&mut self, key: &str, known: &[String]) -> Option<String> {
        let (label, span) = self.string(key)?;
        if !known.contains(&label) {
            self.error(
                span,
                format!(
                    "`{key} = \"{label}\"`: no tile has that label (so far in the file){}: use the `label` of a `[[tile]]` or an earlier `place` step",
                    did_you_mean(&label, known.iter().map(String::as_str))
                ),
            );
            return None;
        }
        Some(label)
    }

    /// A `true` or `false` field, if given.
    fn optional_bool(&mut self, key: &str) -> Option<bool> {
        let v = self.fields.get(key)?;
        match v.get_ref() {
            toml::Value::Boolean(b) => Some(*b),
            _ => {
                self.error(v.span(), format!("`{key}` must be true or false"));
                None
            }
        }
    }

    /// A direction 0 to 5, if given.
    fn optional_facing(&mut self, key: &str) -> Option<Dir> {
        self.fields.contains_key(key).then(|| self.facing(key))
    }

    /// A direction 0 to 5; north when left out.
    fn facing(&mut self, key: &str) -> Dir {
        let Some(v) = self.fields.get(key) else {
            return Dir::N;
        };
        match v.get_ref().as_integer().and_then(Dir::from_index) {
            Some(d) => d,
            None => {
                self.error(v.span(), format!("`{key}` must be a direction from 0 to 5"));
                Dir::N
            }
        }
    }
}
