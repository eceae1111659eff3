//! A slab of values addressed by `Handle`, with a free list, so that steady-state packet traffic
//! reuses slots instead of allocating.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle(pub u32);

pub struct Arena<T> {
    slots: Vec<T>,
    free: Vec<u32>,
    live: usize,
}

impl<T: Default> Default for Arena<T> {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl<T: Default> Arena<T> {
    pub fn with_capacity(n: usize) -> Self {
        Self { slots: Vec::with_capacity(n), free: Vec::with_capacity(n), live: 0 }
    }

    #[inline]
    pub fn insert(&mut self, value: T) -> Handle {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = value;
            Handle(i)
        } else {
            self.slots.push(value);
            Handle((self.slots.len() - 1) as u32)
        }
    }

    /// Release a slot; the handle must not be used again.
    #[inline]
    pub fn remove(&mut self, h: Handle) -> &T {
        self.live -= 1;
        self.free.push(h.0);
        &self.slots[h.0 as usize]
    }

    #[inline]
    pub fn get(&self, h: Handle) -> &T {
        &self.slots[h.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, h: Handle) -> &mut T {
        &mut self.slots[h.0 as usize]
    }

    /// The handle the next `insert` returns (side tables indexed by handle can be filled
    /// before the value is inserted).
    #[inline]
    pub fn next_handle(&self) -> Handle {
        Handle(self.free.last().copied().unwrap_or(self.slots.len() as u32))
    }

    /// Hint that slot `h` is about to be read (see `prefetch`).
    #[inline]
    pub fn prefetch(&self, h: Handle) {
        if let Some(v) = self.slots.get(h.0 as usize) {
            crate::prefetch(v);
        }
    }

    /// Values currently allocated.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Slots ever allocated (the arena's high-water mark).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused() {
        let mut a: Arena<u64> = Arena::default();
        let h1 = a.insert(1);
        let _h2 = a.insert(2);
        a.remove(h1);
        let h3 = a.insert(3);
        assert_eq!(h3, h1);
        assert_eq!(*a.get(h3), 3);
        assert_eq!(a.capacity_used(), 2);
        assert_eq!(a.live(), 2);
    }

    #[test]
    fn next_handle_is_what_insert_returns() {
        let mut a: Arena<u64> = Arena::default();
        assert_eq!(a.next_handle(), Handle(0));
        let h0 = a.insert(1);
        assert_eq!(a.next_handle(), Handle(1));
        a.insert(2);
        a.remove(h0);
        assert_eq!(a.next_handle(), h0);
        a.prefetch(h0);
        assert_eq!(a.insert(3), h0);
    }
}
