//! The sentence splitter on real captions: every line of Multi30k's val and test_2016_flickr
//! (English, German and French) is one caption of one sentence, and none is cut, not even after an
//! initialism ("J.P. Morgan", "E.S.E. Electronics": a word that does not start sentences follows).

#[test]
fn no_caption_is_cut() {
    for name in ["val.en", "val.de", "val.fr", "test_2016_flickr.en", "test_2016_flickr.de", "test_2016_flickr.fr"] {
        let path = format!("{}/../../www/data/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = wgslate_model::sentences::split_sentences(&text);
        assert!(lines.len() >= 1000, "{name}: {} lines", lines.len());
        let cut: Vec<&Vec<String>> = lines.iter().filter(|s| s.len() > 1).collect();
        assert!(cut.is_empty(), "{name}: {} captions cut: {cut:?}", cut.len());
    }
}
