//! The parts on screen. Each part entity gets a material, a transform and, built a few per
//! frame (at most about [`MESH_TIME_PER_FRAME`] of mesh building a frame, at least one part),
//! its mesh: flat-shaded in f32 with Bevy's `Mesh` helpers (geometry stays f64 in the
//! solver). Transforms follow the solver's poses; colour, visibility and the selection's glow
//! follow the part's components; a translucent ghost shows where the mouse asks a held-back
//! part to be.

use crate::MockupSet;
use crate::manipulation::{ActiveDrag, Selection};
use crate::part::{PartColor, PartId, Shown};
use crate::solver::{Solver, StepState};
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use mockup_ccd::{Mesh as CcdMesh, Pose};
use std::time::{Duration, Instant};

pub struct VisualsPlugin;

/// The translucent copy of the dragged part at the pose the mouse asks for, shown while the
/// solver holds the part back.
#[derive(Component)]
pub struct Ghost;

/// A part entity's material (its colour and glow are set on it).
#[derive(Component)]
pub struct PartMaterial(pub Handle<StandardMaterial>);

#[derive(Resource, Default)]
struct GhostMaterial(Handle<StandardMaterial>);

/// How long building render meshes may take in one frame (a large scene's meshes appear over
/// several frames rather than stopping one).
pub const MESH_TIME_PER_FRAME: Duration = Duration::from_millis(4);

impl Plugin for VisualsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<GhostMaterial>()
            .insert_resource(GlobalAmbientLight { brightness: 400.0, ..default() })
            .add_systems(Startup, (spawn_lights, ghost_material))
            .add_systems(
                Update,
                (dress_parts, build_meshes, follow_poses, show_properties, ghost).chain().in_set(MockupSet::Present),
            );
    }
}

pub fn transform(p: &Pose) -> Transform {
    Transform { translation: p.translation.as_vec3(), rotation: p.rotation.as_quat(), scale: Vec3::ONE }
}

/// A part's colour as the renderer takes it: the document's linear RGB.
pub fn render_color(c: [f32; 3]) -> Color {
    Color::linear_rgb(c[0], c[1], c[2])
}

/// Flat shading: the mesh's triangles (without those degenerate in f64 or in f32), each with
/// its own vertices and normal (`Mesh::with_duplicated_vertices`,
/// `Mesh::with_computed_flat_normals`).
pub fn render_mesh(m: &CcdMesh) -> Mesh {
    let positions: Vec<[f32; 3]> = m.vertices().iter().map(|v| v.as_vec3().to_array()).collect();
    let mut indices = Vec::with_capacity(m.triangles().len() * 3);
    for (t, tri) in m.triangles().iter().enumerate() {
        let [a, b, c] = tri.map(|i| Vec3::from(positions[i as usize]));
        // A triangle whose f32 corners span no area would get a NaN normal.
        if m.is_degenerate(t as u32) || (b - a).cross(c - a).length_squared() == 0.0 {
            continue;
        }
        indices.extend_from_slice(tri);
    }
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_indices(Indices::U32(indices))
        .with_duplicated_vertices()
        .with_computed_flat_normals()
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

fn ghost_material(mut materials: ResMut<Assets<StandardMaterial>>, mut ghost: ResMut<GhostMaterial>) {
    ghost.0 = materials.add(StandardMaterial {
        base_color: Color::srgba(0.35, 0.7, 1.0, 0.3),
        alpha_mode: AlphaMode::Blend,
        double_sided: true,
        cull_mode: None,
        unlit: true,
        ..default()
    });
}

/// A new part entity gets its material, transform and visibility (its mesh comes later).
fn dress_parts(
    new: Query<(Entity, &PartId, &PartColor, &Shown), Added<PartId>>,
    solver: Res<Solver>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut commands: Commands,
) {
    for (e, id, color, shown) in &new {
        let material = materials.add(StandardMaterial {
            base_color: render_color(color.0),
            perceptual_roughness: 0.55,
            metallic: 0.1,
            // CAD meshes are often open: show both sides.
            double_sided: true,
            cull_mode: None,
            ..default()
        });
        let pose = solver.body(id.0).map_or(Pose::IDENTITY, |b| b.pose);
        commands.entity(e).insert((
            MeshMaterial3d(material.clone()),
            PartMaterial(material),
            transform(&pose),
            if shown.0 { Visibility::Inherited } else { Visibility::Hidden },
        ));
    }
}

/// Render meshes for parts that have none yet, smallest ids first, within the frame's share.
fn build_meshes(
    pending: Query<(Entity, &PartId), Without<Mesh3d>>,
    solver: Res<Solver>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut commands: Commands,
) {
    let mut todo: Vec<(Entity, usize)> = pending.iter().map(|(e, id)| (e, id.0)).collect();
    if todo.is_empty() {
        return;
    }
    todo.sort_by_key(|t| t.1);
    let clock = Instant::now();
    for (e, id) in todo {
        let Some(body) = solver.body(id) else { continue };
        commands.entity(e).insert(Mesh3d(meshes.add(render_mesh(body.collider.mesh()))));
        if clock.elapsed() >= MESH_TIME_PER_FRAME {
            break;
        }
    }
}

/// Every part's transform follows its body (dragged, pushed, undone, replayed).
fn follow_poses(solver: Res<Solver>, mut parts: Query<(&PartId, &mut Transform)>) {
    if !solver.is_changed() {
        return;
    }
    for (id, mut t) in &mut parts {
        if let Some(b) = solver.body(id.0) {
            let want = transform(&b.pose);
            if *t != want {
                *t = want;
            }
        }
    }
}

/// Colour, visibility and the selection's glow follow the components and the selection.
#[allow(clippy::type_complexity)]
fn show_properties(
    selection: Res<Selection>,
    mut parts: Query<(Ref<PartId>, Ref<PartColor>, Ref<Shown>, &PartMaterial, &mut Visibility)>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let all = selection.is_changed();
    for (id, color, shown, material, mut visibility) in &mut parts {
        if !(all || id.is_added() || color.is_changed() || shown.is_changed()) {
            continue;
        }
        let base = render_color(color.0);
        let glow = if Some(id.0) == selection.0 { LinearRgba::rgb(0.12, 0.1, 0.02) } else { LinearRgba::BLACK };
        // Only a real change touches the asset (each change is uploaded again).
        let stale = materials.get(&material.0).is_some_and(|m| m.base_color != base || m.emissive != glow);
        if stale && let Some(mut m) = materials.get_mut(&material.0) {
            m.base_color = base;
            m.emissive = glow;
        }
        let want = if shown.0 { Visibility::Inherited } else { Visibility::Hidden };
        if *visibility != want {
            *visibility = want;
        }
    }
}

/// While a drag is held back, a ghost shows where the mouse asks the part to be.
fn ghost(
    mut commands: Commands,
    step: Res<StepState>,
    active: Res<ActiveDrag>,
    material: Res<GhostMaterial>,
    part_meshes: Query<(&PartId, &Mesh3d), Without<Ghost>>,
    mut ghosts: Query<(&mut Transform, &mut Mesh3d, &mut Visibility), With<Ghost>>,
) {
    let want = match (active.part(), step.target) {
        (Some(p), Some((t, reached))) if t.part == p && !reached => Some(t),
        _ => None,
    };
    let mesh = want.and_then(|t| part_meshes.iter().find(|(id, _)| id.0 == t.part).map(|(_, m)| m.0.clone()));
    let existing = ghosts.iter_mut().next();
    match (want.zip(mesh), existing) {
        (Some((t, h)), Some((mut tf, mut m, mut v))) => {
            *tf = transform(&t.pose);
            if m.0 != h {
                m.0 = h;
            }
            *v = Visibility::Inherited;
        }
        (Some((t, h)), None) => {
            commands.spawn((
                Mesh3d(h),
                MeshMaterial3d(material.0.clone()),
                transform(&t.pose),
                Visibility::Inherited,
                Ghost,
            ));
        }
        (None, Some((_, _, mut v))) => {
            if *v != Visibility::Hidden {
                *v = Visibility::Hidden;
            }
        }
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_egui::egui;

    /// The colour picker (egui's `color_edit_button_rgb`, which edits linear RGB) shows a
    /// swatch of the colour the renderer is given: the same 8-bit sRGB, to one step.
    #[test]
    fn the_renderer_and_the_picker_swatch_agree() {
        for c in [[0.62, 0.64, 0.68], [0.85, 0.45, 0.25], [0.05, 0.5, 0.95], [0.0, 1.0, 0.002], [0.2, 0.22, 0.25]] {
            let swatch = egui::Color32::from(egui::Rgba::from_rgb(c[0], c[1], c[2]));
            let drawn = render_color(c).to_srgba().to_u8_array();
            for (k, (a, b)) in [swatch.r(), swatch.g(), swatch.b()].into_iter().zip(drawn).enumerate() {
                assert!((a as i32 - b as i32).abs() <= 1, "{c:?} channel {k}: swatch {a}, drawn {b}");
            }
        }
    }

    /// Flat shading: three vertices per kept triangle, each with the triangle's unit normal.
    #[test]
    fn render_meshes_are_flat_shaded() {
        use glam::DVec3;
        let m = mockup_ccd::MeshBuilder::new().cuboid(Pose::IDENTITY, DVec3::new(1.0, 2.0, 3.0)).build().unwrap();
        let r = render_mesh(&m);
        let positions = r.attribute(Mesh::ATTRIBUTE_POSITION).unwrap().as_float3().unwrap();
        let normals = match r.attribute(Mesh::ATTRIBUTE_NORMAL).unwrap() {
            bevy::mesh::VertexAttributeValues::Float32x3(n) => n,
            other => panic!("{other:?}"),
        };
        assert_eq!(positions.len(), 3 * m.triangles().len());
        for t in 0..m.triangles().len() {
            let want = m.normal(t as u32).as_vec3();
            for k in 0..3 {
                let n = Vec3::from(normals[3 * t + k]);
                assert!((n - want).length() < 1e-5, "triangle {t}: {n} vs {want}");
            }
        }
    }
}
