//! The console's payouts over the domain.

use super::*;

#[async_trait]
impl PayoutsConsole for PgConsole {
    async fn available(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<Money>> {
        let balances = balance::of_merchant(&self.state.pool, merchant_id)
            .await
            .map_err(failed)?;
        Ok(moneys(balances.available))
    }

    async fn payouts(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter<PayoutStatus>,
        starting_after: Option<PayoutId>,
    ) -> ConsoleResult<Page<PayoutRow>> {
        let filters = list_filters(filter)?;
        let page = page(starting_after.as_deref(), PAGE_SIZE);
        let rows = listed(payouts::list(&self.state.pool, merchant_id, &filters, &page).await)?;
        paged(
            rows,
            &page,
            |payout| payout.id.clone(),
            |payout| payout_row(&payout),
        )
    }

    async fn payout(
        &self,
        merchant_id: &MerchantId,
        id: &PayoutId,
    ) -> ConsoleResult<Option<PayoutView>> {
        let record = payouts::find(&self.state.pool, merchant_id, id)
            .await
            .map_err(failed)?;
        record
            .map(|record| {
                let payout = &record.payout;
                Ok(PayoutView {
                    row: payout_row(payout)?,
                    account_holder: payout.destination.account_holder.clone(),
                    iban: payout.destination.iban.clone(),
                    partner_transfer_id: payout.partner_transfer_id.clone(),
                    failure_code: payout.failure_code.clone(),
                    updated_at: payout.updated_at,
                    created_by: record
                        .created_by_kind
                        .clone()
                        .zip(record.created_by.clone())
                        .map(|(kind, name)| actor(kind, name))
                        .transpose()?,
                    accountable: record.accountable.clone(),
                    decided: record.decided_by.clone().zip(record.decided_at),
                })
            })
            .transpose()
    }

    async fn submit_payout(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        form: PayoutForm,
    ) -> ConsoleResult<PayoutId> {
        let key = form.idempotency_key.clone();
        let command = payout_command(form)?;
        let answer = self.run(user, merchant_id, &key, &command).await?;
        let made = answer.stored.resource.map(|resource| resource.id);
        made.map(PayoutId::from)
            .ok_or_else(|| failed("a payout's answer names no payout"))
    }

    async fn awaiting_decision(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<Vec<PayoutRow>> {
        let awaiting = payouts::awaiting_approval(&self.state.pool, merchant_id)
            .await
            .map_err(failed)?;
        awaiting
            .iter()
            .filter(|record| {
                may_make(user, record.accountable.as_deref(), Decision::Approve).is_ok()
            })
            .map(|record| payout_row(&record.payout))
            .collect()
    }

    async fn another_approver(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<bool> {
        let members = team::members(&self.state.pool, merchant_id)
            .await
            .map_err(failed)?;
        Ok(members.iter().any(|member| {
            member.id != user.id.as_str()
                && Role::parse(&member.role).is_some_and(|role| role.may(Permission::CreatePayouts))
        }))
    }

    fn decisions(&self, user: &CurrentUser, payout: &PayoutView) -> Vec<Decision> {
        let accountable = payout.accountable.as_deref();
        [Decision::Approve, Decision::Reject, Decision::Cancel]
            .into_iter()
            .filter(|decision| may_make(user, accountable, *decision).is_ok())
            .collect()
    }

    async fn decide_payout(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &PayoutId,
        decision: Decision,
        key: &IdempotencyKey,
    ) -> ConsoleResult<()> {
        let payout_id = id.clone();
        let Some(payout) = payouts::find(&self.state.pool, merchant_id, &payout_id)
            .await
            .map_err(failed)?
        else {
            return Err(ConsoleError::from(refusal(&Error::ResourceMissing(
                "payout",
            ))));
        };
        if let Err(refused) = may_make(user, payout.accountable.as_deref(), decision) {
            return Err(ConsoleError::from(refusal(&refused.into())));
        }
        let answer = match decision {
            Decision::Approve => {
                let command = ApprovePayout { payout_id };
                self.run(user, merchant_id, key, &command).await
            }
            Decision::Reject => {
                let command = RejectPayout { payout_id };
                self.run(user, merchant_id, key, &command).await
            }
            Decision::Cancel => {
                let command = CancelPayout { payout_id };
                self.run(user, merchant_id, key, &command).await
            }
        };
        answer.map(|_| ())
    }

    async fn thresholds(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<Money>> {
        let thresholds = thresholds::thresholds(&self.state.pool, merchant_id)
            .await
            .map_err(failed)?;
        Ok(thresholds
            .into_iter()
            .map(|threshold| Money {
                amount: threshold.amount,
                currency: threshold.currency,
            })
            .collect())
    }

    async fn change_threshold(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        currency: Currency,
        amount: &str,
    ) -> ConsoleResult<()> {
        let amount = match amount.trim() {
            "" => None,
            typed => Some(typed_amount(currency, typed)?),
        };
        let by = by_user(user);
        let pool = &self.state.pool;
        match thresholds::change_threshold(pool, merchant_id, user.role, &by, currency, amount)
            .await
        {
            Ok(()) => Ok(()),
            Err(error @ Error::Forbidden(_)) => Err(ConsoleError::from(refusal(&error))),
            Err(error) => Err(failed(error)),
        }
    }
}
