//! Cross-cutting tests: golden objects whose hashes come from the Python reference
//! (`testdata/golden.jsonl`: model id, expected hash, canonical value), JSON round trips,
//! error wording and the total order of model roots.

use std::cmp::Ordering;

use serde_json::Value;

use crate::*;

const GOLDEN: &str = include_str!("../testdata/golden.jsonl");

fn golden() -> Vec<(ModelId, u64, Value)> {
    GOLDEN
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            let model = row["model"].as_str().unwrap().parse().unwrap();
            let hash = u64::from_str_radix(row["hash"].as_str().unwrap(), 16).unwrap();
            (model, hash, row["value"].clone())
        })
        .collect()
}

/// Decodes, hashes, re-encodes and decodes again; returns the hash.
fn round_trip<M: ModelType>(value: &Value) -> u64 {
    let decoded: M = from_json(value.to_string().as_bytes()).unwrap();
    let mut line = Vec::new();
    write_json_line(&decoded, &mut line);
    assert_eq!(line.pop(), Some(b'\n'));
    assert_eq!(
        &serde_json::from_slice::<Value>(&line).unwrap(),
        value,
        "{}",
        M::ID
    );
    let again: M = from_json(&line).unwrap();
    assert_eq!(again, decoded);
    assert!(again.total_eq(&decoded));
    object_hash(&decoded)
}

#[test]
fn golden_hashes_match_the_python_reference_and_round_trip() {
    let rows = golden();
    assert!(ModelId::BUILTIN
        .iter()
        .all(|m| rows.iter().any(|(model, _, _)| model == m)));
    for (model, expected, value) in rows {
        let hash = dispatch!(model, T => round_trip::<T>(&value));
        assert_eq!(hex64(hash), hex64(expected), "{model}: {value}");
    }
}

#[test]
fn arrays_hash_is_the_hand_computed_fold() {
    let arrays = Arrays {
        strings: vec!["ab".into()],
        ints: vec![-1],
    };
    let words = [1, 2, 0x6261, 1, 0xffff_ffff_ffff_ffff];
    assert_eq!(object_hash(&arrays), sequence_checksum(words));
    assert_eq!(object_hash(&arrays), 0xe911_c35f_3a55_9f5d);
}

#[test]
fn org_type_is_a_symbol_in_json_and_an_ordinal_in_the_checksum() {
    assert_eq!(serde_json::to_string(&OrgType::Baz).unwrap(), "\"BAZ\"");
    assert_eq!(object_hash(&OrgType::Baz), sequence_checksum([2]));
    assert!(from_json::<OrgType>(b"\"baz\"").is_err());
}

#[test]
fn absent_optionals_are_omitted_and_null_is_accepted() {
    let tweet_json = golden()
        .into_iter()
        .find(|(m, _, _)| *m == ModelId::Tweet)
        .unwrap()
        .2;
    let mut with_nulls = tweet_json.clone();
    with_nulls["place"] = Value::Null;
    with_nulls["user"]["location"] = Value::Null;
    let a: Tweet = from_json(tweet_json.to_string().as_bytes()).unwrap();
    let b: Tweet = from_json(with_nulls.to_string().as_bytes()).unwrap();
    assert_eq!(a, b);
    let text = serde_json::to_string(&b).unwrap();
    assert!(!text.contains("null") && !text.contains("\"place\""));
}

fn error_of<M: ModelType>(json: &str) -> String {
    from_json::<M>(json.as_bytes()).unwrap_err().to_string()
}

const ORG: &str = r#"{"name":"n","category":"c","country":"DE","type":"FOO","attributes":[{"id":"a","quantity":1,"amount":2,"active":true,"percent":1.5,"size":3}]}"#;

#[test]
fn errors_name_the_field_path() {
    let missing = ORG.replace(r#""amount":2,"#, "");
    assert_eq!(
        error_of::<Org>(&missing),
        "attributes[0].amount: missing required field"
    );
    let unknown = ORG.replace(r#""size":3"#, r#""size":3,"colour":"red""#);
    assert_eq!(
        error_of::<Org>(&unknown),
        "attributes[0].colour: unknown field"
    );
    let wrong_type = ORG.replace(r#""active":true"#, r#""active":"yes""#);
    assert_eq!(
        error_of::<Org>(&wrong_type),
        "attributes[0].active: invalid type: string \"yes\", expected a boolean"
    );
    let out_of_range = ORG.replace(r#""quantity":1"#, r#""quantity":128"#);
    assert_eq!(
        error_of::<Org>(&out_of_range),
        "attributes[0].quantity: invalid value: integer `128`, expected i8"
    );
    let null_required = ORG.replace(r#""country":"DE""#, r#""country":null"#);
    assert_eq!(
        error_of::<Org>(&null_required),
        "country: invalid type: null, expected a string"
    );
    let bad_enum = ORG.replace("FOO", "QUX");
    assert!(error_of::<Org>(&bad_enum).starts_with("type: unknown variant `QUX`"));
}

#[test]
fn malformed_json_names_the_column() {
    assert_eq!(
        error_of::<Org>(r#"{"name":"n","category":}"#),
        "category: expected value (column 24)"
    );
    let trailing = format!("trailing characters (column {})", ORG.len() + 2);
    assert_eq!(error_of::<Org>(&format!("{ORG} x")), trailing);
    assert_eq!(error_of::<Org>(""), "EOF while parsing a value (column 0)");
    let mut bad_utf8 = ORG.as_bytes().to_vec();
    bad_utf8[9] = 0xff; // the value of "name"
    assert_eq!(
        from_json::<Org>(&bad_utf8).unwrap_err().to_string(),
        "name: invalid unicode code point (column 10)"
    );
}

#[test]
fn json_lines_errors_name_file_and_line() {
    let dir = std::env::temp_dir().join(format!("serbench_model_test_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("orgs.jsonl");
    let bad = ORG.replace(r#""percent":1.5"#, r#""percent":[]"#);
    std::fs::write(&path, format!("{ORG}\n{ORG}\n{bad}\n{ORG}\n")).unwrap();
    let err = read_json_lines::<Org>(&path).unwrap_err().to_string();
    std::fs::write(&path, format!("{ORG}\n{ORG}")).unwrap();
    let orgs = read_json_lines::<Org>(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        err,
        format!(
            "{}:3: attributes[0].percent: invalid type: sequence, expected f64",
            path.display()
        )
    );
    assert_eq!(orgs.len(), 2);
}

fn part(partkey: i32, name: &str) -> Part {
    Part {
        partkey,
        name: name.into(),
        mfgr: "m".into(),
        brand: "b".into(),
        r#type: "t".into(),
        size: 1,
        container: "c".into(),
        retailprice: 1.0,
        comment: String::new(),
    }
}

#[test]
fn total_order_compares_keys_first_then_every_field() {
    assert_eq!(part(1, "z").total_cmp(&part(2, "a")), Ordering::Less);
    assert_eq!(part(2, "a").total_cmp(&part(2, "b")), Ordering::Less);
    let mut negative_zero = part(2, "a");
    negative_zero.retailprice = -0.0;
    let mut zero = negative_zero.clone();
    zero.retailprice = 0.0;
    assert_eq!(negative_zero.total_cmp(&zero), Ordering::Less);
    assert!(negative_zero == zero && !negative_zero.total_eq(&zero));
}

#[test]
fn total_order_of_lineitems_uses_orderkey_then_linenumber() {
    let value = golden()
        .into_iter()
        .find(|(m, _, _)| *m == ModelId::Lineitem)
        .unwrap()
        .2;
    let a: LineItem = from_json(value.to_string().as_bytes()).unwrap();
    let mut b = a.clone();
    b.linenumber += 1;
    b.part.partkey -= 1; // compared after the key, so it does not matter
    assert_eq!(a.total_cmp(&b), Ordering::Less);
    b.orderkey -= 1;
    assert_eq!(a.total_cmp(&b), Ordering::Greater);
}

#[test]
fn total_order_puts_absent_before_present() {
    let tweets: Vec<Tweet> = golden()
        .into_iter()
        .filter(|(m, _, _)| *m == ModelId::Tweet)
        .map(|(_, _, v)| from_json(v.to_string().as_bytes()).unwrap())
        .collect();
    let mut plain = tweets[0].clone();
    let mut replying = plain.clone();
    replying.in_reply_to_status_id = Some(i64::MIN);
    assert_eq!(plain.total_cmp(&replying), Ordering::Less);
    plain.id = replying.id + 1; // the key wins over everything after it
    assert_eq!(plain.total_cmp(&replying), Ordering::Greater);
    assert_eq!(
        tweets.iter().map(Tweet::kind).collect::<Vec<_>>(),
        [
            TweetKind::Plain,
            TweetKind::Quote,
            TweetKind::RetweetOfQuote
        ]
    );
}

#[test]
fn entries_order_negative_zero_first() {
    let a = Entry {
        position: 1,
        value: -0.0,
    };
    let b = Entry {
        position: 1,
        value: 0.0,
    };
    let c = Entry {
        position: 0,
        value: 5.0,
    };
    assert_eq!(a.total_cmp(&b), Ordering::Less);
    assert_eq!(c.total_cmp(&a), Ordering::Less);
}

/// Absent optionals are left out only in human-readable formats: a positional binary format
/// (bincode) gets every field and reads the value back, absent optionals included.
#[test]
fn absent_optionals_are_omitted_in_json_and_kept_in_positional_formats() {
    let (_, _, value) = golden()
        .into_iter()
        .find(|(model, _, value)| {
            *model == ModelId::Tweet && value.get("in_reply_to_status_id").is_none()
        })
        .expect("a golden tweet with absent optionals");
    let tweet: Tweet = from_json(value.to_string().as_bytes()).unwrap();
    assert!(tweet.in_reply_to_status_id.is_none());
    assert!(!serde_json::to_string(&tweet)
        .unwrap()
        .contains("in_reply_to_status_id"));
    let bytes = bincode::serialize(&tweet).unwrap();
    assert_eq!(bincode::deserialize::<Tweet>(&bytes).unwrap(), tweet);
}

#[test]
fn raw_identifiers_are_keyed_without_their_prefix() {
    let org: Org = from_json(ORG.as_bytes()).unwrap();
    assert!(serde_json::to_string(&org)
        .unwrap()
        .contains(r#""type":"FOO""#));
}

/// A golden tweet re-quoted until its JSON text nests `depth` levels.
fn tweet_nested(depth: usize) -> String {
    let (_, _, mut tweet) = golden()
        .into_iter()
        .find(|(m, _, v)| *m == ModelId::Tweet && v.get("retweeted_status").is_none())
        .unwrap();
    let outer = tweet.clone();
    while nesting(tweet.to_string().as_bytes()) < depth {
        let mut next = outer.clone();
        next["retweeted_status"] = tweet;
        tweet = next;
    }
    let text = tweet.to_string();
    assert_eq!(nesting(text.as_bytes()), depth);
    text
}

#[test]
fn nesting_counts_brackets_outside_strings() {
    assert_eq!(nesting(b"1"), 0);
    assert_eq!(nesting(br#"{"a":[{"b":"[[{\"}"}]}"#), 3);
    assert_eq!(nesting(br#"[[],[[]]]"#), 3);
}

#[test]
fn canonical_objects_nest_at_most_max_nesting_levels() {
    assert!(from_json::<Tweet>(tweet_nested(MAX_NESTING).as_bytes()).is_ok());
    let deeper = tweet_nested(MAX_NESTING + 1);
    assert!(try_from_json::<Tweet>(deeper.as_bytes()).is_none());
    assert_eq!(
        error_of::<Tweet>(&deeper),
        format!("nested 65 levels deep; canonical objects nest at most {MAX_NESTING}")
    );
}
