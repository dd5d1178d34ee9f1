//! `first_contact_within_budget`: a first contact that may stop early and say how far the
//! motion is proven free, and `first_contact_suspendable`, which goes on later from where it
//! stopped (docs/queries.md §4).

mod common;

use common::*;
use mockup_ccd::query::reference;
use mockup_ccd::{
    Collider, QueryBudget, QueryOptions, contacts_within, first_contact, first_contact_suspendable,
    first_contact_within_budget,
};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// Whatever the budget: the motion is never claimed free past the true first contact, a
    /// contact it returns is the true first one, and an ample budget gives first_contact's
    /// answer.
    #[test]
    fn never_claims_more_than_is_free(case in arb_case(), tests in 0u64..400, cull in any::<bool>()) {
        let (a, b) = (Collider::new(case.a), Collider::new(case.b));
        let plain = QueryOptions { bm_culling: cull, ..Default::default() };
        let truth = reference::first_contact(&a, &case.motion_a, &b, &case.motion_b, &plain).value;
        let first = truth.map_or(1.0, |c| c.time);
        let budget = QueryOptions { budget: Some(QueryBudget { deadline: None, box_tests: Some(tests) }), ..plain };
        let r = first_contact_within_budget(&a, &case.motion_a, &b, &case.motion_b, &budget).value;
        prop_assert!(r.free_until <= first + 1e-12, "free until {} but the first contact is at {first}", r.free_until);
        prop_assert!(r.free_until >= 0.0);
        if let Some(c) = r.contact {
            prop_assert_eq!(Some(c), truth);
            prop_assert_eq!(r.free_until, c.time);
        }
        let ample = QueryOptions { budget: Some(QueryBudget { deadline: None, box_tests: Some(u64::MAX) }), ..plain };
        let r = first_contact_within_budget(&a, &case.motion_a, &b, &case.motion_b, &ample).value;
        let tree = first_contact(&a, &case.motion_a, &b, &case.motion_b, &plain).value;
        prop_assert_eq!(r.contact, tree);
        prop_assert_eq!(r.free_until, first);
    }

    /// `contacts_within` under a budget lists a part of what it lists without one (the same
    /// contacts, never others), says when it was cut short, and lists everything when the
    /// budget suffices.
    #[test]
    fn a_budgeted_contacts_within_lists_a_part(case in arb_case(), tests in 0u64..400, t_max in 0.0..=1.0f64) {
        let (a, b) = (Collider::new(case.a), Collider::new(case.b));
        let plain = QueryOptions::default();
        let all = contacts_within(&a, &case.motion_a, &b, &case.motion_b, t_max, &plain);
        let budget = QueryOptions { budget: Some(QueryBudget { deadline: None, box_tests: Some(tests) }), ..plain };
        let part = contacts_within(&a, &case.motion_a, &b, &case.motion_b, t_max, &budget);
        for c in &part.value {
            prop_assert!(all.value.contains(c), "{c:?} is not among the unbudgeted contacts");
        }
        if part.counters.cut_short == 0 {
            prop_assert_eq!(&part.value, &all.value);
        } else {
            prop_assert!(part.counters.bv_tests >= tests);
        }
    }

    /// A query resumed under a budget of a few box tests per call: at every call the motion is
    /// never claimed free past the true first contact and the free time never shrinks; it ends,
    /// with first_contact's answer.
    #[test]
    fn a_resumed_query_ends_with_the_first_contact(case in arb_case(), tests in 0u64..60, cull in any::<bool>()) {
        let (a, b) = (Collider::new(case.a), Collider::new(case.b));
        let plain = QueryOptions { bm_culling: cull, ..Default::default() };
        let truth = reference::first_contact(&a, &case.motion_a, &b, &case.motion_b, &plain).value;
        let first = truth.map_or(1.0, |c| c.time);
        let opts = QueryOptions { budget: Some(QueryBudget { deadline: None, box_tests: Some(tests) }), ..plain };
        let (mut state, mut free, mut calls) = (None, 0.0, 0);
        loop {
            calls += 1;
            prop_assert!(calls < 100_000, "the resumed query does not end");
            let (r, next) = first_contact_suspendable(&a, &case.motion_a, &b, &case.motion_b, &opts, state);
            let r = r.value;
            prop_assert!(r.free_until <= first + 1e-12, "call {calls}: free until {} but the first contact is at {first}", r.free_until);
            prop_assert!(r.free_until >= free, "call {calls}: free until {} after {free}", r.free_until);
            free = r.free_until;
            if let Some(c) = r.contact {
                prop_assert_eq!(Some(c), truth);
            }
            if next.is_none() {
                let tree = first_contact(&a, &case.motion_a, &b, &case.motion_b, &plain).value;
                prop_assert_eq!(r.contact, tree);
                prop_assert_eq!(r.free_until, first);
                break;
            }
            state = next;
        }
    }
}

/// A deadline already past stops the query at once; nothing beyond the start is claimed
/// unless the first pending pairs were finished.
#[test]
fn a_past_deadline_stops_at_once() {
    let mesh = mockup_ccd::MeshBuilder::new().torus(mockup_ccd::Pose::IDENTITY, 1.0, 0.3, 30, 20).build().unwrap();
    let (a, b) = (Collider::new(mesh.clone()), Collider::new(mesh));
    let motion = |x: f64| {
        mockup_ccd::Motion::new(
            mockup_ccd::Pose::from_translation(glam::DVec3::new(x, 0.0, 0.0)),
            mockup_ccd::Pose::from_translation(glam::DVec3::new(x - 3.0, 0.2, 0.0)),
        )
    };
    let fixed = mockup_ccd::Motion::stationary(mockup_ccd::Pose::IDENTITY);
    let past = std::time::Instant::now();
    let opts =
        QueryOptions { budget: Some(QueryBudget { deadline: Some(past), box_tests: None }), ..Default::default() };
    let r = first_contact_within_budget(&a, &motion(3.0), &b, &fixed, &opts);
    let whole = first_contact(&a, &motion(3.0), &b, &fixed, &QueryOptions::default());
    assert!(whole.value.is_some());
    assert!(r.value.free_until <= whole.value.unwrap().time);
    assert!(r.counters.bv_tests < whole.counters.bv_tests, "{:?} vs {:?}", r.counters, whole.counters);
}

/// Queries large enough to split over two threads (each taking its pairs in time order; only a
/// deadline splits): whatever the deadline, the free time never passes the true first contact,
/// a contact returned is that contact, and the split does happen.
#[test]
fn a_split_budgeted_traversal_never_claims_more_than_is_free() {
    use glam::DVec3;
    use mockup_ccd::{MeshBuilder, Motion, Pose};
    let mesh = MeshBuilder::new().torus(Pose::IDENTITY, 1.0, 0.3, 48, 24).build().unwrap();
    let (a, b) = (Collider::new(mesh.clone()), Collider::new(mesh));
    let fixed = Motion::stationary(Pose::IDENTITY);
    let mut splits = 0;
    for (k, x) in [2.9, 3.1, 3.4].into_iter().enumerate() {
        let turn = glam::DQuat::from_rotation_z(0.3 * k as f64);
        let motion = Motion::new(
            Pose::from_translation(DVec3::new(x, 0.1, 0.05)),
            Pose { rotation: turn, translation: DVec3::new(x - 3.2, 0.3, 0.0) },
        );
        let plain = QueryOptions::default();
        let truth = first_contact(&a, &motion, &b, &fixed, &plain).value.expect("they meet");
        for micros in [0, 50, 200, 1_000, 5_000, 60_000_000] {
            let deadline = std::time::Instant::now() + std::time::Duration::from_micros(micros);
            let opts =
                QueryOptions { budget: Some(QueryBudget { deadline: Some(deadline), box_tests: None }), ..plain };
            let r = first_contact_within_budget(&a, &motion, &b, &fixed, &opts);
            splits += r.counters.parallel_splits;
            let r = r.value;
            assert!(r.free_until <= truth.time + 1e-12, "free until {} past {}", r.free_until, truth.time);
            if let Some(c) = r.contact {
                assert_eq!(c, truth);
                assert_eq!(r.free_until, c.time);
            }
            if micros == 60_000_000 {
                assert_eq!(r.contact, Some(truth));
            }
        }
    }
    if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
        assert!(splits > 0, "no budgeted query split over two threads");
    }
}

/// Queries large enough to split over two threads, resumed under deadlines of 0 to 600 µs per
/// call (the second thread's pending pairs are merged into one state): every call's free time
/// stays before the true first contact, and the last call gives that contact.
#[test]
fn a_split_query_resumed_ends_with_the_first_contact() {
    use glam::DVec3;
    use mockup_ccd::{MeshBuilder, Motion, Pose};
    let mesh = MeshBuilder::new().torus(Pose::IDENTITY, 1.0, 0.3, 48, 24).build().unwrap();
    let (a, b) = (Collider::new(mesh.clone()), Collider::new(mesh));
    let fixed = Motion::stationary(Pose::IDENTITY);
    let (mut splits, mut resumed) = (0, 0);
    for k in 0..24 {
        let (x, y) = (2.9 + 0.05 * (k % 6) as f64, 0.1 * (k / 6) as f64);
        let turn = glam::DQuat::from_rotation_z(0.13 * k as f64) * glam::DQuat::from_rotation_x(0.05 * k as f64);
        let motion = Motion::new(
            Pose::from_translation(DVec3::new(x, y, 0.05)),
            Pose { rotation: turn, translation: DVec3::new(x - 3.2, 0.3 - y, 0.0) },
        );
        let plain = QueryOptions::default();
        let truth = first_contact(&a, &motion, &b, &fixed, &plain).value.expect("they meet");
        let (mut state, mut calls) = (None, 0);
        loop {
            calls += 1;
            assert!(calls < 1_000_000, "the resumed query does not end");
            let deadline = std::time::Instant::now() + std::time::Duration::from_micros(150 * (calls % 5));
            let opts =
                QueryOptions { budget: Some(QueryBudget { deadline: Some(deadline), box_tests: None }), ..plain };
            let (r, next) = first_contact_suspendable(&a, &motion, &b, &fixed, &opts, state);
            if next.is_some() {
                // A split that ran out: both threads' pending pairs are in `next`.
                splits += r.counters.parallel_splits;
            }
            let r = r.value;
            assert!(r.free_until <= truth.time + 1e-12, "free until {} past {}", r.free_until, truth.time);
            if next.is_none() {
                assert_eq!(r.contact, Some(truth));
                break;
            }
            resumed += 1;
            state = next;
        }
    }
    assert!(resumed > 0, "no query was resumed");
    if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
        assert!(splits > 0, "no query split over two threads and then ran out");
    }
}
