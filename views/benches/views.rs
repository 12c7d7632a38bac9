//! The packer station's rendering work for a 200-unit package: the loading order plus the
//! diagram of every step and of the complete box (goal: under 20 ms in total), and the size of
//! the complete box's SVG (goal: under 100 KB). `cargo bench -p views --bench views`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use views::{diagram, loading_order, Scene};

#[path = "../tests/common/mod.rs"]
mod common;

fn bench(c: &mut Criterion) {
    let bx = common::box_of_200();
    let steps = loading_order(&bx);
    let full = diagram(&bx, &steps, None);
    let biggest = (1..=steps.len())
        .map(|k| diagram(&bx, &steps, Some(k)).len())
        .max()
        .unwrap_or(0);
    println!(
        "200-unit box: complete SVG {} bytes, largest step SVG {} bytes",
        full.len(),
        biggest
    );
    let mut g = c.benchmark_group("station_200_units");
    g.bench_function("loading_order", |b| {
        b.iter(|| loading_order(black_box(&bx)))
    });
    g.bench_function("diagram_complete", |b| {
        b.iter(|| diagram(black_box(&bx), &steps, None))
    });
    // What a server answering one request per diagram does: a new scene per step.
    g.bench_function("order_and_every_diagram", |b| {
        b.iter(|| {
            let steps = loading_order(black_box(&bx));
            let mut bytes = diagram(&bx, &steps, None).len();
            for k in 1..=steps.len() {
                bytes += diagram(&bx, &steps, Some(k)).len();
            }
            bytes
        })
    });
    // Rendering every step from one scene (projection and painting order computed once).
    g.bench_function("order_and_every_diagram_one_scene", |b| {
        b.iter(|| {
            let steps = loading_order(black_box(&bx));
            let scene = Scene::new(&bx, &steps);
            let mut bytes = scene.render(None).len();
            for k in 1..=steps.len() {
                bytes += scene.render(Some(k)).len();
            }
            bytes
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
