# The arbiter's words in English: the default and the reference catalogue.
# Every other language has these ids with these variables (crates/messages tests).
# Sides are given as keys ($side, $to: white / black), pieces as role keys
# ($role: king, queen, rook, bishop, knight, pawn), so each language chooses its forms.

## Where a ruling is: the start of every line.

at-move = board { $board }, move { $move }, { $text }
at-board = board { $board }: { $text }
# A sentence said of one side: "Black: illegal move ...".
by-side = { $side ->
        [white] White
       *[black] Black
    }: { $text }
side = { $side ->
        [white] White
       *[black] Black
    }

## Pieces and moves.

# The letter of a piece in a move (none for a pawn).
piece-letter = { $role ->
        [king] K
        [queen] Q
        [rook] R
        [bishop] B
        [knight] N
       *[pawn] { "" }
    }
# A piece as the restore steps name it.
piece = { $color } { $role }
step-remove = take the { $piece } off { $square }
step-put = put a { $piece } on { $square }

## Illegal moves (art. 7.5).

illegal-move = illegal move ({ $category })
illegal-category = { $category ->
        [king-in-check] king left in check
        [castling] castling not allowed
        [en-passant] en passant not allowed
        [piece-movement] piece moved against its rules
        [unpromoted-pawn] pawn not promoted
        [clock-without-move] clock pressed without a move
        [wrong-color] opponent's piece moved
        [multiple-moves] more than one move
        [piece-added-or-removed] piece added or removed
        [two-handed] two-handed move
       *[other] illegal move
    }
illegal-count = their illegal move no. { $count }
illegal-clock-counted = the clock counted this press as a move: take its move counter back by one
illegal-put-back = put back: { $steps }
illegal-correct = correct: { $steps }
illegal-must-move = the piece on { $square } must move (touch-move)
penalty = add { $add } to { $to ->
        [white] White
       *[black] Black
    }
penalty-clock = add { $add } to { $to ->
        [white] White
       *[black] Black
    }: { $before } -> { $after }
increment-taken-back = { $side ->
        [white] White
       *[black] Black
    } { $before } -> { $after } (increment of the illegal press taken back)
illegal-second = second illegal move: the game ends { $result }
mate-undetermined = whether the opponent can still mate is undetermined: arbiter, look
illegal-stands = { $side ->
        [white] White
       *[black] Black
    }'s illegal move stands (the opponent replied before it was corrected); the game goes on from { $fen }

## Touch-move (art. 4.3), two hands (art. 4.1), displaced pieces (art. 7.4).

touch-move = possible touch-move violation: touched { $touched } in that order, so { $duty }; played { $played }
duty-move = the piece on { $square } had to move
duty-capture = the piece on { $square } had to be captured
duty-castle = castling with the rook on { $square } was due
duty-king = the king had to move
two-handed = two-handed move suspected ({ $move }): { $evidence }
two-handed-comment = two-handed move suspected: { $evidence }
displaced = { $what } (art. 7.4: displaced, not an illegal move; the arbiter may penalise); re-establish: { $steps }
displaced-reestablished = { $what }, re-established
position-restored = position restored

## Draws and the end of a game.

draw-claimable = { $side ->
        [white] White
       *[black] Black
    } may claim a draw ({ $reason })
draw-claimable-with = { $side ->
        [white] White
       *[black] Black
    } may claim a draw ({ $reason }) with the move { $move }
draw-reason = { $reason ->
        [threefold] threefold repetition
       *[fifty-moves] 50-move rule
    }
game-over = game over after { $plies } plies: { $result } ({ $reason })
flag-fell = { $side ->
        [white] White
       *[black] Black
    }'s flag fell
end-reason = { $reason ->
        [checkmate] checkmate
        [stalemate] stalemate
        [dead-position] dead position
        [fivefold] fivefold repetition
        [seventy-five-moves] 75-move rule
        [second-illegal-move] second illegal move
        [flag] flag
        [threefold] threefold repetition
        [fifty-moves] 50-move rule
        [resignation] resignation
        [agreement] agreement
        [arbiter] arbiter
       *[result-on-board] result set with the kings
    }

## The clock (art. 6.10.2: its setting, not the player's fault).

clock-mismatch = clock mismatch: { $what } (art. 6.10.2)
mismatch-early-no-move = the clock added the next period's time at a press that was no move, before move { $due } was completed (set its move counter right)
mismatch-early = the clock added the next period's time at move { $move }, but it is due at move { $due } (the clock counted a press that was no move: set its move counter right)
mismatch-late = the clock added the next period's time at move { $move }; it was due at move { $due }
mismatch-not-added = the clock did not add the next period's time due at move { $due }
clock-set = set { $side ->
        [white] White
       *[black] Black
    }'s clock: { $before } -> { $after }
no-penalty = no penalty, no result

## Moves not seen.

recovery-uncertain = the moves made while the board could not be read are uncertain: recorded { $recorded }; the board shows the same squares after { $alternatives }; check the scoresheets
# Joins the other lines that fit: "a, or after b".
or-after = , or after { $line }
position-accepted = { $how }, { $side ->
        [white] White
       *[black] Black
    } to move ({ $fen }); the moves after ply { $ply } were not seen
accepted-as-is = the arbiter accepted the board as the position
accepted-lines = followed from the position every line found leads to, the order of its moves not known ({ $lines }: the arbiter picks it for the record)
accepted-count-unknown = how many were made is not known (at least { $count }): move numbers from here may be too low
out-of-sync = the board shows a position no legal moves explain; check it
out-of-sync-lines = the moves made unseen are not known for sure; lines that fit: { $lines }; check them against the scoresheets
arbiter-decision-comment = the arbiter's decision: { $text }
arbiter-clock-set = the arbiter sets the clocks to White { $white }, Black { $black } (art. 6.10, 12.9): { $reason }
