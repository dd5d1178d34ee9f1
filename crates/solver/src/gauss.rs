//! Gauss' least constraint in motion space, solved through its dual (docs/solver.md §3).

use crate::contact::{BodyId, ContactPoint};
use glam::{DMat3, DVec3};
use mockup_cone::{Settings, nonnegative_qp_rows};

/// A movable body as the motion space sees it: its world centre of mass and the factor
/// `L = diag(√m I₃, chol(I_w))` of its mass metric.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub center: DVec3,
    pub sqrt_mass: f64,
    /// Lower-triangular Cholesky factor of the world inertia (columns).
    pub chol: DMat3,
}

impl Frame {
    /// `None` when the inertia is not positive definite.
    pub fn new(center: DVec3, mass: f64, world_inertia: DMat3) -> Option<Frame> {
        let chol = cholesky3(world_inertia)?;
        (mass > 0.0 && mass.is_finite()).then_some(Frame { center, sqrt_mass: mass.sqrt(), chol })
    }
}

/// A displacement per movable body: centre of mass by `translation`, rotation vector
/// `rotation` about the centre of mass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Displacement {
    pub translation: DVec3,
    pub rotation: DVec3,
}

impl Displacement {
    pub fn scaled(&self, k: f64) -> Displacement {
        Displacement { translation: self.translation * k, rotation: self.rotation * k }
    }
}

/// What one solve did.
#[derive(Clone, Debug, Default)]
pub struct Solution {
    /// One per slot of the motion space.
    pub displacements: Vec<Displacement>,
    pub iterations: usize,
    pub converged: bool,
    /// Contacts with a positive multiplier.
    pub active: usize,
}

fn cholesky3(m: DMat3) -> Option<DMat3> {
    let a = |r: usize, c: usize| m.col(c)[r];
    let l00 = a(0, 0).sqrt();
    let l10 = a(1, 0) / l00;
    let l20 = a(2, 0) / l00;
    let l11 = (a(1, 1) - l10 * l10).sqrt();
    let l21 = (a(2, 1) - l20 * l10) / l11;
    let l22 = (a(2, 2) - l20 * l20 - l21 * l21).sqrt();
    let ok = [l00, l11, l22].iter().all(|x| x.is_finite() && *x > 0.0);
    ok.then(|| DMat3::from_cols(DVec3::new(l00, l10, l20), DVec3::new(0.0, l11, l21), DVec3::new(0.0, 0.0, l22)))
}

/// `L⁻¹ y` for lower-triangular L.
fn solve_lower(l: &DMat3, y: DVec3) -> DVec3 {
    let a = |r: usize, c: usize| l.col(c)[r];
    let x0 = y.x / a(0, 0);
    let x1 = (y.y - a(1, 0) * x0) / a(1, 1);
    let x2 = (y.z - a(2, 0) * x0 - a(2, 1) * x1) / a(2, 2);
    DVec3::new(x0, x1, x2)
}

/// `L⁻ᵀ y`.
fn solve_upper_t(l: &DMat3, y: DVec3) -> DVec3 {
    let a = |r: usize, c: usize| l.col(c)[r];
    let x2 = y.z / a(2, 2);
    let x1 = (y.y - a(2, 1) * x2) / a(1, 1);
    let x0 = (y.x - a(1, 0) * x1 - a(2, 0) * x2) / a(0, 0);
    DVec3::new(x0, x1, x2)
}

/// The displacement nearest `unconstrained` in the mass metric with every contact's
/// linearised change of distance at least its bound: `n·(δI_i − δI_j) ≥ bounds[k]` (εs − d
/// keeps εs; docs/contact-from-start.md §3 for pairs in contact from the start). `slot[b]` is
/// body b's index in `frames`, `None` for a body that does not move.
pub fn solve(
    frames: &[Frame],
    slot: &[Option<usize>],
    contacts: &[ContactPoint],
    bounds: &[f64],
    unconstrained: &[Displacement],
) -> Solution {
    let n = 6 * frames.len();
    let mut rows = Vec::with_capacity(contacts.len() * n);
    let mut linear = Vec::with_capacity(contacts.len());
    for (c, &bound) in contacts.iter().zip(bounds) {
        let start = rows.len();
        rows.resize(start + n, 0.0);
        let row = &mut rows[start..];
        let mut j_delta0 = 0.0;
        let mut side = |body: BodyId, point: DVec3, sign: f64| {
            let Some(s) = slot[body] else { return };
            let f = &frames[s];
            let arm = (point - f.center).cross(c.normal);
            let t = sign * c.normal / f.sqrt_mass;
            let r = sign * solve_lower(&f.chol, arm);
            row[6 * s..6 * s + 3].iter_mut().zip(t.to_array()).for_each(|(x, v)| *x += v);
            row[6 * s + 3..6 * s + 6].iter_mut().zip(r.to_array()).for_each(|(x, v)| *x += v);
            let u = &unconstrained[s];
            j_delta0 += sign * (c.normal.dot(u.translation) + arm.dot(u.rotation));
        };
        side(c.body_i, c.point_i, 1.0);
        side(c.body_j, c.point_j, -1.0);
        linear.push(bound - j_delta0);
    }
    let mut displacements = unconstrained.to_vec();
    // The unconstrained motion's size in the metric is the size the tolerance is relative to
    // (docs/cone.md §5, "A floor under the scale").
    let size = metric_size(frames, unconstrained);
    let settings = Settings { tolerance: 1e-10, min_scale: size, ..Settings::default() };
    let Ok(qp) = nonnegative_qp_rows(&rows, n.max(1), &linear, &settings) else {
        // Non-finite input (a degenerate contact): no constraint can be trusted; no motion.
        displacements.iter_mut().for_each(|d| *d = Displacement::default());
        return Solution { displacements, iterations: 0, converged: false, active: 0 };
    };
    let mut g = vec![0.0; n];
    for &a in &qp.active {
        let l = qp.lambda[a];
        for (x, r) in g.iter_mut().zip(&rows[a * n..(a + 1) * n]) {
            *x += l * r;
        }
    }
    for (s, f) in frames.iter().enumerate() {
        let gt = DVec3::from_slice(&g[6 * s..6 * s + 3]);
        let gr = DVec3::from_slice(&g[6 * s + 3..6 * s + 6]);
        displacements[s].translation += gt / f.sqrt_mass;
        displacements[s].rotation += solve_upper_t(&f.chol, gr);
    }
    Solution { displacements, iterations: qp.iterations, converged: qp.converged, active: qp.active.len() }
}

/// The size of a displacement in the mass metric, `√(Σ m|t|² + |Lᵀω|²)`.
fn metric_size(frames: &[Frame], d: &[Displacement]) -> f64 {
    frames
        .iter()
        .zip(d)
        .map(|(f, d)| {
            (f.sqrt_mass * d.translation).length_squared() + (f.chol.transpose() * d.rotation).length_squared()
        })
        .sum::<f64>()
        .sqrt()
}

/// How much of `solved` to take so that it is no larger than a projection of `unconstrained`
/// can be (docs/solver.md §3, "An answer no projection gives"): when standing still satisfies
/// every row, the projection is no farther from `unconstrained` than standing still, so at
/// most twice its size from zero; rows that push (contacts nearer than εs) may add a push,
/// allowed up to `push` (a length) of translation of each body. 1 within that; the factor
/// that brings it back to that size beyond (an answer of rounding gone wrong in a degenerate
/// solve, or a push larger than allowed, taken in part); 0 when not finite.
pub fn plausible_share(frames: &[Frame], solved: &[Displacement], unconstrained: &[Displacement], push: f64) -> f64 {
    let pushes = frames.iter().map(|f| (f.sqrt_mass * push).powi(2)).sum::<f64>().sqrt();
    let size = metric_size(frames, solved);
    let allowed = 2.0 * metric_size(frames, unconstrained) + pushes;
    if !size.is_finite() {
        0.0
    } else if size <= allowed {
        1.0
    } else {
        allowed / size
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use mockup_ccd::ContactKind;

    fn contact(body_i: usize, body_j: usize, point: DVec3, normal: DVec3, distance: f64) -> ContactPoint {
        ContactPoint {
            body_i,
            body_j,
            kind: ContactKind::VertexFace,
            feature_i: 0,
            feature_j: 0,
            point_i: point,
            point_j: point - normal * distance,
            normal,
            distance,
            separation: distance,
            seated: false,
        }
    }

    /// A uniform number in [−1, 1) from a xorshift state (the crate's tests' generator).
    pub(crate) fn rnd(seed: &mut u64) -> f64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }

    pub(crate) fn dvec(seed: &mut u64) -> DVec3 {
        DVec3::new(rnd(seed), rnd(seed), rnd(seed))
    }

    /// The primal's objective and constraint values, written out directly from docs/solver.md
    /// §2–3 (not from the rows the solver builds).
    fn primal(
        frames: &[Frame],
        contacts: &[ContactPoint],
        d0: &[Displacement],
        d: &[Displacement],
        eps: f64,
    ) -> (f64, Vec<f64>) {
        let mut energy = 0.0;
        for (s, f) in frames.iter().enumerate() {
            let dt = d[s].translation - d0[s].translation;
            let dr = d[s].rotation - d0[s].rotation;
            let lt = f.chol.transpose() * dr;
            energy += 0.5 * (f.sqrt_mass * f.sqrt_mass * dt.length_squared() + lt.length_squared());
        }
        let slack = contacts
            .iter()
            .map(|c| {
                let moved = |b: usize, p: DVec3| {
                    let s = b; // bodies are slots in these tests
                    d[s].translation + d[s].rotation.cross(p - frames[s].center)
                };
                let rel = moved(c.body_i, c.point_i)
                    - if c.body_j < frames.len() { moved(c.body_j, c.point_j) } else { DVec3::ZERO };
                c.distance + rel.dot(c.normal) - eps
            })
            .collect();
        (energy, slack)
    }

    fn random_frame(seed: &mut u64) -> Frame {
        let a = DMat3::from_cols(dvec(seed), dvec(seed), dvec(seed));
        let inertia = a * a.transpose() + DMat3::from_diagonal(DVec3::splat(0.2));
        Frame::new(dvec(seed) * 3.0, 0.5 + rnd(seed).abs() * 3.0, inertia).unwrap()
    }

    /// KKT of the primal, and no feasible point among random perturbations does better.
    #[test]
    fn random_problems_satisfy_the_primal_optimality_conditions() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut solved = 0;
        for case in 0..400 {
            let bodies = 1 + case % 2;
            let frames: Vec<Frame> = (0..bodies).map(|_| random_frame(&mut seed)).collect();
            // Body index `bodies` is fixed.
            let mut slot: Vec<Option<usize>> = (0..bodies).map(Some).collect();
            slot.push(None);
            let k = 1 + (case % 9);
            let contacts: Vec<ContactPoint> = (0..k)
                .map(|_| {
                    let j = if bodies == 2 && rnd(&mut seed) > 0.0 { 1 } else { bodies };
                    let i = 0;
                    contact(i, j, dvec(&mut seed) * 2.0, dvec(&mut seed).normalize(), 0.02 * rnd(&mut seed).abs())
                })
                .collect();
            let d0: Vec<Displacement> = (0..bodies)
                .map(|_| Displacement { translation: dvec(&mut seed), rotation: dvec(&mut seed) * 0.3 })
                .collect();
            let eps = 0.01;
            let bounds: Vec<f64> = contacts.iter().map(|c| eps - c.distance).collect();
            let sol = solve(&frames, &slot, &contacts, &bounds, &d0);
            if !sol.converged {
                // Random normals can pinch a body from opposite sides: infeasible. Those are
                // reported, not solved.
                continue;
            }
            solved += 1;
            let (energy, slack) = primal(&frames, &contacts, &d0, &sol.displacements, eps);
            for s in &slack {
                assert!(*s >= -1e-9, "case {case}: constraint violated by {s}");
            }
            // Random feasible competitors never beat it.
            for _ in 0..50 {
                let trial: Vec<Displacement> = sol
                    .displacements
                    .iter()
                    .map(|d| Displacement {
                        translation: d.translation + dvec(&mut seed) * 0.05,
                        rotation: d.rotation + dvec(&mut seed) * 0.05,
                    })
                    .collect();
                let (e, sl) = primal(&frames, &contacts, &d0, &trial, eps);
                if sl.iter().all(|&s| s >= 0.0) {
                    assert!(e >= energy - 1e-9 * (1.0 + energy), "case {case}: {e} < {energy}");
                }
            }
        }
        eprintln!("{solved} of 400 feasible");
        assert!(solved >= 200, "only {solved} of 400 random problems were feasible");
    }

    #[test]
    fn no_contact_leaves_the_motion_alone() {
        let f = Frame::new(DVec3::ZERO, 2.0, DMat3::IDENTITY).unwrap();
        let d0 = [Displacement { translation: DVec3::new(1.0, 2.0, 3.0), rotation: DVec3::new(0.1, 0.0, 0.0) }];
        let s = solve(&[f], &[Some(0)], &[], &[], &d0);
        assert_eq!(s.displacements, d0.to_vec());
    }

    /// A pin in a zero-clearance hole, pulled along its axis: every row touches (bound 0) and
    /// the motion slides along all of them, so each row's violation is rounding (normals a
    /// hair off the horizontal). The motion must come through unchanged, not be "corrected"
    /// by a nearly dependent set of rows (docs/cone.md §5, the wedged cap screw).
    #[test]
    fn sliding_along_every_touching_row_is_left_alone() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let f =
            Frame::new(DVec3::new(0.0, 0.0, 10.0), 3000.0, DMat3::from_diagonal(DVec3::new(1e5, 1e5, 4e4))).unwrap();
        for case in 0..50 {
            let contacts: Vec<ContactPoint> = (0..40 + case)
                .map(|_| {
                    let angle = rnd(&mut seed) * std::f64::consts::PI;
                    let radial = DVec3::new(angle.cos(), angle.sin(), 0.0);
                    let normal = (-radial + DVec3::Z * 1e-16 * rnd(&mut seed)).normalize();
                    let point = 5.0 * radial + DVec3::Z * (10.0 + 10.0 * rnd(&mut seed));
                    contact(0, 1, point, normal, 0.0)
                })
                .collect();
            let bounds = vec![0.0; contacts.len()];
            let d0 = [Displacement { translation: DVec3::new(0.0, 0.0, 2.0), rotation: DVec3::ZERO }];
            let s = solve(&[f], &[Some(0), None], &contacts, &bounds, &d0);
            let d = s.displacements[0];
            assert!((d.translation - d0[0].translation).length() < 1e-9, "case {case}: {d:?}");
            assert!(d.rotation.length() < 1e-12, "case {case}: {d:?}");
        }
    }

    /// A box resting on the floor through its four bottom corners, pulled down and sideways:
    /// it slides, keeping the security distance, and does not turn.
    #[test]
    fn pushing_into_a_floor_slides_along_it() {
        let f =
            Frame::new(DVec3::new(0.0, 0.0, 1.0), 8.0, DMat3::from_diagonal(DVec3::splat(8.0 * 2.0 / 3.0))).unwrap();
        let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
        let contacts: Vec<ContactPoint> =
            corners.iter().map(|&(x, y)| contact(0, 1, DVec3::new(x, y, 0.02), DVec3::Z, 0.02)).collect();
        let d0 = [Displacement { translation: DVec3::new(0.5, -0.25, -3.0), rotation: DVec3::ZERO }];
        let bounds: Vec<f64> = contacts.iter().map(|c| 0.01 - c.distance).collect();
        let s = solve(&[f], &[Some(0), None], &contacts, &bounds, &d0);
        assert!(s.converged);
        let d = s.displacements[0];
        assert!((d.translation - DVec3::new(0.5, -0.25, -0.01)).length() < 1e-12, "{d:?}");
        assert!(d.rotation.length() < 1e-12);
    }

    /// `plausible_share`: a projection's answer is taken whole, one a thousand times larger
    /// brought back to the allowed size, one not finite not at all; from standing still, a push
    /// of 0.01 is within an allowance of 0.01 and halved by one of 0.005.
    #[test]
    fn only_a_projections_size_is_taken_whole() {
        let f = Frame::new(DVec3::ZERO, 2.0, DMat3::from_diagonal(DVec3::new(0.5, 0.7, 0.9))).unwrap();
        let down = Displacement { translation: DVec3::new(0.0, 0.0, -0.3), rotation: DVec3::new(0.0, 0.1, 0.0) };
        // Held by a floor: the projection drops the downward part.
        let floor = contact(0, 1, DVec3::new(0.0, 0.0, -1.0), DVec3::Z, 0.5);
        let frames = [f];
        let slot = [Some(0), None];
        let solved = solve(&frames, &slot, &[floor], &[0.01 - 0.5], &[down]);
        assert!(solved.converged);
        assert_eq!(plausible_share(&frames, &solved.displacements, &[down], 0.0), 1.0);
        let huge = [down.scaled(1e3)];
        let k = plausible_share(&frames, &huge, &[down], 0.01);
        let allowed = 2.0 * metric_size(&frames, &[down]) + 2f64.sqrt() * 0.01;
        assert!((metric_size(&frames, &[huge[0].scaled(k)]) - allowed).abs() < 1e-12, "{k}");
        let nan = [Displacement { translation: DVec3::NAN, rotation: DVec3::ZERO }];
        assert_eq!(plausible_share(&frames, &nan, &[down], 0.01), 0.0);
        let push = [Displacement { translation: DVec3::new(0.0, 0.0, 0.01), rotation: DVec3::ZERO }];
        let still = [Displacement::default()];
        assert_eq!(plausible_share(&frames, &push, &still, 0.01), 1.0);
        assert!((plausible_share(&frames, &push, &still, 0.005) - 0.5).abs() < 1e-12);
    }
}
