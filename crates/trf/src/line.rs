//! Lines as bytes: the text's encoding, splitting with the line ends kept, and changing
//! single columns without touching any other byte.

use std::fmt;

/// How the file's text is encoded (TRF files in the wild are either).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Only ASCII bytes: both readings agree.
    Ascii,
    /// Valid UTF-8 with at least one non-ASCII character.
    Utf8,
    /// Not valid UTF-8: read as ISO-8859-1 (Latin-1), one byte per character.
    Latin1,
}

impl Encoding {
    /// UTF-8 if the bytes are valid UTF-8, else Latin-1 (every byte is a Latin-1
    /// character, so reading never fails).
    pub fn detect(bytes: &[u8]) -> Encoding {
        if bytes.is_ascii() {
            Encoding::Ascii
        } else if std::str::from_utf8(bytes).is_ok() {
            Encoding::Utf8
        } else {
            Encoding::Latin1
        }
    }

    fn decode(self, bytes: &[u8]) -> Vec<char> {
        match self {
            Encoding::Ascii | Encoding::Latin1 => bytes.iter().map(|b| char::from(*b)).collect(),
            // Whole-file validity was checked; a line is a slice of it cut at b'\n'/b'\r',
            // which never splits a UTF-8 sequence.
            Encoding::Utf8 => String::from_utf8_lossy(bytes).chars().collect(),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Encoding::Ascii => "ASCII",
            Encoding::Utf8 => "UTF-8",
            Encoding::Latin1 => "Latin-1 (ISO-8859-1)",
        })
    }
}

/// One line: its bytes and its end (`\r\n`, `\n`, `\r` or none at the end of the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    bytes: Vec<u8>,
    end: Vec<u8>,
    encoding: Encoding,
}

/// Splits the text into lines, each keeping its own line end.
pub(crate) fn split(body: &[u8], encoding: Encoding) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < body.len() {
        let end_len = match body[i] {
            b'\r' if body.get(i + 1) == Some(&b'\n') => 2,
            b'\r' | b'\n' => 1,
            _ => {
                i += 1;
                continue;
            }
        };
        lines.push(Line {
            bytes: body[start..i].to_vec(),
            end: body[i..i + end_len].to_vec(),
            encoding,
        });
        i += end_len;
        start = i;
    }
    if start < body.len() {
        lines.push(Line {
            bytes: body[start..].to_vec(),
            end: Vec::new(),
            encoding,
        });
    }
    lines
}

impl Line {
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub(crate) fn end(&self) -> &[u8] {
        &self.end
    }

    pub(crate) fn chars(&self) -> Vec<char> {
        self.encoding.decode(&self.bytes)
    }

    /// Byte offset of 1-based character column `column`; pads the line with spaces when
    /// it is shorter.
    fn offset_padded(&mut self, column: usize) -> usize {
        let chars = self.chars().len();
        if chars < column {
            self.bytes.extend(std::iter::repeat_n(b' ', column - chars));
        }
        match self.encoding {
            Encoding::Ascii | Encoding::Latin1 => column - 1,
            Encoding::Utf8 => {
                let text = String::from_utf8_lossy(&self.bytes);
                text.char_indices()
                    .nth(column - 1)
                    .map_or(self.bytes.len(), |(b, _)| b)
            }
        }
    }

    /// Puts an ASCII character at 1-based column `column` (the line is padded with spaces
    /// to reach it); every other byte stays.
    pub(crate) fn set_char(&mut self, column: usize, c: char) {
        debug_assert!(c.is_ascii());
        let at = self.offset_padded(column);
        let old_len = self.char_len_at(at);
        let mut buf = [0u8; 4];
        self.bytes
            .splice(at..at + old_len, c.encode_utf8(&mut buf).bytes());
    }

    /// Writes ASCII `text` over the characters from 1-based column `column` on.
    pub(crate) fn set_field(&mut self, column: usize, text: &str) {
        for (k, c) in text.chars().enumerate() {
            self.set_char(column + k, c);
        }
    }

    /// Length in bytes of the character starting at byte `at`.
    fn char_len_at(&self, at: usize) -> usize {
        match self.encoding {
            Encoding::Ascii | Encoding::Latin1 => 1,
            Encoding::Utf8 => match self.bytes.get(at) {
                Some(b) if *b >= 0xF0 => 4,
                Some(b) if *b >= 0xE0 => 3,
                Some(b) if *b >= 0xC0 => 2,
                _ => 1,
            },
        }
    }
}
