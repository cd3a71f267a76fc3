//! The client address that login limits count by (docs/security.md): the
//! TCP peer, or, when the peer is one of the reverse proxies djego is told
//! to trust, the address that proxy says it received the request from.

use std::net::IpAddr;

/// One address or network (`10.0.0.0/8`, `fd00::/8`, `172.30.0.10`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Network {
    base: IpAddr,
    prefix_bits: u8,
}

impl Network {
    fn parse(text: &str) -> Result<Network, String> {
        let (ip, bits) = match text.split_once('/') {
            Some((ip, bits)) => (ip, Some(bits)),
            None => (text, None),
        };
        let base: IpAddr = ip
            .trim()
            .parse()
            .map_err(|_| format!("{text:?} is not an IP address or network"))?;
        let max = if base.is_ipv4() { 32 } else { 128 };
        let prefix_bits = match bits {
            None => max,
            Some(b) => b
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|b| *b <= max)
                .ok_or_else(|| format!("{text:?}: the prefix length must be 0 to {max}"))?,
        };
        Ok(Network { base, prefix_bits })
    }

    fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        match (self.base, ip) {
            (IpAddr::V4(base), IpAddr::V4(ip)) => prefix_equal(&base.octets(), &ip.octets(), self.prefix_bits),
            (IpAddr::V6(base), IpAddr::V6(ip)) => prefix_equal(&base.octets(), &ip.octets(), self.prefix_bits),
            _ => false,
        }
    }
}

fn prefix_equal(a: &[u8], b: &[u8], bits: u8) -> bool {
    let (whole, rest) = ((bits / 8) as usize, bits % 8);
    if a[..whole] != b[..whole] {
        return false;
    }
    rest == 0 || (a[whole] ^ b[whole]) >> (8 - rest) == 0
}

/// `text` as an address is written where login limits record it, or `None`
/// when it is not an IP address.
pub fn canonical_address(text: &str) -> Option<String> {
    text.trim().parse::<IpAddr>().ok().map(|ip| canonical(ip).to_string())
}

/// An IPv4 client seen through an IPv6 socket (`::ffff:192.0.2.1`) is that IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The reverse proxies whose `X-Forwarded-For` / `X-Real-IP` djego believes
/// (`DJEGO_TRUST_FORWARDED_FOR`): none by default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    networks: Vec<Network>,
    /// `true`: every peer, and so every entry of `X-Forwarded-For`, is
    /// believed; the client is the last entry, the one the nearest proxy appended.
    everyone: bool,
}

impl TrustedProxies {
    /// Off (`""`, `false`), every peer (`true`: only for a djego no client
    /// can reach but through the proxy), or a comma-separated list of
    /// addresses and networks.
    pub fn parse(text: &str) -> Result<TrustedProxies, String> {
        match text.trim() {
            "" | "false" => Ok(TrustedProxies::none()),
            "true" => Ok(TrustedProxies::any()),
            list => list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(Network::parse)
                .collect::<Result<Vec<_>, _>>()
                .map(|networks| TrustedProxies {
                    networks,
                    everyone: false,
                })
                .map_err(|e| format!("DJEGO_TRUST_FORWARDED_FOR: {e}")),
        }
    }

    pub fn none() -> TrustedProxies {
        TrustedProxies::default()
    }

    /// Every peer: the headers are believed from anyone.
    pub fn any() -> TrustedProxies {
        TrustedProxies {
            networks: vec![
                Network::parse("0.0.0.0/0").expect("a network"),
                Network::parse("::/0").expect("a network"),
            ],
            everyone: true,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.networks.is_empty()
    }

    pub fn trusts(&self, ip: IpAddr) -> bool {
        self.networks.iter().any(|n| n.contains(ip))
    }

    /// The client's address: the peer's, unless the peer is a trusted proxy;
    /// then the last `X-Forwarded-For` entry that is not a trusted proxy (each
    /// proxy appends the address it received the request from, so entries to
    /// the left of that are the client's own say), or `X-Real-IP` without one.
    pub fn client_address(&self, peer: Option<IpAddr>, forwarded_for: Option<&str>, real_ip: Option<&str>) -> String {
        let Some(peer) = peer.map(canonical) else {
            return String::new();
        };
        if !self.trusts(peer) {
            return peer.to_string();
        }
        if let Some(list) = forwarded_for {
            for entry in list.rsplit(',') {
                let Ok(ip) = entry.trim().parse::<IpAddr>().map(canonical) else {
                    // Not an address a proxy of ours wrote: stop believing the header here.
                    break;
                };
                if self.everyone || !self.trusts(ip) {
                    return ip.to_string();
                }
            }
        }
        real_ip
            .and_then(|r| r.trim().parse::<IpAddr>().ok())
            .map(canonical)
            .filter(|ip| self.everyone || !self.trusts(*ip))
            .unwrap_or(peer)
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn networks_match_their_prefix_only() {
        let p = TrustedProxies::parse("172.30.0.0/24, 10.1.2.3, fd00::/8").unwrap();
        assert!(p.trusts("172.30.0.9".parse().unwrap()));
        assert!(!p.trusts("172.30.1.9".parse().unwrap()));
        assert!(p.trusts("10.1.2.3".parse().unwrap()));
        assert!(!p.trusts("10.1.2.4".parse().unwrap()));
        assert!(p.trusts("fd12::1".parse().unwrap()));
        assert!(p.trusts("::ffff:172.30.0.1".parse().unwrap()), "an IPv4-mapped peer");
        assert!(!TrustedProxies::parse("").unwrap().trusts("10.1.2.3".parse().unwrap()));
        assert!(TrustedProxies::parse("true")
            .unwrap()
            .trusts("198.51.100.1".parse().unwrap()));
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("proxy").is_err());
        let odd = TrustedProxies::parse("192.168.0.0/23").unwrap();
        assert!(odd.trusts("192.168.1.200".parse().unwrap()));
        assert!(!odd.trusts("192.168.2.1".parse().unwrap()));
    }

    #[test]
    fn the_headers_count_only_from_a_trusted_peer() {
        let p = TrustedProxies::parse("172.30.0.10").unwrap();
        let xff = Some("203.0.113.9, 198.51.100.7");
        // From the proxy: the entry it appended.
        assert_eq!(p.client_address(ip("172.30.0.10"), xff, None), "198.51.100.7");
        // From anyone else: the peer, whatever it claims.
        assert_eq!(
            p.client_address(ip("198.51.100.99"), xff, Some("1.2.3.4")),
            "198.51.100.99"
        );
        // The proxy with no header: X-Real-IP, then the proxy itself.
        assert_eq!(
            p.client_address(ip("172.30.0.10"), None, Some("198.51.100.8")),
            "198.51.100.8"
        );
        assert_eq!(p.client_address(ip("172.30.0.10"), None, None), "172.30.0.10");
        // Garbage the proxy did not write stops the walk.
        assert_eq!(
            p.client_address(ip("172.30.0.10"), Some("nonsense"), None),
            "172.30.0.10"
        );
        // Everyone trusted: the last entry.
        assert_eq!(
            TrustedProxies::any().client_address(ip("172.30.0.10"), xff, None),
            "198.51.100.7"
        );
        // Nobody trusted: the peer.
        assert_eq!(
            TrustedProxies::none().client_address(ip("172.30.0.10"), xff, None),
            "172.30.0.10"
        );
    }

    #[test]
    fn chained_proxies_are_skipped() {
        let p = TrustedProxies::parse("10.0.0.0/8").unwrap();
        assert_eq!(
            p.client_address(ip("10.0.0.2"), Some("6.6.6.6, 198.51.100.7, 10.0.0.1"), None),
            "198.51.100.7"
        );
    }
}
