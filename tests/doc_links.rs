//! Every Markdown link and every doc path in the repository points at something that exists: links
//! (`[text](target)`, images too) at a file or folder beside the document, `#anchors` at a heading of
//! their document, and file paths written in the docs and in Rust comments (`docs/LUA_API.md`,
//! `engine/core/src/game/mod.rs`) at a file of the checkout.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Top-level folders whose paths are real files of this checkout when a document writes them.
const CHECKED_ROOTS: [&str; 7] = [
    "docs", "engine", "editor", "tests", "benches", ".ci", "mods",
];

/// Every file below `dir`, build output and version control left out.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The anchor GitHub gives a heading: lower case, spaces to `-`, punctuation other than `-` and `_`
/// dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown text's headings (outside code blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of the inline links of a Markdown text, with their line numbers (code blocks and
/// code spans left out).
fn links(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push((i + 1, target.to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// Words of a line that look like a path to a document or source file.
fn doc_paths(line: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-');
    line.split(|c: char| !is_path_char(c))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| {
            [".md", ".rs", ".toml", ".lua"]
                .iter()
                .any(|ext| w.ends_with(ext))
        })
        .filter(|w| !w.starts_with('.') || w.starts_with(".ci/"))
        .map(str::to_string)
        .collect()
}

/// What is wrong with one path written in `file`, if anything. A path with folders is looked up
/// from the checkout's root and from every folder between it and `file` (a crate's docs write
/// paths from the crate); one under `mods/` only when its mod folder exists (docs name example mods
/// that a user would make); a bare file name ending in `.md` must name a document somewhere in the repository.
fn path_problem(
    root: &Path,
    file: &Path,
    written: &str,
    names: &BTreeSet<String>,
) -> Option<String> {
    let mut parts = written.split('/');
    let first = parts.next().unwrap_or("");
    if written.contains('/') {
        if !CHECKED_ROOTS.contains(&first) {
            return None;
        }
        if first == "mods"
            && !parts
                .next()
                .is_some_and(|m| root.join("mods").join(m).is_dir())
        {
            return None;
        }
        let found = file
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(root))
            .any(|dir| dir.join(written).exists());
        return (!found).then(|| format!("`{written}` is not a file of the checkout"));
    }
    if !written.ends_with(".md") || names.contains(written) {
        return None;
    }
    Some(format!("`{written}` names no document of the repository"))
}

/// A Markdown line without its link targets (they are checked as links).
fn without_link_targets(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at + 1]);
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) => rest = &after[end + 1..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every dangling link and path of the checkout at `root`, as `file:line: problem`.
fn dangling(root: &Path) -> Vec<String> {
    let mut all = Vec::new();
    files(root, &mut all);
    all.sort();
    let names: BTreeSet<String> = all
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let mut problems = Vec::new();
    for file in &all {
        let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext != "md" && ext != "rs" {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let shown = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        if ext == "md" {
            for (line, target) in links(&text) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
                let doc = if path.is_empty() {
                    file.clone()
                } else {
                    file.parent().map(|d| d.join(path)).unwrap_or_default()
                };
                if !doc.exists() {
                    problems.push(format!(
                        "{shown}:{line}: the link `{target}` points at no file"
                    ));
                    continue;
                }
                if !anchor.is_empty() && doc.extension().is_some_and(|e| e == "md") {
                    let heads = anchors(&std::fs::read_to_string(&doc).unwrap_or_default());
                    if !heads.contains(anchor) {
                        problems.push(format!(
                            "{shown}:{line}: the link `{target}` points at no heading of {}",
                            doc.file_name()
                                .map(|n| n.to_string_lossy())
                                .unwrap_or_default()
                        ));
                    }
                }
            }
        }
        for (i, line) in text.lines().enumerate() {
            let prose = ext == "md" || line.trim_start().starts_with("//");
            if !prose {
                continue;
            }
            let line = if ext == "md" {
                without_link_targets(line)
            } else {
                line.to_string()
            };
            for written in doc_paths(&line) {
                if let Some(problem) = path_problem(root, file, &written, &names) {
                    problems.push(format!("{shown}:{}: {problem}", i + 1));
                }
            }
        }
    }
    problems
}

#[test]
fn every_link_and_doc_path_points_at_a_file() {
    let problems = dangling(&common::root());
    assert!(
        problems.is_empty(),
        "{} dangling links or paths (fix the path, or write the document):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_link_check_catches_dangling_links_anchors_and_paths() {
    let dir = common::fresh_dir("doc-links");
    std::fs::create_dir_all(dir.join("docs")).expect("a docs folder");
    std::fs::write(dir.join("docs/A.md"), "# Real heading\n").expect("write");
    std::fs::write(
        dir.join("README.md"),
        "See [a](docs/A.md#real-heading), [b](docs/B.md), [c](docs/A.md#nowhere) and `docs/C.md`.\n\
         ```\n[ignored](in/code.md)\n```\n",
    )
    .expect("write");
    let problems = dangling(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("README.md:1: the link `docs/B.md`"));
    assert!(problems[1].contains("`docs/A.md#nowhere` points at no heading"));
    assert!(problems[2].contains("`docs/C.md` is not a file"));
}

#[test]
fn slugs_follow_github_anchors() {
    assert_eq!(slug(" The editor"), "the-editor");
    assert_eq!(slug(" Loading mods (50 mods)"), "loading-mods-50-mods");
}
