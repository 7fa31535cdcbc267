"""A fault-injecting HTTP proxy for the S3 tests: it sits between silt and the
S3 server on loopback and, by plan, answers 503 SlowDown without forwarding,
resets a connection before forwarding, forwards a request and then drops the
connection without its answer (the request took effect, the client cannot
know), or answers a chosen status to requests whose query has a marker.

Requests are forwarded byte for byte (the Host header included, so SigV4
signatures stay valid), one upstream connection per request with
"Connection: close", so the answer is read to its end.

    proxy = FaultProxy(upstream_port, plan={"503": 3, "drop": 5})
    proxy.start(); ... proxy.stop()
plan keys: "503": every Nth request; "reset": every Nth; "drop": every Nth;
"fail_query": (marker, status) answers status to requests whose query has marker;
"hold": marker holds the first request whose target has marker (proxy.held is set) until
proxy.release is set (at most 120 s), then closes its connection without forwarding it.
"""
import socket
import socketserver
import threading


class _Handler(socketserver.BaseRequestHandler):
    def handle(self):
        proxy = self.server.proxy
        conn = self.request
        conn.settimeout(30)
        pending = b""
        while True:
            head, pending = _read_head(conn, pending)
            if head is None:
                return
            length = _content_length(head)
            while len(pending) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                pending += chunk
            body, pending = pending[:length], pending[length:]
            if not proxy.serve(conn, head, body):
                return


def _read_head(conn, pending):
    while b"\r\n\r\n" not in pending:
        try:
            chunk = conn.recv(65536)
        except OSError:
            return None, b""
        if not chunk:
            return None, b""
        pending += chunk
    head, rest = pending.split(b"\r\n\r\n", 1)
    return head + b"\r\n\r\n", rest


def _content_length(head):
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    return 0


def _with_close(head):
    lines = [l for l in head.split(b"\r\n") if l and not l.lower().startswith(b"connection:")]
    return b"\r\n".join(lines + [b"Connection: close", b"", b""])


def _answer(status, code, text):
    body = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
            f"<Message>{text}</Message></Error>").encode()
    return (f"HTTP/1.1 {status} {code}\r\nContent-Type: application/xml\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


class FaultProxy:
    def __init__(self, upstream_port, plan=None):
        self.upstream_port = upstream_port
        self.plan = dict(plan or {})
        self.lock = threading.Lock()
        self.count = 0
        self.faults = {"503": 0, "reset": 0, "drop": 0, "fail_query": 0}
        self.requests = []  # (method, target)
        self.bytes_out = 0  # bytes of the answers relayed to the client
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.server.proxy = self
        self.port = self.server.server_address[1]
        self.thread = None
        self.held = threading.Event()
        self.release = threading.Event()

    def start(self):
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def set_plan(self, plan):
        with self.lock:
            self.plan = dict(plan)
            self.count = 0

    def _fault(self, target):
        with self.lock:
            self.count += 1
            n = self.count
            fq = self.plan.get("fail_query")
            if fq and fq[0].encode() in target:
                self.faults["fail_query"] += 1
                return ("fail_query", fq[1])
            for kind in ("503", "reset", "drop"):
                every = self.plan.get(kind)
                if every and n % every == 0:
                    self.faults[kind] += 1
                    return (kind, None)
        return (None, None)

    def serve(self, conn, head, body):
        """Handles one request; False when the client connection is to be closed."""
        request_line = head.split(b"\r\n", 1)[0]
        parts = request_line.split(b" ")
        target = parts[1] if len(parts) > 1 else b""
        with self.lock:
            self.requests.append((parts[0].decode(), target.decode()))
        hold = self.plan.get("hold")
        if hold and hold.encode() in target and not self.held.is_set():
            self.held.set()
            self.release.wait(120)
            return False
        kind, arg = self._fault(target)
        if kind == "503":
            conn.sendall(_answer(503, "SlowDown", "Please reduce your request rate (fault proxy)"))
            return True
        if kind == "fail_query":
            conn.sendall(_answer(arg, "InvalidRequest", "refused by the fault proxy"))
            return True
        if kind == "reset":
            return False
        answer = self._forward(head, body)
        if kind == "drop" or answer is None:
            return False  # the server acted on it; the client never hears
        with self.lock:
            self.bytes_out += len(answer)
        conn.sendall(answer)
        return b"connection: close" not in answer.split(b"\r\n\r\n", 1)[0].lower()

    def _forward(self, head, body):
        up = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=60)
        try:
            up.sendall(_with_close(head) + body)
            chunks = []
            while True:
                chunk = up.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            return None
        finally:
            up.close()
        answer = b"".join(chunks)
        # The answer ended with the upstream connection: tell the client to close too.
        head_end = answer.find(b"\r\n\r\n")
        if head_end < 0:
            return None
        lines = [l for l in answer[:head_end].split(b"\r\n")
                 if not l.lower().startswith(b"connection:")]
        return b"\r\n".join(lines + [b"Connection: close"]) + answer[head_end:]
