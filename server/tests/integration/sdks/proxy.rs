//! The conformance suite's fault proxy: an HTTP/1.1 proxy between a client and `kaadxpay
//! serve` that treats each attempt of a call by a script (lose its answer, cut it short, answer
//! `503` or a bare `502` itself) and records every attempt: when it came, its
//! `Idempotency-Key`, what the server answered, and when the proxy was done with it.
//!
//! A call is named by its URL: `{proxy}/{language}/{case}/v1/...` goes to `/v1/...` on the
//! case's server as attempt n of (`language`, `case`), treated by the case's n-th fault (and
//! forwarded once the script runs out). One request per connection (`Connection: close`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy does with one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Forwarded, and its answer passed back.
    Forward,
    /// Forwarded and the server's whole answer read, then the connection closed without a
    /// byte back: the effect happened, the client never hears of it.
    LoseAnswer,
    /// Forwarded, and the connection closed [`CUT_AFTER`] later while the server still works.
    Cut,
    /// Not forwarded: `503 service_unavailable` with `Retry-After: 1` and
    /// `Kaadxpay-Should-Retry: true`, as the service sheds load.
    Unavailable,
    /// Not forwarded: a bare `502` with no `Kaadxpay-Should-Retry`, as a load balancer sends.
    BadGateway,
    /// Not forwarded: `409 idempotency_request_in_progress` with `Retry-After: 2`, as the
    /// server answers while another attempt holds the key.
    InProgress,
    /// Not forwarded: the same `409`, but `Kaadxpay-Should-Retry: false`: the header decides.
    InProgressFinal,
}

impl Fault {
    pub fn named(name: &str) -> Self {
        match name {
            "forward" => Self::Forward,
            "lose_answer" => Self::LoseAnswer,
            "cut" => Self::Cut,
            "unavailable" => Self::Unavailable,
            "bad_gateway" => Self::BadGateway,
            "in_progress" => Self::InProgress,
            "in_progress_final" => Self::InProgressFinal,
            other => panic!("cases.json names an unknown fault {other:?}"),
        }
    }
}

/// How long a [`Fault::Cut`] attempt is left running before its connection is closed.
pub const CUT_AFTER: Duration = Duration::from_millis(700);

/// One attempt, as the proxy saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub arrived: Instant,
    /// When the proxy answered or closed the connection.
    pub finished: Option<Instant>,
    pub idempotency_key: Option<String>,
    /// The server's status, when the attempt was forwarded (and the server answered).
    pub status: Option<u16>,
}

/// A case's route: its faults in turn, and the server it goes to.
#[derive(Debug, Clone)]
pub struct Route {
    pub faults: Vec<Fault>,
    pub upstream: String,
}

type Log = Arc<Mutex<HashMap<(String, String), Vec<Seen>>>>;

pub struct FaultProxy {
    pub url: String,
    log: Log,
}

struct Shared {
    /// By (language, case).
    routes: HashMap<(String, String), Route>,
    log: Log,
    http: reqwest::Client,
}

impl FaultProxy {
    /// Listens on a free port; `routes` by (language, case).
    pub async fn start(routes: HashMap<(String, String), Route>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let log: Log = Arc::default();
        let shared = Arc::new(Shared {
            routes,
            log: log.clone(),
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
        });
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, shared.clone()));
            }
        });
        Self { url, log }
    }

    /// The attempts of `case` by `language`, in the order they came.
    pub fn attempts(&self, language: &str, case: &str) -> Vec<Seen> {
        let key = (language.to_owned(), case.to_owned());
        self.log
            .lock()
            .unwrap()
            .get(&key)
            .cloned()
            .unwrap_or_default()
    }
}

/// A request as it came: method, path, headers and body.
struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

async fn read_request(stream: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    stream.read_line(&mut line).await.ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        stream.read_line(&mut line).await.ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

/// The server's answer: status, headers and body.
type Answered = (u16, Vec<(String, String)>, Vec<u8>);

async fn forward(
    http: &reqwest::Client,
    upstream: &str,
    path: &str,
    request: &Request,
) -> Option<Answered> {
    let method = reqwest::Method::from_bytes(request.method.as_bytes()).unwrap();
    let mut sent = http.request(method, format!("{upstream}{path}"));
    for (name, value) in &request.headers {
        if !matches!(
            name.as_str(),
            "host" | "connection" | "content-length" | "transfer-encoding" | "keep-alive"
        ) {
            sent = sent.header(name, value);
        }
    }
    let answer = sent.body(request.body.clone()).send().await.ok()?;
    let status = answer.status().as_u16();
    let headers = answer
        .headers()
        .iter()
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_owned(), value)
        })
        .collect();
    let body = answer.bytes().await.ok()?.to_vec();
    Some((status, headers, body))
}

async fn write_answer(stream: &mut BufReader<TcpStream>, (status, headers, body): &Answered) {
    let mut head = format!("HTTP/1.1 {status} \r\n");
    for (name, value) in headers {
        if !matches!(
            name.as_str(),
            "connection" | "content-length" | "transfer-encoding" | "keep-alive"
        ) {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    head.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    ));
    let stream = stream.get_mut();
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body).await;
    let _ = stream.flush().await;
}

fn made_here(status: u16, extra: &[(&str, &str)], body: &str) -> Answered {
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    headers.extend(extra.iter().map(|(n, v)| (n.to_string(), v.to_string())));
    (status, headers, body.as_bytes().to_vec())
}

async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let mut stream = BufReader::new(stream);
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    let arrived = Instant::now();
    let mut segments = request.path.splitn(4, '/').skip(1);
    let (Some(language), Some(case), Some(rest)) =
        (segments.next(), segments.next(), segments.next())
    else {
        return;
    };
    let id = (language.to_owned(), case.to_owned());
    let path = format!("/{rest}");
    let Some(route) = shared.routes.get(&id).cloned() else {
        write_answer(&mut stream, &made_here(404, &[], "{}")).await;
        return;
    };
    let key = request
        .headers
        .iter()
        .find(|(name, _)| name == "idempotency-key")
        .map(|(_, value)| value.clone());
    let at = {
        let mut log = shared.log.lock().unwrap();
        let attempts = log.entry(id.clone()).or_default();
        attempts.push(Seen {
            arrived,
            finished: None,
            idempotency_key: key,
            status: None,
        });
        attempts.len() - 1
    };
    let note = |status: Option<u16>, finished: Option<Instant>| {
        let mut log = shared.log.lock().unwrap();
        let seen = &mut log.get_mut(&id).unwrap()[at];
        seen.status = status.or(seen.status);
        seen.finished = finished.or(seen.finished);
    };
    let fault = route.faults.get(at).copied().unwrap_or(Fault::Forward);
    match fault {
        Fault::Forward | Fault::LoseAnswer => {
            let answer = forward(&shared.http, &route.upstream, &path, &request).await;
            if let (Fault::Forward, Some(answer)) = (fault, &answer) {
                write_answer(&mut stream, answer).await;
            }
            note(answer.map(|(status, ..)| status), Some(Instant::now()));
        }
        Fault::Cut => {
            let (shared, upstream) = (shared.clone(), route.upstream.clone());
            let id = id.clone();
            tokio::spawn(async move {
                let answer = forward(&shared.http, &upstream, &path, &request).await;
                let mut log = shared.log.lock().unwrap();
                log.get_mut(&id).unwrap()[at].status = answer.map(|(status, ..)| status);
            });
            tokio::time::sleep(CUT_AFTER).await;
            note(None, Some(Instant::now()));
        }
        Fault::Unavailable => {
            let body = r#"{"error": {"code": "service_unavailable", "message": "The service is overloaded; retry after the time Retry-After gives."}}"#;
            let extra = [("retry-after", "1"), ("kaadxpay-should-retry", "true")];
            write_answer(&mut stream, &made_here(503, &extra, body)).await;
            note(None, Some(Instant::now()));
        }
        Fault::BadGateway => {
            write_answer(&mut stream, &made_here(502, &[], "")).await;
            note(None, Some(Instant::now()));
        }
        Fault::InProgress | Fault::InProgressFinal => {
            let body = r#"{"error": {"code": "idempotency_request_in_progress", "message": "A request with this Idempotency-Key is still being processed; retry after the time Retry-After gives."}}"#;
            let verdict = if fault == Fault::InProgress {
                "true"
            } else {
                "false"
            };
            let extra = [("retry-after", "2"), ("kaadxpay-should-retry", verdict)];
            write_answer(&mut stream, &made_here(409, &extra, body)).await;
            note(None, Some(Instant::now()));
        }
    }
    // Dropping the stream closes the connection.
}
