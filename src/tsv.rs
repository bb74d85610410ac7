//! The TSV exports' cells: read back exactly by a CSV reader's tab dialect (Python's `excel-tab`,
//! spreadsheets' import), and never run as a spreadsheet formula.

/// The characters that make a spreadsheet read a cell as a formula.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A cell of text: quoted when it holds a tab, a line break or a quote (quotes doubled), and given
/// a leading `'` when it begins like a formula (the JSON export keeps the text exact).
pub fn text_cell(text: &str) -> String {
    let text = if text.starts_with(FORMULA_STARTS) { format!("'{text}") } else { text.to_string() };
    if text.contains(['\t', '\n', '\r', '"']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// What the Export TSV buttons say about it.
pub const TSV_TITLE: &str = "Tab-separated; a text that begins with = + - or @ gets a leading ' so a spreadsheet \
                             shows it as text (the JSON export keeps every text exact)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_left_alone() {
        assert_eq!(text_cell("a man rides a bike ."), "a man rides a bike .");
        assert_eq!(text_cell("1 - 2 = 3"), "1 - 2 = 3");
    }

    #[test]
    fn separators_and_quotes_are_quoted() {
        assert_eq!(text_cell("the cat\tsat"), "\"the cat\tsat\"");
        assert_eq!(text_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(text_cell("a\r\nb"), "\"a\r\nb\"");
    }

    #[test]
    fn formulas_become_text() {
        assert_eq!(text_cell("=SUM(A1:A9)"), "'=SUM(A1:A9)");
        assert_eq!(text_cell("- a dog"), "'- a dog");
        assert_eq!(text_cell("@x\ty"), "\"'@x\ty\"");
        assert_eq!(text_cell("\t=1"), "\"'\t=1\"");
    }
}
