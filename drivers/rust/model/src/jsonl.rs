//! Canonical JSON and JSON Lines: compact writing, strict reading (unknown keys rejected,
//! absent or null optionals accepted) with errors that name the line and the field path,
//! e.g. `data.jsonl:3: orders[2].lineitems[0].part.name: missing required field`.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::marker::PhantomData;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_path_to_error::Segment;

/// A JSON text that is not a valid value of its model. `path` names the field, in the
/// harness's notation (`orders[2].clerk`); it is empty when the whole value is at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for DataError {}

/// The deepest a canonical object's JSON text may nest, each object and list one level
/// (PROTOCOL.md 2.1): every reader of every language accepts this depth, so nothing deeper
/// is loaded, generated or written.
pub const MAX_NESTING: usize = 64;

/// Decodes one canonical JSON value.
pub fn from_json<M: DeserializeOwned>(json: &[u8]) -> Result<M, DataError> {
    // Path tracking costs time, so it only runs again on the rare invalid input.
    try_from_json(json).ok_or_else(|| explain_error::<M>(json))
}

/// Decodes one canonical JSON value, without saying why it failed: the fast path for bulk
/// validation, where [`from_json`] then explains the one bad value that gets reported.
pub fn try_from_json<M: DeserializeOwned>(json: &[u8]) -> Option<M> {
    if nesting(json) > MAX_NESTING {
        return None;
    }
    // One UTF-8 check of the whole text is much cheaper than serde_json's check per string.
    serde_json::from_str(std::str::from_utf8(json).ok()?).ok()
}

/// How deep a JSON text nests (brackets outside strings), without parsing it: serde_json
/// allows 128 levels, more than some binary formats' readers take back.
pub fn nesting(json: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in json {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn explain_error<M: DeserializeOwned>(json: &[u8]) -> DataError {
    let depth = nesting(json);
    if depth > MAX_NESTING {
        return DataError {
            path: String::new(),
            message: format!(
                "nested {depth} levels deep; canonical objects nest at most {MAX_NESTING}"
            ),
        };
    }
    let mut de = serde_json::Deserializer::from_slice(json);
    let result: Result<M, _> = serde_path_to_error::deserialize(&mut de);
    match result.map(|_| de.end()) {
        Err(err) => describe(&path_string(err.path()), err.inner()),
        Ok(Err(err)) => describe("", &err),
        Ok(Ok(())) => DataError {
            path: String::new(),
            message: "invalid JSON".into(),
        },
    }
}

fn path_string(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => join_field(&mut out, key),
            Segment::Unknown => join_field(&mut out, "?"),
        }
    }
    out
}

fn join_field(path: &mut String, field: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(field);
}

/// Rewords serde's message in the harness's terms: the field a missing/unknown-field error
/// is about joins the path, and the position suffix gives way to a column for syntax errors.
fn describe(path: &str, err: &serde_json::Error) -> DataError {
    let full = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let mut path = path.to_string();
    let message = if let Some(field) = quoted_after(message, "missing field `") {
        join_field(&mut path, field);
        "missing required field".to_string()
    } else if let Some(field) = quoted_after(message, "unknown field `") {
        // the path already ends at the unknown key when it was read as a map key
        if path != field && !path.ends_with(&format!(".{field}")) {
            join_field(&mut path, field);
        }
        "unknown field".to_string()
    } else if err.is_syntax() || err.is_eof() {
        format!("{message} (column {})", err.column())
    } else {
        message.to_string()
    };
    DataError { path, message }
}

fn quoted_after<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?;
    rest.find('`').map(|end| &rest[..end])
}

/// Appends `value` as one compact JSON line (absent optionals omitted) and a newline.
pub fn write_json_line<M: Serialize>(value: &M, out: &mut Vec<u8>) {
    serde_json::to_writer(&mut *out, value).expect("model values always serialize");
    out.push(b'\n');
}

/// A bad line of a JSON Lines file; displays as `FILE:LINE: PATH: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub file: String,
    /// 1-based.
    pub line: u64,
    pub error: DataError,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.error)
    }
}

impl std::error::Error for LineError {}

/// Why a JSON Lines file could not be loaded.
#[derive(Debug)]
pub enum ReadError {
    Io { file: String, error: io::Error },
    Data(LineError),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io { file, error } => write!(f, "{file}: {error}"),
            ReadError::Data(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

/// Iterates the values of a JSON Lines stream, one per line; `file` only labels errors.
pub struct JsonLines<R, M> {
    reader: R,
    file: String,
    line: u64,
    buf: Vec<u8>,
    model: PhantomData<M>,
}

impl<R: BufRead, M: DeserializeOwned> JsonLines<R, M> {
    pub fn new(reader: R, file: impl Into<String>) -> Self {
        JsonLines {
            reader,
            file: file.into(),
            line: 0,
            buf: Vec::new(),
            model: PhantomData,
        }
    }

    fn io_error(&self, error: io::Error) -> ReadError {
        ReadError::Io {
            file: self.file.clone(),
            error,
        }
    }
}

impl<R: BufRead, M: DeserializeOwned> Iterator for JsonLines<R, M> {
    type Item = Result<M, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.buf.clear();
        match self.reader.read_until(b'\n', &mut self.buf) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(error) => return Some(Err(self.io_error(error))),
        }
        self.line += 1;
        let text = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        Some(from_json(text).map_err(|error| {
            ReadError::Data(LineError {
                file: self.file.clone(),
                line: self.line,
                error,
            })
        }))
    }
}

/// Loads a whole JSON Lines file, stopping at the first bad line.
pub fn read_json_lines<M: DeserializeOwned>(path: &Path) -> Result<Vec<M>, ReadError> {
    open_json_lines(path)?.collect()
}

/// The values of a JSON Lines file, read one at a time.
pub fn open_json_lines<M: DeserializeOwned>(
    path: &Path,
) -> Result<JsonLines<BufReader<File>, M>, ReadError> {
    let file = path.display().to_string();
    let handle = File::open(path).map_err(|error| ReadError::Io {
        file: file.clone(),
        error,
    })?;
    Ok(JsonLines::new(
        BufReader::with_capacity(1 << 20, handle),
        file,
    ))
}
