//! The progress bar the long-running commands show on stderr (indicatif hides
//! it when stderr is not a terminal, so pipes and tests see no bar).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `len` steps named `unit` ("shuffles", "deals"), drawn on stderr.
pub fn bar(len: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let template =
        format!("{{bar:40}} {{human_pos}}/{{human_len}} {unit}  {{per_sec}}  elapsed {{elapsed}}  eta {{eta}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}
