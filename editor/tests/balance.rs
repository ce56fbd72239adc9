//! The Balance tab driven headlessly: a series played in the background with its progress bar
//! and the heatmap it gives, the same numbers `hexforge_lab` gives for the same series, a
//! cancel, a bad seed refused, and an army's unsaved change compared with its saved file on the
//! same seeds, the saved file untouched.

mod common;

use common::{base_copy, designing, editor, type_into, window};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hexforge_editor::{Editor, Tab};
use std::time::{Duration, Instant};

/// Draws frames until the series under way ends; fails after 120 s.
fn until_finished(h: &mut Harness<'static, Editor>) {
    let start = Instant::now();
    while h.state().balance().running().is_some() {
        h.step();
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the series did not end within 120 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run();
}

/// The Balance tab set up for `army` against `against` alone, `games` random games seeded 7.
fn set_up(h: &mut Harness<'static, Editor>, army: &str, against: &str, games: usize) {
    let others: Vec<String> = h
        .state()
        .content()
        .catalog()
        .armies()
        .iter()
        .map(|a| a.id.clone())
        .filter(|a| a != army && a != against)
        .collect();
    let b = h.state_mut().balance_mut();
    b.army = Some(army.to_string());
    b.left_out = others.into_iter().collect();
    b.bot = "random".to_string();
    b.games = games;
    b.seed = "7".to_string();
    h.state_mut().show(Tab::Balance);
    h.run();
}

#[test]
fn a_series_plays_in_the_background_and_shows_the_heatmap_the_lab_gives() {
    let mut h = window(editor());
    set_up(&mut h, "moloch", "outpost", 40);
    h.get_by_label("Run").click();
    h.run();
    until_finished(&mut h);
    let f = h.state().balance().finished().expect("finished");
    assert!(f.failures.is_empty(), "{:?}", f.failures);
    let r = &f.saved;
    assert_eq!(r.armies, ["moloch", "outpost"]);
    assert_eq!(r.pairings.len(), 1);
    assert_eq!(r.pairings[0].games, 40);
    assert!(f.edited.is_none(), "nothing unsaved to compare");
    // The heatmap's cell for Moloch against Outpost is the lab's rate with its interval.
    let (w, n) = (r.pairings[0].a_wins, r.pairings[0].games);
    let (lo, hi) = hexforge_lab::wilson(w, n);
    h.get_by_label("Win rate of the row's army against the column's (95% interval)");
    for cell in [
        format!("{:.0}%", 100.0 * w as f64 / n as f64),
        format!("{:.0}-{:.0}", 100.0 * lo, 100.0 * hi),
        hexforge_lab::percent(w, n),
    ] {
        assert!(
            !h.query_all_by_label(&cell).collect::<Vec<_>>().is_empty(),
            "{cell}"
        );
    }
    h.get_by_label_contains("moloch's tiles");
    // The same series through the lab directly gives the same tallies: the panel re-derives
    // nothing.
    let loaded = h.state().content().loaded();
    let rules = std::sync::Arc::new(loaded.table_rules("v3", &[]).expect("rules"));
    let board = loaded.board("standard").expect("board");
    let setup = hexforge_lab::Setup {
        armies: vec!["moloch".into(), "outpost".into()],
        bots: ["random".into(), "random".into()],
        games: 40,
        seed: 7,
        rules: rules.clone(),
        board: hexforge_content::table_board(board, &rules),
        rules_line: hexforge_lab::rules_line("v3", &[], "standard"),
        content: hexforge_content::content_line(&loaded.mods),
        shard: None,
    };
    let mods = &loaded.mods;
    let catalog = &loaded.catalog;
    let (direct, failures) = hexforge_lab::run(
        &setup,
        catalog.clone(),
        || {
            let mut bound = catalog.clone();
            hexforge_script::ScriptHost::load(mods, &mut bound, hexforge_script::Limits::default())
                .0
        },
        &hexforge_lab::Progress::default(),
    )
    .expect("the lab plays it");
    assert!(failures.is_empty());
    assert_eq!(direct, *r);
}

#[test]
fn a_series_is_cancelled_and_a_bad_seed_is_refused_with_what_to_change() {
    let mut h = window(editor());
    set_up(&mut h, "moloch", "outpost", 1_000_000);
    h.get_by_label("Run").click();
    h.run();
    assert!(h.state().balance().running().is_some(), "under way");
    h.get_by_label_contains("/1000000 games");
    h.get_by_label("Cancel").click();
    h.run();
    assert!(h.state().balance().running().is_none());
    assert!(
        h.state().balance().finished().is_none(),
        "nothing of it shown"
    );
    h.get_by_label("Run");
    h.state_mut().balance_mut().seed = "seven".to_string();
    let e = h.state_mut().start_balance().expect_err("a bad seed");
    assert!(e.contains("the seed `seven` is not a whole number"), "{e}");
}

#[test]
fn an_unsaved_change_is_compared_with_the_saved_file_on_the_same_seeds() {
    let dir = base_copy("balance-diff");
    let mut h = designing(&dir, "moloch/gauss", "Gauss Cannon x1");
    type_into(&mut h, "toughness", "3");
    let moloch = dir.join("base/armies/moloch.toml");
    let saved = std::fs::read_to_string(&moloch).expect("read");
    assert!(
        h.state()
            .designer()
            .unsaved_armies()
            .contains(&"moloch".to_string()),
        "the change is unsaved"
    );
    set_up(&mut h, "moloch", "outpost", 40);
    h.get_by_label("Compare the unsaved changes with the saved file");
    h.get_by_label("Run").click();
    h.run();
    until_finished(&mut h);
    let f = h
        .state()
        .balance()
        .finished()
        .unwrap_or_else(|| panic!("{:?}", h.state().balance().error()));
    let (after, changes) = f.edited.as_ref().expect("compared");
    assert_eq!(
        changes,
        &["moloch/gauss_cannon: toughness 1 -> 3".to_string()]
    );
    assert_eq!(after.pairings[0].games, 40);
    assert_eq!(f.saved.seed, after.seed, "the same seeds");
    assert_ne!(f.saved.content, after.content, "two contents");
    h.get_by_label("The unsaved changes against the saved file (the same seeds)");
    h.get_by_label("• moloch/gauss_cannon: toughness 1 -> 3");
    assert_eq!(
        std::fs::read_to_string(&moloch).expect("read"),
        saved,
        "the saved file is untouched"
    );
    assert!(
        h.state()
            .designer()
            .unsaved_armies()
            .contains(&"moloch".to_string()),
        "the change is still unsaved"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
