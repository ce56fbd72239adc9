//! A desync report: the first step after which two sides' states differ, the action, who played
//! it, both state hashes, and the replays saved of each side.

use std::fmt;
use std::path::PathBuf;

/// What one side found after a step: its state hash, or why its engine refused the action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// `Game::state_hash` after the step.
    State(u64),
    /// The side's engine refused the action (its state allowed no such action).
    Refused(String),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::State(h) => write!(f, "{h:016x}"),
            Found::Refused(why) => write!(f, "none (its engine refuses the action: {why})"),
        }
    }
}

/// The first step after which the host's state and another side's differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesyncReport {
    /// The step's number in the match, from 1 (a replay's step number).
    pub step: usize,
    /// The turn it was played in.
    pub turn: u16,
    /// The action, as a replay writes it.
    pub action: String,
    /// Who played it, e.g. `seat 2 (borgo)`.
    pub by: String,
    /// What the host found after it.
    pub host: Found,
    /// The other side, e.g. `seat 2 (borgo)`.
    pub peer: String,
    /// What the other side found after it.
    pub found: Found,
    /// The replays saved: the host's and the other side's (`NAME.host.replay`,
    /// `NAME.join.replay`), when this side saved them.
    pub files: Vec<PathBuf>,
}

impl fmt::Display for DesyncReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "desync at step {} (turn {}, {} played `{}`): the host's state is {}, {}'s is {}",
            self.step, self.turn, self.by, self.action, self.host, self.peer, self.found
        )?;
        if !self.files.is_empty() {
            let files: Vec<String> = self.files.iter().map(|p| p.display().to_string()).collect();
            write!(
                f,
                "\nreplays saved: {} (`hexforge replay --verify FILE` shows where each one parts from the engine)",
                files.join(", ")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_names_the_step_the_action_and_both_hashes() {
        let r = DesyncReport {
            step: 7,
            turn: 3,
            action: "end_turn".into(),
            by: "seat 1 (moloch)".into(),
            host: Found::State(0xabc),
            peer: "seat 2 (borgo)".into(),
            found: Found::State(0xdef),
            files: vec![
                PathBuf::from("m.host.replay"),
                PathBuf::from("m.join.replay"),
            ],
        };
        let text = r.to_string();
        assert!(text.starts_with(
            "desync at step 7 (turn 3, seat 1 (moloch) played `end_turn`): the host's state is 0000000000000abc, seat 2 (borgo)'s is 0000000000000def\nreplays saved: m.host.replay, m.join.replay"
        ), "{text}");
    }
}
