//! The SDKs' generated parts are what `sdk/regenerate` makes of a live server's
//! `/openapi.json`: a change of the document that the checked-in models and types miss fails
//! here, naming the file to regenerate.

use std::process::Command;

use super::{database_and_merchant, python_bin, sdk_dir, typescript_modules};
use crate::common::tools::run;
use crate::common::{scratch_dir, ServerProcess};

#[tokio::test(flavor = "multi_thread")]
async fn the_generated_parts_are_what_the_live_document_regenerates() {
    let sdk = sdk_dir();
    let bin = tokio::task::spawn_blocking(|| {
        typescript_modules();
        python_bin()
    })
    .await
    .unwrap();
    let (db_url, _) = database_and_merchant("Regeneration").await;
    let server = ServerProcess::start(&db_url, &[]).await;
    let document = reqwest::get(format!("{}/openapi.json", server.base_url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    drop(server);
    let work = scratch_dir();
    std::fs::write(work.join("openapi.json"), document).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    run(
        Command::new(sdk.join("regenerate"))
            .arg(work.join("openapi.json"))
            .arg(work.join("out"))
            .env("PATH", path)
            .env(
                "OPENAPI_TYPESCRIPT",
                sdk.join("typescript/node_modules/.bin/openapi-typescript"),
            ),
        "sdk/regenerate",
    );
    for generated in ["python/src/kaadxpay/models.py", "typescript/src/schema.ts"] {
        let fresh = std::fs::read_to_string(work.join("out").join(generated)).unwrap();
        let checked_in = std::fs::read_to_string(sdk.join(generated)).unwrap();
        assert!(
            fresh == checked_in,
            "sdk/{generated} differs from what sdk/regenerate makes of /openapi.json: regenerate it and commit"
        );
    }
    std::fs::remove_dir_all(&work).ok();
}
