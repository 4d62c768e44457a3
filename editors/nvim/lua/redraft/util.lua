-- Small helpers that hide the differences between Nvim 0.10 and 0.11+ (client methods took
-- `client.request(...)` before 0.11 and `client:request(...)` since) and convert LSP positions.
local M = {}

local has_011 = vim.fn.has('nvim-0.11') == 1

function M.request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.request_sync(client, method, params, timeout_ms, bufnr)
  if has_011 then
    return client:request_sync(method, params, timeout_ms, bufnr)
  end
  return client.request_sync(method, params, timeout_ms, bufnr)
end

function M.notify(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

function M.cancel(client, id)
  if has_011 then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

--- Run an LSP command (`{ command, arguments }`) on the server with workspace/executeCommand.
function M.execute(client, command, bufnr)
  if client and command and command.command then
    M.request(client, 'workspace/executeCommand', {
      command = command.command,
      arguments = command.arguments,
    }, function() end, bufnr)
  end
end

--- The client's settings table (client.settings in 0.11, client.config.settings before).
function M.settings(client)
  if not client.settings then
    client.config.settings = client.config.settings or {}
  end
  return client.settings or client.config.settings
end

--- LSP `character` (in the client's position encoding) -> byte column in `line`.
function M.byte_col(line, character, encoding)
  if encoding == 'utf-8' then
    return math.min(character, #line)
  end
  local ok, col
  if has_011 then
    ok, col = pcall(vim.str_byteindex, line, encoding, character, false)
  else
    ok, col = pcall(vim.str_byteindex, line, character, encoding == 'utf-16')
  end
  return ok and math.min(col, #line) or #line
end

function M.clients(bufnr)
  return vim.lsp.get_clients({ name = 'redraft', bufnr = bufnr })
end

function M.version()
  local v = vim.version()
  return ('%d.%d.%d'):format(v.major, v.minor, v.patch)
end

--- A feature's per-buffer state (`bufs[bufnr]`: the client's id and a timer), made by the first
--- attach; returns `au(events, fn)`, which registers buffer-local autocmds (in their own augroup,
--- `name.bufnr`) calling fn(bufnr). A later attach only updates the client id and returns nil.
function M.attach_buffer(bufs, client, bufnr, name)
  if bufs[bufnr] then
    bufs[bufnr].client_id = client.id
    return nil
  end
  bufs[bufnr] = { client_id = client.id, timer = assert((vim.uv or vim.loop).new_timer()) }
  local group = vim.api.nvim_create_augroup(name .. '.' .. bufnr, { clear = true })
  return function(events, fn)
    vim.api.nvim_create_autocmd(events, { group = group, buffer = bufnr, callback = function()
      fn(bufnr)
    end })
  end
end

--- The cursor of the current window as 0-based (row, byte column).
function M.cursor()
  local c = vim.api.nvim_win_get_cursor(0)
  return c[1] - 1, c[2]
end

--- Cancel a feature's request in flight (`s.req`: { client_id, id }) and forget it.
function M.cancel_inflight(s)
  if s.req then
    local client = vim.lsp.get_client_by_id(s.req.client_id)
    if client then
      pcall(M.cancel, client, s.req.id)
    end
    s.req = nil
  end
end

return M
