//! Hosted and joined matches in one process, over 127.0.0.1 with ports the system picks: both
//! sides end alike and the host's log is a replay that plays back; the relay carries matches and
//! spectators; a joiner with other content is refused mod by mod; a forced desync is found at
//! its step with both replays saved; a joiner who drops rejoins and the game ends; the relay
//! refuses malformed frames.

use hexforge_content::LoadedMods;
use hexforge_core::NoAbilities;
use hexforge_core::game::Player;
use hexforge_net::relay::Relay;
use hexforge_net::{
    Content, Difference, Here, Hosting, Joining, Listen, Message, NetError, Outcome, Play, Unseen,
    Watcher, host, join, write_frame,
};
use hexforge_replay::{Header, Step};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::Duration;

/// The checkout's mods, loaded once (no scripts: the games play with `NoAbilities`).
fn mods() -> &'static LoadedMods {
    static MODS: OnceLock<LoadedMods> = OnceLock::new();
    MODS.get_or_init(|| {
        hexforge_content::load_mods(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods")])
    })
}

fn content(mods: &LoadedMods) -> Content<'_> {
    Content {
        mods: &mods.mods,
        catalog: Arc::new(mods.catalog.clone()),
    }
}

fn bot(seed: u64) -> Box<dyn Player> {
    hexforge_bots::by_name("random", seed).expect("the random bot")
}

/// The header of moloch against borgo seeded with `seed`.
fn header(seed: u64) -> Header {
    let (game, _) = hexforge_bots::match_seeds(seed, 2);
    hexforge_replay::header(
        ("v3", &[], "standard"),
        &mods().mods,
        vec!["moloch".into(), "borgo".into()],
        game,
        seed,
    )
}

/// A temporary path for one test's files.
fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("hexforge-net-lib-{}-{name}", std::process::id()))
}

/// A writer whose bytes the test reads afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("buffer").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("buffer")).into_owned()
    }
}

/// A watcher that sends where the host listens and keeps the news and the step count.
struct Notes {
    at: Option<Sender<String>>,
    news: Arc<Mutex<Vec<String>>>,
    steps: usize,
}

impl Notes {
    fn new(at: Sender<String>) -> Self {
        Notes {
            at: Some(at),
            news: Arc::default(),
            steps: 0,
        }
    }
}

impl Watcher for Notes {
    fn listening(&mut self, at: &str) {
        if let Some(tx) = self.at.take() {
            let _ = tx.send(at.to_string());
        }
    }
    fn begin(&mut self, _: &Header, _: &hexforge_core::Game, _: &[hexforge_core::Event], _: Here) {}
    fn step(&mut self, _: &hexforge_core::Game, n: usize, _: &Step, _: &[hexforge_core::Event]) {
        assert_eq!(n, self.steps + 1, "steps come in order");
        self.steps = n;
    }
    fn notice(&mut self, text: &str) {
        self.news.lock().expect("news").push(text.to_string());
    }
    fn end(&mut self, _: &hexforge_core::Game) {}
}

/// Hosts moloch (a random bot) against a remote borgo on a thread; returns where it listens
/// and its thread.
fn start_host(
    seed: u64,
    listen: Listen,
    replay: Option<Shared>,
    desync_name: PathBuf,
    news: Arc<Mutex<Vec<String>>>,
) -> (String, thread::JoinHandle<Result<Outcome, NetError>>) {
    let (tx, rx) = channel();
    let handle = thread::spawn(move || {
        let (_, seeds) = hexforge_bots::match_seeds(seed, 2);
        let hosting = Hosting {
            header: header(seed),
            seats: vec![Play::Local(bot(seeds[0])), Play::Remote],
            fill: None,
            replay: replay.map(|r| Box::new(r) as Box<dyn Write>),
            desync_name,
            stop: None,
        };
        let mut notes = Notes::new(tx);
        notes.news = news;
        host(
            hosting,
            listen,
            &content(mods()),
            &mut NoAbilities,
            &mut notes,
        )
    });
    let at = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("the host listens");
    (at, handle)
}

/// How to join seat 2 with a random bot.
fn joining(address: &str, code: Option<&str>) -> Joining<'static> {
    Joining {
        address: address.to_string(),
        seat: Some(1),
        watch: false,
        code: code.map(str::to_string),
        player: Box::new(|seat, header: &Header| {
            let seed = header.match_seed.unwrap_or(header.seed);
            bot(hexforge_bots::match_seeds(seed, 2).1[seat])
        }),
        replay: None,
        corrupt_after: None,
        fetch: None,
        stop: None,
    }
}

/// Joins with `joining` (no spectator, no abilities) and waits for the host's thread `h`: both
/// sides' outcomes; a side that fails panics, the joiner's message starting with `what`.
fn join_to_the_end(
    joining: Joining<'static>,
    content: &Content<'_>,
    what: &str,
    h: thread::JoinHandle<Result<Outcome, NetError>>,
) -> (Outcome, Outcome) {
    let joined = join(joining, content, &mut NoAbilities, &mut Unseen)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let hosted = h
        .join()
        .expect("host thread")
        .unwrap_or_else(|e| panic!("host: {e}"));
    (joined, hosted)
}

fn listener() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").expect("a port on 127.0.0.1")
}

#[test]
fn both_sides_end_alike_and_the_hosts_log_is_a_replay_that_plays_back() {
    let replay = Shared::default();
    let (at, h) = start_host(
        4,
        Listen::Direct(listener()),
        Some(replay.clone()),
        temp("unused"),
        Arc::default(),
    );
    let (joined, hosted) = join_to_the_end(joining(&at, None), &content(mods()), "join", h);
    assert_eq!(joined, hosted);
    assert!(hosted.steps > 10, "{hosted:?}");
    let text = replay.text();
    let parsed = hexforge_replay::parse(&text, &mods().catalog).unwrap_or_else(|e| panic!("{e}"));
    assert!(parsed.complete);
    assert_eq!(parsed.steps.len(), hosted.steps);
    let mut game = hexforge_replay::start(
        &parsed.header,
        &mods().mods,
        Arc::new(mods().catalog.clone()),
        &mut NoAbilities,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for (i, step) in parsed.steps.iter().enumerate() {
        hexforge_replay::replay_step(&mut game, step, &mut NoAbilities, &mut ())
            .unwrap_or_else(|e| panic!("step {}: {e}", i + 1));
        assert_eq!(game.state_hash(), step.hash, "step {}", i + 1);
    }
    assert_eq!(game.state_hash(), hosted.hash);
}

#[test]
fn the_relay_carries_a_match_and_its_spectator() {
    let relay = Relay::new(|_| {});
    let l = listener();
    let r = l.local_addr().expect("address").to_string();
    let serving = relay.clone();
    thread::spawn(move || serving.serve(l));
    let listen = Listen::Relay {
        address: r.clone(),
        code: "lib-test".into(),
    };
    let (_, h) = start_host(6, listen, None, temp("unused"), Arc::default());
    let watching = {
        let r = r.clone();
        thread::spawn(move || {
            let mut j = joining(&r, Some("lib-test"));
            j.watch = true;
            j.seat = None;
            let mut notes = Notes::new(channel().0);
            let o = join(j, &content(mods()), &mut NoAbilities, &mut notes);
            (o, notes.steps)
        })
    };
    // The spectator is put through to the host before the player joins: a match between a bot
    // and a joining bot can end before a spectator who connects later gets there.
    for _ in 0..200 {
        if relay.counts().joins >= 1 {
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    let (joined, hosted) =
        join_to_the_end(joining(&r, Some("lib-test")), &content(mods()), "join", h);
    let (watched, seen) = watching.join().expect("spectator thread");
    let watched = watched.unwrap_or_else(|e| panic!("spectator: {e}"));
    assert_eq!(joined, hosted);
    assert_eq!(watched, hosted);
    assert_eq!(seen, hosted.steps, "the spectator saw every step");
    let counts = relay.counts();
    assert!(counts.matches >= 1 && counts.joins >= 2, "{counts:?}");
    assert!(counts.frames as usize > hosted.steps, "{counts:?}");
    // The code is free again once the host is gone.
    for _ in 0..100 {
        if relay.counts().hosted == 0 {
            break;
        }
        thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(relay.counts().hosted, 0);
}

#[test]
fn a_joiner_with_other_content_is_refused_mod_by_mod_and_the_host_waits_on() {
    let news = Arc::new(Mutex::new(Vec::new()));
    let (at, h) = start_host(
        8,
        Listen::Direct(listener()),
        None,
        temp("unused"),
        news.clone(),
    );
    let mut other: Vec<_> = mods().mods.clone();
    let changed = other[0].id.clone();
    other[0].manifest.version = "9.9.9".parse().expect("a version");
    let gone = other.remove(1).id;
    let content = Content {
        mods: &other,
        catalog: Arc::new(mods().catalog.clone()),
    };
    let refused = join(joining(&at, None), &content, &mut NoAbilities, &mut Unseen);
    let Err(NetError::Refused(found)) = refused else {
        panic!("not refused: {refused:?}");
    };
    assert!(
        matches!(&found[0], Difference::Version { id, here, .. } if *id == changed && here.0 == "9.9.9"),
        "{found:?}"
    );
    assert!(
        matches!(&found[1], Difference::Missing { id, .. } if *id == gone),
        "{found:?}"
    );
    assert_eq!(found.len(), 2, "{found:?}");
    let (joined, hosted) = join_to_the_end(joining(&at, None), &content_of_mods(), "join", h);
    assert_eq!(joined, hosted);
    let news = news.lock().expect("news");
    assert!(
        news.iter()
            .any(|n| n.contains("refused the match") && n.contains(&format!("mod `{gone}`"))),
        "{news:?}"
    );
}

fn content_of_mods() -> Content<'static> {
    content(mods())
}

#[test]
fn a_desync_is_found_at_its_step_and_both_replays_are_saved() {
    let name = temp("desync");
    let (at, h) = start_host(
        10,
        Listen::Direct(listener()),
        None,
        name.clone(),
        Arc::default(),
    );
    let mut j = joining(&at, None);
    j.corrupt_after = Some(3);
    let joined = join(j, &content(mods()), &mut NoAbilities, &mut Unseen);
    let hosted = h.join().expect("host thread");
    let Err(NetError::Desync(report)) = hosted else {
        panic!("no desync at the host: {hosted:?}");
    };
    assert_eq!(report.step, 3, "{report}");
    assert_ne!(report.host, report.found, "{report}");
    assert_eq!(report.peer, "seat 2 (borgo)");
    assert_eq!(report.files.len(), 2, "{report}");
    for f in &report.files {
        let text = std::fs::read_to_string(f).expect("a saved replay");
        let parsed =
            hexforge_replay::parse(&text, &mods().catalog).unwrap_or_else(|e| panic!("{e}"));
        assert!(parsed.steps.len() >= 3, "{}", f.display());
        let _ = std::fs::remove_file(f);
    }
    let Err(NetError::Desync(theirs)) = joined else {
        panic!("no desync at the joiner: {joined:?}");
    };
    assert_eq!(theirs.step, 3);
    assert_eq!(theirs.host, report.host);
}

/// Reads lines from `r` until one starts with `prefix`.
fn read_until(r: &mut impl BufRead, prefix: &str) -> String {
    loop {
        let mut line = String::new();
        let n = r.read_line(&mut line).expect("a line");
        assert!(n > 0, "closed before `{prefix}`");
        if line.starts_with(prefix) {
            return line;
        }
    }
}

#[test]
fn a_joiner_who_drops_rejoins_and_the_game_ends() {
    let news = Arc::new(Mutex::new(Vec::new()));
    let (at, h) = start_host(
        12,
        Listen::Direct(listener()),
        None,
        temp("unused"),
        news.clone(),
    );
    // A joiner that takes seat 2 and drops as soon as it is live.
    {
        let mut s = TcpStream::connect(&at).expect("connect");
        s.write_all(b"hexforge-net 1 join seat=2\n").expect("hello");
        let mut r = BufReader::new(s.try_clone().expect("clone"));
        assert_eq!(read_until(&mut r, "assign"), "assign 2\n");
        s.write_all(b"accept\n").expect("accept");
        read_until(&mut r, "live");
    }
    // Rejoin once the host has seen the drop.
    for _ in 0..2400 {
        if news
            .lock()
            .expect("news")
            .iter()
            .any(|n| n.contains(" left "))
        {
            break;
        }
        thread::sleep(Duration::from_millis(50));
    }
    let (joined, hosted) = join_to_the_end(joining(&at, None), &content(mods()), "rejoin", h);
    assert_eq!(joined, hosted);
    let news = news.lock().expect("news");
    assert!(
        news.iter().any(|n| n.starts_with("seat 2 (borgo) left")),
        "{news:?}"
    );
    assert!(
        news.iter()
            .any(|n| n.starts_with("seat 2 (borgo) rejoined")),
        "{news:?}"
    );
}

#[test]
fn the_relay_refuses_malformed_frames_with_a_clear_error() {
    let relay = Relay::new(|_| {});
    let l = listener();
    let r = l.local_addr().expect("address").to_string();
    thread::spawn(move || relay.serve(l));
    let mut long = vec![b'y'; 20_000];
    long.push(b'\n');
    let cases: [(&[u8], &str); 5] = [
        (b"\n", "an empty frame"),
        (
            b"step 1 hash 00 action end_turn\n",
            "the first frame is `hexforge-net 1 ROLE",
        ),
        (&long, "a frame longer than 16384 bytes"),
        (b"hexforge-net 1 relay-host\n", "host a match on it with"),
        (
            b"hexforge-net 1 join match=nope\n",
            "no match `nope` is hosted",
        ),
    ];
    for (bytes, expected) in cases {
        let mut s = TcpStream::connect(&r).expect("connect");
        let _ = s.write_all(bytes);
        let mut answer = String::new();
        let _ = BufReader::new(s).read_line(&mut answer);
        assert!(
            answer.starts_with("error ") && answer.contains(expected),
            "`{expected}` not in `{answer}`"
        );
    }
}

#[test]
fn a_spectator_cannot_act() {
    let (at, h) = start_host(
        14,
        Listen::Direct(listener()),
        None,
        temp("unused"),
        Arc::default(),
    );
    let mut s = TcpStream::connect(&at).expect("connect");
    s.write_all(b"hexforge-net 1 watch\n").expect("hello");
    let mut r = BufReader::new(s.try_clone().expect("clone"));
    assert_eq!(read_until(&mut r, "assign"), "assign watch\n");
    s.write_all(b"accept\n").expect("accept");
    read_until(&mut r, "live");
    s.write_all(b"step 1 hash 0 action end_turn\n")
        .expect("a step");
    let answer = read_until(&mut r, "error ");
    assert!(
        answer.contains("a `step` frame does not belong here"),
        "{answer}"
    );
    let (joined, hosted) = join_to_the_end(joining(&at, None), &content(mods()), "join", h);
    assert_eq!(joined, hosted);
}

#[test]
fn a_host_that_sends_a_hostile_archive_is_refused_and_nothing_is_installed() {
    // A host that claims a mod `evil` the joiner lacks, and sends for it an archive with a path
    // outside its folder (a checksum made to fit).
    let listener = listener();
    let at = listener.local_addr().expect("address").to_string();
    let fake = thread::spawn(move || {
        let (stream, _) = listener.accept().expect("the joiner");
        let mut out = stream.try_clone().expect("a writer");
        let mut frames = hexforge_net::FrameReader::new(BufReader::new(stream));
        let _hello = frames.read().expect("the joiner's hello");
        let mut h = header(5);
        h.mods.push(("evil".into(), "1.0.0".into(), 0x1234));
        let mut send = |m: Message| write_frame(&mut out, &m.to_string()).expect("send");
        send(Message::Hello(hexforge_net::Hello {
            role: hexforge_net::Role::Host,
            code: None,
        }));
        for l in hexforge_net::header_lines(&h) {
            send(Message::Header(l));
        }
        send(Message::Assign(Some(1)));
        let asked = Message::parse(&frames.read().expect("the fetch")).expect("a message");
        assert_eq!(asked, Message::Fetch("evil".into()));
        let mut body = b"hexforge-mod 1\nmod evil 1.0.0 0000000000001234\n".to_vec();
        body.extend_from_slice(b"file mod.toml 2\nid\nfile ../../escape.lua 4\nboom\n");
        let mut fnv = hexforge_core::fnv::Fnv1a::new();
        fnv.bytes(&body);
        body.extend_from_slice(format!("end {:016x}\n", fnv.finish()).as_bytes());
        send(Message::Pack {
            id: "evil".into(),
            bytes: body.clone(),
        });
        send(Message::Packed {
            id: "evil".into(),
            size: body.len(),
        });
        // What the joiner says last: it refuses the match.
        frames.read().ok()
    });
    let user_mods = temp("hostile-archive");
    let mut j = joining(&at, None);
    j.fetch = Some(hexforge_net::Fetching {
        confirm: Box::new(|_| true),
        user_mods: user_mods.clone(),
        elsewhere: None,
    });
    let e = join(j, &content(mods()), &mut NoAbilities, &mut Unseen)
        .map(|_| ())
        .expect_err("a hostile archive is refused");
    let text = e.to_string();
    assert!(
        text.contains("the host's archive of `evil` is refused")
            && text.contains("../../escape.lua"),
        "{text}"
    );
    let last = fake.join().expect("the fake host").unwrap_or_default();
    assert!(last.starts_with("refuse "), "{last}");
    assert!(
        !user_mods.join("evil").exists()
            && !user_mods
                .parent()
                .expect("a parent")
                .join("escape.lua")
                .exists(),
        "nothing installed"
    );
    let _ = std::fs::remove_dir_all(&user_mods);
}
