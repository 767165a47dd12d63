//! Slow clients cannot close the API (API.md §1): a client that sends its headers or its body
//! too slowly is answered `408 request_timeout` or has its connection closed within a bound,
//! and while hundreds of them trickle bytes to the unauthenticated routes (`/login`,
//! `/webhooks/partner`), authenticated `/v1` calls still answer; nor do fast clients flooding
//! those routes take a turn from `/v1`. A real `kaadxpay` process; the slow clients are real
//! sockets opened by hand, each writing one byte at a time.

use crate::common;

use std::time::{Duration, Instant};

use futures::future::join_all;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use common::{database_with_merchant, ServerProcess};

/// The server's read timeouts in this test, and how much later than them an answer may come.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(3);
const BODY_READ_TIMEOUT: Duration = Duration::from_secs(3);
const SLACK: Duration = Duration::from_secs(4);
/// Between two bytes of a slow client: its request would take minutes to arrive.
const TRICKLE: Duration = Duration::from_millis(250);

/// Where a slow client is slow: in its headers, or in a body its headers announced.
#[derive(Clone, Copy, Debug)]
enum Slow {
    Headers,
    Body,
}

/// How a slow connection ended: the server's answer (its first bytes), or a closed connection.
#[derive(Debug)]
struct Ended {
    answer: String,
    after: Duration,
}

/// Opens a connection to `path` and sends its request one byte per [`TRICKLE`] (headers at
/// once and the body slowly, or the headers slowly), until the server answers or closes.
/// Gives up after `give_up`, which counts as never having ended.
async fn trickle(addr: String, path: &'static str, slow: Slow, give_up: Duration) -> Option<Ended> {
    let mut stream = TcpStream::connect(addr.as_str()).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: 4000\r\n\r\n"
    );
    let (slow_part, started) = match slow {
        Slow::Headers => (head.into_bytes(), Instant::now()),
        Slow::Body => {
            stream.write_all(head.as_bytes()).await.unwrap();
            (vec![b'a'; 4000], Instant::now())
        }
    };
    let (mut reader, mut writer) = stream.into_split();
    let writing = async move {
        for byte in slow_part {
            if writer.write_all(&[byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(TRICKLE).await;
        }
        // Everything sent (never, within the test): wait for the answer.
        std::future::pending::<()>().await;
    };
    let reading = async move {
        // Until the server closes (an error too: what was read before it is kept).
        let mut answer = Vec::new();
        let _ = reader.read_to_end(&mut answer).await;
        Ended {
            answer: String::from_utf8_lossy(&answer).into_owned(),
            after: started.elapsed(),
        }
    };
    tokio::time::timeout(give_up, async {
        tokio::select! {
            ended = reading => ended,
            () = writing => unreachable!(),
        }
    })
    .await
    .ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_slow_clients_on_unauthenticated_routes_leave_v1_answering() {
    let (db_url, _pool, merchant) = database_with_merchant("Slow clients").await;
    let server = ServerProcess::start(
        &db_url,
        &[
            (
                "KAADXPAY_HEADER_READ_TIMEOUT",
                &format!("{}s", HEADER_READ_TIMEOUT.as_secs()),
            ),
            (
                "KAADXPAY_BODY_READ_TIMEOUT",
                &format!("{}s", BODY_READ_TIMEOUT.as_secs()),
            ),
        ],
    )
    .await;
    let addr = server.base_url.trim_start_matches("http://").to_owned();
    let give_up = HEADER_READ_TIMEOUT.max(BODY_READ_TIMEOUT) + SLACK;
    let mut slow_clients = Vec::new();
    for n in 0..200 {
        let path = if n % 2 == 0 {
            "/login"
        } else {
            "/webhooks/partner"
        };
        let slow = if n % 5 == 0 {
            Slow::Headers
        } else {
            Slow::Body
        };
        slow_clients.push((
            slow,
            tokio::spawn(trickle(addr.clone(), path, slow, give_up)),
        ));
    }
    // Every slow client is connected and part-way through its request.
    tokio::time::sleep(Duration::from_secs(1)).await;

    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    // Four clients, ten calls each, one after the other: well within what the server admits.
    let calls = (0..4).map(|stream| {
        let (client, base_url, merchant) = (client.clone(), server.base_url.clone(), &merchant);
        async move {
            let mut statuses = Vec::new();
            for n in 0..10 {
                let request = if n % 2 == 0 {
                    client
                        .post(format!("{base_url}/v1/orders"))
                        .header(
                            "idempotency-key",
                            format!("during-the-trickle-{stream}-{n}"),
                        )
                        .body(r#"{"amount": 700, "currency": "GBP"}"#)
                } else {
                    client.get(format!("{base_url}/v1/balance"))
                };
                statuses.push(match request.bearer_auth(&merchant.api_key).send().await {
                    Ok(response) => response.status().as_u16(),
                    Err(_) => 0,
                });
            }
            statuses
        }
    });
    let statuses: Vec<u16> = join_all(calls).await.into_iter().flatten().collect();
    assert!(
        statuses.iter().all(|status| (200..300).contains(status)),
        "every /v1 call answers 2xx while 200 clients trickle (0: no answer in 5 s): {statuses:?}"
    );

    let mut ends = Vec::new();
    for (slow, client) in slow_clients {
        ends.push((slow, client.await.unwrap()));
    }
    let never: Vec<_> = ends.iter().filter(|(_, ended)| ended.is_none()).collect();
    assert!(
        never.is_empty(),
        "{} of 200 slow clients were neither answered nor closed within {give_up:?}",
        never.len()
    );
    for (slow, ended) in ends {
        let Ended { answer, after } = ended.unwrap();
        let bound = match slow {
            Slow::Headers => HEADER_READ_TIMEOUT,
            Slow::Body => BODY_READ_TIMEOUT,
        };
        assert!(
            after >= bound.saturating_sub(Duration::from_millis(500)),
            "a {slow:?} client was cut before its timeout ({after:?}): {answer}"
        );
        match slow {
            // hyper closes a connection whose headers do not arrive in time.
            Slow::Headers => assert!(
                answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
                "{answer}"
            ),
            Slow::Body => {
                assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
                assert!(answer.contains(r#""code":"request_timeout""#), "{answer}");
                assert!(answer.contains("kaadxpay-should-retry: true"), "{answer}");
            }
        }
    }
}

/// A visitor's session cookie and the CSRF token of its login form, so that its sign-ins are
/// checked in full (throttle, and a password hash for the first few).
async fn login_form(client: &reqwest::Client, base_url: &str) -> (String, String) {
    let page = client
        .get(format!("{base_url}/login"))
        .send()
        .await
        .unwrap();
    let cookie = page.headers()["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let html = page.text().await.unwrap();
    let csrf = html.split("name=\"csrf\" value=\"").nth(1).unwrap();
    (cookie, csrf.split('"').next().unwrap().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_of_sign_ins_and_partner_webhooks_takes_no_turn_from_v1() {
    let (db_url, _pool, merchant) = database_with_merchant("Flood").await;
    let server = ServerProcess::start(&db_url, &[]).await;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let (cookie, csrf) = login_form(&client, &server.base_url).await;
    let flooding = Instant::now() + Duration::from_secs(4);
    // Sixty clients, each sending one request after another until the flood ends.
    let flood: Vec<_> = (0..60)
        .map(|n| {
            let (client, base_url) = (client.clone(), server.base_url.clone());
            let (cookie, csrf) = (cookie.clone(), csrf.clone());
            tokio::spawn(async move {
                while Instant::now() < flooding {
                    let request = if n % 2 == 0 {
                        client
                            .post(format!("{base_url}/login"))
                            .header("cookie", &cookie)
                            .form(&[
                                ("csrf", csrf.as_str()),
                                ("email", &format!("guess-{n}@example.com")),
                                ("password", "guess"),
                            ])
                    } else {
                        client
                            .post(format!("{base_url}/webhooks/partner"))
                            .header("partner-signature", "t=1,v1=forged")
                            .body(r#"{"event_id": "evt_flood"}"#)
                    };
                    let _ = request.send().await;
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut statuses = Vec::new();
    for n in 0..40 {
        let request = if n % 2 == 0 {
            client
                .post(format!("{}/v1/orders", server.base_url))
                .header("idempotency-key", format!("during-the-flood-{n}"))
                .body(r#"{"amount": 700, "currency": "GBP"}"#)
        } else {
            client.get(format!("{}/v1/balance", server.base_url))
        };
        statuses.push(match request.bearer_auth(&merchant.api_key).send().await {
            Ok(response) => response.status().as_u16(),
            Err(_) => 0,
        });
    }
    for client in flood {
        client.await.unwrap();
    }
    assert!(
        statuses.iter().all(|status| (200..300).contains(status)),
        "every /v1 call answers 2xx during the flood: {statuses:?}"
    );
}
