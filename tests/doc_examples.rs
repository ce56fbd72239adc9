//! The Lua and TOML examples of the docs are the code the tests run: in every ```` ```lua ````
//! block of a document in docs/ whose first line names a script of the checkout
//! (`-- scripts/abilities/explode.lua` or `-- mods/examples/scripts/tidecallers.lua: what it
//! shows`), and every ```` ```toml ```` block whose first line names a file the same way
//! (`# mods/examples/armies/scrappers.toml: the Crawler`), each piece of code (pieces are parted
//! by blank lines; their leading comments are not checked) appears line for line in that file,
//! which the scenario files exercise. A block that names no file is an illustration and is not
//! checked.

mod common;

/// The Lua and TOML blocks of `text`, each as its comment mark and its lines, with the line
/// number of its first line.
fn code_blocks(text: &str) -> Vec<(usize, &'static str, Vec<&str>)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, &'static str, Vec<&str>)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut open {
            None if line.trim_start() == "```lua" => open = Some((i + 2, "--", Vec::new())),
            None if line.trim_start() == "```toml" => open = Some((i + 2, "#", Vec::new())),
            None => {}
            Some(_) if line.trim_start() == "```" => out.extend(open.take()),
            Some((_, _, lines)) => lines.push(line),
        }
    }
    out
}

/// The file a block's first line names after the comment mark `mark`, if it names one (a
/// `.lua` file in a Lua block, a `.toml` file in a TOML block).
fn named_file<'a>(first: &'a str, mark: &str) -> Option<&'a str> {
    let rest = first.trim().strip_prefix(mark)?.strip_prefix(' ')?;
    let path = rest.split([':', ' ']).next()?;
    let ext = if mark == "--" { ".lua" } else { ".toml" };
    (path.ends_with(ext) && path.contains('/')).then_some(path)
}

#[test]
fn every_example_that_names_a_file_is_in_that_file() {
    let root = common::root();
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let doc = doc.expect("a docs entry").path();
        if doc.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&doc).expect("a readable doc");
        let name = doc
            .strip_prefix(&root)
            .unwrap_or(&doc)
            .display()
            .to_string();
        for (line, mark, block) in code_blocks(&text) {
            let Some(script) = block.first().and_then(|l| named_file(l, mark)) else {
                continue;
            };
            let Ok(source) = std::fs::read_to_string(root.join(script)) else {
                problems.push(format!(
                    "{name}:{line}: names {script}, which does not exist"
                ));
                continue;
            };
            let lines: Vec<&str> = source.lines().map(str::trim_end).collect();
            // Each piece of the example (pieces are parted by blank lines), its leading comments
            // left out, is in the script as written.
            for piece in block[1..].split(|l| l.trim().is_empty()) {
                let code: Vec<&str> = piece
                    .iter()
                    .map(|l| l.trim_end())
                    .skip_while(|l| l.trim_start().starts_with(mark))
                    .collect();
                if !code.is_empty() && !lines.windows(code.len()).any(|w| w == code.as_slice()) {
                    problems.push(format!(
                        "{name}:{line}: `{}` and what follows is not in {script} as written: copy it from the script again",
                        code[0].trim()
                    ));
                }
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 10,
        "only {checked} examples found: is the docs folder there?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The Lua API's "One example per point" is one script: loaded as a mod's, every snippet of it
/// compiles, defines its ability and reads no global that nothing defines.
#[test]
fn the_lua_apis_example_per_point_loads_as_a_mod_with_no_problem_and_no_warning() {
    let root = common::root();
    let text = std::fs::read_to_string(root.join("docs/LUA_API.md")).expect("docs/LUA_API.md");
    let (_, after) = text
        .split_once("### One example per point")
        .expect("the section");
    let block = code_blocks(after)
        .into_iter()
        .next()
        .expect("the section's Lua block");
    let script = block.2.join("\n");
    let dir = common::mod_folder(
        "lua-api-examples",
        "id = \"doc_examples\"\nname = \"Doc examples\"\nversion = \"1.0.0\"\nhexforge = \"^0.2\"\n\n[provides]\nscripts = true\n",
    );
    std::fs::write(dir.join("scripts/examples.lua"), &script).expect("write");
    let loaded = hexforge_script::load(
        &[root.join("mods/base"), dir.clone()],
        hexforge_script::Limits::default(),
    );
    assert!(loaded.mods.problems.is_empty(), "{}", loaded.mods.problems);
    let warnings: Vec<String> = loaded.mods.warnings.iter().map(|w| w.to_string()).collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
    let abilities = script.matches("ability(\"").count();
    assert!(abilities >= 10, "{abilities} abilities in the block");
    let _ = std::fs::remove_dir_all(dir);
}
