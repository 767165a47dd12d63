//! The console's money in (the "Add funds" page) over the domain.

use super::*;
use crate::contract::pagination::Page;
use crate::payments::top_ups;

#[async_trait]
impl MoneyInConsole for PgConsole {
    async fn funding_account(&self, merchant_id: &MerchantId) -> ConsoleResult<FundingAccountView> {
        let account = top_ups::funding_account(&self.state.pool, &self.state.funding, merchant_id)
            .await
            .map_err(failed)?;
        Ok(FundingAccountView {
            iban: account.iban,
            account_holder: account.account_holder,
            reference: account.reference,
        })
    }

    async fn recent_top_ups(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<TopUpRow>> {
        let page = Page {
            limit: RECENT_TOP_UPS,
            starting_after: None,
        };
        let rows = top_ups::list(&self.state.pool, merchant_id, &page)
            .await
            .map_err(failed)?;
        Ok(rows
            .into_iter()
            .take(RECENT_TOP_UPS as usize)
            .map(|top_up| TopUpRow {
                id: top_up.id,
                money: Money {
                    amount: top_up.amount,
                    currency: top_up.currency,
                },
                partner_incoming_id: top_up.partner_incoming_id,
                created_at: top_up.created_at,
            })
            .collect())
    }

    async fn can_simulate(&self) -> bool {
        self.state.test_mode.is_on().await
    }
}
