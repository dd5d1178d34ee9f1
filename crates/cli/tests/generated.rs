//! Parts of the generated CAD-like assembly (`mockup_scene::cad`) pulled straight out in the
//! solver, as the pull-out benchmark does, where a rule must hold on its real tessellation.

use glam::DVec3;
use mockup_ccd::{Collider, Pose};
use mockup_scene::cad;
use mockup_solver::{SolverSettings, World};
use std::sync::Arc;

/// The bearing pressed into its housing, its top flush with the housing's (their rims cross
/// in one plane, the facets half a facet off), the shaft left out: pulled up 2 mm a frame, it
/// follows every frame, in a module alone and at the scale of a 1,000-part assembly (its
/// distances εr, εs, εb about eight times larger). Two rims in one plane are no crossing of
/// two wedges (docs/contact-from-start.md §3), and nothing holds the bearing.
#[test]
fn a_bearing_flush_in_its_housing_lifts_out_every_frame() {
    let module = cad::assembly(cad::MODULE_PARTS, 4);
    let part = |name: &str| {
        let p = module.parts.iter().find(|p| p.name == format!("m0_{name}")).unwrap();
        Arc::new(Collider::new(p.mesh.clone()))
    };
    for size in [cad::MODULE_SIZE, 1700.0] {
        let mut world = World::new(SolverSettings::for_scene_size(size)).unwrap();
        world.add_body(part("housing"), Pose::IDENTITY, true);
        let bearing = world.add_body(part("bearing"), Pose::IDENTITY, false);
        assert_eq!(world.intersecting_pairs(), vec![(0, 1)], "pressed in");
        for k in 1..=12 {
            let r = world.drag(bearing, Pose::from_translation(DVec3::Z * 2.0 * k as f64)).unwrap();
            assert!(r.reached, "scene size {size}, frame {k}: the bearing stays at {:?}", r.pose.translation);
        }
        assert!(world.intersecting_pairs().is_empty());
    }
}
