//! The open-file limit. Each board holds its port and its journal open (and its
//! recording with `--record`), so 1,000 boards need more descriptors than the usual soft
//! limit of 1,024: the daemon raises its soft `RLIMIT_NOFILE` to the hard limit at start
//! and refuses to start, saying so, when even that is too low for the configured boards.

/// Descriptors the daemon holds besides its boards and its HTTP connections (runtime,
/// stdio, log, sinks' files while they write, sync threads).
pub const DAEMON_BASE_FDS: u64 = 128;

/// Descriptors the start-up check sets aside for HTTP connections and the writers'
/// reserve (`http::listen::FD_RESERVE`): at the least limit the daemon starts with, the
/// listener may hold `HTTP_FDS - FD_RESERVE` connections.
pub const HTTP_FDS: u64 = 128;

/// Descriptors `boards` boards hold: each its port and its journal, and its recording
/// with `--record`.
pub fn board_fds(boards: usize, record: bool) -> u64 {
    let per_board = if record { 3 } else { 2 };
    boards as u64 * per_board
}

/// Descriptors needed for `boards` boards: the daemon's own, the HTTP set-aside and the
/// boards'.
pub fn fds_needed(boards: usize, record: bool) -> u64 {
    DAEMON_BASE_FDS + HTTP_FDS + board_fds(boards, record)
}

/// Raises the soft open-file limit to the hard one; returns the limit now in force.
// `rlim_t` is 32 bits wide on 32-bit Linux (a Raspberry Pi's armv7), 64 elsewhere.
#[allow(clippy::unnecessary_cast)]
pub fn raise_nofile_limit() -> std::io::Result<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the local struct only.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) != 0 {
                return Ok(lim.rlim_cur as u64);
            }
            return Ok(raised.rlim_cur as u64);
        }
    }
    Ok(lim.rlim_cur as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::unnecessary_cast)]
    fn the_soft_limit_is_raised_to_the_hard_one() {
        let now = raise_nofile_limit().unwrap();
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: as above.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) }, 0);
        assert_eq!(now, lim.rlim_cur as u64);
        assert_eq!(lim.rlim_cur, lim.rlim_max);
    }

    #[test]
    fn a_thousand_boards_need_more_than_the_usual_soft_limit() {
        assert!(fds_needed(1000, false) > 1024);
        assert!(fds_needed(1000, true) > fds_needed(1000, false));
        assert!(fds_needed(8, true) < 1024);
    }
}
