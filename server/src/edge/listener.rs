//! The listener: accepts connections and serves them with hyper (HTTP/1.1), under a header read
//! timeout, so a client that does not send a request's headers in time has its connection
//! closed instead of keeping it forever; each request carries its peer's address
//! (`ConnectInfo`, from which `edge::client` resolves the client's). On shutdown it stops accepting and
//! lets the requests in flight finish. (`axum::serve` gives hyper no timer, so no header
//! timeout: hence this loop, which is otherwise what it does.)

use std::future::Future;
use std::net::SocketAddr;
use std::pin::pin;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::ServiceExt;

/// Serves `router` on `listener` until `shutdown` resolves, then waits for the connections'
/// requests in flight.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    header_read_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    // Connections watch `stop` for the shutdown and hold `open` until they end.
    let (stop, stopping) = watch::channel(());
    let (open, all_closed) = watch::channel(());
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors or the like: wait a little rather than spin.
                    tracing::warn!(error = %err, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = router
            .clone()
            .map_request(move |request: hyper::Request<Incoming>| {
                let mut request = request.map(Body::new);
                request
                    .extensions_mut()
                    .insert(ConnectInfo::<SocketAddr>(peer));
                request
            });
        let (mut stopping, open) = (stopping.clone(), open.subscribe());
        tokio::spawn(async move {
            let mut connection = pin!(http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_read_timeout)
                .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)));
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                _ = stopping.changed() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(err) = ended {
                tracing::debug!(error = %err, %peer, "connection ended");
            }
            drop(open);
        });
    }
    drop(listener);
    let _ = stop.send(());
    drop(all_closed);
    open.closed().await;
}
