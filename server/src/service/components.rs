//! Each component's settings, built from the flags (`config`), which know no component: the one
//! place that knows both, used by start-up and the one-shot commands. A component's own rules
//! about its values (a retention no shorter than the sign-in throttle, say) stay with it, and
//! [`problems`] gathers them with the flags' own.

use crate::edge::client::TrustedProxies;
use crate::history::retention::Retention;
use crate::platform::mail::Mailer;
use crate::platform::sealing::{NotAKey, Sealer, SecretsKey};
use crate::request_log;
use crate::service::config::{Settings, Switch, WEBHOOK_TIMEOUT};
use crate::service::state::InvitationMail;
use crate::webhooks::dispatcher::DispatcherSettings;
use crate::webhooks::schedule::RetrySchedule;
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner::TEST_WEBHOOK_SECRET;

/// Every value that cannot work, one sentence each naming its variable; empty when all is well.
pub fn problems(settings: &Settings) -> Vec<String> {
    let mut problems = settings.problems();
    problems.extend(retention(settings).problems());
    problems.extend(request_log(settings).problems());
    if let Some(Err(not_a_key)) = secrets_key(settings) {
        problems.push(format!("{not_a_key}."));
    }
    if let Err(not_cidrs) = trusted_proxies(settings) {
        problems.push(format!("KAADXPAY_TRUSTED_PROXIES: {not_cidrs}."));
    }
    problems
}

/// The proxies whose `X-Forwarded-For` names the client; none when unset.
pub fn trusted_proxies(settings: &Settings) -> Result<TrustedProxies, String> {
    settings
        .trusted_proxies
        .as_deref()
        .map_or_else(|| Ok(TrustedProxies::default()), TrustedProxies::parse)
}

/// The key secrets are sealed with, if one is set: read, or why it cannot be.
pub fn secrets_key(settings: &Settings) -> Option<Result<SecretsKey, NotAKey>> {
    settings
        .secrets_key
        .as_ref()
        .map(|text| SecretsKey::from_hex(&text.0))
}

pub fn retention(settings: &Settings) -> Retention {
    let flags = &settings.retention;
    Retention {
        events: flags.events,
        webhook_attempts: flags.webhook_attempts,
        partner_events: flags.partner_events,
        partner_calls: flags.partner_calls,
        login_failures: flags.login_failures,
        outcome_counts: flags.outcome_counts,
        audit: flags.audit,
    }
}

pub fn request_log(settings: &Settings) -> request_log::Settings {
    let flags = &settings.request_log;
    request_log::Settings {
        enabled: flags.switch == Switch::On,
        retention: flags.retention,
        buffer: flags.buffer,
    }
}

pub fn dispatcher(settings: &Settings) -> anyhow::Result<DispatcherSettings> {
    Ok(DispatcherSettings {
        retry_schedule: RetrySchedule::new(settings.webhook_retry_schedule.clone()),
        lease: settings.webhook_lease,
        send_timeout: WEBHOOK_TIMEOUT,
        allow_private_networks: settings.webhook_allow_private_networks,
        sealer: sealer(settings)?,
    })
}

/// The invitations' mail, when `KAADXPAY_SMTP_URL` is set (`serve_problems` makes sure the
/// public URL is too).
pub fn invitation_mail(settings: &Settings) -> anyhow::Result<Option<InvitationMail>> {
    let (Some(smtp_url), Some(public_url)) = (&settings.smtp_url, &settings.public_url) else {
        return Ok(None);
    };
    Ok(Some(InvitationMail {
        mailer: Mailer::new(smtp_url, &settings.mail_from)?,
        public_url: public_url.trim_end_matches('/').to_owned(),
    }))
}

pub fn partner_client(settings: &Settings, partner_url: &str) -> PartnerClient {
    PartnerClient::new(partner_url, settings.partner_timeout)
}

/// The secret partner webhooks must be signed with: the configured one, or the simulator's
/// test secret when the simulator runs in-process (no partner URL).
pub fn partner_webhook_secret(settings: &Settings) -> anyhow::Result<&str> {
    match (&settings.partner_webhook_secret, &settings.partner_url) {
        (Some(secret), _) => Ok(secret),
        (None, None) => Ok(TEST_WEBHOOK_SECRET),
        (None, Some(_)) => {
            anyhow::bail!(
                "KAADXPAY_PARTNER_WEBHOOK_SECRET must be set when KAADXPAY_PARTNER_URL is"
            )
        }
    }
}

/// What seals secrets at rest, under the configured key (the embedded mode's `serve` sets it
/// from its key file before start-up).
pub fn sealer(settings: &Settings) -> anyhow::Result<Sealer> {
    match secrets_key(settings) {
        Some(key) => Ok(Sealer::new(&key?)),
        None => anyhow::bail!(
            "KAADXPAY_SECRETS_KEY must be set: it seals two-step sign-in and webhook endpoint secrets at rest"
        ),
    }
}

/// Our funding account at the partner, as the settings name it.
pub fn funding_details(settings: &Settings) -> crate::payments::top_ups::FundingDetails {
    crate::payments::top_ups::FundingDetails {
        iban: settings.funding_iban.clone(),
        account_holder: settings.funding_account_holder.clone(),
    }
}
