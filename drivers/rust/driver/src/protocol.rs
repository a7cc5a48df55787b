//! The wire side of PROTOCOL.md: requests, responses, error kinds and the access depths.

use std::fmt;
use std::io;
use std::path::Path;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::paged::{RunStamp, NO_RUN};

/// Every task id of the protocol; those this driver does not run are `unsupported`.
pub const PROTOCOL_TASKS: &[&str] = &[
    "write",
    "read_seq",
    "read_rand",
    "read_par",
    "sort_dedup",
    "memory",
    "micro",
    "sizes",
];

/// Why a request did not produce a result. `Unsupported` is a status, not an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Unsupported,
    BadRequest,
    NotFound,
    WrongFile,
    CorruptInput,
    OutOfRange,
    ChecksumMismatch,
    Network,
    Internal,
}

impl Kind {
    pub fn id(self) -> &'static str {
        match self {
            Kind::Unsupported => "unsupported",
            Kind::BadRequest => "bad_request",
            Kind::NotFound => "not_found",
            Kind::WrongFile => "wrong_file",
            Kind::CorruptInput => "corrupt_input",
            Kind::OutOfRange => "out_of_range",
            Kind::ChecksumMismatch => "checksum_mismatch",
            Kind::Network => "network",
            Kind::Internal => "internal",
        }
    }
}

/// A failed request: its kind and a message naming the file, object and problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: Kind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Failure {
            kind,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Failure::new(Kind::BadRequest, message)
    }

    pub fn unsupported(message: impl Into<String>) -> Self {
        Failure::new(Kind::Unsupported, message)
    }

    pub fn corrupt(message: impl Into<String>) -> Self {
        Failure::new(Kind::CorruptInput, message)
    }

    /// An I/O error on `path`: a missing file is `not_found`, a short read `corrupt_input`.
    pub fn io(path: &Path, error: &io::Error) -> Self {
        let kind = match error.kind() {
            io::ErrorKind::NotFound => Kind::NotFound,
            io::ErrorKind::UnexpectedEof => Kind::CorruptInput,
            _ => Kind::Internal,
        };
        Failure::new(kind, format!("{}: {error}", path.display()))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.id(), self.message)
    }
}

/// How deep a read goes. `None` is the protocol's `""`: writes, and the raw floor, which
/// folds bytes without decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    None,
    Materialize,
    Access,
    Key,
}

impl Depth {
    pub fn id(self) -> &'static str {
        match self {
            Depth::None => "",
            Depth::Materialize => "materialize",
            Depth::Access => "access",
            Depth::Key => "key",
        }
    }

    pub fn parse(id: &str) -> Result<Depth, Failure> {
        [Depth::None, Depth::Materialize, Depth::Access, Depth::Key]
            .into_iter()
            .find(|d| d.id() == id)
            .ok_or_else(|| {
                Failure::bad_request(format!(
                    "unknown depth '{id}'; known depths: materialize, access, key"
                ))
            })
    }
}

/// One request line. Fields an op does not use are ignored.
#[derive(Debug, Deserialize)]
pub struct Request {
    #[serde(default)]
    pub id: Value,
    pub op: String,
    pub model: Option<String>,
    pub method: Option<String>,
    pub depth: Option<String>,
    pub variant: Option<String>,
    pub task: Option<String>,
    #[serde(default)]
    pub params: Params,
}

/// A request's `params`, with typed getters whose errors are `bad_request`s naming the key.
#[derive(Debug, Default, Deserialize)]
#[serde(transparent)]
pub struct Params(pub Map<String, Value>);

impl Params {
    fn get(&self, key: &str) -> Result<&Value, Failure> {
        self.0
            .get(key)
            .ok_or_else(|| Failure::bad_request(format!("params.{key} is required")))
    }

    fn wrong(key: &str, what: &str, value: &Value) -> Failure {
        Failure::bad_request(format!("params.{key} must be {what}, got {value}"))
    }

    pub fn path(&self, key: &str) -> Result<&Path, Failure> {
        match self.get(key)? {
            Value::String(s) if !s.is_empty() => Ok(Path::new(s)),
            other => Err(Self::wrong(key, "a non-empty path", other)),
        }
    }

    pub fn u64(&self, key: &str) -> Result<u64, Failure> {
        let value = self.get(key)?;
        value
            .as_u64()
            .ok_or_else(|| Self::wrong(key, "a non-negative integer", value))
    }

    /// An optional non-negative integer: `default` when absent.
    pub fn u64_or(&self, key: &str, default: u64) -> Result<u64, Failure> {
        if self.0.contains_key(key) {
            self.u64(key)
        } else {
            Ok(default)
        }
    }

    pub fn bool(&self, key: &str) -> Result<bool, Failure> {
        let value = self.get(key)?;
        value
            .as_bool()
            .ok_or_else(|| Self::wrong(key, "true or false", value))
    }

    /// One of `allowed`, by value.
    pub fn choice(&self, key: &str, allowed: &[&'static str]) -> Result<&'static str, Failure> {
        let value = self.get(key)?;
        value
            .as_str()
            .and_then(|v| allowed.iter().find(|a| **a == v).copied())
            .ok_or_else(|| Self::wrong(key, &format!("one of {}", allowed.join(", ")), value))
    }

    /// `run_stamp`: 32 lowercase hex digits; [`NO_RUN`] when absent.
    pub fn run_stamp(&self) -> Result<RunStamp, Failure> {
        let Some(value) = self.0.get("run_stamp") else {
            return Ok(NO_RUN);
        };
        let hex = value
            .as_str()
            .filter(|h| h.len() == 32 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .ok_or_else(|| Self::wrong("run_stamp", "32 lowercase hex digits", value))?;
        let mut stamp = NO_RUN;
        for (i, byte) in stamp.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("checked hex digits");
        }
        Ok(stamp)
    }

    /// A page size: at least 64 bytes and below 2^32 (the index stores it as u32).
    pub fn page_size(&self) -> Result<Option<u32>, Failure> {
        if !self.0.contains_key("page_size") {
            return Ok(None);
        }
        match u32::try_from(self.u64("page_size")?) {
            Ok(p) if p >= 64 => Ok(Some(p)),
            _ => Err(Self::wrong(
                "page_size",
                "between 64 and 2^32 - 1",
                self.get("page_size")?,
            )),
        }
    }
}

/// The response line to a request: `ok` with a result, `unsupported`, or `error`.
pub fn response(id: &Value, outcome: Result<Value, Failure>) -> Value {
    match outcome {
        Ok(result) => json!({"id": id, "status": "ok", "result": result}),
        Err(f) if f.kind == Kind::Unsupported => {
            json!({"id": id, "status": "unsupported", "message": f.message})
        }
        Err(f) => json!({"id": id, "status": "error",
                         "error": {"kind": f.kind.id(), "message": f.message}}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_parse_and_unknown_ones_are_bad_requests() {
        assert_eq!(Depth::parse(""), Ok(Depth::None));
        assert_eq!(Depth::parse("access"), Ok(Depth::Access));
        assert_eq!(Depth::parse("deep").unwrap_err().kind, Kind::BadRequest);
    }

    #[test]
    fn params_name_the_bad_key() {
        let params: Params = serde_json::from_str(r#"{"n": -1, "page_size": 8}"#).unwrap();
        assert_eq!(
            params.u64("n").unwrap_err().message,
            "params.n must be a non-negative integer, got -1"
        );
        assert_eq!(
            params.path("input").unwrap_err().message,
            "params.input is required"
        );
        assert_eq!(params.page_size().unwrap_err().kind, Kind::BadRequest);
    }

    #[test]
    fn a_run_stamp_is_32_lowercase_hex_digits_and_absent_is_no_run() {
        let stamp = |json: &str| serde_json::from_str::<Params>(json).unwrap().run_stamp();
        let mut want = NO_RUN;
        want[0] = 0x5e;
        want[15] = 0x0f;
        assert_eq!(
            stamp(r#"{"run_stamp": "5e00000000000000000000000000000f"}"#),
            Ok(want)
        );
        assert_eq!(stamp("{}"), Ok(NO_RUN));
        for bad in [
            r#""5E00000000000000000000000000000F""#,
            r#""5e""#,
            "7",
            r#""+e00000000000000000000000000000f""#,
        ] {
            let err = stamp(&format!(r#"{{"run_stamp": {bad}}}"#)).unwrap_err();
            assert_eq!(err.kind, Kind::BadRequest, "{bad}");
            assert!(
                err.message.contains("32 lowercase hex digits"),
                "{}",
                err.message
            );
        }
    }

    #[test]
    fn responses_have_the_three_shapes() {
        let id = json!(7);
        assert_eq!(
            response(&id, Ok(json!({}))),
            json!({"id": 7, "status": "ok", "result": {}})
        );
        assert_eq!(
            response(&id, Err(Failure::unsupported("no"))),
            json!({"id": 7, "status": "unsupported", "message": "no"})
        );
        assert_eq!(
            response(&id, Err(Failure::corrupt("bad"))),
            json!({"id": 7, "status": "error",
                   "error": {"kind": "corrupt_input", "message": "bad"}})
        );
    }
}
