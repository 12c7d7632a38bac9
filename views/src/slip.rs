//! The printable packing slip of one package: an HTML page for A4 or US letter with the order
//! reference, ship-to address, contents, box, final diagram and a Code 128 barcode of the
//! package id.

use crate::markup::push_escaped;
use crate::markup::push_num;
use crate::model::Size;
use barcoders::generators::svg::SVG;
use barcoders::sym::code128::Code128;

/// The paper the slip is laid out for (`@page` size); the content fits either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PaperSize {
    #[default]
    A4,
    Letter,
}

/// One line of the contents.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentLine {
    pub sku: String,
    pub name: String,
    pub quantity: u32,
}

/// What a packing slip shows. All text is escaped when rendered.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Slip {
    pub package_id: String,
    pub order_reference: String,
    /// The ship-to address, one line each (name first).
    pub ship_to: Vec<String>,
    pub contents: Vec<ContentLine>,
    pub box_id: String,
    pub box_inner: Size,
    /// The length unit of `box_inner`, e.g. `in` or `cm`.
    pub length_unit: String,
    /// The complete box's diagram ([`crate::diagram`] with no step), embedded as it is.
    pub diagram_svg: String,
    pub paper: PaperSize,
}

/// Width of the barcode's narrowest bar; scanners read 0.25 mm and up.
const MODULE_MM: f64 = 0.3;

const STYLE: &str = "body{font:11pt/1.35 sans-serif;color:#000;margin:0}\
.slip-page{max-width:186mm;margin:0 auto}\
.slip-head{display:flex;justify-content:space-between;align-items:flex-start;\
border-bottom:2px solid #000;padding-bottom:3mm}\
.slip-head h1{font-size:18pt;margin:0 0 1mm}\
.slip-code{text-align:center;font:10pt monospace}\
.slip-code svg{display:block;height:16mm;padding:0 4mm;background:#fff}\
.slip-cols{display:flex;gap:8mm;margin:4mm 0}\
.slip-cols>div{flex:1}\
.slip-cols h2,.slip-contents h2{font-size:11pt;margin:0 0 1mm;text-transform:uppercase}\
.slip-contents table{width:100%;border-collapse:collapse}\
.slip-contents th,.slip-contents td{border-bottom:1px solid #999;padding:1mm 2mm;text-align:left}\
.slip-contents td.q,.slip-contents th.q{text-align:right;width:18mm}\
.slip-diagram{margin-top:4mm;text-align:center;break-inside:avoid}\
.slip-diagram svg{width:100%;height:auto;max-height:130mm}\
@media screen{body{padding:10mm}}@media print{.slip-page{max-width:none}}";

/// The slip as a complete HTML document.
pub fn slip_html(s: &Slip) -> String {
    let mut out = String::with_capacity(4096 + s.diagram_svg.len());
    out.push_str("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    out.push_str("Packing slip ");
    push_escaped(&mut out, &s.package_id);
    out.push_str("</title><style>@page{size:");
    out.push_str(match s.paper {
        PaperSize::A4 => "A4",
        PaperSize::Letter => "letter",
    });
    out.push_str(";margin:12mm}");
    out.push_str(STYLE);
    out.push_str("</style></head><body><div class=\"slip-page\"><div class=\"slip-head\"><div>");
    out.push_str("<h1>Packing slip</h1><div>Order <b>");
    push_escaped(&mut out, &s.order_reference);
    out.push_str("</b></div><div>Package ");
    push_escaped(&mut out, &s.package_id);
    out.push_str("</div></div><div class=\"slip-code\">");
    out.push_str(&barcode(&s.package_id));
    push_escaped(&mut out, &s.package_id);
    out.push_str("</div></div><div class=\"slip-cols\"><div><h2>Ship to</h2>");
    for line in &s.ship_to {
        out.push_str("<div>");
        push_escaped(&mut out, line);
        out.push_str("</div>");
    }
    out.push_str("</div><div><h2>Box</h2><div>");
    push_escaped(&mut out, &s.box_id);
    out.push_str("</div><div>");
    for (i, v) in [s.box_inner.width, s.box_inner.height, s.box_inner.length]
        .into_iter()
        .enumerate()
    {
        if i > 0 {
            out.push_str(" \u{00d7} ");
        }
        push_num(&mut out, v);
    }
    out.push(' ');
    push_escaped(&mut out, &s.length_unit);
    out.push_str(" (W \u{00d7} H \u{00d7} L, inside)</div><div>");
    let units: u64 = s.contents.iter().map(|c| u64::from(c.quantity)).sum();
    out.push_str(&format!(
        "{units} unit{}</div></div></div>",
        if units == 1 { "" } else { "s" }
    ));
    out.push_str("<div class=\"slip-contents\"><h2>Contents</h2><table><thead><tr><th>SKU</th>");
    out.push_str("<th>Item</th><th class=\"q\">Qty</th></tr></thead><tbody>");
    for c in &s.contents {
        out.push_str("<tr><td>");
        push_escaped(&mut out, &c.sku);
        out.push_str("</td><td>");
        push_escaped(&mut out, &c.name);
        out.push_str(&format!("</td><td class=\"q\">{}</td></tr>", c.quantity));
    }
    out.push_str("</tbody></table></div><div class=\"slip-diagram\">");
    out.push_str(&s.diagram_svg);
    out.push_str("</div></div></body></html>");
    out
}

/// The Code 128 barcode (character set B) of `text` as inline SVG sized for printing; empty
/// when `text` has characters Code 128 cannot carry (the id is printed below it anyway).
fn barcode(text: &str) -> String {
    if text.is_empty() || !text.chars().all(|c| (' '..='~').contains(&c)) {
        return String::new();
    }
    let Ok(code) = Code128::new(format!("\u{0181}{text}")) else {
        return String::new();
    };
    let bars = code.encode();
    let Ok(svg) = SVG::new(60).generate(&bars) else {
        return String::new();
    };
    let width = format!("{:.1}", bars.len() as f64 * MODULE_MM);
    svg.replacen(
        "<svg ",
        &format!(
            "<svg role=\"img\" aria-label=\"barcode\" shape-rendering=\"crispEdges\" \
             style=\"width:{width}mm\" "
        ),
        1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slip() -> Slip {
        Slip {
            package_id: "pkg_WH1_M_ab12".into(),
            order_reference: "SO-1001 <rush>".into(),
            ship_to: vec!["Ann O'Neil".into(), "1 Main St & Co".into()],
            contents: vec![
                ContentLine {
                    sku: "SKU-1".into(),
                    name: "Mug \"XL\"".into(),
                    quantity: 2,
                },
                ContentLine {
                    sku: "SKU-2".into(),
                    name: "Plate".into(),
                    quantity: 1,
                },
            ],
            box_id: "M".into(),
            box_inner: Size {
                width: 10.0,
                height: 8.0,
                length: 6.5,
            },
            length_unit: "in".into(),
            diagram_svg: "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>".into(),
            paper: PaperSize::Letter,
        }
    }

    #[test]
    fn text_is_escaped_and_the_page_size_follows_the_paper() {
        let html = slip_html(&slip());
        assert!(html.contains("SO-1001 &lt;rush&gt;"));
        assert!(html.contains("Ann O&#39;Neil") && html.contains("1 Main St &amp; Co"));
        assert!(html.contains("Mug &quot;XL&quot;"));
        assert!(!html.contains("<rush>"));
        assert!(html.contains("@page{size:letter;"));
        assert!(html.contains("10 \u{00d7} 8 \u{00d7} 6.5 in"));
        assert!(html.contains("3 units"));
        assert!(html.contains(&slip().diagram_svg));
        assert!(html.contains("aria-label=\"barcode\""));
        let a4 = slip_html(&Slip {
            paper: PaperSize::A4,
            ..slip()
        });
        assert!(a4.contains("@page{size:A4;"));
    }

    #[test]
    fn the_barcode_is_code_128_of_the_package_id() {
        let svg = barcode("pkg_WH1_M_ab12");
        // Start B, 14 characters, checksum: 11 modules each, and the 13-module stop.
        let expected = Code128::new("\u{0181}pkg_WH1_M_ab12").unwrap().encode();
        assert_eq!(expected.len(), 11 * 16 + 13);
        assert!(svg.starts_with("<svg role=\"img\""));
        assert!(svg.contains(&format!("viewBox=\"0 0 {} 60\"", expected.len())));
        // One black rect per dark module, in the encoder's order.
        let dark: Vec<usize> = (0..expected.len()).filter(|&i| expected[i] == 1).collect();
        let drawn: Vec<usize> = svg
            .split("<rect x=\"")
            .skip(2)
            .map(|r| r[..r.find('"').unwrap()].parse().unwrap())
            .collect();
        assert_eq!(drawn, dark);
        assert_eq!(barcode("caf\u{e9}"), "");
        assert_eq!(barcode(""), "");
    }
}
