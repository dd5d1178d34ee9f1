//! Drawn over the parts: contact points as small yellow spheres with their normals (seed 001
//! Figure 4), toggled with C or the View menu; and the drag path as a polyline. Contacts lie
//! between surfaces, usually hidden by the moving part, so they are drawn through it.

use crate::paths::DragPath;
use crate::scene::Assembly;
use crate::simulation::Simulation;
use bevy::prelude::*;

pub struct ContactsPlugin;

/// Gizmos drawn in front of everything.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct Overlay;

#[derive(Resource)]
pub struct ShowContacts(pub bool);

impl Plugin for ContactsPlugin {
    fn build(&self, app: &mut App) {
        app.insert_gizmo_config(
            Overlay,
            GizmoConfig { depth_bias: -1.0, line: GizmoLineConfig { width: 2.0, ..default() }, ..default() },
        )
        .insert_resource(ShowContacts(true))
        .add_systems(Update, (draw_contacts, draw_path).after(crate::simulation::Step));
    }
}

/// The contact markers' colour: the end-to-end test counts these pixels.
pub const CONTACT_YELLOW: Color = Color::srgb(1.0, 0.85, 0.1);

fn draw_contacts(show: Res<ShowContacts>, sim: Res<Simulation>, assembly: Res<Assembly>, mut gizmos: Gizmos<Overlay>) {
    if !show.0 {
        return;
    }
    let size = assembly.size() as f32;
    for c in sim.world.contacts() {
        let p = c.point_j.as_vec3();
        gizmos.sphere(Isometry3d::from_translation(p), 0.002 * size, CONTACT_YELLOW).resolution(8);
        gizmos.line(p, p + c.normal.as_vec3() * 0.015 * size, Color::srgb(1.0, 0.5, 0.1));
    }
}

fn draw_path(path: Res<DragPath>, mut gizmos: Gizmos<Overlay>) {
    if path.trail.len() >= 2 {
        let color = if path.recording { Color::srgb(1.0, 0.25, 0.2) } else { Color::srgb(0.3, 0.8, 1.0) };
        gizmos.linestrip(path.trail.iter().map(|p| p.as_vec3()), color);
    }
}
