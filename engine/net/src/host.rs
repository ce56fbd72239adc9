//! Hosting a match ([`host`]): the host sets the game up from its header, keeps the match's log,
//! lets joiners in (handshake, the log so far, then live steps), plays its own seats, checks the
//! state hash every side sends after every step, waits for or fills in a seat whose player left,
//! and on a desync saves both sides' replays. Connections are read on threads of their own; the
//! game lives on the caller's thread.

use crate::conn::{Conn, Shared, drain, frames, send, send_many};
use crate::desync::{DesyncReport, Found};
use crate::error::NetError;
use crate::frame::FrameError;
use crate::handshake::header_lines;
use crate::lockstep::{
    Content, Elsewhere, Here, Outcome, Watcher, answer_for, play_turn, play_wire, seat_name,
};
use crate::message::{Hello, Message, Role, WireAsk, WireStep};
use hexforge_core::game::{LegalActions, Player};
use hexforge_core::{AbilityHooks, Action, Catalog, Event, Game};
use hexforge_replay::{Header, Recorder, Step, decode_action, encode_action, start_noted};
use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread;
use std::time::{Duration, Instant};

/// How long a new connection has to send its first frame.
const HELLO_WITHIN: Duration = Duration::from_secs(60);
/// How long a write to a peer may block before the peer counts as gone.
const WRITE_WITHIN: Duration = Duration::from_secs(60);
/// How often a host waiting for its connections looks whether it was stopped.
const LOOK_AGAIN: Duration = Duration::from_millis(100);
/// How long the host waits, at the end, for every side's last hashes; and for a desynced
/// side's replay.
const ANSWER_WITHIN: Duration = Duration::from_secs(60);
/// How long the host waits, after `end`, for the sides to close their connections.
const CLOSE_WITHIN: Duration = Duration::from_secs(10);
/// The stack of the threads that only read connections.
const READER_STACK: usize = 256 * 1024;

/// Who plays a seat of a hosted match.
pub enum Play<'a> {
    /// A player at the host: a person at its terminal, or a bot.
    Local(Box<dyn Player + 'a>),
    /// A joiner (`hexforge join`).
    Remote,
}

/// The bot that takes the seat of a joiner who left, until the joiner is back.
pub struct Fill<'a> {
    /// The bot's name, for the news.
    pub name: String,
    /// A new bot for a seat (from 0).
    pub make: Box<dyn FnMut(usize) -> Box<dyn Player + 'a> + 'a>,
}

/// Where joiners reach the host.
pub enum Listen {
    /// They connect to this listener.
    Direct(TcpListener),
    /// The host connects out to a relay (`hexforge serve`) and registers the match `code`;
    /// joiners connect to the relay with the code.
    Relay {
        /// The relay's `HOST:PORT`.
        address: String,
        /// The match's code on the relay.
        code: String,
    },
}

/// A match to host.
pub struct Hosting<'a> {
    /// The match's header: rules, options, board, armies per seat, teams, mods, seeds.
    pub header: Header,
    /// Who plays each seat, in seat order.
    pub seats: Vec<Play<'a>>,
    /// The bot that takes a seat whose joiner left (`None`: the host waits for the joiner).
    pub fill: Option<Fill<'a>>,
    /// Where the match's replay is written, step by step (`None`: not written).
    pub replay: Option<Box<dyn Write + 'a>>,
    /// On a desync, both replays are saved as `NAME.host.replay` and `NAME.join.replay`.
    pub desync_name: PathBuf,
    /// Stops the match from outside (`None`: it ends with the game or an error).
    pub stop: Option<crate::stop::Stop>,
}

/// What the connections' threads tell the game's thread.
enum Incoming {
    /// A new connection.
    Connected(TcpStream),
    /// A message from a connection.
    Frame(u64, Message),
    /// A frame that is not a message: the connection is refused and closed.
    Bad(u64, String),
    /// The connection closed or failed.
    Closed(u64, String),
    /// The relay's connection ended: no one can join any more.
    RelayLost(String),
}

/// A remote seat.
struct Remote {
    /// The connection playing it.
    peer: Option<u64>,
    /// Whether a joiner ever played it (the match starts once every remote seat has joined).
    joined: bool,
    /// Whether the fill-in bot plays it now.
    filled: bool,
}

/// Where a connection is in the protocol.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Its first frame has not come.
    Hello,
    /// It was sent the header and its seat (`None`: watching); its answer has not come.
    Offered(Option<usize>),
    /// It follows the match, playing this seat or watching.
    Live(Option<usize>),
}

/// A connection.
struct Peer {
    stream: Shared,
    address: String,
    state: State,
    /// The last step whose hash it sent.
    acked: usize,
    /// Whether it was sent `live` (players are, once the match has started).
    live: bool,
}

/// A desync found, to report once the loop is left.
struct Pending {
    step: usize,
    turn: u16,
    action: String,
    by: usize,
    host: Found,
    peer: u64,
    /// The side whose state differs, named.
    peer_name: String,
    found: Found,
}

/// Hosts a match until its end: sets the game up from `hosting.header` with `content` and
/// `hooks` (the scripts of the loaded mods), waits for every remote seat to join, then plays
/// it, each step shown to `watcher`. Returns how the game ended, or why it stopped (a desync
/// after saving both replays).
pub fn host(
    hosting: Hosting<'_>,
    listen: Listen,
    content: &Content<'_>,
    hooks: &mut dyn AbilityHooks,
    watcher: &mut dyn Watcher,
) -> Result<Outcome, NetError> {
    let Hosting {
        header,
        seats,
        fill,
        replay,
        desync_name,
        stop: leave,
    } = hosting;
    if seats.len() != header.armies.len() {
        return Err(NetError::Header(format!(
            "{} seats for {} armies: say who plays each seat",
            seats.len(),
            header.armies.len()
        )));
    }
    let mut events = Vec::new();
    let game = start_noted(
        &header,
        content.mods,
        content.catalog.clone(),
        hooks,
        &mut events,
    )
    .map_err(NetError::Start)?;
    let recorder = match replay {
        Some(out) => Some(
            Recorder::new(out, &header).map_err(|e| NetError::io("cannot write the replay", e))?,
        ),
        None => None,
    };
    let (tx, rx) = channel();
    let (address, stop) = match listen {
        Listen::Direct(listener) => {
            let at = listener
                .local_addr()
                .map_err(|e| NetError::io("cannot read the listening address", e))?;
            let done = Arc::new(AtomicBool::new(false));
            accept(listener, tx.clone(), done.clone());
            watcher.listening(&at.to_string());
            (join_address(at), Stop::Direct(at, done))
        }
        Listen::Relay { address, code } => {
            let control = register(&address, &code, tx.clone())?;
            let at = format!("{address} --match {code}");
            watcher.listening(&at);
            (at, Stop::Relay(control))
        }
    };
    watcher.begin(&header, &game, &events, Here::Host);
    let mut players: Vec<Box<dyn Player + '_>> = Vec::new();
    let mut remote = Vec::new();
    for s in seats {
        match s {
            Play::Local(p) => {
                players.push(p);
                remote.push(None);
            }
            Play::Remote => {
                players.push(Box::new(Elsewhere));
                remote.push(Some(Remote {
                    peer: None,
                    joined: false,
                    filled: false,
                }));
            }
        }
    }
    let mut session = Session {
        hooks,
        mods: content.mods,
        watcher,
        header_lines: header_lines(&header),
        header,
        game,
        log: Vec::new(),
        turns: Vec::new(),
        by: Vec::new(),
        players,
        remote,
        fill,
        recorder,
        peers: BTreeMap::new(),
        next_id: 0,
        tx,
        rx,
        desync: None,
        desync_name,
        events: Vec::new(),
        legal: LegalActions::new(),
        address,
        told: None,
        leave,
        catalog: content.catalog.clone(),
        backlog: VecDeque::new(),
        forwards: Vec::new(),
    };
    let result = session.run();
    for p in session.peers.values() {
        let _ = p.stream.stream().shutdown(Shutdown::Both);
    }
    stop.stop();
    result
}

/// Waits for joiner `id`'s answer to the decision of step `number`, keeping what else comes in
/// `backlog`; the first option when the joiner leaves or does not answer in time.
fn await_answer(
    rx: &Receiver<Incoming>,
    backlog: &mut VecDeque<Incoming>,
    id: u64,
    number: usize,
) -> Option<usize> {
    let deadline = Instant::now() + crate::lockstep::DECIDE_WITHIN;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Incoming::Frame(from, Message::Answer { step, pick }))
                if from == id && step == number =>
            {
                return Some(pick);
            }
            Ok(other) => {
                let gone = matches!(&other, Incoming::Closed(from, _) if *from == id);
                backlog.push_back(other);
                if gone {
                    return Some(0);
                }
            }
            Err(_) => return Some(0),
        }
    }
}

/// How the listening threads are stopped when the match is over.
enum Stop {
    /// The acceptor of this address stops at its next connection, which the host makes.
    Direct(SocketAddr, Arc<AtomicBool>),
    /// The relay's control connection is closed.
    Relay(Shared),
}

impl Stop {
    fn stop(self) {
        match self {
            Stop::Direct(mut at, done) => {
                done.store(true, Ordering::SeqCst);
                if at.ip().is_unspecified() {
                    at.set_ip(match at {
                        SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                        SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
                    });
                }
                let _ = TcpStream::connect_timeout(&at, Duration::from_secs(5));
            }
            Stop::Relay(control) => {
                let _ = control.stream().shutdown(Shutdown::Both);
            }
        }
    }
}

/// Accepts connections on a thread until `done`.
fn accept(listener: TcpListener, tx: Sender<Incoming>, done: Arc<AtomicBool>) {
    thread::spawn(move || {
        for stream in listener.incoming() {
            if done.load(Ordering::SeqCst) {
                return;
            }
            match stream {
                Ok(s) => {
                    if tx.send(Incoming::Connected(s)).is_err() {
                        return;
                    }
                }
                // Out of file descriptors, a connection reset before it was taken: go on.
                Err(_) => thread::sleep(Duration::from_millis(10)),
            }
        }
    });
}

/// Registers the match `code` with the relay at `address`, and takes up on a thread every
/// joiner the relay announces. Returns the control connection, to close at the end.
fn register(address: &str, code: &str, tx: Sender<Incoming>) -> Result<Shared, NetError> {
    let mut conn = Conn::connect(address)?;
    conn.send(&Message::Hello(Hello {
        role: Role::RelayHost,
        code: Some(code.to_string()),
    }))?;
    for expected in ["hello", "ok"] {
        match conn.recv_within(Some(HELLO_WITHIN))? {
            Message::Hello(Hello {
                role: Role::Relay, ..
            }) if expected == "hello" => {}
            Message::Ok if expected == "ok" => {}
            Message::Error(e) => return Err(NetError::Remote(e)),
            other => {
                return Err(NetError::Protocol(format!(
                    "{address} is not a Hexforge relay: it answered `{other}`"
                )));
            }
        }
    }
    let _ = conn.stream().set_read_timeout(None);
    let control = conn.shared().clone();
    let (address, code) = (address.to_string(), code.to_string());
    thread::spawn(move || {
        loop {
            match conn.recv() {
                Ok(Message::Peer(peer)) => {
                    let Ok(mut data) = TcpStream::connect(&address) else {
                        continue;
                    };
                    let _ = data.set_nodelay(true);
                    let hello = Message::Hello(Hello {
                        role: Role::RelayAccept { peer },
                        code: Some(code.clone()),
                    });
                    if send(&mut data, &hello).is_ok()
                        && tx.send(Incoming::Connected(data)).is_err()
                    {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    let _ = tx.send(Incoming::RelayLost(e.to_string()));
                    return;
                }
            }
        }
    });
    Ok(control)
}

/// Reads one connection's frames on a thread of its own, until it closes or sends what is not
/// a message.
fn read_peer(id: u64, stream: Shared, tx: Sender<Incoming>) -> std::io::Result<()> {
    thread::Builder::new()
        .stack_size(READER_STACK)
        .spawn(move || {
            let _ = stream.stream().set_read_timeout(Some(HELLO_WITHIN));
            let mut reader = frames(&stream);
            let mut first = true;
            loop {
                let incoming = match reader.read() {
                    Ok(frame) => {
                        if first {
                            let _ = stream.stream().set_read_timeout(None);
                            first = false;
                        }
                        match Message::parse(&frame) {
                            Ok(m) => Incoming::Frame(id, m),
                            Err(e) => Incoming::Bad(id, e.to_string()),
                        }
                    }
                    Err(FrameError::Closed) => {
                        Incoming::Closed(id, "it closed the connection".into())
                    }
                    Err(e @ (FrameError::TooLong { .. } | FrameError::NotText)) => {
                        Incoming::Bad(id, e.to_string())
                    }
                    Err(e) => Incoming::Closed(id, e.to_string()),
                };
                let bad = matches!(incoming, Incoming::Bad(..));
                let last = !matches!(incoming, Incoming::Frame(..));
                if tx.send(incoming).is_err() || last {
                    if bad {
                        // The host answers with `error`: what still comes is read and dropped,
                        // so that the answer is not lost to a reset.
                        drain(stream.stream(), reader.into_inner());
                    }
                    return;
                }
            }
        })
        .map(drop)
}

/// A hosted match in progress.
struct Session<'a, 's> {
    hooks: &'s mut dyn AbilityHooks,
    /// The loaded mods, whose archives joiners may fetch.
    mods: &'s [hexforge_content::ModInfo],
    watcher: &'s mut dyn Watcher,
    header: Header,
    header_lines: Vec<String>,
    game: Game,
    /// Every step played, with the host's hashes.
    log: Vec<Step>,
    /// The turn each step was played in.
    turns: Vec<u16>,
    /// The seat that played each step.
    by: Vec<usize>,
    players: Vec<Box<dyn Player + 'a>>,
    /// Each seat's joiner, for the seats played remotely.
    remote: Vec<Option<Remote>>,
    fill: Option<Fill<'a>>,
    recorder: Option<Recorder<Box<dyn Write + 'a>>>,
    peers: BTreeMap<u64, Peer>,
    next_id: u64,
    tx: Sender<Incoming>,
    rx: Receiver<Incoming>,
    desync: Option<Pending>,
    desync_name: PathBuf,
    events: Vec<Event>,
    legal: LegalActions,
    /// How joiners reach the match, for the news.
    address: String,
    /// The last waiting message shown, not to repeat it.
    told: Option<String>,
    /// Stops the match from outside.
    leave: Option<crate::stop::Stop>,
    /// The tiles, to write the actions of decisions asked.
    catalog: Arc<Catalog>,
    /// What came while a decision was asked, handled once the step is played.
    backlog: VecDeque<Incoming>,
    /// Decisions passed on from the joiner that asks (second) to the one that answers (first),
    /// with the step.
    forwards: Vec<(u64, u64, usize)>,
}

impl Session<'_, '_> {
    fn run(&mut self) -> Result<Outcome, NetError> {
        loop {
            while let Some(incoming) = self.backlog.pop_front() {
                self.handle(incoming)?;
            }
            while let Ok(incoming) = self.rx.try_recv() {
                self.handle(incoming)?;
            }
            if self.desync.is_some() {
                return Err(self.stop_desync());
            }
            if self.game.result().is_some() {
                return self.finish();
            }
            let Some(seat) = self.game.current().map(|s| s.index()) else {
                return Err(NetError::Protocol(
                    "the game stopped with no result and no player to act".into(),
                ));
            };
            if !self.started()
                && let Some(s) = self
                    .remote
                    .iter()
                    .position(|r| r.as_ref().is_some_and(|r| !r.joined))
            {
                let text = format!(
                    "waiting for {} to join: {}",
                    seat_name(&self.header, s),
                    self.join_command(s)
                );
                self.wait(Some(text))?;
                continue;
            }
            match &self.remote[seat] {
                None
                | Some(Remote {
                    peer: None,
                    filled: true,
                    ..
                }) => self.play_local(seat)?,
                Some(Remote { peer: Some(_), .. }) => self.wait(None)?,
                Some(_) => {
                    let text = format!(
                        "waiting for {} to rejoin: {}",
                        seat_name(&self.header, seat),
                        self.join_command(seat)
                    );
                    self.wait(Some(text))?;
                }
            }
        }
    }

    /// The command that joins (or rejoins) `seat`, as the host's messages give it.
    fn join_command(&self, seat: usize) -> String {
        format!("hexforge join {} --seat {}", self.address, seat + 1)
    }

    /// Waits for what a connection says, having said `text` once.
    fn wait(&mut self, text: Option<String>) -> Result<(), NetError> {
        if let Some(t) = text
            && self.told.as_ref() != Some(&t)
        {
            self.notice_all(&t);
            self.told = Some(t);
        }
        if let Some(incoming) = self.backlog.pop_front() {
            return self.handle(incoming);
        }
        loop {
            if self.leave.as_ref().is_some_and(crate::stop::Stop::stopped) {
                self.notice_all("the host left the match");
                return Err(NetError::Stopped("the host left the match".to_string()));
            }
            match self.rx.recv_timeout(LOOK_AGAIN) {
                Ok(incoming) => return self.handle(incoming),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(NetError::Protocol(
                        "the threads reading the connections stopped".into(),
                    ));
                }
            }
        }
    }

    fn handle(&mut self, incoming: Incoming) -> Result<(), NetError> {
        match incoming {
            Incoming::Connected(stream) => self.connected(stream),
            Incoming::Frame(id, m) => self.frame(id, m)?,
            Incoming::Bad(id, why) => self.refuse(id, &why),
            Incoming::Closed(id, why) => self.drop_peer(id, &why),
            Incoming::RelayLost(why) => self.watcher.notice(&format!(
                "the relay's connection ended ({why}): no one else can join"
            )),
        }
        Ok(())
    }

    fn connected(&mut self, stream: TcpStream) {
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(WRITE_WITHIN));
        let id = self.next_id;
        self.next_id += 1;
        let address = stream
            .peer_addr()
            .map_or_else(|_| "an unknown address".to_string(), |a| a.to_string());
        let stream = Shared::new(stream);
        if read_peer(id, stream.clone(), self.tx.clone()).is_err() {
            // No thread to read it: it is closed at once.
            let _ = stream.stream().shutdown(Shutdown::Both);
            return;
        }
        self.peers.insert(
            id,
            Peer {
                stream,
                address,
                state: State::Hello,
                acked: 0,
                live: false,
            },
        );
    }

    /// Sends `message` to connection `id`; a connection that cannot be written to is dropped.
    fn send_to(&mut self, id: u64, messages: &[Message]) {
        let Some(p) = self.peers.get_mut(&id) else {
            return;
        };
        if let Err(e) = send_many(&mut p.stream.stream(), messages) {
            let why = e.to_string();
            self.drop_peer(id, &why);
        }
    }

    /// Tells connection `id` what it did wrong and closes it.
    fn refuse(&mut self, id: u64, why: &str) {
        if let Some(p) = self.peers.get_mut(&id) {
            let _ = send(&mut p.stream.stream(), &Message::Error(why.to_string()));
            let address = p.address.clone();
            self.watcher
                .notice(&format!("refused the connection from {address}: {why}"));
        }
        self.close_peer(id, why, Shutdown::Write);
    }

    /// Forgets connection `id`; the seat it played is waited for or filled in.
    fn drop_peer(&mut self, id: u64, why: &str) {
        self.close_peer(id, why, Shutdown::Both);
    }

    /// Forgets connection `id`, shutting it down `how`; the seat it played is waited for or
    /// filled in.
    fn close_peer(&mut self, id: u64, why: &str, how: Shutdown) {
        let Some(p) = self.peers.remove(&id) else {
            return;
        };
        let _ = p.stream.stream().shutdown(how);
        // Decisions passed on to it take the first option.
        let owed: Vec<(u64, usize)> = self
            .forwards
            .iter()
            .filter(|(from, _, _)| *from == id)
            .map(|(_, asker, step)| (*asker, *step))
            .collect();
        self.forwards
            .retain(|(from, asker, _)| *from != id && *asker != id);
        for (asker, step) in owed {
            self.send_to(asker, &[Message::Answer { step, pick: 0 }]);
        }
        match p.state {
            State::Live(Some(s)) => {
                if let Some(r) = self.remote[s].as_mut() {
                    r.peer = None;
                }
                let name = seat_name(&self.header, s);
                let back = self.join_command(s);
                if self.game.result().is_some() {
                    self.watcher.notice(&format!("{name} left ({why})"));
                } else if let Some(fill) = self.fill.as_mut() {
                    self.players[s] = (fill.make)(s);
                    if let Some(r) = self.remote[s].as_mut() {
                        r.filled = true;
                    }
                    let text = format!(
                        "{name} left ({why}): the bot {} plays it until it rejoins ({back})",
                        fill.name
                    );
                    self.notice_all(&text);
                } else {
                    self.notice_all(&format!("{name} left ({why})"));
                }
            }
            State::Live(None) => self
                .watcher
                .notice(&format!("a spectator from {} left", p.address)),
            State::Hello | State::Offered(_) => {}
        }
    }

    /// The connections following the match (players and spectators past the handshake).
    fn live_peers(&self) -> Vec<u64> {
        self.peers
            .iter()
            .filter(|(_, p)| matches!(p.state, State::Live(_)))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Shows `text` here and sends it to every connection following the match.
    fn notice_all(&mut self, text: &str) {
        self.watcher.notice(text);
        let live = self.live_peers();
        for id in live {
            self.send_to(id, &[Message::Notice(text.to_string())]);
        }
    }

    fn frame(&mut self, id: u64, message: Message) -> Result<(), NetError> {
        let Some(state) = self.peers.get(&id).map(|p| p.state) else {
            return Ok(());
        };
        match (state, message) {
            (State::Hello, Message::Hello(hello)) => self.greet(id, hello),
            (State::Hello, other) => self.refuse(
                id,
                &format!(
                    "the first frame is `hexforge-net 1 join seat=N` or `hexforge-net 1 watch`, not `{}`",
                    kind(&other)
                ),
            ),
            (State::Offered(seat), Message::Accept) => self.admit(id, seat),
            (State::Offered(_), Message::Fetch(m)) => self.send_pack(id, &m),
            (State::Offered(_), Message::Refuse(why)) => {
                let address = self.peers.get(&id).map(|p| p.address.clone());
                self.watcher.notice(&format!(
                    "the joiner from {} refused the match: {why}",
                    address.unwrap_or_default()
                ));
                self.drop_peer(id, "refused the match");
            }
            (State::Live(Some(seat)), Message::Step(wire)) => self.remote_step(id, seat, wire),
            (State::Live(Some(seat)), Message::Ask(ask)) => self.asked(id, seat, ask),
            (State::Live(Some(_)), Message::Answer { step, pick }) => {
                // An answer to a decision passed on: back to the joiner that asked; a late
                // one (its asker took the default) is dropped.
                if let Some(k) = self
                    .forwards
                    .iter()
                    .position(|(from, _, st)| *from == id && *st == step)
                {
                    let (_, asker, _) = self.forwards.remove(k);
                    self.send_to(asker, &[Message::Answer { step, pick }]);
                }
            }
            (State::Live(Some(_)), Message::Hash { step, hash }) => self.ack(id, step, hash),
            (_, Message::Error(why)) => {
                let address = self.peers.get(&id).map(|p| p.address.clone());
                self.watcher.notice(&format!(
                    "{} stopped: {why}",
                    address.unwrap_or_default()
                ));
                self.drop_peer(id, &why);
            }
            (State::Live(_), Message::ReplayLine(_) | Message::ReplayEnd) => {}
            (_, other) => self.refuse(
                id,
                &format!("a `{}` frame does not belong here", kind(&other)),
            ),
        }
        Ok(())
    }

    /// A new connection said what it is: it is sent the header and its seat.
    fn greet(&mut self, id: u64, hello: Hello) {
        let seats = self.header.armies.len();
        let taken = |session: &Self, s: usize| {
            session.remote[s].as_ref().is_some_and(|r| r.peer.is_some())
                || session
                    .peers
                    .values()
                    .any(|p| p.state == State::Offered(Some(s)))
        };
        let remote: Vec<String> = (0..seats)
            .filter(|s| self.remote[*s].is_some())
            .map(|s| (s + 1).to_string())
            .collect();
        let seat = match hello.role {
            Role::Watch => None,
            Role::Join { seat: Some(s) } if s >= seats => {
                return self.refuse(
                    id,
                    &format!(
                        "there is no seat {}: this match has seats 1 to {seats}",
                        s + 1
                    ),
                );
            }
            Role::Join { seat: Some(s) } if self.remote[s].is_none() => {
                return self.refuse(
                    id,
                    &format!(
                        "{} is played at the host; the seats played remotely are: {}",
                        seat_name(&self.header, s),
                        if remote.is_empty() {
                            "none (watch with --watch)".to_string()
                        } else {
                            remote.join(", ")
                        }
                    ),
                );
            }
            Role::Join { seat: Some(s) } if taken(self, s) => {
                return self.refuse(
                    id,
                    &format!(
                        "{} is already played by a connected joiner (watch with --watch)",
                        seat_name(&self.header, s)
                    ),
                );
            }
            Role::Join { seat: Some(s) } => Some(s),
            Role::Join { seat: None } => {
                match (0..seats).find(|s| self.remote[*s].is_some() && !taken(self, *s)) {
                    Some(s) => Some(s),
                    None => {
                        return self.refuse(
                            id,
                            "no seat is free: every seat played remotely has its joiner (watch with --watch)",
                        );
                    }
                }
            }
            _ => {
                return self.refuse(
                    id,
                    "this is a Hexforge host: join it with `hexforge join ADDRESS`, or watch with `--watch`",
                );
            }
        };
        let mut out = vec![Message::Hello(Hello {
            role: Role::Host,
            code: None,
        })];
        out.extend(self.header_lines.iter().cloned().map(Message::Header));
        out.push(Message::Assign(seat));
        if let Some(p) = self.peers.get_mut(&id) {
            p.state = State::Offered(seat);
        }
        self.send_to(id, &out);
    }

    /// The joiner of `asker` playing step `ask.step` asks the pick of seat `ask.seat`: a seat
    /// played here answers through its player; a seat another joiner plays, through that
    /// joiner. An ask that does not belong to the step being played is answered with the
    /// first option.
    fn asked(&mut self, id: u64, asker: usize, ask: WireAsk) {
        let number = self.log.len() + 1;
        let on_turn = self.game.current().map(|s| s.index()) == Some(asker);
        if ask.step != number || !on_turn || ask.seat >= self.players.len() {
            let step = ask.step;
            return self.send_to(id, &[Message::Answer { step, pick: 0 }]);
        }
        if let Some(Remote {
            peer: Some(target),
            filled: false,
            ..
        }) = self.remote[ask.seat]
            && target != id
        {
            self.forwards.push((target, id, ask.step));
            return self.send_to(target, &[Message::Ask(ask)]);
        }
        let pick = match decode_action(&ask.action, self.game.catalog()) {
            Ok(action) => answer_for(
                &self.game,
                action,
                &ask.picks,
                ask.seat,
                self.players[ask.seat].as_mut(),
                &mut *self.hooks,
            ),
            Err(_) => 0,
        };
        self.send_to(
            id,
            &[Message::Answer {
                step: ask.step,
                pick,
            }],
        );
    }

    /// A joiner offered the header asked for the archive of mod `m`: it is sent in `pack`
    /// frames, then `packed`; a mod the match is not played with, or that cannot be packed, is
    /// answered with `nopack` and why.
    fn send_pack(&mut self, id: u64, m: &str) {
        let address = self
            .peers
            .get(&id)
            .map(|p| p.address.clone())
            .unwrap_or_default();
        let Some(info) = self.mods.iter().find(|i| i.id == m) else {
            let why = "the match is not played with it".to_string();
            return self.send_to(
                id,
                &[Message::NoPack {
                    id: m.to_string(),
                    why,
                }],
            );
        };
        match hexforge_content::archive::pack(info) {
            Ok(archive) => {
                let bytes = archive.to_bytes();
                let mut out: Vec<Message> = bytes
                    .chunks(crate::message::PACK_CHUNK)
                    .map(|c| Message::Pack {
                        id: m.to_string(),
                        bytes: c.to_vec(),
                    })
                    .collect();
                out.push(Message::Packed {
                    id: m.to_string(),
                    size: bytes.len(),
                });
                self.watcher.notice(&format!(
                    "sending mod `{m}` {} ({} bytes) to the joiner from {address}",
                    archive.version,
                    bytes.len()
                ));
                self.send_to(id, &out);
            }
            Err(e) => self.send_to(
                id,
                &[Message::NoPack {
                    id: m.to_string(),
                    why: e.to_string(),
                }],
            ),
        }
    }

    /// A joiner accepted the header: it is sent the log so far and follows the match.
    fn admit(&mut self, id: u64, seat: Option<usize>) {
        let catalog = self.game.catalog();
        let mut out: Vec<Message> = self
            .log
            .iter()
            .enumerate()
            .map(|(i, s)| Message::Step(WireStep::from_step(i + 1, s, catalog)))
            .collect();
        // A player is told to play live once every remote seat has its joiner (at once on a
        // rejoin); until then it waits with the others.
        let now = seat.is_none() || self.started() || self.last_to_join(seat);
        if now {
            out.push(Message::Live);
        }
        let Some(address) = self.peers.get_mut(&id).map(|p| {
            p.state = State::Live(seat);
            p.acked = 0;
            p.live = now;
            p.address.clone()
        }) else {
            return;
        };
        self.send_to(id, &out);
        if !self.peers.contains_key(&id) {
            return;
        }
        let Some(s) = seat else {
            self.watcher.notice(&format!(
                "a spectator joined from {address} ({} steps so far)",
                self.log.len()
            ));
            return;
        };
        let name = seat_name(&self.header, s);
        let Some(r) = self.remote[s].as_mut() else {
            return;
        };
        r.peer = Some(id);
        let first = !r.joined;
        r.joined = true;
        let filled = std::mem::replace(&mut r.filled, false);
        let text = if filled {
            self.players[s] = Box::new(Elsewhere);
            format!("{name} is back from {address}: the bot leaves the seat")
        } else if first {
            format!("{name} joined from {address}")
        } else {
            format!("{name} rejoined from {address} at step {}", self.log.len())
        };
        self.notice_all(&text);
        if self.started() {
            let held: Vec<u64> = self
                .peers
                .iter()
                .filter(|(_, p)| matches!(p.state, State::Live(_)) && !p.live)
                .map(|(id, _)| *id)
                .collect();
            for id in held {
                if let Some(p) = self.peers.get_mut(&id) {
                    p.live = true;
                }
                self.send_to(id, &[Message::Live]);
            }
        }
    }

    /// Whether every remote seat has had its joiner: the match has started.
    fn started(&self) -> bool {
        self.remote.iter().flatten().all(|r| r.joined)
    }

    /// Whether `seat` is the one remote seat that never had its joiner.
    fn last_to_join(&self, seat: Option<usize>) -> bool {
        self.remote
            .iter()
            .enumerate()
            .all(|(i, r)| r.as_ref().is_none_or(|r| r.joined || Some(i) == seat))
    }

    /// A step played by the joiner of `seat`.
    fn remote_step(&mut self, id: u64, seat: usize, wire: WireStep) {
        if self.peers.get(&id).is_some_and(|p| !p.live) {
            return self.refuse(
                id,
                &format!(
                    "step {} came before `live`: the match starts once every seat has its joiner",
                    wire.number
                ),
            );
        }
        if self.game.current().map(|s| s.index()) != Some(seat) {
            let now = self.game.current().map_or("no one's".to_string(), |s| {
                format!("seat {}'s", s.index() + 1)
            });
            return self.refuse(
                id,
                &format!(
                    "step {} came from seat {} while it is {now} turn",
                    wire.number,
                    seat + 1
                ),
            );
        }
        if wire.number != self.log.len() + 1 {
            return self.refuse(
                id,
                &format!(
                    "step {} came where step {} was expected",
                    wire.number,
                    self.log.len() + 1
                ),
            );
        }
        let turn = self.game.turn_number();
        self.events.clear();
        let checked = match play_wire(&mut self.game, &wire, &mut *self.hooks, &mut self.events) {
            Ok(c) => c,
            Err(why) => {
                return self.refuse(
                    id,
                    &format!("the action of step {} cannot be read: {why}", wire.number),
                );
            }
        };
        match checked.found {
            Found::Refused(_) => self.found_desync(Pending {
                step: wire.number,
                turn,
                action: wire.action.clone(),
                by: seat,
                host: checked.found,
                peer: id,
                peer_name: String::new(),
                found: Found::State(wire.hash),
            }),
            Found::State(hash) => {
                if let Err(e) = self.played(checked.step, seat, turn, Some(id)) {
                    self.watcher.notice(&e.to_string());
                }
                self.send_to(
                    id,
                    &[Message::Hash {
                        step: wire.number,
                        hash,
                    }],
                );
                if let Some(p) = self.peers.get_mut(&id) {
                    p.acked = p.acked.max(wire.number);
                }
                if hash != wire.hash {
                    self.found_desync(Pending {
                        step: wire.number,
                        turn,
                        action: wire.action,
                        by: seat,
                        host: Found::State(hash),
                        peer: id,
                        peer_name: String::new(),
                        found: Found::State(wire.hash),
                    });
                }
            }
        }
    }

    /// A joiner's state hash after `step`.
    fn ack(&mut self, id: u64, step: usize, hash: u64) {
        let Some(acked) = self.peers.get(&id).map(|p| p.acked) else {
            return;
        };
        if step != acked + 1 || step > self.log.len() {
            return self.refuse(
                id,
                &format!(
                    "the hash of step {step} came where that of step {} was expected",
                    acked + 1
                ),
            );
        }
        if let Some(p) = self.peers.get_mut(&id) {
            p.acked = step;
        }
        let ours = self.log[step - 1].hash;
        if hash != ours {
            let action = encode_action(&self.log[step - 1].action, self.game.catalog());
            self.found_desync(Pending {
                step,
                turn: self.turns[step - 1],
                action,
                by: self.by[step - 1],
                host: Found::State(ours),
                peer: id,
                peer_name: String::new(),
                found: Found::State(hash),
            });
        }
    }

    /// Keeps the first desync found.
    fn found_desync(&mut self, mut pending: Pending) {
        if self.desync.is_none() {
            pending.peer_name = match self.peers.get(&pending.peer).map(|x| x.state) {
                Some(State::Live(Some(s))) => seat_name(&self.header, s),
                _ => "the joiner".to_string(),
            };
            self.desync = Some(pending);
        }
    }

    /// The current seat, played here.
    fn play_local(&mut self, seat: usize) -> Result<(), NetError> {
        let turn = self.game.turn_number();
        self.events.clear();
        let number = self.log.len() + 1;
        let (remote, peers, rx, backlog, catalog) = (
            &self.remote,
            &mut self.peers,
            &self.rx,
            &mut self.backlog,
            &self.catalog,
        );
        // A decision put to a seat a joiner plays is asked of that joiner.
        let mut elsewhere = |s: usize, action: &Action, picks: &[usize]| -> Option<usize> {
            let Some(Some(Remote {
                peer: Some(id),
                filled: false,
                ..
            })) = remote.get(s)
            else {
                return None;
            };
            let ask = Message::Ask(WireAsk::new((number, s), action, picks, catalog));
            let sent = peers
                .get_mut(id)
                .map(|p| send(&mut p.stream.stream(), &ask).is_ok());
            if sent != Some(true) {
                return Some(0);
            }
            await_answer(rx, backlog, *id, number)
        };
        let step = play_turn(
            &mut self.game,
            &mut self.players,
            seat,
            &mut *self.hooks,
            &mut self.legal,
            &mut self.events,
            (self.leave.as_ref(), &mut elsewhere),
        )?;
        self.played(step, seat, turn, None)
    }

    /// A step was played here or came from `from`: it goes into the log and the replay, to every
    /// other connection following the match, and to the watcher.
    fn played(
        &mut self,
        step: Step,
        seat: usize,
        turn: u16,
        from: Option<u64>,
    ) -> Result<(), NetError> {
        let number = self.log.len() + 1;
        let wire = Message::Step(WireStep::from_step(number, &step, self.game.catalog()));
        let others: Vec<u64> = self
            .peers
            .iter()
            .filter(|(id, p)| Some(**id) != from && matches!(p.state, State::Live(_)))
            .map(|(id, _)| *id)
            .collect();
        for id in others {
            self.send_to(id, std::slice::from_ref(&wire));
        }
        self.watcher.step(&self.game, number, &step, &self.events);
        let written = match self.recorder.as_mut() {
            Some(r) => r.step(&step, self.game.catalog()),
            None => Ok(()),
        };
        self.log.push(step);
        self.turns.push(turn);
        self.by.push(seat);
        self.told = None;
        written.map_err(|e| NetError::io("cannot write the replay", e))
    }

    /// The game is over: waits for every joiner's last hashes, sends `end`, and lets the
    /// connections close.
    fn finish(&mut self) -> Result<Outcome, NetError> {
        let deadline = Instant::now() + ANSWER_WITHIN;
        loop {
            let behind = self
                .peers
                .values()
                .any(|p| matches!(p.state, State::Live(Some(_))) && p.acked < self.log.len());
            if !behind {
                break;
            }
            match self
                .rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(incoming) => self.handle(incoming)?,
                Err(_) => {
                    self.watcher
                        .notice("a joiner did not send its last hashes in time");
                    break;
                }
            }
            if self.desync.is_some() {
                return Err(self.stop_desync());
            }
        }
        let live = self.live_peers();
        for id in &live {
            self.send_to(*id, &[Message::End]);
        }
        if let Some(r) = self.recorder.take() {
            r.finish()
                .map_err(|e| NetError::io("cannot write the replay", e))?;
        }
        // Each side closes once it has read `end`; closing first could lose it.
        for p in self.peers.values() {
            let _ = p.stream.stream().shutdown(Shutdown::Write);
        }
        let deadline = Instant::now() + CLOSE_WITHIN;
        while live.iter().any(|id| self.peers.contains_key(id)) {
            match self
                .rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(Incoming::Closed(id, _) | Incoming::Bad(id, _)) => {
                    self.peers.remove(&id);
                }
                Ok(Incoming::Connected(s)) => {
                    let _ = s.shutdown(Shutdown::Both);
                }
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
        }
        self.watcher.end(&self.game);
        let result = self
            .game
            .result()
            .ok_or_else(|| NetError::Protocol("the game ended with no result".to_string()))?;
        Ok(Outcome {
            result,
            steps: self.log.len(),
            hash: self.game.state_hash(),
        })
    }

    /// A desync was found: asks the side for its replay, saves both, stops the match and
    /// returns the report.
    fn stop_desync(&mut self) -> NetError {
        let Some(p) = self.desync.take() else {
            return NetError::Protocol("no desync to report".into());
        };
        let peer_name = p.peer_name.clone();
        let host_hash = match p.host {
            Found::State(h) => h,
            Found::Refused(_) => 0,
        };
        self.send_to(
            p.peer,
            &[Message::Desync {
                step: p.step,
                hash: host_hash,
            }],
        );
        let mut lines = Vec::new();
        let mut whole = false;
        let deadline = Instant::now() + ANSWER_WITHIN;
        while self.peers.contains_key(&p.peer) {
            match self
                .rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(Incoming::Frame(id, Message::ReplayLine(l))) if id == p.peer => lines.push(l),
                Ok(Incoming::Frame(id, Message::ReplayEnd)) if id == p.peer => {
                    whole = true;
                    break;
                }
                Ok(Incoming::Closed(id, _) | Incoming::Bad(id, _)) if id == p.peer => break,
                Ok(Incoming::Connected(s)) => {
                    let _ = s.shutdown(Shutdown::Both);
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let mut files = Vec::new();
        let host_file = with_suffix(&self.desync_name, ".host.replay");
        let host_text = crate::lockstep::replay_lines(&self.header, &self.log, self.game.catalog());
        match write_lines(&host_file, &host_text) {
            Ok(()) => files.push(host_file),
            Err(e) => self
                .watcher
                .notice(&format!("cannot save {}: {e}", host_file.display())),
        }
        if lines.is_empty() {
            self.watcher
                .notice(&format!("{peer_name} sent no replay of its side"));
        } else {
            if !whole {
                self.watcher
                    .notice(&format!("{peer_name}'s replay came cut short"));
            }
            let join_file = with_suffix(&self.desync_name, ".join.replay");
            match write_lines(&join_file, &lines) {
                Ok(()) => files.push(join_file),
                Err(e) => self
                    .watcher
                    .notice(&format!("cannot save {}: {e}", join_file.display())),
            }
        }
        let report = DesyncReport {
            step: p.step,
            turn: p.turn,
            action: p.action,
            by: seat_name(&self.header, p.by),
            host: p.host,
            peer: peer_name,
            found: p.found,
            files,
        };
        let stop = Message::Stop(report.to_string());
        let live: Vec<u64> = self.peers.keys().copied().collect();
        for id in live {
            self.send_to(id, std::slice::from_ref(&stop));
        }
        NetError::Desync(Box::new(report))
    }
}

/// The address joiners give for a host listening on `at`: `IP:PORT` when it listens on every
/// address of the machine, since `0.0.0.0` reaches it from nowhere else.
pub fn join_address(at: SocketAddr) -> String {
    if at.ip().is_unspecified() {
        format!("IP:{}", at.port())
    } else {
        at.to_string()
    }
}

/// `name` with `suffix` added to its file name (`game` and `.host.replay`: `game.host.replay`).
fn with_suffix(name: &Path, suffix: &str) -> PathBuf {
    let mut s = name.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Writes `lines` to a new file at `path`, one per line.
fn write_lines(path: &Path, lines: &[String]) -> std::io::Result<()> {
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(path, text)
}

/// The word a message's frame starts with, for messages about it.
fn kind(m: &Message) -> String {
    let frame = m.to_string();
    frame.split(' ').next().unwrap_or_default().to_string()
}
