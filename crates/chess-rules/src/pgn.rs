//! PGN: a small strict reader (tag pairs, movetext with move numbers, comments `{}` and
//! `;`, `[%clk]` clock commands, NAGs and `!?` glyphs, variations skipped, results, `%`
//! escape lines, `SetUp`/`FEN` tags; UTF-8 or Latin-1 input) and an export-format writer
//! (Seven Tag Roster first, lines of at most 80 characters, one comment after a move:
//! `{[%clk 0:03:12] its comments}`).
//!
//! No permissively licensed PGN crate fitted (the well-known `pgn-reader` is GPL), so this
//! one is ours. Its games are plain data: [`PgnGame`] is also what the daemon fills to
//! write a game.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::game::{Game, GameResult};
use crate::position::{FenError, Position, Variant, START_FEN};
use crate::san::SanError;
use crate::types::Color;

/// One game as PGN holds it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PgnGame {
    /// Tag pairs in file order (`("Event", "Sotra")`).
    pub tags: Vec<(String, String)>,
    /// Comments before the first move.
    pub comments: Vec<String>,
    pub moves: Vec<PgnMove>,
    /// The termination marker; `None` when the movetext has none.
    pub result: Option<GameResult>,
}

/// One move of the main line, with what follows it up to the next move.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PgnMove {
    /// The SAN as written (check marks kept, `!?` glyphs moved to `nags`).
    pub san: String,
    /// Numeric annotation glyphs (`$1`, or `!` read as 1, `?` as 2, ...).
    pub nags: Vec<u8>,
    /// The `[%clk]` time after the move, in milliseconds.
    pub clock_ms: Option<u64>,
    /// Comments after the move, whitespace-normalised, without the `[%clk]` command.
    pub comments: Vec<String>,
}

impl PgnMove {
    /// A move with just its SAN.
    pub fn new(san: impl Into<String>) -> PgnMove {
        PgnMove {
            san: san.into(),
            ..PgnMove::default()
        }
    }
}

/// The PGN text is malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("PGN line {line}: {message}")]
pub struct PgnError {
    pub line: usize,
    pub message: String,
}

/// A game whose moves cannot be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("the FEN tag is not a valid position: {0}")]
    Fen(#[from] FenError),
    #[error("move {number}{dots} {san}: {error}", dots = if *color == Color::White { "." } else { "..." })]
    Move {
        /// Index into `moves`.
        index: usize,
        number: u32,
        color: Color,
        san: String,
        error: SanError,
    },
}

/// Decodes PGN bytes: UTF-8 where valid (a byte-order mark is dropped), and every byte
/// that is not part of valid UTF-8 as Latin-1, which older PGN files use.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + bytes.len() / 8);
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                out.extend(chunk.invalid().iter().map(|&b| char::from(b)));
            }
            Cow::Owned(out)
        }
    }
}

/// Reads every game in a PGN file (bytes as read from disk).
pub fn read_pgn(bytes: &[u8]) -> Result<Vec<PgnGame>, PgnError> {
    let text = decode(bytes);
    PgnReader::new(&text).collect()
}

/// Reads games one by one from PGN text.
#[derive(Debug, Clone)]
pub struct PgnReader<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    failed: bool,
}

impl<'a> PgnReader<'a> {
    pub fn new(text: &'a str) -> PgnReader<'a> {
        PgnReader {
            text,
            pos: 0,
            line: 1,
            failed: false,
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn at_line_start(&self) -> bool {
        self.pos == 0 || self.text.as_bytes()[self.pos - 1] == b'\n'
    }

    fn err(&self, message: impl Into<String>) -> PgnError {
        PgnError {
            line: self.line,
            message: message.into(),
        }
    }

    /// Skips whitespace and `%` escape lines.
    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            if c == '%' && self.at_line_start() {
                self.skip_line();
            } else if c.is_whitespace() || c == '\u{feff}' {
                self.bump();
            } else {
                break;
            }
        }
    }

    fn skip_line(&mut self) -> &'a str {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            self.bump();
        }
        &self.text[start..self.pos]
    }

    fn read_tag(&mut self) -> Result<(String, String), PgnError> {
        self.bump(); // '['
        self.skip_space();
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
        {
            self.bump();
        }
        let name = self.text[start..self.pos].to_owned();
        if name.is_empty() {
            return Err(self.err("a tag pair has no name"));
        }
        self.skip_space();
        if self.bump() != Some('"') {
            return Err(self.err(format!("tag {name} has no quoted value")));
        }
        let mut value = String::new();
        loop {
            match self.bump() {
                None => return Err(self.err(format!("tag {name}: the value is not closed"))),
                Some('\\') => match self.bump() {
                    Some(c @ ('"' | '\\')) => value.push(c),
                    Some(c) => {
                        value.push('\\');
                        value.push(c);
                    }
                    None => return Err(self.err(format!("tag {name}: the value is not closed"))),
                },
                Some('"') => break,
                Some('\n') => {
                    return Err(PgnError {
                        line: self.line - 1,
                        message: format!("tag {name}: the value runs past the end of its line"),
                    })
                }
                Some(c) => value.push(c),
            }
        }
        self.skip_space();
        if self.bump() != Some(']') {
            return Err(self.err(format!("tag {name} is not closed by ']'")));
        }
        Ok((name, value))
    }

    fn read_brace_comment(&mut self) -> Result<String, PgnError> {
        let start_line = self.line;
        self.bump(); // '{'
        let start = self.pos;
        loop {
            match self.bump() {
                None => {
                    return Err(PgnError {
                        line: start_line,
                        message: "a comment '{' is never closed".to_owned(),
                    })
                }
                Some('}') => break,
                Some(_) => {}
            }
        }
        Ok(normalize_space(&self.text[start..self.pos - 1]))
    }

    fn skip_variation(&mut self) -> Result<(), PgnError> {
        let start_line = self.line;
        let mut depth = 0usize;
        loop {
            self.skip_space();
            match self.peek() {
                None => {
                    return Err(PgnError {
                        line: start_line,
                        message: "a variation '(' is never closed".to_owned(),
                    })
                }
                Some('(') => {
                    depth += 1;
                    self.bump();
                }
                Some(')') => {
                    depth -= 1;
                    self.bump();
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some('{') => {
                    self.read_brace_comment()?;
                }
                Some(';') => {
                    self.skip_line();
                }
                Some(_) => {
                    self.bump();
                }
            }
        }
    }

    fn read_symbol(&mut self) -> &'a str {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| !c.is_whitespace() && !"{}()[];$\"".contains(c))
        {
            self.bump();
        }
        &self.text[start..self.pos]
    }

    fn read_game(&mut self) -> Result<Option<PgnGame>, PgnError> {
        self.skip_space();
        if self.peek().is_none() {
            return Ok(None);
        }
        let mut game = PgnGame::default();
        while self.peek() == Some('[') {
            let tag = self.read_tag()?;
            game.tags.push(tag);
            self.skip_space();
        }
        loop {
            self.skip_space();
            let Some(c) = self.peek() else {
                return Ok(Some(game));
            };
            match c {
                // The next game's tags: this one had no termination marker.
                '[' => return Ok(Some(game)),
                '{' => {
                    let comment = self.read_brace_comment()?;
                    game.attach_comment(comment);
                }
                ';' => {
                    self.bump();
                    let comment = normalize_space(self.skip_line());
                    game.attach_comment(comment);
                }
                '(' => self.skip_variation()?,
                ')' => return Err(self.err("')' closes no variation")),
                '$' => {
                    self.bump();
                    let digits = self.read_symbol();
                    let nag: u8 = digits
                        .parse()
                        .map_err(|_| self.err(format!("bad NAG ${digits}")))?;
                    if let Some(m) = game.moves.last_mut() {
                        m.nags.push(nag);
                    }
                }
                '"' => return Err(self.err("a stray '\"' in the movetext")),
                _ => {
                    let symbol = self.read_symbol();
                    if symbol.is_empty() {
                        return Err(self.err(format!("unexpected character {c:?}")));
                    }
                    if let Ok(result) = symbol.parse::<GameResult>() {
                        game.result = Some(result);
                        return Ok(Some(game));
                    }
                    self.movetext_symbol(&mut game, symbol)?;
                }
            }
        }
    }

    fn movetext_symbol(&self, game: &mut PgnGame, symbol: &str) -> Result<(), PgnError> {
        // A move number ("12." "12..." or "12.e4" run together); "0-0" is castling.
        let digits = symbol.bytes().take_while(u8::is_ascii_digit).count();
        let mut rest = symbol;
        if digits > 0 {
            let after = &symbol[digits..];
            let dots = after.bytes().take_while(|&b| b == b'.').count();
            if dots > 0 || after.is_empty() {
                rest = &after[dots..];
            }
        }
        if rest.is_empty() {
            return Ok(());
        }
        // Glyphs and remarks standing apart from their move.
        if let Some(nag) = glyph_nag(rest) {
            if let Some(m) = game.moves.last_mut() {
                m.nags.push(nag);
            }
            return Ok(());
        }
        if matches!(rest, "e.p." | "ep" | "e.p" | "+" | "#") {
            return Ok(());
        }
        if rest == "--" || rest == "Z0" {
            return Err(self.err("null moves ('--') are not chess moves"));
        }
        let (san, nag) = split_glyph(rest);
        let mut m = PgnMove::new(san);
        m.nags.extend(nag);
        game.moves.push(m);
        Ok(())
    }
}

impl Iterator for PgnReader<'_> {
    type Item = Result<PgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.read_game() {
            Ok(Some(g)) => Some(Ok(g)),
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

fn normalize_space(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn glyph_nag(s: &str) -> Option<u8> {
    Some(match s {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        _ => return None,
    })
}

/// Splits `e4!?` into `e4` and the glyph's NAG.
fn split_glyph(s: &str) -> (&str, Option<u8>) {
    let cut = s.trim_end_matches(['!', '?']);
    if cut.len() < s.len() {
        (cut, glyph_nag(&s[cut.len()..]))
    } else {
        (s, None)
    }
}

/// Finds `[%clk H:MM:SS(.f)]` in a comment: the time in ms and the comment without it.
fn extract_clock(comment: &str) -> (Option<u64>, String) {
    let Some(start) = comment.find("[%clk") else {
        return (None, comment.to_owned());
    };
    let Some(len) = comment[start..].find(']') else {
        return (None, comment.to_owned());
    };
    let body = comment[start + 5..start + len].trim();
    let ms = parse_clock(body);
    let rest = format!("{} {}", &comment[..start], &comment[start + len + 1..]);
    (ms, normalize_space(&rest))
}

fn parse_clock(s: &str) -> Option<u64> {
    let mut parts = s.split(':');
    let (h, m, sec) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let h: u64 = h.parse().ok()?;
    let m: u64 = m.parse().ok()?;
    let (whole, frac) = sec.split_once('.').unwrap_or((sec, ""));
    let whole: u64 = whole.parse().ok()?;
    if m >= 60 || whole >= 60 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac_ms: u64 = match frac.len() {
        0 => 0,
        n => {
            let digits = &frac[..n.min(3)];
            digits.parse::<u64>().ok()? * 10u64.pow(3 - digits.len() as u32)
        }
    };
    Some(((h * 60 + m) * 60 + whole) * 1000 + frac_ms)
}

/// `H:MM:SS`, with tenths when the time has them (`0:00:09.5`).
pub fn format_clock(ms: u64) -> String {
    let total_s = ms / 1000;
    let (h, m, s) = (total_s / 3600, (total_s / 60) % 60, total_s % 60);
    let tenths = (ms % 1000) / 100;
    if tenths == 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{h}:{m:02}:{s:02}.{tenths}")
    }
}

/// The Seven Tag Roster, in export order, with the value written when a game lacks it.
const SEVEN_TAGS: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

impl PgnGame {
    fn attach_comment(&mut self, comment: String) {
        let (clock, text) = extract_clock(&comment);
        let target = match self.moves.last_mut() {
            Some(m) => {
                if clock.is_some() {
                    m.clock_ms = clock;
                }
                &mut m.comments
            }
            None => &mut self.comments,
        };
        if !text.is_empty() {
            target.push(text);
        }
    }

    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `name` (replacing its value, or appending it).
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value,
            None => self.tags.push((name.to_owned(), value)),
        }
    }

    /// The position the game starts from: the `FEN` tag if there is one (with or without
    /// `SetUp "1"`), else the standard start. A FEN tag without its counters is accepted.
    /// With `[Variant "Chess960"]` the game is a Chess960 one: its FEN is X-FEN or
    /// Shredder-FEN, and without a FEN it starts from position 518.
    pub fn start_position(&self) -> Result<Position, FenError> {
        let chess960 = self.tag("Variant").is_some_and(is_chess960_name);
        match (self.tag("FEN"), chess960) {
            (None, false) => Ok(Position::start()),
            (None, true) => Position::from_fen_960(START_FEN),
            (Some(fen), false) => match Position::from_fen(fen) {
                Err(FenError::FieldCount { found: 4, .. }) => Position::from_epd(fen),
                other => other,
            },
            (Some(fen), true) => match Position::from_fen_960(fen) {
                Err(FenError::FieldCount { found: 4, .. }) => Position::from_epd_960(fen),
                other => other,
            },
        }
    }

    /// Replays the moves from the start position into a [`Game`].
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let mut game = Game::new(self.start_position()?);
        for (index, m) in self.moves.iter().enumerate() {
            let pos = *game.position();
            game.play_san(&m.san).map_err(|error| ReplayError::Move {
                index,
                number: pos.fullmove_number(),
                color: pos.side_to_move(),
                san: m.san.clone(),
                error,
            })?;
        }
        Ok(game)
    }

    /// A game record for `game` with every move's SAN (tags, clocks and comments left for
    /// the caller to fill). Sets the `SetUp`/`FEN` tags when it does not start from the
    /// standard position.
    pub fn from_game(game: &Game) -> PgnGame {
        let mut out = PgnGame::default();
        for (name, default) in SEVEN_TAGS {
            out.set_tag(name, default);
        }
        if game.start().variant() == Variant::Chess960 {
            out.set_tag("Variant", "Chess960");
        }
        if *game.start() != Position::start() {
            out.set_tag("SetUp", "1");
            out.set_tag("FEN", game.start().fen());
        }
        out.moves = game.san_moves().into_iter().map(PgnMove::new).collect();
        out
    }

    /// Writes the game in PGN export format: the Seven Tag Roster first (with `?` values
    /// where missing, and `Result` from the termination marker), then the other tags in
    /// their order, a blank line, the movetext in lines of at most 80 characters with one
    /// brace comment after a move that has a clock or comments (`{[%clk H:MM:SS] text}`,
    /// its comments joined by a space), and the result.
    pub fn to_pgn(&self) -> String {
        let result = self
            .result
            .or_else(|| self.tag("Result").and_then(|r| r.parse().ok()))
            .unwrap_or(GameResult::Ongoing);
        let mut out = String::new();
        for (name, default) in SEVEN_TAGS {
            let value = if name == "Result" {
                result.as_str()
            } else {
                self.tag(name).unwrap_or(default)
            };
            write_tag(&mut out, name, value);
        }
        for (name, value) in &self.tags {
            if !SEVEN_TAGS.iter().any(|(n, _)| n == name) {
                write_tag(&mut out, name, value);
            }
        }
        out.push('\n');

        let (mut number, mut color) = match self.start_position() {
            Ok(p) => (p.fullmove_number(), p.side_to_move()),
            Err(_) => (1, Color::White),
        };
        let mut tokens: Vec<String> = Vec::new();
        if !self.comments.is_empty() {
            tokens.push(comment_token(None, &self.comments));
        }
        let mut need_number = true;
        for m in &self.moves {
            if color == Color::White {
                tokens.push(format!("{number}."));
            } else if need_number {
                tokens.push(format!("{number}..."));
            }
            tokens.push(m.san.clone());
            need_number = false;
            for nag in &m.nags {
                tokens.push(format!("${nag}"));
            }
            if m.clock_ms.is_some() || !m.comments.is_empty() {
                tokens.push(comment_token(m.clock_ms, &m.comments));
                need_number = true;
            }
            if color == Color::Black {
                number += 1;
            }
            color = color.opponent();
        }
        tokens.push(result.as_str().to_owned());
        wrap_tokens(&mut out, &tokens, 80);
        out.push('\n');
        out
    }
}

fn write_tag(out: &mut String, name: &str, value: &str) {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    // Writing to a String cannot fail.
    let _ = writeln!(out, "[{name} \"{escaped}\"]");
}

/// One brace group holding the clock command and every comment: strict readers (chess.js)
/// accept a single comment after a move, not several in a row.
fn comment_token(clock_ms: Option<u64>, comments: &[String]) -> String {
    let mut body = String::new();
    if let Some(ms) = clock_ms {
        body.push_str("[%clk ");
        body.push_str(&format_clock(ms));
        body.push(']');
    }
    for c in comments {
        if !body.is_empty() {
            body.push(' ');
        }
        // A '}' would end the comment early.
        body.push_str(&c.replace('}', ")"));
    }
    format!("{{{body}}}")
}

/// The words of a token as the wrapper may break it: at its spaces, except inside a
/// `[%...]` command, which readers expect on one line.
fn unbreakable_words(token: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = 0usize;
    let mut in_command = false;
    let bytes = token.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' if bytes.get(i + 1) == Some(&b'%') => in_command = true,
            b']' => in_command = false,
            b' ' if !in_command => {
                words.push(&token[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    words.push(&token[start..]);
    words
}

/// Writes space-separated tokens in lines of at most `width` characters; a comment token
/// longer than a line is broken at its spaces (never inside a `[%...]` command).
fn wrap_tokens(out: &mut String, tokens: &[String], width: usize) {
    let mut line_len = 0usize;
    for token in tokens {
        for word in unbreakable_words(token) {
            let len = word.chars().count();
            if line_len > 0 && line_len + 1 + len > width {
                out.push('\n');
                line_len = 0;
            }
            if line_len > 0 {
                out.push(' ');
                line_len += 1;
            }
            out.push_str(word);
            line_len += len;
        }
    }
    out.push('\n');
}

/// What strict PGN readers (chess.js) refuse in a file: two brace comments in a row (a
/// move gets at most one), or a line break inside a `[%...]` command. Empty when none.
/// Our writer never produces either; this checks that (and files from elsewhere).
pub fn strict_reader_problems(text: &str) -> Vec<String> {
    let movetext = text
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join("\n");
    let mut problems = Vec::new();
    let mut rest = movetext.as_str();
    let mut last_was_comment = false;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
        } else if c == '{' {
            let Some(end) = rest.find('}') else {
                problems.push("a comment is never closed".to_owned());
                break;
            };
            let body = &rest[1..end];
            if last_was_comment {
                problems.push(format!("two comments in a row: {{{body}}}"));
            }
            let mut b = body;
            while let Some(start) = b.find("[%") {
                let close = b[start..].find(']').map_or(b.len(), |c| c + start);
                if b[start..close].contains('\n') {
                    problems.push(format!("line break inside {}", &b[start..close]));
                }
                b = &b[close..];
            }
            last_was_comment = true;
            rest = &rest[end + 1..];
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            last_was_comment = false;
            rest = &rest[end..];
        }
    }
    problems
}

/// Is this `Variant` tag value Chess960? (PGN tools write `Chess960`, `chess 960`,
/// `Fischerandom`, `Fischer Random`.)
fn is_chess960_name(value: &str) -> bool {
    let name: String = value
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(
        name.as_str(),
        "chess960" | "fischerandom" | "fischerrandom" | "960"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"[Event "Sample \"quoted\""]
[Site "Sotra"]
[Result "1-0"]

{A game comment} 1. e4 {[%clk 0:15:19]} e5 {[%clk 00:15:18]} {[%emt 00:00:02]}
2. Nf3!? $1 (2. f4 {King's gambit} exf4 (2... d5)) 2... Nc6 3. Bb5 a6;rest of line
% an escape line
4. Ba4 Nf6 5. O-O 1-0

[Event "Second"]
[Result ""]

1.d4 d5 2.c4

[Event "Third"]
*
"#;

    #[test]
    fn reads_tags_moves_comments_clocks_and_results() {
        let games = read_pgn(SAMPLE.as_bytes()).unwrap();
        assert_eq!(games.len(), 3);
        let g = &games[0];
        assert_eq!(g.tag("Event"), Some("Sample \"quoted\""));
        assert_eq!(g.comments, vec!["A game comment".to_owned()]);
        let sans: Vec<&str> = g.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(
            sans,
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O"]
        );
        assert_eq!(g.moves[0].clock_ms, Some(919_000));
        assert!(g.moves[0].comments.is_empty());
        assert_eq!(g.moves[1].clock_ms, Some(918_000));
        assert_eq!(g.moves[1].comments, vec!["[%emt 00:00:02]".to_owned()]);
        assert_eq!(g.moves[2].nags, vec![5, 1]);
        assert_eq!(g.moves[5].comments, vec!["rest of line".to_owned()]);
        assert_eq!(g.result, Some(GameResult::WhiteWins));
        let replayed = g.replay().unwrap();
        assert_eq!(replayed.moves().len(), 9);
        assert_eq!(games[1].result, None);
        assert_eq!(games[1].moves.len(), 3);
        assert_eq!(games[2].moves.len(), 0);
        assert_eq!(games[2].result, Some(GameResult::Ongoing));
    }

    #[test]
    fn latin1_is_tolerated() {
        let bytes = b"[White \"Lasker, Emanuel\"]\n[Black \"R\xe9ti, Richard\"]\n\n1. e4 *\n";
        let games = read_pgn(bytes).unwrap();
        assert_eq!(games[0].tag("Black"), Some("Réti, Richard"));
        // UTF-8 stays UTF-8 even when a stray Latin-1 byte sits elsewhere in the file.
        let mixed = "[White \"Réti\"]\n[Black \"D\u{fc}rer\"]\n\n1. e4 *\n"
            .replace('\u{fc}', "\u{1}")
            .into_bytes()
            .into_iter()
            .map(|b| if b == 1 { 0xfc } else { b })
            .collect::<Vec<u8>>();
        let games = read_pgn(&mixed).unwrap();
        assert_eq!(games[0].tag("White"), Some("Réti"));
        assert_eq!(games[0].tag("Black"), Some("Dürer"));
    }

    #[test]
    fn chess960_games_read_and_write_their_variant() {
        // From Shredder-FEN; both castle O-O with the king already on g (the rook alone
        // moves, II.3), and White's rights are gone after it.
        let text = "[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
            [FEN \"1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w HBhb - 0 1\"]\n\n\
            1. O-O O-O *";
        let game = read_pgn(text.as_bytes()).unwrap()[0].replay().unwrap();
        assert_eq!(game.start().variant(), Variant::Chess960);
        assert_eq!(
            game.position().fen(),
            "1r3rk1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 w - - 2 2"
        );
        assert_eq!(game.san_moves(), ["O-O", "O-O"]);
        let out = PgnGame::from_game(&game);
        assert_eq!(out.tag("Variant"), Some("Chess960"));
        assert_eq!(
            out.tag("FEN"),
            Some("1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w KQkq - 0 1")
        );
        let again = read_pgn(out.to_pgn().as_bytes()).unwrap()[0]
            .replay()
            .unwrap();
        assert_eq!(again.position(), game.position());
        // Without a FEN a Chess960 game starts from position 518, castling e1h1.
        let text = "[Variant \"chess 960\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O *";
        let game = read_pgn(text.as_bytes()).unwrap()[0].replay().unwrap();
        assert_eq!(
            game.moves().last().map(|m| m.uci()).as_deref(),
            Some("e1h1")
        );
    }

    #[test]
    fn malformed_text_is_an_error_with_a_line() {
        for (text, line) in [
            ("[Event \"x\"]\n\n1. e4 {never closed\n", 3),
            ("[Event \"x]\n", 1),
            ("1. e4 (1. d4\n\n", 1),
            ("1. e4 ) *", 1),
            ("[Event]\n", 1),
        ] {
            let err = read_pgn(text.as_bytes()).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
        }
    }

    #[test]
    fn replay_errors_name_the_move() {
        let games = read_pgn(b"1. e4 e5 2. Ke3 *").unwrap();
        let err = games[0].replay().unwrap_err();
        assert!(matches!(err, ReplayError::Move { index: 2, .. }), "{err}");
        assert_eq!(err.to_string().split(':').next(), Some("move 2. Ke3"));
    }

    #[test]
    fn setup_fen_is_the_start() {
        let text =
            "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 30\"]\n\n30... Kd7 31. e4 *";
        let games = read_pgn(text.as_bytes()).unwrap();
        let g = games[0].replay().unwrap();
        assert_eq!(g.position().fullmove_number(), 31);
        let written = games[0].to_pgn();
        assert!(written.contains("30... Kd7 31. e4 *"), "{written}");
    }

    #[test]
    fn writer_uses_export_format_and_reads_back() {
        let mut game = Game::default();
        for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"] {
            game.play_san(san).unwrap();
        }
        let mut pgn = PgnGame::from_game(&game);
        pgn.set_tag("Event", "Club blitz");
        pgn.set_tag("Board", "7");
        pgn.set_tag("TimeControl", "180+2");
        for (i, m) in pgn.moves.iter_mut().enumerate() {
            m.clock_ms = Some(180_000 - 1000 * i as u64);
        }
        pgn.moves[3]
            .comments
            .push("Illegal move by Black: Nb8-c5 (piece_movement), +1:00 to White".to_owned());
        pgn.result = Some(GameResult::Ongoing);
        let text = pgn.to_pgn();
        let expected_head = "[Event \"Club blitz\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n[Board \"7\"]\n[TimeControl \"180+2\"]\n\n1. e4 {[%clk 0:03:00]} 1... e5 {[%clk 0:02:59]}";
        assert!(text.starts_with(expected_head), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        let back = read_pgn(text.as_bytes()).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].moves, pgn.moves);
        assert_eq!(back[0].to_pgn(), text);
    }

    #[test]
    fn one_comment_per_move_and_commands_on_one_line() {
        let mut game = Game::default();
        for san in ["e4", "f5", "Qh5+", "g6", "Qxg6+", "hxg6"] {
            game.play_san(san).unwrap();
        }
        let mut pgn = PgnGame::from_game(&game);
        pgn.comments = vec!["board 4".to_owned(), "pairing from the config".to_owned()];
        for (i, m) in pgn.moves.iter_mut().enumerate() {
            m.clock_ms = Some(53_000 + 1000 * i as u64);
            // Long comments push the clock command of the next move to a line's end.
            m.comments.push(format!(
                "ruling {i}: {}",
                "word ".repeat(3 + 5 * i).trim_end()
            ));
            m.comments.push("game over: checkmate".to_owned());
        }
        // A move with comments and no clock, and a `[%...]` command inside a comment.
        pgn.moves[2].clock_ms = None;
        pgn.moves[3].comments.push("[%clk 00:00:56]".to_owned());
        pgn.result = Some(GameResult::Ongoing);
        let text = pgn.to_pgn();
        assert_eq!(
            strict_reader_problems(&text),
            Vec::<String>::new(),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert!(
            text.contains("{board 4 pairing from the config} 1. e4"),
            "{text}"
        );
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("3... hxg6 {[%clk 0:00:58] ruling 5:"),
            "{text}"
        );
        // Every `[%clk]` of the text is on one line.
        let on_one_line = text
            .lines()
            .map(|l| l.matches("[%clk ").count())
            .sum::<usize>();
        assert_eq!(on_one_line, 6, "{text}");
        // Read back: the clocks, and the comments as one text per move.
        let back = &read_pgn(text.as_bytes()).unwrap()[0];
        for (b, m) in back.moves.iter().zip(&pgn.moves) {
            assert_eq!(b.clock_ms, m.clock_ms);
            assert_eq!(b.comments, vec![m.comments.join(" ")]);
        }
        assert_eq!(back.to_pgn(), text);
        // The checker finds what it is for.
        assert_eq!(
            strict_reader_problems("1. e4 {[%clk 0:00:53]} {game over}").len(),
            1
        );
        assert_eq!(
            strict_reader_problems("1. e4 {a b [%clk\n0:00:53]}").len(),
            1
        );
    }

    #[test]
    fn clock_formats() {
        assert_eq!(format_clock(192_000), "0:03:12");
        assert_eq!(format_clock(3_723_000), "1:02:03");
        assert_eq!(format_clock(9_500), "0:00:09.5");
        assert_eq!(parse_clock("0:03:12"), Some(192_000));
        assert_eq!(parse_clock("00:00:09.5"), Some(9_500));
        assert_eq!(parse_clock("0:61:00"), None);
    }
}
