//! Editor benchmarks: one headless frame of the army view (layout and tessellation, no GPU), a
//! reload of this checkout's mods, the work hot reload does once the files settle, a reload of
//! many mods after one army file changed (full against per mod), and frames of the sandbox with a
//! full extended board (editing with every overlay on; a battle with its log).

use criterion::{Criterion, criterion_group, criterion_main};
use hexforge_core::{Dir, TileKind};
use hexforge_editor::sandbox::board::{Board, BoardKind, Piece};
use hexforge_editor::{Editor, Tab};
use std::path::Path;
use std::time::{Duration, Instant};

fn editor() -> Editor {
    Editor::load(vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods")])
}

fn frame(c: &mut Criterion) {
    let mut editor = editor();
    if let Err(e) = editor.open_army("moloch") {
        panic!("{e}");
    }
    frames(c, "editor_frame_army_view", &mut editor);
}

/// A headless context and the input of a 1280×800 window, after a first frame of `editor` that
/// lays the fonts out: the measured frames are steady ones.
fn headless(editor: &mut Editor) -> (egui::Context, egui::RawInput) {
    let ctx = egui::Context::default();
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        ..Default::default()
    };
    run_frame(&ctx, &input, editor);
    (ctx, input)
}

/// One frame of `editor`: layout and tessellation. No GPU takes the font textures here: they are
/// dropped on purpose.
fn run_frame(
    ctx: &egui::Context,
    input: &egui::RawInput,
    editor: &mut Editor,
) -> Vec<egui::epaint::ClippedPrimitive> {
    let mut out = ctx.run_ui(input.clone(), |ui| editor.ui(ui));
    out.textures_delta.clear();
    ctx.tessellate(out.shapes, out.pixels_per_point)
}

/// The extended board full: Borgo's HQ and Moloch's, and every other hex a board tile of the two
/// armies in turn, facing every way.
fn full_board(editor: &Editor) -> Board {
    let cat = editor.content().catalog();
    let mut board = Board::new(cat);
    board.kind = BoardKind::extended();
    let armies = ["borgo", "moloch"];
    for (seat, army) in armies.iter().enumerate() {
        board.players[seat].army = army.to_string();
    }
    let tiles: Vec<Vec<String>> = armies
        .iter()
        .map(|a| {
            let army = cat.army(a).unwrap_or_else(|| panic!("{a} is loaded"));
            army.tiles
                .iter()
                .map(|t| cat.get(*t))
                .filter(|t| t.kind.is_board_tile() && t.kind != TileKind::Hq)
                .map(|t| t.full_id())
                .collect()
        })
        .collect();
    for (i, hex) in BoardKind::extended().shape().hexes().iter().enumerate() {
        let owner = i % 2;
        let id = if i < 2 {
            format!("{}/hq", armies[owner])
        } else {
            tiles[owner][(i / 2) % tiles[owner].len()].clone()
        };
        board.pieces.push(Piece {
            id,
            owner,
            hex: *hex,
            facing: Dir::new(i as u8),
            wounds: 0,
        });
    }
    board
}

/// Criterion runs of steady headless frames of `editor` (layout and tessellation).
fn frames(c: &mut Criterion, name: &str, editor: &mut Editor) {
    let (ctx, input) = headless(editor);
    c.bench_function(name, |b| b.iter(|| run_frame(&ctx, &input, editor)));
}

fn sandbox(c: &mut Criterion) {
    let mut editor = editor();
    editor.show(Tab::Sandbox);
    let board = full_board(&editor);
    let catalog = editor.content().catalog().clone();
    editor.sandbox_mut().set_board(board, &catalog);
    match editor.sandbox().built() {
        Some(b)
            if b.marks.is_empty() && b.field.as_ref().map(|f| f.tiles().count()) == Some(37) => {}
        other => panic!("the full board is legal: {:?}", other.map(|b| &b.marks)),
    }
    let overlays = editor.sandbox_mut().overlays_mut();
    overlays.nets = true;
    overlays.links = true;
    overlays.fire = true;
    frames(c, "editor_frame_sandbox_full_board_overlays", &mut editor);
    if let Err(e) = editor.start_battle() {
        panic!("{e}");
    }
    match editor.sandbox_mut().battle_mut() {
        Some(run) if run.log.len() > 37 => run.at = run.steps.len() / 2,
        _ => panic!("a battle with a long log is shown"),
    }
    frames(c, "editor_frame_sandbox_battle_log", &mut editor);
}

/// A copy of `from` at `to`.
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for e in std::fs::read_dir(from).expect("read the folder") {
        let e = e.expect("a folder entry");
        if e.path().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy a file");
        }
    }
}

/// From saving a changed army file to the sandbox frame that shows the new data: the watcher
/// noticing, the settling delay, the reload and one frame of the board.
fn save_to_board(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("hexforge-bench-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods/base"),
        &dir.join("base"),
    );
    let file = dir.join("base/armies/borgo.toml");
    let text = std::fs::read_to_string(&file).expect("read borgo.toml");
    let at = text.find("id = \"brawler\"").expect("the brawler");
    let with = |melee: u8| {
        format!(
            "{}{}",
            &text[..at],
            text[at..].replacen("melee:2@0", &format!("melee:{melee}@0"), 1)
        )
    };
    let mut editor = Editor::load(vec![dir.clone()]);
    editor.show(Tab::Sandbox);
    let mut board = full_board(&editor);
    board.kind = BoardKind::extended();
    let catalog = editor.content().catalog().clone();
    editor.sandbox_mut().set_board(board, &catalog);
    let (ctx, input) = headless(&mut editor);
    let mut melee = 2;
    c.bench_function("editor_save_to_sandbox_frame", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                melee = if melee == 2 { 3 } else { 2 };
                std::fs::write(&file, with(melee)).expect("write borgo.toml");
                let start = Instant::now();
                while !editor.poll(Instant::now()) {
                    assert!(start.elapsed() < Duration::from_secs(10), "no reload");
                    std::thread::sleep(Duration::from_micros(200));
                }
                run_frame(&ctx, &input, &mut editor);
                total += start.elapsed();
                let cat = editor.content().catalog();
                let brawler = cat.find("borgo/brawler").expect("the brawler");
                assert_eq!(
                    cat.get(brawler).edges[0].melee,
                    melee,
                    "the new data is loaded"
                );
            }
            total
        })
    });
    let _ = std::fs::remove_dir_all(dir);
}

fn reload(c: &mut Criterion) {
    let mut editor = editor();
    c.bench_function("editor_reload_repo_mods", |b| b.iter(|| editor.reload()));
}

/// Fan mods in the bench: each a copy of the examples mod (an army of its own and its Lua
/// abilities) under another id.
const FANS: usize = 30;

/// A folder with the base mod and [`FANS`] fan mods.
fn many_mods() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-bench-many-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods");
    copy(&repo.join("base"), &dir.join("base"));
    for i in 0..FANS {
        let fan = dir.join(format!("fan{i:02}"));
        copy(&repo.join("examples"), &fan);
        // One army per fan mod, as the figures in docs/PERFORMANCE.md were measured with: the
        // Scrappers under another id (the examples mod's other armies and its board are left out).
        for f in [
            "armies/tidecallers.toml",
            "scripts/tidecallers.lua",
            "armies/reefguard.toml",
            "scripts/reefguard.lua",
            "boards/sunken_ford.toml",
        ] {
            std::fs::remove_file(fan.join(f)).expect("remove an army or its script");
        }
        let army = format!("scrappers{i:02}");
        let manifest = std::fs::read_to_string(fan.join("mod.toml")).expect("read mod.toml");
        let manifest = manifest
            .replacen("id = \"examples\"", &format!("id = \"fan{i:02}\""), 1)
            .replace(", \"tidecallers\"", "")
            .replace("\"reefguard\", ", "")
            .replace("\"scrappers\"", &format!("\"{army}\""));
        std::fs::write(fan.join("mod.toml"), manifest).expect("write mod.toml");
        let file = fan.join("armies/scrappers.toml");
        let text = std::fs::read_to_string(&file).expect("read the army");
        let text = text.replacen("id = \"scrappers\"", &format!("id = \"{army}\""), 1);
        std::fs::write(&file, text).expect("write the army");
    }
    dir
}

/// A reload of the base mod and 30 fan mods (each with an army and Lua abilities) after one
/// army file changed: everything loaded afresh (as every reload did before reloads went per
/// mod), every folder read again with the Lua states kept (a reload told nothing), and only the
/// changed file's mod read again (what hot reload does).
fn reload_many(c: &mut Criterion) {
    let dir = many_mods();
    let roots = vec![dir.clone()];
    let mut editor = Editor::load(roots.clone());
    assert_eq!(
        editor.content().loaded().mods.len(),
        FANS + 1,
        "{:?}",
        editor.content().loaded().problems
    );
    assert!(
        editor.content().loaded().problems.is_empty(),
        "{:?}",
        editor.content().loaded().problems
    );
    let file = dir.join("base/armies/borgo.toml");
    let text = std::fs::read_to_string(&file).expect("read borgo.toml");
    let at = text.find("id = \"brawler\"").expect("the brawler");
    let with = |melee: u8| {
        format!(
            "{}{}",
            &text[..at],
            text[at..].replacen("melee:2@0", &format!("melee:{melee}@0"), 1)
        )
    };
    let mut melee = 2;
    let mut edit = || {
        melee = if melee == 2 { 3 } else { 2 };
        std::fs::write(&file, with(melee)).expect("write borgo.toml");
        melee
    };
    let mut group = c.benchmark_group("editor_reload_31_mods_after_one_army_file");
    group.bench_function("full_load", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                edit();
                let start = Instant::now();
                let loaded = hexforge_script::load(&roots, hexforge_script::Limits::default());
                total += start.elapsed();
                assert_eq!(loaded.mods.mods.len(), FANS + 1);
            }
            total
        })
    });
    group.bench_function("every_folder_lua_kept", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                edit();
                let start = Instant::now();
                editor.reload();
                total += start.elapsed();
                assert!(
                    editor.content().refused().is_empty(),
                    "{:?}",
                    editor.content().refused()
                );
            }
            total
        })
    });
    group.bench_function("per_mod", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let melee = edit();
                let start = Instant::now();
                editor.reload_changed(Some(std::slice::from_ref(&file)));
                total += start.elapsed();
                let cat = editor.content().catalog();
                let brawler = cat.find("borgo/brawler").expect("the brawler");
                assert_eq!(
                    cat.get(brawler).edges[0].melee,
                    melee,
                    "the new data is loaded"
                );
                assert!(
                    editor
                        .status()
                        .starts_with("reloaded base (armies/borgo.toml) in "),
                    "{}",
                    editor.status()
                );
            }
            total
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(dir);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = frame, reload, reload_many, sandbox, save_to_board
}
criterion_main!(benches);
