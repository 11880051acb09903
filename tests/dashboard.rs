//! The arbiter dashboard in a real headless Chromium, driven over WebDriver with
//! `fantoccini` against a `chromedriver` this test starts, so everything stays inside
//! `cargo test` (no Node). The daemon is the real binary with two emulated boards on
//! ptys that the test plays on by hand:
//! - the page loads and lists the boards (one playing, one whose cable is pulled);
//! - a threefold repetition shows in the claims panel;
//! - an illegal move shows up as a card within a second of the press, with the squares
//!   to change highlighted on its diagram and the piece that must move marked;
//! - acknowledging without the token is refused (the card says so, the API answers 401
//!   and 403 with a wrong token); with the token it works and every view agrees;
//! - screenshots at 1280x800 and 390x844 are decoded and must not be blank; with
//!   `DGT_ARBITER_SCREENSHOTS=1` they are saved to `docs/img/`.
//!
//! Browsers: Debian's `chromium` and `chromium-driver` (or `DGT_ARBITER_CHROMIUM` /
//! `DGT_ARBITER_CHROMEDRIVER`). Without them the test says that it skipped, unless
//! `DGT_ARBITER_BROWSER_TESTS=require` (CI), where it fails.

mod common;

use std::collections::{BTreeSet, HashSet};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chess_rules::Color;
use common::{pause, serial, shift, temp_dir};
use dgt_sim::{Action, BoardHandle};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

const TOKEN: &str = "e2e-arbiter-token-0123";
const DESKTOP: (u32, u32) = (1280, 800);
const PHONE: (u32, u32) = (390, 844);

/// The browser and its driver, or why the test cannot run.
fn browser() -> Result<(PathBuf, PathBuf), String> {
    common::chromium_and_driver()
}

/// Kills what the test started (by id; chromedriver with its browsers, as a group).
struct Processes {
    daemon: Option<common::DaemonProcess>,
    driver: Option<Child>,
}

impl Drop for Processes {
    fn drop(&mut self) {
        if let Some(mut d) = self.driver.take() {
            // The shell's own kill: procps-ng 4.0's reads `kill -KILL -PGID` as
            // `kill(-1, SIGKILL)` (every process the user may signal), and refuses
            // `-s KILL -- -PGID` for groups below 100 (as in a pid namespace).
            let _ = Command::new("sh")
                .args(["-c", "kill -s KILL -- -\"$0\""])
                .arg(d.id().to_string())
                .status();
            let _ = d.wait();
        }
        if let Some(mut d) = self.daemon.take() {
            let _ = d.kill();
            let _ = d.wait();
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One HTTP request to the daemon (`Connection: close`): status and JSON body.
fn request(host: &str, method: &str, path: &str, token: Option<&str>) -> (u16, Value) {
    let auth = token
        .map(|t| format!("X-Arbiter-Token: {t}\r\n"))
        .unwrap_or_default();
    common::http_json(host, method, path, &auth, "")
}

/// Polls `what` every 50 ms for up to `limit`.
fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        pause(50);
    }
}

/// The board's plies as the dashboard's state says.
fn plies(host: &str, board: usize) -> u64 {
    request(host, "GET", "/api/state", Some(TOKEN)).1["boards"][board - 1]["ply"]
        .as_u64()
        .unwrap_or(0)
}

/// One move by hand, completed by the mover's press; waits until the daemon has it.
fn play(h: &BoardHandle, host: &str, color: Color, uci: &str, fen_piece: char) {
    let before = plies(host, 1);
    shift(h, uci, fen_piece);
    h.apply(Action::PressClock(color));
    wait_until(Duration::from_secs(5), &format!("the move {uci}"), || {
        plies(host, 1) > before
    });
}

/// Sets the page's viewport (not the window) to `w` x `h`.
async fn viewport(c: &Client, (w, h): (u32, u32)) {
    c.set_window_size(w, h).await.unwrap();
    let inner = c
        .execute("return [window.innerWidth, window.innerHeight];", vec![])
        .await
        .unwrap();
    let (iw, ih) = (
        inner[0].as_u64().unwrap() as u32,
        inner[1].as_u64().unwrap() as u32,
    );
    if (iw, ih) != (w, h) {
        c.set_window_size(w + w.saturating_sub(iw), h + h.saturating_sub(ih))
            .await
            .unwrap();
    }
}

/// A screenshot that must show a page: the right size and many distinct colours.
async fn screenshot(c: &Client, size: (u32, u32), name: &str) {
    let png = c.screenshot().await.unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(&png));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(
        (info.width, info.height),
        size,
        "{name}: the viewport's size"
    );
    let bpp = info.color_type.samples();
    let colours: HashSet<&[u8]> = buf[..info.buffer_size()].chunks(bpp).collect();
    assert!(
        colours.len() > 200,
        "{name}: only {} distinct colours: a blank page?",
        colours.len()
    );
    if std::env::var_os("DGT_ARBITER_SCREENSHOTS").is_some() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), &png).unwrap();
        eprintln!("saved docs/img/{name}.png");
    }
}

/// The `data-square`s of the elements matching `css`.
/// Clicks the first element matching `css` from inside the page, waiting up to 5 s for
/// one. Why not `find` then `click`: the board's panel is made again at every change
/// pushed to the page, and an element found just before a change is stale by the click.
async fn click_in_page(c: &Client, css: &str) {
    let script = "const e = document.querySelector(arguments[0]); if (e) { e.click(); return true; } return false;";
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let clicked = c
            .execute(script, vec![json!(css)])
            .await
            .expect("the click script runs");
        if clicked == Value::Bool(true) {
            return;
        }
        assert!(Instant::now() < deadline, "no {css} to click within 5 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn squares(c: &Client, css: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in c.find_all(Locator::Css(css)).await.unwrap() {
        out.insert(e.attr("data-square").await.unwrap().unwrap_or_default());
    }
    out
}

const CARD: &str = ".alert-card[data-kind=\"illegal_move\"]";

/// A chromedriver session with a headless Chromium of its own profile; `accept_lang`
/// sets the languages it asks web pages for (its `Accept-Language`).
async fn session(port: u16, chromium: &Path, profile: &Path, accept_lang: Option<&str>) -> Client {
    let mut args = vec![
        "--headless=new".to_owned(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-quic".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--disable-dev-shm-usage".into(),
        "--hide-scrollbars".into(),
        format!("--user-data-dir={}", profile.display()),
        format!("--window-size={},{}", DESKTOP.0, DESKTOP.1),
    ];
    if let Some(langs) = accept_lang {
        args.push(format!("--accept-lang={langs}"));
    }
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": chromium, "args": args }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a chromedriver session")
}

/// `/api/messages` and the routes with words, over plain HTTP.
fn languages(host: &str) {
    let asked = |accept: &str, path: &str| {
        common::http_json(
            host,
            "GET",
            path,
            &format!("Accept-Language: {accept}\r\n"),
            "",
        )
    };
    let (status, ru) = asked("ru-RU,ru;q=0.9,en-US;q=0.8", "/api/messages");
    assert_eq!(status, 200, "{ru}");
    assert_eq!(
        (&ru["language"], &ru["chosen_by"]),
        (&json!("ru"), &json!("accept-language"))
    );
    assert_eq!(ru["messages"]["dash-alerts"], "Замечания");
    let (_, en) = asked("en-GB,en;q=0.9,ru;q=0.5", "/api/messages");
    assert_eq!(en["language"], "en");
    assert_eq!(en["messages"]["dash-alerts"], "Alerts");
    // ?lang= outranks the browser; a language we do not speak falls back to the event's.
    let (_, asked_ru) = asked("en", "/api/messages?lang=ru");
    assert_eq!(asked_ru["language"], "ru");
    let (_, german) = asked("de-DE,de", "/api/messages");
    assert_eq!(
        (&german["language"], &german["chosen_by"]),
        (&json!("en"), &json!("event"))
    );
    // A bad lang is a 400 that names the languages, on every route that takes one.
    for path in [
        "/api/messages?lang=xx",
        "/api/state?lang=xx",
        "/api/boards/1/history?lang=%FF",
    ] {
        let (status, body) = request(host, "GET", path, Some(TOKEN));
        assert_eq!(status, 400, "{path}: {body}");
        assert!(
            body["error"].as_str().unwrap_or("").contains("en, ru"),
            "{path}: {body}"
        );
    }
    // The alerts in Russian when asked; in English as always without it.
    let illegal = |path: &str| {
        let (_, s) = request(host, "GET", path, Some(TOKEN));
        s["alerts"]
            .as_array()
            .and_then(|a| a.iter().find(|a| a["kind"] == "illegal_move").cloned())
            .unwrap_or(Value::Null)
    };
    let ru = illegal("/api/state?lang=ru");
    assert_eq!(ru["title"], "Невозможный ход", "{ru}");
    assert_eq!(ru["details"]["attempt"], "Сf1-f3", "{ru}");
    let en = illegal("/api/state");
    assert_eq!(en["title"], "Illegal move", "{en}");
    assert_eq!(en["details"]["attempt"], "Bf1-f3", "{en}");
    // Machine fields do not change with the language.
    assert_eq!((&ru["kind"], &ru["event"]), (&en["kind"], &en["event"]));
}

/// Cyrillic letters in a text.
fn cyrillic(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| ('\u{400}'..='\u{4FF}').contains(c))
        .collect()
}

/// The page's words, but for the language selector (whose options name each language in
/// itself).
/// The text of the first element `css` finds.
async fn text_of(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

async fn page_words(c: &Client) -> String {
    let script = "const b = document.body.cloneNode(true); b.querySelector('#language').remove(); \
                  return document.title + ' ' + b.textContent;";
    c.execute(script, vec![])
        .await
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Waits for the page's `<html lang>` and its alerts title to say the language.
async fn wait_for_language(c: &Client, lang: &str, alerts_title: &str) {
    c.wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::XPath(&format!(
            "/html[@lang='{lang}']//h2[@id='alerts-title']/span[.='{alerts_title}']"
        )))
        .await
        .unwrap_or_else(|e| panic!("the page in {lang}: {e}"));
    c.wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(CARD))
        .await
        .expect("the illegal-move card");
}

/// `?lang=ru`: labels, the card, the tiles and the claim in Russian; on a phone it fits.
async fn in_russian(c: &Client, url: &str) {
    c.goto(&format!("{url}?lang=ru")).await.unwrap();
    wait_for_language(c, "ru", "Замечания").await;
    c.wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#live.on"))
        .await
        .expect("the event stream is live");
    let card = text_of(c, CARD).await;
    for want in [
        "Невозможный ход",
        "Нарушитель",
        "Белые (Carlsen, Anna)",
        "фигура пошла не по правилам: Сf1-f3",
        "1-й невозможный ход белых",
        "снять белого слона с f3",
        "поставить белого слона на f1",
        "фигура на f1 («тронул — ходи»)",
        "добавить сопернику (чёрным) 1:00",
        "Принять",
    ] {
        assert!(
            card.contains(want),
            "{want:?} not in the Russian card:\n{card}"
        );
    }
    let words = page_words(c).await;
    for want in [
        "Доски",
        "Доска 1",
        "Можно потребовать ничью",
        "троекратное повторение",
        "на связи",
        // The tile's last move with the Russian knight.
        "5... Кg8",
    ] {
        assert!(
            words.contains(want),
            "{want:?} not on the Russian page:\n{words}"
        );
    }
    for english in [
        "Illegal move",
        "Acknowledge",
        "Boards",
        "Claimable",
        "to move",
        "Offender",
    ] {
        assert!(
            !words.contains(english),
            "{english:?} on the Russian page:\n{words}"
        );
    }
    screenshot(c, DESKTOP, "dashboard-ru").await;
    // The longer Russian words still fit a phone: nothing wider than the screen, the
    // alert first.
    viewport(c, PHONE).await;
    let widths = c
        .execute(
            "return [document.documentElement.scrollWidth, window.innerWidth, \
             document.querySelector(arguments[0]).getBoundingClientRect().top];",
            vec![json!(CARD)],
        )
        .await
        .unwrap();
    let (scroll, inner) = (widths[0].as_f64().unwrap(), widths[1].as_f64().unwrap());
    assert!(
        scroll <= inner,
        "the Russian page is {scroll}px wide on a {inner}px phone"
    );
    assert!(
        widths[2].as_f64().unwrap() < f64::from(PHONE.1),
        "card at {}",
        widths[2]
    );
    screenshot(c, PHONE, "dashboard-ru-phone").await;
    viewport(c, DESKTOP).await;
}

/// The selector: English picked is shown at once, with no Cyrillic but the selector's
/// own option; Russian picked is kept for the next visit without ?lang=.
async fn the_selector_switches_and_is_remembered(c: &Client, url: &str) {
    let pick = |lang: &'static str| async move {
        c.find(Locator::Id("language"))
            .await
            .unwrap()
            .select_by_value(lang)
            .await
            .unwrap();
    };
    pick("en").await;
    wait_for_language(c, "en", "Alerts").await;
    let words = page_words(c).await;
    assert!(
        cyrillic(&words).is_empty(),
        "Cyrillic on the English page:\n{words}"
    );
    assert!(words.contains("1st illegal move of White"), "{words}");
    pick("ru").await;
    wait_for_language(c, "ru", "Замечания").await;
    // A new visit without ?lang= (the browser asks for English): still Russian.
    c.goto(url).await.unwrap();
    wait_for_language(c, "ru", "Замечания").await;
    // And back to English for the rest of the test.
    pick("en").await;
    wait_for_language(c, "en", "Alerts").await;
    // A kept code the daemon does not speak: the browser's language, and it is forgotten.
    c.execute("localStorage.setItem('arbiterLanguage', 'xx');", vec![])
        .await
        .unwrap();
    c.goto(url).await.unwrap();
    wait_for_language(c, "en", "Alerts").await;
    let kept = c
        .execute("return localStorage.getItem('arbiterLanguage');", vec![])
        .await
        .unwrap();
    assert_eq!(kept, Value::Null);
    c.wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#live.on"))
        .await
        .expect("the event stream is live");
}

#[test]
fn the_dashboard_in_a_real_browser() {
    let (chromium, chromedriver) = match browser() {
        Ok(b) => b,
        Err(why) => {
            let required = std::env::var("DGT_ARBITER_BROWSER_TESTS").as_deref() == Ok("require");
            assert!(!required, "DGT_ARBITER_BROWSER_TESTS=require, but {why}");
            eprintln!("SKIPPED the browser test: {why}");
            return;
        }
    };
    let _guard = serial();
    let dir = temp_dir("dashboard");

    // Two emulated boards in real time: the test plays on board 1; board 2's cable goes.
    let (_hub, boards) = common::hand_boards(2);
    let mut text = format!(
        "[event]\nname = \"Club blitz\"\nsite = \"Hall\"\nround = 3\ntime_control = \"300+3\"\n\
         [output]\ndir = \"out\"\n[http]\nbind = \"127.0.0.1:0\"\ntoken = \"{TOKEN}\"\n\
         public_dashboard = true\n[timing]\nsettle_window_ms = 100\ntwo_handed_window_ms = 40\n"
    );
    for (i, (h, (w, b))) in boards
        .iter()
        .zip([
            ("Carlsen, Anna", "Nakamura, Ben"),
            ("Lee, Chris", "Diaz, Dana"),
        ])
        .enumerate()
    {
        text.push_str(&format!(
            "[[board]]\nnumber = {}\nport = \"{}\"\nwhite = \"{w}\"\nblack = \"{b}\"\nwhite_clock = \"left\"\n",
            i + 1,
            h.pty_path().unwrap().display()
        ));
    }
    let config = dir.join("arbiter.toml");
    std::fs::write(&config, text).unwrap();
    let mut procs = Processes {
        daemon: Some(common::start(&config)),
        driver: None,
    };
    let out = dir.join("out");
    wait_until(Duration::from_secs(20), "the HTTP address", || {
        out.join("http-address").exists()
    });
    let host = common::http_host(&out);
    let url = format!("http://{host}/");
    wait_until(Duration::from_secs(20), "both boards connected", || {
        let (_, s) = request(&host, "GET", "/api/state", Some(TOKEN));
        s["boards"]
            .as_array()
            .is_some_and(|b| b.iter().all(|b| b["connected"] == true))
    });

    // chromedriver in its own process group, so its browser goes with it.
    let port = free_port();
    let log = std::fs::File::create(dir.join("chromedriver.log")).unwrap();
    let driver = {
        use std::os::unix::process::CommandExt;
        Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap()
    };
    procs.driver = Some(driver);
    wait_until(Duration::from_secs(20), "chromedriver listening", || {
        TcpStream::connect(("127.0.0.1", port)).is_ok()
    });

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let profile = dir.join("chromium-profile");
    let c = rt.block_on(async {
        let c = session(port, &chromium, &profile, None).await;
        viewport(&c, DESKTOP).await;
        c.goto(&url).await.unwrap();
        // The page lists the boards and is live.
        for b in ["1", "2"] {
            c.wait()
                .at_most(Duration::from_secs(10))
                .for_element(Locator::Css(&format!(".board-tile[data-board=\"{b}\"]")))
                .await
                .unwrap();
        }
        c.wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css("#live.on"))
            .await
            .expect("the event stream is live");
        let tile = text_of(&c, ".board-tile[data-board=\"1\"]").await;
        assert!(tile.contains("Carlsen, Anna"), "{tile}");
        c
    });

    // Board 2's cable is pulled: its tile goes offline and a card says so.
    boards[1].apply(Action::BoardCable { plugged: false });
    rt.block_on(async {
        c.wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(".board-tile[data-board=\"2\"].status-offline"))
            .await
            .expect("board 2 offline");
        c.wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(".alert-card[data-kind=\"board_status\"]"))
            .await
            .expect("a disconnection card");
    });

    // 1. e4 e5 2. Nf3 Nf6 3. Ng1 Ng8 4. Nf3 Nf6 5. Ng1 Ng8: White may claim threefold.
    let b1 = &boards[0];
    b1.apply(Action::PressClock(Color::Black)); // starts White's time
    pause(150);
    let white = Color::White;
    let black = Color::Black;
    play(b1, &host, white, "e2e4", 'P');
    play(b1, &host, black, "e7e5", 'p');
    for _ in 0..2 {
        play(b1, &host, white, "g1f3", 'N');
        play(b1, &host, black, "g8f6", 'n');
        play(b1, &host, white, "f3g1", 'N');
        play(b1, &host, black, "f6g8", 'n');
    }
    rt.block_on(async {
        let claim = c
            .wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(".claim[data-board=\"1\"]"))
            .await
            .expect("the claimable draw");
        let text = claim.text().await.unwrap();
        assert!(text.contains("threefold"), "{text}");
    });

    // The illegal move: the bishop f1-f3 through its own pawn, pressed.
    shift(b1, "f1f3", 'B');
    let pressed = Instant::now();
    b1.apply(Action::PressClock(white));
    let seen = rt.block_on(async {
        loop {
            if !c.find_all(Locator::Css(CARD)).await.unwrap().is_empty() {
                return pressed.elapsed();
            }
            assert!(
                pressed.elapsed() < Duration::from_secs(10),
                "no illegal-move card"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    assert!(
        seen <= Duration::from_secs(1),
        "the card showed {seen:?} after the press (the settle window is 100 ms)"
    );
    eprintln!("the illegal-move card showed {seen:?} after the press");

    rt.block_on(async {
        let marked = squares(&c, &format!("{CARD} .square.hl")).await;
        assert_eq!(marked, BTreeSet::from(["f1".into(), "f3".into()]));
        assert_eq!(
            squares(&c, &format!("{CARD} .square.hl-remove")).await,
            BTreeSet::from(["f3".into()])
        );
        assert_eq!(
            squares(&c, &format!("{CARD} .square.hl-put")).await,
            BTreeSet::from(["f1".into()])
        );
        assert_eq!(
            squares(&c, &format!("{CARD} .square.hl-must")).await,
            BTreeSet::from(["f1".into()])
        );
        let text = text_of(&c, CARD).await;
        for want in [
            "Illegal move",
            "White (Carlsen, Anna)",
            "piece moved against its rules",
            "1st illegal move of White",
            "take the white bishop off f3",
            "put a white bishop on f1",
            "the piece on f1 (touch-move)",
            "add 1:00 to Black",
        ] {
            assert!(text.contains(want), "{want:?} not in the card:\n{text}");
        }
        // The card's diagram is the position to reinstate: the bishop back on f1.
        let f1 = text_of(&c, &format!("{CARD} .square[data-square=\"f1\"]")).await;
        assert!(f1.contains('\u{265D}'), "f1 shows {f1:?}");

        screenshot(&c, DESKTOP, "dashboard-desktop").await;
        viewport(&c, PHONE).await;
        // The alert comes first on a phone.
        let top = c
            .execute(
                "return document.querySelector(arguments[0]).getBoundingClientRect().top;",
                vec![json!(CARD)],
            )
            .await
            .unwrap();
        assert!(top.as_f64().unwrap() < f64::from(PHONE.1), "card at {top}");
        screenshot(&c, PHONE, "dashboard-phone").await;
        viewport(&c, DESKTOP).await;
    });

    // The arbiter's language (issue 41): the catalogue follows Accept-Language and ?lang=,
    // the alerts come said in the language asked for, English stays without it.
    languages(&host);
    rt.block_on(async {
        in_russian(&c, &url).await;
        the_selector_switches_and_is_remembered(&c, &url).await;
        // A browser whose first language is Russian gets the page in Russian unasked.
        let ru = session(port, &chromium, &dir.join("chromium-ru"), Some("ru-RU,ru")).await;
        ru.goto(&url).await.unwrap();
        wait_for_language(&ru, "ru", "Замечания").await;
        let card = ru
            .find(Locator::Css(CARD))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(card.contains("Невозможный ход"), "{card}");
        ru.close().await.unwrap();
    });

    // Acknowledging without the token is refused, and says why.
    let id = request(&host, "GET", "/api/state", None).1["alerts"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    rt.block_on(async {
        c.find(Locator::Css(&format!("{CARD} .act-ack")))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let err = c
            .wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(&format!("{CARD} .card-error")))
            .await
            .expect("the refusal on the card")
            .text()
            .await
            .unwrap();
        assert!(err.contains("401") && err.contains("token"), "{err}");
        let state = c
            .find(Locator::Css(CARD))
            .await
            .unwrap()
            .attr("data-state")
            .await
            .unwrap();
        assert_eq!(state.as_deref(), Some("open"));
    });
    let (status, body) = request(&host, "POST", &format!("/api/alerts/{id}/ack"), None);
    assert_eq!(status, 401, "{body}");
    let (status, body) = request(
        &host,
        "POST",
        &format!("/api/alerts/{id}/ack"),
        Some("not-the-token-at-all"),
    );
    assert_eq!(status, 403, "{body}");
    assert!(body["error"].as_str().unwrap().contains("wrong"));

    // With the token it works, and a fresh load shows the same state.
    rt.block_on(async {
        let field = c.find(Locator::Id("token")).await.unwrap();
        field.send_keys(TOKEN).await.unwrap();
        c.find(Locator::Id("token-use"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        c.wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::XPath(
                "//*[@id='token-status' and contains(., 'token accepted')]",
            ))
            .await
            .expect("the token accepted");
        c.wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(&format!("{CARD} .act-ack")))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        c.wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(&format!(
                "{CARD}[data-state=\"acknowledged\"]"
            )))
            .await
            .expect("the card acknowledged");
        c.refresh().await.unwrap();
        c.wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(&format!(
                "{CARD}[data-state=\"acknowledged\"]"
            )))
            .await
            .expect("still acknowledged after a reload");
        // Issue 40: the card's evidence button fetches the pack of its ply with the
        // token (200, a .tar) and saves it; the card says what it saved.
        c.wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(&format!("{CARD} .act-evidence")))
            .await
            .expect("the evidence button on the card")
            .click()
            .await
            .unwrap();
        let saved = c
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(&format!("{CARD} .evidence-saved")))
            .await
            .expect("the evidence pack saved")
            .text()
            .await
            .unwrap();
        assert!(
            saved.contains("board-1-ply-") && saved.contains("-evidence.tar"),
            "{saved}"
        );
    });
    let log = std::fs::read_to_string(config.with_extension("log")).unwrap_or_default();
    assert!(
        log.contains("evidence pack downloaded"),
        "the daemon did not answer the pack"
    );
    let (_, state) = request(&host, "GET", "/api/state", None);
    let alert = state["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id.as_str())
        .unwrap();
    assert_eq!(alert["state"], "acknowledged");

    // Art. 7.4 / 12.9: the arbiter pauses the clock, puts the bishop back on f1 and hands
    // the move back to White; then 6. Bc4 (the bishop binds, touch-move) knocking the c2
    // pawn off the board: a displaced card, nothing applied; the arbiter clicks "Warn".
    b1.apply(Action::PauseClock);
    pause(100);
    shift(b1, "f3f1", 'B');
    b1.apply(Action::PressClock(black));
    pause(100);
    b1.apply(Action::PauseClock);
    pause(300);
    b1.apply(Action::Lift(common::sq("f1")));
    pause(80);
    b1.apply(Action::Lift(common::sq("c2")));
    pause(80);
    b1.apply(Action::Place(common::sq("c4"), common::piece('B')));
    pause(150);
    b1.apply(Action::PressClock(white));
    const DISPLACED: &str = ".alert-card[data-kind=\"displaced\"]";
    rt.block_on(async {
        c.wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(&format!("{DISPLACED} .act-warn")))
            .await
            .expect("the displaced card with its penalty buttons")
            .click()
            .await
            .unwrap();
        c.wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(&format!(
                "{DISPLACED}[data-state=\"resolved\"]"
            )))
            .await
            .expect("the card settled by the decision");
    });
    let (_, state) = request(&host, "GET", "/api/state", None);
    let card = state["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "displaced")
        .unwrap()
        .clone();
    assert!(card["notes"].to_string().contains("warns White"), "{card}");
    // The result by hand, in the board's history: set, then cleared.
    rt.block_on(async {
        // The tiles are made again at every board change: clicked in the page itself.
        c.execute(
            "document.querySelector('.board-tile[data-board=\"1\"]').click();",
            vec![],
        )
        .await
        .unwrap();
        let choice = c
            .wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(".result-panel .result-choice"))
            .await
            .expect("the result panel");
        choice.select_by_value("1/2-1/2").await.unwrap();
        click_in_page(&c, ".result-panel .act-set-result").await;
        c.wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(".result-panel .act-clear-result"))
            .await
            .expect("the arbiter's result shown, with Clear");
    });
    let (_, state) = request(&host, "GET", "/api/state", None);
    assert_eq!(state["boards"][0]["results"]["arbiter"], "1/2-1/2");
    rt.block_on(async {
        click_in_page(&c, ".result-panel .act-clear-result").await;
    });
    wait_until(Duration::from_secs(5), "the result cleared", || {
        request(&host, "GET", "/api/state", None).1["boards"][0]["results"]["arbiter"].is_null()
    });

    // The arbiter's desk in the board's history (issue 40), with the token the page has.
    // The pawn knocked off c2 goes back first: nothing waits for the board.
    b1.apply(Action::Place(common::sq("c2"), common::piece('P')));
    pause(500);
    the_desk_sets_the_clocks_and_takes_the_game_back(&rt, &c, &host, &out);

    rt.block_on(async { c.close().await.unwrap() });
    let mut daemon = procs.daemon.take().unwrap();
    assert!(common::terminate(&mut daemon), "the daemon stopped cleanly");
    let log = std::fs::read_to_string(dir.join("arbiter.log")).unwrap_or_default();
    assert!(!log.contains(TOKEN), "the token is in the daemon's log");
    drop(procs);
    drop(boards);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Sets an input's value as typed (an `input` event follows), from inside the page.
async fn fill(c: &Client, css: &str, value: &str) {
    let script = "const e = document.querySelector(arguments[0]); if (!e) return false; \
                  e.value = arguments[1]; e.dispatchEvent(new Event('input')); return true;";
    let done = c
        .execute(script, vec![json!(css), json!(value)])
        .await
        .expect("the fill script runs");
    assert_eq!(done, Value::Bool(true), "no {css} to fill");
}

/// Waits up to 5 s for the desk's answer, `ok` or a refusal, and returns its text.
async fn desk_answer(c: &Client, ok: bool, containing: &str) -> String {
    let css = format!(
        ".desk-panel .desk-answer[data-ok=\"{}\"]",
        if ok { "yes" } else { "no" }
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok(e) = c.find(Locator::Css(&css)).await {
            let text = e.text().await.unwrap_or_default();
            if text.contains(containing) {
                return text;
            }
        }
        assert!(
            Instant::now() < deadline,
            "no desk answer {css} with {containing:?} within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The desk in board 1's history (the history is open, the page has the token): the
/// clocks set (refused without a reason, the 409 on the desk; then done, and the
/// decision in the events), and the game taken back (refused to a later ply; then cut to
/// ply 4: the state, the history and the desk say so). With `DGT_ARBITER_SCREENSHOTS=1`
/// the desk's screenshot is saved as `docs/img/dashboard-desk.png`.
fn the_desk_sets_the_clocks_and_takes_the_game_back(
    rt: &tokio::runtime::Runtime,
    c: &Client,
    host: &str,
    out: &Path,
) {
    rt.block_on(async {
        c.wait()
            .at_most(Duration::from_secs(5))
            .for_element(Locator::Css(
                ".desk-panel[data-board=\"1\"] .act-set-clocks",
            ))
            .await
            .expect("the desk in the board's history");
        let title = text_of(c, ".desk-panel h2").await;
        // (h2 headings are shown in capitals)
        assert!(
            title.to_lowercase().contains("the arbiter's desk"),
            "{title}"
        );
        // Art. 6.10: the times, but no reason: the daemon's 409 on the desk.
        fill(c, ".desk-clock-white", "4:30").await;
        fill(c, ".desk-clock-black", "0:04:45").await;
        click_in_page(c, ".desk-panel .act-set-clocks").await;
        let refused = desk_answer(c, false, "409").await;
        assert!(refused.contains("reason"), "{refused}");
        // A time that is no time is said on the desk, nothing sent.
        fill(c, ".desk-clock-white", "4.30").await;
        click_in_page(c, ".desk-panel .act-set-clocks").await;
        let bad = desk_answer(c, false, "h:mm:ss").await;
        assert!(bad.contains("4.30"), "{bad}");
        fill(c, ".desk-clock-white", "4:30").await;
        fill(
            c,
            ".desk-clock-reason",
            "the clock was set wrong (art. 6.10.2)",
        )
        .await;
        click_in_page(c, ".desk-panel .act-set-clocks").await;
        desk_answer(c, true, "Clocks set: White 4:30, Black 4:45").await;
    });
    // The decision is the daemon's: a clock_set with the times and the reason.
    let (_, history) = request(host, "GET", "/api/boards/1/history", Some(TOKEN));
    let before = history["moves"].as_array().unwrap().len();
    assert!(before > 6, "{history}");
    wait_until(Duration::from_secs(5), "the clock_set decision", || {
        common::events(out).iter().any(|e| {
            e["decision"] == "clock_set"
                && e["clock_after"]["white"] == 270_000
                && e["clock_after"]["black"] == 285_000
                && e["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("art. 6.10.2"))
        })
    });

    // Art. 7.5.1: a later ply is refused (409 on the desk); ply 4 is done.
    rt.block_on(async {
        fill(c, ".desk-ply", &(before + 5).to_string()).await;
        fill(
            c,
            ".desk-takeback-reason",
            "illegal move at ply 5 found later (art. 7.5.1)",
        )
        .await;
        click_in_page(c, ".desk-panel .act-takeback").await;
        desk_answer(c, false, "409").await;
        fill(c, ".desk-ply", "4").await;
        let label = text_of(c, ".desk-panel .act-takeback").await;
        assert_eq!(label, "Take back to ply 4");
        click_in_page(c, ".desk-panel .act-takeback").await;
        desk_answer(c, true, "Taken back to ply 4").await;
    });
    wait_until(Duration::from_secs(5), "the record cut to ply 4", || {
        let (_, h) = request(host, "GET", "/api/boards/1/history", Some(TOKEN));
        h["moves"].as_array().is_some_and(|m| m.len() == 4) && plies(host, 1) == 4
    });
    rt.block_on(async {
        // The history shows the cut record, the desk its answer still.
        let deadline = Instant::now() + Duration::from_secs(5);
        while c
            .find_all(Locator::Css("#history .history-table tbody tr[data-ply]"))
            .await
            .unwrap()
            .len()
            != 4
        {
            assert!(Instant::now() < deadline, "the history not cut to 4 moves");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let answer = text_of(c, ".desk-panel .desk-answer").await;
        assert!(answer.contains("Taken back to ply 4"), "{answer}");
        c.execute(
            "document.querySelector('.desk-panel').scrollIntoView({block: 'center'});",
            vec![],
        )
        .await
        .unwrap();
        screenshot(c, DESKTOP, "dashboard-desk").await;
    });
}
