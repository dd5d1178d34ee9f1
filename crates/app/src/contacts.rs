//! Contact points as small yellow spheres with their normals (seed 001 Figure 4); C toggles
//! them.

use crate::scene::Assembly;
use crate::simulation::Simulation;
use bevy::prelude::*;

pub struct ContactsPlugin;

#[derive(Resource)]
pub struct ShowContacts(pub bool);

impl Plugin for ContactsPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ShowContacts(true)).add_systems(Update, (toggle, draw));
    }
}

fn toggle(keys: Res<ButtonInput<KeyCode>>, mut show: ResMut<ShowContacts>) {
    if keys.just_pressed(KeyCode::KeyC) {
        show.0 = !show.0;
    }
}

fn draw(show: Res<ShowContacts>, sim: Res<Simulation>, assembly: Res<Assembly>, mut gizmos: Gizmos) {
    if !show.0 {
        return;
    }
    let size = assembly.loaded.size as f32;
    let yellow = Color::srgb(1.0, 0.85, 0.1);
    for c in sim.world.contacts() {
        let p = c.point_j.as_vec3();
        gizmos.sphere(Isometry3d::from_translation(p), 0.002 * size, yellow).resolution(8);
        gizmos.line(p, p + c.normal.as_vec3() * 0.015 * size, Color::srgb(1.0, 0.5, 0.1));
    }
}
