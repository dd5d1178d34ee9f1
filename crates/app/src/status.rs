//! The status line (in the window title until the egui panels exist): frame time, CCD and
//! solver time, contacts, BV tests, the dragged part's minimum distance.

use crate::scene::Assembly;
use crate::simulation::Simulation;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

pub struct StatusPlugin;

/// True while the pointer is over a UI panel: picking and the camera then ignore it.
#[derive(Resource, Default)]
pub struct PointerOverUi(pub bool);

#[derive(Resource, Default)]
struct Smoothed {
    frame: f32,
    since_update: f32,
}

impl Plugin for StatusPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PointerOverUi>().init_resource::<Smoothed>().add_systems(Update, update_title);
    }
}

fn update_title(
    time: Res<Time>,
    mut smoothed: ResMut<Smoothed>,
    sim: Res<Simulation>,
    assembly: Res<Assembly>,
    mut window: Single<&mut Window, With<PrimaryWindow>>,
) {
    let dt = time.delta_secs();
    smoothed.frame = if smoothed.frame == 0.0 { dt } else { 0.9 * smoothed.frame + 0.1 * dt };
    smoothed.since_update += dt;
    if smoothed.since_update < 0.25 {
        return;
    }
    smoothed.since_update = 0.0;
    let mut text = format!("{} — frame {:.1} ms", assembly.title, smoothed.frame * 1e3);
    if let Some(r) = &sim.last {
        text += &format!(
            " · CCD {:.2} ms · solver {:.3} ms · {} contacts · {} BV tests",
            r.ccd_time.as_secs_f64() * 1e3,
            r.solver_time.as_secs_f64() * 1e3,
            r.contacts,
            r.counters.bv_tests
        );
        if let Some(d) = r.min_distance {
            text += &format!(" · min distance {d:.5}");
        }
    }
    if window.title != text {
        window.title = text;
    }
}
