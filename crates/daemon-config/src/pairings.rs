//! The round's players from the pairing program's TRF file (crate `trf`): who sits at
//! which board number, with the details the PGN headers, the LiveChess folder and the
//! dashboard show (title, rating, federation, FIDE id, team). Which physical board holds
//! which board number stays in the hall config (`[[board]]` `number` + `port`/`serial`).

use std::path::{Path, PathBuf};

use trf::{GameKind, RoundPairings, Trf};

/// A player as the TRF names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerInfo {
    /// The TRF start rank (pairing number).
    pub start_rank: u16,
    /// "Lastname, Firstname".
    pub name: String,
    /// `GM`, `IM`, ... (`None`: untitled).
    pub title: Option<String>,
    pub rating: Option<u16>,
    pub federation: Option<String>,
    pub fide_id: Option<u64>,
    /// The `013` team the player is a member of.
    pub team: Option<String>,
}

impl PlayerInfo {
    /// The player with this start rank (`None` if the file has none).
    pub fn from_trf(trf: &Trf, start_rank: u16) -> Option<PlayerInfo> {
        let p = trf.player(start_rank)?;
        let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        Some(PlayerInfo {
            start_rank,
            name: if p.name.is_empty() {
                format!("Player {start_rank}")
            } else {
                p.name.clone()
            },
            title: some(&p.title),
            rating: p.rating.filter(|r| *r > 0),
            federation: some(&p.federation),
            fide_id: p.fide_id.filter(|id| *id > 0),
            team: trf.team_of(start_rank).map(|t| t.name.clone()),
        })
    }
}

/// The two players of a board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardPairing {
    /// The TRF file and round they come from.
    pub round: u32,
    pub white: PlayerInfo,
    pub black: PlayerInfo,
}

/// A TRF that cannot be used for a round.
#[derive(Debug, thiserror::Error)]
pub enum PairingsError {
    #[error("cannot read the TRF file {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The TRF's own error is part of the message (it names line and column).
    #[error("{path}: {error}")]
    Trf { path: PathBuf, error: trf::TrfError },
}

/// A TRF file read, with one round's pairings.
#[derive(Debug, Clone)]
pub struct TrfRound {
    pub path: PathBuf,
    pub trf: Trf,
    pub pairings: RoundPairings,
}

impl TrfRound {
    /// Reads `path` and takes round `round`'s pairings from it.
    pub fn load(path: &Path, round: u32) -> Result<TrfRound, PairingsError> {
        let bytes = std::fs::read(path).map_err(|source| PairingsError::Read {
            path: path.to_owned(),
            source,
        })?;
        TrfRound::parse(&bytes, path, round)
    }

    /// As [`TrfRound::load`], from bytes already read (`path` names them in messages).
    pub fn parse(bytes: &[u8], path: &Path, round: u32) -> Result<TrfRound, PairingsError> {
        let err = |error| PairingsError::Trf {
            path: path.to_owned(),
            error,
        };
        let trf = Trf::parse(bytes).map_err(err)?;
        let pairings = trf.round(round).map_err(err)?;
        Ok(TrfRound {
            path: path.to_owned(),
            trf,
            pairings,
        })
    }

    /// The players of board number `board`, if a game is played there (forfeits and
    /// byes have no board).
    pub fn board(&self, board: u32) -> Option<BoardPairing> {
        let g = self.pairings.board(board)?;
        if g.kind != GameKind::Played {
            return None;
        }
        Some(BoardPairing {
            round: self.pairings.round,
            white: PlayerInfo::from_trf(&self.trf, g.white)?,
            black: PlayerInfo::from_trf(&self.trf, g.black)?,
        })
    }
}
