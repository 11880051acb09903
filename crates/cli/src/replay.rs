//! `dgt-arbiter replay [--fast [--threads N]] [--time-control BASE+INC] [--supervision
//! full|partial] FILE.dgtcap...`: feeds captures through the decoder, event filter and
//! tracker the live daemon uses (`touch_tracker::replay`) and prints the arbiter's events
//! (formats.md §2) as JSON lines, one board per file, in input-time order. Without
//! `--fast` the recorded pacing is kept; with it, dead-position questions are settled in
//! batches (`touch_tracker::batched`), which gives the same events with far fewer
//! searches, and the boards are shared among threads (the same events in the same
//! order). The exit code is non-zero only for unreadable input. A last line without its
//! line end is a torn tail (the recording stopped mid-line: a crash, a power cut): a
//! warning names the file and the line, and the records before it are replayed.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Take, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use capture_replay::{Replay, ReplayError, ReplayOptions};
use dgt_protocol::capture::TimeControl;
use touch_tracker::Supervision;

/// Arguments of `replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// Capture files (.dgtcap), one board each.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Replay as fast as possible instead of at the recorded pace.
    #[arg(long)]
    pub fast: bool,
    /// With --fast: the threads the boards are shared among (default: one per CPU).
    #[arg(long, requires = "fast")]
    pub threads: Option<NonZeroUsize>,
    /// The time control, BASE+INC in seconds (e.g. 180+2); overrides the capture header.
    #[arg(long)]
    pub time_control: Option<TimeControl>,
    /// How closely the games are watched (FIDE Appendix A.5).
    #[arg(long, default_value = "full", value_parser = parse_supervision)]
    pub supervision: Supervision,
}

fn parse_supervision(s: &str) -> Result<Supervision, String> {
    s.parse()
}

pub fn run(args: &ReplayArgs) -> anyhow::Result<()> {
    let mut inputs = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let file = without_torn_tail(path)?;
        let stem = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        inputs.push((stem, BufReader::new(file)));
    }
    let opts = ReplayOptions {
        time_control: args.time_control,
        supervision: args.supervision,
        white_clock: None,
        // Paced, each event as it happens; as fast as possible, a run of dead-position
        // questions per search (the same events, in the same order).
        dead_position_batch: if args.fast {
            touch_tracker::batched::DEFAULT_BATCH
        } else {
            0
        },
    };
    let replay = Replay::new(inputs, &opts)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.fast {
        let threads = args
            .threads
            .or_else(|| std::thread::available_parallelism().ok())
            .map_or(1, NonZeroUsize::get);
        let written = replay.write_json_lines(threads, &mut out);
        // The events before a capture's error are printed before it.
        let flushed = out.flush().or_else(ignore_broken_pipe);
        return match written {
            Ok(()) => Ok(flushed?),
            Err(ReplayError::Write(e)) => Ok(ignore_broken_pipe(e)?),
            Err(e) => {
                flushed?;
                Err(e.into())
            }
        };
    }
    paced(replay, &mut out)
}

/// The replay at the recorded pace: each event printed when its input's time comes.
fn paced(mut replay: Replay<BufReader<Take<File>>>, out: &mut impl Write) -> anyhow::Result<()> {
    let started = Instant::now();
    let first = replay.next_time();
    let mut events = Vec::new();
    let mut line = Vec::new();
    loop {
        if let (Some(t0), Some(t)) = (first, replay.next_time()) {
            let due = Duration::from_millis(t.saturating_sub(t0));
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                out.flush().or_else(ignore_broken_pipe)?;
                std::thread::sleep(wait);
            }
        }
        // The events before a capture's error are printed before it.
        let more = replay.step(&mut events);
        for e in events.drain(..) {
            line.clear();
            e.write_json_line(&mut line);
            out.write_all(&line).or_else(ignore_broken_pipe)?;
        }
        let more = match more {
            Ok(more) => more,
            Err(e) => {
                out.flush().or_else(ignore_broken_pipe)?;
                return Err(e.into());
            }
        };
        if !more {
            break;
        }
    }
    out.flush().or_else(ignore_broken_pipe)?;
    Ok(())
}

/// The capture at `path` up to its last line end. A last line without one is a torn tail
/// (the recorder wrote it when it stopped): warned about, with its line number, and left
/// out, so that the records before it are replayed and the exit code says they were.
fn without_torn_tail(path: &std::path::Path) -> anyhow::Result<Take<File>> {
    let cannot = || format!("cannot read {}", path.display());
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let len = file.metadata().with_context(cannot)?.len();
    // The last line end, looked for from the end a block at a time.
    let mut kept = 0;
    let mut end = len;
    let mut block = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let part = &mut block[..(end - start) as usize];
        file.seek(SeekFrom::Start(start)).with_context(cannot)?;
        file.read_exact(part).with_context(cannot)?;
        if let Some(i) = part.iter().rposition(|&b| b == b'\n') {
            kept = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    file.seek(SeekFrom::Start(0)).with_context(cannot)?;
    if kept < len {
        let mut head = (&mut file).take(kept);
        let mut line = 1;
        loop {
            let n = head.read(&mut block).with_context(cannot)?;
            if n == 0 {
                break;
            }
            line += block[..n].iter().filter(|&&b| b == b'\n').count();
        }
        eprintln!(
            "warning: {}: line {line} has no line end (the recording stopped in the middle \
             of it); the records before it are replayed, that line is not",
            path.display()
        );
        file.seek(SeekFrom::Start(0)).with_context(cannot)?;
    }
    Ok(file.take(kept))
}

/// The reader went away (`| head`): not an error of ours.
fn ignore_broken_pipe(e: std::io::Error) -> std::io::Result<()> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(e)
    }
}
