"""The HTTP front door (OpenAI- and Mercury-compatible) over the same engine as the language
server: formats.py reads what clients send, runner.py holds the engine on its one model thread,
app.py is the Starlette app, serve.py runs it with uvicorn (`redraft serve --http HOST:PORT`)."""
