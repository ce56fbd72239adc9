//! The abilities scripts define with `ability(name, { point = function ... })` and the game
//! rules they define with `rule(name, { point = function ... })`, with where each was defined.

use hexforge_core::hooks::{HookPoints, RulePoints};
use mlua::{Function, Lua, Table, Value};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The static points, evaluated once when a tile is bound: the effects the tile gives, and the
/// engine effect an instant plays.
pub(crate) const GIVES: &str = "gives";
pub(crate) const INSTANT: &str = "instant";

/// One ability's implementation.
#[derive(Clone, Debug)]
pub(crate) struct Ability {
    pub(crate) gives: Option<Function>,
    pub(crate) instant: Option<Function>,
    /// The dynamic points, in the order of [`HookPoints::ALL`].
    pub(crate) hooks: [Option<Function>; HookPoints::ALL.len()],
    pub(crate) points: HookPoints,
    /// The question `plan_attacks` may put to the unit's owner (`asks = "explode"`): the engine
    /// asks it before the call, and `ctx:ask` reads the answer.
    pub(crate) asks: Option<&'static str>,
    /// `file:line` of the `ability(...)` call's table.
    pub(crate) defined_at: String,
}

/// One action a game rule offers: its name, its one-line doc, and its two functions.
#[derive(Clone, Debug)]
pub(crate) struct RuleActionImpl {
    pub(crate) name: String,
    pub(crate) doc: String,
    /// Where it may be taken now: a list of hexes, `"none"`, or nothing; `None` when its
    /// targets are declared as data (`declared`).
    pub(crate) targets: Option<Function>,
    /// Its targets declared as data (`targets = { spots = ... }`), listed by the engine.
    pub(crate) declared: Option<hexforge_core::declared::Declared>,
    /// `at_least` and `below`: counters on the acting player it waits for.
    pub(crate) counts: hexforge_core::declared::Counts,
    /// What taking it does: effects.
    pub(crate) play: Function,
    /// The player also picks a facing with each hex (`facing = true`).
    pub(crate) facing: bool,
    /// `stages`, as `RuleAction::stages` flags (0: every stage).
    pub(crate) stages: u8,
    /// `marker`: the player marker the acting player must carry.
    pub(crate) marker: Option<hexforge_core::marker::MarkerName>,
    /// `lacks`: the player markers the acting player must not carry.
    pub(crate) lacks: Vec<hexforge_core::marker::MarkerName>,
    /// `after_discard` and `before_placing`, as `RuleAction::turn` flags.
    pub(crate) turn: u8,
    /// `cites`: the rule cited when it is refused for what it declares.
    pub(crate) cites: String,
    /// `secret`: its tile target is shown only to the player who takes it.
    pub(crate) secret: bool,
}

/// One game rule's implementation (docs/RULESETS.md, "Game scripts").
#[derive(Clone, Debug)]
pub(crate) struct RuleImpl {
    pub(crate) name: String,
    /// The hook functions, in the order of [`RulePoints::ALL`] (`actions` has none of its own).
    pub(crate) hooks: [Option<Function>; RulePoints::ALL.len()],
    pub(crate) points: RulePoints,
    /// `when`: the declared options and the values that put the rule in play, as written.
    pub(crate) when: Vec<(String, Value)>,
    pub(crate) actions: Vec<RuleActionImpl>,
    /// `<point>_when` (`restrict_when`, `turn_ended_when`, ...): when each hook that declares
    /// one is asked; the others are asked at every one of their moments.
    pub(crate) asked_when: Vec<(RulePoints, hexforge_core::tile::AskWhen)>,
    /// `secret`: the player markers only their player sees the values of.
    pub(crate) secret: Vec<hexforge_core::marker::MarkerName>,
    /// `restrict` declared as a list of restrictions rather than a function.
    pub(crate) restrictions: Vec<hexforge_core::declared::DeclaredRestriction>,
    /// `file:line` of the `rule(...)` call.
    pub(crate) defined_at: String,
}

/// The abilities of one environment (the shared library's, or one mod's), and the game rules of
/// a mod, in the order its scripts define them.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    pub(crate) abilities: BTreeMap<String, Ability>,
    pub(crate) rules: Vec<RuleImpl>,
    sealed: Cell<bool>,
}

impl Registry {
    pub(crate) fn seal(&self) {
        self.sealed.set(true);
    }
}

/// The `ability` function scripts call while they load.
pub(crate) fn ability_function(
    lua: &Lua,
    registry: Rc<RefCell<Registry>>,
) -> mlua::Result<Function> {
    lua.create_function(move |lua, (name, def): (Value, Value)| {
        let name = match name {
            Value::String(s) => s.to_str()?.to_string(),
            other => {
                return Err(mlua::Error::runtime(format!(
                    "ability: the first argument is the ability's name (a string), not a {}",
                    other.type_name()
                )));
            }
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        {
            return Err(mlua::Error::runtime(format!(
                "ability: `{name}` is not a valid name: use snake_case (lowercase letters, digits and _)"
            )));
        }
        let Value::Table(def) = def else {
            return Err(mlua::Error::runtime(format!(
                "ability `{name}`: the second argument is a table of hook functions, e.g. {{ plan_attacks = function(ctx, plan) ... end }}"
            )));
        };
        if registry.borrow().sealed.get() {
            return Err(mlua::Error::runtime(format!(
                "ability `{name}`: abilities are defined when the script loads, not inside a hook"
            )));
        }
        let ability = read_ability(lua, &name, &def)?;
        let mut reg = registry.borrow_mut();
        if reg.abilities.contains_key(&name) {
            return Err(mlua::Error::runtime(format!(
                "ability `{name}` is defined twice in this mod: rename one"
            )));
        }
        reg.abilities.insert(name, ability);
        Ok(())
    })
}

fn read_ability(lua: &Lua, name: &str, def: &Table) -> mlua::Result<Ability> {
    let known = || {
        [GIVES, INSTANT]
            .into_iter()
            .chain(HookPoints::ALL.iter().map(|(_, n)| *n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut ability = Ability {
        gives: None,
        instant: None,
        hooks: Default::default(),
        points: HookPoints::NONE,
        asks: None,
        defined_at: caller_position(lua),
    };
    for pair in def.pairs::<Value, Value>() {
        let (k, v) = pair?;
        let key = match &k {
            Value::String(s) => s.to_str()?.to_string(),
            _ => {
                return Err(mlua::Error::runtime(format!(
                    "ability `{name}`: keys are hook point names ({})",
                    known()
                )));
            }
        };
        if key == "doc" {
            continue;
        }
        if key == "asks" {
            ability.asks = match &v {
                Value::String(q) if q.to_str()?.as_ref() as &str == "explode" => Some("explode"),
                other => {
                    return Err(mlua::Error::runtime(format!(
                        "ability `{name}`: `asks` names the question plan_attacks puts to the owner: \"explode\", not {}",
                        other
                            .to_string()
                            .unwrap_or_else(|_| other.type_name().into())
                    )));
                }
            };
            continue;
        }
        let Value::Function(f) = v else {
            return Err(mlua::Error::runtime(format!(
                "ability `{name}`: `{key}` must be a function, not a {}",
                v.type_name()
            )));
        };
        if key == GIVES {
            ability.gives = Some(f);
            continue;
        }
        if key == INSTANT {
            ability.instant = Some(f);
            continue;
        }
        match HookPoints::ALL.iter().position(|(_, n)| *n == key) {
            Some(i) => {
                ability.points = ability.points.union(HookPoints::ALL[i].0);
                ability.hooks[i] = Some(f);
            }
            None => {
                let names = HookPoints::ALL.iter().map(|(_, n)| *n);
                return Err(mlua::Error::runtime(format!(
                    "ability `{name}`: unknown hook point `{key}`{} (points: {}, or `doc` for a description)",
                    hexforge_core::names::did_you_mean(
                        &key,
                        names.chain(["gives", "instant", "doc"])
                    ),
                    known()
                )));
            }
        }
    }
    Ok(ability)
}

/// `file:line` of the Lua code that called the current Rust function (the chunk's whole name:
/// Lua's short form cuts long paths).
fn caller_position(lua: &Lua) -> String {
    lua.inspect_stack(1, |d| {
        let source = d.source();
        let file = source
            .source
            .as_deref()
            .or(source.short_src.as_deref())
            .unwrap_or("?")
            .trim_start_matches('@')
            .to_string();
        format!("{file}:{}", d.current_line().unwrap_or(0))
    })
    .unwrap_or_else(|| "?".to_string())
}

/// A value in words, for errors: its text for numbers, booleans and strings, else its type.
fn words(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{}\"", s.to_string_lossy()),
        Value::Integer(_) | Value::Number(_) | Value::Boolean(_) => {
            v.to_string().unwrap_or_else(|_| v.type_name().into())
        }
        other => format!("a {}", other.type_name()),
    }
}

/// The `rule` function a mod's scripts call while they load.
pub(crate) fn rule_function(lua: &Lua, registry: Rc<RefCell<Registry>>) -> mlua::Result<Function> {
    lua.create_function(move |lua, (name, def): (Value, Value)| {
        let name = match name {
            Value::String(s) => s.to_str()?.to_string(),
            other => {
                return Err(mlua::Error::runtime(format!(
                    "rule: the first argument is the rule's name (a string), not {}",
                    words(&other)
                )));
            }
        };
        if !snake_case(&name) {
            return Err(mlua::Error::runtime(format!(
                "rule: `{name}` is not a valid name: use snake_case (lowercase letters, digits and _)"
            )));
        }
        let Value::Table(def) = def else {
            return Err(mlua::Error::runtime(format!(
                "rule `{name}`: the second argument is a table of hook functions, e.g. {{ turn_started = function(ctx, fx, draw) ... end }}"
            )));
        };
        if registry.borrow().sealed.get() {
            return Err(mlua::Error::runtime(format!(
                "rule `{name}`: rules are defined when the script loads, not inside a hook"
            )));
        }
        let rule = read_rule(lua, &name, &def)?;
        let mut reg = registry.borrow_mut();
        if reg.rules.iter().any(|r| r.name == name) {
            return Err(mlua::Error::runtime(format!(
                "rule `{name}` is defined twice in this mod: rename one"
            )));
        }
        reg.rules.push(rule);
        Ok(())
    })
}

fn snake_case(name: &str) -> bool {
    !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The keys of a rule besides its hook points: `when`, `doc`, and `<point>_when` for each hook
/// point but `setup` and `actions`.
fn other_rule_keys() -> Vec<String> {
    ["when".to_string(), "doc".to_string(), "secret".to_string()]
        .into_iter()
        .chain(
            RulePoints::ALL
                .iter()
                .filter(|(p, _)| when_allowed(*p))
                .map(|(_, n)| format!("{n}_when")),
        )
        .collect()
}

/// Whether a hook point may declare `<point>_when`: every one but `setup` (asked once) and
/// `actions` (whose actions declare `stages`, `marker`, ... of their own).
fn when_allowed(p: RulePoints) -> bool {
    p != RulePoints::SETUP && p != RulePoints::ACTIONS
}

fn read_rule(lua: &Lua, name: &str, def: &Table) -> mlua::Result<RuleImpl> {
    let keys = || {
        RulePoints::ALL
            .iter()
            .map(|(_, n)| n.to_string())
            .chain(other_rule_keys())
            .collect::<Vec<_>>()
    };
    let mut rule = RuleImpl {
        name: name.to_string(),
        hooks: Default::default(),
        points: RulePoints::NONE,
        when: Vec::new(),
        actions: Vec::new(),
        asked_when: Vec::new(),
        secret: Vec::new(),
        restrictions: Vec::new(),
        defined_at: caller_position(lua),
    };
    // `restrict` declared as a list names actions by name (`offered`): read once the actions are.
    let mut declared_restrict: Option<Table> = None;
    for pair in def.pairs::<Value, Value>() {
        let (k, v) = pair?;
        let Value::String(key) = &k else {
            return Err(mlua::Error::runtime(format!(
                "rule `{name}`: keys are hook point names ({})",
                keys().join(", ")
            )));
        };
        let key = key.to_str()?.to_string();
        match key.as_str() {
            "doc" => continue,
            "when" => {
                rule.when = read_when(name, &v)?;
                continue;
            }
            "secret" => {
                rule.secret = read_marker_list(&format!("rule `{name}`"), "secret", v)?;
                // Sorted, so that the order a script lists them in does not show.
                rule.secret.sort_by_key(|m| m.to_string());
                rule.secret.dedup();
                continue;
            }
            "restrict" if matches!(v, Value::Table(_)) => {
                let Value::Table(t) = v else { continue };
                declared_restrict = Some(t);
                // Worked out by the engine after every action, like the rule's actions.
                rule.points = rule.points.union(RulePoints::ACTIONS);
                continue;
            }
            "actions" => {
                rule.actions = read_actions(name, &v)?;
                if !rule.actions.is_empty() {
                    rule.points = rule.points.union(RulePoints::ACTIONS);
                }
                continue;
            }
            _ => {}
        }
        if let Some(point) = key.strip_suffix("_when").and_then(|p| {
            RulePoints::ALL
                .iter()
                .find(|(_, n)| *n == p)
                .map(|(point, _)| *point)
                .filter(|point| when_allowed(*point))
        }) {
            rule.asked_when
                .push((point, read_ask_when(name, &key, &v)?));
            continue;
        }
        let Some(i) = RulePoints::ALL.iter().position(|(_, n)| *n == key) else {
            let all = keys();
            return Err(mlua::Error::runtime(format!(
                "rule `{name}`: unknown key `{key}`{} (keys: {})",
                hexforge_core::names::did_you_mean(&key, all.iter().map(String::as_str)),
                all.join(", ")
            )));
        };
        let Value::Function(f) = v else {
            return Err(mlua::Error::runtime(format!(
                "rule `{name}`: `{key}` must be a function{}, not {}",
                if key == "restrict" {
                    " or a list of declared restrictions"
                } else {
                    ""
                },
                words(&v)
            )));
        };
        rule.points = rule.points.union(RulePoints::ALL[i].0);
        rule.hooks[i] = Some(f);
    }
    if let Some(list) = declared_restrict {
        rule.restrictions = read_restrictions(name, &list, &rule.actions)?;
    }
    // Sorted by point, so that the order `pairs` visits the keys in does not show.
    rule.asked_when
        .sort_by_key(|(p, _)| RulePoints::ALL.iter().position(|(q, _)| q == p));
    for (point, _) in &rule.asked_when {
        if !rule.points.contains(*point) {
            let n = RulePoints::ALL
                .iter()
                .find(|(p, _)| p == point)
                .map_or("?", |(_, n)| *n);
            return Err(mlua::Error::runtime(format!(
                "rule `{name}`: `{n}_when` says when `{n}` is asked, but the rule has no `{n}` function: add it, or leave `{n}_when` out"
            )));
        }
    }
    Ok(rule)
}

/// The marker name `s` given for `key` of `site`, checked (`MarkerName::new`); the error names
/// both.
fn marker_arg(
    site: &str,
    key: &str,
    s: &mlua::String,
) -> mlua::Result<hexforge_core::marker::MarkerName> {
    hexforge_core::marker::MarkerName::new(&s.to_str()?)
        .map_err(|e| mlua::Error::runtime(format!("{site}: `{key}`: {e}")))
}

/// `marker = "name"` of `t` (an action or a declared restriction), if it gives one.
fn read_marker(site: &str, t: &Table) -> mlua::Result<Option<hexforge_core::marker::MarkerName>> {
    match t.raw_get::<Value>("marker")? {
        Value::Nil => Ok(None),
        Value::String(s) => marker_arg(site, "marker", &s).map(Some),
        other => Err(mlua::Error::runtime(format!(
            "{site}: `marker` is the name of a player marker, not {}",
            words(&other)
        ))),
    }
}

/// `lacks = { "name", ... }` of `t` (an action or a declared restriction); none when left out.
fn read_lacks(site: &str, t: &Table) -> mlua::Result<Vec<hexforge_core::marker::MarkerName>> {
    match t.raw_get::<Value>("lacks")? {
        Value::Nil => Ok(Vec::new()),
        v => read_marker_list(site, "lacks", v),
    }
}

/// A list of marker names: `{ "name", ... }`, for `key` of `site`.
fn read_marker_list(
    site: &str,
    key: &str,
    v: Value,
) -> mlua::Result<Vec<hexforge_core::marker::MarkerName>> {
    let Value::Table(list) = v else {
        return Err(mlua::Error::runtime(format!(
            "{site}: `{key}` is a list of marker names, not {}",
            words(&v)
        )));
    };
    let mut names = Vec::new();
    for m in list.sequence_values::<Value>() {
        let Value::String(m) = m? else {
            return Err(mlua::Error::runtime(format!(
                "{site}: `{key}` lists marker names (strings)"
            )));
        };
        names.push(marker_arg(site, key, &m)?);
    }
    Ok(names)
}

/// `<point>_when = { stages = { ... }, markers = { ... }, anyone = { ... }, marked = { ... } }`:
/// when the hook of `point` is asked.
fn read_ask_when(name: &str, key: &str, v: &Value) -> mlua::Result<hexforge_core::tile::AskWhen> {
    let shape = format!(
        "`{key}` is a table {{ stages = {{ \"hq\", ... }}, markers = {{ \"name\", ... }}, anyone = {{ ... }}, marked = {{ ... }} }}"
    );
    let Value::Table(t) = v else {
        return Err(mlua::Error::runtime(format!(
            "rule `{name}`: {shape}, not {}",
            words(v)
        )));
    };
    let site = format!("rule `{name}`, `{key}`");
    let mut w = hexforge_core::tile::AskWhen::default();
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair?;
        match k.as_string().map(|s| s.to_string_lossy()).as_deref() {
            Some("stages") => w.stages = read_stages(&site, v)?,
            Some("markers") => w.markers = read_marker_list(&site, "markers", v)?,
            Some("anyone") => w.anyone = read_marker_list(&site, "anyone", v)?,
            Some("marked") => w.marked = read_marker_list(&site, "marked", v)?,
            _ => {
                let k = k
                    .as_string()
                    .map_or_else(|| words(&k), |s| s.to_string_lossy());
                return Err(mlua::Error::runtime(format!(
                    "rule `{name}`: unknown key `{k}` in `{key}`: {shape}"
                )));
            }
        }
    }
    if w.is_empty() {
        let hook = key.trim_end_matches("_when");
        return Err(mlua::Error::runtime(format!(
            "rule `{name}`: `{key}` names no stage and no marker, so `{hook}` would never be asked: {shape}, or leave it out to ask `{hook}` at every one of its moments"
        )));
    }
    Ok(w)
}

/// `when = "key"` (a bool option that must be on) or `when = { key = value, ... }`.
fn read_when(name: &str, v: &Value) -> mlua::Result<Vec<(String, Value)>> {
    match v {
        Value::String(key) => Ok(vec![(key.to_str()?.to_string(), Value::Boolean(true))]),
        Value::Table(t) => {
            let mut when = Vec::new();
            for pair in t.pairs::<Value, Value>() {
                let (k, v) = pair?;
                let Value::String(k) = k else {
                    return Err(mlua::Error::runtime(format!(
                        "rule `{name}`: `when` is a table of option keys and values, e.g. {{ reinforcements = true }}"
                    )));
                };
                if !matches!(v, Value::Boolean(_) | Value::Integer(_) | Value::String(_)) {
                    return Err(mlua::Error::runtime(format!(
                        "rule `{name}`: `when` gives `{}` the value {}: use true/false, a whole number or a string",
                        k.to_string_lossy(),
                        words(&v)
                    )));
                }
                when.push((k.to_str()?.to_string(), v));
            }
            Ok(when)
        }
        other => Err(mlua::Error::runtime(format!(
            "rule `{name}`: `when` names a bool option (\"scored\") or gives a table of option values ({{ reinforcements_mode = \"v3\" }}), not {}",
            words(other)
        ))),
    }
}

/// `actions = { { name = ..., doc = ..., targets = function, play = function }, ... }`.
/// An action's `stages`: a list of `"hq"`, `"discard"` and `"play"`, as flags; 0 when left out.
fn read_stages(site: &str, v: Value) -> mlua::Result<u8> {
    use hexforge_core::tile::RuleAction;
    let words_of = RuleAction::STAGES.map(|(_, w, _)| w);
    let Value::Table(list) = v else {
        return match v {
            Value::Nil => Ok(0),
            other => Err(mlua::Error::runtime(format!(
                "{site}: `stages` is a list of stages (\"hq\", \"discard\", \"play\"), not {}",
                words(&other)
            ))),
        };
    };
    let mut flags = 0;
    for i in 1..=list.raw_len() {
        let w = list.raw_get::<Value>(i)?.to_string().unwrap_or_default();
        let Some((flag, _, _)) = RuleAction::STAGES.iter().find(|(_, word, _)| *word == w) else {
            return Err(mlua::Error::runtime(format!(
                "{site}: `{w}` is no stage{}: use hq, discard or play",
                hexforge_core::names::did_you_mean(&w, words_of)
            )));
        };
        flags |= flag;
    }
    Ok(flags)
}

fn read_actions(rule: &str, v: &Value) -> mlua::Result<Vec<RuleActionImpl>> {
    let Value::Table(list) = v else {
        return Err(mlua::Error::runtime(format!(
            "rule `{rule}`: `actions` is a list of actions, each {{ name = \"...\", doc = \"...\", targets = function(ctx) ... end, play = function(ctx, target, fx) ... end }}"
        )));
    };
    let mut actions: Vec<RuleActionImpl> = Vec::new();
    for i in 1..=list.raw_len() {
        let Value::Table(t) = list.raw_get::<Value>(i)? else {
            return Err(mlua::Error::runtime(format!(
                "rule `{rule}`: action {i} is not a table {{ name, doc, targets, play }}"
            )));
        };
        let name = match t.raw_get::<Value>("name")? {
            Value::String(s) if snake_case(&s.to_str()?) => s.to_str()?.to_string(),
            other => {
                return Err(mlua::Error::runtime(format!(
                    "rule `{rule}`: action {i} needs a `name` in snake_case, not {}",
                    words(&other)
                )));
            }
        };
        if actions.iter().any(|a| a.name == name) {
            return Err(mlua::Error::runtime(format!(
                "rule `{rule}`: two actions are named `{name}`: rename one"
            )));
        }
        let doc = match t.raw_get::<Value>("doc")? {
            Value::String(s) => s.to_str()?.to_string(),
            Value::Nil => String::new(),
            other => {
                return Err(mlua::Error::runtime(format!(
                    "rule `{rule}`, action `{name}`: `doc` is one line of text, not {}",
                    words(&other)
                )));
            }
        };
        let function = |key: &str, what: &str| -> mlua::Result<Function> {
            match t.raw_get::<Value>(key)? {
                Value::Function(f) => Ok(f),
                Value::Nil => Err(mlua::Error::runtime(format!(
                    "rule `{rule}`, action `{name}` has no `{key}` function: {what}"
                ))),
                other => Err(mlua::Error::runtime(format!(
                    "rule `{rule}`, action `{name}`: `{key}` must be a function, not {}",
                    words(&other)
                ))),
            }
        };
        let site = format!("rule `{rule}`, action `{name}`");
        let (targets, declared) = match t.raw_get::<Value>("targets")? {
            Value::Table(d) => (None, Some(read_declared_targets(&site, &d)?)),
            _ => (
                Some(function(
                    "targets",
                    "every action says who may take it and where, with targets(ctx) returning a list of hexes, {\"none\"}, or {} when it may not be taken now, or declares them (targets = { spots = ... } or { pile = ... })",
                )?),
                None,
            ),
        };
        let play = function(
            "play",
            "every action says what it does, with play(ctx, target, fx) asking for effects",
        )?;
        let facing = match t.raw_get::<Value>("facing")? {
            Value::Boolean(b) => b,
            Value::Nil => false,
            other => {
                return Err(mlua::Error::runtime(format!(
                    "rule `{rule}`, action `{name}`: `facing` is true (the player picks a facing with each hex) or false, not {}",
                    words(&other)
                )));
            }
        };
        let stages = read_stages(
            &format!("rule `{rule}`, action `{name}`"),
            t.raw_get::<Value>("stages")?,
        )?;
        let marker = read_marker(&site, &t)?;
        let lacks = read_lacks(&site, &t)?;
        let flag = |key: &str, bit: u8| -> mlua::Result<u8> {
            match t.raw_get::<Value>(key)? {
                Value::Nil | Value::Boolean(false) => Ok(0),
                Value::Boolean(true) => Ok(bit),
                other => Err(mlua::Error::runtime(format!(
                    "{site}: `{key}` is true or false, not {}",
                    words(&other)
                ))),
            }
        };
        use hexforge_core::tile::RuleAction;
        let turn = flag("after_discard", RuleAction::AFTER_DISCARD)?
            | flag("before_placing", RuleAction::BEFORE_PLACING)?;
        let secret = flag("secret", 1)? == 1;
        let counts = read_counts(&site, &t)?;
        let cites = match t.raw_get::<Value>("cites")? {
            Value::Nil => String::new(),
            Value::String(s) => s.to_str()?.to_string(),
            other => {
                return Err(mlua::Error::runtime(format!(
                    "{site}: `cites` is the rule it follows, e.g. \"R10.6.3\", not {}",
                    words(&other)
                )));
            }
        };
        for pair in t.pairs::<Value, Value>() {
            let (k, _) = pair?;
            let known = [
                "name",
                "doc",
                "targets",
                "play",
                "facing",
                "stages",
                "marker",
                "lacks",
                "after_discard",
                "before_placing",
                "cites",
                "secret",
                "at_least",
                "below",
            ];
            let key = k.to_string().unwrap_or_default();
            if !known.contains(&key.as_str()) {
                return Err(mlua::Error::runtime(format!(
                    "{site}: unknown key `{key}`{} (keys: {})",
                    hexforge_core::names::did_you_mean(&key, known),
                    known.join(", ")
                )));
            }
        }
        actions.push(RuleActionImpl {
            name,
            doc,
            targets,
            declared,
            counts,
            play,
            facing,
            stages,
            marker,
            lacks,
            turn,
            cites,
            secret,
        });
    }
    if actions.len() > usize::from(u8::MAX) {
        return Err(mlua::Error::runtime(format!(
            "rule `{rule}` offers {} actions: at most 255",
            actions.len()
        )));
    }
    Ok(actions)
}

/// `at_least = { name = n, ... }` and `below = { name = n, ... }` of `t` (an action or a
/// declared restriction), sorted by marker name so that the order Lua walks them in does not
/// show.
fn read_counts(site: &str, t: &Table) -> mlua::Result<hexforge_core::declared::Counts> {
    let mut counts = hexforge_core::declared::Counts::default();
    for (key, out) in [
        ("at_least", &mut counts.at_least),
        ("below", &mut counts.below),
    ] {
        let shape = format!(
            "`{key}` is a table of player markers and whole numbers, e.g. {{ charges = 2 }}"
        );
        match t.raw_get::<Value>(key)? {
            Value::Nil => {}
            Value::Table(list) => {
                for pair in list.pairs::<Value, Value>() {
                    let (k, v) = pair?;
                    let (Value::String(k), Value::Integer(n)) = (&k, &v) else {
                        return Err(mlua::Error::runtime(format!("{site}: {shape}")));
                    };
                    let name = marker_arg(site, key, k)?;
                    let n = i16::try_from(*n)
                        .ok()
                        .filter(|n| (-999..=999).contains(n))
                        .ok_or_else(|| {
                            mlua::Error::runtime(format!(
                                "{site}: `{key}` gives `{name}` {n}: a marker's value is -999 to 999"
                            ))
                        })?;
                    out.push((name, n));
                }
                out.sort_by_key(|(m, _)| m.to_string());
            }
            other => {
                return Err(mlua::Error::runtime(format!(
                    "{site}: {shape}, not {}",
                    words(&other)
                )));
            }
        }
    }
    Ok(counts)
}

/// An action's `targets` declared as data: `{ spots = { from = { "hq", { marked = "name" } },
/// size = 3 }, why = "..." }` or `{ pile = { "soldier", "module" }, why = "..." }`.
fn read_declared_targets(site: &str, t: &Table) -> mlua::Result<hexforge_core::declared::Declared> {
    use hexforge_core::declared::{Declared, DeclaredTargets, SpotFrom};
    let shape = "declared `targets` are { spots = { from = { \"hq\", { marked = \"name\" } }, size = 3 } } or { pile = { \"soldier\", \"module\" } }, with an optional why = \"...\"";
    let mut why = String::new();
    let mut targets = None;
    let mut keys: Vec<String> = Vec::new();
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair?;
        keys.push(k.to_string().unwrap_or_else(|_| words(&k)));
    }
    keys.sort();
    for key in &keys {
        match key.as_str() {
            "why" => match t.raw_get::<Value>("why")? {
                Value::String(s) => why = s.to_str()?.to_string(),
                other => {
                    return Err(mlua::Error::runtime(format!(
                        "{site}: `targets.why` is the reason given when it lists nothing, a string, not {}",
                        words(&other)
                    )));
                }
            },
            "spots" | "pile" if targets.is_some() => {
                return Err(mlua::Error::runtime(format!(
                    "{site}: `targets` declares both `spots` and `pile`: one of them ({shape})"
                )));
            }
            "spots" => {
                let Value::Table(sp) = t.raw_get::<Value>("spots")? else {
                    return Err(mlua::Error::runtime(format!("{site}: {shape}")));
                };
                let max = hexforge_core::link::MAX_SEGMENTS;
                let size = match sp.raw_get::<Value>("size")? {
                    Value::Integer(n) if (2..=i64::from(max)).contains(&n) => n as u8,
                    other => {
                        return Err(mlua::Error::runtime(format!(
                            "{site}: `targets.spots.size` is the number of hexes of the whole unit, 2 to {max}, not {}",
                            words(&other)
                        )));
                    }
                };
                let Value::Table(list) = sp.raw_get::<Value>("from")? else {
                    return Err(mlua::Error::runtime(format!(
                        "{site}: `targets.spots.from` lists the hexes the unit holds already: \"hq\" or {{ marked = \"name\" }}"
                    )));
                };
                let mut from = Vec::new();
                for v in list.sequence_values::<Value>() {
                    match v? {
                        Value::String(s) if s.as_bytes() == b"hq".as_slice() => {
                            from.push(SpotFrom::Hq)
                        }
                        Value::Table(m) => match m.raw_get::<Value>("marked")? {
                            Value::String(n) => from.push(SpotFrom::Marked(marker_arg(
                                site,
                                "targets.spots.from",
                                &n,
                            )?)),
                            other => {
                                return Err(mlua::Error::runtime(format!(
                                    "{site}: `targets.spots.from`: a marked hex is {{ marked = \"name\" }}, with a hex marker's name, not {}",
                                    words(&other)
                                )));
                            }
                        },
                        other => {
                            return Err(mlua::Error::runtime(format!(
                                "{site}: `targets.spots.from` lists \"hq\" or {{ marked = \"name\" }}, not {}",
                                words(&other)
                            )));
                        }
                    }
                }
                if from.is_empty() || from.len() >= usize::from(size) {
                    return Err(mlua::Error::runtime(format!(
                        "{site}: `targets.spots.from` lists {} hexes for a unit of {size}: one at least, and fewer than `size`",
                        from.len()
                    )));
                }
                targets = Some(DeclaredTargets::Spots { from, size });
            }
            "pile" => {
                let Value::Table(list) = t.raw_get::<Value>("pile")? else {
                    return Err(mlua::Error::runtime(format!("{site}: {shape}")));
                };
                const KINDS: [&str; 4] = ["hq", "soldier", "module", "instant"];
                let mut kinds = 0u8;
                for v in list.sequence_values::<Value>() {
                    let w = v?.to_string().unwrap_or_default();
                    let Some(i) = KINDS.iter().position(|k| *k == w) else {
                        return Err(mlua::Error::runtime(format!(
                            "{site}: `targets.pile`: `{w}` is no kind of tile{}: hq, soldier, module or instant",
                            hexforge_core::names::did_you_mean(&w, KINDS)
                        )));
                    };
                    kinds |= 1 << i;
                }
                if kinds == 0 {
                    return Err(mlua::Error::runtime(format!(
                        "{site}: `targets.pile` names no kind of tile: list one at least"
                    )));
                }
                targets = Some(DeclaredTargets::Pile { kinds });
            }
            other => {
                return Err(mlua::Error::runtime(format!(
                    "{site}: unknown key `{other}` in `targets`{}: {shape}",
                    hexforge_core::names::did_you_mean(other, ["spots", "pile", "why"])
                )));
            }
        }
    }
    let Some(targets) = targets else {
        return Err(mlua::Error::runtime(format!("{site}: {shape}")));
    };
    Ok(Declared { targets, why })
}

/// `restrict = { { marker = "...", close = { ... } }, ... }`: a rule's restrictions declared as
/// data; `offered` names one of `actions`.
fn read_restrictions(
    rule: &str,
    list: &Table,
    actions: &[RuleActionImpl],
) -> mlua::Result<Vec<hexforge_core::declared::DeclaredRestriction>> {
    use hexforge_core::declared::{Closed, DeclaredRestriction};
    const KEYS: [&str; 8] = [
        "stages",
        "marker",
        "lacks",
        "at_least",
        "below",
        "offered",
        "close",
        "place_only",
    ];
    let mut out = Vec::new();
    for (i, v) in list.sequence_values::<Value>().enumerate() {
        let site = format!("rule `{rule}`, restriction {}", i + 1);
        let Value::Table(t) = v? else {
            return Err(mlua::Error::runtime(format!(
                "rule `{rule}`: a declared `restrict` is a list of restrictions, each {{ marker = \"...\", close = {{ \"place\", ... }} }}"
            )));
        };
        for pair in t.pairs::<Value, Value>() {
            let (k, _) = pair?;
            let key = k.to_string().unwrap_or_default();
            if !KEYS.contains(&key.as_str()) {
                return Err(mlua::Error::runtime(format!(
                    "{site}: unknown key `{key}`{} (keys: {})",
                    hexforge_core::names::did_you_mean(&key, KEYS),
                    KEYS.join(", ")
                )));
            }
        }
        let mut r = DeclaredRestriction {
            stages: read_stages(&site, t.raw_get::<Value>("stages")?)?,
            counts: read_counts(&site, &t)?,
            ..DeclaredRestriction::default()
        };
        r.marker = read_marker(&site, &t)?;
        r.lacks = read_lacks(&site, &t)?;
        match t.raw_get::<Value>("offered")? {
            Value::Nil => {}
            Value::String(s) => {
                let n = s.to_str()?.to_string();
                let Some(a) = actions.iter().position(|a| a.name == n) else {
                    return Err(mlua::Error::runtime(format!(
                        "{site}: `offered` names `{n}`, which is none of the rule's actions{}",
                        hexforge_core::names::did_you_mean(
                            &n,
                            actions.iter().map(|a| a.name.as_str())
                        )
                    )));
                };
                r.offered = Some(a as u8);
            }
            other => {
                return Err(mlua::Error::runtime(format!(
                    "{site}: `offered` is the name of one of the rule's actions, not {}",
                    words(&other)
                )));
            }
        }
        match t.raw_get::<Value>("close")? {
            Value::Nil => {}
            Value::Table(words_list) => {
                for w in words_list.sequence_values::<Value>() {
                    let w = w?.to_string().unwrap_or_default();
                    let kind = Closed::named(&w)
                        .map_err(|why| mlua::Error::runtime(format!("{site}: `close`: {why}")))?;
                    r.close = r.close.union(kind);
                }
            }
            other => {
                return Err(mlua::Error::runtime(format!(
                    "{site}: `close` is a list of kinds of action, not {}",
                    words(&other)
                )));
            }
        }
        match t.raw_get::<Value>("place_only")? {
            Value::Nil => {}
            Value::Table(p) => match p.raw_get::<Value>("empty_segments")? {
                Value::String(k) => {
                    r.place_only_segments = Some(marker_arg(&site, "place_only", &k)?)
                }
                other => {
                    return Err(mlua::Error::runtime(format!(
                        "{site}: `place_only` is {{ empty_segments = \"kind\" }}, the kind of the player's linked units whose empty segments stay open, not {}",
                        words(&other)
                    )));
                }
            },
            other => {
                return Err(mlua::Error::runtime(format!(
                    "{site}: `place_only` is {{ empty_segments = \"kind\" }}, not {}",
                    words(&other)
                )));
            }
        }
        if r.close == Closed::NONE && r.place_only_segments.is_none() {
            return Err(mlua::Error::runtime(format!(
                "{site}: it closes nothing: give `close` or `place_only`"
            )));
        }
        out.push(r);
    }
    Ok(out)
}
