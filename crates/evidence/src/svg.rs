//! A position as an SVG diagram: our own small renderer (squares, the pieces as Unicode
//! glyphs with their FEN letter kept in an attribute, coordinates, a caption), White at
//! the bottom. No fonts or images of its own: any browser shows it.

use chess_rules::{Color, File, Piece, Placement, Rank, Role, Square};

/// Side of one square, px.
const SQ: u32 = 48;
/// Margin for the coordinates, px.
const MARGIN: u32 = 20;
/// Height of the caption under the board, px.
const CAPTION: u32 = 28;

/// The diagram of `placement`, `marked` squares outlined (a move's from and to), with
/// `caption` under it.
pub fn diagram(placement: &Placement, marked: &[Square], caption: &str) -> String {
    let side = 8 * SQ + 2 * MARGIN;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{side}\" height=\"{h}\" \
         viewBox=\"0 0 {side} {h}\" font-family=\"sans-serif\">\n<title>{t}</title>\n\
         <rect width=\"{side}\" height=\"{h}\" fill=\"#ffffff\"/>\n",
        h = side + CAPTION,
        t = escape(caption),
    );
    for sq in Square::all() {
        let (x, y) = corner(sq);
        let fill = if sq.is_light() { "#f0d9b5" } else { "#b58863" };
        out.push_str(&format!(
            "<rect x=\"{x}\" y=\"{y}\" width=\"{SQ}\" height=\"{SQ}\" fill=\"{fill}\"/>\n"
        ));
    }
    for sq in marked {
        let (x, y) = corner(*sq);
        out.push_str(&format!(
            "<rect class=\"mark\" data-square=\"{sq}\" x=\"{}\" y=\"{}\" width=\"{}\" \
             height=\"{}\" fill=\"none\" stroke=\"#d11\" stroke-width=\"3\"/>\n",
            x + 2,
            y + 2,
            SQ - 4,
            SQ - 4
        ));
    }
    for (sq, piece) in placement.pieces() {
        let (x, y) = corner(sq);
        let (fill, stroke) = match piece.color {
            Color::White => ("#ffffff", "#000000"),
            Color::Black => ("#000000", "#000000"),
        };
        out.push_str(&format!(
            "<text class=\"piece\" data-square=\"{sq}\" data-piece=\"{p}\" x=\"{cx}\" \
             y=\"{cy}\" font-size=\"40\" text-anchor=\"middle\" dominant-baseline=\"central\" \
             fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1\">{g}</text>\n",
            p = piece.fen_char(),
            cx = x + SQ / 2,
            cy = y + SQ / 2,
            g = glyph(piece),
        ));
    }
    coordinates(&mut out);
    out.push_str(&format!(
        "<text x=\"{MARGIN}\" y=\"{}\" font-size=\"14\">{}</text>\n</svg>\n",
        side + CAPTION / 2 + 4,
        escape(caption)
    ));
    out
}

/// Files under the board, ranks at its left.
fn coordinates(out: &mut String) {
    for f in File::ALL {
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
            MARGIN + u32::from(f.index()) * SQ + SQ / 2,
            MARGIN + 8 * SQ + 14,
            f.char()
        ));
    }
    for r in Rank::ALL {
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
            MARGIN / 2,
            MARGIN + (7 - u32::from(r.index())) * SQ + SQ / 2 + 4,
            r.char()
        ));
    }
}

/// Top-left corner of a square, White at the bottom.
fn corner(sq: Square) -> (u32, u32) {
    (
        MARGIN + u32::from(sq.file().index()) * SQ,
        MARGIN + (7 - u32::from(sq.rank().index())) * SQ,
    )
}

/// The Unicode chess symbol of a piece.
pub fn glyph(piece: Piece) -> char {
    match (piece.color, piece.role) {
        (Color::White, Role::King) => '♔',
        (Color::White, Role::Queen) => '♕',
        (Color::White, Role::Rook) => '♖',
        (Color::White, Role::Bishop) => '♗',
        (Color::White, Role::Knight) => '♘',
        (Color::White, Role::Pawn) => '♙',
        (Color::Black, Role::King) => '♚',
        (Color::Black, Role::Queen) => '♛',
        (Color::Black, Role::Rook) => '♜',
        (Color::Black, Role::Bishop) => '♝',
        (Color::Black, Role::Knight) => '♞',
        (Color::Black, Role::Pawn) => '♟',
    }
}

/// Text for XML and HTML: the five special characters escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(hay: &str, needle: &str) -> usize {
        hay.matches(needle).count()
    }

    #[test]
    fn the_start_position_has_its_32_pieces_on_their_squares() {
        let svg = diagram(&Placement::start(), &[], "start <1>");
        assert!(svg.starts_with("<svg "), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(count(&svg, "class=\"piece\""), 32);
        assert!(svg.contains("data-square=\"e1\" data-piece=\"K\""));
        assert!(svg.contains("data-square=\"d8\" data-piece=\"q\""));
        assert_eq!(count(&svg, "♟"), 8);
        assert_eq!(count(&svg, "♙"), 8);
        // 64 squares, the background, no marks.
        assert_eq!(count(&svg, "<rect "), 65);
        assert!(svg.contains("start &lt;1&gt;"), "the caption is escaped");
        // Coordinates a..h and 1..8.
        assert!(svg.contains(">a</text>") && svg.contains(">h</text>"));
        assert!(svg.contains(">1</text>") && svg.contains(">8</text>"));
    }

    #[test]
    fn a_placement_shows_only_its_pieces_and_the_marked_squares() {
        let p = Placement::from_fen_field("4k3/8/8/8/8/8/8/4K2R").unwrap();
        let e1: Square = "e1".parse().unwrap();
        let g1: Square = "g1".parse().unwrap();
        let svg = diagram(&p, &[e1, g1], "castling");
        assert_eq!(count(&svg, "class=\"piece\""), 3);
        assert_eq!(count(&svg, "class=\"mark\""), 2);
        assert!(svg.contains("class=\"mark\" data-square=\"g1\""));
        assert!(svg.contains("data-square=\"h1\" data-piece=\"R\""));
        // e1 is a dark square at the bottom row, a8 light at the top-left.
        let (x, y) = corner(e1);
        assert_eq!((x, y), (MARGIN + 4 * SQ, MARGIN + 7 * SQ));
        assert_eq!(corner("a8".parse().unwrap()), (MARGIN, MARGIN));
    }
}
