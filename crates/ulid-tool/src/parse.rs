//! `ulid-tool parse` and `ulid-tool validate`: reading ids in any of the type's three
//! forms, saying what each holds, and reporting the ones that are not ids
//! in the words of the type's own error DETAIL and HINT.
//!
//! `parse` also notes, on standard error, a value whose time lies outside
//! the years 1990 to 2199: most likely a public id (`ulid-tool encrypt`), whose
//! "time" is AES output, read by mistake where its id was meant. Only a
//! note: the value is valid, and is printed as any other.

use crate::cli::{ParseArgs, ParseFormat};
use crate::exit::{Failure, INVALID, OK};
use crate::input::{for_each_id, Item, MAX_LINE};
use crate::output::{bytea_text, hex_text, push_decimal, time_text, uuid_text, Output, TIME_LEN};
use serde::{Serialize, Serializer as _};
use std::io::{self, BufReader, Read, Write};
use ulid_core::codec::{self, BYTES, RANDOM_BYTES, TEXT_LEN};
use ulid_core::monotonic::is_uuidv7;

/// `ulid-tool parse`: what each id holds; a bad one is reported and skipped.
pub(crate) fn run<R: Read, W: Write>(
    args: &ParseArgs,
    reader: &mut BufReader<R>,
    errors: &mut impl Write,
    out: &mut Output<W>,
) -> Result<u8, Failure> {
    let mut printer = Printer::new(args.format);
    let mut invalid = false;
    for_each_id(&args.input.ids, reader, out, |out, item| {
        match read_id(&item, errors)? {
            Some(value) => {
                note_far_time(&item, &value, errors)?;
                printer.print(&mut out.buf, &value);
                out.flush_if_full()?;
            }
            None => invalid = true,
        }
        Ok(())
    })?;
    Ok(if invalid { INVALID } else { OK })
}

/// Reads one id, or says on `errors` why it is not one.
pub fn read_id(item: &Item<'_>, errors: &mut impl Write) -> io::Result<Option<[u8; BYTES]>> {
    if item.truncated {
        writeln!(
            errors,
            "ulid-tool: {}: not an id: a line longer than {MAX_LINE} bytes",
            item.origin
        )?;
        return Ok(None);
    }
    match codec::parse(item.text) {
        Ok(value) => Ok(Some(value)),
        Err(err) => {
            // shown escaped: whatever the input holds reaches a terminal as text
            let shown = String::from_utf8_lossy(item.text);
            write!(
                errors,
                "ulid-tool: {}: invalid id \"{}\": {}",
                item.origin,
                shown.escape_debug(),
                err.detail(item.text)
            )?;
            // the type's HINT too, in brackets as for a key of the wrong
            // length: it says how to write what was meant
            match err.hint() {
                Some(hint) => writeln!(errors, " ({hint})")?,
                None => writeln!(errors)?,
            }
            Ok(None)
        }
    }
}

/// The years (UTC) the times of ids in use fall in, with room on either
/// side: from 1990 to 2199. Outside them, a value is more likely a public
/// id than an id: a public id's first 48 bits are AES output, a "time"
/// anywhere up to the year 10889, and fewer than 3 in 100 fall within
/// these years.
const LIKELY_MS: std::ops::Range<u64> = 631_152_000_000..7_258_118_400_000;

/// Says on `errors` that `value`, read from `item`, may be a public id,
/// when its time is outside `LIKELY_MS`. A value whose random part is zero
/// is left alone: that is a range bound (`ulid-tool bounds`, `timestamptz::ulid`)
/// or the nil id, made on purpose, while a public id is one with chance
/// 2^-80.
fn note_far_time(item: &Item<'_>, value: &[u8; BYTES], errors: &mut impl Write) -> io::Result<()> {
    let unix_ms = codec::timestamp_ms(value);
    if LIKELY_MS.contains(&unix_ms) || value[BYTES - RANDOM_BYTES..] == [0; RANDOM_BYTES] {
        return Ok(());
    }
    let (time, len) = time_text(unix_ms);
    // a valid id is plain ASCII: shown as given
    writeln!(
        errors,
        "ulid-tool: {}: note: the time of \"{}\" is {}, outside the years 1990 to 2199: \
         it may be a public id; ulid-tool decrypt ID --key-file KEY reads it",
        item.origin,
        String::from_utf8_lossy(item.text),
        ascii(&time[..len])
    )
}

/// The number of fields `parse` writes for an id.
const FIELDS: usize = 7;

/// The text format's column of names: the longest name and two blanks.
const NAME_WIDTH: usize = 9;

/// The texts of one value, each in an array of its own size: no
/// allocation, and every copy of a known length.
struct Fields {
    ulid: [u8; TEXT_LEN],
    uuid: [u8; 36],
    hex: [u8; 34],
    time: ([u8; TIME_LEN], usize),
    unix_ms: u64,
    random: [u8; 2 * RANDOM_BYTES],
    uuidv7: bool,
}

impl Fields {
    #[inline]
    fn of(value: &[u8; BYTES]) -> Self {
        let unix_ms = codec::timestamp_ms(value);
        Fields {
            ulid: codec::encode(value),
            uuid: uuid_text(value),
            hex: bytea_text(value),
            time: time_text(unix_ms),
            unix_ms,
            random: hex_text(&value[BYTES - RANDOM_BYTES..]),
            uuidv7: is_uuidv7(value),
        }
    }

    /// The fields, by name, in the order every format writes them: the
    /// text format's labels, TSV's columns, JSON's keys. The one list of
    /// them each format renders.
    #[inline]
    fn table(&self) -> [(&'static str, Value<'_>); FIELDS] {
        [
            ("ulid", Value::Text(&self.ulid)),
            ("uuid", Value::Text(&self.uuid)),
            ("hex", Value::Text(&self.hex)),
            ("time", Value::Text(&self.time.0[..self.time.1])),
            ("unix_ms", Value::Number(self.unix_ms)),
            ("random", Value::Text(&self.random)),
            ("uuidv7", Value::Truth(self.uuidv7)),
        ]
    }
}

/// A field's value, as every format writes it: text (a string in JSON),
/// a decimal number, or `true` or `false`.
#[derive(Clone, Copy)]
enum Value<'a> {
    Text(&'a [u8]),
    Number(u64),
    Truth(bool),
}

impl Value<'_> {
    /// Appends the value as the text and TSV formats write it.
    #[inline]
    fn push(self, out: &mut Vec<u8>) {
        match self {
            Value::Text(text) => out.extend_from_slice(text),
            Value::Number(n) => push_decimal(out, n),
            Value::Truth(truth) => out.extend_from_slice(if truth { b"true" } else { b"false" }),
        }
    }
}

impl Serialize for Value<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Value::Text(text) => serializer.serialize_str(ascii(text)),
            Value::Number(n) => serializer.serialize_u64(n),
            Value::Truth(truth) => serializer.serialize_bool(truth),
        }
    }
}

/// Every field is ASCII, made above.
fn ascii(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or_default()
}

/// Writes what ids hold, in one of `parse`'s formats.
pub struct Printer {
    format: ParseFormat,
    printed: u64,
}

impl Printer {
    pub fn new(format: ParseFormat) -> Self {
        Printer { format, printed: 0 }
    }

    /// Appends what `value` holds to `out`.
    #[inline]
    pub fn print(&mut self, out: &mut Vec<u8>, value: &[u8; BYTES]) {
        let fields = Fields::of(value);
        let table = fields.table();
        match self.format {
            // a line a field, its name in a column of its own; a blank
            // line between ids
            ParseFormat::Text => {
                if self.printed > 0 {
                    out.push(b'\n');
                }
                for (name, value) in table {
                    out.extend_from_slice(name.as_bytes());
                    out.extend_from_slice(&[b' '; NAME_WIDTH][name.len()..]);
                    value.push(out);
                    out.push(b'\n');
                }
            }
            // a line an id, its fields apart by tabs
            ParseFormat::Tsv => {
                for (at, (_, value)) in table.into_iter().enumerate() {
                    if at > 0 {
                        out.push(b'\t');
                    }
                    value.push(out);
                }
                out.push(b'\n');
            }
            // an object a line, its keys in the table's order
            ParseFormat::Json => {
                // writing to a Vec cannot fail, nor can these fields
                let mut json = serde_json::Serializer::new(&mut *out);
                let _ = (&mut json).collect_map(table);
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

    fn note_of(ms: u64, random: [u8; RANDOM_BYTES]) -> String {
        let value = codec::from_parts(ms, &random);
        let text = codec::encode(&value);
        let item = Item {
            text: &text,
            origin: crate::input::Origin::Line(3),
            truncated: false,
        };
        let mut errors = Vec::new();
        note_far_time(&item, &value, &mut errors).unwrap();
        String::from_utf8(errors).unwrap()
    }

    #[test]
    fn a_time_far_from_now_is_noted() {
        let random = [0x5A; RANDOM_BYTES];
        // 1990-01-01 and 2200-01-01, midnight UTC: the first is in, the
        // second out
        for (ms, noted) in [
            (631_152_000_000 - 1, true),
            (631_152_000_000, false),
            (1_735_689_600_000, false),
            (7_258_118_400_000 - 1, false),
            (7_258_118_400_000, true),
            (0, true),
            (codec::MAX_TIMESTAMP_MS, true),
        ] {
            assert_eq!(!note_of(ms, random).is_empty(), noted, "{ms}");
        }
        let note = note_of(7_258_118_400_000, random);
        assert!(
            note.starts_with("ulid-tool: line 3: note: the time of \"")
                && note.contains(" is 2200-01-01T00:00:00.000Z, outside the years 1990 to 2199: ")
                && note.ends_with("ulid-tool decrypt ID --key-file KEY reads it\n"),
            "{note}"
        );
        // a range bound, or the nil id: made so, no public id
        assert_eq!(note_of(0, [0; RANDOM_BYTES]), "");
        assert_eq!(note_of(codec::MAX_TIMESTAMP_MS, [0; RANDOM_BYTES]), "");
    }

    #[test]
    fn the_text_format_s_names_fit_their_column() {
        let fields = Fields::of(&[0; BYTES]);
        let longest = fields.table().iter().map(|(name, _)| name.len()).max();
        assert_eq!(longest, Some(NAME_WIDTH - 2));
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
