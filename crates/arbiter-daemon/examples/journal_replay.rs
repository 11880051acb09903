//! Restart time: makes a board journal of N records (default 1,000,000) and times how long
//! the daemon takes to come up from it: `Daemon::start` reads the journal (checking each
//! line's crc32), replays every record through the board's tracker, publishes the
//! regenerated events to the hub and opens the sinks, before HTTP answers or any board is
//! driven.
//!
//! The journal is what issue 12's flood left behind: a connection, the start position's
//! dump, then the g1 knight reported lifted and put back again and again, with a
//! disconnect / reconnect pair every 250 records, as a line overrunning in a loop writes.
//!
//! ```text
//! cargo run --release -p arbiter-daemon --example journal_replay            # 1,000,000
//! cargo run --release -p arbiter-daemon --example journal_replay -- 100000
//! ```

use std::path::Path;
use std::time::{Duration, Instant};

use arbiter_daemon::{Config, Daemon, RunOptions};
use board_journal::{Durability, Journal, Record, Syncer};
use chess_rules::Placement;
use daemon_config::paths::Paths;
use dgt_protocol::{
    BoardEvent, FieldIndex, FieldUpdate, Orientation, PieceCode, RawBoard, TimedEvent,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let records: u64 = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 1_000_000,
    };
    let dir = std::env::temp_dir().join(format!("journal-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let text = format!(
        "[event]\nname = \"Replay bench\"\nround = 1\ntime_control = \"5400+30\"\n\n\
         [output]\ndir = \"{}\"\n\n[[board]]\nnumber = 1\nport = \"{}\"\n",
        dir.join("out").display(),
        dir.join("no-such-port").display()
    );
    let config = Config::parse(&text, Path::new("bench.toml"))?;
    let paths = Paths::new(&config.output.dir);

    let started = Instant::now();
    write_journal(&paths.journal(1, 1), records)?;
    let size = std::fs::metadata(paths.journal(1, 1))?.len();
    println!(
        "wrote {records} records ({:.1} MB) in {:.2} s",
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let t = Instant::now();
        let daemon = Daemon::start(config, RunOptions::default()).await?;
        let took = t.elapsed();
        let events = daemon.hub().log_len();
        println!(
            "restart: {records} records replayed, {events} events regenerated, up in {:.2} s",
            took.as_secs_f64()
        );
        daemon.shutdown().await;
        Ok::<(), Box<dyn std::error::Error>>(())
    })?;
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn write_journal(path: &Path, records: u64) -> Result<()> {
    let syncer = Syncer::start(1, 1)?;
    let mut opened = Journal::open(path, "1", 1, "", 0, Duration::from_millis(150), &syncer)?;
    let j = &mut opened.journal;
    let g1 = FieldIndex::from_square("g1".parse()?, Orientation::Normal);
    let knight = RawBoard::from_placement(&Placement::start(), Orientation::Normal).get(g1);
    let connected = BoardEvent::Connected {
        serial: Some("01025".into()),
        version: None,
        clock_version: None,
    };
    let dump = BoardEvent::Dump {
        board: RawBoard::from_placement(&Placement::start(), Orientation::Normal),
    };
    let mut t_ms = 0;
    let mut put = |j: &mut Journal, event: BoardEvent| -> std::io::Result<()> {
        t_ms += 2;
        j.append(
            &Record::Event(TimedEvent { t_ms, event }),
            Durability::Later,
        )
    };
    put(j, connected.clone())?;
    put(j, dump.clone())?;
    let mut n = 2;
    while n < records {
        let event = match n % 250 {
            0 => BoardEvent::Disconnected {
                reason: "overrun: the consumer fell behind".into(),
            },
            1 => connected.clone(),
            2 => dump.clone(),
            k => BoardEvent::Field(FieldUpdate {
                field: g1,
                piece: if k % 2 == 0 { PieceCode::Empty } else { knight },
            }),
        };
        put(j, event)?;
        n += 1;
    }
    j.sync()?;
    Ok(())
}
