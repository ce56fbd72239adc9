//! What can go wrong in a series: the error type ([`LabError`]) every fallible function of the
//! lab returns.

use thiserror::Error;

/// Why a series could not be played, or result files could not be merged.
#[derive(Debug, Error)]
pub enum LabError {
    /// Fewer than two armies to pair.
    #[error("a balance series needs two armies or more: --army A --army B ...")]
    TooFewArmies,
    /// A bot name that is not one of `hexforge_bots::NAMES`.
    #[error("unknown bot `{name}`{hint}: use one of {known}")]
    UnknownBot {
        /// The name given.
        name: String,
        /// ` (did you mean ...?)`, or nothing.
        hint: String,
        /// The bots there are, comma-separated.
        known: String,
    },
    /// An army that is not loaded.
    #[error("no army {0:?} is loaded")]
    UnknownArmy(String),
    /// A shard spec that is not `I/N` with `1 <= I <= N`.
    #[error(
        "--shard {0}: write I/N with 1 <= I <= N, e.g. --shard 2/4 for the second of four shards"
    )]
    BadShard(String),
    /// The engine refused to start a game (an army not loaded, a bad lineup of teams...).
    #[error(transparent)]
    Start(#[from] hexforge_core::GameError),
    /// The series was cancelled before its end.
    #[error("cancelled before the end of the series")]
    Cancelled,
    /// No result file to merge.
    #[error("give the result files to merge")]
    NothingToMerge,
    /// Two result files that are not shards of one series.
    #[error(
        "{file} and {first} are not shards of one series: their {what} differ; nothing was merged"
    )]
    NotOneSeries {
        /// The file that differs.
        file: String,
        /// The first file.
        first: String,
        /// What differs.
        what: &'static str,
    },
    /// One shard given twice.
    #[error("shard {shard}/{of} is given twice ({file}); nothing was merged")]
    ShardTwice {
        /// The shard.
        shard: u32,
        /// Of how many.
        of: u32,
        /// The second file that holds it.
        file: String,
    },
    /// Shards missing from a merge.
    #[error("{} missing; nothing was merged", missing_shards(.0))]
    ShardsMissing(Vec<String>),
}

/// `shard 3/3 is` or `shards 2/4, 4/4 are`: the missing shards, for [`LabError::ShardsMissing`].
fn missing_shards(list: &[String]) -> String {
    match list {
        [one] => format!("shard {one} is"),
        many => format!("shards {} are", many.join(", ")),
    }
}

/// The error for a bot name that is not one of `hexforge_bots::NAMES`, with the closest one.
pub fn unknown_bot(name: &str) -> LabError {
    LabError::UnknownBot {
        name: name.to_string(),
        hint: hexforge_core::names::did_you_mean(name, hexforge_bots::NAMES.iter().copied()),
        known: hexforge_bots::NAMES.join(", "),
    }
}
