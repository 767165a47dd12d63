//! The double-entry ledger (API.md §13): every change of a merchant's money is a [`Movement`]
//! of an amount from one account to another, posted as a journal of two entries that sum to
//! zero, in the transaction of its cause. The merchant's own accounts are `available` and
//! `reserved`; `customers` (who pay captured orders and are refunded), `partner` (the bank that
//! carries payouts and refunds out and top-ups in) and `opening` (where the balances kept before
//! the ledger came from) are outside it.
//!
//! One statement posts a movement: it changes the merchant's balance row (the kept sums of its
//! `available` and `reserved` entries, whose row lock orders the balance's changes), writes the
//! journal and its entries, and, when `available` changed, the statement's item with the balance
//! after it. A debit that would take an account below zero writes nothing and says so. Nothing
//! posted is ever changed or deleted (the migration's triggers and the server's role); a wrong
//! posting is undone by another movement. [`verify`] proves it all adds up.

use std::fmt;

use kaadxpay_types::ids::{BalanceTransactionId, MerchantId};
use sqlx::{PgConnection, PgPool};

/// An account of the ledger, as its entries name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Account {
    /// What the merchant may pay out or refund.
    Available,
    /// What payouts awaiting approval hold back.
    Reserved,
    /// The merchant's customers: captured orders come from them.
    Customers,
    /// The partner bank: payouts and refunds go out through it, top-ups come in from it.
    Partner,
}

impl Account {
    fn name(self) -> &'static str {
        match self {
            Self::Available => "available",
            Self::Reserved => "reserved",
            Self::Customers => "customers",
            Self::Partner => "partner",
        }
    }

    /// How much of `amount` moving into this account changes the merchant's kept balance
    /// (`available`, `reserved`).
    fn kept(self, amount: i64) -> (i64, i64) {
        match self {
            Self::Available => (amount, 0),
            Self::Reserved => (0, amount),
            Self::Customers | Self::Partner => (0, 0),
        }
    }
}

/// What moved the money: the journal's kind, and the statement's `type` when it changes
/// `available`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Movement {
    /// A captured order: from the customers to `available`.
    OrderCaptured,
    /// A payout made without approval: from `available` out to the partner.
    Payout,
    /// A payout that failed or whose transfer came back: from the partner back to `available`.
    PayoutReturned,
    /// A payout awaiting approval: from `available` to `reserved`.
    Reservation,
    /// Its rejection or cancellation: from `reserved` back to `available`.
    ReservationReleased,
    /// Its approval: from `reserved` out to the partner (`available` does not change).
    PayoutApproved,
    /// A refund: from `available` out to the partner, for the customer.
    Refund,
    /// A refund that failed: from the partner back to `available`.
    RefundReturned,
    /// Money the partner received for the merchant: from the partner to `available`.
    TopUp,
}

impl Movement {
    pub const ALL: [Movement; 9] = [
        Self::OrderCaptured,
        Self::Payout,
        Self::PayoutReturned,
        Self::Reservation,
        Self::ReservationReleased,
        Self::PayoutApproved,
        Self::Refund,
        Self::RefundReturned,
        Self::TopUp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::OrderCaptured => "order_captured",
            Self::Payout => "payout",
            Self::PayoutReturned => "payout_returned",
            Self::Reservation => "reservation",
            Self::ReservationReleased => "reservation_released",
            Self::PayoutApproved => "payout_approved",
            Self::Refund => "refund",
            Self::RefundReturned => "refund_returned",
            Self::TopUp => "top_up",
        }
    }

    /// The account the amount leaves and the one it enters.
    fn accounts(self) -> (Account, Account) {
        use Account::*;
        match self {
            Self::OrderCaptured => (Customers, Available),
            Self::Payout | Self::Refund => (Available, Partner),
            Self::PayoutReturned | Self::RefundReturned | Self::TopUp => (Partner, Available),
            Self::Reservation => (Available, Reserved),
            Self::ReservationReleased => (Reserved, Available),
            Self::PayoutApproved => (Reserved, Partner),
        }
    }
}

/// The object whose change a journal is (the statement's `source`).
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// `order`, `payout`, `refund`, `top_up` or `reversal`.
    pub kind: &'static str,
    pub id: &'a str,
}

impl<'a> Source<'a> {
    pub fn order(id: &'a str) -> Self {
        Self { kind: "order", id }
    }

    pub fn payout(id: &'a str) -> Self {
        Self { kind: "payout", id }
    }

    /// The partner's reversal of the transfer of the payout or refund `id`.
    pub fn reversal(id: &'a str) -> Self {
        Self {
            kind: "reversal",
            id,
        }
    }

    pub fn refund(id: &'a str) -> Self {
        Self { kind: "refund", id }
    }

    pub fn top_up(id: &'a str) -> Self {
        Self { kind: "top_up", id }
    }
}

/// One movement to post for a merchant.
#[derive(Debug, Clone, Copy)]
pub struct Posting<'a> {
    pub merchant_id: &'a MerchantId,
    pub currency: &'a str,
    /// Positive minor units.
    pub amount: i64,
    pub movement: Movement,
    pub source: Source<'a>,
}

/// A debit the merchant's account could not bear: nothing was posted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insufficient;

/// Posts `posting` inside `conn`'s transaction, in one statement (see the module); returns the
/// `available` balance after it, or [`Insufficient`] when it would take `available` or
/// `reserved` below zero (then nothing changed).
///
/// The balance row is upserted: a credit makes it when the merchant has none in the currency
/// yet; a debit only changes an existing one (the `EXISTS` lets it reach the `ON CONFLICT`
/// update, whose condition refuses an overdraft; with no row there is nothing to debit).
pub async fn post(
    conn: &mut PgConnection,
    posting: &Posting<'_>,
) -> sqlx::Result<Result<i64, Insufficient>> {
    let (from, to) = posting.movement.accounts();
    let (out_available, out_reserved) = from.kept(-posting.amount);
    let (in_available, in_reserved) = to.kept(posting.amount);
    let item_id = BalanceTransactionId::new();
    let available = sqlx::query_scalar!(
        "WITH balance AS ( \
           INSERT INTO balances (merchant_id, currency, available, reserved) \
           SELECT $1, $2, greatest($3::int8, 0), greatest($4::int8, 0) \
           WHERE ($3 >= 0 AND $4 >= 0) \
              OR EXISTS (SELECT 1 FROM balances WHERE merchant_id = $1 AND currency = $2) \
           ON CONFLICT (merchant_id, currency) DO UPDATE \
             SET available = balances.available + $3, reserved = balances.reserved + $4, \
                 updated_at = now() \
             WHERE balances.available + $3 >= 0 AND balances.reserved + $4 >= 0 \
           RETURNING available \
         ), journal AS ( \
           INSERT INTO ledger_journals (merchant_id, currency, kind, source_type, source_id) \
           SELECT $1, $2, $5, $6, $7 FROM balance RETURNING id, created_at \
         ), entries AS ( \
           INSERT INTO ledger_entries (journal_id, merchant_id, currency, account, amount) \
           SELECT journal.id, $1, $2, entry.account, entry.amount \
           FROM journal, (VALUES ($8::text, -$10::int8), ($9::text, $10::int8)) AS entry (account, amount) \
         ), item AS ( \
           INSERT INTO balance_transactions (id, merchant_id, journal_id, type, amount, currency, \
             balance_after, source_type, source_id, created_at) \
           SELECT $11, $1, journal.id, $5, $3, $2, balance.available, $6, $7, journal.created_at \
           FROM balance, journal WHERE $3 <> 0 \
         ) \
         SELECT available FROM balance",
        posting.merchant_id.as_str(),
        posting.currency,
        out_available + in_available,
        out_reserved + in_reserved,
        posting.movement.name(),
        posting.source.kind,
        posting.source.id,
        from.name(),
        to.name(),
        posting.amount,
        item_id.as_str(),
    )
    .fetch_optional(conn)
    .await?;
    Ok(available.ok_or(Insufficient))
}

/// Posts a movement that cannot be refused: a credit of `available` or a release of what
/// `reserved` holds for the very object being released.
pub async fn post_credit(conn: &mut PgConnection, posting: &Posting<'_>) -> sqlx::Result<()> {
    post(conn, posting).await?.map_err(|Insufficient| {
        sqlx::Error::Protocol(format!(
            "the ledger refused to post {} of {} {} for {}",
            posting.movement.name(),
            posting.amount,
            posting.currency,
            posting.source.id
        ))
    })?;
    Ok(())
}

/// A way the ledger does not add up, in a line naming the merchant, the currency and the
/// journal or account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    pub merchant_id: String,
    pub currency: String,
    pub what: String,
}

impl Break {
    fn new(merchant_id: String, currency: String, what: String) -> Self {
        Self {
            merchant_id,
            currency,
            what,
        }
    }
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "merchant {} currency {}: {}",
            self.merchant_id, self.currency, self.what
        )
    }
}

/// What [`verify`] found.
#[derive(Debug)]
pub struct Report {
    pub journals: i64,
    pub entries: i64,
    pub balances: i64,
    pub breaks: Vec<Break>,
}

/// Checks the ledger of every merchant (or of `merchant` only): each journal's entries sum to
/// zero per currency (and a journal has entries); each balance row is the sum of its account's
/// entries; each journal that changed `available` is one statement item of that amount whose
/// `balance_after` is the sum of `available`'s entries up to it, and each item is such a
/// journal's.
pub async fn verify(pool: &PgPool, merchant: Option<&MerchantId>) -> sqlx::Result<Report> {
    let merchant = merchant.map(MerchantId::as_str);
    let mut breaks = Vec::new();
    for row in sqlx::query!(
        r#"SELECT j.merchant_id, coalesce(e.currency, j.currency) AS "currency!", j.id,
             coalesce(sum(e.amount), 0)::int8 AS "sum!"
           FROM ledger_journals j LEFT JOIN ledger_entries e ON e.journal_id = j.id
           WHERE $1::text IS NULL OR j.merchant_id = $1
           GROUP BY j.merchant_id, j.id, e.currency
           HAVING coalesce(sum(e.amount), 0) <> 0 OR count(e.id) = 0
               OR bool_or(e.merchant_id <> j.merchant_id)
           ORDER BY j.id"#,
        merchant,
    )
    .fetch_all(pool)
    .await?
    {
        let what = format!(
            "journal {} does not balance: its entries sum to {}",
            row.id, row.sum
        );
        breaks.push(Break::new(row.merchant_id, row.currency, what));
    }
    for row in sqlx::query!(
        r#"WITH summed AS (
             SELECT merchant_id, currency, account, sum(amount)::int8 AS amount
             FROM ledger_entries WHERE account IN ('available', 'reserved')
               AND ($1::text IS NULL OR merchant_id = $1)
             GROUP BY merchant_id, currency, account),
           kept AS (
             SELECT merchant_id, currency, 'available' AS account, available AS amount
             FROM balances WHERE $1::text IS NULL OR merchant_id = $1
             UNION ALL
             SELECT merchant_id, currency, 'reserved', reserved
             FROM balances WHERE $1::text IS NULL OR merchant_id = $1)
           SELECT coalesce(k.merchant_id, s.merchant_id) AS "merchant_id!",
             coalesce(k.currency, s.currency) AS "currency!",
             coalesce(k.account, s.account) AS "account!",
             coalesce(k.amount, 0) AS "kept!", coalesce(s.amount, 0) AS "summed!"
           FROM kept k FULL JOIN summed s USING (merchant_id, currency, account)
           WHERE coalesce(k.amount, 0) <> coalesce(s.amount, 0)
           ORDER BY 1, 2, 3"#,
        merchant,
    )
    .fetch_all(pool)
    .await?
    {
        let what = format!(
            "account {} is {} but its entries sum to {}",
            row.account, row.kept, row.summed
        );
        breaks.push(Break::new(row.merchant_id, row.currency, what));
    }
    for row in sqlx::query!(
        r#"WITH changes AS (
             SELECT e.journal_id, e.merchant_id, e.currency, j.kind, sum(e.amount)::int8 AS amount
             FROM ledger_entries e JOIN ledger_journals j ON j.id = e.journal_id
             WHERE e.account = 'available' AND ($1::text IS NULL OR e.merchant_id = $1)
             GROUP BY e.journal_id, e.merchant_id, e.currency, j.kind),
           running AS (
             SELECT *, sum(amount) OVER (PARTITION BY merchant_id, currency ORDER BY journal_id)::int8
               AS after
             FROM changes)
           SELECT coalesce(r.merchant_id, t.merchant_id) AS "merchant_id!",
             coalesce(r.currency, t.currency) AS "currency!",
             coalesce(r.journal_id, t.journal_id) AS "journal_id!",
             t.id AS "item?", r.amount AS "amount?", r.after AS "after?",
             t.amount AS "item_amount?", t.balance_after AS "item_after?"
           FROM (SELECT * FROM running WHERE kind <> 'opening') r
           FULL JOIN (SELECT * FROM balance_transactions
                      WHERE $1::text IS NULL OR merchant_id = $1) t ON t.journal_id = r.journal_id
           WHERE r.journal_id IS NULL OR t.id IS NULL OR t.amount <> r.amount
              OR t.balance_after <> r.after OR t.currency <> r.currency
           ORDER BY 3"#,
        merchant,
    )
    .fetch_all(pool)
    .await?
    {
        let what = match (&row.item, row.amount) {
            (None, _) => format!(
                "journal {} changed available by {} but is not on the statement",
                row.journal_id,
                row.amount.unwrap_or_default()
            ),
            (Some(item), None) => format!(
                "statement item {item} names journal {}, which did not change available",
                row.journal_id
            ),
            (Some(item), Some(amount)) => format!(
                "statement item {item} (journal {}) says {} with balance after {}, \
                 its entries say {amount} with balance after {}",
                row.journal_id,
                row.item_amount.unwrap_or_default(),
                row.item_after.unwrap_or_default(),
                row.after.unwrap_or_default()
            ),
        };
        breaks.push(Break::new(row.merchant_id, row.currency, what));
    }
    let counts = sqlx::query!(
        r#"SELECT
             (SELECT count(*) FROM ledger_journals WHERE $1::text IS NULL OR merchant_id = $1) AS "journals!",
             (SELECT count(*) FROM ledger_entries WHERE $1::text IS NULL OR merchant_id = $1) AS "entries!",
             (SELECT count(*) FROM balances WHERE $1::text IS NULL OR merchant_id = $1) AS "balances!""#,
        merchant,
    )
    .fetch_one(pool)
    .await?;
    Ok(Report {
        journals: counts.journals,
        entries: counts.entries,
        balances: counts.balances,
        breaks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kaadxpay_types::BalanceTransactionType;

    #[test]
    fn every_movement_moves_between_two_different_accounts() {
        for movement in Movement::ALL {
            let (from, to) = movement.accounts();
            assert_ne!(from, to, "{}", movement.name());
        }
    }

    #[test]
    fn the_movements_that_change_available_are_the_statements_types() {
        let mut on_statement: Vec<&str> = Movement::ALL
            .into_iter()
            .filter(|movement| {
                let (from, to) = movement.accounts();
                from == Account::Available || to == Account::Available
            })
            .map(Movement::name)
            .collect();
        let mut types = BalanceTransactionType::NAMES.to_vec();
        on_statement.sort();
        types.sort();
        assert_eq!(on_statement, types);
    }
}
