//! A profile without an account (issue 25): an id anyone may see (its page is `/@/{id}`), a
//! secret only its browser holds (in an `HttpOnly` cookie), a display name under the rules of
//! a seat's name, and the seats taken while it existed.
//!
//! The server stores the SHA-256 of the secret, never the secret. A seat's token, which "my
//! games" needs on a new device, is stored sealed with a key only the secret opens ([`seal`]):
//! a copy of the database alone opens no seat. A transfer code seals the secret the same way
//! for the ten minutes it lives.

use sha2::{Digest, Sha256};

/// The cookie that carries `{id}.{secret}`.
pub const COOKIE: &str = "fugitive_profile";

/// How long the browser keeps the cookie: 400 days, the most a browser honours.
pub const COOKIE_MAX_AGE_SECS: u64 = 400 * 24 * 3600;

/// How long a transfer link or code works (once).
pub const TRANSFER_MS: i64 = 10 * 60 * 1000;

/// The characters of a profile id: lower-case letters and digits.
const ID_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// A profile id's length: 36^12 ≈ 2^62 ids.
pub const ID_LEN: usize = 12;

/// The characters of a short transfer code: no 0/O, 1/I/L to misread.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// A short transfer code's length (shown as two groups of four): 31^8 ≈ 2^39 codes, each
/// alive ten minutes, tried at the rate limit of its client address.
pub const CODE_LEN: usize = 8;

/// A profile id from random bytes (one byte per character).
pub fn id_from(random: [u8; ID_LEN]) -> String {
    random.iter().map(|b| ID_ALPHABET[usize::from(*b) % ID_ALPHABET.len()] as char).collect()
}

/// Whether `text` has the shape of a profile id.
pub fn is_id(text: &str) -> bool {
    text.len() == ID_LEN && text.bytes().all(|b| ID_ALPHABET.contains(&b))
}

/// A short transfer code from random bytes, as typed: `ABCD-EFGH`.
pub fn code_from(random: [u8; CODE_LEN]) -> String {
    let chars: String =
        random.iter().map(|b| CODE_ALPHABET[usize::from(*b) % CODE_ALPHABET.len()] as char).collect();
    format!("{}-{}", &chars[..4], &chars[4..])
}

/// A transfer code as typed, in the form it is hashed in: a short code in upper case without
/// spaces and dashes; a long one (the link's) as it is.
pub fn normalize_code(typed: &str) -> String {
    let short: String =
        typed.chars().filter(|c| !c.is_whitespace() && *c != '-').map(|c| c.to_ascii_uppercase()).collect();
    if short.len() == CODE_LEN { short } else { typed.trim().to_string() }
}

/// The value of the cookie for a profile.
pub fn cookie_value(id: &str, secret: &str) -> String {
    format!("{id}.{secret}")
}

/// The profile id and secret in a `Cookie` header's value, if it holds ours.
pub fn parse_cookie(header: &str) -> Option<(&str, &str)> {
    header.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        if name != COOKIE {
            return None;
        }
        let (id, secret) = value.split_once('.')?;
        (is_id(id) && !secret.is_empty()).then_some((id, secret))
    })
}

/// The `Set-Cookie` value that gives a browser its profile (`secure` when the site is served
/// over HTTPS).
pub fn set_cookie(id: &str, secret: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{COOKIE}={}; Path=/; Max-Age={COOKIE_MAX_AGE_SECS}; HttpOnly; SameSite=Lax{secure}",
        cookie_value(id, secret)
    )
}

/// The `Set-Cookie` value that makes a browser forget its profile.
pub fn clear_cookie(secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax{secure}")
}

/// `data` sealed (or opened: the same operation) with a key derived from `secret` for one
/// `purpose`, in hex. Each key seals one value only (the purpose names the room and seat, or
/// the transfer), so the XOR with a SHA-256 of it is a one-time pad; `data` has at most 32
/// bytes.
///
/// # Panics
/// When `data` is longer than 32 bytes.
pub fn seal(secret: &str, purpose: &str, data: &[u8]) -> String {
    assert!(data.len() <= 32, "seal takes at most 32 bytes");
    pad(secret, purpose, data).iter().map(|b| format!("{b:02x}")).collect()
}

/// Opens what [`seal`] sealed with the same secret and purpose; `None` when `sealed` is not
/// hex of at most 32 bytes.
pub fn open(secret: &str, purpose: &str, sealed: &str) -> Option<Vec<u8>> {
    if sealed.len() % 2 != 0 || sealed.len() > 64 {
        return None;
    }
    let bytes: Option<Vec<u8>> =
        (0..sealed.len()).step_by(2).map(|i| u8::from_str_radix(sealed.get(i..i + 2)?, 16).ok()).collect();
    Some(pad(secret, purpose, &bytes?))
}

fn pad(secret: &str, purpose: &str, data: &[u8]) -> Vec<u8> {
    let key = Sha256::new()
        .chain_update(b"fugitive profile seal\0")
        .chain_update(purpose.as_bytes())
        .chain_update(b"\0")
        .chain_update(secret.as_bytes())
        .finalize();
    data.iter().zip(key.iter()).map(|(d, k)| d ^ k).collect()
}

/// The purpose under which a seat's token is sealed for its profile.
pub fn seat_purpose(room: &str, seat: usize) -> String {
    format!("seat {room} {seat}")
}

/// The purpose under which a profile's secret is sealed for a transfer code.
pub fn transfer_purpose(code: &str) -> String {
    format!("transfer {code}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_round_trips_and_foreign_cookies_are_ignored() {
        let id = id_from([7; ID_LEN]);
        assert!(is_id(&id));
        let header = format!("theme=dark; {COOKIE}={}; other=1", cookie_value(&id, "s3cret"));
        assert_eq!(parse_cookie(&header), Some((id.as_str(), "s3cret")));
        assert_eq!(parse_cookie("theme=dark"), None);
        assert_eq!(parse_cookie("fugitive_profile=NOT-AN-ID.x"), None);
        assert_eq!(parse_cookie(&format!("fugitive_profile={id}.")), None);
        let set = set_cookie(&id, "s3cret", true);
        assert!(
            set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.ends_with("; Secure"),
            "{set}"
        );
        assert!(!set_cookie(&id, "s3cret", false).contains("Secure"));
    }

    #[test]
    fn only_the_same_secret_and_purpose_open_a_seal() {
        let token = [42u8; 32];
        let sealed = seal("secret", &seat_purpose("room", 1), &token);
        assert_ne!(sealed, token.iter().map(|b| format!("{b:02x}")).collect::<String>());
        assert_eq!(open("secret", &seat_purpose("room", 1), &sealed).unwrap(), token);
        assert_ne!(open("other", &seat_purpose("room", 1), &sealed).unwrap(), token);
        assert_ne!(open("secret", &seat_purpose("room", 0), &sealed).unwrap(), token);
        assert_eq!(open("secret", "x", "zz"), None);
    }

    #[test]
    fn a_short_code_is_read_however_it_is_typed() {
        let code = code_from([3, 40, 77, 200, 9, 0, 31, 255]);
        assert_eq!(code.len(), CODE_LEN + 1);
        let plain = code.replace('-', "");
        assert_eq!(normalize_code(&code), plain);
        assert_eq!(normalize_code(&format!(" {} ", code.to_lowercase().replace('-', " "))), plain);
        assert_eq!(
            normalize_code("a-long-link-secret-of-many-characters"),
            "a-long-link-secret-of-many-characters"
        );
    }
}
