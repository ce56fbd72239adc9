//! The sandbox board in the middle of the window: drawing it with its overlays and marks, the
//! pointer's edits (click, drag, wheel, right click), and the overlays of a battle step.

use super::instants::targets_wanted;
use super::*;

impl Sandbox {
    /// The board in the middle: drawing, overlays and the pointer's edits.
    pub(super) fn board_ui(
        &mut self,
        ui: &mut egui::Ui,
        catalog: &Catalog,
        scripts: &mut ScriptHost,
    ) {
        let (rect, resp) =
            ui.allocate_exact_size(ui.available_size(), egui::Sense::click_and_drag());
        resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, "sandbox board"));
        let painter = ui.painter_at(rect);
        if let Some(run) = &self.battle
            && let Some(step) = run.steps.get(run.at)
        {
            let layout = Layout::fit(rect.shrink(8.0), step.field.shape());
            self.layout = Some(layout);
            board_view::paint_laid_out(&painter, &layout, &step.field, catalog);
            battle::paint_step(&painter, &layout, step, catalog);
            board_view::paint_markers(ui, &layout, &step.field, catalog);
            board_view::marker_tooltip(&resp, &layout, &step.field);
            return;
        }
        let Some(edits) = &self.edits else {
            return;
        };
        let board = edits.board().clone();
        let built = edits.built().clone();
        let shape = board.kind.shape();
        let layout = Layout::fit(rect.shrink(8.0), &shape);
        self.layout = Some(layout);
        match &built.field {
            Some(field) => {
                board_view::paint_laid_out(&painter, &layout, field, catalog);
                self.paint_overlays(&painter, &layout, field, catalog, &board, scripts);
                board_view::paint_markers(ui, &layout, field, catalog);
                board_view::marker_tooltip(&resp, &layout, field);
            }
            None => board_view::paint_hexes(&painter, &layout, &shape),
        }
        for m in &built.marks {
            if let Some(h) = m.hex {
                let red = egui::Color32::from_rgb(255, 60, 60);
                board_view::outline(&painter, &layout, h, egui::Stroke::new(4.0, red));
                let text = if m.missing {
                    m.message.clone()
                } else {
                    "refused".to_string()
                };
                board_view::label(&painter, layout.centre(h), &text, layout.radius * 0.22, red);
            }
        }
        if let Some(h) = self.selected {
            board_view::outline(
                &painter,
                &layout,
                h,
                egui::Stroke::new(3.0, egui::Color32::WHITE),
            );
        }
        if let Some(aim) = &self.aim {
            // A scripted instant's targets, as its scripts list them.
            for h in &aim.listed.hexes {
                let c = egui::Color32::from_rgb(120, 200, 255);
                board_view::outline(&painter, &layout, *h, egui::Stroke::new(2.0, c));
            }
            for (i, h) in aim.targets.iter().enumerate() {
                let c = egui::Color32::from_rgb(255, 200, 0);
                board_view::outline(&painter, &layout, *h, egui::Stroke::new(3.0, c));
                board_view::label(
                    &painter,
                    layout.centre(*h),
                    &format!("target {}", i + 1),
                    layout.radius * 0.22,
                    c,
                );
            }
        }
        let at = |p: Option<egui::Pos2>| p.and_then(|p| layout.hex_on(&shape, p));
        let hovered = at(resp.hover_pos());
        // A palette tile dropped on a hex.
        if let Some(id) = self.carrying.clone() {
            let pointer = ui.input(|i| i.pointer.latest_pos());
            if let Some(p) = pointer {
                let fill = board_view::seat_colour(Seat::new(self.seat as u8));
                if let Some(t) = catalog.find(&id) {
                    crate::tile_view::paint(
                        &ui.ctx().layer_painter(egui::LayerId::new(
                            egui::Order::Tooltip,
                            egui::Id::unique("sandbox_carry"),
                        )),
                        p,
                        layout.radius * 0.9,
                        catalog.get(t),
                        0,
                        fill,
                    );
                }
            }
            if let Some(h) = released_at(ui)
                .filter(|p| rect.contains(*p))
                .and_then(|p| layout.hex_on(&shape, p))
            {
                self.place(catalog, &id, h);
            }
        }
        if resp.drag_started() {
            self.dragging =
                at(ui.input(|i| i.pointer.press_origin())).filter(|h| board.piece_at(*h).is_some());
        }
        if resp.drag_stopped()
            && let Some(from) = self.dragging.take()
            && let Some(to) = at(released_at(ui))
            && self.edit(catalog, |b| b.move_piece(from, to))
        {
            self.selected = Some(to);
        }
        if let Some(from) = self.dragging
            && let Some(p) = ui.input(|i| i.pointer.latest_pos())
        {
            board_view::arrow(
                &painter,
                layout.centre(from),
                p,
                egui::Stroke::new(3.0, egui::Color32::WHITE),
            );
        }
        if resp.clicked()
            && let Some(h) = at(resp.interact_pointer_pos())
        {
            self.click(catalog, h, &board);
        }
        if resp.secondary_clicked()
            && let Some(h) = at(resp.interact_pointer_pos())
            && board.piece_at(h).is_some()
            && self.edit(catalog, |b| b.remove(h))
        {
            self.selected = None;
        }
        // The mouse wheel over a tile turns it.
        if let Some(h) = hovered.filter(|h| board.piece_at(*h).is_some()) {
            self.scrolled += ui.input(|i| i.smooth_scroll_delta.y);
            let steps = (self.scrolled / SCROLL_STEP).trunc();
            if steps != 0.0 {
                self.scrolled -= steps * SCROLL_STEP;
                self.edit(catalog, |b| b.rotate(h, -(steps as i32)));
            }
        } else {
            self.scrolled = 0.0;
        }
    }

    /// A click on hex `h`: a target of the instant aimed, else the armed palette tile goes there,
    /// else the tile there is selected.
    pub(super) fn click(&mut self, catalog: &Catalog, h: Hex, board: &Board) {
        if let Some(aim) = &mut self.aim {
            let wanted = catalog
                .find(&aim.id)
                .and_then(|t| catalog.get(t).instant)
                .map_or(0, |e| targets_wanted(e).len());
            if aim.targets.len() >= wanted {
                aim.targets.clear();
            }
            let scripted = catalog
                .find(&aim.id)
                .is_some_and(|t| hexforge_core::instant::is_scripted(catalog, t));
            if scripted && !aim.listed.hexes.contains(&h) {
                self.note = Some(Note::Error(format!(
                    "{h} is not a hex its script lists: click a hex outlined in blue"
                )));
                return;
            }
            aim.targets.push(h);
            return;
        }
        if let Some(id) = self.armed.clone() {
            self.place(catalog, &id, h);
            return;
        }
        self.selected = board.piece_at(h).map(|_| h);
    }

    /// Puts the palette tile `id` on `h` for the current seat, facing north; an HQ also makes its
    /// army the seat's army.
    pub(super) fn place(&mut self, catalog: &Catalog, id: &str, h: Hex) {
        let seat = self.seat;
        let hq_army = catalog
            .find(id)
            .map(|t| catalog.get(t))
            .filter(|t| t.is_hq())
            .map(|t| t.army.clone());
        let placed = self.edit(catalog, |b| {
            b.place(id, seat, h, Dir::N)?;
            if let (Some(army), Some(p)) = (hq_army, b.players.get_mut(seat)) {
                p.army = army;
            }
            Ok(())
        });
        if placed {
            self.selected = Some(h);
        }
    }

    pub(super) fn paint_overlays(
        &mut self,
        painter: &egui::Painter,
        layout: &Layout,
        field: &Battlefield,
        catalog: &Catalog,
        board: &Board,
        scripts: &mut ScriptHost,
    ) {
        let ctx = Context {
            catalog,
            rules: &board.rules,
        };
        if self.overlays.links {
            board_view::paint_links(painter, layout, field, catalog);
        }
        if self.overlays.nets {
            let netted = hexforge_core::battle::netted(field, ctx);
            board_view::paint_nets(painter, layout, field, catalog, netted);
        }
        if self.overlays.fire {
            board_view::paint_fire_lines(painter, layout, field, catalog);
            // The shots the engine makes from this board in a battle.
            let key = self.edits.as_ref().map_or(0, Edits::version);
            if self.fire.as_ref().is_none_or(|(k, _)| *k != key) {
                let complete = self.built().is_some_and(|b| b.marks.is_empty());
                let shots = if complete {
                    battle::run(field, ctx, scripts, &board.armies())
                        .map(|run| {
                            run.steps
                                .iter()
                                .flat_map(|s| s.attacks.iter().copied())
                                .filter(|a| a.kind != hexforge_core::AttackKind::Melee)
                                .collect()
                        })
                        .unwrap_or_default()
                } else {
                    Vec::new()
                };
                self.fire = Some((key, shots));
            }
            if let Some((_, shots)) = &self.fire {
                for a in shots {
                    if field.at(a.from).is_some() && field.at(a.target).is_some() {
                        board_view::paint_attack(
                            painter,
                            layout,
                            field,
                            (a.from, a.edge, a.kind, a.target),
                            "",
                        );
                    }
                }
            }
        }
    }
}

/// Where the primary button was released in this frame.
pub(super) fn released_at(ui: &egui::Ui) -> Option<egui::Pos2> {
    ui.input(|i| {
        i.events.iter().find_map(|e| match e {
            egui::Event::PointerButton {
                pos,
                button: egui::PointerButton::Primary,
                pressed: false,
                ..
            } => Some(*pos),
            _ => None,
        })
    })
}
