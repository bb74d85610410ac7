//! WordNet 3.0's synonyms as NLTK 3.10.4's METEOR takes them:
//!
//! ```python
//! set(lemma.name() for synset in wordnet.synsets(word) for lemma in synset.lemmas()
//!     if lemma.name().find("_") < 0)
//! ```
//!
//! with `wordnet` NLTK's `WordNetCorpusReader` over Debian's `wordnet-base` (/usr/share/wordnet).
//! What `synsets(word)` (pos=None) does, and so what is kept here:
//!
//! - the word is lower-cased by Python's `str.lower` and nothing else (spaces stay spaces, so
//!   "ice cream" finds nothing while "ice_cream" does; hyphens, digits stay);
//! - for each part of speech in NLTK's `POS_LIST` order (n, v, a, r), `_morphy` checks the
//!   exception list of that part of speech (`<pos>.exc`; a word listed twice keeps its *last*
//!   line): a listed word gives itself and its listed base forms, any other word gives itself and
//!   what each `MORPHOLOGICAL_SUBSTITUTIONS` rule whose suffix ends it makes (every rule, once, not
//!   recursively); the forms found in that part of speech's `index.<pos>` are looked up;
//! - ADJ_SAT ('s') is not in `POS_LIST`, and NLTK's index under 's' is the subset of the 'a'
//!   offsets that are satellites, read with the same exceptions and rules: it adds nothing;
//! - the names are the data files' words with any adjective marker ("(a)", "(p)", "(ip)") cut,
//!   in the data file's case ("Paris"); names holding '_' are left out.
//!
//! The table keeps only what that needs: one sorted string table; per synset the names without
//! '_' (synsets with none are dropped, synsets with the same names shared); per part of speech the
//! index (lemma → synsets) and the exceptions (every listed word, since listing alone switches the
//! rules off). An index lemma none of whose synsets has a name without '_' is dropped as well: a
//! form found in the index contributes exactly its own synsets' names, so its presence changes
//! nothing else.
//!
//! Byte format (all integers LEB128 varints): `WGSLWN` + version u16 LE (1); the strings, sorted
//! and front-coded (bytes shared with the previous string, then the new bytes' length and bytes);
//! the synsets (name count, name ids ascending as gaps); four index tables then four exception
//! tables, in the order n, v, a, r (entry count; per entry the key's string id as a gap from the
//! previous key, the id count and the ids ascending as gaps); then FNV-1a 64 of everything before
//! it, u64 LE. Gaps after the first id are stored minus one, so ids are strictly increasing by
//! construction; every id is checked against its table's size.

use std::path::Path;

const MAGIC: &[u8; 6] = b"WGSLWN";
const VERSION: u16 = 1;

/// NLTK's parts of speech, in `POS_LIST` order, with their file suffixes.
const POS: [(&str, &str); 4] = [("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")];

/// NLTK's `WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS`, in `POS` order.
const SUBSTITUTIONS: [&[(&str, &str)]; 4] = [
    &[
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ],
    &[("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    &[("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    &[],
];

/// Keys (string ids, strictly increasing) each with a list of ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Table {
    keys: Vec<u32>,
    /// `values[starts[i]..starts[i + 1]]` belong to `keys[i]`; `starts.len() == keys.len() + 1`.
    starts: Vec<u32>,
    values: Vec<u32>,
}

impl Table {
    fn new() -> Table {
        Table { keys: Vec::new(), starts: vec![0], values: Vec::new() }
    }

    fn get(&self, key: u32) -> Option<&[u32]> {
        let i = self.keys.binary_search(&key).ok()?;
        Some(&self.values[self.starts[i] as usize..self.starts[i + 1] as usize])
    }

    fn push(&mut self, key: u32, values: &[u32]) {
        self.keys.push(key);
        self.values.extend_from_slice(values);
        self.starts.push(self.values.len() as u32);
    }
}

/// WordNet's synonyms for METEOR (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordNet {
    /// The strings, sorted (byte order) and unique, concatenated; string `i` ends at `ends[i]`.
    text: String,
    ends: Vec<u32>,
    /// Synset `i`'s name ids (ascending) are `names[synset_starts[i]..synset_starts[i + 1]]`.
    synset_starts: Vec<u32>,
    names: Vec<u32>,
    /// Per part of speech (n, v, a, r): lemma → synset ids.
    index: [Table; 4],
    /// Per part of speech: exception form → base form ids.
    exceptions: [Table; 4],
}

impl WordNet {
    /// A WordNet without any word: every `synonyms` is empty.
    pub fn empty() -> WordNet {
        WordNet {
            text: String::new(),
            ends: Vec::new(),
            synset_starts: vec![0],
            names: Vec::new(),
            index: [Table::new(), Table::new(), Table::new(), Table::new()],
            exceptions: [Table::new(), Table::new(), Table::new(), Table::new()],
        }
    }

    /// The synonyms NLTK's METEOR takes for `word`, sorted (see the module's documentation).
    pub fn synonyms(&self, word: &str) -> Vec<String> {
        let form = python_lower(word);
        let form_id = self.find(&form);
        let mut found: Vec<u32> = Vec::new();
        let add = |id: Option<u32>, index: &Table, found: &mut Vec<u32>| {
            if let Some(synsets) = id.and_then(|id| index.get(id)) {
                for &s in synsets {
                    found.extend_from_slice(self.synset_names(s));
                }
            }
        };
        for ((index, exceptions), rules) in self.index.iter().zip(&self.exceptions).zip(SUBSTITUTIONS) {
            add(form_id, index, &mut found);
            match form_id.and_then(|id| exceptions.get(id)) {
                Some(bases) => {
                    for &b in bases {
                        add(Some(b), index, &mut found);
                    }
                }
                None => {
                    for (old, new) in rules {
                        if let Some(stem) = form.strip_suffix(old) {
                            add(self.find(&format!("{stem}{new}")), index, &mut found);
                        }
                    }
                }
            }
        }
        // String ids are in string order.
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|id| self.string(id).to_string()).collect()
    }

    fn string(&self, id: u32) -> &str {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    fn find(&self, s: &str) -> Option<u32> {
        let (mut lo, mut hi) = (0usize, self.ends.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.string(mid as u32).cmp(s) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid as u32),
            }
        }
        None
    }

    fn synset_names(&self, synset: u32) -> &[u32] {
        let s = synset as usize;
        &self.names[self.synset_starts[s] as usize..self.synset_starts[s + 1] as usize]
    }

    /// Reads Debian's WordNet 3.0 (`apt-get install wordnet-base`: /usr/share/wordnet) as NLTK
    /// 3.10.4's reader does: index.{noun,verb,adj,adv}, data.{noun,verb,adj,adv} and
    /// {noun,verb,adj,adv}.exc. Where NLTK would raise on a file (a malformed index line, an
    /// offset that does not start a synset, ...), this returns the error.
    pub fn from_dir(dir: &Path) -> Result<WordNet, String> {
        let read = |name: &str| -> Result<String, String> {
            let path = dir.join(name);
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            String::from_utf8(bytes).map_err(|e| format!("{}: not UTF-8: {e}", path.display()))
        };
        // NLTK loads index.adj, index.adv, index.noun, index.verb in turn, a later line for the
        // same lemma and part of speech replacing an earlier one.
        let mut index: [std::collections::BTreeMap<String, Vec<u64>>; 4] = Default::default();
        for suffix in ["adj", "adv", "noun", "verb"] {
            let name = format!("index.{suffix}");
            let text = read(&name)?;
            for (n, line) in text.split_inclusive('\n').enumerate() {
                if line.starts_with(' ') {
                    continue;
                }
                let (lemma, pos, offsets) = parse_index_line(line)
                    .map_err(|e| format!("{}: line {}: {e}", dir.join(&name).display(), n + 1))?;
                index[pos].insert(lemma.to_string(), offsets);
            }
        }
        let mut exceptions: [std::collections::BTreeMap<String, Vec<String>>; 4] = Default::default();
        for (pos, (_, suffix)) in POS.iter().enumerate() {
            let name = format!("{suffix}.exc");
            let text = read(&name)?;
            for (n, line) in text.split_inclusive('\n').enumerate() {
                let mut terms = python_split(line);
                let key =
                    terms.next().ok_or_else(|| format!("{}: line {}: empty line", dir.join(&name).display(), n + 1))?;
                exceptions[pos].insert(key.to_string(), terms.map(str::to_string).collect());
            }
        }
        // The names of each synset the index points to, read from its data file.
        let mut synsets: std::collections::BTreeMap<(usize, u64), Vec<String>> = Default::default();
        for (pos, (_, suffix)) in POS.iter().enumerate() {
            let name = format!("data.{suffix}");
            let data = read(&name)?;
            for (lemma, offsets) in &index[pos] {
                for &offset in offsets {
                    if synsets.contains_key(&(pos, offset)) {
                        continue;
                    }
                    let (synset_pos, names) = parse_data_line(&data, offset).map_err(|e| {
                        format!(
                            "{}: synset {offset} (in index.{suffix}, lemma {lemma}): {e}",
                            dir.join(&name).display()
                        )
                    })?;
                    // NLTK names the synset after its first lemma's sense number, raising where
                    // that lemma's index entry lacks the synset.
                    let first = python_lower(&names[0]);
                    let index_pos = POS.iter().position(|p| p.0 == synset_pos || (p.0 == "a" && synset_pos == "s"));
                    let listed = index_pos.and_then(|p| index[p].get(&first)).is_some_and(|o| o.contains(&offset));
                    if !listed {
                        return Err(format!(
                            "{}: synset {offset}: its first lemma {first} does not list it in the index",
                            dir.join(&name).display()
                        ));
                    }
                    let mut names: Vec<String> = names.into_iter().filter(|n| !n.contains('_')).collect();
                    names.sort();
                    names.dedup();
                    synsets.insert((pos, offset), names);
                }
            }
        }
        Ok(Builder::build(&index, &exceptions, &synsets))
    }

    /// The table as bytes (see the module's documentation for the format).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.text.len() + 4 * self.names.len() + 1024);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        write_varint(&mut out, self.ends.len() as u64);
        let mut previous = "";
        for id in 0..self.ends.len() as u32 {
            let s = self.string(id);
            let shared = previous.bytes().zip(s.bytes()).take_while(|(a, b)| a == b).count();
            write_varint(&mut out, shared as u64);
            write_varint(&mut out, (s.len() - shared) as u64);
            out.extend_from_slice(&s.as_bytes()[shared..]);
            previous = s;
        }
        write_varint(&mut out, (self.synset_starts.len() - 1) as u64);
        for s in 0..self.synset_starts.len() as u32 - 1 {
            write_ids(&mut out, self.synset_names(s));
        }
        for table in self.index.iter().chain(&self.exceptions) {
            write_varint(&mut out, table.keys.len() as u64);
            let mut next = 0u64;
            for (i, &key) in table.keys.iter().enumerate() {
                write_varint(&mut out, key as u64 - next);
                next = key as u64 + 1;
                write_ids(&mut out, &table.values[table.starts[i] as usize..table.starts[i + 1] as usize]);
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads what `to_bytes` wrote. Anything else (truncated, corrupted, another version) is an
    /// error, never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<WordNet, String> {
        if bytes.len() < MAGIC.len() + 2 + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err("not a WordNet synonym table (no WGSLWN header)".into());
        }
        let version = u16::from_le_bytes([bytes[6], bytes[7]]);
        if version != VERSION {
            return Err(format!("WordNet synonym table version {version}, this build reads version {VERSION}"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body).to_le_bytes() != sum {
            return Err("WordNet synonym table corrupted (checksum mismatch)".into());
        }
        parse_body(&body[MAGIC.len() + 2..])
    }
}

/// Python's `str.lower`. Every string of WordNet 3.0 is ASCII, and no character but ASCII ones
/// and KELVIN SIGN (both agree here) lower-cases to pure ASCII, so where Rust's Unicode version
/// differs from Python's the word can match nothing either way.
fn python_lower(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// Python's `str.split()`: runs of whitespace (Unicode White_Space, plus U+001C..U+001F, which
/// Python also splits at) separate words.
fn python_split(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)).filter(|w| !w.is_empty())
}

/// Python's `int(token)` for the plain digits WordNet writes.
fn parse_int(token: &str, radix: u32) -> Result<u64, String> {
    if token.is_empty() || !token.chars().all(|c| c.is_digit(radix)) {
        return Err(format!("invalid literal for int() with base {radix}: {token:?}"));
    }
    u64::from_str_radix(token, radix).map_err(|e| format!("{token:?}: {e}"))
}

/// One line of index.<pos>: the lemma, its part of speech (as a `POS` position) and its synset
/// offsets, as `_load_lemma_pos_offset_map` reads it.
fn parse_index_line(line: &str) -> Result<(&str, usize, Vec<u64>), String> {
    let mut tokens = python_split(line);
    let mut next = || tokens.next().ok_or_else(|| "line ends early".to_string());
    let lemma = next()?;
    let pos_token = next()?;
    let pos = POS.iter().position(|p| p.0 == pos_token).ok_or_else(|| format!("part of speech {pos_token:?}"))?;
    let n_synsets = parse_int(next()?, 10)?;
    if n_synsets == 0 {
        return Err("no synsets".into());
    }
    let n_pointers = parse_int(next()?, 10)?;
    for _ in 0..n_pointers {
        next()?;
    }
    if parse_int(next()?, 10)? != n_synsets {
        return Err("sense count differs from synset count".into());
    }
    next()?;
    let offsets = (0..n_synsets).map(|_| parse_int(next()?, 10)).collect::<Result<Vec<_>, _>>()?;
    Ok((lemma, pos, offsets))
}

/// The synset at `offset` of a data file: its part of speech field and its lemma names, as
/// `synset_from_pos_and_offset` reads them.
fn parse_data_line(data: &str, offset: u64) -> Result<(&str, Vec<String>), String> {
    let start = usize::try_from(offset).ok().filter(|&o| o <= data.len() && data.is_char_boundary(o));
    let rest = &data[start.ok_or("offset outside the file")?..];
    let line = &rest[..rest.find('\n').map_or(rest.len(), |i| i + 1)];
    let digits = offset.to_string();
    if digits.len() > 8 || line.get(..8) != Some(&format!("{offset:08}")[..]) {
        return Err("no synset starts there".into());
    }
    let parts: Vec<&str> = line.trim().split('|').collect();
    if parts.len() != 2 {
        return Err(format!("{} '|' in the line", parts.len() - 1));
    }
    let mut tokens = python_split(parts[0]);
    let mut next = || tokens.next().ok_or_else(|| "line ends early".to_string());
    if parse_int(next()?, 10)? != offset {
        return Err("offset field differs".into());
    }
    if parse_int(next()?, 10)? >= 45 {
        return Err("lex_filenum beyond lexnames' 45 files".into());
    }
    let pos = next()?;
    let n_lemmas = parse_int(next()?, 16)?;
    let mut names = Vec::new();
    for _ in 0..n_lemmas {
        names.push(strip_marker(next()?).to_string());
        parse_int(next()?, 16)?;
    }
    if names.is_empty() {
        return Err("no lemmas".into());
    }
    Ok((pos, names))
}

/// `re.match(r"(.*?)(\([^()]*\))?$", name).group(1)`: the name without a trailing "(...)".
fn strip_marker(name: &str) -> &str {
    if let (Some(body), Some(open)) = (name.strip_suffix(')'), name.rfind('(')) {
        if !body[open + 1..].contains(')') {
            return &name[..open];
        }
    }
    name
}

/// Builds the compact tables from what `from_dir` read.
struct Builder;

impl Builder {
    fn build(
        index: &[std::collections::BTreeMap<String, Vec<u64>>; 4],
        exceptions: &[std::collections::BTreeMap<String, Vec<String>>; 4],
        synsets: &std::collections::BTreeMap<(usize, u64), Vec<String>>,
    ) -> WordNet {
        use std::collections::{BTreeMap, BTreeSet};
        // Index entries reduced to their distinct non-empty name lists.
        let mut entries: Vec<BTreeMap<&str, BTreeSet<&Vec<String>>>> = vec![BTreeMap::new(); 4];
        for pos in 0..4 {
            for (lemma, offsets) in &index[pos] {
                let lists: BTreeSet<&Vec<String>> =
                    offsets.iter().map(|o| &synsets[&(pos, *o)]).filter(|names| !names.is_empty()).collect();
                if !lists.is_empty() {
                    entries[pos].insert(lemma, lists);
                }
            }
        }
        let mut strings: BTreeSet<&str> = BTreeSet::new();
        for pos in 0..4 {
            for (lemma, lists) in &entries[pos] {
                strings.insert(lemma);
                strings.extend(lists.iter().flat_map(|l| l.iter().map(String::as_str)));
            }
            for (form, bases) in &exceptions[pos] {
                strings.insert(form);
                strings.extend(bases.iter().map(String::as_str));
            }
        }
        let mut wn = WordNet::empty();
        let mut ids: BTreeMap<&str, u32> = BTreeMap::new();
        for (i, s) in strings.iter().enumerate() {
            wn.text.push_str(s);
            wn.ends.push(wn.text.len() as u32);
            ids.insert(s, i as u32);
        }
        let to_ids = |list: &mut dyn Iterator<Item = &str>| -> Vec<u32> {
            let mut v: Vec<u32> = list.map(|s| ids[s]).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        // Synsets numbered in the order of their name ids.
        let mut lists: BTreeSet<Vec<u32>> = BTreeSet::new();
        let mut list_ids: BTreeMap<&Vec<String>, Vec<u32>> = BTreeMap::new();
        for entry in &entries {
            for lists_of_entry in entry.values() {
                for &names in lists_of_entry {
                    let v = to_ids(&mut names.iter().map(String::as_str));
                    lists.insert(v.clone());
                    list_ids.insert(names, v);
                }
            }
        }
        let synset_ids: BTreeMap<&Vec<u32>, u32> = lists.iter().enumerate().map(|(i, l)| (l, i as u32)).collect();
        for l in &lists {
            wn.names.extend_from_slice(l);
            wn.synset_starts.push(wn.names.len() as u32);
        }
        for pos in 0..4 {
            for (lemma, lists_of_entry) in &entries[pos] {
                let mut v: Vec<u32> = lists_of_entry.iter().map(|names| synset_ids[&list_ids[names]]).collect();
                v.sort_unstable();
                wn.index[pos].push(ids[lemma], &v);
            }
            for (form, bases) in &exceptions[pos] {
                wn.exceptions[pos].push(ids[form.as_str()], &to_ids(&mut bases.iter().map(String::as_str)));
            }
        }
        wn
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A count, then strictly increasing ids: the first as is, each next as its gap minus one.
fn write_ids(out: &mut Vec<u8>, ids: &[u32]) {
    write_varint(out, ids.len() as u64);
    let mut next = 0u64;
    for &id in ids {
        write_varint(out, id as u64 - next);
        next = id as u64 + 1;
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.bytes.get(self.at).ok_or("WordNet synonym table truncated")?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                if shift == 63 && b > 1 {
                    break;
                }
                return Ok(v);
            }
        }
        Err("WordNet synonym table: bad number".into())
    }

    /// A count of items that each take at least one byte: at most the bytes left.
    fn count(&mut self) -> Result<usize, String> {
        let n = self.varint()?;
        if n > (self.bytes.len() - self.at) as u64 {
            return Err("WordNet synonym table: count beyond the data".into());
        }
        Ok(n as usize)
    }

    fn take(&mut self, n: u64) -> Result<&[u8], String> {
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err("WordNet synonym table truncated".into());
        }
        let s = &self.bytes[self.at..self.at + n as usize];
        self.at += n as usize;
        Ok(s)
    }

    /// What `write_ids` wrote, each id below `bound`, appended to `out`.
    fn ids(&mut self, bound: u32, out: &mut Vec<u32>) -> Result<(), String> {
        let n = self.count()?;
        let mut next = 0u64;
        for _ in 0..n {
            let id = next.checked_add(self.varint()?).filter(|&id| id < bound as u64);
            let id = id.ok_or("WordNet synonym table: id out of range")?;
            out.push(id as u32);
            next = id + 1;
        }
        Ok(())
    }
}

/// The table after the header, before the checksum.
fn parse_body(bytes: &[u8]) -> Result<WordNet, String> {
    let mut r = Reader { bytes, at: 0 };
    let mut wn = WordNet::empty();
    let n_strings = r.count()?;
    if n_strings >= u32::MAX as usize {
        return Err("WordNet synonym table: too many strings".into());
    }
    let mut text: Vec<u8> = Vec::new();
    let mut previous = 0..0;
    for i in 0..n_strings {
        let shared = r.varint()?;
        if shared > previous.len() as u64 {
            return Err("WordNet synonym table: bad string".into());
        }
        let n_new = r.varint()?;
        let new = r.take(n_new)?;
        let start = text.len();
        text.extend_from_within(previous.start..previous.start + shared as usize);
        text.extend_from_slice(new);
        let current = start..text.len();
        let s = std::str::from_utf8(&text[current.clone()]).map_err(|_| "WordNet synonym table: bad string")?;
        if i > 0 {
            let p = std::str::from_utf8(&text[previous.clone()]).map_err(|_| "WordNet synonym table: bad string")?;
            if p >= s {
                return Err("WordNet synonym table: strings out of order".into());
            }
        }
        if text.len() > u32::MAX as usize {
            return Err("WordNet synonym table: strings too long".into());
        }
        wn.ends.push(text.len() as u32);
        previous = current;
    }
    wn.text = String::from_utf8(text).map_err(|_| "WordNet synonym table: bad string")?;
    let n_synsets = r.count()?;
    for _ in 0..n_synsets {
        r.ids(n_strings as u32, &mut wn.names)?;
        wn.synset_starts.push(wn.names.len() as u32);
    }
    for t in 0..8 {
        let bound = if t < 4 { n_synsets as u32 } else { n_strings as u32 };
        let table = if t < 4 { &mut wn.index[t] } else { &mut wn.exceptions[t - 4] };
        let n = r.count()?;
        let mut next = 0u64;
        for _ in 0..n {
            let key = next.checked_add(r.varint()?).filter(|&k| k < n_strings as u64);
            let key = key.ok_or("WordNet synonym table: key out of range")?;
            table.keys.push(key as u32);
            next = key + 1;
            r.ids(bound, &mut table.values)?;
            table.starts.push(table.values.len() as u32);
        }
    }
    if r.at != bytes.len() {
        return Err("WordNet synonym table: bytes left over".into());
    }
    Ok(wn)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small WordNet in Debian's file layout: a satellite, a marker, a duplicated exception,
    /// names with '_' and in capitals.
    fn tiny_dir(test: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("wgslate-wordnet-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let header = "  1 This software and database is being provided to you, the LICENSEE, by  \n";
        let mut data_noun = header.to_string();
        let synset = |data: &mut String, pos: &str, words: &[&str]| -> u64 {
            let offset = data.len() as u64;
            let w: Vec<String> = words.iter().map(|w| format!("{w} 0")).collect();
            data.push_str(&format!(
                "{offset:08} 05 {pos} {:02x} {} 000 | a gloss; \"an example\"  \n",
                words.len(),
                w.join(" ")
            ));
            offset
        };
        let goose = synset(&mut data_noun, "n", &["goose", "Anser"]);
        let ice = synset(&mut data_noun, "n", &["ice_cream", "icecream"]);
        let box_ = synset(&mut data_noun, "n", &["box", "case"]);
        let only = synset(&mut data_noun, "n", &["New_York"]);
        let mut data_adj = header.to_string();
        let good = synset(&mut data_adj, "a", &["good", "well(p)"]);
        let fine = synset(&mut data_adj, "s", &["fine(a)", "good"]);
        let mut data_verb = header.to_string();
        let run = synset(&mut data_verb, "v", &["run", "Go"]);
        let files = [
            ("data.noun", data_noun),
            ("data.adj", data_adj),
            ("data.verb", data_verb),
            ("data.adv", header.to_string()),
            (
                "index.noun",
                format!(
                    "{header}goose n 1 0 1 0 {goose:08}\nice_cream n 1 0 1 0 {ice:08}\nicecream n 1 0 1 0 {ice:08}\n\
                     box n 1 0 1 0 {box_:08}\ncase n 1 0 1 0 {box_:08}\nanser n 1 0 1 0 {goose:08}\n\
                     new_york n 1 0 1 0 {only:08}\n"
                ),
            ),
            (
                "index.adj",
                format!(
                    "{header}good a 2 0 2 0 {good:08} {fine:08}\nwell a 1 0 1 0 {good:08}\nfine a 1 0 1 0 {fine:08}\n"
                ),
            ),
            ("index.verb", format!("{header}run v 1 0 1 0 {run:08}\ngo v 1 0 1 0 {run:08}\n")),
            ("index.adv", header.to_string()),
            ("noun.exc", "geese goose\ngeese gander\ngeese goose\n".to_string()),
            ("adj.exc", "better good well\n".to_string()),
            ("verb.exc", "ran run\n".to_string()),
            ("adv.exc", "best well\n".to_string()),
        ];
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        dir
    }

    fn check_tiny(wn: &WordNet) {
        let s = |w: &str| wn.synonyms(w).join(" ");
        assert_eq!(s("geese"), "Anser goose");
        assert_eq!(s("GOOSES"), "Anser goose");
        assert_eq!(s("better"), "fine good well");
        assert_eq!(s("ran"), "Go run");
        assert_eq!(s("runs"), "Go run");
        // Rules apply once and undouble nothing: "runn", "runne" are not lemmas.
        assert_eq!(s("running"), "");
        assert_eq!(s("boxes"), "box case");
        assert_eq!(s("ice_cream"), "icecream");
        assert_eq!(s("ice cream"), "");
        assert_eq!(s("new_york"), "");
        assert_eq!(s(""), "");
        assert_eq!(s("ﬁne"), "");
    }

    #[test]
    fn tiny_wordnet_and_bytes() {
        let dir = tiny_dir("roundtrip");
        let wn = WordNet::from_dir(&dir).unwrap();
        check_tiny(&wn);
        let bytes = wn.to_bytes();
        let back = WordNet::from_bytes(&bytes).unwrap();
        assert_eq!(back, wn);
        check_tiny(&back);
        assert_eq!(WordNet::from_bytes(&WordNet::empty().to_bytes()).unwrap(), WordNet::empty());
        assert!(WordNet::empty().synonyms("dog").is_empty());

        std::fs::remove_file(dir.join("verb.exc")).unwrap();
        let err = WordNet::from_dir(&dir).unwrap_err();
        assert!(err.contains("verb.exc"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn strip_marker_as_nltk() {
        for (name, want) in [
            ("well(p)", "well"),
            ("fine(ip)", "fine"),
            ("a(b)c)", "a(b)c)"),
            ("x()", "x"),
            ("(a)", ""),
            ("ab", "ab"),
            ("a)", "a)"),
        ] {
            assert_eq!(strip_marker(name), want, "{name}");
        }
    }

    /// A xorshift generator, for reproducible garbage.
    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn bad_bytes_are_errors() {
        let dir = tiny_dir("bad-bytes");
        let wn = WordNet::from_dir(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let bytes = wn.to_bytes();
        for len in 0..bytes.len() {
            assert!(WordNet::from_bytes(&bytes[..len]).is_err(), "prefix {len}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(WordNet::from_bytes(&longer).is_err());
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..20_000 {
            let len = (xorshift(&mut state) % 200) as usize;
            let mut garbage: Vec<u8> = (0..len).map(|_| xorshift(&mut state) as u8).collect();
            if round % 2 == 0 && len >= 8 {
                garbage[..6].copy_from_slice(MAGIC);
                garbage[6..8].copy_from_slice(&VERSION.to_le_bytes());
            }
            assert!(WordNet::from_bytes(&garbage).is_err());
            // The body's parser alone (no checksum to stop it) must not panic either, and what it
            // accepts must answer without panicking.
            if let Ok(w) = parse_body(&garbage) {
                w.synonyms("goose");
            }
            let mut flipped = bytes[8..bytes.len() - 8].to_vec();
            let at = (xorshift(&mut state) as usize) % flipped.len();
            flipped[at] ^= 1 << (xorshift(&mut state) % 8);
            if let Ok(w) = parse_body(&flipped) {
                for word in ["geese", "better", "boxes", "ice_cream", "goose", "x"] {
                    w.synonyms(word);
                }
            }
        }
    }
}
