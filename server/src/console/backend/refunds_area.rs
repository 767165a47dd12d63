//! The console's refunds over the domain: an order's refunds, and its "Refund" form run as
//! `POST /v1/orders/{id}/refunds` through the same engine, under the form's key.

use super::*;

#[async_trait]
impl RefundsConsole for PgConsole {
    async fn refunds_of_order(
        &self,
        merchant_id: &MerchantId,
        order: &OrderId,
    ) -> ConsoleResult<Vec<RefundRow>> {
        let page = page(None, MAX_LIMIT);
        let listed = refunds::list(&self.state.pool, merchant_id, Some(order), &page).await;
        Ok(listed.map_err(failed)?.iter().map(refund_row).collect())
    }

    async fn submit_refund(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        order: &OrderId,
        form: RefundForm,
    ) -> ConsoleResult<RefundId> {
        let key = form.idempotency_key.clone();
        let found = orders::find(&self.state.pool, merchant_id, order).await;
        let Some(order) = found.map_err(failed)? else {
            return Err(Refusal::new(ErrorCode::ResourceMissing).into());
        };
        let command = refund_command(&order, form)?;
        let answer = self.run(user, merchant_id, &key, &command).await?;
        let made = answer.stored.resource.map(|resource| resource.id);
        made.map(RefundId::from)
            .ok_or_else(|| failed("a refund's answer names no refund"))
    }
}

/// The "Refund" form parsed by the API's own reader ([`input::command`]) from the body
/// `POST /v1/orders/{id}/refunds` would carry: the amount typed in major units of the order's
/// currency (none when left empty: what is left), the holder and IBAN as the destination.
fn refund_command(order: &Order, form: RefundForm) -> Result<CreateRefund, Refusal> {
    let currency = Currency::parse(&order.currency).map_err(|_| invalid("amount"))?;
    let mut body = serde_json::json!({
        "destination": { "account_holder": form.account_holder, "iban": form.iban },
    });
    if !form.amount.trim().is_empty() {
        let amount = currency
            .minor_units(&form.amount)
            .map_err(|_| invalid("amount"))?;
        body["amount"] = amount.into();
    }
    let refund = input::command(&body).map_err(|error| refusal(&error))?;
    Ok(CreateRefund {
        order_id: order.id.clone(),
        refund,
    })
}
