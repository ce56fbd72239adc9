//! The statistics of a series: the 95% Wilson interval of a rate ([`wilson`]) and whether a
//! rate moved beyond noise between two runs of the same seeds ([`Shift`]).

/// The two-sided 95% normal quantile.
const Z95: f64 = 1.959_964;

/// The 95% Wilson interval of `wins` out of `n`: (low, high), both 0 for no games.
pub fn wilson(wins: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let z = Z95;
    let (n, p) = (n as f64, wins as f64 / n as f64);
    let d = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / d;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// A percentage with its 95% interval, `52.3% (48.1-56.5)`; `-` for no games.
pub fn percent(wins: u64, n: u64) -> String {
    if n == 0 {
        return "-".to_string();
    }
    let (lo, hi) = wilson(wins, n);
    format!(
        "{:.1}% ({:.1}-{:.1})",
        100.0 * wins as f64 / n as f64,
        100.0 * lo,
        100.0 * hi
    )
}

/// How a win rate moved from one run to another: both rates, the change, its 95% margin (two
/// proportions, normal approximation) and whether the change is beyond it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shift {
    /// The rate before, 0 to 1.
    pub before: f64,
    /// The rate after.
    pub after: f64,
    /// `after - before`.
    pub change: f64,
    /// The change's 95% margin.
    pub margin: f64,
    /// Whether `|change| > margin` (never with no variance).
    pub significant: bool,
}

impl Shift {
    /// From `w1` wins of `n1` games to `w2` of `n2`.
    pub fn of(w1: u64, n1: u64, w2: u64, n2: u64) -> Shift {
        let (n1, n2) = (n1.max(1) as f64, n2.max(1) as f64);
        let (p1, p2) = (w1 as f64 / n1, w2 as f64 / n2);
        let se = (p1 * (1.0 - p1) / n1 + p2 * (1.0 - p2) / n2).sqrt();
        let margin = Z95 * se;
        let change = p2 - p1;
        Shift {
            before: p1,
            after: p2,
            change,
            margin,
            significant: se > 0.0 && change.abs() > margin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_of_half_of_a_hundred_is_about_ten_points_each_way() {
        let (lo, hi) = wilson(50, 100);
        assert!(
            (lo - 0.404).abs() < 0.002 && (hi - 0.596).abs() < 0.002,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 0.0));
        let (lo, hi) = wilson(0, 10);
        assert!(lo == 0.0 && hi > 0.2);
    }

    #[test]
    fn a_shift_of_nine_points_over_a_thousand_games_is_significant_and_one_point_is_not() {
        assert!(Shift::of(320, 1000, 410, 1000).significant);
        assert!(!Shift::of(320, 1000, 330, 1000).significant);
        assert!(
            !Shift::of(0, 10, 0, 10).significant,
            "no variance, no verdict"
        );
    }
}
