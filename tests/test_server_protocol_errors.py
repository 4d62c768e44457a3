"""JSON-RPC envelope errors (issue 22's nine cases), each through the real server over stdio: every
request is answered once with the right error (id null where the id itself is invalid), no response
the client did not ask for, no traceback sent to the client or printed, and the server keeps serving
and exits cleanly, also while the model is still loading."""
from __future__ import annotations

import json
import time

import pytest

from lsp_helpers import SAMPLE, raw_session
from redraft.lsp.stdio_client import JsonRpcStdioClient

URI = "file:///robust.py"
RETURN = {"line": 2, "character": 11}


@pytest.fixture(scope="module")
def server():
    c = raw_session(URI, SAMPLE)
    yield c
    assert c.close() == 0
    assert not [line for line in c.stderr if "Traceback" in line], "".join(c.stderr[-40:])


def still_serving(c: JsonRpcStdioClient) -> None:
    assert c.proc.poll() is None
    result = c.request("textDocument/inlineCompletion", {"textDocument": {"uri": URI}, "position": RETURN,
                                                         "context": {"triggerKind": 1}}, timeout=60)
    assert len(result["items"]) == 1


def null_id_error(c: JsonRpcStdioClient, body: bytes) -> dict:
    before = len(c.null_id_responses)
    c.send_bytes(body)
    still_serving(c)  # answered in order: the error came before this answer
    assert len(c.null_id_responses) == before + 1
    response = c.null_id_responses[before]
    assert set(response) == {"jsonrpc", "id", "error"} and response["id"] is None
    return response["error"]


def test_1_deeply_nested_json_is_answered_with_its_id(server):
    deep = "[" * 3000 + "]" * 3000
    body = ('{"jsonrpc":"2.0","id":101,"method":"workspace/executeCommand","params":{"command":"redraft.stats",'
            f'"arguments":[{deep}]}}}}').encode()
    server.send_bytes(body)
    err = server.wait(101, 30)["error"]
    assert err["code"] == -32600 and "nested too deep" in err["message"] and "data" not in err
    still_serving(server)


@pytest.mark.parametrize("bad_id", ["[]", "{}", "[1]", '{"a": 1}'])
def test_2_an_array_or_object_id_is_an_invalid_request_with_id_null(server, bad_id):
    err = null_id_error(server, f'{{"jsonrpc":"2.0","id":{bad_id},"method":"redraft.stats"}}'.encode())
    assert err["code"] == -32600 and "data" not in err


@pytest.mark.parametrize("bad_id", ["true", "false", "1.5"])
def test_3_a_boolean_or_fractional_id_is_not_executed(server, bad_id):
    body = (f'{{"jsonrpc":"2.0","id":{bad_id},"method":"workspace/executeCommand",'
            '"params":{"command":"redraft.accept","arguments":[{"id":"x"}]}}').encode()
    accepted = server.request("workspace/executeCommand", {"command": "redraft.stats"})["feedback"]["accepted"]
    err = null_id_error(server, body)
    assert err["code"] == -32600
    assert server.request("workspace/executeCommand", {"command": "redraft.stats"})["feedback"]["accepted"] == accepted


def test_4_a_failing_request_with_id_null_gets_an_id_null_member(server):
    err = null_id_error(server, b'{"jsonrpc":"2.0","id":null,"method":"textDocument/inlineCompletion","params":{}}')
    assert err["code"] == -32600


def test_5_unknown_method_without_params_is_method_not_found(server):
    server.send_bytes(b'{"jsonrpc":"2.0","id":105,"method":"$/foo"}')
    assert server.wait(105)["error"]["code"] == -32601
    server.send_bytes(b'{"jsonrpc":"2.0","method":"$/foo"}')       # as a notification: ignored
    server.send_bytes(b'{"jsonrpc":"2.0","method":"redraft/unheardOf"}')
    still_serving(server)


def test_6_message_shaped_objects_inside_params_are_data(server):
    inner_request = {"jsonrpc": "2.0", "id": 99, "method": "textDocument/inlineCompletion", "params": {}}
    inner_response = {"jsonrpc": "2.0", "id": 98, "params": []}
    for msg_id, inner in ((106, inner_request), (107, inner_response)):
        server.send({"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand",
                     "params": {"command": "redraft.stats", "arguments": [inner]}})
        assert "result" in server.wait(msg_id)   # the outer request is answered ...
    still_serving(server)
    with server._cond:
        assert 99 not in server._responses and 98 not in server._responses  # ... and nothing else


def test_6_a_document_may_contain_json_rpc_text(server):
    text = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "shutdown"}) + "\n"
    server.open_document("file:///notes.json", text, language_id="json")
    still_serving(server)
    with server._cond:
        assert 5 not in server._responses


def test_7_a_notification_method_with_an_id_is_answered(server):
    server.send({"jsonrpc": "2.0", "id": 108, "method": "workspace/didChangeConfiguration",
                 "params": {"settings": {}}})
    err = server.wait(108, 10)["error"]
    assert err["code"] == -32600 and "notification" in err["message"]
    still_serving(server)


@pytest.mark.parametrize("cancel_id", [{"x": 1}, [1], True, None])
def test_8_cancel_request_with_a_bad_id_is_ignored(server, cancel_id):
    server.notify("$/cancelRequest", {"id": cancel_id})
    server.notify("$/cancelRequest", {})
    server.notify("$/cancelRequest", None)
    still_serving(server)


def test_9_exit_while_the_model_is_loading_is_clean():
    c = JsonRpcStdioClient()
    c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {"window": {"workDoneProgress": True}},
                             "initializationOptions": {"threads": 1, "gate": "always"}})
    c.notify("initialized", {})
    time.sleep(0.3)                                   # the model is loading now
    assert c.close() == 0                             # shutdown + exit
    time.sleep(0.5)
    err = "".join(c.stderr)
    assert "Traceback" not in err and len(err) < 2000, err[:2000]


def test_9_exit_while_denoising_is_clean():
    c = JsonRpcStdioClient()
    c.initialize({"threads": 1, "effort": "max", "debugStepDelayMs": 200, "gate": "always"})
    c.open_document(URI, SAMPLE)
    c.inline_completion(URI, SAMPLE, SAMPLE.index("return ") + 7, timeout=60)   # the model is loaded
    c.request_async("textDocument/inlineCompletion", {"textDocument": {"uri": URI}, "position": RETURN,
                                                      "context": {"triggerKind": 1}})
    time.sleep(0.5)                                   # denoising, one position every 200 ms
    assert c.close() == 0
    time.sleep(0.5)
    err = "".join(c.stderr)
    assert "Traceback" not in err and len(err) < 2000, err[:2000]
