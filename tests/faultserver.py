"""A small OpenAI-compatible HTTP server that misbehaves on request, for testing the client for real.

Start it on loopback, script what the next requests get (``server.script(["429", "500", "ok"])``), and read
back what it received. Behaviours: ``ok``, ``429`` (``429:2``: with ``Retry-After: 2``), ``500``, ``503``, ``401``, ``404``, ``timeout`` (answers
after ``slow_s`` seconds), ``malformed`` (200 with a body that is not JSON), ``empty`` (200, no choices), ``null`` (200, content null).
When the script runs out, every request gets ``ok``.

Tokenize endpoints: with ``server.tokenizer = "llama.cpp"`` or ``"vllm"`` it answers that server's tokenize and
detokenize requests (one token per character, its code point; vLLM adds a BOS id 1 unless told not to), else 404.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FaultServer:
    def __init__(self, slow_s: float = 2.0, latency_s: float = 0.0):
        self.slow_s = slow_s
        self.latency_s = latency_s
        self._script: deque[str] = deque()
        self._lock = threading.Lock()
        self.requests: list[dict] = []  # {"path", "body", "auth"}
        self.tokenizer: str | None = None  # a tokenize dialect to speak ("llama.cpp", "vllm"); None: 404
        self.timings = False  # True: answers carry llama.cpp's "timings" (prompt_ms 100, predicted_ms 50)
        self.tokenize_requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                outer._send(self, 200, {"object": "list", "data": [{"id": "fault-model", "object": "model"}]})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if "tokenize" in self.path:  # not a completion: answered apart, never scripted
                    outer.tokenize_requests.append({"path": self.path, "body": body})
                    code, answer = _tokenize(outer.tokenizer, self.path, body)
                    outer._send(self, code, answer)
                    return
                with outer._lock:
                    outer.requests.append({"path": self.path, "body": body, "t": time.monotonic(),
                                           "auth": self.headers.get("Authorization")})
                    action = outer._script.popleft() if outer._script else "ok"
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    outer._act(self, action, body)
                finally:
                    with outer._lock:
                        outer.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # ------------------------------------------------------------------ control
    def start(self) -> FaultServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def script(self, actions: list[str]) -> None:
        with self._lock:
            self._script = deque(actions)

    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    # ------------------------------------------------------------------ behaviour
    def _act(self, h, action: str, body: dict) -> None:
        if self.latency_s:
            time.sleep(self.latency_s)
        if action == "ok":
            answer = _completion(h.path, body)
            if self.timings:  # as llama.cpp's server reports its own computing time
                answer["timings"] = {"prompt_ms": 100.0, "predicted_ms": 50.0, "prompt_n": 11, "predicted_n": 3}
            self._send(h, 200, answer)
        elif action.split(":")[0] in {"429", "500", "503", "401", "404"}:
            code, _, after = action.partition(":")  # "429:2": a 429 whose Retry-After asks for 2 s
            code = int(code)
            self._send(h, code, {"error": {"message": f"injected {code}", "type": "fault", "code": code}},
                       {"Retry-After": after} if after else None)
        elif action == "timeout":
            time.sleep(self.slow_s)
            try:
                self._send(h, 200, _completion(h.path, body))
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif action == "malformed":
            payload = b'{"id": "x", "choices": [ {"message": '  # cut short: not JSON
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(payload)))
            h.end_headers()
            h.wfile.write(payload)
        elif action == "empty":
            self._send(h, 200, {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []})
        elif action == "null":  # 200 with a choice whose content is null
            answer = _completion(h.path, body)
            choice = answer["choices"][0]
            if "message" in choice:
                choice["message"]["content"] = None
            else:
                choice["text"] = None
            self._send(h, 200, answer)
        else:
            raise ValueError(action)

    @staticmethod
    def _send(h, code: int, obj: dict, headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(obj).encode()
        h.send_response(code)
        for name, value in (headers or {}).items():
            h.send_header(name, value)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)


def _completion(path: str, body: dict) -> dict:
    """A deterministic answer: echoes the last user message (chat) or the prompt (completions)."""
    usage = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
    if path.endswith("/chat/completions"):
        text = "echo: " + body["messages"][-1]["content"]
        return {"id": "c1", "object": "chat.completion", "created": 0, "model": body.get("model"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}], "usage": usage}
    return {"id": "c1", "object": "text_completion", "created": 0, "model": body.get("model"),
            "choices": [{"index": 0, "finish_reason": "stop", "text": "echo: " + body["prompt"],
                         "logprobs": None}], "usage": usage}


def _tokenize(dialect: str | None, path: str, body: dict) -> tuple[int, dict]:
    """A character-level tokenizer in the dialect of llama.cpp's or vLLM's server (see the module docstring)."""
    if dialect is None or path.startswith("/extras") or path.startswith("/v1"):
        return 404, {"error": "not found"}
    detok = path.endswith("/detokenize")
    if dialect == "llama.cpp":
        if detok:
            return 200, {"content": "".join(chr(t) for t in body["tokens"])}
        return 200, {"tokens": [ord(c) for c in body.get("content", "")]}
    if "model" not in body or (not detok and "prompt" not in body):
        return 400, {"error": "field required"}
    if detok:
        return 200, {"prompt": "".join(chr(t) for t in body["tokens"] if t != 1)}
    ids = [ord(c) for c in body["prompt"]]
    bos = [] if body.get("add_special_tokens") is False else [1]
    return 200, {"tokens": bos + ids, "count": len(bos) + len(ids), "max_model_len": 8192}
