//! Dialogs, one at a time: a file job's progress, errors, the unsaved-changes prompt, the
//! path chooser.

use super::{FileUi, Outbox};
use crate::files::chooser::send_chosen;
use crate::files::prompt::Answer;
use bevy_egui::egui;

pub(super) fn dialogs(ctx: &egui::Context, files: &mut FileUi, send: &mut Outbox) {
    if let Some((what, fraction, stage)) = files.job.status() {
        egui::Modal::new("file-job".into()).show(ctx, |ui| {
            ui.label(what);
            ui.add(egui::ProgressBar::new(fraction).text(stage).desired_width(360.0));
        });
        ctx.request_repaint();
        return;
    }
    if let Some(message) = files.errors.0.first().cloned() {
        egui::Modal::new("error".into()).show(ctx, |ui| {
            ui.heading("Something went wrong");
            ui.label(message);
            if ui.button("OK").clicked() || ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                files.errors.0.remove(0);
            }
        });
        return;
    }
    if files.prompt.asking().is_some() {
        let what = files.file.origin.title();
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
            files.prompt.answer(a, &mut send.files);
        }
        return;
    }
    let mut close = false;
    let mut type_instead = false;
    let mut confirmed = None;
    let Some(choosing) = &mut files.chooser.0 else { return };
    let purpose = choosing.purpose;
    egui::Modal::new("chooser".into()).show(ctx, |ui| {
        ui.heading(purpose.verb());
        match &mut choosing.typed {
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
        files.chooser.0 = None;
        send_chosen(purpose, p, &mut send.files, &mut send.chosen);
    } else if close {
        files.chooser.cancel(&mut files.prompt);
    } else if type_instead {
        files.chooser.type_instead();
    }
}
