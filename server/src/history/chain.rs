//! The audit log's per-merchant hash chains (API.md §11), checked: `kaadxpay audit verify`.
//!
//! The database chains each entry as it is inserted (migration `20261206000200_audit_chain.sql`
//! defines the hash and the content it covers): `hash = SHA-256(previous hash || content)`, the
//! chain's head and start kept in `audit_chains`. [`verify`] walks each chain from its start
//! (the purge moves it past whole days, with the hash of the last entry it deleted) to its head
//! and names the first entry that was changed, removed or inserted.

use futures::TryStreamExt;
use kaadxpay_types::ids::MerchantId;
use sha2::{Digest, Sha256};
use sqlx::PgPool;

/// The first break in one merchant's chain, as a sentence naming the entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    pub merchant_id: String,
    pub message: String,
}

impl std::fmt::Display for Break {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.merchant_id, self.message)
    }
}

/// What a verification saw: how many chains and entries, and each broken chain's first break.
#[derive(Debug, Default)]
pub struct Report {
    pub chains: u64,
    pub entries: u64,
    pub breaks: Vec<Break>,
}

/// Checks every merchant's chain, or `merchant`'s only.
pub async fn verify(pool: &PgPool, merchant: Option<&MerchantId>) -> sqlx::Result<Report> {
    let merchant = merchant.map(MerchantId::as_str);
    let chains = sqlx::query!(
        r#"SELECT m.id AS "merchant_id!", c.seq AS "head_seq?", c.hash AS "head_hash?",
                  c.start_seq AS "start_seq?", c.start_hash AS "start_hash?"
           FROM merchants m LEFT JOIN audit_chains c ON c.merchant_id = m.id
           WHERE ($1::text IS NULL OR m.id = $1) ORDER BY m.id"#,
        merchant,
    )
    .fetch_all(pool)
    .await?;
    let mut report = Report::default();
    for chain in chains {
        let mut walk = Walk::new(
            chain.start_seq.unwrap_or(1),
            chain.start_hash.unwrap_or_else(|| vec![0; 32]),
        );
        let mut entries = sqlx::query!(
            r#"SELECT id, seq, hash, audit_log_content(a, seq) AS "content!"
               FROM audit_log a WHERE merchant_id = $1 ORDER BY seq"#,
            chain.merchant_id,
        )
        .fetch(pool);
        let mut broken = None;
        while let Some(entry) = entries.try_next().await? {
            report.entries += 1;
            if broken.is_none() {
                broken = walk.step(&entry.id, entry.seq, &entry.content, &entry.hash);
            }
        }
        let broken = broken.or_else(|| {
            walk.end(
                chain.head_seq.unwrap_or(0),
                &chain.head_hash.unwrap_or_else(|| vec![0; 32]),
            )
        });
        report.chains += 1;
        if let Some(message) = broken {
            report.breaks.push(Break {
                merchant_id: chain.merchant_id,
                message,
            });
        }
    }
    Ok(report)
}

/// One chain's walk, entry by entry in `seq` order.
struct Walk {
    /// The place the next entry must have.
    expected: i64,
    /// The hash the next entry must chain from.
    previous: Vec<u8>,
    /// The last entry seen, to name where a break is.
    last_id: Option<String>,
}

impl Walk {
    fn new(start_seq: i64, start_hash: Vec<u8>) -> Self {
        Self {
            expected: start_seq,
            previous: start_hash,
            last_id: None,
        }
    }

    /// The entry `id` at place `seq`: the break it shows, if any.
    fn step(&mut self, id: &str, seq: i64, content: &[u8], hash: &[u8]) -> Option<String> {
        if seq < self.expected {
            return Some(format!(
                "entry {seq} ({id}) was inserted: it lies before the chain's start, entry {}",
                self.expected
            ));
        }
        if seq > self.expected {
            return Some(format!(
                "entry {} was removed: {} is followed by entry {seq} ({id})",
                self.expected,
                self.after()
            ));
        }
        let computed = Sha256::new()
            .chain_update(&self.previous)
            .chain_update(content)
            .finalize();
        if computed.as_slice() != hash {
            return Some(format!(
                "entry {seq} ({id}) was changed or inserted: its hash is not the hash of its \
                 content after the previous entry's"
            ));
        }
        self.expected += 1;
        self.previous = hash.to_vec();
        self.last_id = Some(id.to_owned());
        None
    }

    /// The chain ended: the break if its head says it went further (or elsewhere).
    fn end(&self, head_seq: i64, head_hash: &[u8]) -> Option<String> {
        if head_seq >= self.expected {
            return Some(format!(
                "entries {} to {head_seq} were removed: {} is the last one left",
                self.expected,
                self.after()
            ));
        }
        (head_seq != self.expected - 1 || head_hash != self.previous.as_slice()).then(|| {
            format!(
                "the chain's head (entry {head_seq}) is not its last entry, {}",
                self.after()
            )
        })
    }

    /// The entry before the next one, named for a message.
    fn after(&self) -> String {
        match &self.last_id {
            Some(id) => format!("entry {} ({id})", self.expected - 1),
            None => "the chain's start".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(previous: &[u8], content: &[u8]) -> Vec<u8> {
        Sha256::new()
            .chain_update(previous)
            .chain_update(content)
            .finalize()
            .to_vec()
    }

    #[test]
    fn a_whole_chain_from_a_purged_start_verifies_and_each_break_is_named() {
        let start = hash(&[0; 32], b"purged");
        let first = hash(&start, b"a");
        let second = hash(&first, b"b");
        let whole = |walk: &mut Walk| {
            assert_eq!(walk.step("aud_a", 3, b"a", &first), None);
            assert_eq!(walk.step("aud_b", 4, b"b", &second), None);
        };
        let mut walk = Walk::new(3, start.clone());
        whole(&mut walk);
        assert_eq!(walk.end(4, &second), None);

        let changed = Walk::new(3, start.clone()).step("aud_a", 3, b"A", &first);
        assert!(changed.unwrap().contains("entry 3 (aud_a) was changed"));
        let removed = Walk::new(3, start.clone()).step("aud_b", 4, b"b", &second);
        assert!(removed.unwrap().starts_with("entry 3 was removed"));
        let inserted = Walk::new(3, start.clone()).step("aud_x", 2, b"x", &first);
        assert!(inserted.unwrap().contains("(aud_x) was inserted"));
        let mut walk = Walk::new(3, start);
        whole(&mut walk);
        let tail = walk.end(6, &second).unwrap();
        assert_eq!(
            tail,
            "entries 5 to 6 were removed: entry 4 (aud_b) is the last one left"
        );
    }
}
