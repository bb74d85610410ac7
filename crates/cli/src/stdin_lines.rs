//! Standard input's lines as they come, in groups: a line typed at a terminal, or written by a
//! slow program (`tail -f`), is translated without waiting for the end of the input, and a fast
//! one fills groups as big as a file's chunks. A thread reads; the translation takes what it has.

use std::io::BufRead;
use std::sync::mpsc::{sync_channel, Receiver};

pub struct StdinLines {
    read: Receiver<std::io::Result<Vec<u8>>>,
    /// Bytes and lines taken so far, for messages.
    offset: usize,
    count: usize,
    /// At a terminal a line that is not UTF-8 is left out with a message (the user types on);
    /// elsewhere it ends the run, as a file's would.
    typed: bool,
    /// "\r\n" once the first line ended so (Windows line ends in, Windows line ends out).
    pub line_end: &'static str,
    /// The first bytes, until there are enough to tell UTF-16 without a byte order mark (a first
    /// line "Hi" is five bytes of it; an empty one, one byte); None once told.
    head: Option<Vec<u8>>,
}

impl StdinLines {
    pub fn start(typed: bool) -> Self {
        // Bounded: a program that writes faster than the translation goes is held back, not stored up.
        let (send, read) = sync_channel(4096);
        std::thread::spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let by_reads = typed && line_by_line();
            loop {
                let line = match by_reads {
                    true => typed_line(&mut stdin),
                    false => {
                        let mut line = Vec::new();
                        stdin.read_until(b'\n', &mut line).map(|_| line)
                    }
                };
                match line {
                    Ok(line) if line.is_empty() => return,
                    Ok(line) => {
                        if send.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Err(e) => return drop(send.send(Err(e))),
                }
            }
        });
        Self { read, offset: 0, count: 0, typed, line_end: "\n", head: Some(Vec::new()) }
    }

    /// The next group of lines: waits for one, then takes those already read until their
    /// `weight` reaches `goal`; None at the end of the input. A line that cannot be read ends the
    /// group, with the reason beside the lines before it (to be written before the run ends).
    pub fn next_group(
        &mut self,
        goal: usize,
        weight: impl Fn(&str) -> usize,
    ) -> Option<(Vec<String>, Result<(), String>)> {
        let mut next = Some(self.read.recv().ok()?);
        let (mut group, mut total) = (Vec::new(), 0);
        while let Some(bytes) = next {
            match bytes.map_err(|e| format!("reading standard input: {e}")).and_then(|b| self.text(b)) {
                Ok(line) => {
                    total += weight(&line);
                    group.push(line);
                }
                Err(e) => return Some((group, Err(e))),
            }
            next = if total < goal { self.read.try_recv().ok() } else { None };
        }
        Some((group, Ok(())))
    }

    /// A line's text, rstripped as sacreBLEU reads lines, without a byte order mark on the first.
    fn text(&mut self, bytes: Vec<u8>) -> Result<String, String> {
        let (offset, number) = (self.offset, self.count + 1);
        self.offset += bytes.len();
        self.count += 1;
        if number == 1 {
            self.line_end = wgslate_model::sentences::line_end(&String::from_utf8_lossy(&bytes));
        }
        // With its byte order mark, UTF-16 is named (as `wgslate_metrics::utf8_text` names it).
        if number == 1 && (bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF])) {
            return wgslate_metrics::utf8_text("standard input", bytes);
        }
        // Without one, judged on the first bytes (a line's "\n" is one byte of a UTF-16 line end).
        if let Some(head) = self.head.as_mut() {
            head.extend_from_slice(&bytes);
            if head.len() >= 4 {
                let utf16 = wgslate_metrics::utf16_without_bom(head);
                self.head = None;
                if utf16 {
                    return Err(crate::translate_cmd::utf16_refusal("standard input"));
                }
            }
        }
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) if self.typed => {
                let at = e.utf8_error().valid_up_to();
                eprintln!("wgslate: that line is not UTF-8 text (invalid byte at {at}; is the terminal set to another encoding?): it is left out");
                String::new()
            }
            Err(e) => {
                let at = offset + e.utf8_error().valid_up_to();
                return Err(format!(
                    "standard input is not UTF-8 text (invalid byte at offset {at}, in line {number})"
                ));
            }
        };
        let text = wgslate_metrics::pystr::rstrip(&text);
        Ok(if number == 1 { text.strip_prefix('\u{feff}').unwrap_or(text) } else { text }.to_string())
    }
}

/// The next line typed at a terminal; empty at the end. A terminal hands over a line at Enter, or
/// what is typed of it at Ctrl-D: that is the line (so a last line ended by Ctrl-D is translated
/// at once, and the next Ctrl-D ends the input, as with `cat`; `read_until` would wait for two more).
fn typed_line(stdin: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let read = loop {
        match stdin.fill_buf() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            read => break read?,
        }
    };
    let end = read.iter().position(|&b| b == b'\n').map_or(read.len(), |i| i + 1);
    let line = read[..end].to_vec();
    stdin.consume(end);
    Ok(line)
}

/// Whether the terminal hands over whole lines (canonical mode, as a shell leaves it): then each
/// read is a line or what Ctrl-D sent of one. In raw mode a read is whatever was typed so far.
fn line_by_line() -> bool {
    // SAFETY: tcgetattr only fills `modes`; on failure (not a terminal) the lines are read as a pipe's.
    unsafe {
        let mut modes: libc::termios = std::mem::zeroed();
        libc::tcgetattr(0, &mut modes) == 0 && modes.c_lflag & libc::ICANON != 0
    }
}
