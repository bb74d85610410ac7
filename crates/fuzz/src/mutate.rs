//! Byte-level mutation of seed files (bit flips, splices, truncation, JSON-ish tokens, numbers).

use crate::gen::Rng;
use crate::samples::{BYTES, TOKENS, WORDS};

/// Applies 1–4 (sometimes up to 16) random edits at positions below `within` (the rest of `data`
/// is kept); `donor` supplies spliced-in bytes.
pub fn mutate(rng: &mut Rng, data: &[u8], within: usize, donor: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    let edits = if rng.one_in(8) { rng.between(1, 16) } else { rng.between(1, 4) };
    for _ in 0..edits {
        edit(rng, &mut out, within, donor);
    }
    out
}

fn edit(rng: &mut Rng, out: &mut Vec<u8>, within: usize, donor: &[u8]) {
    let limit = within.min(out.len());
    let at = if limit == 0 { 0 } else { rng.below(limit + 1) };
    let end = |rng: &mut Rng, out: &Vec<u8>| (at + rng.between(1, 16)).min(out.len());
    match rng.below(10) {
        0 | 1 if at < out.len() => out[at] ^= 1 << rng.below(8),
        2 if at < out.len() => out[at] = rng.pick(BYTES),
        3 => {
            let bytes = rng.next_u64().to_le_bytes();
            out.splice(at..at, bytes[..rng.between(1, 8)].iter().copied());
        }
        4 => {
            out.splice(at..at, rng.pick(TOKENS).bytes());
        }
        5 => {
            let e = end(rng, out);
            out.drain(at..e);
        }
        6 => {
            let e = end(rng, out);
            let copy = out[at..e].to_vec();
            let to = rng.below(limit + 1).min(out.len());
            out.splice(to..to, copy);
        }
        7 if !donor.is_empty() => {
            let from = rng.below(donor.len());
            let take = rng.between(1, 64).min(donor.len() - from);
            let e = end(rng, out);
            out.splice(at..e, donor[from..from + take].iter().copied());
        }
        8 => out.truncate(at),
        _ => {
            let word = rng.pick(WORDS).to_le_bytes();
            let e = (at + 8).min(out.len());
            out.splice(at..e, word);
        }
    }
}

/// Rewrites one run of ASCII digits at or after a random position (JSON numbers: shapes, offsets).
pub fn tweak_number(rng: &mut Rng, data: &mut Vec<u8>, within: usize) {
    let limit = within.min(data.len());
    if limit == 0 {
        return;
    }
    let Some(start) = (rng.below(limit)..limit).find(|&i| data[i].is_ascii_digit()) else {
        return;
    };
    let end = (start..data.len()).find(|&i| !data[i].is_ascii_digit()).unwrap_or(data.len());
    let number = match rng.below(4) {
        0 => rng.pick(WORDS).to_string(),
        1 => (rng.next_u64() % 1000).to_string(),
        2 => "0".to_string(),
        _ => {
            let old: u64 = std::str::from_utf8(&data[start..end]).ok().and_then(|s| s.parse().ok()).unwrap_or(0);
            old.wrapping_add(rng.pick(&[1, 2, u64::MAX, u64::MAX - 1])).to_string()
        }
    };
    data.splice(start..end, number.bytes());
}
