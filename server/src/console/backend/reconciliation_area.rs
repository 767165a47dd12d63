//! The console's reconciliation over the domain.

use chrono::NaiveDate;

use super::*;

#[async_trait]
impl ReconciliationConsole for PgConsole {
    async fn runs(
        &self,
        scope: &Scope,
        filter: &ListFilter<RunStatus>,
    ) -> ConsoleResult<Vec<RunRow>> {
        let filters = list_filters(filter)?;
        let merchant = scope.merchant().map(MerchantId::as_str);
        let runs = reconcile::runs(&self.state.pool, merchant, &filters, None, 50)
            .await
            .map_err(failed)?;
        runs.into_iter().map(run_row).collect()
    }

    async fn run(
        &self,
        scope: &Scope,
        id: &RunId,
    ) -> ConsoleResult<Option<(RunRow, Vec<RunItem>)>> {
        let merchant = scope.merchant().map(MerchantId::as_str);
        let run = reconcile::run_with_items(&self.state.pool, id, merchant)
            .await
            .map_err(failed)?;
        let Some(mut run) = run else { return Ok(None) };
        let items = run.items.take().unwrap_or_default();
        let refunds: Vec<&RefundId> = items
            .iter()
            .filter_map(|item| match &item.transfer_of {
                Some(TransferOf::Refund(id)) => Some(id),
                _ => None,
            })
            .collect();
        let orders = refunds::orders_of(&self.state.pool, &refunds)
            .await
            .map_err(failed)?;
        let items = items.into_iter().map(|item| {
            let refunded_order = match &item.transfer_of {
                Some(TransferOf::Refund(id)) => orders.get(id).cloned(),
                _ => None,
            };
            Ok(RunItem {
                kind: known(item.kind)?,
                merchant_id: item.merchant_id.map(MerchantId::from),
                refunded_order,
                transfer_of: item.transfer_of,
                transfer_id: item.transfer_id,
                money: item
                    .amount
                    .zip(item.currency)
                    .map(|(amount, currency)| Money { amount, currency }),
                action: item.action.map(known).transpose()?,
                detail: item.detail,
            })
        });
        let items = items.collect::<ConsoleResult<_>>()?;
        Ok(Some((run_row(run)?, items)))
    }

    async fn test_mode(&self) -> Option<Vec<MagicIban>> {
        self.state.test_mode.is_on().await.then(|| {
            MAGIC_IBANS
                .iter()
                .map(|magic| MagicIban {
                    iban: magic.iban.to_owned(),
                    scenario: magic.scenario,
                })
                .collect()
        })
    }

    async fn run_reconciliation(
        &self,
        user: &CurrentUser,
        date: NaiveDate,
        key: &IdempotencyKey,
    ) -> ConsoleResult<RunId> {
        let (by, scope) = (by_user(user), user.scope());
        let requester = match &scope {
            Scope::Merchant(merchant_id) => Requester::Merchant(merchant_id, &by),
            Scope::AllMerchants => Requester::Support,
        };
        let reconciler = Reconciler {
            pool: self.state.pool.clone(),
            partner: self.state.partner.clone(),
        };
        match reconciler
            .run_now(
                &self.state.idempotency,
                requester,
                &self.state.test_mode,
                date,
                key,
            )
            .await
        {
            Ok(run) => Ok(run.id.into()),
            Err(RunNowError::NotAllowed) => {
                Err(ConsoleError::from(Refusal::new(ErrorCode::NotAllowed)))
            }
            Err(RunNowError::KeyReused) => {
                Err(Refusal::new(Error::IdempotencyKeyReusedBody.code()).into())
            }
            Err(RunNowError::Failed(error)) => Err(failed(error)),
        }
    }
}
