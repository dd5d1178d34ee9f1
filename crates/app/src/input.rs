//! Where the pointer and the keys go: [`UiFocus`] says whether the UI has them (the windowed
//! app fills it from bevy_egui's `EguiWantsInput` and the 3-D view's viewport; tests set it),
//! and [`read_pointer`] turns the mouse, the keys and the camera into
//! [`PointerInput`], which the gestures read (tests write it directly).

use crate::MockupSet;
use crate::manipulation::{ButtonState, PointerInput};
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use glam::DVec3;

pub struct InputPlugin;

/// Whether the UI has the pointer (over a panel, menu or dialog, or outside the 3-D view)
/// or the keyboard (a text field): then the 3-D view ignores them.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct UiFocus {
    pub pointer: bool,
    pub keyboard: bool,
}

impl Plugin for InputPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<UiFocus>().init_resource::<PointerInput>();
    }
}

/// The mouse, the keys and the camera → [`PointerInput`] (the binary adds it, in
/// [`MockupSet::Input`] after the UI's focus).
pub fn add_mouse(app: &mut App) {
    app.add_systems(Update, read_pointer.in_set(MockupSet::Input).after(crate::ui::focus));
}

#[allow(clippy::too_many_arguments)]
pub fn read_pointer(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform), With<crate::camera::Orbit>>,
    focus: Res<UiFocus>,
    mut input: ResMut<PointerInput>,
) {
    let (cam, cam_t) = *camera;
    // Only where the 3-D view is drawn (between the panels).
    let ray = window
        .cursor_position()
        .filter(|c| cam.logical_viewport_rect().is_none_or(|r| r.contains(*c)))
        .and_then(|c| cam.viewport_to_world(cam_t, c).ok())
        .map(|r| (r.origin.as_dvec3(), Vec3::from(r.direction).as_dvec3()));
    let b = |m: MouseButton| ButtonState { pressed: buttons.pressed(m), just_pressed: buttons.just_pressed(m) };
    let typing = focus.keyboard;
    let key = |k: KeyCode| !typing && keys.pressed(k);
    let axis = [(KeyCode::KeyX, DVec3::X), (KeyCode::KeyY, DVec3::Y), (KeyCode::KeyZ, DVec3::Z)]
        .into_iter()
        .find(|&(k, _)| key(k))
        .map(|(_, a)| a);
    *input = PointerInput {
        ray,
        forward: cam_t.forward().as_vec3().as_dvec3(),
        right: cam_t.right().as_vec3().as_dvec3(),
        up: cam_t.up().as_vec3().as_dvec3(),
        left: b(MouseButton::Left),
        right_button: b(MouseButton::Right),
        ctrl: key(KeyCode::ControlLeft) || key(KeyCode::ControlRight),
        axis,
        wheel: scroll.delta.y as f64,
        motion: motion.delta.as_dvec2(),
        escape: !typing && keys.just_pressed(KeyCode::Escape),
        over_ui: focus.pointer,
    };
}
