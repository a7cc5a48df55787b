"""Real Twitter API v1.1 statuses to canonical tweets: the simdjson sample, round trip, rules
for missing fields, and errors that name the status, line and field."""
import copy
import json

import pytest

from serbench.models.checksum import object_hash
from serbench.datasets.samples import SampleError, fetch_twitter_sample
from serbench.datasets.tweet_ingest import IngestError, ingest_tweets
from serbench.models import MAX_NESTING, ListOf, Opt, Ref, STRUCTS, TWEET_KIND_SHARES, nesting


@pytest.fixture(scope="module")
def sample(request):
    # fetched once from the npm registry (setup installs npm); a failed fetch fails the
    # tests rather than skipping them, so the ingest is never silently untested
    return fetch_twitter_sample(request.config.cache.mkdir("samples"))


@pytest.fixture(scope="module")
def statuses(sample):
    return json.loads(sample.read_text("utf-8"))["statuses"]


def read_lines(path):
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def hashes(path):
    return [object_hash("tweet", t) for t in read_lines(path)]


def ingest_one(tmp_path, status, name="one"):
    """The canonical tweet of one status, given as a one-line file."""
    source = tmp_path / f"{name}.jsonl"
    source.write_text(json.dumps(status) + "\n", encoding="utf-8")
    out = tmp_path / f"{name}.out"
    ingest_tweets(source, out)
    (tweet,) = read_lines(out)
    return tweet


def assert_canonical_keys(obj, struct):
    """Only model keys, in canonical order, recursively."""
    order = [name for name, _ in STRUCTS[struct].fields]
    assert list(obj) == [name for name in order if name in obj]
    for name, ftype in STRUCTS[struct].fields:
        inner = ftype.inner if isinstance(ftype, Opt) else ftype
        if name not in obj:
            assert isinstance(ftype, Opt), name
        elif isinstance(inner, Ref):
            assert_canonical_keys(obj[name], inner.name)
        elif isinstance(inner, ListOf) and isinstance(inner.inner, Ref):
            for item in obj[name]:
                assert_canonical_keys(item, inner.inner.name)


def test_the_real_sample_gives_100_valid_tweets(sample, tmp_path):
    out = tmp_path / "tweet.jsonl.tmp"
    stats = ingest_tweets(sample, out)
    lines = out.read_text("utf-8").splitlines()
    assert stats.count == len(lines) == 100
    for line in lines:
        tweet = json.loads(line)
        object_hash("tweet", tweet)
        assert_canonical_keys(tweet, "Tweet")
        assert line == json.dumps(tweet, ensure_ascii=False, separators=(",", ":"))
    assert stats.mean_bytes == sum(len(line.encode()) for line in lines) / 100
    assert set(stats.kinds) == set(TWEET_KIND_SHARES) and sum(stats.kinds.values()) == 100
    # the sample (2014) has plain tweets and retweets, and no quotes yet
    assert stats.kinds["plain"] > 0 and stats.kinds["retweet"] > 0


def test_canonical_output_ingests_to_the_same_tweets(sample, tmp_path):
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    ingest_tweets(sample, first)
    stats = ingest_tweets(first, second)
    assert stats.count == 100
    assert hashes(second) == hashes(first)
    assert second.read_bytes() == first.read_bytes()


def test_search_response_array_and_lines_agree(statuses, tmp_path):
    forms = {
        "response.json": json.dumps({"statuses": statuses[:10], "search_metadata": {}},
                                    indent=2),
        "array.json": json.dumps(statuses[:10], indent=1),
        "lines.jsonl": "".join(json.dumps(s) + "\n\n" for s in statuses[:10]),
    }
    results = []
    for name, text in forms.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        ingest_tweets(tmp_path / name, tmp_path / (name + ".out"))
        results.append(hashes(tmp_path / (name + ".out")))
    assert results[0] == results[1] == results[2] and len(results[0]) == 10


def test_unknown_keys_are_ignored(statuses, tmp_path):
    status = copy.deepcopy(statuses[0])
    plain = ingest_tweets_hash(tmp_path, status, "plain")
    status["not_in_the_model"] = {"x": [1, 2]}
    status["user"]["also_unknown"] = None
    status["entities"]["polls"] = []
    assert ingest_tweets_hash(tmp_path, status, "extra") == plain


def test_null_optional_equals_missing_optional(statuses, tmp_path):
    status = copy.deepcopy(statuses[0])
    status["user"]["url"] = None
    status["place"] = None
    status["in_reply_to_status_id"] = None
    with_nulls = ingest_tweets_hash(tmp_path, status, "nulls")
    for key in ("place", "in_reply_to_status_id"):
        del status[key]
    del status["user"]["url"]
    assert ingest_tweets_hash(tmp_path, status, "missing") == with_nulls
    assert "place" not in ingest_one(tmp_path, status, "check")


def ingest_tweets_hash(tmp_path, status, name):
    return object_hash("tweet", ingest_one(tmp_path, status, name))


def test_rules_for_required_fields_missing_in_real_data(statuses, tmp_path):
    status = copy.deepcopy(statuses[0])
    assert "is_quote_status" not in status  # the sample predates quote tweets
    status["full_text"] = status.pop("text")
    del status["id_str"], status["user"]["id"], status["entities"]["symbols"]
    tweet = ingest_one(tmp_path, status)
    assert tweet["is_quote_status"] is False
    assert tweet["text"] == statuses[0]["text"]
    assert tweet["id_str"] == str(status["id"])
    assert tweet["user"]["id"] == int(status["user"]["id_str"])
    assert tweet["entities"]["symbols"] == []

    quoting = copy.deepcopy(statuses[0])
    quoting["quoted_status"] = copy.deepcopy(statuses[1])
    tweet = ingest_one(tmp_path, quoting, "quote")
    assert tweet["is_quote_status"] is True
    assert tweet["quoted_status"]["is_quote_status"] is False


def test_f64_values_are_written_as_floats(statuses, tmp_path):
    status = copy.deepcopy(statuses[0])
    status["coordinates"] = {"type": "Point", "coordinates": [139, 35.5]}
    tweet = ingest_one(tmp_path, status)
    assert tweet["coordinates"]["coordinates"] == [139.0, 35.5]
    assert type(tweet["coordinates"]["coordinates"][0]) is float


def write_lines(tmp_path, lines):
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return source


@pytest.mark.parametrize("break_status, line, field, reason", [
    (lambda s: s["user"].pop("followers_count"), 2, "user.followers_count",
     "missing required field"),
    (lambda s: s.update(retweet_count="5"), 2, "retweet_count", "expected i32, got string"),
    (lambda s: s["entities"].update(hashtags={}), 2, "entities.hashtags",
     "expected list, got object"),
    (lambda s: s.update(user=None), 2, "user", "missing required field"),
    (lambda s: s["user"].update(followers_count=2**40), 2, "user.followers_count",
     f"{2**40} out of range for i32"),
])
def test_bad_fields_are_reported_with_line_and_path(statuses, tmp_path, break_status, line,
                                                    field, reason):
    bad = copy.deepcopy(statuses[1])
    break_status(bad)
    source = write_lines(tmp_path, [json.dumps(statuses[0]), json.dumps(bad)])
    out = tmp_path / "out.tmp"
    with pytest.raises(IngestError) as caught:
        ingest_tweets(source, out)
    error = caught.value
    assert error.path == field and error.reason == reason
    assert str(error) == f"bad.jsonl: status {line} (line {line}): {field}: {reason}"
    assert not out.exists()


def test_a_missing_field_deep_in_a_retweet_names_its_path(statuses, tmp_path):
    retweet = copy.deepcopy(next(s for s in statuses if "retweeted_status" in s))
    del retweet["retweeted_status"]["user"]["screen_name"]
    source = write_lines(tmp_path, [json.dumps(retweet)])
    with pytest.raises(IngestError, match=r"status 1 \(line 1\): "
                                          r"retweeted_status\.user\.screen_name: missing"):
        ingest_tweets(source, tmp_path / "out.tmp")


@pytest.mark.parametrize("text, reason", [
    ("{not json", "not JSON"),
    ("[1, 2]", "expected Tweet object, got list"),
    ('"a string"', "expected Tweet object, got string"),
])
def test_malformed_lines_are_reported_with_their_line(statuses, tmp_path, text, reason):
    source = write_lines(tmp_path, [json.dumps(statuses[0]), "", text])
    with pytest.raises(IngestError, match=rf"bad\.jsonl: status 2 \(line 3\): {reason}"):
        ingest_tweets(source, tmp_path / "out.tmp")


def test_a_bad_status_in_a_search_response_is_named_by_index(statuses, tmp_path):
    bad = copy.deepcopy(statuses[2])
    del bad["favorited"]
    source = tmp_path / "response.json"
    source.write_text(json.dumps({"statuses": [statuses[0], statuses[1], bad]}, indent=2),
                      encoding="utf-8")
    with pytest.raises(IngestError, match=r"response\.json: status 3 \(statuses\[2\]\): "
                                          r"favorited: missing required field"):
        ingest_tweets(source, tmp_path / "out.tmp")


def retweeted(statuses, depth):
    """A real status retweeted, and that retweeted, until it nests `depth` levels."""
    plain = next(s for s in statuses if "retweeted_status" not in s and "quoted_status" not in s)
    status = copy.deepcopy(plain)
    while nesting(status) < depth:
        status = {**copy.deepcopy(plain), "retweeted_status": status}
    assert nesting(status) == depth
    return status


def test_statuses_nest_at_most_max_nesting_levels(statuses, tmp_path):
    assert nesting(ingest_one(tmp_path, retweeted(statuses, MAX_NESTING))) <= MAX_NESTING
    source = write_lines(tmp_path, [json.dumps(statuses[0]),
                                    json.dumps(retweeted(statuses, MAX_NESTING + 1))])
    with pytest.raises(IngestError, match=rf"bad\.jsonl: status 2 \(line 2\): nested "
                                          rf"{MAX_NESTING + 1} levels deep; canonical objects "
                                          rf"nest at most {MAX_NESTING} levels"):
        ingest_tweets(source, tmp_path / "out.tmp")


@pytest.mark.parametrize("document", [False, True])
def test_nesting_too_deep_to_parse_is_an_error_not_a_traceback(tmp_path, document):
    deep = "[" * 100_000 + "]" * 100_000
    source = tmp_path / "deep.json"
    source.write_text('{\n"statuses": [' + deep + "]}" if document else deep + "\n",
                      encoding="utf-8")
    where = "document" if document else r"status 1 \(line 1\)"
    with pytest.raises(IngestError, match=rf"deep\.json: {where}: nested too deeply to parse"):
        ingest_tweets(source, tmp_path / "out.tmp")


def test_nesting_counts_objects_and_lists():
    assert nesting(5) == 0 and nesting({}) == 1 and nesting([[], {"a": [1]}]) == 3


@pytest.mark.parametrize("text", ['{"statuses": 5}', '{\n"search_metadata": {}}', "42",
                                  "{\n broken"])
def test_documents_that_are_not_statuses_are_refused(tmp_path, text):
    source = tmp_path / "doc.json"
    source.write_text(text, encoding="utf-8")
    with pytest.raises(IngestError, match=r"doc\.json: document: "):
        ingest_tweets(source, tmp_path / "out.tmp")


def test_the_cached_sample_is_reused_without_npm(sample, monkeypatch):
    monkeypatch.setenv("PATH", "")
    assert fetch_twitter_sample(sample.parent) == sample


def test_fetching_without_npm_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SampleError, match="npm is needed to fetch simdjson@0.9.2"):
        fetch_twitter_sample(tmp_path / "cache")
    assert not (tmp_path / "cache").exists()
