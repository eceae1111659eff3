//! Counters of the reordering module (study notes seed003.md §6.2 item 6: packets held, hold
//! time, forced releases, late arrivals). Every arrival ends in exactly one of `in_order`,
//! `forced`, `late`, `late_dropped`, or is still held: `in_order + forced + late + late_dropped
//! + held() = arrivals`.

use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// Time packets spent held (arrival to release), over the packets that were held: O(1) per
/// sample, exact integer sums.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HoldTime {
    pub count: u64,
    pub total: Time,
    pub max: Time,
}

impl HoldTime {
    #[inline]
    pub fn push(&mut self, t: Time) {
        self.count += 1;
        self.total += t;
        self.max = self.max.max(t);
    }

    /// Mean hold time in ns (0 with no samples).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total as f64 / self.count as f64
        }
    }
}

/// Serialised as `{count, mean_ms, max_ms}`.
impl Serialize for HoldTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ms = MILLISECOND as f64;
        let mut st = s.serialize_struct("HoldTime", 3)?;
        st.serialize_field("count", &self.count)?;
        st.serialize_field("mean_ms", &(self.mean() / ms))?;
        st.serialize_field("max_ms", &(self.max as f64 / ms))?;
        st.end()
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ReorderStats {
    /// Released as `InOrder` (next in sequence, at arrival or when the gap before it filled).
    pub in_order: u64,
    /// Released as `Forced` (behind a gap that was given up).
    pub forced: u64,
    /// Arrivals not released by their own arrival (held for some time); those still held count.
    pub held: u64,
    /// Global sequence numbers given up (one per missing number, not per run of them): by the
    /// wait limit, fast loss detection or a full buffer; `equalize` and `off`: skipped because
    /// a later number was released first.
    pub forced_gaps: u64,
    /// Of `forced_gaps`, those given up by fast loss detection.
    pub fast_loss: u64,
    /// Arrived after their number was given up, forwarded as `Late`.
    pub late: u64,
    /// Arrived after their number was given up, dropped (`late = "drop"`).
    pub late_dropped: u64,
    /// Most packets held at once.
    pub max_held: u64,
    /// Arrival to release, over the held packets.
    pub hold_time: HoldTime,
}
