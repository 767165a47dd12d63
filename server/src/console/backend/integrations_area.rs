//! The console's integrations over the domain.

use super::*;

#[async_trait]
impl IntegrationsConsole for PgConsole {
    async fn webhooks(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter<DeliveryStatus>,
        starting_after: Option<EventId>,
    ) -> ConsoleResult<(Vec<EndpointRow>, Page<EventRow>)> {
        let filters = list_filters(filter)?;
        let pool = &self.state.pool;
        let failed_api = |error: Error| failed(error.to_string());
        let endpoints = endpoints::list(pool, merchant_id, &page(None, PAGE_SIZE))
            .await
            .map_err(failed_api)?;
        let page = page(starting_after.as_deref(), PAGE_SIZE);
        let recent = listed(events::list(pool, merchant_id, &filters, &page).await)?;
        let (recent, next) = page_of(recent, &page, |event| EventId::from(event.id.to_string()));
        let mut conn = pool.acquire().await.map_err(failed)?;
        let mut shown = Vec::new();
        for event in recent {
            let Some(detail) = events::find(&mut conn, merchant_id, event.id)
                .await
                .map_err(failed)?
            else {
                continue;
            };
            let mut deliveries = Vec::new();
            for delivery in detail.deliveries.unwrap_or_default() {
                let curl =
                    attempt::reproduce(&mut conn, &self.state.sealer, merchant_id, delivery.id)
                        .await
                        .map_err(failed)?;
                deliveries.push(DeliveryRow {
                    url: delivery.url,
                    status: known(delivery.status)?,
                    attempts: delivery
                        .attempts
                        .into_iter()
                        .map(|attempt| AttemptRow {
                            delivery_id: attempt.delivery_id,
                            status_code: attempt.status_code,
                            latency_ms: attempt.latency_ms,
                            error: attempt.error,
                            at: attempt.at,
                        })
                        .collect(),
                    curl,
                });
            }
            shown.push(EventRow {
                id: detail.id.to_string().into(),
                event_type: known(detail.event_type)?,
                created_at: detail.created_at,
                deliveries,
            });
        }
        let endpoints = endpoints
            .into_iter()
            .take(PAGE_SIZE as usize)
            .map(|endpoint| {
                Ok(EndpointRow {
                    id: endpoint.id,
                    url: endpoint.url,
                    events: subscribed(endpoint.events)?,
                    status: known(endpoint.status)?,
                })
            });
        let events = Page { rows: shown, next };
        Ok((endpoints.collect::<ConsoleResult<_>>()?, events))
    }

    async fn change_endpoint(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        change: EndpointChange,
        key: &IdempotencyKey,
    ) -> ConsoleResult<Option<String>> {
        let answer = match change {
            EndpointChange::Add { url, events } => {
                let mut body = serde_json::json!({ "url": url });
                if !events.is_empty() {
                    body["events"] = serde_json::json!(events);
                }
                let command: CreateEndpoint = match input::command(&body) {
                    Ok(command) => command,
                    Err(error) => return Err(ConsoleError::from(refusal(&error))),
                };
                self.run(user, merchant_id, key, &command).await?
            }
            EndpointChange::RotateSecret { id, overlap } => {
                let Ok(overlap) = Overlap::try_from(overlap) else {
                    return Err(ConsoleError::from(invalid("overlap")));
                };
                let command = RotateSecret {
                    endpoint_id: id,
                    overlap,
                };
                self.run(user, merchant_id, key, &command).await?
            }
            EndpointChange::RecoverFailed { id, since } => {
                let Ok(Some(day)) = day_filter("since", &since) else {
                    return Err(ConsoleError::from(invalid("since")));
                };
                let command = Recover {
                    endpoint_id: id,
                    since: day.and_time(chrono::NaiveTime::MIN).and_utc(),
                };
                self.run(user, merchant_id, key, &command).await?
            }
            EndpointChange::SendTestEvent { id, event_type } => {
                let Ok(event_type) = KnownEventType::try_from(event_type) else {
                    return Err(ConsoleError::from(invalid("event_type")));
                };
                let command = SendTestEvent {
                    endpoint_id: id,
                    event_type,
                };
                self.run(user, merchant_id, key, &command).await?
            }
        };
        Ok(
            serde_json::from_slice::<serde_json::Value>(&answer.stored.body)
                .ok()
                .and_then(|body| body["secret"].as_str().map(str::to_owned)),
        )
    }

    async fn set_endpoint_state(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &EndpointId,
        state: EndpointState,
    ) -> ConsoleResult<()> {
        let missing = || refusal(&Error::ResourceMissing("webhook endpoint"));
        let by = by_user(user);
        let disabled = match state {
            EndpointState::Deleted => {
                let deleted = endpoints::delete(&self.state.pool, merchant_id, id, &by)
                    .await
                    .map_err(failed)?;
                return if deleted {
                    Ok(())
                } else {
                    Err(missing().into())
                };
            }
            EndpointState::Disabled => true,
            EndpointState::Enabled => false,
        };
        let change = UpdateEndpoint {
            url: None,
            events: None,
            disabled: Some(disabled),
        };
        match management::update(&self.state, merchant_id, id, &change, &by).await {
            Ok(_) => Ok(()),
            Err(Error::ResourceMissing(_)) => Err(ConsoleError::from(missing())),
            Err(error) => Err(failed(error)),
        }
    }

    async fn redeliver(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        event_id: &EventId,
        key: &IdempotencyKey,
    ) -> ConsoleResult<()> {
        let Ok(event_id) = events::parse_id(event_id) else {
            return Err(ConsoleError::from(refusal(&Error::ResourceMissing(
                "event",
            ))));
        };
        self.run(user, merchant_id, key, &RedeliverEvent { event_id })
            .await
            .map(|_| ())
    }

    async fn api_keys(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<ApiKeyRow>> {
        let keys = api_keys::list(&self.state.pool, merchant_id, &page(None, MAX_LIMIT))
            .await
            .map_err(failed)?;
        Ok(keys.into_iter().map(api_key_row).collect())
    }

    async fn change_api_key(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        change: ApiKeyChange,
        key: &IdempotencyKey,
    ) -> ConsoleResult<Option<String>> {
        let secret = Secret::generate(self.state.mode);
        let answer = match change {
            ApiKeyChange::Create {
                name,
                access,
                for_merchant,
            } => {
                let body = serde_json::json!({ "name": name, "access": access });
                let key_fields = match input::command(&body) {
                    Ok(fields) => fields,
                    Err(error) => return Err(ConsoleError::from(refusal(&error))),
                };
                let command = CreateKey {
                    key: key_fields,
                    for_merchant,
                    secret: secret.clone(),
                };
                self.run(user, merchant_id, key, &command).await?
            }
            ApiKeyChange::Roll { id, overlap } => {
                let parameters = match input::command(&serde_json::json!({ "overlap": overlap })) {
                    Ok(parameters) => parameters,
                    Err(error) => return Err(ConsoleError::from(refusal(&error))),
                };
                let command = RollKey {
                    key_id: id.to_string(),
                    parameters,
                    secret: secret.clone(),
                };
                let answer = self.run(user, merchant_id, key, &command).await?;
                self.state.api_keys.forget_key(&id);
                answer
            }
            ApiKeyChange::Revoke { id } => {
                let revoked = api_keys::revoke(&self.state.pool, merchant_id, &id, &by_user(user))
                    .await
                    .map_err(failed)?;
                self.state.api_keys.forget_key(&id);
                return revoked
                    .map(|_| None)
                    .ok_or_else(|| refusal(&Error::ResourceMissing("API key")).into());
            }
        };
        Ok(answer.executed_now.then(|| secret.as_str().to_owned()))
    }
}

/// An endpoint's stored event types: `*` among them is every type.
fn subscribed(events: Vec<String>) -> ConsoleResult<Subscribed> {
    if events.iter().any(|name| name == endpoints::ALL_EVENTS) {
        return Ok(Subscribed::Every);
    }
    let types = events
        .into_iter()
        .map(known)
        .collect::<ConsoleResult<_>>()?;
    Ok(Subscribed::Only(types))
}
