//! `dgt-arbiter init [--out FILE] [--force] [--port PORT]...`: probes the serial ports as
//! `probe` does and writes a starting config with one `[[board]]` per board found (by its
//! stable udev name under `/dev/dgt/` where it has one), the event to fill in, and
//! comments. On a terminal it asks the event's name, round and time control; otherwise it
//! asks nothing and writes placeholders. It never overwrites a file without `--force`, and
//! it writes nothing that `run --check` would refuse.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use arbiter_daemon::Config;
use dgt_serial::ProbeReport;

/// Where udev puts the boards' stable names (udev/70-dgt-boards.rules).
const STABLE_NAMES: &str = "/dev/dgt";

/// Arguments of `init`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The config file to write.
    #[arg(long, default_value = "hall.toml", value_name = "FILE.toml")]
    pub out: PathBuf,
    /// Replace FILE if it exists.
    #[arg(long)]
    pub force: bool,
    /// A port to probe; repeat for several (default: as `probe`, /dev/dgt/*, the USB and
    /// Bluetooth serial ports).
    #[arg(long = "port", value_name = "PORT")]
    pub ports: Vec<PathBuf>,
    /// Also probe the ports matching this pattern (`*` and `?` in the last component).
    #[arg(long = "glob", value_name = "PATTERN")]
    pub globs: Vec<String>,
    /// Longest time one port has to answer, in milliseconds.
    #[arg(long, default_value_t = 4000, value_name = "MS")]
    pub timeout_ms: u64,
    /// The daemon's output folder written into the config (default:
    /// /var/lib/dgt-arbiter/NAME, NAME being FILE's name without `.toml`: the packaged
    /// service's state folder).
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<String>,
    /// Where the stable names of the boards are (the udev links).
    #[arg(long, default_value = STABLE_NAMES, value_name = "DIR", hide = true)]
    pub stable_names: PathBuf,
}

/// The event's facts the organiser gives (or the placeholders).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventAnswers {
    pub name: String,
    pub round: u32,
    /// `BASE+INC` in seconds.
    pub time_control: String,
}

impl Default for EventAnswers {
    fn default() -> EventAnswers {
        EventAnswers {
            name: "My Club Championship".into(),
            round: 1,
            time_control: "5400+30".into(),
        }
    }
}

/// A board the probe found, as the config names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundBoard {
    /// The stable udev name where the board has one, else the port probed.
    pub port: PathBuf,
    /// `port` is a udev name that survives replugging.
    pub stable: bool,
    pub serial: Option<String>,
    /// What the probe learnt (firmware, clock, battery), for a comment.
    pub facts: String,
}

pub fn run(args: &InitArgs) -> anyhow::Result<()> {
    if args.out.exists() && !args.force {
        anyhow::bail!(
            "{} exists; it is left as it is (--force replaces it)",
            args.out.display()
        );
    }
    let (reports, _named) = crate::probe::probe(&args.ports, &args.globs, args.timeout_ms)?;
    let links = stable_links(&args.stable_names);
    let boards: Vec<FoundBoard> = reports
        .iter()
        .filter_map(|r| found_board(r, &links))
        .collect();
    let answers = if std::io::stdin().is_terminal() {
        ask_event()?
    } else {
        EventAnswers::default()
    };
    let output_dir = args
        .output_dir
        .clone()
        .unwrap_or_else(|| default_output_dir(&args.out));
    let text = render_config(&answers, &boards, &output_dir);
    // What init writes, `run` must accept: a mistake (a bad answer) stops here, not at
    // the service's start.
    let config = Config::parse(&text, &args.out)
        .with_context(|| format!("the config for {} would be refused", args.out.display()))?;
    write_config(&args.out, &text, args.force)?;
    if boards.is_empty() {
        println!(
            "no DGT board found among {} port(s): wrote {} with one example board \
             (a placeholder port); plug the boards in and run `dgt-arbiter init --force \
             --out {}` again, or write the port in",
            reports.len(),
            args.out.display(),
            args.out.display()
        );
    } else {
        println!(
            "wrote {} with {} board(s); fill in the event and the players, then: \
             dgt-arbiter run --check --config {}",
            args.out.display(),
            config.boards.len(),
            args.out.display()
        );
    }
    Ok(())
}

/// The board of a probe report, named by its stable link when it has one.
fn found_board(report: &ProbeReport, links: &[(PathBuf, PathBuf)]) -> Option<FoundBoard> {
    let info = report.board.as_ref()?;
    let device = std::fs::canonicalize(&report.port).unwrap_or_else(|_| report.port.clone());
    let stable = stable_name(&device, links);
    let battery = info.battery.map(|b| format!(", battery {}%", b.percent));
    Some(FoundBoard {
        port: stable.map_or_else(|| report.port.clone(), Path::to_path_buf),
        stable: stable.is_some(),
        serial: info.serial.clone(),
        facts: format!(
            "firmware {}, clock {}{}",
            info.version.map_or("-".to_owned(), |v| v.to_string()),
            info.clock.describe(),
            battery.unwrap_or_default()
        ),
    })
}

/// The links in `dir` with the devices they point at (none if `dir` does not exist).
fn stable_links(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut links: Vec<(PathBuf, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let link = e.path();
            let device = std::fs::canonicalize(&link).ok()?;
            Some((link, device))
        })
        .collect();
    links.sort();
    links
}

/// The stable name of `device` (a canonical path) among `links` (link, device).
pub fn stable_name<'a>(device: &Path, links: &'a [(PathBuf, PathBuf)]) -> Option<&'a Path> {
    links
        .iter()
        .find(|(_, target)| target == device)
        .map(|(link, _)| link.as_path())
}

/// `/var/lib/dgt-arbiter/NAME` for `NAME.toml`: the packaged service's state folder
/// (`StateDirectory=dgt-arbiter`), one folder per config.
pub fn default_output_dir(out: &Path) -> String {
    let name = out
        .file_stem()
        .map_or("hall".into(), |s| s.to_string_lossy().into_owned());
    format!("/var/lib/dgt-arbiter/{name}")
}

/// Asks the event's name, round and time control on the terminal; Enter keeps the
/// placeholder.
fn ask_event() -> anyhow::Result<EventAnswers> {
    let default = EventAnswers::default();
    let name = ask("Event name", &default.name)?;
    let round = ask("Round", &default.round.to_string())?;
    let round = round
        .parse()
        .with_context(|| format!("round {round:?}: expected a number from 1 to 999"))?;
    let time_control = ask("Time control, BASE+INC in seconds", &default.time_control)?;
    Ok(EventAnswers {
        name,
        round,
        time_control,
    })
}

fn ask(question: &str, default: &str) -> anyhow::Result<String> {
    print!("{question} [{default}]: ");
    std::io::stdout().flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let answer = line.trim();
    Ok(if answer.is_empty() { default } else { answer }.to_owned())
}

fn write_config(out: &Path, text: &str, force: bool) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        // Checked above too; `create_new` closes the gap if the file appeared meanwhile.
        options.create_new(true);
    }
    let mut file = options
        .open(out)
        .with_context(|| format!("cannot write {}", out.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", out.display()))
}

/// A TOML basic string: JSON's string escapes are all TOML's too.
fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// The config text: the event to fill in, the output and HTTP, one `[[board]]` per board
/// found, or one example board when none was.
pub fn render_config(event: &EventAnswers, boards: &[FoundBoard], output_dir: &str) -> String {
    let mut s = String::new();
    s.push_str(HEADER);
    s.push_str("\n[event]\n");
    let event_lines = [
        (format!("name = {}", quoted(&event.name)), "PGN Event"),
        ("# site = \"Town, Club\"".into(), "PGN Site"),
        (
            "# date = \"2026-06-12\"".into(),
            "default: the day the daemon starts",
        ),
        (
            format!("round = {}", event.round),
            "each round has its own files: change it, restart",
        ),
        (
            format!("time_control = {}", quoted(&event.time_control)),
            "BASE+INC in seconds: 5400+30, 900+10, 180+2",
        ),
        (
            "# supervision = \"partial\"".into(),
            "club play: an illegal move stands once the opponent replied",
        ),
        (
            "# trf = \"round.trf\"".into(),
            "the pairing program's TRF: players by board number",
        ),
    ];
    for (line, comment) in event_lines {
        s.push_str(&with_comment(&line, comment));
    }
    s.push_str(&format!(
        "\n[output]\n# Journals, events, PGN and the LiveChess folder.\ndir = {}\n",
        quoted(output_dir)
    ));
    s.push_str(HTTP);
    if boards.is_empty() {
        s.push_str(EXAMPLE_BOARD);
    } else {
        s.push_str(&format!(
            "\n# The {} board(s) `dgt-arbiter init` found. Board numbers are the pairing's: swap\n\
             # the ports (or renumber) so that each number is on the right table.\n",
            boards.len()
        ));
        for (i, board) in boards.iter().enumerate() {
            s.push_str(&render_board(i + 1, board));
        }
    }
    s
}

/// `line`, then `# comment` from column 33 on (one column for all).
fn with_comment(line: &str, comment: &str) -> String {
    format!("{line:32} # {comment}\n")
}

fn render_board(number: usize, board: &FoundBoard) -> String {
    let serial = board.serial.as_deref().unwrap_or("-");
    let mut s = format!(
        "\n[[board]]\nnumber = {number}\n# DGT serial {serial}, {}\nport = {}\n",
        board.facts,
        quoted(&board.port.display().to_string())
    );
    if !board.stable {
        s.push_str(
            "# This port name may change when the board is plugged in again (no udev name:\n\
             # see docs/udev.md).",
        );
        match &board.serial {
            Some(serial) => s.push_str(&format!(
                " Instead of the port:\n# serial = {}\n",
                quoted(serial)
            )),
            None => s.push('\n'),
        }
    }
    s.push_str("# white = \"Surname, First name\"\n# black = \"Surname, First name\"\n");
    s.push_str(&with_comment(
        "# white_clock = \"left\"",
        "or \"right\"; default: inferred from the first presses",
    ));
    s
}

const HEADER: &str = "\
# dgt-arbiter config, written by `dgt-arbiter init`.
#
# Fill in the event (name, round, time control) and each board's players, then check it:
#   dgt-arbiter run --check --config THIS-FILE
# Every key is described in docs/deployment.md (installed:
# /usr/share/doc/dgt-arbiter/deployment.md.gz); more examples are in
# /usr/share/doc/dgt-arbiter/examples/.
";

const HTTP: &str = "
[http]
# The dashboard, on the hall's network (a phone on the hall's Wi-Fi opens
# http://THIS-PC:8080/). Acting on it needs the arbiter token, which the daemon keeps in
# `arbiter-token` in the output folder. \"127.0.0.1:8080\": this machine only.
bind = \"0.0.0.0:8080\"
# public_dashboard = true        # anyone on the network may watch (acting needs the token)
";

const EXAMPLE_BOARD: &str = "
# No DGT board answered when this file was written. An example board: write its port
# (`dgt-arbiter probe` lists them; the udev rules name them /dev/dgt/board-SERIAL), or
# plug the boards in and run `dgt-arbiter init --force` again. Until the port exists the
# daemon warns and keeps trying it.
[[board]]
number = 1
port = \"/dev/dgt/board-00000\"
# serial = \"01025\"               # or the board's DGT serial number (Bluetooth boards)
# white = \"Surname, First name\"
# black = \"Surname, First name\"
";

#[cfg(test)]
mod tests {
    use super::*;

    fn board(port: &str, stable: bool, serial: Option<&str>) -> FoundBoard {
        FoundBoard {
            port: port.into(),
            stable,
            serial: serial.map(Into::into),
            facts: "firmware 1.4, clock DGT3000 2.1".into(),
        }
    }

    fn parse(text: &str) -> Config {
        Config::parse(text, Path::new("/etc/dgt-arbiter/hall.toml"))
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn one_board_a_found_port_by_its_stable_name() {
        let boards = [
            board("/dev/dgt/board-01025", true, Some("01025")),
            board("/dev/ttyACM3", false, Some("01026")),
            board("/dev/rfcomm0", false, None),
        ];
        let text = render_config(
            &EventAnswers::default(),
            &boards,
            "/var/lib/dgt-arbiter/hall",
        );
        let config = parse(&text);
        assert_eq!(config.boards.len(), 3);
        // The ports do not exist here: warnings, as for a cable out.
        assert_eq!(config.missing_ports.len(), 3, "{:?}", config.missing_ports);
        assert!(text.contains("number = 1\n# DGT serial 01025, firmware 1.4, clock DGT3000 2.1\nport = \"/dev/dgt/board-01025\"\n# white"));
        assert!(text.contains("port = \"/dev/ttyACM3\"\n# This port name may change"));
        assert!(text.contains("# serial = \"01026\"\n"));
        assert!(text.contains("number = 3\n# DGT serial -,"));
        assert_eq!(config.event.round, 1);
        assert_eq!(config.output.dir, Path::new("/var/lib/dgt-arbiter/hall"));
    }

    #[test]
    fn no_board_found_gives_an_example_board_that_the_check_accepts() {
        let text = render_config(&EventAnswers::default(), &[], "out");
        let config = parse(&text);
        assert_eq!(config.boards.len(), 1);
        assert!(text.contains("No DGT board answered"));
        assert_eq!(config.missing_ports.len(), 1);
    }

    #[test]
    fn answers_are_quoted_and_a_bad_time_control_is_refused() {
        let event = EventAnswers {
            name: "Club \"Open\" \\ 2026".into(),
            round: 7,
            time_control: "900+10".into(),
        };
        let config = parse(&render_config(&event, &[], "out"));
        assert_eq!(config.event.name, "Club \"Open\" \\ 2026");
        assert_eq!(config.event.round, 7);
        let event = EventAnswers {
            time_control: "ninety minutes".into(),
            ..EventAnswers::default()
        };
        let text = render_config(&event, &[], "out");
        assert!(Config::parse(&text, Path::new("hall.toml")).is_err());
    }

    /// The package's conffile /etc/dgt-arbiter/hall.toml is what `init` writes with no
    /// board (when they differ, the failure message prints the text to put there).
    #[test]
    fn the_packaged_starting_config_is_what_init_writes_without_boards() {
        let packaged = include_str!("../../../config/hall.toml");
        let rendered = render_config(
            &EventAnswers::default(),
            &[],
            &default_output_dir(Path::new("hall.toml")),
        );
        assert_eq!(
            packaged, rendered,
            "config/hall.toml is stale; write it as:\n{rendered}"
        );
        assert_eq!(parse(packaged).boards.len(), 1);
    }

    #[test]
    fn stable_names_are_found_by_their_device() {
        let links = vec![
            (
                PathBuf::from("/dev/dgt/board-01025"),
                PathBuf::from("/dev/ttyACM0"),
            ),
            (
                PathBuf::from("/dev/dgt/board-01026"),
                PathBuf::from("/dev/ttyACM1"),
            ),
        ];
        assert_eq!(
            stable_name(Path::new("/dev/ttyACM1"), &links),
            Some(Path::new("/dev/dgt/board-01026"))
        );
        assert_eq!(stable_name(Path::new("/dev/ttyACM2"), &links), None);
    }

    #[test]
    fn the_output_folder_is_named_after_the_config() {
        assert_eq!(
            default_output_dir(Path::new("/etc/dgt-arbiter/hall-b.toml")),
            "/var/lib/dgt-arbiter/hall-b"
        );
    }
}
