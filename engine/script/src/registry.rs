//! The abilities scripts define with `ability(name, { point = function ... })`, by name, with
//! where each was defined.

use hexforge_core::hooks::HookPoints;
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

/// The abilities of one environment (the shared library's, or one mod's).
#[derive(Debug, Default)]
pub(crate) struct Registry {
    pub(crate) abilities: BTreeMap<String, Ability>,
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
