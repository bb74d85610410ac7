//! The sentence splitter on real captions: every line of Multi30k's val and test_2016_flickr
//! (English and German) is one caption of one sentence. The only cuts allowed are after an
//! initialism of capitals before a capital ("J.P. Morgan", "E.S.E. Electronics"), where the splitter
//! cuts on purpose (`sentences.rs`: a missed end loses a sentence, a wrong cut does not).

#[test]
fn captions_are_cut_only_after_an_initialism() {
    let initialism = |s: &str| {
        let last = s.split_whitespace().last().unwrap_or("");
        let pieces: Vec<&str> = last.strip_suffix('.').unwrap_or("").split('.').collect();
        pieces.len() >= 2 && pieces.iter().all(|p| p.chars().count() == 1 && p.chars().all(char::is_uppercase))
    };
    for name in ["val.en", "val.de", "test_2016_flickr.en", "test_2016_flickr.de"] {
        let path = format!("{}/../../www/data/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = wgslate_model::sentences::split_sentences(&text);
        assert!(lines.len() >= 1000, "{name}: {} lines", lines.len());
        let cut: Vec<&Vec<String>> = lines.iter().filter(|s| s.len() > 1).collect();
        // One each: the caption with "J.P. Morgan" (val) or "E.S.E. Electronics" (test), as the README says.
        assert!(cut.len() <= 1, "{name}: {} captions cut: {cut:?}", cut.len());
        for sentences in cut {
            for s in &sentences[..sentences.len() - 1] {
                assert!(initialism(s), "{name}: cut after {s:?} in {sentences:?}");
            }
        }
    }
}
