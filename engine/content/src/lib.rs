//! Hexforge content: army and mod files. Files are parsed into raw `*Def` structures, then one
//! validation pass turns them into engine definitions and reports every problem with its
//! `file:line:column`.

#![warn(missing_docs)]

pub mod api_changes;
pub mod archive;
pub mod army;
pub mod boards;
pub mod cache;
pub mod diagnostic;
pub mod edges;
pub mod folder;
pub mod folder_read;
pub mod identity;
pub mod manifest;
pub mod modpack;
pub mod options;
pub mod patch;
pub mod play_text;
pub mod presets;
pub mod resolve;
pub mod scaffold;
pub mod value;

pub use archive::{Archive, ArchiveError, Installed};
pub use army::{ArmyFile, HookSite, load_army, parse_army, parse_army_open};
pub use boards::{Board, HexMark, UnknownBoard, find_board, load_board, parse_board, table_board};
pub use cache::{ModCache, Refreshed};
pub use diagnostic::{Diagnostic, Diagnostics, SourceText};
pub use folder::{ScriptFile, mod_dirs, script_files, user_mods_dir};
pub use folder_read::{ArmyCheck, ModInfo, check_army_text, load_mod};
pub use identity::{army_hash, content_line, legacy_mod_hash, mod_files, mod_hash, preset_hash};
pub use manifest::{ENGINE_VERSION, Manifest, load_manifest};
pub use modpack::{LoadedMods, Skipped, load_mods, load_mods_except, mod_presets};
pub use options::{OPTIONS_FILE, OptionDecl, OptionsFile, load_options, parse_options};
pub use play_text::{lua_play_text, toml_play_text};
pub use presets::{
    RuleInfo, RuleKind, RuleLine, RulePreset, RulesError, ValueSource, key_value, load_preset,
    option_text, rule_info, rule_lines, table_rules,
};
pub use scaffold::{ScaffoldError, write_atomically};
