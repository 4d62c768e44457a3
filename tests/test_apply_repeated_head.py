"""Issue 43: a fragment whose first lines the file has twice in one function (two branches that end
alike) goes to the copy right before the lines it rewrites, not to the earlier copy, which would
delete the whole branch between them.

The shape, from a real release (starlette's websockets.py): `send` has a branch per state, and the
CONNECTING and CONNECTED branches both end with `)`, `if message_type == "websocket.close":`,
`self.application_state = ...DISCONNECTED`.  The snippet shows those three lines, then the CONNECTED
branch's new `try:` / `except OSError:`, a new RESPONSE branch, the `else:` and the next method's
first lines.  Read from the earlier copy, the fragment agreed about as well (the new branch's
`raise RuntimeError(` / `)` lines lined up with the CONNECTED branch's), and the merge deleted that
branch (7 lines, none of them shown).  When the chosen region holds the fragment's first lines again
and does not keep them, the region from that later copy to the same last line is taken (it deletes
less), unless it deletes a definition the fragment uses, or the earlier region rewrites every line it
drops (then nothing is deleted silently there)."""
from __future__ import annotations

import re

import pytest

from redraft.engine.apply import merge

# language: (marker, file, the new lines the snippet brings between the CONNECTED branch's close
# check and the `else` of `send`)
CASES = {
    "python": ("# ... existing code ...", '''class Socket:
    async def send(self, message):
        if self.state == State.CONNECTING:
            kind = message["type"]
            if kind not in {"accept", "close"}:
                raise RuntimeError(
                    "expected accept or close, "
                    f"but got {kind!r}"
                )
            if kind == "close":
                self.state = State.DISCONNECTED
            else:
                self.state = State.CONNECTED
            await self._send(message)
        elif self.state == State.CONNECTED:
            kind = message["type"]
            if kind not in {"send", "close"}:
                raise RuntimeError(
                    "expected send or close, "
                    f"but got {kind!r}"
                )
            if kind == "close":
                self.state = State.DISCONNECTED
            await self._send(message)
        else:
            raise RuntimeError("closed")

    async def accept(self, headers=None):
        headers = headers or []
        await self.send({"type": "accept", "headers": headers})
''', '''            try:
                await self._send(message)
            except OSError:
                self.state = State.DISCONNECTED
                raise Disconnect(code=1006)
        elif self.state == State.RESPONSE:
            kind = message["type"]
            if kind != "body":
                raise RuntimeError(
                    "expected body, "
                    f"but got {kind!r}"
                )
            if not message.get("more", False):
                self.state = State.DISCONNECTED
            await self._send(message)
'''),
    "javascript": ("// ... existing code ...", '''class Socket {
  async send(message) {
    if (this.state === State.CONNECTING) {
      const kind = message.type;
      if (kind !== "accept" && kind !== "close") {
        throw new Error(
          "expected accept or close, " +
          `but got ${kind}`
        );
      }
      if (kind === "close") {
        this.state = State.DISCONNECTED;
      } else {
        this.state = State.CONNECTED;
      }
      await this._send(message);
    } else if (this.state === State.CONNECTED) {
      const kind = message.type;
      if (kind !== "send" && kind !== "close") {
        throw new Error(
          "expected send or close, " +
          `but got ${kind}`
        );
      }
      if (kind === "close") {
        this.state = State.DISCONNECTED;
      }
      await this._send(message);
    } else {
      throw new Error("closed");
    }
  }

  async accept(headers) {
    headers = headers || [];
    await this.send({ type: "accept", headers });
  }
}
''', '''      try {
        await this._send(message);
      } catch (err) {
        this.state = State.DISCONNECTED;
        throw new Disconnect(1006);
      }
    } else if (this.state === State.RESPONSE) {
      const kind = message.type;
      if (kind !== "body") {
        throw new Error(
          "expected body, " +
          `but got ${kind}`
        );
      }
      if (!message.more) {
        this.state = State.DISCONNECTED;
      }
      await this._send(message);
'''),
    "rust": ("// ... existing code ...", '''impl Socket {
    fn send(&mut self, message: Message) -> Result<(), Error> {
        if self.state == State::Connecting {
            let kind = message.kind();
            if kind != "accept" && kind != "close" {
                return Err(Error::new(
                    "expected accept or close",
                    kind,
                ));
            }
            if kind == "close" {
                self.state = State::Disconnected;
            } else {
                self.state = State::Connected;
            }
            self.raw_send(message)
        } else if self.state == State::Connected {
            let kind = message.kind();
            if kind != "send" && kind != "close" {
                return Err(Error::new(
                    "expected send or close",
                    kind,
                ));
            }
            if kind == "close" {
                self.state = State::Disconnected;
            }
            self.raw_send(message)
        } else {
            Err(Error::closed())
        }
    }

    fn accept(&mut self, headers: Vec<Header>) -> Result<(), Error> {
        let headers = headers.into_iter().collect();
        self.send(Message::accept(headers))
    }
}
''', '''            match self.raw_send(message) {
                Ok(()) => Ok(()),
                Err(err) => {
                    self.state = State::Disconnected;
                    Err(Error::disconnect(1006, err))
                }
            }
        } else if self.state == State::Response {
            let kind = message.kind();
            if kind != "body" {
                return Err(Error::new(
                    "expected body",
                    kind,
                ));
            }
            if !message.more() {
                self.state = State::Disconnected;
            }
            self.raw_send(message)
'''),
    "go": ("// ... existing code ...", '''package ws

func (s *Socket) Send(message Message) error {
	if s.state == Connecting {
		kind := message.Type
		if kind != "accept" && kind != "close" {
			return fmt.Errorf(
				"expected accept or close, but got %q",
				kind,
			)
		}
		if kind == "close" {
			s.state = Disconnected
		} else {
			s.state = Connected
		}
		return s.rawSend(message)
	} else if s.state == Connected {
		kind := message.Type
		if kind != "send" && kind != "close" {
			return fmt.Errorf(
				"expected send or close, but got %q",
				kind,
			)
		}
		if kind == "close" {
			s.state = Disconnected
		}
		return s.rawSend(message)
	} else {
		return errClosed
	}
}

func (s *Socket) Accept(headers []Header) error {
	headers = append([]Header{}, headers...)
	return s.Send(Message{Type: "accept", Headers: headers})
}
''', '''		if err := s.rawSend(message); err != nil {
			s.state = Disconnected
			return &Disconnect{Code: 1006, Err: err}
		}
		return nil
	} else if s.state == Response {
		kind := message.Type
		if kind != "body" {
			return fmt.Errorf(
				"expected body, but got %q",
				kind,
			)
		}
		if !message.More {
			s.state = Disconnected
		}
		return s.rawSend(message)
'''),
}
CASES["typescript"] = (CASES["javascript"][0],
                       CASES["javascript"][1]
                       .replace("async send(message)", "async send(message: Message): Promise<void>")
                       .replace("async accept(headers)", "async accept(headers: Header[]): Promise<void>"),
                       CASES["javascript"][2])


def _shown(text: str, new: str) -> str:
    """The snippet's lines: the CONNECTED branch's last lines from its `)` on (its close check), the
    new lines, then the file's from `send`'s last `else` to the first line of `accept`'s body."""
    lines = text.splitlines()
    check = [i for i, l in enumerate(lines) if re.match(r'\s*if \(?kind ===? "close"', l)][1]
    start = next(i for i in range(check, 0, -1) if lines[i].strip().startswith(")"))
    end = check + (2 if lines[check].endswith(":") else 3)
    other = max(i for i, l in enumerate(lines) if l.strip() in ("else:", "} else {"))
    accept = next(i for i, l in enumerate(lines) if re.search(r"(def|fn|func|async) .*ccept\(", l))
    return "\n".join(lines[start:end] + new.splitlines() + lines[other:accept + 2]) + "\n"


def _truth(text: str, shown: str) -> str:
    """The file with the fragment's region, from the second copy of its first lines to its last
    line, replaced by the fragment."""
    lines, frag = text.splitlines(), shown.splitlines()
    head = [i for i in range(len(lines)) if lines[i:i + 3] == frag[:3]]
    assert len(head) == 2
    last = next(i for i in range(head[1], len(lines)) if lines[i] == frag[-1])
    return "\n".join(lines[:head[1]] + frag + lines[last + 1:]) + "\n"


@pytest.mark.parametrize("lang", sorted(CASES))
def test_first_lines_found_twice_take_the_later_copy(lang):
    marker, text, new = CASES[lang]
    shown = _shown(text, new)
    snippet = marker + "\n" + shown + marker + "\n"
    res = merge(text, snippet, lang)
    assert res.ok, res.reason
    assert res.text == _truth(text, shown)


REWRITE = '''/**
 * Finds all values in the tree associated with the specified key.
 *
 * @since 1.0.0
 * @category elements
 */
export const find: {
  <K>(key: K): <V>(self: Tree<K, V>) => Chunk<V>
  <K, V>(self: Tree<K, V>, key: K): Chunk<V>
} = RBT.find

/**
 * Finds the value in the tree associated with the specified key, if it exists.
 *
 * @since 1.0.0
 * @category elements
 */
export const findFirst: {
  <K>(key: K): <V>(self: Tree<K, V>) => Option<V>
  <K, V>(self: Tree<K, V>, key: K): Option<V>
} = RBT.findFirst
'''
# the snippet's lines: `find` renamed `findAll`, the next doc comment reworded, its tags swapped
REWRITTEN = "\n".join(REWRITE.splitlines()[3:19]).replace("const find:", "const findAll:").replace(
    "RBT.find\n", "RBT.findAll\n").replace("Finds the value", "Finds the first value").replace(
    " * @since 1.0.0\n * @category elements\n */\nexport const findFirst",
    " * @category elements\n * @since 1.0.0\n */\nexport const findFirst") + "\n"


def test_first_lines_found_twice_a_rewrite_of_every_line_between_keeps_the_earlier_copy():
    """When every line the earlier reading drops is rewritten by a like new line (a rename, a
    doc comment reworded: effect's RedBlackTree.ts), nothing is deleted silently there: it stands."""
    snippet = "// ... existing code ...\n" + REWRITTEN + "// ... existing code ...\n"
    lines = REWRITE.splitlines()
    truth = "\n".join(lines[:3] + REWRITTEN.splitlines() + lines[19:]) + "\n"
    res = merge(REWRITE, snippet, "typescript")
    assert res.ok, res.reason
    assert res.text == truth
