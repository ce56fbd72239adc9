//! A load test of the mod portal (docs/PERFORMANCE.md, "The mod portal"): a portal holding 1,000
//! generated mods and one of about 1 MB (`hexforge_benches::portal`); then ROUNDS rounds of
//! CLIENTS downloads of the large mod at once, each from a thread of its own (each download
//! checked against the listed hash), and the same number of searches at once. Prints the wall
//! time of each round and the latency percentiles.
//!
//! `cargo run --release -p hexforge-benches --example portal_load [CLIENTS] [ROUNDS]` (defaults
//! 100 and 5).

use hexforge_benches::portal::{BIG, PortalBench};
use std::time::{Duration, Instant};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn report(what: &str, mut times: Vec<Duration>, walls: &[Duration]) {
    times.sort();
    println!(
        "{what}: {} requests; p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms; rounds {:?}",
        times.len(),
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.9).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        times.last().map_or(0.0, |t| t.as_secs_f64() * 1e3),
        walls
            .iter()
            .map(|w| format!("{:.0} ms", w.as_secs_f64() * 1e3))
            .collect::<Vec<_>>()
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let clients: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let started = Instant::now();
    let bench = PortalBench::new(1000);
    println!(
        "portal with 1,000 mods and `{BIG}` ({} bytes) ready in {:.1} s",
        bench.big.size,
        started.elapsed().as_secs_f64()
    );
    for (what, search) in [("download of 1 MB", false), ("search", true)] {
        let mut times = Vec::new();
        let mut walls = Vec::new();
        for _ in 0..rounds {
            let round = Instant::now();
            let handles: Vec<_> = (0..clients)
                .map(|_| {
                    let portal = bench.portal.clone();
                    let big = bench.big.clone();
                    std::thread::spawn(move || {
                        let t = Instant::now();
                        if search {
                            assert_eq!(portal.search("fan_5").expect("a search").len(), 110);
                        } else {
                            portal.download(BIG, &big).expect("a download");
                        }
                        t.elapsed()
                    })
                })
                .collect();
            times.extend(handles.into_iter().map(|h| h.join().expect("a client")));
            walls.push(round.elapsed());
        }
        report(&format!("{clients} at once, {what}"), times, &walls);
    }
    let downloads = bench
        .portal
        .detail(BIG)
        .expect("its page")
        .summary
        .downloads;
    println!("downloads counted: {downloads}");
}
