//! The generator's random numbers: one independent stream per program of a
//! campaign, a pure function of the campaign's seed and the program's index.
//!
//! The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014), written here rather than
//! taken from a crate so that a campaign's programs stay byte-identical
//! across dependency upgrades: a seed written in a bug report today must
//! give the same program in a year. Bounded draws use Lemire's
//! multiply-and-reject method, so they are unbiased and the same on every
//! machine.
//!
//! [`Rng::from_tape`] draws from a byte string first (a fuzzer's input), so
//! that a coverage-guided fuzzer steers the generator's choices byte by byte.

const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A deterministic source of random choices.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
    tape: Vec<u8>,
    pos: usize,
}

impl Rng {
    /// The stream of program `index` of the campaign of seed `seed`: streams
    /// of different indices are independent, so programs can be generated in
    /// any order, on any number of threads or machines.
    pub fn for_program(seed: u64, index: u64) -> Rng {
        Rng {
            state: mix(seed ^ mix(index.wrapping_add(GAMMA))),
            tape: Vec::new(),
            pos: 0,
        }
    }

    /// A stream that takes its choices from `tape` while it lasts (each
    /// bounded draw reads as few bytes as its bound needs), then from a
    /// SplitMix64 stream seeded by the tape's length.
    pub fn from_tape(tape: &[u8]) -> Rng {
        Rng {
            state: mix(tape.len() as u64),
            tape: tape.to_vec(),
            pos: 0,
        }
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        if self.pos + 8 <= self.tape.len() {
            let mut b = [0u8; 8];
            b.copy_from_slice(&self.tape[self.pos..self.pos + 8]);
            self.pos += 8;
            return u64::from_le_bytes(b);
        }
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }

    /// A number in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        if self.pos < self.tape.len() {
            let need = (64 - (n - 1).leading_zeros()).div_ceil(8) as usize;
            let mut v = 0u64;
            for k in 0..need {
                let b = self.tape.get(self.pos + k).copied().unwrap_or(0);
                v |= u64::from(b) << (8 * k);
            }
            self.pos += need;
            return v % n;
        }
        // Lemire: the high word of x * n, rejecting the few low words that
        // would make some results more likely than others.
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// A number in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        match (hi - lo).checked_add(1) {
            Some(n) => lo + self.below(n),
            None => self.next_u64(),
        }
    }

    /// A signed number in `lo..=hi`.
    pub fn range_i64(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = hi.abs_diff(lo);
        lo.wrapping_add(self.range(0, span) as i64)
    }

    /// True `ppm` times in a million.
    pub fn chance(&mut self, ppm: u32) -> bool {
        self.below(1_000_000) < u64::from(ppm)
    }

    /// True with odds `num` in `den`.
    pub fn ratio(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// An element of `items` (which must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// An index of `weights`, each chosen in proportion to its weight; `None`
    /// when every weight is 0.
    pub fn weighted(&mut self, weights: &[u32]) -> Option<usize> {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        if total == 0 {
            return None;
        }
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < u64::from(w) {
                return Some(i);
            }
            x -= u64::from(w);
        }
        unreachable!("x < total")
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let w = self.next_u64().to_le_bytes();
            let k = (n - out.len()).min(8);
            out.extend_from_slice(&w[..k]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_a_pure_function_of_seed_and_index() {
        let draw = |s, i| {
            let mut r = Rng::for_program(s, i);
            (0..4).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7, 3), draw(7, 3));
        assert_ne!(draw(7, 3), draw(7, 4));
        assert_ne!(draw(7, 3), draw(8, 3));
        // Pinned: a campaign's programs must not change with the code.
        assert_eq!(Rng::for_program(0, 0).next_u64(), 0x568a_9b0b_1a2c_05ec);
    }

    #[test]
    fn bounded_draws_stay_in_bounds_and_reach_every_value() {
        let mut r = Rng::for_program(1, 2);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            let x = r.below(7);
            seen[x as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
        for _ in 0..1000 {
            let x = r.range(10, 12);
            assert!((10..=12).contains(&x));
            let y = r.range_i64(-3, 3);
            assert!((-3..=3).contains(&y));
        }
        assert_eq!(r.range(5, 5), 5);
        assert_eq!(r.below(0), 0);
        let _ = r.range(0, u64::MAX);
    }

    #[test]
    fn weights_choose_in_proportion_and_zero_excludes() {
        let mut r = Rng::for_program(3, 0);
        let mut n = [0u32; 3];
        for _ in 0..4000 {
            n[r.weighted(&[1, 0, 3]).unwrap()] += 1;
        }
        assert_eq!(n[1], 0);
        assert!(n[2] > 2 * n[0], "{n:?}");
        assert_eq!(r.weighted(&[0, 0]), None);
    }

    #[test]
    fn a_tape_decides_the_first_choices() {
        let mut r = Rng::from_tape(&[2, 0xff, 0x01]);
        assert_eq!(r.below(10), 2);
        assert_eq!(r.below(1000), 0x1ff);
        // Past the tape, the stream goes on.
        let _ = r.below(10);
    }
}
