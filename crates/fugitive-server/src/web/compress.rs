//! The web client's files compressed once at start-up (`assets.rs`): gzip and brotli at their
//! best, each file in the smallest brotli window that holds it.

use std::io::Write;

pub(super) fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    encoder.write_all(bytes).and_then(|()| encoder.finish()).unwrap_or_default()
}

/// Brotli's best (quality 11) in a release build: 9 % smaller than quality 5 for this client, at
/// 15 times its time (the whole client at start-up: 1.5 s on stop 38's machine, 2.7–2.9 s on
/// stop 40's, 5–7 s on a loaded one; the log's `ms`). A debug build, which every test
/// starts again and again, and whose generic brotli code is not optimised, uses quality 4:
/// qualities 5 to 9 in a window of 16 bits or less (most files, [`window_bits`]) ask for
/// hashers this crate lacks, and it falls back to one that takes 33 MiB.
const BROTLI_QUALITY: i32 = if cfg!(debug_assertions) { 4 } else { 11 };

/// Brotli's window for `len` bytes: the smallest that holds them all (brotli's windows are
/// 2^bits − 16 bytes, 10 to 24 bits), so a match may reach as far back as in any larger one and
/// the output is the same size, while quality 11's hasher allocates 8 bytes per byte of window:
/// 32 MiB for every file at a fixed 22 bits, which the server kept for its first seconds
/// (issue 28).
fn window_bits(len: usize) -> i32 {
    let mut bits = 10;
    while bits < 24 && (1usize << bits) - 16 < len {
        bits += 1;
    }
    bits
}

pub(super) fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY,
        lgwin: window_bits(bytes.len()),
        ..Default::default()
    };
    // Reading from a slice and writing to a Vec cannot fail.
    match brotli::BrotliCompress(&mut &bytes[..], &mut out, &params) {
        Ok(_) => out,
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn each_file_is_compressed_in_a_window_that_holds_it_all() {
        assert_eq!(window_bits(0), 10);
        assert_eq!(window_bits(1008), 10);
        assert_eq!(window_bits(1009), 11);
        assert_eq!(window_bits(100_000), 17);
        assert_eq!(window_bits(usize::MAX), 24);
        // Files whose second half repeats their first: the match reaches back half the file,
        // which only a window that holds it all finds.
        let mut rng = StdRng::seed_from_u64(39);
        let mut noise = |len: usize| -> Vec<u8> { (0..len).map(|_| rng.random_range(b'a'..=b'z')).collect() };
        for half in [500, 504, 3_000, 40_000, 150_000] {
            let first = noise(half);
            let file = [first.clone(), first].concat();
            let compressed = brotli(&file);
            let mut decoded = Vec::new();
            brotli::BrotliDecompress(&mut &compressed[..], &mut decoded).unwrap();
            assert!(decoded == file, "{} bytes decode to themselves", file.len());
            assert!(
                compressed.len() < half * 7 / 10,
                "{} bytes: {} compressed",
                file.len(),
                compressed.len()
            );
        }
    }
}
