//! A browser on the console: signed in through the real login form, its session cookie, the
//! pages it reads and the hidden fields of their forms.

use super::{first_cookie, TestApp};

/// A browser signed in to the console as a new user of the app's merchant, or as support
/// staff: its client (redirects not followed) and session cookie.
pub async fn signed_in(app: &TestApp, support: bool) -> (reqwest::Client, String) {
    let email = if support {
        "support@test"
    } else {
        "member@test"
    };
    let merchant = (!support).then_some(app.merchant.id.as_str());
    server::users::create(&app.pool, email, "right-password", merchant)
        .await
        .unwrap();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let login = client
        .get(format!("{}/login", app.base_url))
        .send()
        .await
        .unwrap();
    let cookie = first_cookie(&login);
    let csrf = hidden(&login.text().await.unwrap(), "csrf");
    let signed = client
        .post(format!("{}/login", app.base_url))
        .header("cookie", &cookie)
        .form(&[
            ("csrf", csrf.as_str()),
            ("email", email),
            ("password", "right-password"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(signed.status(), 303);
    (client, first_cookie(&signed))
}

/// The value of the hidden field `name` in `html`.
pub fn hidden(html: &str, name: &str) -> String {
    html.split(&format!("name=\"{name}\" value=\""))
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no {name} field"))
        .to_owned()
}

pub async fn page(app: &TestApp, browser: &(reqwest::Client, String), path: &str) -> String {
    let (client, cookie) = browser;
    client
        .get(format!("{}{path}", app.base_url))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}
