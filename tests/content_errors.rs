//! Malformed content must be reported with file, line, column and what to do.

mod common;

use hexforge_content::{load_mod, load_mods};
use std::path::Path;

#[test]
fn a_malformed_army_reports_every_problem_with_its_position() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("content/broken_mod");
    let errs = load_mod(&dir).expect_err("the broken mod must not load");
    let shown: Vec<String> = errs.iter().map(|d| d.to_string()).collect();
    let expected = [
        "broken.toml:18:8: unknown kind `sergeant`: use hq, soldier, module or instant",
        "broken.toml:22:6: tile id `grunt` is already used on line 16: tile ids must be unique in an army",
        "broken.toml:27:17: strength 4 is out of range: use 1 to 3 (R3.8)",
        "broken.toml:27:28: edge `7` is not a number from 0 to 5: number the edges 0 (front) to 5, clockwise",
    ];
    assert_eq!(shown.len(), expected.len(), "{shown:#?}");
    for (s, e) in shown.iter().zip(expected) {
        assert!(s.ends_with(e), "\n got: {s}\nwant: ...{e}");
    }
}

#[test]
fn a_broken_mod_does_not_stop_the_others_from_loading() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let loaded = load_mods(&[root.join("../mods/base"), root.join("content")]);
    assert_eq!(
        loaded.catalog.armies().len(),
        4,
        "the four base armies still load"
    );
    assert!(
        loaded
            .problems
            .iter()
            .any(|d| d.file.ends_with("broken.toml"))
    );
}

#[test]
fn a_preset_that_fails_is_reported_once_not_again_as_unknown_in_options_toml() {
    let dir = common::fresh_dir("failed-preset");
    let copy = |from: &str, to: &str| {
        let to = dir.join(to);
        std::fs::create_dir_all(to.parent().expect("a folder")).expect("a folder");
        std::fs::copy(common::root().join("mods/monolith_arena").join(from), to).expect("copy");
    };
    copy("mod.toml", "mod.toml");
    copy("options.toml", "options.toml");
    // The preset sets an option no loaded mod declares: its file is refused.
    std::fs::create_dir_all(dir.join("rules")).expect("a folder");
    std::fs::write(
        dir.join("rules/monolith_arena.toml"),
        "[preset]\nid = \"monolith_arena\"\nname = \"M\"\nbase = \"v3\"\n\n[options]\nmonolith_size = 7\n",
    )
    .expect("write");
    let loaded = load_mods(&[common::root().join("mods/base"), dir.clone()]);
    let text = loaded.problems.to_string();
    assert!(text.contains("monolith_arena.toml"), "{text}");
    assert!(!text.contains("unknown preset"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}
