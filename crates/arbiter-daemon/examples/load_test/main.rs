//! The 1,000-board load test: the daemon (`dgt-arbiter run`, its own process) drives N
//! emulated boards on real ptys served by another process (this program in `farm` mode),
//! each playing a real game at N times tournament pace; this harness follows the
//! daemon's `/events` stream and measures:
//!
//! - the daemon's CPU share (`/proc/<pid>/stat`) over the play and its peak RSS (`VmHWM`);
//! - press-to-ruling latency: from the moment the farm wrote the last byte of the
//!   lever-flip clock frame to the pty, to the moment the `move` (or `illegal_move`) event
//!   reached this harness over SSE, on the shared `CLOCK_MONOTONIC`; split into presses
//!   ruled at once and presses that wait for the board's next scan to report the move
//!   (and, apart, presses after a move its player did not press for: they flip nothing,
//!   so the move is reported only when the next move shows it);
//! - lost events: every expected event (each ply's `move`, each injected ruling) must be
//!   in `events.jsonl` exactly once.
//!
//! ```text
//! cargo build --release -p dgt-arbiter -p arbiter-daemon --bin dgt-arbiter --example load_test
//! target/release/examples/load_test --boards 1000 --seconds 150
//! ```
//!
//! (`scripts/load-test.sh` does both.) See `docs/performance.md` for what "tournament
//! pace" means here and for results.

mod clock;
mod farm;
mod http;
mod procfs;
mod report;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clock::mono_ns;
use farm::FarmArgs;

struct Args {
    farm: FarmArgs,
    /// Run as the emulator process.
    is_farm: bool,
    daemon: Option<PathBuf>,
    keep: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        farm: FarmArgs {
            boards: 1000,
            dir: std::env::temp_dir().join(format!("dgt-load-{}", std::process::id())),
            warmup_ms: 25_000,
            play_ms: 150_000,
            pace: 10.0,
            pgn: None,
            scan_ms: 250,
            irregular_every: 10,
        },
        is_farm: false,
        daemon: None,
        keep: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        let num = |v: String| v.parse::<f64>().map_err(|e| format!("{arg}: {e}"));
        match arg.as_str() {
            "farm" => a.is_farm = true,
            "--boards" => a.farm.boards = num(value()?)? as usize,
            "--seconds" => a.farm.play_ms = (num(value()?)? * 1000.0) as u64,
            "--warmup" => a.farm.warmup_ms = (num(value()?)? * 1000.0) as u64,
            "--pace" => a.farm.pace = num(value()?)?,
            "--scan-ms" => a.farm.scan_ms = num(value()?)? as u64,
            "--irregular-every" => a.farm.irregular_every = num(value()?)? as usize,
            "--pgn" => a.farm.pgn = Some(PathBuf::from(value()?)),
            // Absolute: the daemon runs in this folder and finds the ptys by its paths.
            "--dir" => {
                a.farm.dir = std::path::absolute(value()?).map_err(|e| format!("--dir: {e}"))?
            }
            "--daemon" => a.daemon = Some(PathBuf::from(value()?)),
            "--keep" => a.keep = true,
            "-h" | "--help" => {
                return Err("usage: load_test [--boards N] [--seconds S] [--warmup S] \
                            [--pace X] [--scan-ms MS] [--irregular-every N] [--pgn FILE] \
                            [--dir DIR] [--daemon PATH] [--keep]"
                    .into())
            }
            other => return Err(format!("unknown argument {other} (try --help)")),
        }
    }
    if a.farm.boards == 0 || a.farm.pace.is_nan() || a.farm.pace <= 0.0 {
        return Err("--boards and --pace must be positive".into());
    }
    Ok(a)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("load_test: {e}");
            std::process::exit(2);
        }
    };
    let result = if args.is_farm {
        farm::run(&args.farm)
    } else {
        harness(&args)
    };
    if let Err(e) = result {
        eprintln!("load_test: {e}");
        std::process::exit(1);
    }
}

/// `target/release/dgt-arbiter` beside `target/release/examples/load_test`.
fn daemon_path(args: &Args) -> Result<PathBuf, String> {
    if let Some(p) = &args.daemon {
        // The daemon runs in the run's folder: a relative path (the script's
        // `target/release/dgt-arbiter`) would not be found from there.
        return std::fs::canonicalize(p).map_err(|e| format!("--daemon {}: {e}", p.display()));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let guess = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("dgt-arbiter"))
        .ok_or("cannot locate the daemon binary")?;
    if !guess.is_file() {
        return Err(format!(
            "no daemon binary at {}: build it with `cargo build --release -p dgt-arbiter \
             --bin dgt-arbiter` (or pass --daemon PATH)",
            guess.display()
        ));
    }
    Ok(guess)
}

fn config_text(args: &FarmArgs) -> String {
    let mut s = format!(
        "# Generated by the load test: {n} emulated boards.\n\
         [event]\nname = \"Load test\"\nround = 1\ntime_control = \"{tc}\"\n\
         supervision = \"full\"\n\n\
         [output]\ndir = \"out\"\n\n\
         [http]\nbind = \"127.0.0.1:0\"\ntoken = \"{token}\"\n",
        n = args.boards,
        tc = farm::TIME_CONTROL,
        token = http::TOKEN,
    );
    for i in 1..=args.boards {
        s.push_str(&format!(
            "\n[[board]]\nnumber = {i}\nport = \"{}\"\nwhite_clock = \"left\"\n",
            farm::link(&args.dir, i as u32).display()
        ));
    }
    s
}

/// Kills a child on drop unless it was waited for (no stray processes on errors).
struct Reaped(Option<Child>);

impl Drop for Reaped {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn harness(args: &Args) -> Result<(), String> {
    let fa = &args.farm;
    let daemon_exe = daemon_path(args)?;
    let _ = std::fs::remove_dir_all(&fa.dir);
    std::fs::create_dir_all(&fa.dir).map_err(|e| format!("{}: {e}", fa.dir.display()))?;
    let load_before = report::load_average();

    // The farm: this program again, in its own process.
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut farm_cmd = Command::new(exe);
    farm_cmd
        .arg("farm")
        .args(["--boards", &fa.boards.to_string()])
        .args(["--seconds", &(fa.play_ms as f64 / 1000.0).to_string()])
        .args(["--warmup", &(fa.warmup_ms as f64 / 1000.0).to_string()])
        .args(["--pace", &fa.pace.to_string()])
        .args(["--scan-ms", &fa.scan_ms.to_string()])
        .args(["--irregular-every", &fa.irregular_every.to_string()])
        .arg("--dir")
        .arg(&fa.dir);
    if let Some(p) = &fa.pgn {
        farm_cmd.arg("--pgn").arg(p);
    }
    let mut farm = Reaped(Some(
        farm_cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the farm: {e}"))?,
    ));
    let farm_child = farm.0.as_mut().ok_or("no farm")?;
    let farm_pid = farm_child.id();
    let farm_in = farm_child.stdin.take();
    let mut farm_out = BufReader::new(farm_child.stdout.take().ok_or("no farm stdout")?);
    let mut line = String::new();
    farm_out
        .read_line(&mut line)
        .map_err(|e| format!("the farm: {e}"))?;
    let times: Vec<u64> = line
        .strip_prefix("ready ")
        .ok_or_else(|| format!("the farm said {line:?}"))?
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    let [_, play_ns, cut_ns] = times[..] else {
        return Err(format!("the farm said {line:?}"));
    };

    // The daemon.
    let config = fa.dir.join("load.toml");
    std::fs::write(&config, config_text(fa)).map_err(|e| e.to_string())?;
    let log = std::fs::File::create(fa.dir.join("daemon.log")).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut daemon = Reaped(Some(
        Command::new(&daemon_exe)
            .args(["run", "--log-format", "json", "--config"])
            .arg(&config)
            .current_dir(&fa.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", daemon_exe.display()))?,
    ));
    let daemon_pid = daemon.0.as_ref().map(Child::id).ok_or("no daemon")?;
    let addr_file = fa.dir.join("out").join("http-address");
    let addr: SocketAddr = loop {
        if let Some(a) = std::fs::read_to_string(&addr_file).ok().and_then(|t| {
            t.trim()
                .trim_start_matches("http://")
                .trim_end_matches('/')
                .parse()
                .ok()
        }) {
            break a;
        }
        if let Some(Ok(Some(status))) = daemon.0.as_mut().map(Child::try_wait) {
            return Err(format!(
                "the daemon exited ({status}) at start; see {}",
                fa.dir.join("daemon.log").display()
            ));
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err("the daemon wrote no HTTP address within 60 s".into());
        }
        std::thread::sleep(Duration::from_millis(50));
    };

    // Follow the events from now on.
    let arrivals = Arc::new(Mutex::new(Vec::<http::Arrival>::new()));
    let sse_lost = Arc::new(Mutex::new(0u64));
    let sse = {
        let (arrivals, sse_lost) = (Arc::clone(&arrivals), Arc::clone(&sse_lost));
        std::thread::spawn(move || {
            http::follow_events(
                addr,
                |a| arrivals.lock().unwrap_or_else(|e| e.into_inner()).push(a),
                |n| *sse_lost.lock().unwrap_or_else(|e| e.into_inner()) += n,
            )
        })
    };

    // Every board connected before play begins?
    let mut connected = 0;
    let mut connect_secs = None;
    while mono_ns() < play_ns {
        if let Ok(text) = http::get(addr, "/boards") {
            connected = report::connected_boards(&text);
            if connected == fa.boards {
                connect_secs = Some(started.elapsed().as_secs_f64());
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    eprintln!(
        "load_test: {connected} of {} boards connected{}",
        fa.boards,
        connect_secs.map_or(String::new(), |s| format!(
            " {s:.1} s after the daemon started"
        ))
    );
    let fds = procfs::open_fds(daemon_pid);

    // Measure over the play.
    sleep_until_ns(play_ns);
    let mut samples = vec![report::Sample::take(daemon_pid, farm_pid)?];
    while mono_ns() < cut_ns {
        sleep_until_ns((mono_ns() + 10_000_000_000).min(cut_ns));
        samples.push(report::Sample::take(daemon_pid, farm_pid)?);
        let (a, b) = (&samples[samples.len() - 2], &samples[samples.len() - 1]);
        eprintln!(
            "load_test: {:>4.0} s: daemon {:.1} % of a core, RSS {} MiB; farm {:.1} %; load {}",
            (b.mono_ns.saturating_sub(play_ns)) as f64 / 1e9,
            a.daemon_share(b) * 100.0,
            b.daemon_rss_kib / 1024,
            a.farm_share(b) * 100.0,
            report::load_average()
        );
    }
    let hwm_kib = procfs::status_kib(daemon_pid, "VmHWM")?;
    let load_during = report::load_average();

    // The farm writes what it played; the daemon gets a moment for the last presses.
    line.clear();
    farm_out
        .read_line(&mut line)
        .map_err(|e| format!("the farm: {e}"))?;
    if line.trim() != "done" {
        return Err(format!("the farm said {line:?}"));
    }
    std::thread::sleep(Duration::from_secs(2));
    // SAFETY: a signal to the child we started.
    unsafe { libc::kill(daemon_pid as i32, libc::SIGTERM) };
    let stopped = Instant::now();
    let status = loop {
        if let Some(Ok(Some(s))) = daemon.0.as_mut().map(Child::try_wait) {
            break Some(s);
        }
        if stopped.elapsed() > Duration::from_secs(60) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stop_secs = stopped.elapsed().as_secs_f64();
    if status.is_some() {
        daemon.0 = None;
    }
    drop(farm_in);
    if let Some(mut c) = farm.0.take() {
        let _ = c.wait();
    }
    let _ = sse.join();

    let arrivals = std::mem::take(&mut *arrivals.lock().unwrap_or_else(|e| e.into_inner()));
    let sse_lost = *sse_lost.lock().unwrap_or_else(|e| e.into_inner());
    let r = report::Report {
        boards: fa.boards,
        pace: fa.pace,
        play_secs: fa.play_ms as f64 / 1000.0,
        scan_ms: fa.scan_ms,
        connected,
        connect_secs,
        fds,
        samples,
        hwm_kib,
        load_before,
        load_during,
        stop_secs,
        exit: status.map_or("did not stop within 60 s".into(), |s| s.to_string()),
        sse_lost,
    };
    let text = r.render(&fa.dir, &arrivals)?;
    println!("{text}");
    let mut f = std::fs::File::create(fa.dir.join("report.txt")).map_err(|e| e.to_string())?;
    let _ = f.write_all(text.as_bytes());
    if args.keep {
        eprintln!("load_test: the run's files are in {}", fa.dir.display());
    } else {
        // The journals and ptys' links go; the report stays printed.
        let _ = std::fs::remove_dir_all(&fa.dir);
    }
    Ok(())
}

fn sleep_until_ns(t: u64) {
    let now = mono_ns();
    if t > now {
        std::thread::sleep(Duration::from_nanos(t - now));
    }
}
