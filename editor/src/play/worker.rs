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
}

impl Who {
    /// The word the seat list shows: `person` or the bot's name.
    pub fn word(&self) -> &str {
        match self {
            Who::Person => "person",
            Who::Bot(b) => b,
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
    },
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
}

/// A game running on its worker, seen from the window.
pub struct Running {
    updates: Receiver<Update>,
    answers: Sender<Answer>,
    thread: Option<JoinHandle<()>>,
}

impl Running {
    /// Starts the game on a worker with the mods `mods` and their tiles `catalog` (the worker
    /// loads the mods' scripts into a Lua host of its own), the seats played by `who`.
    pub fn spawn(start: Start, mods: Vec<ModInfo>, catalog: Catalog, who: Vec<Who>) -> Running {
        let (tell, updates) = channel();
        let (answer, answers) = channel();
        let thread = std::thread::Builder::new()
            .name("hexforge-play".to_string())
            .spawn(move || {
                let link = Link {
                    tell,
                    answers,
                    stopped: Flag::new(false),
                };
                if let Err(why) = play(start, &mods, catalog, &who, &link) {
                    let _ = link.tell.send(Update::Stopped(why));
                }
            })
            .ok();
        Running {
            updates,
            answers: answer,
            thread,
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
                Answer::Decide(_) => None,
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
                Answer::Act(_) => None,
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
    link: &Link,
) -> Result<(), String> {
    let (mut host, _) =
        hexforge_script::ScriptHost::load(mods, &mut catalog, hexforge_script::Limits::default());
    // The host starts as a freshly loaded one does, as `hexforge match` starts it.
    host.reseed(0);
    let catalog = Arc::new(catalog);
    let (mut game, events, path, mut recorder, (resumed, match_seed)) = match start {
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
        game: Box::new(game.clone()),
        events,
        path: path.clone(),
        resumed,
    });
    let (_, bot_seeds) = hexforge_bots::match_seeds(match_seed, who.len());
    let mut owned: Vec<Box<dyn Player + '_>> = Vec::new();
    for (w, seed) in who.iter().zip(bot_seeds) {
        owned.push(match w {
            Who::Person => Box::new(Person { link }),
            Who::Bot(name) => hexforge_bots::by_name(name, seed).ok_or_else(|| {
                format!(
                    "unknown bot `{name}`: use one of {}",
                    hexforge_bots::NAMES.join(", ")
                )
            })?,
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
    if let Some(r) = game.result() {
        let _ = link.tell.send(Update::Over(r));
    }
    Ok(())
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
    let differ = hexforge_replay::mod_differences(mods, &replay.header.mods);
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
