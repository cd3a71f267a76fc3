//! Inclusion and consistency proofs of the transparency log (auditor, pit
//! boss): docs/ledger.md, "The transparency log".

use actix_web::{get, web};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::auth::Caller;
use crate::checkpoints::proofs::{self, ConsistencyProof, InclusionProof, ProofError};
use crate::checkpoints::tree::Tree;
use crate::domain::Role;

#[derive(Deserialize, ToSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum TreeName {
    Transfers,
    Events,
}

impl From<TreeName> for Tree {
    fn from(t: TreeName) -> Tree {
        match t {
            TreeName::Transfers => Tree::Transfers,
            TreeName::Events => Tree::Events,
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct InclusionQuery {
    /// `transfers` or `events`.
    #[param(inline)]
    pub tree: TreeName,
    /// The transfer's (or chained event's) `seq`.
    #[param(minimum = 1)]
    pub seq: i64,
    /// The checkpoint to prove against; the latest version-2 one when absent.
    #[param(minimum = 1)]
    pub checkpoint: Option<i64>,
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ConsistencyQuery {
    #[param(inline)]
    pub tree: TreeName,
    /// The older checkpoint's `seq`.
    #[param(minimum = 1)]
    pub from: i64,
    /// The newer checkpoint's `seq` (422 `bad_checkpoint_order` unless newer than `from`).
    #[param(minimum = 1)]
    pub to: i64,
}

impl From<ProofError> for ApiError {
    fn from(e: ProofError) -> ApiError {
        let message = e.to_string();
        match e {
            ProofError::NoCheckpoint(_) => ApiError::not_found("checkpoint"),
            ProofError::NoTreeHead | ProofError::Version1(_) | ProofError::NotCovered { .. } => {
                ApiError::unprocessable("not_in_tree", message)
            }
            ProofError::Order { .. } => ApiError::unprocessable("bad_checkpoint_order", message),
            ProofError::Tree(_) => ApiError::internal(message),
            ProofError::Db(d) => ApiError::from(d),
        }
    }
}

/// The inclusion proof of a transfer or a chained significant event against
/// a signed tree head (auditor, pit boss): the leaf's hash, the audit path,
/// and the checkpoint whose signed root it leads to.
#[utoipa::path(tag = "audit", security(("bearer" = [])), params(InclusionQuery), responses(
    (status = 200, body = InclusionProof),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/proofs/inclusion")]
pub async fn inclusion(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<InclusionQuery>,
) -> ApiResult<web::Json<InclusionProof>> {
    caller.require(&[Role::Auditor, Role::Pitboss])?;
    let q = query.into_inner();
    let proof = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(proofs::inclusion(&mut conn, q.tree.into(), q.seq, q.checkpoint)?)
        })
        .await?;
    Ok(web::Json(proof))
}

/// The consistency proof between two signed tree heads (auditor, pit boss):
/// the older tree is a prefix of the newer one, nothing before it rewritten.
#[utoipa::path(tag = "audit", security(("bearer" = [])), params(ConsistencyQuery), responses(
    (status = 200, body = ConsistencyProof),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/proofs/consistency")]
pub async fn consistency(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ConsistencyQuery>,
) -> ApiResult<web::Json<ConsistencyProof>> {
    caller.require(&[Role::Auditor, Role::Pitboss])?;
    let q = query.into_inner();
    let proof = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(proofs::consistency(&mut conn, q.tree.into(), q.from, q.to)?)
        })
        .await?;
    Ok(web::Json(proof))
}
