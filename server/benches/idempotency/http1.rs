//! A lean HTTP/1.1 keep-alive connection for the open loop: it writes a request's bytes as
//! given and reads one answer's status, skipping its headers and body (`Content-Length` or
//! chunked). No per-request allocation beyond the answer's buffer, no task, no pool: one
//! generator core keeps a schedule of thousands of requests a second with it.

use std::time::Duration;

use anyhow::{bail, Context};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One keep-alive connection to `address` (`host:port`), opened on first use and again after
/// a failure or a `Connection: close`.
pub struct Connection {
    address: String,
    stream: Option<TcpStream>,
    /// What was read past the end of the last answer (none with one request in flight, kept
    /// for correctness).
    buffer: Vec<u8>,
}

impl Connection {
    pub fn new(address: &str) -> Self {
        Self {
            address: address.to_owned(),
            stream: None,
            buffer: Vec::with_capacity(4096),
        }
    }

    /// Sends `request` (a whole HTTP/1.1 request) and returns the answer's status, or an error
    /// (the connection is then dropped) after `timeout`.
    pub async fn exchange(&mut self, request: &[u8], timeout: Duration) -> anyhow::Result<u16> {
        let answer = tokio::time::timeout(timeout, self.exchange_unbounded(request)).await;
        match answer {
            Ok(Ok((status, keep_alive))) => {
                if !keep_alive {
                    self.stream = None;
                }
                Ok(status)
            }
            Ok(Err(error)) => {
                self.stream = None;
                Err(error)
            }
            Err(_) => {
                self.stream = None;
                bail!("no answer within {timeout:?}")
            }
        }
    }

    async fn exchange_unbounded(&mut self, request: &[u8]) -> anyhow::Result<(u16, bool)> {
        if self.stream.is_none() {
            let stream = TcpStream::connect(&self.address).await?;
            stream.set_nodelay(true)?;
            self.stream = Some(stream);
            self.buffer.clear();
        }
        let stream = self.stream.as_mut().expect("connected above");
        stream.write_all(request).await?;
        let head_end = loop {
            if let Some(at) = find(&self.buffer, b"\r\n\r\n") {
                break at + 4;
            }
            read_more(stream, &mut self.buffer).await?;
        };
        let head = std::str::from_utf8(&self.buffer[..head_end]).context("a non-UTF-8 head")?;
        let status: u16 = head
            .get(9..12)
            .and_then(|code| code.parse().ok())
            .with_context(|| format!("no status in {head:?}"))?;
        let header = |name: &str| {
            head.split("\r\n").skip(1).find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name).then(|| value.trim())
            })
        };
        let keep_alive = !header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let chunked = header("transfer-encoding").is_some_and(|v| v.contains("chunked"));
        let length: Option<usize> = header("content-length").and_then(|v| v.parse().ok());
        self.buffer.drain(..head_end);
        match (length, chunked) {
            (Some(length), _) => self.skip(length).await?,
            (None, true) => self.skip_chunks().await?,
            (None, false) => {}
        }
        Ok((status, keep_alive))
    }

    /// Reads and drops the next `length` bytes.
    async fn skip(&mut self, length: usize) -> anyhow::Result<()> {
        let stream = self.stream.as_mut().expect("connected");
        while self.buffer.len() < length {
            read_more(stream, &mut self.buffer).await?;
        }
        self.buffer.drain(..length);
        Ok(())
    }

    /// Reads and drops a chunked body, up to its last chunk's blank line.
    async fn skip_chunks(&mut self) -> anyhow::Result<()> {
        loop {
            let line_end = loop {
                if let Some(at) = find(&self.buffer, b"\r\n") {
                    break at;
                }
                let stream = self.stream.as_mut().expect("connected");
                read_more(stream, &mut self.buffer).await?;
            };
            let size = std::str::from_utf8(&self.buffer[..line_end])?;
            let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
                .context("a chunk size")?;
            self.buffer.drain(..line_end + 2);
            // The chunk and its CRLF (after the last, empty chunk: the blank line).
            self.skip(size + 2).await?;
            if size == 0 {
                return Ok(());
            }
        }
    }
}

async fn read_more(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> anyhow::Result<()> {
    let mut chunk = [0_u8; 4096];
    let read = stream.read(&mut chunk).await?;
    if read == 0 {
        bail!("the server closed the connection");
    }
    buffer.extend_from_slice(&chunk[..read]);
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}
