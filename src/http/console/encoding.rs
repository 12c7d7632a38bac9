//! Content coding of the console's assets: which coding a request's `Accept-Encoding`
//! allows (Brotli, then gzip, then none), and each asset compressed once, at its first
//! request, at the best ratio (the assets are fixed for the life of the binary).

use std::io::Write;
use std::sync::OnceLock;

/// A content coding the console serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Brotli,
    Gzip,
    Identity,
}

impl Coding {
    /// The `Content-Encoding` value; `None` for identity.
    pub fn header(self) -> Option<&'static str> {
        match self {
            Coding::Brotli => Some("br"),
            Coding::Gzip => Some("gzip"),
            Coding::Identity => None,
        }
    }

    /// Appended to the asset's ETag, so each representation has its own strong tag.
    pub fn tag_suffix(self) -> &'static str {
        match self {
            Coding::Brotli => "-br",
            Coding::Gzip => "-gz",
            Coding::Identity => "",
        }
    }
}

/// The codings an `Accept-Encoding` value accepts, best first (`br`, then `gzip`); a
/// coding with `q=0` is refused, `*` stands for any coding not named.
pub fn acceptable(header: Option<&str>) -> Vec<Coding> {
    let Some(header) = header else {
        return Vec::new();
    };
    let mut named = Vec::new();
    let mut star = None;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
            .find_map(|v| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if name == "*" {
            star = Some(q > 0.0);
        } else {
            named.push((name, q > 0.0));
        }
    }
    [("br", Coding::Brotli), ("gzip", Coding::Gzip)]
        .into_iter()
        .filter(|(name, _)| match named.iter().find(|(n, _)| n == name) {
            Some((_, ok)) => *ok,
            None => star.unwrap_or(false),
        })
        .map(|(_, c)| c)
        .collect()
}

/// One asset's compressed forms, made on first use.
pub struct Compressed {
    brotli: OnceLock<Vec<u8>>,
    gzip: OnceLock<Vec<u8>>,
}

impl Compressed {
    pub const fn new() -> Compressed {
        Compressed {
            brotli: OnceLock::new(),
            gzip: OnceLock::new(),
        }
    }

    /// `raw` in `coding`, or `None` when that coding would not make it smaller.
    pub fn get(&self, coding: Coding, raw: &[u8]) -> Option<&[u8]> {
        let out = match coding {
            Coding::Brotli => self.brotli.get_or_init(|| brotli(raw)),
            Coding::Gzip => self.gzip.get_or_init(|| gzip(raw)),
            Coding::Identity => return None,
        };
        (out.len() < raw.len()).then_some(out.as_slice())
    }
}

fn brotli(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() / 3);
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &raw[..], &mut out, &params).expect("compressing in memory");
    out
}

fn gzip(raw: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(
        Vec::with_capacity(raw.len() / 3),
        flate2::Compression::best(),
    );
    enc.write_all(raw).expect("compressing in memory");
    enc.finish().expect("compressing in memory")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn accept_encoding_picks_br_then_gzip_and_honours_q_zero() {
        use Coding::*;
        assert_eq!(acceptable(None), vec![]);
        assert_eq!(
            acceptable(Some("gzip, deflate, br, zstd")),
            vec![Brotli, Gzip]
        );
        assert_eq!(acceptable(Some("gzip")), vec![Gzip]);
        assert_eq!(acceptable(Some("br;q=0, gzip;q=0.5")), vec![Gzip]);
        assert_eq!(acceptable(Some("*")), vec![Brotli, Gzip]);
        assert_eq!(acceptable(Some("*;q=0, gzip")), vec![Gzip]);
        assert_eq!(acceptable(Some("identity")), vec![]);
        assert_eq!(acceptable(Some("GZIP;Q=1")), vec![Gzip]);
    }

    #[test]
    fn compressed_forms_decode_to_the_original() {
        let raw = "export const x = 1;\n".repeat(200);
        let c = Compressed::new();
        let gz = c.get(Coding::Gzip, raw.as_bytes()).unwrap();
        let mut back = String::new();
        flate2::read::GzDecoder::new(gz)
            .read_to_string(&mut back)
            .unwrap();
        assert_eq!(back, raw);
        let br = c.get(Coding::Brotli, raw.as_bytes()).unwrap();
        let mut back = Vec::new();
        brotli::BrotliDecompress(&mut &br[..], &mut back).unwrap();
        assert_eq!(back, raw.as_bytes());
        assert!(br.len() < raw.len() / 10);
        // Nothing to gain: served as it is.
        assert!(Compressed::new().get(Coding::Gzip, b"x").is_none());
    }
}
