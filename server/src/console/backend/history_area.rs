//! The console's history over the domain.

use super::*;

#[async_trait]
impl HistoryConsole for PgConsole {
    async fn key(&self, merchant_id: &MerchantId, key: &str) -> ConsoleResult<Option<KeyView>> {
        let Some(found) = record::find(&self.state.idempotency, merchant_id, key)
            .await
            .map_err(failed)?
        else {
            return Ok(None);
        };
        Ok(Some(KeyView {
            merchant_id: merchant_id.clone(),
            status: known(found.status.clone())?,
            endpoint: found.endpoint.clone(),
            request_hash: found.request_hash.clone(),
            response_status: found.response_status,
            resource: found
                .resource
                .as_ref()
                .map(|link| (link.kind.clone(), link.id.clone())),
            recovery_point: found.recovery_point.clone(),
            error: found.error.clone(),
            attempts: found.attempts,
            created_at: found.created_at,
            updated_at: found.updated_at,
            expires_at: found.expires_at,
            // Shown to every user of the merchant: a secret it carried is not.
            response_body: recorded_answer(&self.state, merchant_id, &found)
                .await
                .map_err(failed)?
                .map(|bytes| signature::redact(&String::from_utf8_lossy(&bytes))),
            key: found.key,
        }))
    }

    async fn search(&self, query: &SearchQuery) -> ConsoleResult<Vec<SearchHit>> {
        let hits = search::across_merchants(
            &self.state.pool,
            self.state.idempotency.ttl(),
            &query.text,
            &query.status,
            &query.from,
            &query.to,
        )
        .await
        .map_err(failed)?;
        hits.into_iter()
            .map(|hit| {
                let (subject, status) = match hit.kind {
                    Kind::Payout => (
                        Subject::Payout(hit.name.into()),
                        SubjectStatus::Payout(known(hit.status)?),
                    ),
                    Kind::Order => (
                        Subject::Order(hit.name.into()),
                        SubjectStatus::Order(known(hit.status)?),
                    ),
                    Kind::Key => (
                        Subject::Key(hit.name),
                        SubjectStatus::Key(known(hit.status)?),
                    ),
                };
                Ok(SearchHit {
                    subject,
                    merchant_id: hit.merchant_id.into(),
                    detail: hit.detail,
                    status,
                    created_at: hit.created_at,
                })
            })
            .collect()
    }

    async fn timeline(
        &self,
        merchant_id: &MerchantId,
        subject: &Subject,
    ) -> ConsoleResult<Option<Vec<TimelineEntry>>> {
        let pool = &self.state.pool;
        let entries = match subject {
            Subject::Key(key) => {
                match record::find(&self.state.idempotency, merchant_id, key)
                    .await
                    .map_err(failed)?
                {
                    Some(found) => Some(timeline::of_key(pool, merchant_id, &found).await),
                    None => None,
                }
            }
            Subject::Payout(id) => {
                timeline::of_resource(pool, merchant_id, TimelineResource::Payout(id))
                    .await
                    .transpose()
            }
            Subject::Order(id) => {
                timeline::of_resource(pool, merchant_id, TimelineResource::Order(id))
                    .await
                    .transpose()
            }
        };
        entries
            .map(|entries| {
                entries.map_err(failed).map(|entries| {
                    entries
                        .into_iter()
                        .enumerate()
                        .map(|(at, entry)| timeline_entry(at, entry))
                        .collect()
                })
            })
            .transpose()
    }

    async fn support_viewed(
        &self,
        viewer: &CurrentUser,
        merchant_id: &MerchantId,
        subject: &Subject,
    ) -> ConsoleResult<()> {
        if !viewer.is_support() {
            return Ok(());
        }
        let (kind, id) = match subject.parts() {
            ("key", key) => ("idempotency_key", key),
            other => other,
        };
        let by = by_user(viewer);
        let entry = Entry::new(merchant_id, &by, Action::SupportViewed, kind, id);
        let mut conn = self.state.pool.acquire().await.map_err(failed)?;
        audit::record(&mut conn, &entry).await.map_err(failed)
    }

    async fn requests(
        &self,
        merchant_id: &MerchantId,
        filters: &RequestFilters,
        starting_after: Option<String>,
    ) -> ConsoleResult<Page<RequestView>> {
        let filters = request_filters(filters)?;
        let page = page(starting_after, PAGE_SIZE);
        let logged = request_log::list(&self.state.pool, merchant_id, &filters, &page).await;
        paged(
            listed(logged)?,
            &page,
            |logged| logged.id.clone(),
            request_view,
        )
    }

    async fn request(
        &self,
        merchant_id: &MerchantId,
        id: &RequestId,
    ) -> ConsoleResult<Option<RequestView>> {
        request_log::find(&self.state.pool, merchant_id, id)
            .await
            .map_err(failed)?
            .map(request_view)
            .transpose()
    }

    fn audit_actions(&self) -> Vec<String> {
        Action::ALL
            .iter()
            .map(|action| action.as_str().to_owned())
            .collect()
    }

    async fn audit(
        &self,
        merchant_id: &MerchantId,
        filter: &AuditFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Page<AuditEntry>> {
        let filters = audit_filters(filter)?;
        let page = page(starting_after, PAGE_SIZE);
        let entries = audit::list(&self.state.pool, merchant_id, &filters, &page).await;
        paged(
            listed(entries)?,
            &page,
            |row| row.id.clone(),
            |row| Ok(audit_entry(row)),
        )
    }
}
