"""Latency of `tvs lsp` on a 2,000-line file (a benchmark that prints figures,
not a timed test): the time from a didChange to the publishDiagnostics of the
new version, and the round trip of a completion request, medians over runs.

    python3 bench/lsp_latency.py build/tvs [--lines 2000] [--runs 30]
"""
import argparse
import json
import statistics
import subprocess
import time

FUNC = '''    @T.prim_func
    def mm_relu_{n}(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
                    C: T.Buffer((128, 128), "float32")):
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))

'''


class Server:
    def __init__(self, tvs):
        self.p = subprocess.Popen([tvs, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, msg):
        body = json.dumps(dict(jsonrpc="2.0", **msg)).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        n = 0
        while True:
            line = self.p.stdout.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"content-length:"):
                n = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(n))

    def request(self, method, params):
        self.next_id += 1
        self.send(dict(id=self.next_id, method=method, params=params))
        while True:
            m = self.read()
            if m.get("id") == self.next_id:
                return m

    def wait_diagnostics(self, version):
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["version"] == version:
                return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tvs")
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    head = "from tvm.script import tir as T\nfrom tvm.script import ir as I\n\n\n@I.ir_module\nclass Big:\n"
    nf = max(1, (a.lines - 6) // FUNC.count("\n"))
    text = head + "".join(FUNC.format(n=n) for n in range(nf))
    lines = text.count("\n")
    uri = "file:///bench/big.tvs"
    s = Server(a.tvs)
    s.request("initialize", {"capabilities": {}})
    s.send(dict(method="initialized", params={}))
    s.send(dict(method="textDocument/didOpen",
                params={"textDocument": {"uri": uri, "languageId": "tvs", "version": 1, "text": text}}))
    d = s.wait_diagnostics(1)
    assert d["params"]["diagnostics"] == [], d
    # each change edits one float literal in the middle of the file: 0 <-> 1
    target = text.count("\n", 0, text.index("T.float32(0))", len(text) // 2))
    col = text.splitlines()[target].index("T.float32(0))") + 10
    diag_ms = []
    for v in range(2, a.runs + 2):
        t0 = time.perf_counter()
        s.send(dict(method="textDocument/didChange", params={
            "textDocument": {"uri": uri, "version": v},
            "contentChanges": [{"range": {"start": {"line": target, "character": col},
                                          "end": {"line": target, "character": col + 1}},
                                "text": str(v % 2)}]}))
        d = s.wait_diagnostics(v)
        diag_ms.append((time.perf_counter() - t0) * 1e3)
        assert d["params"]["diagnostics"] == [], d
    comp_ms = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        r = s.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                  "position": {"line": target, "character": col - 8}})
        comp_ms.append((time.perf_counter() - t0) * 1e3)
        assert r["result"]["items"], r
    s.request("shutdown", None)
    s.send(dict(method="exit"))
    s.p.wait(timeout=10)
    print(f"{lines} lines, {nf} functions, {a.runs} runs")
    print(f"diagnostics after a change: median {statistics.median(diag_ms):.1f} ms, "
          f"max {max(diag_ms):.1f} ms")
    print(f"completion round trip:      median {statistics.median(comp_ms):.2f} ms, "
          f"max {max(comp_ms):.2f} ms")


if __name__ == "__main__":
    main()
