//! The packer station's rendering work for a 200-unit package: the loading order (and its JSON)
//! plus the diagram of every step and of the complete box (goal: under 20 ms in total), and the
//! size of the complete box's SVG (goal: under 100 KB). `cargo bench -p views --bench views`.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use views::{diagram, loading_order, Scene};

#[path = "../tests/common/mod.rs"]
mod common;

fn bench(c: &mut Criterion) {
    let bx = common::box_of_200();
    let steps = loading_order(&bx);
    let full = diagram(&bx, &steps, None);
    let sizes: Vec<usize> = (1..=steps.len())
        .map(|k| diagram(&bx, &steps, Some(k)).len())
        .collect();
    println!(
        "200-unit box: complete SVG {} bytes; step SVGs {}..{} bytes, {} bytes for all {} steps",
        full.len(),
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0),
        sizes.iter().sum::<usize>(),
        steps.len()
    );
    let mut g = c.benchmark_group("station_200_units");
    g.bench_function("loading_order", |b| {
        b.iter(|| loading_order(black_box(&bx)))
    });
    g.bench_function("loading_order_json", |b| {
        b.iter(|| serde_json::to_string(&loading_order(black_box(&bx))).unwrap())
    });
    g.bench_function("scene", |b| b.iter(|| Scene::new(black_box(&bx), &steps)));
    let scene = Scene::new(&bx, &steps);
    g.bench_function("scene_render_step_100", |b| {
        b.iter(|| scene.render(black_box(Some(100))))
    });
    g.bench_function("diagram_complete", |b| {
        b.iter(|| diagram(black_box(&bx), &steps, None))
    });
    // The goal's figure: instructions (order and JSON) plus every diagram, from one scene.
    g.bench_function("instructions_and_every_diagram_one_scene", |b| {
        b.iter(|| {
            let steps = loading_order(black_box(&bx));
            let mut bytes = serde_json::to_string(&steps).unwrap().len();
            let scene = Scene::new(&bx, &steps);
            bytes += scene.render(None).len();
            for k in 1..=steps.len() {
                bytes += scene.render(Some(k)).len();
            }
            bytes
        })
    });
    // A server that keeps nothing between requests: order and diagram anew for every step.
    g.bench_function("instructions_and_every_diagram_per_request", |b| {
        b.iter(|| {
            let steps = loading_order(black_box(&bx));
            let mut bytes = serde_json::to_string(&steps).unwrap().len();
            bytes += diagram(&bx, &steps, None).len();
            for k in 1..=steps.len() {
                bytes += diagram(&bx, &loading_order(&bx), Some(k)).len();
            }
            bytes
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
