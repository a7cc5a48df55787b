"""PROTOCOL.md 2.1, through the real drivers: a tweet nested MAX_NESTING levels deep goes
through every method of every driver and back to its checksum, and one level deeper is
refused by every driver's JSON Lines loader as corrupt input naming the file and line (so no
writer ever makes what a reader would refuse). Every driver must be built."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import built_driver
from serbench.models.checksum import hex64, object_hash
from serbench.drivers.process import LANGUAGES, DriverProcess
from serbench.models import MAX_NESTING, STRUCTS, nesting

VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "tweet.jsonl"


def tweet_nested(depth: int) -> dict:
    """The deepest golden tweet retweeted, and that retweeted, until it nests `depth`."""
    tweets = [json.loads(line) for line in VECTORS.read_text("utf-8").splitlines()]
    plain = next(t for t in tweets if "retweeted_status" not in t and "quoted_status" not in t)
    order = [name for name, _ in STRUCTS["Tweet"].fields]
    tweet = max(tweets, key=nesting)
    while nesting(tweet) < depth:
        retweet = {**plain, "retweeted_status": tweet}
        tweet = {k: retweet[k] for k in order if k in retweet}
    assert nesting(tweet) == depth
    return tweet


def write_line(path: Path, tweet: dict) -> Path:
    path.write_text(json.dumps(tweet, ensure_ascii=False, separators=(",", ":")) + "\n",
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module", params=LANGUAGES)
def driver(request):
    with DriverProcess(request.param, built_driver(request.param), timeout_s=60) as d:
        yield d


def test_every_method_takes_the_deepest_canonical_tweet_back(driver, tmp_path):
    tweet = tweet_nested(MAX_NESTING)
    source = write_line(tmp_path / "deepest.jsonl", tweet)
    want = {"count": 1, "sum": hex64(object_hash("tweet", tweet))}
    methods = sorted(m for m in driver.request("info")["result"]["methods"] if m != "raw")
    answers = {m: driver.request("roundtrip", method=m, model="tweet", depth="materialize",
                                 variant="", params={"input": str(source)}) for m in methods}
    wrong = {m: a for m, a in answers.items()
             if a["status"] != "ok" or a["result"]["checksum"] != want}
    assert not wrong


def test_one_level_deeper_is_refused_when_loading(driver, tmp_path):
    source = write_line(tmp_path / "deeper.jsonl", tweet_nested(MAX_NESTING + 1))
    answer = driver.request("load", model="tweet", params={"input": str(source)})
    assert answer["status"] == "error" and answer["error"]["kind"] == "corrupt_input"
    message = answer["error"]["message"]
    assert re.search(r"deeper\.jsonl(: line |:)1\b", message), message
    assert f"canonical objects nest at most {MAX_NESTING}" in message
