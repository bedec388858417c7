"""Scripted conversations with `tvs lsp` through a real LSP client (pytest-lsp):
initialize, open, change, hover, completion, signature help, definition,
references, rename, symbols, formatting, code actions, shutdown, with the
replies checked exactly.  TVS_BIN names the tvs binary (ctest sets it)."""
import json
import os
import pathlib
import subprocess

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient

TVS = os.environ.get("TVS_BIN", "tvs")
SRC = pathlib.Path(os.environ.get("TVS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2])).resolve()
MM = (SRC / "examples" / "mm_relu.tvs").read_text()
SCHED = (SRC / "examples" / "mm_relu_scheduled.tvs").read_text()
BAD = (SRC / "tests" / "lsp" / "Inputs" / "mm_error.tvs").read_text()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[TVS, "lsp"]))
async def client(lsp_client: LanguageClient):
    lsp_client.init_result = await lsp_client.initialize_session(
        t.InitializeParams(capabilities=t.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


def pos(line, ch):
    return t.Position(line=line, character=ch)


def rng(l0, c0, l1, c1):
    return t.Range(start=pos(l0, c0), end=pos(l1, c1))


async def open_doc(client, name, text):
    uri = f"file:///work/{name}"
    client.text_document_did_open(
        t.DidOpenTextDocumentParams(t.TextDocumentItem(uri=uri, language_id="tvs", version=1, text=text)))
    await client.wait_for_notification("textDocument/publishDiagnostics")
    return uri


def doc(uri):
    return t.TextDocumentIdentifier(uri=uri)


async def test_initialize_capabilities(client: LanguageClient):
    caps = client.init_result.capabilities
    assert caps.hover_provider and caps.definition_provider and caps.references_provider
    assert caps.text_document_sync.change == t.TextDocumentSyncKind.Incremental
    assert list(caps.completion_provider.trigger_characters) == [".", '"']


async def test_diagnostics_match_tvs_check(client: LanguageClient, tmp_path):
    uri = await open_doc(client, "mm_error.tvs", BAD)
    got = client.diagnostics[uri]
    f = tmp_path / "mm_error.tvs"
    f.write_text(BAD)
    p = subprocess.run([TVS, "check", str(f), "--diagnostics-format=json"], capture_output=True, text=True)
    want = [json.loads(l) for l in p.stderr.splitlines()]
    assert len(got) == len(want) == 1
    assert got[0].message == want[0]["message"] == "unknown builtin 'T.gird'; did you mean 'T.grid'?"
    assert got[0].severity == t.DiagnosticSeverity.Error and got[0].source == "tvs"
    # UTF-16 columns: "é" counts one unit, "😀" two, though they are 2 and 4 bytes.
    line = BAD.splitlines()[want[0]["line"] - 1]
    assert "é😀" in line[: want[0]["column"]]
    assert got[0].range == rng(want[0]["line"] - 1, 53, want[0]["line"] - 1, 59)
    assert len(line[: line.index("T.gird")].encode("utf-16-le")) // 2 == 53


async def test_change_is_incremental_and_rediagnosed(client: LanguageClient):
    uri = await open_doc(client, "mm_error.tvs", BAD)
    assert len(client.diagnostics[uri]) == 1
    line = next(i for i, l in enumerate(BAD.splitlines()) if "T.gird" in l)
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(range=rng(line, 53, line, 62), text="T.int32(1)")]))
    await client.wait_for_notification("textDocument/publishDiagnostics")
    assert list(client.diagnostics[uri]) == []


async def test_schedule_error_is_a_diagnostic(client: LanguageClient):
    text = SCHED.replace("factors=[None, 16]", "factors=[3, 16]")
    uri = await open_doc(client, "sched_error.tvs", text)
    (d,) = client.diagnostics[uri]
    line = next(i for i, l in enumerate(text.splitlines()) if "factors=[3, 16]" in l)
    assert d.range.start.line == line
    assert d.message == "split: factors [3, 16] multiply to 48 but loop 'j' has extent 128"
    (a,) = await client.text_document_code_action_async(t.CodeActionParams(
        doc(uri), d.range, t.CodeActionContext(diagnostics=[d])))
    assert a.title == "Replace with '[None, 16]'"
    assert list(a.edit.changes[uri]) == [t.TextEdit(range=d.range, new_text="[None, 16]")]


async def test_hover_buffer_block_loop_builtin_method(client: LanguageClient):
    uri = await open_doc(client, "mm_relu.tvs", MM)
    h = await client.text_document_hover_async(t.HoverParams(doc(uri), pos(12, 8)))  # Y = T.alloc_buffer
    assert h.contents.value == '```python\nY: T.Buffer((128, 128), "float32")\nscope: global\n```\n(buffer)'
    assert h.range == rng(12, 8, 12, 9)
    h = await client.text_document_hover_async(t.HoverParams(doc(uri), pos(14, 26)))  # T.block("Y")
    assert h.contents.value == ('```python\nblock "Y"\nvi: spatial, domain [0, 128), int32\n'
                                'vj: spatial, domain [0, 128), int32\nvk: reduce, domain [0, 128), int32\n'
                                'reads: A[vi:vi + 1, vk:vk + 1], B[vk:vk + 1, vj:vj + 1]\n'
                                'writes: Y[vi:vi + 1, vj:vj + 1]\n```\n(block)')
    h = await client.text_document_hover_async(t.HoverParams(doc(uri), pos(17, 16)))  # vk = T.axis.reduce
    assert h.contents.value.startswith('```python\nvk: block iter var (reduce) of block "Y"\ndomain [0, 128), dtype int32')
    h = await client.text_document_hover_async(t.HoverParams(doc(uri), pos(13, 25)))  # T.grid
    assert h.contents.value == ("```python\nT.grid(*extents)\n```\n"
                                "Nested serial loops over the given extents: for i, j in T.grid(M, N).")
    uri2 = await open_doc(client, "sched.tvs", SCHED)
    h = await client.text_document_hover_async(t.HoverParams(doc(uri2), pos(30, 15)))  # sch.split
    assert h.contents.value.startswith("```python\nsch.split(loop, factors")


async def test_definition_and_references(client: LanguageClient):
    uri = await open_doc(client, "sched.tvs", SCHED)
    # block_Y in `sch.decompose_reduction(block_Y, k)` -> its assignment
    d = await client.text_document_definition_async(t.DefinitionParams(doc(uri), pos(33, 26)))
    assert d == t.Location(uri=uri, range=rng(28, 0, 28, 7))
    # "Y" in get_block("Y") -> the block in the module
    d = await client.text_document_definition_async(t.DefinitionParams(doc(uri), pos(28, 25)))
    assert d == t.Location(uri=uri, range=rng(16, 26, 16, 27))
    refs = await client.text_document_references_async(t.ReferenceParams(
        context=t.ReferenceContext(include_declaration=True), text_document=doc(uri), position=pos(28, 2)))
    assert [r.range.start.line for r in refs] == [28, 29, 33]


async def test_rename_buffer(client: LanguageClient):
    uri = await open_doc(client, "mm_relu.tvs", MM)
    e = await client.text_document_rename_async(t.RenameParams(doc(uri), pos(12, 8), new_name="Tmp"))
    edits = e.changes[uri]
    assert sorted((x.range.start.line, x.range.start.character) for x in edits) == \
        [(12, 8), (19, 20), (20, 16), (20, 28), (25, 34)]
    assert all(x.new_text == "Tmp" for x in edits)


async def test_document_and_workspace_symbols(client: LanguageClient):
    uri = await open_doc(client, "mm_relu.tvs", MM)
    syms = await client.text_document_document_symbol_async(t.DocumentSymbolParams(doc(uri)))
    (mod,) = syms
    assert mod.name == "MyModule"
    (fn,) = mod.children
    assert fn.name == "mm_relu" and fn.kind == t.SymbolKind.Function
    assert [(c.name, c.detail) for c in fn.children] == \
        [("A", "buffer"), ("B", "buffer"), ("C", "buffer"), ("Y", "buffer"), ("Y", "block"), ("C", "block")]
    ws = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="mm_"))
    assert [s.name for s in ws] == ["mm_relu"]


async def test_completion(client: LanguageClient):
    uri = await open_doc(client, "sched.tvs", SCHED + "sch.get_block(\"\")\nT.axis.\nsch.spl\n")
    n = len(SCHED.splitlines())
    c = await client.text_document_completion_async(t.CompletionParams(doc(uri), pos(n, 15)))
    assert [i.label for i in c.items] == ["Y", "C"]
    c = await client.text_document_completion_async(t.CompletionParams(doc(uri), pos(n + 1, 7)))
    labels = [i.label for i in c.items]
    assert labels[:4] == ["spatial", "S", "reduce", "R"] and "remap" in labels
    c = await client.text_document_completion_async(t.CompletionParams(doc(uri), pos(n + 2, 7)))
    assert [(i.label, i.detail.split("(")[0]) for i in c.items] == [("split", "sch.split")]


async def test_signature_help(client: LanguageClient):
    uri = await open_doc(client, "sched.tvs", SCHED)
    s = await client.text_document_signature_help_async(t.SignatureHelpParams(doc(uri), pos(30, 22)))
    assert s.signatures[0].label.startswith("sch.split(loop, factors")
    assert s.active_parameter == 1
    assert tuple(s.signatures[0].parameters[0].label) == (10, 14)


async def test_formatting(client: LanguageClient):
    uri = await open_doc(client, "mm_relu.tvs", MM)
    e = await client.text_document_formatting_async(t.DocumentFormattingParams(doc(uri), t.FormattingOptions(4, True)))
    assert list(e) == []  # the file has comments the printer would drop: left alone, with a message
    assert client.messages[-1].message == "tvs: not formatting: the printer would drop the file's comments"
    plain = "\n".join(l for l in MM.splitlines() if not l.lstrip().startswith("#")) + "\n"
    uri = await open_doc(client, "plain.tvs", plain)
    (edit,) = await client.text_document_formatting_async(t.DocumentFormattingParams(doc(uri), t.FormattingOptions(4, True)))
    assert edit.new_text.startswith("# from tvm.script import ir as I") and "def mm_relu(" in edit.new_text
    # the printer's own comments are not lost: formatting its output changes nothing
    uri = await open_doc(client, "printed.tvs", edit.new_text)
    e = await client.text_document_formatting_async(t.DocumentFormattingParams(doc(uri), t.FormattingOptions(4, True)))
    assert list(e) == []


async def test_code_action_did_you_mean(client: LanguageClient):
    uri = await open_doc(client, "mm_error.tvs", BAD)
    (d,) = client.diagnostics[uri]
    acts = await client.text_document_code_action_async(t.CodeActionParams(
        doc(uri), d.range, t.CodeActionContext(diagnostics=[d])))
    (a,) = acts
    assert a.title == "Replace with 'T.grid'" and a.kind == t.CodeActionKind.QuickFix
    assert list(a.edit.changes[uri]) == [t.TextEdit(range=d.range, new_text="T.grid")]


async def test_errors_are_replies(client: LanguageClient):
    with pytest.raises(Exception, match="unknown document"):
        await client.text_document_hover_async(t.HoverParams(doc("file:///nope.tvs"), pos(0, 0)))
    with pytest.raises(Exception, match="unknown method"):
        await client.protocol.send_request_async("tvs/noSuchMethod", {})


async def test_hover_keeps_last_good_ir_while_text_has_errors(client: LanguageClient):
    uri = await open_doc(client, "mm_relu.tvs", MM)
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangePartial(range=rng(13, 23, 13, 29), text="T.gird")]))
    await client.wait_for_notification("textDocument/publishDiagnostics")
    assert [d.message for d in client.diagnostics[uri]] == ["unknown builtin 'T.gird'; did you mean 'T.grid'?"]
    h = await client.text_document_hover_async(t.HoverParams(doc(uri), pos(12, 8)))
    assert h.contents.value.startswith('```python\nY: T.Buffer((128, 128), "float32")')


def decode_tokens(data, legend):
    line = col = 0
    out = []
    for i in range(0, len(data), 5):
        dl, dc, n, ty, mods = data[i:i + 5]
        line += dl
        col = col + dc if dl == 0 else dc
        out.append((line, col, n, legend.token_types[ty],
                    [m for b, m in enumerate(legend.token_modifiers) if mods & (1 << b)]))
    return out


async def test_semantic_tokens_iter_vars_by_kind(client: LanguageClient):
    uri = await open_doc(client, "sched.tvs", SCHED)
    legend = client.init_result.capabilities.semantic_tokens_provider.legend
    r = await client.text_document_semantic_tokens_full_async(t.SemanticTokensParams(doc(uri)))
    toks = decode_tokens(r.data, legend)
    # line 18: `vi, vj, vk = T.axis.remap("SSR", [i, j, k])`
    assert [x for x in toks if x[0] == 17] == [
        (17, 16, 2, "variable", ["declaration", "spatial"]), (17, 20, 2, "variable", ["declaration", "spatial"]),
        (17, 24, 2, "variable", ["declaration", "reduce"]), (17, 50, 1, "variable", ["loop"]),
        (17, 53, 1, "variable", ["loop"]), (17, 56, 1, "variable", ["loop"])]
    assert (16, 26, 1, "struct", ["declaration"]) in toks  # the block "Y"
    assert (10, 16, 1, "property", ["declaration"]) in toks  # the buffer A


async def test_show_stage_is_tvs_show(client: LanguageClient, tmp_path):
    uri = await open_doc(client, "sched.tvs", SCHED)
    f = tmp_path / "sched.tvs"
    f.write_text(SCHED)
    for stage in ["graph", "tir", "lower-init-block"]:
        r = await client.protocol.send_request_async("tvs/showStage", {"textDocument": {"uri": uri}, "stage": stage})
        want = subprocess.run([TVS, "show", str(f), "--stage", stage], capture_output=True, text=True, check=True)
        assert r.text == want.stdout, stage
    client.progress_reports.setdefault("p1", [])
    await client.protocol.send_request_async(
        "tvs/showStage", {"textDocument": {"uri": uri}, "stage": "tir", "workDoneToken": "p1"})
    assert [(r.kind, getattr(r, "title", None) or r.message) for r in client.progress_reports["p1"]] == \
        [("begin", "tvs: lowering"), ("end", "tir")]
    with pytest.raises(Exception, match="unknown stage"):
        await client.protocol.send_request_async("tvs/showStage", {"textDocument": {"uri": uri}, "stage": "asm"})


async def test_schedule_trace(client: LanguageClient):
    uri = await open_doc(client, "sched.tvs", SCHED)
    r = await client.protocol.send_request_async("tvs/scheduleTrace", {"textDocument": {"uri": uri}})
    assert r.trace.splitlines()[:3] == [
        'b0 = sch.get_block(name="Y", func_name="mm_relu")',
        "l1, l2, l3 = sch.get_loops(block=b0)",
        "l4, l5 = sch.split(loop=l2, factors=[None, 16], preserve_unit_iters=True, disable_predication=False)"]


def test_vscode_extension_files_agree():
    ext = SRC / "editors" / "vscode"
    pkg = json.loads((ext / "package.json").read_text())
    (lang,) = pkg["contributes"]["languages"]
    assert lang["extensions"] == [".tvs", ".sch"]
    json.loads((ext / lang["configuration"][2:]).read_text())
    (gram,) = pkg["contributes"]["grammars"]
    assert json.loads((ext / gram["path"][2:]).read_text())["scopeName"] == gram["scopeName"] == "source.tvs"


def test_docs_transcripts(tmp_path):
    p = subprocess.run([os.environ.get("PYTHON3", "python3"), str(SRC / "tests" / "e2e" / "doc_transcripts.py"),
                        str(SRC / "docs" / "lsp.md"), str(tmp_path), TVS, "tvsc"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 passed, 0 failed" in p.stdout


async def test_schedule_script_alone_runs_against_its_module(client: LanguageClient):
    path = SRC / "bench" / "kernels" / "mm_1024.sched.tvs"
    text = path.read_text()
    uri = path.as_uri()
    client.text_document_did_open(
        t.DidOpenTextDocumentParams(t.TextDocumentItem(uri=uri, language_id="tvs", version=1, text=text)))
    await client.wait_for_notification("textDocument/publishDiagnostics")
    assert list(client.diagnostics[uri]) == []
    line = next(i for i, l in enumerate(text.splitlines()) if l.startswith('b0 = sch.get_block("C")'))
    h = await client.text_document_hover_async(t.HoverParams(doc(uri), pos(line, 20)))
    assert h.contents.value.startswith('```python\nblock "C"\nvi: spatial, domain [0, 1024), int32')
    assert h.contents.value.endswith("(block of " + str(SRC / "bench" / "kernels" / "mm_1024.tvs") + ")")
    c = await client.text_document_completion_async(t.CompletionParams(doc(uri), pos(line, 20)))
    assert [(i.label, i.detail) for i in c.items] == [("C", "mm")]  # block C of prim_func mm
    # a factor list that does not multiply to the extent is the script's error
    bad = text.replace("factors=[None, 4]", "factors=[3, 4]")
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[t.TextDocumentContentChangeWholeDocument(text=bad)]))
    await client.wait_for_notification("textDocument/publishDiagnostics")
    (d,) = client.diagnostics[uri]
    assert d.range.start.line == line + 2 and "1024" in d.message, d
