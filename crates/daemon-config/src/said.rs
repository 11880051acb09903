//! The config's mistakes for people, in their language (issue 41): each common mistake
//! carries its catalogue message and arguments ([`Said`]); [`ConfigError::message`] says
//! it in a language. The English [`ConfigError`] Display is unchanged (logs and tests read
//! it); English output comes from it byte for byte. A mistake without words (a rare one)
//! keeps its English text in every language.

use std::fmt;
use std::ops::Deref;

use messages::{Args, Language, Messages};

use crate::ConfigError;

/// A mistake in the catalogue's words: its message id and its arguments (all text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    id: &'static str,
    args: Vec<(&'static str, String)>,
}

impl Said {
    pub(crate) fn new(id: &'static str) -> Said {
        Said {
            id,
            args: Vec::new(),
        }
    }

    pub(crate) fn arg(mut self, name: &'static str, value: impl fmt::Display) -> Said {
        self.args.push((name, value.to_string()));
        self
    }

    /// A time control's text that cannot be followed (`config-time-control`), what is
    /// wrong with it by its kind and facts; the caller adds `key` and `value`.
    pub(crate) fn time_control_problem(problem: &time_control::Problem) -> Said {
        use time_control::Problem;
        let said = Said::new("config-time-control");
        match problem {
            Problem::Empty => said.arg("problem", "empty"),
            Problem::EmptyPeriod { period } => {
                said.arg("problem", "empty-period").arg("period", period)
            }
            Problem::BadMoves {
                period,
                part,
                moves,
            } => said
                .arg("problem", "bad-moves")
                .arg("period", period)
                .arg("part", format!("{part:?}"))
                .arg("number", format!("{moves:?}")),
            Problem::BadSeconds { period, part, secs } => said
                .arg("problem", "bad-seconds")
                .arg("period", period)
                .arg("part", format!("{part:?}"))
                .arg("number", format!("{secs:?}")),
            Problem::BadIncrement {
                period,
                part,
                increment,
            } => said
                .arg("problem", "bad-increment")
                .arg("period", period)
                .arg("part", format!("{part:?}"))
                .arg("number", format!("{increment:?}")),
            Problem::SuddenDeathNotLast { period, part } => said
                .arg("problem", "sudden-death-not-last")
                .arg("period", period)
                .arg("part", format!("{part:?}")),
            Problem::OutOfBounds { period, part } => said
                .arg("problem", "out-of-bounds")
                .arg("period", period)
                .arg("part", format!("{part:?}")),
            Problem::TooManyPeriods { periods } => said
                .arg("problem", "too-many-periods")
                .arg("periods", periods)
                .arg("max", time_control::MAX_PERIODS),
            Problem::Unsupported { part } => said
                .arg("problem", "unsupported")
                .arg("part", format!("{part:?}")),
        }
    }

    /// The catalogue's message id.
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// The text in the language of `m`.
    pub fn say(&self, m: Messages) -> String {
        let args = self
            .args
            .iter()
            .fold(Args::new(), |a, (name, value)| a.str(name, value.as_str()));
        m.format(self.id, &args)
    }
}

impl ConfigError {
    /// The error for people in the language of `m`: in English exactly its Display; in
    /// another language the file, line and column as they are and each mistake in its
    /// words (a mistake without words in English).
    pub fn message(&self, m: Messages) -> String {
        if m.language() == Language::En {
            return self.to_string();
        }
        match self {
            ConfigError::Read { path, .. } => m.format(
                "config-read",
                &Args::new().str("path", path.display().to_string()),
            ),
            ConfigError::Invalid {
                path,
                line,
                column,
                message,
                said,
            } => format!(
                "{}:{line}:{column}: {}",
                path.display(),
                said.as_ref().map_or_else(|| message.clone(), |s| s.say(m))
            ),
            ConfigError::Several { path, mistakes } => {
                let mut out = m.format(
                    "config-mistakes",
                    &Args::new()
                        .str("path", path.display().to_string())
                        .num("count", mistakes.len() as u64),
                );
                for mistake in mistakes {
                    out.push('\n');
                    out.push_str(&mistake.message(m));
                }
                out
            }
        }
    }
}

/// A warning about the file that is no mistake (a board's port that does not exist yet:
/// udev removes an unplugged board's link): its English text, as logs read it, and its
/// words for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    text: String,
    /// `path:line:column`.
    place: String,
    said: Said,
}

impl Warning {
    /// A warning at the place of `mistake` (its file, line and column), said as `said`.
    pub(crate) fn at(mistake: &ConfigError, said: Said) -> Warning {
        let place = match mistake {
            ConfigError::Invalid {
                path, line, column, ..
            } => format!("{}:{line}:{column}", path.display()),
            _ => String::new(),
        };
        Warning {
            text: mistake.to_string(),
            place,
            said,
        }
    }

    /// The warning for people in the language of `m` (in English, its text).
    pub fn message(&self, m: Messages) -> String {
        if m.language() == Language::En {
            return self.text.clone();
        }
        format!("{}: {}", self.place, self.said.say(m))
    }
}

impl Deref for Warning {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
