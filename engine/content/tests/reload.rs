//! Loading again through the cache of mod folders: after random sequences of edits to copies of
//! the repository's mods (counts changed, files broken and fixed, tiles added and removed, mods
//! added and deleted, patches, scripts), the cached load equals a full load, and only the folders
//! that changed are read again.

use hexforge_content::{LoadedMods, ModCache, load_mods, mod_hash};
use hexforge_core::Rng;
use std::path::{Path, PathBuf};

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

/// Everything a load gives, written out: the catalog, the mods (with their files, versions and
/// hashes), the skipped mods, every problem in order, and the tiles' history.
fn summary(m: &LoadedMods) -> String {
    let hashes: Vec<(String, String, u64)> = m
        .mods
        .iter()
        .map(|x| (x.id.clone(), x.manifest.version.to_string(), mod_hash(x)))
        .collect();
    format!("{hashes:?}\n{m:#?}")
}

/// The files of `dir` (any depth) whose name ends with `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> Option<&'a T> {
    (!items.is_empty()).then(|| &items[rng.below(items.len())])
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create the folder");
    }
    std::fs::write(path, text).expect("write the file");
}

/// One random edit below `dir`; returns the paths it touched (as a watcher would report them).
fn edit(rng: &mut Rng, dir: &Path, originals: &[(PathBuf, String)], n: usize) -> Vec<PathBuf> {
    let armies: Vec<PathBuf> = files(dir, ".toml")
        .into_iter()
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("armies")))
        .collect();
    let mods: Vec<PathBuf> = files(dir, "mod.toml")
        .into_iter()
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    match rng.below(12) {
        // Counts changed: one tile's count moved to another (the deck keeps its size), or one
        // count set at random (the size is then usually wrong).
        0 | 1 => {
            let Some(f) = pick(rng, &armies) else {
                return Vec::new();
            };
            let mut text = std::fs::read_to_string(f).expect("read the army");
            let counts: Vec<(usize, usize, u32)> = text
                .match_indices("count = ")
                .filter_map(|(i, _)| {
                    let end = i + 8 + text[i + 8..].find('\n')?;
                    Some((i + 8, end, text[i + 8..end].trim().parse().ok()?))
                })
                .collect();
            if counts.len() < 2 {
                return Vec::new();
            }
            let (a, b) = (rng.below(counts.len()), rng.below(counts.len()));
            let set = |text: &mut String, (start, end, _): (usize, usize, u32), v: u32| {
                text.replace_range(start..end, &v.to_string());
            };
            if rng.below(4) == 0 {
                set(&mut text, counts[a], 1 + rng.below(3) as u32);
            } else if a != b && counts[b].2 > 1 && counts[a].2 < 9 {
                // The later one first, so the earlier offsets stay right.
                let (first, second) = if a < b { (a, b) } else { (b, a) };
                let value = |k: usize| {
                    if k == a {
                        counts[a].2 + 1
                    } else {
                        counts[b].2 - 1
                    }
                };
                set(&mut text, counts[second], value(second));
                set(&mut text, counts[first], value(first));
            } else {
                return Vec::new();
            }
            write(f, &text);
            vec![f.clone()]
        }
        // A file broken.
        2 => {
            let Some(f) = pick(rng, &armies) else {
                return Vec::new();
            };
            let text = std::fs::read_to_string(f).expect("read the army");
            let broken = if rng.below(2) == 0 {
                text.replacen("[army]", "[army", 1)
            } else {
                text.replacen("toughness = ", "toughness = 1", 1)
            };
            write(f, &broken);
            vec![f.clone()]
        }
        // A file put back as it was (fixing what was broken).
        3..=5 => {
            let Some((f, text)) = pick(rng, originals) else {
                return Vec::new();
            };
            write(f, text);
            vec![f.clone()]
        }
        // A tile added, or one removed.
        6 => {
            let Some(f) = pick(rng, &armies) else {
                return Vec::new();
            };
            let text = std::fs::read_to_string(f).expect("read the army");
            let changed = if rng.below(2) == 0 {
                format!(
                    "{text}\n[[tile]]\nid = \"extra_{n}\"\nname = \"Extra\"\nkind = \"soldier\"\ncount = 1\ninitiative = [2]\nedges = [\"melee:1@0\"]\n"
                )
            } else {
                let starts: Vec<usize> = text.match_indices("[[tile]]").map(|(i, _)| i).collect();
                let Some(&i) = pick(rng, &starts[1.min(starts.len())..]) else {
                    return Vec::new();
                };
                let end = text[i + 8..]
                    .find("[[tile]]")
                    .map_or(text.len(), |j| i + 8 + j);
                format!("{}{}", &text[..i], &text[end..])
            };
            write(f, &changed);
            vec![f.clone()]
        }
        // A new mod: a patch of the base armies (two of them may change the same field: a
        // conflict), or a second copy of a mod (same id or a new one).
        7..=9 => {
            let new = dir.join(format!("fan{n}"));
            if rng.below(3) != 0 {
                write(
                    &new.join("mod.toml"),
                    &format!(
                        "id = \"fan{n}\"\nname = \"Fan {n}\"\nversion = \"1.0.{n}\"\nhexforge = \"^0.2\"\n\n[dependencies]\nbase = \"^1\"\n"
                    ),
                );
                let field = [
                    "toughness = 3",
                    "toughness = 1",
                    "initiative = [4]",
                    "count = 1",
                ][rng.below(4)];
                write(
                    &new.join("patches/moloch.toml"),
                    &format!("[[change]]\ntile = \"moloch/cyborg\"\n{field}\n"),
                );
            } else {
                let Some(from) = pick(rng, &mods) else {
                    return Vec::new();
                };
                copy(from, &new);
                if rng.below(2) == 0 {
                    let manifest = new.join("mod.toml");
                    let text = std::fs::read_to_string(&manifest).expect("read the manifest");
                    let id = text
                        .lines()
                        .find_map(|l| l.strip_prefix("id = "))
                        .unwrap_or("\"\"")
                        .to_string();
                    write(
                        &manifest,
                        &text.replacen(&format!("id = {id}"), &format!("id = \"fan{n}\""), 1),
                    );
                }
            }
            vec![new]
        }
        // A mod deleted (the base mod, on which the patches depend, seldom).
        10 => {
            let Some(m) = pick(rng, &mods) else {
                return Vec::new();
            };
            if m.ends_with("base") && rng.below(4) != 0 {
                return Vec::new();
            }
            std::fs::remove_dir_all(m).expect("delete the mod");
            vec![m.clone()]
        }
        // A script changed or broken; a manifest's version changed.
        _ => {
            let scripts = files(dir, ".lua");
            match (rng.below(3), pick(rng, &scripts)) {
                (0, Some(f)) => {
                    let text = std::fs::read_to_string(f).expect("read the script");
                    write(f, &format!("{text}\n-- edit {n}\n"));
                    vec![f.clone()]
                }
                (1, Some(f)) => {
                    let text = std::fs::read_to_string(f).expect("read the script");
                    write(f, &format!("{text}\nend end\n"));
                    vec![f.clone()]
                }
                _ => {
                    let Some(m) = pick(rng, &mods) else {
                        return Vec::new();
                    };
                    let manifest = m.join("mod.toml");
                    let text = std::fs::read_to_string(&manifest).expect("read the manifest");
                    let Some(line) = text.lines().find(|l| l.starts_with("version = ")) else {
                        return Vec::new();
                    };
                    let version = format!("version = \"1.{}.0\"", rng.below(4));
                    write(&manifest, &text.replacen(line, &version, 1));
                    vec![manifest]
                }
            }
        }
    }
}

#[test]
fn a_cached_load_after_random_edits_equals_a_full_load() {
    let dir = workspace("content-reload");
    let roots = vec![dir.clone()];
    let originals: Vec<(PathBuf, String)> = files(&dir, ".toml")
        .into_iter()
        .chain(files(&dir, ".lua"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read an original");
            (p, text)
        })
        .collect();
    let mut cache = ModCache::default();
    cache.refresh(&roots, None);
    let mut rng = Rng::seeded(0x5eed);
    for round in 0..10 {
        // Each round starts again from the repository's mods, so deletions do not pile up.
        if round > 0 {
            let _ = std::fs::remove_dir_all(&dir);
            let fresh = workspace("content-reload");
            assert_eq!(fresh, dir);
            cache.refresh(&roots, None);
        }
        for step in 0..15 {
            let n = round * 100 + step;
            let changed = edit(&mut rng, &dir, &originals, n);
            let refreshed = cache.refresh(&roots, Some(&changed));
            let cached = cache.assemble(&[]);
            let full = load_mods(&roots);
            assert_eq!(
                summary(&cached),
                summary(&full),
                "round {round}, step {step}: after editing {changed:?}"
            );
            // Only the folders holding a changed path were read (a folder that appeared too).
            for d in refreshed.read.iter().chain(&refreshed.gone) {
                assert!(
                    changed.iter().any(|p| p.starts_with(d)),
                    "{d:?} was read again or dropped, but only {changed:?} changed"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn editing_one_army_reads_only_its_mod_again() {
    let dir = workspace("content-one-mod");
    let roots = vec![dir.clone()];
    let mut cache = ModCache::default();
    assert_eq!(cache.refresh(&roots, None).read.len(), 2);
    let before = cache.assemble(&[]);
    let moloch = dir.join("base/armies/moloch.toml");
    let text = std::fs::read_to_string(&moloch).expect("read moloch");
    std::fs::write(&moloch, text.replacen("toughness = 2", "toughness = 3", 1))
        .expect("write moloch");
    let refreshed = cache.refresh(&roots, Some(std::slice::from_ref(&moloch)));
    assert_eq!(refreshed.read, [dir.join("base")]);
    assert!(refreshed.gone.is_empty());
    let after = cache.assemble(&[]);
    let blocker = |m: &LoadedMods| {
        let t = m.catalog.find("moloch/blocker").expect("the blocker");
        m.catalog.get(t).toughness
    };
    assert_eq!((blocker(&before), blocker(&after)), (2, 3));
    assert_eq!(summary(&after), summary(&load_mods(&roots)));
    // Nothing changed: nothing is read, and the load is the same.
    assert_eq!(
        cache.refresh(&roots, Some(&[])),
        hexforge_content::Refreshed::default()
    );
    assert_eq!(summary(&cache.assemble(&[])), summary(&after));
    let _ = std::fs::remove_dir_all(dir);
}
