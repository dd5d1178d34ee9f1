//! One drag frame of the app, headless (`CorePlugin` under MinimalPlugins: the pointer →
//! solver bridge, the solver and CCD; no rendering): the built-in car_door, the door grabbed
//! from the scene's camera, pushed into the body until it presses on the opening's flange,
//! then dragged sideways along the body side, back and forth, for 400 frames.
//!
//! `cargo bench -p mockup --bench drag_frame` (`DRAG_FRAME_NARROW=glide`: with the glide
//! screen as the narrow phase).

use bevy::prelude::*;
use glam::DVec3;
use mockup::files::Origin;
use mockup::manipulation::{ButtonState, PointerInput, ray_to_part};
use mockup::scene::Assembly;
use mockup::simulation::Simulation;
use std::time::Instant;

fn main() {
    let (files, path) = mockup_scene::embedded::default_scene();
    let mut scene = mockup_scene::load(&path, &files, &mut |_| {}).expect("the built-in scene loads");
    if std::env::var("DRAG_FRAME_NARROW").is_ok_and(|v| v == "glide") {
        scene.document.solver.narrow_phase = mockup_scene::NarrowPhase::Glide;
    }
    let camera = scene.document.camera.clone().expect("car_door has a camera");
    let mut app = mockup::headless();
    mockup::install_now(&mut app, scene, Origin::BuiltIn);

    let (eye, target) = (DVec3::from_array(camera.eye), DVec3::from_array(camera.target));
    let forward = (target - eye).normalize();
    let right = forward.cross(DVec3::from_array(camera.up)).normalize();
    let up = right.cross(forward);
    let (ray, size) = {
        let a = app.world().resource::<Assembly>();
        let door = a.parts().iter().position(|p| p.name == "door").unwrap();
        let poses = app.world().resource::<Simulation>().poses();
        (ray_to_part(a, &poses, eye, door).expect("the door is visible"), a.size())
    };
    let mut frame = |origin: DVec3, left: ButtonState, wheel: f64| {
        *app.world_mut().resource_mut::<PointerInput>() =
            PointerInput { ray: Some((origin, ray.1)), forward, right, up, left, wheel, ..default() };
        let clock = Instant::now();
        app.update();
        let sim = app.world().resource::<Simulation>();
        let ms = clock.elapsed().as_secs_f64() * 1e3;
        if ms > 50.0 && std::env::var_os("DRAG_FRAME_SLOW").is_some() {
            eprintln!("slow frame {ms:.1} ms: {:?}", sim.last);
        }
        (ms, sim.world.contacts().len(), sim.last.as_ref().map(|r| r.reached))
    };
    frame(ray.0, ButtonState { pressed: true, just_pressed: true }, 0.0);
    let held = ButtonState { pressed: true, just_pressed: false };
    for _ in 0..40 {
        frame(ray.0, held, 0.5);
    }
    // Sideways along the screen's right, 0.1 % of the scene per frame, out and back.
    let mut times = Vec::new();
    let (mut contacts, mut held_back) = (0, 0);
    for k in 0..400 {
        let s = if k < 200 { k } else { 400 - k } as f64;
        let (ms, c, reached) = frame(ray.0 + right * (s * 1e-3 * size), held, 0.0);
        times.push(ms);
        contacts += c;
        held_back += (reached == Some(false)) as usize;
    }
    let slowest = (0..times.len()).max_by(|&a, &b| times[a].total_cmp(&times[b])).unwrap();
    let end = app.world().resource::<Simulation>();
    assert!(end.world.intersecting_pairs().is_empty(), "interpenetration");
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    println!(
        "drag frame, door pressed on the body and dragged sideways: median {:.2} ms, p90 {:.2} ms, max {:.2} ms (frame {slowest}); {:.0} contacts on average; held back by contacts in {held_back} of {} frames",
        pct(0.5),
        pct(0.9),
        pct(1.0),
        contacts as f64 / times.len() as f64,
        times.len()
    );
}
