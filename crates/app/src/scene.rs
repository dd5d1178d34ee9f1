//! The parts on screen: one entity per part, its mesh flat-shaded in f32 (geometry stays
//! f64 in the solver; f32 only at the Bevy boundary).

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use mockup_ccd::{Mesh as CcdMesh, Pose};
use mockup_scene::LoadedScene;

pub struct ScenePlugin {
    pub loaded: LoadedScene,
    pub title: String,
}

/// The open scene.
#[derive(Resource)]
pub struct Assembly {
    pub loaded: LoadedScene,
    pub title: String,
    /// One entity per part, in the document's order.
    pub entities: Vec<Entity>,
    pub materials: Vec<Handle<StandardMaterial>>,
}

/// A part's index in the document.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part(pub usize);

impl Plugin for ScenePlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Assembly {
            loaded: self.loaded.clone(),
            title: self.title.clone(),
            entities: Vec::new(),
            materials: Vec::new(),
        })
        .insert_resource(GlobalAmbientLight { brightness: 400.0, ..default() })
        .add_systems(Startup, spawn_parts);
    }
}

pub fn transform(p: &Pose) -> Transform {
    Transform { translation: p.translation.as_vec3(), rotation: p.rotation.as_quat(), scale: Vec3::ONE }
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

fn spawn_parts(
    mut commands: Commands,
    mut assembly: ResMut<Assembly>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let a = &mut *assembly;
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
        let entity = commands
            .spawn((
                Mesh3d(meshes.add(render_mesh(collider.mesh()))),
                MeshMaterial3d(material.clone()),
                transform(&part.pose.to_pose()),
                if part.visible { Visibility::Inherited } else { Visibility::Hidden },
                Part(i),
                Name::new(part.name.clone()),
            ))
            .id();
        a.entities.push(entity);
        a.materials.push(material);
    }
    commands.spawn((
        DirectionalLight { illuminance: 9000.0, shadow_maps_enabled: false, ..default() },
        Transform::default().looking_to(Vec3::new(-0.4, -0.6, -1.0), Vec3::Z),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 2500.0, shadow_maps_enabled: false, ..default() },
        Transform::default().looking_to(Vec3::new(0.6, 0.5, 0.3), Vec3::Z),
    ));
}
