//! What destroying one tile of a linked unit does (`LinkLoss`): a leaf, so that tile
//! definitions (which may declare a linked unit, `[tile.linked]`) and the linked units on the
//! board (`link`, which re-exports it) both name it.

/// What happens to a linked unit when one of its tiles is destroyed.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum LinkLoss {
    /// Every tile of the unit leaves the board with it (R9.3.2).
    Whole,
    /// Only that tile leaves; its segment stays on the board as an empty hex of the unit, which
    /// any tile may be moved or placed onto (R10.6.7).
    Segment,
}

impl LinkLoss {
    /// The word files and scripts use for it: `whole` or `segment`.
    pub const fn name(self) -> &'static str {
        match self {
            LinkLoss::Whole => "whole",
            LinkLoss::Segment => "segment",
        }
    }

    /// Reads [`Self::name`].
    pub fn parse(s: &str) -> Option<LinkLoss> {
        match s {
            "whole" => Some(LinkLoss::Whole),
            "segment" => Some(LinkLoss::Segment),
            _ => None,
        }
    }
}
