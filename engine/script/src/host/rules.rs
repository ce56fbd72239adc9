//! Game rules in the script host: binding the rules mods' scripts define into the catalog (their
//! `when` checked against the declared options), and calling their hooks for the engine.

use super::{Failure, ScriptError, ScriptHost, function_at, outside, read_targets};
use crate::build::{Build, Scalar};
use hexforge_content::{Diagnostic, ModInfo};
use hexforge_core::battlefield::Battlefield;
use hexforge_core::event::{DrawReason, GameResult};
use hexforge_core::hooks::{Closed, GameContext, HookError, Restriction, RuleCall, RulePoints};
use hexforge_core::tile::{GameRule, InstantEffect, ParamValue, RuleAction};
use hexforge_core::{Catalog, Seat};
use mlua::{Lua, Table, Value};
use std::path::Path;

/// A Lua value of a rule's `when` as an option value, if it is one.
fn param_of(v: &Value) -> Option<ParamValue> {
    match v {
        Value::Boolean(b) => Some(ParamValue::Bool(*b)),
        Value::Integer(i) => Some(ParamValue::Int(*i)),
        Value::String(s) => Some(ParamValue::Str(s.to_str().ok()?.to_string())),
        _ => None,
    }
}

/// The diagnostic of a problem at `at` (`file:line`, the file relative to the mod's folder).
fn located(dir: &Path, at: &str, message: String) -> Diagnostic {
    let (file, line) = match at.rsplit_once(':') {
        Some((file, line)) => (file, line.parse().unwrap_or(1)),
        None => (at, 1),
    };
    Diagnostic {
        file: dir.join(file),
        line,
        column: 1,
        message,
    }
}

impl ScriptHost {
    /// Puts the game rules of every mod whose scripts loaded into `catalog`, in load order and
    /// in the order each mod's scripts define them; a rule whose `when` names an option no
    /// loaded mod declares, or gives it a value it does not take, is reported at its line and
    /// its mod counts as failed.
    pub(super) fn bind_rules(
        &mut self,
        mods: &[ModInfo],
        index_of: &[Option<usize>],
        catalog: &mut Catalog,
        problems: &mut Vec<Diagnostic>,
    ) {
        let mut rules = Vec::new();
        let mut bound = Vec::new();
        for (m, state) in index_of.iter().enumerate() {
            let Some(state) = *state else { continue };
            let st = &self.states[state];
            for rule in &st.registry.borrow().rules {
                let mut when = Vec::new();
                let mut bad = false;
                for (key, value) in &rule.when {
                    let declared = catalog.options();
                    let Some(d) = declared.get(key) else {
                        problems.push(located(
                            &mods[m].dir,
                            &rule.defined_at,
                            format!(
                                "rule `{}`: `when` names the option `{key}`, which no loaded mod declares{}: declare it in an options.toml (docs/RULESETS.md), or name a declared option",
                                rule.name,
                                hexforge_core::names::did_you_mean(
                                    key,
                                    declared.keys().map(String::as_str)
                                )
                            ),
                        ));
                        bad = true;
                        continue;
                    };
                    match param_of(value).and_then(|v| d.kind.accept(&v)) {
                        Some(v) => when.push((key.clone(), v)),
                        None => {
                            problems.push(located(
                                &mods[m].dir,
                                &rule.defined_at,
                                format!(
                                    "rule `{}`: `when` gives the option `{key}` a value it does not take: use {} (type `{}`)",
                                    rule.name,
                                    d.kind.expected(),
                                    d.kind.name()
                                ),
                            ));
                            bad = true;
                        }
                    }
                }
                if bad {
                    if !self.failed.contains(&mods[m].id) {
                        self.failed.push(mods[m].id.clone());
                    }
                    continue;
                }
                rules.push(GameRule {
                    name: rule.name.clone(),
                    mod_id: mods[m].id.clone(),
                    points: rule.points,
                    when,
                    actions: rule
                        .actions
                        .iter()
                        .map(|a| RuleAction {
                            name: a.name.clone(),
                            doc: a.doc.clone(),
                            facing: a.facing,
                            stages: a.stages,
                            marker: a.marker,
                            lacks: a.lacks.clone(),
                            turn: a.turn,
                            cites: a.cites.clone(),
                            secret: a.secret,
                            counts: a.counts.clone(),
                            declared: a.declared.clone(),
                        })
                        .collect(),
                    asked_when: rule.asked_when.clone(),
                    secret: rule.secret.clone(),
                    restrictions: rule.restrictions.clone(),
                });
                bound.push((state, rule.clone()));
            }
        }
        for over in catalog.set_game_rules(rules) {
            let at = bound
                .iter()
                .find(|(_, r)| r.name == over.name)
                .map(|(_, r)| r.defined_at.clone())
                .unwrap_or_default();
            let dir = mods
                .iter()
                .find(|m| m.id == over.mod_id)
                .map_or(Path::new(""), |m| m.dir.as_path());
            problems.push(located(
                dir,
                &at,
                format!(
                    "rule `{}`: the loaded mods define more than {} game rules; merge some rules into one",
                    over.name,
                    Catalog::MAX_GAME_RULES
                ),
            ));
        }
        bound.truncate(Catalog::MAX_GAME_RULES);
        self.game_rules = bound;
    }

    /// Calls the hook a [`RuleCall`] names for the rule of `ctx`.
    pub(super) fn call_rule(
        &mut self,
        ctx: &GameContext<'_>,
        mut call: RuleCall<'_>,
    ) -> Result<(), HookError> {
        self.follow_rules(ctx.rules);
        let Some((state, rule)) = self.game_rules.get(ctx.rule) else {
            return Err(HookError {
                message: format!(
                    "game rule {} is not bound to a script (load the catalog through the script host)",
                    ctx.rule
                ),
            });
        };
        let (point, f, action) = match &call {
            RuleCall::Effects(point, _) => (*point, None, None),
            RuleCall::TurnStarted { .. } => (RulePoints::TURN_STARTED, None, None),
            RuleCall::Destroyed(..) => (RulePoints::DESTROYED, None, None),
            RuleCall::HqDamaged(..) => (RulePoints::HQ_DAMAGED, None, None),
            RuleCall::Check { .. } => (RulePoints::CHECK, None, None),
            RuleCall::Restrict(_) => (RulePoints::RESTRICT, None, None),
            RuleCall::Targets { action, .. } => (
                RulePoints::ACTIONS,
                rule.actions.get(*action).and_then(|a| a.targets.clone()),
                Some(*action),
            ),
            RuleCall::Play { action, .. } => (
                RulePoints::ACTIONS,
                rule.actions.get(*action).map(|a| a.play.clone()),
                Some(*action),
            ),
        };
        let f = match f {
            Some(f) => f,
            None => {
                let Some(i) = RulePoints::ALL.iter().position(|(p, _)| *p == point) else {
                    return Ok(());
                };
                match &rule.hooks[i] {
                    Some(f) => f.clone(),
                    None => return Ok(()),
                }
            }
        };
        let st = self.states[*state].clone();
        let is_targets = matches!(call, RuleCall::Targets { .. });
        // What names the hook in a message, worked out only when there is one.
        let error = |f: Failure| HookError {
            message: ScriptError {
                mod_id: st.id.clone(),
                at: f.at.unwrap_or_else(|| rule.defined_at.clone()),
                hook: match action {
                    Some(a) if is_targets => format!("actions.{}.targets", rule.actions[a].name),
                    Some(a) => format!("actions.{}.play", rule.actions[a].name),
                    _ => point.name().unwrap_or("rule").to_string(),
                },
                tile: format!("rule {}", rule.name),
                message: f.message,
                traceback: f.traceback,
            }
            .to_string(),
        };
        if let Some(f) = st.broken_failure() {
            return Err(error(f));
        }
        st.dirty.set(true);
        let fail = |e: mlua::Error| error(outside(&e));
        st.attack_now.set(None).map_err(fail)?;
        {
            let mut c = st.call.get_mut().map_err(fail)?;
            c.begin(&self.catalog, &self.rules, ctx.field);
            c.cell = None;
            c.tile = None;
            c.player = Some(ctx.player);
            c.ability = 0;
            c.phase = 0;
            c.initiative_changes.clear();
            c.gifts.clear();
            c.game.fill(ctx);
        }
        st.fx_state
            .get_mut()
            .map_err(fail)?
            .start_rule(ctx.field, &self.catalog);
        let lua = &st.lua;
        // What the host says of a value a hook returned may quote it: cut as Lua's messages are.
        let located = |message: String| Failure {
            at: Some(function_at(&rule.defined_at, &f)),
            message: crate::sandbox::cut(&message),
            traceback: Vec::new(),
        };
        let result = match &mut call {
            RuleCall::Effects(..) => st.runner.call::<()>(lua, &f, (&st.ctx, &st.fx)),
            RuleCall::TurnStarted { draw, .. } => st
                .runner
                .call::<Value>(lua, &f, (&st.ctx, &st.fx, **draw))
                .and_then(|v| match v {
                    Value::Nil => Ok(()),
                    Value::Integer(n) if (0..=99).contains(&n) => {
                        **draw = n as u8;
                        Ok(())
                    }
                    other => Err(located(format!(
                        "turn_started returns how many tiles the player draws (0 to 99) or nothing, not {}",
                        words(&other)
                    ))),
                }),
            RuleCall::Destroyed(lost, _) => {
                let t = lost_table(lua, ctx, lost).map_err(fail)?;
                st.runner.call::<()>(lua, &f, (&st.ctx, &st.fx, t))
            }
            RuleCall::HqDamaged(hq, _) => {
                let t = hq_table(lua, ctx, hq).map_err(fail)?;
                st.runner.call::<()>(lua, &f, (&st.ctx, &st.fx, t))
            }
            RuleCall::Check { ended, verdict } => {
                let e = match ended {
                    Some(r) => Value::Table(result_table(lua, ctx.field, *r).map_err(fail)?),
                    None => Value::Nil,
                };
                st.runner
                    .call::<Value>(lua, &f, (&st.ctx, e))
                    .and_then(|v| {
                        **verdict = read_verdict(ctx.field, &v).map_err(located)?;
                        Ok(())
                    })
            }
            RuleCall::Restrict(out) => st
                .runner
                .call::<Value>(lua, &f, &st.ctx)
                .and_then(|v| {
                    read_restriction(&st, ctx.field, &v, out).map_err(located)
                }),
            RuleCall::Targets { targets, why, .. } => st
                .runner
                .call::<Value>(lua, &f, &st.ctx)
                .and_then(|v| match v {
                    Value::Nil => Ok(()),
                    // A string: it may not be taken now, and this is why.
                    Value::String(s) => {
                        why.push_str(&s.to_string_lossy().chars().take(300).collect::<String>());
                        Ok(())
                    }
                    v => {
                        let army = ctx
                            .piles
                            .get(ctx.player.index())
                            .and_then(|p| ctx.catalog.army(p.army))
                            .map(|a| (ctx.catalog, a));
                        read_targets(&st, ctx.field, army, &v, targets).map_err(located)
                    }
                }),
            RuleCall::Play {
                target,
                facing,
                tile,
                ..
            } => {
                // The target's table made in one call into Lua.
                let t = match (target, tile) {
                    (Some(c), _) => {
                        let h = ctx.field.shape().hex(*c);
                        let mut b = Build::new(0, 3);
                        b.field(c"q", h.q()).field(c"r", h.r());
                        if let Some(f) = facing {
                            b.field(c"facing", f.index());
                        }
                        Value::Table(b.finish(lua).map_err(fail)?)
                    }
                    (None, Some(tile)) => {
                        let def = ctx.catalog.get(*tile);
                        let mut b = Build::new(0, 1);
                        b.field(c"tile", Scalar::Path(&def.army, &def.id));
                        Value::Table(b.finish(lua).map_err(fail)?)
                    }
                    (None, None) => Value::Nil,
                };
                st.runner
                    .call::<()>(lua, &f, (&st.ctx, t, &st.fx))
                    .and_then(|()| {
                        let fx = st.fx_state.get().map_err(|e| outside(&e))?;
                        hexforge_core::effect::check_effects(ctx.field, &fx.asked)
                            .map_err(|e| located(e.message))
                    })
            }
        };
        let effects = match &mut call {
            RuleCall::Effects(_, e)
            | RuleCall::TurnStarted { effects: e, .. }
            | RuleCall::Destroyed(_, e)
            | RuleCall::HqDamaged(_, e)
            | RuleCall::Play { effects: e, .. }
                if result.is_ok() =>
            {
                Some(e)
            }
            _ => None,
        };
        st.take_effects(effects.map(|e| &mut **e)).map_err(fail)?;
        result.map_err(error)
    }
}

/// A value in words, for errors.
fn words(v: &Value) -> String {
    match v {
        Value::Integer(_) | Value::Number(_) | Value::Boolean(_) => {
            v.to_string().unwrap_or_else(|_| v.type_name().to_string())
        }
        // A string in quotes, so that `not three` reads as the value it is: `not "three"`.
        Value::String(s) => format!(
            "\"{}\"",
            s.to_string_lossy().chars().take(80).collect::<String>()
        ),
        other => format!("a {}", other.type_name()),
    }
}

/// What a `destroyed` hook reads of the tile: `{ q, r, id, kind, owner }`, made in one call.
fn lost_table(
    lua: &Lua,
    ctx: &GameContext<'_>,
    lost: &hexforge_core::hooks::Lost,
) -> mlua::Result<Table> {
    let h = ctx.field.shape().hex(lost.cell);
    let def = ctx.catalog.get(lost.tile);
    let mut b = Build::new(0, 5);
    b.field(c"q", h.q())
        .field(c"r", h.r())
        .field(c"id", Scalar::Path(&def.army, &def.id))
        .field(c"kind", def.kind.name())
        .field(c"owner", lost.owner.index() + 1);
    b.finish(lua)
}

/// What an `hq_damaged` hook reads: `{ player, amount, hp, by = { wounds per player } }`.
fn hq_table(
    lua: &Lua,
    ctx: &GameContext<'_>,
    hq: &hexforge_core::hooks::HqLoss,
) -> mlua::Result<Table> {
    let n = ctx.field.player_count();
    let mut b = Build::new(0, 4);
    b.field(c"player", hq.player.index() + 1)
        .field(c"amount", hq.amount)
        .field(c"hp", hq.hp)
        .open(n, 0);
    for p in 0..n {
        b.item(p + 1, hq.by[p]);
    }
    b.close_field(c"by");
    b.finish(lua)
}

/// The players of `team`, numbered from 1, in seat order.
fn team_players(field: &Battlefield, team: u8) -> Vec<usize> {
    field
        .players()
        .filter(|p| field.team(*p) == team)
        .map(|p| p.index() + 1)
        .collect()
}

/// A result as a `check` hook reads it: `{ winners = {1}, draw = false, reason = "..." }`.
fn result_table(lua: &Lua, field: &Battlefield, r: GameResult) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let winners = lua.create_table()?;
    let (players, reason): (Vec<usize>, &str) = match r {
        GameResult::Won { team } => (team_players(field, team), "won"),
        GameResult::Shared { teams } => (
            (0..8u8)
                .filter(|t| teams & 1 << t != 0)
                .flat_map(|t| team_players(field, t))
                .collect(),
            "shared",
        ),
        GameResult::Draw { reason } => (
            Vec::new(),
            match reason {
                DrawReason::AllHqsDestroyed => "all_hqs_destroyed",
                DrawReason::EqualHp => "equal_hp",
                DrawReason::BattleLoop => "battle_loop",
                DrawReason::Rule => "rule",
            },
        ),
    };
    for (i, p) in players.iter().enumerate() {
        winners.raw_set(i + 1, *p)?;
    }
    t.raw_set("winners", winners)?;
    t.raw_set("draw", matches!(r, GameResult::Draw { .. }))?;
    t.raw_set("reason", reason)?;
    Ok(t)
}

/// A `check` hook's answer: nothing, `{ winner = p }`, `{ winners = { p, ... } }` or
/// `{ draw = true }`.
fn read_verdict(field: &Battlefield, v: &Value) -> Result<Option<GameResult>, String> {
    const SHAPE: &str = "check returns nothing (the game goes on, or ends as the engine says), { winner = P }, { winners = { P, ... } } (a shared victory) or { draw = true }";
    let t = match v {
        Value::Nil => return Ok(None),
        Value::Table(t) => t,
        other => return Err(format!("{SHAPE}, not {}", words(other))),
    };
    let n = field.player_count();
    let player = |v: Value| -> Result<Seat, String> {
        // A float that is a whole number (`2.0`, from arithmetic) is that number.
        let whole = match v {
            Value::Number(x) if x.fract() == 0.0 && x.abs() < 1e9 => Value::Integer(x as i64),
            other => other,
        };
        match whole {
            Value::Integer(p) if (1..=n as i64).contains(&p) => Ok(Seat::new(p as u8 - 1)),
            other => Err(format!(
                "a winner is a player number from 1 to {n}, not {}",
                words(&other)
            )),
        }
    };
    if t.raw_get::<Value>("draw").map_err(|e| e.to_string())? == Value::Boolean(true) {
        return Ok(Some(GameResult::Draw {
            reason: DrawReason::Rule,
        }));
    }
    let mut teams = 0u8;
    match t.raw_get::<Value>("winner").map_err(|e| e.to_string())? {
        Value::Nil => {}
        w => teams |= 1 << field.team(player(w)?),
    }
    match t.raw_get::<Value>("winners").map_err(|e| e.to_string())? {
        Value::Nil => {}
        Value::Table(list) => {
            for i in 1..=list.raw_len() {
                let w = list.raw_get::<Value>(i).map_err(|e| e.to_string())?;
                teams |= 1 << field.team(player(w)?);
            }
        }
        other => {
            return Err(format!(
                "`winners` is a list of player numbers, not {}",
                words(&other)
            ));
        }
    }
    Ok(match teams.count_ones() {
        0 => return Err(format!("{SHAPE}: this table names no winner")),
        1 => Some(GameResult::Won {
            team: teams.trailing_zeros() as u8,
        }),
        _ => Some(GameResult::Shared { teams }),
    })
}

/// A `restrict` hook's answer: nothing, or `{ close = { "place", ... }, block = { {q, r}, ... },
/// block_place = { ... }, place_only = { ... } }`. Its keys are read in one pass over the table
/// (a key looked up by name costs a protected call into Lua), then acted on in that order.
fn read_restriction(
    st: &super::ModState,
    field: &Battlefield,
    v: &Value,
    out: &mut Restriction,
) -> Result<(), String> {
    const KEYS: [&str; 5] = [
        "close",
        "close_instants",
        "block",
        "block_place",
        "place_only",
    ];
    let t = match v {
        Value::Nil => return Ok(()),
        Value::Table(t) => t,
        other => {
            return Err(format!(
                "restrict returns nothing or {{ close = {{ \"place\", ... }}, block = {{ {{q, r}}, ... }} }}, not {}",
                words(other)
            ));
        }
    };
    let mut given: [Value; 5] = [Value::Nil, Value::Nil, Value::Nil, Value::Nil, Value::Nil];
    // Unknown keys are gathered and the first in alphabetical order named, so the message does
    // not depend on the order Lua walks the table in.
    let mut unknown: Vec<String> = Vec::new();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair.map_err(|e| e.to_string())?;
        let found = match &k {
            Value::String(s) => KEYS.iter().position(|w| s.as_bytes() == w.as_bytes()),
            _ => None,
        };
        match found {
            Some(i) => given[i] = v,
            None => unknown.push(k.to_string().unwrap_or_else(|_| words(&k))),
        }
    }
    if let Some(key) = unknown.iter().min() {
        return Err(format!(
            "restrict: unknown key `{key}`{} (keys: close, close_instants, block, block_place, place_only)",
            hexforge_core::names::did_you_mean(key, KEYS)
        ));
    }
    let [close, close_instants, rest @ ..] = given;
    match close {
        Value::Nil => {}
        Value::Table(list) => {
            for i in 1..=list.raw_len() {
                let w = list.raw_get::<Value>(i).map_err(|e| e.to_string())?;
                let name = w.to_string().unwrap_or_default();
                let kind = Closed::named(&name).map_err(|why| {
                    let effect = InstantEffect::NAMES.contains(&name.as_str());
                    format!(
                        "restrict: {why}{}",
                        if effect {
                            format!(
                                " (to close only the `{name}` instants: close_instants = {{ \"{name}\" }})"
                            )
                        } else {
                            String::new()
                        }
                    )
                })?;
                out.closed = out.closed.union(kind);
            }
        }
        other => {
            return Err(format!(
                "restrict: `close` is a list of kinds of action, not {}",
                words(&other)
            ));
        }
    }
    match close_instants {
        Value::Nil => {}
        Value::Table(list) => {
            for i in 1..=list.raw_len() {
                let w = list.raw_get::<Value>(i).map_err(|e| e.to_string())?;
                let found = match &w {
                    Value::String(s) => InstantEffect::NAMES
                        .iter()
                        .position(|n| s.as_bytes() == n.as_bytes()),
                    _ => None,
                };
                let Some(n) = found else {
                    let name = w.to_string().unwrap_or_else(|_| words(&w));
                    return Err(format!(
                        "restrict: close_instants: `{name}` is no instant effect{}: name battle, move, push, wound, destroy_near_hq, area or scripted",
                        hexforge_core::names::did_you_mean(&name, InstantEffect::NAMES)
                    ));
                };
                out.instants |= 1 << n;
            }
        }
        other => {
            return Err(format!(
                "restrict: `close_instants` is a list of instant effects (\"battle\", ...), not {}",
                words(&other)
            ));
        }
    }
    for (key, value) in KEYS[2..].iter().zip(rest) {
        match value {
            Value::Nil => {}
            v @ Value::Table(_) => {
                let mut listed = hexforge_core::hooks::InstantTargets::default();
                read_targets(st, field, None, &v, &mut listed)
                    .map_err(|e| format!("restrict: {key}: {e}"))?;
                match *key {
                    "block" => out.blocked |= listed.cells,
                    "block_place" => out.no_place |= listed.cells,
                    // Every hex but those listed (the engine keeps the board's own).
                    _ => out.no_place |= !listed.cells,
                }
            }
            other => {
                return Err(format!(
                    "restrict: `{key}` is a list of hexes {{q, r}}, not {}",
                    words(&other)
                ));
            }
        }
    }
    Ok(())
}
