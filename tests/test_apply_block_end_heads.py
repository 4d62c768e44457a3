"""Issue 43: new lines at the end of a block, after a fragment whose first lines are closing lines
found several times in that block.  The shape, from a real release (hypercorn's protocol/h11.py):
a method header, an indented marker, the `)` / `)` that close the method's last call, two new
lines, then a less indented marker.  The new lines end the block, so the fragment runs to the
block's end; the closing lines fit every call in the method.

The merge refused it ("matches more than one place").  Now, of several such places, the one where
the block's remaining lines are the fragment's first lines as they are (nothing dropped, nothing
rewritten) is taken; when none or several are, it is still refused."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (a method with three calls that close alike; the snippet: header, marker, the closing lines, new lines)
LANGS = {
    "python": ('''class Proto:
    async def create(self, request):
        self.ws = make(
            WSStream(
                app=self.app,
            )
        )
        self.http = make(
            HTTPStream(
                app=self.app,
            )
        )
        await self.stream.handle(
            Request(
                path=request.target,
            )
        )

    async def send(self, event):
        pass
''', '''    # ... existing code ...
    async def create(self, request):
        # ... existing code ...
            )
        )
NEW
    # ... existing code ...
''', "        self.keep_alive += 1\n        await self.context.mark()\n"),
    "javascript": ('''class Proto {
  async create(request) {
    this.ws = make(
      new WSStream({
        app: this.app,
      }),
    );
    this.http = make(
      new HTTPStream({
        app: this.app,
      }),
    );
    await this.stream.handle(
      new Request({
        path: request.target,
      }),
    );
  }

  async send(event) {}
}
''', '''  // ... existing code ...
  async create(request) {
    // ... existing code ...
      }),
    );
NEW
  // ... existing code ...
''', "    this.keepAlive += 1;\n    await this.context.mark();\n"),
    "rust": ('''impl Proto {
    async fn create(&mut self, request: Request) {
        self.ws = make(
            WsStream {
                app: self.app,
            },
        );
        self.http = make(
            HttpStream {
                app: self.app,
            },
        );
        self.stream.handle(
            Request {
                path: request.target,
            },
        ).await;
    }

    async fn send(&mut self) {}
}
''', '''    // ... existing code ...
    async fn create(&mut self, request: Request) {
        // ... existing code ...
            },
        ).await;
NEW
    // ... existing code ...
''', "        self.keep_alive += 1;\n        self.context.mark().await;\n"),
    "go": ('''package proto

func (p *Proto) Create(request Request) {
	p.ws = make(
		WsStream{
			App: p.app,
		},
	)
	p.http = make(
		HttpStream{
			App: p.app,
		},
	)
	p.stream.Handle(
		Request{
			Path: request.Target,
		},
	)
}

func (p *Proto) Send() {}
''', '''// ... existing code ...
func (p *Proto) Create(request Request) {
	// ... existing code ...
		},
	)
NEW
// ... existing code ...
''', "\tp.keepAlive++\n\tp.context.Mark()\n"),
}
LANGS["typescript"] = (LANGS["javascript"][0].replace("create(request)", "create(request: Req): Promise<void>"),
                       LANGS["javascript"][1].replace("create(request)", "create(request: Req): Promise<void>"),
                       LANGS["javascript"][2])


def _last_call_end(text: str, new: str) -> str:
    """The file with `new` after the method's last call (the block's last lines)."""
    lines = text.splitlines(keepends=True)
    end = max(i for i, l in enumerate(lines) if l.strip() in (")", ");", ").await;", ")") and
              len(l) - len(l.lstrip()) == len(new) - len(new.lstrip()))
    return "".join(lines[:end + 1]) + new + "".join(lines[end + 1:])


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_new_lines_go_after_the_last_of_the_closing_lines(lang):
    text, snippet, new = LANGS[lang]
    res = merge(text, snippet.replace("NEW\n", new), lang)
    assert res.ok, res.reason
    assert res.text == _last_call_end(text, new)


@pytest.mark.parametrize("lang", sorted(set(LANGS) - {"rust"}))
def test_closing_lines_that_end_no_block_are_refused(lang):
    """The method goes on after its last call (a line the fragment does not show): the closing
    lines fit three places and the block ends as the fragment does at none of them; refused."""
    text, snippet, new = LANGS[lang]
    more = new.splitlines(keepends=True)[0].replace("keep", "done").replace("Alive", "Done")
    res = merge(_last_call_end(text, more), snippet.replace("NEW\n", new), lang)
    assert not res.ok
    assert "more than one place" in res.reason


def test_closing_lines_found_together_once_take_their_place():
    """Rust's closing lines `},` / `).await;` are together only at the awaited call: that block
    holds the fragment's run (anchors._holds_most), and the new lines end it there, rewriting its
    old last line (`self.done_alive += 1;` -> `self.keep_alive += 1;`)."""
    text, snippet, new = LANGS["rust"]
    more = new.splitlines(keepends=True)[0].replace("keep", "done")
    res = merge(_last_call_end(text, more), snippet.replace("NEW\n", new), "rust")
    assert res.ok, res.reason
    assert res.text == _last_call_end(text, new)
