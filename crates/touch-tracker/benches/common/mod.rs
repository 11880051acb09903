//! The generated real-game streams the pipeline bench and the throughput example feed
//! the tracker: real games (`shared/data/pgn`) played by the hand-motion generator on the
//! emulator (250 ms board scan, clock frames), with what the line carried decoded and
//! filtered beforehand.

use chess_rules::read_pgn;
use dgt_protocol::{BoardEvent, Decoder, EventFilter, HostCommand, TimedEvent};
use dgt_sim::hands::{generate, GameInput, HandOptions};
use dgt_sim::{Emulator, EmulatorConfig};
use touch_tracker::TrackerConfig;

/// One game as the line carried it.
pub struct Stream {
    pub config: TrackerConfig,
    /// What the board sent, chunk by chunk, with the time it sent it.
    #[allow(dead_code)] // the example times the tracker only
    pub chunks: Vec<(u64, Vec<u8>)>,
    /// The same, decoded and filtered, after a `Connected`.
    pub events: Vec<TimedEvent>,
}

/// The first `games` games of the corpus that the generator can play, the `i`th played
/// with `options(i)`.
pub fn streams(games: usize, options: impl Fn(usize) -> HandOptions) -> Vec<Stream> {
    let bytes = test_data::read("pgn/pychess-gamefiles/world_matches.pgn");
    let pgns = read_pgn(&bytes).expect("the PGN file reads");
    let mut out = Vec::new();
    for (i, pgn) in pgns.iter().take(games).enumerate() {
        let Ok(game) = GameInput::from_pgn(pgn) else {
            continue;
        };
        let Ok(script) = generate(&game, &options(i)) else {
            continue;
        };
        let mut emu = Emulator::new(EmulatorConfig {
            scan_interval_ms: 250,
            ..script.emulator_config()
        });
        emu.receive(
            &[
                HostCommand::SendBoard.encode(),
                HostCommand::SendUpdateNice.encode(),
            ]
            .concat(),
        );
        let mut chunks = Vec::new();
        for a in &script.actions {
            emu.apply_at(a.at_ms, &a.action);
            chunks.extend(emu.take_output().into_iter().map(|c| (c.t_ms, c.bytes)));
        }
        emu.advance_to(script.end_ms + 2_000);
        chunks.extend(emu.take_output().into_iter().map(|c| (c.t_ms, c.bytes)));
        let (mut decoder, mut filter) = (Decoder::new(), EventFilter::new());
        let mut events = vec![TimedEvent {
            t_ms: 0,
            event: BoardEvent::Connected {
                serial: None,
                version: None,
                clock_version: None,
            },
        }];
        for (t_ms, bytes) in &chunks {
            for msg in decoder.push(bytes).into_iter().flatten() {
                for event in filter.on_message(&msg) {
                    events.push(TimedEvent { t_ms: *t_ms, event });
                }
            }
        }
        let mut config = TrackerConfig::new("bench");
        config.start = script.start;
        config.time_control = Some(script.time_control);
        out.push(Stream {
            config,
            chunks,
            events,
        });
    }
    out
}
