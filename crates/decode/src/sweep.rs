//! Decoding sweeps: one test-set evaluation per value of a search setting (beam size, α, β, γ), as
//! a table of BLEU, chrF and the length ratio. The CLI (`wgslate eval --sweep`) and the page's
//! sweep panel share the settings, the value checks and the table.

use crate::settings::checked_number;

/// A setting a sweep moves: the names it answers to, its CLI flag, its key in `Settings::set`.
#[derive(Debug)]
pub struct SweepKey {
    pub names: &'static [&'static str],
    pub flag: &'static str,
    pub setting: &'static str,
    pub label: &'static str,
}

pub const SWEEP_KEYS: [SweepKey; 4] = [
    SweepKey { names: &["beam", "k"], flag: "--beam", setting: "beam", label: "beam" },
    SweepKey { names: &["lenpen", "alpha", "α"], flag: "--lenpen", setting: "lp", label: "lenpen" },
    SweepKey { names: &["coverage", "beta", "β"], flag: "--coverage", setting: "cov", label: "coverage" },
    SweepKey { names: &["end-penalty", "gamma", "γ"], flag: "--end-penalty", setting: "end", label: "end-penalty" },
];

/// Most values one sweep runs: each is a whole evaluation.
pub const MAX_VALUES: usize = 32;

pub fn find_key(name: &str) -> Result<&'static SweepKey, String> {
    SWEEP_KEYS
        .iter()
        .find(|k| k.names.contains(&name))
        .ok_or_else(|| format!("'{name}' is not a setting a sweep moves (beam, lenpen, coverage, end-penalty)"))
}

/// The comma-separated values, each checked against the setting's range (the limits the URL and
/// the CLI's flags have).
pub fn parse_values(key: &SweepKey, list: &str) -> Result<Vec<String>, String> {
    let values: Vec<String> = list.split(',').map(|v| v.trim().to_string()).collect();
    if list.trim().is_empty() {
        return Err("no values: give them separated by commas, as 1, 2, 4".into());
    }
    if values.iter().any(String::is_empty) {
        return Err(format!("“{list}” has an empty value in the list"));
    }
    if values.len() > MAX_VALUES {
        return Err(format!("{} values, at most {MAX_VALUES} (each is a whole evaluation)", values.len()));
    }
    for v in &values {
        checked_number(key.setting, v)?;
    }
    Ok(values)
}

/// One evaluation's row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub value: String,
    pub bleu: f64,
    pub chrf: f64,
    pub hyp_len: usize,
    pub ref_len: usize,
    pub seconds: f64,
}

impl Row {
    pub fn ratio(&self) -> f64 {
        if self.ref_len == 0 {
            0.0
        } else {
            self.hyp_len as f64 / self.ref_len as f64
        }
    }
}

/// The table: two decimals for the scores (as `wgslate eval` prints them), three for the ratio.
pub fn format_table(name: &str, rows: &[Row], csv: bool) -> String {
    let header = [name, "BLEU", "chrF2", "ratio", "hyp_len", "ref_len", "seconds"];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|r| {
            [
                r.value.clone(),
                format!("{:.2}", r.bleu),
                format!("{:.2}", r.chrf),
                format!("{:.3}", r.ratio()),
                r.hyp_len.to_string(),
                r.ref_len.to_string(),
                format!("{:.1}", r.seconds),
            ]
        })
        .collect();
    if csv {
        return std::iter::once(header.join(","))
            .chain(cells.iter().map(|c| c.join(",")))
            .collect::<Vec<_>>()
            .join("\n");
    }
    let widths: Vec<usize> = (0..7)
        .map(|k| cells.iter().map(|c| c[k].chars().count()).chain([header[k].chars().count()]).max().unwrap_or(0))
        .collect();
    let line = |c: Vec<&str>| {
        c.iter().zip(&widths).map(|(s, w)| format!("{s:>w$}")).collect::<Vec<_>>().join("  ").trim_end().to_string()
    };
    std::iter::once(line(header.to_vec()))
        .chain(cells.iter().map(|c| line(c.iter().map(String::as_str).collect())))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_against_the_settings_ranges() {
        let beam = find_key("beam").unwrap();
        assert_eq!(parse_values(beam, "1, 2,4").unwrap(), ["1", "2", "4"]);
        assert!(parse_values(beam, "1,17").unwrap_err().contains("between 1 and 16"));
        assert!(parse_values(beam, "1,,2").unwrap_err().contains("empty value"));
        assert_eq!(parse_values(beam, "  ").unwrap_err(), "no values: give them separated by commas, as 1, 2, 4");
        assert!(parse_values(find_key("alpha").unwrap(), "0.5,x").unwrap_err().contains("number"));
        assert!(find_key("temperature").unwrap_err().contains("not a setting"));
    }

    #[test]
    fn formats_an_aligned_table_or_csv() {
        let rows = vec![
            Row { value: "1".into(), bleu: 38.123, chrf: 60.0, hyp_len: 90, ref_len: 100, seconds: 1.25 },
            Row { value: "4".into(), bleu: 39.5, chrf: 61.25, hyp_len: 100, ref_len: 100, seconds: 3.0 },
        ];
        assert_eq!(
            format_table("beam", &rows, false).lines().nth(1).unwrap(),
            "   1  38.12  60.00  0.900       90      100      1.2"
        );
        assert_eq!(format_table("beam", &rows, true).lines().last().unwrap(), "4,39.50,61.25,1.000,100,100,3.0");
    }
}
