"""Remote model backends (issue 45): the `backend` setting (config.py), the FIM prompt templates
(templates.py), the HTTP client with cancellation by closing the connection (client.py), one module
per kind for its wire format (redraft.py, mercury.py, openai_completions.py, llama_cpp.py,
ollama.py; wire.py what they share), and `RemoteEngine` (remote.py), which offers the local
`Engine`'s interface so that the front doors do not change. The engine host (engine/host.py)
builds one instead of loading the model when the backend is remote.

Importing this package imports config.py only (settings.py reads it); remote.py is imported where
an engine is built."""
from redraft.engine.backends.config import KINDS, LOCAL, REMOTE_KINDS, BackendConfig, parse_backend

__all__ = ["BackendConfig", "KINDS", "LOCAL", "REMOTE_KINDS", "parse_backend"]
