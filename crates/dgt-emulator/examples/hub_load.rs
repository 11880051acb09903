//! Load check for the serving hub: N emulated boards on ptys in UPDATE mode with running
//! clocks (a clock frame a second each), read by one thread polling all the ptys, for a
//! few seconds. Prints the CPU time the whole
//! process used, so the cost of serving N boards can be measured.
//!
//! `cargo run --release -p dgt-emulator --example hub_load -- 1000 10`

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use chess_rules::Color;
use dgt_emulator::{Action, Emulator, EmulatorConfig, Hub, ServeOptions};
use nix::poll::{poll, PollFd, PollFlags};

fn cpu_time() -> Duration {
    let mut u = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct.
    let u = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr());
        u.assume_init()
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let secs: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let mut hub = Hub::new()?;
    let mut clients = Vec::new();
    let mut handles = Vec::new();
    for _ in 0..n {
        let h = hub.serve_pty(
            Emulator::new(EmulatorConfig::default()),
            ServeOptions::default(),
        )?;
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(h.path().expect("a pty path"))?;
        f.write_all(&[0x43])?;
        h.apply(Action::PressClock(Color::Black));
        clients.push(f);
        handles.push(h);
    }
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let mut bytes = 0usize;
    let mut buf = [0u8; 4096];
    while t0.elapsed() < Duration::from_secs(secs) {
        let mut fds: Vec<PollFd> = clients
            .iter()
            .map(|c| PollFd::new(c.as_raw_fd(), PollFlags::POLLIN))
            .collect();
        poll(&mut fds, 100).map_err(std::io::Error::from)?;
        for (c, fd) in clients.iter_mut().zip(&fds) {
            if fd.revents().is_some_and(|r| r.contains(PollFlags::POLLIN)) {
                bytes += c.read(&mut buf)?;
            }
        }
    }
    let wall = t0.elapsed();
    let cpu = cpu_time() - cpu0;
    println!(
        "{n} boards, {:.1} s: {bytes} bytes read ({:.0} B/s), process CPU {:.2} s ({:.1} % of one core, hub and reader together)",
        wall.as_secs_f64(),
        bytes as f64 / wall.as_secs_f64(),
        cpu.as_secs_f64(),
        100.0 * cpu.as_secs_f64() / wall.as_secs_f64()
    );
    Ok(())
}
