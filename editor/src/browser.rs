//! The mod browser: every loaded mod with its version and armies (those with unsaved changes
//! marked), each army's tiles (filtered by the search text and the kind picked), the problems of
//! each mod beside it, and the mods that were skipped.

use crate::Editor;
use hexforge_core::TileKind;

/// Whether a tile matches the search text (its full id or its name, ignoring case).
pub fn matches(search: &str, full_id: &str, name: &str) -> bool {
    let s = search.trim().to_lowercase();
    s.is_empty() || full_id.to_lowercase().contains(&s) || name.to_lowercase().contains(&s)
}

/// Draws the browser in `ui` and opens what the designer picks in it (an army, a tile, a problem's spot).
pub fn ui(ui: &mut egui::Ui, editor: &mut Editor) {
    ui.heading("Mods");
    ui.horizontal(|ui| {
        let label = ui.label("Search");
        ui.text_edit_singleline(&mut editor.search)
            .labelled_by(label.id);
    });
    ui.horizontal(|ui| {
        ui.selectable_value(&mut editor.kind, None, "all");
        for kind in [
            TileKind::Hq,
            TileKind::Soldier,
            TileKind::Module,
            TileKind::Instant,
        ] {
            ui.selectable_value(&mut editor.kind, Some(kind), kind.name());
        }
    });
    let unsaved: Vec<String> = editor
        .docs
        .iter()
        .filter(|d| d.dirty())
        .map(|d| d.army_id())
        .collect();
    let mut picked_army = None;
    let mut picked_tile = None;
    let mut clicked = None;
    egui::ScrollArea::vertical().show(ui, |ui| {
        let cat = &editor.loaded.catalog;
        for m in &editor.loaded.mods {
            ui.collapsing(m.id.as_str(), |ui| {
                ui.label(format!("{} {}", m.name, m.manifest.version));
                // The same problems as the status bar's (a refused reload's while there is one).
                for d in editor
                    .problems()
                    .iter()
                    .filter(|d| d.file.starts_with(&m.dir))
                {
                    if crate::spot::problem_link(ui, d) {
                        clicked = Some(d.clone());
                    }
                }
                for w in editor
                    .loaded
                    .warnings
                    .iter()
                    .filter(|w| w.file.starts_with(&m.dir))
                {
                    if crate::spot::warning_link(ui, w) {
                        clicked = Some(w.clone());
                    }
                }
                for a in &m.armies {
                    let Some(army) = cat.army(&a.id) else {
                        continue;
                    };
                    let showing =
                        editor.army.as_deref() == Some(a.id.as_str()) && editor.selected.is_none();
                    let mut name = egui::RichText::new(&a.name).strong();
                    if unsaved.contains(&a.id) {
                        name = egui::RichText::new(format!("{} (unsaved)", a.name))
                            .strong()
                            .color(egui::Color32::YELLOW);
                    }
                    if ui.selectable_label(showing, name).clicked() {
                        picked_army = Some(a.id.clone());
                    }
                    for &t in &army.tiles {
                        let def = cat.get(t);
                        let id = def.full_id();
                        if editor.kind.is_some_and(|k| k != def.kind)
                            || !matches(&editor.search, &id, &def.name)
                        {
                            continue;
                        }
                        let text = format!("{} x{}", def.name, def.count);
                        if ui
                            .selectable_label(editor.selected == Some(t), text)
                            .clicked()
                        {
                            picked_tile = Some(t);
                        }
                    }
                }
            });
        }
        for s in &editor.loaded.skipped {
            ui.colored_label(
                egui::Color32::LIGHT_RED,
                format!("{} (skipped): {}", s.id, s.reason),
            );
        }
    });
    if let Some(a) = picked_army {
        editor.select_army(&a);
    }
    if let Some(t) = picked_tile {
        editor.select_tile(t);
    }
    if let Some(p) = clicked {
        editor.open_spot(&p, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_matches_ids_and_names_ignoring_case() {
        assert!(matches("", "moloch/clown", "Clown"));
        assert!(matches("GAUSS", "moloch/gauss_cannon", "Gauss Cannon"));
        assert!(matches("cannon", "moloch/gauss_cannon", "Gauss Cannon"));
        assert!(!matches("borgo", "moloch/gauss_cannon", "Gauss Cannon"));
    }
}
