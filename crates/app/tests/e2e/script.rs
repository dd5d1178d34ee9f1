//! The script the end-to-end test runs in a real window: it opens the built-in `car_door`,
//! grabs the door and pushes it into the body through the same pointer path a mouse uses,
//! then takes screenshots until the pipelines are ready (the first frames are black, and each
//! pipeline compiles in the background): one with the contact markers shown, once they
//! appear, and one with them hidden. It writes the first to a PPM file, prints what it
//! measured, and exits with success only when the image is not blank and the markers added
//! yellow pixels.

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::window::PrimaryWindow;
use glam::DVec3;
use mockup::MockupSet;
use mockup::camera::Orbit;
use mockup::contacts::ShowContacts;
use mockup::files::Origin;
use mockup::files::job::FileJob;
use mockup::manipulation::{ButtonState, PointerInput, ray_to_part};
use mockup::part::{PartId, Shown};
use mockup::solver::{DragBudget, Solver, StepState};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Runs the windowed app with the script instead of the mouse.
pub fn run(out: PathBuf) -> ExitCode {
    let mut app = mockup::desktop();
    app.add_plugins(ScriptPlugin { out });
    // A work budget, not the app's 12 ms: where the door ends must not depend on how fast
    // this machine renders (software rendering, a debug build, CI); under the time budget it
    // ended with 0 to 97 contacts in runs of one build. The same budget as the headless
    // car_door test (tests/budget.rs).
    app.insert_resource(DragBudget { time: None, work: Some(100_000) });
    // Software rendering takes seconds a frame at 1280 × 720; a smaller window, fewer.
    app.add_systems(Startup, |mut window: Single<&mut Window, With<PrimaryWindow>>| {
        window.resolution.set(800.0, 450.0);
    });
    let budget = *app.world().resource::<DragBudget>();
    app.world_mut().resource_mut::<FileJob>().start_load(Origin::BuiltIn, budget);
    match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(_) => ExitCode::FAILURE,
    }
}

struct ScriptPlugin {
    out: PathBuf,
}

/// What a screenshot showed.
#[derive(Clone, Debug, Default)]
pub struct Shot {
    pub width: u32,
    pub height: u32,
    /// RGB, row by row.
    pub rgb: Vec<u8>,
}

impl Shot {
    /// Pixels close to the contact markers' yellow.
    pub fn yellow_pixels(&self) -> usize {
        self.rgb.chunks_exact(3).filter(|p| is_marker_yellow(p[0], p[1], p[2])).count()
    }

    /// Distinct colours (quantised to 5 bits a channel): 1 for a blank image.
    pub fn distinct_colours(&self) -> usize {
        let mut seen = std::collections::HashSet::new();
        for p in self.rgb.chunks_exact(3) {
            seen.insert((p[0] >> 3, p[1] >> 3, p[2] >> 3));
        }
        seen.len()
    }

    pub fn ppm(&self) -> Vec<u8> {
        let mut out = format!("P6\n{} {}\n255\n", self.width, self.height).into_bytes();
        out.extend_from_slice(&self.rgb);
        out
    }
}

pub fn is_marker_yellow(r: u8, g: u8, b: u8) -> bool {
    r > 200 && g > 150 && b < 110 && r as i32 - b as i32 > 120
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    WaitScene,
    Drag(u32),
    Settle(u32),
    /// Screenshot with markers shown (true: until they appear), then hidden (false).
    Shoot(bool),
    Done,
}

#[derive(Resource)]
struct Script {
    out: PathBuf,
    phase: Phase,
    started: Instant,
    ray: Option<(DVec3, DVec3)>,
    captured: Arc<Mutex<Option<Shot>>>,
    shown: Option<Shot>,
}

/// Gives up after this long (software rendering, debug build).
const TIMEOUT: Duration = Duration::from_secs(420);

impl Plugin for ScriptPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Script {
            out: self.out.clone(),
            phase: Phase::WaitScene,
            started: Instant::now(),
            ray: None,
            captured: default(),
            shown: None,
        })
        .add_systems(Update, drive.in_set(MockupSet::Input));
    }
}

#[allow(clippy::too_many_arguments)]
fn drive(
    mut script: ResMut<Script>,
    mut input: ResMut<PointerInput>,
    mut show: ResMut<ShowContacts>,
    solver: Res<Solver>,
    step: Res<StepState>,
    parts: Query<(&PartId, &Name, &Shown)>,
    orbit: Single<&Orbit>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
) {
    if script.started.elapsed() > TIMEOUT && script.phase != Phase::Done {
        eprintln!("e2e: timed out in phase {:?}", script.phase);
        exit.write(AppExit::error());
        script.phase = Phase::Done;
        return;
    }
    let eye = orbit.eye().as_dvec3();
    let forward = (orbit.target.as_dvec3() - eye).normalize();
    let right = forward.cross(orbit.up.as_dvec3()).normalize();
    let up = right.cross(forward);
    let frame = |ray, left: ButtonState, wheel| PointerInput { ray, forward, right, up, left, wheel, ..default() };
    match script.phase {
        Phase::WaitScene => {
            let Some(door) = parts.iter().find(|p| p.1.as_str() == "door").map(|p| p.0.0) else { return };
            let mut shown = vec![false; solver.bodies().len()];
            for (id, _, s) in &parts {
                shown[id.0] = s.0;
            }
            script.ray = ray_to_part(&solver, &shown, eye, door);
            if script.ray.is_none() {
                eprintln!("e2e: no visible point of the door");
                exit.write(AppExit::error());
                script.phase = Phase::Done;
                return;
            }
            *input = frame(script.ray, ButtonState { pressed: true, just_pressed: true }, 0.0);
            println!("e2e: scene shown after {:.1} s; grabbing the door", script.started.elapsed().as_secs_f64());
            script.phase = Phase::Drag(0);
        }
        Phase::Drag(k) => {
            // Push away from the camera, into the body: 10 frames × 2 lines.
            *input = frame(script.ray, ButtonState { pressed: true, just_pressed: false }, 2.0);
            script.phase = if k < 10 { Phase::Drag(k + 1) } else { Phase::Settle(0) };
        }
        Phase::Settle(k) => {
            *input = frame(script.ray, ButtonState::default(), 0.0);
            // A step the budget cut short goes on first.
            if step.busy() {
                return;
            }
            if k == 0 {
                let contacts = solver.contacts().len();
                println!(
                    "e2e: door pushed in after {:.1} s; {contacts} contacts",
                    script.started.elapsed().as_secs_f64()
                );
                if contacts == 0 {
                    eprintln!("e2e: the drag made no contact; the last step: {:?}", step.report);
                    exit.write(AppExit::error());
                    script.phase = Phase::Done;
                    return;
                }
            }
            // A few frames for the pipelines before the first screenshot (`Shoot` waits for
            // the rest: it asks again until the image is drawn and has the markers).
            if k >= 5 {
                request(&mut commands, &script.captured);
                script.phase = Phase::Shoot(true);
            } else {
                script.phase = Phase::Settle(k + 1);
            }
        }
        Phase::Shoot(shown) => {
            *input = frame(script.ray, ButtonState::default(), 0.0);
            let Some(shot) = script.captured.lock().ok().and_then(|mut c| c.take()) else { return };
            if shown {
                // Not blank, and the markers drawn: every pipeline they need is ready (they
                // compile one by one, in the background).
                if shot.distinct_colours() < 8 || shot.yellow_pixels() == 0 {
                    request(&mut commands, &script.captured);
                    return;
                }
                script.shown = Some(shot);
                show.0 = false;
                request(&mut commands, &script.captured);
                script.phase = Phase::Shoot(false);
                return;
            }
            let shown = script.shown.take().unwrap_or_default();
            let (before, after) = (shot.yellow_pixels(), shown.yellow_pixels());
            println!(
                "e2e: after {:.1} s, {}x{}, {} distinct colours; yellow pixels {after} with the markers shown, {before} hidden",
                script.started.elapsed().as_secs_f64(),
                shown.width,
                shown.height,
                shown.distinct_colours()
            );
            if let Err(e) = std::fs::write(&script.out, shown.ppm()) {
                eprintln!("e2e: {}: {e}", script.out.display());
                exit.write(AppExit::error());
            } else if after > before + 20 {
                exit.write(AppExit::Success);
            } else {
                eprintln!("e2e: the contact markers are not visible");
                exit.write(AppExit::error());
            }
            script.phase = Phase::Done;
        }
        Phase::Done => {}
    }
}

fn request(commands: &mut Commands, slot: &Arc<Mutex<Option<Shot>>>) {
    let slot = slot.clone();
    commands.spawn(Screenshot::primary_window()).observe(move |captured: On<ScreenshotCaptured>| {
        if let Some(shot) = to_rgb(&captured.image)
            && let Ok(mut s) = slot.lock()
        {
            *s = Some(shot);
        }
    });
}

/// RGBA or BGRA, 8 bits a channel, to RGB.
fn to_rgb(image: &Image) -> Option<Shot> {
    use bevy::render::render_resource::TextureFormat as F;
    let data = image.data.as_ref()?;
    let bgra = match image.texture_descriptor.format {
        F::Bgra8Unorm | F::Bgra8UnormSrgb => true,
        F::Rgba8Unorm | F::Rgba8UnormSrgb => false,
        other => {
            eprintln!("e2e: screenshot format {other:?} not handled");
            return None;
        }
    };
    let rgb = data.chunks_exact(4).flat_map(|p| if bgra { [p[2], p[1], p[0]] } else { [p[0], p[1], p[2]] }).collect();
    Some(Shot { width: image.width(), height: image.height(), rgb })
}
