//! Load test of the relay (docs/PERFORMANCE.md, "Relay"): opens N bot-against-bot matches at
//! once over one relay, each a host and a joiner of simulated clients (threads of this
//! process, a random bot each, no scripts), holds every match at its first action until all N
//! are open, then lets them play; doubles N after every round that completes without errors,
//! and reports the matches completed per second and the largest N open at once that completed
//! without an error.
//!
//! ```sh
//! cargo run --release -p hexforge-net --example relay_load -- [--start N] [--max N] [--relay ADDRESS] [--deadline SECS]
//! ```
//!
//! Without `--relay` the relay runs in this process (`Relay::serve` on 127.0.0.1, port 0);
//! with it, the matches go through a running `hexforge serve`.
//!
//! With `--rtt [MATCHES]` (20 when no number follows) it measures instead the round trip of an
//! action through the relay (docs/PERFORMANCE.md, "Round trip of an action"): MATCHES matches
//! one after another, a host (a random bot in seat 1, seat 2 remote) and a joiner (a random bot)
//! each; for every step N played by the joiner's seat and followed by a step N + 1 of the
//! host's, the time from the joiner's watcher seeing its step N (just after it was sent) to its
//! watcher seeing step N + 1 (received and played), with that time's legs as the host's watcher
//! saw the same steps; it prints the count, median, p90, p99 and max of each.
//!
//! ```sh
//! cargo run --release -p hexforge-net --example relay_load -- --rtt [MATCHES] [--relay ADDRESS]
//! ```

use hexforge_content::LoadedMods;
use hexforge_core::NoAbilities;
use hexforge_core::game::Player;
use hexforge_net::relay::Relay;
use hexforge_net::{Content, Hosting, Joining, Listen, Outcome, Play, Unseen, Watcher, host, join};
use hexforge_replay::Header;
use std::net::TcpListener;
use std::path::Path;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The stack of each simulated client's thread.
const CLIENT_STACK: usize = 1 << 20;
/// The matches the `--rtt` mode plays when it is given no number.
const RTT_MATCHES: usize = 20;

/// A watcher that says when the host is registered on the relay, and shows nothing.
struct Ready {
    tx: Sender<(usize, bool)>,
    match_no: usize,
    said: bool,
}

impl Watcher for Ready {
    fn listening(&mut self, _: &str) {
        self.said = true;
        let _ = self.tx.send((self.match_no, true));
    }
    fn begin(
        &mut self,
        _: &Header,
        _: &hexforge_core::Game,
        _: &[hexforge_core::Event],
        _: hexforge_net::Here,
    ) {
    }
    fn step(
        &mut self,
        _: &hexforge_core::Game,
        _: usize,
        _: &hexforge_replay::Step,
        _: &[hexforge_core::Event],
    ) {
    }
    fn notice(&mut self, _: &str) {}
    fn end(&mut self, _: &hexforge_core::Game) {}
}

/// What one round of N matches did.
struct Round {
    /// From the first connection to the moment every match was open (or the wait gave up).
    open: Duration,
    /// From then to the end of the last match.
    play: Duration,
    completed: usize,
    steps: usize,
    errors: Vec<String>,
}

/// Holds every match at its first action until all of them are open, so that N matches are
/// really open at once.
struct Gate {
    arrived: Mutex<usize>,
    all: Condvar,
    target: usize,
    /// When the last match arrived.
    opened: Mutex<Option<Instant>>,
}

impl Gate {
    /// Waits until `target` matches arrived, or `patience` passed (a match that failed to
    /// open must not hold the others forever).
    fn arrive(&self, patience: Duration) {
        let mut n = self.arrived.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        if *n >= self.target {
            *self.opened.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
            self.all.notify_all();
            return;
        }
        let _ = self
            .all
            .wait_timeout_while(n, patience, |n| *n < self.target);
    }
}

/// A bot that waits at the gate before its first action.
struct Gated {
    inner: Box<dyn Player>,
    gate: Arc<Gate>,
    patience: Duration,
    passed: bool,
}

impl Player for Gated {
    fn act(
        &mut self,
        game: &hexforge_core::Game,
        legal: &hexforge_core::game::LegalActions,
        hooks: &mut dyn hexforge_core::AbilityHooks,
    ) -> usize {
        if !self.passed {
            self.passed = true;
            self.gate.arrive(self.patience);
        }
        self.inner.act(game, legal, hooks)
    }

    fn decide(
        &mut self,
        field: &hexforge_core::Battlefield,
        decision: &hexforge_core::Decision<'_>,
    ) -> usize {
        self.inner.decide(field, decision)
    }
}

fn bot(seed: u64) -> Box<dyn Player> {
    hexforge_bots::by_name("random", seed).expect("the random bot")
}

/// Which side of a match a thread played.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Host,
    Joiner,
}

/// Plays `n` matches at once over the relay at `address`; match `i` has the code
/// `load-ROUND-i` and the seed `i`. A match not over after `deadline` counts as an error (its
/// threads are left behind: the program stops after such a round).
fn round(
    address: &str,
    number: usize,
    n: usize,
    mods: &'static LoadedMods,
    deadline: Duration,
) -> Round {
    let catalog = Arc::new(mods.catalog.clone());
    let started = Instant::now();
    let until = started + deadline;
    // Whichever side of a match acts first arrives at the gate: one arrival per match.
    let gate = Arc::new(Gate {
        arrived: Mutex::new(0),
        all: Condvar::new(),
        target: n,
        opened: Mutex::new(None),
    });
    let patience = deadline / 2;
    let gated = move |gate: &Arc<Gate>, seed: u64| -> Box<dyn Player> {
        Box::new(Gated {
            inner: bot(seed),
            gate: gate.clone(),
            patience,
            passed: false,
        })
    };
    let (ready_tx, ready_rx) = channel();
    let (done_tx, done_rx) = channel::<(usize, Side, Result<Outcome, String>)>();
    let mut errors = Vec::new();
    let mut expected = 0;
    for i in 0..n {
        let (ready_tx, done_tx) = (ready_tx.clone(), done_tx.clone());
        let catalog = catalog.clone();
        let gate = gate.clone();
        let (address, code) = (address.to_string(), format!("load-{number}-{i}"));
        let spawned = thread::Builder::new()
            .stack_size(CLIENT_STACK)
            .spawn(move || {
                let (game_seed, bot_seeds) = hexforge_bots::match_seeds(i as u64, 2);
                let hosting = hosting(
                    mods,
                    (i as u64, game_seed),
                    gated(&gate, bot_seeds[0]),
                    format!("relay-load-{i}"),
                );
                let content = Content {
                    mods: &mods.mods,
                    catalog,
                };
                let mut ready = Ready {
                    tx: ready_tx.clone(),
                    match_no: i,
                    said: false,
                };
                let r = host(
                    hosting,
                    Listen::Relay { address, code },
                    &content,
                    &mut NoAbilities,
                    &mut ready,
                );
                if !ready.said {
                    let _ = ready_tx.send((i, false));
                }
                let _ = done_tx.send((i, Side::Host, r.map_err(|e| e.to_string())));
            });
        match spawned {
            Ok(_) => expected += 1,
            Err(e) => errors.push(format!("match {i}: no thread for its host: {e}")),
        }
    }
    drop(ready_tx);
    let hosts_started = expected;
    for _ in 0..hosts_started {
        let Ok((i, registered)) =
            ready_rx.recv_timeout(until.saturating_duration_since(Instant::now()))
        else {
            break;
        };
        if !registered {
            continue;
        }
        let done_tx = done_tx.clone();
        let catalog = catalog.clone();
        let gate = gate.clone();
        let (address, code) = (address.to_string(), format!("load-{number}-{i}"));
        let spawned = thread::Builder::new()
            .stack_size(CLIENT_STACK)
            .spawn(move || {
                let content = Content {
                    mods: &mods.mods,
                    catalog,
                };
                let joining = Joining {
                    address,
                    seat: Some(1),
                    watch: false,
                    code: Some(code),
                    player: Box::new(move |seat, header: &Header| {
                        let seed = header.match_seed.unwrap_or(header.seed);
                        gated(&gate, hexforge_bots::match_seeds(seed, 2).1[seat])
                    }),
                    replay: None,
                    corrupt_after: None,
                    fetch: None,
                    stop: None,
                };
                let r = join(joining, &content, &mut NoAbilities, &mut Unseen);
                let _ = done_tx.send((i, Side::Joiner, r.map_err(|e| e.to_string())));
            });
        match spawned {
            Ok(_) => expected += 1,
            Err(e) => errors.push(format!("match {i}: no thread for its joiner: {e}")),
        }
    }
    drop(done_tx);
    let mut hosts: Vec<Option<Result<Outcome, String>>> = vec![None; n];
    let mut joins: Vec<Option<Result<Outcome, String>>> = vec![None; n];
    for _ in 0..expected {
        let Ok((i, side, r)) =
            done_rx.recv_timeout(until.saturating_duration_since(Instant::now()))
        else {
            break;
        };
        match side {
            Side::Host => hosts[i] = Some(r),
            Side::Joiner => joins[i] = Some(r),
        }
    }
    let ended = Instant::now();
    let opened = gate
        .opened
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .unwrap_or(ended)
        .min(ended);
    let (mut completed, mut steps) = (0, 0);
    for (i, (h, j)) in hosts.iter().zip(&joins).enumerate() {
        match (h, j) {
            (Some(Ok(h)), Some(Ok(j))) if h == j => {
                completed += 1;
                steps += h.steps;
            }
            (Some(Ok(h)), Some(Ok(j))) => errors.push(format!(
                "match {i}: the host ended at {:016x}, the joiner at {:016x}",
                h.hash, j.hash
            )),
            (Some(Err(e)), _) => errors.push(format!("match {i}, host: {e}")),
            (_, Some(Err(e))) => errors.push(format!("match {i}, joiner: {e}")),
            _ => errors.push(format!(
                "match {i}: not over after {} s",
                deadline.as_secs()
            )),
        }
    }
    Round {
        open: opened - started,
        play: ended - opened,
        completed,
        steps,
        errors,
    }
}

/// When one side's watcher saw each step of a match, and which seat played it: the `--rtt`
/// mode's clock. The host's also says when the host is registered on the relay.
struct Clock {
    /// The seat to play the next step, from the game the watcher saw last.
    next: Option<usize>,
    /// Step N (from 1) at index N - 1: the seat that played it and when the watcher saw it.
    seen: Vec<(Option<usize>, Instant)>,
    /// Told once when the host listens (the joiner's clock has none).
    ready: Option<Sender<()>>,
}

impl Clock {
    /// A clock for a side; `ready` for the host's.
    fn new(ready: Option<Sender<()>>) -> Clock {
        Clock {
            next: None,
            seen: Vec::with_capacity(1024),
            ready,
        }
    }
}

impl Watcher for Clock {
    fn listening(&mut self, _: &str) {
        if let Some(tx) = self.ready.take() {
            let _ = tx.send(());
        }
    }
    fn begin(
        &mut self,
        _: &Header,
        game: &hexforge_core::Game,
        _: &[hexforge_core::Event],
        _: hexforge_net::Here,
    ) {
        self.next = game.current().map(|s| s.index());
    }
    fn step(
        &mut self,
        game: &hexforge_core::Game,
        _: usize,
        _: &hexforge_replay::Step,
        _: &[hexforge_core::Event],
    ) {
        // First, before anything else this call does.
        let at = Instant::now();
        self.seen.push((self.next, at));
        self.next = game.current().map(|s| s.index());
    }
    fn notice(&mut self, _: &str) {}
    fn end(&mut self, _: &hexforge_core::Game) {}
}

/// One action's round trip as the joiner sees it, and its three legs (every clock is the
/// same process's monotonic clock, so the host's and the joiner's times compare).
struct Trip {
    /// From the joiner's watcher seeing its own step N (right after sending it) to its watcher
    /// seeing the host's step N + 1 (received and played).
    round: Duration,
    /// From the joiner's step N to the host's watcher seeing it: joiner → relay → host, and
    /// the host playing step N.
    there: Duration,
    /// From the host's watcher seeing step N to its watcher seeing step N + 1: the host's bot
    /// choosing and the host playing step N + 1, and sending it.
    host: Duration,
    /// From the host's watcher seeing step N + 1 (right after sending it) to the joiner's:
    /// host → relay → joiner, and the joiner playing step N + 1.
    back: Duration,
}

/// The joiner's seat (from 0) in the `--rtt` mode; the host plays seat 0.
const JOINER_SEAT: usize = 1;

/// Plays match `k` (seed `k`) under `code` through the relay at `address`, a random bot on
/// each side, and gives the round trip of every step the joiner played that the host's next
/// step answered, and the steps of the match; `Err` says why the match failed.
fn rtt_match(
    address: &str,
    code: &str,
    k: usize,
    mods: &'static LoadedMods,
) -> Result<(Vec<Trip>, usize), String> {
    let catalog = Arc::new(mods.catalog.clone());
    let (ready_tx, ready_rx) = channel();
    let host_side = {
        let catalog = catalog.clone();
        let (address, code) = (address.to_string(), code.to_string());
        thread::Builder::new()
            .stack_size(CLIENT_STACK)
            .spawn(move || {
                let (game_seed, bot_seeds) = hexforge_bots::match_seeds(k as u64, 2);
                let hosting = hosting(
                    mods,
                    (k as u64, game_seed),
                    bot(bot_seeds[0]),
                    format!("relay-rtt-{k}"),
                );
                let content = Content {
                    mods: &mods.mods,
                    catalog,
                };
                let mut clock = Clock::new(Some(ready_tx));
                let r = host(
                    hosting,
                    Listen::Relay { address, code },
                    &content,
                    &mut NoAbilities,
                    &mut clock,
                );
                (r.map_err(|e| e.to_string()), clock.seen)
            })
            .map_err(|e| format!("no thread for the host: {e}"))?
    };
    // The host's thread drops its sender when it stops before listening.
    let registered = ready_rx.recv().is_ok();
    let joined = registered.then(|| {
        let content = Content {
            mods: &mods.mods,
            catalog,
        };
        let joining = Joining {
            address: address.to_string(),
            seat: Some(JOINER_SEAT),
            watch: false,
            code: Some(code.to_string()),
            player: Box::new(|seat, header: &Header| {
                let seed = header.match_seed.unwrap_or(header.seed);
                bot(hexforge_bots::match_seeds(seed, 2).1[seat])
            }),
            replay: None,
            corrupt_after: None,
            fetch: None,
            stop: None,
        };
        let mut clock = Clock::new(None);
        let r = join(joining, &content, &mut NoAbilities, &mut clock);
        (r.map_err(|e| e.to_string()), clock.seen)
    });
    let (hosted, at_host) = host_side
        .join()
        .map_err(|_| "the host's thread panicked".to_string())?;
    let (joined, at_joiner) = joined.ok_or_else(|| match &hosted {
        Err(e) => format!("the host did not register: {e}"),
        Ok(_) => "the host did not register".to_string(),
    })?;
    match (hosted, joined) {
        (Ok(h), Ok(j)) if h == j => {}
        (Ok(h), Ok(j)) => {
            return Err(format!(
                "the host ended at {:016x}, the joiner at {:016x}",
                h.hash, j.hash
            ));
        }
        (Err(e), _) => return Err(format!("host: {e}")),
        (_, Err(e)) => return Err(format!("joiner: {e}")),
    }
    if at_host.len() != at_joiner.len() {
        return Err(format!(
            "the host saw {} steps, the joiner {}",
            at_host.len(),
            at_joiner.len()
        ));
    }
    let mut trips = Vec::new();
    for n in 1..at_joiner.len() {
        let ((by, sent), (next_by, came)) = (at_joiner[n - 1], at_joiner[n]);
        if by != Some(JOINER_SEAT) || next_by != Some(0) {
            continue;
        }
        let (got, answered) = (at_host[n - 1].1, at_host[n].1);
        trips.push(Trip {
            round: came.duration_since(sent),
            there: got.duration_since(sent),
            host: answered.duration_since(got),
            back: came.duration_since(answered),
        });
    }
    Ok((trips, at_joiner.len()))
}

/// The median (the mean of the two middle values for an even count), p90, p99 (nearest rank)
/// and max of `times`, in milliseconds with microsecond precision.
fn summary(times: &mut [Duration]) -> String {
    times.sort_unstable();
    let n = times.len();
    if n == 0 {
        return "no samples".to_string();
    }
    let ms = |d: Duration| format!("{:.3}", d.as_secs_f64() * 1e3);
    let rank = |q: f64| times[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
    let median = if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2
    };
    format!(
        "count {n}, median {} ms, p90 {} ms, p99 {} ms, max {} ms",
        ms(median),
        ms(rank(0.90)),
        ms(rank(0.99)),
        ms(times[n - 1])
    )
}

/// The `--rtt` mode: plays `matches` matches one after another through the relay at
/// `address` and prints the round trip of an action and its legs.
fn rtt(address: &str, matches: usize, mods: &'static LoadedMods) {
    let mut trips = Vec::new();
    let (mut played, mut steps, mut errors) = (0, 0, 0);
    let started = Instant::now();
    for k in 0..matches {
        let code = format!("rtt-{}-{k}", std::process::id());
        match rtt_match(address, &code, k, mods) {
            Ok((t, s)) => {
                played += 1;
                steps += s;
                trips.extend(t);
            }
            Err(e) => {
                errors += 1;
                println!("match {k}: {e}");
            }
        }
    }
    println!(
        "{played} of {matches} matches ({steps} steps) completed one after another in {:.2} s, {errors} errors",
        started.elapsed().as_secs_f64()
    );
    let legs = |f: fn(&Trip) -> Duration| trips.iter().map(f).collect::<Vec<_>>();
    let (mut round, mut there, mut host, mut back) = (
        legs(|t| t.round),
        legs(|t| t.there),
        legs(|t| t.host),
        legs(|t| t.back),
    );
    let mut both: Vec<Duration> = trips.iter().map(|t| t.there + t.back).collect();
    println!(
        "round trip of an action (the joiner's step N sent, to the host's step N + 1 played at the joiner):"
    );
    println!("  {}", summary(&mut round));
    println!("its legs:");
    println!(
        "  joiner -> relay -> host, step N played there: {}",
        summary(&mut there)
    );
    println!(
        "  the host's bot chooses, step N + 1 played and sent: {}",
        summary(&mut host)
    );
    println!(
        "  host -> relay -> joiner, step N + 1 played there: {}",
        summary(&mut back)
    );
    println!(
        "  both network legs, without the host's turn: {}",
        summary(&mut both)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let number = |name: &str, default: usize| {
        value(name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} takes a whole number, not `{v}`"))
        })
    };
    let (start, max) = (number("--start", 50), number("--max", 6400));
    let deadline = Duration::from_secs(number("--deadline", 300) as u64);
    // Every client thread reads the mods for as long as the program runs.
    let mods: &'static LoadedMods = Box::leak(Box::new(hexforge_content::load_mods(&[Path::new(
        env!("CARGO_MANIFEST_DIR"),
    )
    .join("../../mods")])));
    let mut relay = None;
    let address = match value("--relay") {
        Some(a) => a,
        None => {
            let listener = TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1");
            let address = listener.local_addr().expect("its address").to_string();
            let r = Relay::new(|_| {});
            relay = Some(r.clone());
            thread::spawn(move || r.serve(listener));
            address
        }
    };
    println!(
        "relay {address} ({}); matches of moloch (random) against borgo (random), rules v3, no scripts",
        if relay.is_some() {
            "in this process"
        } else {
            "another process"
        }
    );
    if let Some(i) = args.iter().position(|a| a == "--rtt") {
        let matches = match args.get(i + 1).filter(|v| !v.starts_with("--")) {
            Some(v) => v
                .parse()
                .unwrap_or_else(|_| panic!("--rtt takes a whole number, not `{v}`")),
            None => RTT_MATCHES,
        };
        return rtt(&address, matches, mods);
    }
    let mut best = None;
    let mut n = start.max(1);
    let mut number = 0;
    while n <= max {
        let before = relay.as_ref().map(|r| r.counts().frames);
        let r = round(&address, number, n, mods, deadline);
        let secs = r.play.as_secs_f64().max(1e-6);
        let frames = match (relay.as_ref(), before) {
            (Some(relay), Some(before)) => {
                let f = relay.counts().frames - before;
                format!(", {f} frames relayed ({:.0}/s)", f as f64 / secs)
            }
            _ => String::new(),
        };
        println!(
            "N = {n:>5}: all open after {:.2} s; {} of {n} completed {secs:.2} s later: {:.1} matches/s, {:.0} steps/s, {} errors{frames}",
            r.open.as_secs_f64(),
            r.completed,
            r.completed as f64 / secs,
            r.steps as f64 / secs,
            r.errors.len()
        );
        if let Some(e) = r.errors.first() {
            println!("  first error: {e}");
            break;
        }
        best = Some(n);
        n *= 2;
        number += 1;
    }
    match best {
        Some(b) => println!("largest N open at once that completed without errors: {b}"),
        None => println!("no round completed without errors"),
    }
}

/// The hosting of one match: moloch (the player `seat_1`, here) against a remote borgo on the
/// 3.0 rules, the match seeded with `match_seed` and its game with `game_seed`; a desync's replays
/// named after `name` in the temporary folder.
fn hosting(
    mods: &LoadedMods,
    (match_seed, game_seed): (u64, u64),
    seat_1: Box<dyn hexforge_core::game::Player>,
    name: String,
) -> Hosting<'static> {
    Hosting {
        header: hexforge_replay::header(
            ("v3", &[], "standard"),
            &mods.mods,
            vec!["moloch".into(), "borgo".into()],
            game_seed,
            match_seed,
        ),
        seats: vec![Play::Local(seat_1), Play::Remote],
        fill: None,
        replay: None,
        desync_name: std::env::temp_dir().join(name),
        stop: None,
    }
}
