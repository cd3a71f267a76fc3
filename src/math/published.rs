//! What a verifier outside djego needs to judge a pay table as djego certifies it: the
//! distribution of the first-pass count N that certification uses and the certified RTP
//! bounds. Published as docs/verify/first_pass_distribution.json, written by
//! `djego certify verifier-data --out docs/verify/first_pass_distribution.json`.

use serde::Serialize;

use super::{cached_n_distribution, RtpBounds, N_MAX, N_MIN};

/// Where the published file lives, from the repository's root.
pub const VERIFIER_DATA_PATH: &str = "docs/verify/first_pass_distribution.json";

#[derive(Serialize)]
struct VerifierData<'a> {
    about: &'static str,
    algorithm: &'a str,
    code_version: &'a str,
    seed: u64,
    deals: u64,
    n_min: u8,
    n_max: u8,
    /// `counts[i]`: deals whose first-pass count was `n_min + i`.
    counts: &'a [u64],
    certified_rtp_bounds: Bounds,
}

#[derive(Serialize)]
struct Bounds {
    /// Decimal strings, read exactly ("0.995" is 995/1000).
    min: String,
    max: String,
}

/// The published file's text (pretty JSON and a final newline).
pub fn verifier_data_json() -> String {
    let dist = cached_n_distribution();
    let bounds = RtpBounds::default();
    let data = VerifierData {
        about: "The first-pass count N of djego's certification simulation (counts[i] deals had N = \
                n_min + i) and the RTP bounds every bet of an installable pay table lies within. A bet \
                settled on N has RTP sum(counts[i] * return at N) / deals, exactly; Prima, Escucha and \
                Maximo have closed forms (docs/math.md). Written by `djego certify verifier-data`.",
        algorithm: &dist.algorithm,
        code_version: &dist.code_version,
        seed: dist.seed,
        deals: dist.total,
        n_min: N_MIN,
        n_max: N_MAX,
        counts: &dist.counts,
        certified_rtp_bounds: Bounds {
            min: bounds.min_rtp.to_string(),
            max: bounds.max_rtp.to_string(),
        },
    };
    serde_json::to_string_pretty(&data).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published file is what djego certifies against today: regenerate it with
    /// `djego certify verifier-data --out docs/verify/first_pass_distribution.json`.
    #[test]
    fn the_published_distribution_is_the_one_djego_certifies_against() {
        let path = format!("{}/{VERIFIER_DATA_PATH}", env!("CARGO_MANIFEST_DIR"));
        let published = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(
            published == verifier_data_json(),
            "{path} has drifted from djego's certification data; regenerate it with \
             `djego certify verifier-data --out {VERIFIER_DATA_PATH}`"
        );
    }
}
