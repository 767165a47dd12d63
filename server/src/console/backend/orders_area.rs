//! The console's orders over the domain.

use super::*;

#[async_trait]
impl OrdersConsole for PgConsole {
    async fn orders(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter<OrderStatus>,
        starting_after: Option<OrderId>,
    ) -> ConsoleResult<Page<OrderRow>> {
        let filters = list_filters(filter)?;
        let page = page(starting_after.as_deref(), PAGE_SIZE);
        let rows = listed(orders::list(&self.state.pool, merchant_id, &filters, &page).await)?;
        paged(
            rows,
            &page,
            |order| order.id.clone(),
            |order| Ok(order_row(order)),
        )
    }

    async fn order(
        &self,
        merchant_id: &MerchantId,
        id: &OrderId,
    ) -> ConsoleResult<Option<OrderRow>> {
        Ok(orders::find(&self.state.pool, merchant_id, id)
            .await
            .map_err(failed)?
            .map(order_row))
    }

    async fn set_order_status(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &OrderId,
        to: OrderStatus,
    ) -> ConsoleResult<()> {
        let Ok(target) = Target::try_from(to) else {
            let not_a_move =
                Error::InvalidStateTransition(format!("An order is never moved to {to}."));
            return Err(ConsoleError::from(Refusal::new(not_a_move.code())));
        };
        let pool = &self.state.pool;
        match orders::transition(pool, merchant_id, id, target, &by_user(user)).await {
            Ok(_) => Ok(()),
            Err(Error::Internal(cause)) => Err(failed(format!("{cause:#}"))),
            Err(refusal) => Err(ConsoleError::from(Refusal::new(refusal.code()))),
        }
    }
}
