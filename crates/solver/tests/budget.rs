//! A drag under a time or work budget (`SolverSettings::time_budget`, `work_budget`): it
//! moves as far as is proven free and asks for more frames; over enough frames it ends where
//! an unbudgeted drag ends, and it never interpenetrates.

mod common;

use common::*;
use glam::DVec3;
use mockup_ccd::{Collider, MeshBuilder, Pose};
use mockup_solver::{NarrowPhase, SolverSettings, StepReport, World};
use std::sync::Arc;

/// Drags until the drag is not out of time (at most `frames` calls); the last report, the
/// number of calls and how many of them ended with a sub-step suspended.
fn drag_until_done(w: &mut World, part: usize, target: Pose, frames: usize) -> (StepReport, usize, usize) {
    let mut suspended = 0;
    for n in 1..=frames {
        let r = w.drag(part, target).unwrap();
        suspended += r.suspended as usize;
        if !r.out_of_time {
            return (r, n, suspended);
        }
    }
    panic!("still out of time after {frames} frames");
}

fn with_work_budget(w: &mut World, box_tests: u64) {
    let s = *w.settings();
    w.set_settings(SolverSettings { work_budget: Some(box_tests), ..s }).unwrap();
}

/// A box pushed into a floor and sideways: with 40 box tests a frame it takes many frames and
/// ends where the unbudgeted drag ends (the target's projection onto the floor).
#[test]
fn a_budgeted_drag_ends_where_an_unbudgeted_one_does() {
    let build = || {
        let mut w = World::new(SolverSettings::for_scene_size(10.0)).unwrap();
        let floor = MeshBuilder::new().tessellated_cuboid(Pose::IDENTITY, DVec3::new(5.0, 5.0, 0.5), [20, 20, 2]);
        w.add_body(
            Arc::new(Collider::new(floor.build().unwrap())),
            Pose::from_translation(DVec3::new(0.0, 0.0, -0.5)),
            true,
        );
        let cube = MeshBuilder::new().tessellated_cuboid(Pose::IDENTITY, DVec3::splat(0.5), [4, 4, 4]);
        let b = w.add_body(
            Arc::new(Collider::new(cube.build().unwrap())),
            Pose::from_translation(DVec3::new(-2.0, 0.0, 1.5)),
            false,
        );
        (w, b)
    };
    let targets = [DVec3::new(1.0, 0.5, -2.0), DVec3::new(2.5, -1.0, 0.0), DVec3::new(-1.0, 1.0, 2.0)];
    let (mut free, b) = build();
    let (mut tight, _) = build();
    with_work_budget(&mut tight, 40);
    let (mut frames_needed, mut suspended) = (0, 0);
    for t in targets {
        let target = Pose::from_translation(t);
        // The unbudgeted drag, repeated until it no longer moves (it slides in sub-steps).
        for _ in 0..5 {
            free.drag(b, target).unwrap();
        }
        for _ in 0..5 {
            let (_, n, s) = drag_until_done(&mut tight, b, target, 2000);
            frames_needed = frames_needed.max(n);
            suspended += s;
        }
        let (p, q) = (free.body(b).unwrap().pose.translation, tight.body(b).unwrap().pose.translation);
        // 1e-6 of the scene's size: resting on the floor, the unbudgeted drag repeated toward
        // the same target still moves by up to 4e-6 (repositioning at rest; measured).
        assert!((p - q).length() < 1e-5, "unbudgeted {p:?}, budgeted {q:?}");
        assert!(tight.intersecting_pairs().is_empty());
    }
    assert!(frames_needed > 1, "the budget must have cut some drags short");
    // The box pressed on the floor: every node pair near the contact may meet at a sub-step's
    // start, so 40 box tests prove nothing; such sub-steps went on in the next frames.
    assert!(suspended > 0, "no sub-step was suspended");
}

/// Random drags with a small work budget never interpenetrate, along the whole path; every drag
/// ends within 400 frames; once a drag is no longer out of time its contacts keep εr (less
/// the tests' tolerance) as always.
#[test]
fn budgeted_random_drags_keep_the_guarantee() {
    for (mut scene, seed, steps) in [(peg_in_hole(), 21, 60), (door_in_frame(), 22, 20)] {
        with_work_budget(&mut scene.world, 1000);
        let tolerance = 0.5 * scene.world.settings().repositioning;
        let mut rng = Rng::new(seed);
        let (mut out_of_time, mut waited) = (0, 0);
        for step in 0..steps {
            let current = scene.world.body(scene.dragged).unwrap().pose;
            let target = random_target(&mut rng, &scene, current);
            // Each drag ends: reached, held, or its chain of sub-steps spent, over frames
            // (docs/solver.md §4); 400 frames are far more than that takes.
            let mut ended = false;
            for frame in 0..400 {
                let before: Vec<Pose> = scene.world.bodies().iter().map(|b| b.pose).collect();
                let r = scene.world.drag(scene.dragged, target).unwrap();
                waited += r.waiting_for_refresh as usize;
                // A move waiting for its refresh is not made: the bodies end where the moves
                // the report records end.
                check_path(&scene.world, before, &r, step);
                assert!(scene.world.intersecting_pairs().is_empty(), "step {step} frame {frame}");
                if !r.out_of_time {
                    check_guarantee(&scene.world, &r, step, tolerance);
                    ended = true;
                    break;
                }
                out_of_time += 1;
            }
            assert!(ended, "step {step}: the drag asks for frames forever");
        }
        assert!(out_of_time > 5, "the budget must bite ({out_of_time} frames out of time)");
        // Moves wait for their refresh here too (docs/solver.md §4).
        assert!(waited > 0, "no move waited for its refresh");
    }
}

/// A plate resting on six blocks, grabbed under a budget of 10 box tests a drag: its contacts
/// are rebuilt over several drags (nothing moves meanwhile) into the same set and the same
/// pairs in contact from the start as one unbudgeted rebuild; lifted, it ends where the
/// unbudgeted drag ends.
#[test]
fn a_contact_rebuild_spreads_over_drags() {
    let build = || plate_on_blocks(false);
    let (mut free, p) = build();
    let (mut tight, _) = build();
    with_work_budget(&mut tight, 10);
    // The rebuild alone: a drag toward where the plate is moves nothing once it is done.
    let here = tight.body(p).unwrap().pose;
    let mut rebuilding = 0;
    loop {
        let r = tight.drag(p, here).unwrap();
        assert_eq!(tight.body(p).unwrap().pose, here, "nothing moves");
        if !r.rebuilding_contacts {
            break;
        }
        rebuilding += 1;
        assert!(r.out_of_time);
        assert!(rebuilding < 2000, "the rebuild does not end");
    }
    assert!(rebuilding > 1, "the rebuild took {rebuilding} drags");
    // The same contacts (resting on six blocks, several pairs in contact from the start) as one
    // unbudgeted rebuild at the same pose.
    let mut whole = build().0;
    whole.set_pose(p, here).unwrap();
    assert!(!whole.contacts().is_empty());
    assert_eq!(tight.contacts(), whole.contacts());
    assert_eq!(tight.seated_pairs(), whole.seated_pairs());
    // Then lifted off: where the unbudgeted drag takes it.
    let target = Pose::from_translation(DVec3::new(0.3, 0.0, 1.5));
    let plain = free.drag(p, target).unwrap();
    assert!(!plain.rebuilding_contacts && plain.reached);
    let touching = tight.intersecting_pairs();
    let done = (0..2000).any(|_| {
        let r = tight.drag(p, target).unwrap();
        assert!(tight.intersecting_pairs().iter().all(|p| touching.contains(p)));
        !r.out_of_time
    });
    assert!(done, "the budgeted drag did not end");
    let (a, b) = (free.body(p).unwrap().pose.translation, tight.body(p).unwrap().pose.translation);
    assert!((a - b).length() < 1e-6, "unbudgeted {a:?}, budgeted {b:?}");
}

/// A cover lying on a base plate, a coincident face between them: one pair whose contacts take
/// thousands of node pairs to find and hundreds of candidates to read. Grabbed under a budget
/// of 10 box tests a drag, that one pair's reading spreads over several drags (nothing moves
/// meanwhile) and ends with the contacts of one unbudgeted rebuild.
#[test]
fn one_pairs_contacts_are_read_over_several_drags() {
    let build = || {
        let mut w = World::new(SolverSettings::for_scene_size(4.0)).unwrap();
        let slab = || {
            let mesh = MeshBuilder::new().tessellated_cuboid(Pose::IDENTITY, DVec3::new(1.0, 1.0, 0.1), [24, 24, 1]);
            Arc::new(Collider::new(mesh.build().unwrap()))
        };
        w.add_body(slab(), Pose::IDENTITY, true);
        let cover = w.add_body(slab(), Pose::from_translation(DVec3::new(0.0, 0.0, 0.2)), false);
        (w, cover)
    };
    let (mut whole, cover) = build();
    let (mut tight, _) = build();
    with_work_budget(&mut tight, 10);
    let here = tight.body(cover).unwrap().pose;
    let plain = whole.drag(cover, here).unwrap();
    assert!(!plain.rebuilding_contacts && !plain.out_of_time);
    assert!(plain.counters.bv_tests > 3 * 4096, "a traversal of {} box tests is no test", plain.counters.bv_tests);
    let mut rebuilding = 0;
    loop {
        let r = tight.drag(cover, here).unwrap();
        assert_eq!(tight.body(cover).unwrap().pose, here, "nothing moves");
        if !r.rebuilding_contacts {
            break;
        }
        rebuilding += 1;
        assert!(r.out_of_time);
        assert!(rebuilding < 2000, "the rebuild does not end");
    }
    assert!(rebuilding >= 3, "one pair's rebuild took {rebuilding} drags");
    assert!(whole.contacts().len() > 100, "{} contacts", whole.contacts().len());
    assert_eq!(tight.contacts(), whole.contacts());
    assert_eq!(tight.seated_pairs(), whole.seated_pairs());
}

/// Wherever one unbudgeted drag reaches its target, the same drag under a small work budget
/// reaches it too, given frames: however many frames the budget cuts it into, the drag does
/// not stop short. Random targets in four scenes, each drag started from the same pose in
/// both worlds. (A chain of sub-steps that counted every frame's partial move ended after
/// `max_substeps` frames, short of targets nothing blocks: the windowed e2e test, a debug
/// build, once stopped the door before it reached the body.)
#[test]
fn a_target_reached_unbudgeted_is_reached_under_a_budget() {
    let mut checked = 0;
    for (make, seed) in [(peg_in_hole as fn() -> TestScene, 31), (plate_in_slot, 32), (tori, 33), (door_in_frame, 34)] {
        let (mut free, mut tight) = (make(), make());
        with_work_budget(&mut tight.world, 30);
        let mut rng = Rng::new(seed);
        for step in 0..40 {
            let current = free.world.body(free.dragged).unwrap().pose;
            tight.world.set_pose(tight.dragged, current).unwrap();
            let target = random_target(&mut rng, &free, current);
            let plain = free.world.drag(free.dragged, target).unwrap();
            if !plain.reached {
                continue;
            }
            checked += 1;
            let (r, frames, _) = drag_until_done(&mut tight.world, tight.dragged, target, 20_000);
            assert!(
                r.reached,
                "step {step}: unbudgeted reached its target, the budgeted drag stopped after {frames} frames at {:?} ({r:?})",
                tight.world.body(tight.dragged).unwrap().pose
            );
            assert!(tight.world.intersecting_pairs().is_empty());
        }
    }
    assert!(checked > 40, "only {checked} targets were reached unbudgeted");
}

/// The windowed e2e test's gesture: a part far from what it will touch, dragged toward a
/// target deep inside it. Unbudgeted, one drag stops it at contact; under a small work budget
/// it gets there too, however many frames that takes, some of them moving it part of the way,
/// and never back up the way it came by more than εr.
#[test]
fn a_long_push_into_a_part_ends_in_contact_under_a_budget() {
    let mut partial = 0;
    for budget in [400, 100, 30, 10] {
        let (mut free, mut tight) = (door_in_frame(), door_in_frame());
        with_work_budget(&mut tight.world, budget);
        let far = Pose::from_translation(DVec3::new(0.0, 0.0, 1.5));
        free.world.set_pose(free.dragged, far).unwrap();
        tight.world.set_pose(tight.dragged, far).unwrap();
        let target = Pose::from_translation(DVec3::new(0.02, 0.01, -0.5));
        let plain = free.world.drag(free.dragged, target).unwrap();
        assert!(!plain.reached && !free.world.contacts().is_empty(), "unbudgeted, it stops at contact");
        let mut frames = 0;
        let er = tight.world.settings().repositioning;
        loop {
            frames += 1;
            let z = tight.world.body(tight.dragged).unwrap().pose.translation.z;
            let r = tight.world.drag(tight.dragged, target).unwrap();
            let now = tight.world.body(tight.dragged).unwrap().pose.translation.z;
            assert!(now <= z + er, "budget {budget}, frame {frames}: back up from z = {z} to {now}");
            partial += (r.out_of_time && !r.moves.is_empty()) as usize;
            if !r.out_of_time {
                break;
            }
            assert!(frames < 20_000, "budget {budget}: the drag asks for frames forever");
        }
        let (a, b) = (free.world.body(free.dragged).unwrap().pose, tight.world.body(tight.dragged).unwrap().pose);
        assert!(
            !tight.world.contacts().is_empty(),
            "budget {budget}: after {frames} frames the part stopped at {b:?}, not in contact (unbudgeted: {a:?})"
        );
        assert!(tight.world.intersecting_pairs().is_empty());
    }
    assert!(partial > 0, "no frame moved the part part of the way");
}

/// The pointer moves on while a sub-step is suspended: the next drag first finishes the
/// sub-step planned toward the old target, then goes on toward the new one, and the app's
/// calls end only there (a finished old sub-step once ended the drag as if it had reached
/// the new target: the windowed e2e test's door stopped short of the body with no contact).
#[test]
fn a_suspended_sub_step_toward_an_old_target_does_not_end_the_drag() {
    let mut ended_suspended = 0;
    for budget in [10, 30, 100] {
        let (mut tight, mut free) = (door_in_frame(), door_in_frame());
        with_work_budget(&mut tight.world, budget);
        let far = Pose::from_translation(DVec3::new(0.0, 0.0, 1.5));
        tight.world.set_pose(tight.dragged, far).unwrap();
        free.world.set_pose(free.dragged, far).unwrap();
        // A first target, left after one frame; then a second one, nearer, and free.
        let old = Pose::from_translation(DVec3::new(0.0, 0.0, 0.0));
        let new = Pose::from_translation(DVec3::new(-0.2, 0.1, 1.2));
        let r = tight.world.drag(tight.dragged, old).unwrap();
        ended_suspended += r.suspended as usize;
        let (r, frames, _) = drag_until_done(&mut tight.world, tight.dragged, new, 20_000);
        assert!(
            r.reached,
            "budget {budget}: stopped after {frames} frames at {:?}",
            tight.world.body(tight.dragged).unwrap().pose
        );
        assert!(free.world.drag(free.dragged, new).unwrap().reached, "the new target is free");
    }
    assert!(ended_suspended > 0, "no first frame ended with its sub-step suspended");
}

/// A plate resting on six blocks (pairs in contact from the start, hundreds of contacts),
/// slid, pressed down, turned and lifted under a budget of 200 box tests a drag: the refresh
/// at a sub-step's new poses does not fit, so the move waits for it over several drags with
/// the plate put back where it was (docs/solver.md §4). A drag that waits ends where the moves
/// it made and recorded end, not where the waiting one would take it; the plate never sinks
/// deeper into a block than it started (plus τ); and every drag ends where the unbudgeted
/// drag ends.
#[test]
fn a_move_waits_for_the_refresh_at_its_poses() {
    moves_wait_for_their_refresh(NarrowPhase::Exact);
}

/// The same with the glide screen: the waiting sub-step holds the screens' answers, so the
/// next drag screens nothing and reaches the same poses.
#[test]
fn a_glide_move_waits_for_the_refresh_at_its_poses() {
    moves_wait_for_their_refresh(NarrowPhase::Glide);
}

fn moves_wait_for_their_refresh(narrow_phase: NarrowPhase) {
    let build = || {
        let (mut w, p) = plate_on_blocks(false);
        let s = *w.settings();
        w.set_settings(SolverSettings { narrow_phase, ..s }).unwrap();
        (w, p)
    };
    let (mut free, p) = build();
    let (mut tight, _) = build();
    with_work_budget(&mut tight, 200);
    let tau = 0.5 * tight.settings().repositioning;
    let turned = Pose::new(glam::DQuat::from_rotation_z(0.05), DVec3::new(0.4, 0.1, 0.5));
    let targets = [
        Pose::from_translation(DVec3::new(0.5, 0.2, 0.5)),
        Pose::from_translation(DVec3::new(0.2, -0.3, 0.3)),
        turned,
        Pose::from_translation(DVec3::new(-0.3, 0.0, 1.5)),
    ];
    let (mut waited, mut screened) = (0, 0);
    for target in targets {
        for _ in 0..5 {
            free.drag(p, target).unwrap();
        }
        for _ in 0..5 {
            let mut ended = false;
            for _ in 0..4000 {
                let before = tight.body(p).unwrap().pose;
                let r = tight.drag(p, target).unwrap();
                let now = tight.body(p).unwrap().pose;
                screened += r.glide_tests;
                if r.waiting_for_refresh {
                    waited += 1;
                    assert!(r.out_of_time && r.suspended);
                }
                // The move that waits is not made: the plate ends where the recorded moves end.
                let end = r.moves.iter().rev().find(|m| m.body == p).map_or(before, |m| m.pose_at(1.0));
                let apart =
                    (end.translation - now.translation).length() + (end.rotation.normalize() - now.rotation).length();
                assert!(apart < 1e-9, "{apart} from where its moves end ({r:?})");
                // Never deeper into a block than τ: two boxes overlap deepest at a corner of
                // one inside the other, and the plate only rests on the blocks' tops.
                let depth = plate_depth_in_blocks(&now);
                assert!(depth <= tau + 1e-9, "{depth} deep (τ = {tau}) at {now:?}");
                if !r.out_of_time {
                    ended = true;
                    break;
                }
            }
            assert!(ended, "the budgeted drag did not end");
        }
        // Slid, pressed or lifted: where the unbudgeted drag ends. Turned, neither reaches the
        // level target: the plate's vertices level with a block's top and just outside it are
        // held by walls across the gap and the solve rolls the plate (docs/contact-from-start.md
        // §5, open); the unbudgeted drag ends εs above the blocks, the budgeted one tilted by
        // 4·10⁻⁴ rad, with or without the wait. That is not this test's subject.
        let (a, b) = (free.body(p).unwrap().pose, tight.body(p).unwrap().pose);
        if target != turned {
            assert!((a.translation - b.translation).length() < 1e-5, "unbudgeted {a:?}, budgeted {b:?}");
            assert!(a.rotation.angle_between(b.rotation) < 1e-5, "unbudgeted {a:?}, budgeted {b:?}");
        }
    }
    assert!(waited > 10, "{waited} drags waited for a refresh: the budget did not bite there");
    assert_eq!(screened > 0, narrow_phase == NarrowPhase::Glide, "{screened} glide tests");
}

/// A block tilted into a floor, one bottom edge 0.7 εb deep and the other 5 εb: classifying
/// the pair reads it again at radii past its depth until the readings see the deep edge
/// (docs/contact-from-start.md §3). Under a budget of 10 box tests a drag, those readings
/// spread over drags like the rest of the rebuild (nothing moves meanwhile) and end with the
/// contacts and the classification of one unbudgeted rebuild; lifted out, the block ends where
/// the unbudgeted drag takes it.
#[test]
fn a_deep_pairs_classification_spreads_over_drags() {
    let build = || {
        let mut w = World::new(SolverSettings::for_scene_size(4.0)).unwrap();
        let eb = w.settings().breaking;
        let floor = MeshBuilder::new().tessellated_cuboid(Pose::IDENTITY, DVec3::new(1.0, 1.0, 0.2), [12, 12, 2]);
        let under = Pose::from_translation(DVec3::new(0.0, 0.0, -0.2));
        w.add_body(Arc::new(Collider::new(floor.build().unwrap())), under, true);
        let block = MeshBuilder::new().tessellated_cuboid(Pose::IDENTITY, DVec3::splat(0.2), [6, 6, 6]);
        // Turned about x: the bottom face's edges at y = ±0.2 end 0.4 sin θ apart in height.
        let sin = 4.3 * eb / 0.4;
        let cos = (1.0 - sin * sin).sqrt();
        let centre = DVec3::new(0.1, 0.0, -5.0 * eb + 0.2 * (sin + cos));
        let at = Pose::new(glam::DQuat::from_rotation_x(sin.asin()), centre);
        let b = w.add_body(Arc::new(Collider::new(block.build().unwrap())), at, false);
        (w, b)
    };
    let (mut whole, b) = build();
    let (mut tight, _) = build();
    with_work_budget(&mut tight, 10);
    let here = tight.body(b).unwrap().pose;
    let plain = whole.drag(b, here).unwrap();
    assert!(!plain.rebuilding_contacts && !plain.out_of_time);
    let eb = whole.settings().breaking;
    assert!(plain.max_depth > 4.0 * eb, "the block is {} εb deep: no radius to grow; {plain:?}", plain.max_depth / eb);
    let mut rebuilding = 0;
    let last = loop {
        let r = tight.drag(b, here).unwrap();
        assert_eq!(tight.body(b).unwrap().pose, here, "nothing moves");
        if !r.rebuilding_contacts {
            break r;
        }
        rebuilding += 1;
        assert!(r.out_of_time);
        assert!(rebuilding < 20_000, "the rebuild does not end");
    };
    // One drag when the readings at growing radii were not budgeted.
    assert!(rebuilding >= 4, "the rebuild took {rebuilding} drags");
    assert_eq!(tight.contacts(), whole.contacts());
    assert_eq!(tight.seated_pairs(), whole.seated_pairs());
    assert_eq!(last.max_depth, plain.max_depth);
    let target = Pose::from_translation(DVec3::new(0.1, 0.0, 0.6));
    let plain = whole.drag(b, target).unwrap();
    assert!(plain.reached, "{plain:?}");
    let done = (0..20_000).any(|_| !tight.drag(b, target).unwrap().out_of_time);
    assert!(done, "the budgeted drag did not end");
    let (p, q) = (whole.body(b).unwrap().pose.translation, tight.body(b).unwrap().pose.translation);
    assert!((p - q).length() < 1e-9, "unbudgeted {p:?}, budgeted {q:?}");
}

/// A solve spread over drags (docs/solver.md §4): a plate resting on six blocks, hundreds of
/// contacts in contact from the start, slid along the blocks, lifted and pressed into them
/// under a time budget already spent when each drag begins (every drag does one piece of
/// each kind of work: a piece of a plan, of a rebuild, of a query). Over enough drags each
/// ends where the unbudgeted drags end, some of them with the plan unfinished, and the plate
/// never goes into the blocks.
#[test]
fn a_solve_spread_over_drags_ends_where_one_drag_does() {
    let (mut free, p) = plate_on_blocks(true);
    let (mut tight, _) = plate_on_blocks(true);
    let s = *tight.settings();
    tight.set_settings(SolverSettings { time_budget: Some(std::time::Duration::from_nanos(1)), ..s }).unwrap();
    let start = free.body(p).unwrap().pose;
    let (mut planning, mut most) = (0, 0);
    for t in
        [DVec3::new(0.3, 0.1, 0.0), DVec3::new(0.3, 0.1, -0.2), DVec3::new(-0.2, 0.0, 0.4), DVec3::new(0.0, 0.0, -0.3)]
    {
        let target = Pose::from_translation(start.translation + t);
        for _ in 0..5 {
            free.drag(p, target).unwrap();
        }
        for _ in 0..5 {
            let mut frames = 0;
            loop {
                let r = tight.drag(p, target).unwrap();
                frames += 1;
                planning += r.planning as usize;
                let depth = plate_depth_in_blocks(&tight.body(p).unwrap().pose);
                assert!(depth < 1e-6, "the plate went {depth} into the blocks ({r:?})");
                if !r.out_of_time {
                    break;
                }
                assert!(frames < 20_000, "still out of time after {frames} drags");
            }
            most = most.max(frames);
        }
        let (a, b) = (free.body(p).unwrap().pose, tight.body(p).unwrap().pose);
        // As `a_budgeted_drag_ends_where_an_unbudgeted_one_does`: resting on the blocks, the
        // unbudgeted drag repeated toward the same target still moves by a few 1e-6.
        assert!((a.translation - b.translation).length() < 1e-5, "unbudgeted {a:?}, budgeted {b:?}");
        assert!(a.rotation.angle_between(b.rotation) < 1e-5, "unbudgeted {a:?}, budgeted {b:?}");
    }
    assert!(most > 1, "the budget never cut a drag short");
    assert!(planning > 0, "no drag ended with its solve unfinished");
}
