//! Errors in the user's words: the repository's own files (armies, mod manifests, patches, rule
//! presets, scenarios, a recorded replay) mutated a few thousand times with a fixed seed
//! (truncations, changed bytes, duplicated and deleted lines, deep nesting, numbers out of range,
//! lists of the wrong length, misspelt names, bytes that are not UTF-8), each read as the tools read
//! it. Nothing may panic, and every error must name its place (a line, or the replay's line) and
//! never show the TOML or serde libraries' own wording.

use hexforge_content::diagnostic::SourceText;
use hexforge_content::manifest::parse_manifest;
use hexforge_content::patch::{History, PatchedArmy, apply_patch_files};
use hexforge_content::presets::parse_preset;
use hexforge_content::{Diagnostic, LoadedMods, ScriptFile, parse_army};
use hexforge_core::Catalog;
use hexforge_scenario::file::parse_scenario;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The libraries' phrasing that must never reach a user.
const LIBRARY_WORDS: &[&str] = &[
    "expected i8",
    "expected i16",
    "expected i32",
    "expected i64",
    "expected u8",
    "expected u16",
    "expected u32",
    "expected u64",
    "expected f64",
    "invalid length",
    "invalid type:",
    "invalid value:",
    "stream did not contain",
    "max recursion depth",
    "cannot recurse",
    "duplicate key",
    "unknown variant",
    "unknown field",
    "missing field",
    "wanted string or table",
    ", expected `",
    "expected one of `",
    "TOML parse error",
    "while parsing",
    "unexpected character",
    "unexpected end of input",
];

/// A small seeded generator (xorshift64*), so every run makes the same mutants.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// The byte offsets where a line starts.
fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    v
}

/// The nearest character boundary at or before `i`.
fn boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One mutant of a TOML file's text: `kind` picks the mutation.
fn mutate_toml(text: &str, kind: usize, g: &mut Gen) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let pick_line = |g: &mut Gen| g.below(lines.len().max(1));
    let starts = line_starts(text);
    match kind % 12 {
        0 => text[..boundary(text, g.below(text.len() + 1))].to_string(),
        1 => {
            const BYTES: &[u8] = b"[]{}=\"',.#\n 0-9az_";
            let at = boundary(text, g.below(text.len()));
            let c = BYTES[g.below(BYTES.len())] as char;
            let mut s = text.to_string();
            let end = boundary(text, at + 1).max(at + usize::from(at < text.len()));
            s.replace_range(at..end.min(text.len()), &c.to_string());
            s
        }
        2 => {
            let i = pick_line(g);
            let mut l = lines.clone();
            if let Some(line) = lines.get(i) {
                l.insert(i, line);
            }
            l.join("\n")
        }
        3 => {
            let i = pick_line(g);
            let mut l = lines.clone();
            if i < l.len() {
                l.remove(i);
            }
            l.join("\n")
        }
        4 => {
            let depth = 20 + g.below(400);
            let deep = format!("deep = {}1{}\n", "[".repeat(depth), "]".repeat(depth));
            let at = starts[g.below(starts.len())];
            format!("{}{deep}{}", &text[..at], &text[at..])
        }
        5 => {
            // A number out of range, negative, or fractional.
            const NUMBERS: &[&str] = &["99999999999", "-1", "300", "1.5", "99999999999999999999"];
            let digits: Vec<usize> = text
                .char_indices()
                .filter(|(i, c)| {
                    c.is_ascii_digit()
                        && (*i == 0
                            || !text[..*i].ends_with(|p: char| {
                                p.is_ascii_alphanumeric() || p == '.' || p == '_' || p == '-'
                            }))
                })
                .map(|(i, _)| i)
                .collect();
            let Some(&at) = digits.get(g.below(digits.len())) else {
                return text.to_string();
            };
            let end = text[at..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(text.len(), |k| at + k);
            format!(
                "{}{}{}",
                &text[..at],
                NUMBERS[g.below(NUMBERS.len())],
                &text[end..]
            )
        }
        6 => {
            // A list one value longer or shorter.
            let opens: Vec<usize> = text.match_indices(" = [").map(|(i, _)| i + 3).collect();
            let Some(&at) = opens.get(g.below(opens.len())) else {
                return text.to_string();
            };
            let Some(close) = text[at..].find(']').map(|k| at + k) else {
                return text.to_string();
            };
            if g.below(2) == 0 {
                format!("{}, 3{}", &text[..close], &text[close..])
            } else {
                format!("{}[1{}", &text[..at], &text[close..])
            }
        }
        7 => {
            // A value of another type.
            let eqs: Vec<usize> = text.match_indices(" = ").map(|(i, _)| i + 3).collect();
            let Some(&at) = eqs.get(g.below(eqs.len())) else {
                return text.to_string();
            };
            let end = text[at..].find('\n').map_or(text.len(), |k| at + k);
            const VALUES: &[&str] = &[
                "\"three\"",
                "3",
                "true",
                "[1, 2]",
                "{ a = 1 }",
                "1979-05-27",
                "-",
            ];
            format!(
                "{}{}{}",
                &text[..at],
                VALUES[g.below(VALUES.len())],
                &text[end..]
            )
        }
        8 => {
            // A misspelt key.
            let eqs: Vec<usize> = starts
                .iter()
                .copied()
                .filter(|s| {
                    text[*s..]
                        .split('\n')
                        .next()
                        .is_some_and(|l| l.contains(" = ") && !l.starts_with('#'))
                })
                .collect();
            let Some(&at) = eqs.get(g.below(eqs.len())) else {
                return text.to_string();
            };
            format!("{}x{}", &text[..at], &text[at..])
        }
        9 => {
            // A misspelt name in quotes.
            let quotes: Vec<usize> = text.match_indices(" = \"").map(|(i, _)| i + 4).collect();
            let Some(&at) = quotes.get(g.below(quotes.len())) else {
                return text.to_string();
            };
            let c = text[at..].chars().next().unwrap_or('x');
            format!("{}{c}{}", &text[..at], &text[at..])
        }
        10 => {
            // A table header repeated, or a key given twice.
            let heads: Vec<usize> = starts
                .iter()
                .copied()
                .filter(|s| text[*s..].starts_with('[') && !text[*s..].starts_with("[["))
                .collect();
            match heads.get(g.below(heads.len())) {
                Some(&at) => {
                    let head = text[at..].split('\n').next().unwrap_or("");
                    format!("{text}\n{head}\n")
                }
                None => mutate_toml(text, 2, g),
            }
        }
        _ => {
            // Several mutations at once.
            let once = mutate_toml(text, g.below(11), g);
            mutate_toml(&once, g.below(11), g)
        }
    }
}

/// What one error looks like to a user, and whether it is well worded; `None` when it is.
fn badly_worded(shown: &str, located: bool) -> Option<String> {
    if !located {
        return Some(format!("no line: {shown}"));
    }
    LIBRARY_WORDS
        .iter()
        .find(|w| shown.contains(*w))
        .map(|w| format!("library wording `{w}`: {shown}"))
}

/// Collects the problems of one mutant: `Ok` when it read, its located messages otherwise.
fn check_diagnostics(errors: &[Diagnostic], what: &str, mutant: &str, bad: &mut Vec<String>) {
    for d in errors {
        if let Some(why) = badly_worded(&d.to_string(), d.line > 0) {
            bad.push(format!(
                "{what}: {why}\n--- mutant ---\n{}",
                excerpt(mutant)
            ));
        }
    }
}

fn excerpt(text: &str) -> String {
    text.chars().take(600).collect()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            toml_files(&e, out);
        } else if e.extension().is_some_and(|x| x == "toml") {
            out.push(e);
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The file kinds, each with how it is read.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Army,
    Manifest,
    Patch,
    Preset,
    Scenario,
}

struct Corpus {
    catalog: Catalog,
    patch_armies: Vec<PatchedArmy>,
    patch_mods: Vec<String>,
}

impl Corpus {
    /// Every problem of one text of a `kind` of file at `path`.
    fn problems(&self, kind: Kind, path: &Path, text: &str) -> Vec<Diagnostic> {
        let src = SourceText::new(path, text);
        match kind {
            Kind::Army => parse_army(&src).err().map(|d| d.0).unwrap_or_default(),
            Kind::Manifest => parse_manifest(&src).err().map(|d| d.0).unwrap_or_default(),
            Kind::Preset => parse_preset(&src).err().map(|d| d.0).unwrap_or_default(),
            Kind::Scenario => parse_scenario(&src, &self.catalog)
                .err()
                .map(|d| d.0)
                .unwrap_or_default(),
            Kind::Patch => {
                let mut armies = self.patch_armies.clone();
                let file = ScriptFile {
                    path: path.to_path_buf(),
                    text: text.to_string(),
                };
                let mod_id = path
                    .parent()
                    .and_then(Path::parent)
                    .and_then(Path::file_name)
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                apply_patch_files(
                    &mut armies,
                    &mut History::default(),
                    &mod_id,
                    &self.patch_mods,
                    &[Ok(file)],
                )
                .0
            }
        }
    }
}

fn patched_armies(loaded: &LoadedMods) -> Vec<PatchedArmy> {
    loaded
        .mods
        .iter()
        .flat_map(|m| {
            m.armies.iter().map(|a| PatchedArmy {
                mod_id: m.id.clone(),
                army: a.clone(),
            })
        })
        .collect()
}

/// The repository's files of each kind, and how many mutants of each file to read.
fn sources() -> Vec<(Kind, PathBuf, usize)> {
    let r = root();
    let mut out = Vec::new();
    let mut add = |kind: Kind, dir: PathBuf, filter: &dyn Fn(&Path) -> bool, n: usize| {
        let mut files = Vec::new();
        toml_files(&dir, &mut files);
        out.extend(
            files
                .into_iter()
                .filter(|f| filter(f))
                .map(|f| (kind, f, n)),
        );
    };
    let in_dir = |name: &'static str| {
        move |p: &Path| {
            p.parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == name)
        }
    };
    add(Kind::Army, r.join("../mods"), &in_dir("armies"), 110);
    add(
        Kind::Manifest,
        r.join("../mods"),
        &|p| p.ends_with("mod.toml"),
        90,
    );
    add(
        Kind::Manifest,
        r.join("patches"),
        &|p| p.ends_with("mod.toml"),
        30,
    );
    add(Kind::Preset, r.join("../mods"), &in_dir("rules"), 150);
    add(Kind::Patch, r.join("patches"), &in_dir("patches"), 70);
    add(Kind::Scenario, r.join("scenarios"), &|_| true, 4);
    out
}

#[test]
fn mutated_files_give_located_errors_in_the_users_words() {
    let started = std::time::Instant::now();
    let r = root();
    let hexforge_script::Loaded { mods: loaded, .. } =
        hexforge_script::load(&[r.join("../mods")], hexforge_script::Limits::default());
    assert!(loaded.problems.is_empty(), "{}", loaded.problems);
    let patch_loaded = hexforge_content::load_mods(&[r.join("patches")]);
    let corpus = Corpus {
        catalog: loaded.catalog.clone(),
        patch_armies: patched_armies(&patch_loaded),
        patch_mods: patch_loaded
            .mods
            .iter()
            .map(|m| m.id.clone())
            .chain(patch_loaded.skipped.iter().map(|s| s.id.clone()))
            .collect(),
    };
    let mut g = Gen(0x005e_ed0f_e440_u64);
    let mut bad = Vec::new();
    let mut mutants = 0usize;
    for (kind, path, n) in sources() {
        let text = read(&path);
        for k in 0..n {
            let mutant = mutate_toml(&text, k, &mut g);
            mutants += 1;
            let problems = corpus.problems(kind, &path, &mutant);
            check_diagnostics(
                &problems,
                &format!("{kind:?} {}", path.display()),
                &mutant,
                &mut bad,
            );
        }
    }
    mutants += replay_mutants(&loaded, &mut g, &mut bad);
    mutants += utf8_mutants(&mut bad);
    let took = started.elapsed();
    bad.sort();
    bad.dedup();
    assert!(
        bad.is_empty(),
        "{} of {mutants} mutants gave badly worded errors; the first:\n{}",
        bad.len(),
        bad.iter().take(8).cloned().collect::<Vec<_>>().join("\n\n")
    );
    assert!(mutants > 2000, "only {mutants} mutants");
    eprintln!("{mutants} mutants read in {took:?}");
}

/// A recorded game's replay, mutated line by line: every error names its line and never the
/// libraries' words; a header the loaded content refuses names its line too.
fn replay_mutants(loaded: &LoadedMods, g: &mut Gen, bad: &mut Vec<String>) -> usize {
    let catalog = Arc::new(loaded.catalog.clone());
    let header = hexforge_replay::header(
        ("v3", &[], "standard"),
        &loaded.mods,
        vec!["moloch".into(), "borgo".into()],
        1,
        1,
    );
    let mut game = hexforge_replay::start(
        &header,
        &loaded.mods,
        catalog.clone(),
        &mut hexforge_core::NoAbilities,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut written = Vec::new();
    let recorder = hexforge_replay::Recorder::new(&mut written, &header).expect("memory");
    hexforge_replay::record_game(
        &mut game,
        &mut [],
        &mut hexforge_core::NoAbilities,
        recorder,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8(written).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    let mut n = 0;
    for k in 0..500 {
        let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        let i = g.below(l.len());
        match k % 8 {
            0 => {
                l.truncate(i);
            }
            1 => {
                l.remove(i);
            }
            2 => {
                let copy = l[i].clone();
                l.insert(i, copy);
            }
            3 => {
                // A word misspelt.
                let line = &mut l[i];
                let at = boundary(line, g.below(line.len() + 1));
                line.insert(at, 'x');
            }
            4 => {
                // A number out of range or not a number.
                const WORDS: &[&str] = &["99999999999999999999", "-1", "7", "x", ""];
                let mut words: Vec<String> = l[i].split(' ').map(String::from).collect();
                let w = g.below(words.len());
                words[w] = WORDS[g.below(WORDS.len())].to_string();
                l[i] = words.join(" ");
            }
            5 => {
                // An army or tile that is not loaded.
                const ARMIES: &[&str] = &["molloch", "ghosts", "borgo/mutnt", "moloch/hq2"];
                let target = ARMIES[g.below(ARMIES.len())];
                if let Some(seat) = l.iter().position(|x| x.starts_with("seat ")) {
                    if target.contains('/') {
                        if let Some(a) = l.iter().position(|x| x.starts_with("action place ")) {
                            let words: Vec<&str> = l[a].split(' ').collect();
                            let mut words: Vec<String> =
                                words.iter().map(|s| s.to_string()).collect();
                            words[2] = target.to_string();
                            l[a] = words.join(" ");
                        }
                    } else {
                        l[seat + g.below(2)] = format!("seat {target}");
                    }
                }
            }
            6 => {
                // A header line given another value.
                const HEAD: &[&str] = &[
                    "rules v33",
                    "option tie_breker=draw",
                    "option hq_hp=many",
                    "option nonsense",
                    "board round",
                ];
                let at = 1 + g.below(4);
                l.insert(at, HEAD[g.below(HEAD.len())].to_string());
            }
            _ => {
                // A line cut in the middle.
                let line = &mut l[i];
                let at = boundary(line, g.below(line.len() + 1));
                line.truncate(at);
            }
        }
        let mutant = l.join("\n") + "\n";
        n += 1;
        let replay = match hexforge_replay::parse(&mutant, &loaded.catalog) {
            Ok(r) => r,
            Err(e) => {
                if let Some(why) = badly_worded(&e.to_string(), e.line > 0) {
                    bad.push(format!(
                        "replay: {why}\n--- mutant ---\n{}",
                        excerpt(&mutant)
                    ));
                }
                continue;
            }
        };
        if let Err(e) = hexforge_replay::start_replay(
            &replay,
            &loaded.mods,
            catalog.clone(),
            &mut hexforge_core::NoAbilities,
        ) && let Some(why) = badly_worded(&e.to_string(), e.line > 0)
        {
            bad.push(format!(
                "replay start: {why}\n--- mutant ---\n{}",
                excerpt(&mutant)
            ));
        }
    }
    n
}

/// Bytes that are not UTF-8 in each kind of file: located at their line, with what to do.
fn utf8_mutants(bad: &mut Vec<String>) -> usize {
    let dir = std::env::temp_dir().join(format!("hexforge-error-words-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut n = 0;
    for (kind, path, _) in sources().into_iter().step_by(7) {
        let mut bytes = std::fs::read(&path).expect("read");
        let at = bytes.len() / 2;
        bytes.insert(at, 0xff);
        let file = dir.join(path.file_name().expect("file name"));
        std::fs::write(&file, &bytes).expect("write");
        n += 1;
        let e = match SourceText::read(&file, "file") {
            Ok(_) => {
                bad.push(format!("{kind:?} {}: read as UTF-8", path.display()));
                continue;
            }
            Err(e) => e,
        };
        let shown = e.to_string();
        if let Some(why) = badly_worded(&shown, e.line > 0) {
            bad.push(format!("{kind:?}: {why}"));
        }
        if !shown.contains("save it as UTF-8") {
            bad.push(format!("{kind:?}: no advice: {shown}"));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    n
}

/// The base army of Moloch with one change, read as loading reads it.
fn moloch_with(change: impl Fn(&str) -> String) -> String {
    let path = root().join("../mods/base/armies/moloch.toml");
    let text = change(&read(&path));
    parse_army(&SourceText::new("moloch.toml", text))
        .expect_err("an error")
        .to_string()
}

#[test]
fn a_duplicate_key_in_an_army_names_the_key_and_its_first_line() {
    let e =
        moloch_with(|t| t.replacen("initiative = [0]", "initiative = [0]\ninitiative = [0]", 1));
    assert!(
        e.contains("the key `initiative` is defined twice in this table (first at line "),
        "{e}"
    );
    assert!(e.ends_with("); remove one of them"), "{e}");
}

#[test]
fn out_of_range_numbers_and_wrong_lengths_in_a_scenario_say_what_to_write() {
    let r = root();
    let loaded = hexforge_content::load_mods(&[r.join("../mods")]);
    let path = r.join("scenarios/r4_battle/94_placing_on_an_occupied_hex_is_refused.toml");
    let text = read(&path);
    let err = |t: String| {
        parse_scenario(&SourceText::new("s.toml", t), &loaded.catalog)
            .expect_err("an error")
            .to_string()
    };
    let e = err(text.replacen("at = [0, -2]", "at = [0, -2, 1]", 1));
    assert!(
        e.contains("`at` must be two whole numbers [q, r]; found 3 values"),
        "{e}"
    );
    let e = err(text.replacen("at = [0, -2]", "at = [0, 99999999999]", 1));
    assert!(e.contains("99999999999 is out of range"), "{e}");
    let board = text.replacen("error = \"already holds a tile\"", "", 1);
    let e = err(board.replacen("at = [0, 2]", "at = [0, -2]", 1));
    assert!(
        e.starts_with(
            "s.toml:21:6: hex [0, -2] already holds the tile of line 16: put this one on a free hex"
        ),
        "{e}"
    );
}
