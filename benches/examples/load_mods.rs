//! Loads N generated mods (benches/src/mods.rs) a number of times, for profilers that count
//! instructions (callgrind):
//! `cargo build --release -p hexforge-benches --example load_mods` then
//! `valgrind --tool=callgrind target/release/examples/load_mods 50 5`.
//! A third argument keeps the mods in that folder (created if needed) instead of a temporary one,
//! to read what the bench loads.

use hexforge_benches::mods::{TempMods, write_mods};
use hexforge_script::{Limits, load};
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(50);
    let times: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let (_temp, root) = match args.get(3) {
        Some(dir) => {
            let root = PathBuf::from(dir);
            write_mods(&root, n).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
            (None, root)
        }
        None => {
            let t = TempMods::new(n);
            let root = t.root.clone();
            (Some(t), root)
        }
    };
    for _ in 0..times {
        let start = Instant::now();
        let loaded = load(std::slice::from_ref(&root), Limits::default());
        let took = start.elapsed();
        let m = &loaded.mods;
        assert!(m.problems.is_empty(), "{}", m.problems);
        println!(
            "{} mods, {} armies, {} tile definitions, {} Lua states: {:.1} ms",
            m.mods.len(),
            m.catalog.armies().len(),
            m.catalog.len(),
            loaded.scripts.mods().count(),
            took.as_secs_f64() * 1e3
        );
    }
}
