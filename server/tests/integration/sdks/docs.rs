//! `docs/api.md` shows every example three ways: each `curl` call of the API is followed by
//! the same call with the Python SDK and with the TypeScript SDK, and those type-check
//! (`mypy --strict`, `tsc --strict --noUncheckedIndexedAccess`) against the SDKs as they are.

use std::path::Path;
use std::process::Command;

use super::{python_bin, sdk_dir, typescript_modules};
use crate::common::scratch_dir;
use crate::common::tools::run;

/// A fenced block of the document: its language, its first line's number, and its text.
struct Block {
    language: String,
    line: usize,
    text: String,
}

fn blocks(document: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<Block> = None;
    for (at, line) in document.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(language)) => {
                open = Some(Block {
                    language: language.trim().to_owned(),
                    line: at + 1,
                    text: String::new(),
                })
            }
            (Some(_), Some("")) => found.push(open.take().unwrap()),
            (Some(block), _) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    found
}

const PYTHON_PREAMBLE: &str = r#"# Every SDK example of docs/api.md, each in a function of its own.
from __future__ import annotations

import kaadxpay

KEY = "sk_test_x"
BASE = "http://127.0.0.1:3000"
client = kaadxpay.Kaadxpay(KEY, base_url=BASE)
raw_body = b"{}"
request_headers: dict[str, str] = {}
endpoint_secret = previous_secret = "whsec_x"
"#;

const TYPESCRIPT_PREAMBLE: &str = r#"// Every SDK example of docs/api.md, each in a function of its own.
import {
  AmountExceedsRefundableError,
  InsufficientFundsError,
  InvalidStateTransitionError,
  Kaadxpay,
  SignatureVerificationError,
  type WebhookEvent,
} from "kaadxpay";

declare const KEY: string;
declare const BASE: string;
declare const rawBody: Uint8Array;
declare const request: { headers: Record<string, string> };
declare const endpointSecret: string;
declare const previousSecret: string;
declare function reply(status: number): void;
const client = new Kaadxpay(KEY, { baseUrl: BASE });
"#;

fn indented(text: &str) -> String {
    text.lines()
        .filter(|line| !line.starts_with("import {") && !line.starts_with("import type"))
        .map(|line| format!("    {line}\n"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_api_example_is_shown_with_both_sdks_and_type_checks() {
    let document_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/api.md");
    let document = std::fs::read_to_string(&document_path).unwrap();
    let blocks = blocks(&document);
    let mut missing = Vec::new();
    for (at, block) in blocks.iter().enumerate() {
        if block.language == "sh" && block.text.contains("$BASE/v1") {
            let next: Vec<&str> = blocks[at + 1..]
                .iter()
                .take(2)
                .map(|b| b.language.as_str())
                .collect();
            if next != ["python", "ts"] {
                missing.push(format!(
                    "docs/api.md:{}: a curl example followed by {next:?}, not python and ts",
                    block.line
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));

    let mut python = PYTHON_PREAMBLE.to_owned();
    let mut typescript = TYPESCRIPT_PREAMBLE.to_owned();
    let mut shown = 0;
    for block in &blocks {
        let uses_sdk = block.text.contains("client") || block.text.contains("Kaadxpay");
        match block.language.as_str() {
            "python" if uses_sdk => {
                python.push_str(&format!(
                    "\n\ndef example_line_{}() -> None:\n{}",
                    block.line,
                    indented(&block.text)
                ));
                shown += 1;
            }
            "ts" if uses_sdk => typescript.push_str(&format!(
                "\nexport async function exampleLine{}(): Promise<void> {{\n{}}}\n",
                block.line,
                indented(&block.text)
            )),
            _ => {}
        }
    }
    assert!(shown >= 12, "only {shown} Python examples use the SDK");

    let bin = tokio::task::spawn_blocking(|| {
        typescript_modules();
        python_bin()
    })
    .await
    .unwrap();
    let work = scratch_dir();
    std::fs::write(work.join("api_examples.py"), python).unwrap();
    // Inside the package's folder, so that "kaadxpay" resolves to it (a self-reference).
    let ts_dir = sdk_dir().join("typescript/dist-examples/docs");
    std::fs::create_dir_all(&ts_dir).unwrap();
    std::fs::write(ts_dir.join("api-examples.ts"), typescript).unwrap();
    let tsconfig = serde_json::json!({
        "extends": "../../examples/tsconfig.mistakes.json",
        "compilerOptions": {"rootDir": "."},
        "files": ["api-examples.ts"],
    });
    std::fs::write(ts_dir.join("tsconfig.json"), tsconfig.to_string()).unwrap();
    tokio::task::spawn_blocking(move || {
        run(
            Command::new(bin.join("mypy"))
                .args(["--strict", "--no-incremental", "api_examples.py"])
                .env("MYPYPATH", sdk_dir().join("python/src"))
                .current_dir(&work),
            "mypy --strict on docs/api.md's Python examples",
        );
        run(
            Command::new("npx")
                .args(["--no-install", "tsc", "-p", "dist-examples/docs"])
                .current_dir(sdk_dir().join("typescript")),
            "tsc --strict on docs/api.md's TypeScript examples",
        );
        std::fs::remove_dir_all(&work).ok();
    })
    .await
    .unwrap();
}
