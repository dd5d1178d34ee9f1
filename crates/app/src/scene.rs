//! The open scene: its document and colliders ([`Assembly`]), replaced whole when another
//! scene is opened; and (windowed) one entity per part, its mesh flat-shaded in f32 —
//! geometry stays f64 in the solver, f32 only at the Bevy boundary.

use crate::manipulation::Grab;
use crate::simulation::Simulation;
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use mockup_ccd::{Mesh as CcdMesh, Pose};
use mockup_scene::{LoadedScene, PartDocument, SCENE_VERSION, SceneDocument};

/// The scene state every plugin reads; no rendering.
pub struct ScenePlugin;

/// The open scene.
#[derive(Resource)]
pub struct Assembly {
    pub loaded: LoadedScene,
    /// One entity per part, in the document's order (windowed only; empty headless).
    pub entities: Vec<Entity>,
    /// Counts the scenes opened, so caches can tell a new scene from an edit.
    pub generation: u64,
}

impl Assembly {
    pub fn empty() -> Assembly {
        let document =
            SceneDocument { version: SCENE_VERSION, size: None, parts: Vec::new(), solver: default(), camera: None };
        let loaded = LoadedScene {
            document,
            colliders: Vec::new(),
            size: 1.0,
            warnings: Vec::new(),
            parse_time: default(),
            build_time: default(),
        };
        Assembly { loaded, entities: Vec::new(), generation: 0 }
    }

    pub fn parts(&self) -> &[PartDocument] {
        &self.loaded.document.parts
    }

    pub fn size(&self) -> f64 {
        self.loaded.size
    }
}

/// A loaded scene waiting to replace the open one at the start of the next frame.
#[derive(Resource, Default)]
pub struct PendingScene(pub Option<LoadedScene>);

/// A new scene has replaced the old one (this frame).
#[derive(Message, Clone, Copy, Debug)]
pub struct SceneOpened;

/// Systems that install a new scene; the solver's world is rebuilt right after.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Install;

impl Plugin for ScenePlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Assembly::empty())
            .init_resource::<PendingScene>()
            .add_message::<SceneOpened>()
            .add_systems(PreUpdate, install.in_set(Install));
    }
}

fn install(
    mut pending: ResMut<PendingScene>,
    mut assembly: ResMut<Assembly>,
    mut opened: MessageWriter<SceneOpened>,
    mut commands: Commands,
) {
    let Some(loaded) = pending.0.take() else { return };
    for e in assembly.entities.drain(..) {
        commands.entity(e).despawn();
    }
    let generation = assembly.generation + 1;
    *assembly = Assembly { loaded, entities: Vec::new(), generation };
    opened.write(SceneOpened);
}

/// Resets a resource when another scene opens (the selection, undo, the drag path).
pub fn reset_on_open<T: Resource<Mutability = bevy::ecs::component::Mutable> + Default>(
    mut opened: MessageReader<SceneOpened>,
    mut resource: ResMut<T>,
) {
    if opened.read().count() > 0 {
        *resource = T::default();
    }
}

pub fn transform(p: &Pose) -> Transform {
    Transform { translation: p.translation.as_vec3(), rotation: p.rotation.as_quat(), scale: Vec3::ONE }
}

/// The parts on screen (needs a renderer).
pub struct SceneVisualsPlugin;

/// A part's index in the document.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part(pub usize);

/// The translucent copy of the dragged part at the pose the mouse asks for, shown while the
/// solver holds the part back.
#[derive(Component)]
pub struct Ghost;

#[derive(Resource, Default)]
pub struct PartVisuals {
    pub meshes: Vec<Handle<Mesh>>,
    pub materials: Vec<Handle<StandardMaterial>>,
    ghost_material: Handle<StandardMaterial>,
}

impl Plugin for SceneVisualsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PartVisuals>()
            .insert_resource(GlobalAmbientLight { brightness: 400.0, ..default() })
            .add_systems(Startup, spawn_lights)
            .add_systems(
                Update,
                (spawn_parts, follow_bodies, show_properties, ghost).chain().after(crate::simulation::Step),
            );
    }
}

/// Flat shading: three vertices per triangle with its normal.
fn render_mesh(m: &CcdMesh) -> Mesh {
    let mut positions = Vec::with_capacity(m.triangles().len() * 3);
    let mut normals = Vec::with_capacity(m.triangles().len() * 3);
    for t in 0..m.triangles().len() as u32 {
        if m.is_degenerate(t) {
            continue;
        }
        let n = m.normal(t).as_vec3().to_array();
        for p in m.triangle_points(t) {
            positions.push(p.as_vec3().to_array());
            normals.push(n);
        }
    }
    let count = positions.len() as u32;
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
        .with_inserted_indices(Indices::U32((0..count).collect()))
}

fn spawn_lights(mut commands: Commands) {
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: false, ..default() },
        Transform::default().looking_to(Vec3::new(-0.4, -0.6, -1.0), Vec3::Z),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 2500.0, shadow_maps_enabled: false, ..default() },
        Transform::default().looking_to(Vec3::new(0.6, 0.5, 0.3), Vec3::Z),
    ));
}

fn spawn_parts(
    mut opened: MessageReader<SceneOpened>,
    mut commands: Commands,
    mut assembly: ResMut<Assembly>,
    mut visuals: ResMut<PartVisuals>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    ghosts: Query<Entity, With<Ghost>>,
) {
    if opened.read().count() == 0 {
        return;
    }
    for g in &ghosts {
        commands.entity(g).despawn();
    }
    let a = &mut *assembly;
    *visuals = PartVisuals {
        ghost_material: materials.add(StandardMaterial {
            base_color: Color::srgba(0.35, 0.7, 1.0, 0.3),
            alpha_mode: AlphaMode::Blend,
            double_sided: true,
            cull_mode: None,
            unlit: true,
            ..default()
        }),
        ..default()
    };
    for (i, (part, collider)) in a.loaded.document.parts.iter().zip(&a.loaded.colliders).enumerate() {
        let [r, g, b] = part.color;
        let material = materials.add(StandardMaterial {
            base_color: Color::srgb(r, g, b),
            perceptual_roughness: 0.55,
            metallic: 0.1,
            // CAD meshes are often open: show both sides.
            double_sided: true,
            cull_mode: None,
            ..default()
        });
        let mesh = meshes.add(render_mesh(collider.mesh()));
        let entity = commands
            .spawn((
                Mesh3d(mesh.clone()),
                MeshMaterial3d(material.clone()),
                transform(&part.pose.to_pose()),
                if part.visible { Visibility::Inherited } else { Visibility::Hidden },
                Part(i),
                Name::new(part.name.clone()),
            ))
            .id();
        a.entities.push(entity);
        visuals.materials.push(material);
        visuals.meshes.push(mesh);
    }
}

/// Every part's transform follows its body (dragged, pushed, undone, replayed).
fn follow_bodies(sim: Res<Simulation>, assembly: Res<Assembly>, mut transforms: Query<&mut Transform, With<Part>>) {
    for (body, &e) in sim.world.bodies().iter().zip(&assembly.entities) {
        if let Ok(mut t) = transforms.get_mut(e) {
            let want = transform(&body.pose);
            if *t != want {
                *t = want;
            }
        }
    }
}

/// Colour, visibility and the selection's glow follow the document and the selection.
fn show_properties(
    assembly: Res<Assembly>,
    grab: Res<Grab>,
    visuals: Res<PartVisuals>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut visibility: Query<&mut Visibility, With<Part>>,
) {
    if !assembly.is_changed() && !grab.is_changed() {
        return;
    }
    for (i, part) in assembly.parts().iter().enumerate() {
        if let Some(h) = visuals.materials.get(i)
            && let Some(mut m) = materials.get_mut(h)
        {
            let [r, g, b] = part.color;
            let color = Color::srgb(r, g, b);
            let glow = if Some(i) == grab.selected { LinearRgba::rgb(0.12, 0.1, 0.02) } else { LinearRgba::BLACK };
            if m.base_color != color || m.emissive != glow {
                m.base_color = color;
                m.emissive = glow;
            }
        }
        if let Some(&e) = assembly.entities.get(i)
            && let Ok(mut v) = visibility.get_mut(e)
        {
            let want = if part.visible { Visibility::Inherited } else { Visibility::Hidden };
            if *v != want {
                *v = want;
            }
        }
    }
}

/// While a drag is held back, a ghost shows where the mouse asks the part to be.
fn ghost(
    mut commands: Commands,
    sim: Res<Simulation>,
    grab: Res<Grab>,
    visuals: Res<PartVisuals>,
    mut ghosts: Query<(Entity, &mut Transform, &mut Mesh3d, &mut Visibility), With<Ghost>>,
) {
    let want = match (&grab.drag, &sim.last_target) {
        (Some(d), Some(t)) if t.part == d.part && !t.reached => Some((t.part, t.target)),
        _ => None,
    };
    let existing = ghosts.iter_mut().next();
    match (want, existing) {
        (Some((part, pose)), Some((_, mut t, mut mesh, mut v))) => {
            *t = transform(&pose);
            if let Some(h) = visuals.meshes.get(part)
                && mesh.0 != *h
            {
                mesh.0 = h.clone();
            }
            *v = Visibility::Inherited;
        }
        (Some((part, pose)), None) => {
            if let Some(h) = visuals.meshes.get(part) {
                commands.spawn((
                    Mesh3d(h.clone()),
                    MeshMaterial3d(visuals.ghost_material.clone()),
                    transform(&pose),
                    Visibility::Inherited,
                    Ghost,
                ));
            }
        }
        (None, Some((_, _, _, mut v))) => {
            if *v != Visibility::Hidden {
                *v = Visibility::Hidden;
            }
        }
        (None, None) => {}
    }
}
