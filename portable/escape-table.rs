//! Prints the code points that Rust's `escape_debug` escapes in a string of
//! one character, as comma-separated hexadecimal ranges: the table in
//! `ulid_portable._show_character` (ulid_portable.sql), which shows a
//! character in an error's DETAIL as the native type does. Run it with the
//! Rust that builds the extension after a Rust update changes Unicode's
//! tables (tests/portable compares the details with the native type's):
//!
//!     rustc -O portable/escape-table.rs -o /tmp/escape-table && /tmp/escape-table | fold -w 96

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
    let parts: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| if a == b { format!("{a:x}") } else { format!("{a:x}-{b:x}") })
        .collect();
    println!("{}", parts.join(","));
}
