//! Plays N whole games of Moloch against Outpost between random bots under game rules, for
//! instruction counts (callgrind) of what a rule costs a game: `plain` (the base game with the
//! base abilities' scripts), `scored` (the scored deathmatch rule) or `monolith` (Monolith
//! Arena's Monolith and poison): `cargo run --release -p hexforge-benches --example rule_games --
//! monolith 50`.

use hexforge_benches::rule_games::{content, monolith_rules, play, start};

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "plain".to_string());
    let n: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let (scored, monolith) = match which.as_str() {
        "plain" => (false, false),
        "scored" => (true, false),
        "monolith" => (false, true),
        other => {
            eprintln!("unknown game `{other}`: use plain, scored or monolith");
            std::process::exit(2);
        }
    };
    let (catalog, mut scripts) = content();
    let rules = monolith_rules(&catalog, scored, monolith);
    let start_at = std::time::Instant::now();
    let mut turns = 0u64;
    for seed in 1..=n {
        let mut game = start(&catalog, &rules, &mut scripts, seed);
        play(&mut game, &mut scripts, seed, usize::MAX);
        turns += u64::from(game.turn_number());
    }
    println!(
        "{n} {which} games, {turns} turns in {:.3} s",
        start_at.elapsed().as_secs_f64()
    );
}
