//! `screenshot {badges: true}`: each clickable thing's ref drawn on the image, so a model that
//! sees only pixels (a canvas app, a custom widget) can act on what it sees with
//! `computer {ref}`.
//!
//! What is clickable and where comes from `page.js`'s `badges()` in Porthole's isolated world
//! (the page's scripts cannot change what it finds); the drawing is done here, on the decoded
//! screenshot, so nothing is ever added to the page and a page cannot draw a badge of its own
//! into what the model takes for Porthole's. Labels use a built-in 3×5 pixel font (digits and
//! `e`), scaled with the device pixel ratio.

use image::{Rgb, RgbImage};

/// One badge: the ref and the element's box in viewport CSS pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Badge {
    pub label: String,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// The badge colour (a magenta few pages use) and the label's text colour.
const INK: Rgb<u8> = Rgb([224, 0, 122]);
const PAPER: Rgb<u8> = Rgb([255, 255, 255]);

/// Rows of a 3×5 glyph, top first; bit 2 is the left column.
fn glyph(c: char) -> Option<[u8; 5]> {
    Some(match c {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b001, 0b001, 0b001],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        'e' => [0b111, 0b101, 0b111, 0b100, 0b111],
        _ => return None,
    })
}

/// Fills the rectangle `[x0, x1) × [y0, y1)` (clipped to the image).
fn fill(img: &mut RgbImage, x0: i64, y0: i64, x1: i64, y1: i64, colour: Rgb<u8>) {
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    for y in y0.max(0)..y1.min(h) {
        for x in x0.max(0)..x1.min(w) {
            img.put_pixel(x as u32, y as u32, colour);
        }
    }
}

/// Draws every badge: a thin outline round the element and its ref in a filled label at the
/// top-left corner (kept inside the image). `scale` is image pixels per CSS pixel.
pub fn draw(img: &mut RgbImage, badges: &[Badge], scale: f64) {
    let px = |v: f64| (v * scale).round() as i64;
    let s = (2.0 * scale).round().max(2.0) as i64; // one font pixel
    let line = scale.round().max(1.0) as i64;
    for badge in badges {
        let (x0, y0) = (px(badge.x), px(badge.y));
        let (x1, y1) = (px(badge.x + badge.w), px(badge.y + badge.h));
        fill(img, x0, y0, x1, y0 + line, INK);
        fill(img, x0, y1 - line, x1, y1, INK);
        fill(img, x0, y0, x0 + line, y1, INK);
        fill(img, x1 - line, y0, x1, y1, INK);
        let glyphs: Vec<[u8; 5]> = badge.label.chars().filter_map(glyph).collect();
        let width = glyphs.len() as i64 * 4 * s + s;
        let height = 7 * s;
        let lx = x0.min(i64::from(img.width()) - width).max(0);
        let ly = y0.min(i64::from(img.height()) - height).max(0);
        fill(img, lx, ly, lx + width, ly + height, INK);
        for (i, rows) in glyphs.iter().enumerate() {
            let gx = lx + s + i as i64 * 4 * s;
            for (row, bits) in rows.iter().enumerate() {
                for col in 0..3 {
                    if bits & (0b100 >> col) != 0 {
                        let (x, y) = (gx + col * s, ly + s + row as i64 * s);
                        fill(img, x, y, x + s, y + s, PAPER);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_badge_outlines_its_element_and_writes_its_ref() {
        let mut img = RgbImage::from_pixel(200, 100, Rgb([0, 0, 0]));
        let badge = Badge {
            label: "e7".into(),
            x: 50.0,
            y: 20.0,
            w: 60.0,
            h: 40.0,
        };
        draw(&mut img, &[badge], 1.0);
        // The outline's bottom-right corner, the label's background and a lit font pixel.
        assert_eq!(*img.get_pixel(109, 59), INK);
        assert_eq!(*img.get_pixel(50, 20), INK);
        assert_eq!(*img.get_pixel(52, 22), PAPER, "top-left pixel of `e`");
        // Outside the element nothing changed.
        assert_eq!(*img.get_pixel(10, 90), Rgb([0, 0, 0]));
        // A badge at the edge keeps its label inside the image.
        let edge = Badge {
            label: "e123".into(),
            x: 195.0,
            y: 95.0,
            w: 5.0,
            h: 5.0,
        };
        draw(&mut img, &[edge], 1.0);
        assert_eq!(*img.get_pixel(199, 99), INK);
        assert!(glyph('x').is_none());
    }
}
