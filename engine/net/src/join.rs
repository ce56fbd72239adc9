//! Joining a match ([`join`]), as a player or a spectator: the handshake (the host's header
//! compared with this side's content, refused with every difference before the game starts),
//! the log so far played again with its hashes checked, then the match live, this side's seat
//! played here and its state hash sent after every step.

use crate::conn::Conn;
use crate::desync::{DesyncReport, Found};
use crate::error::NetError;
use crate::handshake::{Difference, differences, read_header};
use crate::lockstep::{
    Content, Elsewhere, Here, Outcome, Watcher, answer_for, play_turn, play_wire, replay_lines,
    seat_name,
};
use crate::message::{Hello, Message, Role, WireAsk, WireStep};
use hexforge_core::game::{LegalActions, Player};
use hexforge_core::{AbilityHooks, Action, Catalog, Event, Game, Rng};
use hexforge_replay::{Header, Recorder, Step, decode_action, start_noted};
use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

/// How long the host has to answer the handshake.
const HANDSHAKE_WITHIN: Duration = Duration::from_secs(60);
/// The seed of the reshuffle `--debug-corrupt-after` makes.
const CORRUPT_SEED: u64 = 0xdead_5eed;
/// How long a joiner that refused the match waits for the host to close the connection.
const REFUSED_WITHIN: Duration = Duration::from_secs(10);

/// Makes the player of the seat a joiner is given (from 0), knowing the match's header.
pub type MakePlayer<'a> = Box<dyn FnMut(usize, &Header) -> Box<dyn Player + 'a> + 'a>;

/// Asked once with the differences a fetch would mend: `true` fetches.
pub type Confirm<'a> = Box<dyn FnMut(&[Difference]) -> bool + 'a>;

/// Fetching the mods a joiner lacks from the host (docs/NETWORK.md, "Mods that travel with the
/// match").
pub struct Fetching<'a> {
    /// Asked once with every difference found (each a mod the host plays that is missing here
    /// or differs): `true` fetches, checks and installs them; `false` refuses the match.
    pub confirm: Confirm<'a>,
    /// Where a fetched mod that is not loaded here goes (the user mods folder); a mod loaded
    /// here is replaced in its own mods folder.
    pub user_mods: std::path::PathBuf,
    /// Where the archives come from instead of the host (a mod portal, docs/PORTAL.md): given
    /// the id and version the host plays, the archive's bytes, or why not. `None`: the host.
    pub elsewhere: Option<ArchiveSource<'a>>,
}

/// Fetches the archive of a mod (id, version) from somewhere else than the host.
pub type ArchiveSource<'a> = Box<dyn FnMut(&str, &str) -> Result<Vec<u8>, String> + 'a>;

/// How to join a match.
pub struct Joining<'a> {
    /// The host's (or the relay's) `HOST:PORT`.
    pub address: String,
    /// The seat asked for, from 0 (`None`: the first free one).
    pub seat: Option<usize>,
    /// Watch the match instead of playing a seat.
    pub watch: bool,
    /// The match's code, on a relay.
    pub code: Option<String>,
    /// The player of the seat the host gives, made once the header is known (a bot's seed
    /// comes from its `match_seed`).
    pub player: MakePlayer<'a>,
    /// Where this side's replay is written, step by step (`None`: not written).
    pub replay: Option<Box<dyn Write + 'a>>,
    /// A testing aid: after this step, this side reshuffles its draw piles as a process whose
    /// random generator differed would, so that the next hash comparison finds a desync.
    pub corrupt_after: Option<usize>,
    /// Fetch the mods that differ from the host's (`None`: refuse the match when they differ).
    /// Once fetched and installed, the match is refused with [`NetError::Fetched`]: load the
    /// content again and join again.
    pub fetch: Option<Fetching<'a>>,
    /// Leaves the match from outside (`None`: it ends with the game or an error).
    pub stop: Option<crate::stop::Stop>,
}

/// Joins a match and follows it to its end: returns how it ended, or why it stopped (a refused
/// handshake naming every difference, a desync, the host gone).
pub fn join(
    joining: Joining<'_>,
    content: &Content<'_>,
    hooks: &mut dyn AbilityHooks,
    watcher: &mut dyn Watcher,
) -> Result<Outcome, NetError> {
    let Joining {
        address,
        seat,
        watch,
        code,
        mut player,
        replay,
        corrupt_after,
        mut fetch,
        stop,
    } = joining;
    let mut conn = Conn::connect(&address)?;
    if let Some(s) = &stop {
        s.watch(conn.stream());
    }
    conn.send(&Message::Hello(Hello {
        role: if watch {
            Role::Watch
        } else {
            Role::Join { seat }
        },
        code,
    }))?;
    match conn.recv_within(Some(HANDSHAKE_WITHIN))? {
        Message::Hello(Hello {
            role: Role::Host, ..
        }) => {}
        Message::Error(e) => return Err(NetError::Remote(e)),
        other => {
            return Err(NetError::Protocol(format!(
                "{address} did not answer as a Hexforge host: it sent `{other}`"
            )));
        }
    }
    let mut lines = Vec::new();
    let assigned = loop {
        match conn.recv()? {
            Message::Header(l) => lines.push(l),
            Message::Assign(a) => break a,
            Message::Error(e) => return Err(NetError::Remote(e)),
            other => {
                return Err(NetError::Protocol(format!(
                    "the host sent `{other}` in its header"
                )));
            }
        }
    };
    let header = match read_header(&lines, &content.catalog) {
        Ok(h) => h,
        Err(e) => {
            let why = format!("the host's header cannot be read here: {e}");
            refuse_header(&mut conn, why.clone());
            return Err(NetError::Header(why));
        }
    };
    let found = differences(&header, content.mods);
    let fetchable = found.iter().all(|d| {
        matches!(
            d,
            Difference::Missing { .. } | Difference::Version { .. } | Difference::Content { .. }
        )
    });
    if !found.is_empty()
        && fetchable
        && let Some(fetching) = fetch.as_mut()
        && (fetching.confirm)(&found)
    {
        return match fetch_mods(&mut conn, (&header, content.mods), &found, fetching) {
            Ok(installed) => {
                refuse_header(
                    &mut conn,
                    "fetched the host's mods that differ here: joining again with them".to_string(),
                );
                Err(NetError::Fetched(installed))
            }
            Err(e) => {
                refuse_header(&mut conn, format!("the mods could not be fetched: {e}"));
                Err(e)
            }
        };
    }
    if !found.is_empty() {
        let why = found
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        refuse_header(&mut conn, why);
        return Err(NetError::Refused(found));
    }
    if let Some(s) = assigned
        && s >= header.armies.len()
    {
        let why = format!(
            "the host gave seat {} of a match of {} seats",
            s + 1,
            header.armies.len()
        );
        conn.refuse(&why);
        return Err(NetError::Protocol(why));
    }
    let mut events = Vec::new();
    let game = match start_noted(
        &header,
        content.mods,
        content.catalog.clone(),
        hooks,
        &mut events,
    ) {
        Ok(g) => g,
        Err(e) => {
            refuse_header(&mut conn, format!("the match cannot be set up here: {e}"));
            return Err(NetError::Start(e));
        }
    };
    conn.send(&Message::Accept)?;
    let _ = conn.stream().set_read_timeout(None);
    let mut players: Vec<Box<dyn Player + '_>> = (0..header.armies.len())
        .map(|_| Box::new(Elsewhere) as Box<dyn Player>)
        .collect();
    if let Some(s) = assigned {
        players[s] = player(s, &header);
    }
    let here = assigned.map_or(Here::Watch, Here::Seat);
    watcher.begin(&header, &game, &events, here);
    watcher.notice(&match assigned {
        Some(s) => format!("joined {address} as {}", seat_name(&header, s)),
        None => format!("watching {address}"),
    });
    let recorder = match replay {
        Some(out) => Some(
            Recorder::new(out, &header).map_err(|e| NetError::io("cannot write the replay", e))?,
        ),
        None => None,
    };
    let mut side = Side {
        conn,
        header,
        game,
        seat: assigned,
        players,
        hooks,
        watcher,
        recorder,
        log: Vec::new(),
        turns: Vec::new(),
        by: Vec::new(),
        corrupt_after,
        diverged: None,
        events: Vec::new(),
        legal: LegalActions::new(),
        stop,
        catalog: content.catalog.clone(),
        pending: VecDeque::new(),
    };
    side.run()
}

/// Fetches from the host the archive of every mod of `found` (each one the header names),
/// checks it and installs it: a mod of `loaded` in its own mods folder, another in the user
/// mods folder `fetching` gives; gives a line per mod installed.
fn fetch_mods(
    conn: &mut Conn,
    (header, loaded): (&Header, &[hexforge_content::ModInfo]),
    found: &[Difference],
    fetching: &mut Fetching<'_>,
) -> Result<Vec<String>, NetError> {
    use hexforge_content::archive;
    let mut installed = Vec::new();
    for d in found {
        let (Difference::Missing { id, .. }
        | Difference::Version { id, .. }
        | Difference::Content { id, .. }) = d
        else {
            continue;
        };
        let version = header
            .mods
            .iter()
            .find(|(i, _, _)| i == id)
            .map(|(_, v, _)| v.clone())
            .unwrap_or_default();
        let mut bytes: Vec<u8> = Vec::new();
        if let Some(from) = fetching.elsewhere.as_mut() {
            bytes = from(id, &version)
                .map_err(|e| NetError::Fetch(format!("`{id}` {version}: {e}")))?;
        } else {
            conn.send(&Message::Fetch(id.clone()))?;
        }
        while fetching.elsewhere.is_none() {
            match conn.recv_within(Some(HANDSHAKE_WITHIN))? {
                Message::Pack { id: got, bytes: b } if got == *id => {
                    bytes.extend_from_slice(&b);
                    if bytes.len() > archive::MAX_BYTES + 64 * 1024 {
                        return Err(NetError::Fetch(format!(
                            "the host's archive of `{id}` is larger than an archive may be"
                        )));
                    }
                }
                Message::Packed { id: got, size } if got == *id => {
                    if size != bytes.len() {
                        return Err(NetError::Fetch(format!(
                            "the host's archive of `{id}` came as {} bytes, not the {size} it said",
                            bytes.len()
                        )));
                    }
                    break;
                }
                Message::NoPack { id: got, why } if got == *id => {
                    return Err(NetError::Fetch(format!(
                        "the host does not send `{id}`: {why}"
                    )));
                }
                Message::Error(e) => return Err(NetError::Remote(e)),
                other => {
                    let kind = other.to_string();
                    let kind = kind.split(' ').next().unwrap_or_default();
                    return Err(NetError::Protocol(format!(
                        "the host sent a `{kind}` frame while sending mod `{id}`"
                    )));
                }
            }
        }
        let got = archive::read(&bytes).map_err(|e| {
            NetError::Fetch(format!("the host's archive of `{id}` is refused: {e}"))
        })?;
        if got.id != *id || got.version != version {
            return Err(NetError::Fetch(format!(
                "asked for `{id}` {version}, the host sent `{}` {}",
                got.id, got.version
            )));
        }
        // A mod loaded here is replaced where it is; a missing one goes to the user mods.
        let into = loaded
            .iter()
            .find(|m| m.id == *id)
            .and_then(|m| m.dir.parent().map(std::path::Path::to_path_buf))
            .unwrap_or_else(|| fetching.user_mods.clone());
        let done = archive::install(&got, &into, None)
            .map_err(|e| NetError::Fetch(format!("`{id}` is not installed: {e}")))?;
        installed.push(match done.set_aside {
            Some(old) => format!(
                "installed `{id}` {version} into {} (the folder it replaced is kept in {})",
                done.dir.display(),
                old.display()
            ),
            None => format!("installed `{id}` {version} into {}", done.dir.display()),
        });
    }
    Ok(installed)
}

/// Refuses the host's match with `why`, and waits (a little) for the host to close the
/// connection, so that the seat is free again when this returns.
fn refuse_header(conn: &mut Conn, why: String) {
    if conn.send(&Message::Refuse(why)).is_ok() {
        while conn.recv_within(Some(REFUSED_WITHIN)).is_ok() {}
    }
}

/// The first step after which this side's state differs from the host's: its number, the
/// host's hash and this side's.
struct Diverged {
    step: usize,
    host: u64,
    here: u64,
}

/// A joined match in progress.
struct Side<'a, 's> {
    conn: Conn,
    header: Header,
    game: Game,
    /// The seat played here (`None`: watching).
    seat: Option<usize>,
    players: Vec<Box<dyn Player + 'a>>,
    hooks: &'s mut dyn AbilityHooks,
    watcher: &'s mut dyn Watcher,
    recorder: Option<Recorder<Box<dyn Write + 'a>>>,
    /// Every step, with this side's hashes.
    log: Vec<Step>,
    turns: Vec<u16>,
    by: Vec<usize>,
    corrupt_after: Option<usize>,
    diverged: Option<Diverged>,
    events: Vec<Event>,
    legal: LegalActions,
    stop: Option<crate::stop::Stop>,
    /// The tiles, to write the actions of decisions asked.
    catalog: Arc<Catalog>,
    /// Messages that came while a decision was asked, read before the connection.
    pending: VecDeque<Message>,
}

impl Side<'_, '_> {
    fn run(&mut self) -> Result<Outcome, NetError> {
        let mut live = false;
        loop {
            if let Some(seat) = self.seat
                && live
                && self.diverged.is_none()
                && self.game.result().is_none()
                && self.game.current().map(|s| s.index()) == Some(seat)
            {
                self.play_here(seat)?;
                continue;
            }
            let next = match self.pending.pop_front() {
                Some(m) => Ok(m),
                None => self.conn.recv(),
            };
            let message = match next {
                Ok(m) => m,
                Err(_) if self.stop.as_ref().is_some_and(crate::stop::Stop::stopped) => {
                    return Err(NetError::Stopped("this side left the match".to_string()));
                }
                Err(NetError::Frame(crate::frame::FrameError::Closed)) => {
                    return Err(self.host_gone("the host closed the connection"));
                }
                Err(e @ NetError::Frame(_)) => return Err(self.host_gone(&e.to_string())),
                Err(e) => {
                    self.conn.refuse(&e.to_string());
                    return Err(e);
                }
            };
            match message {
                Message::Step(wire) => self.received(wire)?,
                Message::Hash { step, hash } => self.host_hash(step, hash)?,
                Message::Live => {
                    live = true;
                    if !self.log.is_empty() {
                        self.watcher.notice(&format!(
                            "caught up with the host: {} step{} played again, every state as the host's",
                            self.log.len(),
                            if self.log.len() == 1 { "" } else { "s" }
                        ));
                    }
                }
                Message::Notice(text) => self.watcher.notice(&text),
                Message::Ask(ask) => self.answer(ask)?,
                Message::End => return self.end(),
                Message::Desync { step, hash } => return Err(self.send_replay(step, hash)),
                Message::Stop(why) => {
                    return Err(match self.report(None) {
                        Some(report) => {
                            self.watcher
                                .notice(&format!("the host stopped the match: {why}"));
                            NetError::Desync(Box::new(report))
                        }
                        None => NetError::Stopped(why),
                    });
                }
                Message::Error(why) => return Err(NetError::Remote(why)),
                other => {
                    let why = format!("a `{other}` frame does not belong here");
                    self.conn.refuse(&why);
                    return Err(NetError::Protocol(why));
                }
            }
        }
    }

    /// The host asks this side's pick for a decision of the step being played: answered by the
    /// player of this side's seat (the first option when the ask is not for it).
    fn answer(&mut self, ask: WireAsk) -> Result<(), NetError> {
        let number = self.log.len() + 1;
        let pick = match (self.seat, decode_action(&ask.action, &self.catalog)) {
            (Some(seat), Ok(action)) if seat == ask.seat && ask.step == number => answer_for(
                &self.game,
                action,
                &ask.picks,
                seat,
                self.players[seat].as_mut(),
                &mut *self.hooks,
            ),
            _ => 0,
        };
        self.conn.send(&Message::Answer {
            step: ask.step,
            pick,
        })
    }

    /// This side's seat plays the current step.
    fn play_here(&mut self, seat: usize) -> Result<(), NetError> {
        let turn = self.game.turn_number();
        self.events.clear();
        let number = self.log.len() + 1;
        let (conn, pending, catalog) = (&mut self.conn, &mut self.pending, &self.catalog);
        // A decision put to another seat is asked of the host, which answers for its seats and
        // passes it on to the joiner of another.
        let mut elsewhere = |s: usize, action: &Action, picks: &[usize]| -> Option<usize> {
            if s == seat {
                return None;
            }
            let ask = Message::Ask(WireAsk::new((number, s), action, picks, catalog));
            if conn.send(&ask).is_err() {
                return Some(0);
            }
            let pick = loop {
                match conn.recv_within(Some(crate::lockstep::DECIDE_WITHIN)) {
                    Ok(Message::Answer { step, pick }) if step == number => break pick,
                    Ok(other) => pending.push_back(other),
                    Err(_) => break 0,
                }
            };
            let _ = conn.stream().set_read_timeout(None);
            Some(pick)
        };
        let mut step = play_turn(
            &mut self.game,
            &mut self.players,
            seat,
            &mut *self.hooks,
            &mut self.legal,
            &mut self.events,
            (self.stop.as_ref(), &mut elsewhere),
        )?;
        self.corrupt(number);
        step.hash = self.game.state_hash();
        self.conn.send(&Message::Step(WireStep::from_step(
            number,
            &step,
            self.game.catalog(),
        )))?;
        self.keep(step, seat, turn)
    }

    /// A step from the host: played here, its hash compared and answered.
    fn received(&mut self, wire: WireStep) -> Result<(), NetError> {
        let number = self.log.len() + 1;
        if wire.number != number {
            let why = format!("step {} came where step {number} was expected", wire.number);
            self.conn.refuse(&why);
            return Err(NetError::Protocol(why));
        }
        let turn = self.game.turn_number();
        let by = self.game.current().map_or(0, |s| s.index());
        self.events.clear();
        let checked = match play_wire(&mut self.game, &wire, &mut *self.hooks, &mut self.events) {
            Ok(c) => c,
            Err(why) => {
                let why = format!("the action of step {number} cannot be read here: {why}");
                self.conn.refuse(&why);
                return Err(NetError::Protocol(why));
            }
        };
        let mut step = match checked.found {
            Found::State(_) => checked.step,
            Found::Refused(why) => {
                // The state here allows no such action: the sides differ before this step.
                let report = DesyncReport {
                    step: number,
                    turn,
                    action: wire.action,
                    by: seat_name(&self.header, by),
                    host: Found::State(wire.hash),
                    peer: self.here_name(),
                    found: Found::Refused(why.clone()),
                    files: Vec::new(),
                };
                self.conn
                    .refuse(&format!("step {number} is refused here: {why}"));
                return Err(NetError::Desync(Box::new(report)));
            }
        };
        self.corrupt(number);
        step.hash = self.game.state_hash();
        if step.hash != wire.hash && self.diverged.is_none() {
            self.diverged = Some(Diverged {
                step: number,
                host: wire.hash,
                here: step.hash,
            });
        }
        let hash = step.hash;
        self.keep(step, by, turn)?;
        if self.seat.is_some() {
            self.conn.send(&Message::Hash { step: number, hash })?;
        } else if let Some(report) = self.report(None) {
            // A spectator has no one to tell: it stops here.
            return Err(NetError::Desync(Box::new(report)));
        }
        Ok(())
    }

    /// The host's hash after a step this side played.
    fn host_hash(&mut self, step: usize, hash: u64) -> Result<(), NetError> {
        let Some(ours) = self.log.get(step.wrapping_sub(1)).map(|s| s.hash) else {
            let why = format!("the hash of step {step} came before the step");
            self.conn.refuse(&why);
            return Err(NetError::Protocol(why));
        };
        if ours != hash && self.diverged.is_none() {
            self.diverged = Some(Diverged {
                step,
                host: hash,
                here: ours,
            });
        }
        Ok(())
    }

    /// A step played: into the log and the replay, and shown.
    fn keep(&mut self, step: Step, by: usize, turn: u16) -> Result<(), NetError> {
        let number = self.log.len() + 1;
        self.watcher.step(&self.game, number, &step, &self.events);
        let written = match self.recorder.as_mut() {
            Some(r) => r.step(&step, self.game.catalog()),
            None => Ok(()),
        };
        self.log.push(step);
        self.turns.push(turn);
        self.by.push(by);
        written.map_err(|e| NetError::io("cannot write the replay", e))
    }

    /// The testing aid: after step `number`, reshuffle the draw piles.
    fn corrupt(&mut self, number: usize) {
        if self.corrupt_after == Some(number) {
            self.game.shuffle_unknown(&mut Rng::seeded(CORRUPT_SEED));
            self.watcher.notice(&format!(
                "--debug-corrupt-after {number}: this side's draw piles were reshuffled after step {number}"
            ));
        }
    }

    /// This side, named in reports.
    fn here_name(&self) -> String {
        match self.seat {
            Some(s) => seat_name(&self.header, s),
            None => "this spectator".to_string(),
        }
    }

    /// The desync this side found, if any, as a report.
    fn report(&self, host: Option<(usize, u64)>) -> Option<DesyncReport> {
        let (step, host_hash, here) = match (&self.diverged, host) {
            (Some(d), _) => (d.step, d.host, d.here),
            (None, Some((step, hash))) => (step, hash, self.log.get(step.checked_sub(1)?)?.hash),
            (None, None) => return None,
        };
        let i = step.checked_sub(1)?;
        Some(DesyncReport {
            step,
            turn: *self.turns.get(i)?,
            action: hexforge_replay::encode_action(&self.log.get(i)?.action, self.game.catalog()),
            by: seat_name(&self.header, *self.by.get(i)?),
            host: Found::State(host_hash),
            peer: self.here_name(),
            found: Found::State(here),
            files: Vec::new(),
        })
    }

    /// The host found a desync at `step`: this side's replay goes to it, and the match stops.
    fn send_replay(&mut self, step: usize, hash: u64) -> NetError {
        let mut out: Vec<Message> = replay_lines(&self.header, &self.log, self.game.catalog())
            .into_iter()
            .map(Message::ReplayLine)
            .collect();
        out.push(Message::ReplayEnd);
        let sent = self.conn.send_many(&out);
        // The host's `stop` says where it saved both replays.
        if sent.is_ok()
            && let Ok(Message::Stop(why)) = self.conn.recv_within(Some(HANDSHAKE_WITHIN))
        {
            self.watcher
                .notice(&format!("the host stopped the match: {why}"));
        }
        match self.report(Some((step, hash))) {
            Some(report) => NetError::Desync(Box::new(report)),
            None => NetError::Stopped(format!("the host found a desync at step {step}")),
        }
    }

    /// The host said `end`: this side's game must be over too.
    fn end(&mut self) -> Result<Outcome, NetError> {
        if let Some(report) = self.report(None) {
            return Err(NetError::Desync(Box::new(report)));
        }
        let Some(result) = self.game.result() else {
            return Err(NetError::Protocol(format!(
                "the host ended the match after step {}, where the game goes on here",
                self.log.len()
            )));
        };
        if let Some(r) = self.recorder.take() {
            r.finish()
                .map_err(|e| NetError::io("cannot write the replay", e))?;
        }
        self.watcher.end(&self.game);
        Ok(Outcome {
            result,
            steps: self.log.len(),
            hash: self.game.state_hash(),
        })
    }

    /// The connection to the host ended before the match did.
    fn host_gone(&self, why: &str) -> NetError {
        match self.report(None) {
            Some(report) => NetError::Desync(Box::new(report)),
            None => NetError::Stopped(format!(
                "{why} after step {}, before the end of the match",
                self.log.len()
            )),
        }
    }
}
