//! What the views ask of the editor: the messages ([`Msg`]) a view pushes while it draws, which
//! the editor (`Editor::ui`) applies in one place once every view has drawn, and the tabs
//! ([`Tab`]).

use hexforge_content::Diagnostic;
use hexforge_core::{Game, TileRef};
use std::path::PathBuf;

/// The editor's main views, one shown at a time beside the status bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// The mod browser with the tile designer and the army editor.
    Designer,
    /// The sandbox board: place tiles for any side and step through test battles.
    Sandbox,
    /// The replay viewer: recorded games, step by step.
    Replays,
    /// Play a game: people at this window and bots.
    Play,
    /// Mods: a portal browsed, mods installed and updated from it, the user's mods enabled or
    /// disabled.
    Mods,
    /// Balance: series of bot games for the army being edited, and the diff of its unsaved
    /// changes.
    Balance,
}

/// Something a view asks the editor to do: a view owns its own state and changes nothing
/// outside it; what reaches another view, the tabs, the status bar or the content goes through
/// one of these.
#[derive(Debug)]
pub enum Msg {
    /// Show this tile in the designer (its army file opens as a document).
    SelectTile(TileRef),
    /// Show this army (by id) in the army editor.
    SelectArmy(String),
    /// Show where this problem is in its file, in the Designer tab (from any tab).
    OpenSpot(Diagnostic),
    /// Show this tab.
    ShowTab(Tab),
    /// Put the board of this game (a replay's step) on the sandbox and show the sandbox.
    OpenInSandbox(Box<Game>),
    /// Say what the last action did, or why it failed (the status bar's second line).
    Status(String),
    /// Files of the loaded mods were written: load the content again now unless the watch on the
    /// mod folders will.
    FilesWritten,
    /// Open this replay file in the replay viewer and show it.
    OpenReplay(PathBuf),
    /// Load and watch this folder too (a mod folder made outside the folders loaded), at once.
    WatchFolder(PathBuf),
}
