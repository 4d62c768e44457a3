-- One inline suggestion on screen: which part of an LSP item to show at the cursor, how to draw
-- it (one extmark: the first line as 'inline' virtual text, the rest as virt_lines) and how it
-- shrinks while the user types it.
--
-- A suggestion is { item, text, row, col, ecol, client_id, tick }: `text` goes in at (row, col),
-- the cursor, replacing the bytes up to `ecol` of the same line (ecol == col: a pure insertion).
local api = vim.api
local util = require('redraft.util')

local M = {}

local function tabs(text)
  return (text:gsub('\t', string.rep(' ', vim.bo.tabstop)))
end

function M.draw(bufnr, ns, sh)
  api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  local lines = vim.split(sh.text, '\n', { plain = true })
  local mark = { hl_mode = 'combine' }
  if lines[1] ~= '' then
    mark.virt_text = { { tabs(lines[1]), 'RedraftGhost' } }
    mark.virt_text_pos = 'inline'
  end
  if #lines > 1 then
    mark.virt_lines = {}
    for i = 2, #lines do
      mark.virt_lines[i - 1] = { { tabs(lines[i]), 'RedraftGhost' } }
    end
  end
  api.nvim_buf_set_extmark(bufnr, ns, sh.row, sh.col, mark)
end

--- The first usable item of an InlineCompletionList (or item array) and what to show of it at
--- (row, col): nil unless it is plain text, its range is on the cursor line and covers the
--- cursor, and the text between the range start and the cursor is a prefix of its insertText.
function M.pick(bufnr, result, row, col, encoding)
  for _, item in ipairs(result.items or result) do
    local text = item.insertText
    if type(text) == 'string' and text ~= '' then
      text = text:gsub('\r\n?', '\n')
      local line = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
      local scol, ecol = col, col
      local r = item.range
      if r and r.start.line == row and r['end'].line == row then
        scol = util.byte_col(line, r.start.character, encoding)
        ecol = util.byte_col(line, r['end'].character, encoding)
      elseif r then
        scol = -1 -- a range off the cursor line: not shown
      end
      local typed = scol >= 0 and scol <= col and ecol >= col and line:sub(scol + 1, col)
      if typed and text:sub(1, #typed) == typed and #text > #typed then
        return { item = item, text = text:sub(#typed + 1), row = row, col = col, ecol = ecol }
      end
    end
  end
end

--- The cursor moved to (row, col) after a change. If the user typed the next characters of the
--- suggestion, drop them from it: 'rest' (the caller draws what is left) or 'all' (nothing is
--- left); otherwise false.
function M.advance(bufnr, sh, row, col)
  if row ~= sh.row or col <= sh.col or sh.ecol ~= sh.col then
    return false
  end
  local line = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
  local typed = line:sub(sh.col + 1, col)
  if #typed > #sh.text or sh.text:sub(1, #typed) ~= typed then
    return false
  elseif #typed == #sh.text then
    return 'all'
  end
  sh.text, sh.col, sh.ecol = sh.text:sub(#typed + 1), col, col
  sh.tick = api.nvim_buf_get_changedtick(bufnr)
  return 'rest'
end

return M
