//! Orbit, pan and zoom: middle drag orbits (Shift: pans), right drag on empty space orbits,
//! the wheel zooms; Home fits everything in the view, F the selected part (everything when
//! nothing is selected), 1 / 3 / 7 look from the front, the right and the top. The camera
//! draws into the area between the panels (its viewport, set by the UI), so fitting centres
//! on what is visible. Under a software renderer the view is drawn without multisampling.

use crate::MockupSet;
use crate::input::UiFocus;
use crate::manipulation::{ActiveDrag, Selection};
use crate::part::Parts;
use crate::scene::{SceneInfo, SceneOpened};
use crate::solver::Solver;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use bevy::render::renderer::RenderAdapterInfo;
use mockup_ccd::broad::Aabb;
use mockup_solver::World;

pub struct CameraPlugin;

/// Where the camera looks from: a point it orbits, a distance, two angles about `up`.
#[derive(Component, Clone, Copy, Debug)]
pub struct Orbit {
    pub target: Vec3,
    pub distance: f32,
    pub yaw: f32,
    pub pitch: f32,
    pub up: Vec3,
}

impl Orbit {
    /// Two directions perpendicular to `up` (and each other).
    fn basis(&self) -> (Vec3, Vec3) {
        let e1 = if self.up.z.abs() > 0.9 { Vec3::X } else { Vec3::Z }.reject_from(self.up).normalize();
        (e1, self.up.cross(e1))
    }

    pub fn eye(&self) -> Vec3 {
        let (e1, e2) = self.basis();
        let dir = (e1 * self.yaw.cos() + e2 * self.yaw.sin()) * self.pitch.cos() + self.up * self.pitch.sin();
        self.target + dir * self.distance
    }

    pub fn from_eye(eye: Vec3, target: Vec3, up: Vec3) -> Orbit {
        let up = up.try_normalize().unwrap_or(Vec3::Z);
        let mut o = Orbit { target, distance: (eye - target).length().max(1e-3), yaw: 0.0, pitch: 0.0, up };
        let d = (eye - target) / o.distance;
        let (e1, e2) = o.basis();
        o.pitch = d.dot(up).clamp(-1.0, 1.0).asin();
        o.yaw = d.dot(e2).atan2(d.dot(e1));
        o
    }

    pub fn transform(&self) -> Transform {
        Transform::from_translation(self.eye()).looking_at(self.target, self.up)
    }
}

/// Fit the view to everything shown, or to the selected part (View menu, Home, F).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FitView {
    All,
    Selection,
}

impl Plugin for CameraPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<FitView>().add_systems(Startup, spawn_camera).add_systems(
            Update,
            ((look_at_new_scene, orbit_pan_zoom, fit_and_presets, apply_orbit).chain(), no_multisampling_in_software)
                .in_set(MockupSet::Present),
        );
    }
}

/// No multisampling when the renderer has no GPU (a virtual machine, a remote desktop, Xvfb
/// with Mesa's llvmpipe): there it costs three quarters of the frame. car_door idle under
/// llvmpipe took 3.1 s a frame with Bevy's default 4× and 0.74 s without
/// (docs/benchmarks.md, "Stop 55"). Every camera: the UI's, drawn over the view, left at 4×
/// kept a stale copy of the first frames (the loading dialog) over the view.
fn no_multisampling_in_software(adapter: Option<Res<RenderAdapterInfo>>, mut cameras: Query<&mut Msaa, With<Camera>>) {
    let Some(adapter) = adapter.filter(|a| a.device_type == wgpu_types::DeviceType::Cpu) else { return };
    for mut msaa in &mut cameras {
        if *msaa != Msaa::Off {
            info!("the renderer has no GPU ({}): multisampling off", adapter.name);
            *msaa = Msaa::Off;
        }
    }
}

/// World bounds of the shown parts `which` accepts, at their poses.
pub fn bounds(world: &World, shown: &[bool], which: impl Fn(usize) -> bool) -> Option<(Vec3, Vec3)> {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for (i, b) in world.bodies().iter().enumerate() {
        if shown.get(i).copied().unwrap_or(false) && which(i) {
            let a = Aabb::of_mesh(b.collider.mesh(), &b.pose);
            lo = lo.min(a.min.as_vec3());
            hi = hi.max(a.max.as_vec3());
        }
    }
    lo.is_finite().then_some((lo, hi))
}

fn spawn_camera(mut commands: Commands) {
    let orbit = Orbit { target: Vec3::ZERO, distance: 5.0, yaw: -1.0, pitch: 0.5, up: Vec3::Z };
    commands.spawn((
        Camera3d::default(),
        Projection::Perspective(PerspectiveProjection { fov: 45f32.to_radians(), near: 5e-3, ..default() }),
        orbit.transform(),
        orbit,
    ));
}

/// A new scene: its saved camera, or everything in view.
fn look_at_new_scene(
    mut opened: MessageReader<SceneOpened>,
    info: Res<SceneInfo>,
    solver: Res<Solver>,
    parts: Parts,
    camera: Single<(&mut Orbit, &mut Projection)>,
) {
    if opened.read().count() == 0 {
        return;
    }
    let (mut orbit, mut projection) = camera.into_inner();
    let (o, fov) = match &info.document.camera {
        Some(c) => {
            let v = |a: [f64; 3]| Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32);
            (Orbit::from_eye(v(c.eye), v(c.target), v(c.up)), (c.fov_degrees as f32).to_radians())
        }
        None => {
            let shown = parts.shown(solver.bodies().len());
            let (lo, hi) = bounds(&solver, &shown, |_| true).unwrap_or((Vec3::splat(-1.0), Vec3::ONE));
            let mut o = Orbit { target: 0.5 * (lo + hi), distance: 1.0, yaw: -1.0, pitch: 0.5, up: Vec3::Z };
            o.distance = 1.2 * (hi - lo).length().max(1e-3);
            (o, 45f32.to_radians())
        }
    };
    *orbit = o;
    *projection = Projection::Perspective(PerspectiveProjection { fov, near: o.distance * 1e-3, ..default() });
}

fn orbit_pan_zoom(
    mut orbit: Single<&mut Orbit>,
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    active: Res<ActiveDrag>,
    focus: Res<UiFocus>,
) {
    // A drag that began on a panel stays the panel's.
    if focus.pointer && !active.active() {
        return;
    }
    let delta = motion.delta;
    let shift = keys.pressed(KeyCode::ShiftLeft) || keys.pressed(KeyCode::ShiftRight);
    let orbiting = buttons.pressed(MouseButton::Middle) || (buttons.pressed(MouseButton::Right) && !active.active());
    if orbiting && delta != Vec2::ZERO {
        if shift && buttons.pressed(MouseButton::Middle) {
            let t = orbit.transform();
            let k = orbit.distance * 0.0015;
            let (right, up) = (t.right(), t.up());
            orbit.target += (-delta.x * k) * right + (delta.y * k) * up;
        } else {
            orbit.yaw -= delta.x * 0.006;
            orbit.pitch = (orbit.pitch + delta.y * 0.006).clamp(-1.55, 1.55);
        }
    }
    // The wheel zooms, except while a part is dragged (then it pushes the part).
    if scroll.delta.y != 0.0 && !active.active() {
        orbit.distance = (orbit.distance * (-0.12 * scroll.delta.y).exp()).max(1e-4);
    }
}

#[allow(clippy::too_many_arguments)]
fn fit_and_presets(
    mut orbit: Single<&mut Orbit>,
    keys: Res<ButtonInput<KeyCode>>,
    solver: Res<Solver>,
    parts: Parts,
    selection: Res<Selection>,
    focus: Res<UiFocus>,
    mut fit: MessageReader<FitView>,
) {
    let mut asked: Option<FitView> = fit.read().last().copied();
    if focus.keyboard && asked.is_none() {
        return;
    }
    if keys.just_pressed(KeyCode::Home) {
        asked = Some(FitView::All);
    } else if keys.just_pressed(KeyCode::KeyF) {
        asked = Some(FitView::Selection);
    }
    let shown = || parts.shown(solver.bodies().len());
    let bounds = match (asked, selection.0) {
        (None, _) => None,
        // The selection, when it is shown; everything otherwise.
        (Some(FitView::Selection), Some(part)) => {
            let shown = shown();
            bounds(&solver, &shown, |i| i == part).or_else(|| bounds(&solver, &shown, |_| true))
        }
        (Some(_), _) => bounds(&solver, &shown(), |_| true),
    };
    if let Some((lo, hi)) = bounds {
        orbit.target = 0.5 * (lo + hi);
        orbit.distance = 1.1 * (hi - lo).length().max(1e-3);
    }
    let presets = [
        (KeyCode::Digit1, -std::f32::consts::FRAC_PI_2, 0.0),
        (KeyCode::Digit3, 0.0, 0.0),
        (KeyCode::Digit7, -std::f32::consts::FRAC_PI_2, 1.55),
    ];
    for (key, yaw, pitch) in presets {
        if keys.just_pressed(key) {
            orbit.yaw = yaw;
            orbit.pitch = pitch;
        }
    }
}

fn apply_orbit(mut q: Query<(&Orbit, &mut Transform), Changed<Orbit>>) {
    for (o, mut t) in &mut q {
        *t = o.transform();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_orbit_returns_the_eye_it_was_made_from() {
        for (eye, target, up) in [
            (Vec3::new(1.0, 4.5, 2.4), Vec3::new(2.0, 0.8, 0.85), Vec3::Z),
            (Vec3::new(-3.0, 1.0, 2.0), Vec3::ZERO, Vec3::Y),
        ] {
            let o = Orbit::from_eye(eye, target, up);
            assert!((o.eye() - eye).length() < 1e-4, "{:?} vs {eye:?}", o.eye());
        }
    }
}
