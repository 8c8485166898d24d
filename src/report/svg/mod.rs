//! Line charts as inline `<svg>` for the self-contained HTML report: axes, ticks, legend and lines,
//! as pure functions from data to text (no fonts, scripts or files referenced).
//!
//! Hand-written rather than `plotters` (tried 0.3.7 with `svg_backend`, no `ttf`): its legend is
//! drawn inside the plot over the data, the last x tick label is clipped at the edge, time ticks
//! fall on plain numeric steps (1:40, 3:20 ...), series get no `<title>`/class so tooltips and tests
//! cannot find them, dashed lines become one element per dash, and the `<svg>` has a fixed pixel
//! size instead of scaling with the page. Each of those is a few lines here.

mod ticks;

use ticks::*;

use super::esc;
use std::fmt::Write;

/// One line of a chart. `y` may be NaN to leave a gap (no data for that x).
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (e.g. a second run overlaid on a first).
    pub dashed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum XAxis {
    /// Seconds since the run started; ticks read 0:00, 0:30, 1:00 ... and h:mm:ss past an hour,
    /// at "nice" steps (1,2,5,10,15,30 s, 1,2,5,10,15,30 min, 1,2,3,6,12 h ...).
    Seconds,
    /// A percentile as a fraction in [0, 1): plotted at log10(1 / (1 - x)) so the tail is
    /// visible (the HdrHistogram "percentile distribution" plot); ticks 0%, 90%, 99%, 99.9%,
    /// 99.99% ... up to the largest x present.
    Percentile,
    /// Plain numbers (e.g. concurrency: 50, 100, 250, 500): a sweep's load.
    Linear,
}

#[derive(Debug, Clone)]
pub(crate) struct Chart {
    /// DOM id of the `<svg>` (tests find charts by it). Plain `[a-z0-9-]`.
    pub id: String,
    pub title: String,
    pub x: XAxis,
    pub x_label: String,
    /// Unit/label of the y axis, e.g. "requests/s", "ms", "users", "errors/s".
    pub y_label: String,
    pub lines: Vec<Line>,
}

const WIDTH: f64 = 1000.0;
const PLOT_TOP: f64 = 44.0;
const PLOT_HEIGHT: f64 = 300.0;
// Room right of the plot for half of the last x tick label ("10:00:00", "99.9999%").
const RIGHT: f64 = 36.0;
const FONT_SIZE: f64 = 12.0;
const LEGEND_ROW: f64 = 20.0;
const LEGEND_SWATCH: f64 = 28.0;
// Longer names are cut in the legend; the full name stays in its tooltip.
const LEGEND_MAX_CHARS: usize = 48;
const FONTS: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";

// Okabe–Ito without its yellow, which vanishes on white paper.
const COLORS: [&str; 7] = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000"];
// Cycled with a period (3) coprime to the colours' (7), so up to 21 lines each look different, and
// neighbours differ in grayscale print too. Dashed lines have their own set so "dashed" keeps
// meaning "the other run".
const SOLID_DASHES: [&str; 3] = ["", "10 3 2 3", "2 3"];
const DASHED_DASHES: [&str; 3] = ["8 5", "16 4 4 4", "5 3"];

/// The chart as one `<svg ...>...</svg>` element.
pub(crate) fn render(chart: &Chart) -> String {
    let series: Vec<Vec<Vec<(f64, f64)>>> = chart.lines.iter().map(|l| runs(chart.x, &l.points)).collect();
    let all = || series.iter().flatten().flatten();

    let (mut y_lo, mut y_hi) = (0.0f64, 0.0f64);
    for &(_, y) in all() {
        y_lo = y_lo.min(y);
        y_hi = y_hi.max(y);
    }
    if y_lo == y_hi {
        y_hi = 1.0;
    }
    let y_axis = nice_ticks(y_lo, y_hi, 5, true);
    let y_labels: Vec<String> = y_axis.values.iter().map(|&v| compact(v, y_axis.step)).collect();

    let (x_lo, x_hi) = x_range(chart.x, all().map(|&(x, _)| x));
    let plot_left = 34.0 + y_labels.iter().map(|s| text_width(s)).fold(0.0, f64::max) + 8.0;
    let plot_right = WIDTH - RIGHT;
    let target = ((plot_right - plot_left) / 110.0).round().max(2.0) as usize;
    let x_axis = match chart.x {
        XAxis::Seconds => seconds_ticks(x_lo, x_hi, target),
        // Data ending just short of a decade (99.98%) gets that decade's label at the edge.
        XAxis::Percentile if x_hi.ceil() - x_hi < 0.25 => percentile_ticks(x_hi.ceil()),
        XAxis::Percentile => percentile_ticks(x_hi),
        XAxis::Linear => nice_ticks(x_lo, x_hi, target, true),
    };
    let x_labels: Vec<String> = x_axis
        .values
        .iter()
        .map(|&v| match chart.x {
            XAxis::Seconds => clock(v, x_axis.step),
            XAxis::Percentile => percent_label(v),
            XAxis::Linear => compact(v, x_axis.step),
        })
        .collect();

    let plot_bottom = PLOT_TOP + PLOT_HEIGHT;
    let sx = Scale { lo: x_axis.lo, hi: x_axis.hi, from: plot_left, to: plot_right };
    let sy = Scale { lo: y_axis.lo, hi: y_axis.hi, from: plot_bottom, to: PLOT_TOP };

    let legend = if chart.lines.len() > 1 { legend_layout(&chart.lines, plot_left, plot_right) } else { vec![] };
    let legend_top = plot_bottom + 58.0;
    let legend_rows = legend.iter().map(|item| item.row + 1).max().unwrap_or(0);
    let height = if legend_rows > 0 { legend_top + legend_rows as f64 * LEGEND_ROW + 6.0 } else { plot_bottom + 54.0 };

    let id = esc(&chart.id);
    let mut s = String::with_capacity(4096 + all().count() * 12);
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" id="{id}" class="chart" viewBox="0 0 {w} {h}" width="100%" role="img" aria-labelledby="{id}-title" font-family="{FONTS}" font-size="{FONT_SIZE}" fill="#000">"##,
        w = num(WIDTH),
        h = num(height)
    );
    let _ = write!(s, r#"<title id="{id}-title">{}</title>"#, esc(&chart.title));
    let _ = write!(s, r##"<rect width="{}" height="{}" fill="#fff"/>"##, num(WIDTH), num(height));
    let _ = write!(
        s,
        r#"<text x="{}" y="26" text-anchor="middle" font-size="16" font-weight="bold">{}</text>"#,
        num(WIDTH / 2.0),
        esc(&chart.title)
    );

    // Gridlines and ticks first, so lines are drawn over them.
    s.push_str(r##"<g stroke="#d9d9d9" stroke-width="1">"##);
    for &v in &y_axis.values {
        let y = sy.at(v);
        let _ = write!(s, r#"<path d="M{},{}H{}"/>"#, num(plot_left), num(y), num(plot_right));
    }
    for &v in &x_axis.values {
        let x = sx.at(v);
        let _ = write!(s, r##"<path d="M{},{}V{}" stroke="#eeeeee"/>"##, num(x), num(PLOT_TOP), num(plot_bottom));
    }
    s.push_str("</g>");

    s.push_str(r#"<g text-anchor="end">"#);
    for (&v, label) in y_axis.values.iter().zip(&y_labels) {
        let _ =
            write!(s, r#"<text x="{}" y="{}" dy="0.32em">{}</text>"#, num(plot_left - 8.0), num(sy.at(v)), esc(label));
    }
    s.push_str("</g>");
    s.push_str(r#"<g text-anchor="middle">"#);
    for (&v, label) in x_axis.values.iter().zip(&x_labels) {
        let x = sx.at(v);
        let _ = write!(
            s,
            r##"<path d="M{x},{b}v5" stroke="#333"/><text x="{x}" y="{y}">{}</text>"##,
            esc(label),
            x = num(x),
            b = num(plot_bottom),
            y = num(plot_bottom + 19.0)
        );
    }
    s.push_str("</g>");
    let _ = write!(
        s,
        r##"<path d="M{l},{t}V{b}H{r}" fill="none" stroke="#333" stroke-width="1"/>"##,
        l = num(plot_left),
        t = num(PLOT_TOP),
        b = num(plot_bottom),
        r = num(plot_right)
    );
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        num((plot_left + plot_right) / 2.0),
        num(plot_bottom + 40.0),
        esc(&chart.x_label)
    );
    let mid = num(PLOT_TOP + PLOT_HEIGHT / 2.0);
    let _ = write!(
        s,
        r#"<text x="16" y="{mid}" text-anchor="middle" transform="rotate(-90 16 {mid})">{}</text>"#,
        esc(&chart.y_label)
    );

    if all().next().is_none() {
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" text-anchor="middle" fill="#666">no data</text>"##,
            num((plot_left + plot_right) / 2.0),
            mid
        );
    }

    for (i, (line, runs)) in chart.lines.iter().zip(&series).enumerate() {
        if runs.is_empty() {
            continue;
        }
        let (color, dash) = style(&chart.lines, i);
        let name = esc(&line.name);
        let _ = write!(s, r#"<g class="line" data-name="{name}"><title>{name}</title>"#);
        let mut d = String::new();
        let mut dots = String::new();
        for run in runs {
            if let [(x, y)] = run[..] {
                let _ = write!(dots, r#"<circle cx="{}" cy="{}" r="3.5"/>"#, num(sx.at(x)), num(sy.at(y)));
                continue;
            }
            for (j, &(x, y)) in run.iter().enumerate() {
                let _ = write!(d, "{}{},{}", if j == 0 { "M" } else { " " }, num(sx.at(x)), num(sy.at(y)));
            }
        }
        if !d.is_empty() {
            let _ = write!(
                s,
                r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="1.75" stroke-linejoin="round"{}/>"#,
                dash_attr(dash)
            );
        }
        if !dots.is_empty() {
            let _ = write!(s, r#"<g fill="{color}">{dots}</g>"#);
        }
        s.push_str("</g>");
    }

    if !legend.is_empty() {
        s.push_str(r#"<g class="legend">"#);
        for (i, item) in legend.iter().enumerate() {
            let line = &chart.lines[i];
            let (color, dash) = style(&chart.lines, i);
            let x = item.x;
            let y = legend_top + item.row as f64 * LEGEND_ROW;
            let empty = series[i].is_empty();
            let _ = write!(
                s,
                r#"<g><title>{}</title><path d="M{},{}h{}" stroke="{color}" stroke-width="2.5"{}/><text x="{}" y="{}" dy="0.32em">{}{}</text></g>"#,
                esc(&line.name),
                num(x),
                num(y),
                num(LEGEND_SWATCH),
                dash_attr(dash),
                num(x + LEGEND_SWATCH + 6.0),
                num(y),
                esc(&item.label),
                if empty { " (no data)" } else { "" }
            );
        }
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    s
}

/// A line's drawable points in plot coordinates (x already transformed for the axis), split into
/// runs at gaps: any point with a non-finite or out-of-domain coordinate ends a run.
fn runs(axis: XAxis, points: &[(f64, f64)]) -> Vec<Vec<(f64, f64)>> {
    let mut out = vec![];
    let mut run = vec![];
    for &(x, y) in points {
        let x = match axis {
            // 100% itself would sit at infinity; HdrHistogram's own plots drop it the same way.
            XAxis::Percentile if (0.0..1.0).contains(&x) => -(1.0 - x).log10(),
            XAxis::Percentile => f64::NAN,
            _ => x,
        };
        if x.is_finite() && y.is_finite() {
            run.push((x, y));
        } else if !run.is_empty() {
            out.push(std::mem::take(&mut run));
        }
    }
    if !run.is_empty() {
        out.push(run);
    }
    out
}

fn x_range(axis: XAxis, xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in xs {
        lo = lo.min(x);
        hi = hi.max(x);
    }
    if axis == XAxis::Percentile {
        lo = 0.0;
        hi = hi.max(0.0);
        return (lo, if hi > 0.0 { hi } else { 1.0 });
    }
    if lo > hi {
        return (0.0, 1.0);
    }
    if lo == hi {
        // One x only: centre it in a small window rather than divide by zero.
        let half = (lo.abs() * 0.1).max(1.0);
        let floor = if axis == XAxis::Seconds && lo >= 0.0 { 0.0 } else { f64::NEG_INFINITY };
        return ((lo - half).max(floor), lo + half);
    }
    (lo, hi)
}

/// A coordinate with one decimal, without a trailing ".0".
fn num(v: f64) -> String {
    let s = format!("{:.1}", v);
    let s = s.strip_suffix(".0").unwrap_or(&s);
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

fn style(lines: &[Line], i: usize) -> (&'static str, &'static str) {
    let dashed = lines[i].dashed;
    let k = lines[..i].iter().filter(|l| l.dashed == dashed).count();
    let set = if dashed { &DASHED_DASHES } else { &SOLID_DASHES };
    (COLORS[i % COLORS.len()], set[k % set.len()])
}

fn dash_attr(dash: &str) -> String {
    if dash.is_empty() {
        String::new()
    } else {
        format!(r#" stroke-dasharray="{dash}""#)
    }
}

struct LegendItem {
    label: String,
    x: f64,
    row: usize,
}

/// Legend entries flowed left to right under the x axis title, wrapping at the plot's width, so
/// they never cover data however many lines there are.
fn legend_layout(lines: &[Line], left: f64, right: f64) -> Vec<LegendItem> {
    let (mut x, mut row) = (left, 0);
    let mut items = vec![];
    for line in lines {
        let mut label: String = line.name.chars().take(LEGEND_MAX_CHARS).collect();
        if line.name.chars().count() > LEGEND_MAX_CHARS {
            label.push('…');
        }
        let width = LEGEND_SWATCH + 6.0 + text_width(&label) + 24.0;
        if x > left && x + width > right {
            x = left;
            row += 1;
        }
        items.push(LegendItem { label, x, row });
        x += width;
    }
    items
}

// Without font metrics, a generous average advance: 0.62 em per Latin character, 1 em for wide
// (CJK) ones. Overestimating only costs some whitespace.
fn text_width(s: &str) -> f64 {
    s.chars().map(|c| if c as u32 >= 0x1100 { 1.0 } else { 0.62 }).sum::<f64>() * FONT_SIZE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str, points: Vec<(f64, f64)>) -> Line {
        Line { name: name.into(), points, dashed: false }
    }

    fn chart(x: XAxis, lines: Vec<Line>) -> Chart {
        Chart {
            id: "c-1".into(),
            title: "Throughput".into(),
            x,
            x_label: "elapsed".into(),
            y_label: "requests/s".into(),
            lines,
        }
    }

    /// Parses the output and returns (svg id, number of line groups, all text).
    fn parse(svg: &str) -> (String, usize, String) {
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        let lines = doc.descendants().filter(|n| n.attribute("class") == Some("line")).count();
        let text: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
        (root.attribute("id").unwrap_or_default().to_string(), lines, text.join("|"))
    }

    fn ramp(n: usize, scale: f64) -> Vec<(f64, f64)> {
        (0..n).map(|i| (i as f64, i as f64 * scale)).collect()
    }

    #[test]
    fn parses_with_id_and_one_group_per_non_empty_line() {
        let c = chart(
            XAxis::Seconds,
            vec![
                line("a", ramp(100, 2.0)),
                line("empty", vec![]),
                line("b", ramp(50, 1.0)),
                line("nan", vec![(1.0, f64::NAN)]),
            ],
        );
        let svg = render(&c);
        let (id, lines, text) = parse(&svg);
        assert_eq!(id, "c-1");
        assert_eq!(lines, 2);
        assert!(text.contains("Throughput") && text.contains("requests/s") && text.contains("elapsed"));
        assert!(text.contains("empty (no data)"), "{text}");
        assert!(svg.contains(r#"width="100%""#) && svg.contains("viewBox="));
        assert!(!svg.contains("url(") && !svg.contains("href"), "nothing external");
    }

    #[test]
    fn escapes_names_and_titles() {
        let mut c =
            chart(XAxis::Linear, vec![line(r#"GET /a?x=1&y=<2> "q" 'x'"#, ramp(3, 1.0)), line("b\u{1}", ramp(3, 2.0))]);
        c.title = r#"<script>&"#.into();
        c.y_label = "\"ms\"".into();
        let svg = render(&c);
        let (_, lines, text) = parse(&svg);
        assert_eq!(lines, 2);
        assert!(text.contains(r#"GET /a?x=1&y=<2> "q" 'x'"#));
        assert!(text.contains("<script>&"));
        assert!(!svg.contains("<script"));
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let names: Vec<&str> = doc.descendants().filter_map(|n| n.attribute("data-name")).collect();
        assert_eq!(names, [r#"GET /a?x=1&y=<2> "q" 'x'"#, "b"]);
    }

    #[test]
    fn edge_cases_render_without_panic() {
        let big = f64::MAX;
        let cases: Vec<(XAxis, Vec<Line>)> = vec![
            (XAxis::Seconds, vec![]),
            (XAxis::Seconds, vec![line("empty", vec![])]),
            (XAxis::Seconds, vec![line("one", vec![(5.0, 3.0)])]),
            (XAxis::Seconds, vec![line("zero", vec![(0.0, 0.0), (10.0, 0.0)])]),
            (XAxis::Linear, vec![line("same x", vec![(7.0, 1.0), (7.0, 2.0)])]),
            (XAxis::Linear, vec![line("nan", vec![(f64::NAN, 1.0), (1.0, f64::INFINITY), (2.0, f64::NEG_INFINITY)])]),
            (XAxis::Linear, vec![line("huge", vec![(0.0, big), (1.0, big / 3.0), (big, 1e300)])]),
            (XAxis::Linear, vec![line("negative", vec![(-5.0, -big), (5.0, big)])]),
            (XAxis::Linear, vec![line("tiny", vec![(0.0, 1e-300), (1e-300, 2e-300)])]),
            (XAxis::Percentile, vec![line("p", vec![(0.0, 1.0), (1.0, 9.0), (-0.5, 2.0), (0.5, 2.0)])]),
            (XAxis::Percentile, vec![line("p0", vec![(0.0, 1.0)])]),
            (XAxis::Percentile, vec![line("p-tail", vec![(0.0, 1.0), (1.0 - f64::EPSILON, 2.0)])]),
            (XAxis::Seconds, vec![line("long run", vec![(0.0, 1.0), (86400.0 * 30.0, 2.0)])]),
            (XAxis::Seconds, vec![line("sub-second", vec![(0.0, 1.0), (0.3, 2.0)])]),
        ];
        for (axis, lines) in cases {
            let name = lines.first().map(|l| l.name.clone()).unwrap_or_default();
            let svg = render(&chart(axis, lines));
            parse(&svg);
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{name}: {svg}");
        }
        let (_, _, text) = parse(&render(&chart(XAxis::Seconds, vec![])));
        assert!(text.contains("no data"));
    }

    #[test]
    fn single_points_and_gaps() {
        let svg = render(&chart(XAxis::Seconds, vec![line("one", vec![(5.0, 3.0)])]));
        assert_eq!(svg.matches("<circle").count(), 1);
        let (_, lines, _) = parse(&svg);
        assert_eq!(lines, 1);

        // A gap splits the path into two runs (two "M"s) in one element; an isolated point is a dot.
        let pts = vec![(0.0, 1.0), (1.0, 2.0), (2.0, f64::NAN), (3.0, 2.0), (4.0, 1.0), (5.0, f64::NAN), (6.0, 1.0)];
        let svg = render(&chart(XAxis::Seconds, vec![line("gappy", pts)]));
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let g = doc.descendants().find(|n| n.attribute("class") == Some("line")).unwrap();
        let paths: Vec<_> = g.descendants().filter(|n| n.has_tag_name("path")).collect();
        assert_eq!(paths.len(), 1);
        assert_eq!(paths[0].attribute("d").unwrap().matches('M').count(), 2);
        assert_eq!(g.descendants().filter(|n| n.has_tag_name("circle")).count(), 1);
        assert_eq!(g.descendants().find(|n| n.has_tag_name("title")).and_then(|n| n.text()), Some("gappy"));
    }

    #[test]
    fn many_points_stay_small_and_deterministic() {
        let lines: Vec<Line> = (0..20)
            .map(|i| Line {
                name: format!("line {i}"),
                points: (0..1000)
                    .map(|t| (t as f64 * 3.0, 1000.0 + (t as f64 / 10.0 + i as f64).sin() * 300.0))
                    .collect(),
                dashed: i % 2 == 1,
            })
            .collect();
        let c = chart(XAxis::Seconds, lines);
        let svg = render(&c);
        assert_eq!(svg, render(&c));
        assert!(svg.len() < 20 * 1000 * 14 + 20_000, "{} bytes", svg.len());
        let (_, n, _) = parse(&svg);
        assert_eq!(n, 20);
        // Every line looks different: no two share colour and dash pattern.
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let looks: Vec<(String, String)> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("line"))
            .filter_map(|g| g.descendants().find(|n| n.has_tag_name("path")))
            .map(|p| (p.attribute("stroke").unwrap_or("").into(), p.attribute("stroke-dasharray").unwrap_or("").into()))
            .collect();
        let mut unique = looks.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), looks.len());
    }

    #[test]
    fn legend_only_for_several_lines_and_below_the_plot() {
        let one = render(&chart(XAxis::Linear, vec![line("only", ramp(5, 1.0))]));
        assert!(!one.contains(r#"class="legend""#));
        let names: Vec<Line> =
            (0..12).map(|i| line(&format!("a rather long request name number {i}"), ramp(5, 1.0))).collect();
        let svg = render(&chart(XAxis::Linear, names));
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let legend = doc.descendants().find(|n| n.attribute("class") == Some("legend")).unwrap();
        let view: Vec<f64> =
            doc.root_element().attribute("viewBox").unwrap().split(' ').map(|v| v.parse().unwrap()).collect();
        for t in legend.descendants().filter(|n| n.has_tag_name("text")) {
            let x: f64 = t.attribute("x").unwrap().parse().unwrap();
            let y: f64 = t.attribute("y").unwrap().parse().unwrap();
            assert!(y > PLOT_TOP + PLOT_HEIGHT + 40.0 && y < view[3], "legend row at {y}");
            let end = x + text_width(t.text().unwrap());
            assert!(end <= WIDTH - RIGHT + 24.0, "legend entry runs to {end}");
        }
    }

    #[test]
    fn nice_ticks_table() {
        let cases: [(f64, f64, &[f64]); 5] = [
            (0.0, 87.0, &[0.0, 20.0, 40.0, 60.0, 80.0, 100.0]),
            (0.0, 1.0, &[0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
            (0.0, 12_345_678.0, &[0.0, 5e6, 10e6, 15e6]),
            (0.0, 0.003, &[0.0, 0.001, 0.002, 0.003]),
            (-7.0, 23.0, &[-10.0, 0.0, 10.0, 20.0, 30.0]),
        ];
        for (lo, hi, want) in cases {
            let t = nice_ticks(lo, hi, 5, true);
            assert_eq!(t.values.len(), want.len(), "{lo}..{hi}: {:?}", t.values);
            for (got, want) in t.values.iter().zip(want) {
                assert!((got - want).abs() <= want.abs() * 1e-12, "{lo}..{hi}: {:?}", t.values);
            }
            assert_eq!((t.lo, t.hi), (want[0], want[want.len() - 1]));
        }
        let labels: Vec<String> =
            nice_ticks(0.0, 12_345_678.0, 5, true).values.iter().map(|&v| compact(v, 5e6)).collect();
        assert_eq!(labels, ["0", "5M", "10M", "15M"]);
    }

    #[test]
    fn compact_labels() {
        assert_eq!(compact(1200.0, 200.0), "1.2k");
        assert_eq!(compact(0.25, 0.05), "0.25");
        assert_eq!(compact(15_000_000.0, 5e6), "15M");
        assert_eq!(compact(200.0, 200.0), "200");
        assert_eq!(compact(1000.0, 200.0), "1k");
        assert_eq!(compact(1002.0, 2.0), "1.002k");
        assert_eq!(compact(-3e9, 1e9), "-3G");
        assert_eq!(compact(0.0, 1.0), "0");
    }

    #[test]
    fn seconds_labels() {
        assert_eq!(clock(0.0, 30.0), "0:00");
        assert_eq!(clock(90.0, 30.0), "1:30");
        assert_eq!(clock(3600.0, 600.0), "1:00:00");
        assert_eq!(clock(5400.0 + 5.0, 5.0), "1:30:05");
        assert_eq!(clock(1.5, 0.5), "0:01.5");
        let t = seconds_ticks(0.0, 600.0, 8);
        let labels: Vec<String> = t.values.iter().map(|&v| clock(v, t.step)).collect();
        assert_eq!(labels, ["0:00", "2:00", "4:00", "6:00", "8:00", "10:00"]);
        let t = seconds_ticks(0.0, 7200.0, 8);
        assert_eq!(t.step, 900.0);
        assert_eq!(clock(t.values[4], t.step), "1:00:00");
    }

    #[test]
    fn percentile_ticks_to_the_largest_x() {
        let svg =
            render(&chart(XAxis::Percentile, vec![line("p", vec![(0.0, 1.0), (0.5, 2.0), (0.9, 3.0), (0.999, 9.0)])]));
        let (_, _, text) = parse(&svg);
        for want in ["0%", "90%", "99%", "99.9%"] {
            assert!(text.split('|').any(|t| t == want), "{want} in {text}");
        }
        assert!(!text.contains("99.99%"));

        let svg = render(&chart(XAxis::Percentile, vec![line("p", vec![(0.0, 1.0), (0.99985, 9.0)])]));
        let (_, _, text) = parse(&svg);
        assert!(text.split('|').any(|t| t == "99.99%"), "{text}");
        assert_eq!(percent_label(5.0), "99.999%");
    }
}
