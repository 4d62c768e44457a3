-- redraft.nvim: inline completions and next edits from `redraft serve`.
--   require('redraft').setup({})   -- see :help redraft
-- This file must load on any Neovim (0.7 included): everything newer than 0.7 is used only after
-- the version check in setup().
local M = {}

local api = vim.api
M.enabled = true
M.options = nil -- set by setup()

--- Says once (or every time, with `always`) that this Neovim is too old; true if it is.
local warned = false
function M.too_old(always)
  if vim.fn.has('nvim-0.10') == 1 then
    return false
  end
  if always or not warned then
    warned = true
    local v = vim.version()
    vim.notify(('redraft.nvim needs Neovim 0.10 or newer (this is %d.%d.%d); see :help redraft')
      :format(v.major, v.minor, v.patch), vim.log.levels.WARN)
  end
  return true
end

local function native_mode()
  return M.options.native and require('redraft.native').available()
end

local function set_keymaps(bufnr)
  local keys = M.options.keymaps
  if keys.accept then
    vim.keymap.set('i', keys.accept, function()
      return (require('redraft.nextedit').tab_later(bufnr) or M.accept(bufnr)) and '' or keys.accept
    end, { buffer = bufnr, expr = true, desc = 'redraft: accept the suggestion, or jump to/apply the next edit' })
  end
  if keys.dismiss and not native_mode() then
    vim.keymap.set('i', keys.dismiss, function()
      local nextedit = require('redraft.nextedit')
      if not (M.visible(bufnr) or nextedit.visible(bufnr)) then
        return keys.dismiss
      end
      vim.schedule(function()
        require('redraft.ghost').dismiss(bufnr)
        nextedit.dismiss(bufnr) -- also a next edit due after the ghost text
      end)
      return ''
    end, { buffer = bufnr, expr = true, desc = 'redraft: dismiss the suggestion or the next edit' })
  end
end

local function attach(client, bufnr)
  local o = M.options
  require('redraft.nextedit').attach(client, bufnr)
  if o.ghost_text then
    if native_mode() then
      require('redraft.native').attach(client, bufnr, M.enabled)
    else
      require('redraft.ghost').attach(client, bufnr)
    end
  end
  if o.ghost_text or o.next_edit.enabled then
    set_keymaps(bufnr)
  end
  if o.popup then
    if vim.lsp.completion and vim.lsp.completion.enable then -- 0.11+: runs the item's command too
      vim.lsp.completion.enable(true, client.id, bufnr, { autotrigger = false })
    end
    vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc' -- <C-x><C-o>
  end
end

local function start_server(o, group)
  local config = require('redraft.config')
  if type(vim.lsp.config) == 'table' and type(vim.lsp.enable) == 'function' then
    vim.lsp.config('redraft', config.overrides(o)) -- layered over lsp/redraft.lua
    vim.lsp.enable('redraft')
    return
  end
  -- Nvim 0.10: start it ourselves (vim.lsp.start reuses a client with the same name and root)
  local function start(bufnr)
    local cfg = config.resolved(M.options) -- at start time: :RedraftEffort may have changed it
    cfg.root_dir = vim.fs.root(bufnr, cfg.root_markers) or vim.fn.getcwd()
    vim.lsp.start(cfg, { bufnr = bufnr })
  end
  local filetypes = config.resolved(o).filetypes
  api.nvim_create_autocmd('FileType', { group = group, pattern = filetypes, callback = function(ev)
    start(ev.buf)
  end })
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(filetypes, vim.bo[bufnr].filetype) then
      start(bufnr)
    end
  end
end

local function highlight()
  api.nvim_set_hl(0, 'RedraftGhost', { link = 'Comment', default = true })
  require('redraft.nextedit_view').highlight()
end

function M.setup(opts)
  if M.too_old() then
    return
  end
  local config = require('redraft.config')
  local o, problem = config.apply(opts)
  if not o then
    vim.notify('redraft: ' .. problem .. ' (see :help redraft-options)', vim.log.levels.ERROR)
    return
  elseif #problem > 0 then
    vim.notify(('redraft: ignoring unknown setup() options %s (see :help redraft-options)')
      :format(table.concat(problem, ', ')), vim.log.levels.WARN)
  end
  M.options = o
  require('redraft.ghost').configure(o)
  require('redraft.nextedit').configure(o)
  local cmd = o.cmd or config.base().cmd
  if type(cmd) == 'table' and vim.fn.executable(cmd[1]) == 0 then
    vim.notify(('redraft: %q is not executable; put redraft on PATH or set `cmd` in setup()')
      :format(cmd[1]), vim.log.levels.WARN)
  end
  highlight()
  local group = api.nvim_create_augroup('redraft', { clear = true })
  api.nvim_create_autocmd('ColorScheme', { group = group, callback = highlight })
  api.nvim_create_autocmd('LspAttach', { group = group, callback = function(ev)
    local client = vim.lsp.get_client_by_id(ev.data.client_id)
    if client and client.name == 'redraft' then
      attach(client, ev.buf)
    end
  end })
  api.nvim_create_autocmd('LspDetach', { group = group, callback = function(ev)
    local client = vim.lsp.get_client_by_id(ev.data.client_id)
    if client and client.name == 'redraft' then
      require('redraft.ghost').detach(ev.buf)
      require('redraft.nextedit').detach(ev.buf)
    end
  end })
  start_server(o, group)
  for _, client in ipairs(vim.lsp.get_clients({ name = 'redraft' })) do -- already running
    for bufnr in pairs(client.attached_buffers) do
      attach(client, bufnr)
    end
  end
end

-- Public API (also for your own mappings) -------------------------------------------------------

--- In an <expr> mapping or anywhere: accept the visible suggestion (applied right after, because
--- of textlock); false if there is none.
function M.accept(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  if not M.options then
    return false
  elseif native_mode() then
    return require('redraft.native').accept_later(bufnr)
  end
  return require('redraft.ghost').accept_later(bufnr)
end

function M.visible(bufnr)
  return M.options ~= nil and not native_mode() and require('redraft.ghost').visible(bufnr)
end

function M.dismiss(bufnr)
  if not M.options then
    return false
  end
  local edit = require('redraft.nextedit').dismiss(bufnr)
  return (not native_mode() and require('redraft.ghost').dismiss(bufnr)) or edit
end

--- Request a next edit at the cursor now (:RedraftNextEdit); it is shown when it arrives.
function M.next_edit(bufnr)
  if M.options then
    require('redraft.nextedit').request(bufnr, true)
  end
end

--- <Tab> on a next edit: jump to it, or apply it when the cursor is on its lines. Returns
--- 'jump', 'apply' or false (none shown). Not from an <expr> mapping (textlock).
function M.next_edit_tab(bufnr)
  return M.options ~= nil and require('redraft.nextedit').on_tab(bufnr)
end

--- Set a server setting on every running redraft client (and for clients started later).
function M.set_server_setting(key, value)
  if M.options then
    M.options.settings[key] = value
  end
  if type(vim.lsp.config) == 'table' then
    vim.lsp.config('redraft', { init_options = { redraft = { [key] = value } }, settings = { redraft = { [key] = value } } })
  end
  local util = require('redraft.util')
  for _, client in ipairs(util.clients()) do
    local s = util.settings(client)
    s.redraft = s.redraft or {}
    s.redraft[key] = value
    util.notify(client, 'workspace/didChangeConfiguration', { settings = { redraft = s.redraft } })
  end
end

function M.toggle()
  M.enabled = not M.enabled
  if M.options and native_mode() then
    local buffers = {}
    for _, client in ipairs(require('redraft.util').clients()) do
      vim.list_extend(buffers, vim.tbl_keys(client.attached_buffers))
    end
    require('redraft.native').set_enabled(M.enabled, buffers)
  else
    require('redraft.ghost').set_enabled(M.enabled)
  end
  require('redraft.nextedit').set_enabled(M.enabled)
  M.set_server_setting('enabled', M.enabled)
  vim.notify('redraft: completions ' .. (M.enabled and 'on' or 'off'))
  return M.enabled
end

function M.command(name, args)
  if M.too_old(true) then
    return
  end
  require('redraft.commands')[name](M, args)
end

return M
