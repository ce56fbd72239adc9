//! Loading again after a change: the mod folders through the content crate's [`ModCache`] (only
//! the folders that changed are read again), and each mod's Lua state kept while its scripts stay
//! the same, so a reload after one file changed rebuilds one mod, not all of them.

use crate::host::{Loaded, ModState, ScriptHost};
use crate::sandbox::Limits;
use hexforge_content::{Diagnostic, ModCache, Refreshed, ScriptFile};
use hexforge_core::Rng;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::path::PathBuf;
use std::rc::Rc;

/// A mod's Lua state as last built, with what it was built from.
struct Kept {
    dir: PathBuf,
    scripts: Vec<ScriptFile>,
    /// The state, or the problems its scripts had.
    state: Result<Rc<ModState>, Vec<Diagnostic>>,
}

/// What a reload gave, and how much it had to redo.
#[derive(Debug)]
pub struct Reloaded {
    /// The mods and scripts as a full [`crate::load`] would give them.
    pub loaded: Loaded,
    /// The mod folders read again (the others came from the cache), in load-listing order.
    pub read: Vec<PathBuf>,
    /// The mod folders read before that are gone (deleted, renamed), sorted.
    pub gone: Vec<PathBuf>,
    /// The mods whose Lua state was built again, by id, in load order (the others were kept).
    pub rebuilt: Vec<String>,
}

/// Loads the mods below some roots again and again, reusing what did not change: each mod
/// folder's files as last read ([`ModCache`]), and each mod's Lua state.
///
/// A Lua state is kept while the mod's id, folder and scripts stay the same: it depends on
/// nothing else. The shared library is built into the binary and the limits are the
/// reloader's; what depends on other mods or on the catalog (which tiles bind which abilities,
/// the effects `gives` merges into them, the catalog hooks read) is redone by every load, and a
/// hook call hands the state the host's current catalog. A kept state carries nothing over: its
/// globals are read-only once loaded, and what its hooks can change (their local variables and
/// the tables those hold) is put back as it was after loading when a host is built and at every
/// reseed point, so it is then exactly what a fresh load gives. Every host built here draws
/// `math.random` from the reloader's generator, started again from seed 0 for each host as
/// [`ScriptHost::load`] starts its own.
pub struct Reloader {
    limits: Limits,
    mods: ModCache,
    states: BTreeMap<String, Kept>,
    rng: Rc<RefCell<Rng>>,
}

impl Reloader {
    /// A reloader that has read nothing yet: its first reload is a full load.
    pub fn new(limits: Limits) -> Self {
        Reloader {
            limits,
            mods: ModCache::default(),
            states: BTreeMap::new(),
            rng: Rc::new(RefCell::new(Rng::seeded(0))),
        }
    }

    /// Loads the mods below `roots` and their scripts as [`crate::load`] does, with the same
    /// result, reading again only the mod folders that hold a path of `changed` or whose files
    /// changed (`None`: every folder), and building again only the Lua states whose scripts
    /// changed.
    pub fn reload(&mut self, roots: &[PathBuf], changed: Option<&[PathBuf]>) -> Reloaded {
        let Refreshed { read, gone } = self.mods.refresh(roots, changed);
        let mut rebuilt = Vec::new();
        let mut used = Vec::new();
        let limits = self.limits;
        // A mod whose scripts fail is left out, and so are the mods that need it: assemble again
        // without it (each round leaves out at least one more mod, so this ends).
        let mut refused: Vec<(String, String)> = Vec::new();
        let mut script_problems = Vec::new();
        loop {
            let mut mods = self.mods.assemble(&refused);
            let states = &mut self.states;
            let (scripts, problems) =
                ScriptHost::load_with(&mods.mods, &mut mods.catalog, self.rng.clone(), |m, rng| {
                    note(&mut used, &m.id);
                    let build = |rng| Kept {
                        dir: m.dir.clone(),
                        scripts: m.scripts.clone(),
                        state: ScriptHost::mod_state(m, limits, rng).map(Rc::new),
                    };
                    let kept = match states.entry(m.id.clone()) {
                        Entry::Occupied(mut o) => {
                            let k = o.get();
                            if k.dir != m.dir || k.scripts != m.scripts {
                                o.insert(build(rng));
                                note(&mut rebuilt, &m.id);
                            }
                            o.into_mut()
                        }
                        Entry::Vacant(v) => {
                            note(&mut rebuilt, &m.id);
                            v.insert(build(rng))
                        }
                    };
                    kept.state.clone()
                });
            script_problems.extend(problems.0);
            if scripts.failed_mods().is_empty() {
                // The files' problems, then the scripts', then the mods skipped for them.
                let skipped = |d: &Diagnostic| {
                    mods.skipped.iter().any(|s| {
                        s.reason.file == d.file
                            && s.reason.line == d.line
                            && d.message.ends_with(&s.reason.message)
                    })
                };
                let (last, mut all): (Vec<Diagnostic>, Vec<Diagnostic>) =
                    std::mem::take(&mut mods.problems.0)
                        .into_iter()
                        .partition(skipped);
                all.extend(script_problems);
                all.extend(last);
                mods.problems.0 = all;
                mods.warnings.extend(scripts.script_warnings().cloned());
                // The states of mods that are gone are dropped.
                self.states.retain(|id, _| used.contains(id));
                return Reloaded {
                    loaded: Loaded { mods, scripts },
                    read,
                    gone,
                    rebuilt,
                };
            }
            refused.extend(scripts.failed_mods().iter().map(|id| {
                (
                    id.clone(),
                    "has errors in its scripts or abilities (listed above)".to_string(),
                )
            }));
        }
    }
}

/// Adds `id` to `ids` once.
fn note(ids: &mut Vec<String>, id: &str) {
    if !ids.iter().any(|x| x == id) {
        ids.push(id.to_string());
    }
}
