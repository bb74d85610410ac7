//! The attention heatmap: drawn on a canvas (thousands of SVG elements cost the page thread
//! hundreds of milliseconds), exported as SVG markup built from the same data.

use wasm_bindgen::JsCast;

/// Side of a cell, and the least and most width of the label margins, in CSS pixels.
pub const CELL: f64 = 26.0;
pub const LABEL: f64 = 110.0;
const MOST_LABEL: f64 = 240.0;
/// About the width of a character of `FONT` (a label's width is known before a canvas measures it,
/// and the SVG export has none).
const CHAR: f64 = 6.5;
const FONT: &str = "11px sans-serif";
const HOT: &str = "#e8590c";

/// What one heatmap shows: `weights[row][col]` and the labels of its rows and columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Heatmap {
    pub weights: Vec<Vec<f32>>,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
}

impl Heatmap {
    /// The left margin (row labels) and the top one (column labels, leaning at 60°): wide enough for
    /// the longest label (a pooled map's "first…last (i–j)"), within `LABEL..=MOST_LABEL`.
    pub fn margins(&self) -> (f64, f64) {
        let fit = |w: f64| w.clamp(LABEL, MOST_LABEL);
        (fit(longest(&self.row_labels) + 12.0), fit(longest(&self.col_labels) * 0.87 + 10.0))
    }

    /// Width and height in CSS pixels.
    pub fn size(&self) -> (f64, f64) {
        let (left, top) = self.margins();
        // The column labels lean right (60°) from 0.6 of their cell, so the right margin holds the last one's tail.
        let tail =
            (longest(&self.col_labels[self.col_labels.len().saturating_sub(1)..]) * 0.5 - 0.4 * CELL + 10.0).max(60.0);
        (left + self.col_labels.len() as f64 * CELL + tail, top + self.weights.len() as f64 * CELL + 10.0)
    }

    /// Where the row labels are drawn: at the visible left edge of a map scrolled `scrolled` pixels
    /// to the right (on a phone the map is wider than the screen, and rows without their words
    /// cannot be read), never past the map's right edge.
    pub fn labels_at(&self, scrolled: f64) -> f64 {
        scrolled.clamp(0.0, (self.size().0 - self.margins().0).max(0.0))
    }

    /// The cell under a point given in CSS pixels from the heatmap's top left corner, with the map
    /// scrolled `scrolled` pixels to the right (nothing under the row labels).
    pub fn cell_at(&self, x: f64, y: f64, scrolled: f64) -> Option<(usize, usize)> {
        let (left, top) = self.margins();
        if x < self.labels_at(scrolled) + left || y < top {
            return None;
        }
        let (r, c) = (((y - top) / CELL) as usize, ((x - left) / CELL) as usize);
        (r < self.weights.len() && c < self.weights[r].len()).then_some((r, c))
    }

    /// "Mann → man: 0.832" for the cell at `(row, col)`, if there is one.
    pub fn describe(&self, (r, c): (usize, usize)) -> Option<String> {
        let w = *self.weights.get(r)?.get(c)?;
        let (row, col) = (self.row_labels.get(r)?, self.col_labels.get(c)?);
        Some(format!("{} → {}: {w:.3}", row.trim(), col.trim()))
    }

    /// The cell `(rows, columns)` away from `from`, kept inside the map; the first cell when
    /// there is none yet.
    pub fn step(&self, from: Option<(usize, usize)>, (dr, dc): (isize, isize)) -> Option<(usize, usize)> {
        let (nr, nc) = (self.weights.len(), self.col_labels.len());
        if nr == 0 || nc == 0 {
            return None;
        }
        let Some((r, c)) = from else { return Some((0, 0)) };
        let clamp = |x: usize, d: isize, n: usize| x.saturating_add_signed(d).min(n - 1);
        Some((clamp(r, dr, nr), clamp(c, dc, nc)))
    }

    /// The whole heatmap as a standalone SVG document: a rect per cell carrying its position and
    /// weight, with the weight as tooltip.
    pub fn svg(&self) -> String {
        let ((w, h), (left, top)) = (self.size(), self.margins());
        let mut out = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11"><rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>"##
        );
        for (c, t) in self.col_labels.iter().enumerate() {
            let (x, y) = (left + (c as f64 + 0.6) * CELL, top - 4.0);
            out.push_str(&format!(
                r#"<text transform="translate({x}, {y}) rotate(-60)">{}</text>"#,
                xml_escape(&shown(t))
            ));
        }
        for (r, t) in self.row_labels.iter().enumerate() {
            let (x, y) = (left - 6.0, top + (r as f64 + 0.7) * CELL);
            out.push_str(&format!(r#"<text x="{x}" y="{y}" text-anchor="end">{}</text>"#, xml_escape(&shown(t))));
        }
        for (r, row) in self.weights.iter().enumerate() {
            for (c, &wt) in row.iter().enumerate() {
                let (x, y, side, fill) = (left + c as f64 * CELL, top + r as f64 * CELL, CELL - 1.0, fill(wt));
                out.push_str(&format!(
                    r#"<rect data-row="{r}" data-col="{c}" data-weight="{wt:.6}" x="{x}" y="{y}" width="{side}" height="{side}" fill="{fill}"><title>{wt:.3}</title></rect>"#
                ));
            }
        }
        out.push_str("</svg>");
        out
    }

    /// Draws the heatmap on `canvas` at the screen's pixel density, the hovered cell's row and
    /// column outlined and their labels highlighted, the row labels kept in view of a map scrolled
    /// `scrolled` pixels to the right. `cells` is `cell_image()`, made once per map (a scroll redraws).
    pub fn draw(
        &self,
        canvas: &web_sys::HtmlCanvasElement,
        cells: Option<&web_sys::HtmlCanvasElement>,
        scale: f64,
        hover: Option<(usize, usize)>,
        scrolled: f64,
    ) {
        let ((w, h), (left, top)) = (self.size(), self.margins());
        // A new size clears and reallocates the canvas: only when it changes.
        let (pw, ph) = ((w * scale).ceil() as u32, (h * scale).ceil() as u32);
        if (canvas.width(), canvas.height()) != (pw, ph) {
            canvas.set_width(pw);
            canvas.set_height(ph);
        }
        let Some(ctx) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        let _ = ctx.set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0);
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_rect(0.0, 0.0, w, h);
        // One pixel per cell, scaled up without smoothing, then white lines between the cells:
        // thousands of fillRect calls with their own colour cost the page thread ~60 ms.
        let (nr, nc) = (self.weights.len(), self.col_labels.len());
        if let Some(cells) = cells {
            ctx.set_image_smoothing_enabled(false);
            let _ = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
                cells,
                left,
                top,
                nc as f64 * CELL,
                nr as f64 * CELL,
            );
        }
        ctx.set_fill_style_str("#ffffff");
        for c in 1..=nc {
            ctx.fill_rect(left + c as f64 * CELL - 1.0, top, 1.0, nr as f64 * CELL);
        }
        for r in 1..=nr {
            ctx.fill_rect(left, top + r as f64 * CELL - 1.0, nc as f64 * CELL, 1.0);
        }
        ctx.set_font(FONT);
        let ink = |hot: bool| {
            ctx.set_fill_style_str(if hot { HOT } else { "#222222" });
            ctx.set_font(if hot { "bold 11px sans-serif" } else { FONT });
        };
        ctx.set_text_align("start");
        // Where the row labels are drawn: at the visible left edge.
        let pinned = self.labels_at(scrolled);
        for (c, t) in self.col_labels.iter().enumerate() {
            // A column scrolled under the row labels has no label over them.
            if (c as f64 + 0.5) * CELL < pinned {
                continue;
            }
            ink(hover.is_some_and(|x| x.1 == c));
            ctx.save();
            let _ = ctx.translate(left + (c as f64 + 0.6) * CELL, top - 4.0);
            let _ = ctx.rotate(-60f64.to_radians());
            let _ = ctx.fill_text(&shown(t), 0.0, 0.0);
            ctx.restore();
        }
        if let Some((r, c)) = hover.filter(|&(r, c)| r < self.weights.len() && c < self.col_labels.len()) {
            let (nr, nc) = (self.weights.len() as f64, self.col_labels.len() as f64);
            ctx.set_stroke_style_str("#f08c00");
            ctx.set_line_width(1.5);
            ctx.stroke_rect(left, top + r as f64 * CELL, nc * CELL, CELL);
            ctx.stroke_rect(left + c as f64 * CELL, top, CELL, nr * CELL);
        }
        // The row labels last, over the cells scrolled under them.
        ctx.set_fill_style_str("#ffffff");
        // A pixel over the map's top and bottom edges: the hovered row's outline ends under it.
        ctx.fill_rect(pinned, top - 1.0, left, nr as f64 * CELL + 2.0);
        ctx.set_text_align("end");
        for (r, t) in self.row_labels.iter().enumerate() {
            ink(hover.is_some_and(|x| x.0 == r));
            let _ = ctx.fill_text(&shown(t), pinned + left - 6.0, top + (r as f64 + 0.7) * CELL);
        }
    }

    /// A canvas with one pixel per cell in the cell's colour.
    pub fn cell_image(&self) -> Option<web_sys::HtmlCanvasElement> {
        let (nr, nc) = (self.weights.len(), self.col_labels.len());
        if nr == 0 || nc == 0 {
            return None;
        }
        let mut rgba = vec![255u8; nr * nc * 4];
        for (r, row) in self.weights.iter().enumerate() {
            for (c, &w) in row.iter().enumerate().take(nc) {
                rgba[(r * nc + c) * 4..][..3].copy_from_slice(&rgb(w));
            }
        }
        let canvas: web_sys::HtmlCanvasElement =
            web_sys::window()?.document()?.create_element("canvas").ok()?.dyn_into().ok()?;
        canvas.set_width(nc as u32);
        canvas.set_height(nr as u32);
        let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
        let image =
            web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(&rgba), nc as u32, nr as u32)
                .ok()?;
        ctx.put_image_data(&image, 0.0, 0.0).ok()?;
        Some(canvas)
    }
}

/// A cell's colour: white for 0, blue for 1; grey for a weight that is not a number.
fn rgb(weight: f32) -> [u8; 3] {
    if weight.is_nan() {
        return [160, 160, 160];
    }
    let s = (255.0 * (1.0 - weight.clamp(0.0, 1.0))).round() as u8;
    [s, s, 255]
}

fn fill(weight: f32) -> String {
    let [r, g, b] = rgb(weight);
    format!("rgb({r},{g},{b})")
}

/// The estimated width of the longest of `labels` as drawn (`shown`).
fn longest(labels: &[String]) -> f64 {
    labels.iter().map(|l| shown(l).chars().count()).max().unwrap_or(0) as f64 * CHAR
}

/// A label as drawn: one longer than the widest margin is cut, with "…" where it is.
fn shown(label: &str) -> std::borrow::Cow<'_, str> {
    let most = ((MOST_LABEL - 12.0) / CHAR) as usize;
    match label.chars().count() > most {
        true => format!("{}…", label.chars().take(most - 1).collect::<String>()).into(),
        false => label.into(),
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Heatmap {
        Heatmap {
            weights: vec![vec![0.25, 0.75], vec![1.0, 0.0]],
            row_labels: vec!["a<b".into(), "c".into()],
            col_labels: vec!["x&y".into(), "z".into()],
        }
    }

    #[test]
    fn the_svg_has_a_rect_per_cell_with_its_position_and_weight_and_escaped_labels() {
        let svg = sample().svg();
        assert_eq!(svg.matches("<rect data-row=").count(), 4);
        assert!(svg.contains(r#"data-row="0" data-col="1" data-weight="0.750000""#));
        assert!(svg.contains(">a&lt;b</text>") && svg.contains(">x&amp;y</text>"));
        assert!(svg.contains(r#"fill="rgb(0,0,255)""#) && svg.contains(r#"fill="rgb(255,255,255)""#));
    }

    #[test]
    fn the_pointer_finds_the_cell_under_it_and_nothing_in_the_margins() {
        let h = sample();
        assert_eq!(h.cell_at(LABEL + 1.0, LABEL + CELL + 1.0, 0.0), Some((1, 0)));
        assert_eq!(h.cell_at(LABEL + 2.0 * CELL - 1.0, LABEL + 1.0, 0.0), Some((0, 1)));
        assert_eq!(h.cell_at(LABEL - 1.0, LABEL + 1.0, 0.0), None);
        assert_eq!(h.cell_at(LABEL + 2.0 * CELL + 1.0, LABEL + 1.0, 0.0), None);
        // Scrolled one cell to the right: the first column is under the row labels.
        assert_eq!(h.cell_at(LABEL + 1.0, LABEL + 1.0, CELL), None);
        assert_eq!(h.cell_at(LABEL + CELL + 1.0, LABEL + 1.0, CELL), Some((0, 1)));
        assert_eq!(h.labels_at(1e6), h.size().0 - LABEL);
        // A pooled map's long labels get the room they need, up to a limit.
        let long = Heatmap { row_labels: vec!["Fahrrad…Straße (25–28)".into(), "c".into()], ..h.clone() };
        assert_eq!(long.margins(), (22.0 * CHAR + 12.0, LABEL));
        assert_eq!(long.cell_at(long.margins().0 + 1.0, LABEL + 1.0, 0.0), Some((0, 0)));
        let longer = Heatmap { col_labels: vec!["x".repeat(100), "z".into()], ..h.clone() };
        assert!(longer.margins().1 <= MOST_LABEL);
        assert!(longer.svg().contains(&format!(">{}…</text>", "x".repeat(34))), "cut to the widest margin");
        assert_eq!(h.describe((0, 1)).as_deref(), Some("a<b → z: 0.750"));
        assert_eq!(h.describe((2, 0)), None);
        assert_eq!(h.step(None, (1, 0)), Some((0, 0)));
        assert_eq!(h.step(Some((0, 0)), (-1, 1)), Some((0, 1)));
        assert_eq!(h.step(Some((1, 1)), (5, 5)), Some((1, 1)));
        assert_eq!(fill(f32::NAN), "rgb(160,160,160)");
    }
}
