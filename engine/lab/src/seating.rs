//! Where game `k` of a series sits ([`Seating`]) and its match seed ([`game_seed`]): one rule
//! for `hexforge matches`, `hexforge balance` and the editor's Balance panel.

/// Where game `k` of a series of pairings sits: which pairing, whether its second army sits
/// first, and whether the two bots play each other's army. Each pairing alternates which army
/// sits first; with two different bots, the bots swap armies every other pair of games, so each
/// army is played by each bot in each seat as often (otherwise the stronger bot's wins would go
/// to whichever army it always played). A lineup of teams (`pairings` of one) keeps its order
/// and bots when `fixed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seating {
    /// The pairing's index.
    pub pairing: usize,
    /// The pairing's second army sits first.
    pub swapped: bool,
    /// The second bot plays the pairing's first army.
    pub bots_swapped: bool,
}

impl Seating {
    /// Game `k` of a series of `pairings` pairings; `two_bots` when the bots differ; `fixed`
    /// for a lineup of teams, which never swaps.
    pub fn of(k: usize, pairings: usize, two_bots: bool, fixed: bool) -> Seating {
        let round = k / pairings.max(1);
        Seating {
            pairing: k % pairings.max(1),
            swapped: !fixed && round % 2 == 1,
            bots_swapped: !fixed && two_bots && (round / 2) % 2 == 1,
        }
    }
}

/// The match seed of game `k` of a series seeded `seed` (its game's and bots' seeds follow,
/// `hexforge_bots::match_seeds`).
pub fn game_seed(seed: u64, k: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9).wrapping_add(k as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_army_gets_each_seat_and_each_bot_equally_over_four_rounds() {
        // Two pairings, two bots: 8 games are 4 rounds.
        let mut seen = std::collections::BTreeSet::new();
        for k in 0..8 {
            let s = Seating::of(k, 2, true, false);
            seen.insert((s.pairing, s.swapped, s.bots_swapped));
        }
        assert_eq!(
            seen.len(),
            8,
            "every pairing in every seat order with every bot order"
        );
    }

    #[test]
    fn a_lineup_of_teams_never_swaps() {
        for k in 0..8 {
            let s = Seating::of(k, 1, true, true);
            assert!(!s.swapped && !s.bots_swapped);
        }
    }

    #[test]
    fn game_seeds_of_one_series_differ() {
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
        assert_ne!(game_seed(1, 0), game_seed(2, 0));
    }
}
