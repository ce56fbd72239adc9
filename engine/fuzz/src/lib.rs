//! Hexforge's fuzz targets: one function per reader (army, patch and mod files, scenarios,
//! replays, the arguments scripts pass to the host API), each with a seed corpus from the
//! repository. libFuzzer drives them in `engine/fuzz/libfuzzer` (docs/FUZZING.md); the test
//! suite runs the seeds, the kept crashers and a short deterministic run of mutants.

#![warn(missing_docs)]

pub mod lua;
pub mod mutate;
pub mod seeds;
pub mod targets;
pub mod world;

/// One fuzz target: its name (the folder of its crashers, the name libFuzzer runs it by) and the
/// function that reads one input.
pub struct Target {
    /// The target's name.
    pub name: &'static str,
    /// Reads one input; must return, whatever the bytes.
    pub run: fn(&[u8]),
    /// The largest input the short run makes.
    pub max_len: usize,
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "army",
        run: targets::army,
        max_len: 1 << 16,
    },
    Target {
        name: "mod_files",
        run: targets::mod_files,
        max_len: 1 << 16,
    },
    Target {
        name: "patch",
        run: targets::patch,
        max_len: 1 << 16,
    },
    Target {
        name: "scenario",
        run: targets::scenario,
        max_len: 1 << 16,
    },
    Target {
        name: "replay",
        run: targets::replay,
        max_len: 1 << 16,
    },
    Target {
        name: "lua_args",
        run: targets::lua_args,
        max_len: 512,
    },
];

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}
