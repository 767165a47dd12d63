//! Team members and roles (API.md §11), through the console's real forms: each role may do
//! exactly what its row of the table allows (the server refuses the rest with `403`, whatever
//! the page offered), admins manage everyone but owners, a team keeps an owner, a change takes
//! effect on the member's next request, and an invitation link works once, before it expires.

use crate::common;

use app::console::{Permission, Role};
use futures::future::join_all;
use reqwest::Client;

use common::browser::{
    get, invite, join_by_link, page, shown_invitation_link, signed_in_as, submit, Browser,
};
use common::{browser_client, count, json, spawn_app, TestApp};

async fn get_status(app: &TestApp, browser: &Browser, path: &str) -> u16 {
    get(app, browser, path).await.status().as_u16()
}

async fn member_id(app: &TestApp, email: &str) -> String {
    sqlx::query_scalar("SELECT id FROM users WHERE email = $1")
        .bind(email)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn each_role_may_do_exactly_what_its_row_of_the_table_allows() {
    let app = spawn_app().await;
    app.fund(100_000).await;
    let order = json(
        app.post(
            "/v1/orders",
            Some("to-capture"),
            r#"{"amount": 500, "currency": "EUR"}"#,
        )
        .await,
    )
    .await;
    let order_id = order["id"].as_str().unwrap().to_owned();
    let events = json(app.get("/v1/events").await).await;
    let event_id = events["data"][0]["id"].as_str().unwrap().to_owned();

    for (n, role) in Role::ALL.into_iter().enumerate() {
        let email = format!("{}@team.test", role.as_str());
        // A payout of its own per role: the same one again would be held back as a repeat.
        let amount = format!("1.0{n}");
        let browser = signed_in_as(&app, &email, Some(role)).await;
        let allowed = |permission| {
            if role.may(permission) {
                "allowed"
            } else {
                "refused"
            }
        };
        let outcome = |status: u16| if status == 403 { "refused" } else { "allowed" };

        let (status, location) = submit(
            &app,
            &browser,
            "/payouts",
            &[
                ("idempotency_key", &format!("console-{}", role.as_str())),
                ("amount", &amount),
                ("currency", "EUR"),
                ("account_holder", "Ada Lovelace"),
                ("iban", "DE89370400440532013000"),
            ],
        )
        .await;
        assert_eq!(
            outcome(status),
            allowed(Permission::CreatePayouts),
            "{role:?} pays out"
        );
        if status != 403 {
            assert!(location.starts_with("/payouts/po_"), "{role:?}: {location}");
        }
        let (status, _) = submit(&app, &browser, &format!("/orders/{order_id}/capture"), &[]).await;
        assert_eq!(
            outcome(status),
            allowed(Permission::ManageOrders),
            "{role:?} captures"
        );
        let (status, _) = submit(
            &app,
            &browser,
            &format!("/webhooks/events/{event_id}/redeliver"),
            &[("idempotency_key", &format!("redeliver-{}", role.as_str()))],
        )
        .await;
        assert_eq!(
            outcome(status),
            allowed(Permission::ManageIntegrations),
            "{role:?} redelivers"
        );
        let (status, _) = submit(
            &app,
            &browser,
            "/settings/keys",
            &[
                ("idempotency_key", &format!("api-key-{}", role.as_str())),
                ("name", role.as_str()),
                ("access", "read_only"),
            ],
        )
        .await;
        assert_eq!(
            outcome(status),
            allowed(Permission::ManageIntegrations),
            "{role:?} makes an API key"
        );
        let email = format!("invited-by-{}@team.test", role.as_str());
        let (status, location) = invite(&app, &browser, &email, "viewer").await;
        assert_eq!(
            outcome(status),
            allowed(Permission::ManageTeam),
            "{role:?} invites"
        );
        if status != 403 {
            assert_eq!(location, "/settings/team", "{role:?}");
        }
        // The pages that only offer an action answer 403 to a role without it.
        assert_eq!(
            outcome(get_status(&app, &browser, "/payouts/new").await),
            allowed(Permission::CreatePayouts)
        );
        assert_eq!(
            outcome(get_status(&app, &browser, "/settings/team").await),
            allowed(Permission::ManageTeam)
        );
        let nav = page(&app, &browser, "/").await;
        assert_eq!(
            nav.contains("href=\"/settings/team\""),
            role.may(Permission::ManageTeam),
            "{role:?}'s navigation"
        );
    }
    // Only the allowed roles' forms changed anything.
    assert_eq!(count(&app.pool, "payouts").await, 3);
    assert_eq!(count(&app.pool, "invitations").await, 2);
    // The merchant's own key, and one for each of owner, admin and developer.
    assert_eq!(count(&app.pool, "api_keys").await, 4);
    let support = signed_in_as(&app, "support@team.test", None).await;
    assert_eq!(get_status(&app, &support, "/settings/team").await, 200);
    let (status, _) = invite(&app, &support, "by-support@team.test", "viewer").await;
    assert_eq!(status, 403, "support staff change nothing");
}

#[tokio::test]
async fn admins_manage_everyone_but_owners_a_team_keeps_an_owner_and_changes_apply_at_once() {
    let app = spawn_app().await;
    let owner = signed_in_as(&app, "owner@team.test", Some(Role::Owner)).await;
    let admin = signed_in_as(&app, "admin@team.test", Some(Role::Admin)).await;
    let viewer = signed_in_as(&app, "viewer@team.test", Some(Role::Viewer)).await;
    let owner_id = member_id(&app, "owner@team.test").await;
    let viewer_id = member_id(&app, "viewer@team.test").await;
    let role_of = |id: String| {
        let pool = app.pool.clone();
        async move {
            sqlx::query_scalar::<_, String>("SELECT role FROM users WHERE id = $1")
                .bind(id)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };

    let refused = "/settings/team?error=role_not_allowed";
    let change = |id: &str| format!("/settings/team/members/{id}/role");
    assert_eq!(
        submit(&app, &admin, &change(&owner_id), &[("role", "viewer")])
            .await
            .1,
        refused
    );
    assert_eq!(
        submit(
            &app,
            &admin,
            &format!("/settings/team/members/{owner_id}/remove"),
            &[]
        )
        .await
        .1,
        refused
    );
    assert_eq!(
        invite(&app, &admin, "o2@team.test", "owner").await.1,
        refused
    );
    assert_eq!(role_of(owner_id.clone()).await, "owner");

    // The only owner can neither step down nor leave.
    let last_owner = "/settings/team?error=last_owner";
    assert_eq!(
        submit(&app, &owner, &change(&owner_id), &[("role", "admin")])
            .await
            .1,
        last_owner
    );
    assert_eq!(
        submit(
            &app,
            &owner,
            &format!("/settings/team/members/{owner_id}/remove"),
            &[]
        )
        .await
        .1,
        last_owner
    );

    // A role change applies to the member's next request, without signing in again.
    assert_eq!(get_status(&app, &viewer, "/payouts/new").await, 403);
    assert_eq!(
        submit(&app, &admin, &change(&viewer_id), &[("role", "finance")])
            .await
            .1,
        "/settings/team"
    );
    assert_eq!(get_status(&app, &viewer, "/payouts/new").await, 200);
    // A removed member's session ends on its next request.
    assert_eq!(
        submit(
            &app,
            &admin,
            &format!("/settings/team/members/{viewer_id}/remove"),
            &[]
        )
        .await
        .1,
        "/settings/team"
    );
    let after = get(&app, &viewer, "/payouts").await;
    assert_eq!(after.status(), 303);
    assert_eq!(after.headers()["location"], "/login");
}

#[tokio::test]
async fn an_invitation_link_works_once_before_it_expires() {
    let app = spawn_app().await;
    let owner = signed_in_as(&app, "owner@team.test", Some(Role::Owner)).await;
    let invited = |email: &'static str| {
        let (app, owner) = (&app, &owner);
        async move {
            let (_, location) = invite(app, owner, email, "developer").await;
            assert_eq!(location, "/settings/team");
            // The link is shown once, on the next page; only its hash is kept.
            let link = shown_invitation_link(app, owner).await;
            assert!(!page(app, owner, "/settings/team").await.contains(&link));
            link
        }
    };
    let link = invited("new@team.test").await;
    let token = link.trim_start_matches("/invitations/");
    let in_clear = count(
        &app.pool,
        &format!("invitations i WHERE position('{token}' in i::text) > 0"),
    )
    .await;
    let hashed = count(
        &app.pool,
        &format!("invitations WHERE token_hash = sha256('{token}'::bytea)"),
    )
    .await;
    assert_eq!(
        (in_clear, hashed),
        (0, 1),
        "only the token's SHA-256 is stored"
    );

    // A visitor with the link (no session) joins with a password, and is signed in.
    let join = |link: String, email: &'static str| {
        let app = &app;
        async move {
            let (form, answer) = join_by_link(app, &link).await;
            assert!(form.contains("developer") && form.contains(email), "{form}");
            answer
        }
    };
    assert_eq!(
        join(link.clone(), "new@team.test").await,
        (303, "/".to_owned())
    );
    assert_eq!(
        count(
            &app.pool,
            "users WHERE email = 'new@team.test' AND role = 'developer'"
        )
        .await,
        1
    );
    // Used: the link is gone.
    let again = browser_client()
        .get(format!("{}{link}", app.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 410);

    // Two visitors at once with one link: one member.
    let raced = invited("race@team.test").await;
    let answers = join_all((0..2).map(|_| join(raced.clone(), "race@team.test"))).await;
    let joined = answers
        .iter()
        .filter(|(_, location)| location == "/")
        .count();
    assert_eq!(joined, 1, "{answers:?}");
    assert_eq!(
        count(&app.pool, "users WHERE email = 'race@team.test'").await,
        1
    );

    // An expired link works no more.
    let expired = invited("late@team.test").await;
    sqlx::query("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE email = 'late@team.test'")
        .execute(&app.pool)
        .await
        .unwrap();
    let gone = browser_client()
        .get(format!("{}{expired}", app.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 410);
}

/// A real SMTP server (aiosmtpd, from PyPI) on `port`, keeping what it accepts in the maildir
/// `dir`; killed when dropped.
struct SmtpServer(std::process::Child);

impl SmtpServer {
    fn start(port: u16, dir: &std::path::Path) -> Self {
        let requirements =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/smtp/requirements.txt");
        let python = common::tools::python_venv("smtp-venv", &requirements).join("python");
        let child = std::process::Command::new(python)
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(dir)
            .spawn()
            .expect("aiosmtpd starts");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(std::time::Instant::now() < deadline, "aiosmtpd listens");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Self(child)
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The messages a maildir holds.
fn mails(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir.join("new"))
        .map(|entries| {
            entries
                .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn with_an_smtp_server_an_invitation_is_mailed_and_without_one_its_link_is_shown() {
    let port = common::free_port();
    let maildir = common::scratch_dir().join("maildir");
    let smtp = {
        let maildir = maildir.clone();
        tokio::task::spawn_blocking(move || SmtpServer::start(port, &maildir))
            .await
            .unwrap()
    };
    let smtp_url = format!("smtp://127.0.0.1:{port}");
    let app = common::spawn_app_with(&[
        "--smtp-url",
        &smtp_url,
        "--public-url",
        "http://console.example",
        "--mail-from",
        "Kaadxpay <team@console.example>",
    ])
    .await;
    let owner = signed_in_as(&app, "owner@mail.test", Some(Role::Owner)).await;
    let (status, location) = invite(&app, &owner, "New.Member@Mail.Test ", "finance").await;
    assert_eq!((status, location.as_str()), (303, "/settings/team"));
    let page_after = page(&app, &owner, &location).await;
    assert!(page_after.contains("Invitation mailed"), "{page_after}");
    assert!(
        !page_after.contains("href=\"/invitations/"),
        "the link is not shown when mailed"
    );

    let mail = mails(&maildir)
        .pop()
        .expect("aiosmtpd received the invitation");
    assert!(mail.contains("To: New.Member@Mail.Test"), "{mail}");
    assert!(
        mail.contains("From: Kaadxpay <team@console.example>"),
        "{mail}"
    );
    assert!(mail.contains("owner@mail.test invites you"), "{mail}");
    let link = mail
        .split("http://console.example")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the link")
        .to_owned();
    assert!(link.starts_with("/invitations/"), "{link}");
    // The mailed link is the invitation's: it opens the join form here.
    let visitor = Client::new();
    let form = visitor
        .get(format!("{}{link}", app.base_url))
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), 200);
    assert!(form.text().await.unwrap().contains("new.member@mail.test"));
    drop(smtp);

    // The server gone, the mail fails: the link is shown instead, and the page says why.
    let (status, location) = invite(&app, &owner, "second@mail.test", "viewer").await;
    assert_eq!(
        (status, location.as_str()),
        (303, "/settings/team?invitation=unsent")
    );
    let page_after = page(&app, &owner, &location).await;
    assert!(page_after.contains("could not be mailed"), "{page_after}");
    assert!(
        page_after.contains("class=\"invitation-link\""),
        "{page_after}"
    );
    assert_eq!(count(&app.pool, "invitations").await, 2);
}
