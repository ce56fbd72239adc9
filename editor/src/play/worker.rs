//! A game of the Play view played on a thread of its own: the engine, the bots (who think there,
//! so the window never waits for them) and a Lua host of its own run on the worker; a person's
//! seat asks the window for each action and decision through a channel ([`Update`], [`Answer`]).
//! Every action is recorded into the game's replay file as it is played, so the game is saved at
//! every step and can be resumed from the file.

use hexforge_content::ModInfo;
use hexforge_core::decision::{Choice, Decision, Question};
use hexforge_core::game::{LegalActions, Player, Seats, next_action};
use hexforge_core::{
    AbilityHooks, Action, Battlefield, Catalog, Cell, Event, Game, GameResult, Seat,
};
use hexforge_replay::{Header, Recorder};
use std::cell::Cell as Flag;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::JoinHandle;

/// Who plays a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// A person at this window.
    Person,
    /// A bot, by name (`greedy`, `random`, `mc`).
    Bot(String),
    /// A player on another machine, over the network.
    Remote,
}

impl Who {
    /// The word the seat list shows: `person` or the bot's name.
    pub fn word(&self) -> &str {
        match self {
            Who::Person => "person",
            Who::Bot(b) => b,
            Who::Remote => "remote",
        }
    }
}

/// A decision of a battle or a play put to a person.
#[derive(Clone, Debug)]
pub struct Ask {
    /// What is decided.
    pub question: Question,
    /// The tile whose owner decides.
    pub by: Cell,
    /// The player who answers.
    pub player: Seat,
    /// The options, in the engine's order; the answer is an index into them.
    pub options: Vec<Choice>,
    /// The board as it stands when asked.
    pub field: Battlefield,
}

/// What the worker tells the window, in the order it happens.
#[derive(Debug)]
pub enum Update {
    /// The game is set up (a resumed game: after its recorded steps); `events` are those of the
    /// set-up, `path` the replay file it is recorded into.
    Started {
        /// The game before its next action.
        game: Box<Game>,
        /// The set-up's events (what the game rules' `setup` hooks did).
        events: Vec<Event>,
        /// The replay file.
        path: PathBuf,
        /// The steps already played (a resumed game's).
        resumed: usize,
        /// The army of each seat.
        armies: Vec<String>,
        /// Who plays each seat, as this side sees it.
        who: Vec<Who>,
    },
    /// News of a network match: listening, who joined or left, waiting for whom.
    Notice(String),
    /// A seat played an action.
    Acted {
        /// The board before the action, to show its battle from.
        before: Box<Battlefield>,
        /// Who played it.
        seat: Seat,
        /// The action.
        action: Action,
        /// What it did, in order.
        events: Vec<Event>,
        /// The game after it.
        after: Box<Game>,
    },
    /// A person's turn: pick one of `legal` and send [`Answer::Act`].
    Turn {
        /// The game as it stands.
        game: Box<Game>,
        /// The legal actions, in the engine's order.
        legal: Vec<Action>,
    },
    /// A person decides: send [`Answer::Decide`].
    Decide(Box<Ask>),
    /// The host's mods differ from those loaded here (a line each): fetch and install them?
    /// Send [`Answer::Confirm`].
    Confirm(Vec<String>),
    /// The host's mods were installed (a line each): load the content again and join again.
    Installed(Vec<String>),
    /// The game is over.
    Over(GameResult),
    /// The game stopped: a script failed, the engine refused an action, or the file cannot be
    /// written (the file keeps every step played before).
    Stopped(String),
}

/// What the window answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The index of the legal action picked.
    Act(usize),
    /// The index of the option picked.
    Decide(usize),
    /// Whether to fetch and install the host's mods that differ.
    Confirm(bool),
}

/// How a game starts: a new one, or one resumed from its replay file.
#[derive(Clone, Debug)]
pub enum Start {
    /// A new game with this header, recorded into a new file of the folder with this stem.
    New {
        /// The game's setup.
        header: Box<Header>,
        /// The replay folder.
        dir: PathBuf,
        /// The file name before `.txt` (`-2`, `-3`... is added when it is taken).
        stem: String,
    },
    /// The game of this replay file, played on from its last step and recorded on into it.
    Resume(PathBuf),
    /// A match hosted over the network (docs/NETWORK.md): its remote seats are played by
    /// joiners; recorded as [`Start::New`] is.
    Host {
        /// The match's setup.
        header: Box<Header>,
        /// The replay folder.
        dir: PathBuf,
        /// The file name before `.txt`.
        stem: String,
        /// The address to listen on and the port (0: any free one).
        listen: (String, u16),
    },
    /// A match hosted elsewhere, joined to play a seat; recorded into the replay folder.
    Join(JoinAt),
}

/// A game running on its worker, seen from the window.
pub struct Running {
    updates: Receiver<Update>,
    answers: Sender<Answer>,
    thread: Option<JoinHandle<()>>,
    /// Leaves a network match when the window leaves the game.
    stop: hexforge_net::Stop,
}

impl Running {
    /// Starts the game on a worker with the mods `mods` and their tiles `catalog` (the worker
    /// loads the mods' scripts into a Lua host of its own), the seats played by `who`.
    pub fn spawn(start: Start, mods: Vec<ModInfo>, catalog: Catalog, who: Vec<Who>) -> Running {
        let (tell, updates) = channel();
        let (answer, answers) = channel();
        let stop = hexforge_net::Stop::new();
        let leave = stop.clone();
        let thread = std::thread::Builder::new()
            .name("hexforge-play".to_string())
            .spawn(move || {
                let link = Link {
                    tell,
                    answers,
                    stopped: Flag::new(false),
                };
                if let Err(why) = play(start, &mods, catalog, &who, (&link, &leave)) {
                    let _ = link.tell.send(Update::Stopped(why));
                }
            })
            .ok();
        Running {
            updates,
            answers: answer,
            thread,
            stop,
        }
    }

    /// The next update, if one is waiting.
    pub fn poll(&self) -> Option<Update> {
        match self.updates.try_recv() {
            Ok(u) => Some(u),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => None,
        }
    }

    /// Whether the worker has ended (the game is over, stopped or left).
    pub fn ended(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Sends a person's answer.
    pub fn answer(&self, a: Answer) {
        let _ = self.answers.send(a);
    }
}

impl Drop for Running {
    /// Leaving a game stops its worker: a person's seat waiting for an answer sees the window
    /// gone and the worker ends without recording more.
    fn drop(&mut self) {
        self.stop.stop();
        let (dead, _) = channel();
        self.answers = dead;
        // The worker ends at its next question; a bot thinking finishes its move first.
        drop(self.thread.take());
    }
}

/// The worker's end of the channels; `stopped` is set once the window is gone.
struct Link {
    tell: Sender<Update>,
    answers: Receiver<Answer>,
    stopped: Flag<bool>,
}

impl Link {
    /// Waits for an answer of the kind `pick` accepts; `None` (and stopped) when the window left.
    fn wait(&self, pick: impl Fn(Answer) -> Option<usize>) -> Option<usize> {
        loop {
            match self.answers.recv() {
                Ok(a) => {
                    if let Some(i) = pick(a) {
                        return Some(i);
                    }
                }
                Err(_) => {
                    self.stopped.set(true);
                    return None;
                }
            }
        }
    }
}

/// A person's seat on the worker: asks the window.
struct Person<'l> {
    link: &'l Link,
}

impl Player for Person<'_> {
    fn act(&mut self, game: &Game, legal: &LegalActions, _: &mut dyn AbilityHooks) -> usize {
        if self.link.stopped.get() {
            return usize::MAX;
        }
        let sent = self.link.tell.send(Update::Turn {
            game: Box::new(game.clone()),
            legal: legal.to_vec(),
        });
        if sent.is_err() {
            self.link.stopped.set(true);
            return usize::MAX;
        }
        self.link
            .wait(|a| match a {
                Answer::Act(i) => Some(i),
                _ => None,
            })
            .unwrap_or(usize::MAX)
    }

    fn decide(&mut self, field: &Battlefield, decision: &Decision<'_>) -> usize {
        if self.link.stopped.get() {
            return 0;
        }
        let ask = Ask {
            question: decision.question,
            by: decision.by,
            player: decision.player,
            options: decision.options.to_vec(),
            field: field.clone(),
        };
        if self.link.tell.send(Update::Decide(Box::new(ask))).is_err() {
            self.link.stopped.set(true);
            return 0;
        }
        self.link
            .wait(|a| match a {
                Answer::Decide(i) => Some(i),
                _ => None,
            })
            .unwrap_or(0)
    }
}

/// Plays the game to its end (or until the window leaves), recording every step.
fn play(
    start: Start,
    mods: &[ModInfo],
    mut catalog: Catalog,
    who: &[Who],
    (link, stop): (&Link, &hexforge_net::Stop),
) -> Result<(), String> {
    let (mut host, _) =
        hexforge_script::ScriptHost::load(mods, &mut catalog, hexforge_script::Limits::default());
    // The host starts as a freshly loaded one does, as `hexforge match` starts it.
    host.reseed(0);
    let catalog = Arc::new(catalog);
    let content = hexforge_net::Content {
        mods,
        catalog: catalog.clone(),
    };
    let (mut game, events, path, mut recorder, (resumed, match_seed)) = match start {
        Start::Host {
            header,
            dir,
            stem,
            listen,
        } => {
            return host_match(
                (*header, dir, stem, listen),
                &content,
                &mut host,
                who,
                (link, stop),
            );
        }
        Start::Join(at) => {
            return join_match(at, &content, &mut host, (link, stop));
        }
        Start::New { header, dir, stem } => {
            let mut events = Vec::new();
            let game = hexforge_replay::start_noted(
                &header,
                mods,
                catalog.clone(),
                &mut host,
                &mut events,
            )
            .map_err(|e| e.to_string())?;
            let (path, file) = crate::replays::folder::create_new(&dir, &stem)
                .map_err(|e| format!("cannot create a replay in {}: {e}", dir.display()))?;
            let recorder = Recorder::new(BufWriter::new(file), &header)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let seed = header.match_seed.unwrap_or(header.seed);
            (game, events, path, recorder, (0, seed))
        }
        Start::Resume(path) => {
            let (game, events, recorder, n) = resume(&path, mods, catalog.clone(), &mut host)?;
            (game, events, path, recorder, n)
        }
    };
    let seats = game.field().players().count();
    if seats != who.len() {
        return Err(format!(
            "the game has {seats} seats but {} players were given",
            who.len()
        ));
    }
    let _ = link.tell.send(Update::Started {
        armies: armies_of(&game),
        game: Box::new(game.clone()),
        events,
        path: path.clone(),
        resumed,
        who: who.to_vec(),
    });
    let (_, bot_seeds) = hexforge_bots::match_seeds(match_seed, who.len());
    let mut owned: Vec<Box<dyn Player + '_>> = Vec::new();
    for (w, seed) in who.iter().zip(bot_seeds) {
        owned.push(match w {
            Who::Person => Box::new(Person { link }),
            Who::Bot(name) => bot(name, seed)?,
            Who::Remote => {
                return Err("a remote seat is played over the network: host the match".into());
            }
        });
    }
    let mut players: Vec<&mut dyn Player> = owned
        .iter_mut()
        .map(|p| p.as_mut() as &mut dyn Player)
        .collect();
    let mut legal = LegalActions::new();
    while let Some(action) = next_action(&game, &mut players, &mut host, &mut legal) {
        if link.stopped.get() {
            return Ok(());
        }
        let seat = game.current().unwrap_or(Seat::new(0));
        let before = Box::new(game.field().clone());
        let mut events = Vec::new();
        let step = hexforge_replay::act_noted(
            &mut game,
            action,
            &mut host,
            &mut Seats {
                players: &mut players,
            },
            &mut events,
        )
        .map_err(|e| match e {
            hexforge_core::ActionError::Hook(h) => format!("an ability script failed: {h}"),
            e => format!("the engine refused an action it listed as legal: {e}"),
        })?;
        // A decision left unanswered: the step is not recorded.
        if link.stopped.get() {
            return Ok(());
        }
        recorder
            .step(&step, game.catalog())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let sent = link.tell.send(Update::Acted {
            before,
            seat,
            action,
            events,
            after: Box::new(game.clone()),
        });
        if sent.is_err() {
            return Ok(());
        }
    }
    recorder
        .finish()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    match game.result() {
        Some(r) => {
            let _ = link.tell.send(Update::Over(r));
        }
        // The game goes on with nothing listed: the rules left the player no action.
        None => return Err(game.nothing_open().to_string()),
    }
    Ok(())
}

/// The bot `name`, seeded.
fn bot(name: &str, seed: u64) -> Result<Box<dyn Player>, String> {
    hexforge_bots::by_name(name, seed)
        .map(|b| b as Box<dyn Player>)
        .ok_or_else(|| {
            format!(
                "unknown bot `{name}`: use one of {}",
                hexforge_bots::NAMES.join(", ")
            )
        })
}

/// The army of each seat of `game`.
fn armies_of(game: &Game) -> Vec<String> {
    game.field()
        .players()
        .map(|s| game.army(s).to_string())
        .collect()
}

/// Tells the window what a network match does, as the worker's own games do.
struct ToWindow<'l> {
    link: &'l Link,
    path: PathBuf,
    /// Who plays each seat here (a joiner learns it from the header).
    who: Option<Vec<Who>>,
    /// The game before the next step, to show its battle from.
    last: Option<Game>,
}

impl hexforge_net::Watcher for ToWindow<'_> {
    fn listening(&mut self, at: &str) {
        let _ = self.link.tell.send(Update::Notice(format!(
            "hosting on {at}: a friend joins with `hexforge join {at}` or from the Play tab"
        )));
    }

    fn begin(&mut self, header: &Header, game: &Game, events: &[Event], here: hexforge_net::Here) {
        let who = self.who.clone().unwrap_or_else(|| {
            (0..header.armies.len())
                .map(|i| match here {
                    hexforge_net::Here::Seat(s) if s == i => Who::Person,
                    _ => Who::Remote,
                })
                .collect()
        });
        let _ = self.link.tell.send(Update::Started {
            game: Box::new(game.clone()),
            events: events.to_vec(),
            path: self.path.clone(),
            resumed: 0,
            armies: header.armies.clone(),
            who,
        });
        self.last = Some(game.clone());
    }

    fn step(&mut self, game: &Game, _: usize, step: &hexforge_replay::Step, events: &[Event]) {
        let before = self.last.replace(game.clone());
        let seat = before
            .as_ref()
            .and_then(Game::current)
            .unwrap_or(Seat::new(0));
        let field = before.map_or_else(|| game.field().clone(), |g| g.field().clone());
        let _ = self.link.tell.send(Update::Acted {
            before: Box::new(field),
            seat,
            action: step.action,
            events: events.to_vec(),
            after: Box::new(game.clone()),
        });
    }

    fn notice(&mut self, text: &str) {
        let _ = self.link.tell.send(Update::Notice(text.to_string()));
    }

    fn end(&mut self, game: &Game) {
        if let Some(r) = game.result() {
            let _ = self.link.tell.send(Update::Over(r));
        }
    }
}

/// A network match ended: a stop asked by the window is no error.
fn net_ended(
    r: Result<hexforge_net::Outcome, hexforge_net::NetError>,
    stop: &hexforge_net::Stop,
) -> Result<(), String> {
    match r {
        Ok(_) => Ok(()),
        Err(_) if stop.stopped() => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Hosts a match: the seats played here by people and bots, the remote ones by joiners.
fn host_match(
    (header, dir, stem, (bind, port)): (Header, PathBuf, String, (String, u16)),
    content: &hexforge_net::Content<'_>,
    hooks: &mut dyn AbilityHooks,
    who: &[Who],
    (link, stop): (&Link, &hexforge_net::Stop),
) -> Result<(), String> {
    if !who.contains(&Who::Remote) {
        return Err("a hosted match has a remote seat at least".to_string());
    }
    let listener = std::net::TcpListener::bind((bind.as_str(), port)).map_err(|e| {
        format!("cannot listen on {bind}:{port}: {e} (choose another port, or 0 for any free one)")
    })?;
    let (path, file) = crate::replays::folder::create_new(&dir, &stem)
        .map_err(|e| format!("cannot create a replay in {}: {e}", dir.display()))?;
    let (_, seeds) = hexforge_bots::match_seeds(
        header.match_seed.unwrap_or(header.seed),
        header.armies.len(),
    );
    let mut seats = Vec::new();
    for (w, seed) in who.iter().zip(seeds) {
        seats.push(match w {
            Who::Person => hexforge_net::Play::Local(Box::new(Person { link })),
            Who::Bot(name) => hexforge_net::Play::Local(bot(name, seed)?),
            Who::Remote => hexforge_net::Play::Remote,
        });
    }
    let hosting = hexforge_net::Hosting {
        header,
        seats,
        fill: None,
        replay: Some(Box::new(BufWriter::new(file))),
        desync_name: path.with_extension(""),
        stop: Some(stop.clone()),
    };
    let mut watcher = ToWindow {
        link,
        path,
        who: Some(who.to_vec()),
        last: None,
    };
    let r = hexforge_net::host(
        hosting,
        hexforge_net::Listen::Direct(listener),
        content,
        hooks,
        &mut watcher,
    );
    net_ended(r, stop)
}

/// A match hosted elsewhere to join ([`Start::Join`]).
#[derive(Clone, Debug)]
pub struct JoinAt {
    /// The host's `HOST:PORT`.
    pub address: String,
    /// The seat asked for, from 0 (`None`: the first free one).
    pub seat: Option<usize>,
    /// The replay folder.
    pub dir: PathBuf,
    /// Fetch the host's mods that differ, after asking ([`Update::Confirm`]): a mod not loaded
    /// here goes into this mods folder (`None`: refuse the match when they differ).
    pub fetch_into: Option<PathBuf>,
    /// The mod portal to fetch them from, the exact versions the host plays (`None`: from the
    /// host).
    pub portal: Option<String>,
}

/// Joins a match hosted elsewhere: the seat the host gives is played by the person here.
fn join_match(
    JoinAt {
        address,
        seat,
        dir,
        fetch_into,
        portal,
    }: JoinAt,
    content: &hexforge_net::Content<'_>,
    hooks: &mut dyn AbilityHooks,
    (link, stop): (&Link, &hexforge_net::Stop),
) -> Result<(), String> {
    let (path, file) = crate::replays::folder::create_new(&dir, "play-joined")
        .map_err(|e| format!("cannot create a replay in {}: {e}", dir.display()))?;
    let fetch = fetch_into.map(|user_mods| hexforge_net::Fetching {
        confirm: Box::new(move |found: &[hexforge_net::Difference]| {
            let lines = found.iter().map(ToString::to_string).collect();
            link.tell.send(Update::Confirm(lines)).is_ok()
                && link
                    .wait(|a| match a {
                        Answer::Confirm(yes) => Some(usize::from(yes)),
                        _ => None,
                    })
                    .is_some_and(|yes| yes == 1)
        }),
        user_mods,
        // From a portal: the exact versions the host plays, each fetch noted in the log.
        elsewhere: portal.map(|address| -> hexforge_net::ArchiveSource<'_> {
            Box::new(hexforge_portal::Portal::exact_source(address, |said| {
                let _ = link.tell.send(Update::Notice(said.to_string()));
            }))
        }),
    });
    let joining = hexforge_net::Joining {
        address,
        seat,
        watch: false,
        code: None,
        player: Box::new(move |_, _| Box::new(Person { link }) as Box<dyn Player>),
        replay: Some(Box::new(BufWriter::new(file))),
        corrupt_after: None,
        fetch,
        stop: Some(stop.clone()),
    };
    let mut watcher = ToWindow {
        link,
        path: path.clone(),
        who: None,
        last: None,
    };
    let r = hexforge_net::join(joining, content, hooks, &mut watcher);
    // A join refused before the game leaves an empty file: it goes.
    if r.is_err() && std::fs::metadata(&path).is_ok_and(|m| m.len() == 0) {
        let _ = std::fs::remove_file(&path);
    }
    match r {
        Err(hexforge_net::NetError::Fetched(lines)) => {
            let _ = link.tell.send(Update::Installed(lines));
            Ok(())
        }
        r => net_ended(r, stop),
    }
}

/// The game of the replay file `path`, its recorded steps played again and checked, with a
/// recorder that goes on writing into the file, the number of steps played and the match seed
/// (the bots of a resumed game start afresh from it). The file is written again whole (into a new file
/// put in its place), so a step cut off when the game stopped is dropped, never continued.
#[allow(clippy::type_complexity)]
fn resume(
    path: &Path,
    mods: &[ModInfo],
    catalog: Arc<Catalog>,
    host: &mut dyn AbilityHooks,
) -> Result<(Game, Vec<Event>, Recorder<BufWriter<File>>, (usize, u64)), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let replay =
        hexforge_replay::parse(&text, &catalog).map_err(|e| format!("{}:{}", path.display(), e))?;
    if replay.complete {
        return Err(format!(
            "{}: this game is over; open it in the replay viewer",
            path.display()
        ));
    }
    let differ = hexforge_replay::mod_differences(mods, &replay.header.mods, &replay.header.files);
    if !differ.is_empty() {
        return Err(format!(
            "{}: the game was played with other mods than those loaded: {}",
            path.display(),
            differ.join("; ")
        ));
    }
    let mut events = Vec::new();
    let mut game = hexforge_replay::start_noted(
        &replay.header,
        mods,
        catalog.clone(),
        &mut *host,
        &mut events,
    )
    .map_err(|e| format!("{}: {e}", path.display()))?;
    for (n, step) in replay.steps.iter().enumerate() {
        hexforge_replay::apply(&mut game, step, &mut *host)
            .map_err(|e| format!("{}: step {} is refused: {e}", path.display(), n + 1))?;
        if game.state_hash() != step.hash {
            return Err(format!(
                "{}: step {} gives another state than recorded (the file was changed, or the \
                 engine differs)",
                path.display(),
                n + 1
            ));
        }
    }
    // Written whole beside the file, then put in its place: the old file stays whole until then.
    let fresh = path.with_extension("txt.resuming");
    let write = || -> std::io::Result<()> {
        let mut r = Recorder::new(BufWriter::new(File::create(&fresh)?), &replay.header)?;
        for step in &replay.steps {
            r.step(step, &catalog)?;
        }
        let out = r.into_inner()?;
        out.get_ref().sync_all()?;
        drop(out);
        std::fs::rename(&fresh, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&fresh);
        format!("cannot write {}: {e}", path.display())
    })?;
    let file = File::options()
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok((
        game,
        events,
        Recorder::append(BufWriter::new(file)),
        (
            replay.steps.len(),
            replay.header.match_seed.unwrap_or(replay.header.seed),
        ),
    ))
}
