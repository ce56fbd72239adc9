//! The replay file's contents: the format version, a game's setup ([`Header`]), one recorded
//! action ([`Step`]), a whole file read back ([`Replay`]) and where it says each thing ([`Lines`]).

use hexforge_core::Action;

/// The format this code writes and reads.
pub const FORMAT: u32 = 2;

/// What a game was set up with.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Header {
    /// The Hexforge version that recorded it.
    pub engine: String,
    /// The rules preset (a built-in edition or a mod's preset).
    pub rules: String,
    /// Rule options given on top of the preset, as `KEY=VALUE`.
    pub options: Vec<String>,
    /// The id of the board the game was played on: `standard`, `extended` or a mod's board
    /// (docs/RULESETS.md, "Boards"); empty in a file without a `board` line, which plays on the
    /// standard board.
    pub board: String,
    /// The army of each seat, in seat order.
    pub armies: Vec<String>,
    /// The team of each seat, in seat order (players of one team are allies, R8.4, R8.5);
    /// empty in a file without a `teams` line, where every player is on their own.
    pub teams: Vec<u8>,
    /// The mods loaded: id, version, content hash.
    pub mods: Vec<(String, String, u64)>,
    /// Each file of those mods that their content hash reads: mod id, path within the mod, and
    /// the file's own play hash (`hexforge_content::mod_files`); empty in a file recorded before
    /// files were, whose differing mods are then named without their files.
    pub files: Vec<(String, String, u32)>,
    /// The seed of the game (its shuffles and first player).
    pub seed: u64,
    /// The seed the match was started with, from which the game's and the bots' seeds came
    /// (`hexforge match --seed`), when the game was a match.
    pub match_seed: Option<u64>,
}

/// One action of a player, the decisions taken while it resolved, and the state after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The action as the player made it, played again to replay the step.
    pub action: Action,
    /// The option picked for each decision asked during the action, in order.
    pub picks: Vec<usize>,
    /// `Battlefield::state_hash` after each battle phase fought during the action, in order.
    pub phases: Vec<u64>,
    /// `Game::state_hash` after the action.
    pub hash: u64,
}

/// A replay file read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// How the game was set up: what replaying it must load and start from.
    pub header: Header,
    /// Every complete step, in the order played.
    pub steps: Vec<Step>,
    /// The file ends with `end`; a file cut off (a game that stopped) is read up to its last
    /// complete step.
    pub complete: bool,
    /// Where the file says each thing, for errors that name the line to look at.
    pub lines: Lines,
}

/// The 1-based line of each header entry and step of a replay file (0: not in the file).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Lines {
    /// The `rules` line.
    pub rules: usize,
    /// The `board` line.
    pub board: usize,
    /// Each `option` line, in order.
    pub options: Vec<usize>,
    /// Each `seat` line, in seat order.
    pub seats: Vec<usize>,
    /// The `teams` line.
    pub teams: usize,
    /// Each `mod` line, in order.
    pub mods: Vec<usize>,
    /// Each step's `action` line, in order.
    pub steps: Vec<usize>,
}
