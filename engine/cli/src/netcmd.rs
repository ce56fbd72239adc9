//! `hexforge host`, `hexforge join` and `hexforge serve`: matches over the network
//! (docs/NETWORK.md) through `hexforge_net`, printed as `hexforge match` prints a game.

use crate::matches::{Printer, Table, seat_teams};
use crate::terminal::Terminal;
use anyhow::{Context as _, Result, bail};
use hexforge_content::LoadedMods;
use hexforge_core::game::Player;
use hexforge_core::{AbilityHooks, Event, Game};
use hexforge_lab::unknown_bot;
use hexforge_net::relay::Relay;
use hexforge_net::{
    Content, Elsewhere, Fetching, Fill, Here, Hosting, Joining, Listen, NetError, Play, Watcher,
};
use hexforge_replay::{Header, Step};
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Who plays a seat, as `--seat N=...` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seat {
    /// The person at this terminal.
    Me,
    /// A bot, by name.
    Bot(String),
    /// A joiner.
    Remote,
}

impl Seat {
    /// How the match's first line names who plays the seat.
    fn label(&self) -> String {
        match self {
            Seat::Me => "you".to_string(),
            Seat::Bot(b) => format!("bot {b}"),
            Seat::Remote => "remote".to_string(),
        }
    }
}

/// Each seat's player from `--seat N=me|bot:NAME|remote` (seats from 1): seat 1 is the person at
/// this terminal and the others remote unless said otherwise.
pub fn seats(given: &[String], count: usize) -> Result<Vec<Seat>> {
    let mut seats: Vec<Seat> = (0..count)
        .map(|i| if i == 0 { Seat::Me } else { Seat::Remote })
        .collect();
    for g in given {
        let Some((n, who)) = g.split_once('=') else {
            bail!("`--seat {g}`: write N=me, N=bot:NAME or N=remote (seats from 1)");
        };
        let n: usize = n
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=count).contains(n))
            .with_context(|| {
                format!("`--seat {g}`: `{n}` is not a seat: this match has seats 1 to {count}")
            })?;
        seats[n - 1] = match who.trim() {
            "me" => Seat::Me,
            "remote" => Seat::Remote,
            w => match w.strip_prefix("bot:") {
                Some(b) => Seat::Bot(bot_checked(b)?.to_string()),
                None => bail!(
                    "`--seat {g}`: `{w}` is not a player: write me, bot:NAME ({}) or remote",
                    hexforge_bots::NAMES.join(", ")
                ),
            },
        };
    }
    Ok(seats)
}

/// `name` if it is a bot's name; else an error listing the bots.
fn bot_checked(name: &str) -> Result<&str> {
    if hexforge_bots::NAMES.contains(&name) {
        Ok(name)
    } else {
        Err(unknown_bot(name).into())
    }
}

/// The bot `name` seeded with `seed` (a name checked by [`bot_checked`]).
fn bot(name: &str, seed: u64) -> Box<dyn Player> {
    match hexforge_bots::by_name(name, seed) {
        Some(b) => b,
        None => Box::new(Elsewhere),
    }
}

/// What `hexforge host` was given.
pub struct HostArgs {
    /// An army per seat, in seat order.
    pub armies: Vec<String>,
    /// `--seat N=me|bot:NAME|remote`, as given.
    pub seats: Vec<String>,
    /// `--team` labels, one per seat.
    pub teams: Vec<String>,
    /// The match's seed.
    pub seed: u64,
    /// The rules and the board.
    pub table: Table,
    /// The address to listen on.
    pub bind: String,
    /// The port to listen on (0: any free one).
    pub port: u16,
    /// The relay to connect out to, instead of listening.
    pub relay: Option<String>,
    /// The match's code on the relay.
    pub code: Option<String>,
    /// The bot that plays a seat whose joiner left.
    pub fill_with_bot: Option<String>,
    /// Where the match's replay is written.
    pub replay: Option<PathBuf>,
    /// Only the result line and the news.
    pub quiet: bool,
    /// What the match is played with: the mods, versions, content hashes and engine version.
    pub content: String,
}

/// `hexforge host`: hosts a match until its end; a desync prints its report and exits 1.
pub fn host(
    args: HostArgs,
    loaded: &LoadedMods,
    scripts: &mut dyn AbilityHooks,
) -> Result<ExitCode> {
    let count = args.armies.len();
    if count < 2 {
        bail!("give at least two armies: --army moloch --army borgo");
    }
    let teams = seat_teams(&args.armies, &args.teams)?;
    let seats = seats(&args.seats, count)?;
    if let Some(b) = &args.fill_with_bot {
        bot_checked(b)?;
    }
    let (game_seed, bot_seeds) = hexforge_bots::match_seeds(args.seed, count);
    let mut header = hexforge_replay::header(
        args.table.setup(),
        &loaded.mods,
        args.armies.clone(),
        game_seed,
        args.seed,
    );
    header.teams = teams.unwrap_or_default();
    let plays = seats
        .iter()
        .zip(&bot_seeds)
        .map(|(s, seed)| match s {
            Seat::Me => Play::Local(Box::new(Terminal::new(Arc::new(loaded.catalog.clone())))),
            Seat::Bot(b) => Play::Local(bot(b, *seed)),
            Seat::Remote => Play::Remote,
        })
        .collect();
    let fill = args.fill_with_bot.clone().map(|name| Fill {
        name: name.clone(),
        make: Box::new(move |s| bot(&name, bot_seeds.get(s).copied().unwrap_or(0))),
    });
    let listen = match (&args.relay, &args.code) {
        (Some(address), Some(code)) => {
            if !hexforge_net::valid_code(code) {
                bail!("`--match {code}`: a match code is 1 to 64 letters, digits, `-`, `_` or `.`");
            }
            Listen::Relay {
                address: address.clone(),
                code: code.clone(),
            }
        }
        _ => Listen::Direct(
            TcpListener::bind((args.bind.as_str(), args.port)).with_context(|| {
                format!(
                    "cannot listen on {}:{} (--bind must be an address of this machine, e.g. 127.0.0.1 or 0.0.0.0, and the port a free one: choose another with --port, or 0 for any free one)",
                    args.bind, args.port
                )
            })?,
        ),
    };
    let hosting = Hosting {
        header,
        seats: plays,
        fill,
        replay: replay_file(args.replay.as_deref())?,
        desync_name: desync_name(args.replay.as_deref()),
        stop: None,
    };
    let content = Content {
        mods: &loaded.mods,
        catalog: Arc::new(loaded.catalog.clone()),
    };
    let mut show = Show::new(
        seats.iter().map(Seat::label).collect(),
        args.quiet,
        args.content,
    );
    finish(hexforge_net::host(
        hosting, listen, &content, scripts, &mut show,
    ))
}

/// What `hexforge join` was given.
pub struct JoinArgs {
    /// The host's or the relay's `HOST:PORT`.
    pub address: String,
    /// The seat asked for, from 1.
    pub seat: Option<usize>,
    /// Watch instead of playing a seat.
    pub watch: bool,
    /// The match's code on a relay.
    pub code: Option<String>,
    /// The bot that plays the seat (`None`: the person at the terminal).
    pub bot: Option<String>,
    /// Where this side's replay is written.
    pub replay: Option<PathBuf>,
    /// Only the result line and the news.
    pub quiet: bool,
    /// The testing aid `--debug-corrupt-after N`.
    pub corrupt_after: Option<usize>,
    /// What the match is played with here.
    pub content: String,
    /// `--fetch-mods`: fetch the host's mods that differ here (`None`: refuse the match).
    pub fetch: Option<FetchMods>,
}

/// How `hexforge join --fetch-mods` fetches, installs and loads the host's mods.
pub struct FetchMods {
    /// `--yes`: install without asking.
    pub yes: bool,
    /// The mods folders the content was loaded from, loaded again once the mods are installed.
    pub roots: Vec<PathBuf>,
    /// Where a mod not loaded here is installed: the user mods folder.
    pub user_mods: Option<PathBuf>,
    /// What the match is played with, as the log's `Content:` line says it.
    pub content_line: fn(&LoadedMods) -> String,
    /// `--portal URL`: fetch from this mod portal instead of the host.
    pub portal: Option<String>,
}

/// `hexforge join`: plays a seat (or watches) until the end; a desync prints its report and
/// exits 1.
pub fn join(
    args: JoinArgs,
    loaded: &LoadedMods,
    scripts: &mut dyn AbilityHooks,
) -> Result<ExitCode> {
    if let Some(b) = &args.bot {
        bot_checked(b)?;
    }
    if args.seat == Some(0) {
        bail!("`--seat 0`: seats are numbered from 1");
    }
    if let Some(code) = &args.code
        && !hexforge_net::valid_code(code)
    {
        bail!("`--match {code}`: a match code is 1 to 64 letters, digits, `-`, `_` or `.`");
    }
    let first = attempt(&args, loaded, scripts, args.fetch.as_ref())?;
    let Err(NetError::Fetched(lines)) = first else {
        return finish(first);
    };
    let Some(fetch) = &args.fetch else {
        return finish(Err(NetError::Fetched(lines)));
    };
    for l in &lines {
        say(l);
    }
    let mut roots = fetch.roots.clone();
    if let Some(u) = &fetch.user_mods
        && !roots.contains(u)
    {
        roots.push(u.clone());
    }
    let hexforge_script::Loaded {
        mods: again,
        mut scripts,
    } = hexforge_script::load(&roots, hexforge_script::Limits::default());
    for p in again.problems.iter() {
        say(&format!("problem: {p}"));
    }
    say("joining again with the mods installed");
    let args = JoinArgs {
        content: (fetch.content_line)(&again),
        ..args
    };
    finish(attempt(&args, &again, &mut scripts, None)?)
}

/// One attempt at joining with `loaded`: the match's outcome, or why it stopped (the outer
/// error is the command's own: a replay file that cannot be created).
fn attempt(
    args: &JoinArgs,
    loaded: &LoadedMods,
    scripts: &mut dyn AbilityHooks,
    fetch: Option<&FetchMods>,
) -> Result<Result<hexforge_net::Outcome, NetError>> {
    let label = args.bot.as_ref().map_or(Seat::Me, |b| Seat::Bot(b.clone()));
    let chosen = args.bot.clone();
    let catalog = Arc::new(loaded.catalog.clone());
    let fetching = fetch.map(|f| {
        let yes = f.yes;
        Fetching {
            confirm: Box::new(move |found: &[hexforge_net::Difference]| {
                let mut out = crate::plain::Plain::new(std::io::stdout().lock());
                let _ = writeln!(out, "the host's mods differ from those loaded here:");
                for d in found {
                    let _ = writeln!(out, "  {d}");
                }
                yes || crate::modcmd::confirm(
                    &mut out,
                    &mut std::io::stdin().lock(),
                    "fetch them from the host and install them (a mod folder replaced is kept in `.replaced/`)?",
                )
            }),
            // Without a user mods folder, a missing mod goes beside the first mods loaded.
            user_mods: f
                .user_mods
                .clone()
                .or_else(|| f.roots.first().cloned())
                .unwrap_or_default(),
            // With --portal, the archives come from the portal, that exact version.
            elsewhere: f.portal.clone().map(|address| -> hexforge_net::ArchiveSource<'_> {
                Box::new(hexforge_portal::Portal::exact_source(address, say))
            }),
        }
    });
    let joining = Joining {
        address: args.address.clone(),
        seat: args.seat.map(|s| s - 1),
        watch: args.watch,
        code: args.code.clone(),
        player: Box::new(move |seat, header: &Header| match &chosen {
            Some(b) => {
                let seed = header.match_seed.unwrap_or(header.seed);
                let seeds = hexforge_bots::match_seeds(seed, header.armies.len()).1;
                bot(b, seeds.get(seat).copied().unwrap_or(0))
            }
            None => Box::new(Terminal::new(catalog.clone())),
        }),
        replay: replay_file(args.replay.as_deref())?,
        corrupt_after: args.corrupt_after,
        fetch: fetching,
        stop: None,
    };
    let content = Content {
        mods: &loaded.mods,
        catalog: Arc::new(loaded.catalog.clone()),
    };
    let mut show = Show::new(Vec::new(), args.quiet, args.content.clone());
    show.me = label.label();
    Ok(hexforge_net::join(joining, &content, scripts, &mut show))
}

/// `hexforge serve`: a relay on `bind:port`, until the process is stopped.
pub fn serve(bind: &str, port: u16) -> Result<ExitCode> {
    let listener = TcpListener::bind((bind, port)).with_context(|| {
        format!("cannot listen on {bind}:{port} (--bind must be an address of this machine, e.g. 127.0.0.1 or 0.0.0.0, and the port a free one: choose another with --port, or 0 for any free one)")
    })?;
    let at = listener.local_addr()?;
    say(&format!(
        "relay listening on {at} (host with `hexforge host --relay {at} --match CODE`, join with `hexforge join {at} --match CODE`)"
    ));
    Relay::new(say).serve(listener);
    Ok(ExitCode::SUCCESS)
}

/// Prints a line of news (`net: ...`) at once.
fn say(text: &str) {
    let mut out = crate::plain::Plain::new(std::io::stdout().lock());
    let _ = writeln!(out, "net: {text}");
    let _ = out.flush();
}

/// How a hosted or joined match ended, as the command's exit: a desync is reported and exits 1;
/// other errors are the command's.
fn finish(r: Result<hexforge_net::Outcome, NetError>) -> Result<ExitCode> {
    match r {
        Ok(_) => Ok(ExitCode::SUCCESS),
        Err(NetError::Desync(report)) => {
            let mut out = crate::plain::Plain::new(std::io::stdout().lock());
            writeln!(out, "{report}")?;
            out.flush()?;
            Ok(ExitCode::FAILURE)
        }
        Err(e) => Err(e.into()),
    }
}

/// The replay file to write, created now so that a bad path fails before the match.
fn replay_file(path: Option<&Path>) -> Result<Option<Box<dyn Write>>> {
    match path {
        Some(p) => {
            let file = std::fs::File::create(p)
                .with_context(|| format!("cannot create {}", p.display()))?;
            Ok(Some(Box::new(file)))
        }
        None => Ok(None),
    }
}

/// Where both replays go on a desync: beside `--replay FILE` (its name without the extension),
/// else `hexforge-desync` in the current folder.
fn desync_name(replay: Option<&Path>) -> PathBuf {
    replay.map_or_else(
        || PathBuf::from("hexforge-desync"),
        |p| p.with_extension(""),
    )
}

/// Prints a match as `hexforge match` does, with the news of the network as `net: ...` lines.
struct Show {
    printer: Option<Printer>,
    /// Who plays each seat, at the host.
    labels: Vec<String>,
    /// Who plays the joiner's seat.
    me: String,
    quiet: bool,
    content: String,
    seed: u64,
}

impl Show {
    fn new(labels: Vec<String>, quiet: bool, content: String) -> Self {
        Show {
            printer: None,
            labels,
            me: "you".to_string(),
            quiet,
            content,
            seed: 0,
        }
    }

    fn print(
        &mut self,
        f: impl FnOnce(
            &mut crate::plain::Plain<std::io::StdoutLock<'_>>,
            &mut Option<Printer>,
        ) -> Result<()>,
    ) {
        let mut out = crate::plain::Plain::new(std::io::stdout().lock());
        // A closed standard output stops nothing: the match goes on for the other sides.
        let _ = f(&mut out, &mut self.printer);
        let _ = out.flush();
    }
}

impl Watcher for Show {
    fn listening(&mut self, at: &str) {
        match at.parse::<std::net::SocketAddr>() {
            Ok(a) if a.ip().is_unspecified() => say(&format!(
                "hosting on {at} (join with `hexforge join {}`, IP being an address of this machine)",
                hexforge_net::join_address(a)
            )),
            _ => say(&format!("hosting on {at} (join with `hexforge join {at}`)")),
        }
    }

    fn begin(&mut self, header: &Header, game: &Game, events: &[Event], here: Here) {
        let armies: Vec<&str> = header.armies.iter().map(String::as_str).collect();
        // Each side prints what its reader may see (docs/RULESETS.md, "Secrets"): a joiner its
        // seat's, a spectator what is public; the host its one person's seat, what is public when
        // several people share its screen, everything when only bots and remote players sit there.
        let reader = match here {
            Here::Seat(s) => hexforge_log::Reader::Player(hexforge_core::Seat::new(s as u8)),
            Here::Watch => hexforge_log::Reader::Table,
            Here::Host => {
                let people: Vec<usize> = (0..armies.len())
                    .filter(|i| self.labels.get(*i).is_some_and(|l| l == "you"))
                    .collect();
                match people.as_slice() {
                    [] => hexforge_log::Reader::Everyone,
                    [one] => hexforge_log::Reader::Player(hexforge_core::Seat::new(*one as u8)),
                    _ => hexforge_log::Reader::Table,
                }
            }
        };
        let printer = Printer::new(game, &armies, self.quiet).for_reader(reader);
        self.seed = header.match_seed.unwrap_or(header.seed);
        let labels: Vec<String> = (0..armies.len())
            .map(|i| match here {
                Here::Host => self.labels.get(i).cloned().unwrap_or_default(),
                Here::Seat(s) if s == i => self.me.clone(),
                _ => "remote".to_string(),
            })
            .collect();
        let who: Vec<String> = printer
            .names()
            .iter()
            .zip(&labels)
            .map(|(n, l)| format!("{n} ({l})"))
            .collect();
        let (quiet, seed, content) = (self.quiet, self.seed, self.content.clone());
        let rules = header.rules.clone();
        self.printer = Some(printer);
        self.print(|out, printer| {
            if !quiet {
                writeln!(
                    out,
                    "Match: {}; rules {rules}; seed {seed}",
                    who.join(" vs ")
                )?;
                writeln!(out, "Content: {content}")?;
                writeln!(out, "Setup: each player places their HQ")?;
            }
            if let Some(p) = printer {
                p.events(out, events)?;
            }
            Ok(())
        });
    }

    fn step(&mut self, _: &Game, _: usize, _: &Step, events: &[Event]) {
        self.print(|out, printer| match printer {
            Some(p) => p.events(out, events),
            None => Ok(()),
        });
    }

    fn notice(&mut self, text: &str) {
        say(text);
    }

    fn end(&mut self, game: &Game) {
        let seed = self.seed;
        self.print(|out, printer| {
            if let Some(p) = printer {
                p.result(out, game, seed)?;
            }
            writeln!(out, "State hash: {:016x}", game.state_hash())?;
            Ok(())
        });
    }
}
