-- Ghost text for Nvim 0.10 and 0.11: our own textDocument/inlineCompletion client.
--
-- Per buffer: a debounce timer, the in-flight request (cancelled on every keystroke) and the
-- suggestion on screen (one extmark: 'inline' virt_text for the first line, virt_lines for the
-- rest). Answers for an older changedtick or cursor are dropped. Accepting inserts the text and
-- runs the item's command (redraft.accept); a shown suggestion that is dismissed or typed over
-- is reported with redraft.reject.
local api = vim.api
local util = require('redraft.util')
local suggestion = require('redraft.suggestion')

local M = {}
M.ns = api.nvim_create_namespace('redraft.ghost')
M.enabled = true

local bufs = {} -- bufnr -> { client_id, timer, req = { client_id, id }, shown = {...} }
local options = { debounce_ms = 75, trigger_on_insert_enter = true }

function M.configure(opts)
  options = opts
end

local function in_insert()
  return api.nvim_get_mode().mode:sub(1, 1) == 'i'
end

local cursor = util.cursor

local cancel_inflight = util.cancel_inflight

--- Remove the suggestion from the screen. `reason` 'accepted' and 'typed' report nothing;
--- anything else ('dismissed', 'overwritten', ...) sends redraft.reject with the payload.
local function hide(bufnr, reason)
  local s = bufs[bufnr]
  if not (s and s.shown) then
    return
  end
  local shown = s.shown
  s.shown = nil
  pcall(api.nvim_buf_clear_namespace, bufnr, M.ns, 0, -1)
  local cmd = shown.item.command
  if reason ~= 'accepted' and reason ~= 'typed' and cmd and cmd.command == 'redraft.accept' then
    local client = vim.lsp.get_client_by_id(shown.client_id)
    util.execute(client, { command = 'redraft.reject', arguments = cmd.arguments }, bufnr)
  end
end

local function request(bufnr)
  local s = bufs[bufnr]
  if not (s and M.enabled) or api.nvim_get_current_buf() ~= bufnr or not in_insert() then
    return
  elseif vim.fn.pumvisible() == 1 then
    return -- the popup menu is open: it has the keys (and <Tab> would be ambiguous)
  elseif require('redraft.nextedit').visible(bufnr) then
    return -- a next edit is on screen: <Tab> is its key
  end
  local client = vim.lsp.get_client_by_id(s.client_id)
  if not client then
    return
  end
  cancel_inflight(s)
  local encoding = client.offset_encoding or 'utf-16'
  local params = vim.lsp.util.make_position_params(0, encoding)
  params.context = { triggerKind = 2 } -- Automatic
  local tick = api.nvim_buf_get_changedtick(bufnr)
  local row, col = cursor()
  local id
  local ok
  ok, id = util.request(client, 'textDocument/inlineCompletion', params, function(err, result)
    if s.req and s.req.id == id then
      s.req = nil
    end
    if err or not result or bufs[bufnr] ~= s or not M.enabled then
      return
    end
    -- stale: the text or the cursor moved on since the request, or we left insert mode
    if api.nvim_get_current_buf() ~= bufnr or api.nvim_buf_get_changedtick(bufnr) ~= tick then
      return
    end
    local r, c = cursor()
    if r ~= row or c ~= col or not in_insert() or require('redraft.nextedit').visible(bufnr) then
      return
    end
    local sh = suggestion.pick(bufnr, result, row, col, encoding)
    if sh then
      hide(bufnr, 'overwritten')
      sh.client_id, sh.tick = client.id, tick
      s.shown = sh
      suggestion.draw(bufnr, M.ns, sh)
    end
  end, bufnr)
  if ok and id then
    s.req = { client_id = client.id, id = id }
  end
end

local function schedule(bufnr)
  local s = bufs[bufnr]
  cancel_inflight(s)
  s.timer:stop()
  if M.enabled then
    s.timer:start(options.debounce_ms, 0, vim.schedule_wrap(function()
      request(bufnr)
    end))
  end
end

local function on_change(bufnr)
  local s = bufs[bufnr]
  if not s then
    return
  end
  local row, col = cursor()
  local sh = s.shown
  if sh then
    if sh.tick == api.nvim_buf_get_changedtick(bufnr) and sh.row == row and sh.col == col then
      return -- e.g. CursorMovedI right after the TextChangedI we handled
    end
    local typed = suggestion.advance(bufnr, sh, row, col)
    if typed == 'rest' then
      suggestion.draw(bufnr, M.ns, sh)
      cancel_inflight(s)
      s.timer:stop()
      return
    end
    hide(bufnr, typed == 'all' and 'typed' or 'overwritten')
  end
  schedule(bufnr)
end

local function stop(bufnr, reason)
  local s = bufs[bufnr]
  if s then
    s.timer:stop()
    cancel_inflight(s)
    hide(bufnr, reason)
  end
end

function M.attach(client, bufnr)
  local au = util.attach_buffer(bufs, client, bufnr, 'redraft.ghost')
  if not au then
    return
  end
  au({ 'TextChangedI', 'CursorMovedI' }, on_change)
  au('InsertEnter', function(b)
    if options.trigger_on_insert_enter then
      schedule(b)
    end
  end)
  au({ 'InsertLeave', 'BufLeave' }, function(b)
    stop(b, 'dismissed')
  end)
end

function M.detach(bufnr)
  local s = bufs[bufnr]
  if s then
    stop(bufnr, 'dismissed')
    s.timer:close()
    bufs[bufnr] = nil
    pcall(api.nvim_del_augroup_by_name, 'redraft.ghost.' .. bufnr)
  end
end

function M.attached(bufnr)
  return bufs[bufnr] ~= nil
end

--- Whether a request is waiting for its debounce or its answer.
function M.busy(bufnr)
  local s = bufs[bufnr or api.nvim_get_current_buf()]
  return s ~= nil and (s.req ~= nil or s.timer:is_active())
end

function M.visible(bufnr)
  local s = bufs[bufnr or api.nvim_get_current_buf()]
  return s ~= nil and s.shown ~= nil
end

--- Insert the visible suggestion (not from an <expr> mapping: textlock; see M.accept_later).
function M.accept(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = bufs[bufnr]
  local sh = s and s.shown
  if not sh then
    return false
  end
  local row, col = cursor()
  if api.nvim_buf_get_changedtick(bufnr) ~= sh.tick or row ~= sh.row or col ~= sh.col then
    hide(bufnr, 'overwritten')
    return false
  end
  hide(bufnr, 'accepted')
  s.timer:stop()
  cancel_inflight(s)
  local lines = vim.split(sh.text, '\n', { plain = true })
  api.nvim_buf_set_text(bufnr, sh.row, sh.col, sh.row, sh.ecol, lines)
  local last = #lines == 1 and sh.col + #lines[1] or #lines[#lines]
  api.nvim_win_set_cursor(0, { sh.row + #lines, last })
  util.execute(vim.lsp.get_client_by_id(sh.client_id), sh.item.command, bufnr)
  return true
end

--- For <expr> mappings: true if a suggestion is visible; it is then inserted right after.
function M.accept_later(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  if not M.visible(bufnr) then
    return false
  end
  vim.schedule(function()
    M.accept(bufnr)
  end)
  return true
end

function M.dismiss(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local visible = M.visible(bufnr)
  stop(bufnr, 'dismissed')
  return visible
end

--- Turn ghost text on or off everywhere.
function M.set_enabled(flag)
  M.enabled = flag
  if not flag then
    for bufnr in pairs(bufs) do
      stop(bufnr, 'dismissed')
    end
  end
end

return M
