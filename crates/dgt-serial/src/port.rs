//! Serial ports: opening one as a DGT line wants it (9600 8N1, no flow control, raw,
//! exclusive, non-blocking under tokio's `AsyncFd`), listing the candidate ports, and
//! finding a board by its DGT serial number among them.
//!
//! `serialport` does the opening and the termios set-up; its descriptor is then driven by
//! tokio directly, so a port costs one registered file descriptor and no thread.
//! Exclusive opening (TIOCEXCL plus an exclusive `flock`) keeps two tasks (or a task and
//! a serial-number search) from reading the same board: bytes read by one are lost to
//! the other.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

use dgt_protocol::{BoardMessage, Decoder};
use tokio::io::unix::AsyncFd;

/// Why a port could not be opened or a board not found.
#[derive(Debug, thiserror::Error)]
pub enum PortError {
    #[error("{path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: serialport::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("no port answers with DGT serial number {serial} (tried {tried} candidate(s))")]
    NotFound { serial: String, tried: usize },
}

/// An open serial line, registered with tokio.
#[derive(Debug)]
pub struct Port {
    fd: AsyncFd<File>,
    path: PathBuf,
}

impl Port {
    /// Opens `path` at 9600 8N1 without flow control, raw, exclusively. DTR is left as
    /// the OS sets it. Must be called inside a tokio runtime.
    pub fn open(path: &Path) -> Result<Port, PortError> {
        let tty = serialport::new(path.to_string_lossy(), 9600)
            .data_bits(serialport::DataBits::Eight)
            .parity(serialport::Parity::None)
            .stop_bits(serialport::StopBits::One)
            .flow_control(serialport::FlowControl::None)
            .open_native()
            .map_err(|source| PortError::Open {
                path: path.to_owned(),
                source,
            })?;
        let io_err = |source| PortError::Io {
            path: path.to_owned(),
            source,
        };
        // SAFETY: `into_raw_fd` hands over a descriptor that nothing else owns.
        let owned = unsafe { OwnedFd::from_raw_fd(tty.into_raw_fd()) };
        set_nonblocking(&owned).map_err(io_err)?;
        // SAFETY: the `File` owns the descriptor, and it is neither replaced nor closed
        // while registered (the `AsyncFd` owns the `File`).
        let fd = unsafe { AsyncFd::register(File::from(owned)) }
            .map_err(|e| io_err(e.into_parts().1))?;
        Ok(Port {
            fd,
            path: path.to_owned(),
        })
    }

    /// The path it was opened by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Waits for bytes and reads some; `Ok(0)` is end of file (the line hung up).
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.read_some(buf).await.map(|r| r.len)
    }

    /// [`Port::read`], saying whether the read drained the port.
    ///
    /// A read that returns fewer bytes than asked for took everything the kernel held for
    /// the port when it ran (a tty's or pipe's `read` copies what it holds, up to the
    /// size asked): the line was read up to the moment just before it, and there is no
    /// need for a second read to find it empty. Tokio's readiness is cleared too (as tokio
    /// does for its own sockets): bytes that arrive after the read raise a new edge, so
    /// none waits unnoticed, and the next wait does not start with a read that finds
    /// nothing.
    pub async fn read_some(&self, buf: &mut [u8]) -> io::Result<PortRead> {
        loop {
            let mut guard = self.fd.readable().await?;
            let before = tokio::time::Instant::now();
            match guard.try_io(|f| f.get_ref().read(buf)) {
                Ok(Ok(len)) if len > 0 && len < buf.len() => {
                    guard.clear_ready();
                    return Ok(PortRead {
                        len,
                        drained_before: Some(before),
                    });
                }
                Ok(r) => {
                    return r.map(|len| PortRead {
                        len,
                        drained_before: None,
                    })
                }
                Err(_would_block) => continue,
            }
        }
    }

    /// Reads what the kernel holds now, without waiting: `Ok(None)` when it holds nothing
    /// (the line has been read up to this call). A real read, not tokio's cached
    /// readiness, which lags when the runtime is busy.
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            match self.fd.get_ref().read(buf) {
                Ok(n) => return Ok(Some(n)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Writes what the port takes now without waiting (`Ok(0)` if it takes nothing).
    pub fn try_write(&self, bytes: &[u8]) -> io::Result<usize> {
        match self.fd.get_ref().write(bytes) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
            other => other,
        }
    }

    /// Waits until the port takes more bytes.
    pub async fn writable(&self) -> io::Result<()> {
        let mut guard = self.fd.writable().await?;
        guard.clear_ready();
        Ok(())
    }
}

/// What [`Port::read_some`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortRead {
    /// Bytes read; 0 is end of file.
    pub len: usize,
    /// When the read took everything the port held: a moment before it, up to which
    /// the line has been read. `None` when the buffer was filled (more may wait).
    pub drained_before: Option<tokio::time::Instant>,
}

impl Drop for Port {
    fn drop(&mut self) {
        // Undo TIOCEXCL: the flag lives on the tty, and a pty (or a device someone else
        // holds) outlives our descriptor. The flock goes with the descriptor.
        // SAFETY: an ioctl without arguments on a descriptor we own.
        unsafe {
            libc::ioctl(self.fd.get_ref().as_raw_fd(), libc::TIOCNXCL);
        }
    }
}

fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(raw, libc::F_GETFL);
        if flags < 0 || libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Where to look for boards when a board is named by its serial number, and by `probe`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchOptions {
    /// Path patterns; `*` and `?` are allowed in the last component only
    /// (`/dev/dgt/*`, `/tmp/emu/board-*`).
    pub patterns: Vec<String>,
    /// Also the USB and Bluetooth serial ports the system lists (from sysfs).
    pub system_ports: bool,
    /// How long a candidate has to answer the serial number request.
    pub answer_timeout: Duration,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            patterns: vec!["/dev/dgt/*".into()],
            system_ports: true,
            answer_timeout: Duration::from_millis(500),
        }
    }
}

/// The candidate ports, stable names first, each device once (a symlink and its target
/// count as one).
pub fn candidates(opts: &SearchOptions) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = opts.patterns.iter().flat_map(|p| glob(p)).collect();
    if opts.system_ports {
        out.extend(system_ports());
    }
    let mut seen = HashSet::new();
    out.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    out
}

/// USB and Bluetooth serial ports from sysfs (legacy `ttyS*` ports are left out: most
/// have no hardware behind them).
fn system_ports() -> Vec<PathBuf> {
    // `available_ports` panics when sysfs is missing (some containers).
    if !Path::new("/sys/class/tty").is_dir() {
        return Vec::new();
    }
    let Ok(ports) = serialport::available_ports() else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = ports
        .into_iter()
        .filter(|p| {
            matches!(
                p.port_type,
                serialport::SerialPortType::UsbPort(_) | serialport::SerialPortType::BluetoothPort
            ) || p.port_name.contains("rfcomm")
        })
        .map(|p| PathBuf::from(p.port_name))
        .collect();
    out.sort();
    out
}

/// Expands a pattern whose last component may hold `*` and `?`; sorted.
pub fn glob(pattern: &str) -> Vec<PathBuf> {
    let path = Path::new(pattern);
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy();
    if !name.contains(['*', '?']) {
        return if path.exists() {
            vec![path.to_owned()]
        } else {
            Vec::new()
        };
    }
    let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| wildcard_match(name.as_bytes(), e.file_name().as_encoded_bytes()))
        .map(|e| dir.join(e.file_name()))
        .collect();
    out.sort();
    out
}

/// `*` matches any run of bytes, `?` any one byte.
fn wildcard_match(pattern: &[u8], text: &[u8]) -> bool {
    match (pattern.first(), text.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            wildcard_match(&pattern[1..], text)
                || (!text.is_empty() && wildcard_match(pattern, &text[1..]))
        }
        (Some(b'?'), Some(_)) => wildcard_match(&pattern[1..], &text[1..]),
        (Some(p), Some(t)) if p == t => wildcard_match(&pattern[1..], &text[1..]),
        _ => false,
    }
}

/// A port that answered the serial number request, with the bytes exchanged (for the
/// recording).
#[derive(Debug)]
pub struct Found {
    pub port: Port,
    pub sent: Vec<u8>,
    pub received: Vec<u8>,
}

/// Asks `port` for its DGT serial number; `None` if it gives none within `timeout`.
pub async fn ask_serial(port: &Port, timeout: Duration) -> io::Result<(Option<String>, Vec<u8>)> {
    const RETURN_SERIAL: u8 = 0x45;
    if port.try_write(&[RETURN_SERIAL])? != 1 {
        return Ok((None, Vec::new()));
    }
    let mut decoder = Decoder::new();
    let mut received = Vec::new();
    let mut buf = [0u8; 256];
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let n = match tokio::time::timeout_at(deadline, port.read(&mut buf)).await {
            Err(_elapsed) => return Ok((None, received)),
            Ok(r) => r?,
        };
        if n == 0 {
            return Ok((None, received));
        }
        received.extend_from_slice(&buf[..n]);
        for msg in decoder.push(&buf[..n]).into_iter().flatten() {
            if let BoardMessage::SerialNumber(s) = msg {
                return Ok((Some(s.number), received));
            }
        }
    }
}

/// Finds the port whose board answers with DGT serial number `serial`, asking every
/// candidate at once. Ports that are in use (opened exclusively elsewhere) are skipped.
pub async fn find_by_serial(serial: &str, opts: &SearchOptions) -> Result<Found, PortError> {
    let paths = candidates(opts);
    let tried = paths.len();
    let mut tasks = tokio::task::JoinSet::new();
    for path in paths {
        let timeout = opts.answer_timeout;
        tasks.spawn(async move {
            let port = Port::open(&path).ok()?;
            match ask_serial(&port, timeout).await {
                Ok((Some(s), received)) => Some((s, port, received)),
                _ => None,
            }
        });
    }
    while let Some(joined) = tasks.join_next().await {
        if let Ok(Some((s, port, received))) = joined {
            if s == serial {
                // The other candidates close when their tasks are aborted.
                tasks.abort_all();
                return Ok(Found {
                    port,
                    sent: vec![0x45],
                    received,
                });
            }
        }
    }
    Err(PortError::NotFound {
        serial: serial.to_owned(),
        tried,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        assert!(wildcard_match(b"board-*", b"board-01025"));
        assert!(wildcard_match(b"tty?CM*", b"ttyACM0"));
        assert!(wildcard_match(b"*", b""));
        assert!(!wildcard_match(b"board-*", b"boar"));
        assert!(!wildcard_match(b"?", b""));
        assert!(wildcard_match(b"a*b*c", b"aXXbYYc"));
        assert!(!wildcard_match(b"a*b*c", b"aXXbYY"));
    }

    #[test]
    fn glob_lists_matching_files_sorted_and_symlinks_count_once() {
        let dir = std::env::temp_dir().join(format!("dgt-serial-glob-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["board-2", "board-1", "other"] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let link = dir.join("board-link");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(dir.join("board-1"), &link).unwrap();
        let pattern = format!("{}/board-*", dir.display());
        let names: Vec<String> = glob(&pattern)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["board-1", "board-2", "board-link"]);
        let found = candidates(&SearchOptions {
            patterns: vec![pattern],
            system_ports: false,
            ..SearchOptions::default()
        });
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(glob(&format!("{}/nothing-*", dir.display())).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
