//! The `hexforge` command line: runs scenario files, prints battles, plays matches between bots,
//! lists loaded armies.

mod matches;

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use hexforge_content::LoadedMods;
use hexforge_scenario::{load_scenario, run_scenario};
use hexforge_script::ScriptHost;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "hexforge",
    version,
    about = "Design, test and play hex-tile battle games"
)]
struct Cli {
    /// A mod folder, or a folder of mods, to load (repeatable). Default: the `mods/` folder of
    /// this checkout.
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
    /// Plays one whole game between bots and prints it turn by turn.
    Match {
        /// An army per player, in seat order (2 to 4).
        #[arg(long = "army", required = true, value_name = "ARMY")]
        armies: Vec<String>,
        /// A bot per player (random, greedy, mc); the last one given plays the remaining seats.
        #[arg(long = "bot", value_name = "BOT")]
        bots: Vec<String>,
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
    },
    /// Plays many games between bots (every pairing of the armies by default) on every core and
    /// prints a table of wins and draws.
    Matches {
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// The armies to pair (default: every loaded army).
        #[arg(long = "army", value_name = "ARMY")]
        armies: Vec<String>,
        /// The bot of the first and second army of each pairing (default: random).
        #[arg(long = "bot", value_name = "BOT")]
        bots: Vec<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        table: TableArgs,
    },
}

#[derive(clap::Args)]
struct TableArgs {
    /// The rules preset: classic, v3 or v2025.
    #[arg(long, default_value = "v3")]
    rules: String,
    /// A rule option of RULES.md Appendix B as KEY=VALUE (repeatable).
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Play on the extended 37-hex board.
    #[arg(long)]
    extended: bool,
}

impl TableArgs {
    fn table(self) -> matches::Table {
        matches::Table {
            preset: self.rules,
            options: self.options,
            extended: self.extended,
        }
    }
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
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode> {
    let cli = Cli::parse();
    let roots = if cli.mods.is_empty() {
        vec![default_mods()?]
    } else {
        cli.mods.clone()
    };
    let hexforge_script::Loaded {
        mods: loaded,
        mut scripts,
    } = hexforge_script::load(&roots, hexforge_script::Limits::default());
    let mut out = BufWriter::new(std::io::stdout().lock());
    let code = match cli.command {
        Command::Scenario { paths, verbose } => {
            scenarios(&mut out, &loaded, &mut scripts, &paths, verbose)
        }
        Command::Battle { file } => battle(&mut out, &loaded, &mut scripts, &file),
        Command::Armies => armies(&mut out, &loaded),
        Command::Match {
            armies,
            bots,
            seed,
            table,
            quiet,
            hash,
        } => {
            report_problems(&loaded);
            matches::play_match(
                &mut out,
                loaded.catalog,
                &mut scripts,
                &table.table(),
                &armies,
                &bots,
                seed,
                matches::Show { quiet, hash },
            )
            .map(|()| ExitCode::SUCCESS)
        }
        Command::Matches {
            games,
            armies,
            bots,
            seed,
            table,
        } => {
            report_problems(&loaded);
            // Lua states stay on their thread: every worker loads the scripts once for itself.
            let mods = &loaded.mods;
            let catalog = &loaded.catalog;
            let per_thread = || {
                let mut bound = catalog.clone();
                ScriptHost::load(mods, &mut bound, hexforge_script::Limits::default()).0
            };
            matches::play_matches(
                &mut out,
                loaded.catalog.clone(),
                per_thread,
                &table.table(),
                &armies,
                &bots,
                games,
                seed,
            )
            .map(|ok| {
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
        return Ok(built);
    }
    bail!("no mods folder found: run inside the Hexforge checkout or pass --mods DIR")
}

fn report_problems(loaded: &LoadedMods) {
    for p in loaded.problems.iter() {
        eprintln!("warning: {p}");
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
    let (mut passed, mut failed) = (0usize, 0usize);
    for f in &files {
        let s = match load_scenario(f, &loaded.catalog) {
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
    let s = load_scenario(file, &loaded.catalog).map_err(|d| anyhow::anyhow!("{d}"))?;
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
                "  {:<10} {:<10} {} tiles in {} kinds",
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
