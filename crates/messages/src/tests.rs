use std::collections::{BTreeMap, BTreeSet};

use fluent_syntax::ast;

use super::*;

/// Each message of a catalogue and the variables it reads, from the file as written.
fn variables(language: Language) -> BTreeMap<String, BTreeSet<String>> {
    let resource = match fluent_syntax::parser::parse(language.ftl()) {
        Ok(r) => r,
        Err((_, errors)) => panic!("{language}.ftl does not parse: {errors:?}"),
    };
    let mut out = BTreeMap::new();
    for entry in &resource.body {
        match entry {
            ast::Entry::Message(m) => {
                let mut vars = BTreeSet::new();
                if let Some(p) = &m.value {
                    pattern(p, &mut vars);
                }
                let before = out.insert(m.id.name.to_owned(), vars);
                assert!(before.is_none(), "{language}.ftl: {} twice", m.id.name);
            }
            ast::Entry::Junk { content } => panic!("{language}.ftl: junk {content:?}"),
            _ => {}
        }
    }
    out
}

fn pattern(p: &ast::Pattern<&str>, vars: &mut BTreeSet<String>) {
    for e in &p.elements {
        if let ast::PatternElement::Placeable { expression } = e {
            expr(expression, vars);
        }
    }
}

fn expr(e: &ast::Expression<&str>, vars: &mut BTreeSet<String>) {
    match e {
        ast::Expression::Select { selector, variants } => {
            inline(selector, vars);
            for v in variants {
                pattern(&v.value, vars);
            }
        }
        ast::Expression::Inline(i) => inline(i, vars),
    }
}

fn inline(i: &ast::InlineExpression<&str>, vars: &mut BTreeSet<String>) {
    match i {
        ast::InlineExpression::VariableReference { id } => {
            vars.insert(id.name.to_owned());
        }
        ast::InlineExpression::Placeable { expression } => expr(expression, vars),
        ast::InlineExpression::FunctionReference { arguments, .. } => {
            for a in &arguments.positional {
                inline(a, vars);
            }
            for a in &arguments.named {
                inline(&a.value, vars);
            }
        }
        _ => {}
    }
}

/// Variables of the English text the tracker writes (what was displaced) that another
/// language may leave out, saying it its own way.
const MAY_LEAVE_OUT: &[(&str, &str)] = &[
    ("displaced", "what"),
    ("displaced-reestablished", "what"),
    ("pgn-displaced", "what"),
    ("pgn-displaced-reestablished", "what"),
];

#[test]
fn every_language_has_every_english_message_with_its_variables_and_no_other() {
    let en = variables(Language::En);
    assert!(en.len() > 40, "{}", en.len());
    for language in Language::ALL {
        let other = variables(language);
        let missing: Vec<_> = en.keys().filter(|id| !other.contains_key(*id)).collect();
        assert!(missing.is_empty(), "{language}.ftl lacks {missing:?}");
        let extra: Vec<_> = other.keys().filter(|id| !en.contains_key(*id)).collect();
        assert!(
            extra.is_empty(),
            "{language}.ftl has ids English lacks: {extra:?}"
        );
        for (id, vars) in &en {
            let theirs = &other[id];
            let unknown: Vec<_> = theirs.difference(vars).collect();
            assert!(
                unknown.is_empty(),
                "{language} {id}: variables {unknown:?} not given"
            );
            let left_out: Vec<_> = vars
                .difference(theirs)
                .filter(|v| !MAY_LEAVE_OUT.contains(&(id.as_str(), v.as_str())))
                .collect();
            assert!(
                left_out.is_empty(),
                "{language} {id}: {left_out:?} not said"
            );
        }
    }
}

#[test]
fn the_embedded_catalogues_load_whole() {
    for language in Language::ALL {
        let ids = variables(language);
        for id in ids.keys() {
            let bundle = &Catalogue::get().bundles[language.index()];
            assert!(bundle.has_message(id), "{language}: {id} not loaded");
        }
    }
}

#[test]
fn languages_parse_from_codes_and_locales() {
    for (s, want) in [
        ("en", Language::En),
        ("ru", Language::Ru),
        ("RU", Language::Ru),
        ("ru-RU", Language::Ru),
        ("ru_RU.UTF-8", Language::Ru),
        ("en-GB", Language::En),
    ] {
        assert_eq!(s.parse::<Language>(), Ok(want), "{s}");
    }
    for bad in ["fr", "", "rus", "-ru"] {
        let e = bad.parse::<Language>().unwrap_err();
        assert_eq!(e.given, bad);
        let text = e.to_string();
        assert!(
            text.contains(&format!("{bad:?}")) && text.contains("en, ru"),
            "{text}"
        );
    }
    assert_eq!(Language::default(), Language::En);
    assert_eq!(Language::Ru.to_string(), "ru");
}

#[test]
fn russian_plurals_follow_cldr() {
    let ru = Messages::strict(Language::Ru);
    let count = |n| ru.format("accepted-count-unknown", &Args::new().num("count", n));
    for (n, word) in [
        (1, "1 полуход)"),
        (2, "2 полухода)"),
        (4, "4 полухода)"),
        (5, "5 полуходов)"),
        (11, "11 полуходов)"),
        (21, "21 полуход)"),
        (22, "22 полухода)"),
    ] {
        let text = count(n);
        assert!(text.contains(word), "{n}: {text}");
    }
    let over = |n| {
        ru.format(
            "game-over",
            &Args::new()
                .num("plies", n)
                .str("result", "1-0")
                .str("reason", "мат"),
        )
    };
    assert_eq!(over(1), "партия окончена после 1 полухода: 1-0 (мат)");
    assert_eq!(over(40), "партия окончена после 40 полуходов: 1-0 (мат)");
    // English has one and other only.
    let en = Messages::strict(Language::En);
    let en_count = |n| en.format("accepted-count-unknown", &Args::new().num("count", n));
    assert!(en_count(1).contains("(at least 1)"), "{}", en_count(1));
}

#[test]
fn arguments_go_in_without_isolation_marks() {
    let en = Messages::strict(Language::En);
    let text = en.format(
        "at-move",
        &Args::new()
            .str("board", "3")
            .num("move", 14)
            .str("text", "x"),
    );
    assert_eq!(text, "board 3, move 14, x");
}

#[test]
fn a_missing_message_or_argument_is_caught_and_falls_back_to_english() {
    let catalogue = Catalogue::get();
    let e = catalogue
        .try_format(Language::Ru, "no-such-message", &Args::new())
        .unwrap_err();
    assert!(matches!(e, FormatError::Missing { .. }), "{e}");
    // A variable not given: an error, not a guess.
    let e = catalogue
        .try_format(Language::Ru, "position-restored", &Args::new())
        .map(|_| ())
        .and_then(|()| catalogue.try_format(Language::Ru, "illegal-move", &Args::new()));
    assert!(matches!(e, Err(FormatError::Unresolved { .. })), "{e:?}");
    // At run time: English, or the id, never a panic.
    let args = Args::new().str("category", "x");
    assert_eq!(
        catalogue.format(Language::Ru, "illegal-move", &Args::new()),
        "illegal move ({$category})"
    );
    assert_eq!(
        catalogue.format(Language::Ru, "illegal-move", &args),
        "невозможный ход (x)"
    );
    assert_eq!(catalogue.format(Language::Ru, "nothing", &args), "nothing");
    let strict = Messages::strict(Language::Ru).format("nothing", &args);
    assert!(strict.starts_with('⟪'), "{strict}");
}

#[test]
fn the_browser_s_accept_language_picks_ours_by_q() {
    let pick = Language::from_accept_language;
    assert_eq!(pick("ru"), Some(Language::Ru));
    assert_eq!(
        pick("ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7"),
        Some(Language::Ru)
    );
    assert_eq!(pick("en-US,en;q=0.9,ru;q=0.8"), Some(Language::En));
    // q decides, not the order.
    assert_eq!(pick("en;q=0.5, ru;q=0.9"), Some(Language::Ru));
    assert_eq!(pick("en;q=0.9, ru-RU"), Some(Language::Ru));
    // Equal q: the first named.
    assert_eq!(pick("ru;q=0.5, en;q=0.5"), Some(Language::Ru));
    // Languages we do not speak are passed over; none of ours is no answer.
    assert_eq!(pick("de-DE,de;q=0.9,ru;q=0.1"), Some(Language::Ru));
    assert_eq!(pick("de-DE,fr;q=0.9"), None);
    assert_eq!(pick("*"), None);
    assert_eq!(pick(""), None);
    // q=0 is "not this one"; a malformed item is skipped, not an error.
    assert_eq!(pick("ru;q=0, en;q=0.1"), Some(Language::En));
    assert_eq!(pick("ru;q=abc, en;q=0.1"), Some(Language::En));
    assert_eq!(pick("ru;q=7, en"), Some(Language::En));
    assert_eq!(pick(";;;,,,=,ru"), Some(Language::Ru));
}

#[test]
fn the_dashboard_s_texts_keep_their_variables_for_the_page() {
    let catalogue = Catalogue::get();
    for language in Language::ALL {
        let texts = catalogue.texts(language, "dash-");
        let en = variables(Language::En);
        let want: Vec<&String> = en.keys().filter(|id| id.starts_with("dash-")).collect();
        assert!(want.len() > 30, "{}", want.len());
        assert_eq!(texts.len(), want.len(), "{language}");
        for (id, text) in &texts {
            // Each variable left for the page as {$name}, nothing else of Fluent.
            for var in &en[id] {
                assert!(
                    text.contains(&format!("{{${var}}}")),
                    "{language} {id}: {text}"
                );
            }
            assert!(!text.contains("{ "), "{language} {id}: {text}");
        }
    }
    let ru = catalogue.texts(Language::Ru, "dash-");
    assert!(
        ru.iter()
            .any(|(id, t)| id == "dash-alerts" && t == "Замечания"),
        "{ru:?}"
    );
}

#[test]
fn the_dashboard_s_texts_have_no_selectors() {
    // The page fills {$name} and nothing more: a selector would always take its default.
    for language in Language::ALL {
        let resource = fluent_syntax::parser::parse(language.ftl()).unwrap_or_else(|(r, _)| r);
        for entry in &resource.body {
            let ast::Entry::Message(m) = entry else {
                continue;
            };
            if !m.id.name.starts_with("dash-") {
                continue;
            }
            let Some(p) = &m.value else { continue };
            for e in &p.elements {
                if let ast::PatternElement::Placeable { expression } = e {
                    assert!(
                        !matches!(expression, ast::Expression::Select { .. }),
                        "{language} {}: a selector",
                        m.id.name
                    );
                }
            }
        }
    }
}

#[test]
fn the_user_s_locale_picks_the_language_as_posix_orders_its_variables() {
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    };
    assert_eq!(Language::from_locale(env(&[])), Language::En);
    assert_eq!(
        Language::from_locale(env(&[("LANG", "ru_RU.UTF-8")])),
        Language::Ru
    );
    assert_eq!(
        Language::from_locale(env(&[("LANG", "C.UTF-8")])),
        Language::En
    );
    // LC_ALL outranks LC_MESSAGES, which outranks LANG; an empty one does not count.
    assert_eq!(
        Language::from_locale(env(&[("LC_ALL", "C"), ("LANG", "ru_RU.UTF-8")])),
        Language::En
    );
    assert_eq!(
        Language::from_locale(env(&[("LC_MESSAGES", "ru_RU"), ("LANG", "en_GB.UTF-8")])),
        Language::Ru
    );
    assert_eq!(
        Language::from_locale(env(&[("LC_ALL", ""), ("LANG", "ru")])),
        Language::Ru
    );
    assert_eq!(
        Language::from_locale(env(&[("LANG", "de_DE.UTF-8")])),
        Language::En
    );
}
