//! The parts of numpy that sacreBLEU's bootstrap depends on, bit for bit:
//! `default_rng(seed)` (SeedSequence + PCG64), `choice(n, size, replace=True)` (Lemire's bounded
//! integers on buffered 32-bit draws), pairwise summation, and NEP 50 scalar promotion.

const M32: u64 = 0xFFFF_FFFF;

/// SeedSequence(entropy).generate_state(n_words), the entropy as numpy splits an int: 32-bit words,
/// least significant first.
fn seed_sequence_state(entropy: &[u32], n_words: usize) -> Vec<u32> {
    const INIT_A: u64 = 0x43b0d7e5;
    const MULT_A: u64 = 0x931e8875;
    const INIT_B: u64 = 0x8b51f9dd;
    const MULT_B: u64 = 0x58f38ded;
    const MIX_L: u64 = 0xca01f9dd;
    const MIX_R: u64 = 0x4973f715;
    let mut hash_const = INIT_A;
    let mut hashmix = |v: u64| {
        let mut v = (v ^ hash_const) & M32;
        hash_const = (hash_const * MULT_A) & M32;
        v = (v * hash_const) & M32;
        v ^ (v >> 16)
    };
    let mix = |x: u64, y: u64| {
        let r = (MIX_L.wrapping_mul(x)).wrapping_sub(MIX_R.wrapping_mul(y)) & M32;
        r ^ (r >> 16)
    };
    let mut pool = [0u64; 4];
    for (i, p) in pool.iter_mut().enumerate() {
        *p = hashmix(entropy.get(i).map_or(0, |&w| w as u64));
    }
    for src in 0..4 {
        for dst in 0..4 {
            if src != dst {
                let h = hashmix(pool[src]);
                pool[dst] = mix(pool[dst], h);
            }
        }
    }
    for &word in entropy.iter().skip(4) {
        for p in pool.iter_mut() {
            let h = hashmix(word as u64);
            *p = mix(*p, h);
        }
    }
    let mut h = INIT_B;
    (0..n_words)
        .map(|i| {
            let mut v = pool[i % 4] ^ h;
            h = (h * MULT_B) & M32;
            v = (v * h) & M32;
            (v ^ (v >> 16)) as u32
        })
        .collect()
}

pub struct Pcg64 {
    state: u128,
    inc: u128,
}

const PCG_MULT: u128 = (2549297995355413924u128 << 64) + 4865540595714422341u128;

impl Pcg64 {
    /// `np.random.default_rng(seed)`'s bit generator, for the seed's entropy words.
    pub fn new(entropy: &[u32]) -> Self {
        let w = seed_sequence_state(entropy, 8);
        let u: Vec<u128> = (0..4).map(|i| (w[2 * i] as u128) | ((w[2 * i + 1] as u128) << 32)).collect();
        let (s, inc) = ((u[0] << 64) | u[1], (u[2] << 64) | u[3]);
        let mut g = Self { state: 0, inc: (inc << 1) | 1 };
        g.step();
        g.state = g.state.wrapping_add(s);
        g.step();
        g
    }
    fn step(&mut self) {
        self.state = self.state.wrapping_mul(PCG_MULT).wrapping_add(self.inc);
    }
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let x = ((self.state >> 64) as u64) ^ (self.state as u64);
        x.rotate_right((self.state >> 122) as u32)
    }
}

/// `default_rng(seed).choice(n, size=count, replace=True)`, flattened in C order.
pub fn choice(seed: &[u32], n: usize, count: usize) -> Vec<usize> {
    let mut g = Pcg64::new(seed);
    let (mut buf, mut have) = (0u64, false);
    let mut next_u32 = || {
        if have {
            buf >>= 32;
        } else {
            buf = g.next_u64();
        }
        have = !have;
        buf & M32
    };
    let rng = (n as u64).saturating_sub(1);
    let excl = rng + 1;
    (0..count)
        .map(|_| {
            if rng == 0 {
                return 0;
            }
            let mut m = next_u32() * excl;
            if (m & M32) < excl {
                let threshold = (M32 - rng) % excl;
                while (m & M32) < threshold {
                    m = next_u32() * excl;
                }
            }
            (m >> 32) as usize
        })
        .collect()
}

/// numpy's pairwise summation (`np.add.reduce` on a contiguous 1-D array).
pub fn pairwise_sum<T: Copy + std::ops::Add<Output = T> + Default>(a: &[T]) -> T {
    let n = a.len();
    if n < 8 {
        let mut res = T::default();
        for &x in a {
            res = res + x;
        }
        res
    } else if n <= 128 {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let mut i = 8;
        while i < n - n % 8 {
            for k in 0..8 {
                r[k] = r[k] + a[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res = res + a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// A scalar as sacreBLEU holds it during a bootstrap: a Python float, or a numpy float32.
/// Mixed arithmetic follows NEP 50: the Python float is cast to float32 first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Py(f64),
    F32(f32),
}

impl Num {
    pub fn value(self) -> f64 {
        match self {
            Num::Py(v) => v,
            Num::F32(v) => v as f64,
        }
    }
    fn f32(self) -> f32 {
        match self {
            Num::Py(v) => v as f32,
            Num::F32(v) => v,
        }
    }
    fn op(self, o: Num, f64op: fn(f64, f64) -> f64, f32op: fn(f32, f32) -> f32) -> Num {
        match (self, o) {
            (Num::Py(a), Num::Py(b)) => Num::Py(f64op(a, b)),
            _ => Num::F32(f32op(self.f32(), o.f32())),
        }
    }
    pub fn is_f32(self) -> bool {
        matches!(self, Num::F32(_))
    }
}

impl std::ops::Add for Num {
    type Output = Num;
    fn add(self, o: Num) -> Num {
        self.op(o, |a, b| a + b, |a, b| a + b)
    }
}
impl std::ops::Sub for Num {
    type Output = Num;
    fn sub(self, o: Num) -> Num {
        self.op(o, |a, b| a - b, |a, b| a - b)
    }
}
impl std::ops::Mul for Num {
    type Output = Num;
    fn mul(self, o: Num) -> Num {
        self.op(o, |a, b| a * b, |a, b| a * b)
    }
}
impl std::ops::Div for Num {
    type Output = Num;
    fn div(self, o: Num) -> Num {
        self.op(o, |a, b| a / b, |a, b| a / b)
    }
}

/// A non-negative integer in ASCII decimal digits as numpy's SeedSequence takes it: 32-bit words,
/// least significant first (`[0]` for zero). None for anything else.
pub fn seed_words(decimal: &str) -> Option<Vec<u32>> {
    let digits = decimal;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut words = vec![0u32];
    for d in digits.bytes() {
        let mut carry = (d - b'0') as u64;
        for w in words.iter_mut() {
            let v = *w as u64 * 10 + carry;
            *w = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            words.push(carry as u32);
        }
    }
    Some(words)
}
