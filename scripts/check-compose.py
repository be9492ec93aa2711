#!/usr/bin/env python3
"""Checks the self-hosting files without a Docker engine (none runs on CI's machine).

1. docker-compose.yml: a `server` built from this Dockerfile and a `db` PostgreSQL service with a
   volume and a health check, the server waiting for the database to be healthy; the server's own
   health check asks its /readyz (the database answers), on the port it listens on, with curl,
   which the Dockerfile installs.
2. Every FUGITIVE_*/DATABASE_URL variable that the compose file or the Dockerfile sets is one the
   server reads (it appears in `fugitive-server --help` as `[env: NAME=…]`).
3. The Dockerfile copies the binary the workspace actually builds, and the web/ folder it serves.
4. The server, started with the compose file's environment (the database host swapped for the
   local PostgreSQL, in a database of its own), comes up and answers /healthz and /readyz.
5. docker-compose.scaled.yml: the same server service, with several replicas, no published
   port, the proxy (Caddy) published instead, its Caddyfile mounted and sending everything to
   every replica of `server` on the port it listens on; the server variables it sets are ones
   the server reads. Three servers started with its environment on one local PostgreSQL
   database all come up, and a room created through one is found through the others.

Usage: python3 scripts/check-compose.py  (needs target/debug/fugitive-server; PostgreSQL at
FUGITIVE_TEST_DATABASE_URL for step 4, which is skipped with a message without it).
"""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "debug", "fugitive-server")


def fail(message):
    print(f"check-compose: FAILED: {message}")
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def compose_services():
    with open(os.path.join(ROOT, "docker-compose.yml")) as f:
        compose = yaml.safe_load(f)
    services = compose.get("services", {})
    server, db = services.get("server"), services.get("db")
    check(server and db, "compose needs services `server` and `db`")
    check(server.get("build") == ".", "server must be built from this repository's Dockerfile")
    check(str(db.get("image", "")).startswith("postgres:"), "db must be a postgres image")
    check("healthcheck" in db, "db needs a health check")
    check(any(":/var/lib/postgresql/data" in v for v in db.get("volumes", [])), "db needs a volume")
    check(server.get("depends_on", {}).get("db", {}).get("condition") == "service_healthy",
          "server must wait for a healthy db")
    check(set(compose.get("volumes", {})) >= {"pgdata"}, "the pgdata volume must be declared")
    health = " ".join(map(str, server.get("healthcheck", {}).get("test", [])))
    port = str(server.get("environment", {}).get("FUGITIVE_ADDR", "")).rsplit(":", 1)[-1]
    check(f"127.0.0.1:{port}/readyz" in health,
          "the server's health check must ask its /readyz on the port it listens on")
    return server, db


def dockerfile_env(server):
    with open(os.path.join(ROOT, "Dockerfile")) as f:
        text = f.read()
    tool = server["healthcheck"]["test"][1]
    check(re.search(rf"apt-get install[^\n]*\b{re.escape(tool)}\b", text),
          f"the server's health check runs {tool}, which the Dockerfile must install")
    env = dict(re.findall(r"(\w+)=(\S+)", " ".join(re.findall(r"^ENV (.*(?:\\\n.*)*)", text, re.M))))
    check("COPY web /app/web" in text, "the Dockerfile must copy web/")
    check("target/release/fugitive-server" in text, "the Dockerfile must copy the fugitive-server binary")
    check("-p fugitive-server" in text, "the Dockerfile must build the fugitive-server package")
    return env


def server_env_names():
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"\[env: (\w+)=", out))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def psql(url, sql):
    subprocess.run(["psql", url, "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                   capture_output=True)


def boot_with_compose_env(server, db):
    admin_url = os.environ.get("FUGITIVE_TEST_DATABASE_URL")
    if not admin_url:
        print("check-compose: skipped booting the server: FUGITIVE_TEST_DATABASE_URL not set")
        return
    name = "fugitive_compose_" + uuid.uuid4().hex[:12]
    psql(admin_url, f"CREATE DATABASE {name}")
    try:
        env = {k: str(v) for k, v in server["environment"].items()}
        # The compose URL names the `db` service; point it at the local server instead.
        compose_url = urllib.parse.urlparse(env["DATABASE_URL"])
        check(compose_url.hostname == "db", "DATABASE_URL must point at the db service")
        check(compose_url.path.lstrip("/") == db["environment"]["POSTGRES_DB"],
              "DATABASE_URL must name the db service's database")
        admin = urllib.parse.urlparse(admin_url)
        env["DATABASE_URL"] = admin._replace(path="/" + name).geturl()
        port = free_port()
        env["FUGITIVE_ADDR"] = f"127.0.0.1:{port}"
        env["FUGITIVE_ALLOWED_ORIGINS"] = re.sub(r"\$\{[^:}]*:-([^}]*)\}", r"\1",
                                                 env["FUGITIVE_ALLOWED_ORIGINS"])
        proc = subprocess.Popen([BIN], env={**os.environ, **env}, cwd=ROOT)
        try:
            for _ in range(100):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                        check(r.status == 200, "/healthz must answer 200")
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
                        check(r.status == 200, "/readyz must answer 200")
                    print("check-compose: server booted with the compose environment on PostgreSQL")
                    return
                except OSError:
                    time.sleep(0.2)
                check(proc.poll() is None, "the server exited with the compose environment")
            fail("the server did not answer /healthz within 20 s")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    finally:
        psql(admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def scaled_services():
    with open(os.path.join(ROOT, "docker-compose.scaled.yml")) as f:
        compose = yaml.safe_load(f)
    services = compose.get("services", {})
    server, db, proxy = services.get("server"), services.get("db"), services.get("proxy")
    check(server and db and proxy, "the scaled compose needs services `server`, `db` and `proxy`")
    check(server.get("build") == ".", "the scaled server must be built from this repository's Dockerfile")
    replicas = server.get("deploy", {}).get("replicas", 1)
    check(isinstance(replicas, int) and replicas >= 2, "the scaled server needs several replicas")
    check("ports" not in server, "replicas cannot share a published port: the proxy publishes it")
    check(str(db.get("image", "")).startswith("postgres:"), "the scaled db must be a postgres image")
    check(any(":/var/lib/postgresql/data" in v for v in db.get("volumes", [])), "the scaled db needs a volume")
    check(server.get("depends_on", {}).get("db", {}).get("condition") == "service_healthy",
          "the scaled server must wait for a healthy db")
    check(str(proxy.get("image", "")).startswith("caddy:"), "the proxy is Caddy")
    check(proxy.get("ports"), "the proxy publishes the port players use")
    mounts = [v for v in proxy.get("volumes", []) if v.endswith(":/etc/caddy/Caddyfile:ro")]
    check(mounts, "the proxy mounts its Caddyfile")
    caddyfile = os.path.join(ROOT, mounts[0].split(":")[0])
    check(os.path.exists(caddyfile), f"{caddyfile} is missing")
    with open(caddyfile) as f:
        caddy = f.read()
    port = str(server.get("environment", {}).get("FUGITIVE_ADDR", "")).rsplit(":", 1)[-1]
    check(re.search(rf"dynamic a server {port}\b", caddy),
          "the Caddyfile must send to every replica of `server` on the port it listens on")
    check("lb_policy round_robin" in caddy, "no sticky sessions: the proxy balances round robin")
    published = str(proxy["ports"][0]).split(":")[-1].strip('"')
    check(f":{published}" in caddy, "Caddy must listen on the port the proxy publishes")
    return server


def boot_scaled(server):
    """Three nodes with the scaled environment on one database: all up, one room seen by all."""
    admin_url = os.environ.get("FUGITIVE_TEST_DATABASE_URL")
    if not admin_url:
        print("check-compose: skipped booting the scaled nodes: FUGITIVE_TEST_DATABASE_URL not set")
        return
    name = "fugitive_scaled_" + uuid.uuid4().hex[:12]
    psql(admin_url, f"CREATE DATABASE {name}")
    procs, ports = [], []
    try:
        env = {k: str(v) for k, v in server["environment"].items()}
        env["DATABASE_URL"] = urllib.parse.urlparse(admin_url)._replace(path="/" + name).geturl()
        env["FUGITIVE_ALLOWED_ORIGINS"] = re.sub(r"\$\{[^:}]*:-([^}]*)\}", r"\1",
                                                 env["FUGITIVE_ALLOWED_ORIGINS"])
        for _ in range(3):
            port = free_port()
            ports.append(port)
            procs.append(subprocess.Popen([BIN], env={**os.environ, **env, "FUGITIVE_ADDR": f"127.0.0.1:{port}"},
                                          cwd=ROOT))
            # One at a time: the first runs the migrations.
            for _ in range(100):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
                        check(r.status == 200, "/readyz must answer 200")
                    break
                except OSError:
                    check(procs[-1].poll() is None, "a scaled node exited")
                    time.sleep(0.2)
            else:
                fail("a scaled node did not answer /readyz within 20 s")
        request = urllib.request.Request(f"http://127.0.0.1:{ports[0]}/api/rooms", data=b"{}",
                                         headers={"content-type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=5) as r:
            room = __import__("json").load(r)["room"]
        for port in ports[1:]:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/rooms/{room}", timeout=5) as r:
                check(r.status == 200, "a room created on one node must be found on the others")
        print("check-compose: three scaled nodes booted on one PostgreSQL database and share its rooms")
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)
        psql(admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def main():
    check(os.path.exists(BIN), f"{BIN} is missing: run `cargo build -p fugitive-server` first")
    server, db = compose_services()
    known = server_env_names()
    for source, names in (("docker-compose.yml", server["environment"]), ("Dockerfile", dockerfile_env(server))):
        for name in names:
            if name.startswith("FUGITIVE_") or name == "DATABASE_URL":
                check(name in known, f"{source} sets {name}, which fugitive-server does not read")
    boot_with_compose_env(server, db)
    scaled = scaled_services()
    for name in scaled["environment"]:
        if name.startswith("FUGITIVE_") or name == "DATABASE_URL":
            check(name in known, f"docker-compose.scaled.yml sets {name}, which fugitive-server does not read")
    boot_scaled(scaled)
    print("check-compose: ok")


if __name__ == "__main__":
    main()
