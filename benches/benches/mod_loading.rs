//! Criterion bench of loading and validating mods end to end (docs/PERFORMANCE.md, "Loading
//! mods"): `hexforge_script::load` on a folder of generated fan mods (`hexforge_benches::mods`),
//! each with a manifest, one 35-tile army and a Lua script of three abilities.
//!
//! One iteration reads every file, parses and validates the manifests and armies, resolves the
//! dependencies and load order, builds the catalog, creates one sandboxed Lua state per mod with
//! the shared library, compiles and runs the mods' scripts, and binds every tile ability (the
//! static `gives` and `instant` functions are called then). Dropping the result (closing the Lua
//! states) is left out of the timing (`iter_with_large_drop`).
//!
//! - `mod_loading/50_mods`: the target, 50 mods and 1,750 tiles, under 200 ms;
//! - `mod_loading/10_mods`: 10 mods and 350 tiles, to show how the time scales.
//!
//! The mods are written once, before the timing, into a fresh folder below the system's
//! temporary folder, and removed at the end. Before each measurement, a first load checks that
//! every mod loads with no problem (outside the timed loop).

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use hexforge_benches::mods::{MODS, TILES_PER_ARMY, TempMods, check_loaded};
use hexforge_script::{Limits, load};
use std::hint::black_box;

fn mod_loading(c: &mut Criterion) {
    let mut group = c.benchmark_group("mod_loading");
    // One load takes tens of milliseconds: the same number of loads in every sample.
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(30);
    for n in [MODS, 10] {
        let mods = TempMods::new(n);
        let roots = [mods.root.clone()];
        check_loaded(&load(&roots, Limits::default()), n);
        group.throughput(Throughput::Elements(u64::from(TILES_PER_ARMY) * n as u64));
        group.bench_function(format!("{n}_mods"), |b| {
            b.iter_with_large_drop(|| load(black_box(&roots), Limits::default()));
        });
    }
    group.finish();
}

criterion_group!(benches, mod_loading);
criterion_main!(benches);
