//! The Rust engine knows no tile by name: no id of a base tile with a special ability appears in
//! the engine's sources (`engine/`), except where a specification itself uses the word.

mod common;

use std::path::{Path, PathBuf};

/// The ids of the base tiles whose abilities are scripts (ids of mods/base/armies).
const ABILITY_TILES: [&str; 10] = [
    "gauss_cannon",
    "clown",
    "mother_module",
    "quartermaster",
    "scoper",
    "recon_center",
    "transport",
    "grenade",
    "sniper",
    "air_strike",
];

/// Lines allowed to use one of the words, with why: (file, text the line contains).
const ALLOWED: [(&str, &str); 5] = [
    // The scenario format names three step kinds after the instants they play.
    (
        "engine/scenario/src/file/steps.rs",
        r#""sniper" | "grenade" | "air_strike""#,
    ),
    ("engine/scenario/src/file/steps.rs", r#""sniper" => {"#),
    ("engine/scenario/src/file/steps.rs", r#""grenade" => {"#),
    ("engine/scenario/src/file/steps.rs", r#""air_strike" => {"#),
    (
        "engine/scenario/src/file/steps.rs",
        "push, sniper, grenade, air_strike, instant",
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Whether `word` occurs in `line` as a whole word (letters, digits and `_` around it do not count).
fn has_word(line: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(word).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[test]
fn no_ability_tile_is_named_in_the_engine_sources() {
    let root = common::root();
    let mut files = Vec::new();
    rust_files(&root.join("engine"), &mut files);
    files.sort();
    assert!(files.len() > 20, "the engine sources are found");
    let mut found = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            for id in ABILITY_TILES {
                let allowed = ALLOWED
                    .iter()
                    .any(|(file, part)| rel == *file && line.contains(part));
                if has_word(line, id) && !allowed {
                    found.push(format!("{rel}:{}: `{id}`: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "tile ids in the engine (abilities belong in Lua scripts):\n{}",
        found.join("\n")
    );
}

/// Rule options that belong to an army's abilities: the base mod declares them
/// (mods/base/options.toml), or the engine keeps their mechanic under a generic key
/// (`hijack_scope`, `convert_attack_limit`; docs/DECISIONS.md, "Rule options of armies").
const ARMY_OPTION_KEYS: [&str; 4] = [
    "clown_explosion_mode",
    "scoper_scope",
    "quartermaster_mode",
    "moloch_aoe_tile_name",
];

/// Variants and expansions the core must not name (lowercase; checked against the lowercased
/// sources).
const VARIANT_WORDS: [&str; 7] = [
    "reinforcement",
    "structures",
    "leaders",
    "atlas",
    "king_of_the_hill",
    "king of the hill",
    "monolith",
];

#[test]
fn the_core_names_no_rule_option_of_an_army() {
    let root = common::root();
    let mut files = Vec::new();
    rust_files(&root.join("engine/core"), &mut files);
    files.sort();
    assert!(files.len() > 10, "the core sources are found");
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            for key in ARMY_OPTION_KEYS {
                if line.contains(key) {
                    found.push(format!("{}:{}: `{key}`", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "an army's rule option in the core (declare it in the army's mod):\n{}",
        found.join("\n")
    );
    // Nor any variant or expansion by name: they are options the base mod declares, and games
    // refuse the ones not played yet by a generic rule (`played = false`).
    for (n, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f)
            .unwrap_or_default()
            .to_lowercase();
        for word in VARIANT_WORDS {
            if text.contains(word) {
                found.push(format!("{}: `{word}` ({n})", f.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a variant named in the core (declare its options in a mod):\n{}",
        found.join("\n")
    );
    let declared = std::fs::read_to_string(root.join("mods/base/options.toml"))
        .unwrap_or_else(|e| panic!("mods/base/options.toml: {e}"));
    for key in [
        "clown_explosion_mode",
        "moloch_aoe_tile_name",
        "reinforcements",
    ] {
        assert!(
            declared.contains(&format!("key = \"{key}\"")),
            "the base mod declares `{key}`"
        );
    }
    // King of the Hill (R9.7) is a board of the base mod, not an option.
    assert!(
        root.join("mods/base/boards/king_of_the_hill.toml")
            .is_file(),
        "the base mod ships the King of the Hill board"
    );
}

/// The ids of the base armies, each the first `id` of its file in mods/base/armies.
fn base_armies(root: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    let dir = root.join("mods/base/armies");
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let text = std::fs::read_to_string(e.expect("an army file").path()).unwrap_or_default();
        let id = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("id = "))
            .map(|v| v.trim_matches('"').to_string());
        ids.extend(id);
    }
    ids.sort();
    ids
}

#[test]
fn no_engine_key_names_a_base_army() {
    use hexforge_core::Rules;
    let root = common::root();
    let armies = base_armies(&root);
    assert_eq!(
        armies,
        ["borgo", "hegemony", "moloch", "outpost"],
        "the base armies are read"
    );
    let mut found = Vec::new();
    for key in Rules::KEYS {
        let doc = Rules::key_info(key).map_or("", |i| i.doc).to_lowercase();
        for army in &armies {
            if key.split('_').any(|part| part == army) {
                found.push(format!("`{key}` names `{army}`"));
            }
            if has_word(&doc, army) {
                found.push(format!("the doc of `{key}` names `{army}`: {doc}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "an engine rule option named after an army (name the mechanic, e.g. `ally_attack_rule`):\n{}",
        found.join("\n")
    );
    // A key renamed for this stays readable under its former name, which is no key itself.
    for (old, new) in Rules::ALIASES {
        assert!(
            Rules::KEYS.contains(new),
            "`{old}` becomes the engine key `{new}`"
        );
        assert!(!Rules::KEYS.contains(old) && Rules::is_key(old), "`{old}`");
    }
}

#[test]
fn the_word_check_sees_whole_words_only() {
    assert!(has_word("tile = \"clown\";", "clown"));
    assert!(has_word("a clown b", "clown"));
    assert!(!has_word("clown_explosion_mode", "clown"));
    assert!(!has_word("scoper_scope", "scoper"));
    assert!(!has_word("transports", "transport"));
}
