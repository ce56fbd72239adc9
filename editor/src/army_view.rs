//! The army view: an army's deck as a grid of small tile pictures with their counts, the totals
//! per kind, and a warning when the tiles do not add up to the size the army declares; in the
//! designer each tile opens on a click, and is duplicated or deleted from its menu.

use hexforge_core::tile::Army;
use hexforge_core::{Catalog, Tile, TileKind, TileRef};

/// How many tiles of each kind (HQ, soldier, module, instant) the tiles hold.
pub fn totals<'a>(tiles: impl IntoIterator<Item = &'a Tile>) -> [(TileKind, u32); 4] {
    let mut out = [
        (TileKind::Hq, 0),
        (TileKind::Soldier, 0),
        (TileKind::Module, 0),
        (TileKind::Instant, 0),
    ];
    for tile in tiles {
        if let Some(slot) = out.iter_mut().find(|(k, _)| *k == tile.kind) {
            slot.1 += u32::from(tile.count);
        }
    }
    out
}

/// The totals as one line: `35 tiles: 1 hq, 17 soldier, 6 module, 11 instant`.
pub fn totals_line(totals: &[(TileKind, u32); 4]) -> String {
    let total: u32 = totals.iter().map(|(_, n)| n).sum();
    let parts: Vec<String> = totals
        .iter()
        .map(|(k, n)| format!("{} {}", n, k.name()))
        .collect();
    format!("{} tiles: {}", total, parts.join(", "))
}

/// What the designer did to a tile of the deck (by its place in the deck).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeckAction {
    /// Show this tile (by its place in the deck) in the tile designer.
    Open(usize),
    /// Add a copy of this tile right after it.
    Duplicate(usize),
    /// Delete this tile (after asking).
    Delete(usize),
}

/// The deck as a grid of small tiles with their counts (`None`: a tile never valid yet, shown
/// by its id); with `editable`, each tile's menu duplicates or deletes it.
pub fn deck(
    ui: &mut egui::Ui,
    salt: &str,
    tiles: &[(String, Option<&Tile>)],
    editable: bool,
) -> Option<DeckAction> {
    let mut action = None;
    let cell = egui::vec2(118.0, 128.0);
    let gap = 4.0;
    let columns = (((ui.available_width() + gap) / (cell.x + gap)).floor() as usize).max(1);
    egui::Grid::new(("army_deck", salt))
        .spacing(egui::vec2(gap, gap))
        .show(ui, |ui| {
            for (i, (id, tile)) in tiles.iter().enumerate() {
                let (rect, response) = ui.allocate_exact_size(cell, egui::Sense::click());
                let painter = ui.painter_at(rect);
                let centre = rect.center() - egui::vec2(0.0, 10.0);
                let caption = match tile {
                    Some(tile) => {
                        super::tile_view::paint(
                            &painter,
                            centre,
                            48.0,
                            tile,
                            0,
                            super::tile_view::NEUTRAL,
                        );
                        format!("{} x{}", tile.name, tile.count)
                    }
                    None => {
                        painter.text(
                            centre,
                            egui::Align2::CENTER_CENTER,
                            "not valid yet",
                            egui::FontId::proportional(11.0),
                            egui::Color32::LIGHT_RED,
                        );
                        id.clone()
                    }
                };
                painter.text(
                    egui::pos2(rect.center().x, rect.bottom() - 8.0),
                    egui::Align2::CENTER_CENTER,
                    &caption,
                    egui::FontId::proportional(11.0),
                    egui::Color32::LIGHT_GRAY,
                );
                let label = format!("deck: {caption}");
                response
                    .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
                let response = response.on_hover_text(id);
                if response.clicked() {
                    action = Some(DeckAction::Open(i));
                }
                if editable {
                    response.context_menu(|ui| {
                        if ui.button("Duplicate the tile").clicked() {
                            action = Some(DeckAction::Duplicate(i));
                        }
                        if ui.button("Delete the tile…").clicked() {
                            action = Some(DeckAction::Delete(i));
                        }
                    });
                }
                if (i + 1) % columns == 0 {
                    ui.end_row();
                }
            }
        });
    action
}

/// Shows an army of the catalog that has no file of its own to edit (a patch made it); returns
/// the tile the designer clicked.
pub fn ui(ui: &mut egui::Ui, catalog: &Catalog, army: &Army) -> Option<TileRef> {
    ui.heading(&army.name);
    let tiles: Vec<&Tile> = army.tiles.iter().map(|&t| catalog.get(t)).collect();
    let totals = totals(tiles.iter().copied());
    ui.label(totals_line(&totals));
    if let Some(total) = army.size_mismatch(catalog) {
        ui.colored_label(
            egui::Color32::LIGHT_RED,
            format!(
                "{total} tiles, but the army must have {} (R1.1): fix the counts or its size",
                army.size
            ),
        );
    }
    let cells: Vec<(String, Option<&Tile>)> =
        tiles.iter().map(|t| (t.full_id(), Some(*t))).collect();
    match deck(ui, &army.id, &cells, false) {
        Some(DeckAction::Open(i)) => army.tiles.get(i).copied(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_count_copies_per_kind() {
        let mut hq = Tile::new("a", "hq", TileKind::Hq);
        hq.count = 1;
        let mut s = Tile::new("a", "s", TileKind::Soldier);
        s.count = 3;
        let t = totals([&hq, &s]);
        assert_eq!(
            t,
            [
                (TileKind::Hq, 1),
                (TileKind::Soldier, 3),
                (TileKind::Module, 0),
                (TileKind::Instant, 0)
            ]
        );
        assert_eq!(
            totals_line(&t),
            "4 tiles: 1 hq, 3 soldier, 0 module, 0 instant"
        );
    }
}
