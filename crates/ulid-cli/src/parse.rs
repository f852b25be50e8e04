//! `ulid parse` and `ulid validate`: reading ids in any of the type's three
//! forms, saying what each holds, and reporting the ones that are not ids
//! in the words of the type's own error DETAIL.

use crate::cli::ParseFormat;
use crate::input::{Item, MAX_LINE};
use crate::output::{push_decimal, push_hex, push_time, push_uuid};
use serde::Serialize;
use std::io::{self, Write};
use ulid_core::codec::{self, BYTES, RANDOM_BYTES};
use ulid_core::monotonic::is_uuidv7;

/// Reads one id, or says on `errors` why it is not one.
pub fn read_id(item: &Item<'_>, errors: &mut impl Write) -> io::Result<Option<[u8; BYTES]>> {
    if item.truncated {
        writeln!(
            errors,
            "ulid: {}: not an id: a line longer than {MAX_LINE} bytes",
            item.origin
        )?;
        return Ok(None);
    }
    match codec::parse(item.text) {
        Ok(value) => Ok(Some(value)),
        Err(err) => {
            // shown escaped: whatever the input holds reaches a terminal as text
            let shown = String::from_utf8_lossy(item.text);
            writeln!(
                errors,
                "ulid: {}: invalid id \"{}\": {}",
                item.origin,
                shown.escape_debug(),
                err.detail(item.text)
            )?;
            Ok(None)
        }
    }
}

/// The fields of a parsed id, for JSON.
#[derive(Serialize)]
struct Record<'a> {
    ulid: &'a str,
    uuid: &'a str,
    hex: &'a str,
    time: &'a str,
    unix_ms: u64,
    random: &'a str,
    uuidv7: bool,
}

/// The texts of one value, formatted once into a scratch buffer.
struct Fields {
    scratch: Vec<u8>,
    /// end offsets of ulid, uuid, hex, time, random in `scratch`
    ends: [usize; 5],
    unix_ms: u64,
    uuidv7: bool,
}

impl Fields {
    fn new() -> Self {
        Fields {
            scratch: Vec::with_capacity(160),
            ends: [0; 5],
            unix_ms: 0,
            uuidv7: false,
        }
    }

    #[inline]
    fn fill(&mut self, value: &[u8; BYTES]) {
        let s = &mut self.scratch;
        s.clear();
        s.extend_from_slice(&codec::encode(value));
        self.ends[0] = s.len();
        push_uuid(s, value);
        self.ends[1] = s.len();
        s.extend_from_slice(b"\\x");
        push_hex(s, value);
        self.ends[2] = s.len();
        self.unix_ms = codec::timestamp_ms(value);
        push_time(s, self.unix_ms);
        self.ends[3] = s.len();
        push_hex(s, &value[BYTES - RANDOM_BYTES..]);
        self.ends[4] = s.len();
        self.uuidv7 = is_uuidv7(value);
    }

    #[inline]
    fn field(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.scratch[start..self.ends[i]]
    }

    #[inline]
    fn str_field(&self, i: usize) -> &str {
        // every field is ASCII, made above
        std::str::from_utf8(self.field(i)).unwrap_or_default()
    }
}

/// Writes what ids hold, in one of `parse`'s formats.
pub struct Printer {
    format: ParseFormat,
    fields: Fields,
    printed: u64,
}

impl Printer {
    pub fn new(format: ParseFormat) -> Self {
        Printer {
            format,
            fields: Fields::new(),
            printed: 0,
        }
    }

    /// Appends what `value` holds to `out`.
    #[inline]
    pub fn print(&mut self, out: &mut Vec<u8>, value: &[u8; BYTES]) {
        self.fields.fill(value);
        let f = &self.fields;
        let truth: &[u8] = if f.uuidv7 { b"true" } else { b"false" };
        match self.format {
            ParseFormat::Text => {
                if self.printed > 0 {
                    out.push(b'\n');
                }
                for (label, i) in [
                    (&b"ulid     "[..], 0),
                    (b"uuid     ", 1),
                    (b"hex      ", 2),
                    (b"time     ", 3),
                ] {
                    out.extend_from_slice(label);
                    out.extend_from_slice(f.field(i));
                    out.push(b'\n');
                }
                out.extend_from_slice(b"unix_ms  ");
                push_decimal(out, f.unix_ms);
                out.extend_from_slice(b"\nrandom   ");
                out.extend_from_slice(f.field(4));
                out.extend_from_slice(b"\nuuidv7   ");
                out.extend_from_slice(truth);
                out.push(b'\n');
            }
            ParseFormat::Tsv => {
                for i in 0..4 {
                    out.extend_from_slice(f.field(i));
                    out.push(b'\t');
                }
                push_decimal(out, f.unix_ms);
                out.push(b'\t');
                out.extend_from_slice(f.field(4));
                out.push(b'\t');
                out.extend_from_slice(truth);
                out.push(b'\n');
            }
            ParseFormat::Json => {
                let record = Record {
                    ulid: f.str_field(0),
                    uuid: f.str_field(1),
                    hex: f.str_field(2),
                    time: f.str_field(3),
                    unix_ms: f.unix_ms,
                    random: f.str_field(4),
                    uuidv7: f.uuidv7,
                };
                // writing to a Vec cannot fail, nor can these fields
                let _ = serde_json::to_writer(&mut *out, &record);
                out.push(b'\n');
            }
        }
        self.printed += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(format: ParseFormat, texts: &[&str]) -> String {
        let mut printer = Printer::new(format);
        let mut out = Vec::new();
        for text in texts {
            printer.print(&mut out, &codec::parse(text.as_bytes()).unwrap());
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_is_json() {
        let line = printed(ParseFormat::Json, &["01941f29-7c00-ec5e-7700-529006a71347"]);
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["ulid"], "01JGFJJZ00XHF7E02JJ03AE4T7");
        assert_eq!(value["hex"], "\\x01941f297c00ec5e7700529006a71347");
        assert_eq!(value["unix_ms"], 1_735_689_600_000u64);
        assert_eq!(value["time"], "2025-01-01T00:00:00.000Z");
        assert_eq!(value["random"], "ec5e7700529006a71347");
        assert_eq!(value["uuidv7"], false);
        assert!(line.ends_with("}\n") && line.lines().count() == 1);
    }

    #[test]
    fn text_blocks_are_apart() {
        let text = printed(
            ParseFormat::Text,
            &["01JGFJJZ00XHF7E02JJ03AE4T7", "01JGFJJZ00XHF7E02JJ03AE4T7"],
        );
        let blocks: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].lines().count(), 7);
    }
}
