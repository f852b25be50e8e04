//! Prints the ranges of code points that Rust's `escape_debug` escapes in a
//! string of one character, as the first and last code point of each, in
//! order: the array `escaped` in `ulid_portable._show_character`
//! (ulid_portable.sql), which shows a character in an error's DETAIL as the
//! native type does. Run it with the Rust that builds the extension after a
//! Rust update changes Unicode's tables (tests/portable compares the
//! details with the native type's):
//!
//!     rustc -O portable/escape-table.rs -o /tmp/escape-table && /tmp/escape-table

fn main() {
    let mut ranges: Vec<(u32, u32)> = vec![];
    for cp in 0u32..=0x10FFFF {
        let Some(c) = char::from_u32(cp) else { continue };
        let alone = c.to_string();
        if alone.escape_debug().to_string() != alone {
            match ranges.last_mut() {
                Some(last) if last.1 + 1 == cp => last.1 = cp,
                _ => ranges.push((cp, cp)),
            }
        }
    }
    let bounds: Vec<String> = ranges.iter().map(|&(a, b)| format!("{a},{b}")).collect();
    println!("{{{}}}", bounds.join(","));
}
