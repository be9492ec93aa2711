//! Per-client-address rate limits on what costs the server a room: creating one and claiming a
//! seat (`--max-rooms-per-minute`, a token bucket per address through `governor`). Behind a
//! reverse proxy every request comes from the proxy's address: `--client-ip-header` names the
//! header the (trusted) proxy sets, and its last address is the client's.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderName};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Above this many addresses remembered, the ones whose bucket is full again are forgotten.
const FORGET_ABOVE: usize = 10_000;

/// The rate limit of room creations and claims.
pub struct RoomLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    client_header: Option<HeaderName>,
}

impl RoomLimiter {
    /// `per_minute` requests a minute per address, in bursts of as many.
    pub fn new(per_minute: NonZeroU32, client_header: Option<HeaderName>) -> RoomLimiter {
        RoomLimiter { limiter: RateLimiter::keyed(Quota::per_minute(per_minute)), client_header }
    }

    /// The client's address: the trusted header's last entry when configured and readable, or
    /// the peer's.
    pub fn client(&self, headers: &HeaderMap, peer: SocketAddr) -> IpAddr {
        self.client_header
            .as_ref()
            .and_then(|name| headers.get_all(name).iter().next_back())
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.rsplit(',').next())
            .and_then(|last| last.trim().trim_start_matches('[').trim_end_matches(']').parse().ok())
            .unwrap_or(peer.ip())
    }

    /// Takes one token for this client, or says how long until the next one.
    pub fn check(&self, headers: &HeaderMap, peer: SocketAddr) -> Result<(), Duration> {
        if self.limiter.len() > FORGET_ABOVE {
            self.limiter.retain_recent();
        }
        let client = self.client(headers, peer);
        self.limiter
            .check_key(&client)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trusted_header_names_the_client_and_is_ignored_otherwise() {
        let peer: SocketAddr = "10.0.0.1:5000".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "203.0.113.9, 198.51.100.7".parse().unwrap());
        let one = NonZeroU32::new(1).unwrap();
        let proxied = RoomLimiter::new(one, Some(HeaderName::from_static("x-forwarded-for")));
        assert_eq!(proxied.client(&headers, peer), "198.51.100.7".parse::<IpAddr>().unwrap());
        assert_eq!(proxied.client(&HeaderMap::new(), peer), peer.ip());
        let direct = RoomLimiter::new(one, None);
        assert_eq!(direct.client(&headers, peer), peer.ip());
        assert!(direct.check(&headers, peer).is_ok());
        assert!(direct.check(&headers, peer).is_err());
    }
}
