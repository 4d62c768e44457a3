-- Next edits (issue 24): the edit the server predicts you will make next, shown where it lands.
--
-- Per buffer: a debounce timer, the request in flight and the edit on screen. `redraft/nextEdit`
-- is sent only to a server that advertises `experimental.redraftNextEdit`: automatically after you
-- stop typing or moving in Insert mode, or change the text in Normal mode (`next_edit.debounce_ms`),
-- but not while ghost text is on screen or being asked for; at once by :RedraftNextEdit. An
-- answer for another changedtick, cursor position, LSP version or document is dropped.
--
-- On screen (namespace M.ns): the replaced range highlighted RedraftNextEditDelete, the new text as
-- virtual text after it (RedraftNextEdit: the first line inline, further lines as virt_lines), and
-- an end-of-line hint (RedraftNextEditHint): "Tab: jump to edit" on the cursor line while the edit
-- is on other lines, "Tab: apply edit" on the edit's line once the cursor is there. <Tab> jumps,
-- <Tab> on the edit's lines applies (vim.lsp.util.apply_text_edits); CTRL-] (<Esc> in Normal mode),
-- moving off the edit, typing, leaving Insert mode or another buffer dismiss it.
local api = vim.api
local util = require('redraft.util')
local view = require('redraft.nextedit_view')

local M = {}
M.ns = api.nvim_create_namespace('redraft.nextedit')
M.METHOD = 'redraft/nextEdit'

local bufs = {} -- bufnr -> { client_id, timer, req = { client_id, id }, shown, left_tick, last, maps }
local options = { enabled = true, debounce_ms = 300 }
local tab_key = '<Tab>' -- keymaps.accept: also the Normal mode key while an edit is shown

function M.configure(opts)
  options = opts.next_edit
  tab_key = opts.keymaps.accept
end

local cursor = util.cursor

local function tick(bufnr)
  return api.nvim_buf_get_changedtick(bufnr)
end

--- Whether the client's server answers redraft/nextEdit.
function M.supported(client)
  local exp = client and client.server_capabilities and client.server_capabilities.experimental
  return type(exp) == 'table' and exp.redraftNextEdit == true
end

local cancel_inflight = util.cancel_inflight

local function hide(bufnr)
  local s = bufs[bufnr]
  if s and s.shown then
    s.shown = nil
    pcall(api.nvim_buf_clear_namespace, bufnr, M.ns, 0, -1)
    view.unmap(bufnr, s.maps)
    s.maps = nil
  end
end

--- Show `edit` ({ range, text, textDocument? } as the server sends it) in the current buffer.
--- opts: encoding (default: the client's), tick (the changedtick it was computed for; default
--- now). Returns true, or false and why not ('not attached', 'stale', 'invalid', 'empty').
function M.show(edit, opts)
  opts = opts or {}
  local bufnr = api.nvim_get_current_buf()
  local s = bufs[bufnr]
  if not s then
    return false, 'not attached'
  elseif opts.tick and opts.tick ~= tick(bufnr) then
    return false, 'stale'
  end
  local client = vim.lsp.get_client_by_id(s.client_id)
  local sh, why = view.parse(bufnr, edit, opts.encoding or (client and client.offset_encoding) or 'utf-16')
  if not sh then
    return false, why
  end
  hide(bufnr)
  sh.tick, sh.anchor = tick(bufnr), { cursor() }
  s.shown, s.last = sh, 'shown'
  view.draw(bufnr, M.ns, sh, tab_key)
  s.maps = view.map_normal(bufnr, { [tab_key or ''] = M.on_tab, ['<Esc>'] = M.dismiss })
  return true
end

--- Ask the server for a next edit at the cursor; `manual` (:RedraftNextEdit) reports the outcome.
function M.request(bufnr, manual)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = bufs[bufnr]
  local client = s and vim.lsp.get_client_by_id(s.client_id)
  local function say(msg, level)
    if manual then
      vim.notify('redraft: ' .. msg, level or vim.log.levels.INFO)
    end
  end
  if not client or api.nvim_get_current_buf() ~= bufnr then
    return say('no redraft client is attached to this buffer', vim.log.levels.ERROR)
  elseif not M.supported(client) then
    s.last = 'unsupported'
    return say('this server does not offer next edits (experimental.redraftNextEdit)', vim.log.levels.WARN)
  end
  cancel_inflight(s)
  s.timer:stop()
  local encoding = client.offset_encoding or 'utf-16'
  local params = vim.lsp.util.make_position_params(0, encoding)
  params.textDocument.version = vim.lsp.util.buf_versions[bufnr]
  local t, row, col = tick(bufnr), cursor()
  local id, ok
  s.last = 'pending'
  ok, id = util.request(client, M.METHOD, params, function(err, result)
    if s.req and s.req.id == id then
      s.req = nil
    end
    if bufs[bufnr] ~= s then
      return
    elseif err then
      s.last = err.code == -32800 and 'cancelled' or ('error: ' .. tostring(err.message))
      return err.code ~= -32800 and say(s.last, vim.log.levels.ERROR)
    end
    local r, c = cursor()
    if api.nvim_get_current_buf() ~= bufnr or tick(bufnr) ~= t or r ~= row or c ~= col then
      s.last = 'stale'
      return
    end
    local edit = type(result) == 'table' and type(result.edits) == 'table' and result.edits[1]
    if not edit then
      s.last = 'none'
      return say('no next edit here')
    end
    local ghost = require('redraft.ghost')
    if not manual and (ghost.visible(bufnr) or vim.fn.pumvisible() == 1) then
      s.last = 'ghost'
      return
    elseif manual then
      ghost.dismiss(bufnr) -- one offer at a time
    end
    local shown, why = M.show(edit, { encoding = encoding, tick = t })
    s.last = shown and 'shown' or why
    return not shown and say('the next edit was not shown: ' .. why, vim.log.levels.WARN)
  end, bufnr)
  if ok and id then
    s.req = { client_id = client.id, id = id }
  end
end

local function auto(bufnr)
  local s = bufs[bufnr]
  local mode = api.nvim_get_mode().mode
  if not s or s.shown or api.nvim_get_current_buf() ~= bufnr or (mode ~= 'i' and mode ~= 'n') then
    return
  elseif vim.fn.pumvisible() == 1 or require('redraft.ghost').visible(bufnr) then
    return
  elseif require('redraft.ghost').busy(bufnr) then -- its answer decides: ask again after it
    s.timer:start(options.debounce_ms, 0, vim.schedule_wrap(function()
      auto(bufnr)
    end))
    return
  end
  M.request(bufnr, false)
end

local function schedule(bufnr)
  local s = bufs[bufnr]
  cancel_inflight(s)
  s.timer:stop()
  if options.enabled and require('redraft').enabled then
    s.timer:start(options.debounce_ms, 0, vim.schedule_wrap(function()
      auto(bufnr)
    end))
  end
end

--- The cursor moved: the edit stays while the cursor is where it was shown or on the edit's lines.
local function on_move(bufnr, ask)
  local s = bufs[bufnr]
  local sh = s.shown
  if sh and view.near(sh, cursor()) then
    view.draw(bufnr, M.ns, sh, tab_key)
    return
  end
  hide(bufnr)
  if ask then
    schedule(bufnr)
  end
end

--- <Tab>: jump to the shown edit, or apply it when the cursor is on its lines. Returns 'jump',
--- 'apply', or false (no edit shown, or the buffer changed since: then it is dismissed).
function M.on_tab(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = bufs[bufnr]
  local sh = s and s.shown
  if not sh or bufnr ~= api.nvim_get_current_buf() then
    return false
  elseif tick(bufnr) ~= sh.tick then
    hide(bufnr)
    return false
  end
  local row = cursor()
  if row < sh.srow or row > sh.erow then
    if api.nvim_get_mode().mode == 'n' then
      vim.cmd("normal! m'") -- CTRL-O comes back
    end
    api.nvim_win_set_cursor(0, { sh.srow + 1, sh.scol })
    sh.anchor = { cursor() }
    view.draw(bufnr, M.ns, sh, tab_key)
    return 'jump'
  end
  hide(bufnr)
  s.timer:stop()
  cancel_inflight(s)
  vim.lsp.util.apply_text_edits({ { range = sh.range, newText = sh.text } }, bufnr, sh.encoding)
  local lines = vim.split(sh.text, '\n', { plain = true })
  local last = #lines == 1 and sh.scol + #lines[1] or #lines[#lines]
  pcall(api.nvim_win_set_cursor, 0, { sh.srow + #lines, last })
  return 'apply'
end

--- For <expr> mappings (textlock): true if an edit is shown; on_tab runs right after.
function M.tab_later(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  if not M.visible(bufnr) then
    return false
  end
  vim.schedule(function()
    M.on_tab(bufnr)
  end)
  return true
end

function M.visible(bufnr)
  local s = bufs[bufnr or api.nvim_get_current_buf()]
  return s ~= nil and s.shown ~= nil
end

--- Hide the edit and stop the pending request; returns whether an edit was shown.
function M.dismiss(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = bufs[bufnr]
  local visible = M.visible(bufnr)
  if s then
    s.timer:stop()
    cancel_inflight(s)
    hide(bufnr)
  end
  return visible
end

--- What happened to the last request ('pending', 'shown', 'none', 'stale', 'error: ...', ...).
function M.state(bufnr)
  local s = bufs[bufnr or api.nvim_get_current_buf()]
  return s and { last = s.last, shown = s.shown ~= nil, pending = s.req ~= nil }
end

function M.attach(client, bufnr)
  local au = util.attach_buffer(bufs, client, bufnr, 'redraft.nextedit')
  if not au then
    return
  end
  au('TextChangedI', function(b)
    hide(b)
    schedule(b)
  end)
  au('CursorMovedI', function(b)
    on_move(b, true)
  end)
  au('CursorMoved', on_move)
  au('TextChanged', function(b) -- a Normal mode change; not the one Insert mode made
    hide(b)
    if bufs[b].left_tick ~= tick(b) then
      schedule(b)
    end
  end)
  au('InsertLeave', function(b)
    bufs[b].left_tick = tick(b)
    M.dismiss(b)
  end)
  au('BufLeave', M.dismiss)
end

function M.detach(bufnr)
  local s = bufs[bufnr]
  if s then
    M.dismiss(bufnr)
    s.timer:close()
    bufs[bufnr] = nil
    pcall(api.nvim_del_augroup_by_name, 'redraft.nextedit.' .. bufnr)
  end
end

--- :RedraftToggle off: hide every edit (requests stop: `require('redraft').enabled` is false).
function M.set_enabled(flag)
  if not flag then
    for bufnr in pairs(bufs) do
      M.dismiss(bufnr)
    end
  end
end

return M
