//! Content identity: a hash of each army's resolved tile data, and of each mod's armies and Lua
//! sources, so that a match or a replay can record exactly what it was played with.

use crate::army::ArmyFile;
use crate::boards::Board;
use crate::folder_read::ModInfo;
use crate::play_text::{lua_play_text, toml_play_text};
use crate::presets::RulePreset;
use hexforge_core::fnv::Fnv1a;
use hexforge_core::rules::Rules;
use hexforge_core::tile::{Effects, InstantEffect, Tile};

/// Bumped whenever the encoding changes, so that hashes of different encodings never match.
const ENCODING: &str = "hexforge content 1";

/// The encoding of [`mod_hash`]: what changes play.
const PLAY_ENCODING: &str = "hexforge play 1";

fn effects(h: &mut Fnv1a, e: &Effects) {
    for v in [e.melee, e.ranged, e.initiative, e.enemy_initiative] {
        h.i8(v);
    }
    h.u8(e.extra_attack);
    for b in [e.medic, e.hijack, e.convert_attack, e.mobility] {
        h.bool(b);
    }
}

fn tile(h: &mut Fnv1a, t: &Tile) {
    h.str(&t.id);
    h.str(&t.name);
    h.str(t.kind.name());
    h.u8(t.count);
    h.len(t.initiative.values().len());
    h.bytes(t.initiative.values());
    h.u8(t.toughness);
    h.bool(t.mobile);
    for e in &t.edges {
        h.u8(e.melee);
        h.u8(e.ranged);
        h.bool(e.armor);
        h.bool(e.net);
        h.bool(e.link);
    }
    effects(h, &t.module);
    effects(h, &t.aura);
    h.u8(t.global.move_range);
    h.bool(t.attacks_allies);
    match t.instant {
        None => h.u8(0),
        Some(InstantEffect::Battle) => h.u8(1),
        Some(InstantEffect::Move) => h.u8(2),
        Some(InstantEffect::Push) => h.u8(3),
        Some(InstantEffect::Wound { wounds }) => {
            h.u8(4);
            h.u8(wounds);
        }
        Some(InstantEffect::DestroyNearHq) => h.u8(5),
        Some(InstantEffect::Area { wounds, radius }) => {
            h.u8(6);
            h.u8(wounds);
            h.u8(radius);
        }
        Some(InstantEffect::Scripted) => h.u8(7),
    }
    h.len(t.abilities.len());
    for a in &t.abilities {
        h.str(&a.hook);
        h.len(a.params.len());
        for (k, v) in &a.params {
            h.str(k);
            h.str(&v.to_string());
        }
    }
    // Only a tile that declares a linked unit hashes one: every hash made before stays.
    if let Some(a) = &t.linked {
        h.str("linked");
        h.str(&a.kind.to_string());
        h.str(a.loss.name());
        h.bool(a.shared);
        h.len(a.parts.len());
        for p in &a.parts {
            h.str(&p.tile);
            h.len(p.steps.len());
            for e in &p.steps {
                h.u8(e.index());
            }
        }
    }
}

fn army(h: &mut Fnv1a, a: &ArmyFile) {
    h.str(&a.id);
    h.str(&a.name);
    h.u16(a.size);
    h.len(a.tiles.len());
    for t in &a.tiles {
        tile(h, t);
    }
}

fn preset(h: &mut Fnv1a, p: &RulePreset) {
    h.str(&p.id);
    h.len(Rules::KEYS.len());
    for key in Rules::KEYS {
        // A renamed key hashes under its former name (`Rules::ALIASES`): renaming it changes no
        // mod's hash, so replays recorded before still find their mods as they were.
        let named = Rules::ALIASES
            .iter()
            .find(|(_, new)| new == key)
            .map_or(*key, |(old, _)| old);
        h.str(named);
        h.str(&p.rules.get(key).map(|v| v.to_string()).unwrap_or_default());
    }
}

/// The hash of a rule preset: its id and the value of every option it gives.
pub fn preset_hash(p: &RulePreset) -> u64 {
    let mut h = Fnv1a::new();
    h.str(ENCODING);
    preset(&mut h, p);
    h.finish()
}

/// The hash of an army's data as its file defines it.
pub fn army_hash(a: &ArmyFile) -> u64 {
    let mut h = Fnv1a::new();
    h.str(ENCODING);
    army(&mut h, a);
    h.finish()
}

/// What games are played with, as match logs, balance result files and the editor's Balance
/// panel name it: each mod with its version and content hash ([`mod_hash`]), then the engine's
/// version: `base 0.2.0 #0123456789abcdef, monolith_arena 0.1.0 #...; Hexforge 0.2.0`.
pub fn content_line(mods: &[ModInfo]) -> String {
    let each: Vec<String> = mods
        .iter()
        .map(|m| format!("{} {} #{:016x}", m.id, m.manifest.version, mod_hash(m)))
        .collect();
    format!(
        "{}; Hexforge {}",
        each.join(", "),
        crate::manifest::ENGINE_VERSION
    )
}

/// The hash of a mod: what changes play. Its id, its armies' data, its rule presets, the
/// options it declares (their types, defaults and preset values), its scripts' code (by path
/// within the mod, in path order, without comments and blank lines: [`lua_play_text`]), its
/// patches' data ([`toml_play_text`]) and its boards (hexes, main area, markers). Not its version
/// string, its description or its authors, nor a comment anywhere.
pub fn mod_hash(m: &ModInfo) -> u64 {
    content_hash(m, Encoding::Play)
}

/// The hash of a mod as releases before 0.2's play hash wrote it in replays: with its version
/// and its scripts' and patches' whole text. A replay that recorded it still finds the mod.
pub fn legacy_mod_hash(m: &ModInfo) -> u64 {
    content_hash(m, Encoding::Text)
}

/// How [`content_hash`] reads a mod's files.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoding {
    /// What changes play ([`mod_hash`]).
    Play,
    /// The whole text, and the version ([`legacy_mod_hash`]).
    Text,
}

fn content_hash(m: &ModInfo, encoding: Encoding) -> u64 {
    let mut h = Fnv1a::new();
    match encoding {
        Encoding::Play => h.str(PLAY_ENCODING),
        Encoding::Text => h.str(ENCODING),
    }
    h.str(&m.id);
    if encoding == Encoding::Text {
        h.str(&m.manifest.version.to_string());
    }
    h.len(m.armies.len());
    for a in &m.armies {
        army(&mut h, a);
    }
    h.len(m.presets.len());
    for p in &m.presets {
        preset(&mut h, p);
    }
    options(&mut h, m);
    h.len(m.patches.len() + m.scripts.len());
    for (s, lua) in m
        .patches
        .iter()
        .map(|s| (s, false))
        .chain(m.scripts.iter().map(|s| (s, true)))
    {
        h.str(&relative(m, &s.path));
        match (encoding, lua) {
            (Encoding::Text, _) => h.str(&s.text),
            (Encoding::Play, true) => h.str(&lua_play_text(&s.text)),
            (Encoding::Play, false) => h.str(&toml_play_text(&s.text)),
        }
    }
    // Boards came later: a mod without any hashes as it did before them.
    if !m.boards.is_empty() {
        h.str("boards");
        h.len(m.boards.len());
        for b in &m.boards {
            board(&mut h, b);
        }
    }
    h.finish()
}

/// The options a mod's `options.toml` declares and its `[[implies]]`, as [`mod_hash`] reads them.
fn options(h: &mut Fnv1a, m: &ModInfo) {
    h.len(m.options.len());
    for o in &m.options {
        h.str(&o.key);
        let d = &o.option;
        h.str(&format!("{:?}", d.kind));
        h.str(&d.default.to_string());
        h.len(d.presets.len());
        for (p, v) in &d.presets {
            h.str(p);
            h.str(&v.to_string());
        }
    }
    // Mods without `[[implies]]` hash as they did before there were any.
    if !m.implies.is_empty() {
        h.len(m.implies.len());
        for i in &m.implies {
            for pairs in [&i.when, &i.rules] {
                h.len(pairs.len());
                for (k, v) in pairs {
                    h.str(k);
                    h.str(&v.to_string());
                }
            }
        }
    }
}

/// `path` within the mod's folder, with `/` between its parts.
fn relative(m: &ModInfo, path: &std::path::Path) -> String {
    path.strip_prefix(&m.dir)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The hash being built for the file `path` among `parts`, started when it is the first part of
/// that file.
fn part(parts: &mut Vec<(String, Fnv1a)>, path: String) -> &mut Fnv1a {
    let i = match parts.iter().position(|(p, _)| *p == path) {
        Some(i) => i,
        None => {
            let mut h = Fnv1a::new();
            h.str(PLAY_ENCODING);
            parts.push((path, h));
            parts.len() - 1
        }
    };
    &mut parts[i].1
}

/// Each file of a mod that its play hash ([`mod_hash`]) reads, by its path within the mod
/// (`/`-separated, in path order), with a hash of what in it changes play: the armies', presets'
/// and boards' data, `options.toml`'s options, the patches' and scripts' play text. A replay
/// records them, so a mod that no longer plays as it did names the files that differ even where
/// the version it was recorded with is nowhere to be found.
pub fn mod_files(m: &ModInfo) -> Vec<(String, u32)> {
    let mut parts: Vec<(String, Fnv1a)> = Vec::new();
    for a in &m.armies {
        army(part(&mut parts, relative(m, &a.at.file)), a);
    }
    for p in &m.presets {
        preset(part(&mut parts, relative(m, &p.at.file)), p);
    }
    if !m.options.is_empty() || !m.implies.is_empty() {
        options(
            part(&mut parts, crate::options::OPTIONS_FILE.to_string()),
            m,
        );
    }
    for s in &m.patches {
        part(&mut parts, relative(m, &s.path)).str(&toml_play_text(&s.text));
    }
    for s in &m.scripts {
        part(&mut parts, relative(m, &s.path)).str(&lua_play_text(&s.text));
    }
    for b in &m.boards {
        let path = b.at.as_ref().map_or_else(
            || format!("{}/{}.toml", crate::boards::BOARDS_DIR, b.id),
            |at| relative(m, &at.file),
        );
        board(part(&mut parts, path), b);
    }
    let mut files: Vec<(String, u32)> = parts
        .into_iter()
        .map(|(p, h)| (p, h.finish() as u32))
        .collect();
    files.sort();
    files
}

fn board(h: &mut Fnv1a, b: &Board) {
    h.str(&b.id);
    h.len(b.shape.len());
    for hex in b.shape.hexes() {
        h.i32(hex.q());
        h.i32(hex.r());
    }
    h.u64(b.shape.main_area());
    h.len(b.marks.len());
    for m in &b.marks {
        h.i32(m.hex.q());
        h.i32(m.hex.r());
        h.str(&m.name.to_string());
        h.i32(i32::from(m.value));
        h.str(&m.lasts.describe());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_mods_hash_changes_with_its_data_and_nothing_else() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/examples");
        let m = crate::folder_read::load_mod(&dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mod_hash(&m), mod_hash(&m.clone()));
        let mut changed = m.clone();
        changed.armies[0].tiles[1].toughness += 1;
        assert_ne!(mod_hash(&m), mod_hash(&changed));
        assert_ne!(army_hash(&m.armies[0]), army_hash(&changed.armies[0]));
        let mut script = m.clone();
        script.scripts[0].text.push_str("\nlocal changed = 1\n");
        assert_ne!(mod_hash(&m), mod_hash(&script));
        // A comment, a blank line or the version changes what the text hash reads, not play.
        let mut commented = m.clone();
        commented.scripts[0]
            .text
            .push_str("\n\n-- a note for readers\n");
        commented.manifest.version = semver::Version::new(9, 9, 9);
        assert_eq!(mod_hash(&m), mod_hash(&commented));
        assert_ne!(legacy_mod_hash(&m), legacy_mod_hash(&commented));
        // Where the mod lives does not matter.
        let mut moved = m.clone();
        moved.dir = Path::new("/elsewhere/examples").to_path_buf();
        for s in &mut moved.scripts {
            let rel = s.path.strip_prefix(&m.dir).map(|r| r.to_path_buf());
            s.path = moved.dir.join(rel.unwrap_or_default());
        }
        assert_eq!(mod_hash(&m), mod_hash(&moved));
    }

    #[test]
    fn a_mods_files_name_what_changed_in_play_and_nothing_else() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/examples");
        let m = crate::folder_read::load_mod(&dir).unwrap_or_else(|e| panic!("{e}"));
        let files = mod_files(&m);
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        // Every army file and script, by its path in the mod, in path order.
        let script = relative(&m, &m.scripts[0].path);
        let army = relative(&m, &m.armies[0].at.file);
        assert!(paths.contains(&script.as_str()), "{paths:?}");
        assert!(paths.contains(&army.as_str()), "{paths:?}");
        assert!(paths.windows(2).all(|w| w[0] < w[1]), "{paths:?}");
        // A comment changes no file; code changes that file alone.
        // The paths whose hash differs from the mod's as loaded.
        let differ = |other: &ModInfo| -> Vec<String> {
            mod_files(other)
                .into_iter()
                .zip(&files)
                .filter(|(a, b)| a != *b)
                .map(|(a, _)| a.0)
                .collect()
        };
        let mut commented = m.clone();
        commented.scripts[0].text.push_str("\n-- a note\n");
        assert_eq!(mod_files(&commented), files);
        let mut code = m.clone();
        code.scripts[0].text.push_str("\nlocal changed = 1\n");
        assert_eq!(differ(&code), [script]);
        let mut tough = m.clone();
        tough.armies[0].tiles[1].toughness += 1;
        assert_eq!(differ(&tough), [army]);
    }
}
