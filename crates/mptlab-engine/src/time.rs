//! Simulated time: u64 nanoseconds since the start of the run (584 years of headroom).

/// A point in simulated time, or a duration, in nanoseconds.
pub type Time = u64;

pub const NANOSECOND: Time = 1;
pub const MICROSECOND: Time = 1_000;
pub const MILLISECOND: Time = 1_000_000;
pub const SECOND: Time = 1_000_000_000;

/// Seconds as f64, for reporting only (never fed back into the simulation).
#[inline]
pub fn as_secs_f64(t: Time) -> f64 {
    t as f64 / SECOND as f64
}

/// Time to serialise `bytes` at `rate_bps`, rounded up to whole nanoseconds so a link is never
/// faster than configured.
#[inline]
pub fn serialization_time(bytes: u64, rate_bps: u64) -> Time {
    debug_assert!(rate_bps > 0);
    let bits = bytes as u128 * 8 * SECOND as u128;
    bits.div_ceil(rate_bps as u128) as Time
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_of_one_full_packet_at_one_gigabit_is_twelve_microseconds() {
        assert_eq!(serialization_time(1500, 1_000_000_000), 12 * MICROSECOND);
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 byte at 3 bit/s = 2.666.. s
        assert_eq!(serialization_time(1, 3), 2_666_666_667);
    }
}
