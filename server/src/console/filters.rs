//! A list page's form (its address) as the domain's filters and page, and rows back as a page
//! with the cursor of the next one.

use app::console::{AuditFilter, ConsoleResult, ListFilter, Listed, Page, Refusal, RequestFilters};

use super::views::invalid;
use crate::contract::pagination::{Filters as ListFilters, List, Page as ListPage};
use crate::history::audit;
use crate::request_log::query::Filters;

/// A form field's value, trimmed, if it is not empty.
pub(super) fn filled(value: &str) -> Option<String> {
    Some(value.trim().to_owned()).filter(|value| !value.is_empty())
}

/// A day typed into a filter (`YYYY-MM-DD`), if one was; a refusal names `param` otherwise.
pub(super) fn day_filter(param: &str, value: &str) -> Result<Option<chrono::NaiveDate>, Refusal> {
    filled(value)
        .map(|value| {
            chrono::NaiveDate::parse_from_str(&value, "%Y-%m-%d").map_err(|_| invalid(param))
        })
        .transpose()
}

/// A list page's filters from its form.
pub(super) fn list_filters<S: std::fmt::Display>(
    form: &ListFilter<S>,
) -> Result<ListFilters, Refusal> {
    Ok(ListFilters {
        status: form.status.as_ref().map(ToString::to_string),
        from: day_filter("from", &form.from)?,
        to: day_filter("to", &form.to)?,
    })
}

/// The audit log's filters from its page's address: an action, and days.
pub(super) fn audit_filters(form: &AuditFilter) -> Result<audit::Filters, Refusal> {
    Ok(audit::Filters {
        action: form.action,
        from: day_filter("from", &form.from)?,
        to: day_filter("to", &form.to)?,
    })
}

/// The request log's filters from the console's form: a day range (UTC, inclusive) unless the
/// look-up is exact (a key or a request id), which finds its requests whatever their day.
pub(super) fn request_filters(form: &RequestFilters) -> Result<Filters, Refusal> {
    let status = form.status.map(i16::try_from).transpose();
    let mut filters = Filters {
        idempotency_key: filled(&form.idempotency_key),
        status: status.map_err(|_| invalid("status"))?,
        route: filled(&form.route),
        verdict: form.verdict,
        search: filled(&form.search),
        door: form.door,
        ..Filters::default()
    };
    if filters.idempotency_key.is_none() && filters.search.is_none() {
        filters.created_gte = day_filter("from", &form.from)?
            .map(|from| from.and_time(chrono::NaiveTime::MIN).and_utc());
        filters.created_lte = day_filter("to", &form.to)?.and_then(|to| {
            to.and_hms_micro_opt(23, 59, 59, 999_999)
                .map(|end| end.and_utc())
        });
    }
    Ok(filters)
}

pub(super) fn page(starting_after: Option<&str>, limit: i64) -> ListPage {
    ListPage {
        limit,
        starting_after: starting_after.map(str::to_owned),
    }
}

/// The rows of `page` (fetched one beyond it), with the cursor of the next page (the `id` of
/// the last row) when there is one.
pub(super) fn page_of<T, Id>(
    rows: Vec<T>,
    page: &ListPage,
    id: impl Fn(&T) -> Id,
) -> (Vec<T>, Option<Id>) {
    let list = List::from_rows(rows, page);
    let next = list.has_more.then(|| list.data.last().map(id)).flatten();
    (list.data, next)
}

/// The rows of `page` (fetched one beyond it) as the console's page of `row`s, with the cursor
/// of the next page when there is one.
pub(super) fn paged<T, R: Listed>(
    rows: Vec<T>,
    page: &ListPage,
    id: impl Fn(&T) -> R::Id,
    row: impl Fn(T) -> ConsoleResult<R>,
) -> ConsoleResult<Page<R>> {
    let (rows, next) = page_of(rows, page, id);
    Ok(Page {
        rows: rows.into_iter().map(row).collect::<ConsoleResult<_>>()?,
        next,
    })
}
