-- Nvim 0.12+: the built-in vim.lsp.inline_completion draws and accepts the suggestions
-- (requests on InsertEnter/CursorMovedI/TextChangedP, hides on InsertLeave, runs the item's
-- command, i.e. redraft.accept, after accepting).
local M = {}

function M.available()
  local ic = vim.lsp.inline_completion
  return type(ic) == 'table' and type(ic.enable) == 'function' and type(ic.get) == 'function'
end

function M.attach(client, bufnr, enabled)
  if client.supports_method and not client:supports_method('textDocument/inlineCompletion', bufnr) then
    return
  end
  vim.lsp.inline_completion.enable(enabled, { bufnr = bufnr })
end

function M.set_enabled(flag, buffers)
  for _, bufnr in ipairs(buffers) do
    vim.lsp.inline_completion.enable(flag, { bufnr = bufnr })
  end
end

--- For <expr> mappings: accepts the current candidate (applied later, as get() schedules it);
--- false when there is none.
function M.accept_later(bufnr)
  return vim.lsp.inline_completion.get({ bufnr = bufnr }) and true or false
end

return M
