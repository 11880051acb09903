//! The dashboard's language (issue 41): the page asks `GET /api/messages` for its words
//! and is answered in the first of
//! 1. `?lang=xx`, which the page sends from its own `?lang=` or the language picked in its
//!    selector (kept in the browser's local storage);
//! 2. the browser's `Accept-Language`, when it names a language we speak;
//! 3. the event's language (`[event] language`, `--lang`).
//!
//! The words are the `dash-*` messages of the same Fluent catalogues as the rulings, with
//! `{$name}` left for the page to fill; the rulings, titles and notes of alerts come from
//! the daemon already said in the language the page asks for (`?lang=` on every route
//! with words; English without it). An unknown `lang` is a 400 naming the languages.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use messages::{Catalogue, Language};
use serde_json::{json, Map, Value};

use super::api::error;
use super::Dashboard;

/// A `lang` value: one of ours, or the 400's words.
pub fn parse_lang(value: &str) -> Result<Language, String> {
    if value.len() > 35 {
        return Err(format!("lang is a language code: {}", Language::choices()));
    }
    value.parse::<Language>().map_err(|e| format!("lang: {e}"))
}

/// The `lang=xx` of a query that takes nothing else (`None` when not given).
pub fn lang_query(query: Option<&str>, route: &str) -> Result<Option<Language>, String> {
    let mut lang = None;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("lang", value)) => lang = Some(parse_lang(value)?),
            _ => {
                return Err(format!(
                    "bad query {pair:?}: {route} takes lang=CODE ({}) or nothing",
                    Language::choices()
                ))
            }
        }
    }
    Ok(lang)
}

/// Where the page's language came from (said in the answer, for the curious and tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChosenBy {
    Query,
    AcceptLanguage,
    Event,
}

impl ChosenBy {
    fn word(self) -> &'static str {
        match self {
            ChosenBy::Query => "lang",
            ChosenBy::AcceptLanguage => "accept-language",
            ChosenBy::Event => "event",
        }
    }
}

/// The page's language: asked, else the browser's, else the event's.
pub fn negotiate(
    asked: Option<Language>,
    headers: &HeaderMap,
    event: Language,
) -> (Language, ChosenBy) {
    if let Some(l) = asked {
        return (l, ChosenBy::Query);
    }
    // A header that is not text is no header: the event's language then.
    let browser = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .and_then(Language::from_accept_language);
    match browser {
        Some(l) => (l, ChosenBy::AcceptLanguage),
        None => (event, ChosenBy::Event),
    }
}

/// `GET /api/messages[?lang=xx]`: `{language, chosen_by, languages: [{code, name}],
/// messages: {id: text}}`. Anyone may ask (the words are no secret, like the page).
pub(super) async fn messages(
    State(d): State<Arc<Dashboard>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let asked = match lang_query(query.as_deref(), "/api/messages") {
        Ok(l) => l,
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    let (language, chosen_by) = negotiate(asked, &headers, d.config.event.language);
    let texts: Map<String, Value> = Catalogue::get()
        .texts(language, "dash-")
        .into_iter()
        .map(|(id, text)| (id, Value::String(text)))
        .collect();
    let languages: Vec<Value> = Language::ALL
        .iter()
        .map(|l| json!({ "code": l.code(), "name": l.native_name() }))
        .collect();
    (
        [
            (header::CACHE_CONTROL, "no-cache"),
            (header::VARY, "Accept-Language"),
        ],
        Json(json!({
            "language": language.code(),
            "chosen_by": chosen_by.word(),
            "languages": languages,
            "messages": texts,
        })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with_accept(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_LANGUAGE,
            HeaderValue::from_str(value).unwrap(),
        );
        h
    }

    #[test]
    fn the_page_s_language_is_asked_then_the_browser_s_then_the_event_s() {
        let none = HeaderMap::new();
        let ru = Some(Language::Ru);
        assert_eq!(
            negotiate(ru, &with_accept("en-US,en"), Language::En),
            (Language::Ru, ChosenBy::Query)
        );
        assert_eq!(
            negotiate(None, &with_accept("ru-RU,ru;q=0.9,en;q=0.8"), Language::En),
            (Language::Ru, ChosenBy::AcceptLanguage)
        );
        assert_eq!(
            negotiate(None, &with_accept("en;q=0.2,ru;q=0.8"), Language::En),
            (Language::Ru, ChosenBy::AcceptLanguage)
        );
        assert_eq!(
            negotiate(None, &with_accept("de-DE,fr;q=0.5"), Language::Ru),
            (Language::Ru, ChosenBy::Event)
        );
        assert_eq!(
            negotiate(None, &with_accept("de-DE,fr;q=0.5"), Language::En),
            (Language::En, ChosenBy::Event)
        );
        assert_eq!(
            negotiate(None, &none, Language::Ru),
            (Language::Ru, ChosenBy::Event)
        );
        // Bytes that are not text: no header.
        let mut odd = HeaderMap::new();
        odd.insert(
            header::ACCEPT_LANGUAGE,
            HeaderValue::from_bytes(b"ru\xff").unwrap(),
        );
        assert_eq!(
            negotiate(None, &odd, Language::En),
            (Language::En, ChosenBy::Event)
        );
    }

    #[test]
    fn a_bad_lang_is_refused_with_the_languages() {
        assert_eq!(lang_query(None, "/x"), Ok(None));
        assert_eq!(lang_query(Some("lang=ru"), "/x"), Ok(Some(Language::Ru)));
        assert_eq!(lang_query(Some("lang=ru-RU"), "/x"), Ok(Some(Language::Ru)));
        assert_eq!(lang_query(Some("lang=en"), "/x"), Ok(Some(Language::En)));
        for bad in [
            "lang=fr",
            "lang=",
            "lang",
            "x=1",
            &format!("lang={}", "r".repeat(40)),
        ] {
            let e = lang_query(Some(bad), "/x").unwrap_err();
            assert!(e.contains("en, ru"), "{bad}: {e}");
        }
    }
}
