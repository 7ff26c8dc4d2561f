//! Whether two screencast JPEGs show the same picture. Equal bytes are; otherwise each is
//! decoded to its [`Look`] — the mean grey of every cell of a coarse grid — and they are the
//! same picture when no cell differs by more than [`TOLERANCE`]. Chrome re-sends a still page
//! with other bytes now and then (a frame forced by a screenshot, tiles rasterised again at
//! full resolution, another encoder pass); those are not changes of the page. A typed
//! character, a ticked box or a caret moves a cell by ten levels or more.

/// Cells across and down.
const GRID: u32 = 32;
/// Largest difference of a cell's mean grey (0–255) between two looks of one picture.
const TOLERANCE: u8 = 4;

/// A frame as remembered: its bytes (shared with the screencast, not copied) and its look
/// once it was needed. Making one costs nothing: a watched tab's every frame is noted
/// (`super::changes`), and only a frame whose bytes match none of the known ones is decoded.
pub struct Picture {
    jpeg: bytes::Bytes,
    look: Option<Option<Look>>,
}

/// The mean grey of each cell of a [`GRID`]×[`GRID`] grid over the picture.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Look(Vec<u8>);

/// Whether two JPEGs are the same bytes: the same shared buffer, or equal ones (a compare that
/// stops at the first difference, cheaper than hashing every frame).
pub fn same_jpeg(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && (a.as_ptr() == b.as_ptr() || a == b)
}

impl Picture {
    pub fn of(jpeg: bytes::Bytes) -> Self {
        Picture { jpeg, look: None }
    }

    /// Whether both hold the same bytes ([`same_jpeg`]).
    fn same_bytes(&self, other: &Picture) -> bool {
        same_jpeg(&self.jpeg, &other.jpeg)
    }

    /// Whether this frame shows one of the pictures in `known`. Decodes only when no bytes
    /// match (a JPEG that does not decode is compared by its bytes alone).
    pub fn among<'a>(&mut self, known: impl IntoIterator<Item = &'a mut Picture>) -> bool {
        let mut others = Vec::new();
        for picture in known {
            if picture.same_bytes(self) {
                return true;
            }
            others.push(picture);
        }
        let Some(mine) = self.look().clone() else {
            return false;
        };
        others.into_iter().any(|other| {
            other
                .look()
                .as_ref()
                .is_some_and(|theirs| alike(&mine, theirs))
        })
    }

    fn look(&mut self) -> &Option<Look> {
        self.look.get_or_insert_with(|| look(&self.jpeg))
    }
}

/// The look of `jpeg`; `None` when it does not decode. Decoded straight to grey (the
/// decoder skips the colour planes' conversion), and each row summed into its cells through a
/// column → cell table, without a division per pixel.
fn look(jpeg: &[u8]) -> Option<Look> {
    let options = zune_core::options::DecoderOptions::default()
        .jpeg_set_out_colorspace(zune_core::colorspace::ColorSpace::Luma);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(
        zune_core::bytestream::ZCursor::new(jpeg),
        options,
    );
    let grey = decoder.decode().ok()?;
    let (width, height) = decoder.dimensions()?;
    let (width, height) = (u32::try_from(width).ok()?, u32::try_from(height).ok()?);
    if width == 0 || height == 0 || grey.len() < (width * height) as usize {
        return None;
    }
    let column_cell: Vec<usize> = (0..width).map(|x| (x * GRID / width) as usize).collect();
    let mut sums = vec![0u64; (GRID * GRID) as usize];
    let mut counts = vec![0u64; (GRID * GRID) as usize];
    for (y, row) in grey
        .chunks_exact(width as usize)
        .take(height as usize)
        .enumerate()
    {
        let first = (y as u32 * GRID / height * GRID) as usize;
        let (sums, counts) = (&mut sums[first..], &mut counts[first..]);
        for (&cell, &pixel) in column_cell.iter().zip(row) {
            sums[cell] += u64::from(pixel);
            counts[cell] += 1;
        }
    }
    Some(Look(
        sums.iter()
            .zip(&counts)
            .map(|(sum, n)| (sum / (*n).max(1)) as u8)
            .collect(),
    ))
}

fn alike(a: &Look, b: &Look) -> bool {
    a.0.len() == b.0.len()
        && a.0
            .iter()
            .zip(&b.0)
            .all(|(x, y)| x.abs_diff(*y) <= TOLERANCE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An 800×600 JPEG at `quality`: a page of fine stripes and a gradient, with a black
    /// `w`×`h` box at (100, 100).
    fn jpeg(quality: u8, w: u32, h: u32) -> Vec<u8> {
        let mut picture = image::RgbImage::from_fn(800, 600, |x, y| {
            let stripe = if (x / 3 + y / 5) % 2 == 0 { 40 } else { 0 };
            let grey = (200 + x * 50 / 800) as u8 - stripe;
            image::Rgb([grey, grey, (grey / 2).saturating_add(100)])
        });
        for y in 100..100 + h {
            for x in 100..100 + w {
                picture.put_pixel(x, y, image::Rgb([0, 0, 0]));
            }
        }
        let mut bytes = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality)
            .encode_image(&picture)
            .unwrap();
        bytes
    }

    fn same(a: &[u8], b: &[u8]) -> bool {
        let mut known = [Picture::of(bytes::Bytes::copy_from_slice(b))];
        Picture::of(bytes::Bytes::copy_from_slice(a)).among(&mut known)
    }

    #[test]
    fn one_picture_encoded_twice_is_the_same_and_a_small_change_is_not() {
        let page = jpeg(60, 200, 160);
        assert!(same(&page, &page));
        let again = jpeg(30, 200, 160);
        assert_ne!(page, again, "other bytes");
        assert!(same(&again, &page), "the same picture");
        // A caret-sized change (2×18 px) and a typed character (7×10 px).
        assert!(!same(&jpeg(60, 202, 160), &jpeg(60, 200, 160)));
        let mut typed = image::RgbImage::from_pixel(800, 600, image::Rgb([255, 255, 255]));
        for y in 300..310 {
            for x in 400..407 {
                typed.put_pixel(x, y, image::Rgb([40, 40, 40]));
            }
        }
        let mut typed_jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut typed_jpeg, 60)
            .encode_image(&typed)
            .unwrap();
        let blank = image::RgbImage::from_pixel(800, 600, image::Rgb([255, 255, 255]));
        let mut blank_jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut blank_jpeg, 60)
            .encode_image(&blank)
            .unwrap();
        assert!(!same(&typed_jpeg, &blank_jpeg));
    }

    #[test]
    fn bytes_that_are_no_jpeg_compare_by_their_bytes() {
        assert!(same(b"a", b"a"));
        assert!(!same(b"a", b"b"));
    }
}
