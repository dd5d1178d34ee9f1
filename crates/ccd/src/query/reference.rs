//! Brute-force versions of the continuous queries: every feature pair, no tree. Slow
//! (quadratic); they exist to validate the tree traversal.

use super::continuous::{Mode, first_of, run};
use super::{Contact, Counted, QueryOptions};
use crate::{Collider, Motion};

/// [`first_contact`](super::first_contact) without the tree.
pub fn first_contact(
    a: &Collider,
    motion_a: &Motion,
    b: &Collider,
    motion_b: &Motion,
    opts: &QueryOptions,
) -> Counted<Option<Contact>> {
    first_of(run(a, motion_a, b, motion_b, opts, Mode::First, false))
}

/// [`contacts_within`](super::contacts_within) without the tree.
pub fn contacts_within(
    a: &Collider,
    motion_a: &Motion,
    b: &Collider,
    motion_b: &Motion,
    t_max: f64,
    opts: &QueryOptions,
) -> Counted<Vec<Contact>> {
    run(a, motion_a, b, motion_b, opts, Mode::Within(t_max), false)
}
