//! The tile view: a tile drawn as a flat-topped hex as it is printed, with its icons on their
//! edges (melee marks and ranged arrows, one per strength point, armor bars, nets, module links),
//! its initiative badges, toughness pips, mobility and ability markers, and its module or aura
//! effects; the edge under a point (to click an edge of the big drawing); and the read-only data
//! of a tile that has no file of its own to edit.

use hexforge_core::tile::{EdgeIcons, Effects};
use hexforge_core::{Edge, Tile, TileKind};
use std::f32::consts::PI;

/// What is printed against one edge, e.g. `M2 R1 A`; empty for a bare edge.
pub fn edge_text(tile: &Tile, e: Edge) -> String {
    icons_text(tile.edge(e))
}

/// The icons of one edge in words: `M2 R1 A N L`.
pub fn icons_text(icons: &EdgeIcons) -> String {
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

/// The names of the edges, front first, clockwise.
pub const EDGE_NAMES: [&str; 6] = [
    "front",
    "front-right",
    "back-right",
    "back",
    "back-left",
    "front-left",
];

/// The six corners of a flat-topped hex of circumradius `r` around `c`: corner `k` lies at 60k
/// degrees from east, clockwise on screen.
pub fn corners(c: egui::Pos2, r: f32) -> [egui::Pos2; 6] {
    std::array::from_fn(|k| {
        let a = (k as f32) * PI / 3.0;
        c + egui::vec2(r * a.cos(), r * a.sin())
    })
}

/// The corners of edge `i` (0 front, clockwise) of a flat-topped hex facing north (indices into
/// [`corners`]).
pub fn edge_corners(i: usize) -> (usize, usize) {
    ((i + 4) % 6, (i + 5) % 6)
}

/// The tile's background when no player owns it (the designer's view, the army grid).
pub const NEUTRAL: egui::Color32 = egui::Color32::from_gray(48);

const MELEE: egui::Color32 = egui::Color32::from_rgb(235, 80, 60);
const RANGED: egui::Color32 = egui::Color32::from_rgb(250, 170, 50);
const ARMOR: egui::Color32 = egui::Color32::from_rgb(175, 190, 210);
const NET: egui::Color32 = egui::Color32::from_rgb(110, 210, 120);
const LINK: egui::Color32 = egui::Color32::from_rgb(90, 190, 250);
const BADGE: egui::Color32 = egui::Color32::from_rgb(245, 235, 200);
const GOLD: egui::Color32 = egui::Color32::from_rgb(250, 210, 70);

/// The edge of a tile drawn around `c` with circumradius `r`, front toward `facing`, that the
/// point `p` is on or near (within the outer half of the hex, or just outside it).
pub fn edge_at(c: egui::Pos2, r: f32, facing: usize, p: egui::Pos2) -> Option<Edge> {
    let d = p - c;
    let dist = d.length();
    if dist < 0.4 * r || dist > 1.2 * r {
        return None;
    }
    // Screen angle clockwise from east; the front edge's middle is straight up (-90 degrees).
    let angle = d.y.atan2(d.x).to_degrees();
    let sector = (((angle + 90.0) / 60.0).round() as i32).rem_euclid(6) as usize;
    Some(Edge::ALL[(sector + 6 - facing % 6) % 6])
}

/// Draws `tile` as a hex of circumradius `r` around `c`, turned so its front edge points in the
/// direction `facing` (0 north, clockwise) and filled with `fill` (a player's colour, or
/// [`NEUTRAL`]). Icons and text scale with `r`; it reads from `r` 30 (a board hex) to 150.
pub fn paint(
    painter: &egui::Painter,
    c: egui::Pos2,
    r: f32,
    tile: &Tile,
    facing: usize,
    fill: egui::Color32,
) {
    let corners = corners(c, r);
    let outline = egui::Stroke::new((r / 60.0).clamp(1.0, 2.5), egui::Color32::from_gray(200));
    painter.add(egui::Shape::convex_polygon(corners.to_vec(), fill, outline));
    for e in Edge::ALL {
        let (a, b) = edge_corners((e.index() as usize + facing) % 6);
        paint_edge(painter, c, r, corners[a], corners[b], tile.edge(e));
    }
    paint_centre(painter, c, r, tile);
}

/// The icons of one edge from `a` to `b` (clockwise), stacked from the rim inward: armor on
/// the rim, then melee marks, ranged arrows, the net and the link.
fn paint_edge(
    painter: &egui::Painter,
    c: egui::Pos2,
    r: f32,
    a: egui::Pos2,
    b: egui::Pos2,
    icons: &EdgeIcons,
) {
    let mid = a.lerp(b, 0.5);
    let inward = (c - mid).normalized();
    let along = (b - a).normalized();
    let mut depth = 0.03 * r;
    if icons.armor {
        let inset = 0.06 * r;
        painter.line_segment(
            [
                a + along * (0.12 * r) + inward * inset,
                b - along * (0.12 * r) + inward * inset,
            ],
            egui::Stroke::new((0.07 * r).max(2.5), ARMOR),
        );
        depth = 0.11 * r;
    }
    if icons.link {
        // A plug: a bar on the rim and a stem into the tile.
        let w = 0.14 * r;
        let root = mid + inward * (0.02 * r);
        painter.line_segment(
            [root - along * w, root + along * w],
            egui::Stroke::new((0.05 * r).max(2.0), LINK),
        );
        painter.line_segment(
            [root, root + inward * (0.13 * r)],
            egui::Stroke::new((0.04 * r).max(1.5), LINK),
        );
        painter.circle_filled(root + inward * (0.13 * r), (0.04 * r).max(1.5), LINK);
        depth = depth.max(0.19 * r);
    }
    if icons.melee > 0 {
        // Solid triangles pointing out of the tile, one per strength point.
        let n = icons.melee as usize;
        let (w, h) = (0.11 * r, 0.13 * r);
        for k in 0..n {
            let off = (k as f32 - (n as f32 - 1.0) / 2.0) * w * 1.15;
            let apex = mid + inward * depth + along * off;
            let base = apex + inward * h;
            painter.add(egui::Shape::convex_polygon(
                vec![apex, base + along * (w / 2.0), base - along * (w / 2.0)],
                MELEE,
                egui::Stroke::NONE,
            ));
        }
        depth += h + 0.03 * r;
    }
    if icons.ranged > 0 {
        // Arrows pointing out of the tile, one per strength point.
        let n = icons.ranged as usize;
        let len = 0.18 * r;
        let head = 0.08 * r;
        let stroke = egui::Stroke::new((0.035 * r).max(1.5), RANGED);
        for k in 0..n {
            let off = (k as f32 - (n as f32 - 1.0) / 2.0) * 0.12 * r;
            let tip = mid + inward * depth + along * off;
            painter.line_segment([tip, tip + inward * len], stroke);
            painter.add(egui::Shape::convex_polygon(
                vec![
                    tip,
                    tip + inward * head + along * (head * 0.55),
                    tip + inward * head - along * (head * 0.55),
                ],
                RANGED,
                egui::Stroke::NONE,
            ));
        }
        depth += len + 0.03 * r;
    }
    if icons.net {
        // A net: a small diamond with a cross-hatch.
        let s = 0.08 * r;
        let o = mid + inward * (depth + s);
        let (n, e) = (inward * s, along * s);
        let stroke = egui::Stroke::new((0.02 * r).max(1.0), NET);
        let pts = [o - n, o + e, o + n, o - e];
        for i in 0..4 {
            painter.line_segment([pts[i], pts[(i + 1) % 4]], stroke);
        }
        for t in [-0.5f32, 0.0, 0.5] {
            painter.line_segment(
                [
                    o - n * (1.0 - t.abs()) + e * t,
                    o + n * (1.0 - t.abs()) + e * t,
                ],
                stroke,
            );
            painter.line_segment(
                [
                    o - e * (1.0 - t.abs()) + n * t,
                    o + e * (1.0 - t.abs()) + n * t,
                ],
                stroke,
            );
        }
    }
}

/// The middle of the tile: its name (on big drawings), initiative badges (or the kind), effects,
/// toughness pips, and the mobility and ability markers.
fn paint_centre(painter: &egui::Painter, c: egui::Pos2, r: f32, tile: &Tile) {
    let big = r >= 60.0;
    // An HQ named "HQ" carries that word in its middle already.
    if big && !(tile.kind == TileKind::Hq && tile.name.eq_ignore_ascii_case("hq")) {
        painter.text(
            c - egui::vec2(0.0, 0.25 * r),
            egui::Align2::CENTER_CENTER,
            &tile.name,
            egui::FontId::proportional((0.085 * r).clamp(9.0, 14.0)),
            egui::Color32::from_gray(230),
        );
    }
    let values = tile.initiative.values();
    let badge = (0.13 * r).max(6.0);
    if values.is_empty() || tile.kind == TileKind::Hq {
        let label = match tile.kind {
            TileKind::Hq => "HQ",
            TileKind::Module => "MOD",
            TileKind::Instant => "",
            TileKind::Soldier => "",
        };
        let text = if tile.kind == TileKind::Instant {
            tile.name.as_str()
        } else {
            label
        };
        painter.text(
            c,
            egui::Align2::CENTER_CENTER,
            text,
            egui::FontId::proportional((0.16 * r).max(8.0)),
            egui::Color32::WHITE,
        );
    } else {
        let n = values.len() as f32;
        for (k, v) in values.iter().enumerate() {
            let at = c + egui::vec2((k as f32 - (n - 1.0) / 2.0) * badge * 2.2, 0.0);
            painter.circle(
                at,
                badge,
                BADGE,
                egui::Stroke::new((0.015 * r).max(1.0), egui::Color32::BLACK),
            );
            painter.text(
                at,
                egui::Align2::CENTER_CENTER,
                v.to_string(),
                egui::FontId::proportional((badge * 1.4).max(8.0)),
                egui::Color32::BLACK,
            );
        }
    }
    let effects = if tile.kind == TileKind::Hq {
        &tile.aura
    } else {
        &tile.module
    };
    let words = effects_text(effects);
    if big && !words.is_empty() {
        painter.text(
            c + egui::vec2(0.0, 0.22 * r),
            egui::Align2::CENTER_CENTER,
            words,
            egui::FontId::proportional((0.09 * r).clamp(8.0, 14.0)),
            LINK,
        );
    }
    // Toughness pips under the badges.
    let pip = (0.035 * r).max(2.0);
    let t = f32::from(tile.toughness);
    for k in 0..tile.toughness {
        let at = c + egui::vec2((f32::from(k) - (t - 1.0) / 2.0) * pip * 3.0, 0.36 * r);
        painter.circle_filled(at, pip, egui::Color32::from_rgb(120, 220, 120));
    }
    // Mobility: a double chevron on the left; an ability: a star on the right.
    if tile.mobile {
        let at = c + egui::vec2(-0.38 * r, 0.12 * r);
        let s = 0.06 * r;
        let stroke = egui::Stroke::new((0.025 * r).max(1.2), egui::Color32::WHITE);
        for dx in [-0.6f32, 0.6] {
            let o = at + egui::vec2(dx * s, 0.0);
            painter.line_segment(
                [o + egui::vec2(-s / 2.0, -s), o + egui::vec2(s / 2.0, 0.0)],
                stroke,
            );
            painter.line_segment(
                [o + egui::vec2(s / 2.0, 0.0), o + egui::vec2(-s / 2.0, s)],
                stroke,
            );
        }
    }
    if !tile.abilities.is_empty() {
        star(
            painter,
            c + egui::vec2(0.38 * r, 0.12 * r),
            (0.08 * r).max(4.0),
        );
    }
}

/// A five-pointed star, filled (as triangles, since it is not convex).
fn star(painter: &egui::Painter, at: egui::Pos2, size: f32) {
    let point = |k: usize, rad: f32| {
        let a = -PI / 2.0 + k as f32 * PI / 5.0;
        at + egui::vec2(rad * a.cos(), rad * a.sin())
    };
    let inner = size * 0.45;
    let ring: Vec<egui::Pos2> = (0..10)
        .map(|k| point(k, if k % 2 == 0 { size } else { inner }))
        .collect();
    let core: Vec<egui::Pos2> = (0..5).map(|k| ring[2 * k + 1]).collect();
    painter.add(egui::Shape::convex_polygon(core, GOLD, egui::Stroke::NONE));
    for k in 0..5 {
        painter.add(egui::Shape::convex_polygon(
            vec![ring[(2 * k + 9) % 10], ring[2 * k], ring[2 * k + 1]],
            GOLD,
            egui::Stroke::NONE,
        ));
    }
}

/// A module's or HQ aura's effects in words: `+1 melee, medic`.
pub fn effects_text(e: &Effects) -> String {
    let mut parts = Vec::new();
    for (v, what) in [
        (e.melee, "melee"),
        (e.ranged, "ranged"),
        (e.initiative, "initiative"),
        (e.enemy_initiative, "enemy initiative"),
    ] {
        if v != 0 {
            parts.push(format!("{v:+} {what}"));
        }
    }
    if e.medic {
        parts.push("medic".to_string());
    }
    parts.join(", ")
}

/// A tile's data in a few lines, as a tooltip shows it: its name, kind and id, initiative,
/// toughness and Mobility, what each edge holds, its module or aura effects and its abilities.
pub fn summary(tile: &Tile) -> String {
    let mut lines = vec![format!(
        "{} ({}, {})",
        tile.name,
        tile.kind.name(),
        tile.full_id()
    )];
    let initiative: Vec<String> = tile.initiative.values().iter().map(u8::to_string).collect();
    if !initiative.is_empty() {
        lines.push(format!("initiative {}", initiative.join(", ")));
    }
    if tile.toughness > 0 {
        lines.push(format!("toughness {}", tile.toughness));
    }
    if tile.mobile {
        lines.push("Mobility".to_string());
    }
    for e in Edge::ALL {
        let text = edge_text(tile, e);
        if !text.is_empty() {
            lines.push(format!("{}: {text}", EDGE_NAMES[e.index() as usize]));
        }
    }
    for (what, effects) in [("module", &tile.module), ("aura", &tile.aura)] {
        let text = effects_text(effects);
        if !text.is_empty() {
            lines.push(format!("{what}: {text}"));
        }
    }
    if !tile.abilities.is_empty() {
        let hooks: Vec<&str> = tile.abilities.iter().map(|a| a.hook.as_str()).collect();
        lines.push(format!("abilities: {}", hooks.join(", ")));
    }
    lines.join("\n")
}

/// Shows a tile that cannot be edited here (it has no army file of its own, e.g. a patch made
/// it): the drawing and its data; returns the hook of the ability whose source was asked for.
pub fn ui(ui: &mut egui::Ui, tile: &Tile) -> Option<String> {
    let mut wanted = None;
    ui.heading(&tile.name);
    ui.label(tile.full_id());
    let size = 320.0;
    let (rect, _) = ui.allocate_exact_size(egui::vec2(size, size), egui::Sense::hover());
    paint(
        &ui.painter_at(rect),
        rect.center(),
        size * 0.45,
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
            if ui
                .button(&a.hook)
                .on_hover_text("Show the Lua source of this ability")
                .clicked()
            {
                wanted = Some(a.hook.clone());
            }
            ui.end_row();
        }
    });
    wanted
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_summary_says_the_tile_line_by_line() {
        let mut t = Tile::new("a", "netter", TileKind::Soldier);
        t.name = "Netter".to_string();
        t.initiative = hexforge_core::Initiative::new(&[3, 1]).expect("a valid initiative");
        t.toughness = 1;
        t.edges[0].melee = 2;
        t.edges[3].armor = true;
        assert_eq!(
            summary(&t),
            "Netter (soldier, a/netter)\ninitiative 3, 1\ntoughness 1\nfront: M2\nback: A"
        );
    }

    #[test]
    fn a_point_near_an_edge_names_that_edge_whatever_the_facing() {
        let c = egui::pos2(100.0, 100.0);
        let r = 50.0;
        let at = |dx: f32, dy: f32, facing| edge_at(c, r, facing, c + egui::vec2(dx, dy));
        assert_eq!(at(0.0, -42.0, 0), Some(Edge::ALL[0]), "top: the front");
        assert_eq!(at(0.0, 42.0, 0), Some(Edge::ALL[3]), "bottom: the back");
        assert_eq!(at(37.0, -21.0, 0), Some(Edge::ALL[1]), "upper right");
        assert_eq!(at(-37.0, -21.0, 0), Some(Edge::ALL[5]), "upper left");
        assert_eq!(at(0.0, -42.0, 1), Some(Edge::ALL[5]), "turned right once");
        assert_eq!(at(0.0, 5.0, 0), None, "the middle is no edge");
        assert_eq!(at(0.0, -90.0, 0), None, "far outside");
    }

    #[test]
    fn effects_are_worded_with_their_sign() {
        let e = Effects {
            melee: 1,
            enemy_initiative: -1,
            medic: true,
            ..Effects::NONE
        };
        assert_eq!(effects_text(&e), "+1 melee, -1 enemy initiative, medic");
    }
}
