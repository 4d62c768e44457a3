---@brief
--- redraft: inline code completions from a small local masked-diffusion model.
--- `redraft serve` speaks LSP over stdio; `redraft` must be on PATH (e.g. a checkout's
--- .venv/bin after `make setup`, or `pip install` of the project), or set `cmd`.
--- With only this file on 'runtimepath', `vim.lsp.enable('redraft')` (Nvim 0.11+) starts it;
--- `require('redraft').setup()` uses the same config and adds ghost text.
--- Server settings (camelCase): enabled, modelDir, device, precision, effort, maxTokens, contextTokens,
--- contextRefresh, enabledLanguages, syntax, threads, feedbackFile. The server answers only for the languages in
--- `enabledLanguages` (default { "python" }).

---@type vim.lsp.Config
return {
  cmd = { 'redraft', 'serve' },
  filetypes = {
    'python',
    'javascript',
    'typescript',
    'typescriptreact',
    'javascriptreact',
    'rust',
    'go',
  },
  root_markers = { '.git', 'pyproject.toml', 'package.json', 'Cargo.toml', 'go.mod' },
  -- empty objects, not lists: an empty Lua table would be sent as [] (vim.json)
  init_options = { redraft = vim.empty_dict() },
  settings = { redraft = vim.empty_dict() },
}
