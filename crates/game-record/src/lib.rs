//! The game records and the words for people, made from the arbiter events alone (pure:
//! no IO, no clock):
//!
//! - [`games`]: [`BoardGames`], the games of one board in a round (moves with their
//!   clocks, rulings as comments on the move they concern, result and why); the PGN,
//!   LiveChess and public outputs render these.
//! - [`results`]: [`ResultState`], the board's result and the arbiter's, and when they
//!   disagree.
//! - [`words`]: rulings in plain words, in the message catalogue's languages.

pub mod games;
pub mod results;
pub mod words;

pub use games::BoardGames;
pub use results::ResultState;
