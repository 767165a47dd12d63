//! The console's history over the domain.

use super::*;

#[async_trait]
impl HistoryConsole for PgConsole {
    async fn key(
        &self,
        merchant_id: &MerchantId,
        key: &IdempotencyKey,
    ) -> ConsoleResult<Option<KeyView>> {
        let Some(found) = record::find(&self.state.idempotency, merchant_id, key.as_str())
            .await
            .map_err(failed)?
        else {
            return Ok(None);
        };
        Ok(Some(KeyView {
            merchant_id: merchant_id.clone(),
            status: known(found.status.clone())?,
            endpoint: keyed_endpoint(&found.endpoint)?,
            request_hash: found.request_hash.clone(),
            response_status: found.response_status,
            resource: found
                .resource
                .as_ref()
                .map(|link| object(link.kind.clone(), link.id.clone()))
                .transpose()?,
            recovery_point: known(found.recovery_point.clone())?,
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
            key: key.clone(),
        }))
    }

    async fn search(&self, query: &SearchQuery) -> ConsoleResult<Vec<SearchHit>> {
        let hits = search::across_merchants(
            &self.state.pool,
            self.state.idempotency.ttl(),
            &query.text,
            query.status.map_or("", KeyStatus::as_str),
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
                        Subject::Key(stored_key(&hit.name)?),
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
        let (entries, payout_id) = match subject {
            Subject::Key(key) => {
                let Some(found) = record::find(&self.state.idempotency, merchant_id, key.as_str())
                    .await
                    .map_err(failed)?
                else {
                    return Ok(None);
                };
                let payout_id = found
                    .resource
                    .as_ref()
                    .filter(|link| link.kind == "payout")
                    .map(|link| PayoutId::from(link.id.clone()));
                let entries = timeline::of_key(pool, merchant_id, &found)
                    .await
                    .map_err(failed)?;
                (entries, payout_id)
            }
            Subject::Payout(id) => {
                let resource = TimelineResource::Payout(id);
                match timeline::of_resource(pool, merchant_id, resource)
                    .await
                    .map_err(failed)?
                {
                    Some(entries) => (entries, Some(id.clone())),
                    None => return Ok(None),
                }
            }
            Subject::Order(id) => {
                let resource = TimelineResource::Order(id);
                match timeline::of_resource(pool, merchant_id, resource)
                    .await
                    .map_err(failed)?
                {
                    Some(entries) => (entries, None),
                    None => return Ok(None),
                }
            }
        };
        // The payout's own transfer, once it has one: any other the partner told about is a
        // duplicate (as the partner's events are applied: `payments::partner_events`).
        let own_transfer = match payout_id {
            Some(id) => payouts::find(pool, merchant_id, &id)
                .await
                .map_err(failed)?
                .and_then(|record| record.payout.partner_transfer_id),
            None => None,
        };
        let mut entries: Vec<TimelineEntry> = entries
            .into_iter()
            .enumerate()
            .map(|(at, entry)| timeline_entry(at, entry))
            .collect();
        if let Some(own) = own_transfer {
            label_duplicates(&mut entries, &own);
        }
        Ok(Some(entries))
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
        let kind = match subject {
            Subject::Key(_) => ObjectType::IdempotencyKey,
            Subject::Payout(_) => ObjectType::Payout,
            Subject::Order(_) => ObjectType::Order,
        };
        let by = by_user(viewer);
        let entry = Entry::new(
            merchant_id,
            &by,
            Action::SupportViewed,
            kind,
            subject.parts().1,
        );
        let mut conn = self.state.pool.acquire().await.map_err(failed)?;
        audit::record(&mut conn, &entry).await.map_err(failed)
    }

    async fn requests(
        &self,
        merchant_id: &MerchantId,
        filters: &RequestFilters,
        starting_after: Option<RequestId>,
    ) -> ConsoleResult<Page<RequestView>> {
        let filters = request_filters(filters)?;
        let page = page(starting_after.as_deref(), PAGE_SIZE);
        let logged = request_log::list(&self.state.pool, merchant_id, &filters, &page).await;
        paged(
            listed(logged)?,
            &page,
            |logged| logged.id.clone().into(),
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

    async fn audit(
        &self,
        merchant_id: &MerchantId,
        filter: &AuditFilter,
        starting_after: Option<AuditEntryId>,
    ) -> ConsoleResult<Page<AuditEntry>> {
        let filters = audit_filters(filter)?;
        let page = page(starting_after.as_deref(), PAGE_SIZE);
        let entries = audit::list(&self.state.pool, merchant_id, &filters, &page).await;
        paged(
            listed(entries)?,
            &page,
            |row| row.id.clone().into(),
            audit_entry,
        )
    }
}

/// Labels the partner's events about a transfer other than `own` as duplicates, with where
/// their reversal stands (the timeline's reversal moments say).
fn label_duplicates(entries: &mut [TimelineEntry], own: &str) {
    let reversals: Vec<(String, ReversalAction)> = entries
        .iter()
        .filter_map(|entry| match &entry.moment {
            Moment::Reversal { transfer_id, state } => Some((transfer_id.clone(), *state)),
            _ => None,
        })
        .collect();
    for entry in entries.iter_mut() {
        let Moment::PartnerWebhook { transfer_id, .. } = &entry.moment else {
            continue;
        };
        if transfer_id == own {
            continue;
        }
        let state = reversals
            .iter()
            .find(|(reversed, _)| reversed == transfer_id)
            .map(|(_, state)| *state);
        entry.duplicate = Some(match state {
            Some(ReversalAction::Reversed) => Duplicate::Reversed,
            Some(ReversalAction::Resolved) => Duplicate::Resolved,
            _ => Duplicate::ToReverse,
        });
    }
}
