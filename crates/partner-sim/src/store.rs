//! The simulator's durable store: every version of every transfer, and every incoming transfer
//! (money received for us), appended as a JSON line and synced to disk before it is
//! acknowledged, replayed into memory at start (last version wins). A bank's ledger outlives its
//! processes; so does this one.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Mutex;

use anyhow::Context;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use kaadxpay_partner::wire::{IncomingTransfer, Transfer, TransferStatus};

/// One line of the store: a version of a transfer, or an incoming transfer (told apart by their
/// fields, so a store written before incoming transfers existed reads as it did).
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Line {
    Transfer(Transfer),
    Incoming(IncomingTransfer),
}

pub struct Store {
    inner: Mutex<Ledger>,
}

struct Ledger {
    file: File,
    transfers: Vec<Transfer>,
    by_id: HashMap<String, usize>,
    by_key: HashMap<String, usize>,
    incoming: Vec<IncomingTransfer>,
}

impl Store {
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut ledger = Ledger {
            file: OpenOptions::new()
                .create(true)
                .append(true)
                .read(true)
                .open(path)
                .with_context(|| format!("cannot open the partner store {}", path.display()))?,
            transfers: Vec::new(),
            by_id: HashMap::new(),
            by_key: HashMap::new(),
            incoming: Vec::new(),
        };
        for line in BufReader::new(File::open(path)?).lines() {
            let line = line?;
            // A torn last line (the process died mid-write) was never acknowledged.
            match serde_json::from_str::<Line>(&line) {
                Ok(Line::Transfer(transfer)) => ledger.index(transfer),
                Ok(Line::Incoming(incoming)) => ledger.incoming.push(incoming),
                Err(_) => {}
            }
        }
        Ok(Self {
            inner: Mutex::new(ledger),
        })
    }

    pub fn get(&self, id: &str) -> Option<Transfer> {
        let ledger = self.inner.lock().expect("store lock");
        ledger.by_id.get(id).map(|&at| ledger.transfers[at].clone())
    }

    /// Makes the transfer `make` builds durable, unless `once_per_key` and a transfer with its
    /// key exists: then that one is returned. Checked and written under one lock, so concurrent
    /// calls with one key make one transfer. Returns the transfer and whether it is new.
    pub fn create(&self, once_per_key: bool, make: Transfer) -> anyhow::Result<(Transfer, bool)> {
        let mut ledger = self.inner.lock().expect("store lock");
        if once_per_key {
            if let Some(&at) = ledger.by_key.get(&make.idempotency_key) {
                return Ok((ledger.transfers[at].clone(), false));
            }
        }
        ledger.append(&make)?;
        Ok((make, true))
    }

    /// Moves the transfer `id` from `from` to `to` and makes that durable, checked and written
    /// under one lock, so of concurrent moves (a settlement and a release, two reversals) one
    /// wins. Returns the moved transfer, or `None` when it was not in `from` (or is unknown).
    pub fn transition(
        &self,
        id: &str,
        from: TransferStatus,
        to: TransferStatus,
    ) -> anyhow::Result<Option<Transfer>> {
        let mut ledger = self.inner.lock().expect("store lock");
        let Some(&at) = ledger.by_id.get(id) else {
            return Ok(None);
        };
        if ledger.transfers[at].status != from {
            return Ok(None);
        }
        let mut moved = ledger.transfers[at].clone();
        moved.status = to;
        ledger.append(&moved)?;
        Ok(Some(moved))
    }

    /// Every transfer matching `keep`, oldest first.
    pub fn filter(&self, keep: impl Fn(&Transfer) -> bool) -> Vec<Transfer> {
        let ledger = self.inner.lock().expect("store lock");
        ledger
            .transfers
            .iter()
            .filter(|transfer| keep(transfer))
            .cloned()
            .collect()
    }
}

impl Store {
    /// Makes money received for us durable.
    pub fn receive(&self, incoming: IncomingTransfer) -> anyhow::Result<()> {
        let mut ledger = self.inner.lock().expect("store lock");
        ledger.write(&Line::Incoming(incoming.clone()))?;
        ledger.incoming.push(incoming);
        Ok(())
    }

    /// The money received on the days within `margin` days of `date` (every day for `None`),
    /// oldest first.
    pub fn incoming_on(&self, date: Option<NaiveDate>, margin: i64) -> Vec<IncomingTransfer> {
        let ledger = self.inner.lock().expect("store lock");
        ledger
            .incoming
            .iter()
            .filter(|incoming| {
                date.is_none_or(|date| {
                    (incoming.received_at.date_naive() - date).num_days().abs() <= margin
                })
            })
            .cloned()
            .collect()
    }
}

impl Ledger {
    /// Writes `transfer` and syncs it to disk, then indexes it.
    fn append(&mut self, transfer: &Transfer) -> anyhow::Result<()> {
        self.write(&Line::Transfer(transfer.clone()))?;
        self.index(transfer.clone());
        Ok(())
    }

    /// Writes one line and syncs it to disk.
    fn write(&mut self, record: &Line) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.file.sync_data()?;
        Ok(())
    }

    fn index(&mut self, transfer: Transfer) {
        match self.by_id.get(&transfer.id) {
            Some(&at) => self.transfers[at] = transfer,
            None => {
                let at = self.transfers.len();
                self.by_id.insert(transfer.id.clone(), at);
                self.by_key
                    .entry(transfer.idempotency_key.clone())
                    .or_insert(at);
                self.transfers.push(transfer);
            }
        }
    }
}
