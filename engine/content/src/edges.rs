//! Edge feature strings: `melee:2@0`, `ranged:1@1,5`, `armor@0,2,4`, `net@0`, `link@0,1,5`.

use hexforge_core::tile::EdgeIcons;

/// A feature list entry that could not be read; `offset` is in characters from the string start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeError {
    /// Where the problem starts, in characters from the start of the feature string.
    pub offset: usize,
    /// What is wrong, with the features allowed where that helps.
    pub message: String,
}

const FEATURES: &str = "melee:S, ranged:S, armor, net, link";

/// The feature strings that give `edges`, as an army file writes them: melee and ranged by
/// strength, then armor, nets and links, each with the edges that share it in increasing order
/// (`["melee:2@0", "ranged:1@1,5", "armor@0,2,4"]`). Reading them back gives the same edges.
pub fn feature_strings(edges: &[EdgeIcons; 6]) -> Vec<String> {
    let list = |keep: &dyn Fn(&EdgeIcons) -> bool| -> Option<String> {
        let at: Vec<String> = (0..6)
            .filter(|&i| keep(&edges[i]))
            .map(|i| i.to_string())
            .collect();
        (!at.is_empty()).then(|| at.join(","))
    };
    let mut out = Vec::new();
    for (name, get) in [
        ("melee", (|e: &EdgeIcons| e.melee) as fn(&EdgeIcons) -> u8),
        ("ranged", |e: &EdgeIcons| e.ranged),
    ] {
        for strength in 1..=9u8 {
            if let Some(at) = list(&|e| get(e) == strength) {
                out.push(format!("{name}:{strength}@{at}"));
            }
        }
    }
    for (name, get) in [
        ("armor", (|e: &EdgeIcons| e.armor) as fn(&EdgeIcons) -> bool),
        ("net", |e: &EdgeIcons| e.net),
        ("link", |e: &EdgeIcons| e.link),
    ] {
        if let Some(at) = list(&get) {
            out.push(format!("{name}@{at}"));
        }
    }
    out
}

/// Adds one feature string to `edges`.
pub fn apply_feature(edges: &mut [EdgeIcons; 6], text: &str) -> Result<(), EdgeError> {
    let err = |offset: usize, message: String| EdgeError { offset, message };
    let Some((head, list)) = text.split_once('@') else {
        return Err(err(
            0,
            format!("`{text}` needs `@` and edge numbers, e.g. `melee:2@0` or `armor@0,2,4`"),
        ));
    };
    let (name, strength) = match head.split_once(':') {
        Some((n, s)) => {
            let v: u8 = s.trim().parse().map_err(|_| {
                err(
                    n.len() + 1,
                    format!("strength `{s}` is not a number from 1 to 3: write e.g. `melee:2@0`"),
                )
            })?;
            (n.trim(), Some(v))
        }
        None => (head.trim(), None),
    };
    let needs_strength = matches!(name, "melee" | "ranged");
    if matches!(name, "pierce" | "gauss") {
        return Err(err(
            0,
            format!(
                "`{name}` is not an edge feature: a shot that hits every enemy on its line is an ability; write `ranged:S@e` and bind `[[tile.ability]] hook = \"line_shot\"`"
            ),
        ));
    }
    if !needs_strength && !matches!(name, "armor" | "net" | "link") {
        return Err(err(
            0,
            format!(
                "unknown edge feature `{name}`{}: use one of {FEATURES}",
                hexforge_core::names::did_you_mean(
                    name,
                    ["melee", "ranged", "armor", "net", "link"]
                )
            ),
        ));
    }
    let strength = match (needs_strength, strength) {
        (true, Some(s)) if (1..=3).contains(&s) => s,
        (true, Some(s)) => {
            return Err(err(
                name.len() + 1,
                format!("strength {s} is out of range: use 1 to 3 (R3.8)"),
            ));
        }
        (true, None) => {
            return Err(err(
                0,
                format!("`{name}` needs a strength, e.g. `{name}:1@0`"),
            ));
        }
        (false, Some(_)) => {
            return Err(err(
                0,
                format!("`{name}` takes no strength: write `{name}@...`"),
            ));
        }
        (false, None) => 0,
    };
    let base = head.len() + 1;
    let mut pos = base;
    if list.trim().is_empty() {
        return Err(err(
            base,
            format!("`{text}` lists no edges: give numbers 0 to 5"),
        ));
    }
    for part in list.split(',') {
        let e: usize = match part.trim().parse() {
            Ok(e) if e < 6 => e,
            _ => {
                return Err(err(
                    pos,
                    format!(
                        "edge `{}` is not a number from 0 to 5: number the edges 0 (front) to 5, clockwise",
                        part.trim()
                    ),
                ));
            }
        };
        let icons = &mut edges[e];
        let already = match name {
            "melee" => std::mem::replace(&mut icons.melee, strength) != 0,
            "ranged" => std::mem::replace(&mut icons.ranged, strength) != 0,
            "armor" => std::mem::replace(&mut icons.armor, true),
            "net" => std::mem::replace(&mut icons.net, true),
            _ => std::mem::replace(&mut icons.link, true),
        };
        if already {
            return Err(err(
                pos,
                format!("edge {e} already has `{name}`: give each feature once per edge"),
            ));
        }
        pos += part.len() + 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_strings_read_back_as_the_same_edges() {
        let mut edges = [EdgeIcons::default(); 6];
        for f in [
            "melee:2@0",
            "ranged:1@1,5",
            "armor@0,2,4",
            "net@3",
            "link@0,1",
        ] {
            apply_feature(&mut edges, f).expect("a feature");
        }
        let written = feature_strings(&edges);
        assert_eq!(
            written,
            [
                "melee:2@0",
                "ranged:1@1,5",
                "armor@0,2,4",
                "net@3",
                "link@0,1"
            ]
        );
        let mut again = [EdgeIcons::default(); 6];
        for f in &written {
            apply_feature(&mut again, f).expect("a feature");
        }
        assert_eq!(again, edges);
    }

    fn parse(list: &[&str]) -> Result<[EdgeIcons; 6], EdgeError> {
        let mut e = [EdgeIcons::default(); 6];
        for s in list {
            apply_feature(&mut e, s)?;
        }
        Ok(e)
    }

    #[test]
    fn features_land_on_their_edges() {
        let e = parse(&["melee:2@0", "ranged:1@1", "armor@0,2,4"]).expect("valid");
        assert_eq!(e[0].melee, 2);
        assert_eq!(e[1].ranged, 1);
        assert!(e[0].armor && e[2].armor && e[4].armor && !e[1].armor);
    }

    #[test]
    fn bad_features_are_explained_with_their_position() {
        let cases = [
            ("melee@0", 0, "needs a strength"),
            ("melee:4@0", 6, "out of range"),
            ("armor:1@0", 0, "takes no strength"),
            ("laser:1@0", 0, "unknown edge feature"),
            ("net@0,6", 6, "not a number from 0 to 5"),
            ("net", 0, "needs `@`"),
            ("net@1,1", 6, "already has"),
        ];
        for (text, offset, msg) in cases {
            let e = parse(&[text]).expect_err(text);
            assert_eq!(e.offset, offset, "{text}");
            assert!(e.message.contains(msg), "{text}: {}", e.message);
        }
    }
}
