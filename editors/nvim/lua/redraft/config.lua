-- Options of require('redraft').setup() and the language server config built from them.
-- The server config itself lives in lsp/redraft.lua (the one source of truth); setup() only
-- layers the user's overrides on top of it.
local M = {}

M.EFFORTS = { 'instant', 'low', 'medium', 'high', 'max' }

M.defaults = {
  cmd = nil, -- nil: lsp/redraft.lua's { 'redraft', 'serve' } (found on PATH)
  filetypes = nil, -- nil: lsp/redraft.lua's list
  root_markers = nil, -- nil: lsp/redraft.lua's list
  settings = {}, -- server settings, camelCase: { effort = 'low', maxTokens = 32, ... }
  debounce_ms = 75, -- wait this long after the last keystroke before asking the server
  ghost_text = true, -- inline suggestions as ghost text (false: popup completion only)
  native = true, -- on Nvim 0.12+ use vim.lsp.inline_completion instead of our own ghost text
  popup = true, -- vim.lsp.completion.enable(..., { autotrigger = false }) and 'omnifunc'
  trigger_on_insert_enter = true, -- also ask when entering insert mode
  keymaps = { accept = '<Tab>', dismiss = '<C-]>' }, -- a key set to false is not mapped
  -- next edits (redraft/nextEdit): asked for automatically after a pause (false: :RedraftNextEdit only)
  next_edit = { enabled = false, debounce_ms = 300 },  -- off by default: on request only (:RedraftNextEdit)
}

M.options = vim.deepcopy(M.defaults)

local function check(opts)
  local types = {
    cmd = { 'table', 'function' }, -- a function: an in-process server (see vim.lsp.Config)
    filetypes = 'table',
    root_markers = 'table',
    settings = 'table',
    debounce_ms = 'number',
    ghost_text = 'boolean',
    native = 'boolean',
    popup = 'boolean',
    trigger_on_insert_enter = 'boolean',
    keymaps = 'table',
    next_edit = 'table',
  }
  local unknown = {}
  for key, value in pairs(opts) do
    local want = types[key]
    want = type(want) == 'string' and { want } or want
    if not want then
      unknown[#unknown + 1] = tostring(key)
    elseif not vim.tbl_contains(want, type(value)) then
      return nil, ('option %s must be a %s, got %s'):format(key, table.concat(want, ' or '), type(value))
    end
  end
  local next_edit = { enabled = 'boolean', debounce_ms = 'number' }
  for key, value in pairs(type(opts.next_edit) == 'table' and opts.next_edit or {}) do
    if not next_edit[key] then
      unknown[#unknown + 1] = 'next_edit.' .. tostring(key)
    elseif type(value) ~= next_edit[key] then
      return nil, ('option next_edit.%s must be a %s, got %s'):format(key, next_edit[key], type(value))
    end
  end
  return unknown
end

--- Merge the user's options over the defaults. Returns the options and a list of unknown option
--- names (ignored), or nil and a message.
function M.apply(opts)
  opts = opts or {}
  local unknown, problem = check(opts)
  if not unknown then
    return nil, problem
  end
  local merged = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  -- lists replace, they do not merge index by index
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if type(opts[key]) == 'table' then
      merged[key] = vim.deepcopy(opts[key])
    end
  end
  merged.keymaps = vim.tbl_extend('force', M.defaults.keymaps, opts.keymaps or {})
  M.options = merged
  return merged, unknown
end

--- The table lsp/redraft.lua returns (read from 'runtimepath').
function M.base()
  local file = vim.api.nvim_get_runtime_file('lsp/redraft.lua', false)[1]
  if not file then
    error('redraft: lsp/redraft.lua is not on runtimepath')
  end
  return dofile(file)
end

--- What setup() layers over lsp/redraft.lua: only the keys the user set.
function M.overrides(opts)
  local o = {}
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if opts[key] then
      o[key] = opts[key]
    end
  end
  if next(opts.settings) then
    o.init_options = { redraft = vim.deepcopy(opts.settings) }
    o.settings = { redraft = vim.deepcopy(opts.settings) }
  end
  return o
end

--- lsp/redraft.lua with the overrides applied (lists replaced), for vim.lsp.start on Nvim 0.10.
function M.resolved(opts)
  local o = M.overrides(opts)
  local cfg = vim.tbl_deep_extend('force', M.base(), o)
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    cfg[key] = o[key] or cfg[key] -- older tbl_deep_extend merged lists index by index
  end
  cfg.name = 'redraft'
  return cfg
end

return M
