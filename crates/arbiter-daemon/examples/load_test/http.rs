//! Just enough HTTP/1.1 over `std::net` for the harness: a GET of a small JSON document,
//! and the daemon's `/events` Server-Sent Events stream read line by line (chunked
//! transfer encoding undone), each `data:` line stamped with the time it arrived.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use crate::clock::mono_ns;

/// The arbiter token the generated config sets: `/events` and `/boards` are the arbiters'
/// unless the dashboard is public.
pub const TOKEN: &str = "load-test-arbiter-token";

fn request(addr: SocketAddr, path: &str) -> std::io::Result<BufReader<TcpStream>> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    s.set_nodelay(true)?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: */*\r\nX-Arbiter-Token: {TOKEN}\r\n\
         Connection: close\r\n\r\n"
    )?;
    Ok(BufReader::new(s))
}

/// Reads the status line and headers; returns the status and whether the body is chunked.
fn head(r: &mut impl BufRead) -> std::io::Result<(u16, bool, Option<usize>)> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
    let (mut chunked, mut length) = (false, None);
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().ok();
        }
    }
    Ok((status, chunked, length))
}

/// The body bytes of a chunked or plain response, as they come.
struct Body<R> {
    inner: R,
    chunked: bool,
    /// Bytes left in the current chunk.
    left: usize,
    done: bool,
}

impl<R: BufRead> Read for Body<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.chunked {
            return self.inner.read(buf);
        }
        if self.done {
            return Ok(0);
        }
        if self.left == 0 {
            let mut line = String::new();
            // The CRLF that ends the previous chunk, then the size line.
            while line.trim().is_empty() {
                line.clear();
                if self.inner.read_line(&mut line)? == 0 {
                    self.done = true;
                    return Ok(0);
                }
            }
            let size = line.trim().split(';').next().unwrap_or("");
            self.left = usize::from_str_radix(size, 16)
                .map_err(|_| std::io::Error::other(format!("bad chunk size {line:?}")))?;
            if self.left == 0 {
                self.done = true;
                return Ok(0);
            }
        }
        let n = buf.len().min(self.left);
        let got = self.inner.read(&mut buf[..n])?;
        self.left -= got;
        Ok(got)
    }
}

/// GET `path`, the body as text (status 200 only).
pub fn get(addr: SocketAddr, path: &str) -> std::io::Result<String> {
    let mut r = request(addr, path)?;
    r.get_mut()
        .set_read_timeout(Some(Duration::from_secs(10)))?;
    let (status, chunked, length) = head(&mut r)?;
    let mut body = Body {
        inner: r,
        chunked,
        left: 0,
        done: false,
    };
    let mut text = String::new();
    match (chunked, length) {
        (false, Some(n)) => {
            let mut bytes = vec![0u8; n];
            body.read_exact(&mut bytes)?;
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        _ => {
            body.read_to_string(&mut text)?;
        }
    }
    if status != 200 {
        return Err(std::io::Error::other(format!("{path}: HTTP {status}")));
    }
    Ok(text)
}

/// One SSE event's data and when its line arrived.
pub struct Arrival {
    pub mono_ns: u64,
    pub data: String,
}

/// Follows `/events` until the stream ends, handing each event to `on_event` and each
/// "events lost" comment's count to `on_lost`.
pub fn follow_events(
    addr: SocketAddr,
    mut on_event: impl FnMut(Arrival),
    mut on_lost: impl FnMut(u64),
) -> std::io::Result<()> {
    let mut r = request(addr, "/events")?;
    let (status, chunked, _) = head(&mut r)?;
    if status != 200 {
        return Err(std::io::Error::other(format!("/events: HTTP {status}")));
    }
    let mut lines = BufReader::new(Body {
        inner: r,
        chunked,
        left: 0,
        done: false,
    });
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let at = mono_ns();
        if let Some(data) = line.strip_prefix("data:") {
            on_event(Arrival {
                mono_ns: at,
                data: data.trim().to_owned(),
            });
        } else if let Some(comment) = line.strip_prefix(':') {
            if let Some(n) = comment.trim().strip_suffix("events lost") {
                on_lost(n.trim().parse().unwrap_or(0));
            }
        }
    }
}
