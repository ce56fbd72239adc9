//! `hexforge mods`: listing, checking and creating mods, as a modder runs them.

use std::path::{Path, PathBuf};

mod common;

/// Runs the binary in the checkout with `user` as the user mods folder.
fn hexforge(args: &[&str], user: &Path) -> (bool, String) {
    common::run(args, Some(user))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-mods-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn a_new_mod_passes_its_check_and_plays_a_match() {
    let user = temp_dir("new");
    let (ok, out) = hexforge(&["mods", "new", "raiders"], &user);
    assert!(ok, "{out}");
    assert!(user.join("raiders/mod.toml").is_file(), "{out}");
    let dir = user.join("raiders");
    let dir = dir.to_string_lossy();
    let (ok, out) = hexforge(&["mods", "check", &dir], &user);
    assert!(ok, "{out}");
    assert!(out.contains("ok: mod raiders 0.1.0: 1 army"), "{out}");
    // The user folder loads after the checkout's mods.
    let (ok, out) = hexforge(&["mods", "list"], &user);
    assert!(ok, "{out}");
    assert!(
        out.contains("raiders          0.1.0     loaded   raiders"),
        "{out}"
    );
    let (ok, out) = hexforge(
        &[
            "match", "--army", "raiders", "--army", "moloch", "--bot", "greedy", "--quiet",
        ],
        &user,
    );
    assert!(ok, "{out}");
    assert!(out.starts_with("Result: "), "{out}");
    // A second mod of the same name is refused, and the first is kept.
    let (ok, out) = hexforge(&["mods", "new", "raiders"], &user);
    assert!(!ok && out.contains("already exists"), "{out}");
    let (ok, out) = hexforge(&["mods", "new", "Bad-Name"], &user);
    assert!(!ok && out.contains("not a valid mod name"), "{out}");
    let _ = std::fs::remove_dir_all(&user);
}

#[test]
fn a_new_mod_names_the_mods_it_needs_and_loads_after_them() {
    let user = temp_dir("needs");
    let (ok, out) = hexforge(
        &[
            "mods",
            "new",
            "crusaders",
            "--needs",
            "base",
            "--needs",
            "structures@>=1.0",
        ],
        &user,
    );
    assert!(ok, "{out}");
    let manifest = std::fs::read_to_string(user.join("crusaders/mod.toml")).expect("its manifest");
    assert!(
        manifest.contains("[dependencies]\nbase = \"^1\"\nstructures = \">=1.0\"\n"),
        "{manifest}"
    );
    let (ok, out) = hexforge(
        &["mods", "check", &user.join("crusaders").to_string_lossy()],
        &user,
    );
    assert!(ok, "{out}");
    // A mod that is not loaded, or a requirement that is not one, writes nothing.
    let (ok, out) = hexforge(&["mods", "new", "knights", "--needs", "bsae"], &user);
    assert!(
        !ok && out.contains("--needs bsae: no mod `bsae` is loaded (did you mean `base`?)"),
        "{out}"
    );
    let (ok, out) = hexforge(&["mods", "new", "knights", "--needs", "base@one"], &user);
    assert!(
        !ok && out.contains("`one` is not a version requirement"),
        "{out}"
    );
    assert!(!user.join("knights").exists());
    let _ = std::fs::remove_dir_all(&user);
}

#[test]
fn mods_list_shows_each_mod_with_its_version_state_and_armies() {
    let user = temp_dir("list");
    let (ok, out) = hexforge(&["mods", "list"], &user);
    assert!(ok, "{out}");
    assert!(
        out.contains("base             1.0.0     loaded   borgo, hegemony, moloch, outpost"),
        "{out}"
    );
    // The examples mod's armies, whatever others it gains.
    let examples = out
        .lines()
        .find(|l| l.starts_with("examples         1.0.0     loaded   "))
        .unwrap_or_else(|| panic!("no loaded examples mod: {out}"));
    assert!(
        examples.contains("scrappers") && examples.contains("tidecallers"),
        "{out}"
    );
    // Each mod's boards, under it.
    assert!(out.contains("    boards: king_of_the_hill (R9.7)"), "{out}");
    // Where each loaded mod is, and the content hash a match and a replay record for it.
    let base = out
        .split("\nbase ")
        .nth(1)
        .unwrap_or_else(|| panic!("no base mod: {out}"));
    assert!(
        base.contains("    path: ") && base.contains("mods/base"),
        "{out}"
    );
    let hash = base
        .lines()
        .find_map(|l| l.strip_prefix("    content hash: "))
        .unwrap_or_else(|| panic!("no content hash: {out}"));
    assert_eq!(hash.len(), 16, "{out}");
    let (ok, played) = hexforge(
        &[
            "match", "--army", "moloch", "--army", "borgo", "--quiet", "--seed", "1",
        ],
        &user,
    );
    assert!(ok, "{played}");
    let (ok, full) = hexforge(
        &[
            "match", "--army", "moloch", "--army", "borgo", "--seed", "1",
        ],
        &user,
    );
    assert!(
        ok && full.contains(&format!("base 1.0.0 #{hash}")),
        "{full}"
    );
}

#[test]
fn mods_check_lists_every_problem_of_a_broken_mod_and_fails() {
    let user = temp_dir("check");
    let (ok, out) = hexforge(&["mods", "check", "tests/content/broken_mod"], &user);
    assert!(!ok, "{out}");
    assert!(
        out.contains("broken.toml:18:8: unknown kind `sergeant`"),
        "{out}"
    );
    assert!(out.contains("problem(s)"), "{out}");
}

#[test]
fn armies_and_rule_presets_come_from_any_loaded_mod() {
    let user = temp_dir("presets");
    let (ok, out) = hexforge(
        &[
            "match",
            "--army",
            "examples:scrappers",
            "--army",
            "base:moloch",
            "--rules",
            "quick_skirmish",
            "--seed",
            "3",
        ],
        &user,
    );
    assert!(ok, "{out}");
    // The log names the mods, their versions and content hashes.
    let content = out.lines().nth(1).unwrap_or_default();
    assert!(
        content.starts_with("Content: ") && content.contains("base 1.0.0 #"),
        "{out}"
    );
    assert!(content.contains("examples 1.0.0 #"), "{out}");
    // quick_skirmish starts HQs at 10 HP: no HQ is ever above it.
    let hps: Vec<i32> = out
        .lines()
        .filter(|l| l.contains("HQ of") && l.ends_with(" HP"))
        .filter_map(|l| l.rsplit(": ").next()?.trim_end_matches(" HP").parse().ok())
        .collect();
    assert!(!hps.is_empty() && hps.iter().all(|hp| *hp < 10), "{out}");
    let (ok, out) = hexforge(
        &["match", "--army", "examples:moloch", "--army", "borgo"],
        &user,
    );
    assert!(
        !ok && out.contains("mod `examples` has no army `moloch`"),
        "{out}"
    );
    let (ok, out) = hexforge(
        &[
            "match", "--army", "moloch", "--army", "borgo", "--rules", "nope",
        ],
        &user,
    );
    assert!(
        !ok && out.contains("use one of classic, v3, v2025, quick_skirmish"),
        "{out}"
    );
}

#[test]
fn mods_check_names_a_duplicate_key_a_bad_byte_and_a_misspelt_key_with_their_lines() {
    let user = temp_dir("wording");
    let (ok, out) = hexforge(&["mods", "new", "raiders"], &user);
    assert!(ok, "{out}");
    let dir = user.join("raiders");
    let manifest = dir.join("mod.toml");
    let text = std::fs::read_to_string(&manifest).expect("mod.toml");
    let id_line = text
        .lines()
        .position(|l| l.starts_with("id = "))
        .expect("an id")
        + 1;
    let id = text
        .lines()
        .nth(id_line - 1)
        .unwrap_or_default()
        .to_string();
    std::fs::write(&manifest, text.replacen(&id, &format!("{id}\n{id}"), 1)).expect("write");
    let path = dir.to_string_lossy();
    let (ok, out) = hexforge(&["mods", "check", &path], &user);
    assert!(
        !ok && out.contains(&format!(
            "mod.toml:{}:1: skipped: the key `id` is defined twice in this table (first at line {id_line}); remove one of them",
            id_line + 1
        )),
        "{out}"
    );
    let last = text.lines().count() + 1;
    let mut bytes = text.clone().into_bytes();
    bytes.extend(b"# \xff\n");
    std::fs::write(&manifest, bytes).expect("write");
    let (ok, out) = hexforge(&["mods", "check", &path], &user);
    assert!(
        !ok && out.contains(&format!(
            "mod.toml:{last}:3: skipped: line {last}, byte {}: this mod manifest is not UTF-8 text; save it as UTF-8",
            text.len() + 2
        )),
        "{out}"
    );
    std::fs::write(&manifest, text.replacen("version = ", "verson = ", 1)).expect("write");
    let (ok, out) = hexforge(&["mods", "check", &path], &user);
    assert!(
        !ok && out
            .contains("unknown key `verson` at the top of the file (did you mean `version`?)"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&user);
}

#[test]
fn mods_commands_show_the_warning_of_a_mod_written_for_hexforge_0_1_and_still_load_it() {
    let user = temp_dir("written-for-0-1");
    let relic = "tests/broken_mods/written_for_hexforge_0_1/relic";
    let (ok, out) = hexforge(&["mods", "check", relic], &user);
    assert!(ok, "a warning does not fail the check: {out}");
    assert!(
        out.contains("warning: ")
            && out.contains("relic/mod.toml:6:12: mod `relic` declares `hexforge = \"^0.1\"`"),
        "{out}"
    );
    assert!(
        out.contains("the effects its `destroyed` hook asks for (scripts/relic.lua:6)"),
        "{out}"
    );
    assert!(
        out.contains(
            "ok: mod relic 1.0.0: 1 army, 2 tile kinds, 1 abilities bound, no scenarios yet"
        ) && out.contains("; 1 warning(s) above"),
        "{out}"
    );
    let case = "tests/broken_mods/written_for_hexforge_0_1";
    let (ok, out) = hexforge(&["--mods", case, "mods", "list"], &user);
    assert!(ok, "{out}");
    assert!(
        out.contains("relic            1.0.0     loaded   relic"),
        "{out}"
    );
    assert!(
        out.contains("    warning: ") && out.contains("then write `hexforge = \"^0.2\"`"),
        "{out}"
    );
    let (ok, out) = hexforge(&["--mods", case, "mods", "check"], &user);
    assert!(ok, "{out}");
    assert!(
        out.contains("2 mod(s) loaded, 0 skipped, 0 problem(s), 2 warning(s)"),
        "{out}"
    );
}

#[test]
fn a_mods_check_counts_the_game_rules_a_mod_defines() {
    let user = temp_dir("rules_count");
    let scored = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/scored");
    let (ok, out) = hexforge(&["mods", "check", scored.to_str().expect("a path")], &user);
    assert!(ok, "{out}");
    assert!(
        out.contains(
            "ok: mod scored 1.0.0: 0 armies, 0 tile kinds, 0 abilities bound, 1 game rule"
        ),
        "{out}"
    );
}

#[test]
fn mods_explain_shows_who_made_a_tile_and_its_edges_and_abilities_now() {
    let user = temp_dir("explain");
    let (ok, out) = hexforge(&["mods", "explain", "outpost/watchtower_top"], &user);
    assert!(ok, "{out}");
    for expected in [
        "outpost/watchtower_top\n",
        "  structures       added (",
        "patches/outpost.toml:",
        "  now: Watchtower Top x0, initiative [3], toughness 0",
        "  edges: ranged:1@0,1,5",
        "  ability: structure_sniper",
    ] {
        assert!(out.contains(expected), "`{expected}` not in:\n{out}");
    }
    // What the army file's tables give: an aura, a module's effects, an instant, a linked unit.
    for (tile, expected) in [
        ("moloch/hq", "  aura: ranged = 1\n"),
        ("moloch/medic", "  module: medic\n"),
        ("moloch/battle", "  instant: battle\n"),
        (
            "scrappers/crawler",
            "  linked: crawler (whole lost, shared), parts crawler_tail at [3]\n",
        ),
    ] {
        let (ok, out) = hexforge(&["mods", "explain", tile], &user);
        assert!(
            ok && out.contains(expected),
            "{tile}: `{expected}` not in:\n{out}"
        );
    }
    let (ok, out) = hexforge(&["mods", "explain", "moloch/juggernat"], &user);
    assert!(
        !ok && out.contains("(did you mean `moloch/juggernaut`?)"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&user);
}

#[test]
fn the_play_command_mods_new_prints_for_a_folder_elsewhere_works_as_printed() {
    let user = temp_dir("new-elsewhere");
    let elsewhere = user.join("elsewhere");
    let (ok, out) = hexforge(
        &[
            "mods",
            "new",
            "raiders",
            "--into",
            &elsewhere.to_string_lossy(),
        ],
        &user,
    );
    assert!(ok, "{out}");
    let play = out
        .split("play it with `hexforge ")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("no play command: {out}"));
    assert!(
        play.contains("--mods "),
        "the folder elsewhere is loaded: {play}"
    );
    let mut args: Vec<&str> = play.split(' ').collect();
    args.push("--quiet");
    let (ok, played) = hexforge(&args, &user);
    assert!(ok && played.starts_with("Result: "), "{play}: {played}");
    let _ = std::fs::remove_dir_all(&user);
}

#[test]
fn mods_test_runs_the_scenarios_a_mod_ships_and_check_counts_them() {
    let user = temp_dir("test-scenarios");
    let (ok, out) = hexforge(&["mods", "new", "raiders"], &user);
    assert!(ok, "{out}");
    // A new mod ships a first scenario, which passes.
    let (ok, out) = hexforge(&["mods", "test", "raiders"], &user);
    assert!(
        ok && out.trim_end().ends_with("1 passed, 0 failed"),
        "{out}"
    );
    // Without a scenarios/ folder, the command says what to do.
    let scenarios = user.join("raiders/scenarios");
    std::fs::remove_dir_all(&scenarios).expect("remove the scenarios");
    let (ok, out) = hexforge(&["mods", "test", "raiders"], &user);
    assert!(
        !ok && out.contains("mod `raiders` ships no scenarios"),
        "{out}"
    );
    std::fs::create_dir_all(&scenarios).expect("a scenarios folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::copy(
        root.join("tests/scenarios/r4_battle/02_simultaneous_mutual_kill.toml"),
        scenarios.join("01_mutual_kill.toml"),
    )
    .expect("copy a scenario");
    let (ok, out) = hexforge(&["mods", "test", "raiders"], &user);
    assert!(ok, "{out}");
    assert!(out.trim_end().ends_with("1 passed, 0 failed"), "{out}");
    let dir = user.join("raiders");
    let (ok, out) = hexforge(&["mods", "check", &dir.to_string_lossy()], &user);
    // The command to run them names the folder, which works whatever loaded the mod.
    assert!(
        ok && out.contains(&format!(
            ", 1 scenario (`hexforge mods test {}`)",
            dir.display()
        )),
        "{out}"
    );
    let (ok, out) = hexforge(&["mods", "test", "raider"], &user);
    assert!(!ok && out.contains("(did you mean `raiders`?)"), "{out}");
    let _ = std::fs::remove_dir_all(&user);
}
