//! PER and the word edit distance against Debian's apertium-eval-translator, which counts the same
//! things over a whole file taken as one segment: on one-line files with plain ASCII words its
//! "position-independent correct words" are PER's bag matches, its PER is ours, and its "edit
//! distance" is WER's. Seeded random lines with repeated words, so the bags and the alignment matter.

use std::process::Command;

use wgslate_metrics::{per, wer};

/// A small deterministic generator (xorshift), so no dependency is needed for the cases.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn line(rng: &mut Rng) -> String {
    const WORDS: [&str; 8] = ["a", "b", "c", "the", "dog", "Dog", "runs", "x.y"];
    const SPACES: [&str; 4] = [" ", " ", "  ", "\t "];
    let n = 1 + rng.below(12);
    (0..n).map(|k| format!("{}{}", if k > 0 { SPACES[rng.below(4)] } else { "" }, WORDS[rng.below(8)])).collect()
}

/// The two numbers apertium-eval-translator prints after "unknown-word marks (stars) are not removed".
fn apertium(hyp: &str, reference: &str, dir: &std::path::Path) -> (usize, usize, String) {
    let (h, r) = (dir.join("test.txt"), dir.join("ref.txt"));
    std::fs::write(&h, format!("{hyp}\n")).unwrap();
    std::fs::write(&r, format!("{reference}\n")).unwrap();
    let out = Command::new("apertium-eval-translator")
        .arg("-test")
        .arg(&h)
        .arg("-ref")
        .arg(&r)
        .output()
        .expect("apertium-eval-translator is not installed (Debian: apt-get install apertium-eval-translator)");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let section = text.split("are not removed").nth(1).unwrap_or_else(|| panic!("unexpected output: {text}"));
    let number = |label: &str| -> usize {
        let at = section.find(label).unwrap_or_else(|| panic!("no {label:?} in {text}"));
        section[at + label.len()..].split_whitespace().next().unwrap().parse().unwrap()
    };
    let per = section.split("(PER): ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    (number("Edit distance:"), number("position-independent correct words:"), per)
}

#[test]
fn per_and_edit_distance_equal_apertium_eval_translator() {
    let dir = std::env::temp_dir().join(format!("wgslate-per-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut failures = Vec::new();
    for case in 0..150 {
        let (hyp, reference) = (line(&mut rng), line(&mut rng));
        let (distance, correct, apertium_per) = apertium(&hyp, &reference, &dir);
        let p = per::sentence_stats(&hyp, &reference);
        let w = wer::sentence_stats(&hyp, &reference);
        let ours = format!("{:.2}", per::score(p.errors as f64, p.ref_len as f64));
        if (w.edits, p.matches, ours.as_str()) != (distance, correct, apertium_per.as_str()) {
            failures.push(format!(
                "case {case}: {hyp:?} / {reference:?}: apertium edits {distance}, correct {correct}, PER {apertium_per}; \
                 ours {}, {}, {ours}",
                w.edits, p.matches
            ));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}
