//! The screens djego serves under `/`: static pages (HTML, CSS and ES
//! modules, no build step) that work only through the public API, like any
//! other client. A release build embeds `web/` in the binary; a debug build
//! reads it from the source tree, so an edited page shows on reload.
//!
//! Every answer forbids framing and any script, style or connection that is
//! not djego's own (Content-Security-Policy), so a page cannot be made to
//! send a token elsewhere.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use rust_embed::Embed;

#[derive(Embed)]
#[folder = "web/"]
struct Assets;

/// The pages, by the path a person types, and the file each one is.
const PAGES: &[(&str, &str)] = &[
    ("/", "index.html"),
    ("/player", "player.html"),
    ("/dealer", "dealer.html"),
    ("/console", "console.html"),
    ("/verify", "verify.html"),
];

const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
     script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

pub fn routes(cfg: &mut web::ServiceConfig) {
    for (path, file) in PAGES {
        cfg.route(
            path,
            web::get().to(move |req: HttpRequest| async move { serve(&req, file) }),
        );
    }
    cfg.route(
        "/{dir:(js|css|img)}/{name}",
        web::get().to(|req: HttpRequest, path: web::Path<(String, String)>| async move {
            let (dir, name) = path.into_inner();
            serve(&req, &format!("{dir}/{name}"))
        }),
    );
}

/// One embedded file, revalidated by its hash (`ETag`), or the JSON 404.
fn serve(req: &HttpRequest, file: &str) -> HttpResponse {
    let Some(asset) = Assets::get(file) else {
        return crate::api::fallback::not_routed_response(req);
    };
    let etag = format!("\"{}\"", hex::encode(asset.metadata.sha256_hash()));
    let unchanged = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let mut response = if unchanged {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::CONTENT_TYPE, content_type(asset.metadata.mimetype())))
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    if unchanged {
        return response.finish();
    }
    response.body(asset.data.into_owned())
}

/// The file's type, with the encoding of text named (every file in web/ is UTF-8).
fn content_type(mimetype: &str) -> String {
    if mimetype.starts_with("text/") || mimetype.ends_with("javascript") || mimetype.ends_with("json") {
        format!("{mimetype}; charset=utf-8")
    } else {
        mimetype.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_and_the_files_it_names_are_embedded() {
        for (_, file) in PAGES {
            let page = Assets::get(file).unwrap_or_else(|| panic!("{file} is missing from web/"));
            let html = String::from_utf8(page.data.into_owned()).unwrap();
            // Each `src="/…"` or `href="/…"` of a script or style must be a file we serve.
            for attr in ["src=\"/", "href=\"/"] {
                for (i, _) in html.match_indices(attr) {
                    let rest = &html[i + attr.len()..];
                    let target = &rest[..rest.find('"').unwrap()];
                    if target.starts_with("js/") || target.starts_with("css/") || target.starts_with("img/") {
                        assert!(
                            Assets::get(target).is_some(),
                            "{file} names /{target}, which is not in web/"
                        );
                    }
                }
            }
        }
    }
}
