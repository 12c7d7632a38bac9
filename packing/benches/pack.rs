//! Criterion benchmark of request latency at default options: a small cart, a 200-unit order,
//! an MPV instance and a 2,000-unit order.

use criterion::{criterion_group, criterion_main, Criterion};
use packing::{carts, mpv, pack, Orientation};
use std::hint::black_box;

fn latency(c: &mut Criterion) {
    let cart = carts::cart(3);
    c.bench_function("cart_5_60_units", |b| {
        b.iter(|| pack(black_box(&cart)).unwrap())
    });
    let order = carts::order(7, 40, 200);
    c.bench_function("order_200_units", |b| {
        b.iter(|| pack(black_box(&order)).unwrap())
    });
    let inst = mpv::instance(8, 100, 1).request(Orientation::Any);
    c.bench_function("mpv_class8_n100", |b| {
        b.iter(|| pack(black_box(&inst)).unwrap())
    });
    let mut group = c.benchmark_group("large");
    group.sample_size(10);
    let big = carts::order(11, 100, 2000);
    group.bench_function("order_2000_units", |b| {
        b.iter(|| pack(black_box(&big)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, latency);
criterion_main!(benches);
