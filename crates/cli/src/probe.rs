//! `dgt-arbiter probe [PORT...]`: finds the serial ports that answer as DGT boards and
//! lists each board's serial number, firmware version, battery and clock model. Without
//! ports it looks at `/dev/dgt/*` (the udev names), the USB and Bluetooth serial ports
//! the system lists, and any `--glob` patterns (e.g. an emulator's links). The boards
//! are left in IDLE mode afterwards.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use dgt_serial::port::glob;
use dgt_serial::{probe_ports, ProbeOptions, ProbeReport};

/// Arguments of `probe`.
#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// Ports to probe (default: /dev/dgt/*, the USB and Bluetooth serial ports).
    pub ports: Vec<PathBuf>,
    /// Also probe the ports matching this pattern (`*` and `?` in the last path
    /// component), e.g. `--glob '/tmp/dgt-emu/board-*'`.
    #[arg(long = "glob", value_name = "PATTERN")]
    pub globs: Vec<String>,
    /// Longest time one port has to answer, in milliseconds.
    #[arg(long, default_value_t = 4000, value_name = "MS")]
    pub timeout_ms: u64,
    /// One JSON object a line instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also list the ports that did not answer as DGT boards, with the reason.
    #[arg(long, short)]
    pub verbose: bool,
}

pub fn run(args: &ProbeArgs) -> anyhow::Result<()> {
    let (reports, named) = probe(&args.ports, &args.globs, args.timeout_ms)?;
    if reports.is_empty() {
        anyhow::bail!(
            "no candidate port: nothing in /dev/dgt/ and no USB or Bluetooth serial port; \
             name the ports, or use --glob"
        );
    }
    let boards = reports.iter().filter(|r| r.board.is_some()).count();
    if args.json {
        for r in &reports {
            if r.board.is_some() || args.verbose || named {
                println!("{}", serde_json::to_string(r)?);
            }
        }
    } else {
        print_table(&reports, args.verbose || named);
    }
    if boards == 0 {
        anyhow::bail!("no DGT board found among {} port(s)", reports.len());
    }
    Ok(())
}

/// Probes `ports` and the ports matching `globs`, or the default candidates when none is
/// named (also for `init`); says whether ports were named. No report: no candidate port.
pub fn probe(
    ports: &[PathBuf],
    globs: &[String],
    timeout_ms: u64,
) -> anyhow::Result<(Vec<ProbeReport>, bool)> {
    let mut opts = ProbeOptions {
        timeout: Duration::from_millis(timeout_ms),
        ..ProbeOptions::default()
    };
    // The identification must give up before the probe does, to say why.
    opts.link.ident_timeout_ms = opts.link.ident_timeout_ms.min(timeout_ms * 2 / 3);
    let named = !ports.is_empty() || !globs.is_empty();
    let mut ports = ports.to_vec();
    for pattern in globs {
        ports.extend(glob(pattern));
    }
    if named && ports.is_empty() {
        anyhow::bail!("no port matches {globs:?}");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let reports = runtime.block_on(probe_ports(&ports, &opts));
    Ok((reports, named))
}

fn print_table(reports: &[ProbeReport], show_others: bool) {
    let width = reports
        .iter()
        .map(|r| r.port.display().to_string().len())
        .max()
        .unwrap_or(4)
        .max(4);
    println!(
        "{:width$}  {:6}  {:7}  {:16}  CLOCK",
        "PORT", "SERIAL", "VERSION", "BATTERY"
    );
    let mut others = 0;
    for r in reports {
        let port = r.port.display().to_string();
        match &r.board {
            Some(b) => {
                let battery = b.battery.map_or("-".to_owned(), |s| {
                    let state = if s.charging {
                        " charging"
                    } else if s.discharging {
                        " discharging"
                    } else {
                        ""
                    };
                    format!("{}%{state}", s.percent)
                });
                println!(
                    "{port:width$}  {:6}  {:7}  {battery:16}  {}",
                    b.serial.as_deref().unwrap_or("-"),
                    b.version.map_or("-".to_owned(), |v| v.to_string()),
                    b.clock.describe(),
                );
            }
            None if show_others => println!(
                "{port:width$}  not a DGT board: {}",
                r.problem.as_deref().unwrap_or("no answer")
            ),
            None => others += 1,
        }
    }
    if others > 0 {
        println!("({others} other port(s) did not answer as DGT boards; --verbose lists them)");
    }
}
