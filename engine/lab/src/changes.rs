//! What a change of content did to the armies' tiles, a line per field ([`tile_changes`]):
//! what the diff of a tweak names before its verdicts.

use hexforge_core::Catalog;

/// What changed in the tiles of `armies` from `before` to `after`: a line per tile added,
/// removed, or with a printed field changed (`moloch/juggernaut: toughness 1 -> 2`).
pub fn tile_changes(before: &Catalog, after: &Catalog, armies: &[String]) -> Vec<String> {
    let describe = |c: &Catalog, t: hexforge_core::TileRef| {
        let d = c.get(t);
        vec![
            ("kind", d.kind.name().to_string()),
            ("count", d.count.to_string()),
            ("initiative", format!("{:?}", d.initiative.values())),
            ("toughness", d.toughness.to_string()),
            ("mobile", d.mobile.to_string()),
            (
                "edges",
                hexforge_content::edges::feature_strings(&d.edges).join(" "),
            ),
            ("module", format!("{:?}", d.module)),
            ("aura", format!("{:?}", d.aura)),
            (
                "abilities",
                d.abilities
                    .iter()
                    .map(|a| a.hook.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        ]
    };
    let mut lines = Vec::new();
    for army in armies {
        let ids = |c: &Catalog| -> Vec<String> {
            c.army(army)
                .map(|a| a.tiles.iter().map(|&t| c.get(t).full_id()).collect())
                .unwrap_or_default()
        };
        let (was, is) = (ids(before), ids(after));
        for id in &was {
            match (before.find(id), after.find(id)) {
                (Some(b), Some(a)) => {
                    for ((field, x), (_, y)) in
                        describe(before, b).into_iter().zip(describe(after, a))
                    {
                        if x != y {
                            lines.push(format!("{id}: {field} {x} -> {y}"));
                        }
                    }
                }
                _ => lines.push(format!("{id}: removed")),
            }
        }
        for id in is.iter().filter(|i| !was.contains(i)) {
            lines.push(format!("{id}: added"));
        }
    }
    lines
}
