//! Zed extension: starts `redraft serve` (stdio) as a language server for popup completion.
//!
//! The command is `redraft` found on the worktree's PATH, unless the user's settings name one:
//! `"lsp": {"redraft": {"binary": {"path": "...", "arguments": ["serve"]}}}`. Settings under
//! `lsp.redraft.initialization_options` and `lsp.redraft.settings` reach the server unchanged
//! (shape: `{"redraft": {"effort": "low", ...}}`).
use zed_extension_api::{self as zed, serde_json::Value, settings::LspSettings, LanguageServerId, Result};

const SERVER: &str = "redraft";

struct Redraft;

impl Redraft {
    /// The user's `lsp.redraft` settings, if any (absent or unreadable settings: the defaults).
    fn lsp_settings(worktree: &zed::Worktree) -> Option<LspSettings> {
        LspSettings::for_worktree(SERVER, worktree).ok()
    }
}

impl zed::Extension for Redraft {
    fn new() -> Self {
        Redraft
    }

    fn language_server_command(&mut self, _id: &LanguageServerId, worktree: &zed::Worktree) -> Result<zed::Command> {
        let binary = Self::lsp_settings(worktree).and_then(|s| s.binary);
        let configured = binary.as_ref().and_then(|b| b.path.clone());
        let command = match configured.or_else(|| worktree.which(SERVER)) {
            Some(path) => path,
            None => {
                return Err("redraft: the `redraft` command is not on PATH; install redraft or set \
                            lsp.redraft.binary.path in Zed's settings"
                    .to_string())
            }
        };
        let args = binary
            .as_ref()
            .and_then(|b| b.arguments.clone())
            .unwrap_or_else(|| vec!["serve".to_string()]);
        let mut env = worktree.shell_env();
        if let Some(extra) = binary.and_then(|b| b.env) {
            env.extend(extra);
        }
        Ok(zed::Command { command, args, env })
    }

    fn language_server_initialization_options(
        &mut self,
        _id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<Value>> {
        Ok(Self::lsp_settings(worktree).and_then(|s| s.initialization_options))
    }

    fn language_server_workspace_configuration(
        &mut self,
        _id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<Value>> {
        Ok(Self::lsp_settings(worktree).and_then(|s| s.settings))
    }
}

zed::register_extension!(Redraft);
