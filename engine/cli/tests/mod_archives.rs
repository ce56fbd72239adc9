//! `hexforge mods pack` and `hexforge mods install` as a user runs them: a mod packed, installed
//! elsewhere and played from there; a hostile or damaged archive refused with nothing written;
//! `hexforge mods remove` setting a folder aside.

mod common;

use std::path::{Path, PathBuf};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "hexforge-cli-archive-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp folder");
    d
}

/// `hexforge mods install FILE --into INTO --yes`: whether it succeeded, and what it printed.
fn install_yes(file: &Path, into: &Path) -> (bool, String) {
    common::run(
        &["mods", "install", path(file), "--into", path(into), "--yes"],
        None,
    )
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temp path")
}

#[test]
fn a_packed_mod_installs_elsewhere_and_plays_from_there() {
    let dir = temp("roundtrip");
    let file = dir.join("leaders.hexmod");
    let (ok, out) = common::run(&["mods", "pack", "leaders", "--out", path(&file)], None);
    assert!(ok, "{out}");
    assert!(out.starts_with("packed `leaders` 1.0.0 #"), "{out}");
    let into = dir.join("mods");
    // Without --yes and with nothing on standard input, nothing is installed.
    let (ok, out) = common::run(
        &["mods", "install", path(&file), "--into", path(&into)],
        None,
    );
    assert!(!ok && out.contains("not installed"), "{out}");
    assert!(!into.join("leaders").exists());
    let (ok, out) = install_yes(&file, &into);
    assert!(ok, "{out}");
    assert!(into.join("leaders/mod.toml").is_file(), "{out}");
    // The installed copy is the mod: `mods check` on it passes.
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/base");
    let (ok, out) = common::run(
        &[
            "--mods",
            path(&base),
            "--mods",
            path(&into),
            "mods",
            "check",
            path(&into.join("leaders")),
        ],
        None,
    );
    assert!(ok, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_archive_with_a_path_outside_its_folder_is_refused_and_writes_nothing() {
    let dir = temp("hostile");
    let file = dir.join("scored.hexmod");
    let (ok, out) = common::run(&["mods", "pack", "scored", "--out", path(&file)], None);
    assert!(ok, "{out}");
    // A file slipped in that would land outside the mod's folder, with a checksum made to fit.
    let bytes = std::fs::read(&file).expect("read the archive");
    let text = String::from_utf8(bytes).expect("a text archive");
    let body = &text[..text.rfind("end ").expect("an end line")];
    let evil = format!("{body}file ../../evil.lua 5\nboom!\n");
    let mut h = hexforge_core::fnv::Fnv1a::new();
    h.bytes(evil.as_bytes());
    let hostile = format!("{evil}end {:016x}\n", h.finish());
    std::fs::write(&file, hostile).expect("write");
    let into = dir.join("mods");
    let (ok, out) = install_yes(&file, &into);
    assert!(!ok, "{out}");
    assert!(
        out.contains("\"../../evil.lua\", which is refused"),
        "{out}"
    );
    assert!(
        !dir.join("evil.lua").exists() && !into.exists(),
        "nothing written"
    );
    // One byte changed: the checksum refuses it.
    std::fs::write(&file, text.replacen("name", "nAme", 1).as_bytes()).expect("write");
    let (ok, out) = install_yes(&file, &into);
    assert!(!ok && out.contains("the archive is damaged"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_removed_mod_is_set_aside_and_the_mods_that_need_it_are_named() {
    let dir = temp("remove");
    let file = dir.join("leaders.hexmod");
    let (ok, out) = common::run(&["mods", "pack", "leaders", "--out", path(&file)], None);
    assert!(ok, "{out}");
    let into = dir.join("mods");
    let (ok, out) = install_yes(&file, &into);
    assert!(ok, "{out}");
    let remove = |id: &str, yes: bool| {
        let mut args = vec!["mods", "remove", id, "--from", path(&into)];
        if yes {
            args.push("--yes");
        }
        common::run(&args, None)
    };
    let (ok, out) = remove("leaderz", true);
    assert!(!ok);
    assert!(
        out.contains("no mod `leaderz` is installed in")
            && out.contains("(did you mean `leaders`?): installed there: leaders"),
        "{out}"
    );
    // Without --yes and with nothing on standard input, nothing is removed.
    let (ok, out) = remove("leaders", false);
    assert!(!ok && out.contains("not removed"), "{out}");
    assert!(into.join("leaders/mod.toml").is_file());
    let (ok, out) = remove("leaders", true);
    assert!(ok, "{out}");
    assert!(
        out.contains("removed `leaders`; its folder is kept in"),
        "{out}"
    );
    assert!(!into.join("leaders").exists());
    assert!(
        into.join(".replaced/leaders-1/mod.toml").is_file(),
        "set aside, never deleted"
    );
    // A mod another loaded mod needs: removed on request, the other named.
    let base_file = dir.join("base.hexmod");
    let (ok, out) = common::run(&["mods", "pack", "base", "--out", path(&base_file)], None);
    assert!(ok, "{out}");
    let (ok, out) = install_yes(&base_file, &into);
    assert!(ok, "{out}");
    let structures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/structures");
    let (ok, out) = common::run(
        &[
            "--mods",
            path(&into),
            "--mods",
            path(&structures),
            "mods",
            "remove",
            "base",
            "--from",
            path(&into),
            "--yes",
        ],
        None,
    );
    assert!(ok, "{out}");
    assert!(
        out.contains(
            "warning: `structures` needs `base`: it is skipped until it is installed again"
        ),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
