//! Isometric SVG diagrams of a packed box: the open box seen from the front right, above, with
//! the units of steps 1..K (earlier ones muted, step K highlighted and labelled) or all of them,
//! painted back to front so nearer units cover farther ones.

use crate::geometry::Tol;
use crate::markup::{push_escaped, push_num, push_uint};
use crate::model::{Extent, PackedBox, Point, Size, Unit};
use crate::order::Step;
use crate::paint::{overlap, paint_order, picture};

/// Largest width and height of the box's picture in SVG user units (pixels at 100%).
const PICTURE: f64 = 520.0;
const PICTURE_HIGH: f64 = 600.0;
const MARGIN: f64 = 24.0;
/// Room above the picture for the caption.
const HEAD: f64 = 34.0;
/// Room below the picture for the front marker.
const FOOT: f64 = 34.0;
/// Width of a character of bold 13 px sans-serif, generously: to keep labels inside.
const BOLD_CHAR: f64 = 8.0;
const COS30: f64 = 0.866_025_403_784_438_6;
/// Fill colours (top, front, right face) of SKUs in the complete view, by SKU in order of
/// first appearance, cycling.
const HUES: [u16; 8] = [210, 130, 280, 350, 180, 55, 240, 95];
const COLOURS: [&str; 8] = [
    "u c0", "u c1", "u c2", "u c3", "u c4", "u c5", "u c6", "u c7",
];

const STYLE: &str = "text{font:13px sans-serif;fill:#222}\
.cap{font-weight:bold}\
.u path{stroke:#333;stroke-width:.6;stroke-linejoin:round}\
.m .t{fill:#eee}.m .f{fill:#d4d4d4}.m .r{fill:#bbb}\
.h .t{fill:#ffc266}.h .f{fill:#f0a030}.h .r{fill:#d88a1c}\
.h path{stroke:#000;stroke-width:1.4}.o{opacity:.4}\
.bw{fill:#e9d8b8;stroke:#8a6a3a;stroke-width:1}\
.bf{fill:#c8a46a;fill-opacity:.12;stroke:#8a6a3a;stroke-width:1.2}\
.fe{stroke:#c0392b;stroke-width:3;fill:none}\
.fr{fill:#c0392b;font-weight:bold;letter-spacing:2px}\
.xo{fill:none;stroke:#000;stroke-width:1.2;stroke-dasharray:4 3}\
.ar{fill:#1a4f9c;stroke:#fff;stroke-width:.6}\
.lb{font-weight:bold;paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}";

/// The diagram of `bx` at step `upto`: units of steps `1..=K` with step K highlighted, or the
/// complete packed box for `None`. `K = 0` draws the empty box; `K` past the last step draws
/// every step with the last highlighted. To draw many steps of one box, build a [`Scene`] once.
pub fn diagram(bx: &PackedBox, steps: &[Step], upto: Option<usize>) -> String {
    // One picture: drawing the units straight into it beats drawing them once in advance.
    Scene::projected(bx, steps).render(upto)
}

/// A box and its steps, projected and in painting order once, for drawing many steps. It is
/// `Send + Sync` and owns its data, so a server can keep one per package id in a bounded cache.
#[derive(Debug, Clone)]
pub struct Scene {
    box_id: String,
    inner: Size,
    /// Units as in the steps, with their step numbers.
    units: Vec<(usize, Unit)>,
    /// Indexes into `units`, back to front.
    paint: Vec<usize>,
    /// Each unit's picture (see `paint::picture`), to find the units in front of step K.
    pictures: Vec<Extent>,
    tol: Tol,
    /// Colour class index of each unit in the complete view.
    colour: Vec<usize>,
    /// Each unit's group after its class attribute, drawn once: rendering a step copies them.
    bodies: Vec<String>,
    scale: f64,
    /// Screen position of the box's origin corner.
    origin: (f64, f64),
    size: (f64, f64),
    last_step: usize,
}

impl Scene {
    /// Projects the box and the steps' units and orders them for painting.
    pub fn new(bx: &PackedBox, steps: &[Step]) -> Scene {
        let mut scene = Scene::projected(bx, steps);
        scene.bodies = scene.units.iter().map(|(k, u)| scene.body(*k, u)).collect();
        scene
    }

    /// The scene without the units' groups drawn in advance.
    fn projected(bx: &PackedBox, steps: &[Step]) -> Scene {
        let units: Vec<(usize, Unit)> = steps.iter().map(|s| (s.step, s.to_unit())).collect();
        let t = Tol::of(bx);
        let ext: Vec<Extent> = units.iter().map(|(_, u)| u.extent()).collect();
        let paint = paint_order(&ext, t);
        let pictures = ext.iter().map(picture).collect();
        let mut skus: Vec<&str> = Vec::new();
        let colour = units
            .iter()
            .map(|(_, u)| match skus.iter().position(|s| *s == u.sku) {
                Some(k) => k % HUES.len(),
                None => {
                    skus.push(&u.sku);
                    (skus.len() - 1) % HUES.len()
                }
            })
            .collect();
        let b = bx.inner;
        let wide = (b.width + b.length) * COS30;
        // Screen "up" of a point is y + (z - x) / 2: highest at the back left top corner.
        let top = b.height + b.length / 2.0;
        let low = -b.width / 2.0;
        let scale = (PICTURE / wide).min(PICTURE_HIGH / (top - low));
        let scale = if scale.is_finite() { scale } else { 1.0 };
        let origin = (MARGIN, HEAD + top * scale);
        let size = (
            (wide * scale).max(PICTURE / 2.0) + 2.0 * MARGIN,
            HEAD + (top - low) * scale + FOOT,
        );
        Scene {
            box_id: bx.box_id.clone(),
            inner: b,
            last_step: units.iter().map(|(s, _)| *s).max().unwrap_or(0),
            units,
            paint,
            pictures,
            tol: t,
            colour,
            bodies: Vec::new(),
            scale,
            origin,
            size,
        }
    }

    fn at(&self, x: f64, y: f64, z: f64) -> (f64, f64) {
        (
            self.origin.0 + (x + z) * COS30 * self.scale,
            self.origin.1 - (y + (z - x) / 2.0) * self.scale,
        )
    }

    /// Screen vector of a length `d` along axis 0 (x), 1 (y) or 2 (z).
    fn along(&self, axis: usize, d: f64) -> (f64, f64) {
        let s = d * self.scale;
        match axis {
            0 => (s * COS30, s / 2.0),
            1 => (0.0, -s),
            _ => (s * COS30, -s / 2.0),
        }
    }

    /// Appends a closed parallelogram path at `p` spanned by `a` and `b`.
    fn quad(&self, out: &mut String, class: &str, p: Point, a: (usize, f64), b: (usize, f64)) {
        let (x, y) = self.at(p.x, p.y, p.z);
        let (ax, ay) = self.along(a.0, a.1);
        let (bx, by) = self.along(b.0, b.1);
        out.push_str("<path class=\"");
        out.push_str(class);
        out.push_str("\" d=\"M");
        push_pair(out, x, y);
        for (dx, dy) in [(ax, ay), (bx, by), (-ax, -ay)] {
            out.push('l');
            push_pair(out, dx, dy);
        }
        out.push_str("z\"/>");
    }

    /// The SVG of step `upto` (see [`diagram`]).
    pub fn render(&self, upto: Option<usize>) -> String {
        let k = upto.map(|k| k.min(self.last_step));
        let mut out = String::with_capacity(300 + 260 * self.units.len());
        self.head(&mut out, k);
        self.walls(&mut out, "bw", true);
        let mut current: Option<usize> = None;
        for &i in &self.paint {
            let step = self.units[i].0;
            let class = match k {
                Some(k) if step > k => continue,
                Some(k) if step == k => {
                    current = Some(i);
                    "u h"
                }
                // Painted after step K and over it: see-through, so step K shows.
                Some(_)
                    if current.is_some_and(|c| {
                        overlap(&self.pictures[c], &self.pictures[i], self.tol)
                    }) =>
                {
                    "u m o"
                }
                Some(_) => "u m",
                None => COLOURS[self.colour[i]],
            };
            out.push_str("<g class=\"");
            out.push_str(class);
            match self.bodies.get(i) {
                Some(body) => out.push_str(body),
                None => self.faces(&mut out, step, &self.units[i].1),
            }
        }
        self.walls(&mut out, "bf", false);
        self.front_marker(&mut out);
        if let Some(i) = current {
            self.highlight(&mut out, &self.units[i].1);
        }
        out.push_str("</svg>");
        out
    }

    fn head(&self, out: &mut String, k: Option<usize>) {
        out.push_str("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ");
        push_pair(out, self.size.0.ceil(), self.size.1.ceil());
        out.push_str("\" width=\"");
        push_num(out, self.size.0.ceil());
        out.push_str("\" height=\"");
        push_num(out, self.size.1.ceil());
        out.push_str("\"><style>");
        out.push_str(STYLE);
        if k.is_none() {
            let used = self.colour.iter().max().map_or(0, |m| m + 1);
            for (c, hue) in HUES.iter().take(used).enumerate() {
                for (face, light) in [("t", 85), ("f", 72), ("r", 62)] {
                    out.push_str(&format!(".c{c} .{face}{{fill:hsl({hue},55%,{light}%)}}"));
                }
            }
        }
        out.push_str("</style><defs><path id=\"up\" d=\"M-2 6v-7h-3l5-6 5 6h-3v7z\"/></defs>");
        let caption = self.caption(k);
        // The whole caption for screen readers and tooltips; the visible line cut to fit.
        out.push_str("<title>");
        push_escaped(out, &caption);
        out.push_str("</title><text class=\"cap\" x=\"8\" y=\"20\">");
        let room = ((self.size.0 - 16.0) / BOLD_CHAR) as usize;
        if caption.chars().count() > room {
            let cut: String = caption.chars().take(room.saturating_sub(1)).collect();
            push_escaped(out, &cut);
            out.push('\u{2026}');
        } else {
            push_escaped(out, &caption);
        }
        out.push_str("</text>");
    }

    /// What the picture shows, in words (not escaped).
    fn caption(&self, k: Option<usize>) -> String {
        match k.map(|k| (k, self.units.iter().find(|(s, _)| *s == k))) {
            Some((k, Some((_, u)))) => {
                let mut c = format!("Step {k} of {}: {}", self.last_step, u.sku);
                if u.name != u.sku {
                    c.push_str(" \u{2014} ");
                    c.push_str(&u.name);
                }
                for note in notes(u) {
                    c.push_str(", ");
                    c.push_str(&note);
                }
                c
            }
            Some(_) => format!("Empty box {}", self.box_id),
            None => {
                let n = self.units.len();
                let s = if n == 1 { "" } else { "s" };
                format!("Box {}, {n} unit{s}", self.box_id)
            }
        }
    }

    /// The far walls and floor (`back`), or the near walls drawn see-through over the units.
    fn walls(&self, out: &mut String, class: &str, back: bool) {
        let b = self.inner;
        let p = |x, y, z| Point { x, y, z };
        if back {
            self.quad(out, class, p(0.0, 0.0, 0.0), (0, b.width), (2, b.length));
            self.quad(out, class, p(0.0, 0.0, 0.0), (1, b.height), (2, b.length));
            self.quad(
                out,
                class,
                p(0.0, 0.0, b.length),
                (0, b.width),
                (1, b.height),
            );
        } else {
            self.quad(out, class, p(0.0, 0.0, 0.0), (0, b.width), (1, b.height));
            self.quad(
                out,
                class,
                p(b.width, 0.0, 0.0),
                (2, b.length),
                (1, b.height),
            );
        }
    }

    fn front_marker(&self, out: &mut String) {
        let b = self.inner;
        let (x0, y0) = self.at(0.0, 0.0, 0.0);
        let (x1, y1) = self.at(b.width, 0.0, 0.0);
        out.push_str("<path class=\"fe\" d=\"M");
        push_pair(out, x0, y0);
        out.push('L');
        push_pair(out, x1, y1);
        out.push_str("\"/><text class=\"fr\" text-anchor=\"middle\" transform=\"translate(");
        push_pair(out, (x0 + x1) / 2.0 - 8.0, (y0 + y1) / 2.0 + 16.0);
        out.push_str(") rotate(30)\">FRONT</text>");
    }

    /// A unit's group from the end of its class attribute on: step number, the three visible
    /// faces, the "this side up" arrow.
    fn body(&self, step: usize, u: &Unit) -> String {
        let mut out = String::with_capacity(240);
        self.faces(&mut out, step, u);
        out
    }

    fn faces(&self, out: &mut String, step: usize, u: &Unit) {
        let (p, d) = (u.position, u.dimensions);
        out.push_str("\" data-step=\"");
        push_uint(out, step as u64);
        out.push_str("\">");
        let top = Point {
            y: p.y + d.height,
            ..p
        };
        self.quad(out, "t", top, (0, d.width), (2, d.length));
        self.quad(out, "f", p, (0, d.width), (1, d.height));
        let right = Point {
            x: p.x + d.width,
            ..p
        };
        self.quad(out, "r", right, (2, d.length), (1, d.height));
        // The arrow (13 units high) grows with the front face, up to 2.5 times.
        let face = d.height * self.scale;
        if u.orientation.keeps_upright() && face >= 14.0 {
            let (x, y) = self.at(p.x + d.width / 2.0, p.y + d.height / 2.0, p.z);
            out.push_str("<use href=\"#up\" class=\"ar\" transform=\"translate(");
            push_pair(out, x, y);
            out.push_str(") scale(");
            push_num(out, (face / 30.0).clamp(1.0, 2.5));
            out.push_str(")\"/>");
        }
        out.push_str("</g>");
    }

    /// The highlighted unit's outline over everything (it may be hidden behind earlier units)
    /// and its label.
    fn highlight(&self, out: &mut String, u: &Unit) {
        let (p, d) = (u.position, u.dimensions);
        let (x, y) = self.at(p.x, p.y, p.z);
        // The silhouette: right along x, back along z, up, then left and forward; `z` closes it.
        let moves = [
            (0, d.width),
            (2, d.length),
            (1, d.height),
            (0, -d.width),
            (2, -d.length),
        ];
        out.push_str("<path class=\"xo\" d=\"M");
        push_pair(out, x, y);
        for (axis, len) in moves {
            let (dx, dy) = self.along(axis, len);
            out.push('l');
            push_pair(out, dx, dy);
        }
        out.push('z');
        out.push_str("\"/>");
        let (cx, cy) = self.at(p.x + d.width / 2.0, p.y + d.height, p.z + d.length / 2.0);
        // Centred on the top face, moved in from the picture's sides when it would stick out.
        let half = u.sku.chars().count() as f64 * BOLD_CHAR / 2.0 + 4.0;
        let cx = cx.min(self.size.0 - half).max(half);
        out.push_str("<text class=\"lb\" text-anchor=\"middle\" x=\"");
        push_num(out, cx);
        out.push_str("\" y=\"");
        push_num(out, cy + 4.0);
        out.push_str("\">");
        push_escaped(out, &u.sku);
        out.push_str("</text>");
    }
}

fn notes(u: &Unit) -> Vec<String> {
    let mut v = Vec::new();
    if u.orientation.keeps_upright() {
        v.push("this side up".to_string());
    }
    if u.fragile {
        v.push("fragile".to_string());
    }
    if let Some(c) = &u.hazmat_class {
        v.push(format!("hazmat class {c}"));
    }
    v
}

fn push_pair(out: &mut String, x: f64, y: f64) {
    push_num(out, x);
    // A minus sign separates the numbers by itself.
    if (y * 10.0).round() >= 0.0 {
        out.push(' ');
    }
    push_num(out, y);
}
