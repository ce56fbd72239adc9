//! The content the targets read: the repository's mods with their scripts, loaded once per thread.

use hexforge_content::LoadedMods;
use hexforge_content::patch::PatchedArmy;
use hexforge_core::Catalog;
use hexforge_script::{Limits, ScriptHost};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The repository's root folder (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// Every mod of the repository loaded with its scripts, and the base armies as a patch applies to
/// them.
pub struct World {
    /// The mods of `mods/`, their catalog and boards.
    pub loaded: LoadedMods,
    /// The mods' Lua states.
    pub scripts: ScriptHost,
    /// The catalog, shared with the games a target starts.
    pub catalog: Arc<Catalog>,
    /// The base mod's armies as read from its files, ready to be patched.
    pub base_armies: Vec<PatchedArmy>,
}

impl World {
    /// Loads the repository's mods. Panics if they do not load: the targets need them.
    fn load() -> World {
        let root = repo_root();
        let hexforge_script::Loaded {
            mods: loaded,
            scripts,
        } = hexforge_script::load(&[root.join("mods")], Limits::default());
        assert!(
            loaded.problems.is_empty(),
            "the repository's mods must load for the fuzz targets:\n{}",
            loaded.problems
        );
        let catalog = Arc::new(loaded.catalog.clone());
        // The base mod's armies as its files define them, before any patch.
        let base_armies = loaded
            .mods
            .iter()
            .filter(|m| m.id == "base")
            .flat_map(|m| &m.armies)
            .map(|army| PatchedArmy {
                mod_id: "base".to_string(),
                army: army.clone(),
            })
            .collect::<Vec<_>>();
        assert!(!base_armies.is_empty(), "the base mod's armies are loaded");
        World {
            loaded,
            scripts,
            catalog,
            base_armies,
        }
    }
}

thread_local! {
    static WORLD: RefCell<Option<World>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's world, loading it the first time.
pub fn with_world<R>(f: impl FnOnce(&mut World) -> R) -> R {
    WORLD.with(|w| {
        let mut w = w.borrow_mut();
        f(w.get_or_insert_with(World::load))
    })
}
