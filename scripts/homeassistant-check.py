#!/usr/bin/env python3
"""Helper for scripts/homeassistant-check.sh.

Sub-commands:
  constraints WHEEL OUT          extract homeassistant/package_constraints.txt from a
                                 downloaded homeassistant wheel (stdlib only)
  requirements                   print the pip requirements of the integrations a
                                 headless HA with MQTT loads (run with the venv python)
  free-port                      print a free TCP port on 127.0.0.1
  run --url ... --config ...     onboard, add the MQTT integration, wait, report JSON
                                 (run with the venv python: needs aiohttp)

Everything it learns goes to stdout as one JSON document (run) or plain text
(other sub-commands); progress and errors go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import sys
import time
import zipfile

MQTT_DOMAIN = "mqtt"
# What the harness itself needs on top of what bootstrap always loads.
HARNESS_INTEGRATIONS = [
    "http",
    "api",
    "websocket_api",
    "config",
    "onboarding",
    "auth",
    "mqtt",
]


def log(msg: str) -> None:
    print(f"[ha-check {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class Failure(Exception):
    pass


# --------------------------------------------------------------------------- install


def cmd_constraints(args: argparse.Namespace) -> int:
    """Write the wheel's constraints to OUT; print a pip --uploaded-prior-to cut-off.

    The cut-off is the wheel's build time (newest zip entry) plus three days: HA only
    pins its direct and core dependencies, and their unpinned dependencies have since
    broken old releases (josepy 2 removed what acme, via hass-nabucasa, imports at
    every HTTP request), so the rest is resolved as it would have been at release.
    """
    import datetime  # noqa: PLC0415

    with zipfile.ZipFile(args.wheel) as zf:
        data = zf.read("homeassistant/package_constraints.txt")
        built = max(info.date_time for info in zf.infolist())
    with open(args.out, "wb") as fh:
        fh.write(data)
    cutoff = datetime.datetime(*built, tzinfo=datetime.timezone.utc) + datetime.timedelta(days=3)
    print(cutoff.strftime("%Y-%m-%dT00:00:00Z"))
    return 0


def cmd_requirements(_args: argparse.Namespace) -> int:
    import homeassistant.bootstrap as bootstrap  # noqa: PLC0415
    import homeassistant.components as components  # noqa: PLC0415

    comp_dir = os.path.dirname(components.__file__)
    wanted: set[str] = set(HARNESS_INTEGRATIONS)
    for name in (
        "CORE_INTEGRATIONS",
        "LOGGING_INTEGRATIONS",
        "FRONTEND_INTEGRATIONS",
        "DEFAULT_INTEGRATIONS",
    ):
        wanted |= set(getattr(bootstrap, name, set()))
    wanted.discard("sentry")  # only loaded when configured
    # every entity platform the MQTT integration may set up
    try:
        from homeassistant.components.mqtt.const import PLATFORMS  # noqa: PLC0415

        wanted |= {str(p) for p in PLATFORMS}
    except Exception as err:  # pragma: no cover - older/newer layouts
        log(f"could not read MQTT platforms: {err}")

    seen: set[str] = set()
    reqs: list[str] = []
    todo = sorted(wanted)
    while todo:
        dom = todo.pop()
        if dom in seen:
            continue
        seen.add(dom)
        path = os.path.join(comp_dir, dom, "manifest.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as fh:
            manifest = json.load(fh)
        for req in manifest.get("requirements", []):
            if req not in reqs:
                reqs.append(req)
        todo.extend(manifest.get("dependencies", []))
    print("\n".join(sorted(reqs, key=str.lower)))
    return 0


def cmd_free_port(_args: argparse.Namespace) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        print(sock.getsockname()[1])
    return 0


# --------------------------------------------------------------------------- run

LOG_RECORD_START = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? (\w+) ")


def log_problems(path: str, mqtt: bool = True) -> list[dict]:
    """ERROR/WARNING/CRITICAL records of home-assistant.log that mention mqtt or
    discovery (mqtt=True) or that do not (mqtt=False: template warnings about a
    value_template, for one, name neither).

    A record is its first line plus the continuation lines (tracebacks) after it.
    """
    if not os.path.exists(path):
        return []
    records: list[list[str]] = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if LOG_RECORD_START.match(line) or not records:
                records.append([line])
            else:
                records[-1].append(line)
    out = []
    for rec in records:
        m = LOG_RECORD_START.match(rec[0])
        if not m or m.group(2) not in ("ERROR", "WARNING", "CRITICAL"):
            continue
        text = "\n".join(rec)
        if bool(re.search(r"mqtt|discovery", text, re.IGNORECASE)) != mqtt:
            continue
        entry = {"level": m.group(2), "line": rec[0]}
        if len(rec) > 1:
            detail = "\n".join(rec[1:])
            entry["detail"] = detail if len(detail) <= 4000 else detail[-4000:]
        out.append(entry)
    return out


def read_birth(path: str | None) -> dict:
    msgs = []
    if path and os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                line = line.rstrip("\n")
                if not line:
                    continue
                # mosquitto_sub -F '%I %t %p'  -> ISO-time topic payload
                parts = line.split(" ", 2)
                if len(parts) == 3:
                    msgs.append({"time": parts[0], "topic": parts[1], "payload": parts[2]})
                else:
                    msgs.append({"raw": line})
    return {
        "topic": "homeassistant/status",
        "online_seen": any(m.get("payload") == "online" for m in msgs),
        "messages": msgs,
    }


def hass_alive(pid: int | None) -> bool:
    if not pid:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie still answers kill(0); look at /proc
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


async def run(args: argparse.Namespace) -> dict:
    import aiohttp  # noqa: PLC0415

    url = args.url.rstrip("/")
    client_id = url + "/"
    timings: dict[str, float] = {}
    t0 = time.monotonic()
    timeout = aiohttp.ClientTimeout(total=30)

    async with aiohttp.ClientSession(timeout=timeout) as session:

        async def request(method, path, *, token=None, ok=(200, 201), **kw):
            headers = kw.pop("headers", {})
            if token:
                headers["Authorization"] = f"Bearer {token}"
            async with session.request(method, url + path, headers=headers, **kw) as resp:
                text = await resp.text()
                try:
                    body = json.loads(text) if text else None
                except ValueError:
                    body = text
                if ok and resp.status not in ok:
                    raise Failure(f"{method} {path} -> HTTP {resp.status}: {text[:500]}")
                return resp.status, body

        # ---- 1. wait for the API
        log(f"waiting up to {args.startup_timeout}s for {url}/api/onboarding")
        deadline = time.monotonic() + args.startup_timeout
        steps = None
        last = "no connection"
        server_errors = 0
        while True:
            if not hass_alive(args.hass_pid):
                raise Failure("hass exited during startup (see the log tail below)")
            try:
                status, body = await request("GET", "/api/onboarding", ok=None)
                if status == 200:
                    steps = body
                    break
                last = f"HTTP {status}: {str(body)[:200]}"
                server_errors = server_errors + 1 if status >= 500 else 0
                if server_errors >= 20:
                    raise Failure(f"HA API keeps failing ({last}); broken install?")
            except (aiohttp.ClientError, OSError, TimeoutError) as err:
                last = f"{type(err).__name__}: {err}"
            if time.monotonic() > deadline:
                raise Failure(
                    f"HA API did not answer within {args.startup_timeout}s (last: {last})"
                )
            await asyncio_sleep(0.5)
        timings["api_up_s"] = round(time.monotonic() - t0, 1)
        log(f"API up after {timings['api_up_s']}s; onboarding steps: {steps}")

        # ---- 2. onboarding
        done = {s["step"]: s["done"] for s in steps}
        if done.get("user"):
            raise Failure("onboarding user step already done in a fresh config dir?")
        _, body = await request(
            "POST",
            "/api/onboarding/users",
            json={
                "client_id": client_id,
                "name": "HA Check",
                "username": "hacheck",
                "password": "hacheck-password",
                "language": "en",
            },
        )
        auth_code = body["auth_code"]
        _, tok = await request(
            "POST",
            "/auth/token",
            data={"grant_type": "authorization_code", "code": auth_code, "client_id": client_id},
        )
        token = tok["access_token"]
        onboarding_log = ["user"]
        # core_config is left undone on purpose: finishing it starts config flows for
        # google_translate, met, radio_browser and shopping_list (which need packages
        # and internet this harness does not have: HTTP 500 on 2024.3). The API,
        # registries and MQTT do not need it.
        for step, payload in (
            ("analytics", {}),
            ("integration", {"client_id": client_id, "redirect_uri": client_id}),
        ):
            if step not in done:
                continue
            status, body = await request(
                "POST", f"/api/onboarding/{step}", token=token, json=payload, ok=None
            )
            if status not in (200, 201):
                raise Failure(f"onboarding step {step}: HTTP {status}: {body}")
            onboarding_log.append(step)
        _, steps = await request("GET", "/api/onboarding")
        left = [s["step"] for s in steps if not s["done"]]
        if set(left) - {"core_config"}:
            raise Failure(f"onboarding steps not done: {steps}")
        timings["onboarded_s"] = round(time.monotonic() - t0, 1)
        log(f"onboarded ({', '.join(onboarding_log)}; left undone: {', '.join(left) or '-'})")

        _, cfg = await request("GET", "/api/config", token=token)
        ha_version = cfg.get("version")

        # ---- 3. MQTT config flow
        _, flow = await request(
            "POST",
            "/api/config/config_entries/flow",
            token=token,
            json={"handler": MQTT_DOMAIN, "show_advanced_options": False},
        )
        flow_steps = []
        entry = None
        for _ in range(8):
            ftype = flow.get("type")
            flow_steps.append(
                {k: flow.get(k) for k in ("type", "step_id", "errors", "reason") if flow.get(k)}
            )
            if ftype == "create_entry":
                entry = flow.get("result")
                break
            if ftype == "abort":
                raise Failure(f"MQTT config flow aborted: {flow.get('reason')}")
            if ftype != "form":
                raise Failure(f"unexpected MQTT config flow result: {flow}")
            if flow.get("errors"):
                raise Failure(
                    f"MQTT config flow step {flow.get('step_id')} refused: {flow['errors']}"
                    f" (is the broker on 127.0.0.1:{args.broker_port} up and anonymous?)"
                )
            fields = {f["name"] for f in flow.get("data_schema", [])}
            answer: dict = {}
            if "broker" in fields:
                answer["broker"] = "127.0.0.1"
            if "port" in fields:
                answer["port"] = args.broker_port
            log(f"config flow step {flow.get('step_id')!r} fields {sorted(fields)} -> {answer}")
            _, flow = await request(
                "POST",
                f"/api/config/config_entries/flow/{flow['flow_id']}",
                token=token,
                json=answer,
            )
        if entry is None:
            raise Failure(f"MQTT config flow did not finish: {flow_steps}")
        entry_id = entry["entry_id"]

        deadline = time.monotonic() + args.entry_timeout
        while True:
            _, entries = await request(
                "GET", "/api/config/config_entries/entry?domain=mqtt", token=token
            )
            this = next((e for e in entries if e["entry_id"] == entry_id), None)
            state = this and this.get("state")
            if state == "loaded":
                break
            if state in ("setup_error", "migration_error", "failed_unload") or (
                time.monotonic() > deadline
            ):
                raise Failure(f"MQTT config entry not loaded: {this}")
            await asyncio_sleep(0.5)
        timings["mqtt_loaded_s"] = round(time.monotonic() - t0, 1)
        log(f"MQTT entry {entry_id} loaded; ready for discovery messages")
        if args.ready_file:
            with open(args.ready_file, "w", encoding="ascii") as fh:
                fh.write(f"{time.time()}\n")

        # ---- 4. wait for discovery
        log(f"waiting {args.seconds}s for discovery messages")
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            if not hass_alive(args.hass_pid):
                raise Failure("hass exited while waiting for discovery messages")
            await asyncio_sleep(min(1.0, max(0.0, end - time.monotonic())))

        # ---- 5. collect
        ws_url = url.replace("http://", "ws://", 1) + "/api/websocket"
        async with session.ws_connect(ws_url, heartbeat=None) as ws:
            msg = await ws.receive_json(timeout=10)
            if msg.get("type") != "auth_required":
                raise Failure(f"websocket: unexpected greeting {msg}")
            await ws.send_json({"type": "auth", "access_token": token})
            msg = await ws.receive_json(timeout=10)
            if msg.get("type") != "auth_ok":
                raise Failure(f"websocket auth failed: {msg}")

            async def ws_call(mid: int, mtype: str):
                await ws.send_json({"id": mid, "type": mtype})
                while True:
                    reply = await ws.receive_json(timeout=20)
                    if reply.get("id") == mid:
                        if not reply.get("success"):
                            raise Failure(f"websocket {mtype} failed: {reply.get('error')}")
                        return reply["result"]

            all_devices = await ws_call(1, "config/device_registry/list")
            all_entities = await ws_call(2, "config/entity_registry/list")
            devices = [d for d in all_devices if entry_id in (d.get("config_entries") or [])]

            # What the MQTT integration holds per device: the discovery payload as it
            # was received and, per subscribed topic, the last messages it got.
            debug_info = {}
            if args.debug_info:
                for num, dev in enumerate(devices, start=100):
                    await ws.send_json(
                        {"id": num, "type": "mqtt/device/debug_info", "device_id": dev["id"]}
                    )
                    while True:
                        reply = await ws.receive_json(timeout=20)
                        if reply.get("id") == num:
                            break
                    debug_info[dev["id"]] = (
                        reply["result"] if reply.get("success") else {"error": reply.get("error")}
                    )

        entities = [e for e in all_entities if e.get("platform") == MQTT_DOMAIN]
        ids = {e["entity_id"] for e in entities}
        registered = {e["entity_id"] for e in all_entities}
        _, all_states = await request("GET", "/api/states", token=token)
        states = [s for s in all_states if s["entity_id"] in ids]
        # Entities without a unique_id never reach the entity registry (nor a
        # device); in this bare HA nearly every other state is zone/person.
        unregistered = [
            s
            for s in all_states
            if s["entity_id"] not in registered
            and s["entity_id"].split(".", 1)[0] not in ("zone", "person", "sun")
        ]
        timings["total_s"] = round(time.monotonic() - t0, 1)

    return {
        "homeassistant_version": ha_version,
        "broker": {"host": "127.0.0.1", "port": args.broker_port},
        "onboarding_steps": onboarding_log,
        "mqtt_config_flow": flow_steps,
        "mqtt_entry": {
            k: this.get(k) for k in ("entry_id", "title", "state", "domain") if k in this
        },
        "birth_message": read_birth(args.birth_file),
        "devices": devices,
        "entities": entities,
        "states": states,
        "states_not_in_registry": unregistered,
        "mqtt_debug_info": debug_info,
        "log": log_problems(args.log),
        "log_other": log_problems(args.log, mqtt=False),
        "timings": timings,
    }


async def asyncio_sleep(sec: float) -> None:
    import asyncio  # noqa: PLC0415

    await asyncio.sleep(sec)


def cmd_run(args: argparse.Namespace) -> int:
    import asyncio  # noqa: PLC0415

    try:
        result = asyncio.run(run(args))
    except Failure as err:
        log(f"ERROR: {err}")
        problems = log_problems(args.log)
        if problems:
            log("mqtt/discovery problems in home-assistant.log:")
            for p in problems[-20:]:
                print("  " + p["line"], file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, indent=2, ensure_ascii=False, sort_keys=False)
    sys.stdout.write("\n")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("constraints")
    p.add_argument("wheel")
    p.add_argument("out")
    p.set_defaults(func=cmd_constraints)

    p = sub.add_parser("requirements")
    p.set_defaults(func=cmd_requirements)

    p = sub.add_parser("free-port")
    p.set_defaults(func=cmd_free_port)

    p = sub.add_parser("run")
    p.add_argument("--url", required=True)
    p.add_argument("--broker-port", type=int, required=True)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--log", required=True, help="path of home-assistant.log")
    p.add_argument("--birth-file")
    p.add_argument("--ready-file", help="touched once the MQTT entry is loaded")
    p.add_argument("--hass-pid", type=int)
    p.add_argument("--startup-timeout", type=float, default=180)
    p.add_argument("--entry-timeout", type=float, default=60)
    p.add_argument(
        "--no-debug-info", dest="debug_info", action="store_false",
        help="skip mqtt/device/debug_info per device",
    )
    p.set_defaults(func=cmd_run)

    args = parser.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
