-- redraft.nvim: user commands. Nothing starts until require('redraft').setup() is called.
-- Loads on any Neovim: on one older than 0.10 the commands only say what is needed.
if vim.g.loaded_redraft or not vim.api.nvim_create_user_command then
  return
end
vim.g.loaded_redraft = true

local function command(name, nargs, desc, complete)
  vim.api.nvim_create_user_command('Redraft' .. name, function(args)
    require('redraft').command(name:lower(), args)
  end, { nargs = nargs, desc = desc, complete = complete })
end

command('Toggle', 0, 'redraft: turn completions on or off')
command('Effort', '?', 'redraft: show or set the effort (instant, low, medium, high, max)', function()
  return { 'instant', 'low', 'medium', 'high', 'max' }
end)
command('Status', 0, 'redraft: show the plugin, the server and the model state')
command('ApplyClipboard', '?', 'redraft: merge the edit snippet in the clipboard (or {reg}) into the buffer')
command('NextEdit', 0, 'redraft: ask for the next edit at the cursor now (Tab jumps to it, Tab again applies it)')
