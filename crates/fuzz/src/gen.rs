//! Seeded generation of adversarial text: every input is a pure function of (seed, target, index).

use crate::samples::{CJK, COMBINING, EMOJI, INVISIBLE, LATIN, MARKUP, NUMBERS, PUNCT, RTL, SEPARATORS, TINY};

/// splitmix64: tiny, fast and good enough to drive a fuzzer.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// The generator of one input, so that any input can be replayed from its index alone.
    pub fn for_input(seed: u64, target: &str, index: u64) -> Self {
        let name_hash =
            target.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        let mut mixer = Rng(seed ^ name_hash);
        let base = mixer.next_u64();
        Rng(base ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Which words a line is made of.
#[derive(Debug, Clone, Copy)]
enum Palette {
    /// Three words only: many equal n-grams, the worst case for TER's shift search.
    Tiny,
    Latin,
    Mixed,
}

fn random_char(rng: &mut Rng) -> char {
    loop {
        let limit = match rng.below(4) {
            0 => 0x80,
            1 => 0x3000,
            2 => 0x1_0000,
            _ => 0x11_0000,
        };
        if let Some(c) = char::from_u32(rng.below(limit) as u32) {
            return c;
        }
    }
}

fn random_word(rng: &mut Rng) -> String {
    (0..rng.between(1, 6)).map(|_| random_char(rng)).collect()
}

fn ascii_word(rng: &mut Rng) -> String {
    (0..rng.between(1, 8)).map(|_| rng.between(0x21, 0x7e) as u8 as char).collect()
}

fn word(rng: &mut Rng, palette: Palette) -> String {
    match palette {
        Palette::Tiny => rng.pick(TINY).to_string(),
        Palette::Latin => rng.pick(LATIN).to_string(),
        Palette::Mixed => match rng.below(12) {
            0 | 1 => rng.pick(LATIN).to_string(),
            2 => rng.pick(NUMBERS).to_string(),
            3 => rng.pick(PUNCT).to_string(),
            4 => rng.pick(MARKUP).to_string(),
            5 => rng.pick(CJK).to_string(),
            6 => rng.pick(EMOJI).to_string(),
            7 => rng.pick(COMBINING).to_string(),
            8 => rng.pick(RTL).to_string(),
            9 => rng.pick(INVISIBLE).to_string(),
            10 => ascii_word(rng),
            _ => random_word(rng),
        },
    }
}

/// Glue between two words: usually one space, sometimes any Unicode (or Python) whitespace.
fn separator(rng: &mut Rng) -> &'static str {
    if rng.one_in(6) {
        rng.pick(SEPARATORS)
    } else {
        " "
    }
}

/// Text lines with a bounded number of words.
#[derive(Debug, Clone, Copy)]
pub struct TextGen {
    /// Most words a line may have (lines are short most of the time).
    pub max_words: usize,
}

impl TextGen {
    pub fn words_in_line(&self, rng: &mut Rng) -> usize {
        let cap = match rng.below(100) {
            0..=69 => 12,
            70..=96 => 40,
            _ => self.max_words,
        };
        rng.between(0, cap.min(self.max_words))
    }

    fn palette(rng: &mut Rng) -> Palette {
        match rng.below(4) {
            0 => Palette::Tiny,
            1 => Palette::Latin,
            _ => Palette::Mixed,
        }
    }

    pub fn line(&self, rng: &mut Rng) -> String {
        let palette = Self::palette(rng);
        let words: Vec<String> = (0..self.words_in_line(rng)).map(|_| word(rng, palette)).collect();
        Self::join(rng, &words)
    }

    fn join(rng: &mut Rng, words: &[String]) -> String {
        let mut out = String::new();
        if rng.one_in(10) {
            out.push_str(separator(rng));
        }
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                out.push_str(separator(rng));
            }
            out.push_str(w);
        }
        if rng.one_in(10) {
            out.push_str(rng.pick(SEPARATORS));
        }
        out
    }

    /// A line sharing words with `base`: blocks shifted, words dropped, inserted, swapped or repeated.
    pub fn variant(&self, rng: &mut Rng, base: &str) -> String {
        let mut words: Vec<String> = base.split(' ').map(str::to_string).collect();
        let palette = Self::palette(rng);
        for _ in 0..rng.between(1, 4) {
            let n = words.len();
            if n == 0 {
                words.push(word(rng, palette));
                continue;
            }
            let (i, len) = (rng.below(n), rng.between(1, 6));
            let block: Vec<String> = words.drain(i..(i + len).min(n)).collect();
            match rng.below(6) {
                0 => {} // deleted
                1 => {
                    let at = rng.below(words.len() + 1);
                    words.splice(at..at, block);
                }
                2 => {
                    let at = rng.below(words.len() + 1);
                    words.splice(at..at, block.iter().cloned().chain(block.iter().cloned()));
                }
                3 => {
                    words.splice(i..i, block.into_iter().rev());
                }
                4 => {
                    words.splice(i..i, block.into_iter().chain([word(rng, palette)]));
                }
                _ => {
                    words.splice(i..i, block.iter().map(|w| w.to_uppercase()));
                }
            }
        }
        if words.len() > self.max_words {
            words.truncate(self.max_words);
        }
        words.join(" ")
    }

    /// Several lines joined by mixed line ends, with sentence ends and closing quotes sprinkled in.
    pub fn text(&self, rng: &mut Rng) -> String {
        let mut out = String::new();
        for i in 0..rng.between(0, 5) {
            if i > 0 {
                out.push_str(rng.pick(&["\n", "\r\n", "\r", "\n\n", "\u{2028}"]));
            }
            let line = self.line(rng);
            for w in line.split(' ') {
                out.push_str(w);
                if rng.one_in(4) {
                    out.push_str(rng.pick(&[".", "!", "?", "…", ".\"", "?)", "!»", ".’", "...", ".'\""]));
                }
                out.push_str(separator(rng));
            }
        }
        out
    }
}
