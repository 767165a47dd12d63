//! A timeline's moments written in the page's language: a badge for the kind of moment and a
//! sentence with its facts.

use leptos_fluent::tr;

use crate::console::{Duplicate, Money};
use crate::i18n::{day, money, Lang};
use crate::vocabulary::{
    code_word, error_code_word, partner_answer, partner_call_word, reconciliation_action_word,
};
use kaadxpay_types::Moment;

/// The badge of a kind of moment (in English the kind itself, as the API names it).
pub fn badge(moment: &Moment) -> String {
    match moment {
        Moment::Request { .. } => tr!("moment-kind-request"),
        Moment::RecordStored { .. } | Moment::RecordChanged { .. } => {
            tr!("moment-kind-record")
        }
        Moment::PayoutCreated { .. } => tr!("moment-kind-payout"),
        Moment::OrderCreated { .. } => tr!("moment-kind-order"),
        Moment::PartnerCall { .. } => tr!("moment-kind-partner_call"),
        Moment::PartnerWebhook { .. } => tr!("moment-kind-partner_webhook"),
        Moment::Reconciliation { .. } => tr!("moment-kind-reconciliation"),
        Moment::Reversal { .. } => tr!("moment-kind-reversal"),
        Moment::EventSent { .. } => tr!("moment-kind-event"),
        Moment::Delivery { .. } => tr!("moment-kind-delivery"),
    }
}

/// The wait before a moment: `+250 ms` under a second, else `+1.2 s`.
pub fn wait(ms: i64) -> String {
    if ms < 1000 {
        tr!("moment-after-ms", {"ms" => ms.to_string()})
    } else {
        tr!("moment-after-s", {"s" => format!("{:.1}", ms as f64 / 1000.0)})
    }
}

/// An amount of minor units as people write it, with its currency (`12.34 EUR`).
fn written(amount: i64, currency: &str) -> String {
    money(&Money {
        amount,
        currency: currency.to_owned(),
    })
}

/// What a partner event about a duplicate transfer is, and where its reversal stands.
pub fn duplicate_label(duplicate: Duplicate) -> String {
    match duplicate {
        Duplicate::ToReverse => tr!("moment-duplicate-to-reverse"),
        Duplicate::Reversed => tr!("moment-duplicate-reversed"),
        Duplicate::Resolved => tr!("moment-duplicate-resolved"),
    }
}

/// What happened, as a sentence.
pub fn sentence(moment: &Moment) -> String {
    match moment {
        Moment::Request {
            route,
            status,
            verdict,
            error_code,
            latency_ms,
        } => {
            let verdict = verdict.map(|verdict| code_word(verdict.as_str()));
            let outcome = [Some(status.to_string()), verdict]
                .into_iter()
                .chain([error_code.map(error_code_word)])
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            tr!("moment-request-answered", {
                "route" => route.clone(),
                "outcome" => outcome,
                "latency" => format!("{latency_ms:.1}"),
            })
        }
        Moment::RecordStored { endpoint } => {
            tr!("moment-record-stored", {"endpoint" => endpoint.clone()})
        }
        Moment::RecordChanged { status, error } => {
            let status = code_word(status.as_str());
            match error {
                None => tr!("moment-record-changed", {"status" => status}),
                Some(error) => tr!("moment-record-failed", {
                    "status" => status,
                    "error" => error.clone(),
                }),
            }
        }
        Moment::PayoutCreated {
            amount,
            currency,
            partner_key,
        } => {
            tr!("moment-payout-created", {
                "money" => written(*amount, currency),
                "partner_key" => partner_key.clone(),
            })
        }
        Moment::OrderCreated { amount, currency } => tr!("moment-order-created", {
            "money" => written(*amount, currency),
        }),
        Moment::PartnerCall {
            call,
            partner_key,
            answer,
            latency_ms,
        } => tr!("moment-partner-call", {
            "call" => partner_call_word(*call),
            "partner_key" => partner_key.clone(),
            "answer" => partner_answer(answer),
            "latency" => latency_ms.to_string(),
        }),
        Moment::PartnerWebhook {
            event_type,
            transfer_id,
        } => tr!("moment-partner-webhook", {
            "event_type" => event_type.clone(),
            "transfer" => transfer_id.clone(),
        }),
        Moment::Reconciliation {
            run_date,
            item,
            action,
            transfer_id,
        } => {
            let action = action
                .map(|action| tr!("moment-reconciliation-action", {"action" => reconciliation_action_word(action)}));
            let transfer = transfer_id.as_ref().map(
                |transfer| tr!("moment-reconciliation-transfer", {"transfer" => transfer.clone()}),
            );
            tr!("moment-reconciled", {
                "day" => day(run_date),
                "item" => code_word(item.as_str()),
                "action" => action.unwrap_or_default(),
                "transfer" => transfer.unwrap_or_default(),
            })
        }
        Moment::Reversal { transfer_id, state } => tr!("moment-reversal-state", {
            "transfer" => transfer_id.clone(),
            "state" => reconciliation_action_word(*state),
        }),
        Moment::EventSent { event_type } => {
            tr!("moment-event-sent", {"event_type" => event_type.to_string()})
        }
        Moment::Delivery {
            event_type,
            url,
            status_code,
            error,
            latency_ms,
        } => {
            let answer = match (status_code, error) {
                (Some(status), _) => {
                    tr!("moment-delivery-http", {"status" => status.to_string()})
                }
                // The network's own words are English: elsewhere, a word for what happened.
                (None, Some(error)) if Lang::current() == Lang::En => error.clone(),
                (None, Some(_)) => tr!("moment-delivery-network-error"),
                (None, None) => tr!("moment-delivery-no-answer"),
            };
            tr!("moment-delivery-attempt", {
                "event_type" => event_type.to_string(),
                "url" => url.clone(),
                "answer" => answer,
                "latency" => latency_ms.to_string(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::{ErrorCode, EventType, ItemKind, KeyStatus, ReversalAction, Verdict};
    use crate::i18n::{in_language, Lang};

    fn request(verdict: Option<Verdict>, error_code: Option<ErrorCode>) -> Moment {
        Moment::Request {
            route: "POST /v1/payouts".into(),
            status: 422,
            verdict,
            error_code,
            latency_ms: 12.0,
        }
    }

    fn reconciliation(action: Option<ReversalAction>, transfer_id: Option<&str>) -> Moment {
        Moment::Reconciliation {
            run_date: "2026-12-04".parse().unwrap(),
            item: ItemKind::Duplicate,
            action,
            transfer_id: transfer_id.map(str::to_owned),
        }
    }

    /// The English sentences, with money as people write it.
    #[test]
    fn english_sentences_write_money_as_people_read_it() {
        let cases = [
            (
                request(
                    Some(Verdict::Mismatch),
                    Some(ErrorCode::IdempotencyKeyReused),
                ),
                "POST /v1/payouts answered 422 mismatch idempotency_key_reused in 12.0 ms",
            ),
            (
                request(None, None),
                "POST /v1/payouts answered 422 in 12.0 ms",
            ),
            (
                Moment::RecordChanged {
                    status: KeyStatus::Failed,
                    error: Some("partner_unavailable".into()),
                },
                "record failed: partner_unavailable",
            ),
            (
                Moment::PayoutCreated {
                    amount: 400,
                    currency: "EUR".into(),
                    partner_key: "kxp-1".into(),
                },
                "payout of 4.00 EUR created under end-to-end key kxp-1",
            ),
            (
                reconciliation(Some(ReversalAction::Reversed), Some("tr_2")),
                "reconciliation of 2026-12-04: duplicate, reversed (transfer tr_2)",
            ),
            (
                reconciliation(None, None),
                "reconciliation of 2026-12-04: duplicate",
            ),
            (
                Moment::Delivery {
                    event_type: EventType::PayoutCreated,
                    url: "http://127.0.0.1:9/hooks".into(),
                    status_code: None,
                    error: None,
                    latency_ms: 3,
                },
                "payout.created to http://127.0.0.1:9/hooks: no answer in 3 ms",
            ),
        ];
        in_language(Lang::En, || {
            for (moment, expected) in cases {
                assert_eq!(sentence(&moment), expected);
            }
            assert_eq!(badge(&request(None, None)), "request");
            assert_eq!(
                duplicate_label(Duplicate::Reversed),
                "duplicate transfer: reconciliation reversed it"
            );
            assert_eq!((wait(250), wait(1250)), ("+250 ms".into(), "+1.2 s".into()));
        });
    }

    #[test]
    fn chinese_sentences_translate_the_words_and_keep_the_facts() {
        in_language(Lang::Zh, || {
            assert_eq!(
                sentence(&request(Some(Verdict::Mismatch), None)),
                "POST /v1/payouts 返回 422 不匹配，耗时 12.0 毫秒"
            );
            assert_eq!(
                sentence(&reconciliation(
                    Some(ReversalAction::Reversed),
                    Some("tr_2")
                )),
                "2026年12月04日 对账：重复，已撤回（转账 tr_2）"
            );
            assert_eq!(badge(&reconciliation(None, None)), "对账");
            let order = Moment::OrderCreated {
                amount: 123_456,
                currency: "JPY".into(),
            };
            assert_eq!(sentence(&order), "已创建订单：JPY 123,456");
            assert_eq!(
                duplicate_label(Duplicate::ToReverse),
                "重复转账：对账将撤回"
            );
            assert_eq!(wait(1250), "+1.2 秒");
        });
    }
}
