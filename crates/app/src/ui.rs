//! The egui UI: menu bar, parts and settings panels, status bar, dialogs (errors, unsaved
//! changes, choosing a path, loading progress); the keyboard shortcuts are in shortcuts.rs.
//! It only sends commands ([`FileCommand`], [`Edit`], [`PathCommand`]) and edits settings;
//! the plugins that own the state carry them out.

use crate::camera::Frame;
use crate::contacts::ShowContacts;
use crate::files::{Answer, FileCommand, Files, PathChosen, Purpose, answer_unsaved, send_chosen};
use crate::history::{Edit, History};
use crate::manipulation::Grab;
use crate::paths::{DragPath, PathCommand};
use crate::scene::Assembly;
use crate::simulation::{Simulation, settings_for};
use crate::status::Status;
use bevy::prelude::*;
use bevy::window::{PrimaryWindow, WindowCloseRequested};
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use mockup_scene::{Distances, NarrowPhase};

pub struct UiPlugin;

/// Whether the UI has the pointer or the keyboard (last frame): then the 3-D view ignores
/// them.
#[derive(Resource, Default, Debug)]
pub struct UiFocus {
    pub pointer: bool,
    pub keyboard: bool,
}

#[derive(Resource)]
struct Panels {
    parts: bool,
    settings: bool,
}

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<UiFocus>()
            .insert_resource(Panels { parts: true, settings: true })
            .add_systems(EguiPrimaryContextPass, ui)
            .add_systems(Update, (close_requested, title).before(crate::manipulation::Gestures));
    }
}

/// Closing the window is Quit: unsaved changes prompt first.
fn close_requested(mut requests: MessageReader<WindowCloseRequested>, mut files: MessageWriter<FileCommand>) {
    if requests.read().count() > 0 {
        files.write(FileCommand::Quit);
    }
}

fn title(
    files: Res<Files>,
    assembly: Res<Assembly>,
    sim: Res<Simulation>,
    mut window: Single<&mut Window, With<PrimaryWindow>>,
) {
    let star = if files.unsaved(&assembly, &sim) { "*" } else { "" };
    let text = format!("Mockup — {}{star}", files.origin.title());
    if window.title != text {
        window.title = text;
    }
}

#[allow(clippy::too_many_arguments)]
fn ui(
    mut contexts: EguiContexts,
    mut focus: ResMut<UiFocus>,
    mut panels: ResMut<Panels>,
    mut files: ResMut<Files>,
    mut file_commands: MessageWriter<FileCommand>,
    mut chosen: MessageWriter<PathChosen>,
    mut edits: MessageWriter<Edit>,
    mut path_commands: MessageWriter<PathCommand>,
    mut frame: MessageWriter<Frame>,
    assembly: Res<Assembly>,
    sim: Res<Simulation>,
    mut grab: ResMut<Grab>,
    mut show: ResMut<ShowContacts>,
    history: Res<History>,
    path: Res<DragPath>,
    status: Res<Status>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut root = egui::Ui::new(
        ctx.clone(),
        "mockup-root".into(),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    );
    let mut covered: Vec<egui::Rect> = Vec::new();

    covered.push(
        egui::Panel::top("menu")
            .show(&mut root, |ui| {
                egui::MenuBar::new().ui(ui, |ui| {
                    file_menu(ui, &mut files, &mut file_commands);
                    ui.menu_button("Edit", |ui| {
                        if ui
                            .add_enabled(history.can_undo(), egui::Button::new("Undo").shortcut_text("Ctrl+Z"))
                            .clicked()
                        {
                            edits.write(Edit::Undo);
                        }
                        if ui
                            .add_enabled(history.can_redo(), egui::Button::new("Redo").shortcut_text("Ctrl+Y"))
                            .clicked()
                        {
                            edits.write(Edit::Redo);
                        }
                        ui.separator();
                        let sel = grab.selected;
                        if ui
                            .add_enabled(sel.is_some(), egui::Button::new("Hide selected").shortcut_text("Delete"))
                            .clicked()
                            && let Some(p) = sel
                        {
                            edits.write(Edit::Visible(p, false));
                        }
                        if ui.button("Show all").clicked() {
                            for (i, p) in assembly.parts().iter().enumerate() {
                                if !p.visible {
                                    edits.write(Edit::Visible(i, true));
                                }
                            }
                        }
                    });
                    ui.menu_button("View", |ui| {
                        if ui.add(egui::Button::new("Frame all").shortcut_text("Home")).clicked() {
                            frame.write(Frame::All);
                        }
                        if ui
                            .add_enabled(
                                grab.selected.is_some(),
                                egui::Button::new("Frame selection").shortcut_text("F"),
                            )
                            .clicked()
                        {
                            frame.write(Frame::Selection);
                        }
                        ui.checkbox(&mut show.0, "Contacts (C)");
                        ui.checkbox(&mut panels.parts, "Parts panel");
                        ui.checkbox(&mut panels.settings, "Settings panel");
                        ui.label("Views: 1 front, 3 right, 7 top");
                    });
                    ui.menu_button("Path", |ui| {
                        if ui.add_enabled(!path.recording, egui::Button::new("Record drags")).clicked() {
                            path_commands.write(PathCommand::Record);
                        }
                        if ui
                            .add_enabled(path.recording || path.replaying.is_some(), egui::Button::new("Stop"))
                            .clicked()
                        {
                            path_commands.write(PathCommand::Stop);
                        }
                        let has = !path.targets.is_empty();
                        if ui.add_enabled(has && path.replaying.is_none(), egui::Button::new("Replay")).clicked() {
                            path_commands.write(PathCommand::Replay);
                        }
                        if ui.add_enabled(has, egui::Button::new("Save path…")).clicked() {
                            files.choose(Purpose::SavePath);
                        }
                        if ui.button("Load path for the selected part…").clicked() {
                            files.choose(Purpose::LoadPath);
                        }
                        if ui.button("Clear").clicked() {
                            path_commands.write(PathCommand::Clear);
                        }
                    });
                });
            })
            .response
            .rect,
    );

    covered.push(
        egui::Panel::bottom("status")
            .show(&mut root, |ui| {
                ui.horizontal(|ui| {
                    ui.label(format!("frame {:.1} ms", status.frame * 1e3));
                    if let Some(r) = &sim.last {
                        ui.separator();
                        ui.label(format!("CCD {:.2} ms", r.ccd_time.as_secs_f64() * 1e3));
                        ui.label(format!("solver {:.3} ms", r.solver_time.as_secs_f64() * 1e3));
                        ui.label(format!("{} contacts", r.contacts));
                        ui.label(format!("{} BV tests", r.counters.bv_tests));
                        if r.glide_tests > 0 {
                            ui.label(format!("{} glide tests", r.glide_tests));
                        }
                    }
                    ui.separator();
                    let dragging = grab.drag.map(|d| d.part);
                    match (dragging, &sim.last, status.min_distance) {
                        (Some(_), Some(r), _) => match r.min_distance {
                            Some(d) => ui.label(format!("min distance {d:.5}")),
                            None => ui.label(format!("min distance > {:.4}", sim.world.settings().breaking)),
                        },
                        (None, _, _) if grab.selected.is_some() && !status.interferes.is_empty() => {
                            let names: Vec<&str> = status
                                .interferes
                                .iter()
                                .filter_map(|&j| assembly.parts().get(j).map(|p| p.name.as_str()))
                                .collect();
                            ui.colored_label(
                                egui::Color32::from_rgb(230, 70, 60),
                                format!("interferes with {}", names.join(", ")),
                            )
                        }
                        (None, _, Some((d, j))) if grab.selected.is_some() => {
                            let other = assembly.parts().get(j).map(|p| p.name.as_str()).unwrap_or("?");
                            ui.label(format!("min distance {d:.5} (to {other})"))
                        }
                        _ => ui.label(""),
                    };
                    if path.recording {
                        ui.separator();
                        ui.colored_label(
                            egui::Color32::from_rgb(230, 70, 60),
                            format!("● recording ({})", path.targets.len()),
                        );
                    }
                    if files.unsaved(&assembly, &sim) {
                        ui.separator();
                        ui.label("unsaved changes");
                    }
                });
            })
            .response
            .rect,
    );

    if panels.parts {
        covered.push(
            egui::Panel::left("parts")
                .resizable(true)
                .show(&mut root, |ui| parts_panel(ui, &assembly, &sim, &mut grab, &mut edits))
                .response
                .rect,
        );
    }
    if panels.settings {
        covered.push(
            egui::Panel::right("settings")
                .resizable(true)
                .show(&mut root, |ui| settings_panel(ui, &assembly, &sim, &mut edits))
                .response
                .rect,
        );
    }

    dialogs(ctx, &mut files, &mut file_commands, &mut chosen);

    let pos = ctx.pointer_latest_pos();
    let over_window = pos.and_then(|p| ctx.layer_id_at(p)).is_some_and(|l| l.order != egui::Order::Background);
    focus.pointer = ctx.egui_is_using_pointer()
        || over_window
        || pos.is_some_and(|p| covered.iter().any(|r| r.contains(p)))
        || files.loading.is_some();
    focus.keyboard = ctx.egui_wants_keyboard_input();
    Ok(())
}

fn file_menu(ui: &mut egui::Ui, files: &mut Files, commands: &mut MessageWriter<FileCommand>) {
    ui.menu_button("File", |ui| {
        if ui.add(egui::Button::new("Open scene…").shortcut_text("Ctrl+O")).clicked() {
            commands.write(FileCommand::Open);
        }
        if ui.add(egui::Button::new("Import OBJ assembly…").shortcut_text("Ctrl+I")).clicked() {
            commands.write(FileCommand::Import);
        }
        if ui.button("Open the built-in car_door").clicked() {
            commands.write(FileCommand::OpenBuiltIn);
        }
        ui.separator();
        if ui.add(egui::Button::new("Save").shortcut_text("Ctrl+S")).clicked() {
            commands.write(FileCommand::Save);
        }
        if ui.add(egui::Button::new("Save As…").shortcut_text("Ctrl+Shift+S")).clicked() {
            commands.write(FileCommand::SaveAs);
        }
        ui.separator();
        ui.menu_button("Recent", |ui| {
            if files.recent.is_empty() {
                ui.label("(none yet)");
            }
            for p in files.recent.clone() {
                if ui.button(p.display().to_string()).clicked() {
                    let is_obj = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("obj"));
                    commands.write(if is_obj { FileCommand::ImportPath(p) } else { FileCommand::OpenPath(p) });
                }
            }
        });
        ui.checkbox(&mut files.native_dialogs, "Use the desktop's file dialogs");
        ui.separator();
        if ui.add(egui::Button::new("Quit").shortcut_text("Ctrl+Q")).clicked() {
            commands.write(FileCommand::Quit);
        }
    });
}

fn parts_panel(
    ui: &mut egui::Ui,
    assembly: &Assembly,
    sim: &Simulation,
    grab: &mut Grab,
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
            for (i, p) in assembly.parts().iter().enumerate() {
                if ui.selectable_label(grab.selected == Some(i), &p.name).clicked() && !grab.active() {
                    grab.selected = Some(i);
                }
                let mut visible = p.visible;
                if ui.checkbox(&mut visible, "").changed() {
                    edits.write(Edit::Visible(i, visible));
                }
                let mut fixed = p.fixed;
                // A part being dragged keeps its state until the drag ends.
                let dragged = grab.drag.is_some_and(|d| d.part == i);
                if ui.add_enabled(!dragged, egui::Checkbox::new(&mut fixed, "")).changed() {
                    edits.write(Edit::Fixed(i, fixed));
                }
                let mut color = p.color;
                if ui.color_edit_button_rgb(&mut color).changed() {
                    edits.write(Edit::Color(i, color));
                }
                ui.end_row();
            }
        });
        if let Some(i) = grab.selected
            && let Some(b) = sim.world.body(i)
        {
            ui.separator();
            let t = b.pose.translation;
            ui.label(format!("{}: at ({:.4}, {:.4}, {:.4})", assembly.parts()[i].name, t.x, t.y, t.z));
            let (axis, angle) = b.pose.rotation.to_axis_angle();
            ui.label(format!("turned {:.2}° about ({:.3}, {:.3}, {:.3})", angle.to_degrees(), axis.x, axis.y, axis.z));
        }
    });
}

fn settings_panel(ui: &mut egui::Ui, assembly: &Assembly, sim: &Simulation, edits: &mut MessageWriter<Edit>) {
    ui.heading("Solver");
    let size = assembly.size();
    let mut doc = assembly.loaded.document.solver.clone();
    let current = *sim.world.settings();
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
    if doc != assembly.loaded.document.solver {
        // Applied (and undoable) through the history; invalid values are shown, not sent.
        match settings_for(&assembly.loaded, &doc).validate() {
            Ok(()) => {
                edits.write(Edit::Solver(doc));
            }
            Err(e) => {
                ui.colored_label(egui::Color32::from_rgb(230, 80, 60), e);
            }
        }
    }
}

fn dialogs(
    ctx: &egui::Context,
    files: &mut Files,
    commands: &mut MessageWriter<FileCommand>,
    chosen: &mut MessageWriter<PathChosen>,
) {
    if let Some(loading) = &files.loading {
        let (fraction, stage) = loading.progress();
        egui::Modal::new("loading".into()).show(ctx, |ui| {
            ui.label(format!("Opening {}", loading.what));
            ui.add(egui::ProgressBar::new(fraction).text(stage).desired_width(360.0));
        });
        ctx.request_repaint();
        return;
    }
    if let Some(message) = files.errors.first().cloned() {
        egui::Modal::new("error".into()).show(ctx, |ui| {
            ui.heading("Something went wrong");
            ui.label(message);
            if ui.button("OK").clicked() || ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                files.errors.remove(0);
            }
        });
        return;
    }
    if files.confirm.is_some() {
        let what = files.origin.title();
        let mut answer = None;
        egui::Modal::new("unsaved".into()).show(ctx, |ui| {
            ui.heading("Unsaved changes");
            ui.label(format!("{what} has changes that are not saved."));
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    answer = Some(Answer::Save);
                }
                if ui.button("Discard").clicked() {
                    answer = Some(Answer::Discard);
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                    answer = Some(Answer::Cancel);
                }
            });
        });
        if let Some(a) = answer {
            answer_unsaved(files, a, commands);
        }
        return;
    }
    let mut close = false;
    let mut type_instead = false;
    let mut confirmed = None;
    if let Some(chooser) = &mut files.chooser {
        let purpose = chooser.purpose;
        egui::Modal::new("chooser".into()).show(ctx, |ui| {
            ui.heading(purpose.verb());
            match &mut chooser.typed {
                None => {
                    ui.label("Waiting for the desktop's file dialog…");
                    ui.horizontal(|ui| {
                        type_instead = ui.button("Type a path instead").clicked();
                        close = ui.button("Cancel").clicked();
                    });
                }
                Some(text) => {
                    ui.label("Path:");
                    let edit = ui.add(egui::TextEdit::singleline(text).desired_width(420.0).id("typed-path".into()));
                    if !edit.has_focus() && text.is_empty() {
                        edit.request_focus();
                    }
                    let enter = ui.input(|i| i.key_pressed(egui::Key::Enter));
                    ui.horizontal(|ui| {
                        if (ui.button("OK").clicked() || enter) && !text.trim().is_empty() {
                            confirmed = Some(std::path::PathBuf::from(text.trim()));
                        }
                        close = ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape));
                    });
                }
            }
        });
        if let Some(p) = confirmed {
            files.chooser = None;
            send_chosen(purpose, p, commands, chosen);
        } else if close {
            files.cancel_choice();
        } else if type_instead {
            files.type_path();
        }
    }
}
