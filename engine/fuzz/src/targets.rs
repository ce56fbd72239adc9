//! The fuzz targets: each takes any bytes, reads them as the format it names through the same
//! functions the command line and the editor use, and must return (an error is fine) without
//! panicking, hanging or growing faster than its input.

use crate::lua;
use crate::world::with_world;
use hexforge_content::patch::{History, apply_patch_files};
use hexforge_content::{
    ScriptFile, SourceText, parse_army, parse_army_open, parse_board, parse_options,
};
use hexforge_core::Game;
use hexforge_scenario::{parse_scenario_with_boards, run_scenario};

/// The bytes as text: every reader takes UTF-8 (files that are not are refused when read, by
/// `hexforge_content::diagnostic::read_text`, which [`text_file`] exercises).
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Reading raw bytes as a file: the UTF-8 and size checks every content file passes first.
fn text_file(data: &[u8], name: &str) {
    let dir = std::env::temp_dir().join(format!(
        "hexforge-fuzz-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let path = dir.join(name);
    if std::fs::write(&path, data).is_ok() {
        let _ = hexforge_content::diagnostic::read_text(&path, "fuzz input");
    }
}

/// An army file: parsed and validated, once as a whole army and once as one that patches may
/// still complete.
pub fn army(data: &[u8]) {
    if data.first() == Some(&0xff) {
        return text_file(data, "army.toml");
    }
    let Some(text) = text(data) else { return };
    let src = SourceText::new("fuzz/armies/army.toml", text);
    let _ = parse_army(&src);
    let _ = parse_army_open(&src);
}

/// A mod's own TOML files: the same text read as a manifest, an options file, a rules preset and
/// a board.
pub fn mod_files(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let src = SourceText::new("fuzz/mod.toml", text);
    let _ = hexforge_content::manifest::parse_manifest(&src);
    let _ = parse_options(&src, "fuzz", &["classic", "v3", "v2025"]);
    let _ = hexforge_content::presets::parse_preset(&src);
    let _ = parse_board(&src, "fuzz");
}

/// A patch file of a mod that depends on the base mod, applied to the four base armies.
pub fn patch(data: &[u8]) {
    let Some(text) = text(data) else { return };
    with_world(|w| {
        let mut armies = w.base_armies.clone();
        let mut history = History::default();
        let file = ScriptFile {
            path: "fuzz/patches/patch.toml".into(),
            text: text.to_string(),
        };
        let _ = apply_patch_files(
            &mut armies,
            &mut history,
            "fuzz",
            &["base".to_string()],
            &[Ok(file)],
        );
    });
}

/// A scenario file over every mod of the repository; one that reads is also run.
pub fn scenario(data: &[u8]) {
    let Some(text) = text(data) else { return };
    with_world(|w| {
        let src = SourceText::new("fuzz/scenario.toml", text);
        let boards: Vec<_> = w.loaded.boards().collect();
        if let Ok(s) = parse_scenario_with_boards(&src, &w.loaded.catalog, &boards) {
            let _ = run_scenario(&s, &w.loaded.catalog, &mut w.scripts);
        }
    });
}

/// A replay file: read, started, and every step played again as `hexforge replay --verify`
/// does, up to the first step the engine refuses.
pub fn replay(data: &[u8]) {
    let Some(text) = text(data) else { return };
    with_world(|w| {
        let Ok(replay) = hexforge_replay::parse(text, &w.loaded.catalog) else {
            return;
        };
        let Ok(mut game): Result<Game, _> = hexforge_replay::start_replay(
            &replay,
            &w.loaded.mods,
            w.catalog.clone(),
            &mut w.scripts,
        ) else {
            return;
        };
        for step in &replay.steps {
            if hexforge_replay::replay_step(&mut game, step, &mut w.scripts, &mut ()).is_err() {
                break;
            }
        }
    });
}

/// A script whose hooks call the host API with arguments the input picks ([`lua::program`]),
/// loaded into a mod and run through a battle.
pub fn lua_args(data: &[u8]) {
    lua::run(&lua::program(data));
}
