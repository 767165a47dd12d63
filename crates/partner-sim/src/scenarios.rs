//! Test mode's scenarios: magic destination IBANs (valid ISO 13616 checksums, bank code `KXPY`,
//! which no real bank has) that make the simulator give one fixed outcome for a transfer,
//! whatever its global mode and faults. The IBAN is the whole switch: a payout made to one of
//! them goes through the real payout worker, webhooks and reconciliation like any other, and the
//! simulator alone decides what happens to it (docs/api.md, "Testing your integration").

use std::time::Duration;

/// How long after it is paid a [`Scenario::Returned`] transfer comes back.
pub const RETURN_AFTER: Duration = Duration::from_secs(5);

pub use kaadxpay_types::Scenario;

/// One magic IBAN, as docs and the console list it (the console says what a payout to it does
/// in its reader's language, by the scenario's name).
#[derive(Debug, Clone, Copy)]
pub struct MagicIban {
    pub iban: &'static str,
    pub scenario: Scenario,
}

pub const MAGIC_IBANS: [MagicIban; 6] = [
    MagicIban {
        iban: "GB94KXPY00000000000001",
        scenario: Scenario::Paid,
    },
    MagicIban {
        iban: "GB67KXPY00000000000002",
        scenario: Scenario::Refused,
    },
    MagicIban {
        iban: "GB40KXPY00000000000003",
        scenario: Scenario::Returned,
    },
    MagicIban {
        iban: "GB13KXPY00000000000004",
        scenario: Scenario::Slow,
    },
    MagicIban {
        iban: "GB83KXPY00000000000005",
        scenario: Scenario::Duplicated,
    },
    MagicIban {
        iban: "GB56KXPY00000000000006",
        scenario: Scenario::Held,
    },
];

/// The scenario of a destination IBAN, however it is spaced or cased.
pub fn scenario_of(iban: &str) -> Option<Scenario> {
    let iban: String = iban
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    MAGIC_IBANS
        .iter()
        .find(|magic| magic.iban == iban)
        .map(|magic| magic.scenario)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// (That the API accepts them too is the server's test, beside its `Iban`.)
    #[test]
    fn magic_ibans_are_valid_and_distinct() {
        for magic in MAGIC_IBANS {
            assert!(crate::iban_is_valid(magic.iban), "{}", magic.iban);
            assert_eq!(scenario_of(magic.iban), Some(magic.scenario));
        }
        let ibans: HashSet<_> = MAGIC_IBANS.iter().map(|magic| magic.iban).collect();
        let scenarios: HashSet<_> = MAGIC_IBANS.iter().map(|magic| magic.scenario).collect();
        assert_eq!(ibans.len(), MAGIC_IBANS.len());
        assert_eq!(scenarios.len(), MAGIC_IBANS.len());
    }

    #[test]
    fn scenarios_ignore_spacing_and_case_and_other_ibans_have_none() {
        assert_eq!(
            scenario_of("gb13 kxpy 0000 0000 0000 04"),
            Some(Scenario::Slow)
        );
        assert_eq!(scenario_of("DE89370400440532013000"), None);
    }
}
