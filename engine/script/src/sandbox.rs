//! The sandboxed Lua state: the standard functions a script gets, the ones replaced for safety
//! and determinism (ordered `pairs`, seeded `math.random`, a `pcall` that cannot swallow the
//! limits), read-only tables, and the limits: the instruction count (library work included, see
//! [`crate::strings`]) that stops a hook, the memory cap, and a wall-clock safeguard far above
//! both that only catches a stuck host. Script calls run through a [`Runner`], whose message
//! handler reads the call stack where an error is raised, so every failure names the script's
//! line, with a short traceback and a message shown the same way in every process. The host
//! alone keeps three functions of Lua's `debug` library, to read and put back upvalues
//! ([`crate::snapshot`]); no script can reach them.

use crate::stack::{Frame, TRACEBACK_FRAMES, script_frames};
use crate::strings::{Charge, grouped};
use hexforge_core::Rng;
use mlua::{
    ChunkMode, FromLuaMulti, Function, HookTriggers, IntoLuaMulti, Lua, LuaOptions, MultiValue,
    StdLib, Table, Value, VmState,
};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// How much one script call may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Lua VM instructions per call, library work included (deterministic: the same script stops
    /// at the same point in every process, however loaded the machine). This is the limit that
    /// stops a hook in a game.
    pub instructions: u64,
    /// Wall-clock time per call: a host safeguard against a stuck call (work the instruction
    /// count does not see), set far above what any call under the instruction limit takes.
    pub time: Duration,
    /// Memory of one mod's Lua state, in bytes.
    pub memory: usize,
}

impl Default for Limits {
    /// 2 million instructions (a few milliseconds), a 10 s safeguard, 64 MiB.
    fn default() -> Self {
        Limits {
            instructions: 2_000_000,
            time: Duration::from_secs(10),
            memory: 64 << 20,
        }
    }
}

/// Instructions between two checks of the limits.
const STEP: u32 = 1_000;

/// The longest error message shown, in bytes; the rest is counted, not shown.
pub(crate) const MESSAGE_MAX: usize = 500;

/// A script call that failed, located: what the script was doing when it stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    /// `file:line` of the script code that failed, when a script was running.
    pub(crate) at: Option<String>,
    /// What went wrong, cut to [`MESSAGE_MAX`] bytes.
    pub(crate) message: String,
    /// A few script frames, innermost first: `file:line in function 'name'`.
    pub(crate) traceback: Vec<String>,
}

impl From<mlua::Error> for Failure {
    /// An error of the host's own work around a call: no script line to name.
    fn from(e: mlua::Error) -> Self {
        Failure {
            at: None,
            message: cut(&error_text(&e, &Limits::default())),
            traceback: Vec::new(),
        }
    }
}

/// `text` cut to [`MESSAGE_MAX`] bytes (at a character boundary), with the length of the rest;
/// a line break in it starts an indented line, so that no line of a script's message passes for
/// a line of the host's output (`Result: ...`).
pub(crate) fn cut(text: &str) -> String {
    indented(cut_plain(text))
}

/// Every line after the first of `text` indented, and no carriage return left to move back to
/// the start of a line.
fn indented(text: String) -> String {
    if !text.contains(['\n', '\r']) {
        return text;
    }
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('\n', "\n    ")
}

/// [`cut`] without the indenting.
fn cut_plain(text: &str) -> String {
    if text.len() <= MESSAGE_MAX {
        return text.to_string();
    }
    let mut end = MESSAGE_MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\u{2026} ({} more bytes)",
        &text[..end],
        grouped((text.len() - end) as u64)
    )
}

/// Like [`cut`], for the bytes of a Lua string (which may be huge and need not be UTF-8).
fn cut_bytes(bytes: &[u8]) -> String {
    indented(cut_bytes_plain(bytes))
}

/// [`cut_bytes`] without the indenting.
fn cut_bytes_plain(bytes: &[u8]) -> String {
    if bytes.len() <= MESSAGE_MAX {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut end = MESSAGE_MAX;
    while end > 0 && (bytes[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    format!(
        "{}\u{2026} ({} more bytes)",
        String::from_utf8_lossy(&bytes[..end]),
        grouped((bytes.len() - end) as u64)
    )
}

/// `64 MiB`, or a number of bytes.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} bytes", grouped(bytes as u64))
    }
}

/// `10 s`, or milliseconds.
fn duration(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// The text of an mlua error as a script author should read it: the cause of a callback error,
/// without mlua's traceback.
pub(crate) fn error_text(e: &mlua::Error, limits: &Limits) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => error_text(cause, limits),
        mlua::Error::MemoryError(_) => memory_message(limits),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(m) => {
            hide_addresses(m.split("\nstack traceback:").next().unwrap_or(m))
        }
        mlua::Error::BadArgument {
            to,
            pos,
            name,
            cause,
        } => bad_argument(to.as_deref(), *pos, name.as_deref(), cause, limits),
        mlua::Error::FromLuaConversionError { from, to, message } => {
            let what = match message.as_deref() {
                Some(m) if m.contains("out of range") => format!(
                    "{} in range (this number is too large, too small or not a number)",
                    rust_type_words(to)
                ),
                _ => rust_type_words(to),
            };
            format!("expected {what}, got {}", lua_type_words(from))
        }
        other => hide_addresses(&other.to_string()),
    }
}

/// A host function's name as scripts call it: `Shared<Call>.tile_at` is `ctx:tile_at`.
fn script_name(to: &str) -> String {
    for (rust, lua) in [
        ("Shared<Call>.", "ctx:"),
        ("Shared<Fx>.", "fx:"),
        ("Shared<Plan>.", "plan:"),
        ("Shared<Hits>.", "hits:"),
    ] {
        if let Some(method) = to.strip_prefix(rust) {
            return format!("{lua}{method}");
        }
    }
    to.to_string()
}

/// A bad argument to a host function, in a modder's words: which argument as the script counts
/// them (a method's object is not one), and what it must be.
fn bad_argument(
    to: Option<&str>,
    pos: usize,
    name: Option<&str>,
    cause: &mlua::Error,
    limits: &Limits,
) -> String {
    let called = to.map_or_else(|| "a host function".to_string(), script_name);
    let method = called.contains(':');
    if name == Some("self") || (method && pos <= 1) {
        let dot = called.replacen(':', ".", 1);
        return format!(
            "`{called}` was called without its object (`{dot}(...)`): call a method with a colon, `{called}(...)`"
        );
    }
    let n = if method { pos.saturating_sub(1) } else { pos };
    format!("`{called}`: argument {n}: {}", error_text(cause, limits))
}

/// A Rust type a host function takes, as a modder would name what to give.
fn rust_type_words(to: &str) -> String {
    match to {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "usize" | "isize" => {
            "a whole number".to_string()
        }
        "f32" | "f64" => "a number".to_string(),
        "String" | "str" | "&str" | "BString" | "LuaString" | "string" => "text".to_string(),
        "bool" => "true or false".to_string(),
        "Table" | "table" => "a table".to_string(),
        "Function" | "function" => "a function".to_string(),
        other if other.starts_with("Option<") => {
            rust_type_words(other.trim_start_matches("Option<").trim_end_matches('>'))
        }
        other if other.starts_with("Vec<") => "a list".to_string(),
        other => format!("a {other}"),
    }
}

/// A Lua type's name as a value: `nil`, `a table`, `a number`.
fn lua_type_words(from: &str) -> String {
    match from {
        "nil" => "nil".to_string(),
        "missing argument" => "nothing (the argument is missing)".to_string(),
        "integer" | "number" => "a number".to_string(),
        "boolean" => "true or false".to_string(),
        "string" => "text".to_string(),
        other => format!("a {other}"),
    }
}

/// `text` without the addresses Lua prints for a table, function, thread or userdata error
/// object that passed through a nested call (`table: 0x5581...` becomes `a table`).
fn hide_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(": 0x") {
        let hex = rest[i + 4..]
            .bytes()
            .take_while(u8::is_ascii_hexdigit)
            .count();
        let word_start = rest[..i]
            .rfind(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .map_or(0, |j| j + 1);
        if hex == 0 {
            out.push_str(&rest[..i + 4]);
            rest = &rest[i + 4..];
            continue;
        }
        out.push_str(&rest[..word_start]);
        out.push_str("a ");
        out.push_str(&rest[word_start..i]);
        rest = &rest[i + 4 + hex..];
    }
    out.push_str(rest);
    out
}

fn memory_message(limits: &Limits) -> String {
    format!(
        "out of memory: the mod's Lua state may use {}; look for a table or string that grows without end",
        size(limits.memory)
    )
}

/// What one call has used; the instruction hook stops the script once a limit is passed.
#[derive(Debug)]
pub(crate) struct Budget {
    limits: Limits,
    used: Cell<u64>,
    start: Cell<Option<Instant>>,
    /// A limit was passed, and where: every later check fails too, so no `pcall` can go on
    /// running, and the error names the line that passed it.
    trip: RefCell<Option<Failure>>,
    /// The script file and line the last check saw running: where a memory error is reported
    /// (Lua raises it with no message handler, after the stack is gone).
    last_seen: RefCell<(String, usize)>,
}

impl Budget {
    /// Starts a new call. Its clock starts at the first check (after [`STEP`] instructions):
    /// most calls end before, and reading the clock costs more than their Lua.
    pub(crate) fn reset(&self) {
        self.used.set(0);
        self.start.set(None);
        *self.trip.borrow_mut() = None;
        self.last_seen.borrow_mut().0.clear();
    }

    /// A limit was passed in this call.
    pub(crate) fn tripped(&self) -> Option<Failure> {
        self.trip.borrow().clone()
    }

    /// Records that a limit was passed, where the innermost script is, and returns the error.
    fn trip(&self, lua: &Lua, message: impl FnOnce(Option<&Frame>) -> String) -> mlua::Error {
        if let Some(t) = self.trip.borrow().as_ref() {
            return mlua::Error::runtime(t.message.clone());
        }
        let frames = script_frames(lua, TRACEBACK_FRAMES);
        let message = message(frames.first());
        *self.trip.borrow_mut() = Some(Failure {
            at: frames.first().map(Frame::at),
            message: message.clone(),
            traceback: frames.iter().map(Frame::describe).collect(),
        });
        mlua::Error::runtime(message)
    }

    fn instructions_message(&self) -> String {
        format!(
            "the script ran too long and was stopped: a call may run {} instructions (library calls count their work too), the same on every machine; look for an endless loop or recursion",
            grouped(self.limits.instructions)
        )
    }

    /// Counts `n` instructions of work; an error once the call has used its budget.
    pub(crate) fn charge(&self, lua: &Lua, n: u64) -> mlua::Result<()> {
        self.used.set(self.used.get().saturating_add(n));
        if self.trip.borrow().is_some() || self.used.get() > self.limits.instructions {
            return Err(self.trip(lua, |_| self.instructions_message()));
        }
        Ok(())
    }

    /// The check the instruction hook makes every [`STEP`] instructions.
    fn check(&self, lua: &Lua) -> mlua::Result<()> {
        self.charge(lua, u64::from(STEP))?;
        let late = match self.start.get() {
            Some(s) => s.elapsed() > self.limits.time,
            None => {
                self.start.set(Some(Instant::now()));
                false
            }
        };
        if late {
            return Err(self.trip(lua, |at| {
                format!(
                    "stopped after {} of wall-clock time: this is a host safeguard, not a game rule; the script is stuck in {} (in work the instruction count does not see, such as joining or comparing huge strings in a loop)",
                    duration(self.limits.time),
                    at.map_or_else(|| "the library".to_string(), Frame::at)
                )
            }));
        }
        lua.inspect_stack(0, |d| {
            let source = d.source();
            if let Some(file) = source.source.as_deref().and_then(|s| s.strip_prefix('@')) {
                let mut seen = self.last_seen.borrow_mut();
                if seen.0 != file {
                    seen.0.clear();
                    seen.0.push_str(file);
                }
                seen.1 = d.current_line().unwrap_or(0);
            }
        });
        Ok(())
    }

    /// What to say when a call failed without the message handler seeing it: the limit it
    /// passed, or memory running out inside a single allocation, at the line last seen.
    fn unseen(&self, text: &str) -> Failure {
        if let Some(t) = self.tripped() {
            return t;
        }
        let seen = self.last_seen.borrow();
        let at = (!seen.0.is_empty()).then(|| format!("{}:{}", seen.0, seen.1));
        let message = if text.contains("not enough memory") {
            memory_message(&self.limits)
        } else {
            cut(text)
        };
        Failure {
            at,
            message,
            traceback: Vec::new(),
        }
    }
}

/// Runs script functions so that every failure comes back located: through `xpcall` with a
/// message handler that reads the call stack where the error was raised.
pub(crate) struct Runner {
    /// Lua's own `xpcall`, called straight from the host.
    xpcall: Function,
    /// The message handler: records the located [`Failure`] in `failure`.
    handler: Function,
    budget: Rc<Budget>,
    failure: Rc<RefCell<Option<Failure>>>,
}

impl Runner {
    /// Calls `f` with `args` as one script call (a fresh budget), its results converted to `R`.
    pub(crate) fn call<R: FromLuaMulti>(
        &self,
        lua: &Lua,
        f: &Function,
        args: impl IntoLuaMulti,
    ) -> Result<R, Failure> {
        self.budget.reset();
        *self.failure.borrow_mut() = None;
        let outside = |e: mlua::Error| self.budget.unseen(&error_text(&e, &self.budget.limits));
        // The function, the handler and the arguments go straight onto the Lua stack, and the
        // results come off it: no list of values is built for a call that returns nothing.
        let (ok, mut out) = self
            .xpcall
            .call::<(bool, MultiValue)>((f, &self.handler, args))
            .map_err(outside)?;
        if ok {
            return R::from_lua_multi(out, lua).map_err(|e| Failure {
                at: None,
                message: cut(&error_text(&e, &self.budget.limits)),
                traceback: Vec::new(),
            });
        }
        Err(self.failure.borrow_mut().take().unwrap_or_else(|| {
            let text = match out.pop_front() {
                Some(Value::String(s)) => s.to_string_lossy(),
                _ => String::new(),
            };
            self.budget.unseen(&text)
        }))
    }
}

/// A message raised in one of the host's own chunks (`sandbox:223: attempt to compare ...`)
/// without that chunk and line, which mean nothing to a modder; any other message as it is.
fn without_host_position(message: &str) -> &str {
    let mut parts = message.splitn(3, ':');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(chunk), Some(line), Some(rest))
            if !chunk.is_empty()
                && chunk.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                && !line.is_empty()
                && line.bytes().all(|b| b.is_ascii_digit()) =>
        {
            rest.trim_start()
        }
        _ => message,
    }
}

/// `file:line` at the start of a Lua error message (`scripts/x.lua:3: text`), and the text.
pub(crate) fn split_position(message: &str) -> Option<(String, &str)> {
    let mut parts = message.splitn(3, ':');
    let (file, line, rest) = (parts.next()?, parts.next()?, parts.next()?);
    (file.ends_with(".lua") && !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()))
        .then(|| (format!("{file}:{line}"), rest.trim_start()))
}

/// What the message handler makes of an error object: its text (never an address, never more
/// than [`MESSAGE_MAX`] bytes, the same in every process) and where it was raised.
fn describe(lua: &Lua, err: &Value, limits: &Limits, chunks: &RefCell<Vec<String>>) -> Failure {
    let frames = script_frames(lua, TRACEBACK_FRAMES);
    let here = frames.first().map(Frame::at);
    let traceback = frames.iter().map(Frame::describe).collect();
    let positioned = |text: String| match split_position(&text) {
        Some((at, rest)) => (Some(full_name(&at, chunks)), rest.to_string()),
        // Raised inside the host's own Lua (the sandbox's `table.sort`, say): the script's line
        // that called it, and the message without the host's chunk and line.
        None => (here.clone(), without_host_position(&text).to_string()),
    };
    let table = |what: &str| {
        format!(
            "the error object is {what}, not a message (raise a string: error(\"what went wrong\"))"
        )
    };
    let (at, message) = match err {
        Value::String(s) => {
            let bytes = s.as_bytes();
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]);
            match split_position(&head) {
                Some((at, rest)) => {
                    let skip = head.len() - rest.len();
                    let rest = if head.is_char_boundary(skip) && bytes.len() >= skip {
                        cut_bytes(&bytes[skip..])
                    } else {
                        cut(rest)
                    };
                    (Some(full_name(&at, chunks)), with_hint(rest))
                }
                None => {
                    let text = cut_bytes(&bytes);
                    (
                        here.clone(),
                        with_hint(without_host_position(&text).to_string()),
                    )
                }
            }
        }
        Value::Error(e) => positioned(cut(&error_text(e, limits))),
        Value::Nil => (
            here.clone(),
            "error(nil): the script raised an error with no message".to_string(),
        ),
        Value::Boolean(b) => (
            here.clone(),
            format!("error({b}): the script raised a boolean, not a message"),
        ),
        Value::Integer(i) => (here.clone(), i.to_string()),
        Value::Number(n) => (
            here.clone(),
            lua.coerce_string(Value::Number(*n))
                .ok()
                .flatten()
                .map_or_else(|| n.to_string(), |s| s.to_string_lossy()),
        ),
        Value::Table(t) => {
            let shown = match t.metatable() {
                Some(mt) if mt.raw_get::<Value>("__tostring").is_ok_and(|v| !v.is_nil()) => {
                    table("a table with a __tostring metamethod, which the host does not call")
                }
                _ => table("a table"),
            };
            (here.clone(), shown)
        }
        other => (here.clone(), table(&format!("a {}", other.type_name()))),
    };
    Failure {
        at,
        message,
        traceback,
    }
}

/// Lua's own message for a mistake in a script (`attempt to index a nil value (local 't')`),
/// followed by what to do about it; any other message as it is.
fn with_hint(message: String) -> String {
    let hint = if message.starts_with("attempt to index a nil value") {
        "that value is nil, so it has no fields: check it first (`if t then ... end`); a read of the board gives nil where there is nothing (`ctx:tile_at` on an empty hex, say)"
    } else if message.starts_with("attempt to call a nil value (method") {
        "the object has no method of that name: docs/LUA_API.md lists what `ctx`, `plan`, `fx`, `hits` and `a` offer"
    } else if message.starts_with("attempt to call a nil value (field") {
        "there is no function of that name in that table: check its spelling (docs/LUA_API.md lists what scripts may use)"
    } else if message.starts_with("attempt to perform arithmetic on a nil value")
        || message.starts_with("attempt to concatenate a nil value")
        || (message.starts_with("attempt to compare") && message.contains("nil"))
    {
        "a value on this line is nil: give it a default (`x or 0`) or check it first"
    } else {
        return message;
    };
    if message.len() + hint.len() > MESSAGE_MAX {
        return message;
    }
    format!("{message}: {hint}")
}

/// The chunk name behind a position Lua shortened (`...tail.lua:3`): chunk names longer than
/// Lua's 60 characters lose their start in Lua's own messages.
fn full_name(at: &str, chunks: &RefCell<Vec<String>>) -> String {
    let Some(tail) = at.strip_prefix("...") else {
        return at.to_string();
    };
    let (file, line) = at
        .rsplit_once(':')
        .map_or((tail, ""), |(f, l)| (&f[3..], l));
    chunks
        .borrow()
        .iter()
        .find(|c| c.ends_with(file))
        .map_or_else(|| at.to_string(), |c| format!("{c}:{line}"))
}

/// A fresh sandboxed state and the table of what every script may use (`base`), already
/// read-only. The library and each mod get environments that read through to `base`.
pub(crate) struct Sandbox {
    pub(crate) lua: Lua,
    pub(crate) budget: Rc<Budget>,
    /// Calls script functions with located failures.
    pub(crate) runner: Runner,
    /// The names of the chunks loaded so far (`scripts/x.lua`), to undo Lua's shortening.
    pub(crate) chunks: Rc<RefCell<Vec<String>>>,
    pub(crate) base: Table,
    /// Makes a table read-only (deeply): `freeze(t)` returns a proxy.
    pub(crate) freeze: mlua::Function,
    /// `original(t)`: the table behind a read-only proxy, or nil if `t` is none.
    pub(crate) original: mlua::Function,
    pub(crate) debug: UpvalueAccess,
}

/// The host's private access to upvalues while it records them after loading:
/// `debug.getupvalue` and `debug.upvalueid`, taken out of the state before any script runs.
pub(crate) struct UpvalueAccess {
    pub(crate) getupvalue: mlua::Function,
    pub(crate) upvalueid: mlua::Function,
}

/// Trusted setup code, run with the full standard library before any script: builds `base` from
/// a list of allowed functions and replaces the unsafe or order-dependent ones.
const SETUP: &str = r#"
local tripped, random, install, as_message, meta_of, set_meta = ...
local getmetatable, setmetatable, rawget, next, type, error, tostring =
  getmetatable, setmetatable, rawget, next, type, error, tostring
local raw_pcall, select, sort, rawset, rawequal = pcall, select, table.sort, rawset, rawequal

-- String methods must not reach string.dump, nor let scripts change the string metatable.
string.dump = nil
getmetatable("").__metatable = false

-- Tables, functions and coroutines print as their type, never as an address: addresses differ
-- from one process (and one allocation) to the next. A table with `__tostring` or `__name` in
-- its metatable prints as that says.
local raw_tostring = tostring
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
-- Library work that runs in C is counted against the call's instruction budget, and the
-- strings library functions build are capped (strings.rs): the pattern functions (every step
-- counted), `string.rep`, `string.format` (no `%p`, no address for `%s`), `table.concat`, and
-- the functions whose work grows with their arguments (`string.sub`, `table.insert`, ...; `table.sort` is replaced below).
install(safe_tostring)

local originals = setmetatable({}, { __mode = "k" })

-- The proxy made for each table, so that a table reached twice (or from itself) gets one.
local proxies = setmetatable({}, { __mode = "k" })

local function freeze(t)
  if type(t) ~= "table" or originals[t] then
    return t
  end
  local made = proxies[t]
  if made then
    return made
  end
  local proxy = {}
  proxies[t] = proxy
  for k, v in next, t do
    if type(v) == "table" then
      t[k] = freeze(v)
    end
  end
  -- Lua hands an `__index` or `__len` function the table it was called on: through the proxy,
  -- that would be the table behind it, writable where the proxy refuses. The table's metatable
  -- is replaced by a copy whose such functions are handed the proxy instead, and whose `__index`
  -- table is read-only too; the script's own functions stay in it (at 1 and 2, keys Lua never
  -- reads in a metatable) so that what they hold is found like any other reachable function.
  local mt = meta_of(t)
  if type(mt) == "table" then
    local guarded = {}
    for k, v in next, mt do
      guarded[k] = v
    end
    local index, len = rawget(mt, "__index"), rawget(mt, "__len")
    if type(index) == "function" then
      guarded[1] = index
      guarded.__index = function(_, k)
        return index(proxy, k)
      end
    elseif type(index) == "table" then
      guarded.__index = freeze(index)
    end
    if type(len) == "function" then
      guarded[2] = len
      guarded.__len = function()
        return len(proxy)
      end
    end
    set_meta(t, guarded)
  end
  setmetatable(proxy, {
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

-- pcall catches script errors, never the limits: once a limit is passed the error goes on up
-- (`as_message` raises a memory error again). An error the host raised (a Rust error object)
-- reaches the script as its message.
local function safe_pcall(f, ...)
  local function pass(ok, ...)
    if not ok then
      if tripped() then
        error((...), 0)
      end
      return false, as_message((...))
    end
    return ok, ...
  end
  return pass(raw_pcall(f, ...))
end

-- Finalizers and weak tables act whenever the collector runs, and when it runs depends on all that
-- was allocated before (other battles, a bot's simulations): a metatable may not bring them, at
-- `setmetatable` (Lua marks an object for finalization only if its metatable has __gc when it is
-- set) or later. A table used as a metatable gets a `__newindex` that refuses the two keys (if it
-- has none: for the tables it is the metatable of, which may be metatables themselves), and a
-- metatable of its own that does the same (or its metatable gets that `__newindex`), so neither
-- key can be added to it afterwards either. For any other key they set the field as Lua would.
local function no_collector_keys(m, k, v)
  if k == "__gc" or k == "__mode" then
    error("cannot set `" .. k .. "` in a table used as a metatable: finalizers and weak tables depend on when memory is collected, which differs from one process to another", 2)
  end
  rawset(m, k, v)
end
local watched = { __newindex = no_collector_keys }
local raw_setmetatable = setmetatable
local function safe_setmetatable(t, mt)
  if type(t) == "table" and meta_of(t) == watched then
    error("setmetatable: this table is used as a metatable, and keeps the metatable the sandbox gave it (so that `__gc` and `__mode` cannot be added to it): give it its own metatable before using it as one", 2)
  end
  if rawequal(t, mt) then
    error("setmetatable: a table cannot be its own metatable here: put the metamethods in a table of their own", 2)
  end
  if type(mt) == "table" and originals[mt] then
    error("setmetatable: a read-only table (the library, a global) cannot be a metatable: Lua reads metamethods from the table itself; build a local table", 2)
  end
  if type(mt) == "table" then
    if rawget(mt, "__gc") ~= nil or rawget(mt, "__mode") ~= nil then
      error("setmetatable: `__gc` and `__mode` are not allowed: finalizers and weak tables depend on when memory is collected, which differs from one process to another", 2)
    end
    if rawget(mt, "__newindex") == nil and not originals[mt] then
      rawset(mt, "__newindex", no_collector_keys)
    end
    local outer = meta_of(mt)
    if outer == nil then
      raw_setmetatable(mt, watched)
    elseif type(outer) == "table" and outer ~= watched and rawget(outer, "__newindex") == nil
      and not originals[outer] then
      rawset(outer, "__newindex", no_collector_keys)
    end
  end
  return raw_setmetatable(t, mt)
end
-- The guard a plain metatable gets is no business of the script's.
local function safe_getmetatable(v)
  local m = getmetatable(v)
  if m == watched then
    return nil
  end
  return m
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

-- `table.sort` that is the same in every run: Lua's own picks its pivots from the clock once a
-- split goes badly, so elements its order calls equal could come out in another order from one
-- run to the next. A merge sort, stable (equal elements keep their order), counted like any
-- script code.
local function stable_sort(t, lt)
  if type(t) ~= "table" then
    error("bad argument #1 to 'sort' (table expected, got " .. type(t) .. ")", 2)
  end
  if lt == nil then
    lt = function(a, b) return a < b end
  elseif type(lt) ~= "function" then
    error("bad argument #2 to 'sort' (function expected, got " .. type(lt) .. ")", 2)
  end
  local n = #t
  if n < 2 then
    return
  end
  local a, b = {}, {}
  for i = 1, n do
    a[i] = t[i]
  end
  local width = 1
  while width < n do
    local i = 1
    while i <= n do
      local mid, hi = i + width, i + 2 * width
      if mid > n + 1 then mid = n + 1 end
      if hi > n + 1 then hi = n + 1 end
      local l, r, k = i, mid, i
      while l < mid and r < hi do
        if lt(a[r], a[l]) then
          b[k] = a[r]
          r = r + 1
        else
          b[k] = a[l]
          l = l + 1
        end
        k = k + 1
      end
      while l < mid do
        b[k] = a[l]
        l, k = l + 1, k + 1
      end
      while r < hi do
        b[k] = a[r]
        r, k = r + 1, k + 1
      end
      i = hi
    end
    a, b = b, a
    width = width * 2
  end
  for i = 1, n do
    t[i] = a[i]
  end
end
table.sort = stable_sort

local m = copy(math, { random = true, randomseed = true })
m.random = random

local base = {
  assert = assert, error = error, ipairs = ipairs, pairs = ordered_pairs, pcall = safe_pcall,
  select = select, tonumber = tonumber, tostring = tostring, type = type,
  rawequal = rawequal, rawlen = rawlen, getmetatable = safe_getmetatable, setmetatable = safe_setmetatable,
  string = copy(string), table = copy(table), math = m, utf8 = copy(utf8),
  _VERSION = _VERSION,
}
return freeze(base), freeze, original
"#;

/// [`SETUP`] compiled once per process (Lua bytecode): each new state loads it.
static SETUP_CODE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// The sandbox's `freeze` (a table made read-only, deeply), kept in the state's app data for the
/// host functions that hand out shared tables.
pub(crate) struct Freezer(pub(crate) mlua::Function);

/// An engine chunk (trusted code whose text never changes), named `name`, as a function of
/// `lua` with the environment `env` if given: compiled from `source` the first time in the
/// process, its bytecode (debug information kept, for names and lines in messages) kept in
/// `code` and loaded after. Parsing it again for every mod's state was a fifth of loading 50 mods.
/// A mod's own scripts never come this way: they are only ever read as text.
pub(crate) fn engine_chunk(
    lua: &Lua,
    code: &std::sync::OnceLock<Vec<u8>>,
    (name, source): (&str, &str),
    env: Option<&Table>,
) -> mlua::Result<Function> {
    let compiled = code.get();
    let chunk = match compiled {
        Some(bytes) => lua.load(&bytes[..]).set_mode(ChunkMode::Binary),
        None => lua.load(source).set_mode(ChunkMode::Text),
    };
    let chunk = chunk.set_name(name);
    let f = match env {
        Some(env) => chunk.set_environment(env.clone()),
        None => chunk,
    }
    .into_function()?;
    if compiled.is_none() {
        let _ = code.set(f.dump(false));
    }
    Ok(f)
}

/// Creates a sandboxed state with `limits`; `math.random` draws from `rng`.
pub(crate) fn new_sandbox(limits: Limits, rng: Rc<RefCell<Rng>>) -> mlua::Result<Sandbox> {
    let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8;
    // SAFETY: `unsafe_new_with` only skips mlua's refusal of the `debug` library (no C modules
    // can be loaded: `package` is not opened). The host takes the two functions it needs right
    // below and removes `debug` from the globals before any other code runs; scripts run in
    // environments built from `base`, which never holds `debug`, the globals or the registry.
    #[allow(unsafe_code)]
    let lua = unsafe { Lua::unsafe_new_with(libs | StdLib::DEBUG, LuaOptions::default()) };
    let globals = lua.globals();
    let lib: Table = globals.raw_get("debug")?;
    let debug = UpvalueAccess {
        getupvalue: lib.raw_get("getupvalue")?,
        upvalueid: lib.raw_get("upvalueid")?,
    };
    // For the setup alone (`freeze` reads and replaces a table's metatable whatever it says).
    let (meta_of, set_meta): (Function, Function) =
        (lib.raw_get("getmetatable")?, lib.raw_get("setmetatable")?);
    globals.raw_set("debug", Value::Nil)?;
    let budget = Rc::new(Budget {
        limits,
        used: Cell::new(0),
        start: Cell::new(None),
        trip: RefCell::new(None),
        last_seen: RefCell::new((String::new(), 0)),
    });
    let b = budget.clone();
    let tripped = lua.create_function(move |_, ()| Ok(b.tripped().is_some()))?;
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
    let b = budget.clone();
    let charge: Charge = Rc::new(move |lua, n| b.charge(lua, n));
    let install = lua.create_function(move |lua, safe_tostring: Function| {
        crate::strings::install(lua, charge.clone(), safe_tostring)
    })?;
    let as_message = lua.create_function(move |lua, v: Value| {
        // Running out of memory is a limit, which no `pcall` catches: where it happens depends on
        // what earlier calls left for the collector, so a script must not go on from it.
        let memory = match &v {
            Value::Error(e) => matches!(**e, mlua::Error::MemoryError(_)),
            Value::String(s) => s.as_bytes() == b"not enough memory",
            _ => false,
        };
        if memory {
            return Err(mlua::Error::MemoryError("not enough memory".to_string()));
        }
        Ok(match v {
            Value::Error(e) => Value::String(lua.create_string(cut(&error_text(&e, &limits)))?),
            v => v,
        })
    })?;
    let failure = Rc::new(RefCell::new(None));
    let chunks = Rc::new(RefCell::new(Vec::new()));
    let (b, slot, names) = (budget.clone(), failure.clone(), chunks.clone());
    let handler = lua.create_function(move |lua, err: Value| {
        let f = b
            .tripped()
            .unwrap_or_else(|| describe(lua, &err, &b.limits, &names));
        let message = f.message.clone();
        *slot.borrow_mut() = Some(f);
        Ok(message)
    })?;
    let xpcall: Function = lua.globals().raw_get("xpcall")?;
    let setup = engine_chunk(&lua, &SETUP_CODE, ("=sandbox", SETUP), None)?;
    let (base, freeze, original): (Table, Function, Function) =
        setup.call((tripped, random, install, as_message, meta_of, set_meta))?;
    lua.set_app_data(Freezer(freeze.clone()));
    // The collector runs only at reseed points (`ModState::collect`), or when an allocation would
    // pass the memory limit: never at a moment that depends on what ran before in this process.
    lua.gc_stop();
    let b = budget.clone();
    lua.set_hook(
        HookTriggers::new().every_nth_instruction(STEP),
        move |lua, _| b.check(lua).map(|()| VmState::Continue),
    )?;
    // An allocation past the limit fails at once (after Lua collects what it can): the error
    // names the line the last check saw running, at most `STEP` instructions before.
    lua.set_memory_limit(limits.memory)?;
    let runner = Runner {
        xpcall,
        handler,
        budget: budget.clone(),
        failure,
    };
    Ok(Sandbox {
        lua,
        budget,
        runner,
        chunks,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_break_in_a_message_starts_an_indented_line() {
        assert_eq!(
            cut("boom\r\nResult: hx won; 1 turns"),
            "boom\n    Result: hx won; 1 turns"
        );
        assert_eq!(cut_bytes(b"a\rb"), "a\n    b");
        assert_eq!(cut("one line"), "one line");
    }

    #[test]
    fn messages_are_cut_at_a_character_boundary_with_the_rest_counted() {
        assert_eq!(cut("short"), "short");
        let long = "é".repeat(400); // 800 bytes
        let shown = cut(&long);
        assert!(shown.ends_with("\u{2026} (300 more bytes)"), "{shown}");
        assert_eq!(shown.matches('é').count(), 250);
        let bytes = vec![b'x'; 10_000];
        assert!(cut_bytes(&bytes).ends_with("x\u{2026} (9,500 more bytes)"));
    }

    #[test]
    fn the_hosts_own_chunk_and_line_never_reach_a_message() {
        assert_eq!(
            without_host_position("sandbox:223: attempt to compare string with number"),
            "attempt to compare string with number"
        );
        assert_eq!(without_host_position("boom: it broke"), "boom: it broke");
        assert_eq!(without_host_position("x.lua:3: nope"), "x.lua:3: nope");
    }

    #[test]
    fn addresses_never_reach_a_message() {
        assert_eq!(
            hide_addresses("scripts/x.lua:3: table: 0x55d0c1a2b3c0"),
            "scripts/x.lua:3: a table"
        );
        assert_eq!(
            hide_addresses("bad value (function: 0x7f00aa) and Plan: 0x1"),
            "bad value (a function) and a Plan"
        );
        assert_eq!(hide_addresses("no hex: 0xz"), "no hex: 0xz");
    }

    #[test]
    fn a_position_is_read_off_a_message_and_a_cut_file_name_made_whole() {
        assert_eq!(
            split_position("scripts/x.lua:12: boom: twice"),
            Some(("scripts/x.lua:12".to_string(), "boom: twice"))
        );
        assert_eq!(split_position("no position: here"), None);
        let chunks = RefCell::new(vec!["scripts/a/very/long/folder/x.lua".to_string()]);
        assert_eq!(
            full_name(".../long/folder/x.lua:7", &chunks),
            "scripts/a/very/long/folder/x.lua:7"
        );
        assert_eq!(full_name("scripts/y.lua:1", &chunks), "scripts/y.lua:1");
    }
}
