//! FIDE's Tournament Report File, TRF-16 (FIDE Handbook C.04 Annex 2): the file every
//! pairing program (Swiss-Manager, Vega, JaVaFo, bbpPairings) reads and writes.
//!
//! This crate owns three things, all without IO (bytes in, bytes out):
//! - **Reading** a TRF by its columns ([`Trf::parse`]): the tournament header lines
//!   (`012` name, `022` city, `042` start date, ...), the player lines (`001`: start rank,
//!   sex, title, name, rating, federation, FIDE id, birth date, points, rank, and per round
//!   the opponent's start rank, the colour and the result), the team lines (`013`). Every
//!   other line (`XXR`, `DAT`, `###` comments, ...) is kept as it is. A bad line is a
//!   [`TrfError`] with its line number and column. The text is detected as UTF-8 or
//!   Latin-1 ([`Encoding`]); columns are counted in characters either way.
//! - **The pairings of a round** ([`Trf::round`]): who plays whom with which colour,
//!   numbered in the pairing program's board order (see [`round`] for the rule), and the
//!   players with no game (byes, absences, forfeits).
//! - **Writing results back** ([`Trf::record_game`], [`Trf::to_bytes`]): only the result
//!   columns of that round (and the points column, when it agreed with the results) are
//!   changed; every other byte of the file stays as it was read, line ends and encoding
//!   included, so the pairing program imports the file as its own.
//!
//! Column layout (1-based positions, from FIDE's TRF-16 description):
//!
//! ```text
//! 001 line: 1-3 "001"  5-8 start rank  10 sex  11-13 title  15-47 name  49-52 rating
//!           54-56 federation  58-68 FIDE id  70-79 birth date  81-84 points  86-89 rank
//!           round r (r = 1, 2, ...), at c = 92 + 10 (r - 1):
//!           c..c+3 opponent's start rank (0000 or blank: none)
//!           c+5 colour w / b / - (blank = -)   c+7 result
//! 013 line: 5-36 team name, then the members' start ranks at 37-40, 42-45, 47-50, ...
//! ```

mod line;
pub mod round;

use std::fmt;

pub use line::Encoding;
use line::Line;
pub use round::{Game, GameKind, RoundPairings, Unpaired};

/// A line the parser cannot read, or a change that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", place(*line, *column))]
pub struct TrfError {
    /// 1-based line number in the file (0: the file as a whole, such as a round it does
    /// not have).
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    pub message: String,
}

/// "line 5, column 49: " (nothing for an error about the whole file).
fn place(line: usize, column: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line}, column {column}: ")
    }
}

/// Column of the first round's opponent field.
const FIRST_ROUND_COLUMN: usize = 92;
/// Width of one round's block of columns.
const ROUND_WIDTH: usize = 10;

/// The colour column of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    White,
    Black,
    /// `-` or blank: bye or not paired.
    None,
}

/// The result column of a round (TRF-16; letters are accepted in either case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultCode {
    /// `-`: forfeit loss.
    ForfeitLoss,
    /// `+`: forfeit win.
    ForfeitWin,
    /// `W`: win, the game lasted less than one move (not rated).
    WinUnrated,
    /// `D`: draw, less than one move (not rated).
    DrawUnrated,
    /// `L`: loss, less than one move (not rated).
    LossUnrated,
    /// `1`
    Win,
    /// `=`
    Draw,
    /// `0`
    Loss,
    /// `H`: half-point bye.
    HalfPointBye,
    /// `F`: full-point bye.
    FullPointBye,
    /// `U`: the pairing-allocated bye.
    PairingAllocatedBye,
    /// `Z`: zero-point bye (known absence).
    ZeroPointBye,
    /// Blank: no result yet (for a scheduled game) or, for an unpaired player, the same
    /// as `Z`.
    Blank,
}

impl ResultCode {
    /// The code of a result column character.
    pub fn from_char(c: char) -> Option<ResultCode> {
        Some(match c.to_ascii_uppercase() {
            '-' => ResultCode::ForfeitLoss,
            '+' => ResultCode::ForfeitWin,
            'W' => ResultCode::WinUnrated,
            'D' => ResultCode::DrawUnrated,
            'L' => ResultCode::LossUnrated,
            '1' => ResultCode::Win,
            '=' => ResultCode::Draw,
            '0' => ResultCode::Loss,
            'H' => ResultCode::HalfPointBye,
            'F' => ResultCode::FullPointBye,
            'U' => ResultCode::PairingAllocatedBye,
            'Z' => ResultCode::ZeroPointBye,
            ' ' => ResultCode::Blank,
            _ => return None,
        })
    }

    /// The character written for it (upper-case letters).
    pub fn as_char(self) -> char {
        match self {
            ResultCode::ForfeitLoss => '-',
            ResultCode::ForfeitWin => '+',
            ResultCode::WinUnrated => 'W',
            ResultCode::DrawUnrated => 'D',
            ResultCode::LossUnrated => 'L',
            ResultCode::Win => '1',
            ResultCode::Draw => '=',
            ResultCode::Loss => '0',
            ResultCode::HalfPointBye => 'H',
            ResultCode::FullPointBye => 'F',
            ResultCode::PairingAllocatedBye => 'U',
            ResultCode::ZeroPointBye => 'Z',
            ResultCode::Blank => ' ',
        }
    }

    /// What a bye code means (TRF-16); `None` for a game's result or a blank.
    pub fn bye_name(self) -> Option<&'static str> {
        match self {
            ResultCode::HalfPointBye => Some("half-point bye"),
            ResultCode::FullPointBye => Some("full-point bye"),
            ResultCode::PairingAllocatedBye => Some("pairing-allocated bye"),
            ResultCode::ZeroPointBye => Some("zero-point bye"),
            _ => None,
        }
    }

    /// Points in tenths under the default scoring (win 1, draw ½; the pairing-allocated
    /// and full-point byes score a win). Files with another scoring (`XXS`, 3-1-0) keep
    /// their own points column: see [`Trf::record_game`].
    pub fn default_tenths(self) -> u32 {
        match self {
            ResultCode::ForfeitWin
            | ResultCode::WinUnrated
            | ResultCode::Win
            | ResultCode::FullPointBye
            | ResultCode::PairingAllocatedBye => 10,
            ResultCode::DrawUnrated | ResultCode::Draw | ResultCode::HalfPointBye => 5,
            ResultCode::ForfeitLoss
            | ResultCode::LossUnrated
            | ResultCode::Loss
            | ResultCode::ZeroPointBye
            | ResultCode::Blank => 0,
        }
    }
}

/// One round's columns of a player line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundEntry {
    /// The opponent's start rank; `None` for `0000` or blank.
    pub opponent: Option<u16>,
    pub colour: Colour,
    pub result: ResultCode,
}

impl RoundEntry {
    const EMPTY: RoundEntry = RoundEntry {
        opponent: None,
        colour: Colour::None,
        result: ResultCode::Blank,
    };
}

/// A player line (`001`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    /// 1-based line number in the file.
    pub line: usize,
    /// Columns 5-8: the start rank (pairing number), 1 to 9999.
    pub start_rank: u16,
    /// Column 10: `m` / `w` (as written, if any).
    pub sex: Option<char>,
    /// Columns 11-13: `GM`, `IM`, `WGM`, ... (as written, upper-cased; may be empty).
    pub title: String,
    /// Columns 15-47: "Lastname, Firstname".
    pub name: String,
    /// Columns 49-52.
    pub rating: Option<u16>,
    /// Columns 54-56.
    pub federation: String,
    /// Columns 58-68.
    pub fide_id: Option<u64>,
    /// Columns 70-79, as written (`YYYY/MM/DD`, often with zeros).
    pub birth_date: String,
    /// Columns 81-84, in tenths of a point.
    pub points_tenths: Option<u32>,
    /// Columns 86-89.
    pub rank: Option<u16>,
    /// Round 1, 2, ... (as many as the line has).
    pub rounds: Vec<RoundEntry>,
}

impl Player {
    /// The columns of round `round` (1-based); an absent block is blank.
    pub fn entry(&self, round: u32) -> RoundEntry {
        round
            .checked_sub(1)
            .and_then(|i| self.rounds.get(i as usize))
            .copied()
            .unwrap_or(RoundEntry::EMPTY)
    }

    /// Points from rounds before `round` under the default scoring, in tenths.
    pub fn tenths_before(&self, round: u32) -> u32 {
        self.rounds
            .iter()
            .take(round.saturating_sub(1) as usize)
            .map(|e| e.result.default_tenths())
            .sum()
    }
}

/// A team line (`013`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    pub line: usize,
    pub name: String,
    /// The members' start ranks, in board order.
    pub members: Vec<u16>,
}

/// A tournament header line (`012`, `022`, ..., any `??2` code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderLine {
    pub line: usize,
    /// The three-character code (`012`).
    pub code: String,
    /// Columns 5 to the end, trimmed.
    pub value: String,
}

/// A parsed TRF, with every byte of the original kept for [`Trf::to_bytes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trf {
    encoding: Encoding,
    /// A UTF-8 byte-order mark before the first line (written back as it was).
    bom: bool,
    lines: Vec<Line>,
    players: Vec<Player>,
    teams: Vec<Team>,
    header: Vec<HeaderLine>,
}

impl Trf {
    /// Reads a TRF from its bytes (UTF-8 or Latin-1, any line ends).
    pub fn parse(bytes: &[u8]) -> Result<Trf, TrfError> {
        let (bom, body) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => (true, rest),
            None => (false, bytes),
        };
        let encoding = Encoding::detect(body);
        let lines = line::split(body, encoding);
        let mut trf = Trf {
            encoding,
            bom,
            lines,
            players: Vec::new(),
            teams: Vec::new(),
            header: Vec::new(),
        };
        for index in 0..trf.lines.len() {
            let number = index + 1;
            let chars = trf.lines[index].chars();
            let code: String = chars.iter().take(3).collect();
            if code == "001" {
                let player = parse_player(number, &chars)?;
                if let Some(other) = trf
                    .players
                    .iter()
                    .find(|p| p.start_rank == player.start_rank)
                {
                    return Err(TrfError {
                        line: number,
                        column: 5,
                        message: format!(
                            "start rank {} is used twice (also on line {}); expected each \
                             player to have their own",
                            player.start_rank, other.line
                        ),
                    });
                }
                trf.players.push(player);
            } else if code == "013" {
                trf.teams.push(parse_team(number, &chars)?);
            } else if code.len() == 3
                && code.ends_with('2')
                && code.chars().all(|c| c.is_ascii_digit())
            {
                trf.header.push(HeaderLine {
                    line: number,
                    code,
                    value: field(&chars, 5, usize::MAX),
                });
            }
        }
        trf.check_references()?;
        Ok(trf)
    }

    /// Every opponent named in a round column is a player of the file.
    fn check_references(&self) -> Result<(), TrfError> {
        for p in &self.players {
            for (i, e) in p.rounds.iter().enumerate() {
                if let Some(o) = e.opponent {
                    if self.player(o).is_none() {
                        return Err(TrfError {
                            line: p.line,
                            column: round_column(i as u32 + 1),
                            message: format!(
                                "round {}: opponent {o} is not a start rank of this file; \
                                 expected the start rank of a 001 line (or 0000 for no \
                                 opponent)",
                                i + 1
                            ),
                        });
                    }
                }
            }
        }
        for t in &self.teams {
            for (k, m) in t.members.iter().enumerate() {
                if self.player(*m).is_none() {
                    return Err(TrfError {
                        line: t.line,
                        column: 37 + 5 * k,
                        message: format!(
                            "team {:?}: member {m} is not a start rank of this file",
                            t.name
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The player lines, in file order.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// The player with this start rank.
    pub fn player(&self, start_rank: u16) -> Option<&Player> {
        self.players.iter().find(|p| p.start_rank == start_rank)
    }

    pub fn teams(&self) -> &[Team] {
        &self.teams
    }

    /// The team a player is a member of, if the file has teams.
    pub fn team_of(&self, start_rank: u16) -> Option<&Team> {
        self.teams.iter().find(|t| t.members.contains(&start_rank))
    }

    /// The tournament header lines, in file order.
    pub fn header(&self) -> &[HeaderLine] {
        &self.header
    }

    /// The value of the first header line with this code (`"012"`: the name).
    pub fn header_value(&self, code: &str) -> Option<&str> {
        self.header
            .iter()
            .find(|h| h.code == code)
            .map(|h| h.value.as_str())
    }

    /// `012`: the tournament's name.
    pub fn tournament_name(&self) -> Option<&str> {
        self.header_value("012").filter(|s| !s.is_empty())
    }

    /// `122`: the allotted times per moves/game, as the pairing program wrote it (free
    /// text in TRF-16: `40/5400+30:1800+30`, or words such as `90'/40 + 30' + 30''`).
    pub fn time_control_text(&self) -> Option<&str> {
        self.header_value("122").filter(|s| !s.is_empty())
    }

    /// `022`: the city.
    pub fn city(&self) -> Option<&str> {
        self.header_value("022").filter(|s| !s.is_empty())
    }

    /// The number of rounds the player lines have columns for.
    pub fn rounds_in_file(&self) -> u32 {
        self.players
            .iter()
            .map(|p| p.rounds.len() as u32)
            .max()
            .unwrap_or(0)
    }

    /// The file as bytes: what was read, with the changes made since.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.bom {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        for l in &self.lines {
            out.extend_from_slice(l.bytes());
            out.extend_from_slice(l.end());
        }
        out
    }

    /// Writes one game's result into round `round`'s columns of both players (FIDE
    /// TRF-16 result codes), and moves each player's points column (81-84) on by the
    /// result when the column agreed with the results before (else it is left as the
    /// pairing program wrote it: a file with its own scoring keeps its own arithmetic).
    ///
    /// The two players must be paired with each other in that round, with these colours.
    /// Returns the start ranks whose points column was left alone.
    pub fn record_game(
        &mut self,
        round: u32,
        white: u16,
        black: u16,
        outcome: Outcome,
    ) -> Result<Vec<u16>, TrfError> {
        let (w_code, b_code) = outcome.codes();
        for (me, them, colour) in [(white, black, Colour::White), (black, white, Colour::Black)] {
            let p = self.player(me).ok_or_else(|| TrfError {
                line: 0,
                column: 0,
                message: format!("no player with start rank {me}"),
            })?;
            let e = p.entry(round);
            if e.opponent != Some(them) || e.colour != colour {
                return Err(TrfError {
                    line: p.line,
                    column: round_column(round),
                    message: format!(
                        "round {round}: player {me} is not paired with {them} as {} here; \
                         expected the pairing the result is for",
                        if colour == Colour::White {
                            "White"
                        } else {
                            "Black"
                        }
                    ),
                });
            }
        }
        let mut untouched = Vec::new();
        for (rank, code) in [(white, w_code), (black, b_code)] {
            if !self.set_result(rank, round, code)? {
                untouched.push(rank);
            }
        }
        Ok(untouched)
    }

    /// Sets one result column; returns whether the points column moved with it.
    fn set_result(&mut self, rank: u16, round: u32, code: ResultCode) -> Result<bool, TrfError> {
        let Some(index) = self.players.iter().position(|p| p.start_rank == rank) else {
            return Ok(false);
        };
        let p = &self.players[index];
        let line_index = p.line - 1;
        let old = p.entry(round).result;
        let all_before: u32 = p.rounds.iter().map(|e| e.result.default_tenths()).sum();
        let points_agree = p.points_tenths == Some(all_before);
        let line = &mut self.lines[line_index];
        line.set_char(round_column(round) + 7, code.as_char());
        let mut moved = false;
        if points_agree {
            let new = all_before - old.default_tenths() + code.default_tenths();
            if let Some(text) = format_points(new) {
                line.set_field(81, &text);
                moved = true;
            }
        }
        // Re-read the line: the model stays what the bytes say.
        let reread = parse_player(p.line, &line.chars())?;
        self.players[index] = reread;
        Ok(moved)
    }
}

/// What happened in a game, as the arbiter records it for the pairing program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    BlackWins,
    Draw,
    /// Black did not play (forfeit): `+` for White, `-` for Black.
    WhiteWinsByForfeit,
    /// White did not play.
    BlackWinsByForfeit,
    /// Neither played: `-` for both.
    DoubleForfeit,
}

impl Outcome {
    /// White's and Black's result codes.
    pub fn codes(self) -> (ResultCode, ResultCode) {
        use ResultCode::*;
        match self {
            Outcome::WhiteWins => (Win, Loss),
            Outcome::BlackWins => (Loss, Win),
            Outcome::Draw => (Draw, Draw),
            Outcome::WhiteWinsByForfeit => (ForfeitWin, ForfeitLoss),
            Outcome::BlackWinsByForfeit => (ForfeitLoss, ForfeitWin),
            Outcome::DoubleForfeit => (ForfeitLoss, ForfeitLoss),
        }
    }

    /// The outcome two result codes say, if they make one.
    pub fn from_codes(white: ResultCode, black: ResultCode) -> Option<Outcome> {
        use ResultCode::*;
        Some(match (white, black) {
            (Win, Loss) => Outcome::WhiteWins,
            (Loss, Win) => Outcome::BlackWins,
            (Draw, Draw) => Outcome::Draw,
            (ForfeitWin, ForfeitLoss) => Outcome::WhiteWinsByForfeit,
            (ForfeitLoss, ForfeitWin) => Outcome::BlackWinsByForfeit,
            (ForfeitLoss, ForfeitLoss) => Outcome::DoubleForfeit,
            _ => return None,
        })
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::WhiteWinsByForfeit => "+--",
            Outcome::BlackWinsByForfeit => "--+",
            Outcome::DoubleForfeit => "----",
        })
    }
}

/// The first column (opponent field) of round `round`'s block.
pub fn round_column(round: u32) -> usize {
    FIRST_ROUND_COLUMN + ROUND_WIDTH * (round.max(1) as usize - 1)
}

/// `11.5` right-aligned in four columns; `None` past 99.5.
fn format_points(tenths: u32) -> Option<String> {
    let text = format!("{}.{}", tenths / 10, tenths % 10);
    (text.len() <= 4).then(|| format!("{text:>4}"))
}

/// Characters `from..=to` (1-based, clipped to the line), trimmed.
fn field(chars: &[char], from: usize, to: usize) -> String {
    let start = from.saturating_sub(1).min(chars.len());
    let end = to.min(chars.len()).max(start);
    chars[start..end]
        .iter()
        .collect::<String>()
        .trim()
        .to_owned()
}

fn number_field<T: std::str::FromStr>(
    line: usize,
    chars: &[char],
    from: usize,
    to: usize,
    what: &str,
) -> Result<Option<T>, TrfError> {
    let text = field(chars, from, to);
    if text.is_empty() {
        return Ok(None);
    }
    if !text.chars().all(|c| c.is_ascii_digit()) {
        return Err(TrfError {
            line,
            column: from,
            message: format!(
                "{what} {text:?} (columns {from}-{to}) is not a number; expected digits only"
            ),
        });
    }
    text.parse().map(Some).map_err(|_| TrfError {
        line,
        column: from,
        message: format!("{what} {text:?} (columns {from}-{to}) is too large"),
    })
}

fn parse_player(line: usize, chars: &[char]) -> Result<Player, TrfError> {
    let start_rank: u16 = match number_field(line, chars, 5, 8, "start rank")? {
        Some(0) | None => {
            return Err(TrfError {
                line,
                column: 5,
                message: "no start rank in columns 5-8; expected 1 to 9999".into(),
            })
        }
        Some(r) => r,
    };
    let sex = chars.get(9).copied().filter(|c| *c != ' ');
    let title = field(chars, 11, 13).to_ascii_uppercase();
    let name = field(chars, 15, 47);
    let rating = number_field(line, chars, 49, 52, "rating")?;
    let federation = field(chars, 54, 56);
    let fide_id = number_field(line, chars, 58, 68, "FIDE id")?;
    let birth_date = field(chars, 70, 79);
    let points_text = field(chars, 81, 84);
    let points_tenths = if points_text.is_empty() {
        None
    } else {
        Some(parse_points(&points_text).ok_or_else(|| TrfError {
            line,
            column: 81,
            message: format!(
                "points {points_text:?} (columns 81-84) is not a score; expected a number \
                 such as 4.5"
            ),
        })?)
    };
    let rank = number_field(line, chars, 86, 89, "rank")?;
    let mut rounds = Vec::new();
    let mut round = 1u32;
    while round_column(round) <= chars.len() {
        let c = round_column(round);
        let opponent: Option<u16> =
            number_field(line, chars, c, c + 3, &format!("round {round}: opponent"))?;
        let colour = match chars.get(c + 4).copied().unwrap_or(' ') {
            'w' | 'W' => Colour::White,
            'b' | 'B' => Colour::Black,
            '-' | ' ' => Colour::None,
            other => {
                return Err(TrfError {
                    line,
                    column: c + 5,
                    message: format!(
                        "round {round}: colour {other:?} is unknown; expected w, b or -"
                    ),
                })
            }
        };
        let result_char = chars.get(c + 6).copied().unwrap_or(' ');
        let result = ResultCode::from_char(result_char).ok_or_else(|| TrfError {
            line,
            column: c + 7,
            message: format!(
                "round {round}: result {result_char:?} is unknown; expected one of \
                 1 0 = + - W D L H F U Z or blank"
            ),
        })?;
        // The separators: a character there means the columns are shifted.
        for sep in [c + 4, c + 6, c + 8, c + 9] {
            if let Some(ch) = chars.get(sep - 1).filter(|ch| **ch != ' ') {
                return Err(TrfError {
                    line,
                    column: sep,
                    message: format!(
                        "round {round}: {ch:?} in column {sep}, which is blank in TRF-16; \
                         expected the round's fields at columns {c}-{}, {} and {}",
                        c + 3,
                        c + 5,
                        c + 7
                    ),
                });
            }
        }
        let opponent = opponent.filter(|o| *o != 0);
        if opponent == Some(start_rank) {
            return Err(TrfError {
                line,
                column: c,
                message: format!("round {round}: player {start_rank} is paired with themself"),
            });
        }
        // TRF-16 (FIDE C.04 Annex 2): H, F, U and Z are byes (Z the zero-point bye, a
        // known absence) and are written with opponent 0000; with an opponent the line
        // says both "played" and "not paired", and which one counts is a guess.
        if let (Some(o), Some(bye)) = (opponent, result.bye_name()) {
            return Err(TrfError {
                line,
                column: c + 7,
                message: format!(
                    "round {round}: result {:?} ({bye}) against opponent {o}; a bye has \
                     opponent 0000, a game a result such as 1 0 = + -",
                    result.as_char()
                ),
            });
        }
        rounds.push(RoundEntry {
            opponent,
            colour,
            result,
        });
        round += 1;
    }
    // Trailing blank blocks (a line padded with spaces) are not rounds.
    while rounds.last() == Some(&RoundEntry::EMPTY) {
        rounds.pop();
    }
    Ok(Player {
        line,
        start_rank,
        sex,
        title,
        name,
        rating,
        federation,
        fide_id,
        birth_date,
        points_tenths,
        rank,
        rounds,
    })
}

/// `11.5`, `11`, `0.0` to tenths.
fn parse_points(s: &str) -> Option<u32> {
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, f),
        None => (s, "0"),
    };
    let whole_ok = !whole.is_empty() && whole.chars().all(|c| c.is_ascii_digit());
    if !whole_ok || frac.len() != 1 || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(whole.parse::<u32>().ok()? * 10 + frac.parse::<u32>().ok()?)
}

fn parse_team(line: usize, chars: &[char]) -> Result<Team, TrfError> {
    let name = field(chars, 5, 36);
    let mut members = Vec::new();
    let mut column = 37;
    while column <= chars.len() {
        if let Some(m) = number_field::<u16>(line, chars, column, column + 3, "team member")? {
            if m != 0 {
                members.push(m);
            }
        }
        column += 5;
    }
    Ok(Team {
        line,
        name,
        members,
    })
}

#[cfg(test)]
mod tests;
