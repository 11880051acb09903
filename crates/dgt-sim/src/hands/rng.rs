//! [`HandRng`]: the generator's own seeded random numbers. Scripts must come out the same
//! from the same seed on every build and every version of every dependency, so the
//! generator (xoshiro256**, seeded through SplitMix64) is written out here rather than
//! taken from a crate whose streams may change between versions.

/// A small, fast, seedable random number generator (xoshiro256**).
#[derive(Debug, Clone)]
pub struct HandRng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl HandRng {
    /// The stream for `seed`.
    pub fn new(seed: u64) -> HandRng {
        let mut st = seed;
        HandRng {
            s: [
                splitmix64(&mut st),
                splitmix64(&mut st),
                splitmix64(&mut st),
                splitmix64(&mut st),
            ],
        }
    }

    /// An independent stream derived from `seed` and a label (one per ply, one per
    /// purpose), so that a choice made in one place does not shift every later one.
    pub fn derived(seed: u64, label: u64) -> HandRng {
        let mut st = seed ^ label.wrapping_mul(0xD1B5_4A32_D192_ED03);
        HandRng::new(splitmix64(&mut st))
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (clamped to `[0, 1]`).
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    /// Uniform in `lo..=hi` (`lo` if the range is empty).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo + 1;
        // Multiply-shift: unbiased enough for timings and choices.
        lo + ((u128::from(self.next_u64()) * u128::from(span)) >> 64) as u64
    }

    /// Uniform in `0..n` (`0` when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        self.range(0, n as u64 - 1) as usize
    }

    /// One of `items`, uniformly.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.index(items.len()))
        }
    }

    /// An index drawn with the given non-negative weights (`0` if all are zero).
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().filter(|w| **w > 0.0).sum();
        if total <= 0.0 {
            return 0;
        }
        let mut x = self.unit() * total;
        for (i, w) in weights.iter().enumerate() {
            if *w > 0.0 {
                if x < *w {
                    return i;
                }
                x -= w;
            }
        }
        weights.len() - 1
    }

    /// Shuffles in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }

    /// A standard normal deviate (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit(); // (0, 1]: ln is finite
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// A log-normal deviate with median 1 and the given spread (think times: most short,
    /// a few very long).
    pub fn lognormal(&mut self, sigma: f64) -> f64 {
        (sigma * self.normal()).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_different_seed_different_stream() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut r = HandRng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..8)
            .map({
                let mut r = HandRng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..8)
            .map({
                let mut r = HandRng::new(8);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(
            HandRng::derived(7, 1).next_u64(),
            HandRng::derived(7, 2).next_u64()
        );
    }

    #[test]
    fn ranges_stay_in_bounds_and_cover_them() {
        let mut r = HandRng::new(1);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let x = r.range(10, 14);
            assert!((10..=14).contains(&x));
            seen[(x - 10) as usize] = true;
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert!(seen.iter().all(|s| *s), "{seen:?}");
        assert_eq!(r.range(5, 5), 5);
        assert_eq!(r.range(6, 5), 6);
        assert_eq!(r.index(0), 0);
    }

    #[test]
    fn weights_are_respected() {
        let mut r = HandRng::new(3);
        let mut counts = [0usize; 3];
        for _ in 0..10_000 {
            counts[r.weighted(&[1.0, 0.0, 3.0])] += 1;
        }
        assert_eq!(counts[1], 0);
        // 1:3 within a generous tolerance.
        assert!((2000..3000).contains(&counts[0]), "{counts:?}");
    }

    #[test]
    fn lognormal_median_is_about_one() {
        let mut r = HandRng::new(5);
        let mut xs: Vec<f64> = (0..4001).map(|_| r.lognormal(0.8)).collect();
        xs.sort_by(f64::total_cmp);
        let median = xs[2000];
        assert!((0.9..1.1).contains(&median), "{median}");
        assert!(xs.iter().all(|x| *x > 0.0));
    }
}
