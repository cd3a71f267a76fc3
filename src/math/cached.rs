//! The distribution of N from djego's largest recorded simulation, embedded so
//! that installing a pay table certifies in milliseconds. Regenerate with
//! `djego simulate first-pass --deals <deals> --seed <seed> --out src/math/n_distribution_cache.json`
//! (its seed, size and code version are inside the file).

use super::n_distribution::NDistribution;
use std::sync::OnceLock;

const CACHE_JSON: &str = include_str!("n_distribution_cache.json");

/// The embedded distribution of N (parsed once).
pub fn cached_n_distribution() -> &'static NDistribution {
    static CACHE: OnceLock<NDistribution> = OnceLock::new();
    CACHE.get_or_init(|| {
        let dist: NDistribution = serde_json::from_str(CACHE_JSON).expect("embedded N distribution is valid JSON");
        dist.validate().expect("embedded N distribution is consistent");
        dist
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_loads_and_is_large() {
        let d = cached_n_distribution();
        assert!(d.total >= 1_000_000);
        assert!(d.count(9) == 0 && d.count(10) > 0);
        let p = d.probability_of(|n| n == 14 || n == 15);
        assert!(p.value > 0.3 && p.value < 0.35);
    }
}
