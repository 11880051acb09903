//! `dgt-arbiter decode FILE.dgtcap [--json]`: shows what was said on a board's serial line,
//! message by message, with times and directions. Board-to-host bytes decode as board
//! messages, host-to-board bytes as commands; decoding problems are shown in place. A
//! malformed file stops with its line number and a non-zero exit code.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;

use anyhow::Context;
use dgt_protocol::capture::{CaptureHeader, CaptureReader, Direction};
use dgt_protocol::{CommandDecoder, Decoder};
use serde_json::json;

/// Arguments of `decode`.
#[derive(Debug, clap::Args)]
pub struct DecodeArgs {
    /// The capture file (.dgtcap).
    pub file: PathBuf,
    /// One JSON object a line instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &DecodeArgs) -> anyhow::Result<()> {
    let file = std::fs::File::open(&args.file)
        .with_context(|| format!("cannot open {}", args.file.display()))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = decode(BufReader::new(file), &mut out, args.json).and_then(|()| {
        out.flush()?;
        Ok(())
    });
    match result {
        // The reader went away (`| head`): not an error of ours.
        Err(e) if is_broken_pipe(&e) => Ok(()),
        r => r.with_context(|| format!("in {}", args.file.display())),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// One decoded item: a message, a command, or a problem.
enum Item {
    Board(dgt_protocol::BoardMessage),
    Host(dgt_protocol::HostCommand),
    Error(String),
}

/// Decodes a capture from `input` and writes the readable (or JSON) form to `out`.
pub fn decode(input: impl BufRead, out: &mut impl Write, json: bool) -> anyhow::Result<()> {
    let reader = CaptureReader::new(input)?;
    write_header(reader.header(), out, json)?;
    let mut board = Decoder::new();
    let mut host = CommandDecoder::new();
    let mut last_t = 0;
    for record in reader {
        let record = record?;
        last_t = record.t_ms;
        let items: Vec<Item> = match record.direction {
            Direction::ToHost => board
                .push(&record.bytes)
                .into_iter()
                .map(|r| r.map_or_else(|e| Item::Error(e.to_string()), Item::Board))
                .collect(),
            Direction::ToBoard => host
                .push(&record.bytes)
                .into_iter()
                .map(|r| r.map_or_else(|e| Item::Error(e.to_string()), Item::Host))
                .collect(),
        };
        for item in items {
            write_item(out, record.t_ms, record.direction, &item, json)?;
        }
    }
    for e in board.finish() {
        if let Err(e) = e {
            write_item(
                out,
                last_t,
                Direction::ToHost,
                &Item::Error(e.to_string()),
                json,
            )?;
        }
    }
    if let Some(Err(e)) = host.finish() {
        write_item(
            out,
            last_t,
            Direction::ToBoard,
            &Item::Error(e.to_string()),
            json,
        )?;
    }
    Ok(())
}

fn write_header(h: &CaptureHeader, out: &mut impl Write, json: bool) -> anyhow::Result<()> {
    if json {
        writeln!(out, "{}", json!({ "header": h }))?;
        return Ok(());
    }
    if let Some(b) = &h.board {
        writeln!(out, "# board: {b}")?;
    }
    if let Some(f) = &h.start_fen {
        writeln!(out, "# start-fen: {f}")?;
    }
    if let Some(tc) = &h.time_control {
        writeln!(out, "# time-control: {tc}")?;
    }
    if let Some(w) = &h.white_clock {
        writeln!(out, "# white-clock: {w}")?;
    }
    for (k, v) in &h.extra {
        writeln!(out, "# {k}: {v}")?;
    }
    Ok(())
}

fn write_item(
    out: &mut impl Write,
    t_ms: u64,
    dir: Direction,
    item: &Item,
    json: bool,
) -> anyhow::Result<()> {
    let arrow = match dir {
        Direction::ToHost => "<",
        Direction::ToBoard => ">",
    };
    if json {
        let value = match item {
            Item::Board(m) => json!({ "t_ms": t_ms, "dir": arrow, "message": m }),
            Item::Host(c) => json!({ "t_ms": t_ms, "dir": arrow, "command": c }),
            Item::Error(e) => json!({ "t_ms": t_ms, "dir": arrow, "error": e }),
        };
        writeln!(out, "{value}")?;
    } else {
        let secs = format!("{}.{:03}", t_ms / 1000, t_ms % 1000);
        match item {
            Item::Board(m) => writeln!(out, "{secs:>10} {arrow} {m}")?,
            Item::Host(c) => writeln!(out, "{secs:>10} {arrow} {c}")?,
            Item::Error(e) => writeln!(out, "{secs:>10} {arrow} error: {e}")?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_text(text: &str, json: bool) -> anyhow::Result<String> {
        let mut out = Vec::new();
        decode(text.as_bytes(), &mut out, json)?;
        Ok(String::from_utf8(out).unwrap())
    }

    const SAMPLE: &str = "# dgtcap 1\n# board: 7\n0 > 4b 2b 03 03 09 00\n\
        5 < 8e 00\n6 < 05 34 00 8d 00 0a 0a 10 09 0a 21 00 00\n7 < 8d 00 0a 20 05 05 20 05 04 09\n\
        9 < 01 02\n";

    #[test]
    fn readable_output() {
        let text = run_text(SAMPLE, false).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "# board: 7");
        assert!(lines[1].ends_with("> SendUpdateNice"), "{text}");
        assert!(lines[2].contains("> clock Version"), "{text}");
        assert!(lines[3].contains("0.006 < field 52 (e2) = ."), "{text}");
        assert!(lines[4].contains("clock version 2.1"), "{text}");
        assert!(
            lines[5].contains("left 0:05:04 right 0:05:05 lever left running"),
            "{text}"
        );
        assert!(
            lines[6].contains("error: at byte 25: 2 byte(s) outside any frame"),
            "{text}"
        );
        assert_eq!(lines.len(), 7);
    }

    #[test]
    fn json_output() {
        let text = run_text(SAMPLE, true).unwrap();
        let values: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(values[0]["header"]["board"], "7");
        assert_eq!(values[1]["command"]["command"], "send_update_nice");
        assert_eq!(values[2]["command"]["clock"], "version");
        assert_eq!(values[3]["message"]["type"], "field_update");
        assert_eq!(values[3]["t_ms"], 6);
        assert_eq!(values[5]["message"]["left"]["time"], "0:05:04");
        assert!(values[6]["error"].is_string());
    }

    #[test]
    fn bad_files_name_the_line() {
        let err = run_text("# dgtcap 1\n0 < 86\n\n12 x 00\n", false).unwrap_err();
        assert!(format!("{err:#}").contains("line 4"), "{err:#}");
    }
}
