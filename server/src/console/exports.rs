//! The console's CSV downloads (API.md §9, §12): `GET /exports/payouts.csv`, `/exports/orders.csv`,
//! `/exports/balance.csv` (the statement, its `status` an item's type),
//! `/exports/requests.csv` (each with the list page's `status`, `from` and `to`, days
//! `YYYY-MM-DD` in UTC, inclusive), `/exports/audit.csv` (with `action`, `from` and `to`; owners
//! and admins only) and `/exports/reconciliation/{run_id}.csv`. Whose rows an
//! export holds comes from the session's user, never from the address: a merchant user's own
//! merchant's; support staff only a run's items, of every merchant. Without a user there is
//! nothing (the session layer sends visitors to `/login`; here a missing user is a `403` all the
//! same). What the rows are and how they stream is [`crate::exports`]'s.

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Router};
use chrono::NaiveDate;
use kaadxpay_types::ids::MerchantId;
use kaadxpay_types::BalanceTransactionType;
use serde::Deserialize;

use app::console::{CurrentUser, Permission};
use app::notice::Notice;

use super::notices::answer;
use crate::exports::{self, Export, Filters};
use crate::history::audit::{self, Action};
use crate::service::state::AppState;

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/exports/payouts.csv", get(payouts))
        .route("/exports/orders.csv", get(orders))
        .route("/exports/balance.csv", get(statement))
        .route("/exports/requests.csv", get(requests))
        .route("/exports/audit.csv", get(audit))
        .route("/exports/reconciliation/{file}", get(reconciliation))
        .with_state(state)
}

/// A list page's filters as its address carries them; empty means unset.
#[derive(Debug, Default, Deserialize)]
pub struct FilterQuery {
    #[serde(default)]
    status: String,
    #[serde(default)]
    action: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
}

/// Why an export was refused: its status, and what the page says.
struct Refused(StatusCode, Notice);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        answer(self.0, self.1)
    }
}

fn day(text: &str) -> Result<Option<NaiveDate>, Refused> {
    if text.is_empty() {
        return Ok(None);
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(Some)
        .map_err(|_| Refused(StatusCode::BAD_REQUEST, Notice::ExportDay))
}

impl FilterQuery {
    fn filters(&self) -> Result<Filters, Refused> {
        Ok(Filters {
            status: Some(self.status.clone()).filter(|status| !status.is_empty()),
            from: day(&self.from)?,
            to: day(&self.to)?,
        })
    }
}

/// The export as a download, streamed.
fn download(state: &AppState, export: Export) -> Response {
    let disposition = format!("attachment; filename=\"{}\"", export.file_name());
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        Body::from_stream(exports::stream(state.exports_pool.clone(), export)),
    )
        .into_response()
}

/// A list's export: the signed-in merchant user's rows, filtered as the page is.
fn list_export(
    state: &AppState,
    user: Option<Extension<CurrentUser>>,
    query: &FilterQuery,
    export: impl FnOnce(MerchantId, Filters) -> Result<Export, Refused>,
) -> Response {
    let Some(merchant_id) = user.and_then(|Extension(user)| user.merchant_id) else {
        return Refused(StatusCode::FORBIDDEN, Notice::ExportForMerchantUsers).into_response();
    };
    match query
        .filters()
        .and_then(|filters| export(merchant_id, filters))
    {
        Ok(export) => download(state, export),
        Err(refused) => refused.into_response(),
    }
}

async fn payouts(
    State(state): State<AppState>,
    user: Option<Extension<CurrentUser>>,
    Query(query): Query<FilterQuery>,
) -> Response {
    list_export(&state, user, &query, |merchant_id, filters| {
        Ok(Export::Payouts {
            merchant_id,
            filters,
        })
    })
}

async fn orders(
    State(state): State<AppState>,
    user: Option<Extension<CurrentUser>>,
    Query(query): Query<FilterQuery>,
) -> Response {
    list_export(&state, user, &query, |merchant_id, filters| {
        Ok(Export::Orders {
            merchant_id,
            filters,
        })
    })
}

/// The statement; its `status` filter is an item's type.
async fn statement(
    State(state): State<AppState>,
    user: Option<Extension<CurrentUser>>,
    Query(query): Query<FilterQuery>,
) -> Response {
    list_export(&state, user, &query, |merchant_id, filters| {
        let known = |kind: &String| BalanceTransactionType::try_from(kind.clone()).is_ok();
        if !filters.status.as_ref().is_none_or(known) {
            return Err(Refused(StatusCode::BAD_REQUEST, Notice::ExportStatus));
        }
        Ok(Export::Statement {
            merchant_id,
            filters,
        })
    })
}

/// The request log; its `status` filter is an HTTP status.
async fn requests(
    State(state): State<AppState>,
    user: Option<Extension<CurrentUser>>,
    Query(query): Query<FilterQuery>,
) -> Response {
    list_export(&state, user, &query, |merchant_id, filters| {
        let http_status = |text: &String| {
            text.parse::<i16>()
                .is_ok_and(|code| (100..=599).contains(&code))
        };
        if !filters.status.as_ref().is_none_or(http_status) {
            return Err(Refused(StatusCode::BAD_REQUEST, Notice::ExportStatus));
        }
        Ok(Export::Requests {
            merchant_id,
            filters,
        })
    })
}

/// The audit log, for the roles that may see it (owners and admins); its `action` filter is
/// one the log knows.
async fn audit(
    State(state): State<AppState>,
    user: Option<Extension<CurrentUser>>,
    Query(query): Query<FilterQuery>,
) -> Response {
    let member = user.as_ref().filter(|Extension(user)| !user.is_support());
    if member.is_some_and(|Extension(user)| !user.may(Permission::SeeAuditLog)) {
        let refusal = Notice::NotForRole(Permission::SeeAuditLog);
        return Refused(StatusCode::FORBIDDEN, refusal).into_response();
    }
    let written = Some(query.action.as_str()).filter(|action| !action.is_empty());
    let Ok(action) = written
        .map(|action| Action::try_from(action.to_owned()).map_err(|_| ()))
        .transpose()
    else {
        return Refused(StatusCode::BAD_REQUEST, Notice::ExportAction).into_response();
    };
    list_export(&state, user, &query, |merchant_id, filters| {
        Ok(Export::Audit {
            merchant_id,
            filters: audit::Filters {
                action,
                from: filters.from,
                to: filters.to,
            },
        })
    })
}

/// A run's items: a merchant user's own, support staff's all. A run that does not exist (or a
/// file name that is not `{run_id}.csv`) is a `404`.
async fn reconciliation(
    State(state): State<AppState>,
    user: Option<Extension<CurrentUser>>,
    Path(file): Path<String>,
) -> Response {
    let Some(Extension(user)) = user else {
        return Refused(StatusCode::FORBIDDEN, Notice::ExportSignIn).into_response();
    };
    let run_id = file.strip_suffix(".csv");
    let Some(run_id) = run_id.filter(|id| {
        !id.is_empty()
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    }) else {
        return answer(StatusCode::NOT_FOUND, Notice::NotFound);
    };
    match exports::run_exists(&state.pool, run_id).await {
        Ok(true) => {}
        Ok(false) => return answer(StatusCode::NOT_FOUND, Notice::NotFound),
        Err(error) => return crate::contract::error::Error::Internal(error.into()).into_response(),
    }
    let export = Export::Reconciliation {
        run_id: run_id.to_owned(),
        merchant_id: user.merchant_id,
    };
    download(&state, export)
}
