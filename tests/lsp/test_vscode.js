// test_vscode.js - the VS Code extension (editors/vscode) against the real
// server, without VS Code: Node loads extension.js with two stand-ins that a
// test can see into, `vscode` (configuration, commands, editors, documents)
// and `vscode-languageclient/node`, whose LanguageClient here really spawns
// the server command the extension gives it and speaks JSON-RPC over stdio.
// Checked: the package's manifest and grammar are well formed and every
// grammar pattern compiles; activate() starts `tvs lsp` from the `tvs.path`
// setting for the `tvs` language; an opened file with an error gets the
// server's diagnostic; the "TVS: Show the IR after a stage" command opens the
// lowered IR beside the source, and reports a bad stage as an error message;
// deactivate() shuts the server down cleanly (exit code 0).
// usage: node test_vscode.js   (TVS_BIN, TVS_SOURCE_DIR in the environment)
'use strict';
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const Module = require('module');
const path = require('path');

const TVS = process.env.TVS_BIN;
const SRC = process.env.TVS_SOURCE_DIR;
const EXT = path.join(SRC, 'editors', 'vscode');
let failures = 0, passes = 0;
function check(cond, what) {
  if (cond) passes++;
  else { failures++; console.log(`FAIL: ${what}`); }
}

// ---- the manifest and the grammar
const pkg = JSON.parse(fs.readFileSync(path.join(EXT, 'package.json'), 'utf8'));
check(fs.existsSync(path.join(EXT, pkg.main)), 'package.json main exists');
const lang = pkg.contributes.languages[0];
check(lang.id === 'tvs' && lang.extensions.includes('.tvs') && lang.extensions.includes('.sch'), 'language tvs: .tvs, .sch');
JSON.parse(fs.readFileSync(path.join(EXT, lang.configuration), 'utf8'));
const grammarFile = path.join(EXT, pkg.contributes.grammars[0].path);
const grammar = JSON.parse(fs.readFileSync(grammarFile, 'utf8'));
check(grammar.scopeName === pkg.contributes.grammars[0].scopeName, 'grammar scope name matches the manifest');
let nregex = 0;
(function walk(node) {
  if (Array.isArray(node)) return node.forEach(walk);
  if (!node || typeof node !== 'object') return;
  for (const key of ['match', 'begin', 'end']) {
    if (typeof node[key] !== 'string') continue;
    nregex++;
    try { new RegExp(node[key]); } catch (e) { check(false, `grammar pattern ${key} ${node[key]}: ${e.message}`); }
  }
  Object.values(node).forEach(walk);
})(grammar);
check(nregex >= 5, `the grammar has patterns (${nregex})`);
const builtin = new RegExp(grammar.repository.builtin.match);
check(builtin.test('T.prim_func') && builtin.test('R.nn.conv2d'), 'the builtin pattern matches T.prim_func, R.nn.conv2d');
check(pkg.contributes.commands.some(c => c.command === 'tvs.showStage'), 'the manifest declares tvs.showStage');

// ---- a JSON-RPC client over the server's stdio (the languageclient stand-in)
class LanguageClient {
  constructor(id, name, server, clientOptions) {
    Object.assign(this, { id, name, server, clientOptions });
    this.pending = new Map();
    this.nextId = 1;
    this.notifications = [];
    this.waiters = [];
    this.buf = Buffer.alloc(0);
    LanguageClient.last = this;
  }
  start() {
    this.proc = cp.spawn(this.server.command, this.server.args, { stdio: ['pipe', 'pipe', 'ignore'] });
    this.exited = new Promise(res => this.proc.on('exit', code => res(code)));
    this.proc.stdout.on('data', d => this.onData(d));
    this.started = this.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {} })
      .then(r => { this.capabilities = r.capabilities; this.send({ jsonrpc: '2.0', method: 'initialized', params: {} }); });
    return this.started;
  }
  send(msg) {
    const body = Buffer.from(JSON.stringify(msg), 'utf8');
    this.proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.proc.stdin.write(body);
  }
  sendRequest(method, params) {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }
  sendNotification(method, params) { this.send({ jsonrpc: '2.0', method, params }); }
  onData(d) {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /Content-Length: *(\d+)/i.exec(this.buf.slice(0, end).toString());
      const len = parseInt(m[1], 10);
      if (this.buf.length < end + 4 + len) return;
      const msg = JSON.parse(this.buf.slice(end + 4, end + 4 + len).toString('utf8'));
      this.buf = this.buf.slice(end + 4 + len);
      if (msg.id !== undefined && this.pending.has(msg.id)) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p.reject(new Error(msg.error.message)); else p.resolve(msg.result);
      } else if (msg.method) {
        this.notifications.push(msg);
        this.waiters = this.waiters.filter(w => !w(msg));
      }
    }
  }
  waitFor(method) {
    const seen = this.notifications.find(n => n.method === method);
    if (seen) return Promise.resolve(seen);
    return new Promise(res => this.waiters.push(m => m.method === method && (res(m), true)));
  }
  async stop() {
    await this.sendRequest('shutdown', null);
    this.sendNotification('exit', null);
    return this.exited;
  }
}

// ---- the vscode stand-in
const seen = { commands: {}, opened: [], shown: [], errors: [] };
const uri = 'file://' + path.join(SRC, 'tests', 'lsp', 'Inputs', 'mm_error.tvs');
const vscode = {
  ViewColumn: { Beside: -2 },
  workspace: {
    getConfiguration: section => ({ get: key => (section === 'tvs' && key === 'path' ? TVS : undefined) }),
    openTextDocument: async doc => { seen.opened.push(doc); return doc; },
  },
  window: {
    activeTextEditor: { document: { uri: { toString: () => uri } } },
    showInputBox: async () => seen.nextStage,
    showTextDocument: async (doc, column) => { seen.shown.push({ doc, column }); },
    showErrorMessage: msg => { seen.errors.push(msg); },
  },
  commands: { registerCommand: (name, fn) => { seen.commands[name] = fn; return { dispose() {} }; } },
};
const stubs = { vscode, 'vscode-languageclient/node': { LanguageClient } };
const realLoad = Module._load;
Module._load = function (request, parent, isMain) {
  return Object.prototype.hasOwnProperty.call(stubs, request) ? stubs[request] : realLoad.call(this, request, parent, isMain);
};

async function main() {
  const ext = require(path.join(EXT, pkg.main));
  const context = { subscriptions: [] };
  ext.activate(context);
  const client = LanguageClient.last;
  check(client && client.server.command === TVS && client.server.args.join(' ') === 'lsp', 'activate starts `tvs lsp` from tvs.path');
  check(client.clientOptions.documentSelector.some(s => s.language === 'tvs'), 'the client serves the tvs language');
  check(context.subscriptions.length === 1 && typeof seen.commands['tvs.showStage'] === 'function', 'tvs.showStage registered');
  await client.started;
  check(client.capabilities && client.capabilities.hoverProvider, 'the server answers initialize with its capabilities');
  // VS Code's document sync: the file is opened in the server.
  const text = fs.readFileSync(new URL(uri), 'utf8');
  client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'tvs', version: 1, text } });
  const diag = await client.waitFor('textDocument/publishDiagnostics');
  const d = diag.params.diagnostics;
  check(diag.params.uri === uri && d.length >= 1 && d[0].severity === 1, 'an error diagnostic for the opened file');
  check(d.length >= 1 && /error|expected|unknown|not/i.test(d[0].message), `the diagnostic says what is wrong: ${d.length && d[0].message}`);
  // The command: the IR after a stage, beside the source.
  seen.nextStage = 'tir';
  await seen.commands['tvs.showStage']();
  const errorsBefore = seen.errors.length;
  if (seen.opened.length === 1) {
    check(seen.opened[0].language === 'tvs' && /T\.prim_func|prim_func|T\.Buffer/.test(seen.opened[0].content),
          'showStage opens the IR as a tvs document');
    check(seen.shown.length === 1 && seen.shown[0].column === vscode.ViewColumn.Beside, 'shown beside the source');
  } else {
    // A file that does not elaborate has no IR: the command says why instead.
    check(errorsBefore === 1 && /^tvs\/showStage: /.test(seen.errors[0]), `showStage on a file with errors reports it: ${seen.errors}`);
  }
  // A good file: the lowered IR.
  const good = 'file://' + path.join(SRC, 'examples', 'mm_relu.tvs');
  vscode.window.activeTextEditor = { document: { uri: { toString: () => good } } };
  client.sendNotification('textDocument/didOpen',
    { textDocument: { uri: good, languageId: 'tvs', version: 1, text: fs.readFileSync(new URL(good), 'utf8') } });
  seen.opened = [];
  seen.shown = [];
  seen.nextStage = 'lower-opaque-block';
  await seen.commands['tvs.showStage']();
  check(seen.opened.length === 1 && /T\.prim_func|def mm_relu/.test(seen.opened[0].content) &&
        !/T\.block\(/.test(seen.opened[0].content), 'showStage lower-opaque-block: the IR without blocks');
  const nerr = seen.errors.length;
  seen.nextStage = 'no-such-stage';
  await seen.commands['tvs.showStage']();
  check(seen.errors.length === nerr + 1 && /^tvs\/showStage: unknown stage/.test(seen.errors[nerr]),
        `an unknown stage is an error message: ${seen.errors[nerr]}`);
  seen.nextStage = undefined; // the user dismisses the input box: nothing happens
  await seen.commands['tvs.showStage']();
  check(seen.errors.length === nerr + 1, 'a dismissed input box does nothing');
  const code = await ext.deactivate();
  check(code === 0, `deactivate shuts the server down (exit code ${code})`);
}

main().then(() => {
  console.log(`${passes} passed, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}, e => {
  console.log(`FAIL: ${e.stack}`);
  process.exit(1);
});
