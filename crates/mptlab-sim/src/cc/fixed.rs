//! A fixed window: cwnd stays at the initial window, whatever happens (scratch example of the
//! registry: one file and one registry line).
//!
//! Source: RFC 5681 §3.1's initial window IW held constant, the "fixed window" baseline of
//! Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988 (the sender before slow start).

use super::{AckEvent, CcParams, CongestionControl, LossEvent};

pub struct Fixed {
    cwnd: u64,
}

impl Fixed {
    pub fn new(p: CcParams) -> Self {
        Fixed { cwnd: p.initial_cwnd_segments.max(1) as u64 * p.mss as u64 }
    }
}

impl CongestionControl for Fixed {
    fn on_ack(&mut self, _ev: &AckEvent) {}
    fn on_congestion_event(&mut self, _ev: &LossEvent) {}
    fn on_rto(&mut self, _ev: &LossEvent) {}
    fn window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }
    fn reads_rate_samples(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_never_moves() {
        let mut c = Fixed::new(CcParams { mss: 1000, initial_cwnd_segments: 4 });
        c.on_ack(&AckEvent { bytes_acked: 4000, ..Default::default() });
        c.on_congestion_event(&LossEvent { flight_size: 4000, mss: 1000, ..Default::default() });
        c.on_rto(&LossEvent::default());
        assert_eq!(c.window(), 4000);
    }
}
