-- Run inside headless Neovim with tests/lsp/Inputs/mm_error.tvs open and
-- editors/nvim's configuration set up: reads the diagnostics and a hover
-- and a definition through Neovim's own LSP client and checks them.
-- Exits 0 when all hold, else 1 with the reasons on stderr.
local failures = {}
local function check(cond, what)
  if not cond then table.insert(failures, what) end
end

local buf = vim.api.nvim_get_current_buf()
check(vim.bo[buf].filetype == 'tvs', 'filetype is ' .. vim.bo[buf].filetype)

-- syntax highlighting (editors/nvim/syntax/tvs.vim): T.grid's name, a block name
local function syn(line, col) return vim.fn.synIDattr(vim.fn.synID(line, col, 1), 'name') end
check(syn(14, 26) == 'tvsBuiltin', 'syntax of grid in T.grid: ' .. syn(14, 26))
check(syn(15, 26) == 'tvsBlockName', 'syntax of "Y" in T.block("Y"): ' .. syn(15, 26))

-- diagnostics arrive once the server has analysed the file
vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
local diags = vim.diagnostic.get(buf)
check(#diags == 1, 'expected 1 diagnostic, got ' .. #diags)
if diags[1] then
  local d = diags[1]
  check(d.message == "unknown builtin 'T.gird'; did you mean 'T.grid'?", 'message: ' .. d.message)
  check(d.severity == vim.diagnostic.severity.ERROR, 'severity ' .. tostring(d.severity))
  -- the server sends UTF-16 columns; Neovim turns them back into bytes: "é😀"
  -- before the error is 6 bytes but 3 UTF-16 units
  check(d.lnum == 22 and d.col == 56 and d.end_col == 62,
        string.format('range %d:%d-%d', d.lnum, d.col, d.end_col))
end

local function request(method, line, col)
  local params = { textDocument = vim.lsp.util.make_text_document_params(), position = { line = line, character = col } }
  local res = vim.lsp.buf_request_sync(buf, method, params, 5000)
  for _, r in pairs(res or {}) do
    if r.result then return r.result end
  end
  return nil
end

-- hover on the buffer Y (line 13: `Y = T.alloc_buffer(...)`); the file does
-- not elaborate, so the server describes the declaration from the syntax tree
local h = request('textDocument/hover', 12, 8)
local value = h and h.contents and h.contents.value or ''
check(value:find('(buffer) Y', 1, true) == 1, 'hover: ' .. value)
check(value:find('Y = T.alloc_buffer((128, 128), dtype="float32")', 1, true) ~= nil, 'hover text: ' .. value)
-- hover on a builtin: its signature and summary
h = request('textDocument/hover', 13, 25)
value = h and h.contents and h.contents.value or ''
check(value:find('T.grid(*extents)', 1, true) ~= nil, 'hover T.grid: ' .. value)

-- go to definition of Y used in `C[vi, vj] = T.max(Y[vi, vj], ...)`
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local use_line, use_col
for i, l in ipairs(lines) do
  local c = l:find('T.max(Y', 1, true)
  if c then use_line, use_col = i - 1, c + 5 end
end
local def = use_line and request('textDocument/definition', use_line, use_col)
if def and def[1] then def = def[1] end
check(def and def.range and def.range.start.line == 12 and def.range.start.character == 8,
      'definition: ' .. vim.inspect(def))

-- the lowered IR beside the source: a file that elaborates, :TvsShowStage's function
vim.cmd('edit ' .. os.getenv('TVS_SOURCE_DIR') .. '/examples/mm_relu.tvs')
vim.wait(10000, function() return #vim.lsp.buf_get_clients(0) > 0 end, 20)
local out = require('tvs').show_stage('lower-init-block')
local text = out and table.concat(vim.api.nvim_buf_get_lines(out, 0, -1, false), '\n') or ''
check(text:find('def mm_relu(', 1, true) ~= nil and vim.bo[out or 0].filetype == 'tvs',
      'show_stage: ' .. text:sub(1, 200))

if #failures > 0 then
  io.stderr:write('nvim LSP check failed:\n  ' .. table.concat(failures, '\n  ') .. '\n')
  vim.cmd('cquit 1')
else
  io.stdout:write('nvim: 1 diagnostic, hovers, definition, syntax and a stage as expected\n')
  vim.cmd('qall!')
end
