//! The sentence splitter on real captions: every line of Multi30k's val and test_2016_flickr
//! (English and German) is one caption of one sentence, with initials ("J.P. Morgan", "E.S.E.
//! Electronics") and quoted signs in them; none may be cut.

#[test]
fn no_caption_of_val_or_test_is_cut_into_sentences() {
    for name in ["val.en", "val.de", "test_2016_flickr.en", "test_2016_flickr.de"] {
        let path = format!("{}/../../www/data/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = wgslate_model::sentences::split_sentences(&text);
        assert!(lines.len() >= 1000, "{name}: {} lines", lines.len());
        let cut: Vec<&Vec<String>> = lines.iter().filter(|s| s.len() > 1).collect();
        assert!(cut.is_empty(), "{name}: {} captions cut, first {:?}", cut.len(), cut.first());
    }
}
