//! Criterion bench of the mod portal over the loopback (docs/PERFORMANCE.md, "The mod portal"):
//! a real server over a real SQLite database holding 1,000 generated mods and one of about 1 MB
//! (`hexforge_benches::portal`), published before the timing.
//!
//! - `portal/search`: `GET /api/mods?q=fan_5` through the client (110 mods match: `fan_50` .. `fan_59`,
//!   `fan_500` .. `fan_599`), the JSON read back; the target is under 20 ms;
//! - `portal/search_all`: every one of the 1,000 mods listed;
//! - `portal/install_1mb`: the large mod downloaded, checked against its listed hash and installed
//!   (unpacked aside, loaded, renamed in place; the folder it replaces set aside) as `hexforge mods
//!   install NAME --portal` does; the target is under 200 ms.

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use hexforge_benches::portal::PortalBench;
use std::hint::black_box;

fn portal(c: &mut Criterion) {
    let bench = PortalBench::new(1000);
    let mut group = c.benchmark_group("portal");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(30);
    assert_eq!(bench.portal.search("fan_5").expect("a search").len(), 110);
    group.bench_function("search", |b| {
        b.iter(|| bench.portal.search(black_box("fan_5")).expect("a search"));
    });
    group.bench_function("search_all", |b| {
        b.iter(|| bench.portal.search(black_box("")).expect("a search"));
    });
    let into = bench.dir.join("installed");
    group.bench_function("install_1mb", |b| {
        b.iter(|| {
            bench.install_big(&into);
            // Each install sets the folder it replaces aside: keep the shelf from growing.
            let _ = std::fs::remove_dir_all(into.join(".replaced"));
        });
    });
    group.finish();
}

criterion_group!(benches, portal);
criterion_main!(benches);
