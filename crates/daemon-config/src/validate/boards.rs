//! Validation of the boards: their ports or LiveChess sources, their starts (standard,
//! Chess960, a set-up position) and their players from the round's TRF file.

use super::super::raw::*;
use super::super::*;
use super::Validate;

impl Validate<'_> {
    /// Fills each board's players from round `round` of the TRF file `t` (relative to
    /// the config's folder). A board whose number has no game in the round (fewer pairs
    /// than boards, or a forfeit) stays without players.
    pub(super) fn trf_players(
        &self,
        t: &Spanned<String>,
        round: u32,
        (time_control, tc_text): (TimeControl, &Spanned<String>),
        raw: &[Spanned<RawBoard>],
        boards: &mut [BoardConfig],
    ) -> Result<PathBuf, ConfigError> {
        let path = PathBuf::from(t.get_ref().trim());
        let path = if path.is_relative() {
            self.path.parent().unwrap_or(Path::new(".")).join(path)
        } else {
            path
        };
        let loaded = TrfRound::load(&path, round).map_err(|e| {
            let cause = match &e {
                crate::pairings::PairingsError::Read { source, .. } => format!(": {source}"),
                crate::pairings::PairingsError::Trf { .. } => String::new(),
            };
            self.err(
                t.span(),
                format!("event.trf: {e}{cause}; expected the pairing program's TRF-16 file with round {round} paired"),
            )
            .said(
                Said::new("config-trf")
                    .arg("detail", format!("{e}{cause}"))
                    .arg("round", round),
            )
        })?;
        // A TRF's own control (line 122), where it is written in the PGN form, must be the
        // event's: two controls for one round would leave the category and penalties
        // (art. 7.5.5) to a guess. Words there (`90'/40 + 30'`) are the pairing
        // program's, not read.
        let trf_control = loaded.trf.time_control_text();
        if let Some(Ok(trf_tc)) = trf_control.map(str::parse::<TimeControl>) {
            if trf_tc != time_control {
                return Err(self.err(
                    tc_text.span(),
                    format!(
                        "event.time_control {time_control} is not the control of event.trf \
                         (its line 122 says {trf_tc}); expected the same control in both"
                    ),
                ));
            }
        }
        for r in raw {
            let r = r.get_ref();
            if let Some(name) = r.white.as_ref().or(r.black.as_ref()) {
                return Err(self.err(
                    name.span(),
                    "white/black are set here and the players also come from event.trf; \
                     expected one of them (remove white and black from the boards)",
                ));
            }
        }
        for b in boards.iter_mut() {
            if let Some(p) = loaded.board(b.number) {
                b.white = Some(p.white.name.clone());
                b.black = Some(p.black.name.clone());
                b.pairing = Some(p);
            }
        }
        Ok(path)
    }

    /// `[[board]] source = "livechess://..."`, alone (no port, no serial).
    pub(super) fn livechess_source(
        &self,
        number: i64,
        b: &RawBoard,
        usable: &mut bool,
    ) -> BoardPort {
        let Some(src) = &b.source else {
            return BoardPort::Path(PathBuf::new());
        };
        if let Some(other) = b.port.as_ref().or(b.serial.as_ref()) {
            *usable = false;
            self.note(self.err(
                other.span(),
                format!("board {number} has a source and a port or serial; expected one of them"),
            ));
        }
        match src.get_ref().parse::<livechess_api::follow::SourceUrl>() {
            Ok(url) => BoardPort::LiveChess(url),
            Err(e) => {
                *usable = false;
                self.note(self.err(
                    src.span(),
                    format!(
                        "board {number}: source {:?}: {e}; expected \
                         \"livechess://HOST:1982/SERIALNR\" (an e-board of a running LiveChess)",
                        src.get_ref()
                    ),
                ));
                BoardPort::Path(PathBuf::new())
            }
        }
    }

    /// The boards, and a message for each configured port that does not exist now.
    /// `[event] variant`, `start_position`, `start_fen` (arbiter-rules.md section 6).
    pub(super) fn event_start(&self, e: &RawEvent) -> GameStart {
        let chess960 = match &e.variant {
            None => false,
            Some(v) => match v.get_ref().as_str() {
                "standard" => false,
                "chess960" => true,
                other => {
                    self.note(self.err(
                        v.span(),
                        format!(
                            "event.variant {other:?} is not a variant; expected \"standard\" \
                             or \"chess960\""
                        ),
                    ));
                    false
                }
            },
        };
        self.start(&e.start_position, &e.start_fen, "event.", chess960)
            .unwrap_or(if chess960 {
                GameStart::Chess960FromBoard
            } else {
                GameStart::Standard
            })
    }

    /// A Chess960 start from `start_position` or `start_fen` (`prefix` names the section
    /// in messages: `event.` or `board 3: `); `None` when neither is given (or one is
    /// wrong, noted). Either needs a Chess960 event.
    pub(super) fn start(
        &self,
        number: &Option<Spanned<i64>>,
        fen: &Option<Spanned<String>>,
        prefix: &str,
        chess960: bool,
    ) -> Option<GameStart> {
        if let (Some(_), Some(f)) = (number, fen) {
            self.note(self.err(
                f.span(),
                format!(
                    "{prefix}start_position and start_fen are both given; expected one of them"
                ),
            ));
            return None;
        }
        let span = number
            .as_ref()
            .map(Spanned::span)
            .or_else(|| fen.as_ref().map(Spanned::span))?;
        if !chess960 {
            self.note(self.err(
                span,
                format!(
                    "{prefix}a start position is for Chess960 games; expected [event] variant \
                     = \"chess960\" with it (a standard game starts from the standard \
                     position)"
                ),
            ));
            return None;
        }
        if let Some(n) = number {
            let found = u16::try_from(*n.get_ref())
                .ok()
                .and_then(|k| chess_rules::Position::start_960(k).ok());
            if found.is_none() {
                self.note(self.err(
                    n.span(),
                    format!(
                        "{prefix}start_position {} is not a Chess960 position; expected 0 to \
                         959 (518 is the standard set-up)",
                        n.get_ref()
                    ),
                ));
            }
            return found.map(GameStart::Chess960);
        }
        let f = fen.as_ref()?;
        match chess_rules::Position::from_fen_960(f.get_ref()) {
            Ok(p) => Some(GameStart::Chess960(p)),
            Err(e) => {
                self.note(self.err(
                    f.span(),
                    format!(
                        "{prefix}start_fen is not a Chess960 position: {e}; expected an X-FEN \
                         or Shredder-FEN (such as \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR \
                         w HFhf - 0 1\")"
                    ),
                ));
                None
            }
        }
    }

    pub(super) fn boards(
        &self,
        raw: &[Spanned<RawBoard>],
        chess960: bool,
    ) -> (Vec<BoardConfig>, Vec<Warning>) {
        if raw.is_empty() {
            self.note(invalid(
                self.path,
                self.text,
                self.text.len(),
                "no [[board]] is configured; expected at least one board with its number and \
                 port (or serial)"
                    .into(),
            ));
            return (Vec::new(), Vec::new());
        }
        let mut out: Vec<BoardConfig> = Vec::with_capacity(raw.len());
        let mut missing = Vec::new();
        // (board, the port as its canonical path) of the boards so far.
        let mut devices: Vec<(i64, PathBuf)> = Vec::with_capacity(raw.len());
        for b in raw {
            let span = b.span();
            let b = b.get_ref();
            // A board whose number is a mistake is left out; its other keys are checked
            // under its number as written.
            let number = self.keep(self.in_range(&b.number, "board.number", 1, 9999, ""));
            let mut usable = number.is_some();
            let number = number.map_or_else(|| *b.number.get_ref(), |n| n as i64);
            if usable && out.iter().any(|o| i64::from(o.number) == number) {
                usable = false;
                self.note(
                    self.err(
                        b.number.span(),
                        format!("board number {number} is used twice; expected each board to have its own number"),
                    )
                    .said(Said::new("config-board-twice").arg("board", number)),
                );
            }
            let port = self.board_port(number, b, span, &mut usable, &mut devices, &mut missing);
            let white_clock = self.white_clock(number, &b.white_clock);
            let white = self.player_name(number, &b.white, "white");
            let black = self.player_name(number, &b.black, "black");
            if let (true, BoardPort::LiveChess(_), Some(src)) = (b.unattended, &port, &b.source) {
                usable = false;
                self.note(self.err(
                    src.span(),
                    format!(
                        "board {number}: unattended = true needs a DGT clock the daemon can \
                         command, and a board followed on LiveChess has none; expected \
                         unattended = false (or a port or serial) for it"
                    ),
                ));
            }
            let time_control = b.time_control.as_ref().and_then(|t| {
                self.keep(self.time_control(t, &format!("board {number}: time_control")))
            });
            let start = self.start(
                &b.start_position,
                &b.start_fen,
                &format!("board {number}: "),
                chess960,
            );
            if !usable {
                continue;
            }
            out.push(BoardConfig {
                number: number as u32,
                port,
                white,
                black,
                white_clock,
                unattended: b.unattended,
                pairing: None,
                broadcast: b.broadcast.unwrap_or(true),
                time_control,
                start,
            });
        }
        out.sort_by_key(|b| b.number);
        (out, missing)
    }

    /// Where board `number` is read from: its port (which need not exist yet: a warning),
    /// its serial, or its LiveChess source; `usable` turns false on a mistake that leaves
    /// the board out. `devices`: the ports of the boards so far, as canonical paths (two
    /// boards on one device would read each other's bytes).
    fn board_port(
        &self,
        number: i64,
        b: &RawBoard,
        span: Range<usize>,
        usable: &mut bool,
        devices: &mut Vec<(i64, PathBuf)>,
        missing: &mut Vec<Warning>,
    ) -> BoardPort {
        match (&b.port, &b.serial) {
            _ if b.source.is_some() => self.livechess_source(number, b, usable),
            (Some(p), None) => {
                let path = PathBuf::from(p.get_ref());
                // Not an error: udev removes a board's link while its cable is out,
                // and a daemon restarted then must still come up (the driver keeps
                // trying to open the port). `run --check` warns about it, to catch typos.
                if !path.exists() {
                    let port = format!("{:?}", p.get_ref());
                    let mistake = self.err(
                        p.span(),
                        format!(
                            "board {number}: port {port} does not exist; expected the \
                             board's device (such as /dev/dgt/board-{number} or \
                             /dev/ttyACM0; `dgt-arbiter probe` lists them), or give \
                             its serial = \"...\"",
                        ),
                    );
                    missing.push(Warning::at(
                        &mistake,
                        Said::new("config-port-missing")
                            .arg("board", number)
                            .arg("port", port),
                    ));
                }
                // Two boards on one device (the same path twice, or a link and its
                // target) would read each other's bytes.
                let device = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                if let Some((other, _)) = devices.iter().find(|(_, d)| *d == device) {
                    *usable = false;
                    self.note(
                        self.err(
                            p.span(),
                            format!(
                                "board {number}: port {:?} is the device of board {other} \
                                 ({}); expected each board on its own port",
                                p.get_ref(),
                                device.display()
                            ),
                        )
                        .said(
                            Said::new("config-port-shared")
                                .arg("board", number)
                                .arg("port", format!("{:?}", p.get_ref()))
                                .arg("other", other)
                                .arg("device", device.display()),
                        ),
                    );
                } else {
                    devices.push((number, device));
                }
                BoardPort::Path(path)
            }
            (None, Some(s)) => {
                let serial = s.get_ref();
                if serial.is_empty()
                    || serial.len() > 16
                    || !serial.chars().all(|c| c.is_ascii_alphanumeric())
                {
                    *usable = false;
                    self.note(
                        self.err(
                            s.span(),
                            format!(
                                "board {number}: serial {serial:?} is not a DGT serial number; \
                                 expected 1 to 16 letters or digits, such as \"01025\" \
                                 (`dgt-arbiter probe` shows it)"
                            ),
                        )
                        .said(
                            Said::new("config-serial-bad")
                                .arg("board", number)
                                .arg("serial", format!("{serial:?}")),
                        ),
                    );
                }
                BoardPort::Serial(serial.clone())
            }
            (Some(p), Some(_)) => {
                *usable = false;
                self.note(
                    self.err(
                        p.span(),
                        format!("board {number} has both port and serial; expected one of them"),
                    )
                    .said(Said::new("config-port-and-serial").arg("board", number)),
                );
                BoardPort::Path(PathBuf::new())
            }
            (None, None) => {
                *usable = false;
                self.note(
                    self.err(
                        span,
                        format!(
                            "board {number} has neither port nor serial; expected port = \
                             \"/dev/...\" or serial = \"...\" (or source = \"livechess://...\")"
                        ),
                    )
                    .said(Said::new("config-no-port").arg("board", number)),
                );
                BoardPort::Path(PathBuf::new())
            }
        }
    }

    /// `white_clock`: the side of the clock White's time is on, `None` to infer it.
    fn white_clock(&self, number: i64, white_clock: &Option<Spanned<String>>) -> Option<ClockSide> {
        match white_clock {
            None => None,
            Some(w) => match w.get_ref().as_str() {
                "left" => Some(ClockSide::Left),
                "right" => Some(ClockSide::Right),
                "infer" => None,
                other => {
                    self.note(self.err(
                        w.span(),
                        format!(
                            "board {number}: white_clock {other:?} is unknown; expected \
                             left, right or infer"
                        ),
                    ));
                    None
                }
            },
        }
    }

    /// A player's name (`white`, `black`): 1 to 100 characters, no quotes.
    fn player_name(&self, number: i64, p: &Option<Spanned<String>>, key: &str) -> Option<String> {
        match p {
            None => None,
            Some(s) => {
                let name = s.get_ref().trim();
                if name.is_empty() || name.chars().count() > 100 || name.contains('"') {
                    self.note(self.err(
                        s.span(),
                        format!(
                            "board {number}: {key} {:?} is not a player's name; expected \
                                 \"Surname, First name\" (1 to 100 characters, no quotes), \
                                 or leave it out",
                            s.get_ref()
                        ),
                    ));
                    return None;
                }
                Some(name.to_owned())
            }
        }
    }
}
