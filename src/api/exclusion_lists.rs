//! External exclusion lists over HTTP (docs/compliance.md, "Exclusion lists"): imported by a pit
//! boss or an auditor, their matches reviewed by a second person.

use actix_web::{get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiResult};
use super::pagination::Page;
use super::state::AppState;
use crate::auth::Caller;
use crate::compliance::exclusion_lists::{
    self, ImportSummary, ListError, ListView, MatchDecision, MatchStatus, MatchView,
};
use crate::domain::Role;
use crate::store::now_us;

impl From<ListError> for ApiError {
    fn from(e: ListError) -> ApiError {
        let message = e.to_string();
        match e {
            ListError::Line { .. } | ListError::Invalid(_) => {
                ApiError::unprocessable("invalid_exclusion_list", message)
            }
            ListError::NotFound => ApiError::not_found("exclusion list match"),
            ListError::AlreadyReviewed => ApiError::conflict("match_reviewed", message),
            ListError::SamePerson => ApiError::forbidden(message),
            ListError::Unreadable => ApiError::internal(message),
            ListError::Identity(i) => ApiError::from(i),
            ListError::Exclusion(x) => ApiError::from(x),
            ListError::Db(d) => ApiError::from(d),
        }
    }
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// What the list is, as people name it ("State voluntary exclusion list, November 2026").
    #[schema(max_length = 200)]
    pub name: String,
    /// The list as CSV with a header: `full_name` and `date_of_birth` ("YYYY-MM-DD"), and
    /// optionally `document_number` and `ends_on` (the exclusion's last day; empty: permanent).
    #[schema(example = "full_name,date_of_birth,document_number,ends_on\nJoão Silva,1970-01-31,X1234567,\n")]
    pub csv: String,
}

/// Imports an exclusion list and matches it against every patron's identity (pit boss,
/// auditor). Matches wait for a second person's review.
#[utoipa::path(tag = "compliance", security(("bearer" = [])), request_body = ImportRequest, responses(
    (status = 201, body = ImportSummary),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 413, body = super::error::ErrorBody, description = "Larger than the request limit: import the list in parts."),
    (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/exclusion-lists")]
pub async fn import(
    state: web::Data<AppState>,
    caller: Caller,
    body: web::Json<ImportRequest>,
) -> ApiResult<actix_web::HttpResponse> {
    caller.require(&[Role::Pitboss, Role::Auditor])?;
    let ImportRequest { name, csv } = body.into_inner();
    let summary = state
        .blocking(move |s| {
            s.db.write(|conn| {
                Ok::<_, ApiError>(exclusion_lists::import(
                    conn,
                    &s.vault,
                    &name,
                    &csv,
                    &caller.user_id,
                    now_us(),
                )?)
            })
        })
        .await?;
    Ok(actix_web::HttpResponse::Created().json(summary))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// The lists imported, newest first (pit boss, auditor).
#[utoipa::path(tag = "compliance", security(("bearer" = [])), params(ListParams), responses(
    (status = 200, body = Vec<ListView>),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/exclusion-lists")]
pub async fn lists(
    state: web::Data<AppState>,
    caller: Caller,
    q: web::Query<ListParams>,
) -> ApiResult<web::Json<Vec<ListView>>> {
    caller.require(&[Role::Pitboss, Role::Auditor])?;
    let page = Page::new(q.limit, q.offset)?;
    let found = state
        .blocking(move |s| {
            s.db.read(|conn| Ok::<_, ApiError>(exclusion_lists::lists(conn, page.limit, page.offset)?))
        })
        .await?;
    Ok(web::Json(found))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct MatchParams {
    /// Only matches in this state.
    #[param(inline, value_type = Option<MatchStatus>)]
    pub status: Option<MatchStatus>,
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Matches of patrons on exclusion lists, oldest first, each with the list's entry beside the
/// patron's identity (pit boss, auditor; every identity read is recorded).
#[utoipa::path(tag = "compliance", security(("bearer" = [])), params(MatchParams), responses(
    (status = 200, body = Vec<MatchView>),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/exclusion-lists/matches")]
pub async fn matches(
    state: web::Data<AppState>,
    caller: Caller,
    q: web::Query<MatchParams>,
) -> ApiResult<web::Json<Vec<MatchView>>> {
    caller.require(&[Role::Pitboss, Role::Auditor])?;
    let q = q.into_inner();
    let page = Page::new(q.limit, q.offset)?;
    let found = state
        .blocking(move |s| {
            s.db.write(|conn| {
                Ok::<_, ApiError>(exclusion_lists::matches(
                    conn,
                    &s.vault,
                    q.status,
                    &caller.user_id,
                    page.limit,
                    page.offset,
                )?)
            })
        })
        .await?;
    Ok(web::Json(found))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchReview {
    pub decision: MatchDecision,
    /// Why (required, at most 2000 characters).
    #[schema(min_length = 1, max_length = 2000)]
    pub note: String,
}

#[derive(Serialize, ToSchema)]
pub struct MatchReviewed {
    pub match_id: String,
    pub status: MatchStatus,
}

/// Confirms (the patron is excluded as the list says) or rejects a match (pit boss, auditor;
/// not the person who imported the list).
#[utoipa::path(tag = "compliance", security(("bearer" = [])), request_body = MatchReview,
    params(("match_id" = String, Path, description = "The match's id")),
    responses(
    (status = 200, body = MatchReviewed),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody, description = "Not the role, or the list's importer."),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody, description = "Reviewed already."),
    (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/exclusion-lists/matches/{match_id}/review")]
pub async fn review(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    body: web::Json<MatchReview>,
) -> ApiResult<web::Json<MatchReviewed>> {
    caller.require(&[Role::Pitboss, Role::Auditor])?;
    let id = path.into_inner();
    let MatchReview { decision, note } = body.into_inner();
    let status = state
        .blocking(move |s| {
            let id = id.clone();
            s.db.write(|conn| {
                let status = exclusion_lists::review(conn, &id, decision, &note, &caller.user_id, now_us())?;
                Ok::<_, ApiError>(MatchReviewed { match_id: id, status })
            })
        })
        .await?;
    Ok(web::Json(status))
}
