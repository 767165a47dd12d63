//! Test mode's [`Scenario`]s: what the partner simulator does with a transfer to one of its
//! magic IBANs (`kaadxpay_partner_sim::scenarios`), named as docs and the console name them.

/// What the simulator does with a transfer to a magic IBAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scenario {
    /// Accepted, then paid.
    Paid,
    /// Every create is refused with `422 account_closed`: no transfer is made.
    Refused,
    /// Paid, then reversed by the partner `RETURN_AFTER` later (`transfer.reversed`).
    Returned,
    /// The first create makes the transfer but its answer never comes (the caller times out);
    /// a repeat of the key gets the same transfer, which then settles paid.
    Slow,
    /// Booked twice by one create, as a partner that ignores keys does: the answer is the
    /// first transfer, and both are paid; the second is a duplicate for reconciliation.
    Duplicated,
    /// Accepted and kept so until `POST /_sim/transfers/{id}/release`, then paid.
    Held,
}

status_names!(Scenario, "a test mode scenario", {
    Paid => "paid",
    Refused => "refused",
    Returned => "returned",
    Slow => "slow",
    Duplicated => "duplicated",
    Held => "held",
});
