"""The headless CI refactor bot (`redraft ci`): an LSP client that starts `redraft serve` and talks
to it as an editor does (client.py); git.py reads the branch's changes; propagate.py replays them
and collects the next edits the server proposes; apply.py applies lazy snippets through the
server's `redraft.applyEdit`; report.py writes the patch and the review (Markdown, SARIF); cli.py
is `redraft ci propagate | apply`."""
