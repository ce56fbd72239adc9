//! The mod browser: every loaded mod with its version and armies (those with unsaved changes
//! marked), each army's tiles (filtered by the search text and the kind picked), the problems of
//! each mod beside it, and the mods that were skipped. It owns its search text and kind filter;
//! what is picked in it is asked of the editor as a message.

use crate::content::Content;
use crate::msg::Msg;
use hexforge_core::{TileKind, TileRef};

/// Whether a tile matches the search text (its full id or its name, ignoring case).
pub fn matches(search: &str, full_id: &str, name: &str) -> bool {
    let s = search.trim().to_lowercase();
    s.is_empty() || full_id.to_lowercase().contains(&s) || name.to_lowercase().contains(&s)
}

/// What the designer shows, for the browser to mark: the army and tile shown, and the armies
/// with unsaved changes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Showing<'a> {
    /// The army shown (by id).
    pub army: Option<&'a str>,
    /// The tile shown (`None`: the army editor, or nothing).
    pub tile: Option<TileRef>,
    /// The ids of the armies whose files have unsaved changes.
    pub unsaved: &'a [String],
}

/// The browser's own state: the search text and the kind filter.
#[derive(Debug, Default)]
pub struct Browser {
    /// Text that filters the tiles listed (by id or name).
    search: String,
    /// Only tiles of this kind are listed (all kinds when `None`).
    kind: Option<TileKind>,
}

impl Browser {
    /// The search text.
    pub fn search(&self) -> &str {
        &self.search
    }

    /// Filters the tiles listed by `text`, as if typed in the search field.
    pub fn set_search(&mut self, text: &str) {
        self.search = text.to_string();
    }

    /// Draws the browser in `ui` over `content`, marking what the designer is `showing`; what the
    /// designer picks in it (an army, a tile, a problem's spot) is asked of the editor in `out`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        content: &Content,
        showing: Showing<'_>,
        out: &mut Vec<Msg>,
    ) {
        ui.heading("Mods");
        ui.horizontal(|ui| {
            let label = ui.label("Search");
            ui.text_edit_singleline(&mut self.search)
                .labelled_by(label.id);
        });
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.kind, None, "all");
            for kind in [
                TileKind::Hq,
                TileKind::Soldier,
                TileKind::Module,
                TileKind::Instant,
            ] {
                ui.selectable_value(&mut self.kind, Some(kind), kind.name());
            }
        });
        let loaded = content.loaded();
        egui::ScrollArea::vertical().show(ui, |ui| {
            let cat = &loaded.catalog;
            for m in &loaded.mods {
                ui.collapsing(m.id.as_str(), |ui| {
                    ui.label(format!("{} {}", m.name, m.manifest.version));
                    // The same problems as the status bar's (a refused reload's while there is one).
                    for d in content
                        .problems()
                        .iter()
                        .filter(|d| d.file.starts_with(&m.dir))
                    {
                        if crate::spot::problem_link(ui, d) {
                            out.push(Msg::OpenSpot(d.clone()));
                        }
                    }
                    for w in loaded
                        .warnings
                        .iter()
                        .filter(|w| w.file.starts_with(&m.dir))
                    {
                        if crate::spot::warning_link(ui, w) {
                            out.push(Msg::OpenSpot(w.clone()));
                        }
                    }
                    for a in &m.armies {
                        let Some(army) = cat.army(&a.id) else {
                            continue;
                        };
                        let shown = showing.army == Some(a.id.as_str()) && showing.tile.is_none();
                        let mut name = egui::RichText::new(&a.name).strong();
                        if showing.unsaved.contains(&a.id) {
                            name = egui::RichText::new(format!("{} (unsaved)", a.name))
                                .strong()
                                .color(egui::Color32::YELLOW);
                        }
                        if ui.selectable_label(shown, name).clicked() {
                            out.push(Msg::SelectArmy(a.id.clone()));
                        }
                        for &t in &army.tiles {
                            let def = cat.get(t);
                            let id = def.full_id();
                            if self.kind.is_some_and(|k| k != def.kind)
                                || !matches(&self.search, &id, &def.name)
                            {
                                continue;
                            }
                            let text = format!("{} x{}", def.name, def.count);
                            if ui.selectable_label(showing.tile == Some(t), text).clicked() {
                                out.push(Msg::SelectTile(t));
                            }
                        }
                    }
                });
            }
            for s in &loaded.skipped {
                ui.colored_label(
                    egui::Color32::LIGHT_RED,
                    format!("{} (skipped): {}", s.id, s.reason),
                );
            }
        });
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
