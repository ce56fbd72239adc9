//! docs/RULES.md is the rules reference every test cites: each rule number (`R4.3.5`, `R8.5.5a`)
//! and open question (`Q41`) written anywhere in the repository is defined there, and its
//! Appendix B is the option table of the engine and the shipped mods, value for value.

use hexforge_content::{RuleInfo, mod_presets, rule_info, rule_lines};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the acceptance crate sits one folder below the workspace root")
        .to_path_buf()
}

/// The text files of the repository below `dir` that may cite a rule, skipping build output.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        let name = e.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if e.is_dir() {
            if !name.starts_with('.') && name != "target" {
                files(&e, out);
            }
        } else if ["rs", "md", "toml", "lua"]
            .iter()
            .any(|x| name.ends_with(&format!(".{x}")))
        {
            out.push(e);
        }
    }
}

/// The rule numbers (`R4.3.5`, `R8.5.5a`) and questions (`Q41`) written in `text`, each with
/// its 1-based line.
fn citations(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        for i in 0..b.len() {
            let starts = (b[i] == b'R' || b[i] == b'Q')
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
                && b.get(i + 1).is_some_and(u8::is_ascii_digit);
            if !starts {
                continue;
            }
            let mut j = i + 1;
            while j < b.len()
                && (b[j].is_ascii_digit()
                    || (b[j] == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit)))
            {
                j += 1;
            }
            // A lettered item (`R8.5.5a`) is cited by its rule's number.
            let letter = j < b.len() && b[j].is_ascii_lowercase();
            let end = if letter { j + 1 } else { j };
            if end < b.len() && b[end].is_ascii_alphanumeric() {
                continue; // part of a longer word (`R2D2`, `Q4th`)
            }
            if b[i] == b'R' && !line[i..j].contains('.') {
                continue; // `R2` alone is not a rule number
            }
            out.push((n + 1, line[i..j].to_string()));
        }
    }
    out
}

/// The numbers docs/RULES.md defines: written in bold (`**R4.3.5`, `**Q41`, `**(a) R8.5.5a`) or
/// as a heading (`### R6.1 Nets`).
fn defined(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let heading = line.starts_with('#');
        for (i, _) in line.match_indices("**") {
            let rest = line[i + 2..].trim_start_matches(|c: char| {
                c == '(' || c == ')' || c.is_ascii_lowercase() || c == ' '
            });
            if let Some((_, n)) = citations(rest).first().filter(|(_, n)| rest.starts_with(n)) {
                out.insert(n.clone());
            }
        }
        if heading {
            let rest = line.trim_start_matches('#').trim_start();
            if let Some((_, n)) = citations(rest).first().filter(|(_, n)| rest.starts_with(n)) {
                out.insert(n.clone());
            }
        }
    }
    out
}

/// Every citation of the repository (outside docs/RULES.md) that docs/RULES.md does not define,
/// as `file:line: number`.
fn undefined(root: &Path, rules: &str) -> Vec<String> {
    let known = defined(rules);
    let mut paths = Vec::new();
    for d in [
        "tests", "engine", "editor", "mods", "benches", "docs", "scripts",
    ] {
        files(&root.join(d), &mut paths);
    }
    paths.extend(["README.md", "ARCHITECTURE.md"].map(|f| root.join(f)));
    let mut missing = Vec::new();
    for p in paths {
        if p.ends_with("docs/RULES.md") || p.ends_with("tests/rules_reference.rs") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        for (line, n) in citations(&text) {
            if !known.contains(&n) {
                let at = p.strip_prefix(root).unwrap_or(&p).display().to_string();
                missing.push(format!("{at}:{line}: {n}"));
            }
        }
    }
    missing
}

#[test]
fn every_cited_rule_number_is_in_the_rules_reference() {
    let root = root();
    let rules = std::fs::read_to_string(root.join("docs/RULES.md")).expect("docs/RULES.md");
    assert!(
        defined(&rules).len() > 300,
        "docs/RULES.md defines its rules"
    );
    let missing = undefined(&root, &rules);
    assert!(
        missing.is_empty(),
        "{} citations name a rule or question that docs/RULES.md does not define (write it there, \
         in bold at the start of its item):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn the_citation_check_finds_numbers_the_reference_lacks() {
    let rules =
        "**R1.1 Board.** text\n### R6.1 Nets\n- **(a) R8.5.5a.** x\n- **Q3. A question.**\n";
    let known = defined(rules);
    assert_eq!(
        known.into_iter().collect::<Vec<_>>(),
        ["Q3", "R1.1", "R6.1", "R8.5.5"]
    );
    let cited: Vec<String> = citations("see R1.1, R8.5.5a and R9.9 (Q3, Q4); R2 alone, HR1.1 no")
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert_eq!(cited, ["R1.1", "R8.5.5", "R9.9", "Q3", "Q4"]);
}

/// The lines between the table's two markers in docs/RULES.md.
const TABLE_START: &str = "<!-- option table: written by tests/rules_reference.rs -->";
const TABLE_END: &str = "<!-- end of option table -->";

/// Appendix B's table as the engine and the shipped mods give it: each option with its rule, what
/// it decides, its value under the three edition presets and who declares it.
fn option_table() -> String {
    let root = root();
    let loaded = hexforge_content::load_mods(&[root.join("mods")]);
    assert!(loaded.problems.is_empty(), "{}", loaded.problems);
    let presets = mod_presets(&loaded.mods);
    let declared = loaded.catalog.options();
    let lines = |preset: &str| {
        rule_lines(
            preset,
            &[],
            &presets,
            declared,
            loaded.catalog.implications(),
        )
        .expect("the edition presets build")
    };
    let (classic, v3, v2025) = (lines("classic"), lines("v3"), lines("v2025"));
    let mut out = String::from(
        "| Key | Rule | What it decides | classic | 3.0 (`v3`) | 2025 (`v2025`) | Declared by |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for ((c, v), n) in classic.iter().zip(&v3).zip(&v2025) {
        assert!(
            c.key == v.key && v.key == n.key,
            "the presets list keys in one order"
        );
        let RuleInfo { rule, doc, .. } = rule_info(&c.key, declared).expect("a listed key");
        let by = c
            .declared_by
            .as_deref()
            .map_or("engine".to_string(), |m| format!("mod `{m}`"));
        let cell = |s: String| s.replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {} | {} | `{}` | `{}` | `{}` | {by} |\n",
            c.key,
            if rule.is_empty() {
                "–".to_string()
            } else {
                rule
            },
            cell(doc),
            cell(c.value.to_string()),
            cell(v.value.to_string()),
            cell(n.value.to_string()),
        ));
    }
    out
}

#[test]
fn appendix_b_is_the_option_table_of_the_engine_and_the_mods() {
    let path = root().join("docs/RULES.md");
    let text = std::fs::read_to_string(&path).expect("docs/RULES.md");
    let (Some(start), Some(end)) = (text.find(TABLE_START), text.find(TABLE_END)) else {
        panic!(
            "docs/RULES.md: Appendix B lost its table markers `{TABLE_START}` and `{TABLE_END}`"
        );
    };
    let body = &text[start + TABLE_START.len()..end];
    let want = format!("\n{}", option_table());
    if body != want {
        if std::env::var_os("HEXFORGE_BLESS").is_some() {
            let mut new = text[..start + TABLE_START.len()].to_string();
            new.push_str(&want);
            new.push_str(&text[end..]);
            std::fs::write(&path, new).expect("write docs/RULES.md");
            return;
        }
        let got: Vec<&str> = body.lines().collect();
        let first = want
            .lines()
            .zip(got.iter())
            .position(|(w, g)| w != *g)
            .unwrap_or(got.len().min(want.lines().count()));
        panic!(
            "docs/RULES.md: Appendix B differs from the engine's and the mods' options from its row {first}:\n  doc:    {}\n  engine: {}\nrun `HEXFORGE_BLESS=1 cargo test -p hexforge-acceptance --test rules_reference` to write it again",
            got.get(first).unwrap_or(&"(nothing)"),
            want.lines().nth(first).unwrap_or("(nothing)")
        );
    }
}
