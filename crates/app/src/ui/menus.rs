//! The menu bar: File, Edit, View, Path.

use super::{AppSettings, FileUi, Outbox, View};
use crate::camera::FitView;
use crate::drag_path::DragPathCommand;
use crate::files::chooser::Purpose;
use crate::files::{FileCommand, Origin};
use crate::history::Edit;
use bevy_egui::egui;

pub(super) fn menu_bar(
    ui: &mut egui::Ui,
    view: &View,
    send: &mut Outbox,
    files: &mut FileUi,
    settings: &mut AppSettings,
) {
    egui::MenuBar::new().ui(ui, |ui| {
        file_menu(ui, send, files);
        edit_menu(ui, view, send, settings);
        ui.menu_button("View", |ui| {
            if ui.add(egui::Button::new("Frame all").shortcut_text("Home")).clicked() {
                send.fit.write(FitView::All);
            }
            let selected = settings.selection.0.is_some();
            if ui.add_enabled(selected, egui::Button::new("Frame selection").shortcut_text("F")).clicked() {
                send.fit.write(FitView::Selection);
            }
            ui.checkbox(&mut settings.show_contacts.0, "Contacts (C)");
            ui.checkbox(&mut settings.panels.parts, "Parts panel");
            ui.checkbox(&mut settings.panels.settings, "Solver panel");
            ui.label("Views: 1 front, 3 right, 7 top");
        });
        drag_path_menu(ui, view, send, files);
    });
}

fn file_menu(ui: &mut egui::Ui, send: &mut Outbox, files: &mut FileUi) {
    ui.menu_button("File", |ui| {
        if ui.add(egui::Button::new("Open scene…").shortcut_text("Ctrl+O")).clicked() {
            send.files.write(FileCommand::Open);
        }
        if ui.add(egui::Button::new("Import meshes (OBJ, STL, glTF, GLB)…").shortcut_text("Ctrl+I")).clicked() {
            send.files.write(FileCommand::Import);
        }
        if ui.button("Open the built-in car_door").clicked() {
            send.files.write(FileCommand::OpenBuiltIn);
        }
        ui.separator();
        if ui.add(egui::Button::new("Save").shortcut_text("Ctrl+S")).clicked() {
            send.files.write(FileCommand::Save);
        }
        if ui.add(egui::Button::new("Save As…").shortcut_text("Ctrl+Shift+S")).clicked() {
            send.files.write(FileCommand::SaveAs);
        }
        ui.separator();
        ui.menu_button("Recent", |ui| {
            if files.recent.list.is_empty() {
                ui.label("(none yet)");
            }
            for p in files.recent.list.clone() {
                if ui.button(p.display().to_string()).clicked() {
                    let import = matches!(Origin::of_path(&p), Ok(Origin::Import(_)));
                    send.files.write(if import { FileCommand::ImportPath(p) } else { FileCommand::OpenPath(p) });
                }
            }
        });
        ui.checkbox(&mut files.native.0, "Use the desktop's file dialogs");
        ui.separator();
        if ui.add(egui::Button::new("Quit").shortcut_text("Ctrl+Q")).clicked() {
            send.files.write(FileCommand::Quit);
        }
    });
}

fn edit_menu(ui: &mut egui::Ui, view: &View, send: &mut Outbox, settings: &mut AppSettings) {
    ui.menu_button("Edit", |ui| {
        if ui.add_enabled(view.history.can_undo(), egui::Button::new("Undo").shortcut_text("Ctrl+Z")).clicked() {
            send.edits.write(Edit::Undo);
        }
        if ui.add_enabled(view.history.can_redo(), egui::Button::new("Redo").shortcut_text("Ctrl+Y")).clicked() {
            send.edits.write(Edit::Redo);
        }
        ui.separator();
        let selected = settings.selection.0;
        if ui.add_enabled(selected.is_some(), egui::Button::new("Hide selected").shortcut_text("Delete")).clicked()
            && let Some(p) = selected
        {
            send.edits.write(Edit::Visible(p, false));
        }
        if ui.button("Show all").clicked() {
            for p in view.parts.views() {
                if !p.shown {
                    send.edits.write(Edit::Visible(p.id, true));
                }
            }
        }
    });
}

fn drag_path_menu(ui: &mut egui::Ui, view: &View, send: &mut Outbox, files: &mut FileUi) {
    ui.menu_button("Path", |ui| {
        let (recording, replaying) = (view.player.recording(), view.player.replaying());
        if ui.add_enabled(!recording, egui::Button::new("Record drags")).clicked() {
            send.drag_path.write(DragPathCommand::Record);
        }
        if ui.add_enabled(recording || replaying, egui::Button::new("Stop")).clicked() {
            send.drag_path.write(DragPathCommand::Stop);
        }
        let has = !view.path.targets.is_empty();
        if ui.add_enabled(has && !replaying, egui::Button::new("Replay")).clicked() {
            send.drag_path.write(DragPathCommand::Replay);
        }
        let native = files.native.0;
        if ui.add_enabled(has, egui::Button::new("Save path…")).clicked() {
            files.chooser.start(Purpose::SaveDragPath, native);
        }
        if ui.button("Load path for the selected part…").clicked() {
            files.chooser.start(Purpose::LoadDragPath, native);
        }
        if ui.button("Clear").clicked() {
            send.drag_path.write(DragPathCommand::Clear);
        }
    });
}
