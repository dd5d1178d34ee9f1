//! Drawn over the parts: contact points as small spheres with their normals (seed 001
//! Figure 4), yellow, or violet for pairs in contact from the start
//! (docs/contact-from-start.md), toggled with C or the View menu; and the drag path as a
//! polyline. Contacts lie between surfaces, usually hidden by the moving part, so they are
//! drawn through it.

use crate::MockupSet;
use crate::drag_path::{DragPath, Player};
use crate::scene::SceneInfo;
use crate::solver::Solver;
use bevy::prelude::*;

pub struct ContactsPlugin;

/// Gizmos drawn in front of everything.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct Overlay;

/// Whether the contact markers are drawn (C, View menu); on by default.
#[derive(Resource)]
pub struct ShowContacts(pub bool);

impl Default for ShowContacts {
    fn default() -> Self {
        ShowContacts(true)
    }
}

impl Plugin for ContactsPlugin {
    fn build(&self, app: &mut App) {
        app.insert_gizmo_config(
            Overlay,
            GizmoConfig { depth_bias: -1.0, line: GizmoLineConfig { width: 2.0, ..default() }, ..default() },
        )
        .init_resource::<ShowContacts>()
        .add_systems(Update, (draw_contacts, draw_path).in_set(MockupSet::Present));
    }
}

/// The contact markers' colour: the end-to-end test counts these pixels.
pub const CONTACT_YELLOW: Color = Color::srgb(1.0, 0.85, 0.1);
/// Contacts of pairs in contact from the start.
pub const FROM_START_VIOLET: Color = Color::srgb(0.75, 0.35, 1.0);

/// One contact as drawn: a sphere at `point` and its normal from `point` to `tip`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Marker {
    pub point: Vec3,
    pub radius: f32,
    pub tip: Vec3,
    /// The pair is in contact from the start.
    pub from_start: bool,
}

impl Marker {
    pub fn color(&self) -> Color {
        if self.from_start { FROM_START_VIOLET } else { CONTACT_YELLOW }
    }
}

/// The markers to draw this frame: one per contact of the solver's set, sized to the scene;
/// none when hidden.
pub fn markers(show: &ShowContacts, solver: &Solver, info: &SceneInfo) -> Vec<Marker> {
    if !show.0 {
        return Vec::new();
    }
    let size = info.size as f32;
    solver
        .contacts()
        .iter()
        .map(|c| {
            let point = c.point_j.as_vec3();
            Marker { point, radius: 0.002 * size, tip: point + c.normal.as_vec3() * 0.015 * size, from_start: c.seated }
        })
        .collect()
}

fn draw_contacts(show: Res<ShowContacts>, solver: Res<Solver>, info: Res<SceneInfo>, mut gizmos: Gizmos<Overlay>) {
    for m in markers(&show, &solver, &info) {
        gizmos.sphere(Isometry3d::from_translation(m.point), m.radius, m.color()).resolution(8);
        gizmos.line(m.point, m.tip, Color::srgb(1.0, 0.5, 0.1));
    }
}

fn draw_path(path: Res<DragPath>, player: Res<Player>, mut gizmos: Gizmos<Overlay>) {
    if path.trail.len() >= 2 {
        let color = if player.recording() { Color::srgb(1.0, 0.25, 0.2) } else { Color::srgb(0.3, 0.8, 1.0) };
        gizmos.linestrip(path.trail.iter().map(|p| p.as_vec3()), color);
    }
}
