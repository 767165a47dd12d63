//! The order page's "Refund" (API.md §9, §13): a member whose role may capture refunds a
//! captured order from its page (the amount in major units, `2,50` as well as `2.50`; empty for
//! all that is left), a double click makes one refund, the same refund from a new form is held
//! back as a repeat, a refusal comes back as typed with the reason beside the amount, the
//! order's page lists its refunds and its timeline tells of them, in both languages, and a role that may not capture gets
//! `403` and no button.

use crate::common;

use app::console::Role;

use crate::api::refunds::captured_order;
use common::browser::{get, hidden, page, page_in_chinese, signed_in_as, submit};
use common::{count, spawn_app, TestApp, IBAN};

/// Submits the order page's "Refund" form (minted under `key`) with `amount`.
async fn refund(
    app: &TestApp,
    browser: &common::browser::Browser,
    order: &str,
    key: &str,
    amount: &str,
) -> (u16, String) {
    let fields = [
        ("idempotency_key", key),
        ("amount", amount),
        ("account_holder", "Grace Hopper"),
        ("iban", IBAN),
    ];
    submit(app, browser, &format!("/orders/{order}/refunds"), &fields).await
}

/// The input element named `name` in `html`, up to its `>`.
fn element<'a>(html: &'a str, name: &str) -> &'a str {
    let at = html
        .find(&format!("name=\"{name}\""))
        .unwrap_or_else(|| panic!("no {name}"));
    let start = html[..at].rfind('<').unwrap();
    &html[start..at + html[at..].find('>').unwrap()]
}

#[tokio::test]
async fn a_member_who_may_capture_refunds_once_per_form_and_sees_the_refunds() {
    let app = spawn_app().await;
    let order = captured_order(&app, "order", 1_000).await;
    let finance = signed_in_as(&app, "finance@refunds.test", Some(Role::Finance)).await;
    let shown = page(&app, &finance, &format!("/orders/{order}")).await;
    assert!(shown.contains(">Refund</button>"), "{shown}");
    let key = hidden(&shown, "idempotency_key");

    let answer = refund(&app, &finance, &order, &key, "2,50").await;
    assert_eq!(answer, (303, format!("/orders/{order}")));
    // A double click: the same form again makes nothing more.
    let again = refund(&app, &finance, &order, &key, "2,50").await;
    assert_eq!(again, (303, format!("/orders/{order}")));
    assert_eq!(count(&app.pool, "refunds WHERE amount = 250").await, 1);
    let shown = page(&app, &finance, &format!("/orders/{order}")).await;
    assert!(
        shown.contains("Refunds") && shown.contains("2.50 EUR"),
        "{shown}"
    );

    // Back, then the same refund from a new form: held back as a repeat.
    let (status, location) = refund(&app, &finance, &order, "second-form", "2.50").await;
    assert_eq!((status, location.as_str()), (303, "/repeat"));
    let repeat = get(&app, &finance, "/repeat").await.text().await.unwrap();
    assert!(
        repeat.contains("<h1>This looks like a repeat</h1>"),
        "{repeat}"
    );
    assert_eq!(count(&app.pool, "refunds").await, 1);

    // More than is left: back as typed, the reason beside the amount.
    let (status, location) = refund(&app, &finance, &order, "too-much", "100,00").await;
    assert_eq!((status, location), (303, format!("/orders/{order}")));
    let form = page(&app, &finance, &format!("/orders/{order}")).await;
    let amount = element(&form, "amount");
    assert!(amount.contains(r#"value="100,00""#), "{amount}");
    assert!(amount.contains(r#"aria-invalid="true""#), "{amount}");
    assert!(form.contains("more than is left to refund"), "{form}");
    // The refusal is that key's answer for good: the form comes back under a new one.
    assert_ne!(hidden(&form, "idempotency_key"), "too-much");

    // Empty: all that is left.
    let (status, _) = refund(&app, &finance, &order, "the-rest", "").await;
    assert_eq!(status, 303);
    let rest: i64 =
        sqlx::query_scalar("SELECT amount FROM refunds WHERE idempotency_key = 'the-rest'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(rest, 750);
}

#[tokio::test]
async fn a_role_that_may_not_capture_gets_no_button_and_403() {
    let app = spawn_app().await;
    let order = captured_order(&app, "order", 1_000).await;
    for role in [Role::Developer, Role::Viewer] {
        let email = format!("{}@refunds.test", role.as_str());
        let member = signed_in_as(&app, &email, Some(role)).await;
        let shown = page(&app, &member, &format!("/orders/{order}")).await;
        assert!(!shown.contains(">Refund</button>"), "{role:?}");
        let (status, _) = refund(&app, &member, &order, &email, "1.00").await;
        assert_eq!(status, 403, "{role:?}");
    }
    assert_eq!(count(&app.pool, "refunds").await, 0);
}

#[tokio::test]
async fn the_refunds_speak_chinese() {
    let app = spawn_app().await;
    let order = captured_order(&app, "order", 1_000).await;
    let owner = signed_in_as(&app, "owner@refunds.test", Some(Role::Owner)).await;
    let (status, _) = refund(&app, &owner, &order, "zh", "1.00").await;
    assert_eq!(status, 303);
    let shown = page_in_chinese(&app, &owner, &format!("/orders/{order}")).await;
    assert!(
        shown.contains("退款记录") && shown.contains(">退款</button>"),
        "{shown}"
    );
}
