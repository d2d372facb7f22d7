//! Reports side by side: a Markdown table, and a self-contained HTML page
//! with a bar per report for every category, group and the overall score
//! (inline SVG; nothing fetched, no script).
//!
//! Both read the JSON reports `tool-use eval bfcl --json` writes, so
//! reports of earlier versions, other machines or other engines compare.

use std::fmt::Write;

use serde_json::Value;

use super::Category;

/// One report to show, under its title.
#[derive(Debug, Clone)]
pub struct Column {
    /// What the report is called in the table and the legend.
    pub title: String,
    /// The report, as `--json` wrote it.
    pub report: Value,
}

/// One row: a category, a group or the overall score, each report's
/// fraction (where it ran) and its cell text.
struct Row {
    name: String,
    cells: Vec<Option<(f64, String)>>,
}

/// The rows every report can fill: categories in BFCL's order, then the
/// groups, then the overall score.
fn rows(columns: &[Column]) -> Vec<Row> {
    let mut rows = Vec::new();
    for category in Category::ALL {
        let cells: Vec<Option<(f64, String)>> = columns
            .iter()
            .map(|c| {
                let scores = c.report["summary"]["categories"].as_array()?;
                let s = scores.iter().find(|s| s["category"] == category.name())?;
                let accuracy = s["accuracy"].as_f64()?;
                Some((
                    accuracy,
                    format!("{}/{} ({:.1}%)", s["right"], s["total"], 100.0 * accuracy),
                ))
            })
            .collect();
        if cells.iter().any(Option::is_some) {
            rows.push(Row {
                name: category.name().to_owned(),
                cells,
            });
        }
    }
    let mut groups: Vec<String> = Vec::new();
    for column in columns {
        for group in column.report["summary"]["groups"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(name) = group["group"].as_str() {
                if !groups.iter().any(|g| g == name) {
                    groups.push(name.to_owned());
                }
            }
        }
    }
    for name in groups {
        let cells = columns
            .iter()
            .map(|c| {
                let groups = c.report["summary"]["groups"].as_array()?;
                let g = groups.iter().find(|g| g["group"] == name.as_str())?;
                let accuracy = g["accuracy"].as_f64()?;
                Some((accuracy, format!("{:.1}%", 100.0 * accuracy)))
            })
            .collect();
        rows.push(Row { name, cells });
    }
    let overall: Vec<Option<(f64, String)>> = columns
        .iter()
        .map(|c| {
            let o = &c.report["summary"]["overall"];
            let accuracy = o["accuracy"].as_f64()?;
            let run = o["weight_run"].as_f64()?;
            Some((
                accuracy,
                format!(
                    "{:.1}% ({:.0}% of the weight run)",
                    100.0 * accuracy,
                    100.0 * run
                ),
            ))
        })
        .collect();
    if overall.iter().any(Option::is_some) {
        rows.push(Row {
            name: "overall".into(),
            cells: overall,
        });
    }
    rows
}

/// A Markdown table: a column per report, a row per category, group and
/// the overall score; `–` where a report did not run it.
pub fn markdown(columns: &[Column]) -> String {
    let mut out = String::new();
    let titles: Vec<String> = columns.iter().map(|c| cell(&c.title)).collect();
    let _ = writeln!(out, "| | {} |", titles.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(columns.len()));
    for row in rows(columns) {
        let cells: Vec<String> = row
            .cells
            .iter()
            .map(|c| c.as_ref().map_or("–".to_owned(), |(_, text)| text.clone()))
            .collect();
        let _ = writeln!(out, "| {} | {} |", row.name, cells.join(" | "));
    }
    out
}

/// Text safe in a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The bars' colours, one per report (colour-blind safe, Okabe–Ito).
const COLOURS: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
];

/// A self-contained HTML page: the Markdown table's numbers as bars, a bar
/// per report in every row, with a legend.
pub fn html(columns: &[Column], title: &str) -> String {
    let rows = rows(columns);
    let (label, bar, gap) = (200.0, 18.0, 10.0);
    let chart_width = 560.0;
    let row_height = bar * columns.len().max(1) as f64 + gap;
    let legend_height = 22.0 * columns.len() as f64 + 10.0;
    let height = legend_height + row_height * rows.len() as f64 + 30.0;
    let width = label + chart_width + 200.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12" role="img" aria-label="{}">"#,
        escape(title)
    );
    // A page of its own, light or dark around it; the grid under the bars.
    svg.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
    let axis = legend_height + row_height * rows.len() as f64 + 5.0;
    for tick in 0..=4 {
        let x = label + chart_width * f64::from(tick) / 4.0;
        let _ = write!(
            svg,
            r##"<line x1="{x}" y1="{legend_height}" x2="{x}" y2="{axis}" stroke="#ccc"/><text x="{x}" y="{}" text-anchor="middle" fill="#555">{}%</text>"##,
            axis + 15.0,
            tick * 25
        );
    }
    for (i, column) in columns.iter().enumerate() {
        let y = 10.0 + 22.0 * i as f64;
        let colour = COLOURS[i % COLOURS.len()];
        let _ = write!(
            svg,
            r#"<rect x="{label}" y="{y}" width="14" height="14" fill="{colour}"/><text x="{}" y="{}">{}</text>"#,
            label + 20.0,
            y + 11.0,
            escape(&column.title)
        );
    }
    for (r, row) in rows.iter().enumerate() {
        let top = legend_height + row_height * r as f64;
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            label - 8.0,
            top + row_height / 2.0,
            escape(&row.name)
        );
        for (i, cell) in row.cells.iter().enumerate() {
            let y = top + bar * i as f64;
            let colour = COLOURS[i % COLOURS.len()];
            match cell {
                Some((accuracy, text)) => {
                    let w = (chart_width * accuracy.clamp(0.0, 1.0)).max(1.0);
                    let _ = write!(
                        svg,
                        r#"<rect x="{label}" y="{y}" width="{w:.1}" height="{}" fill="{colour}"><title>{}: {}</title></rect><text x="{:.1}" y="{}">{}</text>"#,
                        bar - 3.0,
                        escape(&columns[i].title),
                        escape(text),
                        label + w + 4.0,
                        y + bar - 6.0,
                        escape(text)
                    );
                }
                None => {
                    let _ = write!(
                        svg,
                        r##"<text x="{}" y="{}" fill="#888">not run</text>"##,
                        label + 4.0,
                        y + bar - 6.0
                    );
                }
            }
        }
    }
    svg.push_str("</svg>");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title></head>\n\
         <body style=\"font-family: sans-serif\"><h1>{t}</h1>\n{svg}\n\
         <p>Right answers per BFCL category, BFCL's group means and its overall score \
         (weighted as the leaderboard weighs it; a part not run counts 0).</p>\n</body></html>\n",
        t = escape(title)
    )
}

/// Text safe in HTML and SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(right: usize, total: usize) -> Value {
        let accuracy = right as f64 / total as f64;
        json!({"summary": {
            "categories": [{"category": "simple_python", "right": right, "total": total, "accuracy": accuracy}],
            "groups": [{"group": "non_live_ast", "accuracy": accuracy}],
            "overall": {"accuracy": accuracy / 10.0, "weight_run": 0.1}
        }})
    }

    #[test]
    fn reports_line_up_in_a_table_and_as_bars() {
        let columns = [
            Column {
                title: "A <b>|".into(),
                report: report(1, 4),
            },
            Column {
                title: "B".into(),
                report: json!({"summary": {"categories": [], "groups": []}}),
            },
        ];
        let table = markdown(&columns);
        assert_eq!(
            table,
            "| | A <b>\\| | B |\n|---|---|---|\n\
             | simple_python | 1/4 (25.0%) | – |\n\
             | non_live_ast | 25.0% | – |\n\
             | overall | 2.5% (10% of the weight run) | – |\n"
        );
        let page = html(&columns, "Two & more");
        assert!(page.contains("<title>Two &amp; more</title>"));
        assert!(page.contains("A &lt;b&gt;|"), "titles are escaped");
        assert!(
            page.contains(r#"width="140.0""#),
            "a quarter of 560: {page}"
        );
        assert!(page.contains("not run"));
        assert!(!page.contains("<script"));
        assert_eq!(
            page.matches("http").count(),
            1,
            "nothing fetched: only the SVG namespace"
        );
    }
}
