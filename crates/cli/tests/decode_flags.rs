//! `wgslate translate`'s decoding flags are checked against the page's settings ranges
//! (`wgslate_decode::settings`): one line on stderr, exit code 2, before any model is loaded.

use std::process::Command;

#[test]
fn out_of_range_decoding_flags_are_refused_with_one_line() {
    let cases = [
        (["--coverage", "-1e30"], "coverage β must be between 0 and 5"),
        (["--lenpen", "NaN"], "length penalty α must be between 0 and 5"),
        (["--max-len-a", "1e30"], "max length a must be between 0 and 10"),
        (["--temperature", "inf"], "temperature must be between 0.01 and 10"),
        (["--top-p", "-1"], "top-p must be between 0.01 and 1"),
        (["--beam", "0"], "beam width must be between 1 and 16"),
        (["--seed", "2.5"], "seed must be a whole number"),
    ];
    for (flags, needle) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_wgslate"))
            .args(["translate", "--model", "no-such-model"])
            .args(flags)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{flags:?}: {err}");
        assert!(err.contains(needle), "{flags:?}: '{err}' does not say '{needle}'");
    }
}
