//! A flow's memory that can grow while it runs: the bytes its growable containers hold, counted
//! by their lengths (entries × entry size; capacity left by a burst is not counted, so the
//! measure says what the state needs now). Issue 20 requires it to depend on the data in flight
//! and buffered, never on how long the flow has run; `tests/flow_memory.rs` checks that.

use std::collections::{BTreeMap, VecDeque};
use std::mem::size_of;

pub fn deque<T>(q: &VecDeque<T>) -> usize {
    q.len() * size_of::<T>()
}

pub fn slice<T>(v: &[T]) -> usize {
    std::mem::size_of_val(v)
}

/// A `SmallVec` holds heap memory only once it has spilled; inline entries are part of its
/// owner's fixed size.
pub fn small_vec<A: smallvec::Array>(v: &smallvec::SmallVec<A>) -> usize {
    if v.spilled() {
        slice(v)
    } else {
        0
    }
}

pub fn btree<K, V>(m: &BTreeMap<K, V>) -> usize {
    m.len() * (size_of::<K>() + size_of::<V>())
}
