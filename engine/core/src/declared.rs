//! What a game rule declares as data instead of answering in a script: its actions' targets
//! (`targets = { spots = ... }`, `targets = { pile = ... }`), the counters its actions and
//! restrictions wait for (`at_least`, `below`) and its restrictions (`restrict = { ... }` as a
//! list). The engine works these out itself after every action, with no call into a script
//! (docs/RULESETS.md, "Declared targets and restrictions").

use crate::marker_name::MarkerName;

/// The kinds of action a rule's `restrict` may close, as flags.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Closed(u8);

impl Closed {
    /// Nothing is closed.
    pub const NONE: Closed = Closed(0);
    /// Placing tiles from the hand (HQs during setup are [`Closed::HQ`]).
    pub const PLACE: Closed = Closed(1);
    /// Playing instants (the Battle tile included).
    pub const INSTANT: Closed = Closed(1 << 1);
    /// Mobility moves.
    pub const MOVE: Closed = Closed(1 << 2);
    /// Discarding beyond the compulsory discard of a full hand (which is never closed).
    pub const DISCARD: Closed = Closed(1 << 3);
    /// The bad-draw redraw (R2.6).
    pub const REDRAW: Closed = Closed(1 << 4);
    /// Placing the HQ during setup (R2.3): the player has the rule's actions to take first.
    pub const HQ: Closed = Closed(1 << 5);
    /// Every kind with its name in scripts.
    pub const ALL: [(Closed, &'static str); 6] = [
        (Closed::PLACE, "place"),
        (Closed::INSTANT, "instant"),
        (Closed::MOVE, "move"),
        (Closed::DISCARD, "discard"),
        (Closed::REDRAW, "redraw"),
        (Closed::HQ, "hq"),
    ];

    /// The kind of action named `word` in scripts, or why it is none: the message names the
    /// closest kind and lists them all.
    pub fn named(word: &str) -> Result<Closed, String> {
        Closed::ALL
            .iter()
            .find(|(_, n)| *n == word)
            .map(|(k, _)| *k)
            .ok_or_else(|| {
                format!(
                    "`{word}` is no kind of action{}: close place, instant, move, discard, redraw or hq",
                    crate::names::did_you_mean(word, Closed::ALL.iter().map(|(_, n)| *n))
                )
            })
    }

    /// The flags as a number (bit 0 `place`, then the order of [`Closed::ALL`]).
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether every kind of `other` is closed.
    pub const fn contains(self, other: Closed) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets of kinds.
    pub const fn union(self, other: Closed) -> Closed {
        Closed(self.0 | other.0)
    }
}

/// Counters on the player whose turn it is that something waits for: `at_least = { n = 2 }`
/// holds while the player's marker `n` has a value of 2 or more, `below = { n = 2 }` while it
/// has less (a marker the player does not carry counts 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// `at_least`: each marker with the least value it must have.
    pub at_least: Vec<(MarkerName, i16)>,
    /// `below`: each marker with the value it must stay under.
    pub below: Vec<(MarkerName, i16)>,
}

impl Counts {
    /// The first count that does not hold, given the value of each marker on the player (0 for
    /// one they do not carry): the marker, its value, and whether it had to be at least (true)
    /// or below (false) the value declared.
    pub fn failing(&self, value: impl Fn(MarkerName) -> i16) -> Option<(MarkerName, i16, bool)> {
        if let Some((m, n)) = self.at_least.iter().find(|(m, n)| value(*m) < *n) {
            return Some((*m, *n, true));
        }
        self.below
            .iter()
            .find(|(m, n)| value(*m) >= *n)
            .map(|(m, n)| (*m, *n, false))
    }

    /// Whether it declares nothing.
    pub fn is_empty(&self) -> bool {
        self.at_least.is_empty() && self.below.is_empty()
    }
}

/// A hex a declared `spots` grows from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpotFrom {
    /// `"hq"`: the hex of the HQ of the player whose turn it is.
    Hq,
    /// `{ marked = "name" }`: the hex carrying the hex marker `name` whose value is the number
    /// of the player whose turn it is (as scripts count players, from 1).
    Marked(MarkerName),
}

/// A rule action's targets declared as data (`targets = { ... }` as a table rather than a
/// function): the engine lists them itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclaredTargets {
    /// `{ spots = { from = { ... }, size = N } }`: the free hexes (no tile, no segment of a
    /// linked unit) from which the `from` hexes can grow, through free hexes alone, into `size`
    /// hexes in one piece: where the next hex of a linked unit of `size` may go. Nothing when a
    /// `from` hex is missing or already a segment of a linked unit.
    Spots {
        /// The hexes the unit holds already.
        from: Vec<SpotFrom>,
        /// How many hexes the whole unit takes, 2 to 7.
        size: u8,
    },
    /// `{ pile = { "soldier", "module" } }`: the tiles of the acting player's army of those
    /// kinds of which a copy is in their draw pile, one target per tile (not per copy).
    Pile {
        /// The kinds, one bit per [`crate::tile::TileKind`] in its order (HQ 1, soldier 2,
        /// module 4, instant 8).
        kinds: u8,
    },
}

impl DeclaredTargets {
    /// What a refusal says when it lists nothing and the action gives no `why`.
    pub fn none_listed(&self) -> &'static str {
        match self {
            DeclaredTargets::Spots { .. } => {
                "no free hexes make the whole unit in one piece with the hexes it holds"
            }
            DeclaredTargets::Pile { .. } => "no tile of the kinds it takes is in the draw pile",
        }
    }
}

/// A declared target list with what the refusal says when it is empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    /// What the targets are.
    pub targets: DeclaredTargets,
    /// `why`: the reason given when a player takes the action while it lists nothing although
    /// the hexes it grows from are there (the engine's own words when empty).
    pub why: String,
}

/// One entry of a rule's `restrict` declared as a list: while every condition it gives holds
/// for the player whose turn it is, it closes what it names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeclaredRestriction {
    /// `stages`: the stages it holds in, as `RuleAction::stages` flags (0: every stage).
    pub stages: u8,
    /// `marker`: a player marker the player must carry.
    pub marker: Option<MarkerName>,
    /// `lacks`: player markers the player must not carry.
    pub lacks: Vec<MarkerName>,
    /// `at_least` and `below`: counters on the player.
    pub counts: Counts,
    /// `offered`: the index, in its rule, of an action that must be offered now (its targets
    /// not empty).
    pub offered: Option<u8>,
    /// `close`: the kinds of action it closes.
    pub close: Closed,
    /// `place_only = { empty_segments = "kind" }`: tiles are placed from the hand only on the
    /// empty segments of the player's own linked units of that kind.
    pub place_only_segments: Option<MarkerName>,
}
