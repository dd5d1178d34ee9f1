//! The Parts panel (every part with shown, fixed and colour; the selected part's pose) and
//! the Solver panel (the scene's solver settings, undoable, and the app's time per frame).

use super::View;
use crate::history::Edit;
use crate::manipulation::Selection;
use crate::solver::{DEFAULT_STEP_TIME, DragBudget};
use bevy::prelude::*;
use bevy_egui::egui;
use mockup_scene::{Distances, NarrowPhase};
use std::time::Duration;

pub(super) fn parts(
    ui: &mut egui::Ui,
    view: &View,
    selection: &mut ResMut<Selection>,
    edits: &mut MessageWriter<Edit>,
) {
    ui.heading("Parts");
    egui::ScrollArea::vertical().show(ui, |ui| {
        egui::Grid::new("parts-grid").striped(true).show(ui, |ui| {
            ui.label("");
            ui.label("shown");
            ui.label("fixed");
            ui.label("colour");
            ui.end_row();
            let dragged = view.active.part();
            for p in view.parts.views() {
                let i = p.id;
                if ui.selectable_label(selection.0 == Some(i), &p.name).clicked() && dragged.is_none() {
                    selection.0 = Some(i);
                }
                let mut shown = p.shown;
                if ui.checkbox(&mut shown, "").changed() {
                    edits.write(Edit::Visible(i, shown));
                }
                let mut fixed = view.solver.body(i).is_some_and(|b| b.fixed);
                // A part being dragged keeps its state until the drag ends.
                if ui.add_enabled(dragged != Some(i), egui::Checkbox::new(&mut fixed, "")).changed() {
                    edits.write(Edit::Fixed(i, fixed));
                }
                // Linear RGB, as the document and the renderer take it.
                let mut color = p.color;
                if ui.color_edit_button_rgb(&mut color).changed() {
                    edits.write(Edit::Color(i, color));
                }
                ui.end_row();
            }
        });
        if let Some(i) = selection.0
            && let Some(b) = view.solver.body(i)
        {
            ui.separator();
            let t = b.pose.translation;
            ui.label(format!("{}: at ({:.4}, {:.4}, {:.4})", view.parts.name(i), t.x, t.y, t.z));
            let (axis, angle) = b.pose.rotation.to_axis_angle();
            ui.label(format!("turned {:.2}° about ({:.3}, {:.3}, {:.3})", angle.to_degrees(), axis.x, axis.y, axis.z));
        }
    });
}

pub(super) fn solver(ui: &mut egui::Ui, view: &View, edits: &mut MessageWriter<Edit>, budget: &mut ResMut<DragBudget>) {
    ui.heading("Solver");
    let size = view.info.size;
    let mut doc = view.info.document.solver.clone();
    let current = *view.solver.settings();
    let mut scaled = doc.distances == Distances::Scaled;
    if ui.checkbox(&mut scaled, "Distances scaled to the scene").changed() {
        doc.distances = if scaled {
            Distances::Scaled
        } else {
            Distances::Explicit {
                repositioning: current.repositioning,
                security: current.security,
                breaking: current.breaking,
            }
        };
    }
    let step = size * 1e-4;
    match &mut doc.distances {
        Distances::Scaled => {
            ui.label(format!(
                "εr {:.5}   εs {:.5}   εb {:.5}",
                current.repositioning, current.security, current.breaking
            ));
        }
        Distances::Explicit { repositioning, security, breaking } => {
            egui::Grid::new("distances").show(ui, |ui| {
                for (label, v) in
                    [("εr (reposition)", repositioning), ("εs (security)", security), ("εb (breaking)", breaking)]
                {
                    ui.label(label);
                    ui.add(egui::DragValue::new(v).speed(step).range(0.0..=size).max_decimals(6));
                    ui.end_row();
                }
            });
        }
    }
    ui.checkbox(&mut doc.bm_culling, "BM-culling");
    egui::ComboBox::from_label("Narrow phase")
        .selected_text(match doc.narrow_phase {
            NarrowPhase::Exact => "Exact (screw, cubics)",
            NarrowPhase::Glide => "Glide (Buss' screen)",
        })
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut doc.narrow_phase, NarrowPhase::Exact, "Exact (screw, cubics)");
            ui.selectable_value(&mut doc.narrow_phase, NarrowPhase::Glide, "Glide (Buss' screen)");
        })
        .response
        .on_hover_text(
            "Exact: Redon's screw motion, roots of cubics. Glide: Buss' collision screen along \
             constant-velocity screws; collisions less proper than -0.1 are ignored.",
        );
    ui.add(egui::Slider::new(&mut doc.max_substeps, 1..=64).text("sub-steps per frame"));
    ui.checkbox(&mut doc.push_others, "Push other parts").on_hover_text(
        "A drag pushes the movable parts in its way. Off: only the grabbed part moves; every other part is an obstacle.",
    );
    ui.checkbox(&mut doc.strict, "Strict: interfering pairs are obstacles").on_hover_text(
        "Parts touching or interfering when a drag starts are obstacles to be kept apart like any other. Off: \
         they may come apart or slide, never deeper (in contact from the start).",
    );
    if doc != view.info.document.solver {
        // Applied (and undoable) through the history; invalid values are shown, not sent.
        match crate::solver::settings(&doc, size, **budget).validate() {
            Ok(()) => {
                edits.write(Edit::Solver(doc));
            }
            Err(e) => {
                ui.colored_label(egui::Color32::from_rgb(230, 80, 60), e);
            }
        }
    }
    ui.separator();
    // The app's, not the scene's: how much of a frame a drag step may take.
    let mut limited = budget.time.is_some();
    let mut ms = budget.time.unwrap_or(DEFAULT_STEP_TIME).as_secs_f64() * 1e3;
    ui.checkbox(&mut limited, "Limit the drag step per frame").on_hover_text(
        "When the step runs out of time the part has moved as far as was proven free, and the next frames go on.",
    );
    ui.add_enabled(limited, egui::Slider::new(&mut ms, 2.0..=100.0).text("ms per frame"));
    let want = limited.then(|| Duration::from_secs_f64(ms * 1e-3));
    if want != budget.time {
        budget.time = want;
    }
}
