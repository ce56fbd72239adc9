//! Hexforge's Lua ability layer. Every mod's scripts run in a sandbox of their own (mlua, Lua
//! 5.4): no `io`, `os`, `package`, `require`, `load`, `dofile`, `debug` or `string.dump`, no binary
//! chunks; `pairs` visits keys in a fixed order and `math.random` draws from a seeded generator,
//! so hooks give the same results in every process; each call is stopped after an instruction
//! budget that counts library work too (pattern matching, building strings), a wall-clock
//! safeguard far above it only catches a stuck host, and each mod's memory is capped.
//! [`ScriptHost`] loads the shared library (`scripts/`) and the mods' scripts, binds every tile
//! ability to its implementation, and implements the engine's
//! [`hexforge_core::hooks::AbilityHooks`]. A failing script reaches the
//! user as `mod, file:line, hook, tile: message` with a short Lua traceback, the file relative to
//! the mod's folder, and the engine leaves the state unchanged.

#![warn(missing_docs)]

mod api;
mod build;
mod bytecode;
mod host;
mod library;
mod memo;
mod registry;
mod reloader;
mod sandbox;
mod scan;
mod shared;
mod snapshot;
mod source;
mod stack;
mod strings;

pub use host::{Loaded, ScriptError, ScriptHost, load, syntax_problem};
pub use reloader::{Reloaded, Reloader};
pub use sandbox::Limits;
pub use source::{HookSource, hook_names, hook_source};
