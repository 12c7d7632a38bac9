//! Prints the diagram (SVG) of one step of the largest package of a seeded cart, the steps as
//! text, or the packing slip (HTML): `cargo run -p views --example diagram -- SEED
//! [STEP|all|steps|slip]`. The pictures under `docs/` were made with it:
//! `-- 3 13 > step.svg && rsvg-convert step.svg -o docs/diagram-step.png` and
//! `-- 3 slip > slip.html && chromium --headless --window-size=820,1160
//! --screenshot=docs/slip.png slip.html`.

use views::{diagram, loading_order, slip_html, ContentLine, PackedBox, Slip};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(7);
    let what = args.get(1).map(String::as_str).unwrap_or("all");
    let req = packing::carts::order(seed, 8, 40);
    let sol = packing::pack(&req).expect("the cart packs");
    let pkg = sol
        .packages
        .iter()
        .max_by_key(|p| p.items.len())
        .expect("a package");
    let bx = PackedBox::from_package(pkg, &req.items);
    let steps = loading_order(&bx);
    eprintln!("box {} with {} units", bx.box_id, steps.len());
    match what {
        "steps" => {
            for s in &steps {
                let (p, d) = (s.position, s.dimensions);
                println!(
                    "{:>3} {:<8} at ({}, {}, {}) size ({}, {}, {}) rests on {:?}",
                    s.step, s.sku, p.x, p.y, p.z, d.width, d.height, d.length, s.rests_on
                );
            }
        }
        "all" => println!("{}", diagram(&bx, &steps, None)),
        "slip" => {
            let mut contents: Vec<ContentLine> = Vec::new();
            for s in &steps {
                match contents.iter_mut().find(|c| c.sku == s.sku) {
                    Some(c) => c.quantity += 1,
                    None => contents.push(ContentLine {
                        sku: s.sku.clone(),
                        name: s.name.clone(),
                        quantity: 1,
                    }),
                }
            }
            let slip = Slip {
                package_id: "pkg_WH1_XL_7f3a9c".into(),
                order_reference: "SO-2026-00042".into(),
                ship_to: vec![
                    "Ada Lovelace".into(),
                    "12 Analytical Row".into(),
                    "London NW1 6XE".into(),
                ],
                contents,
                box_id: bx.box_id.clone(),
                box_inner: bx.inner,
                length_unit: "in".into(),
                diagram_svg: diagram(&bx, &steps, None),
                ..Slip::default()
            };
            println!("{}", slip_html(&slip));
        }
        k => println!("{}", diagram(&bx, &steps, k.parse().ok())),
    }
}
