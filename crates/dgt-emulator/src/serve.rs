//! Serving emulated boards: on pseudo-terminals (any program opens the path like a USB
//! board) or on in-process byte streams, driven by scripts of [`TimedAction`]s in real
//! time scaled by a speed factor.
//!
//! One [`Hub`] thread serves any number of boards with a single `poll(2)` loop: it sleeps
//! until a port is readable or writable or until the next thing is due (a script action,
//! a clock tick, a paced byte), so 1,000 boards cost one thread and no busy waiting.
//! Each pty board keeps its slave side open itself, so the pty survives clients coming
//! and going; a pulled board cable closes it (clients see a hang-up) and a replugged one
//! gets a new pty, with the stable symlink (if asked for) re-pointed to it, as udev would.
//!
//! ```no_run
//! use dgt_emulator::{serve_pty, Action, Emulator, EmulatorConfig, ServeOptions, TimedAction};
//! use std::time::Duration;
//!
//! let script = vec![TimedAction { at_ms: 1000, action: Action::Lift("e2".parse().unwrap()) }];
//! let board = serve_pty(
//!     Emulator::new(EmulatorConfig::default()),
//!     ServeOptions { script, speed: 4.0, ..ServeOptions::default() },
//! )?;
//! println!("{}", board.path().unwrap().display()); // open it like /dev/ttyACM0
//! board.wait_script_done(Duration::from_secs(60));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! `serialport` opens ports exclusively (`TIOCEXCL`). Because the hub holds the slave side
//! open, that flag would outlive the client and bar its next open (`EBUSY`, for non-root
//! users), so the hub clears it whenever the client sends bytes. A client that opens,
//! sends nothing and reopens should open with `.exclusive(false)`.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dgt_protocol::capture::{CaptureHeader, CaptureWriter};
use nix::poll::{poll, PollFd, PollFlags};

use crate::action::{Action, TimedAction};
use crate::emulator::Emulator;

/// 9600 baud, 8N1: ten bit times a byte.
pub const LINE_BYTES_PER_SEC: f64 = 960.0;
/// Undelivered bytes kept per board; beyond it the oldest are dropped.
const MAX_QUEUED: usize = 64 * 1024;

/// How to serve one board.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// What happens at the board, at virtual times from the start of serving.
    pub script: Vec<TimedAction>,
    /// Virtual time runs this many times faster than real time (1.0: real time).
    pub speed: f64,
    /// A stable path (symlink) to the pty, re-pointed at every replug (pty only).
    pub link: Option<PathBuf>,
    /// Pace output to 9600 baud (960 bytes a second) in real time.
    pub line_pacing: bool,
    /// Write a `.dgtcap` of all traffic here (times are virtual ms).
    pub capture: Option<PathBuf>,
    /// Header of that capture.
    pub capture_header: CaptureHeader,
    /// Note when each output chunk has left for the host (for latency measurements).
    pub sent_log: Option<SentLog>,
}

/// When the board's output chunks left for the host: shared with the hub, which appends
/// to it; the measuring side takes what is there. Opt-in through
/// [`ServeOptions::sent_log`].
#[derive(Debug, Clone, Default)]
pub struct SentLog(Arc<Mutex<Vec<SentChunk>>>);

/// One output chunk of the emulator (all it sent at one virtual ms) and when its last
/// byte was written to the port (or dropped: a full queue, an unplugged cable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentChunk {
    /// The emulator's virtual time when it emitted the chunk, ms.
    pub t_ms: u64,
    /// When the chunk's last byte left.
    pub at: Instant,
}

impl SentLog {
    pub fn new() -> SentLog {
        SentLog::default()
    }

    /// What was noted since the last call, in order.
    pub fn take(&self) -> Vec<SentChunk> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            script: Vec::new(),
            speed: 1.0,
            link: None,
            line_pacing: false,
            capture: None,
            capture_header: CaptureHeader::default(),
            sent_log: None,
        }
    }
}

/// What the hub and the handles share about one board.
struct BoardState {
    emu: Emulator,
    clock: VirtualClock,
    script_left: usize,
    pty_path: Option<PathBuf>,
    /// A fresh client end after a replug, for stream boards.
    new_stream: Option<UnixStream>,
    /// The last IO error on this board's port, for diagnosis.
    error: Option<String>,
}

struct Shared {
    state: Mutex<BoardState>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, BoardState> {
        // A panic elsewhere while holding the lock leaves usable state: take it anyway.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits up to `timeout` for `ready` to give something, re-checking at every change.
    fn wait_for<T>(
        &self,
        timeout: Duration,
        mut ready: impl FnMut(&mut BoardState) -> Option<T>,
    ) -> Option<T> {
        let deadline = Instant::now() + timeout;
        let mut st = self.lock();
        loop {
            if let Some(t) = ready(&mut st) {
                return Some(t);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            st = match self.changed.wait_timeout(st, left) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }
}

/// Real time to virtual ms and back.
#[derive(Debug, Clone, Copy)]
struct VirtualClock {
    start: Instant,
    speed: f64,
}

impl VirtualClock {
    fn ms_at(&self, t: Instant) -> u64 {
        let real = t.saturating_duration_since(self.start).as_secs_f64();
        (real * 1000.0 * self.speed) as u64
    }

    fn instant_of(&self, v_ms: u64) -> Instant {
        let real = v_ms as f64 / 1000.0 / self.speed;
        // Round up so that the virtual time at that instant is at least `v_ms`.
        self.start + Duration::from_secs_f64(real) + Duration::from_micros(200)
    }
}

enum PortKind {
    Pty,
    Stream,
}

/// An open line to the host.
enum Port {
    Pty {
        master: File,
        /// Held open so that the pty lives while clients come and go.
        slave: OwnedFd,
        path: PathBuf,
    },
    Stream(UnixStream),
}

impl Port {
    fn fd(&self) -> RawFd {
        match self {
            Port::Pty { master, .. } => master.as_raw_fd(),
            Port::Stream(s) => s.as_raw_fd(),
        }
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Port::Pty { master, .. } => master.read(buf),
            Port::Stream(s) => s.read(buf),
        }
    }

    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Port::Pty { master, .. } => master.write(buf),
            Port::Stream(s) => s.write(buf),
        }
    }
}

/// Opens a pty in raw mode; returns the port and the slave's path.
///
/// Both ends are opened close-on-exec in the same system call that makes them
/// (`posix_openpt` and `open` with `O_CLOEXEC`), not marked afterwards: a test process
/// serves boards on one thread while another starts a daemon, and a descriptor made
/// between the two steps would be inherited by that daemon for its whole life. A daemon
/// holding another board's master keeps that line up when the board's cable is pulled
/// (no hang-up: only the liveness probe finds it, seconds later), which made the fault
/// campaign's blind spots longer than the reconnect search reaches.
fn open_pty() -> io::Result<Port> {
    use nix::fcntl::OFlag;
    use nix::sys::termios::{cfmakeraw, tcgetattr, tcsetattr, SetArg};
    use std::os::fd::IntoRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let master = nix::pty::posix_openpt(OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC)
        .map_err(io::Error::from)?;
    nix::pty::grantpt(&master).map_err(io::Error::from)?;
    nix::pty::unlockpt(&master).map_err(io::Error::from)?;
    let path = PathBuf::from(nix::pty::ptsname_r(&master).map_err(io::Error::from)?);
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(OFlag::O_NOCTTY.bits())
        .open(&path)?;
    // `File::open` sets close-on-exec itself (std opens every file with O_CLOEXEC).
    let slave = OwnedFd::from(slave);
    // SAFETY: posix_openpt returned a fresh descriptor that nothing else owns.
    let master = unsafe { OwnedFd::from_raw_fd(master.into_raw_fd()) };
    let mut t = tcgetattr(slave.as_raw_fd()).map_err(io::Error::from)?;
    cfmakeraw(&mut t);
    tcsetattr(slave.as_raw_fd(), SetArg::TCSANOW, &t).map_err(io::Error::from)?;
    set_nonblocking(master.as_raw_fd())?;
    Ok(Port::Pty {
        master: File::from(master),
        slave,
        path,
    })
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    let flags = fcntl(fd, FcntlArg::F_GETFL).map_err(io::Error::from)?;
    let flags = OFlag::from_bits_truncate(flags) | OFlag::O_NONBLOCK;
    fcntl(fd, FcntlArg::F_SETFL(flags)).map_err(io::Error::from)?;
    Ok(())
}

/// Points `link` at `target`, replacing what was there atomically.
fn repoint_link(link: &Path, target: &Path) -> io::Result<()> {
    let mut tmp = link.as_os_str().to_owned();
    tmp.push(".new");
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)?;
    std::fs::rename(&tmp, link)
}

/// The hub's own view of a board.
struct Served {
    id: u64,
    shared: Arc<Shared>,
    kind: PortKind,
    port: Option<Port>,
    link: Option<PathBuf>,
    script: VecDeque<TimedAction>,
    out: VecDeque<u8>,
    pacing: bool,
    credit: f64,
    credit_at: Instant,
    /// The port refused bytes: wait for it to become writable.
    write_blocked: bool,
    capture: Option<CaptureWriter<BufWriter<File>>>,
    plugged: bool,
    /// When `service` asked to run next.
    next_wake: Option<Instant>,
    /// Its port was ready in the last poll: service it now.
    had_io: bool,
    sent_log: Option<SentLog>,
    /// With a sent log: (bytes queued in all when the chunk's last byte was, its t_ms).
    marks: VecDeque<(u64, u64)>,
    /// Bytes queued for the host in all.
    queued: u64,
}

impl Served {
    /// Does what is due at `now`; returns when it next needs attention.
    fn service(&mut self, now: Instant) -> Option<Instant> {
        let shared = Arc::clone(&self.shared);
        let mut st = shared.lock();
        let clock = st.clock;
        let v_now = clock.ms_at(now);
        while self.script.front().is_some_and(|a| a.at_ms <= v_now) {
            if let Some(a) = self.script.pop_front() {
                st.emu.apply_at(a.at_ms, &a.action);
                st.script_left = self.script.len();
                self.sync_plug(&mut st);
            }
        }
        st.emu.advance_to(v_now);
        self.sync_plug(&mut st);
        for chunk in st.emu.take_output() {
            if self.port.is_some() {
                self.queued += chunk.bytes.len() as u64;
                if self.sent_log.is_some() {
                    self.marks.push_back((self.queued, chunk.t_ms));
                }
                self.out.extend(chunk.bytes);
            }
        }
        if self.out.len() > MAX_QUEUED {
            let excess = self.out.len() - MAX_QUEUED;
            self.out.drain(..excess);
        }
        if let Some(w) = &mut self.capture {
            for rec in st.emu.take_capture() {
                let _ = w.write(&rec);
            }
            let _ = w.flush();
        }
        let mut wake: Option<Instant> = None;
        let mut consider = |t: Instant| wake = Some(wake.map_or(t, |w: Instant| w.min(t)));
        if let Some(d) = st.emu.next_deadline() {
            consider(clock.instant_of(d));
        }
        if let Some(a) = self.script.front() {
            consider(clock.instant_of(a.at_ms));
        }
        if self.script.is_empty() {
            shared.changed.notify_all();
        }
        drop(st);
        if let Some(t) = self.flush(now) {
            consider(t);
        }
        self.note_sent();
        wake
    }

    /// Notes the chunks whose last byte is no longer queued.
    fn note_sent(&mut self) {
        let Some(log) = &self.sent_log else { return };
        let gone = self.queued - self.out.len() as u64;
        if self.marks.front().is_none_or(|(end, _)| *end > gone) {
            return;
        }
        let at = Instant::now();
        let mut log = log.0.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(&(_, t_ms)) = self.marks.front().filter(|(end, _)| *end <= gone) {
            self.marks.pop_front();
            log.push(SentChunk { t_ms, at });
        }
    }

    /// Opens or closes the port when the board cable changes.
    fn sync_plug(&mut self, st: &mut BoardState) {
        let plugged = st.emu.is_plugged();
        if plugged == self.plugged {
            return;
        }
        self.plugged = plugged;
        self.out.clear();
        if !plugged {
            self.port = None;
            st.pty_path = None;
            if let Some(link) = &self.link {
                let _ = std::fs::remove_file(link);
            }
            return;
        }
        match self.open_port() {
            Ok((port, client)) => {
                if let Port::Pty { path, .. } = &port {
                    st.pty_path = Some(path.clone());
                }
                st.new_stream = client;
                self.port = Some(port);
                self.shared.changed.notify_all();
            }
            Err(e) => st.error = Some(format!("cannot open a new port after replug: {e}")),
        }
    }

    fn open_port(&self) -> io::Result<(Port, Option<UnixStream>)> {
        match self.kind {
            PortKind::Pty => {
                let port = open_pty()?;
                if let (Some(link), Port::Pty { path, .. }) = (&self.link, &port) {
                    repoint_link(link, path)?;
                }
                Ok((port, None))
            }
            PortKind::Stream => {
                let (ours, theirs) = UnixStream::pair()?;
                ours.set_nonblocking(true)?;
                Ok((Port::Stream(ours), Some(theirs)))
            }
        }
    }

    /// Writes what the line allows; returns when to try again if bytes remain.
    fn flush(&mut self, now: Instant) -> Option<Instant> {
        let port = self.port.as_mut()?;
        if self.out.is_empty() || self.write_blocked {
            self.credit_at = now;
            return None;
        }
        let mut allowed = self.out.len();
        if self.pacing {
            let dt = now.saturating_duration_since(self.credit_at).as_secs_f64();
            self.credit = (self.credit + dt * LINE_BYTES_PER_SEC).min(64.0);
            self.credit_at = now;
            allowed = allowed.min(self.credit as usize);
        }
        while allowed > 0 {
            let (a, b) = self.out.as_slices();
            let chunk = if a.is_empty() { b } else { a };
            let n = chunk.len().min(allowed);
            match port.write(&chunk[..n]) {
                Ok(0) => break,
                Ok(w) => {
                    self.out.drain(..w);
                    allowed -= w;
                    if self.pacing {
                        self.credit -= w as f64;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.write_blocked = true;
                    return None;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // The client end is gone (stream closed): the board talks to nobody.
                    self.shared.lock().error = Some(format!("write: {e}"));
                    self.out.clear();
                    return None;
                }
            }
        }
        if self.out.is_empty() {
            return None;
        }
        // Come back when a few more bytes may go.
        let need = (self.out.len().min(16) as f64 - self.credit).max(1.0);
        Some(now + Duration::from_secs_f64(need / LINE_BYTES_PER_SEC))
    }

    /// Host bytes are readable.
    fn read(&mut self, now: Instant) {
        let mut buf = [0u8; 4096];
        loop {
            let Some(port) = self.port.as_mut() else {
                return;
            };
            match port.read(&mut buf) {
                Ok(0) => {
                    // A stream client hung up: nothing will come any more.
                    if matches!(self.kind, PortKind::Stream) {
                        self.port = None;
                    }
                    return;
                }
                Ok(n) => {
                    if let Port::Pty { slave, .. } = port {
                        // Clients open ports exclusively (TIOCEXCL); since we hold the
                        // slave, that would outlive them and bar their next open.
                        // SAFETY: an ioctl without arguments on a descriptor we own.
                        unsafe { libc::ioctl(slave.as_raw_fd(), libc::TIOCNXCL) };
                    }
                    let mut st = self.shared.lock();
                    let v = st.clock.ms_at(now);
                    st.emu.receive_at(v, &buf[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // EIO on a pty master: no slave open. Try again at the next event.
                    self.shared.lock().error = Some(format!("read: {e}"));
                    return;
                }
            }
        }
    }

    fn close(&mut self) {
        self.port = None;
        if let Some(link) = &self.link {
            let _ = std::fs::remove_file(link);
        }
        if let Some(w) = &mut self.capture {
            let _ = w.flush();
        }
        let mut st = self.shared.lock();
        st.pty_path = None;
        st.script_left = 0;
        self.shared.changed.notify_all();
    }
}

enum Control {
    Add(Box<Served>),
    Remove(u64),
    Stop,
}

/// The part of a hub that handles keep: a way to send it work and to wake it.
#[derive(Clone)]
struct HubLink {
    tx: mpsc::Sender<Control>,
    waker: Arc<UnixStream>,
}

impl HubLink {
    fn send(&self, c: Control) {
        let _ = self.tx.send(c);
        self.wake();
    }

    fn wake(&self) {
        // A full wake pipe already guarantees a wake-up.
        let _ = (&*self.waker).write(&[1]);
    }
}

/// One thread serving many emulated boards. Dropping it stops serving all its boards
/// (ptys close, links are removed, captures flushed).
pub struct Hub {
    link: HubLink,
    thread: Option<JoinHandle<()>>,
    next_id: u64,
}

impl Hub {
    /// Starts the serving thread. Also raises this process's open-file limit to its hard
    /// limit, since every pty board holds two descriptors.
    pub fn new() -> io::Result<Hub> {
        raise_fd_limit();
        let (tx, rx) = mpsc::channel();
        let (wake_rx, wake_tx) = UnixStream::pair()?;
        wake_rx.set_nonblocking(true)?;
        wake_tx.set_nonblocking(true)?;
        let thread = std::thread::Builder::new()
            .name("dgt-sim-hub".into())
            .spawn(move || run_hub(rx, wake_rx))?;
        Ok(Hub {
            link: HubLink {
                tx,
                waker: Arc::new(wake_tx),
            },
            thread: Some(thread),
            next_id: 0,
        })
    }

    /// Serves `emu` on a new pseudo-terminal.
    pub fn serve_pty(&mut self, emu: Emulator, opts: ServeOptions) -> io::Result<BoardHandle> {
        self.add(emu, opts, PortKind::Pty).map(|(h, _)| h)
    }

    /// Serves `emu` on an in-process byte stream; returns the host's end of it.
    pub fn serve_stream(
        &mut self,
        emu: Emulator,
        opts: ServeOptions,
    ) -> io::Result<(BoardHandle, UnixStream)> {
        let (h, client) = self.add(emu, opts, PortKind::Stream)?;
        match client {
            Some(c) => Ok((h, c)),
            None => Err(io::Error::other("no stream end")),
        }
    }

    fn add(
        &mut self,
        mut emu: Emulator,
        opts: ServeOptions,
        kind: PortKind,
    ) -> io::Result<(BoardHandle, Option<UnixStream>)> {
        if !(opts.speed.is_finite() && opts.speed > 0.0) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("speed must be a positive number, not {}", opts.speed),
            ));
        }
        let capture = match &opts.capture {
            Some(path) => {
                emu.record_capture();
                Some(CaptureWriter::new(
                    BufWriter::new(File::create(path)?),
                    &opts.capture_header,
                )?)
            }
            None => None,
        };
        let mut script = opts.script;
        script.sort_by_key(|a| a.at_ms);
        let plugged = emu.is_plugged();
        let state = BoardState {
            emu,
            clock: VirtualClock {
                start: Instant::now(),
                speed: opts.speed,
            },
            script_left: script.len(),
            pty_path: None,
            new_stream: None,
            error: None,
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            changed: Condvar::new(),
        });
        self.next_id += 1;
        let mut served = Served {
            id: self.next_id,
            shared: Arc::clone(&shared),
            kind,
            port: None,
            link: opts.link.clone(),
            script: script.into(),
            out: VecDeque::new(),
            pacing: opts.line_pacing,
            credit: 0.0,
            credit_at: Instant::now(),
            write_blocked: false,
            capture,
            plugged,
            next_wake: None,
            had_io: true,
            sent_log: opts.sent_log,
            marks: VecDeque::new(),
            queued: 0,
        };
        let mut client = None;
        if plugged {
            let (port, c) = served.open_port()?;
            if let Port::Pty { path, .. } = &port {
                shared.lock().pty_path = Some(path.clone());
            }
            served.port = Some(port);
            client = c;
        }
        self.link.send(Control::Add(Box::new(served)));
        Ok((
            BoardHandle {
                id: self.next_id,
                shared,
                link: opts.link,
                hub: self.link.clone(),
            },
            client,
        ))
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        // Handles may outlive the hub (their channel ends stay open): say stop explicitly.
        self.link.send(Control::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A served board: where it is, and a way to act on it and look at it.
pub struct BoardHandle {
    id: u64,
    shared: Arc<Shared>,
    link: Option<PathBuf>,
    hub: HubLink,
}

impl BoardHandle {
    /// The path to open: the stable link if one was asked for, else the current pty
    /// (`None` for stream boards, and for pty boards while unplugged).
    pub fn path(&self) -> Option<PathBuf> {
        match &self.link {
            Some(l) => Some(l.clone()),
            None => self.pty_path(),
        }
    }

    /// The current pty device (`/dev/pts/N`), if the board is plugged in.
    pub fn pty_path(&self) -> Option<PathBuf> {
        self.shared.lock().pty_path.clone()
    }

    /// Virtual time now, ms.
    pub fn now_ms(&self) -> u64 {
        let st = self.shared.lock();
        st.clock.ms_at(Instant::now())
    }

    /// Makes something happen at the board now.
    pub fn apply(&self, action: Action) {
        {
            let mut st = self.shared.lock();
            let v = st.clock.ms_at(Instant::now());
            st.emu.apply_at(v, &action);
        }
        self.hub.wake();
    }

    /// Looks at (or changes) the emulator; the hub waits meanwhile.
    pub fn with<R>(&self, f: impl FnOnce(&mut Emulator) -> R) -> R {
        let r = {
            let mut st = self.shared.lock();
            let v = st.clock.ms_at(Instant::now());
            st.emu.advance_to(v);
            f(&mut st.emu)
        };
        self.hub.wake();
        r
    }

    /// Script actions not yet applied.
    pub fn script_left(&self) -> usize {
        self.shared.lock().script_left
    }

    /// Waits until every script action has been applied; false on timeout.
    pub fn wait_script_done(&self, timeout: Duration) -> bool {
        self.shared
            .wait_for(timeout, |st| (st.script_left == 0).then_some(()))
            .is_some()
    }

    /// For stream boards: the host's end of the new stream after a replug, waiting up to
    /// `timeout` for the hub to open it.
    pub fn take_stream(&self, timeout: Duration) -> Option<UnixStream> {
        self.shared.wait_for(timeout, |st| st.new_stream.take())
    }

    /// The last IO problem on the board's port, if any.
    pub fn last_error(&self) -> Option<String> {
        self.shared.lock().error.clone()
    }

    /// Stops serving this board (the pty closes, the link goes, the capture is flushed).
    pub fn stop(self) {
        self.hub.send(Control::Remove(self.id));
    }
}

/// One board on its own hub: the simplest way to "serve this emulator on a pty, drive it
/// with this script, tell me the path".
pub struct ServedBoard {
    pub handle: BoardHandle,
    // Dropped after the handle: stops the thread.
    _hub: Hub,
}

impl std::ops::Deref for ServedBoard {
    type Target = BoardHandle;
    fn deref(&self) -> &BoardHandle {
        &self.handle
    }
}

/// Serves one emulator on a pty on a hub of its own.
pub fn serve_pty(emu: Emulator, opts: ServeOptions) -> io::Result<ServedBoard> {
    let mut hub = Hub::new()?;
    let handle = hub.serve_pty(emu, opts)?;
    Ok(ServedBoard { handle, _hub: hub })
}

fn run_hub(rx: mpsc::Receiver<Control>, mut waker: UnixStream) {
    let mut boards: Vec<Served> = Vec::new();
    let mut drain = [0u8; 256];
    // Handles change boards behind the hub's back and then wake it: after a wake-up every
    // board is serviced; otherwise only those that are due or whose port was ready.
    let mut service_all = true;
    loop {
        loop {
            match rx.try_recv() {
                Ok(Control::Add(b)) => boards.push(*b),
                Ok(Control::Remove(id)) => {
                    if let Some(i) = boards.iter().position(|b| b.id == id) {
                        let mut b = boards.swap_remove(i);
                        b.close();
                    }
                }
                Err(mpsc::TryRecvError::Empty) => break,
                Ok(Control::Stop) | Err(mpsc::TryRecvError::Disconnected) => {
                    for b in &mut boards {
                        b.close();
                    }
                    return;
                }
            }
        }
        let now = Instant::now();
        let mut wake: Option<Instant> = None;
        for b in &mut boards {
            if service_all || b.had_io || b.next_wake.is_some_and(|w| w <= now) {
                b.next_wake = b.service(now);
                b.had_io = false;
            }
            if let Some(t) = b.next_wake {
                wake = Some(wake.map_or(t, |w| w.min(t)));
            }
        }
        service_all = false;
        let mut fds = Vec::with_capacity(boards.len() + 1);
        fds.push(PollFd::new(waker.as_raw_fd(), PollFlags::POLLIN));
        for b in &boards {
            let (fd, mut ev) = match &b.port {
                Some(p) => (p.fd(), PollFlags::POLLIN),
                None => (-1, PollFlags::empty()),
            };
            if b.write_blocked {
                ev |= PollFlags::POLLOUT;
            }
            fds.push(PollFd::new(fd, ev));
        }
        let timeout = match wake {
            None => -1,
            Some(w) => {
                let ms = w
                    .saturating_duration_since(Instant::now())
                    .as_micros()
                    .div_ceil(1000);
                i32::try_from(ms).unwrap_or(i32::MAX)
            }
        };
        if poll(&mut fds, timeout).is_err() {
            continue; // EINTR
        }
        let now = Instant::now();
        if fds[0].revents().is_some_and(|r| !r.is_empty()) {
            while matches!(waker.read(&mut drain), Ok(n) if n > 0) {}
            service_all = true;
        }
        for (b, fd) in boards.iter_mut().zip(&fds[1..]) {
            let Some(r) = fd.revents() else { continue };
            if r.is_empty() {
                continue;
            }
            b.had_io = true;
            if r.contains(PollFlags::POLLOUT) {
                b.write_blocked = false;
            }
            if r.intersects(PollFlags::POLLIN | PollFlags::POLLHUP | PollFlags::POLLERR) {
                b.read(now);
                if r.intersects(PollFlags::POLLHUP | PollFlags::POLLERR)
                    && matches!(b.kind, PortKind::Stream)
                {
                    b.port = None;
                }
            }
        }
    }
}

/// Lifts the soft open-file limit to the hard one (1,000 pty boards need 2,000 fds).
fn raise_fd_limit() {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain syscalls on a local struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::emulator::EmulatorConfig;

    #[test]
    fn a_pty_is_not_inherited_by_programs_the_server_starts() {
        use nix::fcntl::{fcntl, FcntlArg, FdFlag};
        let Port::Pty { master, slave, .. } = open_pty().unwrap() else {
            panic!("open_pty gave no pty")
        };
        for fd in [master.as_raw_fd(), slave.as_raw_fd()] {
            let flags = FdFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFD).unwrap());
            assert!(flags.contains(FdFlag::FD_CLOEXEC), "fd {fd}: {flags:?}");
        }
    }

    #[test]
    fn the_sent_log_notes_a_chunk_once_its_last_byte_has_left_at_line_pace() {
        let log = SentLog::new();
        let mut hub = Hub::new().unwrap();
        let (_board, mut client) = hub
            .serve_stream(
                Emulator::new(EmulatorConfig::default()),
                ServeOptions {
                    line_pacing: true,
                    sent_log: Some(log.clone()),
                    ..ServeOptions::default()
                },
            )
            .unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let asked = Instant::now();
        // SEND_BOARD: a 67-byte dump, more than the line's 64 bytes of credit.
        client.write_all(&[0x42]).unwrap();
        let mut got = 0;
        let mut buf = [0u8; 128];
        while got < 67 {
            let n = client.read(&mut buf).unwrap();
            assert!(n > 0, "the stream closed");
            got += n;
        }
        let mut sent = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(2);
        while sent.is_empty() && Instant::now() < deadline {
            sent = log.take();
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(sent.len(), 1, "{sent:?}");
        // 67 bytes at 960 a second leave no sooner than ~70 ms after the request.
        let paced = sent[0].at.saturating_duration_since(asked);
        assert!(paced >= Duration::from_millis(60), "{paced:?}");
        assert!(log.take().is_empty(), "noted once");
    }
}
