//! How the page writes figures: durations, and counts in the thousands.

/// "under 1 ms", "420 ms", "3.4 s": milliseconds below a second (a short file read "in 0.0 s"),
/// and a search faster than the clock's grain is not "0 ms".
pub fn elapsed(ms: f64) -> String {
    match ms {
        ms if ms < 0.5 => "under 1 ms".into(),
        ms if ms < 999.5 => format!("{ms:.0} ms"),
        ms => format!("{:.1} s", ms / 1000.0),
    }
}

/// "10 000": digits in groups of three, as the page writes "1 000 sentences" (a thin space would
/// not copy into every tool).
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(d);
    }
    out
}

/// "1 line", "10 000 lines": a count grouped, and its noun plural but for one.
pub fn count(n: usize, noun: &str) -> String {
    format!("{} {noun}{}", grouped(n), if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::{count, elapsed, grouped};

    #[test]
    fn a_count_names_one_thing_in_the_singular() {
        assert_eq!(count(1, "line"), "1 line");
        assert_eq!(count(0, "line"), "0 lines");
        assert_eq!(count(12000, "sentence"), "12 000 sentences");
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1 000");
        assert_eq!(grouped(20000), "20 000");
        assert_eq!(grouped(1234567), "1 234 567");
    }

    #[test]
    fn times_read_in_the_unit_that_shows_them() {
        assert_eq!(elapsed(0.0), "under 1 ms");
        assert_eq!(elapsed(0.7), "1 ms");
        assert_eq!(elapsed(420.4), "420 ms");
        assert_eq!(elapsed(999.6), "1.0 s");
        assert_eq!(elapsed(3449.0), "3.4 s");
    }
}
