//! Criterion benchmark of request latency at default options: carts under every goal, a
//! 200-unit order, MPV instances with and without turns, and a 2,000-unit order.

use criterion::{criterion_group, criterion_main, Criterion};
use packing::{carts, mpv, pack, Goal, Orientation};
use std::hint::black_box;

fn requests(c: &mut Criterion) {
    let cart = carts::cart(3);
    c.bench_function("cart_5_60_units", |b| {
        b.iter(|| pack(black_box(&cart)).unwrap())
    });
    let order = carts::order(7, 40, 200);
    c.bench_function("order_200_units", |b| {
        b.iter(|| pack(black_box(&order)).unwrap())
    });
    for orientation in [Orientation::Any, Orientation::Fixed] {
        let inst = mpv::instance(8, 100, 1).request(orientation);
        let name = format!("mpv_class8_n100_{}", orientation.as_str());
        c.bench_function(&name, |b| b.iter(|| pack(black_box(&inst)).unwrap()));
    }
}

fn goals(c: &mut Criterion) {
    let mut group = c.benchmark_group("goals");
    for goal in [
        Goal::FewestPackages,
        Goal::LowestCost,
        Goal::FewestWarehouses,
        Goal::BestFit,
        Goal::BalancedWeight,
    ] {
        let mut req = carts::order(5, 12, 60);
        req.options.goal = goal;
        group.bench_function(goal.as_str(), |b| b.iter(|| pack(black_box(&req)).unwrap()));
    }
    group.finish();
}

fn large(c: &mut Criterion) {
    let mut group = c.benchmark_group("large");
    group.sample_size(10);
    let big = carts::order(11, 100, 2000);
    group.bench_function("order_2000_units", |b| {
        b.iter(|| pack(black_box(&big)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, requests, goals, large);
criterion_main!(benches);
