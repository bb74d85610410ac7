/// SplitMix64: small, fast and identical on every platform (the browser and native sample alike).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    /// A stream per (seed, source sentence, sample): keyed by the sentence's token ids, not by its
    /// place in a batch, so the page (batches of 4) and the CLI (32) draw the same samples.
    pub fn for_item(seed: u64, source: &[u32], sample: usize) -> Self {
        // FNV-1a over the ids.
        let sentence =
            source.iter().fold(0xCBF2_9CE4_8422_2325u64, |h, &t| (h ^ t as u64).wrapping_mul(0x0000_0100_0000_01B3));
        let mut s = Self(seed ^ 0x9E37_79B9_7F4A_7C15);
        let a = s.next_u64() ^ sentence.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut s = Self(a);
        let b = s.next_u64() ^ (sample as u64).wrapping_mul(0x8CB9_2BA7_2F3D_8DD7);
        Self(b)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1) with 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
