//! Tests of the hand-motion generator.

use super::*;

#[test]
fn a_short_game_plays_to_its_final_position() {
    let game = GameInput::from_uci(chess_rules::START_FEN, &["e2e4", "e7e5", "g1f3"]).unwrap();
    let script = generate(&game, &HandOptions::default()).unwrap();
    assert_eq!(script.plies.len(), 3);
    let mut emu = crate::Emulator::new(script.emulator_config());
    for a in &script.actions {
        emu.apply_at(a.at_ms, &a.action);
    }
    assert_eq!(emu.placement(), *script.final_position.placement());
}
