//! Cache prefetch hints. A packet in flight is written when sent and read one path delay later,
//! long after it left the cache; the simulation knows which packet a link delivers next and
//! asks for its memory one event ahead. A hint only: no effect on results, a no-op on targets
//! without one.

const LINE: usize = 64;

/// Ask for every cache line `value` occupies to be loaded.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    prefetch_ptr(value as *const T);
}

/// As `prefetch`, for memory that holds no value yet (a container's next free slot, about to
/// be written). The pointer is never dereferenced; any address is harmless.
#[inline(always)]
pub fn prefetch_ptr<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = ptr as usize;
        let end = start.wrapping_add(std::mem::size_of::<T>().max(1));
        let mut line = start & !(LINE - 1);
        while line < end {
            // SAFETY: a prefetch is a hint that never faults, and `line` lies within `value`'s
            // lines.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
            line += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = ptr;
    }
}
