//! Validation: every key of the file as written checked and turned into a [`Config`],
//! each mistake one [`ConfigError::Invalid`] naming the file, line and column.

use super::raw::*;
use super::*;

pub(crate) struct Validate<'a> {
    pub(crate) path: &'a Path,
    pub(crate) text: &'a str,
    /// The mistakes found so far: validation goes on past a mistake (with a stand-in
    /// value) so that one run reports them all.
    pub(crate) mistakes: RefCell<Vec<ConfigError>>,
}

impl Validate<'_> {
    fn err(&self, span: Range<usize>, message: impl Into<String>) -> ConfigError {
        invalid(self.path, self.text, span.start, message.into())
    }

    /// Notes a mistake and goes on.
    fn note(&self, mistake: ConfigError) {
        self.mistakes.borrow_mut().push(mistake);
    }

    /// `r`'s value, or `None` with its mistake noted.
    fn keep<T>(&self, r: Result<T, ConfigError>) -> Option<T> {
        r.map_err(|e| self.note(e)).ok()
    }

    /// The error to return once mistakes are noted ([`Validate::finish`] puts it back
    /// among the others).
    pub(crate) fn stop(&self) -> ConfigError {
        self.mistakes
            .borrow_mut()
            .pop()
            .unwrap_or_else(|| invalid(self.path, self.text, 0, "the config is not usable".into()))
    }

    /// The config, or every mistake noted (and `result`'s own), in the file's order,
    /// one per place.
    pub(crate) fn finish(
        &self,
        result: Result<Config, ConfigError>,
    ) -> Result<Config, ConfigError> {
        let mut mistakes = self.mistakes.take();
        match result {
            Ok(config) if mistakes.is_empty() => return Ok(config),
            Ok(_) => {}
            Err(e) => mistakes.push(e),
        }
        let place = |e: &ConfigError| match e {
            ConfigError::Invalid { line, column, .. } => (*line, *column),
            _ => (0, 0),
        };
        mistakes.sort_by_key(place);
        mistakes.dedup_by(|a, b| place(a) == place(b));
        mistakes.truncate(MAX_MISTAKES);
        if mistakes.len() == 1 {
            return Err(mistakes.remove(0));
        }
        Err(ConfigError::Several {
            path: self.path.to_owned(),
            mistakes,
        })
    }

    /// A text that goes into PGN tags, paths or logs must be one line of printable text:
    /// a newline in a player's name would split a PGN tag in two.
    fn one_line(&self, s: &Spanned<String>, key: &str) -> Result<(), ConfigError> {
        match s
            .get_ref()
            .chars()
            .enumerate()
            .find(|(_, c)| c.is_control())
        {
            None => Ok(()),
            Some((i, c)) => Err(self.err(
                s.span(),
                format!(
                    "{key} holds a control character (U+{:04X}) at character {}; expected \
                     one line of printable text",
                    c as u32,
                    i + 1
                ),
            )),
        }
    }

    /// Every text field of the file, checked with [`Validate::one_line`].
    fn text_fields(&self, raw: &RawConfig) {
        let e = &raw.event;
        self.keep(self.one_line(&e.name, "event.name"));
        for (v, key) in [
            (&e.site, "event.site"),
            (&e.date, "event.date"),
            (&e.category, "event.category"),
            (&e.supervision, "event.supervision"),
            (&e.language, "event.language"),
            (&raw.penalties.two_handed, "penalties.two_handed"),
            (&raw.http.bind, "http.bind"),
            (&raw.http.tls_cert, "http.tls_cert"),
            (&raw.http.tls_key, "http.tls_key"),
        ] {
            if let Some(v) = v {
                self.keep(self.one_line(v, key));
            }
        }
        self.keep(self.one_line(&e.time_control, "event.time_control"));
        self.keep(self.one_line(&raw.output.dir, "output.dir"));
        for n in raw.http.names.iter().flatten() {
            self.keep(self.one_line(n, "http.names"));
        }
        for b in &raw.boards {
            let b = b.get_ref();
            for (v, key) in [
                (&b.port, "board.port"),
                (&b.serial, "board.serial"),
                (&b.white, "board.white"),
                (&b.black, "board.black"),
                (&b.white_clock, "board.white_clock"),
            ] {
                if let Some(v) = v {
                    self.keep(self.one_line(v, key));
                }
            }
        }
    }

    pub(crate) fn config(&self, raw: RawConfig) -> Result<Config, ConfigError> {
        self.text_fields(&raw);
        let e = &raw.event;
        let name = e.name.get_ref().trim();
        if name.is_empty() {
            self.note(self.err(
                e.name.span(),
                "event.name is empty; expected the event's name",
            ));
        }
        let round = self
            .keep(self.in_range(&e.round, "event.round", 1, 999, ""))
            .unwrap_or(1);
        let date = self.event_date(e);
        let time_control = self.keep(self.time_control(&e.time_control, "event.time_control"));
        let category = self.category(e, time_control);
        // A stand-in for a time control already reported as a mistake.
        let time_control = time_control.unwrap_or(TimeControl::sudden_death(180, 2));
        let supervision = match &e.supervision {
            Some(s) => s.get_ref().parse::<Supervision>().unwrap_or_else(|_| {
                self.note(self.err(
                    s.span(),
                    format!(
                        "event.supervision {:?} is unknown; expected full (an arbiter watches \
                         the boards) or partial (club play without enough arbiters)",
                        s.get_ref()
                    ),
                ));
                Supervision::Full
            }),
            None => Supervision::Full,
        };
        let language = match &e.language {
            Some(s) => s.get_ref().parse::<Language>().unwrap_or_else(|err| {
                self.note(self.err(s.span(), format!("event.language: {err}")));
                Language::default()
            }),
            None => Language::default(),
        };
        let p = &raw.penalties;
        let (penalty_ms, penalise_two_handed) = self.penalties(p, category);
        let dir = self.output_dir(&raw.output);
        let bind = self.http_bind(&raw.http);
        let livechess_api = match &raw.livechess_api {
            None => None,
            Some(l) => Some(LiveChessApiConfig {
                bind: match &l.bind {
                    Some(b) => b.get_ref().parse::<SocketAddr>().map_err(|_| {
                        self.err(
                            b.span(),
                            format!(
                                "livechess_api.bind {:?} is not an address; expected IP:PORT \
                                 such as 127.0.0.1:1982",
                                b.get_ref()
                            ),
                        )
                    })?,
                    None => SocketAddr::from(([127, 0, 0, 1], 1982)),
                },
            }),
        };
        let timing = self.timing(&raw.timing);
        let token = self.token(&raw.http);
        let http_enabled = raw.http.enabled.unwrap_or(true);
        let names = self.host_names(&raw.http);
        let tls = self.tls_files(&raw.http, http_enabled);
        let start = self.event_start(e);
        let (mut boards, missing_ports) = self.boards(&raw.boards, start.is_chess960());
        if let Some(n) = &raw.network {
            self.network(n);
        }
        let trf = match &e.trf {
            Some(t) => self.keep(self.trf_players(
                t,
                round as u32,
                (time_control, &e.time_control),
                &raw.boards,
                &mut boards,
            )),
            None => None,
        };
        let broadcast = match &raw.broadcast {
            Some(b) => BroadcastConfig {
                published: true,
                ..self.broadcast(b)
            },
            None => BroadcastConfig::default(),
        };
        let runtime = RuntimeConfig {
            async_threads: raw
                .runtime
                .async_threads
                .as_ref()
                .and_then(|v| self.keep(self.in_range(v, "runtime.async_threads", 1, 64, "")))
                .map_or(RuntimeConfig::default().async_threads, |n| n as usize),
        };
        self.unattended_periods(time_control, &e.time_control, &raw.boards, &boards);
        if !self.mistakes.borrow().is_empty() {
            return Err(self.stop());
        }
        Ok(Config {
            path: self.path.to_owned(),
            event: EventInfo {
                name: name.to_owned(),
                site: e
                    .site
                    .as_ref()
                    .map_or_else(|| "?".into(), |s| s.get_ref().clone()),
                date,
                round: round as u32,
                language,
            },
            time_control,
            start,
            category,
            category_given: e.category.is_some(),
            supervision,
            penalty_ms,
            penalty_given: p.first_illegal_secs.is_some(),
            remove_offender_increment: p.remove_offender_increment.unwrap_or(true),
            penalise_two_handed,
            output: OutputConfig {
                dir,
                events_stdout: raw.output.events_stdout,
            },
            http: HttpConfig {
                enabled: http_enabled,
                bind,
                token,
                public_dashboard: raw.http.public_dashboard.unwrap_or(false),
                names,
                tls,
            },
            timing,
            runtime,
            broadcast,
            livechess_api,
            boards,
            trf,
            missing_ports,
            network: raw.network.map(Spanned::into_inner),
        })
    }

    /// `output.dir`, relative to the config file's folder.
    fn output_dir(&self, output: &RawOutput) -> PathBuf {
        let dir = output.dir.get_ref().trim();
        if dir.is_empty() {
            self.note(self.err(
                output.dir.span(),
                "output.dir is empty; expected the folder for journal, events, PGN and LiveChess files",
            ));
        }
        let dir = PathBuf::from(dir);
        if dir.is_relative() {
            self.path.parent().unwrap_or(Path::new(".")).join(dir)
        } else {
            dir
        }
    }

    /// `http.bind`, or this machine's port 8080.
    fn http_bind(&self, http: &RawHttp) -> SocketAddr {
        let default_bind = SocketAddr::from(([127, 0, 0, 1], 8080));
        match &http.bind {
            Some(b) => b.get_ref().parse::<SocketAddr>().unwrap_or_else(|_| {
                self.note(self.err(
                    b.span(),
                    format!(
                        "http.bind {:?} is not an address; expected IP:PORT such as \
                         127.0.0.1:8080 (or [::1]:8080)",
                        b.get_ref()
                    ),
                ));
                default_bind
            }),
            None => default_bind,
        }
    }

    /// `http.token`, when the file sets one.
    fn token(&self, http: &RawHttp) -> Option<ArbiterToken> {
        match &http.token {
            None => None,
            Some(t) => self.keep(ArbiterToken::new(t.get_ref()).map_err(|e| {
                self.err(
                    t.span(),
                    format!(
                        "http.token is not usable: {e}; expected 16 to 200 printable ASCII \
                         characters without spaces (or leave it out: the daemon then makes \
                         one and keeps it in the output folder's arbiter-token file)"
                    ),
                )
            })),
        }
    }

    /// `event.date`, or today.
    fn event_date(&self, e: &RawEvent) -> String {
        match &e.date {
            Some(d) => parse_date(d.get_ref()).unwrap_or_else(|| {
                self.note(self.err(
                    d.span(),
                    format!(
                        "event.date {:?} is not a date; expected YYYY-MM-DD (or YYYY.MM.DD)",
                        d.get_ref()
                    ),
                ));
                today()
            }),
            None => today(),
        }
    }

    /// `event.category`, or the one the time control gives (art. A.1, B.1: blitz up to
    /// 10 minutes, rapid under 60).
    fn category(&self, e: &RawEvent, time_control: Option<TimeControl>) -> TimeCategory {
        match &e.category {
            Some(c) => match c.get_ref().as_str() {
                "blitz" => TimeCategory::Blitz,
                "rapid" => TimeCategory::Rapid,
                "standard" => TimeCategory::Standard,
                other => {
                    let hint = time_control.map_or_else(String::new, |tc| {
                        format!(" (or leave it out: {tc} is {})", TimeCategory::of(tc))
                    });
                    self.note(self.err(
                        c.span(),
                        format!(
                            "event.category {other:?} is not a FIDE category; expected blitz, \
                             rapid or standard{hint}"
                        ),
                    ));
                    TimeCategory::Blitz
                }
            },
            None => time_control.map_or(TimeCategory::Blitz, TimeCategory::of),
        }
    }

    /// `[penalties]`: the time for a first illegal move (art. 7.5.5; the category's when
    /// not named) and whether a two-handed move is penalised (art. 7.5.4).
    fn penalties(&self, p: &RawPenalties, category: TimeCategory) -> (u64, bool) {
        let penalty_ms = match &p.first_illegal_secs {
            Some(s) => {
                1000 * self
                    .keep(self.in_range(s, "penalties.first_illegal_secs", 1, 600, " seconds"))
                    .unwrap_or(60)
            }
            None => Penalties::default().for_category(category),
        };
        let penalise_two_handed = match &p.two_handed {
            None => false,
            Some(s) => match s.get_ref().as_str() {
                "report" => false,
                "penalise" | "penalize" => true,
                other => {
                    self.note(self.err(
                        s.span(),
                        format!(
                            "penalties.two_handed {other:?} is unknown; expected report (tell \
                             the arbiter) or penalise (rule it like an illegal move)"
                        ),
                    ));
                    false
                }
            },
        };
        (penalty_ms, penalise_two_handed)
    }

    /// `[timing]`, each within its range.
    fn timing(&self, t: &RawTiming) -> Timing {
        let d = Timing::default();
        let ms = |v: &Option<Spanned<i64>>, key: &str, lo: i64, hi: i64, default: u64| {
            self.keep(self.opt_range(v, key, lo, hi))
                .flatten()
                .unwrap_or(default)
        };
        Timing {
            settle_window_ms: ms(
                &t.settle_window_ms,
                "timing.settle_window_ms",
                10,
                5000,
                d.settle_window_ms,
            ),
            two_handed_window_ms: ms(
                &t.two_handed_window_ms,
                "timing.two_handed_window_ms",
                1,
                5000,
                d.two_handed_window_ms,
            ),
            flicker_ms: ms(&t.flicker_ms, "timing.flicker_ms", 1, 1000, d.flicker_ms),
            analysis_budget_ms: ms(
                &t.analysis_budget_ms,
                "timing.analysis_budget_ms",
                10,
                600_000,
                d.analysis_budget_ms,
            ),
            journal_sync_ms: ms(
                &t.journal_sync_ms,
                "timing.journal_sync_ms",
                0,
                10_000,
                d.journal_sync_ms,
            ),
            ruling_text_ms: ms(
                &t.ruling_text_ms,
                "timing.ruling_text_ms",
                0,
                10_000,
                d.ruling_text_ms,
            ),
            time_scale: match &t.time_scale {
                None => d.time_scale,
                Some(v) => {
                    let x = *v.get_ref();
                    if !(0.01..=1000.0).contains(&x) {
                        self.note(self.err(
                            v.span(),
                            format!(
                                "timing.time_scale = {x} is out of range; expected 0.01 to 1000 \
                                 (1 for real boards; an emulated hall's --speed)"
                            ),
                        ));
                    }
                    x
                }
            },
        }
    }

    /// `[network]`: the hall link's settings, and its files readable now.
    fn network(&self, n: &Spanned<hall_network::NetworkConfig>) {
        let net = n.get_ref();
        if let Err(e) = net.check() {
            self.note(self.err(n.span(), e.to_string()));
        }
        // The files the link reads when it connects, opened now: a missing one is a
        // mistake that `run --check` finds, not an exit after the daemon started.
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let files = [
            ("network.password_file", &net.password_file),
            ("network.creds", &net.creds),
            ("network.nkey_seed_file", &net.nkey_seed_file),
            ("network.tls_ca", &net.tls_ca),
        ];
        for (key, file) in files {
            let Some(f) = file else { continue };
            let path = if f.is_absolute() {
                f.clone()
            } else {
                dir.join(f)
            };
            if let Err(e) = std::fs::File::open(&path) {
                self.note(self.err(
                    n.span(),
                    format!("{key}: cannot read {}: {e}", path.display()),
                ));
            }
        }
    }

    /// `[http] names`: host names such as `arbiter.local`.
    fn host_names(&self, http: &RawHttp) -> Vec<String> {
        let mut out = Vec::new();
        for n in http.names.iter().flatten() {
            let name = n.get_ref();
            let ok = !name.is_empty()
                && name.len() <= 253
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
            if !ok {
                self.note(self.err(
                    n.span(),
                    format!(
                        "http.names: {name:?} is not a host name; expected letters, digits, \
                         dots and hyphens, such as \"arbiter.local\""
                    ),
                ));
                continue;
            }
            out.push(name.to_ascii_lowercase());
        }
        out
    }

    /// `[http] tls_cert` and `tls_key`: both or neither, relative to the file's folder.
    /// With HTTP on, the pair is loaded as the server will load it, so that a bad
    /// certificate or key is a mistake `run --check` reports, not a failed start.
    fn tls_files(&self, http: &RawHttp, enabled: bool) -> Option<TlsFiles> {
        let resolve = |s: &Spanned<String>| {
            let p = PathBuf::from(s.get_ref());
            if p.is_relative() {
                self.path.parent().unwrap_or(Path::new(".")).join(p)
            } else {
                p
            }
        };
        match (&http.tls_cert, &http.tls_key) {
            (None, None) => None,
            (Some(c), Some(k)) => {
                let files = TlsFiles {
                    cert: resolve(c),
                    key: resolve(k),
                };
                if enabled {
                    if let Err(e) = crate::tls::server_config(&files) {
                        use crate::tls::TlsError;
                        let (span, key) = match &e {
                            TlsError::Read { path, .. } if *path == files.key => {
                                (k.span(), "http.tls_key")
                            }
                            TlsError::NoKey { .. } => (k.span(), "http.tls_key"),
                            _ => (c.span(), "http.tls_cert"),
                        };
                        self.note(self.err(
                            span,
                            format!(
                                "{key}: {e}; expected a PEM certificate chain (tls_cert) and \
                                 its private key (tls_key); `dgt-arbiter tls-selfsigned` makes \
                                 a pair"
                            ),
                        ));
                    }
                }
                Some(files)
            }
            (Some(s), None) | (None, Some(s)) => {
                self.note(self.err(
                    s.span(),
                    "http.tls_cert and http.tls_key go together; expected both PEM files (\
                     `dgt-arbiter tls-selfsigned` makes a pair) or neither",
                ));
                None
            }
        }
    }

    fn broadcast(&self, raw: &RawBroadcast) -> BroadcastConfig {
        let delay = |d: &Spanned<String>, key: &str| {
            self.keep(
                broadcast_delay::parse_delay(d.get_ref())
                    .map_err(|e| self.err(d.span(), format!("{key}: {e}"))),
            )
        };
        let delay_ms = match &raw.delay {
            Some(d) => delay(d, "broadcast.delay").unwrap_or(0),
            None => 0,
        };
        if delay_ms > 24 * 3_600_000 {
            if let Some(d) = &raw.delay {
                self.note(self.err(
                    d.span(),
                    "broadcast.delay is longer than a day; expected a delay such as \"15m\"",
                ));
            }
        }
        let push = raw.push.as_ref().and_then(|p| self.push(p, delay));
        BroadcastConfig {
            published: false,
            delay_ms,
            results_only: raw.results_only,
            results_off_air: raw.results_off_air,
            push,
        }
    }

    /// `[broadcast.push]`; `None` with its mistakes noted.
    fn push(
        &self,
        p: &Spanned<RawPush>,
        delay: impl Fn(&Spanned<String>, &str) -> Option<u64>,
    ) -> Option<PushConfig> {
        let span = p.span();
        let p = p.get_ref();
        let url = p.url.get_ref().trim();
        let mut ok = true;
        if crate::endpoint::Endpoint::parse(url).is_none() {
            ok = false;
            self.note(self.err(
                p.url.span(),
                format!(
                    "broadcast.push.url {url:?} is not a push URL; expected \
                     http://HOST[:PORT]/PATH or https://HOST[:PORT]/PATH, such as \
                     https://lichess.org/api/broadcast/round/ROUNDID/push"
                ),
            ));
        }
        let file = PathBuf::from(p.token_file.get_ref().trim());
        let file = if file.is_relative() {
            self.path.parent().unwrap_or(Path::new(".")).join(file)
        } else {
            file
        };
        let token = match std::fs::read_to_string(&file) {
            Ok(token) => token.trim().to_owned(),
            Err(e) => {
                self.note(self.err(
                    p.token_file.span(),
                    format!(
                        "broadcast.push.token_file {}: cannot read it ({e}); expected a \
                         file holding the broadcast server's API token",
                        file.display()
                    ),
                ));
                return None;
            }
        };
        if token.is_empty() || token.len() > 1000 || !token.chars().all(|c| c.is_ascii_graphic()) {
            ok = false;
            self.note(self.err(
                p.token_file.span(),
                format!(
                    "broadcast.push.token_file {} does not hold a token; expected 1 to \
                     1000 printable ASCII characters without spaces",
                    file.display()
                ),
            ));
        }
        let interval_ms = match &p.interval {
            Some(i) => delay(i, "broadcast.push.interval"),
            None => Some(10_000),
        };
        match interval_ms {
            Some(ms) if !(100..=3_600_000).contains(&ms) => {
                ok = false;
                self.note(self.err(
                    p.interval.as_ref().map_or(span, |i| i.span()),
                    "broadcast.push.interval is out of range; expected 100ms to 1h",
                ));
            }
            Some(_) => {}
            None => ok = false,
        }
        ok.then(|| PushConfig {
            url: url.to_owned(),
            token,
            token_file: file,
            interval_ms: interval_ms.unwrap_or(10_000),
        })
    }

    fn in_range(
        &self,
        v: &Spanned<i64>,
        key: &str,
        lo: i64,
        hi: i64,
        unit: &str,
    ) -> Result<u64, ConfigError> {
        let x = *v.get_ref();
        if x < lo || x > hi {
            return Err(self
                .err(
                    v.span(),
                    format!("{key} = {x} is out of range; expected {lo} to {hi}{unit}"),
                )
                .said(
                    Said::new("config-out-of-range")
                        .arg("key", key)
                        .arg("value", x)
                        .arg("low", lo)
                        .arg("high", hi)
                        .arg("unit", unit),
                ));
        }
        Ok(x as u64)
    }

    fn opt_range(
        &self,
        v: &Option<Spanned<i64>>,
        key: &str,
        lo: i64,
        hi: i64,
    ) -> Result<Option<u64>, ConfigError> {
        v.as_ref()
            .map(|v| self.in_range(v, key, lo, hi, " ms"))
            .transpose()
    }

    /// A time control in the PGN form; `key` names it in messages.
    fn time_control(&self, s: &Spanned<String>, key: &str) -> Result<TimeControl, ConfigError> {
        let text = s.get_ref();
        let said = |problem: &time_control::Problem| {
            Said::time_control_problem(problem)
                .arg("key", key)
                .arg("value", format!("{text:?}"))
        };
        let tc: TimeControl =
            text.parse()
                .map_err(|e: dgt_protocol::capture::TimeControlError| {
                    self.err(s.span(), format!("{key} {e}"))
                        .said(said(&e.problem))
                })?;
        tc.check_bounds().map_err(|e| {
            self.err(
                s.span(),
                format!("{key} {text:?} is not a sane time control: {e}"),
            )
            .said(said(&e))
        })?;
        Ok(tc)
    }

    /// An unattended board runs its clock itself after a ruling (SetNRun with the times it
    /// computes), so the DGT3000's own count of presses no longer decides when a period's
    /// time comes (arbiter-rules.md section 5). Adding each period at the due move is not
    /// built yet: a control with periods on an unattended board is refused, never guessed.
    fn unattended_periods(
        &self,
        time_control: TimeControl,
        text: &Spanned<String>,
        raw: &[Spanned<RawBoard>],
        boards: &[BoardConfig],
    ) {
        let why = "the daemon sets an unattended board's clock itself after a ruling, so the \
                   clock's own count of moves would not add the periods";
        let event_wide: Vec<String> = boards
            .iter()
            .filter(|b| b.unattended && b.time_control.is_none())
            .map(|b| b.number.to_string())
            .collect();
        if !time_control.is_sudden_death_only() && !event_wide.is_empty() {
            self.note(self.err(
                text.span(),
                format!(
                    "event.time_control {time_control} has periods, and board(s) {} run \
                     unattended: {why}; expected unattended = false on those boards, or a \
                     BASE+INC control",
                    event_wide.join(", ")
                ),
            ));
        }
        for b in boards.iter().filter(|b| b.unattended) {
            let Some(own) = b.time_control.filter(|tc| !tc.is_sudden_death_only()) else {
                continue;
            };
            let span = raw
                .iter()
                .find(|r| i64::from(b.number) == *r.get_ref().number.get_ref())
                .and_then(|r| r.get_ref().time_control.as_ref())
                .map_or(text.span(), |t| t.span());
            self.note(self.err(
                span,
                format!(
                    "board {}: time_control {own} has periods, and the board runs \
                     unattended: {why}; expected unattended = false, or a BASE+INC control",
                    b.number
                ),
            ));
        }
    }
}

mod boards;
