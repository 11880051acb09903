#!/usr/bin/env python3
"""An independent fake DGT board with a DGT3000, written only from the protocol fact sheet
(dgt-protocol.md), not from the project's emulator, using only the standard library.

    fake_board.py LINK SCENARIO

serves the board on a pseudo-terminal reachable as the symlink LINK, prints "ready" once
the link exists, and plays SCENARIO once the driver has put the board in an update mode and
asked for its dump (sections 3 and 7 of the fact sheet):
  normal   a short game;
  gap3     the same game, the cable pulled for 3 plies (11-13, played while unplugged);
  gap6     the same with 6 plies unplugged (7-12);
  gap3t    3 plies unplugged that transpose (7-9: O-O Bc5 d3 leaves the squares of
           d3 Bc5 O-O);
  gap6hold as gap6, then it prints "holding" and waits (answering the host) for a line on
           its standard input before it plays on (the arbiter acts on the dashboard meanwhile);
  flood    a flood of field updates far beyond 9600 baud for a few seconds, then the game.
It prints "done" and exits when the scenario has played out.
"""
import os, select, sys, time, tty

GAME = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1 f8c5 d2d3 e8g8 c1g5 h7h6 g5f6 d8f6 b1c3 d7d6".split()
CODES = {"P": 1, "R": 2, "N": 3, "B": 4, "K": 5, "Q": 6, "p": 7, "r": 8, "n": 9, "b": 10, "k": 11, "q": 12}
START = "rnbqkbnrpppppppp" + "." * 32 + "PPPPPPPPRNBQKBNR"  # index 0 = a8 (section 4.1)


def idx(sq):  # algebraic square -> field index, board set up normally: (8 - rank) * 8 + file
    return (8 - int(sq[1])) * 8 + ord(sq[0]) - ord("a")


def frame(code, payload):  # section 2: ID | 0x80, 14-bit total length, payload
    n = len(payload) + 3
    return bytes([0x80 | code, n >> 7, n & 0x7F]) + bytes(payload)


def bcd(v):
    return (v // 10) << 4 | v % 10


class Board:
    def __init__(self, link):
        self.link, self.fd, self.mode_update, self.dumped = link, None, False, False
        self.board = [CODES.get(c, 0) for c in START]
        self.left_ms = self.right_ms = 300_000  # White on the left (section 5)
        self.white_to_move, self.since, self.ticked = True, time.monotonic(), 0.0
        self.plug()

    def plug(self):
        master, slave = os.openpty()
        tty.setraw(slave)
        self.fd, self.slave = master, slave
        tmp = self.link + ".new"
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.link)
        self.mode_update = self.dumped = False

    def unplug(self):
        os.unlink(self.link)
        os.close(self.fd)
        os.close(self.slave)
        self.fd = None

    def send(self, data):
        if self.fd is not None:
            os.write(self.fd, data)

    def clock_frame(self):  # section 4.4: right side p0..p2, left side p3..p5, status p6
        run = int((time.monotonic() - self.since) * 1000)
        left = self.left_ms - (run if self.white_to_move else 0)
        right = self.right_ms - (0 if self.white_to_move else run)
        p = []
        for ms in (right, left):
            s = max(ms, 0) // 1000
            p += [s // 3600, bcd(s // 60 % 60), bcd(s % 60)]
        status = 0x09 if self.white_to_move else 0x13  # running, lever, side flag as in real captures
        return frame(0x0D, p + [status])

    def serve(self, seconds=0.0):  # answers the host's commands for `seconds`
        end = time.monotonic() + seconds
        while True:
            if self.mode_update and time.monotonic() - self.ticked >= 1.0:
                self.ticked = time.monotonic()  # UPDATE_NICE: the times once a second
                self.send(self.clock_frame())
            wait = max(0.0, min(end - time.monotonic(), 1.0))
            if self.fd is None:
                time.sleep(max(0.0, end - time.monotonic()))
                return
            if not select.select([self.fd], [], [], wait)[0]:
                if time.monotonic() >= end:
                    return
                continue
            try:
                data = os.read(self.fd, 256)
            except OSError:
                data = b""
            i = 0
            while i < len(data):
                c = data[i]
                i += 1
                if c == 0x2B:  # clock command: 2B size ...; answered by an ACK (section 4.5)
                    size = data[i] if i < len(data) else 0
                    sub = data[i + 2] if i + 2 < len(data) else 0
                    i += 1 + size
                    ack2 = 0x21 if sub == 0x09 else 0  # DGT3000 version 2.1
                    self.send(frame(0x0D, [0x0A, 0x10, sub, 0x0A, ack2, 0, 0]))
                elif c == 0x40:
                    self.mode_update = False
                elif c in (0x43, 0x44, 0x4B):
                    self.mode_update = True
                elif c == 0x42:
                    self.send(frame(0x06, self.board))
                    self.dumped = True
                elif c == 0x41:
                    self.send(self.clock_frame())
                elif c == 0x45:
                    self.send(frame(0x11, b"01025"))
                elif c == 0x4D:
                    self.send(frame(0x13, [1, 2]))

    def wait_for_driver(self):
        while not (self.mode_update and self.dumped):
            self.serve(0.1)
        self.serve(1.0)

    def put(self, i, code):
        self.board[i] = code
        if self.mode_update:
            self.send(frame(0x0E, [i, code]))  # section 4.3
            self.serve(0.08)

    def move(self, uci):
        a, b = idx(uci[:2]), idx(uci[2:])
        piece = self.board[a]
        self.put(a, 0)
        self.put(b, piece)
        if piece in (5, 11) and abs(a - b) == 2:  # castling: the rook follows the king
            rook_from, rook_to = (a + 3, a + 1) if b > a else (a - 4, a - 1)
            self.put(rook_from, 0)
            self.put(rook_to, piece - 3)
        self.serve(0.3)
        run = int((time.monotonic() - self.since) * 1000)  # the press (lever changes sides)
        if self.white_to_move:
            self.left_ms -= run
        else:
            self.right_ms -= run
        self.white_to_move, self.since = not self.white_to_move, time.monotonic()
        if self.mode_update:
            self.send(self.clock_frame())
        self.serve(0.6)

    def flood(self, seconds):  # the knight on g1 reported again and again, as fast as the line takes
        end, update = time.monotonic() + seconds, frame(0x0E, [idx("g1"), 3]) * 400
        while time.monotonic() < end:
            self.send(update)
            self.serve(0)


def main():
    link, scenario = sys.argv[1], sys.argv[2]
    board = Board(link)
    print("ready", flush=True)
    board.wait_for_driver()
    # (first ply unplugged, plies unplugged); gap3 avoids a transposition (6-8 could be
    # O-O Bc5 d3 or d3 Bc5 O-O: the board cannot tell them apart).
    start, gap = {"gap3": (10, 3), "gap6": (6, 6), "gap6hold": (6, 6), "gap3t": (6, 3)}.get(scenario, (0, 0))
    if scenario == "flood":
        board.flood(4.0)
        board.serve(3.0)
    for n, uci in enumerate(GAME):
        if gap and n == start:
            board.unplug()
        board.move(uci)
        if gap and n == start + gap - 1:
            board.plug()
            board.wait_for_driver()
            if scenario == "gap6hold":
                print("holding", flush=True)
                while not select.select([sys.stdin], [], [], 0)[0]:
                    board.serve(0.2)
                sys.stdin.readline()
    board.serve(2.0)
    print("done", flush=True)


if __name__ == "__main__":
    main()
