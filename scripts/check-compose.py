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
5. docker-compose.scaled.yml: several identical server nodes (server-1, server-2…), no
   published port, the proxy (Caddy) published instead, its Caddyfile mounted and sending
   everything to every node on the port it listens on; the server variables it sets are ones
   the server reads. Three servers started with its environment on one local PostgreSQL
   database all come up, and a room created through one is found through the others.
6. deploy/Caddyfile takes a node out of rotation while its /readyz does not answer 200 (an
   active health check: named upstreams, since Caddy checks no upstream it looks up with
   `dynamic`), and gives up on a node that does not answer (a dial and a response-header
   timeout, shorter than the time a request may be retried on another node, and no timeout on
   an upgraded WebSocket). With `caddy` installed: Caddy itself reads the file the same way, and
   run in front of a ready node, a node whose /readyz answers 503 and a frozen node (accepts,
   never answers), it answers every request from the ready one.

Usage: python3 scripts/check-compose.py  (needs target/debug/fugitive-server; PostgreSQL at
FUGITIVE_TEST_DATABASE_URL for steps 4 and 5, and `caddy` for the end of step 6, each skipped
with a message without it).
"""

import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
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
    db, proxy = services.get("db"), services.get("proxy")
    nodes = {name: service for name, service in services.items() if re.fullmatch(r"server-\d+", name)}
    check(nodes and db and proxy, "the scaled compose needs services `server-1`, `server-2`…, `db` and `proxy`")
    check(len(nodes) >= 2, "the scaled compose needs several server nodes")
    server = next(iter(nodes.values()))
    check(all(node == server for node in nodes.values()), "every scaled server node must be the same")
    check(server.get("build") == ".", "the scaled server must be built from this repository's Dockerfile")
    check("ports" not in server, "the nodes cannot share a published port: the proxy publishes it")
    check(str(db.get("image", "")).startswith("postgres:"), "the scaled db must be a postgres image")
    check(any(":/var/lib/postgresql/data" in v for v in db.get("volumes", [])), "the scaled db needs a volume")
    check(server.get("depends_on", {}).get("db", {}).get("condition") == "service_healthy",
          "the scaled server must wait for a healthy db")
    check(str(proxy.get("image", "")).startswith("caddy:"), "the proxy is Caddy")
    check(proxy.get("ports"), "the proxy publishes the port players use")
    check(set(proxy.get("depends_on", [])) >= set(nodes), "the proxy starts with every server node")
    mounts = [v for v in proxy.get("volumes", []) if v.endswith(":/etc/caddy/Caddyfile:ro")]
    check(mounts, "the proxy mounts its Caddyfile")
    caddyfile = os.path.join(ROOT, mounts[0].split(":")[0])
    check(os.path.exists(caddyfile), f"{caddyfile} is missing")
    port = str(server.get("environment", {}).get("FUGITIVE_ADDR", "")).rsplit(":", 1)[-1]
    published = str(proxy["ports"][0]).split(":")[-1].strip('"')
    check_caddyfile(caddyfile, [f"{name}:{port}" for name in nodes], published)
    return server, caddyfile


def caddy_directives(path):
    """The Caddyfile's directives as (enclosing block names, name, arguments), comments out."""
    directives, blocks = [], []
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words == ["}"]:
                check(blocks, f"{path}: a `}}` closes nothing")
                blocks.pop()
                continue
            opens = words[-1] == "{"
            words = words[:-1] if opens else words
            directives.append((tuple(blocks), words[0], words[1:]))
            if opens:
                blocks.append(words[0])
    check(not blocks, f"{path}: a block is not closed")
    return directives


def seconds(duration):
    """A Caddyfile duration (`250ms`, `2s`, `1m`) in seconds."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", duration)
    check(match, f"a duration Caddy reads: {duration}")
    return float(match.group(1)) * {"ms": 0.001, "s": 1, "m": 60}[match.group(2)]


# The server's /readyz answers within this long (http.rs, READY_TIMEOUT): 503 when the
# database does not answer by then.
READY_WITHIN = 2


def check_caddyfile(path, upstreams, published):
    """Step 6, read from the file: every node named, checked actively, given up on in time."""
    directives = caddy_directives(path)
    check(any(name == f":{published}" for _, name, _ in directives), "Caddy must listen on the port the proxy publishes")
    proxy = {name: args for blocks, name, args in directives if blocks[-1:] == ("reverse_proxy",)}
    transport = {name: args for blocks, name, args in directives if blocks[-1:] == ("transport",)}
    check("dynamic" not in proxy,
          "Caddy runs no active health check on dynamic upstreams: name every node with `to`")
    check(sorted(proxy.get("to", [])) == sorted(upstreams),
          f"the Caddyfile must send to every server node on the port it listens on: to {' '.join(upstreams)}")
    check(proxy.get("lb_policy") == ["round_robin"], "no sticky sessions: the proxy balances round robin")
    check(proxy.get("health_uri") == ["/readyz"],
          "a node whose /readyz answers 503 must leave the rotation: health_uri /readyz")
    for name in ("health_interval", "health_timeout", "lb_try_duration", "fail_duration"):
        check(len(proxy.get(name, [])) == 1, f"the Caddyfile must set {name}")
    check(seconds(proxy["health_timeout"][0]) > READY_WITHIN,
          f"health_timeout must let /readyz answer its 503 (within {READY_WITHIN} s)")
    check(proxy.get("transport") == ["http"], "the Caddyfile must set the http transport's timeouts")
    for name in ("dial_timeout", "response_header_timeout"):
        check(len(transport.get(name, [])) == 1, f"a node that does not answer must be given up on: {name}")
    check(seconds(transport["response_header_timeout"][0]) < seconds(proxy["lb_try_duration"][0]),
          "a request given up on (response_header_timeout) must be retried on another node (lb_try_duration)")
    for name in ("read_timeout", "write_timeout", "stream_timeout"):
        check(name not in transport and name not in proxy, f"{name} would cut the long-lived WebSockets")
    check_with_caddy(path, upstreams)


def check_with_caddy(path, upstreams):
    """Step 6 with Caddy itself, when it is installed."""
    caddy = shutil.which("caddy")
    if not caddy:
        print("check-compose: skipped running Caddy: `caddy` is not installed")
        return
    adapted = subprocess.run([caddy, "adapt", "--config", path, "--adapter", "caddyfile"],
                             capture_output=True, text=True)
    check(adapted.returncode == 0, f"Caddy does not read {path}: {adapted.stderr}")
    handlers = [h for server in json.loads(adapted.stdout)["apps"]["http"]["servers"].values()
                for route in server["routes"] for h in route["handle"] if h["handler"] == "reverse_proxy"]
    check(len(handlers) == 1, "the Caddyfile has one reverse proxy")
    handler = handlers[0]
    check(handler["health_checks"]["active"]["uri"] == "/readyz", "Caddy reads no active health check")
    check(sorted(u["dial"] for u in handler["upstreams"]) == sorted(upstreams), "Caddy reads other upstreams")
    check({"dial_timeout", "response_header_timeout"} <= set(handler["transport"]), "Caddy reads no timeouts")
    run_caddy_in_front_of_three_nodes(caddy, path)


class Node(http.server.BaseHTTPRequestHandler):
    """A stand-in server node: /readyz answers `ready` (200 or 503); anything else its name."""

    name, ready, readyz_asked = "", 200, 0

    def do_GET(self):
        if self.path == "/readyz":
            type(self).readyz_asked += 1
            status, body = self.ready, b"ready"
        else:
            status, body = 200, self.name.encode()
        self.send_response(status)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def stand_in(name, ready):
    node = type(name, (Node,), {"name": name, "ready": ready})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), node)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, node


def run_caddy_in_front_of_three_nodes(caddy, path):
    """The Caddyfile's proxy, its nodes swapped for a ready one, one whose /readyz answers 503
    and a frozen one (it accepts connections and never answers): every request is answered by
    the ready one."""
    ready, _ = stand_in("ready", 200)
    unready, unready_node = stand_in("unready", 503)
    frozen = socket.socket()
    frozen.bind(("127.0.0.1", 0))
    frozen.listen(64)
    nodes = [f"127.0.0.1:{s.server_address[1]}" for s in (ready, unready)] + [f"127.0.0.1:{frozen.getsockname()[1]}"]
    port = free_port()
    with open(path) as f:
        text = f.read()
    text, swapped = re.subn(r"(?m)^(\s*)to .*$", lambda m: f"{m.group(1)}to {' '.join(nodes)}", text)
    check(swapped == 1, "one `to` line in the Caddyfile")
    text = re.sub(r"(?m)^:\d+ \{", f":{port} {{", text)
    with tempfile.TemporaryDirectory() as home:
        config = os.path.join(home, "Caddyfile")
        with open(config, "w") as f:
            f.write("{\n\tadmin off\n}\n" + text)
        env = {**os.environ, "HOME": home, "XDG_DATA_HOME": home, "XDG_CONFIG_HOME": home}
        with open(os.path.join(home, "caddy.log"), "w") as log:
            proc = subprocess.Popen([caddy, "run", "--config", config, "--adapter", "caddyfile"],
                                    env=env, stdout=log, stderr=log)
        try:
            for _ in range(200):
                check(proc.poll() is None, "Caddy exited: " + open(os.path.join(home, "caddy.log")).read())
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.1)
            # The second check of the unready node: the first one's 503 has been taken in.
            for _ in range(600):
                if unready_node.readyz_asked >= 2:
                    break
                time.sleep(0.05)
            check(unready_node.readyz_asked >= 2, "Caddy does not ask the nodes' /readyz")
            for _ in range(6):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/who", timeout=30) as r:
                    answer = r.read().decode()
                check(answer == "ready", f"a request went to the {answer or 'frozen'} node")
            print("check-compose: Caddy sends every request to the ready node, none to an unready or a frozen one")
        except OSError as error:
            fail(f"Caddy in front of the three nodes: {error}")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            frozen.close()
            ready.shutdown()
            unready.shutdown()


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
    scaled, _ = scaled_services()
    for name in scaled["environment"]:
        if name.startswith("FUGITIVE_") or name == "DATABASE_URL":
            check(name in known, f"docker-compose.scaled.yml sets {name}, which fugitive-server does not read")
    boot_scaled(scaled)
    print("check-compose: ok")


if __name__ == "__main__":
    main()
