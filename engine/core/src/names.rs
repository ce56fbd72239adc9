//! Closest known names: every message about an unknown name (an army, a tile, a mod, a preset,
//! an option key or value, a step kind, a field) suggests the known one it was most likely meant
//! to be, worked out here and nowhere else.

/// The edit distance between two names (insertions, deletions, substitutions and swaps of two
/// neighbouring characters), ignoring case and reading `-` as `_`.
pub fn distance(a: &str, b: &str) -> usize {
    let norm = |s: &str| -> Vec<char> {
        s.chars()
            .flat_map(char::to_lowercase)
            .map(|c| if c == '-' { '_' } else { c })
            .collect()
    };
    let (a, b) = (norm(a), norm(b));
    // Three rows of the optimal string alignment table.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

/// The known name closest to `name`, when one is close enough to be a likely misspelling (at
/// most one edit in three characters, at least one, and never a whole name changed); the first
/// of equally close ones. A name cut short (`clockwork/cog` for `clockwork/cog_soldier`: three
/// characters at least, not ending with `/` or `_`) suggests the shortest known name it starts,
/// before any misspelling.
///
/// The distance is worked out only for names whose lengths are close enough for it to be small
/// (it is at least the difference of the lengths), and never for a name longer than
/// [`LONGEST_SUGGESTED`]: a script or a file may pass a key of megabytes, and comparing it with
/// every known name would take time in proportion to its length times theirs.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = name.chars().count();
    if len > LONGEST_SUGGESTED {
        return None;
    }
    let known: Vec<&'a str> = known.into_iter().collect();
    let lower = name.to_lowercase();
    if len >= 3 && !name.ends_with(['/', '_']) {
        let cut_short = known
            .iter()
            .filter(|k| k.len() > name.len() && k.to_lowercase().starts_with(&lower))
            .min_by_key(|k| k.len());
        if let Some(k) = cut_short {
            return Some(k);
        }
    }
    known
        .into_iter()
        .filter_map(|k| {
            let klen = k.chars().count();
            let longer = len.max(klen);
            let allowed = (longer / 3).max(1);
            if len.abs_diff(klen) > allowed {
                return None;
            }
            let d = distance(name, k);
            (d <= allowed && d < longer).then_some((d, k))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The longest name a suggestion is looked for: no known name (an id, a key, a word of a format)
/// comes near it.
pub const LONGEST_SUGGESTED: usize = 256;

/// ` (did you mean `x`?)` for the known name closest to `name`, or nothing when none is close.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, known).map_or(String::new(), |k| format!(" (did you mean `{k}`?)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_edits_and_swaps() {
        assert_eq!(distance("moloch", "moloch"), 0);
        assert_eq!(distance("molloch", "moloch"), 1);
        assert_eq!(distance("mlooch", "moloch"), 1);
        assert_eq!(distance("Borgo", "borgo"), 0);
        assert_eq!(distance("tie-breaker", "tie_breaker"), 0);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn the_closest_name_is_suggested_only_when_it_is_close() {
        let armies = ["borgo", "hegemony", "moloch", "outpost", "scrappers"];
        assert_eq!(closest("molloch", armies), Some("moloch"));
        assert_eq!(closest("hegemny", armies), Some("hegemony"));
        assert_eq!(closest("xyz", armies), None);
        assert_eq!(closest("c", ["a", "b"]), None);
        assert_eq!(closest("v4", ["classic", "v3", "v2025"]), Some("v3"));
        assert_eq!(
            did_you_mean("toughnes", ["count", "toughness"]),
            " (did you mean `toughness`?)"
        );
        assert_eq!(did_you_mean("zz", ["a", "count"]), "");
        // A name cut short suggests the name it starts, not a closer-looking other one.
        assert_eq!(
            closest("clockwork/cog", ["clockwork/hq", "clockwork/cog_soldier"]),
            Some("clockwork/cog_soldier")
        );
    }

    #[test]
    fn a_huge_name_gets_no_suggestion_and_costs_no_comparison() {
        // A script once asked for a rule key of 70,000 bytes: the comparison with every key took
        // seconds per call.
        let huge = "w".repeat(70_000);
        assert_eq!(closest(&huge, ["net_cycle_rule", "tie_breaker"]), None);
        let long = "w".repeat(LONGEST_SUGGESTED);
        assert_eq!(
            closest(&long, ["w".repeat(LONGEST_SUGGESTED - 1).as_str()]).map(str::len),
            Some(255)
        );
        // Names of far apart lengths are not compared: the distance could not be small enough
        // (a name cut short is a prefix, found without a distance).
        assert_eq!(closest("tbk", ["tie_breaker"]), None);
        assert_eq!(closest("tie", ["tie_breaker"]), Some("tie_breaker"));
    }
}
