//! The `hexforge` command line: runs scenario files, prints battles, plays matches between bots,
//! lists loaded armies.

mod balance;
mod matches;
mod modcmd;
mod netcmd;
mod plain;
mod portalcmd;
mod replaycmd;
mod terminal;
mod versions;

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use hexforge_content::LoadedMods;
use hexforge_scenario::{load_scenario_with_boards, run_scenario};
use hexforge_script::ScriptHost;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "hexforge",
    version,
    about = "Design, test and play hex-tile battle games"
)]
struct Cli {
    /// A mod folder, or a folder of mods, to load (repeatable). Default: the `mods/` folder of the
    /// Hexforge checkout the current folder is in, else of the one this binary was built from,
    /// and the user mods folder.
    #[arg(long = "mods", global = true, value_name = "DIR")]
    mods: Vec<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Runs scenario files, or every `.toml` below the given folders, and checks their outcomes.
    Scenario {
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Print the battle log of every scenario, not only of failures.
        #[arg(long)]
        verbose: bool,
    },
    /// Resolves the battle of a scenario file and prints it phase by phase.
    Battle {
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Lists the loaded armies with their tile counts, and any content problems.
    Armies,
    /// Prints every rule option (the engine's, then those the loaded mods declare) with its value
    /// and where the value comes from (default, preset, --option) and who owns the key.
    Rules {
        #[command(flatten)]
        table: TableArgs,
    },
    /// Mods: create, check and test one; list, explain, pack, install, remove; publish, search and update through a portal.
    Mods {
        #[command(subcommand)]
        action: ModsCommand,
    },
    /// Plays one whole game between bots and prints it turn by turn.
    Match {
        /// An army per player, in seat order (2 to 4).
        #[arg(long = "army", required = true, value_name = "ARMY")]
        armies: Vec<String>,
        /// A bot per player (random, greedy, mc, search); the last one given plays the remaining seats.
        #[arg(long = "bot", value_name = "BOT")]
        bots: Vec<String>,
        /// Each seat's team, in seat order, as a list (`--team 1,2,1,2`: the first and third
        /// armies against the second and fourth); players with the same label are allies. With
        /// 3 players, one alone against a team of two (R8.4); with 4, two teams of two (R8.5).
        /// Default: every player on their own.
        #[arg(long = "team", value_name = "TEAMS", value_delimiter = ',')]
        teams: Vec<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        table: TableArgs,
        /// Print only the result line.
        #[arg(long)]
        quiet: bool,
        /// After the result, print a hash of the final game state (`State hash: ` and 16 hex
        /// digits), the same for the same game in every process.
        #[arg(long)]
        hash: bool,
        /// Record the game in a replay file (docs/REPLAY_FORMAT.md), written action by action.
        #[arg(long, value_name = "FILE")]
        replay: Option<PathBuf>,
    },
    /// Plays replay files again and prints their logs; `--verify` checks every state hash.
    Replay {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Check the state after every action against the recorded hash; exit non-zero at the
        /// first difference.
        #[arg(long)]
        verify: bool,
        /// Replay even when the loaded mods differ from the recorded ones.
        #[arg(long)]
        force: bool,
        /// Print only the result line (and what verification found).
        #[arg(long)]
        quiet: bool,
        /// With --to-scenario: the number of actions to play before writing the board.
        #[arg(long, value_name = "STEP", requires = "to_scenario")]
        at: Option<usize>,
        /// Write the board after --at STEP actions as a scenario file (docs/SCENARIO_GAMES.md).
        #[arg(long, value_name = "OUT.toml", requires = "at")]
        to_scenario: Option<PathBuf>,
        /// A portal to fetch the exact versions of the mods the replay was recorded with, when
        /// neither the loaded mods nor the kept archives (`.versions/`) have them.
        #[arg(long, value_name = "URL")]
        portal: Option<String>,
    },
    /// Hosts a match over the network (docs/NETWORK.md): every seat is played here (by you at
    /// this terminal, or a bot) or by a joiner (`hexforge join`); prints the game as `hexforge
    /// match` does.
    Host {
        /// An army per player, in seat order (2 to 4).
        #[arg(long = "army", required = true, value_name = "ARMY")]
        armies: Vec<String>,
        /// Who plays a seat (from 1): `N=me` (you, at this terminal), `N=bot:NAME` (random,
        /// greedy, mc, search) or `N=remote` (a joiner); repeatable. Default: seat 1 is you, the others
        /// remote.
        #[arg(long = "seat", value_name = "N=me|bot:NAME|remote")]
        seats: Vec<String>,
        /// Each seat's team, in seat order, as `hexforge match --team` takes it.
        #[arg(long = "team", value_name = "TEAMS", value_delimiter = ',')]
        teams: Vec<String>,
        /// The match's seed: the game's shuffles and the bots' seeds, as `hexforge match --seed`.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        table: TableArgs,
        /// The port to listen on (0: any free port, printed at start).
        #[arg(long, default_value_t = 4717)]
        port: u16,
        /// The address to listen on.
        #[arg(long, default_value = "0.0.0.0", value_name = "IP")]
        bind: String,
        /// Connect out to a relay (`hexforge serve`) at ADDRESS instead of listening; needs
        /// --match.
        #[arg(long, value_name = "ADDRESS", requires = "code")]
        relay: Option<String>,
        /// The match's code on the relay; joiners give the same code.
        #[arg(long = "match", value_name = "CODE", requires = "relay")]
        code: Option<String>,
        /// When a joiner's connection drops, this bot plays the seat until the joiner rejoins
        /// (default: the match waits for the joiner).
        #[arg(long, value_name = "BOT")]
        fill_with_bot: Option<String>,
        /// Record the match in a replay file (docs/REPLAY_FORMAT.md), written action by action.
        #[arg(long, value_name = "FILE")]
        replay: Option<PathBuf>,
        /// Print only the result line (and the news of the network).
        #[arg(long)]
        quiet: bool,
    },
    /// Joins a hosted match (docs/NETWORK.md) as a player or a spectator, and prints it as
    /// `hexforge match` does. Run it again with the same seat to rejoin after a drop.
    Join {
        /// The host's address (`IP:PORT`), or the relay's with --match.
        #[arg(value_name = "ADDRESS")]
        address: String,
        /// The seat to play (from 1); default: the first free one.
        #[arg(long, value_name = "N")]
        seat: Option<usize>,
        /// Watch the match, read-only, from its start.
        #[arg(long, conflicts_with_all = ["seat", "bot"])]
        watch: bool,
        /// The match's code, when ADDRESS is a relay.
        #[arg(long = "match", value_name = "CODE")]
        code: Option<String>,
        /// Play the seat with this bot (random, greedy, mc, search) instead of at this terminal.
        #[arg(long, value_name = "BOT")]
        bot: Option<String>,
        /// Record the match as this side saw it in a replay file.
        #[arg(long, value_name = "FILE")]
        replay: Option<PathBuf>,
        /// Print only the result line (and the news of the network).
        #[arg(long)]
        quiet: bool,
        /// A testing aid (docs/NETWORK.md, "Testing a desync"): after step N, this side
        /// reshuffles its draw piles, so the next hash comparison finds a desync.
        #[arg(long, value_name = "N", hide = true)]
        debug_corrupt_after: Option<usize>,
        /// When the host's mods differ from those loaded here, fetch them from the host, check
        /// them and install them (after asking), then join with them (docs/NETWORK.md).
        #[arg(long)]
        fetch_mods: bool,
        /// With --fetch-mods: install without asking.
        #[arg(long, requires = "fetch_mods")]
        yes: bool,
        /// With --fetch-mods: fetch the versions the host plays from this mod portal
        /// (docs/PORTAL.md) instead of from the host.
        #[arg(long, value_name = "URL", requires = "fetch_mods")]
        portal: Option<String>,
    },
    /// The mod portal (docs/PORTAL.md): serve one, or add an author to one.
    Portal {
        #[command(subcommand)]
        action: PortalCommand,
    },
    /// Runs a relay (docs/NETWORK.md): hosts (`hexforge host --relay`) and joiners (`hexforge
    /// join ADDRESS --match CODE`) both connect out to it; many matches at once.
    Serve {
        /// The port to listen on (0: any free port, printed at start).
        #[arg(long, default_value_t = 4718)]
        port: u16,
        /// The address to listen on.
        #[arg(long, default_value = "0.0.0.0", value_name = "IP")]
        bind: String,
    },
    /// Balance: every pairing of the armies, each played by each bot in each seat equally, as a
    /// win/draw matrix with 95% intervals, each army's rate, the first seat's advantage, game
    /// length and HQ margin (docs/BALANCE.md); `--shard I/N --out FILE` plays a slice, `balance
    /// merge FILES` adds slices up.
    #[command(args_conflicts_with_subcommands = true)]
    Balance {
        #[command(subcommand)]
        merge: Option<BalanceCommand>,
        #[command(flatten)]
        args: BalanceArgs,
    },
    /// Plays many games between bots (every pairing of the armies by default) on every core and
    /// prints a table of wins and draws.
    Matches {
        /// Games of the whole series (at most 10,000,000), shared among the pairings as evenly
        /// as they go; with two bots, each pairing's games go round its four seatings (give
        /// each pairing a multiple of 4 for an exact balance)
        #[arg(long, default_value_t = 100, value_parser = match_games)]
        games: usize,
        /// The armies to pair (default: every loaded army); each pair of them plays, mirror
        /// matches only with --mirrors.
        #[arg(long = "army", value_name = "ARMY")]
        armies: Vec<String>,
        /// A pairing to play, `A:B` (repeatable; `A:A` for a mirror match): only these play.
        #[arg(long = "pair", value_name = "A:B")]
        pairs: Vec<String>,
        /// Every army also plays itself.
        #[arg(long)]
        mirrors: bool,
        /// The bots (default: random). With two different bots, each army of a pairing is played by
        /// each bot in each seat equally, and a table of the bots' wins follows.
        #[arg(long = "bot", value_name = "BOT")]
        bots: Vec<String>,
        /// Each army's team, in the order of --army (`--team 1,2,1,2`): every game then seats all
        /// the armies given, in that order, allies by team (R8.4, R8.5), and the table counts
        /// each team's wins. Default: two-player pairings.
        #[arg(long = "team", value_name = "TEAMS", value_delimiter = ',')]
        teams: Vec<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        table: TableArgs,
        /// Record every game in this folder (`game-00000.txt`, ...), to replay or verify later.
        #[arg(long, value_name = "DIR")]
        replays: Option<PathBuf>,
    },
}

/// `hexforge balance merge`.
#[derive(Subcommand)]
enum BalanceCommand {
    /// Adds up the result files of a series' shards (refused, nothing merged, when they come
    /// from different series or a shard is missing or given twice) and prints the tables.
    Merge {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        report: ReportArgs,
    },
}

/// What a balance run (or merge) writes besides its tables.
#[derive(clap::Args)]
struct ReportArgs {
    /// Write the result file (JSON) here, for `balance merge` or other tools.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the pairings as CSV here.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write `heatmap.svg` (win rates) and `tiles.svg` (tile impact) into this folder.
    #[arg(long, value_name = "DIR")]
    svg: Option<PathBuf>,
    /// Write one self-contained HTML report (tables and both charts) here.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// A number of games for `--games`: a whole number, 1 or more.
fn games_count(s: &str) -> Result<usize, String> {
    games_within(s, 1_000_000_000, "a balance series")
}

/// `--games` of `matches`, whose table holds every game's result until the end.
fn match_games(s: &str) -> Result<usize, String> {
    games_within(s, 10_000_000, "`matches`")
}

/// A number of games from 1 to `max`.
fn games_within(s: &str, max: usize, what: &str) -> Result<usize, String> {
    match s.parse::<u128>() {
        Ok(0) => Err("a series plays 1 game or more".to_string()),
        Ok(n) if n <= max as u128 => Ok(n as usize),
        Ok(_) => Err(format!(
            "{what} plays at most {} games in one run: play a larger series in parts (`--seed`), or spread it with `hexforge balance --shard I/N`",
            grouped(max)
        )),
        Err(_) => Err(format!(
            "`{s}` is not a number of games: give a whole number, e.g. 100"
        )),
    }
}

/// `10000000` as `10,000,000`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What `hexforge balance` plays.
#[derive(clap::Args)]
struct BalanceArgs {
    /// Games of the whole series (a shard plays its part of them).
    #[arg(long, default_value_t = 1000, value_parser = games_count)]
    games: usize,
    /// The armies (default: every loaded army); every pairing of two of them plays.
    #[arg(long = "army", value_name = "ARMY")]
    armies: Vec<String>,
    /// The bots, one or two (default: greedy); two are each given every army and seat equally.
    #[arg(long = "bot", value_name = "BOT")]
    bots: Vec<String>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    table: TableArgs,
    /// Play only the I-th of N deterministic slices of the games (`2/4`).
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    #[command(flatten)]
    report: ReportArgs,
    /// Compare with other content, playing the same seeds on both: a mod folder (or a folder of
    /// mods) loaded in place of the mods of the same ids, or a git revision of this checkout's
    /// `mods/` (`HEAD~1`, a branch).
    #[arg(long, value_name = "REF")]
    against: Option<String>,
}

/// What `hexforge portal` does.
#[derive(Subcommand)]
enum PortalCommand {
    /// Serves the portal of the data folder DIR (its SQLite database and archives, made when
    /// missing) until stopped; the first line gives its address.
    Serve {
        /// The portal's data folder.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// The address to listen on (behind a reverse proxy: keep 127.0.0.1).
        #[arg(long, default_value = "127.0.0.1", value_name = "IP")]
        bind: String,
        /// The port to listen on (0: any free port, printed at start).
        #[arg(long, default_value_t = 7878)]
        port: u16,
        /// Serve over TLS (https://) with this certificate (PEM, the portal's first, then its
        /// chain); needs --tls-key. Without it the portal speaks plain HTTP (for a reverse proxy).
        #[arg(long, value_name = "FILE", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The certificate's private key (PEM).
        #[arg(long, value_name = "FILE", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
    },
    /// Adds an author to the portal of the data folder DIR and prints their token (once).
    Author {
        #[arg(value_name = "NAME")]
        name: String,
        /// The portal's data folder.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
    },
}

#[derive(Subcommand)]
enum ModsCommand {
    /// Every mod found: id, version, state (loaded or skipped, and why) and armies; with
    /// `--outdated --portal URL`, the mods of the user mods folder (or --from DIR) the portal has
    /// a newer version of.
    List {
        /// List only the installed mods the portal has a newer version of.
        #[arg(long, requires = "portal")]
        outdated: bool,
        /// The portal's address (`http://HOST:PORT`, or `https://HOST[:PORT]`: its certificate is checked against Mozilla's roots and those of the PEM file `HEXFORGE_CA_FILE` names).
        #[arg(long, value_name = "URL")]
        portal: Option<String>,
        /// The mods folder to compare (default: the user mods folder).
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
    },
    /// Publishes a mod (a loaded mod's id, or a mod folder) on a portal with the author's token
    /// (docs/PORTAL.md); a version already published there is refused.
    Publish {
        #[arg(value_name = "MOD")]
        which: String,
        /// The portal's address (`http://HOST:PORT`, or `https://HOST[:PORT]`: its certificate is checked against Mozilla's roots and those of the PEM file `HEXFORGE_CA_FILE` names).
        #[arg(long, value_name = "URL")]
        portal: String,
        /// The author's token (default: the HEXFORGE_PORTAL_TOKEN variable).
        #[arg(long, value_name = "TOKEN")]
        token: Option<String>,
    },
    /// The mods a portal has whose id, name or description holds TEXT (every mod without it).
    Search {
        #[arg(value_name = "TEXT", default_value = "")]
        text: String,
        /// The portal's address (`http://HOST:PORT`, or `https://HOST[:PORT]`: its certificate is checked against Mozilla's roots and those of the PEM file `HEXFORGE_CA_FILE` names).
        #[arg(long, value_name = "URL")]
        portal: String,
    },
    /// Installs the newest version a portal has of each outdated mod of the user mods folder (or
    /// --into DIR), or of ID alone, with what it needs; each replaced folder is set aside.
    Update {
        #[arg(value_name = "ID")]
        id: Option<String>,
        /// The portal's address (`http://HOST:PORT`, or `https://HOST[:PORT]`: its certificate is checked against Mozilla's roots and those of the PEM file `HEXFORGE_CA_FILE` names).
        #[arg(long, value_name = "URL")]
        portal: String,
        /// The mods folder to update (default: the user mods folder).
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
        /// Do not ask.
        #[arg(long)]
        yes: bool,
    },
    /// Every problem of one mod folder (manifest, armies, dependencies, scripts); exits non-zero
    /// if there is any. Without PATH, every mod found.
    Check {
        #[arg(value_name = "PATH")]
        path: Option<PathBuf>,
    },
    /// Who defined a tile and which mods changed it, in load order (`army/tile`).
    Explain {
        #[arg(value_name = "ARMY/TILE")]
        tile: String,
    },
    /// Packs a mod (a loaded mod's id, or a mod folder) into one archive file to share
    /// (`ID-VERSION.hexmod`; docs/MODDING.md, "Mod archives").
    Pack {
        #[arg(value_name = "MOD")]
        which: String,
        /// The archive file to write (default: `ID-VERSION.hexmod` here).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Installs a mod archive into the user mods folder (or --into DIR), after checking it and
    /// asking; a folder it replaces is set aside in `.replaced/`, never deleted. With --portal,
    /// FILE is `NAME` or `NAME@VERSION`: that mod from the portal, with the mods it needs.
    Install {
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Install `NAME[@VERSION]` from this portal (`http://HOST:PORT` or `https://HOST[:PORT]`).
        #[arg(long, value_name = "URL")]
        portal: Option<String>,
        /// The mods folder to install into (default: the user mods folder).
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
        /// Do not ask.
        #[arg(long)]
        yes: bool,
    },
    /// Removes an installed mod from the user mods folder (or --from DIR), after asking: its
    /// folder is set aside in `.replaced/`, never deleted; the loaded mods that need it are named.
    Remove {
        #[arg(value_name = "ID")]
        id: String,
        /// The mods folder to remove it from (default: the user mods folder).
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        /// Do not ask.
        #[arg(long)]
        yes: bool,
    },
    /// Runs the scenario files a mod ships in its `scenarios/` folder (MOD: a loaded mod's id or
    /// a mod folder), as `hexforge scenario` runs them, ending with `N passed, M failed`.
    Test {
        #[arg(value_name = "MOD")]
        which: String,
        /// Print the log of every scenario, not only of the failing ones.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Creates a mod folder with a manifest, a 35-tile army and one Lua ability, ready to edit.
    New {
        #[arg(value_name = "NAME")]
        name: String,
        /// The folder to create it in (default: the user mods folder).
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
        /// A loaded mod the new one needs (`base`, or `base@^1` with a requirement; default: the
        /// loaded version's major), written under `[dependencies]` (repeatable).
        #[arg(long, value_name = "MOD[@REQ]")]
        needs: Vec<String>,
    },
}

#[derive(clap::Args, Clone)]
struct TableArgs {
    /// The rules preset: classic, v3, v2025, or a preset a loaded mod defines (`rules/*.toml`, e.g. `monolith_arena`; an unknown name lists them all).
    #[arg(long, default_value = "v3")]
    rules: String,
    /// A rule option as KEY=VALUE (repeatable).
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// The board: `standard` (the default), `extended` or a board of a loaded mod
    /// (`boards/*.toml`, e.g. `king_of_the_hill`).
    #[arg(long, value_name = "ID", default_value = "standard")]
    board: String,
    /// Play on the extended 37-hex board (the same as `--board extended`).
    #[arg(long, conflicts_with = "board")]
    extended: bool,
}

impl TableArgs {
    /// The table, with the rule presets of the loaded mods (the first of an id, in load order).
    fn table(self, loaded: &LoadedMods) -> Result<matches::Table> {
        let board = loaded.board(self.board_id())?.clone();
        Ok(matches::Table {
            preset: self.rules,
            options: self.options,
            board,
            presets: hexforge_content::mod_presets(&loaded.mods),
            declared: loaded.catalog.options().clone(),
            implications: loaded.catalog.implications().to_vec(),
        })
    }

    /// The board asked for: `--board ID`, or `extended` for `--extended`.
    fn board_id(&self) -> &str {
        if self.extended {
            "extended"
        } else {
            &self.board
        }
    }
}

/// `hexforge rules`: every rule option of the table, one per line, with its value and source.
fn rules(out: &mut impl Write, loaded: &LoadedMods, table: &TableArgs) -> Result<ExitCode> {
    // The board is looked for first: an unknown one is refused before anything is printed.
    let chosen = table.clone().table(loaded)?;
    let lines = hexforge_content::rule_lines(
        &table.rules,
        &table.options,
        &hexforge_content::mod_presets(&loaded.mods),
        loaded.catalog.options(),
        loaded.catalog.implications(),
    )?;
    for line in lines {
        writeln!(out, "{line}")?;
    }
    // The board, last: the one played (what `--board` chose, or the extended board the rules
    // ask for on the standard one, R8.7), where it comes from and what it is.
    let rules = chosen.rules()?;
    let board = chosen.board(&rules);
    let source = if board.id != chosen.board.id {
        "extended_board"
    } else if table.board_id() == hexforge_content::boards::DEFAULT_BOARD {
        "default"
    } else {
        "--board"
    };
    writeln!(
        out,
        "board = \"{}\"  # {source}, {}: {}",
        board.id,
        board.origin(),
        board.doc
    )?;
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        // A closed pipe (`hexforge battle FILE | head`) is the reader's choice, not an error.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", plain::plain(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode> {
    let cli = Cli::parse();
    let mut roots = if cli.mods.is_empty() {
        let mut roots = vec![default_mods()?];
        roots.extend(user_mods().filter(|d| d.is_dir()));
        roots
    } else {
        cli.mods.clone()
    };
    if let Command::Mods {
        action: ModsCommand::New { name, into, needs },
    } = &cli.command
    {
        let into = match into.clone().or_else(user_mods) {
            Some(d) => d,
            None => {
                bail!("no user mods folder (set HEXFORGE_USER_MODS or HOME), and no --into DIR")
            }
        };
        std::fs::create_dir_all(&into)
            .with_context(|| format!("cannot create {}", into.display()))?;
        let mut out = crate::plain::stdout();
        let code = modcmd::new(&mut out, (name, needs), &into, &roots)?;
        out.flush()?;
        return Ok(code);
    }
    if let Command::Mods {
        action:
            ModsCommand::Install {
                file,
                into,
                yes,
                portal: None,
            },
    } = &cli.command
    {
        let into = match into.clone().or_else(user_mods) {
            Some(d) => d,
            None => {
                bail!("no user mods folder (set HEXFORGE_USER_MODS or HOME), and no --into DIR")
            }
        };
        let mut out = crate::plain::Plain::new(std::io::stdout().lock());
        let code = modcmd::install(&mut out, &mut std::io::stdin().lock(), file, &into, *yes)?;
        modcmd::warn_twice(&mut out, &roots, &into, file)?;
        out.flush()?;
        return Ok(code);
    }
    // A mod folder named by `mods test` or `mods check` loads too, when no root holds it.
    let named = match &cli.command {
        Command::Mods {
            action: ModsCommand::Test { which, .. },
        } if Path::new(which).join("mod.toml").is_file() => Some(PathBuf::from(which)),
        Command::Mods {
            action: ModsCommand::Check { path: Some(path) },
        } => Some(path.clone()),
        _ => None,
    };
    if let Some(dir) = named
        && !roots
            .iter()
            .any(|r| modcmd::canonical(&dir).starts_with(modcmd::canonical(r)))
    {
        roots.push(dir);
    }
    if let Command::Portal { action } = &cli.command {
        // The portal keeps archives: it loads no content.
        let mut out = crate::plain::Plain::new(std::io::stdout().lock());
        return match action {
            PortalCommand::Serve {
                data,
                bind,
                port,
                tls_cert,
                tls_key,
            } => portalcmd::serve(
                &mut out,
                data,
                (bind, *port),
                tls_cert.as_deref().zip(tls_key.as_deref()),
            ),
            PortalCommand::Author { name, data } => portalcmd::author(&mut out, data, name),
        };
    }
    if let Command::Mods {
        action: ModsCommand::Search { text, portal },
    } = &cli.command
    {
        let mut out = crate::plain::Plain::new(std::io::stdout().lock());
        return portalcmd::search(&mut out, portal, text);
    }
    if let Command::Balance {
        merge: Some(BalanceCommand::Merge { files, report }),
        ..
    } = &cli.command
    {
        // Result files hold what they need: no content loads.
        let read: Vec<(String, hexforge_lab::Results)> = files
            .iter()
            .map(|f| Ok((f.display().to_string(), balance::read(f)?)))
            .collect::<Result<_>>()?;
        let merged = hexforge_lab::merge(&read)?;
        let mut stdout = crate::plain::Plain::new(std::io::stdout().lock());
        balance::print(&mut stdout, &merged)?;
        // As a single run prints it: the shards' content (the same in all, or they were refused).
        writeln!(stdout, "Content: {}", merged.content)?;
        write_balance(&merged, report)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Command::Serve { port, bind } = &cli.command {
        // A relay forwards frames: it loads no content.
        return netcmd::serve(bind, *port);
    }
    if let Command::Rules { table } = &cli.command {
        // Rule options need the mods' data only: no script is loaded.
        let mut out = crate::plain::stdout();
        let code = rules(&mut out, &hexforge_content::load_mods(&roots), table)?;
        out.flush()?;
        return Ok(code);
    }
    // A replay recorded with other versions of mods: those versions, kept side by side in the
    // user mods folder's `.versions/` (or fetched from --portal), load ahead of the installed ones.
    if let Command::Replay { files, portal, .. } = &cli.command
        && let [file] = files.as_slice()
        && let Some(store) = user_mods()
    {
        let mut out = crate::plain::Plain::new(std::io::stdout().lock());
        let extra = versions::for_replay(&mut out, file, &roots, &store, portal.as_deref())?;
        roots = extra.into_iter().chain(roots).collect();
    }
    let hexforge_script::Loaded {
        mods: loaded,
        mut scripts,
    } = hexforge_script::load(&roots, hexforge_script::Limits::default());
    let mut out = crate::plain::stdout();
    let code = match cli.command {
        Command::Scenario { paths, verbose } => {
            scenarios(&mut out, &loaded, &mut scripts, &paths, verbose)
        }
        Command::Battle { file } => battle(&mut out, &loaded, &mut scripts, &file),
        Command::Armies => armies(&mut out, &loaded),
        Command::Rules { table } => rules(&mut out, &loaded, &table),
        Command::Replay {
            files,
            verify,
            force,
            quiet,
            at,
            to_scenario,
            portal: _,
        } => {
            let opts = replaycmd::Options {
                verify,
                force,
                quiet,
            };
            if let (Some(at), Some(path)) = (at, to_scenario.as_deref()) {
                if files.len() != 1 {
                    bail!("--to-scenario takes one replay file");
                }
                let to = replaycmd::ToScenario { at, out: path };
                replaycmd::replay_to(&mut out, &loaded, &mut scripts, &files[0], opts, Some(to))
            } else if files.len() == 1 {
                replaycmd::replay(&mut out, &loaded, &mut scripts, &files[0], opts)
            } else {
                replaycmd::replay_all(&mut out, &loaded, &mut scripts, &files, opts)
            }
        }
        Command::Mods { action } => match action {
            ModsCommand::List {
                outdated: true,
                portal: Some(portal),
                from,
            } => {
                let Some(from) = from.or_else(user_mods) else {
                    bail!("no user mods folder (set HEXFORGE_USER_MODS or HOME), and no --from DIR")
                };
                portalcmd::list_outdated(&mut out, &portal, &from)
            }
            ModsCommand::List { .. } => modcmd::list(&mut out, &loaded),
            ModsCommand::Publish {
                which,
                portal,
                token,
            } => portalcmd::publish(&mut out, &loaded, &which, &portal, token.as_deref()),
            ModsCommand::Install {
                file,
                portal: Some(portal),
                into,
                yes,
            } => {
                let Some(into) = into.or_else(user_mods) else {
                    bail!("no user mods folder (set HEXFORGE_USER_MODS or HOME), and no --into DIR")
                };
                portalcmd::install(
                    &mut out,
                    &mut std::io::stdin().lock(),
                    &loaded,
                    (&file.to_string_lossy(), &portal, &into),
                    yes,
                )
            }
            ModsCommand::Update {
                id,
                portal,
                into,
                yes,
            } => {
                let Some(into) = into.or_else(user_mods) else {
                    bail!("no user mods folder (set HEXFORGE_USER_MODS or HOME), and no --into DIR")
                };
                portalcmd::update(
                    &mut out,
                    &mut std::io::stdin().lock(),
                    &loaded,
                    (id.as_deref(), &portal, &into),
                    yes,
                )
            }
            ModsCommand::Explain { tile } => modcmd::explain(&mut out, &loaded, &tile),
            ModsCommand::Check { path: Some(path) } => modcmd::check(&mut out, &loaded, &path),
            ModsCommand::Check { path: None } => modcmd::check_all(&mut out, &loaded),
            ModsCommand::Test { which, verbose } => {
                match modcmd::scenario_folder(&loaded, &which) {
                    Ok(dir) => scenarios(&mut out, &loaded, &mut scripts, &[dir], verbose),
                    Err(e) => Err(e),
                }
            }
            ModsCommand::Pack { which, out: to } => {
                modcmd::pack(&mut out, &loaded, &which, to.as_deref())
            }
            ModsCommand::Remove { id, from, yes } => {
                let Some(from) = from.or_else(user_mods) else {
                    bail!("no user mods folder (set HEXFORGE_USER_MODS or HOME), and no --from DIR")
                };
                modcmd::remove(
                    &mut out,
                    &mut std::io::stdin().lock(),
                    &loaded,
                    (&id, &from),
                    yes,
                )
            }
            ModsCommand::New { .. } | ModsCommand::Install { .. } | ModsCommand::Search { .. } => {
                Ok(ExitCode::SUCCESS)
            }
        },
        Command::Match {
            armies,
            bots,
            teams,
            seed,
            table,
            quiet,
            hash,
            replay,
        } => {
            report_problems(&loaded);
            let armies = armies_of(&loaded, &armies)?;
            if bots.len() > armies.len() {
                bail!(
                    "--bot given {} times for {} players: give one bot per player at most (the last one given plays the remaining seats)",
                    bots.len(),
                    armies.len()
                );
            }
            let teams = matches::seat_teams(&armies, &teams)?;
            if let Some(t) = &teams {
                // Refused once, before any game: the teams must make a game mode (R8).
                hexforge_core::game::Mode::of(t)?;
            }
            let content = content_line(&loaded);
            let table = table.table(&loaded)?;
            let record = |game_seed: u64| {
                let path = replay.as_deref().unwrap_or(Path::new("replay.txt"));
                let mut header =
                    replaycmd::header(table.setup(), &loaded.mods, armies.clone(), game_seed, seed);
                header.teams = teams.clone().unwrap_or_default();
                recorder(path, &header)
            };
            matches::play_match(
                &mut out,
                loaded.catalog,
                &mut scripts,
                &table,
                (&armies, teams.as_deref()),
                &bots,
                seed,
                matches::Show {
                    quiet,
                    hash,
                    content,
                },
                replay
                    .is_some()
                    .then_some(&record as &dyn Fn(u64) -> Result<_>),
            )
            .map(|()| ExitCode::SUCCESS)
        }
        Command::Host {
            armies,
            seats,
            teams,
            seed,
            table,
            port,
            bind,
            relay,
            code,
            fill_with_bot,
            replay,
            quiet,
        } => {
            report_problems(&loaded);
            out.flush()?;
            let args = netcmd::HostArgs {
                armies: armies_of(&loaded, &armies)?,
                seats,
                teams,
                seed,
                table: table.table(&loaded)?,
                bind,
                port,
                relay,
                code,
                fill_with_bot,
                replay,
                quiet,
                content: content_line(&loaded),
            };
            netcmd::host(args, &loaded, &mut scripts)
        }
        Command::Join {
            address,
            seat,
            watch,
            code,
            bot,
            replay,
            quiet,
            debug_corrupt_after,
            fetch_mods,
            yes,
            portal,
        } => {
            report_problems(&loaded);
            let fetch = fetch_mods.then(|| netcmd::FetchMods {
                yes,
                roots: roots.clone(),
                user_mods: user_mods(),
                content_line,
                portal,
            });
            let args = netcmd::JoinArgs {
                fetch,
                address,
                seat,
                watch,
                code,
                bot,
                replay,
                quiet,
                corrupt_after: debug_corrupt_after,
                content: content_line(&loaded),
            };
            netcmd::join(args, &loaded, &mut scripts)
        }
        Command::Serve { port, bind } => netcmd::serve(&bind, port),
        // Answered before any content loads.
        Command::Portal { .. } => Ok(ExitCode::SUCCESS),
        Command::Balance { merge: Some(_), .. } => Ok(ExitCode::SUCCESS),
        Command::Balance { merge: None, args } => {
            report_problems(&loaded);
            let shard = args
                .shard
                .as_deref()
                .map(hexforge_lab::Shard::parse)
                .transpose()?;
            let armies = if args.armies.is_empty() {
                loaded
                    .catalog
                    .armies()
                    .iter()
                    .map(|a| a.id.clone())
                    .collect()
            } else {
                armies_of(&loaded, &args.armies)?
            };
            let bots: [String; 2] = match args.bots.as_slice() {
                [] => ["greedy".into(), "greedy".into()],
                [one] => [one.clone(), one.clone()],
                [a, b] => [a.clone(), b.clone()],
                _ => bail!(
                    "--bot: give one bot, or two to compare (each given every army and seat equally)"
                ),
            };
            hexforge_lab::check(&armies, &bots, &loaded.catalog)?;
            let mods = &loaded.mods;
            let catalog = &loaded.catalog;
            let per_thread = || {
                let mut bound = catalog.clone();
                ScriptHost::load(mods, &mut bound, hexforge_script::Limits::default()).0
            };
            let table = args.table.clone().table(&loaded)?;
            let rules = std::sync::Arc::new(table.rules()?);
            let setup = hexforge_lab::Setup {
                armies,
                bots,
                games: args.games,
                seed: args.seed,
                board: table.board(&rules),
                rules: rules.clone(),
                rules_line: table.rules_line(),
                content: content_line(&loaded),
                shard,
            };
            let (results, failures) = balance::run(&setup, loaded.catalog.clone(), per_thread)?;
            if let Some(reference) = &args.against {
                let (other_roots, _keep) = against_roots(reference, &loaded)?;
                let other = hexforge_script::load(&other_roots, hexforge_script::Limits::default());
                if !other.mods.problems.is_empty() {
                    bail!(
                        "--against {reference}: the other content has problems:\n{}",
                        other.mods.problems
                    );
                }
                let other_mods = &other.mods.mods;
                let other_catalog = &other.mods.catalog;
                let other_thread = || {
                    let mut bound = other_catalog.clone();
                    ScriptHost::load(other_mods, &mut bound, hexforge_script::Limits::default()).0
                };
                let other_table = args.table.table(&other.mods)?;
                let other_rules = std::sync::Arc::new(other_table.rules()?);
                let other_setup = hexforge_lab::Setup {
                    board: other_table.board(&other_rules),
                    rules: other_rules.clone(),
                    rules_line: other_table.rules_line(),
                    content: content_line(&other.mods),
                    armies: setup.armies.clone(),
                    bots: setup.bots.clone(),
                    ..setup
                };
                let (after, more) =
                    balance::run(&other_setup, other_catalog.clone(), other_thread)?;
                let changes =
                    hexforge_lab::tile_changes(&loaded.catalog, other_catalog, &setup.armies);
                balance::print_diff(&mut out, &results, &after, &changes)?;
                writeln!(out, "Content before: {}", results.content)?;
                writeln!(out, "Content after: {}", after.content)?;
                for f in failures.iter().chain(&more) {
                    writeln!(out, "error: {f}")?;
                }
                return Ok(if failures.is_empty() && more.is_empty() {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                });
            }
            balance::print(&mut out, &results)?;
            writeln!(out, "Content: {}", results.content)?;
            write_balance(&results, &args.report)?;
            for f in &failures {
                writeln!(out, "error: {f}")?;
            }
            Ok(if failures.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Matches {
            games,
            armies,
            pairs,
            mirrors,
            bots,
            teams,
            seed,
            table,
            replays,
        } => {
            report_problems(&loaded);
            let armies = armies_of(&loaded, &armies)?;
            let pairs = pairs
                .iter()
                .map(|p| {
                    let (a, b) = matches::parse_pair(p)?;
                    let named = armies_of(&loaded, &[a, b])?;
                    Ok((named[0].clone(), named[1].clone()))
                })
                .collect::<Result<Vec<_>>>()?;
            if !pairs.is_empty() && !teams.is_empty() {
                bail!(
                    "--pair plays two-player pairings and --team one lineup of teams: give one of them"
                );
            }
            if !teams.is_empty() && armies.is_empty() {
                bail!(
                    "--team gives each --army its team: name the armies in seat order (`--army A --army B --army C --army D --team 1,2,1,2`)"
                );
            }
            let teams = matches::seat_teams(&armies, &teams)?;
            if let Some(t) = &teams {
                // Refused once, before any game: the teams must make a game mode (R8).
                hexforge_core::game::Mode::of(t)?;
            }
            // Lua states stay on their thread: every worker loads the scripts once for itself.
            let mods = &loaded.mods;
            let catalog = &loaded.catalog;
            let per_thread = || {
                let mut bound = catalog.clone();
                ScriptHost::load(mods, &mut bound, hexforge_script::Limits::default()).0
            };
            if let Some(dir) = &replays {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
            }
            let table = table.table(&loaded)?;
            // What every game's header shares (the mods' content hashes), worked out once.
            let series = replaycmd::header(table.setup(), &loaded.mods, Vec::new(), 0, seed);
            let record = |k: usize, armies: &[&str], game_seed: u64, match_seed: u64| {
                let dir = replays.as_deref().unwrap_or(Path::new("."));
                let header = hexforge_replay::Header {
                    armies: armies.iter().map(|a| a.to_string()).collect(),
                    seed: game_seed,
                    match_seed: Some(match_seed),
                    ..series.clone()
                };
                recorder(&dir.join(format!("game-{k:05}.txt")), &header)
            };
            let played = matches::play_matches(
                &mut out,
                loaded.catalog.clone(),
                per_thread,
                &table,
                &matches::Series {
                    armies,
                    pairs,
                    mirrors,
                    teams,
                },
                &bots,
                games,
                seed,
                replays
                    .is_some()
                    .then_some(&record as &matches::MakeRecorder<'_>),
            );
            // What the games were played with: a modded run is told from the baseline by it.
            writeln!(out, "Content: {}", content_line(&loaded))?;
            played.map(|ok| {
                if ok {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                }
            })
        }
    }?;
    out.flush()?;
    Ok(code)
}

/// The `mods/` folder of the checkout: found from the current folder upward, else beside the
/// sources this binary was built from.
fn default_mods() -> Result<PathBuf> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    for dir in cwd.ancestors() {
        let m = dir.join("mods");
        if m.join("base").join("mod.toml").is_file() {
            return Ok(m);
        }
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods");
    if built.join("base").join("mod.toml").is_file() {
        // Named as a user would write it (`/.../mods`, not `/.../engine/cli/../../mods`).
        return Ok(built.canonicalize().unwrap_or(built));
    }
    bail!("no mods folder found: run inside the Hexforge checkout or pass --mods DIR")
}

/// Army names as players give them: `army`, or `mod:army` to say which mod's (the mod must be
/// loaded and provide it).
fn armies_of(loaded: &LoadedMods, names: &[String]) -> Result<Vec<String>> {
    names
        .iter()
        .map(|name| {
            let Some((m, army)) = name.split_once(':') else {
                if loaded.catalog.army(name).is_none() {
                    return Err(hexforge_core::GameError::UnknownArmy {
                        army: name.clone(),
                        loaded: loaded
                            .catalog
                            .armies()
                            .iter()
                            .map(|a| a.id.clone())
                            .collect(),
                    }
                    .into());
                }
                return Ok(name.clone());
            };
            let Some(info) = loaded.mods.iter().find(|i| i.id == m) else {
                let ids: Vec<&str> = loaded.mods.iter().map(|i| i.id.as_str()).collect();
                bail!(
                    "`{name}`: no mod `{m}` is loaded{}: use one of {}",
                    hexforge_core::names::did_you_mean(m, ids.iter().copied()),
                    ids.join(", ")
                );
            };
            if !info.armies.iter().any(|a| a.id == army) {
                let ids: Vec<&str> = info.armies.iter().map(|a| a.id.as_str()).collect();
                bail!(
                    "`{name}`: mod `{m}` has no army `{army}`{}: use one of its armies ({})",
                    hexforge_core::names::did_you_mean(army, ids.iter().copied()),
                    ids.join(", ")
                );
            }
            Ok(army.to_string())
        })
        .collect()
}

/// The mods a game is played with, their versions and content hashes, and the engine's version.
/// The mod folders of `--against REF`, with a temporary folder to remove afterwards: each
/// loaded mod, or the mod of the same id that REF holds in its place. REF is a folder (a mod, or
/// a folder of mods, whose other mods are added too) or a git revision of the checkout, whose
/// `mods/` is extracted (`git archive`) and only its mods of the ids loaded now are taken.
fn against_roots(reference: &str, loaded: &LoadedMods) -> Result<(Vec<PathBuf>, Option<TempDir>)> {
    let path = Path::new(reference);
    let (found, tmp, add_new) = if path.is_dir() {
        (vec![path.to_path_buf()], None, true)
    } else {
        let mods = default_mods()?;
        let checkout = mods.parent().unwrap_or(Path::new("."));
        let tmp = TempDir(std::env::temp_dir().join(format!(
            "hexforge-against-{}-{}",
            std::process::id(),
            reference.replace(['/', '~', '^', ':'], "_")
        )));
        let _ = std::fs::remove_dir_all(&tmp.0);
        std::fs::create_dir_all(&tmp.0)?;
        let archive = std::process::Command::new("git")
            .args([
                "-C",
                &checkout.to_string_lossy(),
                "archive",
                "--format=tar",
                reference,
                "mods",
            ])
            .output()
            .with_context(|| "--against: git is needed to read a revision")?;
        if !archive.status.success() {
            bail!(
                "--against {reference}: neither a folder nor a git revision of {}: {}",
                checkout.display(),
                String::from_utf8_lossy(&archive.stderr).trim()
            );
        }
        let mut tar = std::process::Command::new("tar")
            .args(["-x", "-C", &tmp.0.to_string_lossy()])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .context("--against: tar is needed to unpack a revision")?;
        if let Some(stdin) = tar.stdin.as_mut() {
            stdin.write_all(&archive.stdout)?;
        }
        drop(tar.stdin.take());
        if !tar.wait()?.success() {
            bail!("--against {reference}: its mods/ could not be unpacked");
        }
        (vec![tmp.0.join("mods")], Some(tmp), false)
    };
    let mut by_id: Vec<(String, PathBuf)> = Vec::new();
    for dir in hexforge_content::mod_dirs(&found, &mut Vec::new()) {
        if let Ok(m) = hexforge_content::load_manifest(&dir)
            && !by_id.iter().any(|(id, _)| *id == m.id)
        {
            by_id.push((m.id, dir));
        }
    }
    let mut roots: Vec<PathBuf> = loaded
        .mods
        .iter()
        .map(|m| {
            by_id
                .iter()
                .find(|(id, _)| *id == m.id)
                .map_or(m.dir.clone(), |(_, d)| d.clone())
        })
        .collect();
    if add_new {
        roots.extend(
            by_id
                .iter()
                .filter(|(id, _)| !loaded.mods.iter().any(|m| m.id == *id))
                .map(|(_, d)| d.clone()),
        );
    }
    Ok((roots, tmp))
}

/// A temporary folder, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes what a balance run asked for: the result file (JSON), the CSV, the two SVG charts
/// into a folder, the HTML report.
fn write_balance(r: &hexforge_lab::Results, report: &ReportArgs) -> Result<()> {
    let [out, csv, svg, html] =
        [&report.out, &report.csv, &report.svg, &report.html].map(|p| p.as_deref());
    let write = |path: &Path, text: String| {
        hexforge_content::write_atomically(path, text)
            .with_context(|| format!("cannot write {}", path.display()))
    };
    if let Some(dir) = svg {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write(&dir.join("heatmap.svg"), balance::svg_heatmap(r)?)?;
        if let Some(tiles) = balance::svg_tiles(r)? {
            write(&dir.join("tiles.svg"), tiles)?;
        }
    }
    if let Some(path) = html {
        write(path, balance::html(r)?)?;
    }
    if let Some(path) = out {
        let text = serde_json::to_string_pretty(r)?;
        hexforge_content::write_atomically(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = csv {
        hexforge_content::write_atomically(path, balance::csv(r))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

fn content_line(loaded: &LoadedMods) -> String {
    hexforge_content::content_line(&loaded.mods)
}

/// Creates the replay file `path` and writes `header` to it.
fn recorder(
    path: &Path,
    header: &hexforge_replay::Header,
) -> Result<hexforge_replay::Recorder<std::fs::File>> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(hexforge_replay::Recorder::new(file, header)?)
}

/// The user's own mods folder (see [`hexforge_content::user_mods_dir`]).
fn user_mods() -> Option<PathBuf> {
    hexforge_content::user_mods_dir(|k| std::env::var_os(k))
}

/// Every problem and warning of the loaded mods, on standard error: the command goes on.
fn report_problems(loaded: &LoadedMods) {
    for p in loaded.problems.iter().chain(&loaded.warnings) {
        eprintln!("warning: {}", plain::plain(&p.to_string()));
    }
}

fn scenario_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            collect(p, &mut files)
                .with_context(|| format!("cannot read folder {}", p.display()))?;
        } else if p.is_file() {
            files.push(p.clone());
        } else {
            bail!("{}: no such file or folder", p.display());
        }
    }
    Ok(files)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for e in entries {
        if e.is_dir() {
            collect(&e, out)?;
        } else if e.extension().is_some_and(|x| x == "toml") {
            out.push(e);
        }
    }
    Ok(())
}

fn scenarios(
    out: &mut impl Write,
    loaded: &LoadedMods,
    scripts: &mut ScriptHost,
    paths: &[PathBuf],
    verbose: bool,
) -> Result<ExitCode> {
    report_problems(loaded);
    let files = scenario_files(paths)?;
    let boards: Vec<_> = loaded.boards().collect();
    let (mut passed, mut failed) = (0usize, 0usize);
    for f in &files {
        let s = match load_scenario_with_boards(f, &loaded.catalog, &boards) {
            Ok(s) => s,
            Err(d) => {
                failed += 1;
                writeln!(out, "FAIL {}\n{}", f.display(), indent(&d.to_string()))?;
                continue;
            }
        };
        let r = run_scenario(&s, &loaded.catalog, scripts);
        let cites = s
            .cites
            .as_deref()
            .map(|c| format!(" [{c}]"))
            .unwrap_or_default();
        if r.passed() {
            passed += 1;
            writeln!(out, "ok   {} - {}{cites}", f.display(), s.name)?;
        } else {
            failed += 1;
            writeln!(out, "FAIL {} - {}{cites}", f.display(), s.name)?;
            for msg in &r.failures {
                writeln!(out, "     {msg}")?;
            }
        }
        for d in &r.defaults {
            writeln!(out, "     default choice: {d}")?;
        }
        if verbose || !r.passed() {
            for line in &r.log {
                writeln!(out, "       {line}")?;
            }
        }
    }
    if files.is_empty() {
        let given: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        writeln!(
            out,
            "no scenario file (`*.toml`) in {}: give scenario files, or folders that hold some (docs/SCENARIO_FORMAT.md)",
            given.join(", ")
        )?;
    }
    writeln!(out, "{passed} passed, {failed} failed")?;
    Ok(if failed == 0 && !files.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn battle(
    out: &mut impl Write,
    loaded: &LoadedMods,
    scripts: &mut ScriptHost,
    file: &Path,
) -> Result<ExitCode> {
    report_problems(loaded);
    let boards: Vec<_> = loaded.boards().collect();
    let s = load_scenario_with_boards(file, &loaded.catalog, &boards)
        .map_err(|d| anyhow::anyhow!("{d}"))?;
    let r = run_scenario(&s, &loaded.catalog, scripts);
    writeln!(out, "{}", s.name)?;
    for line in &r.log {
        writeln!(out, "{line}")?;
    }
    for d in &r.defaults {
        writeln!(out, "default choice: {d}")?;
    }
    if !s.expect.hq.is_empty() || s.expect.removed.is_some() || !r.passed() {
        writeln!(out)?;
        if r.passed() {
            writeln!(out, "The outcome matches the file's expectations.")?;
        } else {
            writeln!(out, "The outcome differs from the file's expectations:")?;
            for f in &r.failures {
                writeln!(out, "  {f}")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn armies(out: &mut impl Write, loaded: &LoadedMods) -> Result<ExitCode> {
    // Columns as wide as the longest id and name of every loaded army.
    let all = || loaded.mods.iter().flat_map(|m| &m.armies);
    let id_wide = all()
        .map(|a| a.id.chars().count())
        .max()
        .unwrap_or(0)
        .max(10);
    let name_wide = all()
        .map(|a| a.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(10);
    for m in &loaded.mods {
        writeln!(
            out,
            "mod {} {} ({})",
            m.id,
            m.manifest.version,
            m.dir.display()
        )?;
        for a in &m.armies {
            let total: u32 = a.tiles.iter().map(|t| t.count as u32).sum();
            writeln!(
                out,
                "  {:<id_wide$} {:<name_wide$} {} tiles in {} kinds",
                a.id,
                a.name,
                total,
                a.tiles.len()
            )?;
        }
    }
    for p in loaded.problems.iter() {
        writeln!(out, "problem: {p}")?;
    }
    for w in &loaded.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(if loaded.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("     {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
