# Multi-stage build: compile in the Rust image, run in a slim Debian with only the binary and web/.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p fugitive-server

FROM debian:bookworm-slim
# curl: the compose file's health check asks the server's /readyz.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app fugitive \
    && mkdir -p /app/data && chown fugitive /app/data
COPY --from=build /src/target/release/fugitive-server /usr/local/bin/fugitive-server
COPY web /app/web
# The puzzles of bot games (`fugitive-sim --puzzles`), loaded at start-up (issue 26).
COPY puzzles /app/puzzles
WORKDIR /app
ENV FUGITIVE_ADDR=0.0.0.0:8080 \
    FUGITIVE_WEB_DIR=/app/web \
    FUGITIVE_PUZZLES=/app/puzzles/puzzles.jsonl \
    DATABASE_URL=sqlite:///app/data/fugitive.db
USER fugitive
EXPOSE 8080
CMD ["fugitive-server"]
