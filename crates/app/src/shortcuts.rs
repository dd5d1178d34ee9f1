//! The keyboard shortcuts that send commands: Ctrl+O open, Ctrl+I import, Ctrl+S save,
//! Ctrl+Shift+S save as, Ctrl+Q quit, Ctrl+Z undo, Ctrl+Y or Ctrl+Shift+Z redo, Delete hides
//! the selected part, C toggles the contact markers. None fire while a text field has the
//! keyboard. No window needed: headless tests press the keys. The camera's own keys (F,
//! Home, 1/3/7) are in camera.rs.

use crate::MockupSet;
use crate::contacts::ShowContacts;
use crate::files::FileCommand;
use crate::history::Edit;
use crate::input::UiFocus;
use crate::manipulation::Selection;
use bevy::prelude::*;

pub struct ShortcutsPlugin;

impl Plugin for ShortcutsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ShowContacts>().add_systems(Update, shortcuts.in_set(MockupSet::Input));
    }
}

fn ctrl_shift_held(keys: &ButtonInput<KeyCode>) -> (bool, bool) {
    // Held, or pressed and released within this frame (a quick chord at a low frame rate).
    let down = |a: KeyCode, b: KeyCode| [a, b].iter().any(|&k| keys.pressed(k) || keys.just_released(k));
    (down(KeyCode::ControlLeft, KeyCode::ControlRight), down(KeyCode::ShiftLeft, KeyCode::ShiftRight))
}

fn shortcuts(
    keys: Res<ButtonInput<KeyCode>>,
    focus: Res<UiFocus>,
    selection: Res<Selection>,
    mut files: MessageWriter<FileCommand>,
    mut edits: MessageWriter<Edit>,
    mut show: ResMut<ShowContacts>,
) {
    if focus.keyboard {
        return;
    }
    let (ctrl, shift) = ctrl_shift_held(&keys);
    let pressed = |k: KeyCode| keys.just_pressed(k);
    if ctrl {
        if pressed(KeyCode::KeyO) {
            files.write(FileCommand::Open);
        } else if pressed(KeyCode::KeyI) {
            files.write(FileCommand::Import);
        } else if pressed(KeyCode::KeyS) {
            files.write(if shift { FileCommand::SaveAs } else { FileCommand::Save });
        } else if pressed(KeyCode::KeyQ) {
            files.write(FileCommand::Quit);
        } else if pressed(KeyCode::KeyZ) {
            edits.write(if shift { Edit::Redo } else { Edit::Undo });
        } else if pressed(KeyCode::KeyY) {
            edits.write(Edit::Redo);
        }
        return;
    }
    if pressed(KeyCode::Delete)
        && let Some(part) = selection.0
    {
        edits.write(Edit::Visible(part, false));
    }
    if pressed(KeyCode::KeyC) {
        show.0 = !show.0;
    }
}
