//! The board drawn from a `Battlefield`: the hexes of its shape fitted into a rectangle, every
//! tile in its owner's colour with its facing, wounds and the HQ's hit points, the mapping from a
//! pointer back to a hex, and the overlays the sandbox and the replay viewer draw on top (attack
//! arrows from an edge to a target, lines between hexes, highlighted hexes), and the markers on
//! tiles, hexes and players as small badges a pointer can read.

use hexforge_core::marker::{Mark, MarkOn};
use hexforge_core::{
    AttackKind, Battlefield, BoardShape, Catalog, Cell, Dir, Edge, EdgeIcons, Hex, Placed, Seat,
};

/// The colour of each seat's tiles, in seat order.
pub const SEAT_COLOURS: [egui::Color32; 4] = [
    egui::Color32::from_rgb(150, 45, 45),
    egui::Color32::from_rgb(40, 80, 150),
    egui::Color32::from_rgb(45, 120, 55),
    egui::Color32::from_rgb(130, 95, 25),
];

/// The colour of `seat`'s tiles.
pub fn seat_colour(seat: Seat) -> egui::Color32 {
    SEAT_COLOURS[seat.index() % SEAT_COLOURS.len()]
}

const SQRT3: f32 = 1.732_050_8;

/// Where the hexes of a board lie on screen: flat-topped hexes of circumradius `radius`, the
/// board centre `[0, 0]` at `origin`, north up (the directions of `hexforge_core::hex`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// Where the board's centre hex is drawn.
    pub origin: egui::Pos2,
    /// The circumradius of each hex, in points.
    pub radius: f32,
}

impl Layout {
    /// The largest layout that shows every hex of `shape` whole inside `rect`, centred.
    pub fn fit(rect: egui::Rect, shape: &BoardShape) -> Layout {
        // The board's extent for a unit radius: centres, widened by a hex's half width and height.
        let unit = Layout {
            origin: egui::Pos2::ZERO,
            radius: 1.0,
        };
        let mut min = egui::pos2(f32::INFINITY, f32::INFINITY);
        let mut max = egui::pos2(f32::NEG_INFINITY, f32::NEG_INFINITY);
        for h in shape.hexes() {
            let c = unit.centre(*h);
            min = min.min(c - egui::vec2(1.0, SQRT3 / 2.0));
            max = max.max(c + egui::vec2(1.0, SQRT3 / 2.0));
        }
        let size = max - min;
        let radius = (rect.width() / size.x).min(rect.height() / size.y).max(1.0);
        let mid = min + size / 2.0;
        Layout {
            origin: rect.center() - mid.to_vec2() * radius,
            radius,
        }
    }

    /// The centre of hex `h` on screen.
    pub fn centre(&self, h: Hex) -> egui::Pos2 {
        let (q, r) = (h.q() as f32, h.r() as f32);
        self.origin + egui::vec2(1.5 * q, SQRT3 * (r + q / 2.0)) * self.radius
    }

    /// The hex under the screen point `p` (it may lie off the board: see [`Layout::hex_on`]).
    pub fn hex_at(&self, p: egui::Pos2) -> Hex {
        let v = (p - self.origin) / self.radius;
        let q = v.x / 1.5;
        let r = v.y / SQRT3 - q / 2.0;
        // Round the cube coordinates and fix the one that rounded furthest.
        let s = -q - r;
        let (mut rq, mut rr, rs) = (q.round(), r.round(), s.round());
        let (dq, dr, ds) = ((rq - q).abs(), (rr - r).abs(), (rs - s).abs());
        if dq > dr && dq > ds {
            rq = -rr - rs;
        } else if dr > ds {
            rr = -rq - rs;
        }
        Hex::new(rq as i32, rr as i32)
    }

    /// The hex of `shape` under `p`, if `p` is on the board.
    pub fn hex_on(&self, shape: &BoardShape, p: egui::Pos2) -> Option<Hex> {
        let h = self.hex_at(p);
        shape.cell(h).is_some().then_some(h)
    }

    /// The middle of the side of hex `h` that faces direction `d`.
    pub fn side(&self, h: Hex, d: Dir) -> egui::Pos2 {
        let c = self.centre(h);
        c + (self.centre(h.step(d)) - c) / 2.0
    }

    /// The six corners of hex `h`, clockwise from east.
    pub fn corners(&self, h: Hex) -> Vec<egui::Pos2> {
        crate::tile_view::corners(self.centre(h), self.radius).to_vec()
    }
}

/// Draws the whole board of `field` fitted into `rect`: every hex of its shape (the main area a
/// shade lighter), and every tile in its owner's colour, turned to its facing, with its wounds and,
/// on an HQ, its player's hit points.
pub fn paint_field(
    painter: &egui::Painter,
    rect: egui::Rect,
    field: &Battlefield,
    catalog: &Catalog,
) {
    paint_laid_out(painter, &Layout::fit(rect, field.shape()), field, catalog);
}

/// [`paint_field`] with a layout the caller keeps (to map the pointer back to hexes).
pub fn paint_laid_out(
    painter: &egui::Painter,
    layout: &Layout,
    field: &Battlefield,
    catalog: &Catalog,
) {
    paint_hexes(painter, layout, field.shape());
    for (cell, placed) in field.tiles() {
        let hex = field.shape().hex(cell);
        paint_tile(painter, layout, hex, field, catalog, placed);
    }
    paint_linked_units(painter, layout, field);
}

/// The linked units (docs/LINKED_UNITS.md): a bar in the owner's colour joins every two
/// neighbouring segments of a unit, and an empty segment is ringed.
pub fn paint_linked_units(painter: &egui::Painter, layout: &Layout, field: &Battlefield) {
    let shape = field.shape();
    for link in field.links() {
        let colour = seat_colour(link.owner);
        let bar = egui::Stroke::new((layout.radius * 0.18).max(3.0), colour.gamma_multiply(0.8));
        let segments: Vec<Hex> = shape.hexes_in(link.segments).collect();
        for (i, a) in segments.iter().enumerate() {
            for b in &segments[i + 1..] {
                if a.distance(*b) == 1 {
                    // From edge to edge of the two hexes, over the side they share.
                    let (pa, pb) = (layout.centre(*a), layout.centre(*b));
                    let mid = pa + (pb - pa) * 0.5;
                    let half = (pb - pa) * 0.25;
                    painter.line_segment([mid - half, mid + half], bar);
                }
            }
            if field.at_hex(*a).is_none() {
                painter.circle_stroke(
                    layout.centre(*a),
                    layout.radius * 0.45,
                    egui::Stroke::new(2.0, colour),
                );
            }
        }
    }
}

/// The empty board: every hex of `shape`, the main play area (R1.3) lighter than the rim.
pub fn paint_hexes(painter: &egui::Painter, layout: &Layout, shape: &BoardShape) {
    let main = shape.main_area();
    for c in shape.cells() {
        let h = shape.hex(c);
        let fill = if main & (1u64 << c.index()) != 0 {
            egui::Color32::from_gray(36)
        } else {
            egui::Color32::from_gray(26)
        };
        painter.add(egui::Shape::convex_polygon(
            layout.corners(h),
            fill,
            egui::Stroke::new(1.0, egui::Color32::from_gray(70)),
        ));
    }
}

/// One placed tile of `field` on `hex`: the tile drawing, then its wounds (and the HQ's HP).
fn paint_tile(
    painter: &egui::Painter,
    layout: &Layout,
    hex: Hex,
    field: &Battlefield,
    catalog: &Catalog,
    placed: &Placed,
) {
    let c = layout.centre(hex);
    let r = layout.radius * 0.94;
    let tile = catalog.get(placed.tile);
    crate::tile_view::paint(
        painter,
        c,
        r,
        tile,
        placed.facing.index() as usize,
        seat_colour(placed.owner),
    );
    if tile.is_hq() {
        // The HQ's hit points where a tile's name goes (an HQ shows "HQ" in its middle).
        let at = c + egui::vec2(0.0, -0.3 * r);
        let colour = egui::Color32::from_rgb(250, 220, 120);
        let font = egui::FontId::proportional((r * 0.2).clamp(8.0, 16.0));
        let galley =
            painter.layout_no_wrap(format!("HP {}", field.hq_hp(placed.owner)), font, colour);
        let bg = egui::Rect::from_center_size(at, galley.size() + egui::vec2(6.0, 2.0));
        painter.rect_filled(bg, 3.0, egui::Color32::from_black_alpha(200));
        painter.galley(bg.min + egui::vec2(3.0, 1.0), galley, colour);
    } else if placed.wounds > 0 {
        // Wounds as a red marker with their number, below the initiative badges.
        let at = c + egui::vec2(0.0, 0.24 * r);
        let size = (0.1 * r).max(6.0);
        painter.circle(
            at,
            size,
            egui::Color32::from_rgb(200, 40, 40),
            egui::Stroke::new(1.0, egui::Color32::WHITE),
        );
        painter.text(
            at,
            egui::Align2::CENTER_CENTER,
            placed.wounds.to_string(),
            egui::FontId::proportional((size * 1.4).max(8.0)),
            egui::Color32::WHITE,
        );
    }
}

/// The colour of a marker the engine gives a meaning to (`cannot_move`...).
pub const ENGINE_MARKER: egui::Color32 = egui::Color32::from_rgb(110, 200, 255);
/// The colour of a mod's own marker.
pub const MOD_MARKER: egui::Color32 = egui::Color32::from_rgb(240, 190, 90);

/// A marker as its badge writes it: the name, and its value when it is not 0, e.g. `soaked 2`
/// (an engine marker's badge is also drawn in its own colour with a diamond).
pub fn marker_text(m: &Mark) -> String {
    if m.value == 0 {
        m.name.to_string()
    } else {
        format!("{} {}", m.name, m.value)
    }
}

/// A marker in full, for tooltips and lists: what it is on is the caller's; its name, value,
/// how long it lasts and whether the engine reads it.
pub fn marker_details(m: &Mark) -> String {
    let value = if m.value == 0 {
        String::new()
    } else {
        format!(" (value {})", m.value)
    };
    let engine = if m.name.is_engine() {
        " (the engine's)"
    } else {
        ""
    };
    format!("{}{value}{engine}, {}", m.name, m.lasts.describe())
}

/// The colour of marker `m`'s badge.
pub fn marker_colour(m: &Mark) -> egui::Color32 {
    if m.name.is_engine() {
        ENGINE_MARKER
    } else {
        MOD_MARKER
    }
}

/// The markers of `on` in `field`.
pub fn marks_on(field: &Battlefield, on: MarkOn) -> impl Iterator<Item = &Mark> {
    field.marks().iter().filter(move |m| m.on == on)
}

/// Marker badges in a row (a panel's list: a selected tile, a player beside the HQ HP), each
/// telling its details when hovered.
pub fn marker_chips<'a>(ui: &mut egui::Ui, marks: impl IntoIterator<Item = &'a Mark>) {
    for m in marks {
        let colour = marker_colour(m);
        ui.add(
            egui::Label::new(
                egui::RichText::new(marker_text(m))
                    .small()
                    .color(colour)
                    .background_color(egui::Color32::from_black_alpha(160)),
            )
            .selectable(false),
        )
        .on_hover_text(marker_details(m));
    }
}

/// One badge of a marker on the board, its middle at `at`; returns its height.
fn put_badge(ui: &mut egui::Ui, at: egui::Pos2, m: &Mark, size: f32, prefix: &str) -> f32 {
    let colour = marker_colour(m);
    let galley = ui.painter().layout_no_wrap(
        format!("{prefix}{}", marker_text(m)),
        egui::FontId::proportional(size),
        colour,
    );
    let engine = m.name.is_engine();
    // An engine marker has room for a diamond before its name.
    let icon = if engine { size * 0.9 } else { 0.0 };
    let rect = egui::Rect::from_center_size(at, galley.size() + egui::vec2(6.0 + icon, 2.0));
    let stroke = if prefix.is_empty() {
        egui::Stroke::NONE
    } else {
        // A hex's marker: framed, for it stays whatever stands there.
        egui::Stroke::new(1.0, colour)
    };
    ui.painter().rect(
        rect,
        3.0,
        egui::Color32::from_black_alpha(215),
        stroke,
        egui::StrokeKind::Inside,
    );
    if engine {
        let c = egui::pos2(rect.left() + 3.0 + icon * 0.4, rect.center().y);
        let d = icon * 0.35;
        painter_diamond(ui.painter(), c, d, colour);
    }
    let text = egui::Rect::from_min_max(rect.min + egui::vec2(3.0 + icon, 1.0), rect.max);
    ui.put(text, egui::Label::new(galley).selectable(false))
        .on_hover_text(marker_details(m));
    rect.height()
}

/// A filled diamond of half-width `d` at `c` (the sign of an engine marker).
fn painter_diamond(painter: &egui::Painter, c: egui::Pos2, d: f32, colour: egui::Color32) {
    painter.add(egui::Shape::convex_polygon(
        vec![
            c + egui::vec2(0.0, -d),
            c + egui::vec2(d, 0.0),
            c + egui::vec2(0.0, d),
            c + egui::vec2(-d, 0.0),
        ],
        colour,
        egui::Stroke::NONE,
    ));
}

/// The markers of `field` as badges on the board laid out by `layout`: each tile's under its
/// middle, each hex's (framed, `hex: name`) after them, and each player's above the HP of
/// their HQ. Badges are labels: a pointer over one tells how long the marker lasts.
pub fn paint_markers(ui: &mut egui::Ui, layout: &Layout, field: &Battlefield, catalog: &Catalog) {
    if field.marks().is_empty() {
        return;
    }
    let size = (layout.radius * 0.17).clamp(8.0, 13.0);
    let shape = field.shape();
    for c in shape.cells() {
        let on_tile = MarkOn::Tile(c);
        let on_hex = MarkOn::Hex(c);
        let centre = layout.centre(shape.hex(c));
        let mut y = centre.y + layout.radius * 0.42;
        for m in field.marks().iter().filter(|m| m.on == on_tile) {
            y += put_badge(ui, egui::pos2(centre.x, y), m, size, "");
        }
        for m in field.marks().iter().filter(|m| m.on == on_hex) {
            y += put_badge(ui, egui::pos2(centre.x, y), m, size, "hex: ");
        }
    }
    for p in field.players() {
        let Some(c) = field.hq_cell(p, catalog) else {
            continue;
        };
        let centre = layout.centre(shape.hex(c));
        let mut y = centre.y - layout.radius * 0.52;
        for m in marks_on(field, MarkOn::Player(p)) {
            y -= put_badge(ui, egui::pos2(centre.x, y), m, size, "");
        }
    }
}

/// A tooltip at the pointer listing the markers of the tile (and hex) under it, with how long
/// each lasts and its value, when the pointer is over `response` on a marked hex.
pub fn marker_tooltip(response: &egui::Response, layout: &Layout, field: &Battlefield) {
    let Some(hex) = response
        .hover_pos()
        .and_then(|p| layout.hex_on(field.shape(), p))
    else {
        return;
    };
    let Some(c) = field.shape().cell(hex) else {
        return;
    };
    let lines: Vec<(String, egui::Color32)> = field
        .marks()
        .iter()
        .filter_map(|m| match m.on {
            MarkOn::Tile(t) if t == c => Some((format!("Marker: {}", marker_details(m)), m)),
            MarkOn::Hex(h) if h == c => {
                Some((format!("Marker on the hex: {}", marker_details(m)), m))
            }
            _ => None,
        })
        .map(|(text, m)| (text, marker_colour(m)))
        .collect();
    if lines.is_empty() {
        return;
    }
    response.clone().on_hover_ui_at_pointer(|ui| {
        for (text, colour) in lines {
            ui.colored_label(colour, text);
        }
    });
}

/// Outlines hex `h` with `stroke` (a selection, a wound, a removal, a missing tile).
pub fn outline(painter: &egui::Painter, layout: &Layout, h: Hex, stroke: egui::Stroke) {
    let mut corners = layout.corners(h);
    let shrink = stroke.width / 2.0;
    let c = layout.centre(h);
    for p in &mut corners {
        *p += (c - *p).normalized() * shrink;
    }
    painter.add(egui::Shape::closed_line(corners, stroke));
}

/// An arrow from `from` to `to`, its head at `to`.
pub fn arrow(painter: &egui::Painter, from: egui::Pos2, to: egui::Pos2, stroke: egui::Stroke) {
    let v = to - from;
    if v.length() < 1.0 {
        return;
    }
    painter.line_segment([from, to], stroke);
    let dir = v.normalized();
    let head = (stroke.width * 4.0).max(8.0);
    let back = to - dir * head;
    let side = egui::vec2(-dir.y, dir.x) * head * 0.5;
    painter.add(egui::Shape::convex_polygon(
        vec![to, back + side, back - side],
        stroke.color,
        egui::Stroke::NONE,
    ));
}

/// Text on a dark patch centred at `at` (labels of overlays: wounds dealt, "missing: id").
pub fn label(
    painter: &egui::Painter,
    at: egui::Pos2,
    text: &str,
    size: f32,
    colour: egui::Color32,
) {
    let galley = painter.layout_no_wrap(
        text.to_string(),
        egui::FontId::proportional(size.clamp(8.0, 15.0)),
        colour,
    );
    let bg = egui::Rect::from_center_size(at, galley.size() + egui::vec2(6.0, 2.0));
    painter.rect_filled(bg, 3.0, egui::Color32::from_black_alpha(210));
    painter.galley(bg.min + egui::vec2(3.0, 1.0), galley, colour);
}

/// The colour of an attack of `kind` (arrows, lines of fire).
pub fn attack_colour(kind: AttackKind) -> egui::Color32 {
    match kind {
        AttackKind::Melee => egui::Color32::from_rgb(255, 140, 40),
        AttackKind::Ranged => egui::Color32::from_rgb(250, 230, 60),
        AttackKind::Pierce => egui::Color32::from_rgb(120, 240, 255),
        AttackKind::Explosion => egui::Color32::from_rgb(255, 70, 200),
    }
}

/// Where an attack from the tile on `from` through `edge` starts: the middle of that edge on the
/// board (the tile's centre for an attack through no edge, e.g. an explosion).
pub fn edge_point(
    layout: &Layout,
    field: &Battlefield,
    from: Cell,
    edge: Option<Edge>,
) -> egui::Pos2 {
    let hex = field.shape().hex(from);
    match (edge, field.at(from)) {
        (Some(e), Some(p)) => layout.side(hex, e.direction(p.facing)),
        _ => layout.centre(hex),
    }
}

/// An attack arrow from the attacker's edge to the target, with what it dealt written beside it.
pub fn paint_attack(
    painter: &egui::Painter,
    layout: &Layout,
    field: &Battlefield,
    attack: (Cell, Option<Edge>, AttackKind, Cell),
    text: &str,
) {
    let (from, edge, kind, target) = attack;
    let colour = attack_colour(kind);
    let start = edge_point(layout, field, from, edge);
    let end = layout.centre(field.shape().hex(target));
    // Stop short of the centre so the tile's own text stays readable.
    let end = start + (end - start) * 0.8;
    arrow(
        painter,
        start,
        end,
        egui::Stroke::new((layout.radius * 0.07).max(2.0), colour),
    );
    if !text.is_empty() {
        label(
            painter,
            start.lerp(end, 0.6),
            text,
            layout.radius * 0.2,
            colour,
        );
    }
}

/// An arrow from each edge of every tile that `marked` picks, into the neighbouring hex.
fn paint_edge_arrows(
    painter: &egui::Painter,
    layout: &Layout,
    field: &Battlefield,
    catalog: &Catalog,
    stroke: egui::Stroke,
    marked: impl Fn(&EdgeIcons) -> bool,
) {
    for (cell, p) in field.tiles() {
        let tile = catalog.get(p.tile);
        let hex = field.shape().hex(cell);
        for e in Edge::ALL {
            if marked(tile.edge(e)) {
                let d = e.direction(p.facing);
                let from = layout.side(hex, d);
                let to = from + (layout.centre(hex.step(d)) - from) * 0.6;
                arrow(painter, from, to, stroke);
            }
        }
    }
}

/// The module links of every tile (definition data): an arrow from each link edge into the
/// neighbouring hex.
pub fn paint_links(
    painter: &egui::Painter,
    layout: &Layout,
    field: &Battlefield,
    catalog: &Catalog,
) {
    let stroke = egui::Stroke::new(
        (layout.radius * 0.06).max(2.0),
        egui::Color32::from_rgb(90, 220, 255),
    );
    paint_edge_arrows(painter, layout, field, catalog, stroke, |e| e.link);
}

/// The nets: a line from every net edge into the neighbouring hex, and each tile in `netted` (the
/// engine's answer) outlined and labelled.
pub fn paint_nets(
    painter: &egui::Painter,
    layout: &Layout,
    field: &Battlefield,
    catalog: &Catalog,
    netted: u64,
) {
    let colour = egui::Color32::from_rgb(200, 110, 255);
    let stroke = egui::Stroke::new((layout.radius * 0.06).max(2.0), colour);
    paint_edge_arrows(painter, layout, field, catalog, stroke, |e| e.net);
    for (cell, _) in field.tiles() {
        if netted & (1u64 << cell.index()) != 0 {
            let hex = field.shape().hex(cell);
            outline(
                painter,
                layout,
                hex,
                egui::Stroke::new(stroke.width * 1.5, colour),
            );
            label(
                painter,
                layout.centre(hex) + egui::vec2(0.0, layout.radius * 0.62),
                "netted",
                layout.radius * 0.2,
                colour,
            );
        }
    }
}

/// The straight lines along every ranged edge to the rim of the board (where a shot can go).
pub fn paint_fire_lines(
    painter: &egui::Painter,
    layout: &Layout,
    field: &Battlefield,
    catalog: &Catalog,
) {
    let colour = egui::Color32::from_rgba_unmultiplied(250, 230, 60, 110);
    for (cell, p) in field.tiles() {
        let tile = catalog.get(p.tile);
        let hex = field.shape().hex(cell);
        for e in Edge::ALL {
            if tile.edge(e).ranged == 0 {
                continue;
            }
            let d = e.direction(p.facing);
            let mut last = hex;
            while field.shape().cell(last.step(d)).is_some() {
                last = last.step(d);
            }
            if last != hex {
                let from = layout.side(hex, d);
                let dashes = egui::Shape::dashed_line(
                    &[from, layout.centre(last)],
                    egui::Stroke::new((layout.radius * 0.04).max(1.5), colour),
                    8.0,
                    5.0,
                );
                painter.extend(dashes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout::fit(
            egui::Rect::from_min_size(egui::pos2(10.0, 20.0), egui::vec2(600.0, 500.0)),
            &BoardShape::extended(),
        )
    }

    #[test]
    fn every_hex_centre_maps_back_to_its_hex() {
        let l = layout();
        for h in BoardShape::extended().hexes() {
            assert_eq!(l.hex_at(l.centre(*h)), *h, "hex {h}");
            // Anywhere well inside the hex, too.
            for k in 0..6 {
                let a = (k as f32) * std::f32::consts::PI / 3.0 + 0.3;
                let p = l.centre(*h) + egui::vec2(a.cos(), a.sin()) * l.radius * 0.8;
                assert_eq!(l.hex_at(p), *h, "hex {h}, corner {k}");
            }
        }
    }

    #[test]
    fn north_is_up_and_sides_are_between_neighbours() {
        let l = layout();
        let o = l.centre(Hex::ORIGIN);
        assert!(l.centre(Hex::ORIGIN.step(Dir::N)).y < o.y);
        assert!((l.centre(Hex::ORIGIN.step(Dir::N)).x - o.x).abs() < 1e-3);
        assert!(l.centre(Hex::ORIGIN.step(Dir::SE)).x > o.x);
        for d in Dir::ALL {
            // Neighbours are one hex's height apart: the hexes touch.
            let n = l.centre(Hex::ORIGIN.step(d));
            assert!(((n - o).length() - SQRT3 * l.radius).abs() < 1e-2);
            let side = l.side(Hex::ORIGIN, d);
            assert!(((side - o).length() - SQRT3 / 2.0 * l.radius).abs() < 1e-2);
        }
    }

    #[test]
    fn a_linked_unit_is_drawn_as_a_bar_between_its_segments_and_a_ring_on_an_empty_one() {
        use hexforge_core::{Catalog, PlayerSetup, Setup, Tile, TileKind, TileSetup};
        let mut catalog = Catalog::new();
        let hq = Tile::new("t", "hq", TileKind::Hq);
        let unit = Tile::new("t", "unit", TileKind::Soldier);
        catalog
            .add_army("t", "T", 2, vec![hq, unit])
            .expect("an army");
        let at = |q, r| TileSetup {
            tile: catalog.find("t/unit").expect("the unit"),
            owner: Seat::new(0),
            hex: Hex::new(q, r),
            facing: Dir::N,
            wounds: 0,
        };
        let mut field = Battlefield::new(
            Setup {
                shape: BoardShape::standard(),
                players: vec![
                    PlayerSetup { team: 0, hq_hp: 20 },
                    PlayerSetup { team: 1, hq_hp: 20 },
                ],
                tiles: vec![at(0, 0)],
            },
            &catalog,
        )
        .expect("a board");
        let cells = [Hex::new(0, 0), Hex::new(0, 1)]
            .iter()
            .map(|h| 1u64 << field.shape().cell(*h).expect("on the board").index())
            .fold(0, |a, b| a | b);
        let name = hexforge_core::marker::MarkerName::new("keep").expect("a name");
        let linked = field
            .check_link(
                name,
                Seat::new(0),
                cells,
                hexforge_core::LinkLoss::Segment,
                false,
            )
            .expect("a unit");
        field.apply(&linked);
        let count = |field: &Battlefield| {
            let ctx = egui::Context::default();
            let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
                let l = Layout::fit(ui.max_rect(), field.shape());
                paint_linked_units(ui.painter(), &l, field);
            });
            out.textures_delta.clear();
            out.shapes.len()
        };
        let linked = count(&field);
        let unlinked = hexforge_core::Event::Unlinked { id: 1 };
        field.apply(&unlinked);
        assert_eq!(linked - count(&field), 2, "one bar, one ring on [0, 1]");
    }

    #[test]
    fn the_fitted_board_lies_inside_the_rect_and_off_board_points_have_no_hex() {
        let rect = egui::Rect::from_min_size(egui::pos2(10.0, 20.0), egui::vec2(600.0, 500.0));
        let shape = BoardShape::extended();
        let l = Layout::fit(rect, &shape);
        for h in shape.hexes() {
            for p in l.corners(*h) {
                assert!(rect.expand(0.01).contains(p), "corner {p:?} of {h}");
            }
        }
        assert_eq!(l.hex_on(&shape, rect.left_top()), None);
        assert_eq!(l.hex_on(&shape, rect.center()), Some(Hex::ORIGIN));
    }
}
