//! `wgslate eval --sweep beam=1,2,4,8,16`: one evaluation per value of a decoding setting, as a
//! table of BLEU, chrF and the length ratio (`wgslate_decode::sweep`, shared with the page).

use wgslate_decode::sweep::{self, SweepKey};

#[derive(Clone)]
pub struct Sweep {
    pub key: &'static SweepKey,
    /// The setting's name as given (`beam`).
    pub name: String,
    pub values: Vec<String>,
    /// `--csv`: comma-separated rows instead of the aligned table.
    pub csv: bool,
}

/// Takes `--sweep KEY=V1,V2,…` and `--csv` out of `args`: the sweep, if any, and the other args.
pub fn take(args: &[String]) -> Result<(Option<Sweep>, Vec<String>), String> {
    let mut rest = Vec::new();
    let (mut spec, mut csv) = (None, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sweep" => spec = Some(it.next().ok_or("--sweep needs KEY=V1,V2,… such as beam=1,2,4,8,16")?.clone()),
            s if s.starts_with("--sweep=") => spec = Some(s["--sweep=".len()..].to_string()),
            "--csv" => csv = true,
            _ => rest.push(a.clone()),
        }
    }
    let Some(spec) = spec else {
        return if csv {
            Err("--csv prints a sweep's table: add --sweep KEY=V1,V2,…".into())
        } else {
            Ok((None, rest))
        };
    };
    let (name, list) =
        spec.split_once('=').ok_or_else(|| format!("--sweep {spec}: expected KEY=V1,V2,…, such as beam=1,2,4"))?;
    let key = sweep::find_key(name).map_err(|e| format!("--sweep: {e}"))?;
    let values = sweep::parse_values(key, list).map_err(|e| format!("--sweep {spec}: {e}"))?;
    if rest.iter().any(|a| a == key.flag || a.starts_with(&format!("{}=", key.flag))) {
        return Err(format!("--sweep {name} sets {} itself: drop {}", key.flag, key.flag));
    }
    Ok((Some(Sweep { key, name: name.to_string(), values, csv }), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn takes_the_sweep_out_of_the_arguments() {
        let (s, rest) = take(&args(&["--model", "m", "--sweep", "beam=1,2,4", "--lenpen", "1"])).unwrap();
        let s = s.unwrap();
        assert_eq!((s.key.flag, s.values), ("--beam", args(&["1", "2", "4"])));
        assert_eq!(rest, args(&["--model", "m", "--lenpen", "1"]));
        assert_eq!(take(&args(&["--sweep=alpha=0,1"])).unwrap().0.unwrap().key.flag, "--lenpen");
    }

    #[test]
    fn refuses_what_it_cannot_sweep() {
        assert!(take(&args(&["--sweep", "temperature=1,2"])).err().unwrap().contains("not a setting"));
        assert!(take(&args(&["--sweep", "beam"])).err().unwrap().contains("KEY=V1"));
        assert!(take(&args(&["--sweep", "beam=1,2", "--beam", "4"])).err().unwrap().contains("drop --beam"));
        assert!(take(&args(&["--csv"])).err().unwrap().contains("add --sweep"));
        assert!(take(&args(&["--sweep", "beam=0,2"])).err().unwrap().contains("between 1 and 16"));
    }
}
