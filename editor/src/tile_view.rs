//! The tile view: the selected tile drawn as a flat-topped hex facing north, with what each edge
//! carries written against it (melee and ranged strength, armor, net, module link), its
//! initiative, toughness, mobility and abilities, and its data listed beside the drawing.

use hexforge_core::{Edge, Tile};

/// What is printed against one edge, e.g. `M2 R1 A`; empty for a bare edge.
pub fn edge_text(tile: &Tile, e: Edge) -> String {
    let icons = tile.edge(e);
    let mut parts = Vec::new();
    if icons.melee > 0 {
        parts.push(format!("M{}", icons.melee));
    }
    if icons.ranged > 0 {
        parts.push(format!("R{}", icons.ranged));
    }
    if icons.armor {
        parts.push("A".to_string());
    }
    if icons.net {
        parts.push("N".to_string());
    }
    if icons.link {
        parts.push("L".to_string());
    }
    parts.join(" ")
}

/// The corners of edge `i` (0 front, clockwise) of a flat-topped hex facing north: corner `k`
/// lies at 60k degrees from east, clockwise on screen.
fn edge_corners(i: usize) -> (usize, usize) {
    ((i + 4) % 6, (i + 5) % 6)
}

/// The tile's background when no player owns it (the designer's view, the army grid).
pub const NEUTRAL: egui::Color32 = egui::Color32::from_gray(48);

/// Draws `tile` as a hex of circumradius `r` around `c`, turned so its front edge points in the
/// direction `facing` (0 north, clockwise) and filled with `fill` (a player's colour, or
/// [`NEUTRAL`]): edges with their icons, the initiative (or kind) in the middle, toughness,
/// mobility and abilities below it. Text scales with `r`.
pub fn paint(
    painter: &egui::Painter,
    c: egui::Pos2,
    r: f32,
    tile: &Tile,
    facing: usize,
    fill: egui::Color32,
) {
    let scale = r / 115.0;
    let corner = |k: usize| {
        let a = (k as f32) * std::f32::consts::PI / 3.0;
        c + egui::vec2(r * a.cos(), r * a.sin())
    };
    let corners: Vec<egui::Pos2> = (0..6).map(corner).collect();
    painter.add(egui::Shape::convex_polygon(
        corners.clone(),
        fill,
        egui::Stroke::new(2.0 * scale.max(0.5), egui::Color32::from_gray(200)),
    ));
    let font = egui::FontId::proportional((15.0 * scale).max(8.0));
    for e in Edge::ALL {
        let (a, b) = edge_corners((e.index() as usize + facing) % 6);
        let mid = corners[a].lerp(corners[b], 0.5);
        let text = edge_text(tile, e);
        if text.is_empty() {
            continue;
        }
        let icons = tile.edge(e);
        let color = if icons.melee > 0 || icons.ranged > 0 {
            egui::Color32::from_rgb(240, 110, 90)
        } else {
            egui::Color32::from_rgb(140, 190, 240)
        };
        painter.line_segment(
            [corners[a], corners[b]],
            egui::Stroke::new((5.0 * scale).max(2.0), color),
        );
        let out = mid + (mid - c).normalized() * (22.0 * scale).max(9.0);
        painter.text(out, egui::Align2::CENTER_CENTER, text, font.clone(), color);
    }
    let init: Vec<String> = tile.initiative.values().iter().map(u8::to_string).collect();
    let centre = if init.is_empty() {
        tile.kind.name().to_string()
    } else {
        format!("init {}", init.join("/"))
    };
    painter.text(
        c,
        egui::Align2::CENTER_CENTER,
        centre,
        egui::FontId::proportional((20.0 * scale).max(9.0)),
        egui::Color32::WHITE,
    );
    let mut below = Vec::new();
    if tile.toughness > 0 {
        below.push(format!("toughness {}", tile.toughness));
    }
    if tile.mobile {
        below.push("mobile".to_string());
    }
    if !tile.abilities.is_empty() {
        below.push("ability".to_string());
    }
    if !below.is_empty() {
        painter.text(
            c + egui::vec2(0.0, 28.0 * scale),
            egui::Align2::CENTER_CENTER,
            below.join("  "),
            font,
            egui::Color32::LIGHT_YELLOW,
        );
    }
}

/// Shows the tile; returns the hook of the ability whose source the designer asked to see.
pub fn ui(ui: &mut egui::Ui, tile: &Tile) -> Option<String> {
    let mut wanted = None;
    ui.heading(&tile.name);
    ui.label(tile.full_id());
    let size = 320.0;
    let (rect, _) = ui.allocate_exact_size(egui::vec2(size, size), egui::Sense::hover());
    paint(
        &ui.painter_at(rect),
        rect.center(),
        size * 0.36,
        tile,
        0,
        NEUTRAL,
    );
    egui::Grid::new("tile_data").num_columns(2).show(ui, |ui| {
        ui.label("kind");
        ui.label(tile.kind.name());
        ui.end_row();
        ui.label("count");
        ui.label(tile.count.to_string());
        ui.end_row();
        ui.label("toughness");
        ui.label(tile.toughness.to_string());
        ui.end_row();
        for e in Edge::ALL {
            let text = edge_text(tile, e);
            if !text.is_empty() {
                ui.label(format!("edge {}", e.index()));
                ui.label(text);
                ui.end_row();
            }
        }
        for a in &tile.abilities {
            ui.label("ability");
            ui.horizontal(|ui| {
                if ui
                    .button(&a.hook)
                    .on_hover_text("Show the Lua source of this ability")
                    .clicked()
                {
                    wanted = Some(a.hook.clone());
                }
                let params: Vec<String> =
                    a.params.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                if !params.is_empty() {
                    ui.label(params.join(", "));
                }
            });
            ui.end_row();
        }
    });
    wanted
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::TileKind;

    #[test]
    fn edges_are_written_as_the_tile_prints_them() {
        let mut t = Tile::new("a", "netter", TileKind::Soldier);
        t.edges[0].melee = 3;
        t.edges[0].net = true;
        t.edges[2].armor = true;
        assert_eq!(edge_text(&t, Edge::ALL[0]), "M3 N");
        assert_eq!(edge_text(&t, Edge::ALL[2]), "A");
        assert_eq!(edge_text(&t, Edge::ALL[1]), "");
        // The front edge is the top side: between the upper-left and upper-right corners.
        assert_eq!(edge_corners(0), (4, 5));
        assert_eq!(edge_corners(3), (1, 2));
    }
}
