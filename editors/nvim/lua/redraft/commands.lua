-- :RedraftToggle, :RedraftEffort {level}, :RedraftStatus (defined in plugin/redraft.lua).
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

return C
