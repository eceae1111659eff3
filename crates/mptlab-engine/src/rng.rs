//! Per-component random streams.
//!
//! Every random component (a lossy link, a Poisson source, ...) draws from its own stream, seeded
//! from (run seed, stable component id) through SplitMix64 mixing. Adding a flow therefore never
//! changes the numbers another component sees. The generator is xoshiro256++ (rand_xoshiro).

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A stable identity for a random stream: a component kind tag and an index or name hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamId {
    pub kind: u64,
    pub index: u64,
}

impl StreamId {
    pub const fn new(kind: u64, index: u64) -> Self {
        Self { kind, index }
    }

    /// A stream named by a string (e.g. a link's scenario id), stable across runs and platforms.
    pub fn named(kind: u64, name: &str) -> Self {
        // FNV-1a: stable, dependency-free, good enough to separate names before SplitMix mixing.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.as_bytes() {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        Self { kind, index: h }
    }
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub struct RngStream {
    inner: Xoshiro256PlusPlus,
}

impl RngStream {
    pub fn new(seed: u64, id: StreamId) -> Self {
        let s = splitmix64(splitmix64(seed ^ splitmix64(id.kind)) ^ id.index);
        Self { inner: Xoshiro256PlusPlus::seed_from_u64(s) }
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.inner.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Exponentially distributed with the given mean (inverse transform).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_id_give_the_same_stream() {
        let mut a = RngStream::new(7, StreamId::new(1, 2));
        let mut b = RngStream::new(7, StreamId::new(1, 2));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn different_ids_or_seeds_give_different_streams() {
        let x = RngStream::new(7, StreamId::new(1, 2)).next_u64();
        assert_ne!(x, RngStream::new(7, StreamId::new(1, 3)).next_u64());
        assert_ne!(x, RngStream::new(8, StreamId::new(1, 2)).next_u64());
        assert_ne!(x, RngStream::new(7, StreamId::new(2, 2)).next_u64());
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = RngStream::new(1, StreamId::named(3, "link"));
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
    }

    #[test]
    fn exponential_mean_matches() {
        let mut r = RngStream::new(1, StreamId::new(9, 9));
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.exponential(3.0)).sum::<f64>() / n as f64;
        assert!((mean - 3.0).abs() < 0.05, "{mean}");
    }
}
