-- tvs: Neovim's built-in LSP client wired to `tvs lsp` (Neovim 0.7 or newer).
--
--   set runtimepath+=/path/to/tvs/editors/nvim
--   lua require('tvs').setup({ cmd = { 'tvs', 'lsp' } })
--
-- :TvsShowStage [STAGE] shows the IR after a stage (default tir) beside the source.
-- Every buffer of filetype tvs (*.tvs, *.sch: ftdetect/tvs.vim) attaches to
-- one server per root directory (the nearest folder holding .git, else the
-- file's folder).
local M = {}

local clients = {}  -- root directory -> client id

local function root_of(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local git = vim.fn.finddir('.git', dir .. ';')
  if git ~= '' then return vim.fn.fnamemodify(git, ':p:h:h') end
  return dir
end

function M.attach(bufnr, opts)
  local root = root_of(vim.api.nvim_buf_get_name(bufnr))
  local id = clients[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client({
      name = 'tvs',
      cmd = opts.cmd or { 'tvs', 'lsp' },
      root_dir = root,
      on_attach = opts.on_attach,
    })
    clients[root] = id
  end
  if id then vim.lsp.buf_attach_client(bufnr, id) end
  return id
end

-- The IR of the current buffer after a stage (`tvs show --list-stages`), in a
-- scratch buffer beside it: the server's tvs/showStage request.
function M.show_stage(stage)
  local buf = vim.api.nvim_get_current_buf()
  local params = { textDocument = vim.lsp.util.make_text_document_params(), stage = stage or 'tir' }
  local res = vim.lsp.buf_request_sync(buf, 'tvs/showStage', params, 10000) or {}
  for _, r in pairs(res) do
    if r.error then
      vim.notify('tvs/showStage: ' .. r.error.message, vim.log.levels.ERROR)
      return nil
    end
    if r.result then
      vim.cmd('vnew')
      local out = vim.api.nvim_get_current_buf()
      vim.bo[out].buftype = 'nofile'
      vim.api.nvim_buf_set_lines(out, 0, -1, false, vim.split(r.result.text, '\n', { plain = true }))
      vim.bo[out].filetype = 'tvs'
      vim.bo[out].modifiable = false
      return out
    end
  end
  return nil
end

function M.setup(opts)
  opts = opts or {}
  vim.api.nvim_create_user_command('TvsShowStage', function(a) M.show_stage(a.args ~= '' and a.args or 'tir') end,
                                   { nargs = '?' })
  local group = vim.api.nvim_create_augroup('tvs_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'tvs',
    callback = function(args) M.attach(args.buf, opts) end,
  })
  -- buffers already open when setup runs
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == 'tvs' then M.attach(b, opts) end
  end
end

return M
