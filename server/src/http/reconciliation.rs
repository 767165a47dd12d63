//! `/v1/reconciliation-runs`: the stored runs, and one run with the caller's items.

use axum::extract::{Path, State};
use axum::Json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::error::ApiResult;
use super::list::PageQuery;
use crate::accounts::auth::Merchant;
use crate::contract::error::Error;
use crate::contract::pagination::{Filters, List, Page};
use crate::reconcile::{self, StoredRun};
use crate::service::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_reconciliation_runs))
        .routes(routes!(get_reconciliation_run))
}

/// Reconciliation runs, newest first, each with the status the caller's own items make.
#[utoipa::path(get, path = "/v1/reconciliation-runs", tag = "reconciliation", params(PageQuery),
    responses((status = 200, body = List<StoredRun>)))]
async fn list_reconciliation_runs(
    State(state): State<AppState>,
    merchant: Merchant,
    page: Page,
) -> ApiResult<Json<List<StoredRun>>> {
    let rows = reconcile::runs(
        &state.pool,
        Some(&merchant.id),
        &Filters::default(),
        page.starting_after.as_deref(),
        page.fetch_limit(),
    )
    .await?;
    Ok(Json(List::from_rows(rows, &page)))
}

/// One run, with the items that concern the caller and the status they make.
#[utoipa::path(get, path = "/v1/reconciliation-runs/{id}", tag = "reconciliation",
    responses((status = 200, body = StoredRun), (status = 404)))]
async fn get_reconciliation_run(
    State(state): State<AppState>,
    merchant: Merchant,
    Path(id): Path<String>,
) -> ApiResult<Json<StoredRun>> {
    reconcile::run_with_items(&state.pool, &id, Some(&merchant.id))
        .await?
        .map(Json)
        .ok_or(Error::ResourceMissing("reconciliation run"))
}
