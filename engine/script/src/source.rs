//! Where an ability is written: the Lua file and line that define a hook name with
//! `ability("name", ...)`, looked up as the binding looks it up (the tile's own mod first, then the
//! shared library), for tools that show a designer the source of a tile's ability.

use hexforge_content::ModInfo;

/// The definition of an ability in a Lua file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookSource {
    /// The file: the library's as errors name it (`scripts/abilities/line_shot.lua`), or the mod
    /// file's path as it was read (errors name it relative to the mod's folder).
    pub file: String,
    /// The 1-based line of `ability("name", ...)`.
    pub line: usize,
    /// The definition's text: from that line up to the next `ability(` at the start of a line.
    pub text: String,
}

/// The definition of `hook` seen from the mod `mod_id` (its own scripts, in path order, then the
/// shared library); `None` when no file defines it.
pub fn hook_source(mods: &[ModInfo], mod_id: &str, hook: &str) -> Option<HookSource> {
    let own = mods
        .iter()
        .filter(|m| m.id == mod_id)
        .flat_map(|m| m.scripts.iter())
        .map(|s| (s.path.display().to_string(), s.text.as_str()));
    let library = crate::library::LIBRARY
        .iter()
        .map(|(path, text)| (path.to_string(), *text));
    own.chain(library)
        .find_map(|(file, text)| definition(&file, text, hook))
}

/// The ability names the mod `mod_id` can bind: those its own scripts define, then the shared
/// library's, sorted and without repeats (for tools that offer a designer the abilities to pick).
pub fn hook_names(mods: &[ModInfo], mod_id: &str) -> Vec<String> {
    let own = mods
        .iter()
        .filter(|m| m.id == mod_id)
        .flat_map(|m| m.scripts.iter())
        .map(|s| s.text.as_str());
    let library = crate::library::LIBRARY.iter().map(|(_, text)| *text);
    let mut names: Vec<String> = own
        .chain(library)
        .flat_map(str::lines)
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix("ability(")?.trim_start();
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let name = rest[1..].split(quote).next()?;
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

fn definition(file: &str, text: &str, hook: &str) -> Option<HookSource> {
    let opens = [format!("ability(\"{hook}\""), format!("ability('{hook}'")];
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| opens.iter().any(|o| l.trim_start().starts_with(o.as_str())))?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("ability("))
        .map_or(lines.len(), |i| start + 1 + i);
    Some(HookSource {
        file: file.to_string(),
        line: start + 1,
        text: lines[start..end].join("\n").trim_end().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_ability_is_found_with_its_line_and_text() {
        let s = hook_source(&[], "base", "line_shot").expect("line_shot is in the library");
        assert_eq!(s.file, "scripts/abilities/line_shot.lua");
        assert!(s.text.starts_with("ability(\"line_shot\", {"), "{}", s.text);
        assert!(s.line > 1);
        assert!(hook_source(&[], "base", "no_such_hook").is_none());
    }

    #[test]
    fn the_names_a_mod_can_bind_are_its_own_and_the_librarys() {
        let names = hook_names(&[], "base");
        assert!(names.iter().any(|n| n == "line_shot"), "{names:?}");
        assert!(names.iter().any(|n| n == "snipe"), "{names:?}");
        assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
    }

    #[test]
    fn a_definition_ends_where_the_next_one_starts() {
        let text = "-- a\nability(\"a\", {\n  x = 1,\n})\n\nability(\"b\", {\n})\n";
        let a = definition("f.lua", text, "a").expect("a is defined");
        assert_eq!(a.line, 2);
        assert_eq!(a.text, "ability(\"a\", {\n  x = 1,\n})");
        let b = definition("f.lua", text, "b").expect("b is defined");
        assert_eq!((b.line, b.text.as_str()), (6, "ability(\"b\", {\n})"));
    }
}
