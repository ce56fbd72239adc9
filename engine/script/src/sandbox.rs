//! The sandboxed Lua state: the standard functions a script gets, the ones replaced for safety
//! and determinism (ordered `pairs`, seeded `math.random`, a `pcall` that cannot swallow the
//! limits), read-only tables, and the instruction, time and memory limits. The host alone keeps
//! three functions of Lua's `debug` library, to read and put back upvalues
//! ([`crate::snapshot`]); no script can reach them.

use hexforge_core::Rng;
use mlua::{ChunkMode, HookTriggers, Lua, LuaOptions, StdLib, Table, Value, VmState};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// How much one script call may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Lua VM instructions per call (deterministic: the same script stops at the same point in
    /// every process).
    pub instructions: u64,
    /// Wall-clock time per call, a backstop for slow machines.
    pub time: Duration,
    /// Memory of one mod's Lua state, in bytes.
    pub memory: usize,
}

impl Default for Limits {
    /// 2 million instructions (a few milliseconds), 50 ms, 64 MiB.
    fn default() -> Self {
        Limits {
            instructions: 2_000_000,
            time: Duration::from_millis(50),
            memory: 64 << 20,
        }
    }
}

/// Instructions between two checks of the limits.
const STEP: u32 = 1_000;

/// What one call has used; the instruction hook stops the script once a limit is passed.
#[derive(Debug)]
pub(crate) struct Budget {
    limits: Limits,
    used: Cell<u64>,
    start: Cell<Option<Instant>>,
    /// A limit was passed: every later check fails too, so no `pcall` can go on running.
    tripped: Cell<bool>,
}

impl Budget {
    /// Starts a new call.
    pub(crate) fn reset(&self) {
        self.used.set(0);
        self.start.set(Some(Instant::now()));
        self.tripped.set(false);
    }

    fn check(&self) -> Result<(), String> {
        self.used.set(self.used.get() + u64::from(STEP));
        let late = self
            .start
            .get()
            .is_some_and(|s| s.elapsed() > self.limits.time);
        if self.tripped.get() || self.used.get() > self.limits.instructions || late {
            self.tripped.set(true);
            return Err(format!(
                "the script ran too long and was stopped (limit: {} instructions or {} ms per call); look for an endless loop or recursion",
                self.limits.instructions,
                self.limits.time.as_millis()
            ));
        }
        Ok(())
    }
}

/// A fresh sandboxed state and the table of what every script may use (`base`), already
/// read-only. The library and each mod get environments that read through to `base`.
pub(crate) struct Sandbox {
    pub(crate) lua: Lua,
    pub(crate) budget: Rc<Budget>,
    pub(crate) base: Table,
    /// Makes a table read-only (deeply): `freeze(t)` returns a proxy.
    pub(crate) freeze: mlua::Function,
    /// `original(t)`: the table behind a read-only proxy, or nil if `t` is none.
    pub(crate) original: mlua::Function,
    pub(crate) debug: UpvalueAccess,
}

/// The host's private access to upvalues: `debug.getupvalue`, `debug.setupvalue` and
/// `debug.upvalueid`, taken out of the state before any script runs.
pub(crate) struct UpvalueAccess {
    pub(crate) getupvalue: mlua::Function,
    pub(crate) setupvalue: mlua::Function,
    pub(crate) upvalueid: mlua::Function,
}

/// Trusted setup code, run with the full standard library before any script: builds `base` from
/// a list of allowed functions and replaces the unsafe or order-dependent ones.
const SETUP: &str = r#"
local tripped, random = ...
local getmetatable, setmetatable, rawget, next, type, error, tostring =
  getmetatable, setmetatable, rawget, next, type, error, tostring
local raw_pcall, select, sort = pcall, select, table.sort

-- String methods must not reach string.dump, nor let scripts change the string metatable.
string.dump = nil
getmetatable("").__metatable = false

-- Tables, functions and coroutines print as their type, never as an address: addresses differ
-- from one process (and one allocation) to the next. A table with `__tostring` or `__name` in
-- its metatable prints as that says.
local raw_tostring, raw_format, gsub = tostring, string.format, string.gsub
local addressed = { table = true, ["function"] = true, userdata = true, thread = true }
local function safe_tostring(v)
  local t = type(v)
  if not addressed[t] then
    return raw_tostring(v)
  end
  local mt = getmetatable(v)
  if type(mt) == "table" then
    if rawget(mt, "__tostring") ~= nil then
      return raw_tostring(v)
    end
    local name = rawget(mt, "__name")
    if type(name) == "string" then
      return name
    end
  end
  return t
end
tostring = safe_tostring
-- string.format's `%s` and `%q` would show addresses too, and `%p` is nothing but one.
string.format = function(fmt, ...)
  if type(fmt) == "string" and gsub(fmt, "%%%%", ""):find("%%[-+ #0]*%d*%.?%d*p") then
    error("string.format: `%p` is not allowed: an address differs from one process to another", 2)
  end
  local n = select('#', ...)
  local args = { ... }
  for i = 1, n do
    if addressed[type(args[i])] then
      args[i] = safe_tostring(args[i])
    end
  end
  return raw_format(fmt, table.unpack(args, 1, n))
end

local originals = setmetatable({}, { __mode = "k" })

local function freeze(t)
  if type(t) ~= "table" or originals[t] then
    return t
  end
  for k, v in next, t do
    if type(v) == "table" then
      t[k] = freeze(v)
    end
  end
  local proxy = setmetatable({}, {
    __index = t,
    __newindex = function(_, k)
      error("cannot change `" .. tostring(k) .. "`: the library and a mod's globals are read-only; use a local", 2)
    end,
    __len = function() return #t end,
    __metatable = false,
  })
  originals[proxy] = t
  return proxy
end

local function original(t)
  return originals[t]
end

-- Keys in a fixed order: numbers, then strings, then booleans, each ascending.
local rank = { number = 1, string = 2, boolean = 3 }
local function before(a, b)
  local ra, rb = rank[type(a)], rank[type(b)]
  if ra ~= rb then return ra < rb end
  if ra == 3 then return (not a) and b end
  return a < b
end

local function ordered_pairs(t)
  local src = originals[t] or t
  if type(src) ~= "table" then
    error("pairs: expected a table, got " .. type(src), 2)
  end
  local keys, n = {}, 0
  for k in next, src do
    if not rank[type(k)] then
      error("pairs: table keys must be numbers, strings or booleans to be visited in a fixed order", 2)
    end
    n = n + 1
    keys[n] = k
  end
  sort(keys, before)
  local i = 0
  return function()
    i = i + 1
    local k = keys[i]
    if k ~= nil then
      return k, src[k]
    end
  end, t, nil
end

-- pcall catches script errors, never the limits: once a limit is passed the error goes on up.
local function safe_pcall(f, ...)
  local function pass(ok, ...)
    if not ok and tripped() then
      error((...), 0)
    end
    return ok, ...
  end
  return pass(raw_pcall(f, ...))
end

-- Finalizers and weak tables act whenever the collector runs, and when it runs depends on all that
-- was allocated before (other battles, a bot's simulations): a metatable may not bring them.
-- (Lua marks an object for finalization only if its metatable has __gc when it is set.)
local raw_setmetatable = setmetatable
local function safe_setmetatable(t, mt)
  if type(mt) == "table" and (rawget(mt, "__gc") ~= nil or rawget(mt, "__mode") ~= nil) then
    error("setmetatable: `__gc` and `__mode` are not allowed: finalizers and weak tables depend on when memory is collected, which differs from one process to another", 2)
  end
  return raw_setmetatable(t, mt)
end

local function copy(t, except)
  local c = {}
  for k, v in next, t do
    if not (except and except[k]) then
      c[k] = v
    end
  end
  return c
end

local m = copy(math, { random = true, randomseed = true })
m.random = random

local base = {
  assert = assert, error = error, ipairs = ipairs, pairs = ordered_pairs, pcall = safe_pcall,
  select = select, tonumber = tonumber, tostring = tostring, type = type,
  rawequal = rawequal, rawlen = rawlen, getmetatable = getmetatable, setmetatable = safe_setmetatable,
  string = copy(string), table = copy(table), math = m, utf8 = copy(utf8),
  _VERSION = _VERSION,
}
return freeze(base), freeze, original
"#;

/// Creates a sandboxed state with `limits`; `math.random` draws from `rng`.
pub(crate) fn new_sandbox(limits: Limits, rng: Rc<RefCell<Rng>>) -> mlua::Result<Sandbox> {
    let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8;
    // SAFETY: `unsafe_new_with` only skips mlua's refusal of the `debug` library (no C modules
    // can be loaded: `package` is not opened). The host takes the three functions it needs right
    // below and removes `debug` from the globals before any other code runs; scripts run in
    // environments built from `base`, which never holds `debug`, the globals or the registry.
    #[allow(unsafe_code)]
    let lua = unsafe { Lua::unsafe_new_with(libs | StdLib::DEBUG, LuaOptions::default()) };
    let globals = lua.globals();
    let lib: Table = globals.raw_get("debug")?;
    let debug = UpvalueAccess {
        getupvalue: lib.raw_get("getupvalue")?,
        setupvalue: lib.raw_get("setupvalue")?,
        upvalueid: lib.raw_get("upvalueid")?,
    };
    globals.raw_set("debug", Value::Nil)?;
    let budget = Rc::new(Budget {
        limits,
        used: Cell::new(0),
        start: Cell::new(None),
        tripped: Cell::new(false),
    });
    let b = budget.clone();
    let tripped = lua.create_function(move |_, ()| Ok(b.tripped.get()))?;
    let random = lua.create_function(move |_, args: mlua::Variadic<i64>| {
        let mut rng = rng.borrow_mut();
        let mut range = |lo: i64, hi: i64| -> mlua::Result<Value> {
            if lo > hi {
                return Err(mlua::Error::runtime(format!(
                    "math.random: interval is empty ({lo} > {hi})"
                )));
            }
            let span = (hi - lo) as u64 + 1;
            let pick = if span == 0 {
                rng.next_u64()
            } else {
                rng.next_u64() % span
            };
            Ok(Value::Integer(lo.wrapping_add(pick as i64)))
        };
        match args.len() {
            0 => Ok(Value::Number(
                (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64,
            )),
            1 => range(1, args[0]),
            2 => range(args[0], args[1]),
            _ => Err(mlua::Error::runtime("math.random: at most two arguments")),
        }
    })?;
    let (base, freeze, original): (Table, mlua::Function, mlua::Function) = lua
        .load(SETUP)
        .set_name("=sandbox")
        .set_mode(ChunkMode::Text)
        .call((tripped, random))?;
    let b = budget.clone();
    lua.set_hook(
        HookTriggers::new().every_nth_instruction(STEP),
        move |_, _| match b.check() {
            Ok(()) => Ok(VmState::Continue),
            Err(msg) => Err(mlua::Error::runtime(msg)),
        },
    )?;
    lua.set_memory_limit(limits.memory)?;
    Ok(Sandbox {
        lua,
        budget,
        base,
        freeze,
        original,
        debug,
    })
}

/// A new environment that reads through to `parent` and keeps its own globals.
pub(crate) fn child_env(lua: &Lua, parent: &Table) -> mlua::Result<Table> {
    let env = lua.create_table()?;
    let meta = lua.create_table()?;
    meta.set("__index", parent.clone())?;
    meta.set("__metatable", false)?;
    env.set_metatable(Some(meta))?;
    Ok(env)
}
