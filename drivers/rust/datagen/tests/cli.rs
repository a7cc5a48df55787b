//! The command line as the harness uses it: summaries on stdout, `FILE:LINE: PATH: message`
//! and exit status 2 for invalid data and bad parameters.

use std::path::PathBuf;
use std::process::{Command, Output};

use serbench_model::{from_json, object_hash, Org};
use serde_json::Value;

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("serbench_cli_{}_{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn datagen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_serbench-datagen"))
        .args(args)
        .output()
        .unwrap()
}

fn summary(args: &[&str]) -> Value {
    let out = datagen(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn failure(args: &[&str]) -> String {
    let out = datagen(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap()
}

fn lines(path: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn every_generator_summary_equals_the_checksum_of_its_file() {
    let dir = Scratch::new("generators");
    let cases: [(&str, Vec<&str>); 5] = [
        ("tweet", vec!["--n", "300", "--seed", "1"]),
        (
            "sparse",
            vec![
                "--n",
                "5",
                "--dimension",
                "10000",
                "--density",
                "0.01",
                "--seed",
                "1",
            ],
        ),
        ("trade", vec!["--n", "20", "--seed", "1"]),
        ("org", vec!["--n", "20", "--seed", "1"]),
        ("arrays", vec!["--k", "3", "--n", "4"]),
    ];
    for (model, params) in cases {
        let out = dir.file(model);
        let mut args = vec![model];
        args.extend(params);
        args.extend(["--out", &out]);
        let generated = summary(&args);
        assert_eq!(
            generated,
            summary(&["checksum", "--model", model, "--in", &out])
        );
        assert_eq!(generated["bytes"], std::fs::metadata(&out).unwrap().len());
    }
    assert_eq!(
        lines(&dir.file("trade"))[0],
        r#"{"source_id":1,"special":true,"order_code":7,"priority":3,"prices":[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0],"quantities":[1,2,3,4,5,6,7,8,9,10]}"#
    );
    let arrays = lines(&dir.file("arrays"));
    assert_eq!(
        arrays,
        vec![r#"{"strings":["Dummy text","Dummy text","Dummy text"],"ints":[0,0,0]}"#; 4]
    );
    for vector in lines(&dir.file("sparse")) {
        let v: Value = serde_json::from_str(&vector).unwrap();
        assert_eq!(v["entries"].as_array().unwrap().len(), 100);
    }
}

#[test]
fn generators_are_deterministic_across_thread_counts() {
    let dir = Scratch::new("threads");
    let (a, b) = (dir.file("a"), dir.file("b"));
    let one = summary(&[
        "--threads",
        "1",
        "tweet",
        "--n",
        "1100",
        "--seed",
        "9",
        "--out",
        &a,
    ]);
    let two = summary(&[
        "--threads",
        "2",
        "tweet",
        "--n",
        "1100",
        "--seed",
        "9",
        "--out",
        &b,
    ]);
    assert_eq!(one, two);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let other = summary(&["tweet", "--n", "1100", "--seed", "10", "--out", &b]);
    assert_ne!(one["sum"], other["sum"]);
}

#[test]
fn replicate_copies_each_line_r_times_and_keeps_the_distinct_count() {
    let dir = Scratch::new("replicate");
    let (input, out) = (dir.file("in"), dir.file("out"));
    let original = summary(&["org", "--n", "30", "--seed", "2", "--out", &input]);
    let replicated = summary(&[
        "replicate",
        "--model",
        "org",
        "--r",
        "3",
        "--seed",
        "4",
        "--in",
        &input,
        "--out",
        &out,
    ]);
    assert_eq!(
        replicated,
        summary(&["checksum", "--model", "org", "--in", &out])
    );
    assert_eq!(replicated["count"], 90);
    assert_eq!(replicated["distinct"], original["distinct"]);
    let mut copied = lines(&out);
    let mut expected: Vec<String> = lines(&input).into_iter().flat_map(|l| vec![l; 3]).collect();
    assert_ne!(copied, expected);
    copied.sort();
    expected.sort();
    assert_eq!(copied, expected);
}

#[test]
fn checksum_writes_object_hashes_in_file_order() {
    let dir = Scratch::new("hashes");
    let (data, hashes) = (dir.file("orgs.jsonl"), dir.file("orgs.hashes"));
    let printed = summary(&["org", "--n", "3000", "--seed", "3", "--out", &data]);
    assert_eq!(
        printed,
        summary(&["checksum", "--model", "org", "--in", &data, "--hashes", &hashes])
    );
    let written: Vec<u64> = std::fs::read(&hashes)
        .unwrap()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let expected: Vec<u64> = lines(&data)
        .iter()
        .map(|line| object_hash(&from_json::<Org>(line.as_bytes()).unwrap()))
        .collect();
    assert_eq!(written, expected);
}

const ORG: &str = r#"{"name":"n","category":"c","country":"DE","type":"FOO","attributes":[{"id":"a","quantity":1,"amount":2,"active":true,"percent":1.5,"size":3}]}"#;

fn write_lines(path: &str, lines: &[String]) {
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn checksum_names_the_first_bad_line_and_field() {
    let dir = Scratch::new("bad");
    let path = dir.file("orgs.jsonl");
    let mut orgs = vec![ORG.to_string(); 20_000];
    orgs[17_000] = ORG.replace(r#""amount":2,"#, "");
    orgs[12_345] = ORG.replace(r#""quantity":1"#, r#""quantity":-129"#);
    write_lines(&path, &orgs);
    assert_eq!(
        failure(&["checksum", "--model", "org", "--in", &path]),
        format!(
            "{path}:12346: attributes[0].quantity: invalid value: integer `-129`, expected i8\n"
        )
    );
    let cases = [
        (
            ORG.replace(r#""amount":2,"#, ""),
            "attributes[0].amount: missing required field",
        ),
        (
            ORG.replace("FOO", "FOO\",\"extra\":\"x"),
            "extra: unknown field",
        ),
        (
            ORG.replace(r#""size":3"#, r#""size":"3""#),
            "attributes[0].size: invalid type: string \"3\", expected i16",
        ),
        (
            ORG[..40].to_string(),
            "country: EOF while parsing a string (column 40)",
        ),
    ];
    for (bad, message) in cases {
        write_lines(&path, &[ORG.to_string(), bad]);
        assert_eq!(
            failure(&["checksum", "--model", "org", "--in", &path]),
            format!("{path}:2: {message}\n")
        );
    }
    assert!(failure(&[
        "replicate",
        "--model",
        "org",
        "--r",
        "2",
        "--seed",
        "1",
        "--in",
        &path,
        "--out",
        &dir.file("o")
    ])
    .starts_with(&format!("{path}:2: ")));
}

#[test]
fn bad_parameters_exit_with_status_2() {
    let dir = Scratch::new("params");
    let out = dir.file("out");
    assert!(failure(&["tweet", "--n", "-1", "--seed", "1", "--out", &out]).contains("-1"));
    assert!(failure(&["checksum", "--model", "nope", "--in", &out])
        .contains("unknown model 'nope'; known models: part, lineitem"));
    assert!(failure(&[
        "replicate",
        "--model",
        "org",
        "--r",
        "0",
        "--seed",
        "1",
        "--in",
        &out,
        "--out",
        &out
    ])
    .contains("0"));
    let sparse = |dimension: &str, density: &str| {
        failure(&[
            "sparse",
            "--n",
            "1",
            "--dimension",
            dimension,
            "--density",
            density,
            "--seed",
            "1",
            "--out",
            &out,
        ])
    };
    assert_eq!(
        sparse("100", "0"),
        "error: --density must be in (0, 1], got 0\n"
    );
    assert_eq!(
        sparse("100", "1.5"),
        "error: --density must be in (0, 1], got 1.5\n"
    );
    assert_eq!(
        sparse("0", "0.5"),
        "error: --dimension must be at least 1, got 0\n"
    );
    assert!(
        failure(&["checksum", "--model", "org", "--in", &dir.file("missing")])
            .starts_with("error: cannot read")
    );
}
