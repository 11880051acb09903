//! Per-board CPU and memory of the driver with many boards, idle or at full line rate.
//!
//! The emulated boards run in a child process (this same program in `farm` mode, one
//! `dgt_sim::Hub` thread serving every board on its own pty, each paced to 9600 baud),
//! so the figures are the driver's alone: CPU time from `/proc/self/stat` over the
//! measured window, resident memory (`VmRSS`) before and after the boards are spawned.
//!
//! ```text
//! cargo run --release -p dgt-serial --example driver_bench -- --boards 200 --seconds 10 --mode idle
//! cargo run --release -p dgt-serial --example driver_bench -- --boards 200 --seconds 10 --mode full
//! # the farm alone, e.g. for `dgt-arbiter probe --glob '/tmp/dgt-farm/board-*'`:
//! cargo run --release -p dgt-serial --example driver_bench -- farm --boards 3 --dir /tmp/dgt-farm --seconds 60
//! ```
//!
//! `idle`: boards connected, nothing moves (a liveness probe a second each way).
//! `full`: every board sends field updates as fast as the line allows (a lift or a put
//! every 5 ms, 1,000 bytes a second offered, 960 a second carried).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chess_rules::{Color, Piece, Role, Square};
use dgt_protocol::BoardEvent;
use dgt_serial::{spawn_board, BoardSpec, DriverOptions, PortSpec};
use dgt_sim::{Action, Emulator, EmulatorConfig, Hub, ServeOptions, TimedAction};

struct Args {
    farm: bool,
    boards: usize,
    seconds: u64,
    full: bool,
    dir: PathBuf,
    /// Farm: virtual ms before the activity starts (time for the driver to connect).
    start_ms: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        farm: false,
        boards: 200,
        seconds: 10,
        full: false,
        dir: std::env::temp_dir().join(format!("dgt-farm-{}", std::process::id())),
        start_ms: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "farm" => args.farm = true,
            "--boards" => args.boards = value()?.parse().map_err(|e| format!("{e}"))?,
            "--seconds" => args.seconds = value()?.parse().map_err(|e| format!("{e}"))?,
            "--mode" => {
                args.full = match value()?.as_str() {
                    "idle" => false,
                    "full" => true,
                    m => return Err(format!("--mode idle|full, not {m}")),
                }
            }
            "--full" => args.full = true,
            "--dir" => args.dir = PathBuf::from(value()?),
            "--start-ms" => args.start_ms = value()?.parse().map_err(|e| format!("{e}"))?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("driver_bench: {e}");
            std::process::exit(2);
        }
    };
    let result = if args.farm { farm(&args) } else { bench(&args) };
    if let Err(e) = result {
        eprintln!("driver_bench: {e}");
        std::process::exit(1);
    }
}

/// Serves the boards until stdin closes (the parent ends) or the time is up.
fn farm(args: &Args) -> Result<(), String> {
    std::fs::create_dir_all(&args.dir).map_err(|e| e.to_string())?;
    let mut hub = Hub::new().map_err(|e| e.to_string())?;
    let mut handles = Vec::new();
    let total_ms = args.start_ms + args.seconds * 1000;
    for i in 0..args.boards {
        let serial = format!("{:05}", 20_000 + i);
        let script = if args.full {
            busy_script(args.start_ms, total_ms)
        } else {
            Vec::new()
        };
        let opts = ServeOptions {
            link: Some(args.dir.join(format!("board-{serial}"))),
            line_pacing: true,
            script,
            ..ServeOptions::default()
        };
        let cfg = EmulatorConfig {
            serial,
            ..EmulatorConfig::default()
        };
        handles.push(
            hub.serve_pty(Emulator::new(cfg), opts)
                .map_err(|e| e.to_string())?,
        );
    }
    println!("ready {}", args.dir.display());
    // Until the parent closes our stdin, or the time is up.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {
            line.clear();
        }
        let _ = tx.send(());
    });
    let _ = rx.recv_timeout(Duration::from_millis(total_ms + 5_000));
    drop(handles);
    drop(hub);
    let _ = std::fs::remove_dir_all(&args.dir);
    Ok(())
}

/// A lift or a put every 5 ms on the empty middle of the board.
fn busy_script(start_ms: u64, end_ms: u64) -> Vec<TimedAction> {
    let mut out = Vec::new();
    let mut k = 0u64;
    let mut at = start_ms;
    while at < end_ms {
        let square = Square::from_index(16 + (k % 32) as u8).unwrap_or(Square::A1);
        let action = if (k / 32) % 2 == 0 {
            Action::Place(square, Piece::new(Color::White, Role::Knight))
        } else {
            Action::Lift(square)
        };
        out.push(TimedAction { at_ms: at, action });
        k += 1;
        at += 5;
    }
    out
}

/// (utime + stime) of this process, from /proc/self/stat, in clock ticks.
fn cpu_ticks() -> Result<u64, String> {
    let stat = std::fs::read_to_string("/proc/self/stat").map_err(|e| e.to_string())?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or("bad /proc/self/stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line: 12 and 13 after the ')'.
    let num = |i: usize| -> Result<u64, String> {
        fields
            .get(i)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| "bad /proc/self/stat".to_string())
    };
    Ok(num(11)? + num(12)?)
}

fn ticks_per_sec() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as u64
    } else {
        100
    }
}

/// VmRSS in KiB.
fn rss_kib() -> Result<u64, String> {
    let status = std::fs::read_to_string("/proc/self/status").map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| "no VmRSS".into())
}

fn bench(args: &Args) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // The driver gets a few seconds to connect before the farm's activity starts.
    let start_ms = 4_000u64;
    let mut child = Command::new(exe)
        .args(["farm", "--boards", &args.boards.to_string()])
        .args(["--seconds", &(args.seconds + 4).to_string()])
        .args(["--start-ms", &start_ms.to_string()])
        .arg("--dir")
        .arg(&args.dir)
        .args(if args.full { vec!["--full"] } else { vec![] })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the farm: {e}"))?;
    let farm_started = Instant::now();
    let stdout = child.stdout.take().ok_or("no farm stdout")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    if !line.starts_with("ready") {
        return Err(format!("the farm said {line:?}"));
    }
    let result = runtime.block_on(measure(args, &args.dir, farm_started, start_ms));
    drop(child.stdin.take());
    let _ = child.wait();
    result
}

async fn measure(
    args: &Args,
    dir: &Path,
    farm_started: Instant,
    start_ms: u64,
) -> Result<(), String> {
    let rss_before = rss_kib()?;
    let epoch = std::time::Instant::now();
    let mut counters = Vec::new();
    let mut controls = Vec::new();
    for i in 0..args.boards {
        let serial = format!("{:05}", 20_000 + i);
        let spec = BoardSpec {
            name: serial.clone(),
            port: PortSpec::Path(dir.join(format!("board-{serial}"))),
            options: DriverOptions::default(),
        };
        let handle = spawn_board(spec, epoch, None).map_err(|e| e.to_string())?;
        controls.push(handle.control.clone());
        let mut events = handle.events;
        counters.push(tokio::spawn(async move {
            let mut fields = 0u64;
            let mut connected = 0u64;
            while let Some(ev) = events.recv().await {
                match ev.event {
                    BoardEvent::Field(_) => fields += 1,
                    BoardEvent::Connected { .. } => connected += 1,
                    _ => {}
                }
            }
            (fields, connected)
        }));
    }
    // All connected?
    let t0 = Instant::now();
    while controls.iter().any(|c| !c.status().info.connected) {
        if t0.elapsed() > Duration::from_secs(30) {
            return Err("not all boards connected within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let connect_time = t0.elapsed();
    // Wait for the activity (if any) to start, then measure.
    let begin = farm_started + Duration::from_millis(start_ms + 500);
    tokio::time::sleep_until(tokio::time::Instant::from_std(begin)).await;
    let cpu0 = cpu_ticks()?;
    let w0 = Instant::now();
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    let cpu = cpu_ticks()? - cpu0;
    let wall = w0.elapsed().as_secs_f64();
    let rss_after = rss_kib()?;
    let down = controls
        .iter()
        .filter(|c| !c.status().info.connected)
        .count();
    let dropped: u64 = controls.iter().map(|c| c.status().dropped_events).sum();
    let active_for = farm_started.elapsed().as_secs_f64() - start_ms as f64 / 1000.0;
    for c in &controls {
        c.shutdown().await;
    }
    let mut fields = 0;
    let mut connects = 0;
    for c in counters {
        let (f, n) = c.await.map_err(|e| e.to_string())?;
        fields += f;
        connects += n;
    }
    let n = args.boards as f64;
    let cpu_s = cpu as f64 / ticks_per_sec() as f64;
    println!(
        "mode {}: {} boards connected in {:.2} s; measured {:.1} s",
        if args.full { "full" } else { "idle" },
        args.boards,
        connect_time.as_secs_f64(),
        wall
    );
    println!(
        "  driver CPU {:.2} s = {:.2} % of one core in all, {:.4} % per board",
        cpu_s,
        100.0 * cpu_s / wall,
        100.0 * cpu_s / wall / n
    );
    println!(
        "  RSS {} KiB before the boards, {} KiB after: {:.1} KiB per board",
        rss_before,
        rss_after,
        (rss_after.saturating_sub(rss_before)) as f64 / n
    );
    println!(
        "  field updates received: {fields} in all ({:.0} a second per board over the run); \
         connects {connects}; boards down at the end {down}; events dropped {dropped}",
        fields as f64 / n / active_for,
    );
    Ok(())
}
