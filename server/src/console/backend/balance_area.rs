//! The console's balance over the domain.

use super::*;

#[async_trait]
impl BalanceConsole for PgConsole {
    async fn overview(&self, merchant_id: &MerchantId) -> ConsoleResult<Overview> {
        let pool = &self.state.pool;
        let balances = balance::of_merchant(pool, merchant_id)
            .await
            .map_err(failed)?;
        let (all, recent) = (ListFilters::default(), page(None, RECENT));
        let recent_payouts = payouts::list(pool, merchant_id, &all, &recent)
            .await
            .map_err(failed)?;
        let recent_orders = orders::list(pool, merchant_id, &all, &recent)
            .await
            .map_err(failed)?;
        let outcomes = last_hours(pool, merchant_id, 24)
            .await
            .map_err(failed)?
            .into_iter()
            .map(|hour| HourOutcomes {
                hour: hour.hour.format("%H:00").to_string(),
                new: hour.new,
                replayed: hour.replayed,
                in_progress: hour.in_progress,
                mismatch: hour.mismatch,
            })
            .collect();
        Ok(Overview {
            balances: moneys(balances.available),
            payouts: recent_payouts
                .iter()
                .take(RECENT as usize)
                .map(payout_row)
                .collect::<ConsoleResult<_>>()?,
            orders: recent_orders
                .into_iter()
                .take(RECENT as usize)
                .map(order_row)
                .collect(),
            outcomes,
        })
    }

    async fn balance(&self, merchant_id: &MerchantId) -> ConsoleResult<BalanceView> {
        balance::of_merchant(&self.state.pool, merchant_id)
            .await
            .map(balance_view)
            .map_err(failed)
    }

    async fn statement(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter<BalanceTransactionType>,
        starting_after: Option<BalanceTransactionId>,
    ) -> ConsoleResult<Page<StatementRow>> {
        let filters = list_filters(filter)?;
        let page = page(starting_after.as_deref(), PAGE_SIZE);
        let rows = match StatementFilters::of_list(&filters) {
            Ok(filters) => statement::list(&self.state.pool, merchant_id, &filters, &page).await,
            Err(refused) => Err(refused),
        };
        listed(rows)
            .and_then(|rows| paged(rows, &page, |item| item.id.clone().into(), statement_row))
    }
}
