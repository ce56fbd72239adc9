//! Reloading through a [`Reloader`]: after random sequences of edits to copies of the
//! repository's mods (army counts, Lua scripts changed, broken and fixed, abilities renamed, fan
//! mods with their own army and script added and deleted), the reloaded content equals a full
//! load, games played with the kept Lua states give the same events as with fresh ones, and only
//! the mods whose scripts changed get a new Lua state.

use hexforge_core::game::LegalActions;
use hexforge_core::{BoardShape, DefaultPolicy, Event, Game, GameSetup, Rng, Rules, SeatSetup};
use hexforge_script::{Limits, Loaded, Reloader, load};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for e in std::fs::read_dir(from).expect("read the folder") {
        let e = e.expect("a folder entry");
        if e.path().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy a file");
        }
    }
}

/// A fresh folder holding copies of `mods/base` and `mods/examples`.
fn workspace(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hexforge-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods");
    copy(&repo.join("base"), &dir.join("base"));
    copy(&repo.join("examples"), &dir.join("examples"));
    dir
}

/// The content and the scripts' outcome, written out: the mods with their hashes, the catalog
/// with every ability bound, the skipped mods, every problem in order, and the mods whose scripts
/// run.
fn summary(l: &Loaded) -> String {
    let hashes: Vec<(String, u64)> = l
        .mods
        .mods
        .iter()
        .map(|m| (m.id.clone(), hexforge_content::mod_hash(m)))
        .collect();
    let running: Vec<&str> = l.scripts.mods().collect();
    format!(
        "{hashes:?}\n{running:?}\n{:?}\n{:#?}",
        l.scripts.failed_mods(),
        l.mods
    )
}

/// The events of a game between `army` and Moloch, its players picking actions from a seeded
/// generator, for at most 60 actions (or why the game could not start or go on).
fn play(l: &mut Loaded, army: &str, seed: u64) -> Vec<String> {
    let catalog = Arc::new(l.mods.catalog.clone());
    let setup = GameSetup {
        shape: BoardShape::standard(),
        seats: SeatSetup::each_alone(&[army, "moloch"]),
        seed,
        marks: Vec::new(),
    };
    let mut game = match Game::new(setup, catalog, Arc::new(Rules::default())) {
        Ok(g) => g,
        Err(e) => return vec![format!("no game: {e}")],
    };
    let mut rng = Rng::seeded(seed);
    let mut legal = LegalActions::new();
    let mut events: Vec<Event> = Vec::new();
    let mut failure = None;
    for _ in 0..60 {
        if game.current().is_none() {
            break;
        }
        game.legal_actions(&mut legal);
        let Some(action) = legal.get(rng.below(legal.len())) else {
            break;
        };
        if let Err(e) = game.act(&action, &mut l.scripts, &mut DefaultPolicy, &mut events) {
            failure = Some(format!("stopped: {e}"));
            break;
        }
    }
    events
        .iter()
        .map(|e| format!("{e:?}"))
        .chain(failure)
        .collect()
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create the folder");
    }
    std::fs::write(path, text).expect("write the file");
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("read the file")
}

/// One random edit below `dir`; returns the paths it touched (as a watcher would report them).
fn edit(rng: &mut Rng, dir: &Path, n: usize) -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/examples");
    let script = dir.join("examples/scripts/scrappers.lua");
    let army = dir.join("examples/armies/scrappers.toml");
    match rng.below(9) {
        // The poison's default wounds changed: a kept state would still wound by the old count.
        0 | 1 if script.is_file() => {
            let wounds = 1 + rng.below(3);
            let text = read(&script);
            let at = text
                .find("ctx:param(\"wounds\", ")
                .expect("the poison's wounds")
                + 20;
            let end = at + text[at..].find(')').expect("the call's end");
            write(&script, &format!("{}{wounds}{}", &text[..at], &text[end..]));
            vec![script]
        }
        // The script broken, or put back as it was.
        2 if script.is_file() => {
            if rng.below(2) == 0 {
                write(&script, &format!("{}\nend end\n", read(&script)));
            } else {
                write(&script, &read(&repo.join("scripts/scrappers.lua")));
            }
            vec![script]
        }
        // An ability renamed in the army (it then binds to nothing), or the army put back.
        3 if army.is_file() => {
            if rng.below(2) == 0 {
                write(
                    &army,
                    &read(&army).replacen("hook = \"poison\"", "hook = \"poisson\"", 1),
                );
            } else {
                write(&army, &read(&repo.join("armies/scrappers.toml")));
            }
            vec![army]
        }
        // A count of the base armies changed (the scripts stay as they are).
        4 => {
            let file = dir.join("base/armies/moloch.toml");
            if !file.is_file() {
                return Vec::new();
            }
            let text = read(&file);
            let count = 1 + rng.below(3);
            write(
                &file,
                &text.replacen("count = 2", &format!("count = {count}"), 1),
            );
            vec![file]
        }
        // A fan mod with its own army and script.
        5 | 6 => {
            let new = dir.join(format!("fan{n}"));
            copy(&repo, &new);
            let manifest = new.join("mod.toml");
            write(
                &manifest,
                &read(&manifest)
                    .replacen("id = \"examples\"", &format!("id = \"fan{n}\""), 1)
                    .replace("\"scrappers\"", &format!("\"scrappers{n}\"")),
            );
            let file = new.join("armies/scrappers.toml");
            write(
                &file,
                &read(&file).replacen("id = \"scrappers\"", &format!("id = \"scrappers{n}\""), 1),
            );
            if rng.below(3) == 0 {
                let lua = new.join("scripts/scrappers.lua");
                write(&lua, &format!("{}\nability(\"broken\", 3)\n", read(&lua)));
            }
            vec![new]
        }
        // A mod deleted.
        _ => {
            let mut mods: Vec<PathBuf> = std::fs::read_dir(dir)
                .expect("read the mods")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.file_name().is_some_and(|f| f != "base"))
                .collect();
            mods.sort();
            if mods.is_empty() {
                return Vec::new();
            }
            let gone = mods[rng.below(mods.len())].clone();
            std::fs::remove_dir_all(&gone).expect("delete the mod");
            vec![gone]
        }
    }
}

#[test]
fn a_reload_after_random_edits_equals_a_full_load_and_plays_the_same() {
    let dir = workspace("script-reload");
    let roots = vec![dir.clone()];
    let mut reloader = Reloader::new(Limits::default());
    let first = reloader.reload(&roots, None);
    assert_eq!(first.rebuilt, ["base", "examples"]);
    let mut rng = Rng::seeded(0xfeed);
    let mut games = 0;
    for round in 0..4 {
        if round > 0 {
            let _ = std::fs::remove_dir_all(&dir);
            assert_eq!(workspace("script-reload"), dir);
        }
        for step in 0..10 {
            let n = round * 100 + step;
            let changed = if round > 0 && step == 0 {
                // The folder was made again from scratch: say nothing, so every folder is read.
                None
            } else {
                Some(edit(&mut rng, &dir, n))
            };
            let mut cached = reloader.reload(&roots, changed.as_deref());
            let mut full = load(&roots, Limits::default());
            let at = format!("round {round}, step {step}: after editing {changed:?}");
            assert_eq!(summary(&cached.loaded), summary(&full), "{at}");
            // A state is built again only for a mod whose folder was read.
            for id in &cached.rebuilt {
                let m = full.mods.mods.iter().find(|m| &m.id == id).map(|m| &m.dir);
                assert!(
                    m.is_none_or(|d| cached.read.contains(d)),
                    "{at}: {id} rebuilt though its folder was not read"
                );
            }
            if cached.loaded.mods.catalog.army("scrappers").is_some() {
                let seed = n as u64;
                let kept = play(&mut cached.loaded, "scrappers", seed);
                assert_eq!(kept, play(&mut full, "scrappers", seed), "{at}");
                games += 1;
            }
        }
    }
    assert!(games > 5, "only {games} games were compared");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn only_the_mod_whose_files_changed_is_read_and_rebuilt() {
    let dir = workspace("script-one-mod");
    let roots = vec![dir.clone()];
    let mut reloader = Reloader::new(Limits::default());
    reloader.reload(&roots, None);
    // An army file of the base mod: its folder is read again, no Lua state is rebuilt.
    let moloch = dir.join("base/armies/moloch.toml");
    write(
        &moloch,
        &read(&moloch).replacen("toughness = 2", "toughness = 3", 1),
    );
    let r = reloader.reload(&roots, Some(std::slice::from_ref(&moloch)));
    assert_eq!(r.read, [dir.join("base")]);
    assert!(r.rebuilt.is_empty(), "{:?}", r.rebuilt);
    // The examples' script: that mod alone is read and rebuilt.
    let lua = dir.join("examples/scripts/scrappers.lua");
    write(&lua, &format!("{}\n-- a note\n", read(&lua)));
    let r = reloader.reload(&roots, Some(std::slice::from_ref(&lua)));
    assert_eq!(r.read, [dir.join("examples")]);
    assert_eq!(r.rebuilt, ["examples"]);
    assert_eq!(
        summary(&r.loaded),
        summary(&load(&roots, Limits::default()))
    );
    // A broken script: the mod is left out with its problem, and comes back once fixed.
    let text = read(&lua);
    write(&lua, &format!("{text}\nend end\n"));
    let r = reloader.reload(&roots, Some(std::slice::from_ref(&lua)));
    assert!(r.loaded.mods.mods.iter().all(|m| m.id != "examples"));
    assert!(
        r.loaded
            .mods
            .problems
            .iter()
            .any(|d| d.file == lua && d.message.contains("end")),
        "{:?}",
        r.loaded.mods.problems
    );
    write(&lua, &text);
    let r = reloader.reload(&roots, Some(std::slice::from_ref(&lua)));
    assert!(r.loaded.mods.mods.iter().any(|m| m.id == "examples"));
    assert_eq!(r.rebuilt, ["examples"]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_kept_lua_state_plays_as_a_fresh_one_whatever_its_hooks_changed() {
    // A fan army whose HQ keeps a count and a table in locals, and draws, at the start of its
    // owner's turns: it wounds itself in its first three turns of a game (if its locals start as
    // loaded) and by chance.
    let dir = workspace("script-kept-state");
    write(
        &dir.join("keepers/mod.toml"),
        "id = \"keepers\"\nname = \"Keepers\"\nversion = \"1.0.0\"\n",
    );
    write(
        &dir.join("keepers/armies/keepers.toml"),
        "[army]\nid = \"keepers\"\nname = \"Keepers\"\nsize = 17\n\n[[tile]]\nid = \"hq\"\nname = \"HQ\"\nkind = \"hq\"\ncount = 1\ninitiative = [0]\nedges = [\"melee:1@0,1,2,3,4,5\"]\n\n[[tile.ability]]\nhook = \"lash\"\n\n[[tile]]\nid = \"brawler\"\nname = \"Brawler\"\nkind = \"soldier\"\ncount = 16\ninitiative = [2]\nedges = [\"melee:1@0,1,5\"]\n",
    );
    write(
        &dir.join("keepers/scripts/keepers.lua"),
        "local calls = 0\nlocal seen = { n = 0 }\nability(\"lash\", {\n  turn_started = function(ctx, fx)\n    calls = calls + 1\n    seen.n = seen.n + 1\n    local q, r = ctx:hex()\n    if calls <= 2 or seen.n == 3 or math.random(1, 3) == 1 then\n      fx:wound(q, r, 1)\n    end\n  end,\n})\n",
    );
    let roots = vec![dir.clone()];
    let mut reloader = Reloader::new(Limits::default());
    let mut first = reloader.reload(&roots, None).loaded;
    assert!(first.mods.problems.is_empty(), "{}", first.mods.problems);
    let fresh = play(&mut first, "keepers", 4);
    assert!(
        fresh
            .iter()
            .any(|e| e.contains("HqDamaged") || e.contains("Wounded")),
        "the hook wounds: {fresh:?}"
    );
    // Another game on the same host, then a reload that keeps the Lua state it changed.
    assert_eq!(play(&mut first, "keepers", 4), fresh);
    let mut again = reloader.reload(&roots, None);
    assert!(again.rebuilt.is_empty(), "{:?}", again.rebuilt);
    assert_eq!(play(&mut again.loaded, "keepers", 4), fresh);
    assert_eq!(
        play(&mut load(&roots, Limits::default()), "keepers", 4),
        fresh
    );
    let _ = std::fs::remove_dir_all(dir);
}
