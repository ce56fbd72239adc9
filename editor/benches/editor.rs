//! Editor benchmarks: one headless frame of the army view (layout and tessellation, no GPU) and
//! a reload of this checkout's mods, the work hot reload does once the files settle.

use criterion::{Criterion, criterion_group, criterion_main};
use hexforge_editor::Editor;
use std::path::Path;

fn editor() -> Editor {
    Editor::load(vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../mods")])
}

fn frame(c: &mut Criterion) {
    let mut editor = editor();
    if let Err(e) = editor.open_army("moloch") {
        panic!("{e}");
    }
    let ctx = egui::Context::default();
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        ..Default::default()
    };
    // A first frame lays the fonts out; the measured ones are steady frames.
    // No GPU takes the font textures here: they are dropped on purpose.
    ctx.run_ui(input.clone(), |ui| editor.ui(ui))
        .textures_delta
        .clear();
    c.bench_function("editor_frame_army_view", |b| {
        b.iter(|| {
            let mut out = ctx.run_ui(input.clone(), |ui| editor.ui(ui));
            out.textures_delta.clear();
            ctx.tessellate(out.shapes, out.pixels_per_point)
        })
    });
}

fn reload(c: &mut Criterion) {
    let mut editor = editor();
    c.bench_function("editor_reload_repo_mods", |b| b.iter(|| editor.reload()));
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = frame, reload
}
criterion_main!(benches);
