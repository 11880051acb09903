//! `dgt-arbiter`: the command-line entry point. Each subcommand lives in its own module.

use clap::{Parser, Subcommand};

mod decode;
mod demo;
mod emulate;
mod probe;
mod replay;
mod results;
mod round;
mod run;
mod tls;

/// A FIDE arbiter for DGT electronic chess boards and clocks.
#[derive(Debug, Parser)]
#[command(name = "dgt-arbiter", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the messages of a .dgtcap capture file, decoded, with times and directions.
    Decode(decode::DecodeArgs),
    /// Serve an emulated board on a pty and play a game of a PGN file on it with a
    /// player's hands (irregularities on request); prints the pty path.
    Emulate(emulate::EmulateArgs),
    /// Find the serial ports that answer as DGT boards; list serial number, version,
    /// battery and clock model.
    Probe(probe::ProbeArgs),
    /// Run the arbiter on the boards of a config file (see config/*.toml).
    Run(run::RunArgs),
    /// Eight emulated boards playing real games with irregularities, through the
    /// arbiter: rulings on screen, PGN, LiveChess folder and HTTP (start here).
    Demo(demo::DemoArgs),
    /// Replay .dgtcap captures through the arbiter and print its events as JSON lines.
    Replay(replay::ReplayArgs),
    /// The pairings of a round from the pairing program's TRF file, by board number.
    Round(round::RoundArgs),
    /// Write the TRF with a round's results from the boards' games (and the arbiter's).
    Results(results::ResultsArgs),
    /// Make a self-signed certificate and key for HTTPS (`[http] tls_cert`, `tls_key`)
    /// and print the fingerprint the arbiters check on their phones.
    TlsSelfsigned(tls::TlsArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match &cli.command {
        Command::Decode(args) => decode::run(args),
        Command::Emulate(args) => emulate::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Run(args) => run::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Round(args) => round::run(args),
        Command::Results(args) => results::run(args),
        Command::TlsSelfsigned(args) => tls::run(args),
    }
}
