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

## The dashboard: alert titles, notes and card facts (formatted by the daemon).

alert-illegal = Illegal move
alert-second-illegal = Second illegal move
alert-illegal-stands = Illegal move stands
alert-touch-move = Possible touch-move violation
alert-two-handed = Two-handed move suspected
alert-displaced = Pieces displaced (7.4)
alert-ruling-unclear = No ruling: arbiter, look
alert-clock-early = Clock: period's time added early
alert-clock-late = Clock: period's time added late
alert-clock-not-added = Clock: period's time not added
alert-uncertain = Moves uncertain after a disconnection
alert-disconnected = Board disconnected
alert-clock-disconnected = Clock disconnected
alert-out-of-sync = Board out of sync
alert-result-disputed = Result disputed
alert-end-title = { $reason ->
        [checkmate] Checkmate
        [stalemate] Stalemate
        [dead-position] Dead position
        [fivefold] Fivefold repetition
        [seventy-five-moves] 75-move rule
        [second-illegal-move] Second illegal move
        [flag] Flag fall
        [threefold] Threefold repetition
        [fifty-moves] 50-move rule
        [resignation] Resignation
        [agreement] Draw agreed
        [arbiter] Arbiter's decision
       *[result-on-board] Result shown on the board
    }
# The same trouble again and again: one alert, counted.
alert-times = { $title } ({ $count } times)
alert-result-disputed-text = board { $board }: the board's result is { $on-board }, the arbiter's { $arbiter }; confirm one of them (the results file waits for it)
alert-displaced-category = displaced pieces (art. 7.4)
alert-count = { $count ->
        [1] 1st
        [2] 2nd
        [3] 3rd
       *[other] { $count }th
    } illegal move of { $side ->
        [white] White
       *[black] Black
    }
note-stands = the opponent replied before the correction: the move stands
note-game-over = game over: { $result }
note-reestablished = re-established
note-reconnected = reconnected
note-clock-reconnected = clock reconnected
note-back-in-sync = back in sync
note-settled = settled
note-settled-with = settled: { $result }

## The dashboard's page: its labels, buttons and lines (served as /api/messages; the
## page fills each { $name }, so these have no selectors: a choice is two messages).

dash-title = dgt-arbiter dashboard
dash-round = round { $round }
# The SAN letters of king, queen, rook, bishop and knight, space-separated.
dash-san-letters = K Q R B N
dash-language = language
dash-connecting = connecting
dash-live = live
dash-live-title = live connection to the daemon
dash-reconnecting = reconnecting
dash-offline = offline
dash-locked = locked
dash-push-title = the last push of the delayed round to the broadcast server
dash-push-ok = push ok { $time }: { $games } games
dash-push-failed = push failed { $time }: { $games } games
dash-push-last = last push to the broadcast server at { $at }: { $answer }
dash-sound = sound
dash-token = token
dash-token-label = Arbiter token
dash-token-use = use
dash-token-forget = forget
dash-token-checked = token checked
dash-token-accepted = token accepted
dash-token-forgotten = token forgotten
dash-private = This dashboard is private: enter the arbiter token ([http] token in the daemon's config, or else the file arbiter-token in its output folder). ({ $why })
dash-alerts = Alerts
dash-alert-count = { $open } open, { $acknowledged } acknowledged
dash-more = { $count } more
dash-no-alerts = No alerts.
dash-resolved = Resolved
dash-claims = Claimable draws
dash-none-now = None now.
dash-boards = Boards
dash-connected-count = { $online }/{ $total } connected
dash-close = close
dash-white = White
dash-black = Black
dash-board = Board { $board }
dash-card-board = board { $board }
dash-state-open = open
dash-state-acknowledged = acknowledged
dash-state-resolved = resolved
dash-position = position { $fen }
dash-before = before
dash-after = after
dash-offender = Offender
dash-what = What
dash-count = Count
dash-penalty = Penalty
dash-result = Result
dash-result-undetermined = { $result } (undetermined: look at the position)
dash-put-back = Put back
dash-correct = Correct
dash-must-move = Must move
dash-must-move-piece = the piece on { $square } (touch-move)
dash-clocks = Clocks
dash-to-reinstate = to reinstate:
dash-take-off = take off
dash-put-on = put on
dash-acknowledge = Acknowledge
dash-resolve = Resolve
dash-minutes-label = minutes to add to the opponent
dash-min = min
dash-warn = Warn
dash-add-time-white = Add time to White
dash-add-time-black = Add time to Black
dash-game-lost-white = Declare the game lost by White
dash-game-lost-black = Declare the game lost by Black
dash-click-again = Click again to declare it lost
dash-confirm-board = Confirm the board's { $result }
dash-confirm-arbiter = Confirm the arbiter's { $result }
dash-arbiter-result-label = the arbiter's result
dash-result-facts = the board: { $board } · the arbiter: { $arbiter }
dash-none-yet = none yet
dash-none = none
dash-disputed = · disputed: confirm one
dash-set-result = Set the result
dash-clear-result = Clear it
dash-no-move-yet = no move yet
dash-open-badge = { $count } open
dash-unattended = unattended
dash-move-white = move { $move }, White to move
dash-move-black = move { $move }, Black to move
dash-no-control-left = no control left
dash-one-move-to-control = 1 move to the time control
dash-moves-to-control = { $count } moves to the time control
dash-history-title = Board { $board }: { $players }, game { $game }
dash-history-move = move
dash-history-clock = clock
dash-history-touches = touch log (↑ lift, ↓ place)
dash-no-press = no press
dash-no-moves = No moves yet.
dash-board-alerts = Alerts on this board
dash-error-status = error { $status }
dash-unreachable = the daemon cannot be reached
dash-refused = refused ({ $status }): { $why }
dash-refused-why = refused: { $why }
dash-ply-label = ply from the scoresheets
dash-ply-placeholder = ply (scoresheet)
dash-accept-white = Accept board, White to move
dash-accept-black = Accept board, Black to move
dash-record-line = Record { $line }
dash-moves-label = the moves of the gap
dash-moves-placeholder = moves of the gap, e.g. 8. Nd4 Qg5
dash-enter-moves = Enter moves
dash-no-moves-given = no moves given
# The arbiter's desk in a board's history (issue 40): take back, set the clocks.
dash-desk = The arbiter's desk
dash-takeback-ply-label = the ply to take the game back to
dash-takeback-ply-placeholder = ply
dash-takeback = Take back to ply { $ply }
dash-takeback-reason-placeholder = reason, e.g. illegal move at ply 21 found later (art. 7.5.1)
dash-reason-label = the arbiter's reason
dash-clock-white-label = White's time (h:mm:ss or m:ss)
dash-clock-black-label = Black's time (h:mm:ss or m:ss)
dash-clock-placeholder = h:mm:ss
dash-clock-reason-placeholder = reason, e.g. the clock was set wrong (art. 6.10.2)
dash-set-clocks = Set clocks
dash-bad-ply = give the ply to take the game back to (a number)
dash-bad-time = { $value } is not a time: give h:mm:ss or m:ss
dash-taken-back = Taken back to ply { $ply }: the board must show that position again
dash-clocks-set = Clocks set: White { $white }, Black { $black }

## desk-evidence: the evidence button on an alert card (issue 40)
dash-evidence = Evidence
dash-evidence-title = Download the evidence pack of board { $board }, ply { $ply } (events, touches, clocks, serial bytes, diagrams, manifest with SHA-256)
dash-evidence-making = making the evidence pack…
dash-evidence-saved = saved { $file } ({ $kb } KB)

## lang-rest: PGN comments (the event's language; the SAN outside them stays English).

pgn-set-up-again = the start position was set up again
pgn-recovered = recorded from the board after a gap in its events (no clock press seen)
pgn-promotion-corrected = the arbiter's correction: the unpromoted pawn becomes a queen
pgn-entered = entered by the arbiter
pgn-gap-entered = the moves of the gap were entered by the arbiter
taken-back = the arbiter took the game back to ply { $ply } ({ $annulled } { $annulled ->
        [one] ply
       *[other] plies
    } annulled)
taken-back-why = the arbiter took the game back to ply { $ply } ({ $annulled } { $annulled ->
        [one] ply
       *[other] plies
    } annulled): { $reason }
taken-back-show = { $text }; the board must show it again ({ $fen })
pgn-accepted-lines = every line found leads to the same position, in an order not known ({ $lines }): the arbiter picks it
pgn-out-of-sync-closed = the board went out of sync after ply { $ply }; { $by }; the game goes on in game { $next }
pgn-goes-on = game { $game } goes on from { $whose ->
        [arbiter] the position the arbiter accepted
       *[lines] the position every line found leads to
    } after the board went out of sync ({ $side ->
        [white] White
       *[black] Black
    } to move; the moves after ply { $ply } were not seen)
pgn-count-unknown = how many moves were made unseen is not known (at least { $count } plies): the move numbers from here are the fewest possible and may be too low
pgn-game-over = game over: { $reason }
pgn-mate-undetermined = whether the opponent can still mate is undetermined
pgn-unfinished = unfinished: { $why }
pgn-daemon-stopped = the daemon stopped; the game resumes when it is restarted

## lang-rest: the config's mistakes and the command line's errors (said in the user's
## language: --lang, else LC_ALL / LC_MESSAGES / LANG; English is the errors' own text).

error = Error: { $text }
error-caused-by = Caused by:
error-not-found = no such file or directory
error-permission = permission denied
config-read = cannot read the config file { $path }
config-mistakes = { $path }: { $count } mistakes
config-toml-syntax = { $detail }
config-bad-value = { $detail }
config-unknown-key = unknown field `{ $key }`, expected one of { $expected }
config-unknown-key-alone = unknown field `{ $key }`
config-missing-key = missing field `{ $key }`
config-out-of-range = { $key } = { $value } is out of range; expected { $low } to { $high }{ $unit }
config-time-control = { $key } { $value }: { $problem ->
        [empty] it is empty
        [empty-period] period { $period } is empty
        [bad-moves] period { $period } ({ $part }): the move count { $number } is not a whole number above 0
        [bad-seconds] period { $period } ({ $part }): the time { $number } is not a whole number of seconds
        [bad-increment] period { $period } ({ $part }): the increment { $number } is not a whole number of seconds
        [sudden-death-not-last] period { $period } ({ $part }) has no move count, so it lasts the rest of the game, yet another period follows it
        [out-of-bounds] period { $period } ({ $part }) is out of bounds: a period gives 1 second to 6 hours (21600) and an increment of 0 to 600 seconds
        [too-many-periods] { $periods } periods: a time control has at most { $max } (the DGT3000's)
       *[unsupported] { $part } is a PGN form the daemon cannot follow ('?' unknown, '-' no control, '*SECONDS' a sandclock)
    } (write BASE+INC in seconds, e.g. 180+2, or periods MOVES/SECONDS[+INC] joined by ':', e.g. 40/5400+30:1800+30)
config-board-twice = board number { $board } is used twice; expected each board to have its own number
config-port-missing = board { $board }: port { $port } does not exist; expected the board's device (such as /dev/dgt/board-{ $board } or /dev/ttyACM0; `dgt-arbiter probe` lists them), or give its serial = "..."
config-port-shared = board { $board }: port { $port } is the device of board { $other } ({ $device }); expected each board on its own port
config-serial-bad = board { $board }: serial { $serial } is not a DGT serial number; expected 1 to 16 letters or digits, such as "01025" (`dgt-arbiter probe` shows it)
config-port-and-serial = board { $board } has both port and serial; expected one of them
config-no-port = board { $board } has neither port nor serial; expected port = "/dev/..." or serial = "..." (or source = "livechess://...")
config-trf = event.trf: { $detail }; expected the pairing program's TRF-16 file with round { $round } paired
config-warning = warning: { $text }
config-port-retry = { $text }; the board's driver keeps trying to open it

## lang-rest: the tracker's explanations (JSON fields, English) said from the events'
## facts in other languages; in English the tracker's own words are used.

# English says the tracker's own words ($what: "pawn c2 knocked over"); other languages
# say the re-establishing steps ($steps), which the selector names here for them.
pgn-displaced = { $steps ->
       *[other] { $what }
    }
pgn-displaced-reestablished = { $steps ->
       *[other] { $what }, re-established
    }
ruling-unclear = the board fits more than one move with pieces knocked over ({ $readings }): arbiter, look; no ruling is made
ruling-unclear-or = or
decision-warning = the arbiter warns { $side ->
        [white] White
       *[black] Black
    } for the pieces displaced (art. 7.4, 12.9.1)
decision-time-added = the arbiter gives { $to ->
        [white] White
       *[black] Black
    } { $add } for the pieces { $side ->
        [white] White
       *[black] Black
    } displaced (art. 7.4, 12.9.2)
decision-game-lost = the arbiter declares the game lost by { $side ->
        [white] White
       *[black] Black
    } for displacing pieces again (art. 7.4, 12.9.6): { $result }
decision-result = the arbiter { $verb ->
        [set] sets
       *[confirm] confirms
    } the result { $result }
decision-result-board = the arbiter { $verb ->
        [set] sets
       *[confirm] confirms
    } the result { $result } (the board's: { $board })
decision-cleared = the arbiter clears his result
decision-cleared-board = the arbiter clears his result: the board's { $board } counts
board-status = board status: { $status ->
        [connected] Connected
        [disconnected] Disconnected
        [clock-connected] ClockConnected
        [clock-disconnected] ClockDisconnected
        [orientation] Orientation
        [white-clock] WhiteClock
        [out-of-sync] OutOfSync
       *[in-sync] InSync
    }

## The demo's terminal lines (`dgt-arbiter demo`; the leading spaces are the program's).
demo-banner = dgt-arbiter demo: { $boards } emulated boards, { $tc } blitz, speed { $speed }x
demo-config = config:  { $path }
demo-outputs = outputs: { $path }
demo-dashboard = dashboard: http://{ $addr }/ (the arbiter token is in { $token })
demo-board = board { $board }: { $white } - { $black } on { $pty }
demo-irregularities = ; irregularities: { $list }
demo-irregularity = { $what } (ply { $ply })
demo-skipped = ({ $what } does not fit this game: { $why })
demo-rulings = Rulings as they happen (Ctrl-C to stop early):
demo-interrupted = interrupted
demo-over = The games are over; the dashboard stays up at http://{ $addr }/ (Ctrl-C to stop).
demo-unfinished = unfinished
demo-summary = Summary:
demo-summary-board = board { $board }: { $white } - { $black }: { $result }{ $termination }, { $plies } plies, rulings: { $rulings }
demo-files = Files in { $dir }:
demo-file-round = every game of the round
demo-file-livechess = the LiveChess folder (tournament.json, round-1/...)
demo-file-events = the JSON events
demo-file-journals = the journals
