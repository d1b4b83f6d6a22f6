//! A line chart on log-log axes as one standalone SVG: `xstore bench
//! scaling --svg` draws each input path's time per unit against its size.
//! The text is a function of the input only (fixed palette, fixed number
//! formats), so a chart of the same figures is the same bytes.

use crate::wave::xml_escape;

/// One line of the chart: its name in the legend and its points, `(x, y)`,
/// both above zero (the axes are logarithmic), in the order they are joined.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend's label.
    pub name: String,
    /// `(x, y)` points; a point with a coordinate not above zero is left out.
    pub points: Vec<(f64, f64)>,
}

/// The chart's title and axis labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart<'a> {
    /// Above the plot.
    pub title: &'a str,
    /// Under the x axis.
    pub x_label: &'a str,
    /// Beside the y axis.
    pub y_label: &'a str,
}

const W: f64 = 840.0;
const ROW: f64 = 16.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 280.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;
const PLOT_H: f64 = 320.0;

/// Colours and dash patterns: series `i` takes colour `i % 8` and dash
/// `(i / 8) % 3`, so neighbours differ.
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];
const DASHES: [&str; 3] = ["", "6 3", "2 2"];

/// The decades spanning `lo..=hi` (both above zero), as exponents.
fn decades(lo: f64, hi: f64) -> (i32, i32) {
    let a = lo.log10().floor() as i32;
    let b = (hi.log10().ceil() as i32).max(a + 1);
    (a, b)
}

/// `10^e` as a tick label: `1000`, `0.1`, or `1e9` past six digits.
fn tick_label(e: i32) -> String {
    match e {
        0..=6 => format!("{}", 10u64.pow(e as u32)),
        -3..=-1 => format!("{}", 10f64.powi(e)),
        _ => format!("1e{e}"),
    }
}

/// The x and y ranges (in decades) of the points above zero.
fn ranges(series: &[Series]) -> ((i32, i32), (i32, i32)) {
    let pts = || {
        series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| p.0 > 0.0 && p.1 > 0.0)
    };
    let fold = |f: fn(&(f64, f64)) -> f64| {
        pts().map(f).fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        })
    };
    let (xl, xh) = fold(|p| p.0);
    let (yl, yh) = fold(|p| p.1);
    if xh == 0.0 {
        return ((0, 1), (0, 1));
    }
    (decades(xl, xh), decades(yl, yh))
}

/// A point's place on the canvas.
struct Axes {
    x: (i32, i32),
    y: (i32, i32),
    plot_w: f64,
}

impl Axes {
    fn px(&self, x: f64) -> f64 {
        let (a, b) = self.x;
        LEFT + (x.log10() - a as f64) / (b - a) as f64 * self.plot_w
    }
    fn py(&self, y: f64) -> f64 {
        let (a, b) = self.y;
        TOP + PLOT_H - (y.log10() - a as f64) / (b - a) as f64 * PLOT_H
    }
}

/// The frame, the decade grid with its labels, and the axis labels.
fn frame(ax: &Axes, chart: &Chart<'_>, s: &mut String) {
    let (bottom, right) = (TOP + PLOT_H, LEFT + ax.plot_w);
    s.push_str(&format!(
        "<rect class=\"frame\" x=\"{LEFT:.1}\" y=\"{TOP:.1}\" width=\"{:.1}\" height=\"{PLOT_H:.1}\" \
         fill=\"none\" stroke=\"#333\"/>\n",
        ax.plot_w
    ));
    for e in ax.x.0..=ax.x.1 {
        let x = ax.px(10f64.powi(e));
        s.push_str(&format!(
            "<line x1=\"{x:.1}\" y1=\"{TOP:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" stroke=\"#ddd\"/>\n\
             <text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n",
            bottom + 16.0,
            tick_label(e)
        ));
    }
    for e in ax.y.0..=ax.y.1 {
        let y = ax.py(10f64.powi(e));
        s.push_str(&format!(
            "<line x1=\"{LEFT:.1}\" y1=\"{y:.1}\" x2=\"{right:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\n\
             <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            LEFT - 6.0,
            y + 4.0,
            tick_label(e)
        ));
    }
    s.push_str(&format!(
        "<text class=\"title\" x=\"{:.1}\" y=\"24.0\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n\
         <text class=\"x-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n\
         <text class=\"y-label\" x=\"16.0\" y=\"{:.1}\" text-anchor=\"middle\" \
         transform=\"rotate(-90 16.0 {:.1})\">{}</text>\n",
        LEFT + ax.plot_w / 2.0,
        xml_escape(chart.title),
        LEFT + ax.plot_w / 2.0,
        bottom + 38.0,
        xml_escape(chart.x_label),
        TOP + PLOT_H / 2.0,
        TOP + PLOT_H / 2.0,
        xml_escape(chart.y_label)
    ));
}

/// Each series as a polyline with a mark at each point, and its legend row.
fn lines(ax: &Axes, series: &[Series], s: &mut String) {
    let legend_x = LEFT + ax.plot_w + 16.0;
    for (i, ser) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let dash = match DASHES[(i / COLOURS.len()) % DASHES.len()] {
            "" => String::new(),
            d => format!(" stroke-dasharray=\"{d}\""),
        };
        let pts: Vec<(f64, f64)> = ser
            .points
            .iter()
            .filter(|p| p.0 > 0.0 && p.1 > 0.0)
            .map(|&(x, y)| (ax.px(x), ax.py(y)))
            .collect();
        let path: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        s.push_str(&format!(
            "<g class=\"series\"><title>{}</title>\n<polyline points=\"{}\" fill=\"none\" \
             stroke=\"{colour}\" stroke-width=\"1.5\"{dash}/>\n",
            xml_escape(&ser.name),
            path.join(" ")
        ));
        for (x, y) in &pts {
            s.push_str(&format!(
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.5\" fill=\"{colour}\"/>\n"
            ));
        }
        let ly = TOP + 8.0 + i as f64 * ROW;
        s.push_str(&format!(
            "<line x1=\"{legend_x:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" \
             stroke=\"{colour}\" stroke-width=\"1.5\"{dash}/>\n\
             <text class=\"legend\" x=\"{:.1}\" y=\"{:.1}\">{}</text></g>\n",
            legend_x + 22.0,
            legend_x + 28.0,
            ly + 4.0,
            xml_escape(&ser.name)
        ));
    }
}

/// The chart of `series` on log-log axes, with decade grid lines and
/// labels, the title and axis labels of `chart`, and a legend of one row
/// per series (in their order), as a standalone SVG document.
pub fn line_chart_svg(chart: &Chart<'_>, series: &[Series]) -> String {
    let (x, y) = ranges(series);
    let ax = Axes {
        x,
        y,
        plot_w: W - LEFT - RIGHT,
    };
    let legend_h = TOP + 8.0 + series.len() as f64 * ROW;
    let h = (TOP + PLOT_H + BOTTOM).max(legend_h);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W:.0}\" height=\"{h:.0}\" \
         viewBox=\"0 0 {W:.0} {h:.0}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
    );
    frame(&ax, chart, &mut s);
    lines(&ax, series, &mut s);
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> Chart<'static> {
        Chart {
            title: "time per unit",
            x_label: "units",
            y_label: "ns per unit",
        }
    }

    fn series() -> Vec<Series> {
        let pts = |ys: [f64; 4]| {
            [1e3, 1e4, 1e5, 1e6]
                .into_iter()
                .zip(ys)
                .collect::<Vec<(f64, f64)>>()
        };
        vec![
            Series {
                name: "hex.decode".into(),
                points: pts([3.2, 3.2, 3.1, 3.3]),
            },
            Series {
                name: "q7.<run>".into(),
                points: pts([600.0, 610.0, 650.0, 700.0]),
            },
        ]
    }

    #[test]
    fn one_polyline_per_series_with_its_points_in_order_and_the_labels() {
        let svg = line_chart_svg(&chart(), &series());
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        let lines: Vec<_> = root
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .collect();
        assert_eq!(lines.len(), 2);
        for l in &lines {
            let xs: Vec<f64> = l
                .attribute("points")
                .unwrap()
                .split(' ')
                .map(|p| p.split(',').next().unwrap().parse().unwrap())
                .collect();
            assert_eq!(xs.len(), 4);
            assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
        }
        let texts: Vec<&str> = root.descendants().filter_map(|n| n.text()).collect();
        for want in [
            "time per unit",
            "units",
            "ns per unit",
            "hex.decode",
            "q7.<run>",
        ] {
            assert!(texts.contains(&want), "no {want}: {texts:?}");
        }
        for tick in ["1000", "1000000", "1", "10", "100"] {
            assert!(texts.contains(&tick), "no tick {tick}: {texts:?}");
        }
        // The slower series is drawn higher (a smaller y).
        let first_y = |l: &roxmltree::Node| -> f64 {
            let p = l.attribute("points").unwrap().split(' ').next().unwrap();
            p.split(',').nth(1).unwrap().parse().unwrap()
        };
        assert!(first_y(&lines[1]) < first_y(&lines[0]));
    }

    #[test]
    fn the_same_figures_give_the_same_text() {
        assert_eq!(
            line_chart_svg(&chart(), &series()),
            line_chart_svg(&chart(), &series())
        );
        let empty = line_chart_svg(&chart(), &[]);
        assert!(roxmltree::Document::parse(&empty).is_ok());
        assert!(!empty.contains("<polyline"));
    }
}
