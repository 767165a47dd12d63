//! Mail out through the SMTP server of `KAADXPAY_SMTP_URL` (lettre, on tokio, STARTTLS or TLS by
//! rustls as the URL says): plain-text messages, each sent once, with a bounded wait.

use std::time::Duration;

use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// How long a message may take to be accepted before the sender is told it failed.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl Mailer {
    /// A mailer for `smtp_url` (`smtp://user:password@host:587?tls=required`, `smtps://…`, or
    /// `smtp://host:25` without TLS) sending as `from` (`Name <address>`).
    pub fn new(smtp_url: &str, from: &str) -> anyhow::Result<Self> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url)
            .map_err(|error| anyhow::anyhow!("KAADXPAY_SMTP_URL: {error}"))?
            .timeout(Some(SEND_TIMEOUT))
            .build();
        let from = from
            .parse()
            .map_err(|error| anyhow::anyhow!("KAADXPAY_MAIL_FROM ({from}): {error}"))?;
        Ok(Self { transport, from })
    }

    /// Sends `text` to `to` under `subject`; `Err` when the server did not accept it.
    pub async fn send(&self, to: &str, subject: &str, text: String) -> anyhow::Result<()> {
        let message = Message::builder()
            .from(self.from.clone())
            .to(to.parse()?)
            .subject(subject)
            .body(text)?;
        self.transport.send(message).await?;
        Ok(())
    }
}
