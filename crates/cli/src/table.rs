//! tabulate's `fancy_grid` for sacreBLEU's multi-system table: first column right-aligned,
//! the others centred, cells may span several lines.

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

pub fn fancy_grid(headers: &[String], rows: &[Vec<String>]) -> String {
    let cols = headers.len();
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            let cells = rows.iter().flat_map(|r| r[c].split('\n')).map(width).max().unwrap_or(0);
            cells.max(width(&headers[c]) + 2)
        })
        .collect();
    let rule = |l: &str, m: &str, r: &str, fill: &str| -> String {
        let parts: Vec<String> = widths.iter().map(|w| fill.repeat(w + 2)).collect();
        format!("{l}{}{r}", parts.join(m))
    };
    let line = |cells: Vec<String>| -> String {
        let parts: Vec<String> = cells.iter().enumerate().map(|(c, s)| format!(" {} ", align(s, widths[c], c == 0))).collect();
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
