//! What a mod's scripts can still change once they have loaded, recorded right after loading and
//! put back at every reseed point: the upvalues of every function reachable from the mod's
//! abilities and globals (the local variables they close over), and the contents and metatable of
//! every table those reach that is not read-only. Globals and the library are read-only already;
//! with this, a kept Lua state is at each reseed point exactly what a fresh load gives.

use crate::sandbox::Debug;
use mlua::{Function, Table, Value};
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
    debug: &'a Debug,
    original: &'a Function,
    /// The environments scripts run in: read-only once loaded, never recorded.
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
    /// read-only global environments) reach; `envs` are the environments themselves, skipped.
    /// A userdata, thread or other value that cannot be put back refuses the mod, located at the
    /// function whose upvalue reaches it.
    pub(crate) fn take(
        debug: &Debug,
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

    /// Puts every recorded upvalue and table back as it was after loading.
    pub(crate) fn restore(&self, debug: &Debug) -> mlua::Result<()> {
        for u in &self.upvalues {
            debug
                .setupvalue
                .call::<()>((u.function.clone(), u.index, u.value.clone()))?;
        }
        for s in &self.tables {
            s.table.clear()?;
            for (k, v) in &s.entries {
                s.table.raw_set(k.clone(), v.clone())?;
            }
            s.table.set_metatable(s.metatable.clone())?;
        }
        Ok(())
    }
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
                    // A global of this kind: read-only, and reachable by nothing that changes it.
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
        if let Some(m) = t.metatable() {
            self.todo
                .push((Value::Table(m), Reach::Direct, origin.clone()));
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
