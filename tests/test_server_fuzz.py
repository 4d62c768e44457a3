"""A short, seeded run of the protocol fuzzer (bench/fuzz.py; the benchmark runs 10,000 messages and
1,000 edits): against the real server, every request with a valid id answered exactly once, only
valid JSON-RPC 2.0 out, no response to an id never sent, the server's copy of the document equal to
the client's after random incremental edits, no traceback, exit code 0; frames of every shape
(bench/fuzz.py FRAMES) served or answered with ParseError and their id as the shape asks, with
nothing lost after a malformed frame, and a body cut short by the end of input answered."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import fuzz  # noqa: E402


def test_fuzzed_session_keeps_the_protocol():
    report = fuzz.run(messages=600, edits=100, seed=3, time_limit_s=240)
    assert report["edits_done"] == 100 and "stopped_early_at" not in report
    assert report["requests_with_valid_ids"] > 200 and report["null_id_answers"] > 50
    assert report["unanswered"] == [] and report["answered_twice"] == []
    assert report["invalid_output"] == []
    assert report["document_checks"] >= 2 and report["document_mismatches"] == 0
    assert report["tracebacks"] == 0, report["stderr_sample"]
    assert report["shutdown_answered"] and report["exit_code"] == 0
    # the frame shapes: most of them seen in this short run, each answered as it asks
    assert report["malformed_frames"] >= 30 and len(report["shapes"]) >= 14, report["shapes"]
    assert report["frames_not_as_expected"] == []
    assert report["loss_after_malformed"]["max"] == 0, report["loss_after_malformed"]
    assert report["short_body_at_end_answered"]
    assert report["ok"]
