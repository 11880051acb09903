//! [`BoardEvent`]: what the driver emits and the tracker consumes, and [`EventFilter`],
//! the pure step from decoded messages to events, so that a replay and the live driver
//! produce the same events from the same bytes.

use serde::{Deserialize, Serialize};

use crate::board::{FieldUpdate, RawBoard};
use crate::clock::{ButtonPress, ClockAck, ClockSide, ClockTime, ClockVersion};
use crate::message::{BatteryStatus, BoardMessage, Version};

/// An event with the time it happened, in ms (capture time in a replay, ms since the
/// daemon started when live).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedEvent {
    pub t_ms: u64,
    pub event: BoardEvent,
}

/// Something the board told us, cleaned of the protocol's noise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BoardEvent {
    /// The link is up (emitted by the driver, or by a replay at its start).
    Connected {
        serial: Option<String>,
        version: Option<Version>,
        /// The clock's firmware version, when the driver already knows it as the link
        /// comes up (a resync of a running link); `None` in journals written before it.
        #[serde(default)]
        clock_version: Option<ClockVersion>,
    },
    /// A full board dump.
    Dump { board: RawBoard },
    /// One field changed.
    Field(FieldUpdate),
    /// A sane clock time frame (see [`EventFilter`]).
    Clock(ClockTime),
    /// The clock answered a clock command (version answers included).
    ClockAck(ClockAck),
    /// A button was pressed on the clock.
    ClockButton(ButtonPress),
    /// The board reports a clock again after reporting none (or for the first time).
    ClockConnected,
    /// The board reports that no clock is connected.
    ClockDisconnected,
    /// Battery state (Bluetooth boards).
    Battery(BatteryStatus),
    /// The link is gone (emitted by the driver, or by a replay at its end).
    Disconnected { reason: String },
}

/// A clock reading may jump by at most this much between two frames (fact sheet §7).
const MAX_JUMP_MS: u64 = 3_600_000;

/// Identity facts the board told us; the driver puts them into `Connected`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoardIdentity {
    pub serial: Option<String>,
    pub long_serial: Option<String>,
    pub version: Option<Version>,
    pub trademark: Option<String>,
}

/// Turns decoded messages into [`BoardEvent`]s, applying the clock sanity rules of the
/// fact sheet §7:
/// - all-zero BWTIME frames (Bluetooth boards after a clock command) are dropped;
/// - invalid BCD never gets here (the decoder reports it as an error);
/// - a frame whose reading jumps by more than an hour on either side from the last good
///   frame is dropped, unless the next frame confirms the jump (a clock really set to new
///   times), in which case that next frame is taken;
/// - while the board reports "no clock", frames are dropped (the last good times stay);
///   the change itself is reported once as `ClockDisconnected` / `ClockConnected`.
///
/// Serial number, version and the like are kept in [`EventFilter::identity`]; draughts
/// dumps and the EE log are not events.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    last_good: Option<ClockTime>,
    /// A jumping frame waiting for confirmation.
    jump_candidate: Option<ClockTime>,
    /// Whether a clock is connected, as far as we know.
    clock_present: Option<bool>,
    identity: BoardIdentity,
}

impl EventFilter {
    pub fn new() -> EventFilter {
        EventFilter::default()
    }

    /// What the board said about itself so far.
    pub fn identity(&self) -> &BoardIdentity {
        &self.identity
    }

    /// The last clock frame that passed the sanity rules.
    pub fn last_clock(&self) -> Option<&ClockTime> {
        self.last_good.as_ref()
    }

    /// Forgets clock history (after a reconnect); keeps the identity.
    pub fn reset_clock(&mut self) {
        self.last_good = None;
        self.jump_candidate = None;
        self.clock_present = None;
    }

    /// The events one message gives (none, one, or two when the clock reappears).
    pub fn on_message(&mut self, msg: &BoardMessage) -> Vec<BoardEvent> {
        let mut out = Vec::new();
        self.on_message_into(msg, &mut out);
        out
    }

    /// [`EventFilter::on_message`], appending to `out` (a caller's reused buffer: no
    /// allocation per message).
    pub fn on_message_into(&mut self, msg: &BoardMessage, out: &mut Vec<BoardEvent>) {
        match msg {
            BoardMessage::BoardDump { board } => out.push(BoardEvent::Dump { board: *board }),
            BoardMessage::FieldUpdate(u) => out.push(BoardEvent::Field(*u)),
            BoardMessage::ClockTime(t) => self.on_clock(t, out),
            BoardMessage::ClockAck(a) => out.push(match a.button_press() {
                Some(p) => BoardEvent::ClockButton(p),
                None => BoardEvent::ClockAck(*a),
            }),
            BoardMessage::BatteryStatus(b) => out.push(BoardEvent::Battery(*b)),
            BoardMessage::SerialNumber(s) => self.identity.serial = Some(s.number.clone()),
            BoardMessage::LongSerialNumber { text } => {
                self.identity.long_serial = Some(text.clone())
            }
            BoardMessage::Version(v) => self.identity.version = Some(*v),
            BoardMessage::Trademark { text } => self.identity.trademark = Some(text.clone()),
            BoardMessage::EeMoves(_)
            | BoardMessage::BusAddress(_)
            | BoardMessage::DraughtsDump { .. } => {}
        }
    }

    fn on_clock(&mut self, t: &ClockTime, out: &mut Vec<BoardEvent>) {
        if t.is_all_zero() {
            return;
        }
        if t.no_clock {
            if self.clock_present != Some(false) {
                self.clock_present = Some(false);
                out.push(BoardEvent::ClockDisconnected);
            }
            self.jump_candidate = None;
            return;
        }
        let jumps = |a: &ClockTime, b: &ClockTime| {
            [ClockSide::Left, ClockSide::Right]
                .into_iter()
                .any(|s| a.millis(s).abs_diff(b.millis(s)) > MAX_JUMP_MS)
        };
        if let Some(last) = &self.last_good {
            if jumps(last, t) {
                let confirmed = self.jump_candidate.as_ref().is_some_and(|c| !jumps(c, t));
                if !confirmed {
                    self.jump_candidate = Some(*t);
                    return;
                }
            }
        }
        self.jump_candidate = None;
        if self.clock_present != Some(true) {
            self.clock_present = Some(true);
            out.push(BoardEvent::ClockConnected);
        }
        self.last_good = Some(*t);
        out.push(BoardEvent::Clock(*t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Hms, SideTime};

    fn clock(left_s: u32, right_s: u32) -> ClockTime {
        let side = |s| SideTime {
            time: Hms::from_secs(s).unwrap(),
            ..SideTime::default()
        };
        ClockTime {
            left: side(left_s),
            right: side(right_s),
            running: true,
            ..ClockTime::default()
        }
    }

    fn kinds(f: &mut EventFilter, t: ClockTime) -> Vec<BoardEvent> {
        f.on_message(&BoardMessage::ClockTime(t))
    }

    #[test]
    fn clock_sanity_rules() {
        let mut f = EventFilter::new();
        assert!(kinds(&mut f, ClockTime::default()).is_empty(), "all zero");
        assert_eq!(
            kinds(&mut f, clock(300, 300)),
            vec![
                BoardEvent::ClockConnected,
                BoardEvent::Clock(clock(300, 300))
            ]
        );
        assert_eq!(kinds(&mut f, clock(299, 300)).len(), 1);
        // A single jump of more than an hour is dropped...
        assert!(kinds(&mut f, clock(299 + 3601, 300)).is_empty());
        assert_eq!(kinds(&mut f, clock(298, 300)).len(), 1);
        // ...but a confirmed one (the clock was set) is taken.
        assert!(kinds(&mut f, clock(5400, 5400)).is_empty());
        assert_eq!(
            kinds(&mut f, clock(5399, 5400)),
            vec![BoardEvent::Clock(clock(5399, 5400))]
        );
        // No clock: reported once, frames dropped, last good kept.
        let none = ClockTime {
            no_clock: true,
            ..clock(0, 0)
        };
        assert_eq!(kinds(&mut f, none), vec![BoardEvent::ClockDisconnected]);
        assert!(kinds(&mut f, none).is_empty());
        assert_eq!(f.last_clock(), Some(&clock(5399, 5400)));
        assert_eq!(
            kinds(&mut f, clock(5398, 5400))[0],
            BoardEvent::ClockConnected
        );
    }

    #[test]
    fn buttons_and_identity() {
        let mut f = EventFilter::new();
        let ack = ClockAck::for_button(crate::clock::ClockButton::Run);
        assert!(matches!(
            f.on_message(&BoardMessage::ClockAck(ack))[0],
            BoardEvent::ClockButton(_)
        ));
        let v = Version { major: 1, minor: 2 };
        assert!(f.on_message(&BoardMessage::Version(v)).is_empty());
        assert_eq!(f.identity().version, Some(v));
        let json = serde_json::to_string(&TimedEvent {
            t_ms: 5,
            event: BoardEvent::Connected {
                serial: Some("01025".into()),
                version: Some(v),
                clock_version: Some(ClockVersion { major: 2, minor: 1 }),
            },
        })
        .unwrap();
        assert!(json.contains("\"kind\":\"connected\""), "{json}");
        let back: TimedEvent = serde_json::from_str(&json).unwrap();
        assert!(matches!(
            back.event,
            BoardEvent::Connected {
                clock_version: Some(ClockVersion { major: 2, minor: 1 }),
                ..
            }
        ));
        // A journal line written before `clock_version` existed still reads.
        let old = r#"{"t_ms":5,"event":{"kind":"connected","serial":"01025","version":{"major":1,"minor":2}}}"#;
        let back: TimedEvent = serde_json::from_str(old).unwrap();
        assert_eq!(
            back.event,
            BoardEvent::Connected {
                serial: Some("01025".into()),
                version: Some(v),
                clock_version: None,
            }
        );
    }
}
