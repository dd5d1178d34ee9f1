//! The open scene: its scene-level document ([`SceneInfo`]), one entity per part
//! (`part.rs`) and one body per part in the solver's world (`solver.rs`), all replaced at once
//! when another scene is installed. A scene is prepared (world built, interference checked)
//! on the load task, so installing it costs a frame little.

use crate::MockupSet;
use crate::files::Origin;
use crate::part::{self, PartId};
use crate::solver::{DragBudget, Solver};
use bevy::prelude::*;
use mockup_scene::{LoadedScene, SCENE_VERSION, SceneDocument};
use mockup_solver::{SolverSettings, World};

pub struct ScenePlugin;

/// The open scene's own document: version, size, solver settings, camera (as opened or last
/// saved; the solver settings as edited). Its `parts` is empty: each part is an entity and a
/// body.
#[derive(Resource)]
pub struct SceneInfo {
    pub document: SceneDocument,
    /// The width the solver's distances scale with (the document's, or the parts' bounds).
    pub size: f64,
    /// Counts the scenes installed, so caches can tell a new scene from an edit.
    pub generation: u64,
}

impl Default for SceneInfo {
    fn default() -> Self {
        let document =
            SceneDocument { version: SCENE_VERSION, size: None, parts: Vec::new(), solver: default(), camera: None };
        SceneInfo { document, size: 1.0, generation: 0 }
    }
}

/// A loaded scene with its solver world built, ready to install (made on the load task).
pub struct ReadyScene {
    /// The document as loaded (its parts become entities and bodies).
    pub document: SceneDocument,
    pub size: f64,
    pub world: World,
    /// Pairs of parts that interfere at the poses loaded (logged when installed).
    pub interfering: Vec<(usize, usize)>,
}

impl ReadyScene {
    /// Builds the solver's world for a loaded scene: its document's settings with the app's
    /// drag budget (the scaled defaults if the document's are invalid), a body per part.
    pub fn prepare(loaded: LoadedScene, budget: DragBudget) -> ReadyScene {
        let LoadedScene { document, colliders, size, .. } = loaded;
        let settings = crate::solver::settings(&document.solver, size, budget);
        let mut world = World::new(settings).unwrap_or_else(|e| {
            warn!("{e}; using the default distances");
            let mut s = SolverSettings::for_scene_size(size);
            (s.time_budget, s.work_budget) = (budget.time, budget.work);
            World::new(s).expect("the defaults are valid")
        });
        for (p, c) in document.parts.iter().zip(colliders) {
            world.add_body(c, p.pose.to_pose(), p.fixed);
        }
        let interfering = world.intersecting_pairs();
        ReadyScene { document, size, world, interfering }
    }
}

/// A scene waiting to replace the open one at the start of the next frame, and where it
/// came from.
#[derive(Resource, Default)]
pub struct PendingScene(pub Option<(ReadyScene, Origin)>);

/// A new scene has replaced the old one (this frame), from here.
#[derive(Message, Clone, Debug)]
pub struct SceneOpened(pub Origin);

impl Plugin for ScenePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SceneInfo>()
            .init_resource::<PendingScene>()
            .add_message::<SceneOpened>()
            .add_systems(Update, install.in_set(MockupSet::Install));
    }
}

/// The installing system: resets that follow a new scene run after it.
pub fn install(
    mut pending: ResMut<PendingScene>,
    mut solver: ResMut<Solver>,
    mut info: ResMut<SceneInfo>,
    parts: Query<Entity, With<PartId>>,
    mut opened: MessageWriter<SceneOpened>,
    mut commands: Commands,
) {
    let Some((ready, origin)) = pending.0.take() else { return };
    for e in &parts {
        commands.entity(e).despawn();
    }
    let ReadyScene { mut document, size, world, interfering } = ready;
    for (i, p) in document.parts.iter().enumerate() {
        commands.spawn(part::bundle(i, p));
    }
    // The solver keeps parts from entering one another, not from being saved inside one
    // another: worth a word.
    let name = |k: usize| document.parts.get(k).map(|p| p.name.as_str()).unwrap_or("?");
    for &(i, j) in &interfering {
        warn!("parts {:?} and {:?} interfere at their saved poses", name(i), name(j));
    }
    document.parts.clear();
    solver.0 = world;
    *info = SceneInfo { document, size, generation: info.generation + 1 };
    opened.write(SceneOpened(origin));
}

/// Resets a resource when another scene is installed (the selection, undo, the drag path).
pub fn reset_on_open<T: Resource<Mutability = bevy::ecs::component::Mutable> + Default>(
    mut opened: MessageReader<SceneOpened>,
    mut resource: ResMut<T>,
) {
    if opened.read().count() > 0 {
        *resource = T::default();
    }
}
