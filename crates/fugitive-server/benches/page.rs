//! What one request for a file of the web client costs the server (issue 28): the files
//! compressed once at start-up (`web::routes`, brotli 11 and gzip 9 in a release build), beside
//! tower-http's `CompressionLayer` over `ServeDir`, which reads and compresses the file on every
//! request (at its default levels). Each request is a whole response, its body collected.
//!
//! `cargo bench -p fugitive-server --bench page`; the figures are in `BENCHMARKS.md`.

use std::hint::black_box;
use std::path::Path;

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use criterion::{Criterion, criterion_group, criterion_main};
use tower::ServiceExt;
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;

const WEB_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web");

/// One GET of `path` accepting `encoding`; the bytes sent.
async fn fetch(router: &Router, path: &str, encoding: &str) -> usize {
    let request = Request::get(path).header("accept-encoding", encoding).body(Body::empty()).unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), 200, "{path}");
    axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().len()
}

fn requests(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let dir = Path::new(WEB_DIR);
    let precompressed: Router = fugitive_server::web::routes(dir);
    let per_request = Router::new().fallback_service(ServeDir::new(dir)).layer(CompressionLayer::new());
    let mut group = c.benchmark_group("page");
    for (path, file) in [("/app.js", "app.js (3 KiB)"), ("/i18n/en.js", "i18n/en.js (33 KiB)")] {
        for encoding in ["br", "gzip"] {
            for (name, router) in [("precompressed", &precompressed), ("CompressionLayer", &per_request)] {
                let sent = runtime.block_on(fetch(router, path, encoding));
                group.bench_function(format!("{file} {encoding} {name} ({sent} B sent)"), |b| {
                    b.iter(|| runtime.block_on(fetch(black_box(router), path, encoding)))
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, requests);
criterion_main!(benches);
