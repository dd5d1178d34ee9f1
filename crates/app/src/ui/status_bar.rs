//! The status bar: frame time; the last drag step (CCD and solver time, contacts, box tests,
//! whether it is still catching up with its target); the selected part's minimum distance
//! (during a drag the smallest contact distance; otherwise the status task's answer, "…"
//! while it runs), what it interferes with (red) and what it is in contact with from the
//! start (violet), and when a drag is held because it would deepen such an interference;
//! recording; unsaved changes.

use super::View;
use bevy_egui::egui;

const RED: egui::Color32 = egui::Color32::from_rgb(230, 70, 60);
/// The contact markers' violet for pairs in contact from the start (contacts.rs).
const VIOLET: egui::Color32 = egui::Color32::from_rgb(190, 90, 255);

pub(super) fn status_bar(ui: &mut egui::Ui, view: &View, selected: Option<usize>) {
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("frame {:.1} ms", view.frame_time.0 * 1e3));
        if let Some(r) = &view.step.report {
            ui.separator();
            ui.label(format!("CCD {:.2} ms", r.ccd_time.as_secs_f64() * 1e3));
            ui.label(format!("solver {:.3} ms", r.solver_time.as_secs_f64() * 1e3));
            ui.label(format!("{} contacts", r.contacts));
            ui.label(format!("{} BV tests", r.counters.bv_tests));
            if r.glide_tests > 0 {
                ui.label(format!("{} glide tests", r.glide_tests));
            }
            if view.step.busy() {
                ui.label("(catching up)");
            }
            // Without this the part just stays put, and nothing says why (found on the
            // gear differential, whose spiders start 1-2 mm inside the side gears).
            if r.deepening_undone > 0 && r.moves.is_empty() {
                ui.colored_label(VIOLET, "held: the move would deepen an interference from the start").on_hover_text(
                    "Parts that interfere when a drag starts may come apart or slide, never \
                     deeper (docs/contact-from-start.md).",
                );
            }
        }
        ui.separator();
        distance(ui, view, selected);
        if view.player.recording() {
            ui.separator();
            ui.colored_label(RED, format!("● recording ({})", view.path.targets.len()));
        }
        if view.unsaved.0 {
            ui.separator();
            ui.label("unsaved changes");
        }
    });
}

fn distance(ui: &mut egui::Ui, view: &View, selected: Option<usize>) {
    let Some(selected) = view.active.part().or(selected) else { return };
    let moving = view.active.active() || view.step.busy();
    if moving {
        match view.step.report.as_ref().and_then(|r| r.min_distance) {
            Some(d) => ui.label(format!("min distance {d:.5}")),
            None => ui.label(format!("min distance > {:.4}", view.solver.settings().breaking)),
        };
        return;
    }
    let status = &view.status;
    match &status.answer {
        None if status.running() => {
            ui.label("min distance …");
        }
        None => {}
        Some(a) => {
            match a.nearest {
                Some((d, j)) => ui.label(format!("min distance {d:.5} (to {})", view.parts.name(j))),
                None => ui.label("nothing near"),
            };
        }
    }
    let name = view.parts.name(selected);
    if !status.interferes.is_empty() {
        let names: Vec<String> = status.interferes.iter().map(|&j| view.parts.name(j)).collect();
        listed(ui, RED, &format!("{name} interferes with"), &names);
    }
    let from_start = status.from_start();
    if !from_start.is_empty() {
        let names: Vec<String> = from_start.iter().map(|&j| view.parts.name(j)).collect();
        listed(ui, VIOLET, &format!("{name} in contact from the start with"), &names);
    }
}

/// A few of `names` after `what`, the rest counted, all of them on hover: a real assembly's
/// part touches dozens, and a list that long wrapped over the bar's one line.
fn listed(ui: &mut egui::Ui, color: egui::Color32, what: &str, names: &[String]) {
    const SHOWN: usize = 3;
    let mut text = format!("{what} {}", names[..names.len().min(SHOWN)].join(", "));
    if names.len() > SHOWN {
        text += &format!(" and {} more", names.len() - SHOWN);
    }
    ui.add(egui::Label::new(egui::RichText::new(text).color(color)).truncate())
        .on_hover_text(format!("{what}:\n{}", names.join("\n")));
}
