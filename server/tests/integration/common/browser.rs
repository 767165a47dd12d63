//! A browser on the console: signed in through the real login form, its session cookie, the
//! pages it reads and the hidden fields of their forms.

use app::console::Role;

use super::{browser_client, first_cookie, TestApp, Visitor};

/// A browser on the console: its client (redirects not followed) and session cookie.
pub type Browser = (reqwest::Client, String);

/// A browser signed in to the console as a new owner of the app's merchant, or as support
/// staff: its client (redirects not followed) and session cookie.
pub async fn signed_in(app: &TestApp, support: bool) -> Browser {
    if support {
        signed_in_as(app, "support@test", None).await
    } else {
        signed_in_as(app, "member@test", Some(Role::Owner)).await
    }
}

/// A browser signed in as a new user `email`: a member of the app's merchant with `role`, or
/// support staff when `role` is `None`.
pub async fn signed_in_as(app: &TestApp, email: &str, role: Option<Role>) -> Browser {
    let membership = role.map(|role| (app.merchant.id.as_str(), role));
    super::create_user(&app.pool, email, membership).await;
    let visitor = Visitor::arrive(&app.base_url).await;
    let signed = visitor.submit(email, "right-password").await;
    assert_eq!(signed.status(), 303);
    (visitor.client, first_cookie(&signed))
}

/// The value of the hidden field `name` in `html`.
pub fn hidden(html: &str, name: &str) -> String {
    html.split(&format!("name=\"{name}\" value=\""))
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no {name} field"))
        .to_owned()
}

/// `GET path` as the signed-in browser (redirects not followed).
pub async fn get(app: &TestApp, browser: &Browser, path: &str) -> reqwest::Response {
    let (client, cookie) = browser;
    client
        .get(format!("{}{path}", app.base_url))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
}

/// The path and the decoded query of a console address.
fn query_of(path: &str) -> (String, Vec<(String, String)>) {
    let url = reqwest::Url::parse(&format!("http://console{path}")).unwrap();
    let pairs = url.query_pairs().into_owned().collect();
    (url.path().to_owned(), pairs)
}

/// Asserts that support's search for `identifier`, one hit, lands on the console page
/// `lands_on` (compared with its query decoded).
pub async fn assert_search_lands(
    app: &TestApp,
    support: &Browser,
    identifier: &str,
    lands_on: &str,
) {
    let (client, cookie) = support;
    let answer = client
        .get(format!("{}/support", app.base_url))
        .query(&[("q", identifier)])
        .header("cookie", cookie)
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 302, "searching {identifier}");
    let location = answer.headers()["location"].to_str().unwrap();
    assert_eq!(
        query_of(location),
        query_of(lands_on),
        "searching {identifier}"
    );
}

/// The page at `path` as the signed-in browser sees it.
pub async fn page(app: &TestApp, browser: &Browser, path: &str) -> String {
    get(app, browser, path).await.text().await.unwrap()
}

/// The page at `path` as the signed-in browser reads it in Simplified Chinese.
pub async fn page_in_chinese(app: &TestApp, browser: &Browser, path: &str) -> String {
    let (client, cookie) = browser;
    client
        .get(format!("{}{path}", app.base_url))
        .header("cookie", cookie)
        .header("accept-language", "zh-CN")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Submits a console form at `path` with the session's CSRF token and `fields`: the answer's
/// status and where it sends the browser.
pub async fn submit(
    app: &TestApp,
    browser: &Browser,
    path: &str,
    fields: &[(&str, &str)],
) -> (u16, String) {
    submit_from(app, browser, "/keys", path, fields).await
}

/// [`submit`] with the CSRF token of the page at `form_page` (for a user who may not reach
/// `/keys`, such as one who must set up two-step sign-in first). A destructive action's form
/// is sent as its confirmation page sends it (`confirmed=1`); that page itself is tested in
/// `console/forms.rs`.
pub async fn submit_from(
    app: &TestApp,
    browser: &Browser,
    form_page: &str,
    path: &str,
    fields: &[(&str, &str)],
) -> (u16, String) {
    let csrf = hidden(&page(app, browser, form_page).await, "csrf");
    let mut form = vec![("csrf", csrf.as_str()), ("confirmed", "1")];
    form.extend_from_slice(fields);
    post_form(app, browser, path, &form).await
}

/// Posts `form` to `path` as the signed-in browser, reading no page: the answer's status and
/// where it sends the browser (`""` when nowhere).
pub async fn post_form(
    app: &TestApp,
    browser: &Browser,
    path: &str,
    form: &[(&str, &str)],
) -> (u16, String) {
    let (client, cookie) = browser;
    let answer = client
        .post(format!("{}{path}", app.base_url))
        .header("cookie", cookie)
        .form(form)
        .send()
        .await
        .unwrap();
    let location = answer
        .headers()
        .get("location")
        .map(|at| at.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (answer.status().as_u16(), location)
}

/// Invites `email` as `role` with the team page's form: the answer's status and where it sends
/// the browser.
pub async fn invite(app: &TestApp, browser: &Browser, email: &str, role: &str) -> (u16, String) {
    let fields = [("email", email), ("role", role)];
    submit(app, browser, "/settings/team/invitations", &fields).await
}

/// The link of the new invitation the team page shows (once, after the invitation was made).
pub async fn shown_invitation_link(app: &TestApp, browser: &Browser) -> String {
    let team = page(app, browser, "/settings/team").await;
    team.split("href=\"/invitations/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(|token| format!("/invitations/{token}"))
        .unwrap_or_else(|| panic!("the new invitation's link is shown: {team}"))
}

/// A visitor with the invitation `link` and no session opens its join form (which answers
/// `200`) and joins with a password: the form's page, then the answer's status and where it
/// sends the visitor.
pub async fn join_by_link(app: &TestApp, link: &str) -> (String, (u16, String)) {
    let visitor = browser_client();
    let url = format!("{}{link}", app.base_url);
    let form_page = visitor.get(&url).send().await.unwrap();
    assert_eq!(form_page.status(), 200);
    let cookie = first_cookie(&form_page);
    let form = form_page.text().await.unwrap();
    let csrf = hidden(&form, "csrf");
    let answer = visitor
        .post(&url)
        .header("cookie", &cookie)
        .form(&[("csrf", csrf.as_str()), ("password", "a good password")])
        .send()
        .await
        .unwrap();
    let location = answer.headers()["location"].to_str().unwrap().to_owned();
    (form, (answer.status().as_u16(), location))
}
