//! Reading ids: from the command's arguments, or one per line from standard
//! input, in constant memory whatever its size.
//!
//! An argument is read exactly as given, as the type reads a literal:
//! `' 01JGFJJZ00XHF7E02JJ03AE4T7'` is refused there, and so it is here. A
//! line of standard input is read without the blanks around it (psql's
//! aligned output pads columns, and files may end lines with CR LF), and
//! empty lines are skipped: those blanks come from how ids are listed,
//! not from anyone writing an id.
//!
//! A line is read up to `MAX_LINE` bytes; the rest of a longer one is
//! skipped unread into memory (it is no id in any form).

use crate::output::Output;
use std::io::{self, BufRead, BufReader, Read, Write};

/// The longest line kept whole: far longer than any of an id's forms.
pub const MAX_LINE: usize = 4096;

/// Where an id came from, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The n-th argument (from 1)
    Argument(usize),
    /// Line n of standard input (from 1)
    Line(u64),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Argument(n) => write!(f, "argument {n}"),
            Origin::Line(n) => write!(f, "line {n}"),
        }
    }
}

/// An id as read: its text, and whether the line it came from was longer
/// than `MAX_LINE` (the text is then the line's first bytes).
pub struct Item<'a> {
    pub text: &'a [u8],
    pub origin: Origin,
    pub truncated: bool,
}

/// `text` without the blanks (space, tab, CR, LF) around it: for lines
/// of standard input only.
#[inline]
fn trim(text: &[u8]) -> &[u8] {
    let blank = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let start = text.iter().position(|c| !blank(c)).unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|c| !blank(c))
        .map_or(start, |i| i + 1);
    &text[start..end]
}

/// Calls `each` with `out` for every id of `args`, as given, or of
/// `reader`'s lines, trimmed, when `args` is empty. Whenever reading would
/// have to wait for more input, `out` is flushed first: a command in a
/// pipeline answers each line as it comes, yet writes in large blocks when
/// input is plentiful.
pub fn for_each_id<R: Read, W: Write>(
    args: &[String],
    reader: &mut BufReader<R>,
    out: &mut Output<W>,
    mut each: impl FnMut(&mut Output<W>, Item<'_>) -> io::Result<()>,
) -> io::Result<()> {
    if !args.is_empty() {
        for (i, arg) in args.iter().enumerate() {
            each(
                out,
                Item {
                    text: arg.as_bytes(),
                    origin: Origin::Argument(i + 1),
                    truncated: false,
                },
            )?;
        }
        return Ok(());
    }
    let mut line = Vec::with_capacity(MAX_LINE + 1);
    let mut number = 0u64;
    loop {
        if reader.buffer().is_empty() {
            out.flush()?;
        }
        // the whole lines in the buffer, read where they are
        let buffered = reader.fill_buf()?;
        if buffered.is_empty() {
            return Ok(());
        }
        let mut used = 0;
        while let Some(end) = buffered[used..].iter().position(|&c| c == b'\n') {
            let whole = &buffered[used..used + end];
            used += end + 1;
            number += 1;
            let truncated = whole.len() > MAX_LINE;
            let text = if truncated {
                &whole[..MAX_LINE]
            } else {
                trim(whole)
            };
            if let Some(item) = line_item(text, number, truncated) {
                each(out, item)?;
            }
        }
        if used > 0 {
            reader.consume(used);
            continue;
        }
        // a line that goes on past the buffer (or ends the input without a
        // newline): copied, up to MAX_LINE bytes and the rest skipped
        line.clear();
        reader
            .by_ref()
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)?;
        number += 1;
        let truncated = line.len() > MAX_LINE && line.last() != Some(&b'\n');
        if truncated {
            reader.skip_until(b'\n')?;
            line.truncate(MAX_LINE);
        }
        if let Some(item) = line_item(trim(&line), number, truncated) {
            each(out, item)?;
        }
    }
}

/// Line `number` of the input as an id to answer; none for a blank line
/// (one that was cut short is answered, as too long).
fn line_item(text: &[u8], number: u64, truncated: bool) -> Option<Item<'_>> {
    (!text.is_empty() || truncated).then_some(Item {
        text,
        origin: Origin::Line(number),
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(input: &[u8]) -> Vec<(String, Origin, bool)> {
        let mut out = Vec::new();
        for_each_id(
            &[],
            &mut BufReader::new(input),
            &mut Output::new(io::sink()),
            |_, item| {
                out.push((
                    String::from_utf8_lossy(item.text).into_owned(),
                    item.origin,
                    item.truncated,
                ));
                Ok(())
            },
        )
        .unwrap();
        out
    }

    #[test]
    fn arguments_are_read_as_given() {
        let args = [
            " 01JGFJJZ00XHF7E02JJ03AE4T7".to_string(),
            "a\r\n".into(),
            String::new(),
        ];
        let mut got = Vec::new();
        for_each_id(
            &args,
            &mut BufReader::new(&b"ignored\n"[..]),
            &mut Output::new(io::sink()),
            |_, item| {
                got.push((item.text.to_vec(), item.origin));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(
            got,
            [
                (args[0].as_bytes().to_vec(), Origin::Argument(1)),
                (b"a\r\n".to_vec(), Origin::Argument(2)),
                (Vec::new(), Origin::Argument(3)),
            ]
        );
    }

    #[test]
    fn lines_trimmed_and_empty_ones_skipped() {
        let got = ids(b" 01JGFJJZ00XHF7E02JJ03AE4T7 \r\n\n\t\nabc\nlast");
        assert_eq!(
            got,
            [
                ("01JGFJJZ00XHF7E02JJ03AE4T7".into(), Origin::Line(1), false),
                ("abc".into(), Origin::Line(4), false),
                ("last".into(), Origin::Line(5), false),
            ]
        );
    }

    /// Lines split across the reader's buffer, and longer than it, read
    /// the same as lines within it.
    #[test]
    fn lines_across_the_buffer_read_alike() {
        let mut input = Vec::new();
        for n in 0..2000 {
            input.extend_from_slice(format!(" id{n} \n").as_bytes());
            if n % 300 == 0 {
                input.extend_from_slice(&[b'7'; MAX_LINE + 5]);
                input.push(b'\n');
            }
        }
        input.extend_from_slice(b"last");
        for capacity in [7, 64, 1000, 8192] {
            let mut got = Vec::new();
            for_each_id(
                &[],
                &mut BufReader::with_capacity(capacity, &input[..]),
                &mut Output::new(io::sink()),
                |_, item| {
                    got.push((item.text.to_vec(), item.origin, item.truncated));
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(got.len(), 2000 + 7 + 1, "{capacity}");
            assert_eq!(got.iter().filter(|g| g.2).count(), 7);
            assert!(got.iter().filter(|g| g.2).all(|g| g.0.len() == MAX_LINE));
            assert_eq!(got[0], (b"id0".to_vec(), Origin::Line(1), false));
            assert_eq!(got[1].1, Origin::Line(2));
            assert_eq!(got[2], (b"id1".to_vec(), Origin::Line(3), false));
            assert_eq!(got.last().unwrap().0, b"last");
        }
    }

    #[test]
    fn a_long_line_is_cut_and_the_next_one_read() {
        let mut input = vec![b'7'; 3 * MAX_LINE];
        input.extend_from_slice(b"\nnext\n");
        let got = ids(&input);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.len(), MAX_LINE);
        assert!(got[0].2);
        assert_eq!(got[1], ("next".into(), Origin::Line(2), false));
        // exactly MAX_LINE bytes and a newline: whole
        let mut input = vec![b'7'; MAX_LINE];
        input.push(b'\n');
        assert!(!ids(&input)[0].2);
    }
}
