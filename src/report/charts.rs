//! The report's charts: bar charts drawn by plotters' SVG backend, one `<svg>` each,
//! with a title and a description for screen readers (the page gives each a table too).

use super::text::cut;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::RGBColor;
use std::ops::Range;

/// How long a category's label on the axis may be (the table beside the chart gives it
/// whole).
const LABEL_CHARS: usize = 14;

/// The widest a bar is drawn, in pixels.
const MAX_BAR: u32 = 80;

/// The most categories labelled on the x axis; with more, every second, third... is.
const X_LABELS: usize = 12;

/// The x axis: `count` categories side by side, category `at` in the slot from `at` to
/// `at + 1`, labelled at its middle (every `step`-th of them). Plotters' own axis for
/// categories, its segmented coordinates, maps every value of a range of one category to
/// one point, which drew the lone category's bar with no width (and a negative one, less
/// its margins); this axis is linear for any number of categories from one.
struct Slots {
    count: usize,
    step: usize,
}

impl Ranged for Slots {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = value / self.count.max(1) as f64;
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            // Light mesh lines: none between categories.
            return Vec::new();
        }
        (0..self.count)
            .step_by(self.step.max(1))
            .map(|at| at as f64 + 0.5)
            .collect()
    }

    fn range(&self) -> Range<f64> {
        0.0..self.count as f64
    }
}

/// The width and height every chart is drawn at; the page scales it to its column.
const SIZE: (u32, u32) = (960, 380);

/// The report's colours: a blue, an orange and a grey that colour-blind readers tell
/// apart, and a red for failures.
pub const BLUE: RGBColor = RGBColor(0x1f, 0x6f, 0xb4);
/// Second series.
pub const ORANGE: RGBColor = RGBColor(0xe6, 0x8a, 0x00);
/// Third series.
pub const GREY: RGBColor = RGBColor(0x6b, 0x6b, 0x6b);
/// Failures.
pub const RED: RGBColor = RGBColor(0xc0, 0x1c, 0x28);

/// One series of bars: its name (in the legend) and a value per category.
#[derive(Debug, Clone)]
pub struct Series {
    /// The legend's name.
    pub name: String,
    /// One value per category.
    pub values: Vec<f64>,
    /// Its colour.
    pub color: RGBColor,
}

/// A bar chart: categories along the x axis, one or more series stacked on each.
#[derive(Debug, Clone)]
pub struct BarChart<'a> {
    /// An id unique in the page, for the `<title>` and `<desc>` references.
    pub id: &'a str,
    /// The chart's title.
    pub title: &'a str,
    /// What the page says the chart shows, for a screen reader.
    pub description: &'a str,
    /// The x axis's label, with its unit.
    pub x_label: &'a str,
    /// The y axis's label, with its unit.
    pub y_label: &'a str,
    /// The categories, in order.
    pub categories: &'a [String],
    /// The series, stacked from the bottom in this order.
    pub series: Vec<Series>,
}

/// The chart as SVG text, or an error message from plotters.
pub fn bar_chart(chart: &BarChart<'_>) -> Result<String, String> {
    let count = chart.categories.len().max(1);
    let top = (0..chart.categories.len())
        .map(|at| {
            chart
                .series
                .iter()
                .map(|series| series.values.get(at).copied().unwrap_or(0.0))
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    // Room above the bars, for the legend too when there is one.
    let headroom = if chart.series.len() > 1 { 1.35 } else { 1.08 };
    let top = if top > 0.0 { top * headroom } else { 1.0 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let x_axis = Slots {
            count,
            step: count.div_ceil(X_LABELS),
        };
        let mut plot = ChartBuilder::on(&root)
            .caption(chart.title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(56)
            .y_label_area_size(72)
            .build_cartesian_2d(x_axis, 0.0..top)
            .map_err(|e| e.to_string())?;
        let categories = chart.categories;
        let label = |value: &f64| {
            // Key points sit at slot middles, so the slot is the value's whole part.
            let at = value.floor();
            if at < 0.0 {
                return String::new();
            }
            categories
                .get(at as usize)
                .map(|name| cut(name, LABEL_CHARS))
                .unwrap_or_default()
        };
        plot.configure_mesh()
            .disable_x_mesh()
            .light_line_style(TRANSPARENT)
            .x_label_formatter(&label)
            .y_labels(((top.floor() as usize) + 1).clamp(2, 11))
            .y_label_formatter(&|value| integer_or_short(*value))
            .x_desc(chart.x_label)
            .y_desc(chart.y_label)
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(|e| e.to_string())?;
        draw_series(&mut plot, &chart.series, count)?;
        if chart.series.len() > 1 {
            plot.configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK.mix(0.3))
                .label_font(("sans-serif", 14))
                .draw()
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(accessible(&svg, chart.id, chart.title, chart.description))
}

/// The series' bars, stacked, each named in the legend.
fn draw_series<DB: DrawingBackend>(
    plot: &mut ChartContext<'_, DB, Cartesian2d<Slots, RangedCoordf64>>,
    series: &[Series],
    count: usize,
) -> Result<(), String> {
    let mut base = vec![0.0; count];
    // A gap of 4 pixels each side, less in narrow slots (a bar keeps at least half its
    // slot), more in wide ones (a lone bar is a bar, not a filled plot).
    let slot = plot.plotting_area().dim_in_pixel().0 / u32::try_from(count).unwrap_or(u32::MAX);
    let gap = if slot > MAX_BAR + 8 {
        (slot - MAX_BAR) / 2
    } else {
        (slot / 4).min(4)
    };
    for series in series {
        let color = series.color;
        let bars: Vec<Rectangle<(f64, f64)>> = (0..count)
            .filter_map(|at| {
                let value = series.values.get(at).copied().unwrap_or(0.0);
                if value <= 0.0 {
                    return None;
                }
                let bottom = base[at];
                base[at] += value;
                let mut bar = Rectangle::new(
                    [(at as f64, bottom), ((at + 1) as f64, bottom + value)],
                    color.filled(),
                );
                bar.set_margin(0, 0, gap, gap);
                Some(bar)
            })
            .collect();
        plot.draw_series(bars)
            .map_err(|e| e.to_string())?
            .label(series.name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], color.filled()));
    }
    Ok(())
}

/// A tick label: the charts count things, so only whole numbers are labelled.
fn integer_or_short(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        String::new()
    }
}

/// The SVG with `role="img"`, a `<title>` and a `<desc>` that name it for screen readers,
/// and a viewBox so that it scales to the page's width.
fn accessible(svg: &str, id: &str, title: &str, description: &str) -> String {
    let Some(open_end) = svg.find('>') else {
        return svg.to_owned();
    };
    let (open, rest) = svg.split_at(open_end);
    let open = open.replacen(
        "<svg ",
        &format!(
            "<svg role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" class=\"chart\" preserveAspectRatio=\"xMidYMid meet\" "
        ),
        1,
    );
    let open = if open.contains("viewBox") {
        open
    } else {
        format!("{open} viewBox=\"0 0 {} {}\"", SIZE.0, SIZE.1)
    };
    format!(
        "{open}><title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>{}",
        super::text::escape(title),
        super::text::escape(description),
        &rest[1..]
    )
}
