//! The optimality conditions on random instances, brute force over active sets, and the
//! special cases of docs/cone.md §2.

use mockup_cone::{ConeError, Metric, Projection, Settings, nonnegative_qp, nonnegative_qp_rows, project};
use proptest::prelude::*;

fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

fn mat_vec(m: &[f64], n: usize, x: &[f64]) -> Vec<f64> {
    (0..n).map(|i| dot(&m[i * n..(i + 1) * n], x)).collect()
}

/// Checks the KKT conditions of docs/cone.md §2 in the metric `m` (None = identity).
fn assert_optimal(g: &[f64], n: usize, b: &[f64], m: Option<&[f64]>, p: &Projection) {
    let k = g.len() / n;
    assert!(p.converged);
    let inner = |x: &[f64], y: &[f64]| match m {
        None => dot(x, y),
        Some(m) => dot(x, &mat_vec(m, n, y)),
    };
    let norm_b = inner(b, b).sqrt();
    // x* = Σ λ v.
    let mut x = vec![0.0; n];
    for i in 0..k {
        assert!(p.lambda[i] >= 0.0, "λ[{i}] = {}", p.lambda[i]);
        for d in 0..n {
            x[d] += p.lambda[i] * g[i * n + d];
        }
    }
    let scale = norm_b.max(1e-300);
    for d in 0..n {
        assert!((x[d] - p.point[d]).abs() <= 1e-9 * (scale + x[d].abs()), "point mismatch");
    }
    let r: Vec<f64> = (0..n).map(|d| b[d] - x[d]).collect();
    assert!((inner(&r, &r).sqrt() - p.distance).abs() <= 1e-9 * scale);
    for i in 0..k {
        let v = &g[i * n..(i + 1) * n];
        let nv = inner(v, v).sqrt();
        let w = inner(&r, v);
        assert!(w <= 1e-8 * nv * scale, "residual·v[{i}] = {w} > 0");
        if p.lambda[i] > 0.0 {
            assert!(w.abs() <= 1e-8 * nv * scale, "active v[{i}] not orthogonal to the residual: {w}");
        }
    }
}

/// Brute force: the least-squares point of every subset of generators with non-negative
/// coefficients; the nearest one. Small k only.
fn brute_force_distance(g: &[f64], n: usize, b: &[f64]) -> f64 {
    let k = g.len() / n;
    let mut best = dot(b, b).sqrt(); // the empty set: x = 0
    for mask in 1u32..(1 << k) {
        let s: Vec<usize> = (0..k).filter(|i| mask & (1 << i) != 0).collect();
        let m = s.len();
        if m > n {
            continue;
        }
        // Least squares by modified Gram–Schmidt (QR); dependent subsets are skipped, since
        // by Carathéodory the nearest point is reached by an independent one.
        let mut q: Vec<Vec<f64>> = Vec::new();
        let mut r = vec![vec![0.0; m]; m];
        let mut dependent = false;
        for (c, &i) in s.iter().enumerate() {
            let mut v = g[i * n..(i + 1) * n].to_vec();
            let norm0 = dot(&v, &v).sqrt();
            for (p, qp) in q.iter().enumerate() {
                r[p][c] = dot(qp, &v);
                for d in 0..n {
                    v[d] -= r[p][c] * qp[d];
                }
            }
            let nv = dot(&v, &v).sqrt();
            if nv <= 1e-9 * norm0 {
                dependent = true;
                break;
            }
            r[c][c] = nv;
            q.push(v.iter().map(|x| x / nv).collect());
        }
        if dependent {
            continue;
        }
        let qb: Vec<f64> = q.iter().map(|qp| dot(qp, b)).collect();
        let mut lambda = vec![0.0; m];
        for row in (0..m).rev() {
            lambda[row] = (qb[row] - (row + 1..m).map(|c| r[row][c] * lambda[c]).sum::<f64>()) / r[row][row];
        }
        if lambda.iter().any(|&l| l < 0.0) {
            continue;
        }
        let mut x = b.to_vec();
        for (r, &i) in s.iter().enumerate() {
            for d in 0..n {
                x[d] -= lambda[r] * g[i * n + d];
            }
        }
        best = best.min(dot(&x, &x).sqrt());
    }
    best
}

/// Brute force for `min ½‖Aᵀλ‖² − cᵀλ, λ ≥ 0`: the stationary point of every subset of rows
/// with positive coefficients; the lowest objective (the optimum has an independent support).
fn brute_force_qp_rows(a: &[f64], n: usize, c: &[f64]) -> f64 {
    let k = c.len();
    let gram = |i: usize, j: usize| dot(&a[i * n..(i + 1) * n], &a[j * n..(j + 1) * n]);
    let mut best = 0.0f64; // λ = 0
    for mask in 1u32..(1 << k) {
        let s: Vec<usize> = (0..k).filter(|i| mask & (1 << i) != 0).collect();
        let m = s.len();
        // Gaussian elimination with partial pivoting on G_SS z = c_S.
        let mut mat: Vec<Vec<f64>> = s.iter().map(|&i| s.iter().map(|&j| gram(i, j)).chain([c[i]]).collect()).collect();
        let mut singular = false;
        for col in 0..m {
            let p = (col..m).max_by(|&x, &y| mat[x][col].abs().total_cmp(&mat[y][col].abs())).unwrap();
            if mat[p][col].abs() < 1e-9 * (1.0 + gram(s[col], s[col])) {
                singular = true;
                break;
            }
            mat.swap(col, p);
            for row in 0..m {
                if row != col {
                    let f = mat[row][col] / mat[col][col];
                    for e in col..=m {
                        mat[row][e] -= f * mat[col][e];
                    }
                }
            }
        }
        if singular {
            continue;
        }
        let z: Vec<f64> = (0..m).map(|r| mat[r][m] / mat[r][r]).collect();
        if z.iter().any(|&x| x < 0.0) {
            continue;
        }
        let objective = -0.5 * s.iter().zip(&z).map(|(&i, zi)| c[i] * zi).sum::<f64>();
        best = best.min(objective);
    }
    best
}

fn vecs(n: usize, k: std::ops::Range<usize>) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (k, Just(n))
        .prop_flat_map(|(k, n)| (prop::collection::vec(-1.0..1.0f64, k * n), prop::collection::vec(-1.0..1.0f64, n)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn optimal_in_3d(case in vecs(3, 1..40)) {
        let (g, b) = case;
        let p = project(&g, 3, &b, Metric::Identity, &Settings::default()).unwrap();
        assert_optimal(&g, 3, &b, None, &p);
    }

    #[test]
    fn agrees_with_brute_force((g, b) in vecs(3, 1..8)) {
        let p = project(&g, 3, &b, Metric::Identity, &Settings::default()).unwrap();
        let brute = brute_force_distance(&g, 3, &b);
        prop_assert!((p.distance - brute).abs() <= 1e-9, "distance {} vs brute force {}", p.distance, brute);
    }

    #[test]
    fn agrees_with_brute_force_in_5d((g, b) in vecs(5, 1..10)) {
        let p = project(&g, 5, &b, Metric::Identity, &Settings::default()).unwrap();
        let brute = brute_force_distance(&g, 5, &b);
        prop_assert!((p.distance - brute).abs() <= 1e-9, "distance {} vs brute force {}", p.distance, brute);
    }

    /// A point built as a positive combination is in the cone (distance 0); a point pushed
    /// out along a direction the polar cone contains is not.
    #[test]
    fn in_cone_iff_distance_zero((g, _b) in vecs(4, 1..12), coef in prop::collection::vec(0.0..1.0f64, 12)) {
        let n = 4;
        let k = g.len() / n;
        let mut inside = vec![0.0; n];
        for i in 0..k {
            for d in 0..n {
                inside[d] += coef[i] * g[i * n + d];
            }
        }
        let p = project(&g, n, &inside, Metric::Identity, &Settings::default()).unwrap();
        let scale = dot(&inside, &inside).sqrt();
        prop_assert!(p.distance <= 1e-9 * scale.max(1.0));
        // A point outside: move by the residual of a projection, which lies in the polar
        // cone, from a point on the cone's boundary.
        let q: Vec<f64> = (0..n).map(|d| g[d] - 2.0 * inside[d] + 0.3).collect();
        let pq = project(&g, n, &q, Metric::Identity, &Settings::default()).unwrap();
        let outside: Vec<f64> = (0..n).map(|d| pq.point[d] + 2.0 * (q[d] - pq.point[d])).collect();
        let po = project(&g, n, &outside, Metric::Identity, &Settings::default()).unwrap();
        // Moreau: the projection of point + t·(polar residual) is the same point.
        // Rounding grows with the size of the combination (λ reaches 1e5 on nearly flat cones).
        let size: f64 = (0..k).map(|i| pq.lambda[i] * dot(&g[i * n..(i + 1) * n], &g[i * n..(i + 1) * n]).sqrt()).sum();
        prop_assert!((po.distance - 2.0 * pq.distance).abs() <= 1e-9 * (1.0 + size), "{} vs 2 × {} ({} iterations, converged {}), {:?}", po.distance, pq.distance, po.iterations, po.converged, po.lambda);
        prop_assert!(po.distance >= pq.distance - 1e-9 * (1.0 + size));
    }

    #[test]
    fn optimal_in_a_metric((g, b) in vecs(4, 1..15), a in prop::collection::vec(-1.0..1.0f64, 16)) {
        // M = AᵀA + I is symmetric positive definite.
        let n = 4;
        let mut m = vec![0.0; 16];
        for i in 0..n {
            for j in 0..n {
                m[i * n + j] = (0..n).map(|p| a[p * n + i] * a[p * n + j]).sum::<f64>() + if i == j { 1.0 } else { 0.0 };
            }
        }
        let p = project(&g, n, &b, Metric::Matrix(&m), &Settings::default()).unwrap();
        assert_optimal(&g, n, &b, Some(&m), &p);
    }

    /// The explicit-Gram form agrees with the point form when G and c come from a point.
    #[test]
    fn qp_matches_projection((g, b) in vecs(3, 1..20)) {
        let n = 3;
        let k = g.len() / n;
        let gram: Vec<f64> = (0..k * k).map(|e| dot(&g[(e / k) * n..(e / k + 1) * n], &g[(e % k) * n..(e % k + 1) * n])).collect();
        let c: Vec<f64> = (0..k).map(|i| dot(&g[i * n..(i + 1) * n], &b)).collect();
        // The Gram form squares the condition number: its tolerance must be looser
        // (docs/cone.md §5).
        let qp = nonnegative_qp(&gram, &c, &Settings { tolerance: 1e-9, ..Settings::default() }).unwrap();
        let p = project(&g, n, &b, Metric::Identity, &Settings::default()).unwrap();
        prop_assert!(qp.converged);
        let point = |l: &[f64]| -> Vec<f64> { (0..n).map(|d| (0..k).map(|i| l[i] * g[i * n + d]).sum()).collect() };
        let (x, y) = (point(&qp.lambda), point(&p.lambda));
        // Both are accurate relative to the size of the combination (λ reaches 1e4 when the
        // active generators are nearly dependent).
        let size: f64 = (0..k).map(|i| p.lambda[i] * dot(&g[i * n..(i + 1) * n], &g[i * n..(i + 1) * n]).sqrt()).sum();
        for d in 0..n {
            prop_assert!((x[d] - y[d]).abs() <= 1e-8 * (1.0 + size), "{:?} vs {:?}", x, y);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// The rows form: KKT, and the optimum of brute-force enumeration, on bounded problems
    /// `c = A y − s`, `s ≥ 0` (a feasible primal, as the solver's dual has).
    #[test]
    fn qp_rows_is_optimal(
        (a, y) in vecs(4, 1..9),
        s in prop::collection::vec(0.0..1.0f64, 9),
        shift in -1.0..1.0f64,
    ) {
        let n = 4;
        let k = a.len() / n;
        let c: Vec<f64> = (0..k).map(|i| dot(&a[i * n..(i + 1) * n], &y) - s[i] * shift.abs()).collect();
        let sol = nonnegative_qp_rows(&a, n, &c, &Settings::default()).unwrap();
        prop_assert!(sol.converged);
        let x: Vec<f64> = (0..n).map(|d| (0..k).map(|i| sol.lambda[i] * a[i * n + d]).sum()).collect();
        let scale = 1.0 + c.iter().fold(0.0f64, |m, v| m.max(v.abs())) + dot(&x, &x).sqrt();
        for i in 0..k {
            let row = &a[i * n..(i + 1) * n];
            let w = c[i] - dot(row, &x);
            prop_assert!(sol.lambda[i] >= 0.0);
            prop_assert!(w <= 1e-9 * scale * (1.0 + dot(row, row).sqrt()), "w[{}] = {}", i, w);
            if sol.lambda[i] > 0.0 {
                prop_assert!(w.abs() <= 1e-9 * scale * (1.0 + dot(row, row).sqrt()), "active w[{}] = {}", i, w);
            }
        }
        let objective = 0.5 * dot(&x, &x) - dot(&c, &sol.lambda);
        let brute = brute_force_qp_rows(&a, n, &c);
        prop_assert!((objective - brute).abs() <= 1e-7 * scale * scale, "{} vs brute force {}", objective, brute);
    }

    /// With `c = A b` the rows form is the projection of b (up to the constant ½‖b‖²).
    #[test]
    fn qp_rows_matches_projection((g, b) in vecs(3, 1..20)) {
        let n = 3;
        let k = g.len() / n;
        let c: Vec<f64> = (0..k).map(|i| dot(&g[i * n..(i + 1) * n], &b)).collect();
        let qp = nonnegative_qp_rows(&g, n, &c, &Settings::default()).unwrap();
        let p = project(&g, n, &b, Metric::Identity, &Settings::default()).unwrap();
        prop_assert!(qp.converged);
        let point = |l: &[f64]| -> Vec<f64> { (0..n).map(|d| (0..k).map(|i| l[i] * g[i * n + d]).sum()).collect() };
        let (x, y) = (point(&qp.lambda), point(&p.lambda));
        let size: f64 = (0..k).map(|i| p.lambda[i] * dot(&g[i * n..(i + 1) * n], &g[i * n..(i + 1) * n]).sqrt()).sum();
        for d in 0..n {
            prop_assert!((x[d] - y[d]).abs() <= 1e-9 * (1.0 + size), "{:?} vs {:?}", x, y);
        }
    }
}

/// The linear-term form: KKT for a c that does not come from one point, G singular (k > n).
/// `c = J y − s` with `s ≥ 0` keeps the problem bounded, as the solver's dual is when its
/// constraints are feasible.
#[test]
fn qp_kkt_with_a_free_linear_term() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..2000 {
        let (k, n) = (6, 4);
        let j: Vec<f64> = (0..k * n).map(|_| rnd()).collect();
        let gram: Vec<f64> =
            (0..k * k).map(|e| dot(&j[(e / k) * n..(e / k + 1) * n], &j[(e % k) * n..(e % k + 1) * n])).collect();
        let y: Vec<f64> = (0..n).map(|_| rnd()).collect();
        let c: Vec<f64> = (0..k).map(|i| dot(&j[i * n..(i + 1) * n], &y) - rnd().abs()).collect();
        let s = nonnegative_qp(&gram, &c, &Settings::default()).unwrap();
        assert!(s.converged);
        for i in 0..k {
            let w = c[i] - (0..k).map(|a| gram[i * k + a] * s.lambda[a]).sum::<f64>();
            assert!(s.lambda[i] >= 0.0);
            assert!(w <= 1e-8, "w[{i}] = {w}");
            if s.lambda[i] > 0.0 {
                assert!(w.abs() <= 1e-8, "active w[{i}] = {w}");
            }
        }
    }
}

#[test]
fn duplicated_and_dependent_generators() {
    // Four copies of two directions and their sum, in 3-D.
    let g = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 3.0, 0.0];
    let b = [2.0, 3.0, 5.0];
    let p = project(&g, 3, &b, Metric::Identity, &Settings::default()).unwrap();
    assert_optimal(&g, 3, &b, None, &p);
    assert!((p.point[0] - 2.0).abs() < 1e-12 && (p.point[1] - 3.0).abs() < 1e-12 && p.point[2].abs() < 1e-12);
    assert!((p.distance - 5.0).abs() < 1e-12);
    assert!(p.active.len() <= 2);
}

#[test]
fn point_in_the_polar_cone_projects_to_zero() {
    let g = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let b = [-1.0, -2.0, 7.0];
    let p = project(&g, 3, &b, Metric::Identity, &Settings::default()).unwrap();
    assert_eq!(p.point, vec![0.0; 3]);
    assert!(p.active.is_empty());
    assert!((p.distance - (54.0f64).sqrt()).abs() < 1e-12);
}

#[test]
fn zero_point_and_zero_generators() {
    let g = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    let p = project(&g, 3, &[0.0; 3], Metric::Identity, &Settings::default()).unwrap();
    assert_eq!(p.distance, 0.0);
    let p = project(&g, 3, &[2.0, 2.0, 2.0], Metric::Identity, &Settings::default()).unwrap();
    assert!(p.distance < 1e-12);
    assert_eq!(p.lambda[0], 0.0);
}

#[test]
fn large_instances_converge() {
    let mut seed = 42u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for &(k, n) in &[(1000, 3), (1000, 300), (300, 300), (50, 300)] {
        let g: Vec<f64> = (0..k * n).map(|_| rnd()).collect();
        let b: Vec<f64> = (0..n).map(|_| rnd()).collect();
        let p = project(&g, n, &b, Metric::Identity, &Settings::default()).unwrap();
        assert_optimal(&g, n, &b, None, &p);
    }
}

#[test]
fn bad_input_is_an_error() {
    let s = Settings::default();
    assert!(matches!(project(&[1.0, 2.0], 3, &[0.0; 3], Metric::Identity, &s), Err(ConeError::Dimension { .. })));
    assert!(matches!(project(&[1.0, 2.0, 3.0], 3, &[0.0; 2], Metric::Identity, &s), Err(ConeError::Dimension { .. })));
    assert!(matches!(
        project(&[1.0, f64::NAN, 3.0], 3, &[0.0; 3], Metric::Identity, &s),
        Err(ConeError::NonFinite { what: "generators", index: 1 })
    ));
    let not_spd = [1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    assert_eq!(
        project(&[1.0, 0.0, 0.0], 3, &[1.0; 3], Metric::Matrix(&not_spd), &s),
        Err(ConeError::MetricNotPositiveDefinite)
    );
    assert!(nonnegative_qp(&[1.0], &[1.0, 2.0], &s).is_err());
    assert!(nonnegative_qp_rows(&[1.0, 2.0, 3.0], 2, &[1.0, 2.0], &s).is_err());
    assert!(nonnegative_qp_rows(&[1.0, f64::INFINITY], 2, &[1.0], &s).is_err());
    for bad in [f64::INFINITY, f64::NAN, -1.0] {
        let s = Settings { min_scale: bad, ..Settings::default() };
        assert!(nonnegative_qp_rows(&[1.0, 0.0], 2, &[1.0], &s).is_err(), "min_scale {bad}");
        assert!(nonnegative_qp(&[1.0], &[1.0], &s).is_err(), "min_scale {bad}");
    }
}

#[test]
fn an_unbounded_qp_is_not_reported_as_converged() {
    // G = [[1, -1], [-1, 1]] is singular; c = (1, 1) grows without bound along λ = (t, t).
    let s = nonnegative_qp(&[1.0, -1.0, -1.0, 1.0], &[1.0, 1.0], &Settings::default()).unwrap();
    assert!(!s.converged);
}
