//! What more than one of the tool's test files reads: the project's test
//! vectors, tests/vectors/ulid.json (which ulid-core, the extension and the
//! portable layer read too), and FIPS-197's AES cases among them. Each test
//! file is a crate of its own and uses what it needs of this.

#![allow(dead_code)]

use serde_json::Value;

/// FIPS-197, appendix C: the plaintext, as an id in the hex form.
pub const FIPS_PLAIN: &str = "\\x00112233445566778899aabbccddeeff";

/// tests/vectors/ulid.json, the one reader of it the tool's tests have.
pub fn vectors() -> Value {
    serde_json::from_str(include_str!("../../../../tests/vectors/ulid.json"))
        .expect("tests/vectors/ulid.json is JSON")
}

/// FIPS-197's key of each length, 16, 24 and 32 bytes (00 01 02 ...), and
/// the ciphertext of FIPS_PLAIN under it in the hex form, as
/// tests/vectors/ulid.json holds them.
pub fn fips() -> Vec<(Vec<u8>, String)> {
    let vectors = vectors();
    let plain = ulid_core::codec::parse(FIPS_PLAIN.as_bytes());
    let out: Vec<(Vec<u8>, String)> = [16u8, 24, 32]
        .iter()
        .map(|&len| {
            let key: Vec<u8> = (0..len).collect();
            let cases: Vec<&Value> = vectors["public_ids"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|case| {
                    case["key"].as_str() == Some(&hex(&key))
                        && ulid_core::codec::parse(case["ulid"].as_str().unwrap().as_bytes())
                            == plain
                })
                .collect();
            let [case] = cases[..] else {
                panic!(
                    "{} FIPS-197 vectors for a {len}-byte key, not one",
                    cases.len()
                );
            };
            let public = case["public"].as_str().unwrap();
            let public = ulid_core::codec::parse(public.as_bytes()).unwrap();
            (key, format!("\\x{}", hex(&public)))
        })
        .collect();
    // the three differ: a source that lost a key's length would show
    assert_ne!(out[0].1, out[1].1);
    assert_ne!(out[1].1, out[2].1);
    out
}

/// The bytes as lower-case hexadecimal digits.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
