"""Random protocol abuse against `tvs lsp`: broken headers, wrong lengths,
bodies that are not JSON or not JSON-RPC, every method with random params,
random incremental edits of an open document (random ranges, random text).
The server must answer every request that has a usable id with exactly one
reply, never crash or hang, and still answer a final well-formed request and
exit cleanly after shutdown.  Seeded, a few seconds (fewer rounds under
TVS_TEST_QUICK)."""
import json
import os
import random
import subprocess
import sys

TVS = os.environ["TVS_BIN"]
SRC = os.environ["TVS_SOURCE_DIR"]
ROUNDS = 500 if os.environ.get("TVS_TEST_QUICK") else 4000
METHODS = ["initialize", "textDocument/hover", "textDocument/completion",
           "textDocument/signatureHelp", "textDocument/definition", "textDocument/references",
           "textDocument/rename", "textDocument/documentSymbol", "workspace/symbol",
           "textDocument/formatting", "textDocument/codeAction", "textDocument/didOpen",
           "textDocument/didChange", "textDocument/didClose", "$/cancelRequest", "no/such"]
URI = "file:///fuzz/mm.tvs"


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def rand_json(r, depth=0):
    k = r.randrange(9 if depth < 3 else 5)
    if k == 0: return None
    if k == 1: return r.choice([True, False])
    if k == 2: return r.choice([0, -1, 1 << 40, 3.5, -1e300, 7])
    if k == 3: return r.choice(["", "x", "é😀", "\u0000", URI, "file:///nope"])
    if k == 4: return r.randrange(100)
    if k in (5, 6): return [rand_json(r, depth + 1) for _ in range(r.randrange(4))]
    keys = ["textDocument", "position", "uri", "line", "character", "text", "range", "start", "end",
            "contentChanges", "newName", "query", "id", "context"]
    return {r.choice(keys): rand_json(r, depth + 1) for _ in range(r.randrange(5))}


def rand_pos(r, text):
    lines = text.split("\n")
    line = r.randrange(len(lines) + 2)
    return {"line": line, "character": r.randrange(120)}


def rand_edit(r, text):
    a, b = rand_pos(r, text), rand_pos(r, text)
    if (a["line"], a["character"]) > (b["line"], b["character"]): a, b = b, a
    piece = r.choice(["", "x", "T.", "(", ")", ":", "\n", "    ", "é😀", "with T.block(\"Z\"):\n", "#", "\"",
                      "for i in T.grid(4):\n", "sch.split(", "A[vi, vj]", "\t", "'''"])
    return {"range": {"start": a, "end": b}, "text": piece}


def main():
    r = random.Random(16)
    text = open(os.path.join(SRC, "examples", "mm_relu_scheduled.tvs")).read()
    out, expect_ids = [], set()
    def req(mid, method, params):
        msg = {"jsonrpc": "2.0", "id": mid, "method": method}
        if params is not None: msg["params"] = params
        out.append(frame(json.dumps(msg).encode()))
        expect_ids.add(json.dumps(mid))
    def note(method, params):
        out.append(frame(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode()))
    req("init", "initialize", {"capabilities": {}})
    note("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "tvs", "version": 1, "text": text}})
    for i in range(1, ROUNDS):
        k = r.randrange(10)
        if k == 0:  # a broken header block (no CRLFCRLF inside)
            out.append(r.choice([b"Content-Length: x\r\n\r\n", b"garbage\r\n\r\n", b"\r\n",
                                 b"Content-Length: -3\r\n\r\n",
                                 b"Content-Type: a\r\n\r\n"]))
        elif k == 1:  # a body that is not JSON
            out.append(frame(bytes(r.randrange(1, 255) for _ in range(r.randrange(1, 40))).replace(b"\r\n", b"..")))
        elif k == 2:  # JSON that is not JSON-RPC
            out.append(frame(json.dumps(rand_json(r)).encode()))
        elif k in (3, 4, 5):  # an edit of the open document
            note("textDocument/didChange", {"textDocument": {"uri": URI, "version": i},
                                            "contentChanges": [rand_edit(r, text)]})
        elif k == 6:  # a request with random params
            req(f"r{i}", r.choice(METHODS), rand_json(r))
        else:  # a positional request at a random place of the document
            m = r.choice(METHODS[1:11])
            req(f"s{i}", m, {"textDocument": {"uri": URI}, "position": rand_pos(r, text), "newName": "q",
                             "query": "", "range": {"start": rand_pos(r, text), "end": rand_pos(r, text)},
                             "context": {"diagnostics": [], "includeDeclaration": True}})
    req("final", "workspace/symbol", {"query": "mm"})
    req("bye", "shutdown", None)
    note("exit", None)
    p = subprocess.run([TVS, "lsp"], input=b"".join(out), capture_output=True, timeout=120)
    replies, data = [], p.stdout
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        n = int(head.split(b":")[1])
        replies.append(json.loads(rest[:n]))
        data = rest[n:]
    got = [json.dumps(m["id"]) for m in replies if "id" in m and json.dumps(m["id"]) in expect_ids]
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    missing = expect_ids - set(got)
    assert not missing, f"requests without a reply: {sorted(missing)[:10]}"
    dup = sorted({g for g in got if got.count(g) > 1})
    assert not dup, f"requests with two replies: {dup[:10]}"
    final = next(m for m in replies if m.get("id") == "final")
    assert "result" in final, final
    print(f"{ROUNDS} rounds, {len(replies)} messages back, {len(expect_ids)} requests answered")


if __name__ == "__main__":
    sys.exit(main())
