//! Boards are their serial numbers (issue 36): a game belongs to a board, not to the port
//! it was cabled to. At events boards are moved and re-cabled between rounds and during
//! them; a port that answers with another serial than the board it had is another board.
//!
//! [`Switchboard`] decides, from the serial each port reports as its link comes up, which
//! board's game (tracker, journal) a port's events feed:
//! - the serial of a board of this event: that board's game, wherever it is now (a swap
//!   of two cables keeps both games on their boards); the board whose port it was waits
//!   for its own serial;
//! - a serial no board of the event has: nothing is recorded from the port until the
//!   arbiter confirms it as the port's board (a spare board put in place of a broken one);
//! - a serial another port feeds already (one board on two ports, or two boards with one
//!   serial): the port that had it keeps it, the other feeds nothing until that one lets
//!   it go;
//! - no serial (some Bluetooth boards answer none): the port's own board, as before: a
//!   swap of such boards cannot be seen.
//!
//! A board's serial is the configured one (`serial = "..."`), else the last one its journal
//! holds, else the first one its own port reports. Ports are named by the board configured
//! on them. Pure: no IO; [`SerialRoutes`] shares it between the board tasks.

use std::collections::BTreeMap;
use std::sync::Mutex;

use dgt_protocol::TimedEvent;
use tokio::sync::{mpsc, watch};

/// What a port does with its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feed {
    /// Nothing connected.
    Idle,
    /// They are this board's.
    Board(u32),
    /// A serial no board of the event has: nothing recorded until the arbiter confirms.
    Unknown(String),
    /// A serial that the port `on` feeds already: nothing recorded from this one.
    Duplicate { serial: String, on: u32 },
}

/// One port: where it is and what answers there.
#[derive(Debug, Clone)]
struct Port {
    name: String,
    serial: Option<String>,
    feed: Feed,
}

/// Which port feeds which board. See the module docs.
#[derive(Debug, Clone, Default)]
pub struct Switchboard {
    /// Each board's serial, once known.
    serials: BTreeMap<u32, String>,
    /// Each serial-driven port, by the number of the board configured on it.
    ports: BTreeMap<u32, Port>,
}

impl Switchboard {
    /// Adds the port of board `board` (`name`: its device or search), the board's serial
    /// when known.
    pub fn add_port(&mut self, board: u32, name: &str, serial: Option<String>) {
        if let Some(s) = serial {
            self.serials.insert(board, s);
        }
        self.ports.insert(
            board,
            Port {
                name: name.to_owned(),
                serial: None,
                feed: Feed::Idle,
            },
        );
    }

    /// Whether port `port` is on the switchboard (a serial port, not a LiveChess feed).
    pub fn drives(&self, port: u32) -> bool {
        self.ports.contains_key(&port)
    }

    /// Where port `port`'s events go now (a port not added feeds its own board).
    pub fn feed(&self, port: u32) -> Feed {
        self.ports
            .get(&port)
            .map_or(Feed::Board(port), |p| p.feed.clone())
    }

    /// The board `port`'s events go to, if any.
    pub fn board_of(&self, port: u32) -> Option<u32> {
        match self.feed(port) {
            Feed::Board(b) => Some(b),
            _ => None,
        }
    }

    /// The port whose events feed board `board` now (a port not added: its own).
    pub fn port_of(&self, board: u32) -> Option<u32> {
        if !self.ports.contains_key(&board) {
            return Some(board);
        }
        self.feeding(board)
    }

    /// The serial board `board` is known by.
    pub fn serial_of(&self, board: u32) -> Option<&str> {
        self.serials.get(&board).map(String::as_str)
    }

    /// Port `port`'s link is up with `serial`.
    pub fn connected(&mut self, port: u32, serial: Option<&str>) {
        if !self.ports.contains_key(&port) {
            return;
        }
        self.disconnected(port);
        let feed = match serial {
            None => self.free_board(port, port),
            Some(s) => match self.board_with(s) {
                Some(b) => self.free_board(port, b),
                None if !self.serials.contains_key(&port)
                    && self.feeding(port).is_none_or(|q| q == port) =>
                {
                    // The port's own board tells its serial for the first time.
                    self.serials.insert(port, s.to_owned());
                    Feed::Board(port)
                }
                None => Feed::Unknown(s.to_owned()),
            },
        };
        if let Some(p) = self.ports.get_mut(&port) {
            p.serial = serial.map(str::to_owned);
            p.feed = feed;
        }
    }

    /// Port `port`'s link is down: a port waiting for the serial it fed takes it.
    pub fn disconnected(&mut self, port: u32) {
        let Some(p) = self.ports.get_mut(&port) else {
            return;
        };
        p.serial = None;
        let freed = std::mem::replace(&mut p.feed, Feed::Idle);
        let Feed::Board(board) = freed else {
            return;
        };
        let waiting = self.ports.iter().find_map(|(n, p)| match &p.feed {
            Feed::Duplicate { on, .. } if *on == port => Some(*n),
            _ => None,
        });
        if let Some(n) = waiting {
            if let Some(p) = self.ports.get_mut(&n) {
                p.feed = Feed::Board(board);
            }
            // Others waiting on the same port now wait on the one that took it.
            for p in self.ports.values_mut() {
                if let Feed::Duplicate { on, .. } = &mut p.feed {
                    if *on == port {
                        *on = n;
                    }
                }
            }
        }
    }

    /// The arbiter confirms that the board answering on `port` with `serial` is board
    /// `board` (a spare put in its place): `board` is known by that serial from now on.
    pub fn confirm(&mut self, port: u32, board: u32, serial: &str) -> Result<(), String> {
        let Some(p) = self.ports.get(&port) else {
            return Err(format!("board {port}'s port is not a serial port"));
        };
        match &p.feed {
            Feed::Unknown(s) if s == serial => {}
            Feed::Unknown(s) => {
                return Err(format!(
                    "{} answers with serial {s} now, not {serial}",
                    p.name
                ))
            }
            _ => {
                return Err(format!(
                    "{} has no unknown board waiting (serial {serial})",
                    p.name
                ))
            }
        }
        if let Some(q) = self.feeding(board) {
            return Err(format!(
                "board {board} answers on {} (serial {}); it cannot be a second board",
                self.ports.get(&q).map_or("?", |q| q.name.as_str()),
                self.serial_of(board).unwrap_or("?")
            ));
        }
        self.serials.insert(board, serial.to_owned());
        if let Some(p) = self.ports.get_mut(&port) {
            p.feed = Feed::Board(board);
        }
        Ok(())
    }

    /// What the arbiter must know about each port, by key (`None`: nothing to say).
    pub fn warnings(&self) -> Vec<(String, Option<String>)> {
        self.ports
            .iter()
            .map(|(n, p)| (format!("board-serial-{n}"), self.warning(*n, p)))
            .collect()
    }

    fn warning(&self, n: u32, p: &Port) -> Option<String> {
        let own = |b: u32| self.serial_of(b).unwrap_or("unknown").to_owned();
        let seen = p.serial.as_deref().unwrap_or("none");
        match &p.feed {
            Feed::Idle => None,
            Feed::Board(b) if *b == n => None,
            Feed::Board(b) => Some(format!(
                "Board {b} (serial {seen}) now answers on {}, board {n}'s port: its game \
                 continues from there; board {n} (serial {}) waits for its own serial",
                p.name,
                own(n)
            )),
            Feed::Unknown(s) => Some(format!(
                "Serial {s} answers on {}, board {n}'s port (board {n} is serial {}); no board \
                 of this event has it: nothing is recorded from it until the arbiter confirms \
                 it as board {n}",
                p.name,
                own(n)
            )),
            Feed::Duplicate { serial, on } => Some(format!(
                "Serial {serial} answers on two ports, {} and {} (board {n}'s port): nothing \
                 is recorded from {} while the other has it",
                self.ports.get(on).map_or("?", |q| q.name.as_str()),
                p.name,
                p.name
            )),
        }
    }

    /// The board with serial `serial`.
    fn board_with(&self, serial: &str) -> Option<u32> {
        self.serials
            .iter()
            .find_map(|(b, s)| (s == serial).then_some(*b))
    }

    /// The port feeding board `board`.
    fn feeding(&self, board: u32) -> Option<u32> {
        self.ports
            .iter()
            .find_map(|(n, p)| (p.feed == Feed::Board(board)).then_some(*n))
    }

    /// What `port` feeds when board `board` answers on it: the board, unless another port
    /// feeds it already.
    fn free_board(&self, port: u32, board: u32) -> Feed {
        match self.feeding(board) {
            Some(on) if on != port => Feed::Duplicate {
                serial: self.serial_of(board).unwrap_or("none").to_owned(),
                on,
            },
            _ => Feed::Board(board),
        }
    }
}

/// The [`Switchboard`] shared by the board tasks, with where each board takes the events
/// forwarded from other ports.
pub struct SerialRoutes {
    board: Mutex<Switchboard>,
    inboxes: Mutex<BTreeMap<u32, mpsc::UnboundedSender<TimedEvent>>>,
    /// Counts the changes, so that a port whose feed another port changed notices it.
    changed: watch::Sender<u64>,
}

impl SerialRoutes {
    pub fn new(board: Switchboard) -> SerialRoutes {
        SerialRoutes {
            board: Mutex::new(board),
            inboxes: Mutex::default(),
            changed: watch::Sender::new(0),
        }
    }

    /// Board `board`'s task starts: where it takes the events of other ports.
    pub fn register(&self, board: u32) -> mpsc::UnboundedReceiver<TimedEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.inboxes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(board, tx);
        rx
    }

    /// Tells the changes of [`SerialRoutes::update`].
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Changes the switchboard; returns `f`'s answer and the warnings after it.
    pub fn update<R>(
        &self,
        f: impl FnOnce(&mut Switchboard) -> R,
    ) -> (R, Vec<(String, Option<String>)>) {
        let mut board = self.board.lock().unwrap_or_else(|p| p.into_inner());
        let r = f(&mut board);
        let warnings = board.warnings();
        drop(board);
        self.changed.send_modify(|n| *n += 1);
        (r, warnings)
    }

    /// Reads the switchboard.
    pub fn read<R>(&self, f: impl FnOnce(&Switchboard) -> R) -> R {
        f(&self.board.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Hands `event` (from another port) to board `board`'s task.
    pub fn forward(&self, board: u32, event: TimedEvent) {
        let inboxes = self.inboxes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tx) = inboxes.get(&board) {
            let _ = tx.send(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_boards() -> Switchboard {
        let mut s = Switchboard::default();
        s.add_port(1, "/dev/ttyACM0", None);
        s.add_port(2, "/dev/ttyACM1", None);
        s.connected(1, Some("11111"));
        s.connected(2, Some("22222"));
        s
    }

    fn said(s: &Switchboard, port: u32) -> Option<String> {
        let key = format!("board-serial-{port}");
        s.warnings()
            .into_iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, w)| w)
    }

    #[test]
    fn each_board_learns_its_serial_on_its_own_port() {
        let s = two_boards();
        assert_eq!(s.serial_of(1), Some("11111"));
        assert_eq!(s.serial_of(2), Some("22222"));
        assert_eq!(s.feed(1), Feed::Board(1));
        assert_eq!(s.feed(2), Feed::Board(2));
        assert!(s.warnings().iter().all(|(_, w)| w.is_none()));
    }

    #[test]
    fn swapped_cables_keep_each_game_on_its_board_in_either_order() {
        // Port 2 notices first, port 1 after: a duplicate until port 1 lets go.
        let mut s = two_boards();
        s.disconnected(2);
        s.connected(2, Some("11111"));
        assert_eq!(
            s.feed(2),
            Feed::Duplicate {
                serial: "11111".into(),
                on: 1
            }
        );
        assert!(said(&s, 2).is_some_and(|w| w.contains("two ports")));
        s.disconnected(1);
        assert_eq!(s.feed(2), Feed::Board(1));
        s.connected(1, Some("22222"));
        assert_eq!(s.feed(1), Feed::Board(2));
        for (port, other) in [(1, 2), (2, 1)] {
            let w = said(&s, port).unwrap_or_default();
            assert!(
                w.contains(&format!("Board {other} (serial {other}{other}{other}"))
                    && w.contains("/dev/ttyACM"),
                "{w}"
            );
        }
        // Back on their own ports: nothing to say.
        s.disconnected(1);
        s.disconnected(2);
        s.connected(1, Some("11111"));
        s.connected(2, Some("22222"));
        assert_eq!((s.feed(1), s.feed(2)), (Feed::Board(1), Feed::Board(2)));
        assert!(s.warnings().iter().all(|(_, w)| w.is_none()));
    }

    #[test]
    fn a_board_moved_to_a_free_port_is_followed_and_its_old_port_waits() {
        let mut s = two_boards();
        s.disconnected(2);
        s.disconnected(1);
        s.connected(2, Some("11111"));
        assert_eq!(s.feed(2), Feed::Board(1));
        // Board 2 comes back on port 1: followed too.
        s.connected(1, Some("22222"));
        assert_eq!(s.feed(1), Feed::Board(2));
    }

    #[test]
    fn an_unknown_serial_feeds_nothing_until_the_arbiter_confirms_it() {
        let mut s = two_boards();
        s.connected(1, Some("33333"));
        assert_eq!(s.feed(1), Feed::Unknown("33333".into()));
        let w = said(&s, 1).unwrap_or_default();
        assert!(w.contains("33333") && w.contains("11111") && w.contains("/dev/ttyACM0"));
        assert!(s.confirm(1, 1, "44444").is_err());
        assert!(
            s.confirm(2, 2, "33333").is_err(),
            "port 2 has no unknown board"
        );
        assert!(
            s.confirm(1, 2, "33333").is_err(),
            "board 2 answers elsewhere"
        );
        assert_eq!(s.confirm(1, 1, "33333"), Ok(()));
        assert_eq!(s.feed(1), Feed::Board(1));
        assert_eq!(s.serial_of(1), Some("33333"));
        // The old board is a stranger now.
        s.connected(1, Some("11111"));
        assert_eq!(s.feed(1), Feed::Unknown("11111".into()));
    }

    #[test]
    fn one_board_on_two_ports_feeds_from_the_first_only() {
        let mut s = two_boards();
        s.disconnected(2);
        s.connected(2, Some("11111"));
        assert_eq!(s.board_of(2), None);
        assert_eq!(s.board_of(1), Some(1));
        // Port 2 goes away: nothing changes for port 1.
        s.disconnected(2);
        assert_eq!(s.feed(1), Feed::Board(1));
        assert!(s.warnings().iter().all(|(_, w)| w.is_none()));
    }

    #[test]
    fn a_board_reconnecting_with_its_serial_or_none_keeps_its_port() {
        let mut s = two_boards();
        s.disconnected(1);
        s.connected(1, Some("11111"));
        assert_eq!(s.feed(1), Feed::Board(1));
        // A board that answers no serial is taken as the port's own.
        s.disconnected(1);
        s.connected(1, None);
        assert_eq!(s.feed(1), Feed::Board(1));
        // A port not on the switchboard (a LiveChess source) feeds its own board.
        assert_eq!(s.feed(7), Feed::Board(7));
    }

    #[test]
    fn a_configured_serial_is_the_boards_from_the_start() {
        let mut s = Switchboard::default();
        s.add_port(1, "/dev/ttyACM0", Some("22222".into()));
        s.add_port(2, "/dev/ttyACM1", None);
        // Board 1's serial on board 2's port, before board 1 ever answered.
        s.connected(2, Some("22222"));
        assert_eq!(s.feed(2), Feed::Board(1));
        assert_eq!(s.serial_of(2), None);
    }
}
