//! Keyed, reversible masking of a ULID: AES on its 16 bytes, one block, no
//! mode and no padding. A ULID is exactly one AES block, so the result is
//! again 16 bytes (a valid ULID, whose "timestamp" means nothing), the
//! mapping is a permutation (no two ids share a public id), and without the
//! key the public ids are indistinguishable from random values.
//!
//! The cipher is RustCrypto's `aes`, which uses the processor's AES
//! instructions where it has them and a constant-time software
//! implementation elsewhere; nothing here is cipher code. The key is
//! expanded once, in `Cipher::new`; the SQL layer keeps a `Cipher` per call
//! site and asks `has_key` whether the next call's key is the same.

use aes::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use aes::{Aes128, Aes192, Aes256};
use zeroize::Zeroize;

use crate::codec::BYTES;

/// The key lengths AES takes, in bytes: AES-128, AES-192 and AES-256.
pub const KEY_LENGTHS: [usize; 3] = [16, 24, 32];
const MAX_KEY: usize = 32;

/// A key of a length AES does not take (the length it had).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyLengthError(pub usize);

/// What the error for a key of another length says, before the length.
pub const KEY_LENGTH_MESSAGE: &str = "invalid key length for ulid_encrypt and ulid_decrypt";
/// The lengths a key may have, in one sentence: the DETAIL of that error.
pub const KEY_LENGTH_DETAIL: &str = "The key is 16, 24 or 32 bytes: AES-128, AES-192 or AES-256.";

impl KeyLengthError {
    /// The error's message, with the length the key had: what the
    /// extension raises (SQLSTATE 22023) and the command-line tool prints.
    pub fn message(&self) -> String {
        Self::message_for(self.0, if self.0 == 1 { "byte" } else { "bytes" })
    }

    /// The message for a length said otherwise (`more than 32`), in `unit`.
    pub fn message_for(len: impl core::fmt::Display, unit: &str) -> String {
        format!("{KEY_LENGTH_MESSAGE}: {len} {unit}")
    }

    /// The DETAIL: the lengths a key may have.
    pub fn detail(&self) -> &'static str {
        KEY_LENGTH_DETAIL
    }
}

enum Aes {
    Aes128(Aes128),
    Aes192(Aes192),
    Aes256(Aes256),
}

/// An expanded AES key, and the key it was expanded from.
pub struct Cipher {
    key: [u8; MAX_KEY],
    key_len: usize,
    aes: Aes,
}

impl Cipher {
    /// Expands `key`: 16, 24 or 32 bytes.
    pub fn new(key: &[u8]) -> Result<Self, KeyLengthError> {
        let invalid = KeyLengthError(key.len());
        let aes = match key.len() {
            16 => Aes::Aes128(Aes128::new_from_slice(key).map_err(|_| invalid)?),
            24 => Aes::Aes192(Aes192::new_from_slice(key).map_err(|_| invalid)?),
            32 => Aes::Aes256(Aes256::new_from_slice(key).map_err(|_| invalid)?),
            _ => return Err(invalid),
        };
        let mut stored = [0; MAX_KEY];
        stored[..key.len()].copy_from_slice(key);
        Ok(Cipher {
            key: stored,
            key_len: key.len(),
            aes,
        })
    }

    /// Whether this cipher was made from exactly `key`.
    ///
    /// The bytes are compared in constant time: every byte is looked at,
    /// whatever the first difference, so that the time a call takes does
    /// not say how much of a key another call's key shares. Only the
    /// length (16, 24 or 32, which the key's AES variant tells anyway)
    /// decides early. Each length is compared as whole 8-byte words, a
    /// fixed number of loads and XORs with no branch on the bytes: this
    /// runs on every call of `ulid_encrypt` and `ulid_decrypt`.
    #[inline]
    pub fn has_key(&self, key: &[u8]) -> bool {
        if key.len() != self.key_len {
            return false;
        }
        let difference = match key.len() {
            16 => self.difference::<2>(key),
            24 => self.difference::<3>(key),
            32 => self.difference::<4>(key),
            _ => return false,
        };
        opaque(difference) == 0
    }

    /// The OR of the XOR of the first `WORDS` 8-byte words of the stored
    /// key and of `key` (which has exactly `WORDS * 8` bytes): zero when
    /// they are the same.
    #[inline(always)]
    fn difference<const WORDS: usize>(&self, key: &[u8]) -> u64 {
        let word = |bytes: &[u8], i: usize| {
            u64::from_ne_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        };
        let key = &key[..8 * WORDS];
        let mut difference = 0;
        for i in 0..WORDS {
            difference |= word(&self.key, i) ^ word(key, i);
        }
        difference
    }

    /// The AES encryption of `value`.
    #[inline]
    pub fn encrypt(&self, value: &[u8; BYTES]) -> [u8; BYTES] {
        let mut out = [0; BYTES];
        self.encrypt_into(value, &mut out);
        out
    }

    /// The AES encryption of `value`, written into `out` (the extension
    /// writes it straight into the value it returns).
    #[inline]
    pub fn encrypt_into(&self, value: &[u8; BYTES], out: &mut [u8; BYTES]) {
        let (value, out) = (Array::cast_from_core(value), Array::cast_from_core_mut(out));
        match &self.aes {
            Aes::Aes128(aes) => aes.encrypt_block_b2b(value, out),
            Aes::Aes192(aes) => aes.encrypt_block_b2b(value, out),
            Aes::Aes256(aes) => aes.encrypt_block_b2b(value, out),
        }
    }

    /// The AES decryption of `value`: `decrypt(encrypt(x)) == x`.
    #[inline]
    pub fn decrypt(&self, value: &[u8; BYTES]) -> [u8; BYTES] {
        let mut out = [0; BYTES];
        self.decrypt_into(value, &mut out);
        out
    }

    /// The AES decryption of `value`, written into `out`.
    #[inline]
    pub fn decrypt_into(&self, value: &[u8; BYTES], out: &mut [u8; BYTES]) {
        let (value, out) = (Array::cast_from_core(value), Array::cast_from_core_mut(out));
        match &self.aes {
            Aes::Aes128(aes) => aes.decrypt_block_b2b(value, out),
            Aes::Aes192(aes) => aes.decrypt_block_b2b(value, out),
            Aes::Aes256(aes) => aes.decrypt_block_b2b(value, out),
        }
    }
}

/// `value`, passed through a point the optimiser cannot see into, so that
/// it cannot turn the words compared before it back into an early exit.
/// Where inline assembly is at hand the value stays in a register; elsewhere
/// `black_box` takes it through memory, which costs a store and a load.
#[inline(always)]
fn opaque(mut value: u64) -> u64 {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: an empty instruction sequence that reads and writes nothing
    // but the register holding `value`
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) value, options(pure, nomem, nostack, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        value = core::hint::black_box(value);
    }
    value
}

impl Drop for Cipher {
    /// Clears this value's copy of the key; the `aes` types clear their
    /// expanded keys themselves (its `zeroize` feature). That is all a drop
    /// can clear. A `Cipher` is moved by copying its bytes (out of `new`,
    /// into a cache), and the place it was moved from keeps them, key and
    /// expanded key, until that memory is reused; the key's other copies
    /// (the caller's argument, and wherever that came from) are the
    /// caller's.
    fn drop(&mut self) {
        self.key.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn other_key_lengths_are_refused() {
        for len in [0, 1, 15, 17, 23, 25, 31, 33, 64] {
            assert_eq!(Cipher::new(&vec![7; len]).err(), Some(KeyLengthError(len)));
        }
    }

    #[test]
    fn a_key_differing_in_any_one_byte_is_another_key() {
        for len in KEY_LENGTHS {
            let key: Vec<u8> = (0..len as u8).collect();
            let cipher = Cipher::new(&key).unwrap();
            assert!(cipher.has_key(&key));
            for at in 0..len {
                for bit in 0..8 {
                    let mut other = key.clone();
                    other[at] ^= 1 << bit;
                    assert!(
                        !cipher.has_key(&other),
                        "AES-{}: byte {at}, bit {bit}",
                        len * 8
                    );
                }
            }
            assert!(!cipher.has_key(&key[..len - 1]));
            assert!(!cipher.has_key(&[key.as_slice(), &[0]].concat()));
        }
    }

    #[test]
    fn a_cipher_knows_its_key() {
        let cipher = Cipher::new(&[1; 24]).unwrap();
        assert!(cipher.has_key(&[1; 24]));
        assert!(!cipher.has_key(&[1; 16]));
        assert!(!cipher.has_key(&[1; 32]));
        let mut other = [1; 24];
        other[23] = 2;
        assert!(!cipher.has_key(&other));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        #[test]
        fn decrypt_undoes_encrypt(
            value in any::<[u8; 16]>(),
            key in prop::collection::vec(any::<u8>(), 32),
            len in prop::sample::select(KEY_LENGTHS.to_vec()),
        ) {
            let cipher = Cipher::new(&key[..len]).unwrap();
            let masked = cipher.encrypt(&value);
            prop_assert_eq!(cipher.decrypt(&masked), value);
            prop_assert_eq!(cipher.encrypt(&cipher.decrypt(&value)), value);
        }

        /// A permutation: two ids never share a public id.
        #[test]
        fn distinct_ids_have_distinct_public_ids(
            a in any::<[u8; 16]>(),
            b in any::<[u8; 16]>(),
            key in any::<[u8; 16]>(),
        ) {
            prop_assume!(a != b);
            let cipher = Cipher::new(&key).unwrap();
            prop_assert_ne!(cipher.encrypt(&a), cipher.encrypt(&b));
        }
    }
}
