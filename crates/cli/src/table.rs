//! tabulate's `fancy_grid` (text) and `latex_booktabs` (LaTeX) for sacreBLEU's multi-system table:
//! first column right-aligned, the others centred; `fancy_grid` cells may span several lines.

fn width(s: &str) -> usize {
    s.chars().count()
}

fn align(s: &str, w: usize, right: bool) -> String {
    let pad = w - width(s);
    if right {
        format!("{}{s}", " ".repeat(pad))
    } else {
        let left = pad / 2;
        format!("{}{s}{}", " ".repeat(left), " ".repeat(pad - left))
    }
}

/// Each column as wide as its widest line, and its header plus tabulate's minimum padding of 2.
fn column_widths(headers: &[String], rows: &[Vec<String>]) -> Vec<usize> {
    (0..headers.len())
        .map(|c| {
            let cells = rows.iter().flat_map(|r| r[c].split('\n')).map(width).max().unwrap_or(0);
            cells.max(width(&headers[c]) + 2)
        })
        .collect()
}

pub fn fancy_grid(headers: &[String], rows: &[Vec<String>]) -> String {
    let widths = column_widths(headers, rows);
    let rule = |l: &str, m: &str, r: &str, fill: &str| -> String {
        let parts: Vec<String> = widths.iter().map(|w| fill.repeat(w + 2)).collect();
        format!("{l}{}{r}", parts.join(m))
    };
    let line = |cells: Vec<String>| -> String {
        let parts: Vec<String> =
            cells.iter().enumerate().map(|(c, s)| format!(" {} ", align(s, widths[c], c == 0))).collect();
        format!("│{}│", parts.join("│"))
    };
    let mut out = vec![rule("╒", "╤", "╕", "═"), line(headers.to_vec()), rule("╞", "╪", "╡", "═")];
    for (i, row) in rows.iter().enumerate() {
        let lines: Vec<Vec<&str>> = row.iter().map(|c| c.split('\n').collect()).collect();
        let height = lines.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            out.push(line(lines.iter().map(|l| l.get(k).copied().unwrap_or("").to_string()).collect()));
        }
        if i + 1 < rows.len() {
            out.push(rule("├", "┼", "┤", "─"));
        }
    }
    out.push(rule("╘", "╧", "╛", "═"));
    out.join("\n")
}

/// tabulate escapes the padded cells, so an escaped character widens its row past the column.
fn latex_escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '&' => r"\&".to_string(),
            '%' => r"\%".to_string(),
            '$' => r"\$".to_string(),
            '#' => r"\#".to_string(),
            '_' => r"\_".to_string(),
            '^' => r"\^{}".to_string(),
            '{' => r"\{".to_string(),
            '}' => r"\}".to_string(),
            '~' => r"\textasciitilde{}".to_string(),
            '\\' => r"\textbackslash{}".to_string(),
            '<' => r"\ensuremath{<}".to_string(),
            '>' => r"\ensuremath{>}".to_string(),
            c => c.to_string(),
        })
        .collect()
}

pub fn latex_booktabs(headers: &[String], rows: &[Vec<String>]) -> String {
    let widths = column_widths(headers, rows);
    let line = |cells: &[String]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, s)| latex_escape(&format!(" {} ", align(s, widths[c], c == 0))))
            .collect();
        format!("{}\\\\", parts.join("&")).trim_end().to_string()
    };
    let spec: String = (0..headers.len()).map(|c| if c == 0 { 'r' } else { 'c' }).collect();
    let mut out =
        vec![format!("\\begin{{tabular}}{{{spec}}}"), "\\toprule".to_string(), line(headers), "\\midrule".to_string()];
    out.extend(rows.iter().map(|r| line(r)));
    out.push("\\bottomrule\n\\end{tabular}".to_string());
    out.join("\n")
}
