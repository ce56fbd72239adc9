//! Runs every scenario under `tests/scenarios/` against the base armies: the rules acceptance suite.
//! The runnable examples of docs/SCENARIO_FORMAT.md are run the same way, so the format's
//! documentation cannot drift from the parser.

use hexforge_content::{Diagnostics, LoadedMods, SourceText};
use hexforge_scenario::{
    Scenario, load_scenario_with_boards, parse_scenario_with_boards, run_scenario,
};
use hexforge_script::ScriptHost;
use std::path::{Path, PathBuf};

/// Every `.toml` file below `dir`, in sorted order, into `out`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            files(&e, out);
        } else if e.extension().is_some_and(|x| x == "toml") {
            out.push(e);
        }
    }
}

/// The mods of the checkout (`mods/`) with their scripts, as `hexforge scenario` loads them; any
/// content problem fails the test.
fn load_mods(root: &Path) -> hexforge_script::Loaded {
    let loaded = hexforge_script::load(&[root.join("../mods")], hexforge_script::Limits::default());
    assert!(
        loaded.mods.problems.is_empty(),
        "content problems:\n{}",
        loaded.mods.problems
    );
    loaded
}

/// Runs a scenario as loaded or parsed; the error describes what failed (the file's problems, or
/// the expectations that did not hold with the run's log), headed by `what`.
fn run_checked(
    what: &str,
    parsed: Result<Scenario, Diagnostics>,
    loaded: &LoadedMods,
    scripts: &mut ScriptHost,
) -> Result<(), String> {
    let s = parsed.map_err(|d| format!("{what}:\n{d}"))?;
    let r = run_scenario(&s, &loaded.catalog, scripts);
    if r.passed() {
        return Ok(());
    }
    Err(format!(
        "{what} ({}):\n  {}\n  log:\n    {}",
        s.name,
        r.failures.join("\n  "),
        r.log.join("\n    ")
    ))
}

/// Every file of the corpus loads and passes, and the corpus has not lost its files.
#[test]
fn every_scenario_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let hexforge_script::Loaded {
        mods: loaded,
        mut scripts,
    } = load_mods(root);
    let mut list = Vec::new();
    files(&root.join("scenarios"), &mut list);
    let boards: Vec<_> = loaded.boards().collect();
    let mut failures = Vec::new();
    for f in &list {
        let parsed = load_scenario_with_boards(f, &loaded.catalog, &boards);
        if let Err(e) = run_checked(&f.display().to_string(), parsed, &loaded, &mut scripts) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n\n{}",
        failures.len(),
        list.len(),
        failures.join("\n\n")
    );
    assert!(
        list.len() >= 60,
        "the corpus should hold at least 60 scenarios, found {}",
        list.len()
    );
}

/// The document whose examples [`every_format_example_runs`] runs, from the workspace root.
const FORMAT_DOC: &str = "docs/SCENARIO_FORMAT.md";

/// Fewer runnable examples than this means the document lost them (or their marker line).
const MIN_FORMAT_EXAMPLES: usize = 15;

/// A runnable example of the format document: its name, the document line of its
/// `# example:` line, and its text.
struct Example {
    name: String,
    line: usize,
    text: String,
}

/// The ```` ```toml ```` blocks of `doc` whose first line is `# example: NAME`. Each text is
/// preceded by as many empty lines as the document has before the block, so the line numbers
/// a problem or a refused step names are the document's own.
fn format_examples(doc: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut open: Option<(usize, Vec<&str>)> = None;
    for (i, line) in doc.lines().enumerate() {
        match &mut open {
            None if line.trim_end() == "```toml" => open = Some((i + 2, Vec::new())),
            None => {}
            Some(_) if line.trim() == "```" => {
                let Some((first, lines)) = open.take() else {
                    continue;
                };
                let Some(name) = lines.first().and_then(|l| l.strip_prefix("# example: ")) else {
                    continue;
                };
                out.push(Example {
                    name: name.trim().to_string(),
                    line: first,
                    text: "\n".repeat(first - 1) + &lines.join("\n") + "\n",
                });
            }
            Some((_, lines)) => lines.push(line),
        }
    }
    out
}

/// Every runnable example of docs/SCENARIO_FORMAT.md parses and passes, named by its line, and
/// the document still holds its examples.
#[test]
fn every_format_example_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("..").join(FORMAT_DOC))
        .unwrap_or_else(|e| panic!("{FORMAT_DOC}: {e}"));
    let examples = format_examples(&doc);
    assert!(
        examples.len() >= MIN_FORMAT_EXAMPLES,
        "{FORMAT_DOC} should hold at least {MIN_FORMAT_EXAMPLES} runnable examples \
         (```toml blocks whose first line is `# example: NAME`), found {}",
        examples.len()
    );
    let hexforge_script::Loaded {
        mods: loaded,
        mut scripts,
    } = load_mods(root);
    let boards: Vec<_> = loaded.boards().collect();
    let mut failures = Vec::new();
    for (k, e) in examples.iter().enumerate() {
        if examples[..k].iter().any(|x| x.name == e.name) {
            failures.push(format!(
                "{FORMAT_DOC}:{}: the example name `{}` is used twice",
                e.line, e.name
            ));
        }
        let what = format!("{FORMAT_DOC}:{}: example `{}`", e.line, e.name);
        let src = SourceText::new(FORMAT_DOC, e.text.as_str());
        let parsed = parse_scenario_with_boards(&src, &loaded.catalog, &boards);
        if let Err(f) = run_checked(&what, parsed, &loaded, &mut scripts) {
            failures.push(f);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples of {FORMAT_DOC} failed:\n\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n\n")
    );
}

/// The examples are found by their first line only, and keep the document's line numbers.
#[test]
fn format_examples_keep_the_documents_line_numbers() {
    let doc = "# Title\n\n```toml\n# example: one\nname = \"x\"\n```\n\n```toml\nname = \"no marker\"\n```\n\n```toml\n# example: two\n```\n";
    let found = format_examples(doc);
    let names: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["one", "two"]);
    assert_eq!(found[0].line, 4);
    assert_eq!(found[1].line, 13);
    // Line 5 of the document is line 5 of the example's text.
    assert_eq!(found[0].text.lines().nth(4), Some("name = \"x\""));
}
