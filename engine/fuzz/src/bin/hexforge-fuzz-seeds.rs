//! Writes each fuzz target's seed corpus into a folder per target: `hexforge-fuzz-seeds OUT
//! [TARGET...]` (all targets when none is named).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next().map(PathBuf::from) else {
        eprintln!("usage: hexforge-fuzz-seeds OUT [TARGET...]");
        return ExitCode::from(2);
    };
    let names: Vec<String> = args.collect();
    for t in hexforge_fuzz::TARGETS {
        if !names.is_empty() && !names.iter().any(|n| n == t.name) {
            continue;
        }
        let dir = out.join(t.name);
        let seeds = hexforge_fuzz::seeds::seeds(t.name);
        let written = std::fs::create_dir_all(&dir).and_then(|()| {
            seeds
                .iter()
                .enumerate()
                .try_for_each(|(i, s)| std::fs::write(dir.join(format!("seed-{i:04}")), s))
        });
        if let Err(e) = written {
            eprintln!("{}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
        println!("{}: {} seeds", dir.display(), seeds.len());
    }
    ExitCode::SUCCESS
}
