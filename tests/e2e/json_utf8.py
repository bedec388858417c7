"""json_utf8.py - every JSON the tools write is valid UTF-8 JSON even when the
input holds invalid UTF-8 (in a string, a block name, a file name): the
diagnostics of --diagnostics-format=json, the language server's messages and
the tuning log.  usage: json_utf8.py TVS WORKDIR"""
import json
import os
import subprocess
import sys
import time

tvs, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
failures = []
checked = 0


def strict_json(data, what):
    """Parses data as strict UTF-8 JSON; records a failure if it is not."""
    global checked
    checked += 1
    try:
        return json.loads(data.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        failures.append(f"{what}: not valid UTF-8 JSON ({e}): {data[:200]!r}")
        return None


bad_dtype = b'@T.prim_func\ndef f(A: T.Buffer((4,), "flo\xfeat")):\n    # caf\xe9\n    A[0] = 1\n'
for name in ("bad.tvs", b"n\xffx.tvs"):
    path = os.path.join(os.fsencode(work), os.fsencode(name))
    open(path, "wb").write(bad_dtype)
    out = subprocess.run([os.fsencode(tvs), b"check", path, b"--diagnostics-format=json"],
                         capture_output=True)
    lines = [l for l in (out.stdout + out.stderr).splitlines() if l.startswith(b"{")]
    if out.returncode != 1 or not lines:
        failures.append(f"check {name!r}: exit {out.returncode}, no JSON diagnostic")
    for l in lines:
        d = strict_json(l, f"diagnostic of {name!r}")
        if d and "\ufffd" not in d["message"] + d.get("file", ""):
            failures.append(f"diagnostic of {name!r} lacks U+FFFD: {d}")


def lsp_messages(first, then):
    """Runs `tvs lsp` on first, then (after a pause, when the server analyses
    the documents it was given) on then; returns the bodies it wrote."""
    p = subprocess.Popen([tvs, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    p.stdin.write(first)
    p.stdin.flush()
    time.sleep(1.5)
    out = p.communicate(then, timeout=60)[0]
    bodies = []
    while out:
        head, _, rest = out.partition(b"\r\n\r\n")
        n = int(head.split(b":")[1])
        bodies.append(rest[:n])
        out = rest[n:]
    return bodies


def frame(obj):
    body = json.dumps(obj).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


uri = "file://" + os.path.join(work, "doc.tvs")
# The document's text holds raw invalid bytes: splice them into the JSON body.
open_msg = frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": uri, "languageId": "tvs", "version": 1, "text": "@@TEXT@@"}}})
raw = bad_dtype.replace(b"\n", b"\\n").replace(b'"', b'\\"')
body = open_msg.split(b"\r\n\r\n", 1)[1].replace(b"@@TEXT@@", raw)
open_msg = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
start = (frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
         + frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}) + open_msg)
end = frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) + frame({"jsonrpc": "2.0", "method": "exit"})
diags = 0
for b in lsp_messages(start, end):
    m = strict_json(b, "language server message")
    if m and m.get("method") == "textDocument/publishDiagnostics" and m["params"]["diagnostics"]:
        diags += 1
if diags == 0:
    failures.append("the language server published no diagnostics for the document")

# A block name with an invalid byte reaches the tuning log's trace.
tb = os.path.join(work, "tune.tvs")
open(tb, "wb").write(b'@T.prim_func\ndef f(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):\n'
                     b'    for i, j in T.grid(64, 64):\n        with T.block("b\xfe"):\n'
                     b'            vi, vj = T.axis.remap("SS", [i, j])\n'
                     b'            B[vi, vj] = A[vi, vj] + T.float32(1)\n')
db = os.path.join(work, "tune.jsonl")
if os.path.exists(db):
    os.unlink(db)
out = subprocess.run([tvs, "tune", tb, "--trials", "2", "--db", db], capture_output=True, timeout=120)
records = open(db, "rb").read().splitlines() if os.path.exists(db) else []
if out.returncode != 0 or not records:
    failures.append(f"tvs tune: exit {out.returncode}, {len(records)} records: {out.stderr[-300:]!r}")
for r in records:
    strict_json(r, "tuning log record")

for f in failures:
    print("FAIL:", f)
print(f"{checked} JSON texts checked, {len(failures)} failures")
sys.exit(1 if failures else 0)
