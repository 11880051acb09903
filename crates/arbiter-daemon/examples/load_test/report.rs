//! What the load test found: CPU and memory samples, the join of the farm's presses with
//! the daemon's events (latency), and the check of every expected event against
//! `events.jsonl` (lost, duplicated, unexpected).

use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

use serde_json::Value;

use crate::clock::mono_ns;
use crate::farm::key;
use crate::http::Arrival;
use crate::procfs;

/// `/proc/loadavg`'s first three fields.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// How many boards `/boards` shows connected.
pub fn connected_boards(text: &str) -> usize {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return 0;
    };
    v["boards"].as_array().map_or(0, |b| {
        b.iter()
            .filter(|b| b["driver"]["info"]["connected"] == Value::Bool(true))
            .count()
    })
}

/// CPU and memory at one moment.
pub struct Sample {
    pub mono_ns: u64,
    pub daemon_cpu: f64,
    pub daemon_rss_kib: u64,
    pub farm_cpu: f64,
}

impl Sample {
    pub fn take(daemon: u32, farm: u32) -> Result<Sample, String> {
        Ok(Sample {
            mono_ns: mono_ns(),
            daemon_cpu: procfs::cpu_secs(daemon)?,
            daemon_rss_kib: procfs::status_kib(daemon, "VmRSS")?,
            farm_cpu: procfs::cpu_secs(farm).unwrap_or(0.0),
        })
    }

    fn secs_to(&self, later: &Sample) -> f64 {
        (later.mono_ns.saturating_sub(self.mono_ns)) as f64 / 1e9
    }

    /// The daemon's CPU share of one core from this sample to `later`.
    pub fn daemon_share(&self, later: &Sample) -> f64 {
        (later.daemon_cpu - self.daemon_cpu) / self.secs_to(later).max(1e-9)
    }

    pub fn farm_share(&self, later: &Sample) -> f64 {
        (later.farm_cpu - self.farm_cpu) / self.secs_to(later).max(1e-9)
    }
}

/// Everything measured in a run.
pub struct Report {
    pub boards: usize,
    pub pace: f64,
    pub play_secs: f64,
    pub scan_ms: u64,
    pub connected: usize,
    pub connect_secs: Option<f64>,
    pub fds: usize,
    pub samples: Vec<Sample>,
    pub hwm_kib: u64,
    pub load_before: String,
    pub load_during: String,
    pub stop_secs: f64,
    pub exit: String,
    pub sse_lost: u64,
}

/// Keys a board's events as [`key`] does, counting per board and kind.
#[derive(Default)]
struct Keyer {
    counts: HashMap<(u32, String), usize>,
}

impl Keyer {
    /// `None` for events no expectation covers (board status, claims, touches that
    /// break no obligation).
    fn key(&mut self, v: &Value) -> Option<(u32, String)> {
        let board: u32 = v["board"].as_str()?.parse().ok()?;
        let kind = v["kind"].as_str()?;
        let detail = match kind {
            "move" => v["uci"].as_str()?.to_owned(),
            "illegal_move" => v["category"].as_str()?.to_owned(),
            "restored" | "two_handed_suspected" => String::new(),
            "touch_move" if v["violation"] == Value::Bool(true) => String::new(),
            "game_over" => format!("{}:{}", v["result"].as_str()?, v["reason"].as_str()?),
            _ => return None,
        };
        let n = self.counts.entry((board, kind.to_owned())).or_default();
        *n += 1;
        Some((board, key(kind, *n, v["ply"].as_u64(), &detail)))
    }
}

/// p-th percentile (0..=100) of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn distribution(name: &str, mut ms: Vec<f64>) -> String {
    ms.sort_by(f64::total_cmp);
    format!(
        "  {name:<44} n {:>6}  p50 {:>7.2}  p90 {:>7.2}  p99 {:>7.2}  max {:>8.2} ms",
        ms.len(),
        percentile(&ms, 50.0),
        percentile(&ms, 90.0),
        percentile(&ms, 99.0),
        ms.last().copied().unwrap_or(f64::NAN)
    )
}

fn read_jsonl(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

impl Report {
    /// The report; `dir` holds the farm's records and the daemon's output.
    pub fn render(&self, dir: &Path, arrivals: &[Arrival]) -> Result<String, String> {
        let farm = read_jsonl(&dir.join("farm.jsonl"))?;
        let events = read_jsonl(&dir.join("out").join("events.jsonl"))?;
        let mut s = String::new();
        let w = &mut s;
        let (first, last) = match (self.samples.first(), self.samples.last()) {
            (Some(f), Some(l)) => (f, l),
            _ => return Err("no samples".into()),
        };
        let _ = writeln!(
            w,
            "load test: {} boards at {}x tournament pace (a ply every {:.1} s per board), \
             {:.0} s of play, board scan {} ms",
            self.boards,
            self.pace,
            crate::farm::TOURNAMENT_PLY_MS / self.pace / 1000.0,
            self.play_secs,
            self.scan_ms
        );
        let _ = writeln!(
            w,
            "  connected: {} of {}{}; daemon open fds {}",
            self.connected,
            self.boards,
            self.connect_secs
                .map_or(String::new(), |s| format!(" within {s:.1} s of its start")),
            self.fds
        );
        let _ = writeln!(
            w,
            "  daemon CPU over the play: {:.1} % of one core ({:.1} CPU s in {:.1} s); \
             per 10 s: {}",
            first.daemon_share(last) * 100.0,
            last.daemon_cpu - first.daemon_cpu,
            first.secs_to(last),
            self.samples
                .windows(2)
                .map(|p| format!("{:.1}", p[0].daemon_share(&p[1]) * 100.0))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let _ = writeln!(
            w,
            "  daemon peak RSS (VmHWM): {:.1} MiB; RSS at the end of play {:.1} MiB",
            self.hwm_kib as f64 / 1024.0,
            last.daemon_rss_kib as f64 / 1024.0
        );
        let _ = writeln!(
            w,
            "  farm CPU (emulators, another process): {:.1} % of one core",
            first.farm_share(last) * 100.0
        );
        let _ = writeln!(
            w,
            "  load average: before {}, at the end of play {}",
            self.load_before, self.load_during
        );
        let _ = writeln!(
            w,
            "  daemon stop (SIGTERM): {} after {:.2} s",
            self.exit, self.stop_secs
        );

        // Lost, duplicated and unexpected events.
        let mut expected: HashMap<(u32, String), bool> = HashMap::new();
        for r in farm.iter().filter(|r| r["kind"] == "expect") {
            if let (Some(b), Some(k)) = (r["board"].as_u64(), r["key"].as_str()) {
                expected.insert((b as u32, k.to_owned()), r["required"] == true);
            }
        }
        let mut keyer = Keyer::default();
        let mut said: HashMap<(u32, String), usize> = HashMap::new();
        let mut moves = 0usize;
        for e in &events {
            moves += usize::from(e["kind"] == "move");
            if let Some(k) = keyer.key(e) {
                *said.entry(k).or_default() += 1;
            }
        }
        let required: Vec<&(u32, String)> = expected
            .iter()
            .filter(|(_, r)| **r)
            .map(|(k, _)| k)
            .collect();
        let lost: Vec<&&(u32, String)> = required
            .iter()
            .filter(|k| !said.contains_key(**k))
            .collect();
        let dup: Vec<(&(u32, String), &usize)> = said.iter().filter(|(_, n)| **n > 1).collect();
        let unexpected: Vec<&(u32, String)> =
            said.keys().filter(|k| !expected.contains_key(*k)).collect();
        let rulings = required
            .iter()
            .filter(|k| !k.1.starts_with("move:"))
            .count();
        let _ = writeln!(
            w,
            "  events: {} in events.jsonl ({moves} moves); required {} ({} moves, {rulings} \
             other rulings); lost {}; duplicated {}; unexpected {}; lost on the SSE stream {}",
            events.len(),
            required.len(),
            required.len() - rulings,
            lost.len(),
            dup.len(),
            unexpected.len(),
            self.sse_lost
        );
        // Which rulings came unplanned (under overload: a late board report makes a
        // press look illegal, bunched lifts look two-handed).
        let mut by_kind: std::collections::BTreeMap<&str, usize> = Default::default();
        for k in &unexpected {
            *by_kind
                .entry(k.1.split(':').next().unwrap_or(""))
                .or_default() += 1;
        }
        if !by_kind.is_empty() {
            let _ = writeln!(
                w,
                "    unexpected by kind: {}",
                by_kind
                    .iter()
                    .map(|(k, n)| format!("{k} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        for (what, list) in [
            (
                "lost",
                lost.iter().map(|k| format!("{k:?}")).collect::<Vec<_>>(),
            ),
            ("duplicated", dup.iter().map(|k| format!("{k:?}")).collect()),
            (
                "unexpected",
                unexpected.iter().map(|k| format!("{k:?}")).collect(),
            ),
        ] {
            if !list.is_empty() {
                let _ = writeln!(
                    w,
                    "    {what} (first 10): {}",
                    list[..list.len().min(10)].join(", ")
                );
            }
        }

        // Latency: the press's clock frame left the farm -> the ruling reached the harness.
        let mut keyer = Keyer::default();
        let mut arrived: HashMap<(u32, String), u64> = HashMap::new();
        for a in arrivals {
            if let Ok(v) = serde_json::from_str::<Value>(&a.data) {
                if let Some(k) = keyer.key(&v) {
                    arrived.entry(k).or_insert(a.mono_ns);
                }
            }
        }
        let ms = |later: u64, earlier: u64| (later as f64 - earlier as f64) / 1e6;
        let (mut all, mut at_once, mut waited, mut after_report, mut farm_lag) =
            (vec![], vec![], vec![], vec![], vec![]);
        let (mut unsent, mut unruled, mut late) = (0, 0, 0);
        let mut illegal = vec![];
        // A press after a move its player did not press for: the presser's own clock is
        // already stopped, so the frame changes nothing and the daemon has no press to
        // rule on; the move is reported when the next move shows it. Kept apart (and in
        // "every press"), so that the other lines measure presses that flip the clock.
        let mut after_unpressed = vec![];
        // Per board: whether the move before the one expected now, and that one, had a press.
        let mut pressed: HashMap<u64, (bool, bool)> = HashMap::new();
        for p in &farm {
            let (Some(b), Some(k)) = (p["board"].as_u64(), p["key"].as_str()) else {
                continue;
            };
            if p["kind"] == "expect" && k.starts_with("move:") {
                let (_, last) = pressed.get(&b).copied().unwrap_or((true, true));
                pressed.insert(b, (last, false));
                continue;
            }
            if p["kind"] != "press" {
                continue;
            }
            let before_pressed = match pressed.get_mut(&b) {
                Some((before, this)) if k.starts_with("move:") => {
                    *this = true;
                    *before
                }
                _ => true,
            };
            let Some(sent) = p["sent_ns"].as_u64() else {
                unsent += 1;
                continue;
            };
            late += usize::from(p["frame_late"] == true);
            let Some(&at) = arrived.get(&(b as u32, k.to_owned())) else {
                unruled += 1;
                continue;
            };
            let lat = ms(at, sent);
            all.push(lat);
            if let Some(sched) = p["scheduled_ns"].as_u64() {
                farm_lag.push(ms(sent, sched));
            }
            if !k.starts_with("move:") {
                illegal.push(lat);
            } else if !before_pressed {
                after_unpressed.push(lat);
            } else if p["waited"] == true {
                waited.push(lat);
                if let Some(r) = p["report_sent_ns"].as_u64() {
                    after_report.push(ms(at, r.max(sent)));
                }
            } else {
                at_once.push(lat);
            }
        }
        let _ = writeln!(
            w,
            "  press-to-ruling latency (clock frame sent -> event over SSE):"
        );
        for (name, latencies) in [
            ("every press", all),
            ("moves already reported at the press", at_once),
            ("moves the board reports after the press", waited),
            ("  the same, from the board's report", after_report),
            ("illegal moves (ruling at the press)", illegal),
            ("presses after a move not pressed for", after_unpressed),
            ("farm: press due -> frame written", farm_lag),
        ] {
            let _ = writeln!(w, "{}", distribution(name, latencies));
        }
        let _ = writeln!(
            w,
            "  presses without a sent frame {unsent}; whose frame left in a later chunk {late}; \
             with no ruling on the stream {unruled}"
        );
        Ok(s)
    }
}
