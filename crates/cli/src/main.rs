//! `dgt-arbiter`: the command-line entry point. Each subcommand lives in its own module.

use clap::{CommandFactory, Parser, Subcommand};
use messages::{Args, Language, Messages};

mod central;
mod decode;
mod demo;
mod emulate;
mod evidence;
mod generate;
mod init;
mod logging;
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
    /// Probe the boards and write a starting config with one [[board]] per board found.
    Init(init::InitArgs),
    /// Run the arbiter on the boards of a config file (see config/*.toml).
    Run(run::RunArgs),
    /// The central of a several-PC event: every hall's boards on one dashboard, one
    /// round PGN and LiveChess folder, fed by the halls over NATS JetStream.
    Central(central::CentralArgs),
    /// Eight emulated boards playing real games with irregularities, through the
    /// arbiter: rulings on screen, PGN, LiveChess folder and HTTP (start here).
    Demo(demo::DemoArgs),
    /// The evidence pack of an incident: the events, touch log, clocks, serial bytes and
    /// diagrams around a board's ply, with index.html and a manifest of SHA-256s.
    Evidence(evidence::EvidenceArgs),
    /// Replay .dgtcap captures through the arbiter and print its events as JSON lines.
    Replay(replay::ReplayArgs),
    /// The pairings of a round from the pairing program's TRF file, by board number.
    Round(round::RoundArgs),
    /// Write the TRF with a round's results from the boards' games (and the arbiter's).
    Results(results::ResultsArgs),
    /// Make a self-signed certificate and key for HTTPS (`[http] tls_cert`, `tls_key`)
    /// and print the fingerprint the arbiters check on their phones.
    TlsSelfsigned(tls::TlsArgs),
    /// Write the man pages and shell completions (for the Debian package).
    #[command(hide = true)]
    Generate(generate::GenerateArgs),
}

impl Cli {
    /// The user's language for what is said before a config is read: the command's
    /// `--lang`, else the locale's (`LC_ALL`, `LC_MESSAGES`, `LANG`), else English.
    fn language(&self) -> Language {
        let given = match &self.command {
            Command::Run(args) => args.lang,
            Command::Central(args) => args.lang,
            Command::Demo(args) => args.lang,
            _ => None,
        };
        user_language(given)
    }
}

/// The language given (`--lang`), else the locale's (`LC_ALL`, `LC_MESSAGES`, `LANG`),
/// else English: for what is said before a config is read, or without one.
pub(crate) fn user_language(given: Option<Language>) -> Language {
    given.unwrap_or_else(|| Language::from_locale(|name| std::env::var(name).ok()))
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", error_text(&e, Messages::new(cli.language())));
            std::process::ExitCode::FAILURE
        }
    }
}

/// One error of a chain for people in the language of `m`: a config's mistakes in their
/// words, the commonest file errors by their kind; others (and all in English) as they
/// display.
fn said(e: &(dyn std::error::Error + 'static), m: Messages) -> String {
    if m.language() == Language::En {
        return e.to_string();
    }
    if let Some(config) = e.downcast_ref::<daemon_config::ConfigError>() {
        return config.message(m);
    }
    match e.downcast_ref::<std::io::Error>().map(std::io::Error::kind) {
        Some(std::io::ErrorKind::NotFound) => m.text("error-not-found"),
        Some(std::io::ErrorKind::PermissionDenied) => m.text("error-permission"),
        _ => e.to_string(),
    }
}

/// `Error: ...` and its causes as anyhow prints them, but never a backtrace (a user who
/// has `RUST_BACKTRACE` set for other programs gets a plain message here too); in the
/// language of `m` (English: exactly anyhow's words).
fn error_text(e: &anyhow::Error, m: Messages) -> String {
    let mut out = m.format("error", &Args::new().str("text", said(e.as_ref(), m)));
    let causes: Vec<String> = e.chain().skip(1).map(|c| said(c, m)).collect();
    if !causes.is_empty() {
        out.push_str("\n\n");
        out.push_str(&m.text("error-caused-by"));
        for (i, c) in causes.iter().enumerate() {
            if causes.len() == 1 {
                out.push_str(&format!("\n    {c}"));
            } else {
                out.push_str(&format!("\n    {i}: {c}"));
            }
        }
    }
    out
}

fn run(cli: &Cli) -> anyhow::Result<()> {
    match &cli.command {
        Command::Decode(args) => decode::run(args),
        Command::Emulate(args) => emulate::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Evidence(args) => evidence::run(args),
        Command::Run(args) => run::run(args),
        Command::Central(args) => central::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Round(args) => round::run(args),
        Command::Results(args) => results::run(args),
        Command::TlsSelfsigned(args) => tls::run(args),
        Command::Init(args) => init::run(args),
        Command::Generate(args) => generate::run(args, Cli::command()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_anyhow_prints_them_without_a_backtrace() {
        let en = Messages::english();
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_text(&e, en), "Error: outer\n\nCaused by:\n    inner");
        let e = anyhow::anyhow!("a").context("b").context("c");
        assert_eq!(
            error_text(&e, en),
            "Error: c\n\nCaused by:\n    0: b\n    1: a"
        );
        assert_eq!(error_text(&anyhow::anyhow!("plain"), en), "Error: plain");
    }
}
