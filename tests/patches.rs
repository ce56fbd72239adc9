//! Mods that patch other mods' armies (tests/patches, docs/MODDING.md): changes, additions,
//! copies into a new army, conflicts (the later mod wins, and it is reported), and a patch of a
//! mod that is not a dependency (refused).

use hexforge_script::Limits;
use std::path::Path;

fn loaded() -> hexforge_script::Loaded {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("patches");
    hexforge_script::load(&[root], Limits::default())
}

#[test]
fn patches_change_add_and_copy_tiles_and_the_later_mod_wins_a_conflict() {
    let l = loaded();
    let cat = &l.mods.catalog;
    let soldier = cat.get(cat.find("grunts/soldier").expect("soldier"));
    // tweak (loads after rival: dependencies first, then by id) sets toughness 2 and count 1.
    assert_eq!((soldier.toughness, soldier.count), (2, 1));
    let medic = cat.get(cat.find("grunts/medic").expect("added by tweak"));
    assert!(medic.module.medic);
    let brute = cat.get(cat.find("fans/brute").expect("copied by fan"));
    assert_eq!((brute.army.as_str(), brute.count), ("fans", 1));
    // The Grunts still have their 4 tiles; the Fans their 2.
    for (army, size) in [("grunts", 4u32), ("fans", 2)] {
        let a = cat.army(army).expect("army");
        let total: u32 = a.tiles.iter().map(|t| u32::from(cat.get(*t).count)).sum();
        assert_eq!(total, size, "{army}");
    }
    let conflicts: Vec<String> = l
        .mods
        .history
        .conflicts
        .iter()
        .map(|d| d.to_string())
        .collect();
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert!(
        conflicts[0].contains("tweak/patches/grunts.toml:4:13: `toughness` of `grunts/soldier` is changed by mod `rival`"),
        "{conflicts:?}"
    );
    assert!(conflicts[0].ends_with("and again by mod `tweak`, which loads later and wins"));
}

#[test]
fn a_tiles_history_lists_who_defined_and_changed_it_in_load_order() {
    let l = loaded();
    let steps: Vec<(String, String)> = l
        .mods
        .history
        .of("grunts/soldier")
        .map(|c| (c.mod_id.clone(), c.field.clone()))
        .collect();
    let expected = [
        ("core", "defined"),
        ("rival", "toughness"),
        ("tweak", "count"),
        ("tweak", "toughness"),
    ];
    assert_eq!(steps, expected.map(|(m, f)| (m.to_string(), f.to_string())),);
}

#[test]
fn a_patch_of_a_mod_that_is_not_a_dependency_is_refused() {
    let l = loaded();
    let problems: Vec<String> = l.mods.problems.iter().map(|d| d.to_string()).collect();
    assert!(
        problems.iter().any(|p| p.contains(
            "rogue/patches/grunts.toml:2:8: army `grunts` belongs to mod `core`, which is not among this mod's dependencies"
        )),
        "{problems:?}"
    );
    // The refused patch changed nothing.
    let cat = &l.mods.catalog;
    assert_eq!(cat.get(cat.find("grunts/brute").expect("brute")).count, 1);
}
