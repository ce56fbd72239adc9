//! What a mod's scripts can still change once they have loaded, recorded right after loading and
//! put back at every reseed point: the upvalues of every function reachable from the mod's
//! abilities and globals (the local variables they close over), and the contents and metatable of
//! every table those reach that is not read-only. Globals and the library are read-only already;
//! with this, a kept Lua state is at each reseed point exactly what a fresh load gives.

use crate::sandbox::UpvalueAccess;
use mlua::{Function, Lua, Table, Value, ffi};
use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::rc::Rc;

/// A value that cannot be put back: the file and line of the function whose upvalue reaches
/// it, and what to do about it.
#[derive(Debug)]
pub(crate) struct Unrestorable {
    pub(crate) file: PathBuf,
    pub(crate) line: usize,
    pub(crate) message: String,
}

/// One upvalue: the function that reaches it first, its index there, and its value after loading.
struct Upvalue {
    function: Function,
    index: i64,
    value: Value,
}

/// A table that is not read-only: what it held after loading, in the order found, and its
/// metatable.
struct Saved {
    table: Table,
    entries: Vec<(Value, Value)>,
    metatable: Option<Table>,
}

/// The state a mod's scripts can change, as it was after loading.
#[derive(Default)]
pub(crate) struct Snapshot {
    upvalues: Vec<Upvalue>,
    tables: Vec<Saved>,
    /// The same, packed into one Lua table for [`Snapshot::restore`] the first time it runs.
    packed: OnceCell<Packed>,
}

/// The recorded values as one Lua table ([`Snapshot::pack`]) and each upvalue's index.
struct Packed {
    table: Table,
    indexes: Vec<i32>,
}

/// Where a value was reached from, for the message when it cannot be put back.
#[derive(Clone)]
struct Origin {
    file: PathBuf,
    line: usize,
    upvalue: Rc<str>,
}

/// How a table was reached: directly (it may change), or as the table behind a read-only proxy
/// (its own entries cannot change through the proxy, but the functions it holds have upvalues).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    Direct,
    BehindProxy,
}

struct Walk<'a> {
    debug: &'a UpvalueAccess,
    original: &'a Function,
    /// The environments scripts run in and the sandbox's standard library: read-only, holding
    /// no function of a script; never recorded nor walked.
    envs: Vec<usize>,
    functions: BTreeSet<usize>,
    upvalue_ids: BTreeSet<usize>,
    recorded: BTreeSet<usize>,
    walked: BTreeSet<usize>,
    proxies: BTreeSet<usize>,
    todo: Vec<(Value, Reach, Option<Origin>)>,
    snapshot: Snapshot,
}

impl Snapshot {
    /// Records what the functions `roots` and the globals `globals` (the tables behind the
    /// read-only global environments) reach; `envs` (the environments themselves and the
    /// sandbox's read-only standard library) are skipped.
    /// A userdata, thread or other value that cannot be put back refuses the mod, located at the
    /// function whose upvalue reaches it.
    pub(crate) fn take(
        debug: &UpvalueAccess,
        original: &Function,
        roots: &[Function],
        globals: &[Table],
        envs: &[Table],
    ) -> Result<Snapshot, Unrestorable> {
        let mut walk = Walk {
            debug,
            original,
            envs: envs.iter().map(|e| e.to_pointer() as usize).collect(),
            functions: BTreeSet::new(),
            upvalue_ids: BTreeSet::new(),
            recorded: BTreeSet::new(),
            walked: BTreeSet::new(),
            proxies: BTreeSet::new(),
            todo: Vec::new(),
            snapshot: Snapshot::default(),
        };
        for g in globals {
            walk.todo
                .push((Value::Table(g.clone()), Reach::BehindProxy, None));
        }
        for f in roots.iter().rev() {
            walk.todo
                .push((Value::Function(f.clone()), Reach::Direct, None));
        }
        while let Some((value, reach, origin)) = walk.todo.pop() {
            walk.visit(value, reach, origin).map_err(|e| match e {
                Failure::Lua(e) => Unrestorable {
                    file: PathBuf::new(),
                    line: 1,
                    message: format!("cannot record the state of the scripts: {e}"),
                },
                Failure::Refused(u) => u,
            })?;
        }
        Ok(walk.snapshot)
    }

    /// Whether nothing can change: loading recorded no upvalue and no table.
    pub(crate) fn is_empty(&self) -> bool {
        self.upvalues.is_empty() && self.tables.is_empty()
    }

    /// Whether loading recorded a table that is not read-only (scripts may change what it holds).
    pub(crate) fn has_tables(&self) -> bool {
        !self.tables.is_empty()
    }

    /// Puts every recorded upvalue and table back as it was after loading, in one protected
    /// call into Lua (the recorded values are packed into one table on the first call).
    pub(crate) fn restore(&self, lua: &Lua) -> mlua::Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let packed = match self.packed.get() {
            Some(p) => p,
            None => {
                let p = self.pack(lua)?;
                self.packed.get_or_init(|| p)
            }
        };
        let (upvalues, tables) = (self.upvalues.len(), self.tables.len());
        let indexes = &packed.indexes[..];
        // SAFETY: the closure only calls the Lua C API on the state it is given, whose stack holds
        // the packed table at index 1 (the one argument); it grows the stack first for the at
        // most five values it pushes at once, pops all it pushes, and owns nothing that must be
        // dropped, so a Lua error raised inside it unwinds through no destructor.
        #[allow(unsafe_code)]
        unsafe {
            lua.exec_raw::<()>(&packed.table, |state| {
                ffi::luaL_checkstack(state, 6, c"putting the scripts' state back".as_ptr());
                for (k, index) in indexes.iter().enumerate().take(upvalues) {
                    let at = to_index(3 * k);
                    ffi::lua_rawgeti(state, 1, at + 1);
                    ffi::lua_rawgeti(state, 1, at + 3);
                    ffi::lua_setupvalue(state, -2, *index);
                    ffi::lua_pop(state, 1);
                }
                let base = 3 * upvalues;
                for j in 0..tables {
                    let at = to_index(base + 3 * j);
                    ffi::lua_rawgeti(state, 1, at + 1);
                    // Clearing existing fields while traversing is allowed (lua_next).
                    ffi::lua_pushnil(state);
                    while ffi::lua_next(state, -2) != 0 {
                        ffi::lua_pop(state, 1);
                        ffi::lua_pushvalue(state, -1);
                        ffi::lua_pushnil(state);
                        ffi::lua_rawset(state, -4);
                    }
                    ffi::lua_rawgeti(state, 1, at + 2);
                    let n = to_index(ffi::lua_rawlen(state, -1));
                    let mut i = 1;
                    while i < n {
                        ffi::lua_rawgeti(state, -1, i);
                        ffi::lua_rawgeti(state, -2, i + 1);
                        ffi::lua_rawset(state, -4);
                        i += 2;
                    }
                    ffi::lua_pop(state, 1);
                    ffi::lua_rawgeti(state, 1, at + 3);
                    if ffi::lua_type(state, -1) != ffi::LUA_TTABLE {
                        ffi::lua_pop(state, 1);
                        ffi::lua_pushnil(state);
                    }
                    ffi::lua_setmetatable(state, -2);
                    ffi::lua_pop(state, 1);
                }
            })
        }
    }

    /// The recorded values in one Lua table: for each upvalue its function, index and value,
    /// then for each table the table, its entries as a flat list of keys and values, and its
    /// metatable (`false` for none).
    fn pack(&self, lua: &Lua) -> mlua::Result<Packed> {
        let list = lua.create_table()?;
        let mut n = 0;
        let mut put = |v: Value| {
            n += 1;
            list.raw_set(n, v)
        };
        for u in &self.upvalues {
            put(Value::Function(u.function.clone()))?;
            put(Value::Integer(u.index))?;
            put(u.value.clone())?;
        }
        for s in &self.tables {
            put(Value::Table(s.table.clone()))?;
            let entries = lua.create_table_with_capacity(2 * s.entries.len(), 0)?;
            for (i, (k, v)) in s.entries.iter().enumerate() {
                entries.raw_set(2 * i + 1, k.clone())?;
                entries.raw_set(2 * i + 2, v.clone())?;
            }
            put(Value::Table(entries))?;
            put(s
                .metatable
                .clone()
                .map_or(Value::Boolean(false), Value::Table))?;
        }
        let indexes = self
            .upvalues
            .iter()
            .map(|u| i32::try_from(u.index).unwrap_or(i32::MAX))
            .collect();
        Ok(Packed {
            table: list,
            indexes,
        })
    }
}

/// A position in a packed list as Lua counts it.
fn to_index(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

enum Failure {
    Lua(mlua::Error),
    Refused(Unrestorable),
}

impl From<mlua::Error> for Failure {
    fn from(e: mlua::Error) -> Self {
        Failure::Lua(e)
    }
}

impl Walk<'_> {
    fn visit(&mut self, value: Value, reach: Reach, origin: Option<Origin>) -> Result<(), Failure> {
        match value {
            Value::Nil
            | Value::Boolean(_)
            | Value::Integer(_)
            | Value::Number(_)
            | Value::String(_) => Ok(()),
            Value::Table(t) => self.table(t, reach, origin),
            Value::Function(f) => self.function(f),
            other => {
                let Some(o) = origin else {
                    // Reached from the globals alone: no script can make such a value while the
                    // scripts load (the host hands out its userdata only to hooks).
                    return Ok(());
                };
                Err(Failure::Refused(Unrestorable {
                    file: o.file,
                    line: o.line,
                    message: format!(
                        "the local `{}` used by the function defined here reaches a {}, which cannot be put back as it was after loading (every battle and every hook call outside battles starts from the state a fresh load gives): keep only numbers, strings, booleans, tables and functions in the local variables hooks use",
                        o.upvalue,
                        other.type_name()
                    ),
                }))
            }
        }
    }

    fn table(&mut self, t: Table, reach: Reach, origin: Option<Origin>) -> Result<(), Failure> {
        let ptr = t.to_pointer() as usize;
        if self.envs.contains(&ptr) || self.proxies.contains(&ptr) {
            return Ok(());
        }
        if let Some(behind) = self.original.call::<Option<Table>>(t.clone())? {
            // A read-only proxy: the table behind it may still hold functions with upvalues.
            self.proxies.insert(ptr);
            self.todo
                .push((Value::Table(behind), Reach::BehindProxy, origin));
            return Ok(());
        }
        if reach == Reach::Direct && self.recorded.insert(ptr) {
            let mut entries = Vec::new();
            t.for_each::<Value, Value>(|k, v| {
                entries.push((k, v));
                Ok(())
            })?;
            self.snapshot.tables.push(Saved {
                table: t.clone(),
                entries,
                metatable: t.metatable(),
            });
        }
        if !self.walked.insert(ptr) {
            return Ok(());
        }
        // A metatable is as reachable as its table: a script can only reach the metatable of a
        // table behind a proxy through a local of its own (then it is recorded from there).
        if let Some(m) = t.metatable() {
            self.todo.push((Value::Table(m), reach, origin.clone()));
        }
        let mut children = Vec::new();
        t.for_each::<Value, Value>(|k, v| {
            children.push(k);
            children.push(v);
            Ok(())
        })?;
        for c in children.into_iter().rev() {
            self.todo.push((c, Reach::Direct, origin.clone()));
        }
        Ok(())
    }

    fn function(&mut self, f: Function) -> Result<(), Failure> {
        if !self.functions.insert(f.to_pointer() as usize) {
            return Ok(());
        }
        let info = f.info();
        // Rust and C functions keep nothing a script can change; the sandbox's own Lua functions
        // (ordered `pairs`, `pcall`, the read-only proxies) hold only trusted state.
        if info.what == "C" || info.source.as_deref() == Some("=sandbox") {
            return Ok(());
        }
        let file = PathBuf::from(
            info.source
                .as_deref()
                .map(|s| s.trim_start_matches('@'))
                .unwrap_or("?"),
        );
        let line = info.line_defined.unwrap_or(1);
        let mut found = Vec::new();
        for i in 1..=i64::from(info.num_upvalues) {
            let (name, value): (Option<String>, Value) =
                self.debug.getupvalue.call((f.clone(), i))?;
            if let Value::Table(t) = &value
                && self.envs.contains(&(t.to_pointer() as usize))
            {
                continue;
            }
            let id = match self.debug.upvalueid.call::<Value>((f.clone(), i))? {
                Value::LightUserData(p) => p.0 as usize,
                other => {
                    return Err(Failure::Lua(mlua::Error::runtime(format!(
                        "debug.upvalueid gave a {}",
                        other.type_name()
                    ))));
                }
            };
            if !self.upvalue_ids.insert(id) {
                continue;
            }
            self.snapshot.upvalues.push(Upvalue {
                function: f.clone(),
                index: i,
                value: value.clone(),
            });
            let origin = Origin {
                file: file.clone(),
                line,
                upvalue: Rc::from(name.unwrap_or_else(|| "?".to_string())),
            };
            found.push((value, origin));
        }
        for (value, origin) in found.into_iter().rev() {
            self.todo.push((value, Reach::Direct, Some(origin)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{Limits, Sandbox, child_env, new_sandbox};
    use hexforge_core::Rng;
    use std::cell::RefCell;

    fn sandbox() -> Sandbox {
        new_sandbox(Limits::default(), Rc::new(RefCell::new(Rng::seeded(0)))).expect("a sandbox")
    }

    /// Runs `source` (as `probe.lua`) in `env` and returns the function it returns.
    fn function(sb: &Sandbox, env: &Table, source: &str, arg: Value) -> Function {
        sb.lua
            .load(source)
            .set_name("@probe.lua")
            .set_environment(env.clone())
            .call(arg)
            .expect("the chunk runs")
    }

    #[test]
    fn functions_that_use_only_globals_have_nothing_to_put_back() {
        let sb = sandbox();
        let env = child_env(&sb.lua, &sb.base).expect("an env");
        let f = function(
            &sb,
            &env,
            "return function(x) return math.floor(x) + #string.rep('a', 2) end",
            Value::Nil,
        );
        let s = Snapshot::take(&sb.debug, &sb.original, &[f], &[], &[env]).expect("records");
        assert!(s.is_empty());
    }

    #[test]
    fn locals_and_their_tables_are_put_back_and_read_only_tables_are_not_recorded() {
        let sb = sandbox();
        let env = child_env(&sb.lua, &sb.base).expect("an env");
        let f = function(
            &sb,
            &env,
            "local n = 0\nlocal t = { k = 1, sub = {} }\nreturn function()\n  n = n + 1\n  t.k = t.k + 10\n  t.sub[#t.sub + 1] = n\n  t.new = true\n  return n + t.k + #t.sub\nend",
            Value::Nil,
        );
        // A read-only table holding a function with a local of its own.
        let g = function(
            &sb,
            &env,
            "local m = 5\nreturn function() m = m * 2; return m end",
            Value::Nil,
        );
        let holder = sb.lua.create_table().expect("a table");
        holder.raw_set("g", g.clone()).expect("set");
        let frozen: Table = sb.freeze.call(holder).expect("frozen");
        let s = Snapshot::take(
            &sb.debug,
            &sb.original,
            std::slice::from_ref(&f),
            &[frozen],
            &[env],
        )
        .expect("records");
        assert_eq!(s.upvalues.len(), 3, "n, t and m");
        assert_eq!(
            s.tables.len(),
            2,
            "t and t.sub; the read-only table is not recorded"
        );
        let first: i64 = f.call(()).expect("calls");
        assert_eq!(first, 1 + 11 + 1);
        assert_eq!(g.call::<i64>(()).expect("calls"), 10);
        assert_ne!(f.call::<i64>(()).expect("calls"), first);
        s.restore(&sb.lua).expect("restores");
        assert_eq!(f.call::<i64>(()).expect("calls"), first);
        assert_eq!(g.call::<i64>(()).expect("calls"), 10);
    }

    #[test]
    fn putting_tables_back_again_and_again_leaves_the_lua_stack_as_it_was() {
        // Regression: clearing a table with `Table::clear` left it on the Lua stack, so after
        // about a million reseeds every hook of a mod with a table in a local failed with
        // "stack overflow". A leak of one slot per restore shows here as the stack's memory.
        let sb = sandbox();
        let env = child_env(&sb.lua, &sb.base).expect("an env");
        let f = function(
            &sb,
            &env,
            "local t = { 1, 2, k = { 3 } }
return function() t.k[1] = t.k[1] + 1; return #t end",
            Value::Nil,
        );
        let s = Snapshot::take(&sb.debug, &sb.original, &[f], &[], &[env]).expect("records");
        assert_eq!(s.tables.len(), 2);
        let rounds = |n: usize| {
            for _ in 0..n {
                s.restore(&sb.lua).expect("restores");
            }
            sb.lua.gc_collect().expect("a full collection");
            sb.lua.used_memory()
        };
        let before = rounds(1_000);
        let after = rounds(20_000);
        // Leaking two slots a round, the stack would have grown by 40,000 slots (640 KB).
        assert!(
            after < before + 64 * 1024,
            "{before} bytes, then {after} bytes after 20,000 restores"
        );
    }

    #[test]
    fn a_userdata_in_a_local_refuses_the_script_where_the_function_is_defined() {
        let sb = sandbox();
        let env = child_env(&sb.lua, &sb.base).expect("an env");
        let u = sb.lua.create_any_userdata(7u8).expect("a userdata");
        let f = function(
            &sb,
            &env,
            "local u = ...\nlocal box = { u }\nreturn function() return box end",
            Value::UserData(u),
        );
        let e = Snapshot::take(&sb.debug, &sb.original, &[f], &[], &[env])
            .err()
            .expect("refused");
        assert_eq!((e.file, e.line), (PathBuf::from("probe.lua"), 3));
        assert!(
            e.message.contains("`box`") && e.message.contains("userdata"),
            "{}",
            e.message
        );
    }

    #[test]
    fn scripts_cannot_reach_the_debug_library() {
        let sb = sandbox();
        let env = child_env(&sb.lua, &sb.base).expect("an env");
        let f = function(&sb, &env, "return function() return debug end", Value::Nil);
        assert_eq!(f.call::<Value>(()).expect("calls"), Value::Nil);
        assert_eq!(
            sb.lua.globals().raw_get::<Value>("debug").expect("reads"),
            Value::Nil
        );
    }
}
