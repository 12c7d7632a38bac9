//! Printing as a packer's printer would: an HTML page printed to PDF by Chromium itself
//! (`--headless --print-to-pdf`, Debian `chromium`), the PDF's page size read by `pdfinfo`
//! and its first page rasterized by `pdftoppm` (Debian `poppler-utils`), and the Code 128
//! barcodes on it decoded by `rxing` (a port of ZXing).

use std::path::{Path, PathBuf};
use std::process::Command;

use rxing::{BarcodeFormat, DecodeHints};

/// Whether the outside programs can run; `false` (saying so) when one is missing, unless
/// `FULFILLD_REQUIRE_CHROMIUM` is set, as CI sets it; then a panic.
pub fn printing_available() -> bool {
    for (program, version, package) in [
        ("chromium", "--version", "chromium"),
        ("pdftoppm", "-v", "poppler-utils"),
        ("pdfinfo", "-v", "poppler-utils"),
    ] {
        if let Err(e) = Command::new(program).arg(version).output() {
            if std::env::var_os("FULFILLD_REQUIRE_CHROMIUM").is_some() {
                panic!("{program} is required here: {e}");
            }
            eprintln!("print test not run ({program}: {e}); install the Debian package {package}");
            return false;
        }
    }
    true
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("the program starts");
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Prints `html` (a self-contained page) to a PDF in `dir` with headless Chromium; its path.
pub fn print_to_pdf(dir: &Path, html: &str) -> PathBuf {
    let page = dir.join("page.html");
    std::fs::write(&page, html).unwrap();
    let pdf = dir.join("page.pdf");
    run(Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-crash-reporter",
            "--no-pdf-header-footer",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(format!("file://{}", page.display())));
    assert!(std::fs::metadata(&pdf)
        .map(|m| m.len() > 0)
        .unwrap_or(false));
    pdf
}

/// `pdfinfo`'s fields: (pages, the "Page size" line).
pub fn pdf_info(pdf: &Path) -> (u32, String) {
    let out = run(Command::new("pdfinfo").arg(pdf));
    let field = |name: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| panic!("pdfinfo has no {name}: {out}"))
    };
    (field("Pages:").parse().unwrap(), field("Page size:"))
}

/// A grey-scale raster: width, height and one byte per pixel, rows from the top.
pub struct Gray {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

/// The first page of `pdf` rasterized at `dpi` (a binary PGM from `pdftoppm -gray`).
pub fn rasterize(pdf: &Path, dpi: u32) -> Gray {
    let prefix = pdf.with_extension("");
    run(Command::new("pdftoppm")
        .args(["-gray", "-singlefile", "-f", "1", "-l", "1", "-r"])
        .arg(dpi.to_string())
        .arg(pdf)
        .arg(&prefix));
    parse_pgm(&std::fs::read(prefix.with_extension("pgm")).unwrap())
}

/// A binary PGM (`P5`, 8 bits): the header's four tokens, then the pixels.
fn parse_pgm(data: &[u8]) -> Gray {
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while data[at].is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while !data[at].is_ascii_whitespace() {
            at += 1;
        }
        fields.push(std::str::from_utf8(&data[start..at]).unwrap().to_string());
    }
    assert_eq!((fields[0].as_str(), fields[3].as_str()), ("P5", "255"));
    let (width, height): (u32, u32) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
    let pixels = data[at + 1..].to_vec();
    assert_eq!(pixels.len(), (width * height) as usize);
    Gray {
        width,
        height,
        pixels,
    }
}

/// The text of the Code 128 barcode in the top `fraction` of the page, if one decodes.
pub fn decode_code128(page: &Gray, fraction: f64) -> Option<String> {
    let rows = ((f64::from(page.height) * fraction) as u32).clamp(1, page.height);
    let top = page.pixels[..(page.width * rows) as usize].to_vec();
    let mut hints = DecodeHints::default();
    rxing::helpers::detect_in_luma_with_hints(
        top,
        page.width,
        rows,
        Some(BarcodeFormat::CODE_128),
        &mut hints,
    )
    .ok()
    .map(|r| r.getText().to_string())
}
