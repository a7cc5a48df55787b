//! `serve`: one JSON request per line in, one JSON response per line out, until the input
//! ends or a `shutdown`. Bad input of any kind becomes an error response; a panic inside a
//! request becomes an `internal` error, and the next request is read.

use std::io::{self, BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::Value;

use crate::ops::answer;
use crate::protocol::{response, Failure, Kind, Request};

pub fn serve(mut input: impl BufRead, output: impl Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(output);
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (id, outcome, stop) = handle(&line);
        serde_json::to_writer(&mut out, &response(&id, outcome))?;
        out.write_all(b"\n")?;
        out.flush()?;
        if stop {
            return Ok(());
        }
    }
}

/// The request's id, its outcome, and whether it asked the driver to stop.
fn handle(line: &[u8]) -> (Value, Result<Value, Failure>, bool) {
    let req: Request = match serde_json::from_slice(line) {
        Ok(req) => req,
        Err(e) => {
            let id = serde_json::from_slice::<Value>(line)
                .ok()
                .and_then(|v| v.get("id").cloned())
                .unwrap_or(Value::Null);
            let message = format!("not a request: {e}");
            return (id, Err(Failure::bad_request(message)), false);
        }
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| answer(&req))).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Failure::new(
            Kind::Internal,
            format!("the driver panicked: {what}"),
        ))
    });
    (req.id, outcome, req.op == "shutdown")
}

/// The serve loop fed request lines in-process, as the harness sends them.
#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use serde_json::{json, Value};

    use serbench_model::ModelId;

    use super::serve;
    use crate::test_support::{vectors, Scratch};

    /// Sends each request (one line each) and returns the parsed responses.
    fn exchange(requests: &[Value]) -> Vec<Value> {
        let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
        raw_exchange(&input)
    }

    fn raw_exchange(input: &str) -> Vec<Value> {
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn one(request: Value) -> Value {
        exchange(&[request]).remove(0)
    }

    fn error_kind(response: &Value) -> &str {
        response["error"]["kind"]
            .as_str()
            .unwrap_or_else(|| panic!("not an error: {response}"))
    }

    fn golden(model: &str) -> String {
        vectors()
            .join(format!("{model}.jsonl"))
            .display()
            .to_string()
    }

    fn expected_set(model: &str) -> Value {
        let path = vectors().join(format!("{model}.expected.json"));
        let doc: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
        doc["set_checksum"].clone()
    }

    #[test]
    fn info_lists_every_method_model_and_task() {
        let r = one(json!({"id": 1, "op": "info"}));
        assert_eq!(r["status"], "ok");
        let info = &r["result"];
        assert_eq!(info["language"], "rust");
        assert_eq!(
            info["tasks"],
            json!([
                "write",
                "read_seq",
                "read_rand",
                "read_par",
                "sort_dedup",
                "memory",
                "micro"
            ])
        );
        assert_eq!(
            info["methods"]["handcoded"]["depths"],
            json!(["materialize", "access"])
        );
        assert_eq!(info["methods"]["raw"]["depths"], json!([]));
        assert_eq!(
            info["methods"]["raw"]["floors"],
            json!(["write", "sort_dedup"])
        );
        assert_eq!(info["methods"]["json_gzip"]["settings"]["gzip_level"], 6);
        // bincode 1 and bincode 2 (renamed) are both linked
        assert_eq!(info["libraries"]["bincode"], "1.3.3, 2.0.1");
        // each method names its own crates, at the version linked
        assert_eq!(info["methods"]["bincode"]["libraries"]["bincode"], "1.3.3");
        assert_eq!(
            info["methods"]["bincode2"]["libraries"],
            json!({"bincode": "2.0.1"})
        );
        assert_eq!(info["methods"]["handcoded"]["libraries"], json!({}));
        for (id, method) in info["methods"].as_object().unwrap() {
            for (name, version) in method["libraries"].as_object().unwrap() {
                let linked = info["libraries"][name].as_str().unwrap_or("");
                let version = version.as_str().unwrap();
                assert!(
                    linked.split(", ").any(|v| v == version),
                    "{id}: {name} {version}, linked {linked:?}"
                );
            }
        }
        // the built-in models, then a user's
        let models: Vec<&str> = info["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(models.len(), ModelId::ALL.len());
        assert!(models.starts_with(&ModelId::BUILTIN.map(ModelId::name)));
        assert_eq!(info["eviction"], json!(["fadvise_dontneed"]));
    }

    #[test]
    fn garbage_is_answered_and_the_next_request_still_served() {
        let r = raw_exchange("this is not json\n{\"id\": 4, \"op\": 7}\n\n{\"id\": 5, \"op\": \"shutdown\"}\n{\"id\": 6, \"op\": \"info\"}\n");
        assert_eq!(r.len(), 3, "nothing is read after shutdown");
        assert_eq!(
            (r[0]["id"].clone(), error_kind(&r[0])),
            (Value::Null, "bad_request")
        );
        assert_eq!(
            (r[1]["id"].clone(), error_kind(&r[1])),
            (json!(4), "bad_request")
        );
        assert_eq!(r[2], json!({"id": 5, "status": "ok", "result": {}}));
    }

    #[test]
    fn unknown_names_are_bad_requests() {
        let input = golden("trade");
        let base = json!({"id": 1, "op": "scan", "model": "trade", "method": "handcoded",
                          "depth": "access", "variant": "", "params": {"input": input}});
        let with = |key: &str, value: &str| {
            let mut r = base.clone();
            r[key] = json!(value);
            r
        };
        let cases = [
            with("op", "explode"),
            with("model", "nope"),
            with("method", "nope"),
            with("depth", "deep"),
            json!({"id": 1, "op": "run", "task": "fly", "model": "trade", "method": "raw",
                   "depth": "", "variant": "", "params": {}}),
            json!({"id": 1, "op": "run", "task": "read_seq", "model": "trade", "method": "handcoded",
                   "depth": "", "variant": "", "params": {}}),
        ];
        for (request, response) in cases.iter().zip(exchange(&cases)) {
            assert_eq!(
                error_kind(&response),
                "bad_request",
                "{request} → {response}"
            );
        }
    }

    #[test]
    fn cells_outside_the_capability_matrix_are_unsupported() {
        let cases = [
            json!({"id": 1, "op": "roundtrip", "model": "trade", "method": "bincode",
                   "depth": "access", "variant": "", "params": {"input": "x"}}),
            json!({"id": 2, "op": "roundtrip", "model": "trade", "method": "handcoded",
                   "depth": "key", "variant": "", "params": {"input": "x"}}),
            json!({"id": 3, "op": "scan", "model": "trade", "method": "handcoded",
                   "depth": "access", "variant": "unsafe", "params": {"input": "x"}}),
            json!({"id": 4, "op": "encode", "model": "trade", "method": "raw", "depth": "",
                   "variant": "", "params": {"input": "x", "output": "y"}}),
            json!({"id": 5, "op": "run", "task": "sort_dedup", "model": "trade",
                   "method": "handcoded", "depth": "access", "variant": "", "params": {}}),
            json!({"id": 6, "op": "scan", "model": "trade", "method": "raw", "depth": "materialize",
                   "variant": "", "params": {"input": "x"}}),
        ];
        for (request, response) in cases.iter().zip(exchange(&cases)) {
            assert_eq!(response["status"], "unsupported", "{request} → {response}");
            assert!(response["message"].as_str().unwrap().len() > 10);
        }
    }

    #[test]
    fn load_and_roundtrip_reproduce_the_golden_checksums() {
        let mut requests = vec![json!({"id": 0, "op": "load", "model": "tweet",
                                       "params": {"input": golden("tweet")}})];
        for (method, depth) in [
            ("handcoded", "materialize"),
            ("handcoded", "access"),
            ("bincode", "materialize"),
            ("json_gzip", "materialize"),
        ] {
            requests.push(json!({"id": 1, "op": "roundtrip", "model": "tweet", "method": method,
                                 "depth": depth, "variant": "", "params": {"input": golden("tweet")}}));
        }
        for r in exchange(&requests) {
            assert_eq!(r["status"], "ok", "{r}");
            assert_eq!(r["result"]["checksum"], expected_set("tweet"));
            if r["id"] == 1 {
                assert_eq!(
                    (
                        r["result"]["mismatches"].clone(),
                        r["result"]["first_mismatch"].clone()
                    ),
                    (json!(0), Value::Null)
                );
            }
        }
    }

    #[test]
    fn missing_inputs_are_not_found_and_bad_json_lines_corrupt() {
        let scratch = Scratch::new();
        let bad = scratch.join("bad.jsonl");
        fs::write(&bad, "{\"source_id\": 1}\n").unwrap();
        let r = exchange(&[
            json!({"id": 1, "op": "load", "model": "trade", "params": {"input": scratch.join("none.jsonl")}}),
            json!({"id": 2, "op": "load", "model": "trade", "params": {"input": bad}}),
        ]);
        assert_eq!(error_kind(&r[0]), "not_found");
        assert_eq!(error_kind(&r[1]), "corrupt_input");
        assert!(r[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("bad.jsonl:1: special: missing required field"));
    }

    #[test]
    fn encode_scan_and_every_task_through_the_pipe() {
        let scratch = Scratch::new();
        let base = scratch.join("part");
        let ids = scratch.join("ids.u64");
        fs::write(
            &ids,
            [3u64, 0, 3, 1]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
        .unwrap();
        let cell = |id: u64, op: &str, method: &str, depth: &str, params: Value| {
            json!({"id": id, "op": op, "task": "", "model": "part", "method": method,
                   "depth": depth, "variant": "", "params": params})
        };
        let task = |id: u64, task: &str, method: &str, depth: &str, params: Value| {
            let mut r = cell(id, "run", method, depth, params);
            r["task"] = json!(task);
            r
        };
        let reps = json!({"cold": true, "warmups": 1, "repetitions": 2});
        let with = |extra: Value| {
            let mut p = reps.clone();
            p.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            p
        };
        let responses = exchange(&[
            cell(
                1,
                "encode",
                "bincode",
                "",
                json!({"input": golden("part"), "output": base, "page_size": 4096}),
            ),
            cell(
                2,
                "scan",
                "bincode",
                "materialize",
                json!({"input": base, "page_size": 4096}),
            ),
            task(
                3,
                "write",
                "handcoded",
                "",
                with(json!({"input": golden("part"), "output": base, "page_size": 128})),
            ),
            task(
                4,
                "read_seq",
                "handcoded",
                "access",
                with(json!({"input": base, "start": 1, "n": 3})),
            ),
            task(
                5,
                "read_rand",
                "handcoded",
                "materialize",
                with(json!({"input": base, "ids": ids, "n": 3})),
            ),
            task(
                6,
                "read_seq",
                "raw",
                "",
                with(json!({"input": base, "start": 0, "n": 4})),
            ),
            task(
                7,
                "read_seq",
                "handcoded",
                "access",
                with(json!({"input": base, "start": 2, "n": 3})),
            ),
            task(
                8,
                "read_seq",
                "bincode",
                "materialize",
                with(json!({"input": base, "start": 0, "n": 1})),
            ),
        ]);
        let ok: Vec<&Value> = responses.iter().take(6).map(|r| &r["result"]).collect();
        assert_eq!(
            ok[0]["counters"],
            json!({"objects": 4, "bytes": ok[0]["counters"]["bytes"], "pages": 1})
        );
        assert_eq!(
            (ok[1]["checksum"].clone(), ok[1]["writer"].clone()),
            (expected_set("part"), json!("rust"))
        );
        assert_eq!(ok[2]["checksum"], expected_set("part"));
        assert_eq!(ok[2]["counters"]["objects"], 4);
        assert!(
            ok[2]["counters"]["pages"].as_u64().unwrap() >= 2,
            "objects of ~100 bytes in pages of 128"
        );
        assert_eq!(ok[2]["eviction"], "none");
        assert_eq!(ok[3]["checksum"]["count"], 3);
        assert_eq!(ok[3]["eviction"], "fadvise_dontneed");
        assert_eq!(ok[4]["checksum"]["count"], 3);
        assert_eq!(ok[5]["checksum"]["count"], 4);
        for result in &ok[2..] {
            let samples = result["samples"].as_array().unwrap();
            let warmups: Vec<bool> = samples
                .iter()
                .map(|s| s["warmup"].as_bool().unwrap())
                .collect();
            assert_eq!(warmups, [true, false, false]);
            for s in samples {
                let (total, cpu, io) = (
                    s["total_ns"].as_u64().unwrap(),
                    s["cpu_ns"].as_u64().unwrap(),
                    s["io_ns"].as_u64().unwrap(),
                );
                assert_eq!(total, cpu + io);
                assert!(io > 0, "file calls are timed");
            }
        }
        assert_eq!(error_kind(&responses[6]), "out_of_range");
        assert_eq!(error_kind(&responses[7]), "wrong_file");
    }

    #[test]
    fn the_write_floor_writes_another_methods_file_again_byte_for_byte() {
        let scratch = Scratch::new();
        let (source, floor) = (scratch.join("rkyv"), scratch.join("floor"));
        let reps = json!({"cold": false, "warmups": 0, "repetitions": 2});
        let run = |id: u64, input: &Path, output: &Path| {
            let mut params = reps.clone();
            params["input"] = json!(input);
            params["output"] = json!(output);
            params["page_size"] = json!(128);
            json!({"id": id, "op": "run", "task": "write", "model": "tweet", "method": "raw",
                   "depth": "", "variant": "", "params": params})
        };
        let r = exchange(&[
            // rkyv aligns its objects: the floor must keep the padding between them
            json!({"id": 1, "op": "encode", "model": "tweet", "method": "rkyv", "depth": "",
                   "variant": "", "params": {"input": golden("tweet"), "output": source,
                                             "page_size": 128}}),
            run(2, &source, &floor),
            json!({"id": 3, "op": "run", "task": "read_seq", "model": "tweet", "method": "raw",
                   "depth": "", "variant": "", "params": {"input": source, "start": 0, "n": 4,
                                                         "cold": false, "warmups": 0,
                                                         "repetitions": 1}}),
            run(4, &scratch.join("missing"), &scratch.join("out")),
        ]);
        let result = &r[1]["result"];
        assert_eq!(result["samples"].as_array().unwrap().len(), 2);
        for suffix in [".pages", ".index"] {
            let path = |base: &Path| format!("{}{suffix}", base.display());
            assert_eq!(
                fs::read(path(&floor)).unwrap(),
                fs::read(path(&source)).unwrap()
            );
        }
        // the objects' bytes, folded as the raw read folds them
        assert_eq!(result["checksum"]["count"], 4);
        assert_eq!(result["checksum"], r[2]["result"]["checksum"]);
        assert_eq!(error_kind(&r[3]), "not_found");
    }

    #[test]
    fn the_sort_floor_moves_another_methods_objects_into_sorted() {
        let scratch = Scratch::new();
        let (source, output) = (scratch.join("rkyv"), scratch.join("sort"));
        fs::create_dir(&output).unwrap();
        let sorted = output.join("sorted");
        let raw = |id: u64, task: &str, depth: &str, params: Value| {
            let mut params = params;
            params["cold"] = json!(false);
            params["warmups"] = json!(0);
            params["repetitions"] = json!(2);
            json!({"id": id, "op": "run", "task": task, "model": "tweet", "method": "raw",
                   "depth": depth, "variant": "", "params": params})
        };
        let sort = json!({"input": source, "output": output, "budget_bytes": 256,
                          "page_size": 128});
        let r = exchange(&[
            json!({"id": 1, "op": "encode", "model": "tweet", "method": "rkyv", "depth": "",
                   "variant": "", "params": {"input": golden("tweet"), "output": source,
                                             "page_size": 128}}),
            raw(2, "sort_dedup", "", sort.clone()),
            raw(
                3,
                "read_seq",
                "",
                json!({"input": source, "start": 0, "n": 4}),
            ),
            raw(
                4,
                "read_seq",
                "",
                json!({"input": sorted, "start": 0, "n": 4}),
            ),
            raw(5, "sort_dedup", "materialize", sort),
        ]);
        let result = &r[1]["result"];
        // every object of the input, its bytes folded as the raw read folds them
        assert_eq!(result["checksum"]["count"], 4);
        assert_eq!(result["checksum"], r[2]["result"]["checksum"]);
        assert_eq!(r[3]["result"]["checksum"], r[2]["result"]["checksum"]);
        let counters = &result["counters"];
        assert_eq!(
            (&counters["input_objects"], &counters["output_objects"]),
            (&json!(4), &json!(4))
        );
        // tweets of more than 128 bytes: a run each, merged two at a time (fan-in 2)
        assert_eq!(counters["runs"], 4);
        assert_eq!(counters["merge_passes"], 3);
        assert_eq!(r[4]["status"], "unsupported");
    }

    #[test]
    fn read_seq_and_read_rand_hash_the_objects_they_name() {
        let scratch = Scratch::new();
        let base = scratch.join("trade");
        let ids = scratch.join("ids.u64");
        fs::write(
            &ids,
            [1u64, 1]
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
        .unwrap();
        let expected: Value =
            serde_json::from_slice(&fs::read(vectors().join("trade.expected.json")).unwrap())
                .unwrap();
        let hash = |i: usize| {
            u64::from_str_radix(expected["objects"][i]["hash"].as_str().unwrap(), 16).unwrap()
        };
        let params = |extra: Value| {
            let mut p = json!({"cold": false, "warmups": 0, "repetitions": 1});
            p.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            p
        };
        let r = exchange(&[
            json!({"id": 1, "op": "encode", "model": "trade", "method": "json_gzip", "depth": "", "variant": "",
                   "params": {"input": golden("trade"), "output": base, "page_size": 262144}}),
            json!({"id": 2, "op": "run", "task": "read_seq", "model": "trade", "method": "json_gzip",
                   "depth": "materialize", "variant": "", "params": params(json!({"input": base, "start": 1, "n": 1}))}),
            json!({"id": 3, "op": "run", "task": "read_rand", "model": "trade", "method": "json_gzip",
                   "depth": "materialize", "variant": "", "params": params(json!({"input": base, "ids": ids, "n": 2}))}),
            json!({"id": 4, "op": "run", "task": "read_rand", "model": "trade", "method": "json_gzip",
                   "depth": "materialize", "variant": "", "params": params(json!({"input": base, "ids": ids, "n": 3}))}),
        ]);
        assert_eq!(
            r[1]["result"]["checksum"],
            json!({"count": 1, "sum": format!("{:016x}", hash(1))})
        );
        assert_eq!(
            r[2]["result"]["checksum"],
            json!({"count": 2, "sum": format!("{:016x}", hash(1).wrapping_mul(2))})
        );
        assert_eq!(error_kind(&r[3]), "bad_request", "the id file holds 2 ids");
    }
}
