// The client side: start `tvs lsp` for .tvs/.sch files, and a command that
// shows the IR after a stage (the server's tvs/showStage request) beside the source.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

async function showStage() {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !client) return;
  const stage = await vscode.window.showInputBox({ prompt: 'stage (tvs show --list-stages)', value: 'tir' });
  if (!stage) return;
  try {
    const r = await client.sendRequest('tvs/showStage',
      { textDocument: { uri: editor.document.uri.toString() }, stage });
    const doc = await vscode.workspace.openTextDocument({ language: 'tvs', content: r.text });
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.Beside);
  } catch (e) {
    vscode.window.showErrorMessage(`tvs/showStage: ${e.message}`);
  }
}

function activate(context) {
  const path = vscode.workspace.getConfiguration('tvs').get('path') || 'tvs';
  const server = { command: path, args: ['lsp'] };
  client = new LanguageClient('tvs', 'TVS', server, { documentSelector: [{ language: 'tvs' }] });
  client.start();
  context.subscriptions.push(vscode.commands.registerCommand('tvs.showStage', showStage));
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
