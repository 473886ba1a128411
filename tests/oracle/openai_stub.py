"""A stand-in for an OpenAI-compatible chat-completions API (no model: no
real one is reachable offline), for crates/repoqa-cli/tests/it/llm_describe.rs.

    python openai_stub.py --key sk-test --model stub-model [--fail NAME=KIND ...]

Prints "PORT <n>" on its first stdout line, then serves on 127.0.0.1:<n>
until its stdin closes (the test holds it open) or it is killed.

POST /v1/chat/completions answers like the real API (and POST /v1/messages
alike in Anthropic's format: the key in `x-api-key`, the system message
in "system", the text in "content"[0]):
- 401 with an OpenAI error body unless `Authorization: Bearer <key>`;
- 404 unless "model" is the given one;
- otherwise a four-point description built from the code in the user
  message (its language, line and character counts), so the test can
  predict every description;
- for a function named in --fail NAME=KIND (its `def NAME(` is in the
  code): KIND 500 (server error), 429 (rate limit, Retry-After: 7),
  badjson (a 200 whose body is HTML) or nopoints (a reply without points).
GET /stats returns {"requests": <POSTs so far>, "models": [...], "roles": [...]}.
"""

import argparse
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CODE = re.compile(r"```(\w+)\n(.*?)\n```", re.S)


def description(lang, code):
    lines = code.count("\n") + 1
    chars = len(code)
    return (
        f"1. **Purpose**: Stub description of a {lang} function of {lines} lines and {chars} characters.\n"
        "2. **Input**: Whatever its parameters are.\n"
        "3. **Output**: Whatever it returns.\n"
        f"4. **Procedure**: Runs its {lines} lines in order."
    )


class State:
    def __init__(self, key, model, fails, cors=False):
        self.cors = cors
        self.key = key
        self.model = model
        self.fails = fails
        self.requests = 0
        self.models = []
        self.roles = []
        self.lock = threading.Lock()


def make_handler(state):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, body, ctype="application/json", headers=()):
            data = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            self.cors_headers()
            self.end_headers()
            self.wfile.write(data)

        def cors_headers(self):
            # With --cors, a page on another origin may call it, as with
            # servers started with CORS allowed (vLLM, Ollama, LiteLLM…).
            if state.cors:
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header(
                    "Access-Control-Allow-Headers",
                    "authorization, content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access",
                )
                self.send_header("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
                self.send_header("Access-Control-Expose-Headers", "retry-after")

        def do_OPTIONS(self):
            self.send_response(204 if state.cors else 405)
            self.cors_headers()
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self):
            if self.path == "/stats":
                with state.lock:
                    self.send(200, {"requests": state.requests, "models": state.models, "roles": state.roles})
            else:
                self.send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            with state.lock:
                state.requests += 1
            anthropic = self.path == "/v1/messages"
            if self.path != "/v1/chat/completions" and not anthropic:
                return self.send(404, {"error": {"message": f"no route {self.path}"}})
            given = self.headers.get("x-api-key") if anthropic else self.headers.get("Authorization")
            if given != (state.key if anthropic else f"Bearer {state.key}"):
                return self.send(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
            try:
                req = json.loads(raw)
            except ValueError:
                return self.send(400, {"error": {"message": "body is not JSON"}})
            with state.lock:
                state.models.append(req.get("model"))
                roles = [m.get("role") for m in req.get("messages", [])]
                state.roles.append((["system"] if "system" in req else []) + roles)
            if req.get("model") != state.model:
                return self.send(404, {"error": {"message": f"The model `{req.get('model')}` does not exist"}})
            user = [m["content"] for m in req.get("messages", []) if m.get("role") == "user"]
            found = CODE.search(user[-1]) if user else None
            if not found:
                return self.send(400, {"error": {"message": "no code block in the user message"}})
            lang, code = found.group(1), found.group(2)
            for name, kind in state.fails.items():
                if re.search(r"\b(def|fn|func|function)\s+" + re.escape(name) + r"\s*[(<]", code):
                    if kind == "500":
                        return self.send(500, {"error": {"message": "stub: internal error"}})
                    if kind == "429":
                        return self.send(429, {"error": {"message": "stub: rate limit reached"}}, headers=[("Retry-After", "7")])
                    if kind == "badjson":
                        return self.send(200, "<html><body>Bad gateway page</body></html>", ctype="text/html")
                    if kind == "nopoints":
                        return self.send(200, reply("I would rather not describe this function."))
            text = "Here is the description:\n\n" + description(lang, code) + "\n"
            if anthropic:
                return self.send(200, {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "model": state.model})
            return self.send(200, reply(text))

    return Handler


def reply(content):
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--key", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--fail", action="append", default=[], help="NAME=500|429|badjson|nopoints")
    ap.add_argument("--cors", action="store_true", help="allow requests from web pages of any origin")
    args = ap.parse_args()
    fails = dict(f.split("=", 1) for f in args.fail)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(State(args.key, args.model, fails, args.cors)))
    print(f"PORT {server.server_address[1]}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Stop when the test closes stdin or exits, so no server outlives it.
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
