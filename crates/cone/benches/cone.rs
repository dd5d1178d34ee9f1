//! Projection time against the number of generators.
//! `cargo bench -p mockup-cone --bench cone` (docs/benchmarks.md).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mockup_cone::{Metric, Projector, Settings};

/// A small deterministic generator (xorshift), so that runs are comparable.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

fn instance(k: usize, n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed);
    let g = (0..k * n).map(|_| rng.next()).collect();
    let b = (0..n).map(|_| rng.next()).collect();
    (g, b)
}

fn projection(c: &mut Criterion) {
    let mut group = c.benchmark_group("project");
    for &(k, n) in &[(10, 3), (100, 3), (1000, 3), (10, 60), (100, 60), (1000, 60), (1000, 300)] {
        let (g, b) = instance(k, n, 0x9E37_79B9_7F4A_7C15 ^ (k * 1000 + n) as u64);
        let mut p = Projector::new();
        group.bench_function(BenchmarkId::new(format!("n{n}"), k), |bench| {
            bench.iter(|| p.project(&g, n, &b, Metric::Identity, &Settings::default()).unwrap())
        });
        let outcome = p.project(&g, n, &b, Metric::Identity, &Settings::default()).unwrap();
        eprintln!("k={k} n={n}: iterations {}, active {}", outcome.iterations, p.active().len());
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = projection
}
criterion_main!(benches);
