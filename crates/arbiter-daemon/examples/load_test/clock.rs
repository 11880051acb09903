//! `CLOCK_MONOTONIC` in nanoseconds: one timeline for the farm, the harness and the
//! daemon's host (Linux shares it between processes), so a press noted by the farm and
//! a ruling read by the harness can be subtracted.

use std::time::Instant;

/// `CLOCK_MONOTONIC` now, ns.
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the struct it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Turns `Instant`s (which the emulator hub stamps) into `CLOCK_MONOTONIC` ns.
pub struct MonoClock {
    base: Instant,
    base_ns: u64,
}

impl MonoClock {
    pub fn new() -> MonoClock {
        MonoClock {
            base: Instant::now(),
            base_ns: mono_ns(),
        }
    }

    pub fn ns(&self, at: Instant) -> u64 {
        match at.checked_duration_since(self.base) {
            Some(d) => self.base_ns + d.as_nanos() as u64,
            None => self
                .base_ns
                .saturating_sub(self.base.duration_since(at).as_nanos() as u64),
        }
    }
}
