//! The army view: an army's deck as a grid of small tile pictures with their counts, the totals
//! per kind, and a warning when the tiles do not add up to the size the army declares.

use hexforge_core::tile::Army;
use hexforge_core::{Catalog, TileKind, TileRef};

/// How many tiles of each kind (HQ, soldier, module, instant) the army's deck holds.
pub fn totals(catalog: &Catalog, army: &Army) -> [(TileKind, u32); 4] {
    let mut out = [
        (TileKind::Hq, 0),
        (TileKind::Soldier, 0),
        (TileKind::Module, 0),
        (TileKind::Instant, 0),
    ];
    for &t in &army.tiles {
        let tile = catalog.get(t);
        if let Some(slot) = out.iter_mut().find(|(k, _)| *k == tile.kind) {
            slot.1 += u32::from(tile.count);
        }
    }
    out
}

/// A warning when the deck does not hold the tiles the army declares, else `None`.
pub fn size_warning(catalog: &Catalog, army: &Army) -> Option<String> {
    let total: u32 = totals(catalog, army).iter().map(|(_, n)| n).sum();
    (total != u32::from(army.size)).then(|| {
        format!(
            "{} tiles, but the army declares {}: add or remove {} to play it",
            total,
            army.size,
            total.abs_diff(u32::from(army.size))
        )
    })
}

/// Shows the army; returns the tile the designer clicked, to open it in the tile view.
pub fn ui(ui: &mut egui::Ui, catalog: &Catalog, army: &Army) -> Option<TileRef> {
    ui.heading(&army.name);
    let totals = totals(catalog, army);
    let total: u32 = totals.iter().map(|(_, n)| n).sum();
    let parts: Vec<String> = totals
        .iter()
        .map(|(k, n)| format!("{} {}", n, k.name()))
        .collect();
    ui.label(format!("{} tiles: {}", total, parts.join(", ")));
    if let Some(w) = size_warning(catalog, army) {
        ui.colored_label(egui::Color32::LIGHT_RED, w);
    }
    let mut clicked = None;
    let cell = egui::vec2(118.0, 128.0);
    let gap = 4.0;
    let columns = (((ui.available_width() + gap) / (cell.x + gap)).floor() as usize).max(1);
    egui::Grid::new(("army_deck", &army.id))
        .spacing(egui::vec2(gap, gap))
        .show(ui, |ui| {
            for (i, &t) in army.tiles.iter().enumerate() {
                let tile = catalog.get(t);
                let (rect, response) = ui.allocate_exact_size(cell, egui::Sense::click());
                let painter = ui.painter_at(rect);
                let centre = rect.center() - egui::vec2(0.0, 10.0);
                super::tile_view::paint(&painter, centre, 44.0, tile, 0, super::tile_view::NEUTRAL);
                painter.text(
                    egui::pos2(rect.center().x, rect.bottom() - 8.0),
                    egui::Align2::CENTER_CENTER,
                    format!("{} x{}", tile.name, tile.count),
                    egui::FontId::proportional(11.0),
                    egui::Color32::LIGHT_GRAY,
                );
                let label = format!("deck: {} x{}", tile.name, tile.count);
                response
                    .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
                let response = response.on_hover_text(tile.full_id());
                if response.clicked() {
                    clicked = Some(t);
                }
                if (i + 1) % columns == 0 {
                    ui.end_row();
                }
            }
        });
    clicked
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::Tile;

    #[test]
    fn totals_count_copies_per_kind_and_a_short_deck_is_warned() {
        let mut hq = Tile::new("a", "hq", TileKind::Hq);
        hq.count = 1;
        let mut s = Tile::new("a", "s", TileKind::Soldier);
        s.count = 3;
        let mut catalog = Catalog::new();
        catalog
            .add_army("a", "A", 5, vec![hq, s])
            .expect("a valid army");
        let army = catalog.army("a").expect("the army");
        assert_eq!(
            totals(&catalog, army),
            [
                (TileKind::Hq, 1),
                (TileKind::Soldier, 3),
                (TileKind::Module, 0),
                (TileKind::Instant, 0)
            ]
        );
        let w = size_warning(&catalog, army).expect("4 of 5 tiles");
        assert!(w.starts_with("4 tiles, but the army declares 5"), "{w}");
    }
}
