//! The guarantee (docs/solver.md §5): random drags never interpenetrate and keep contacts at
//! least εr apart, less a tolerance.

mod common;

use common::*;
use std::time::Instant;

fn run(mut scene: TestScene, seed: u64, steps: usize) {
    let clock = Instant::now();
    let mut blocked = 0;
    let mut substeps = 0;
    let (mut with_contacts, mut repositioning, mut unconverged, mut exhausted, mut reached) = (0, 0, 0, 0, 0);
    let mut travel = 0.0;
    random_drags(&mut scene, seed, steps, |current, report| {
        substeps += report.substeps;
        with_contacts += (report.contacts > 0) as u32;
        repositioning += report.repositioning;
        unconverged += report.unconverged_solves;
        exhausted += report.budget_exhausted as u32;
        reached += report.reached as u32;
        travel += (report.pose.translation - current.translation).length();
        blocked += report.blocked_substeps;
    });
    eprintln!(
        "{steps} steps, {substeps} sub-steps, {blocked} blocked, {with_contacts} ending in contact, {reached} reached, \
         {repositioning} repositioning, {unconverged} unconverged, {exhausted} out of budget, travel {travel:.2}, {:?}",
        clock.elapsed()
    );
    assert!(blocked > steps as u32 / 20, "the drags must hit something often ({blocked} blocked sub-steps)");
}

#[test]
fn peg_in_hole() {
    run(common::peg_in_hole(), 1, 1500);
}

#[test]
fn plate_in_slot() {
    run(common::plate_in_slot(), 2, 1500);
}

#[test]
fn interlocked_tori() {
    run(common::tori(), 3, 1500);
}

#[test]
fn door_in_frame() {
    run(common::door_in_frame(), 4, 1000);
}
