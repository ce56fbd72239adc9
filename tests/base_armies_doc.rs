//! docs/BASE_ARMIES.md says what the four base army files say: every row of its tile tables matches
//! the tile of `mods/base/armies/<army>.toml` its `Id` column names, cell by cell, every tile of
//! those files has a row, and no row names a tile they do not have.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The base armies, as their files are named in `mods/base/armies`.
const ARMIES: [&str; 4] = ["moloch", "outpost", "borgo", "hegemony"];

/// The header of a tile table, each column with the TOML field it shows.
const COLUMNS: [(&str, &str); 11] = [
    ("Tile", "name"),
    ("Id", "id"),
    ("Kind", "kind"),
    ("Count", "count"),
    ("Initiative", "initiative"),
    ("HP", "toughness"),
    ("Mobility", "mobile"),
    ("Attacks", "edges (melee, ranged)"),
    ("Armor, nets, links", "edges (armor, net, link)"),
    ("Effect", "tile.module / tile.aura"),
    ("Abilities", "tile.ability"),
];

/// Edge names in the tile's own frame, edge 0 first (docs/ARMY_FORMAT.md, "Edges").
const EDGES: [&str; 6] = [
    "front",
    "front-right",
    "back-right",
    "back",
    "back-left",
    "front-left",
];

/// The module and aura keys in the order the `Effect` column lists them, with their words.
const EFFECTS: [(&str, &str); 4] = [
    ("melee", "melee"),
    ("ranged", "ranged"),
    ("initiative", "initiative"),
    ("enemy_initiative", "enemy initiative"),
];

/// The workspace root: the acceptance crate sits one folder below it.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the acceptance crate sits one folder below the workspace root")
        .to_path_buf()
}

/// The `[[tile]]` tables of every base army file, by army id.
fn load_armies(root: &Path) -> BTreeMap<String, Vec<toml::Table>> {
    ARMIES
        .iter()
        .map(|army| {
            let path = root.join(format!("mods/base/armies/{army}.toml"));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let file: toml::Table = text
                .parse()
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let tiles = file
                .get("tile")
                .and_then(toml::Value::as_array)
                .map(|tiles| tiles.iter().filter_map(|t| t.as_table().cloned()).collect())
                .unwrap_or_default();
            (army.to_string(), tiles)
        })
        .collect()
}

/// The text of a string field of a tile, empty when it is missing.
fn text<'a>(tile: &'a toml::Table, key: &str) -> &'a str {
    tile.get(key).and_then(toml::Value::as_str).unwrap_or("")
}

/// Edge numbers as the tables write them: names in edge order, or "on every edge".
fn edge_words(list: &str) -> String {
    let mut edges: Vec<usize> = list.split(',').filter_map(|e| e.parse().ok()).collect();
    edges.sort_unstable();
    if edges == [0, 1, 2, 3, 4, 5] {
        return "on every edge".to_string();
    }
    let words: Vec<&str> = edges
        .iter()
        .filter_map(|&e| EDGES.get(e).copied())
        .collect();
    words.join(", ")
}

/// A `[tile.module]` or `[tile.aura]` table in words: "+1 melee, +1 initiative", "medic".
fn effect_words(effects: &toml::Table) -> String {
    let mut parts: Vec<String> = EFFECTS
        .iter()
        .filter_map(|(key, word)| {
            let value = effects.get(*key)?.as_integer()?;
            Some(format!("{value:+} {word}"))
        })
        .collect();
    if effects.get("medic").and_then(toml::Value::as_bool) == Some(true) {
        parts.push("medic".to_string());
    }
    parts.join(", ")
}

/// Cells joined with `sep`, or "–" when there are none.
fn or_dash(cells: Vec<String>, sep: &str) -> String {
    if cells.is_empty() {
        "–".to_string()
    } else {
        cells.join(sep)
    }
}

/// The row a tile of `army` must have, one cell per column of [`COLUMNS`], as the TOML gives it.
fn expected_row(army: &str, tile: &toml::Table) -> Vec<String> {
    let kind = text(tile, "kind");
    let int = |key: &str| tile.get(key).and_then(toml::Value::as_integer);
    let initiative: Vec<String> = tile
        .get("initiative")
        .and_then(toml::Value::as_array)
        .map(|values| values.iter().map(ToString::to_string).collect())
        .unwrap_or_default();
    let hp = match (kind, int("toughness").unwrap_or(0)) {
        ("hq", _) => "20".to_string(),
        ("instant", _) => "–".to_string(),
        (_, 0) => "1".to_string(),
        (_, t) => format!("{} (toughness {t})", 1 + t),
    };
    let mobile = tile.get("mobile").and_then(toml::Value::as_bool) == Some(true);
    let (mut attacks, mut others) = (Vec::new(), Vec::new());
    for edge in tile
        .get("edges")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
    {
        let (feature, edges) = edge
            .as_str()
            .unwrap_or("")
            .split_once('@')
            .unwrap_or(("", ""));
        match feature.split_once(':') {
            Some((attack, strength)) => {
                attacks.push(format!("{attack} {strength} {}", edge_words(edges)));
            }
            None => {
                let word = if feature == "link" { "links" } else { feature };
                others.push(format!("{word} {}", edge_words(edges)));
            }
        }
    }
    let mut effects = Vec::new();
    if let Some(module) = tile.get("module").and_then(toml::Value::as_table) {
        effects.push(effect_words(module));
    }
    if let Some(aura) = tile.get("aura").and_then(toml::Value::as_table) {
        effects.push(format!("aura {}", effect_words(aura)));
    }
    let abilities: Vec<String> = tile
        .get("ability")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_table)
        .map(|ability| {
            let params: Vec<String> = ability
                .get("params")
                .and_then(toml::Value::as_table)
                .into_iter()
                .flatten()
                .map(|(key, value)| format!("{key} = {value}"))
                .collect();
            if params.is_empty() {
                text(ability, "hook").to_string()
            } else {
                format!("{} ({})", text(ability, "hook"), params.join(", "))
            }
        })
        .collect();
    vec![
        text(tile, "name").to_string(),
        format!("{army}/{}", text(tile, "id")),
        if kind == "hq" { "HQ" } else { kind }.to_string(),
        int("count").map(|c| c.to_string()).unwrap_or_default(),
        or_dash(initiative, ", "),
        hp,
        if mobile { "yes" } else { "–" }.to_string(),
        or_dash(attacks, "; "),
        or_dash(others, "; "),
        or_dash(effects, "; "),
        or_dash(abilities, ", "),
    ]
}

/// The cells of a Markdown table line, trimmed, without backticks.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner
        .split('|')
        .map(|cell| cell.replace('`', "").trim().to_string())
        .collect()
}

/// The rows of every tile table of a Markdown text (a table whose header is [`COLUMNS`]), each with
/// its line number. The `Tile` cell loses its note marks (`Officer II [H6]` reads `Officer II`).
fn tile_rows(doc: &str) -> Vec<(usize, Vec<String>)> {
    let header: Vec<&str> = COLUMNS.iter().map(|(column, _)| *column).collect();
    let mut in_table = false;
    let mut rows = Vec::new();
    for (i, line) in doc.lines().enumerate() {
        if !line.trim_start().starts_with('|') {
            in_table = false;
            continue;
        }
        let mut row = cells(line);
        if row == header {
            in_table = true;
        } else if in_table && !row.iter().all(|c| c.starts_with("--")) {
            if let Some(name) = row.first_mut() {
                *name = name.split(" [").next().unwrap_or("").to_string();
            }
            rows.push((i + 1, row));
        }
    }
    rows
}

/// Every disagreement between a text of docs/BASE_ARMIES.md and the army files, each naming the
/// army, the tile and the field.
fn disagreements(doc: &str, armies: &BTreeMap<String, Vec<toml::Table>>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (line, row) in tile_rows(doc) {
        let id = row.get(1).cloned().unwrap_or_default();
        let (army, tile_id) = id.split_once('/').unwrap_or(("", &id));
        let Some(tiles) = armies.get(army) else {
            problems.push(format!(
                "line {line}: the row `{id}` names no base army (use `army/tile`, army one of {ARMIES:?})"
            ));
            continue;
        };
        let Some(tile) = tiles.iter().find(|t| text(t, "id") == tile_id) else {
            problems.push(format!(
                "line {line}: army {army}, tile {tile_id}: mods/base/armies/{army}.toml has no such tile: remove the row"
            ));
            continue;
        };
        if let Some(first) = seen.insert(id.clone(), line) {
            problems.push(format!(
                "line {line}: army {army}, tile {tile_id}: a second row (the first is at line {first})"
            ));
        }
        if row.len() != COLUMNS.len() {
            problems.push(format!(
                "line {line}: army {army}, tile {tile_id}: {} cells, the table has {}",
                row.len(),
                COLUMNS.len()
            ));
            continue;
        }
        for ((column, field), (wrote, wanted)) in
            COLUMNS.iter().zip(row.iter().zip(expected_row(army, tile)))
        {
            if *wrote != wanted {
                problems.push(format!(
                    "line {line}: army {army}, tile {tile_id}, field `{field}` (column {column}): \
                     the doc says `{wrote}`, {army}.toml says `{wanted}`"
                ));
            }
        }
    }
    for (army, tiles) in armies {
        for tile in tiles {
            let id = format!("{army}/{}", text(tile, "id"));
            if !seen.contains_key(&id) {
                problems.push(format!(
                    "army {army}, tile {}: in {army}.toml but no row of the doc: add the row `{id}`",
                    text(tile, "id")
                ));
            }
        }
    }
    problems
}

/// The doc and the army files, read from the checkout.
fn doc_and_armies() -> (String, BTreeMap<String, Vec<toml::Table>>) {
    let root = root();
    let doc = std::fs::read_to_string(root.join("docs/BASE_ARMIES.md"))
        .expect("docs/BASE_ARMIES.md is readable");
    (doc, load_armies(&root))
}

/// Every row of docs/BASE_ARMIES.md matches its army file, and every tile has a row.
#[test]
fn the_base_armies_doc_matches_the_army_files() {
    let (doc, armies) = doc_and_armies();
    let tiles: usize = armies.values().map(Vec::len).sum();
    assert!(tiles >= 60, "only {tiles} tiles read from mods/base/armies");
    let problems = disagreements(&doc, &armies);
    assert!(
        problems.is_empty(),
        "docs/BASE_ARMIES.md disagrees with mods/base/armies in {} places (the TOML files are the \
         truth: correct the doc):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// A wrong count in a row is reported with its army, tile and field.
#[test]
fn the_check_catches_a_wrong_count() {
    let (doc, armies) = doc_and_armies();
    let row = doc
        .lines()
        .find(|line| line.contains("`borgo/mutant`"))
        .expect("a row for the Borgo Mutant");
    let wrong = doc.replace(row, &row.replacen("| 6 |", "| 5 |", 1));
    assert_ne!(wrong, doc, "the Mutant row has a count cell of 6");
    let problems = disagreements(&wrong, &armies);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(
        problems[0].contains("army borgo, tile mutant, field `count`")
            && problems[0].contains("the doc says `5`, borgo.toml says `6`"),
        "{}",
        problems[0]
    );
}

/// A missing row and a row for a tile no army file has are both reported.
#[test]
fn the_check_catches_missing_and_unknown_rows() {
    let (doc, armies) = doc_and_armies();
    let row = doc
        .lines()
        .find(|line| line.contains("`hegemony/officer_2`"))
        .expect("a row for the Hegemony Officer II");
    let changed = doc.replace(
        row,
        &row.replace("hegemony/officer_2", "hegemony/officer_3"),
    );
    let problems = disagreements(&changed, &armies);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].contains(
        "army hegemony, tile officer_3: mods/base/armies/hegemony.toml has no such tile"
    ));
    assert!(problems[1].contains("army hegemony, tile officer_2: in hegemony.toml but no row"));
}
