//! What changed in the ability API since an earlier Hexforge release, and the warning a mod
//! written for that release loads with: the changes its scripts may notice (found in their
//! text where that can be told), the others, and the `hexforge` line to write once it is
//! checked (docs/CHANGELOG.md holds the same changes with their migration notes).

use crate::diagnostic::Diagnostic;
use hexforge_core::marker::MarkerName;
use semver::{Version, VersionReq};
use std::path::Path;

/// The earlier releases (major, minor) whose mods still load on this engine, with a warning.
///
/// A mod whose `hexforge` requirement this engine does not meet, but a version of one of these
/// releases did, loads rather than being skipped: every hook point, `ctx`, `plan`, `hits` and
/// `fx` call of 0.1 is still there with the same arguments, so such a mod plays; what changed
/// is when some effects happen, which marker names the engine reads, and which limit stops a
/// hook, and the warning names those.
pub const EARLIER_RELEASES: &[(u64, u64)] = &[(0, 1)];

/// The release (as `major.minor.0`) of [`EARLIER_RELEASES`] that `req` accepted a version of,
/// when `req` does not accept `engine` and that release is older than `engine`; `None` when
/// `req` accepts `engine`, or accepts none of those releases (the mod is then skipped).
pub fn earlier_release(req: &VersionReq, engine: &Version) -> Option<Version> {
    if req.matches(engine) {
        return None;
    }
    EARLIER_RELEASES
        .iter()
        .filter(|&&(major, minor)| (major, minor) < (engine.major, engine.minor))
        .find(|&&(major, minor)| accepts_release(req, major, minor))
        .map(|&(major, minor)| Version::new(major, minor, 0))
}

/// Whether `req` accepts some `major.minor.patch`. The versions a requirement accepts within
/// one release form a range whose ends are patches its comparators name, so those (and their
/// neighbours) and patch 0 are the only ones worth trying.
fn accepts_release(req: &VersionReq, major: u64, minor: u64) -> bool {
    let mut patches = vec![0];
    for c in &req.comparators {
        if c.major == major && c.minor == Some(minor) {
            let p = c.patch.unwrap_or(0);
            patches.extend([p.saturating_sub(1), p, p.saturating_add(1)]);
        }
    }
    patches
        .into_iter()
        .any(|patch| req.matches(&Version::new(major, minor, patch)))
}

/// Where a script says something a change concerns: `scripts/x.lua:12`.
struct Spot {
    file: String,
    line: usize,
}

impl Spot {
    fn write(spots: &[Spot]) -> String {
        let shown: Vec<String> = spots
            .iter()
            .take(3)
            .map(|s| format!("{}:{}", s.file, s.line))
            .collect();
        let more = spots.len().saturating_sub(shown.len());
        if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        }
    }
}

/// What a mod's scripts say that the changes since 0.1 concern, found in their text.
#[derive(Default)]
struct Findings {
    /// Definitions of a `destroyed` hook.
    destroyed: Vec<Spot>,
    /// Names the engine now gives a meaning to as markers, written as strings, with where.
    engine_markers: Vec<(String, Vec<Spot>)>,
    /// Calls and hook points that 0.2 added, with where.
    added: Vec<(&'static str, Vec<Spot>)>,
}

/// What 0.2 added to the API, as a script writes it: (what to look for, how to name it).
const ADDED: &[(&str, &str)] = &[
    (":attack", "fx:attack"),
    (":mark", "fx:mark"),
    (":mark_hex", "fx:mark_hex"),
    (":mark_player", "fx:mark_player"),
    (":unmark", "fx:unmark"),
    (":unmark_hex", "fx:unmark_hex"),
    (":unmark_player", "fx:unmark_player"),
    (":marker", "ctx:marker"),
    (":markers", "ctx:markers"),
    (":hex_marker", "ctx:hex_marker"),
    (":hex_markers", "ctx:hex_markers"),
    (":player_marker", "ctx:player_marker"),
    (":player_markers", "ctx:player_markers"),
    (":printed", "ctx:printed"),
    (":standing", "ctx:standing"),
    (":add_initiative", "fx:add_initiative"),
    (":set_initiative", "fx:set_initiative"),
    (":swap_initiative", "fx:swap_initiative"),
    (":edge", "fx:edge"),
    ("attack_resolved", "the attack_resolved hook"),
    ("attacked", "the attacked hook"),
    ("gives_to", "the gives_to hook"),
];

/// The code of a line of Lua without its comment (`--` outside a string), and whether a block
/// comment (`--[[`) starts there and is not closed on the line.
fn code_of(line: &str) -> (&str, bool) {
    let b = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        match (quote, b[i]) {
            (Some(_), b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (None, c @ (b'"' | b'\'')) => quote = Some(c),
            (None, b'-') if b.get(i + 1) == Some(&b'-') => {
                let rest = &line[i + 2..];
                let opens = rest.starts_with("[[") && !rest.contains("]]");
                return (&line[..i], opens);
            }
            _ => {}
        }
        i += 1;
    }
    (line, false)
}

/// Whether `word` stands in `code` as a whole word.
fn word_at(code: &str, at: usize, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let before = code[..at].chars().next_back();
    let after = code[at + word.len()..].chars().next();
    !before.is_some_and(ident) && !after.is_some_and(ident)
}

/// Whether `code` gives the table key `key` a value (`key = ...`, not `key == ...`).
fn assigns_key(code: &str, key: &str) -> bool {
    code.match_indices(key).any(|(at, _)| {
        let rest = code[at + key.len()..].trim_start();
        word_at(code, at, key) && rest.starts_with('=') && !rest.starts_with("==")
    })
}

/// Whether `code` calls the method `name` (`:name(` or `:name{`, spaces allowed before them).
fn calls_method(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let rest = code[at + name.len()..].trim_start();
        word_at(code, at + 1, &name[1..]) && (rest.starts_with('(') || rest.starts_with('{'))
    })
}

/// The string literals of `code` (`"..."` and `'...'`), without their quotes.
fn strings_of(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut start: Option<(usize, u8)> = None;
    let mut i = 0;
    while i < b.len() {
        match (start, b[i]) {
            (Some(_), b'\\') => i += 1,
            (Some((s, q)), c) if c == q => {
                out.push(&code[s + 1..i]);
                start = None;
            }
            (None, c @ (b'"' | b'\'')) => start = Some((i, c)),
            _ => {}
        }
        i += 1;
    }
    out
}

/// Adds `spot` to the list kept under `key`, making the entry when it is the first.
fn note<K: PartialEq>(list: &mut Vec<(K, Vec<Spot>)>, key: K, spot: Spot) {
    match list.iter_mut().find(|(k, _)| *k == key) {
        Some((_, spots)) => spots.push(spot),
        None => list.push((key, vec![spot])),
    }
}

/// Reads a mod's scripts for what the changes since 0.1 concern.
fn read_scripts<'a>(
    dir: &Path,
    scripts: impl IntoIterator<Item = (&'a Path, &'a str)>,
) -> Findings {
    let engine: Vec<String> = MarkerName::ENGINE.iter().map(|n| n.to_string()).collect();
    let mut found = Findings::default();
    for (path, text) in scripts {
        let file = path
            .strip_prefix(dir)
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let mut in_block = false;
        for (n, line) in text.lines().enumerate() {
            let spot = || Spot {
                file: file.clone(),
                line: n + 1,
            };
            if in_block {
                in_block = !line.contains("]]");
                continue;
            }
            let (code, opens) = code_of(line);
            in_block = opens;
            if assigns_key(code, "destroyed") {
                found.destroyed.push(spot());
            }
            for s in strings_of(code) {
                if engine.iter().any(|e| e == s) {
                    note(&mut found.engine_markers, s.to_string(), spot());
                }
            }
            for &(look, name) in ADDED {
                let seen = if look.starts_with(':') {
                    calls_method(code, look)
                } else {
                    assigns_key(code, look)
                };
                if seen {
                    note(&mut found.added, name, spot());
                }
            }
        }
    }
    found
}

/// The warning of a mod written for an earlier release: `id` is the mod's, `req` its
/// `hexforge` requirement, `release` the earlier release it accepts ([`earlier_release`]),
/// `at` where the requirement is written, `dir` its folder, and `scripts` its Lua files (path
/// and text) as loaded.
pub fn written_for_earlier<'a>(
    id: &str,
    req: &VersionReq,
    release: &Version,
    engine: &Version,
    at: &Diagnostic,
    dir: &Path,
    scripts: impl IntoIterator<Item = (&'a Path, &'a str)>,
) -> Diagnostic {
    let scripts: Vec<(&Path, &str)> = scripts.into_iter().collect();
    let found = read_scripts(dir, scripts.iter().copied());
    let now = format!("{}.{}", engine.major, engine.minor);
    let then = format!("{}.{}", release.major, release.minor);
    let mut items: Vec<String> = Vec::new();
    if !found.destroyed.is_empty() {
        items.push(format!(
            "the effects its `destroyed` hook asks for ({}) now happen at the end of the phase the unit is destroyed in, after that phase's removals, not after the battle's last phase: what they destroy takes no part in the later phases",
            Spot::write(&found.destroyed)
        ));
    }
    for (name, spots) in &found.engine_markers {
        items.push(format!(
            "`{name}` ({}) is now a marker name the engine gives a meaning to: a marker of the mod's own by that name must be renamed",
            Spot::write(spots)
        ));
    }
    if !found.added.is_empty() {
        let added: Vec<String> = found
            .added
            .iter()
            .map(|(name, spots)| format!("{name} at {}", Spot::write(spots)))
            .collect();
        items.push(format!(
            "it already uses what {now} added ({}), which {then} does not have",
            added.join("; ")
        ));
    }
    let message = if scripts.is_empty() {
        format!(
            "mod `{id}` declares `hexforge = \"{req}\"`, written for Hexforge {then}, and this is {engine}: it loads; it has no scripts, so no change of the ability API in {now} concerns it: write `hexforge = \"^{now}\"`"
        )
    } else {
        let general = "a hook is stopped only by its instruction count (2,000,000 per call, the work of string and table functions included), no longer after 50 ms; effects may be asked in every hook (`fx`), and are carried out at the hook's moment";
        let specific = if items.is_empty() {
            format!(
                "its scripts define no `destroyed` hook and name no marker the engine now reads; {general}"
            )
        } else {
            let numbered: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(k, s)| format!("({}) {s}", k + 1))
                .collect();
            format!("{}; also, {general}", numbered.join("; "))
        };
        format!(
            "mod `{id}` declares `hexforge = \"{req}\"`, written for Hexforge {then}, and this is {engine}: it loads, but the ability API changed in {now} in ways it may notice: {specific}. Check these (docs/CHANGELOG.md, \"Changes in {now}\"), then write `hexforge = \"^{now}\"`"
        )
    };
    Diagnostic {
        message,
        ..at.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn req(s: &str) -> VersionReq {
        VersionReq::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn a_requirement_of_0_1_alone_is_an_earlier_release_of_0_2() {
        let engine = Version::new(0, 2, 0);
        let earlier = Some(Version::new(0, 1, 0));
        for r in [
            "^0.1",
            "~0.1",
            "=0.1.0",
            ">=0.1.3, <0.2",
            "0.1",
            "<0.2, >0.1.7",
        ] {
            assert_eq!(earlier_release(&req(r), &engine), earlier, "{r}");
        }
        // Requirements 0.2.0 meets, or no release meets, are not.
        for r in ["^0.2", ">=0.1", "*", ">=9", "<0.1", "^1"] {
            assert_eq!(earlier_release(&req(r), &engine), None, "{r}");
        }
        // The engine of that release itself needs no warning.
        assert_eq!(earlier_release(&req("^0.1"), &Version::new(0, 1, 0)), None);
    }

    fn warning(scripts: &[(&str, &str)]) -> String {
        let dir = PathBuf::from("mods/relic");
        let files: Vec<(PathBuf, &str)> = scripts.iter().map(|(p, t)| (dir.join(p), *t)).collect();
        let at = Diagnostic::whole_file(&dir.join("mod.toml"), "");
        written_for_earlier(
            "relic",
            &req("^0.1"),
            &Version::new(0, 1, 0),
            &Version::new(0, 2, 0),
            &at,
            &dir,
            files.iter().map(|(p, t)| (p.as_path(), *t)),
        )
        .message
    }

    #[test]
    fn the_warning_names_the_changes_the_scripts_meet_where_they_meet_them() {
        let text = "-- destroyed = nothing here, a comment\nability(\"boom\", {\n  destroyed = function(ctx, fx)\n    fx:mark(0, 0, \"unpushable\", 2)\n  end,\n  turn_started = function(ctx, fx) if x == destroyed then end end,\n})\n";
        let w = warning(&[("scripts/boom.lua", text)]);
        assert!(w.starts_with("mod `relic` declares `hexforge = \"^0.1\"`, written for Hexforge 0.1, and this is 0.2.0: it loads"), "{w}");
        assert!(
            w.contains("(1) the effects its `destroyed` hook asks for (scripts/boom.lua:3) now happen at the end of the phase the unit is destroyed in"),
            "{w}"
        );
        assert!(
            w.contains("(2) `unpushable` (scripts/boom.lua:4) is now a marker name the engine gives a meaning to"),
            "{w}"
        );
        assert!(
            w.contains("(3) it already uses what 0.2 added (fx:mark at scripts/boom.lua:4), which 0.1 does not have"),
            "{w}"
        );
        assert!(w.contains("no longer after 50 ms"), "{w}");
        assert!(w.ends_with("then write `hexforge = \"^0.2\"`"), "{w}");
    }

    #[test]
    fn scripts_that_meet_no_change_hear_of_the_general_ones_and_no_scripts_of_none() {
        let quiet = "ability(\"calm\", {\n  plan_attacks = function(ctx, plan) end,\n})\n";
        let w = warning(&[("scripts/calm.lua", quiet)]);
        assert!(
            w.contains(
                "its scripts define no `destroyed` hook and name no marker the engine now reads"
            ),
            "{w}"
        );
        assert!(!w.contains("(1)"), "{w}");
        let none = warning(&[]);
        assert!(
            none.contains("it has no scripts, so no change of the ability API in 0.2 concerns it"),
            "{none}"
        );
    }

    #[test]
    fn comments_and_strings_are_told_apart_from_code() {
        assert_eq!(code_of("x = 1 -- y"), ("x = 1 ", false));
        assert_eq!(code_of("s = \"a -- b\" -- c"), ("s = \"a -- b\" ", false));
        assert_eq!(code_of("--[[ block"), ("", true));
        assert_eq!(strings_of("f('a', \"b\\\"c\")"), ["a", "b\\\"c"]);
        assert!(assigns_key("{ destroyed = f }", "destroyed"));
        assert!(!assigns_key("if destroyed == 1", "destroyed"));
        assert!(!assigns_key("undestroyed = 1", "destroyed"));
        assert!(calls_method("fx:attack{ kind = 'melee' }", ":attack"));
        assert!(!calls_method("fx:attacks()", ":attack"));
        assert!(calls_method("ctx:marker (q, r, 'x')", ":marker"));
        assert!(calls_method("fx:edge{ edges = 1 }", ":edge"));
        assert!(!calls_method("ctx:edges(q, r)", ":edge"));
    }
}
