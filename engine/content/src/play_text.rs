//! What of a mod file's text changes play, for the content hash: a Lua script without its
//! comments, blank lines and trailing spaces; a TOML file as the data it parses to.

/// `src` (Lua) without its comments (`-- ...` to the end of the line, `--[[ ... ]]` and
/// `--[==[ ... ]==]`, a long one counting as one space), without the spaces that end a line and
/// without blank lines. Strings, long strings (`[[ ... ]]`) included, are kept exactly, and so is
/// every other character: two scripts that differ only in comments or blank lines give the same
/// text.
pub fn lua_play_text(src: &str) -> String {
    let b = src.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut lines: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    // Ends the line built in `out` (a newline outside any string): kept unless blank.
    let end_line = |out: &mut Vec<u8>, lines: &mut Vec<u8>| {
        while out.last().is_some_and(|c| c.is_ascii_whitespace()) {
            out.pop();
        }
        if !out.is_empty() {
            if !lines.is_empty() {
                lines.push(b'\n');
            }
            lines.append(out);
        }
    };
    while i < b.len() {
        let c = b[i];
        if c == b'-' && b.get(i + 1) == Some(&b'-') {
            if let Some(level) = long_open(b, i + 2) {
                i = long_close(b, i + 2 + level + 2, level);
                out.push(b' ');
            } else {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            continue;
        }
        if c == b'[' {
            if let Some(level) = long_open(b, i) {
                let end = long_close(b, i + level + 2, level);
                out.extend_from_slice(&b[i..end]);
                i = end;
                continue;
            }
        }
        if c == b'"' || c == b'\'' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.extend_from_slice(&b[start..i]);
            continue;
        }
        if c == b'\n' {
            end_line(&mut out, &mut lines);
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    end_line(&mut out, &mut lines);
    // Only whole characters were dropped or kept: the text is still UTF-8.
    String::from_utf8(lines).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The level of a long bracket opening at `at` (`[[` is 0, `[==[` is 2), if one opens there.
fn long_open(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'[') {
        return None;
    }
    let level = b[at + 1..].iter().take_while(|c| **c == b'=').count();
    (b.get(at + 1 + level) == Some(&b'[')).then_some(level)
}

/// Where the long bracket of `level` whose body starts at `from` ends: just past its `]==]`, or
/// the end of the text when it never closes.
fn long_close(b: &[u8], from: usize, level: usize) -> usize {
    let mut i = from;
    while i < b.len() {
        if b[i] == b']'
            && b[i + 1..].iter().take(level).all(|c| *c == b'=')
            && b.len() > i + 1 + level
            && b[i + 1 + level] == b']'
        {
            return i + level + 2;
        }
        i += 1;
    }
    b.len()
}

/// `src` (TOML) as the data it parses to, written out again: comments, blank lines, spacing and
/// the way values are written (`'a'` or `"a"`) do not show; the text itself when it does not
/// parse (a mod that loaded has none such).
pub fn toml_play_text(src: &str) -> String {
    match src.parse::<toml::Table>() {
        Ok(t) => t.to_string(),
        Err(_) => src.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_lines_do_not_change_a_scripts_play_text() {
        let plain = "local x = 1\nability(\"a\", {\n  hook = function(ctx) return x end,\n})";
        let commented = "-- The first line.\nlocal x = 1   -- one\n\n--[[ a long\ncomment ]]\nability(\"a\", { --[==[ more ]] still ]==]\n  hook = function(ctx) return x end,\n\n})\n";
        assert_eq!(lua_play_text(plain), lua_play_text(commented));
        assert_eq!(lua_play_text(commented), plain);
    }

    #[test]
    fn strings_that_look_like_comments_are_kept() {
        for src in [
            "print(\"-- not a comment\")",
            "print('a \\' -- still a string')",
            "local s = [[\n-- inside a long string\n\n]]",
            "local s = [==[ ]] -- ]==]",
            "print(\"a\\\n-- continued\")",
        ] {
            assert_eq!(lua_play_text(src), src, "{src}");
        }
        assert_ne!(
            lua_play_text("print(\"-- a\")"),
            lua_play_text("print(\"-- b\")")
        );
    }

    #[test]
    fn a_change_of_code_changes_the_play_text() {
        assert_ne!(lua_play_text("local x = 1"), lua_play_text("local x = 2"));
        // A long comment between two words keeps them apart.
        assert_ne!(lua_play_text("local--[[c]]y"), lua_play_text("localy"));
    }

    #[test]
    fn a_toml_files_comments_and_spacing_do_not_change_its_play_text() {
        let a = "[tile]\nid = \"a\"\ncount = 2\n";
        let b = "# A tile.\n[tile]\nid = 'a'   # its id\n\ncount =  2\n";
        assert_eq!(toml_play_text(a), toml_play_text(b));
        assert_ne!(
            toml_play_text(a),
            toml_play_text("[tile]\nid = \"a\"\ncount = 3\n")
        );
    }
}
