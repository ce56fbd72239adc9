//! A series of the Balance panel played on a thread of its own (the lab plays its games on
//! every core there), watched through its progress and cancelled at any time; with unsaved
//! changes to compare, the same seeds are played again on the content as it would load with
//! them, and the tiles that differ are listed.

use hexforge_content::{LoadedMods, ModInfo};
use hexforge_core::Catalog;
use hexforge_lab::{Progress, Results, Setup};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// An army file's unsaved text, to compare with the file as saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edited {
    /// The army's id.
    pub army: String,
    /// The army file.
    pub path: PathBuf,
    /// Its text with the unsaved changes.
    pub text: String,
}

/// What a series plays.
#[derive(Clone, Debug)]
pub struct Request {
    /// The armies paired (two or more).
    pub armies: Vec<String>,
    /// The two bots (the same one twice: one bot).
    pub bots: [String; 2],
    /// The games of the series (spread over the pairings).
    pub games: usize,
    /// The series' seed.
    pub seed: u64,
    /// The rules preset.
    pub preset: String,
    /// The rule overrides, `KEY=VALUE`.
    pub options: Vec<String>,
    /// The board's id.
    pub board: String,
    /// Unsaved changes to compare with the saved file (`None`: the saved content alone).
    pub edited: Option<Edited>,
    /// The folders the content loads from (where the unsaved changes are tried).
    pub roots: Vec<PathBuf>,
}

/// What a finished series gave.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The series on the saved content.
    pub saved: Results,
    /// The same seeds with the unsaved changes, and what changed in the tiles.
    pub edited: Option<(Results, Vec<String>)>,
    /// Games that stopped (a script error, an action refused), one line each.
    pub failures: Vec<String>,
}

/// A series under way.
pub struct Job {
    /// The saved content's run, then the unsaved changes' run.
    progress: Arc<[Progress; 2]>,
    /// Games of both runs.
    total: u64,
    /// The result, once.
    rx: Receiver<Result<Finished, String>>,
}

impl Job {
    /// Starts `request` over the `loaded` content; refused at once when its rules or board do
    /// not load or it names a bot or army that is not there.
    pub fn spawn(request: Request, loaded: &LoadedMods) -> Result<Job, String> {
        hexforge_lab::check(&request.armies, &request.bots, &loaded.catalog)
            .map_err(|e| e.to_string())?;
        let rules = loaded
            .table_rules(&request.preset, &request.options)
            .map_err(|e| e.to_string())?;
        let board = loaded
            .board(&request.board)
            .map_err(|e| e.to_string())?
            .clone();
        let runs = 1 + u64::from(request.edited.is_some());
        let total = request.games as u64 * runs;
        let progress: Arc<[Progress; 2]> = Arc::new([Progress::default(), Progress::default()]);
        let (tx, rx) = channel();
        let mods = loaded.mods.clone();
        let catalog = loaded.catalog.clone();
        let watch = progress.clone();
        std::thread::Builder::new()
            .name("balance".into())
            .spawn(move || {
                let _ = tx.send(series(&request, (&mods, catalog), (rules, board), &watch));
            })
            .map_err(|e| format!("cannot start the series: {e}"))?;
        Ok(Job {
            progress,
            total,
            rx,
        })
    }

    /// Games played so far, over both runs.
    pub fn done(&self) -> u64 {
        self.progress[0].done() + self.progress[1].done()
    }

    /// Games to play, over both runs.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Stops the series: no game starts after this, and it ends as cancelled.
    pub fn cancel(&self) {
        self.progress.iter().for_each(Progress::cancel);
    }

    /// The series' end, once it came: what it gave, or why it stopped.
    pub fn poll(&mut self) -> Option<Result<Finished, String>> {
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err("the series stopped unexpectedly".into())),
        }
    }
}

impl Drop for Job {
    /// A series left (the panel closed, a new one started) stops at its next game.
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Plays the series, then the same seeds on the content with the unsaved changes.
fn series(
    request: &Request,
    (mods, catalog): (&[ModInfo], Catalog),
    (rules, board): (hexforge_core::Rules, hexforge_content::Board),
    progress: &[Progress; 2],
) -> Result<Finished, String> {
    let (saved, mut failures) = play(
        request,
        (mods, catalog.clone()),
        (rules, &board),
        &progress[0],
    )?;
    let edited = match &request.edited {
        None => None,
        Some(edited) => {
            let other = crate::balance::overlay::load_with_text(
                &request.roots,
                &edited.path,
                &edited.text,
            )?;
            if !other.mods.problems.is_empty() {
                return Err(format!(
                    "the unsaved changes of {} do not load: {}",
                    edited.path.display(),
                    other.mods.problems
                ));
            }
            let rules = other
                .mods
                .table_rules(&request.preset, &request.options)
                .map_err(|e| format!("with the unsaved changes: {e}"))?;
            let board = other
                .mods
                .board(&request.board)
                .map_err(|e| format!("with the unsaved changes: {e}"))?
                .clone();
            let (after, more) = play(
                request,
                (&other.mods.mods, other.mods.catalog.clone()),
                (rules, &board),
                &progress[1],
            )?;
            failures.extend(more);
            let changes =
                hexforge_lab::tile_changes(&catalog, &other.mods.catalog, &request.armies);
            Some((after, changes))
        }
    };
    Ok(Finished {
        saved,
        edited,
        failures,
    })
}

/// One run of the series on one content, the Lua states built once per thread of the lab.
fn play(
    request: &Request,
    (mods, catalog): (&[ModInfo], Catalog),
    (rules, board): (hexforge_core::Rules, &hexforge_content::Board),
    progress: &Progress,
) -> Result<(Results, Vec<String>), String> {
    let rules = Arc::new(rules);
    let board = hexforge_content::table_board(board, &rules);
    let setup = Setup {
        armies: request.armies.clone(),
        bots: request.bots.clone(),
        games: request.games,
        seed: request.seed,
        rules: rules.clone(),
        board,
        rules_line: hexforge_lab::rules_line(&request.preset, &request.options, &request.board),
        content: hexforge_content::content_line(mods),
        shard: None,
    };
    let per_thread = || {
        let mut bound = catalog.clone();
        hexforge_script::ScriptHost::load(mods, &mut bound, hexforge_script::Limits::default()).0
    };
    hexforge_lab::run(&setup, catalog.clone(), per_thread, progress).map_err(|e| e.to_string())
}
