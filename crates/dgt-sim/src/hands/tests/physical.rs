//! The physical model: replays a script's actions on a placement and on the emulator's
//! clock, and checks what the script promises.

use std::collections::BTreeMap;

use chess_rules::{Color, Placement, Position, Role, Square};

use super::super::motion::{apply_to, between, immovable_pieces};
use super::*;
use crate::action::Action;
use crate::Emulator;

/// What a checked script showed, for coverage counts.
#[derive(Debug, Default, Clone)]
pub(crate) struct Seen {
    pub plies: usize,
    pub styles: BTreeMap<String, usize>,
    pub slides: usize,
    pub adjustments: usize,
    pub adjusted_immovable: usize,
    pub forgotten: usize,
    pub underpromotions: usize,
    pub rules_ends: BTreeMap<String, usize>,
}

impl Seen {
    pub fn add(&mut self, other: &Seen) {
        self.plies += other.plies;
        for (k, v) in &other.styles {
            *self.styles.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.rules_ends {
            *self.rules_ends.entry(k.clone()).or_default() += v;
        }
        self.slides += other.slides;
        self.adjustments += other.adjustments;
        self.adjusted_immovable += other.adjusted_immovable;
        self.forgotten += other.forgotten;
        self.underpromotions += other.underpromotions;
    }
}

fn style_name(s: &MoveStyle) -> String {
    format!("{s:?}")
}

/// The color whose clock runs.
fn running(emu: &Emulator) -> Option<Color> {
    if !emu.clock_running() {
        return None;
    }
    Color::ALL
        .into_iter()
        .find(|c| emu.side_of(*c) == emu.lever())
}

/// Applies a script's actions in order to a placement and to the emulator's clock.
pub(crate) struct Replayer<'s> {
    pub script: &'s Script,
    pub next: usize,
    pub board: Placement,
    pub emu: Emulator,
}

impl Replayer<'_> {
    pub fn new(script: &Script) -> Replayer<'_> {
        Replayer {
            script,
            next: 0,
            board: *script.start.placement(),
            emu: Emulator::new(script.emulator_config()),
        }
    }

    /// Applies actions up to index `end` (exclusive).
    pub fn until(&mut self, end: usize) {
        while self.next < end.min(self.script.actions.len()) {
            let a = &self.script.actions[self.next];
            apply_to(&mut self.board, &a.action);
            self.emu.apply_at(a.at_ms, &a.action);
            self.next += 1;
        }
    }

    /// Applies every action at or before `t`.
    pub fn until_time(&mut self, t: u64) {
        while self.next < self.script.actions.len() && self.script.actions[self.next].at_ms <= t {
            self.until(self.next + 1);
        }
    }
}

/// Board actions of `range` with their times.
fn board_actions(script: &Script, range: std::ops::Range<usize>) -> Vec<(u64, Action)> {
    script.actions[range]
        .iter()
        .filter(|a| matches!(a.action, Action::Lift(_) | Action::Place(..)))
        .map(|a| (a.at_ms, a.action.clone()))
        .collect()
}

fn time_of(acts: &[(u64, Action)], want: &Action) -> Option<u64> {
    acts.iter().find(|(_, a)| a == want).map(|(t, _)| *t)
}

/// Checks the promises of a script whose plies are all normal except those carrying an
/// irregularity (their moves are checked for position only).
pub(crate) fn check_script(game: &GameInput, script: &Script) -> Result<Seen, String> {
    let positions = game.positions().map_err(|e| e.to_string())?;
    let mut seen = Seen::default();
    // 1. Times never decrease.
    for w in script.actions.windows(2) {
        if w[1].at_ms < w[0].at_ms {
            return Err(format!("time goes back: {:?} then {:?}", w[0], w[1]));
        }
    }
    // 2. Replay on a placement and the clock, ply by ply.
    let mut r = Replayer {
        script,
        next: 0,
        board: *game.start.placement(),
        emu: Emulator::new(script.emulator_config()),
    };
    let mut prev_end = 0usize;
    let mut prev_pressed = true;
    for p in &script.plies {
        let k = p.index;
        let (pos, after) = (&positions[k], &positions[k + 1]);
        let m = p.mv;
        let info = pos.move_info(m).ok_or("record of an illegal move")?;
        let normal = p.irregularity.is_none();
        // The clock runs for the mover when his turn starts after a real press.
        r.until_time(
            p.turn_start_ms
                .min(script.actions[p.motion.start].at_ms.saturating_sub(1)),
        );
        r.emu.advance_to(p.turn_start_ms);
        if normal && prev_pressed && running(&r.emu) != Some(p.color) {
            return Err(format!(
                "ply {}: {}'s turn starts with {:?} running",
                p.ply,
                p.color,
                running(&r.emu)
            ));
        }
        // Touches during the turn before the move's motion (adjustments), the motion.
        let before = board_actions(script, prev_end..p.motion.start);
        let motion = board_actions(script, p.motion.clone());
        r.until(p.motion.start);
        let mut states = Vec::new();
        for i in p.motion.clone() {
            r.until(i + 1);
            states.push(r.board);
        }
        if r.board != *after.placement() {
            return Err(format!(
                "ply {} ({m}, {:?}): board {} after the motion, expected {}",
                p.ply,
                p.style,
                r.board.fen_field(),
                after.placement().fen_field()
            ));
        }
        seen.plies += 1;
        if m.promotion.is_some_and(|r| r != Role::Queen) {
            seen.underpromotions += 1;
        }
        *seen.styles.entry(style_name(&p.style)).or_default() += 1;
        if normal {
            check_normal_turn(pos, &info, p, &before, &motion, &states)
                .map_err(|e| format!("ply {} ({m}, {:?}): {e}", p.ply, p.style))?;
            if !p.slid_over.is_empty() {
                seen.slides += 1;
            }
            if let Some(sq) = p.adjusted {
                seen.adjustments += 1;
                if sq != m.from {
                    seen.adjusted_immovable += 1;
                }
            }
        }
        // The press.
        let end = p.motion.end;
        let made = script.actions[end - 1].at_ms;
        if made != p.made_at_ms {
            return Err(format!("ply {}: made_at_ms is off", p.ply));
        }
        match p.press_ms {
            // The press came before the arbiter's correction ended the motion.
            Some(_) if p.style == MoveStyle::Unpromoted => prev_end = end,
            Some(t) => {
                let at = script.actions[end..]
                    .iter()
                    .position(|a| matches!(a.action, Action::PressClock(_)))
                    .map(|i| end + i)
                    .ok_or("no press after a pressed move")?;
                let press = &script.actions[at];
                if press.at_ms != t || press.action != Action::PressClock(p.color) {
                    return Err(format!("ply {}: press {press:?} is not the mover's", p.ply));
                }
                if normal && !(50..=500).contains(&(t - made)) {
                    return Err(format!(
                        "ply {}: press {} ms after the move",
                        p.ply,
                        t - made
                    ));
                }
                r.until(at + 1);
                if normal && prev_pressed && running(&r.emu) != Some(p.color.opponent()) {
                    return Err(format!(
                        "ply {}: the press did not hand the clock over",
                        p.ply
                    ));
                }
                prev_end = at + 1;
            }
            None => {
                seen.forgotten += 1;
                prev_end = end;
            }
        }
        prev_pressed = p.pressed;
    }
    r.until(script.actions.len());
    r.emu.advance_to(script.end_ms);
    let flag_fall = script
        .injected
        .iter()
        .any(|i| i.irregularity == Irregularity::FlagFall);
    if r.emu.flag().is_some() != flag_fall {
        return Err(format!(
            "flag {:?}, flag fall injected: {flag_fall}",
            r.emu.flag()
        ));
    }
    // 3. The events: every move in order, the rules' end last.
    check_moves_expected(&positions, script)?;
    if let Some(end) = script.rules_end {
        *seen.rules_ends.entry(end.reason.to_string()).or_default() += 1;
        match script.expected.last().map(|e| &e.event) {
            Some(Expected::GameOver { result, reason })
                if *result == end.result && *reason == end.reason => {}
            other => {
                return Err(format!(
                    "game ends by {end:?} but the last event is {other:?}"
                ))
            }
        }
    }
    Ok(seen)
}

/// The `move` events are the plies' moves, in order, with the game's ply numbers, SAN and
/// FEN after.
fn check_moves_expected(positions: &[Position], script: &Script) -> Result<(), String> {
    let moves: Vec<&Expected> = script
        .events()
        .filter(|e| matches!(e, Expected::Move { .. }))
        .collect();
    if moves.len() != script.plies.len() {
        return Err(format!(
            "{} move events for {} plies",
            moves.len(),
            script.plies.len()
        ));
    }
    for (e, p) in moves.iter().zip(&script.plies) {
        let pos = &positions[p.index];
        let want = Expected::Move {
            ply: pos.plies() + 1,
            color: pos.side_to_move(),
            mv: p.mv,
            san: pos.san(p.mv).unwrap(),
            fen: positions[p.index + 1].fen(),
        };
        if **e != want {
            return Err(format!("event {e:?}, expected {want:?}"));
        }
    }
    Ok(())
}

/// What a normal turn promises: touches that bind to nothing the move breaks, no
/// two-handed evidence, the variation's own order, sane timing.
fn check_normal_turn(
    pos: &Position,
    info: &chess_rules::MoveInfo,
    p: &PlyRecord,
    before: &[(u64, Action)],
    motion: &[(u64, Action)],
    states: &[Placement],
) -> Result<(), String> {
    let m = info.mv;
    let color = p.color;
    // Touch-move: own pieces lifted are the mover, the castling rook, or pieces that
    // cannot move; the first own piece lifted is the mover or cannot move; the only
    // opponent's piece lifted is the victim.
    let stuck: Vec<Square> = immovable_pieces(pos, color)
        .iter()
        .map(|(s, _)| *s)
        .collect();
    let rook_from = info.castling.map(|(_, f, _)| f);
    let victim = info.capture.map(|(s, _)| s);
    let mut first_own = None;
    let mut seen_lift = Vec::new();
    for (_, a) in before.iter().chain(motion) {
        let Action::Lift(sq) = a else { continue };
        if seen_lift.contains(sq) {
            continue;
        }
        seen_lift.push(*sq);
        let Some(piece) = pos.piece_at(*sq) else {
            continue; // sliding noise: the mover lifted again from a path square
        };
        if piece.color == color {
            first_own.get_or_insert(*sq);
            if *sq != m.from && Some(*sq) != rook_from && !stuck.contains(sq) {
                return Err(format!("lifted {piece} on {sq}, which could move"));
            }
        } else if Some(*sq) != victim {
            return Err(format!("lifted the opponent's {piece} on {sq}"));
        }
    }
    if let Some(f) = first_own {
        if f != m.from && !stuck.contains(&f) {
            return Err(format!("first own piece touched on {f}"));
        }
    }
    if let Some(sq) = p.adjusted {
        let lift = time_of(before, &Action::Lift(sq)).ok_or("adjustment without a lift")?;
        let put = before
            .iter()
            .find(|(t, a)| *t >= lift && matches!(a, Action::Place(s, _) if *s == sq))
            .ok_or("adjusted piece not put back")?;
        if put.1 != Action::Place(sq, pos.piece_at(sq).ok_or("adjusted an empty square")?) {
            return Err("adjusted piece put back changed".into());
        }
    }
    // Timing: a whole move takes 0.3 to 2 s of hand motion.
    let (t0, t1) = (motion[0].0, motion[motion.len() - 1].0);
    if !(300..=2000).contains(&(t1 - t0)) {
        return Err(format!("hand motion lasts {} ms", t1 - t0));
    }
    for w in motion.windows(2) {
        if w[1].0 - w[0].0 < 40 {
            return Err(format!(
                "{:?} and {:?} only {} ms apart",
                w[0].1,
                w[1].1,
                w[1].0 - w[0].0
            ));
        }
    }
    let lift_at = |sq: Square| time_of(motion, &Action::Lift(sq));
    let apart = |a: Option<u64>, b: Option<u64>, what: &str| match (a, b) {
        (Some(a), Some(b)) if a.abs_diff(b) >= TWO_HAND_SAFE_MS => Ok(()),
        _ => Err(format!("{what}: {a:?} / {b:?}")),
    };
    let piece = info.piece;
    match p.style {
        MoveStyle::Plain => {
            if motion.first().map(|x| &x.1) != Some(&Action::Lift(m.from))
                || motion.last().map(|x| &x.1) != Some(&Action::Place(m.to, piece))
            {
                return Err(format!("plain move {motion:?}"));
            }
            check_slide(
                m.from,
                m.to,
                piece,
                &p.slid_over,
                &motion[1..motion.len() - 1],
            )?;
        }
        MoveStyle::Capture(order) => {
            match order {
                CaptureOrder::DirectReplace => {
                    if states.iter().any(|b| b.get(m.to).is_none()) {
                        return Err("direct replace emptied the victim's square".into());
                    }
                }
                CaptureOrder::VictimFirst => {
                    if motion[0].1 != Action::Lift(m.to) {
                        return Err("victim not lifted first".into());
                    }
                    apart(lift_at(m.to), lift_at(m.from), "victim and mover lifts")?;
                }
                CaptureOrder::LiftVictimPlace => {
                    let want = [
                        Action::Lift(m.from),
                        Action::Lift(m.to),
                        Action::Place(m.to, piece),
                    ];
                    if motion.iter().map(|x| &x.1).ne(want.iter()) {
                        return Err(format!("lift-victim-place {motion:?}"));
                    }
                    apart(lift_at(m.to), lift_at(m.from), "victim and mover lifts")?;
                }
            }
            if motion.last().map(|x| &x.1) != Some(&Action::Place(m.to, piece)) {
                return Err("capture does not end on the victim's square".into());
            }
        }
        MoveStyle::Castling => {
            let (_, rf, rt) = info.castling.ok_or("castling style without castling")?;
            let rook = chess_rules::Piece::new(color, Role::Rook);
            let want = [
                Action::Lift(m.from),
                Action::Place(m.to, piece),
                Action::Lift(rf),
                Action::Place(rt, rook),
            ];
            if motion.iter().map(|x| &x.1).ne(want.iter()) {
                return Err(format!("castling {motion:?}"));
            }
        }
        MoveStyle::EnPassant { victim_first } => {
            let (vsq, _) = info.capture.ok_or("en passant without a victim")?;
            let first = &motion[0].1;
            let last = &motion[motion.len() - 1].1;
            if victim_first != (*first == Action::Lift(vsq))
                || (!victim_first && *last != Action::Lift(vsq))
            {
                return Err(format!("en passant {motion:?}"));
            }
            apart(lift_at(vsq), lift_at(m.from), "victim and mover lifts")?;
        }
        MoveStyle::Promotion {
            piece_first,
            capture,
        } => {
            let new = info
                .promotion
                .ok_or("promotion style without a promotion")?;
            let placed = time_of(motion, &Action::Place(m.to, new));
            let lifted = lift_at(m.from);
            match (placed, lifted) {
                (Some(pl), Some(li)) if piece_first == (pl < li) => {}
                _ => return Err(format!("promotion order {motion:?}")),
            }
            apart(placed, lifted, "pawn lift and new piece")?;
            if new.role != m.promotion.ok_or("no promotion role")? {
                return Err("promoted to another piece".into());
            }
            if capture == Some(CaptureOrder::DirectReplace)
                && states.iter().any(|b| b.get(m.to).is_none())
            {
                return Err("direct replace emptied the promotion square".into());
            }
        }
        other => return Err(format!("style {other:?} on a normal ply")),
    }
    Ok(())
}

/// Sliding noise: the piece briefly on squares of its path, in order, each for less than
/// a scan interval.
fn check_slide(
    from: Square,
    to: Square,
    piece: chess_rules::Piece,
    slid: &[Square],
    middle: &[(u64, Action)],
) -> Result<(), String> {
    let path = between(from, to);
    if middle.len() != 2 * slid.len() {
        return Err(format!("slide {middle:?} over {slid:?}"));
    }
    let mut last_index = None;
    for (pair, sq) in middle.chunks(2).zip(slid) {
        if pair[0].1 != Action::Place(*sq, piece) || pair[1].1 != Action::Lift(*sq) {
            return Err(format!("slide step {pair:?}"));
        }
        if pair[1].0 - pair[0].0 >= 250 {
            return Err(format!("piece rested {} ms on {sq}", pair[1].0 - pair[0].0));
        }
        let i = path
            .iter()
            .position(|s| s == sq)
            .ok_or("slid off the path")?;
        if last_index.is_some_and(|l| i <= l) {
            return Err("slide goes back".into());
        }
        last_index = Some(i);
    }
    Ok(())
}
