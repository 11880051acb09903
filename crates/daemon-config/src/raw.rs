//! The config file as written: the TOML tables and keys, deserialized with their spans
//! (`deny_unknown_fields` everywhere) before [`crate::validate`] checks them.

use super::*;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawConfig {
    pub(crate) event: RawEvent,
    #[serde(default)]
    pub(crate) penalties: RawPenalties,
    pub(crate) output: RawOutput,
    #[serde(default)]
    pub(crate) http: RawHttp,
    #[serde(default)]
    pub(crate) timing: RawTiming,
    #[serde(default)]
    pub(crate) runtime: RawRuntime,
    pub(crate) broadcast: Option<RawBroadcast>,
    pub(crate) livechess_api: Option<RawLiveChessApi>,
    #[serde(default, rename = "board")]
    pub(crate) boards: Vec<Spanned<RawBoard>>,
    /// One event across several hall PCs (the `hall-network` crate owns the section).
    pub(crate) network: Option<Spanned<hall_network::NetworkConfig>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEvent {
    pub(crate) name: Spanned<String>,
    pub(crate) site: Option<Spanned<String>>,
    pub(crate) date: Option<Spanned<String>>,
    pub(crate) round: Spanned<i64>,
    /// The pairing program's TRF file: the round's players come from it.
    pub(crate) trf: Option<Spanned<String>>,
    pub(crate) time_control: Spanned<String>,
    pub(crate) category: Option<Spanned<String>>,
    pub(crate) supervision: Option<Spanned<String>>,
    /// `standard` (the default) or `chess960`.
    pub(crate) variant: Option<Spanned<String>>,
    /// A Chess960 start position number (0-959).
    pub(crate) start_position: Option<Spanned<i64>>,
    /// A Chess960 start as X-FEN or Shredder-FEN.
    pub(crate) start_fen: Option<Spanned<String>>,
    /// `en` (default) or `ru`: the rulings' language.
    pub(crate) language: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPenalties {
    pub(crate) first_illegal_secs: Option<Spanned<i64>>,
    pub(crate) remove_offender_increment: Option<bool>,
    pub(crate) two_handed: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawOutput {
    pub(crate) dir: Spanned<String>,
    #[serde(default)]
    pub(crate) events_stdout: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawHttp {
    pub(crate) enabled: Option<bool>,
    pub(crate) bind: Option<Spanned<String>>,
    pub(crate) token: Option<Spanned<String>>,
    pub(crate) public_dashboard: Option<bool>,
    pub(crate) names: Option<Vec<Spanned<String>>>,
    pub(crate) tls_cert: Option<Spanned<String>>,
    pub(crate) tls_key: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawLiveChessApi {
    pub(crate) bind: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawBroadcast {
    pub(crate) delay: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) results_only: bool,
    #[serde(default)]
    pub(crate) results_off_air: bool,
    pub(crate) push: Option<Spanned<RawPush>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPush {
    pub(crate) url: Spanned<String>,
    pub(crate) token_file: Spanned<String>,
    pub(crate) interval: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTiming {
    pub(crate) settle_window_ms: Option<Spanned<i64>>,
    pub(crate) two_handed_window_ms: Option<Spanned<i64>>,
    pub(crate) flicker_ms: Option<Spanned<i64>>,
    pub(crate) analysis_budget_ms: Option<Spanned<i64>>,
    pub(crate) journal_sync_ms: Option<Spanned<i64>>,
    pub(crate) ruling_text_ms: Option<Spanned<i64>>,
    pub(crate) time_scale: Option<Spanned<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRuntime {
    pub(crate) async_threads: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawBoard {
    pub(crate) number: Spanned<i64>,
    pub(crate) port: Option<Spanned<String>>,
    pub(crate) serial: Option<Spanned<String>>,
    /// `livechess://HOST:PORT/SERIALNR` instead of a port or serial.
    pub(crate) source: Option<Spanned<String>>,
    pub(crate) white: Option<Spanned<String>>,
    pub(crate) black: Option<Spanned<String>>,
    pub(crate) white_clock: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) unattended: bool,
    pub(crate) broadcast: Option<bool>,
    pub(crate) time_control: Option<Spanned<String>>,
    pub(crate) start_position: Option<Spanned<i64>>,
    pub(crate) start_fen: Option<Spanned<String>>,
}
