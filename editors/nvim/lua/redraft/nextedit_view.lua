-- Next edits on screen (nextedit.lua has the requests and the keys): which buffer positions an
-- LSP edit covers, and how it is drawn. A shown edit is { range, text, srow, scol, erow, ecol,
-- encoding, tick, anchor }: the LSP range as the server sent it, the new text ("\n" lines), the
-- replaced bytes (rows 0-based, byte columns), the changedtick it is for and the cursor it belongs to.
local api = vim.api
local util = require('redraft.util')

local M = {}

--- An LSP position (in `encoding`) -> 0-based row and byte column, or nil outside the buffer.
local function locate(bufnr, p, encoding)
  local n = api.nvim_buf_line_count(bufnr)
  if type(p) ~= 'table' or type(p.line) ~= 'number' or type(p.character) ~= 'number' then
    return nil
  elseif p.line == n and p.character == 0 then -- just past the last line
    return n - 1, #api.nvim_buf_get_lines(bufnr, n - 1, n, false)[1]
  elseif p.line < 0 or p.line >= n or p.character < 0 then
    return nil
  end
  return p.line, util.byte_col(api.nvim_buf_get_lines(bufnr, p.line, p.line + 1, false)[1], p.character, encoding)
end

--- `edit` ({ range, text, textDocument? }) for the buffer as it is now -> a shown edit without
--- tick and anchor, or nil and why not: 'stale' (another document or LSP version), 'invalid' (no
--- text, or a range outside the buffer or backwards), 'empty' (changes nothing).
function M.parse(bufnr, edit, encoding)
  if type(edit) ~= 'table' then
    return nil, 'invalid'
  end
  local doc = edit.textDocument
  if type(doc) == 'table' and ((type(doc.uri) == 'string' and doc.uri ~= vim.uri_from_bufnr(bufnr))
      or (type(doc.version) == 'number' and doc.version ~= vim.lsp.util.buf_versions[bufnr])) then
    return nil, 'stale'
  end
  local r = type(edit.text) == 'string' and type(edit.range) == 'table' and edit.range
  local srow, scol = locate(bufnr, r and r.start, encoding)
  local erow, ecol = locate(bufnr, r and r['end'], encoding)
  if not (srow and erow) or erow < srow or (erow == srow and ecol < scol) then
    return nil, 'invalid'
  end
  local text = edit.text:gsub('\r\n?', '\n')
  if text == '' and erow == srow and ecol == scol then
    return nil, 'empty'
  end
  return { range = r, text = text, srow = srow, scol = scol, erow = erow, ecol = ecol, encoding = encoding }
end

--- Whether (row, col) keeps the edit on screen: where it was shown (or jumped to), or its lines.
function M.near(sh, row, col)
  return (row == sh.anchor[1] and col == sh.anchor[2]) or (row >= sh.srow and row <= sh.erow)
end

local function key_name(key)
  return (key or 'Tab'):gsub('^<(.*)>$', '%1')
end

--- Draw `sh` in namespace `ns`; `key` is the jump/apply key named in the hint.
function M.draw(bufnr, ns, sh, key)
  api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  if sh.erow > sh.srow or sh.ecol > sh.scol then
    api.nvim_buf_set_extmark(bufnr, ns, sh.srow, sh.scol,
      { end_row = sh.erow, end_col = sh.ecol, hl_group = 'RedraftNextEditDelete', strict = false })
  end
  local tabs = string.rep(' ', vim.bo[bufnr].tabstop)
  local lines = vim.split((sh.text:gsub('\t', tabs)), '\n', { plain = true })
  local mark = { hl_mode = 'combine' }
  if lines[1] ~= '' then
    mark.virt_text, mark.virt_text_pos = { { lines[1], 'RedraftNextEdit' } }, 'inline'
  end
  if #lines > 1 then
    mark.virt_lines = {}
    for i = 2, #lines do
      mark.virt_lines[i - 1] = { { lines[i], 'RedraftNextEdit' } }
    end
  end
  if mark.virt_text or mark.virt_lines then
    api.nvim_buf_set_extmark(bufnr, ns, sh.erow, sh.ecol, mark)
  end
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local away = row < sh.srow or row > sh.erow
  local hint = away and ('%s: jump to edit (line %d)'):format(key_name(key), sh.srow + 1)
    or key_name(key) .. ': apply edit'
  api.nvim_buf_set_extmark(bufnr, ns, away and row or sh.srow, 0,
    { virt_text = { { '  ' .. hint, 'RedraftNextEditHint' } }, virt_text_pos = 'eol', hl_mode = 'combine' })
end

--- While an edit is shown: Normal mode keys (key -> fn(bufnr), a key that fn declines does what
--- it does without the mapping), where the buffer has no mapping of its own. Returns the keys mapped.
function M.map_normal(bufnr, fns)
  local mapped = {}
  for key, fn in pairs(fns) do
    if key ~= '' and (vim.fn.maparg(key, 'n', false, true).buffer or 0) == 0 then
      vim.keymap.set('n', key, function()
        if not fn(bufnr) then
          api.nvim_feedkeys(api.nvim_replace_termcodes(key, true, false, true), 'n', false)
        end
      end, { buffer = bufnr, desc = 'redraft: next edit' })
      mapped[#mapped + 1] = key
    end
  end
  return mapped
end

function M.unmap(bufnr, keys)
  for _, key in ipairs(keys or {}) do
    pcall(vim.keymap.del, 'n', key, { buffer = bufnr })
  end
end

function M.highlight()
  api.nvim_set_hl(0, 'RedraftNextEdit', { link = 'DiffAdd', default = true })
  api.nvim_set_hl(0, 'RedraftNextEditDelete', { link = 'DiffDelete', default = true })
  api.nvim_set_hl(0, 'RedraftNextEditHint', { link = 'Comment', default = true })
end

return M
