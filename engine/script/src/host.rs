//! The script host: one sandboxed Lua state per mod with the shared library loaded into it, the
//! binding of every tile ability to its implementation, and the engine's hook trait.

use crate::api::{self, AttackSlot, Call, Fx, Hits, LuaAttack, LuaHit, Plan};
use crate::library::LIBRARY;
use crate::memo::PlanMemo;
use crate::registry::{Ability, Registry, RuleImpl, ability_function, rule_function};
use crate::sandbox::{
    Budget, Failure, Limits, Runner, Sandbox, child_env, engine_chunk, error_text, new_sandbox,
    split_position,
};
use crate::scan::{Scan, Target};
use crate::shared::{Shared, Watch};
use crate::snapshot::Snapshot;
use hexforge_content::{Diagnostic, Diagnostics, LoadedMods, ModInfo};
use hexforge_core::decision::{Choice, Decider, Decision, Question};
use hexforge_core::effect::Effect;
use hexforge_core::hooks::{
    AbilityHooks, AttackPlan, Gift, HookContext, HookError, HookPoints, IncomingHit,
    InstantContext, InstantTargets, ResolvedAttack,
};
use hexforge_core::tile::InstantEffect;
use hexforge_core::tile::{AbilityRef, Army, Effects};
use hexforge_core::{Battlefield, Catalog, Hex, Rng, Rules, Seat, Tile, TileKind, TileRef};
use mlua::{AnyUserData, ChunkMode, Function, Lua, Table, Value};
use std::cell::{Cell, RefCell};
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

mod rules;

/// A failed script call, located: `mod, file:line, hook, tile: message`, then the script
/// frames it happened in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// The mod whose script failed.
    pub mod_id: String,
    /// `file:line` of the failing Lua code (or of the ability's definition), the file relative
    /// to the mod's folder (`scripts/...` for the shared library).
    pub at: String,
    /// The hook point that was called, by its name in scripts (`plan_attacks`).
    pub hook: String,
    /// The tile whose ability ran, as `army/tile`.
    pub tile: String,
    /// What went wrong: Lua's error, a limit reached, or what the engine refused in its answer
    /// (at most a few hundred characters).
    pub message: String,
    /// A short Lua traceback, innermost first: `file:line in function 'name'`.
    pub traceback: Vec<String>,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, {}, {}, {}: {}",
            self.mod_id, self.at, self.hook, self.tile, self.message
        )?;
        if !self.traceback.is_empty() {
            f.write_str("\n  Lua traceback:")?;
            for frame in &self.traceback {
                write!(f, "\n    {frame}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScriptError {}

/// One mod's Lua state: a function of the mod's id, folder and scripts, the built-in library and
/// the limits alone (binding, which depends on the catalog, happens in each [`ScriptHost`]), so a
/// state can serve again in the next host when none of these changed ([`crate::Reloader`]).
/// What its scripts can change is put back as it was after loading at every reseed point.
pub(crate) struct ModState {
    id: String,
    /// What loading found that may be a mistake without stopping the mod: a global its scripts
    /// read that nothing defines (`bytecode.rs`).
    warnings: Vec<Diagnostic>,
    lua: Lua,
    budget: Rc<Budget>,
    runner: Runner,
    /// What the scripts can change, as it was after loading (empty for most mods).
    snapshot: Snapshot,
    /// Nothing the scripts do changes the state once loaded: no function of theirs assigns an
    /// upvalue (`bytecode.rs`) and every table they reach is read-only. Putting the state back
    /// is then nothing to do, and a call depends on no earlier one (`memo.rs`).
    frozen: bool,
    /// Some script code ran since the state was last put back.
    dirty: Cell<bool>,
    /// The memory in use past which the next reseed point collects the garbage.
    collect_at: Cell<usize>,
    /// Putting the state back failed (its memory limit, say): every hook call fails with this
    /// until a later reseed point puts it back.
    broken: RefCell<Option<String>>,
    registry: Rc<RefCell<Registry>>,
    library: Rc<RefCell<Registry>>,
    ctx: AnyUserData,
    plan: AnyUserData,
    fx: AnyUserData,
    hits: AnyUserData,
    /// What `ctx`, `plan`, `fx` and `hits` hold, as the host reaches it.
    call: Shared<Call>,
    plan_state: Shared<Plan>,
    fx_state: Shared<Fx>,
    hits_state: Shared<Hits>,
    attack: AnyUserData,
    /// The attack `attack` reads, filled for each attack-event call.
    attack_now: AttackSlot,
    /// The key `"tile"` as a Lua string, made once: reading a target list looks it up in every
    /// entry, and a key made for each lookup costs a protected call into Lua.
    tile_key: mlua::String,
    /// The last target list read, kept for its buffers.
    scan: RefCell<Scan>,
    /// Whether the current call read the game or asked an effect (`memo.rs`).
    watch: Watch,
}

impl ModState {
    /// After a call: moves the effects it asked for (`fx`) to the end of `into` (`None`: the
    /// call failed, or its point takes none) and empties `fx`.
    fn take_effects(&self, into: Option<&mut Vec<Effect>>) -> mlua::Result<()> {
        let mut fx = self.fx_state.get_mut()?;
        if let Some(into) = into {
            into.append(&mut fx.asked);
        }
        fx.asked.clear();
        Ok(())
    }

    /// Takes the board out of `ctx` and the attack out of `a` before script code runs outside
    /// a hook call (`gives`, `instant`): hook calls leave them in, for the next call to replace.
    fn outside_hooks(&self) -> mlua::Result<()> {
        {
            let mut c = self.call.get_mut()?;
            c.field = None;
            c.answer = None;
        }
        self.attack_now.set(None)
    }

    /// Puts back what the scripts changed since the last time (or since loading), if any code
    /// ran since or the last attempt failed: the state is then exactly what a fresh load gives.
    /// Then, if code ran, collects the garbage when there is enough of it ([`ModState::collect`]).
    fn reset(&self) {
        let ran = self.dirty.replace(false);
        if (ran || self.broken.borrow().is_some()) && !self.snapshot.is_empty() && !self.frozen {
            self.budget.reset();
            let failed = self.snapshot.restore(&self.lua).err().map(|e| {
                format!(
                    "cannot put the scripts' local variables back as they were after loading: {}; this mod's hooks fail until they can be (at the next battle or hook call outside battles)",
                    error_text(&e, &Limits::default())
                )
            });
            *self.broken.borrow_mut() = failed;
        }
        if ran {
            self.collect();
        }
    }

    /// Lua's collector runs only here, at a reseed point (it is stopped otherwise,
    /// `new_sandbox`): when it runs depends on everything allocated before (other battles, a bot's
    /// simulations), and a weak table would show it in the middle of a call. It runs once the
    /// state holds twice what it held after the last collection, and at least a mebibyte more.
    /// (A call that passes the memory limit still makes Lua collect at once, to make room.)
    fn collect(&self) {
        let used = self.lua.used_memory();
        if used > self.collect_at.get() {
            // No finalizer can run (`__gc` is refused), so a collection raises no script error.
            let _ = self.lua.gc_collect();
            let after = self.lua.used_memory();
            self.collect_at.set((after * 2).max(after + (1 << 20)));
        }
    }

    /// The failure every hook call reports while putting the state back fails, if it does.
    fn broken_failure(&self) -> Option<Failure> {
        self.broken.borrow().clone().map(|message| Failure {
            at: None,
            message,
            traceback: Vec::new(),
        })
    }

    /// The implementation of an ability: the mod's own, else the shared library's.
    fn find(&self, name: &str) -> Option<Ability> {
        let own = self.registry.borrow().abilities.get(name).cloned();
        own.or_else(|| self.library.borrow().abilities.get(name).cloned())
    }
}

/// An ability of a tile definition, bound to its implementation.
struct Binding {
    state: usize,
    ability: Ability,
    /// The ability's index in the tile's list.
    index: usize,
    tile: String,
}

/// Sandboxed Lua abilities for every loaded mod; implements [`AbilityHooks`].
pub struct ScriptHost {
    /// The mods whose scripts did not load, or whose tiles name abilities that fail to bind.
    failed: Vec<String>,
    states: Vec<Rc<ModState>>,
    bindings: Vec<Binding>,
    /// The game rules of the catalog (`Catalog::game_rules`), by index: the state of the mod
    /// that defines each, and its implementation.
    game_rules: Vec<(usize, RuleImpl)>,
    catalog: Arc<Catalog>,
    rules: Arc<Rules>,
    rng: Rc<RefCell<Rng>>,
    /// The `plan_attacks` calls that depended on nothing but their plan, remembered.
    plan_memo: RefCell<PlanMemo>,
}

impl fmt::Debug for ScriptHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptHost")
            .field(
                "mods",
                &self.states.iter().map(|s| &s.id).collect::<Vec<_>>(),
            )
            .field("bindings", &self.bindings.len())
            .finish()
    }
}

/// Where a Lua error happened, from its message (`file:line: text`), else `fallback`.
fn locate(message: &str, fallback: &str) -> (String, String) {
    let first = message.lines().next().unwrap_or(message);
    let first = first.strip_prefix("runtime error: ").unwrap_or(first);
    match split_position(first) {
        Some((at, rest)) => (at, rest.trim().to_string()),
        None => (fallback.to_string(), first.trim().to_string()),
    }
}

/// The line of a `file:line` position, or 1.
fn line_of(at: &str) -> usize {
    at.rsplit(':')
        .next()
        .and_then(|l| l.parse().ok())
        .unwrap_or(1)
}

/// `path` relative to the mod folder `dir`, with `/` separators, as scripts' messages name it.
fn relative_name(path: &Path, dir: &Path) -> String {
    let rel = path.strip_prefix(dir).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The library's chunks compiled once per process ([`crate::sandbox::engine_chunk`]).
static LIBRARY_CODE: [std::sync::OnceLock<Vec<u8>>; LIBRARY.len()] =
    [const { std::sync::OnceLock::new() }; LIBRARY.len()];

/// Runs one chunk, named `name` (relative to the mod's folder), in `env`, reporting a failure as
/// a diagnostic of `path`. With `code`, an engine chunk whose bytecode is kept there after its
/// first compilation; without, a mod's script, read as text.
fn run_chunk(
    sb: &Sandbox,
    env: &Table,
    (name, path): (&str, &Path),
    source: &str,
    code: Option<&std::sync::OnceLock<Vec<u8>>>,
) -> Result<(bool, Vec<(String, u32)>), Diagnostic> {
    sb.chunks.borrow_mut().push(name.to_string());
    let located = |at: Option<String>, message: String| Diagnostic {
        file: path.to_path_buf(),
        line: at.as_deref().map_or(1, line_of),
        column: 1,
        message,
    };
    let chunk_name = format!("@{name}");
    let f = match code {
        Some(code) => engine_chunk(&sb.lua, code, (&chunk_name, source), Some(env)),
        None => sb
            .lua
            .load(source)
            .set_name(chunk_name)
            .set_mode(ChunkMode::Text)
            .set_environment(env.clone())
            .into_function(),
    }
    .map_err(|e| {
        let (at, message) = locate(&error_text(&e, &Limits::default()), name);
        located(
            Some(at),
            format!("{message}: fix the Lua syntax of this line (docs/LUA_API.md)"),
        )
    })?;
    // Whether a function of the chunk may give a local that outlives its call a new value
    // (`bytecode.rs`); a chunk that cannot be read is taken to.
    // A mod's own script is read for what it does before it runs (the library's need no look):
    // the globals it reads, and any `<close>` local, which is refused.
    let (assigns, facts) = match code {
        Some(code) => (
            code.get()
                .and_then(|dump| crate::bytecode::assigns_upvalues(dump)),
            Some(crate::bytecode::Facts::default()),
        ),
        None => {
            let dump = f.dump(false);
            (
                crate::bytecode::assigns_upvalues(&dump),
                crate::bytecode::facts(&dump),
            )
        }
    };
    let assigns = assigns.unwrap_or(true);
    let Some(facts) = facts else {
        return Err(located(
            None,
            "the compiled script could not be read for what it does before it runs (a Hexforge bug: please report it with this script)".to_string(),
        ));
    };
    if let Some(line) = facts.to_be_closed.first() {
        return Err(Diagnostic {
            file: path.to_path_buf(),
            line: *line as usize,
            column: 1,
            message: "a to-be-closed local (`<close>`): the sandbox does not run `__close` handlers, which could run past the script's limits while an error unwinds; close what you opened by hand instead".to_string(),
        });
    }
    let reads = facts.global_reads;
    sb.runner.call::<()>(&sb.lua, &f, ()).map_err(|f| {
        let near = global_named(&f.message)
            .map(|g| hexforge_core::names::did_you_mean(g, global_names(env).iter().map(String::as_str)))
            .unwrap_or_default();
        located(
            f.at,
            format!(
                "{}{near}: the script stopped while it loaded; fix this line (docs/LUA_API.md lists what scripts may use)",
                f.message
            ),
        )
    })?;
    Ok((assigns, reads))
}

/// A warning for each global the scripts read (`read`: per file, the names and lines) that no
/// script defined and the sandbox does not have, once per file and name, at its first line: it
/// is `nil` when that line runs, which is seldom what was meant.
fn undefined_globals(env: &Table, read: &[(PathBuf, Vec<(String, u32)>)]) -> Vec<Diagnostic> {
    let known = global_names(env);
    let mut out = Vec::new();
    for (file, reads) in read {
        let mut told: Vec<&str> = Vec::new();
        for (name, line) in reads {
            if known.iter().any(|k| k == name) || told.contains(&name.as_str()) {
                continue;
            }
            told.push(name);
            out.push(Diagnostic {
                file: file.clone(),
                line: *line as usize,
                column: 1,
                message: format!(
                    "`{name}` is read as a global, but no script of the mod defines it and the sandbox has none{}: it is nil when this line runs (define it, e.g. `local function {name}(...) ... end` above its use, or fix the name)",
                    hexforge_core::names::did_you_mean(name, known.iter().map(String::as_str))
                ),
            });
        }
    }
    out
}

/// The global a Lua error names (`... (global 'abilty')`), if it names one.
fn global_named(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("global '")?;
    rest.split_once('\'').map(|(name, _)| name)
}

/// The names a script's globals can reach: its environment's own, then those it inherits.
fn global_names(env: &Table) -> Vec<String> {
    let mut names = Vec::new();
    let mut table = Some(env.clone());
    // The environments nest a few levels deep (the mod's, the library's, the sandbox's).
    for _ in 0..8 {
        let Some(t) = table.take() else { break };
        for (k, _) in t.pairs::<Value, Value>().flatten() {
            if let Value::String(k) = k
                && let Ok(k) = k.to_str()
            {
                names.push(k.to_string());
            }
        }
        table = t
            .metatable()
            .and_then(|m| m.raw_get::<Value>("__index").ok())
            .and_then(|v| match v {
                Value::Table(p) => Some(p),
                _ => None,
            });
    }
    names
}

/// The syntax error of the Lua text of `path`, if it has one, located as a loading error would
/// be: the text is compiled in a state of its own and never run, so a tool may call this on every
/// keystroke of an editor.
pub fn syntax_problem(path: &Path, text: &str) -> Option<Diagnostic> {
    let lua = Lua::new_with(mlua::StdLib::NONE, mlua::LuaOptions::default()).ok()?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let result = lua
        .load(text)
        .set_name(format!("@{name}"))
        .set_mode(ChunkMode::Text)
        .into_function();
    let e = result.err()?;
    let (at, message) = locate(&error_text(&e, &Limits::default()), &name);
    Some(Diagnostic {
        file: path.to_path_buf(),
        line: line_of(&at),
        column: 1,
        message,
    })
}

/// Moves an environment's globals behind a read-only proxy: after loading, a script's globals
/// (and the library's) can no longer change. Returns the table of the globals behind the proxy.
fn seal(lua: &Lua, env: &Table, parent: &Table, freeze: &Function) -> mlua::Result<Table> {
    let stash = child_env(lua, parent)?;
    let mut keys = Vec::new();
    for pair in env.pairs::<Value, Value>() {
        let (k, v) = pair?;
        let v = match v {
            Value::Table(_) => freeze.call::<Value>(v)?,
            v => v,
        };
        stash.raw_set(k.clone(), v)?;
        keys.push(k);
    }
    for k in keys {
        env.raw_set(k, Value::Nil)?;
    }
    let frozen: Table = freeze.call(stash.clone())?;
    let meta = lua.create_table()?;
    meta.set("__index", frozen)?;
    meta.set(
        "__newindex",
        lua.create_function(|_, (_, k): (Value, Value)| -> mlua::Result<()> {
            Err(mlua::Error::runtime(format!(
                "cannot set the global `{}` in a hook: globals are read-only once the scripts have loaded; use a local",
                k.to_string().unwrap_or_default()
            )))
        })?,
    )?;
    meta.set("__metatable", false)?;
    env.set_metatable(Some(meta))?;
    Ok(stash)
}

impl ScriptHost {
    /// Loads the shared library and the scripts of every mod (`mods/<id>/scripts/**/*.lua`) into
    /// one sandbox per mod, then binds every ability of `catalog`'s tiles: the hook points it
    /// defines, and the effects its `gives` returns, merged into the tile. Every problem is
    /// returned, each with its file and line; a mod whose scripts fail keeps its tiles unbound.
    pub fn load(
        mods: &[ModInfo],
        catalog: &mut Catalog,
        limits: Limits,
    ) -> (ScriptHost, Diagnostics) {
        let rng = Rc::new(RefCell::new(Rng::seeded(0)));
        Self::load_with(mods, catalog, rng, |m, rng| {
            Self::mod_state(m, limits, rng).map(Rc::new)
        })
    }

    /// [`ScriptHost::load`] with each mod's state from `state` (built, or kept from an earlier
    /// host), all drawing from `rng`.
    pub(crate) fn load_with(
        mods: &[ModInfo],
        catalog: &mut Catalog,
        rng: Rc<RefCell<Rng>>,
        mut state: impl FnMut(&ModInfo, Rc<RefCell<Rng>>) -> Result<Rc<ModState>, Vec<Diagnostic>>,
    ) -> (ScriptHost, Diagnostics) {
        let mut problems = Vec::new();
        let mut failed = Vec::new();
        let mut states = Vec::new();
        for m in mods {
            match state(m, rng.clone()) {
                Ok(s) => states.push(Some(s)),
                Err(d) => {
                    problems.extend(d);
                    failed.push(m.id.clone());
                    states.push(None);
                }
            }
        }
        // Every host starts from the same draws, whatever the scripts drew while they loaded.
        *rng.borrow_mut() = Rng::seeded(0);
        let mut host = ScriptHost {
            failed,
            states: Vec::new(),
            bindings: Vec::new(),
            game_rules: Vec::new(),
            catalog: Arc::new(Catalog::new()),
            rules: Arc::new(Rules::default()),
            rng,
            plan_memo: RefCell::default(),
        };
        host.bind(mods, states, catalog, &mut problems);
        // Binding ran `gives` and `instant`: a state kept from an earlier host, or built just now,
        // starts as a fresh load leaves it.
        for st in &host.states {
            st.reset();
        }
        host.catalog = Arc::new(catalog.clone());
        (host, Diagnostics(problems))
    }

    /// What loading the scripts found that may be a mistake (a global read that nothing
    /// defines), mod by mod in load order.
    pub(crate) fn script_warnings(&self) -> impl Iterator<Item = &Diagnostic> + '_ {
        self.states.iter().flat_map(|s| &s.warnings)
    }

    /// Builds the Lua state of the mod `m`: the library, then the mod's scripts. `math.random`
    /// draws from `rng`, which starts again from seed 0 here, so what a script draws while it
    /// loads never depends on the mods loaded before it.
    pub(crate) fn mod_state(
        m: &ModInfo,
        limits: Limits,
        rng: Rc<RefCell<Rng>>,
    ) -> Result<ModState, Vec<Diagnostic>> {
        *rng.borrow_mut() = Rng::seeded(0);
        let whole = |e: mlua::Error| {
            vec![Diagnostic::whole_file(
                &m.dir,
                format!("mod `{}`: cannot start its Lua sandbox: {e}", m.id),
            )]
        };
        let sb = new_sandbox(limits, rng).map_err(whole)?;
        let watch = Watch::default();
        api::register(&sb.lua, &watch).map_err(whole)?;
        api::register_reactions(&sb.lua, &watch).map_err(whole)?;
        let library = Rc::new(RefCell::new(Registry::default()));
        let lib_env = child_env(&sb.lua, &sb.base).map_err(whole)?;
        lib_env
            .raw_set(
                "ability",
                ability_function(&sb.lua, library.clone()).map_err(whole)?,
            )
            .map_err(whole)?;
        let mut problems = Vec::new();
        // Whether a function of a chunk run here may assign an upvalue (`bytecode.rs`).
        let mut assigns = false;
        for ((name, source), code) in LIBRARY.iter().zip(&LIBRARY_CODE) {
            match run_chunk(&sb, &lib_env, (name, Path::new(name)), source, Some(code)) {
                Ok((a, _)) => assigns |= a,
                Err(d) => problems.push(d),
            }
        }
        library.borrow().seal();
        let lib_globals = seal(&sb.lua, &lib_env, &sb.base, &sb.freeze).map_err(whole)?;
        let registry = Rc::new(RefCell::new(Registry::default()));
        let env = child_env(&sb.lua, &lib_env).map_err(whole)?;
        env.raw_set(
            "ability",
            ability_function(&sb.lua, registry.clone()).map_err(whole)?,
        )
        .map_err(whole)?;
        env.raw_set(
            "rule",
            rule_function(&sb.lua, registry.clone()).map_err(whole)?,
        )
        .map_err(whole)?;
        let mut read = Vec::new();
        for file in &m.scripts {
            let name = relative_name(&file.path, &m.dir);
            match run_chunk(&sb, &env, (&name, &file.path), &file.text, None) {
                Ok((a, reads)) => {
                    assigns |= a;
                    read.push((file.path.clone(), reads));
                }
                Err(d) => problems.push(d),
            }
        }
        let warnings = undefined_globals(&env, &read);
        registry.borrow().seal();
        let globals = seal(&sb.lua, &env, &lib_env, &sb.freeze).map_err(whole)?;
        if !problems.is_empty() {
            return Err(problems);
        }
        // What the hooks can still change: the upvalues of every function the abilities and
        // globals reach, and the tables those hold.
        let roots: Vec<Function> = [&library, &registry]
            .iter()
            .flat_map(|r| {
                r.borrow()
                    .abilities
                    .values()
                    .flat_map(|a| {
                        a.gives
                            .iter()
                            .chain(&a.instant)
                            .chain(a.hooks.iter().flatten())
                    })
                    .chain(r.borrow().rules.iter().flat_map(|rule| {
                        rule.hooks.iter().flatten().chain(
                            rule.actions
                                .iter()
                                .flat_map(|a| a.targets.iter().chain([&a.play])),
                        )
                    }))
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .collect();
        let snapshot = Snapshot::take(
            &sb.debug,
            &sb.original,
            &roots,
            &[lib_globals, globals],
            &[lib_env, env, sb.base.clone()],
        )
        .map_err(|u| {
            let message = format!("mod `{}`: {}", m.id, u.message);
            vec![if u.file.as_os_str().is_empty() {
                Diagnostic::whole_file(&m.dir, message)
            } else {
                Diagnostic {
                    file: u.file,
                    line: u.line,
                    column: 1,
                    message,
                }
            }]
        })?;
        let frozen = !assigns && !snapshot.has_tables();
        let collect_at = sb.lua.used_memory().saturating_mul(2);
        let call = Call {
            catalog: Arc::new(Catalog::new()),
            rules: Arc::new(Rules::default()),
            field: None,
            cell: None,
            tile: None,
            player: None,
            ability: 0,
            phase: 0,
            answer: None,
            initiative_changes: Vec::new(),
            gifts: Vec::new(),
            game: api::GameInfo::default(),
            army_lists: Default::default(),
            words: Default::default(),
        };
        let (ctx, call) = Shared::new(call);
        let ctx = sb.lua.create_any_userdata(ctx).map_err(whole)?;
        let (plan, plan_state) = Shared::new(Plan::new(&sb.lua).map_err(whole)?);
        let plan = sb.lua.create_any_userdata(plan).map_err(whole)?;
        let (fx, fx_state) = Shared::new(Fx::default());
        let fx = sb.lua.create_any_userdata(fx).map_err(whole)?;
        let (hits, hits_state) = Shared::new(Hits::default());
        let hits = sb.lua.create_any_userdata(hits).map_err(whole)?;
        let (attack, attack_now) = api::attack_object(&sb.lua).map_err(whole)?;
        let tile_key = sb.lua.create_string("tile").map_err(whole)?;
        Ok(ModState {
            id: m.id.clone(),
            warnings,
            lua: sb.lua,
            budget: sb.budget,
            runner: sb.runner,
            snapshot,
            frozen,
            collect_at: Cell::new(collect_at),
            dirty: Cell::new(false),
            broken: RefCell::new(None),
            registry,
            library,
            ctx,
            plan,
            fx,
            hits,
            call,
            plan_state,
            fx_state,
            hits_state,
            attack,
            attack_now,
            tile_key,
            scan: RefCell::new(Scan::default()),
            watch,
        })
    }

    fn bind(
        &mut self,
        mods: &[ModInfo],
        states: Vec<Option<Rc<ModState>>>,
        catalog: &mut Catalog,
        problems: &mut Vec<Diagnostic>,
    ) {
        // Which mod (and so which sandbox) provides each army, and where its hooks are named.
        let mut provider = std::collections::BTreeMap::new();
        for (i, m) in mods.iter().enumerate() {
            for a in &m.armies {
                provider.entry(a.id.clone()).or_insert((i, a));
            }
        }
        let mut index_of = vec![None; states.len()];
        for (i, s) in states.into_iter().enumerate() {
            if let Some(s) = s {
                index_of[i] = Some(self.states.len());
                self.states.push(s);
            }
        }
        // The mods that depend on each mod, in load order: a tile one of them adds to the
        // other's army by a patch may bind an ability its own scripts define.
        let dependents: Vec<Vec<usize>> = mods
            .iter()
            .map(|m| {
                mods.iter()
                    .enumerate()
                    .filter(|(_, d)| d.manifest.dependencies.iter().any(|dep| dep.id == m.id))
                    .map(|(j, _)| j)
                    .collect()
            })
            .collect();
        let mut bindings = Vec::new();
        catalog.edit_tiles(|_, tile| {
            if tile.abilities.is_empty() {
                return;
            }
            let Some((m, army)) = provider.get(&tile.army) else {
                return;
            };
            let Some(own) = index_of[*m] else {
                return; // its scripts failed to load: already reported
            };
            let sites: Vec<_> = army.hook_sites.iter().filter(|s| s.tile == tile.id).collect();
            let reported = problems.len();
            for i in 0..tile.abilities.len() {
                let name = tile.abilities[i].hook.clone();
                // The army's own mod first, then the mods that depend on it (a patch's mod).
                let state = if self.states[own].find(&name).is_some() {
                    own
                } else {
                    dependents[*m]
                        .iter()
                        .filter_map(|d| index_of[*d])
                        .find(|d| self.states[*d].find(&name).is_some())
                        .unwrap_or(own)
                };
                let st = &self.states[state];
                let site = sites.get(i).map(|s| s.at.clone());
                let located = |message: String| match &site {
                    Some(at) => Diagnostic {
                        message,
                        ..at.clone()
                    },
                    None => Diagnostic::whole_file(&mods[*m].dir, message),
                };
                let Some(ability) = st.find(&name) else {
                    let known: Vec<String> = st
                        .registry
                        .borrow()
                        .abilities
                        .keys()
                        .chain(st.library.borrow().abilities.keys())
                        .cloned()
                        .collect();
                    // Defined by a mod this one does not depend on: say which, and what to do.
                    let elsewhere = self
                        .states
                        .iter()
                        .find(|s| s.registry.borrow().abilities.contains_key(&name))
                        .map(|s| {
                            format!(
                                " (the mod `{}` defines one: abilities are looked up in the army's own mod, the mods that depend on it and the shared library, so copy it into this mod's scripts/)",
                                s.id
                            )
                        })
                        .unwrap_or_default();
                    problems.push(located(format!(
                        "tile `{}`: no ability `{name}` is defined{}{elsewhere}: define it in the mod's scripts/ with ability(\"{name}\", {{ ... }}), or use one of: {}",
                        tile.full_id(),
                        hexforge_core::names::did_you_mean(&name, known.iter().map(String::as_str)),
                        known.join(", ")
                    )));
                    continue;
                };
                // Static effects are merged into the definition once: binding a catalog again
                // (a host per thread) leaves them as they are.
                let merged = tile.abilities[i].merged;
                if !merged
                    && let Some(gives) = &ability.gives
                    && let Err(message) = apply_gives(st, gives, tile, i)
                {
                    problems.push(located(format!(
                        "tile `{}`, ability `{name}`, gives: {message}",
                        tile.full_id()
                    )));
                    continue;
                }
                if !merged && let Some(instant) = &ability.instant {
                    if tile.instant == Some(InstantEffect::Scripted) {
                        problems.push(located(format!(
                            "tile `{}`, ability `{name}`: an instant plays a built-in effect (`instant`) or its scripts (`play`), not both",
                            tile.full_id()
                        )));
                        continue;
                    }
                    match apply_instant(st, instant, tile, i) {
                        Ok(effect) => tile.instant = Some(effect),
                        Err(message) => {
                            problems.push(located(format!(
                                "tile `{}`, ability `{name}`, instant: {message}",
                                tile.full_id()
                            )));
                            continue;
                        }
                    }
                }
                if ability.points.contains(HookPoints::GIVES_TO)
                    && !matches!(tile.kind, TileKind::Module | TileKind::Hq)
                {
                    problems.push(located(format!(
                        "tile `{}`, ability `{name}`, gives_to: a {} gives nothing through links: bind it to a module (what its links reach) or an HQ (the tiles around it)",
                        tile.full_id(),
                        tile.kind
                    )));
                    continue;
                }
                if ability.points.intersects(HookPoints::INSTANT) {
                    let problem = if tile.kind != TileKind::Instant {
                        Some(format!(
                            "only instant tiles have `targets` and `play`; this tile is a {}",
                            tile.kind
                        ))
                    } else if tile.instant.is_some_and(|e| e != InstantEffect::Scripted) {
                        Some("an instant plays a built-in effect (`instant`) or its scripts (`play`), not both".to_string())
                    } else {
                        None
                    };
                    if let Some(message) = problem {
                        problems.push(located(format!(
                            "tile `{}`, ability `{name}`: {message}",
                            tile.full_id()
                        )));
                        continue;
                    }
                    if ability.points.contains(HookPoints::PLAY) {
                        tile.instant = Some(InstantEffect::Scripted);
                    }
                }
                let a = &mut tile.abilities[i];
                a.merged = true;
                a.points = ability.points;
                if !ability.points.is_empty() {
                    a.binding = bindings.len() as u32;
                    bindings.push(Binding {
                        state,
                        ability,
                        index: i,
                        tile: tile.full_id(),
                    });
                }
            }
            if problems.len() > reported && !self.failed.contains(&mods[*m].id) {
                self.failed.push(mods[*m].id.clone());
            }
            if tile.kind == TileKind::Instant && tile.instant.is_none() && problems.len() == reported
            {
                let at = sites.first().map(|s| s.at.clone());
                let message = format!(
                    "instant `{}` plays nothing: bind an ability whose `instant` function returns an effect, e.g. hook = \"snipe\", or one with a `play` function (docs/LUA_API.md, \"Scripted instants\")",
                    tile.full_id()
                );
                problems.push(match at {
                    Some(at) => Diagnostic { message, ..at },
                    None => Diagnostic::whole_file(&mods[*m].dir, message),
                });
            }
        });
        self.bindings = bindings;
        self.plan_memo.get_mut().clear();
        self.bind_rules(mods, &index_of, catalog, problems);
    }

    /// The mods whose scripts did not load or whose tiles' abilities did not bind: they should
    /// not be played ([`load`] leaves them out).
    pub fn failed_mods(&self) -> &[String] {
        &self.failed
    }

    /// The ids of the mods whose scripts run.
    pub fn mods(&self) -> impl Iterator<Item = &str> {
        self.states.iter().map(|s| s.id.as_str())
    }

    fn binding(&self, ctx: &Site<'_>) -> Result<&Binding, HookError> {
        self.bindings
            .get(ctx.ability.binding as usize)
            .filter(|b| {
                ctx.def
                    .abilities
                    .get(b.index)
                    .is_some_and(|a| a.hook == ctx.ability.hook)
            })
            .ok_or_else(|| HookError {
                message: format!(
                    "{}: ability `{}` is not bound to a script (load the catalog through the script host)",
                    ctx.def.full_id(),
                    ctx.ability.hook
                ),
            })
    }

    /// Takes `rules` as the rules scripts read (`ctx:rule`, `ctx:option`) when they differ from
    /// those of the last call, forgetting the plans remembered under the others (what those
    /// reads gave is part of every remembered plan). Every call into a script comes through here.
    fn follow_rules(&mut self, rules: &Rules) {
        if *self.rules != *rules {
            self.rules = Arc::new(rules.clone());
            self.plan_memo.get_mut().clear();
        }
    }

    /// Calls the function of `point` for the ability in `ctx`, with `plan` moved in and out.
    fn call(
        &mut self,
        ctx: &Site<'_>,
        point: HookPoints,
        mut args: Args<'_>,
    ) -> Result<(), HookError> {
        let Some(point) = HookPoints::ALL.iter().position(|(p, _)| *p == point) else {
            return Ok(());
        };
        self.follow_rules(ctx.rules);
        let binding = ctx.ability.binding as usize;
        let b = self.binding(ctx)?;
        let Some(f) = &b.ability.hooks[point] else {
            return Ok(());
        };
        let st = &self.states[b.state];
        let error = |f: Failure| HookError {
            message: ScriptError {
                mod_id: st.id.clone(),
                at: f.at.unwrap_or_else(|| b.ability.defined_at.clone()),
                hook: HookPoints::ALL[point].1.to_string(),
                tile: b.tile.clone(),
                message: f.message,
                traceback: f.traceback,
            }
            .to_string(),
        };
        if let Some(f) = st.broken_failure() {
            return Err(error(f));
        }
        // An error of the host's own work around the call (the call's results checked, say): at
        // the ability's definition.
        let fail = |e: mlua::Error| error(outside(&e));
        let lua = &st.lua;
        // The question a `plan_attacks` ability declares is asked first; `ctx:ask` reads the
        // answer during the call (every call sets it: none outside such a call).
        let answer = match &mut args {
            Args::Plan(_, decider, _) => b.ability.asks.zip(ctx.cell).map(|(q, by)| {
                let options = [Choice::Attack, Choice::Explode];
                let d = Decision {
                    question: Question::Explode,
                    by,
                    player: ctx.field.at(by).map(|p| p.owner).unwrap_or_default(),
                    options: &options,
                };
                (
                    q,
                    options.get(decider.decide(ctx.field, &d)) == Some(&Choice::Explode),
                )
            }),
            _ => None,
        };
        // A plan this ability made before from the same plan, in a call that depended on nothing
        // else (`memo.rs`): the call would make it again.
        let yes = answer.map(|(_, yes)| yes);
        let memo = st.frozen;
        if memo && let Args::Plan(plan, _, _) = &mut args {
            if let Some(out) = self.plan_memo.borrow().find(binding, ctx.tile, yes, plan) {
                // Into the plan's own list: no allocation.
                plan.attacks.clone_from(&out.attacks);
                plan.blast = out.blast;
                return Ok(());
            }
        }
        st.dirty.set(true);
        if !matches!(args, Args::Attack(..)) {
            // `a` holds no attack outside its hooks: a script that kept it gets that error.
            st.attack_now.set(None).map_err(fail)?;
        }
        {
            let mut call = st.call.get_mut().map_err(fail)?;
            call.begin(&self.catalog, &self.rules, ctx.field);
            call.answer = answer;
            call.cell = ctx.cell;
            call.tile = ctx.tile;
            call.player = ctx.player;
            call.ability = b.index;
            call.phase = ctx.phase;
            call.initiative_changes.clear();
            call.initiative_changes
                .extend_from_slice(ctx.initiative_changes);
            call.gifts.clear();
            call.gifts.extend_from_slice(ctx.gifts);
            call.game.on = false;
        }
        let shape = ctx.field.shape();
        st.fx_state.get_mut().map_err(fail)?.start(
            ctx.field,
            ctx.cell,
            !ctx.initiative_changes.is_empty(),
        );
        let result = match &mut args {
            Args::Plan(plan, _, _) => {
                let swap = |plan: &mut AttackPlan| {
                    st.plan_state
                        .get_mut()
                        .map(|mut p| std::mem::swap(&mut p.0, plan))
                };
                // What the call is handed, noted to be kept with what it makes (no allocation).
                let rng = memo.then(|| {
                    self.plan_memo.borrow_mut().note(plan);
                    self.rng.borrow().clone()
                });
                st.watch.clear();
                swap(plan).map_err(fail)?;
                let result = st.runner.call::<()>(lua, f, (&st.ctx, &st.plan, &st.fx));
                swap(plan).map_err(fail)?;
                if let Some(rng) = rng
                    && result.is_ok()
                    && !st.watch.seen()
                    && *self.rng.borrow() == rng
                {
                    self.plan_memo
                        .borrow_mut()
                        .keep_noted(binding, ctx.tile, yes, plan);
                }
                result
            }
            Args::Initiative(out, _) => st
                .runner
                .call::<Value>(lua, f, (&st.ctx, &st.fx))
                .and_then(|v| {
                    // A whole number (a float that is one too); 1.5 or "3" is the script's error,
                    // never a value cut down to fit.
                    let n = match v {
                        Value::Nil => Some(0),
                        Value::Integer(i) => Some(i),
                        Value::Number(x) if x.fract() == 0.0 && x.abs() < 1e15 => Some(x as i64),
                        _ => None,
                    };
                    let fail = |message: String| Failure {
                        at: Some(function_at(&b.ability.defined_at, f)),
                        message,
                        traceback: Vec::new(),
                    };
                    let Some(n) = n else {
                        return Err(fail(format!(
                            "initiative returns a whole number from -9 to 9 (or nothing), not {}",
                            match &v {
                                Value::Number(x) => x.to_string(),
                                Value::String(s) => format!("\"{}\"", s.to_string_lossy()),
                                other => format!("a {}", other.type_name()),
                            }
                        )));
                    };
                    **out = i8::try_from(n)
                        .ok()
                        .filter(|v| (-9..=9).contains(v))
                        .ok_or_else(|| {
                            fail(format!("initiative: {n} is out of range: return -9 to 9"))
                        })?;
                    Ok(())
                }),
            Args::GivesTo(target, out) => {
                let h = shape.hex(*target);
                let at = function_at(&b.ability.defined_at, f);
                st.runner
                    .call::<Value>(lua, f, (&st.ctx, h.q(), h.r()))
                    .and_then(|v| {
                        **out = gift_of(&v).map_err(|message| Failure {
                            at: Some(at),
                            message: format!("gives_to: {message}"),
                            traceback: Vec::new(),
                        })?;
                        Ok(())
                    })
            }
            Args::Effects(_) => st.runner.call::<()>(lua, f, (&st.ctx, &st.fx)),
            Args::Targets(out) => {
                let at = function_at(&b.ability.defined_at, f);
                st.runner.call::<Value>(lua, f, &st.ctx).and_then(|v| {
                    read_targets(st, ctx.field, None, &v, out).map_err(|message| Failure {
                        at: Some(at),
                        message: crate::sandbox::cut(&message),
                        traceback: Vec::new(),
                    })
                })
            }
            Args::Play(target, _) => {
                let at = function_at(&b.ability.defined_at, f);
                let target = match target {
                    Some(h) => {
                        let t = lua.create_table().map_err(fail)?;
                        t.raw_set("q", h.q()).map_err(fail)?;
                        t.raw_set("r", h.r()).map_err(fail)?;
                        Value::Table(t)
                    }
                    None => Value::Nil,
                };
                st.runner
                    .call::<()>(lua, f, (&st.ctx, target, &st.fx))
                    .and_then(|()| {
                        // What it asked, checked once more against the board (effect.rs).
                        let fx = st.fx_state.get().map_err(|e| outside(&e))?;
                        hexforge_core::effect::check_effects(ctx.field, &fx.asked).map_err(|e| {
                            Failure {
                                at: Some(at),
                                message: e.message,
                                traceback: Vec::new(),
                            }
                        })
                    })
            }
            Args::Attack(a, _) => {
                let a = *a;
                st.attack_now
                    .set(Some(LuaAttack {
                        from: shape.hex(a.from),
                        edge: a.edge.map(|e| e.index()),
                        kind: a.kind,
                        target: a.target.map(|t| shape.hex(t)),
                        strength: a.strength,
                        wounds: a.wounds,
                        outcome: a.outcome,
                    }))
                    .map_err(fail)?;
                st.runner.call::<()>(lua, f, (&st.ctx, &st.attack, &st.fx))
            }
            Args::Hits(hits, _) => {
                {
                    let mut h = st.hits_state.get_mut().map_err(fail)?;
                    h.0.clear();
                    h.0.extend(hits.iter().map(|x| LuaHit {
                        from: x.from.map(|c| shape.hex(c)),
                        kind: x.kind,
                        dealt: x.wounds,
                        wounds: x.wounds,
                        to: shape.hex(x.to),
                    }));
                }
                st.runner
                    .call::<()>(lua, f, (&st.ctx, &st.hits, &st.fx))
                    .and_then(|()| {
                        let h = st.hits_state.get()?;
                        for (x, l) in hits.iter_mut().zip(&h.0) {
                            x.wounds = l.wounds;
                            x.to = shape.cell(l.to).ok_or_else(|| {
                                mlua::Error::runtime(format!("hits: {} is off the board", l.to))
                            })?;
                        }
                        Ok(())
                    })
            }
        };
        let ok = result.is_ok();
        st.take_effects(ok.then(|| args.effects()).flatten())
            .map_err(fail)?;
        // `ctx` keeps the board, and `a` its attack, until the next call replaces them or code
        // runs outside hooks (`ModState::outside_hooks`): no script runs in between.
        result.map_err(error)
    }
}

/// A failure of the host's own work around a call, not located in a script.
fn outside(e: &mlua::Error) -> Failure {
    Failure::from(e.clone())
}

/// The message of a failed `gives` or `instant` call (reported at the tile's ability in its army
/// file), naming the script line that failed.
fn static_message(f: Failure) -> String {
    match f.at {
        Some(at) => format!("{at}: {}", f.message),
        None => f.message,
    }
}

/// Evaluates an `instant` function with the ability's parameters: the engine effect the instant
/// tile plays (docs/LUA_API.md).
fn apply_instant(
    st: &ModState,
    instant: &Function,
    tile: &Tile,
    i: usize,
) -> Result<InstantEffect, String> {
    if tile.kind != TileKind::Instant {
        return Err(format!(
            "only instant tiles play an instant effect; this tile is a {}",
            tile.kind
        ));
    }
    st.dirty.set(true);
    st.outside_hooks().map_err(|e| outside(&e).message)?;
    let params =
        api::params_table(&st.lua, &tile.abilities[i].params).map_err(|e| outside(&e).message)?;
    let t: Table = st
        .runner
        .call(&st.lua, instant, params)
        .map_err(static_message)?;
    let int = |key: &str, lo: i64, hi: i64| -> Result<u8, String> {
        match t.get::<Value>(key).map_err(|e| e.to_string())? {
            Value::Nil => Ok(1),
            Value::Integer(v) if (lo..=hi).contains(&v) => Ok(v as u8),
            other => Err(format!(
                "`{key}` must be a whole number from {lo} to {hi}, not {}",
                other
                    .to_string()
                    .unwrap_or_else(|_| other.type_name().into())
            )),
        }
    };
    let effect: String = t
        .get::<Option<String>>("effect")
        .map_err(|e| e.to_string())?
        .ok_or("the table needs `effect`")?;
    Ok(match effect.as_str() {
        "battle" => InstantEffect::Battle,
        "move" => InstantEffect::Move,
        "push" => InstantEffect::Push,
        "wound" => InstantEffect::Wound {
            wounds: int("wounds", 1, 9)?,
        },
        "destroy_near_hq" => InstantEffect::DestroyNearHq,
        "area" => InstantEffect::Area {
            wounds: int("wounds", 1, 9)?,
            radius: int("radius", 1, 3)?,
        },
        other => {
            return Err(format!(
                "unknown effect `{other}`: use battle, move, push, wound, destroy_near_hq or area"
            ));
        }
    })
}

/// Evaluates a `gives` function with the ability's parameters and merges the effects it returns
/// into the tile: a module's link effects, an HQ's aura, or board-wide effects (`move_range`).
fn apply_gives(st: &ModState, gives: &Function, tile: &mut Tile, i: usize) -> Result<(), String> {
    st.dirty.set(true);
    st.outside_hooks().map_err(|e| outside(&e).message)?;
    let params =
        api::params_table(&st.lua, &tile.abilities[i].params).map_err(|e| outside(&e).message)?;
    let t: Table = st
        .runner
        .call(&st.lua, gives, params)
        .map_err(static_message)?;
    let int = |key: &str, lo: i64, hi: i64| table_int(&t, key, lo, hi);
    let flag = |key: &str| table_flag(&t, key);
    const KEYS: [&str; 10] = [
        "melee",
        "ranged",
        "initiative",
        "enemy_initiative",
        "medic",
        "extra_attack",
        "hijack",
        "convert_attack",
        "mobility",
        "move_range",
    ];
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair.map_err(|e| e.to_string())?;
        let key = k.to_string().unwrap_or_default();
        if !KEYS.contains(&key.as_str()) {
            return Err(format!(
                "unknown effect `{key}` (effects: {})",
                KEYS.join(", ")
            ));
        }
    }
    let linked = !(int("melee", -9, 9)?.is_none()
        && int("ranged", -9, 9)?.is_none()
        && int("initiative", -9, 9)?.is_none()
        && int("enemy_initiative", -9, 9)?.is_none()
        && !flag("medic")?
        && int("extra_attack", 0, 4)?.is_none()
        && !flag("hijack")?
        && !flag("convert_attack")?
        && !flag("mobility")?);
    if linked {
        let fx = match tile.kind {
            TileKind::Module => &mut tile.module,
            TileKind::Hq => &mut tile.aura,
            other => {
                return Err(format!(
                    "a {other} gives nothing through links: only modules (through their links) and HQs (to adjacent friends) give effects"
                ));
            }
        };
        let add = |a: i8, b: Option<i64>| (i64::from(a) + b.unwrap_or(0)).clamp(-9, 9) as i8;
        fx.melee = add(fx.melee, int("melee", -9, 9)?);
        fx.ranged = add(fx.ranged, int("ranged", -9, 9)?);
        fx.initiative = add(fx.initiative, int("initiative", -9, 9)?);
        fx.enemy_initiative = add(fx.enemy_initiative, int("enemy_initiative", -9, 9)?);
        fx.medic |= flag("medic")?;
        fx.extra_attack = fx
            .extra_attack
            .saturating_add(int("extra_attack", 0, 4)?.unwrap_or(0) as u8);
        fx.hijack |= flag("hijack")?;
        fx.convert_attack |= flag("convert_attack")?;
        fx.mobility |= flag("mobility")?;
    }
    if let Some(r) = int("move_range", 1, 9)? {
        if tile.kind == TileKind::Instant {
            return Err("an instant is never on the board, so it gives no move range".into());
        }
        tile.global.move_range = tile.global.move_range.max(r as u8);
    }
    Ok(())
}

/// The whole number at `key` of `t`, from `lo` to `hi`; `None` when it is not there.
fn table_int(t: &Table, key: &str, lo: i64, hi: i64) -> Result<Option<i64>, String> {
    match t.get::<Value>(key).map_err(|e| e.to_string())? {
        Value::Nil => Ok(None),
        Value::Integer(v) if (lo..=hi).contains(&v) => Ok(Some(v)),
        other => Err(format!(
            "`{key}` must be a whole number from {lo} to {hi}, not {}",
            other
                .to_string()
                .unwrap_or_else(|_| other.type_name().into())
        )),
    }
}

/// The flag at `key` of `t`; false when it is not there.
fn table_flag(t: &Table, key: &str) -> Result<bool, String> {
    match t.get::<Value>(key).map_err(|e| e.to_string())? {
        Value::Nil => Ok(false),
        Value::Boolean(b) => Ok(b),
        other => Err(format!(
            "`{key}` must be true or false, not a {}",
            other.type_name()
        )),
    }
}

/// The effects a `gives_to` hook returns for one tile: a table of `melee`, `ranged`,
/// `initiative`, `enemy_initiative` (-9..9), `extra_attack` (0..4) and `medic`, or nil for none.
/// The effects that work without a battle (`hijack`, `convert_attack`, `mobility`,
/// `move_range`) stay with `gives`.
fn gift_of(v: &Value) -> Result<Effects, String> {
    const KEYS: [&str; 6] = [
        "melee",
        "ranged",
        "initiative",
        "enemy_initiative",
        "extra_attack",
        "medic",
    ];
    let t = match v {
        Value::Nil => return Ok(Effects::NONE),
        Value::Table(t) => t,
        other => {
            return Err(format!(
                "return a table of effects (or nil), not a {}",
                other.type_name()
            ));
        }
    };
    for pair in t.pairs::<Value, Value>() {
        let (k, _) = pair.map_err(|e| e.to_string())?;
        let key = k.to_string().unwrap_or_default();
        if !KEYS.contains(&key.as_str()) {
            let hint =
                if ["hijack", "convert_attack", "mobility", "move_range"].contains(&key.as_str()) {
                    " (it works outside battles too, so it stays with `gives`)"
                } else {
                    ""
                };
            return Err(format!(
                "unknown effect `{key}`{hint}: gives_to returns {}",
                KEYS.join(", ")
            ));
        }
    }
    let num =
        |key: &str| -> Result<i8, String> { Ok(table_int(t, key, -9, 9)?.unwrap_or(0) as i8) };
    Ok(Effects {
        melee: num("melee")?,
        ranged: num("ranged")?,
        initiative: num("initiative")?,
        enemy_initiative: num("enemy_initiative")?,
        extra_attack: table_int(t, "extra_attack", 0, 4)?.unwrap_or(0) as u8,
        medic: table_flag(t, "medic")?,
        ..Effects::NONE
    })
}

/// What a hook is called with besides `ctx`: its own object, and the list its `fx` fills.
enum Args<'a> {
    Plan(&'a mut AttackPlan, &'a mut dyn Decider, &'a mut Vec<Effect>),
    Effects(&'a mut Vec<Effect>),
    Attack(&'a ResolvedAttack, &'a mut Vec<Effect>),
    Hits(&'a mut [IncomingHit], &'a mut Vec<Effect>),
    Initiative(&'a mut i8, &'a mut Vec<Effect>),
    /// A scripted instant's `targets`: what it returns, checked, goes to the targets.
    Targets(&'a mut InstantTargets),
    /// A scripted instant's `play`, with its target.
    Play(Option<Hex>, &'a mut Vec<Effect>),
    /// `gives_to`, with the tile given to: what it returns, checked, goes to the effects.
    GivesTo(hexforge_core::Cell, &'a mut Effects),
}

impl<'a> Args<'a> {
    /// The list the call's effects go to (every hook but `targets` has one).
    fn effects(&mut self) -> Option<&mut Vec<Effect>> {
        match self {
            Args::Plan(_, _, e)
            | Args::Effects(e)
            | Args::Attack(_, e)
            | Args::Hits(_, e)
            | Args::Initiative(_, e)
            | Args::Play(_, e) => Some(e),
            Args::Targets(_) | Args::GivesTo(..) => None,
        }
    }
}

/// Where a hook runs: a tile on the board (a [`HookContext`]) or a scripted instant in a
/// player's hand (an [`InstantContext`], on no cell).
struct Site<'a> {
    field: &'a Battlefield,
    rules: &'a Rules,
    def: &'a Tile,
    ability: &'a AbilityRef,
    /// The tile's cell; none for an instant.
    cell: Option<hexforge_core::Cell>,
    /// The tile (on the board, or the instant).
    tile: Option<TileRef>,
    /// The player who holds the instant; none for a tile on the board (its owner is read there).
    player: Option<Seat>,
    phase: u8,
    initiative_changes: &'a [i8],
    /// What `gives_to` hooks give in the battle of the call (empty outside battles).
    gifts: &'a [Gift],
}

impl<'a> Site<'a> {
    fn of(ctx: &HookContext<'a>) -> Self {
        Site {
            field: ctx.field,
            rules: ctx.rules,
            def: ctx.def,
            ability: ctx.ability,
            cell: Some(ctx.cell),
            tile: ctx.field.at(ctx.cell).map(|p| p.tile),
            player: None,
            phase: ctx.phase,
            initiative_changes: ctx.initiative_changes,
            gifts: ctx.gifts,
        }
    }

    fn instant(ctx: &InstantContext<'a>) -> Self {
        Site {
            field: ctx.field,
            rules: ctx.rules,
            def: ctx.def,
            ability: ctx.ability,
            cell: None,
            tile: Some(ctx.tile),
            player: Some(ctx.player),
            phase: 0,
            initiative_changes: &[],
            gifts: &[],
        }
    }
}

/// `file:line` of where `f` is defined, in the file of its ability's definition `defined_at`.
fn function_at(defined_at: &str, f: &Function) -> String {
    match (defined_at.rsplit_once(':'), f.info().line_defined) {
        (Some((file, _)), Some(line)) => format!("{file}:{line}"),
        _ => defined_at.to_string(),
    }
}

/// Reads what a `targets` function returned: a list whose entries are hexes `{q, r}` (or
/// `{q = , r = }`) of the board, the word `"none"` (played with no target), or, for a rule action
/// (`army` given: the catalog and the acting player's army), tiles `{ tile = "army/tile" }` of
/// that army. `st` is the state the list comes from. A well-formed list is read in one call into
/// Lua ([`Scan`]); any other is read a value at a time, which words what is wrong with it.
fn read_targets(
    st: &ModState,
    field: &Battlefield,
    army: Option<(&Catalog, &Army)>,
    v: &Value,
    out: &mut InstantTargets,
) -> Result<(), String> {
    if let Value::Table(list) = v {
        let mut scan = st.scan.borrow_mut();
        if scan
            .read(&st.lua, list, &st.tile_key)
            .map_err(|e| e.to_string())?
        {
            for (i, entry) in scan.entries.iter().enumerate() {
                match entry {
                    Target::None => out.none = true,
                    Target::Hex(q, r) => add_cell(field, i + 1, (*q, *r), out)?,
                    Target::Tile(range) => read_tile_id(army, i + 1, &scan.tile_id(range), out)?,
                }
            }
            return Ok(());
        }
    }
    read_targets_slowly(field, army, &st.tile_key, v, out)
}

/// [`read_targets`] a value at a time, for a list that is not well formed.
fn read_targets_slowly(
    field: &Battlefield,
    army: Option<(&Catalog, &Army)>,
    tile_key: &mlua::String,
    v: &Value,
    out: &mut InstantTargets,
) -> Result<(), String> {
    let Value::Table(list) = v else {
        return Err(format!(
            "targets must return a list of hexes {{q, r}} (or {{ \"none\" }}), not {}",
            type_words(v)
        ));
    };
    let n = list.raw_len();
    for i in 1..=n {
        let entry: Value = list.raw_get(i).map_err(|e| e.to_string())?;
        let hex = match &entry {
            Value::String(w) if w.to_str().is_ok_and(|w| &*w == "none") => {
                out.none = true;
                continue;
            }
            Value::Table(t) => {
                let tile = t.raw_get::<Value>(tile_key).map_err(|e| e.to_string())?;
                if !tile.is_nil() {
                    read_tile_target(army, i, tile, out)?;
                    continue;
                }
                let int = |k: Value| -> Option<i64> {
                    match t.raw_get::<Value>(k).ok()? {
                        Value::Integer(v) => Some(v),
                        _ => None,
                    }
                };
                let q = int(Value::Integer(1))
                    .or_else(|| t.raw_get::<Value>("q").ok().and_then(|v| v.as_i64()));
                let r = int(Value::Integer(2))
                    .or_else(|| t.raw_get::<Value>("r").ok().and_then(|v| v.as_i64()));
                match (q, r) {
                    (Some(q), Some(r)) => (q, r),
                    _ => {
                        return Err(format!(
                            "target {i} is not a hex {{q, r}}: give two whole numbers"
                        ));
                    }
                }
            }
            other => {
                return Err(format!(
                    "target {i} is {}: give a hex {{q, r}} or \"none\"",
                    type_words(other)
                ));
            }
        };
        add_cell(field, i, hex, out)?;
    }
    Ok(())
}

/// Adds target `i`, the hex `(q, r)`, to `out`: an error if it is off the board.
fn add_cell(
    field: &Battlefield,
    i: usize,
    hex: (i64, i64),
    out: &mut InstantTargets,
) -> Result<(), String> {
    let cell = i32::try_from(hex.0)
        .ok()
        .zip(i32::try_from(hex.1).ok())
        .and_then(|(q, r)| field.shape().cell(Hex::new(q, r)))
        .ok_or_else(|| {
            format!(
                "target {i}, ({}, {}), is off the board: list only hexes of the board",
                hex.0, hex.1
            )
        })?;
    out.cells |= 1u64 << cell.index();
    Ok(())
}

/// Reads a rule action's target `{ tile = "army/tile" }` (entry `i` of the list, `tile` its
/// `tile` field): a tile of the acting player's army, among its first 64.
fn read_tile_target(
    army: Option<(&Catalog, &Army)>,
    i: usize,
    tile: Value,
    out: &mut InstantTargets,
) -> Result<(), String> {
    if army.is_none() {
        return Err(no_tile_targets(i));
    }
    match tile {
        Value::String(s) => read_tile_id(army, i, &s.to_string_lossy(), out),
        other => Err(format!(
            "target {i}: `tile` is the tile's `army/tile` id, not {}",
            type_words(&other)
        )),
    }
}

/// The message for a tile target where only hexes are taken.
fn no_tile_targets(i: usize) -> String {
    format!(
        "target {i} is a tile: only a game rule's action is taken on a tile; an instant lists hexes {{q, r}} or \"none\""
    )
}

/// Adds target `i`, the tile `id` (`army/tile`), to `out`: an error unless it is one of the first
/// 64 tiles of the acting player's army.
fn read_tile_id(
    army: Option<(&Catalog, &Army)>,
    i: usize,
    id: &str,
    out: &mut InstantTargets,
) -> Result<(), String> {
    let Some((catalog, army)) = army else {
        return Err(no_tile_targets(i));
    };
    // Most often a tile of the army as it was written: found among its first 64 without a
    // lookup by name.
    if let Some((a, t)) = id.split_once('/')
        && let Some(at) = army.tiles.iter().take(64).position(|r| {
            let def = catalog.get(*r);
            def.id == t && def.army == a
        })
    {
        out.tiles |= 1u64 << at;
        return Ok(());
    }
    let Some(tile) = catalog.find(id) else {
        return Err(format!(
            "target {i}: no tile `{id}` is loaded{}: name a tile of the army `{}` as `army/tile`",
            {
                let ids: Vec<String> = army
                    .tiles
                    .iter()
                    .map(|t| catalog.get(*t).full_id())
                    .collect();
                hexforge_core::names::did_you_mean(id, ids.iter().map(String::as_str))
            },
            army.id
        ));
    };
    match army.tile_slot(tile) {
        Some(at) => {
            out.tiles |= 1u64 << at;
            Ok(())
        }
        None if army.tiles.contains(&tile) => Err(format!(
            "target {i}: `{id}` is past the first 64 tiles of the army `{}`: an action is taken only on one of its first 64",
            army.id
        )),
        None => Err(format!(
            "target {i}: `{id}` is not a tile of the army `{}`, which the player whose turn it is plays: an action is taken only on a tile of that army",
            army.id
        )),
    }
}

/// A value in words for a message: `a string "x"`, `a number 3`, `nil`, `a table`.
fn type_words(v: &Value) -> String {
    match v {
        Value::Nil => "nil".into(),
        Value::String(s) => format!("the string \"{}\"", s.to_string_lossy()),
        Value::Integer(n) => format!("the number {n}"),
        Value::Number(n) => format!("the number {n}"),
        Value::Boolean(b) => format!("{b}"),
        other => format!("a {}", other.type_name()),
    }
}

impl AbilityHooks for ScriptHost {
    /// Draws start again from `seed`, and every mod's scripts are put back as they were after
    /// loading (only the mods whose code ran since, and only those whose functions close over
    /// local variables: the others have nothing to put back).
    fn reseed(&mut self, seed: u64) {
        *self.rng.borrow_mut() = Rng::seeded(seed);
        for st in &self.states {
            st.reset();
        }
    }

    fn battle_started(
        &mut self,
        ctx: &HookContext<'_>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::BATTLE_STARTED,
            Args::Effects(effects),
        )
    }

    fn plan_attacks(
        &mut self,
        ctx: &HookContext<'_>,
        plan: &mut AttackPlan,
        decider: &mut dyn Decider,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::PLAN_ATTACKS,
            Args::Plan(plan, decider, effects),
        )
    }

    fn phase_ended(
        &mut self,
        ctx: &HookContext<'_>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::PHASE_ENDED,
            Args::Effects(effects),
        )
    }

    fn attack_resolved(
        &mut self,
        ctx: &HookContext<'_>,
        attack: &ResolvedAttack,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::ATTACK_RESOLVED,
            Args::Attack(attack, effects),
        )
    }

    fn attacked(
        &mut self,
        ctx: &HookContext<'_>,
        attack: &ResolvedAttack,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::ATTACKED,
            Args::Attack(attack, effects),
        )
    }

    fn battle_ended(
        &mut self,
        ctx: &HookContext<'_>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::BATTLE_ENDED,
            Args::Effects(effects),
        )
    }

    fn initiative(
        &mut self,
        ctx: &HookContext<'_>,
        effects: &mut Vec<Effect>,
    ) -> Result<i8, HookError> {
        let mut delta = 0;
        self.call(
            &Site::of(ctx),
            HookPoints::INITIATIVE,
            Args::Initiative(&mut delta, effects),
        )?;
        Ok(delta)
    }

    fn gives_to(
        &mut self,
        ctx: &HookContext<'_>,
        target: hexforge_core::Cell,
    ) -> Result<Effects, HookError> {
        let mut out = Effects::NONE;
        self.call(
            &Site::of(ctx),
            HookPoints::GIVES_TO,
            Args::GivesTo(target, &mut out),
        )?;
        Ok(out)
    }

    fn before_wound(
        &mut self,
        ctx: &HookContext<'_>,
        hits: &mut [IncomingHit],
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::BEFORE_WOUND,
            Args::Hits(hits, effects),
        )
    }

    fn placed(
        &mut self,
        ctx: &HookContext<'_>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(&Site::of(ctx), HookPoints::PLACED, Args::Effects(effects))
    }

    fn turn_started(
        &mut self,
        ctx: &HookContext<'_>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::TURN_STARTED,
            Args::Effects(effects),
        )
    }

    fn turn_ended(
        &mut self,
        ctx: &HookContext<'_>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::TURN_ENDED,
            Args::Effects(effects),
        )
    }

    fn destroyed(
        &mut self,
        ctx: &HookContext<'_>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        self.call(
            &Site::of(ctx),
            HookPoints::DESTROYED,
            Args::Effects(effects),
        )
    }

    fn instant_targets(
        &mut self,
        ctx: &InstantContext<'_>,
        targets: &mut InstantTargets,
    ) -> Result<(), HookError> {
        self.call(
            &Site::instant(ctx),
            HookPoints::TARGETS,
            Args::Targets(targets),
        )
    }

    fn game_rule(
        &mut self,
        ctx: &hexforge_core::hooks::GameContext<'_>,
        call: hexforge_core::hooks::RuleCall<'_>,
    ) -> Result<(), HookError> {
        self.call_rule(ctx, call)
    }

    fn instant_played(
        &mut self,
        ctx: &InstantContext<'_>,
        target: Option<hexforge_core::Cell>,
        effects: &mut Vec<Effect>,
    ) -> Result<(), HookError> {
        let target = target.map(|c| ctx.field.shape().hex(c));
        self.call(
            &Site::instant(ctx),
            HookPoints::PLAY,
            Args::Play(target, effects),
        )
    }
}

/// Mod folders and their scripts, loaded together.
#[derive(Debug)]
pub struct Loaded {
    /// The catalog (with every ability bound), the mods, and every problem of both steps.
    pub mods: LoadedMods,
    /// The Lua states of the mods that loaded, implementing the hooks of `mods.catalog`.
    pub scripts: ScriptHost,
}

/// Loads every mod below `roots` ([`hexforge_content::load_mods`]), then their scripts
/// ([`ScriptHost::load`]); the problems of both are in `mods.problems`. A mod whose scripts fail
/// is left out, and so are the mods that need it. [`crate::Reloader`] does the same, keeping what
/// it can for the next load.
pub fn load(roots: &[PathBuf], limits: Limits) -> Loaded {
    crate::Reloader::new(limits).reload(roots, None).loaded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_is_located_without_running_the_text() {
        let path = Path::new("mods/fan/scripts/fury.lua");
        let good = "ability(\"fury\", {\n  plan_attacks = function(ctx, plan) end,\n})\n";
        assert_eq!(syntax_problem(path, good), None);
        // Never run: an endless loop compiles and returns at once.
        assert_eq!(syntax_problem(path, "while true do end\n"), None);
        let bad = "ability(\"fury\", {\n  plan_attacks = function(ctx, plan)\n})\n";
        let d = syntax_problem(path, bad).expect("a missing `end`");
        assert_eq!(d.file, path);
        assert_eq!(d.line, 3, "{d}");
        assert!(d.message.contains("expected"), "{d}");
    }

    #[test]
    fn the_shipped_mods_have_nothing_to_put_back_but_the_fan_armys_local_functions_and_most_never_change()
     {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods");
        let loaded = crate::load(&[root], Limits::default());
        assert!(loaded.mods.problems.is_empty(), "{}", loaded.mods.problems);
        let host = loaded.scripts;
        let kept: Vec<(&str, bool)> = host
            .states
            .iter()
            .map(|s| (s.id.as_str(), s.snapshot.is_empty()))
            .collect();
        assert!(kept.contains(&("base", true)), "{kept:?}");
        let frozen: Vec<(&str, bool)> = host
            .states
            .iter()
            .map(|s| (s.id.as_str(), s.frozen))
            .collect();
        // Monolith Arena's helpers are `local function`s that no function assigns again
        // (`bytecode.rs`): its state, like the base mod's, never changes once loaded.
        for id in ["base", "monolith_arena", "scored"] {
            assert!(frozen.contains(&(id, true)), "{id}: {frozen:?}");
        }
        // The Scrappers' scripts name helpers with `local function`: locals a hook could reassign.
        assert!(kept.contains(&("examples", false)), "{kept:?}");
    }
}
