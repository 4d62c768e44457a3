-- :RedraftToggle, :RedraftEffort {level}, :RedraftStatus, :RedraftApplyClipboard [reg],
-- :RedraftNextEdit (defined in plugin/redraft.lua).
local util = require('redraft.util')
local config = require('redraft.config')

local C = {}

function C.toggle(redraft)
  redraft.toggle()
end

local function current_effort(redraft)
  for _, client in ipairs(util.clients()) do
    local s = util.settings(client).redraft
    if type(s) == 'table' and s.effort then
      return s.effort
    end
  end
  return redraft.options and redraft.options.settings.effort or 'the server default (low)'
end

function C.effort(redraft, args)
  local level = vim.trim(args and args.args or '')
  if level == '' then
    vim.notify('redraft: effort is ' .. current_effort(redraft))
  elseif not vim.tbl_contains(config.EFFORTS, level) then
    vim.notify(('redraft: unknown effort %q; use one of %s'):format(level, table.concat(config.EFFORTS, ', ')),
      vim.log.levels.ERROR)
  else
    redraft.set_server_setting('effort', level)
    vim.notify('redraft: effort ' .. level)
  end
end

local function client_lines(client)
  local buffers = vim.tbl_keys(client.attached_buffers)
  table.sort(buffers)
  local lines = {
    ('client %d: %s, root %s, position encoding %s, buffers %s'):format(client.id,
      table.concat(client.config.cmd or {}, ' '), client.root_dir or '(none)', client.offset_encoding,
      table.concat(buffers, ' ')),
  }
  local reply = util.request_sync(client, 'workspace/executeCommand', { command = 'redraft.stats' }, 2000)
  local stats = reply and reply.result
  if type(stats) == 'table' then
    local model, settings = stats.model or {}, stats.settings or {}
    lines[#lines + 1] = ('  model: %s %s, effort %s, languages %s'):format(tostring(model.state),
      model.message and ('(' .. tostring(model.message) .. ')') or '', tostring(settings.effort),
      table.concat(settings.enabled_languages or {}, ' '))
    lines[#lines + 1] = '  requests: ' .. vim.inspect(stats.requests or {}, { newline = ' ', indent = '' })
    lines[#lines + 1] = ('  next edits: %s, %s'):format(
      require('redraft.nextedit').supported(client) and 'offered' or 'not offered by this server',
      vim.inspect(stats.nextEdit or {}, { newline = ' ', indent = '' }))
  else
    lines[#lines + 1] = '  (no answer to redraft.stats: ' .. tostring(reply and reply.err and reply.err.message) .. ')'
  end
  return lines
end

function C.status(redraft)
  local mode = 'not set up (call require("redraft").setup())'
  if redraft.options then
    local native = redraft.options.native and require('redraft.native').available()
    mode = native and 'native vim.lsp.inline_completion' or 'ghost text (extmarks)'
  end
  local lines = {
    ('redraft.nvim on Neovim %s: %s, completions %s'):format(util.version(), mode,
      redraft.enabled and 'on' or 'off'),
  }
  local clients = util.clients()
  if #clients == 0 then
    lines[#lines + 1] = 'no redraft client is running (open a file of an enabled filetype)'
  end
  for _, client in ipairs(clients) do
    vim.list_extend(lines, client_lines(client))
  end
  vim.notify(table.concat(lines, '\n'))
end

--- The register :RedraftApplyClipboard reads: {reg}, else `+` where a clipboard provider works, else `"`.
local function snippet_register(arg)
  arg = vim.trim(arg or '')
  if arg ~= '' then
    return arg
  end
  return vim.fn.has('clipboard') == 1 and '+' or '"'
end

local function plural(n, word)
  return ('%d %s%s'):format(n, word, n == 1 and '' or 's')
end

--- The server's summary {applied, version, hunks, linesAdded, linesRemoved, failureReason?} -> message, level.
local function summary(result)
  result = type(result) == 'table' and result or {}
  local num = function(key)
    return type(result[key]) == 'number' and result[key] or 0
  end
  if result.applied ~= true then
    local why = type(result.failureReason) == 'string' and result.failureReason or 'the edit was refused'
    return 'redraft: the snippet was not applied: ' .. why, vim.log.levels.ERROR
  elseif num('hunks') == 0 then
    return 'redraft: the snippet changes nothing in this buffer', vim.log.levels.INFO
  end
  local msg = ('redraft: applied the snippet: %s, +%d -%d lines'):format(plural(num('hunks'), 'change'),
    num('linesAdded'), num('linesRemoved'))
  for _, d in ipairs(type(result.deletions) == 'table' and result.deletions or {}) do
    if type(d) == 'table' and type(d.summary) == 'string' then msg = msg .. '; ' .. d.summary end
  end
  local level = vim.log.levels.INFO
  for _, w in ipairs(type(result.warnings) == 'table' and result.warnings or {}) do
    -- the snippet's own lines that the grammar cannot read, merged as written
    if type(w) == 'string' then msg, level = msg .. '; warning: ' .. w, vim.log.levels.WARN end
  end
  return msg, level
end

--- The question for an answer with needsConfirmation: each deletion ("deleted N lines at A-B
--- (why); removed class `Foo` (lines ...)") on its own line, then the choices.
local function question(result)
  local lines, total = {}, 0
  for _, d in ipairs(type(result.deletions) == 'table' and result.deletions or {}) do
    if type(d) == 'table' and type(d.summary) == 'string' then
      table.insert(lines, '  ' .. d.summary)
      total = total + (type(d.lines) == 'number' and d.lines or 0)
    end
  end
  return ('redraft: the snippet deletes %s it does not show:\n%s\n'):format(plural(total, 'line'),
    table.concat(lines, '\n')) .. 'Apply it?'
end

--- Send the register's text to the server as a lazy edit snippet for the current buffer
--- (redraft.applyEdit). The server merges it and sends the edit back as workspace/applyEdit,
--- which Neovim's client applies; its answer is the summary shown here, or the reason it refused.
--- When the merge would delete lines the snippet omits without a marker, confirm() shows them first.
function C.applyclipboard(_, args)
  local reg = snippet_register(args and args.args)
  if vim.fn.strchars(reg) ~= 1 then
    vim.notify(('redraft: %q is not a register name; use e.g. :RedraftApplyClipboard a'):format(reg),
      vim.log.levels.ERROR)
    return
  end
  local ok, snippet = pcall(vim.fn.getreg, reg)
  if not ok or type(snippet) ~= 'string' or vim.trim(snippet) == '' then
    vim.notify(('redraft: register %s is empty; yank an edit snippet into it first'):format(reg), vim.log.levels.WARN)
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local client = util.clients(bufnr)[1]
  if not client then
    vim.notify('redraft: no redraft client is attached to this buffer', vim.log.levels.ERROR)
    return
  end
  -- the version the client last sent (request() flushes pending changes first): a buffer that
  -- changes before the server has merged is refused as stale instead of being edited
  local version = vim.lsp.util.buf_versions[bufnr]
  local arg = { uri = vim.uri_from_bufnr(bufnr), snippet = snippet, version = version, confirmDeletions = true }
  local function send(done)
    util.request(client, 'workspace/executeCommand', { command = 'redraft.applyEdit', arguments = { arg } },
      function(err, result)
        if err then
          vim.notify('redraft: ' .. tostring(err.message or err), vim.log.levels.ERROR)
        else
          done(result)
        end
      end, bufnr)
  end
  -- deletions of lines the snippet leaves out without a marker are shown, and asked about, before
  -- anything changes: apply and delete them, apply keeping them, or cancel
  send(function(result)
    if type(result) ~= 'table' or result.needsConfirmation ~= true then
      return vim.notify(summary(result))
    end
    local choice = vim.fn.confirm(question(result), '&Apply and delete\n&Keep those lines\n&Cancel', 3, 'Warning')
    if choice ~= 1 and choice ~= 2 then
      return vim.notify('redraft: cancelled; the snippet was not applied', vim.log.levels.INFO)
    end
    arg.confirmDeletions = false
    if choice == 2 then arg.deleteUnmarked = false end
    send(function(again) vim.notify(summary(again)) end)
  end)
end

--- Ask for a next edit at the cursor now (also with `next_edit.enabled = false`).
function C.nextedit(redraft)
  redraft.next_edit(vim.api.nvim_get_current_buf())
end

return C
