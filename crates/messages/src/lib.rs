//! The words the arbiter says to people, in every language it speaks.
//!
//! This crate owns the message catalogues (Project Fluent, one `.ftl` file a language in
//! `ftl/`, embedded in the binary), the [`Language`] they are in, and formatting a message
//! by its id with typed arguments ([`Messages`], [`Args`]). English (`ftl/en.ftl`) is the
//! default and the reference: every other catalogue has the same ids with the same
//! variables (tested). What the words mean (a ruling, a restore step) is the caller's:
//! `arbiter-daemon`'s `words` module builds its sentences from these messages.
//!
//! Formatting never panics: a message missing from a catalogue, or one that cannot be
//! resolved (a variable not given), is a bug the tests catch; at run time it is logged
//! and the English message is used instead.
//!
//! Adding a language: one `ftl/xx.ftl` file and one line in [`Language`] (its variant,
//! code and file); the tests then check it has every message.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use unic_langid::LanguageIdentifier;

/// A language the arbiter speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Language {
    /// English: the default, and the reference catalogue.
    #[default]
    En,
    /// Russian.
    Ru,
}

impl Language {
    /// Every language, English first.
    pub const ALL: [Language; 2] = [Language::En, Language::Ru];

    /// Its code in config files and on the command line (`en`, `ru`).
    pub fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Ru => "ru",
        }
    }

    /// Its catalogue, as written in the repository.
    pub fn ftl(self) -> &'static str {
        match self {
            Language::En => include_str!("../ftl/en.ftl"),
            Language::Ru => include_str!("../ftl/ru.ftl"),
        }
    }

    fn langid(self) -> LanguageIdentifier {
        match self {
            Language::En => unic_langid::langid!("en"),
            Language::Ru => unic_langid::langid!("ru"),
        }
    }

    fn index(self) -> usize {
        match self {
            Language::En => 0,
            Language::Ru => 1,
        }
    }

    /// Its name in itself, for a language picker: `English`, `Русский`.
    pub fn native_name(self) -> &'static str {
        match self {
            Language::En => "English",
            Language::Ru => "Русский",
        }
    }

    /// The language a browser's `Accept-Language` header prefers among ours: its tags by
    /// `q` (highest first, in their order on a tie), `ru-RU` read as `ru`; `q=0` and tags
    /// we do not speak are passed over. `None` when it names none of ours (the caller
    /// falls back, to the event's language); a malformed item is skipped, never an error.
    pub fn from_accept_language(header: &str) -> Option<Language> {
        let mut wanted: Vec<(f32, Language)> = header
            .split(',')
            .filter_map(|item| {
                let mut parts = item.split(';');
                let tag = parts.next()?.trim();
                let mut q = 1.0f32;
                for param in parts {
                    let (key, value) = param.split_once('=')?;
                    if key.trim().eq_ignore_ascii_case("q") {
                        q = value
                            .trim()
                            .parse()
                            .ok()
                            .filter(|q: &f32| (0.0..=1.0).contains(q))?;
                    }
                }
                let language = tag.parse::<Language>().ok()?;
                (q > 0.0).then_some((q, language))
            })
            .collect();
        // Stable: equal q keeps the header's order.
        wanted.sort_by(|a, b| b.0.total_cmp(&a.0));
        wanted.first().map(|&(_, l)| l)
    }

    /// The user's language as the locale variables name it, for what is said before any
    /// config is read (the command line's and the config's errors): the first of
    /// `LC_ALL`, `LC_MESSAGES`, `LANG` that is set and not empty decides, as POSIX has
    /// it; a language we do not speak there (`C`, `de_DE.UTF-8`) is English. `var` reads
    /// a variable (`std::env::var`, or a test's).
    pub fn from_locale(var: impl Fn(&str) -> Option<String>) -> Language {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .into_iter()
            .filter_map(&var)
            .find(|value| !value.trim().is_empty())
            .and_then(|value| value.parse().ok())
            .unwrap_or_default()
    }

    /// The codes of every language, for error messages: `en, ru`.
    pub fn choices() -> String {
        Language::ALL
            .iter()
            .map(|l| l.code())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A language code this arbiter does not speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown language {given:?}; the languages are {}",
    Language::choices()
)]
pub struct UnknownLanguage {
    /// The code as it was given.
    pub given: String,
}

impl FromStr for Language {
    type Err = UnknownLanguage;

    /// A language tag as people and locales write it: `ru`, `RU`, `ru-RU`, `ru_RU.UTF-8`;
    /// only its language part counts.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let primary = s
            .trim()
            .split(['-', '_', '.'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        Language::ALL
            .into_iter()
            .find(|l| l.code() == primary)
            .ok_or_else(|| UnknownLanguage {
                given: s.to_owned(),
            })
    }
}

/// The arguments of a message, typed: text or a whole number (which plural rules read).
#[derive(Debug, Default)]
pub struct Args<'a> {
    inner: FluentArgs<'a>,
}

impl<'a> Args<'a> {
    pub fn new() -> Self {
        Self::default()
    }

    /// A text argument (a square, a side's key, a clock, a sentence already formatted).
    pub fn str(mut self, name: &'static str, value: impl Into<Cow<'a, str>>) -> Self {
        self.inner.set(name, FluentValue::String(value.into()));
        self
    }

    /// A number argument (a move number, a count): plural rules select on it.
    pub fn num(mut self, name: &'static str, value: u64) -> Self {
        self.inner.set(name, FluentValue::from(value));
        self
    }
}

/// Why a message could not be formatted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("no message {id:?} in the {language} catalogue")]
    Missing { language: Language, id: String },
    #[error("message {id:?} of the {language} catalogue: {detail}")]
    Unresolved {
        language: Language,
        id: String,
        detail: String,
    },
}

type Bundle = FluentBundle<FluentResource>;

/// Every language's catalogue, parsed once.
pub struct Catalogue {
    bundles: Vec<Bundle>,
}

impl Catalogue {
    fn load() -> Self {
        let bundles = Language::ALL.iter().map(|&l| bundle(l)).collect();
        Catalogue { bundles }
    }

    /// The catalogues of the binary (parsed at the first use).
    pub fn get() -> &'static Catalogue {
        static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
        CATALOGUE.get_or_init(Catalogue::load)
    }

    /// One message in one language, or why not.
    pub fn try_format(
        &self,
        language: Language,
        id: &str,
        args: &Args<'_>,
    ) -> Result<String, FormatError> {
        let (text, error) = self.resolve(language, id, args)?;
        match error {
            None => Ok(text),
            Some(e) => Err(e),
        }
    }

    /// The text fluent makes of a message (its best effort if an argument is missing,
    /// `{$name}` in its place) and what went wrong; `Err` if there is no such message.
    fn resolve(
        &self,
        language: Language,
        id: &str,
        args: &Args<'_>,
    ) -> Result<(String, Option<FormatError>), FormatError> {
        let missing = || FormatError::Missing {
            language,
            id: id.to_owned(),
        };
        let bundle = self.bundles.get(language.index()).ok_or_else(missing)?;
        let pattern = bundle
            .get_message(id)
            .and_then(|m| m.value())
            .ok_or_else(missing)?;
        let mut errors = Vec::new();
        let text = bundle
            .format_pattern(pattern, Some(&args.inner), &mut errors)
            .into_owned();
        let error = (!errors.is_empty()).then(|| FormatError::Unresolved {
            language,
            id: id.to_owned(),
            detail: errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        });
        Ok((text, error))
    }

    /// Every message of `language` whose id starts with `prefix`, in the file's order,
    /// formatted without arguments: a variable stays as `{$name}` for the caller to fill
    /// (the dashboard's page does). Only for messages without selectors: a selector
    /// without its variable takes its default variant.
    pub fn texts(&self, language: Language, prefix: &str) -> Vec<(String, String)> {
        let ids: Vec<String> = match fluent_syntax::parser::parse(language.ftl()) {
            Ok(r) => message_ids(&r),
            // Logged when the bundle was made; the messages that parsed are still there.
            Err((r, _)) => message_ids(&r),
        };
        ids.into_iter()
            .filter(|id| id.starts_with(prefix))
            .filter_map(|id| {
                let (text, _) = self.resolve(language, &id, &Args::new()).ok()?;
                Some((id, text))
            })
            .collect()
    }

    /// One message in one language; if that fails (a bug), logged and in English; if
    /// English fails too, its best effort, or the id itself, so a ruling is never lost
    /// to a missing word.
    pub fn format(&self, language: Language, id: &str, args: &Args<'_>) -> String {
        let first = match self.try_format(language, id, args) {
            Ok(text) => return text,
            Err(e) => e,
        };
        tracing::error!("{first}: said in English instead");
        match self.resolve(Language::En, id, args) {
            Ok((text, error)) => {
                if let Some(e) = error.filter(|_| language != Language::En) {
                    tracing::error!("{e}");
                }
                text
            }
            Err(e) => {
                if language != Language::En {
                    tracing::error!("{e}");
                }
                id.to_owned()
            }
        }
    }
}

fn message_ids(resource: &fluent_syntax::ast::Resource<&str>) -> Vec<String> {
    resource
        .body
        .iter()
        .filter_map(|e| match e {
            fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_owned()),
            _ => None,
        })
        .collect()
}

/// A catalogue parsed into a bundle. A syntax error in an embedded file is a bug (tested);
/// at run time the messages that did parse are kept and the error is logged.
fn bundle(language: Language) -> Bundle {
    let resource = match FluentResource::try_new(language.ftl().to_owned()) {
        Ok(r) => r,
        Err((r, errors)) => {
            tracing::error!("{language}.ftl does not parse: {errors:?}");
            r
        }
    };
    let mut bundle = Bundle::new_concurrent(vec![language.langid()]);
    // No Unicode isolation marks around arguments: the lines go to terminals and logs,
    // and the English must stay byte for byte what the tests and tools read.
    bundle.set_use_isolating(false);
    if let Err(errors) = bundle.add_resource(resource) {
        tracing::error!("{language}.ftl: {errors:?}");
    }
    bundle
}

/// The messages of one language: what a caller holds to say things.
///
/// `strict` ones (for tests) do not fall back to English: a message that cannot be
/// formatted comes out as `⟪id: why⟫`, for a test to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Messages {
    language: Language,
    strict: bool,
}

impl Messages {
    pub const fn new(language: Language) -> Self {
        Messages {
            language,
            strict: false,
        }
    }

    /// The reference language's.
    pub const fn english() -> Self {
        Messages::new(Language::En)
    }

    /// For tests: failures marked `⟪...⟫` in the text instead of English.
    pub fn strict(language: Language) -> Self {
        Messages {
            language,
            strict: true,
        }
    }

    pub fn language(self) -> Language {
        self.language
    }

    /// The message `id` with its arguments.
    pub fn format(self, id: &str, args: &Args<'_>) -> String {
        let catalogue = Catalogue::get();
        if self.strict {
            catalogue
                .try_format(self.language, id, args)
                .unwrap_or_else(|e| format!("⟪{e}⟫"))
        } else {
            catalogue.format(self.language, id, args)
        }
    }

    /// A message without arguments.
    pub fn text(self, id: &str) -> String {
        self.format(id, &Args::new())
    }
}

#[cfg(test)]
mod tests;
