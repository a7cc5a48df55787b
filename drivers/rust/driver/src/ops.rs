//! The protocol's operations: `info`, `load`, `roundtrip`, `encode`, `scan`, `run` and
//! `shutdown`. Each resolves and checks the request's cell (model, method, depth, variant),
//! then runs generic code through the registry.

use serbench_model::{object_hash, ModelId, ModelType, SetChecksum};
use serde_json::{json, Value};

use crate::info::info;
use crate::methods::Codec;
use crate::paged::{PageBuffer, PageWriter};
use crate::protocol::{Depth, Failure, Kind, Params, Request, PROTOCOL_TASKS};
use crate::registry::{self, with_codec, CodecJob, MethodSpec};
use crate::tasks::write::DEFAULT_PAGE_SIZE;
use crate::tasks::{
    checksum_json, each_object, read_objects, Read, Selection, TaskRequest, WRITER,
};
use crate::timing::IoTimer;

/// The result of one request.
pub fn answer(req: &Request) -> Result<Value, Failure> {
    match req.op.as_str() {
        "info" => Ok(info()),
        "shutdown" => Ok(json!({})),
        "load" => load(req),
        "roundtrip" => {
            let cell = Cell::reading(req)?;
            cell.writing()?;
            cell.run(Roundtrip {
                depth: cell.depth,
                params: &req.params,
            })
        }
        "encode" => {
            let cell = Cell::resolve(req)?;
            cell.writing()?;
            cell.run(Encode {
                params: &req.params,
            })
        }
        "scan" => {
            let cell = Cell::reading(req)?;
            cell.run(Scan {
                depth: cell.depth,
                params: &req.params,
            })
        }
        "run" => run(req),
        other => Err(Failure::bad_request(format!(
            "unknown op '{other}'; known ops: info, load, roundtrip, encode, scan, run, shutdown"
        ))),
    }
}

/// What a request names: model, method and depth, checked against the registry.
struct Cell {
    model: ModelId,
    method: &'static MethodSpec,
    depth: Depth,
    variant: &'static str,
}

impl Cell {
    fn resolve(req: &Request) -> Result<Cell, Failure> {
        let model = model(req)?;
        let id = required(&req.method, "method")?;
        let method = registry::method(id).ok_or_else(|| {
            let known: Vec<&str> = registry::METHODS.iter().map(|m| m.id).collect();
            Failure::bad_request(format!(
                "unknown method '{id}'; known methods: {}",
                known.join(", ")
            ))
        })?;
        let depth = Depth::parse(req.depth.as_deref().unwrap_or(""))?;
        let variant = match req.variant.as_deref().unwrap_or("") {
            "" => "",
            wanted => method
                .offered_variants()
                .into_iter()
                .find(|&v| v == wanted)
                .ok_or_else(|| {
                    Failure::unsupported(format!("rust {id} has no variant '{wanted}'"))
                })?,
        };
        Ok(Cell {
            model,
            method,
            depth,
            variant,
        })
    }

    /// A cell that reads: the depth must be one the method offers, or `""` for a method
    /// with no depths (raw).
    fn reading(req: &Request) -> Result<Cell, Failure> {
        let cell = Cell::resolve(req)?;
        let id = cell.method.id;
        match (cell.method.depths.is_empty(), cell.depth) {
            (true, Depth::None) => Ok(cell),
            (true, depth) => Err(Failure::unsupported(format!(
                "rust {id} reads bytes without decoding; it has no depth '{}'",
                depth.id()
            ))),
            (false, Depth::None) => Err(Failure::bad_request(format!(
                "a read with {id} needs a depth: {}",
                depth_list(cell.method)
            ))),
            (false, depth) if cell.method.depths.contains(&depth) => Ok(cell),
            (false, depth) => Err(Failure::unsupported(format!(
                "rust {id} does not support depth '{}' (it offers {})",
                depth.id(),
                depth_list(cell.method)
            ))),
        }
    }

    fn writing(&self) -> Result<(), Failure> {
        if self.method.writes {
            Ok(())
        } else {
            Err(Failure::unsupported(format!(
                "{} reads other methods' files; it encodes nothing",
                self.method.id
            )))
        }
    }

    fn run<J: CodecJob<Output = Result<Value, Failure>>>(&self, job: J) -> Result<Value, Failure> {
        with_codec(self.method.id, self.variant, self.model, job)
            .expect("the method was found in the registry")
    }
}

fn depth_list(method: &MethodSpec) -> String {
    let depths: Vec<&str> = method.depths.iter().map(|d| d.id()).collect();
    depths.join(", ")
}

fn required<'a>(field: &'a Option<String>, name: &str) -> Result<&'a str, Failure> {
    field
        .as_deref()
        .ok_or_else(|| Failure::bad_request(format!("the request has no {name}")))
}

fn model(req: &Request) -> Result<ModelId, Failure> {
    required(&req.model, "model")?
        .parse()
        .map_err(|e: serbench_model::UnknownModel| Failure::bad_request(e.to_string()))
}

/// `load`: the driver's own JSON loading, and the set checksum of the canonical objects.
fn load(req: &Request) -> Result<Value, Failure> {
    fn checksum<M: ModelType>(params: &Params) -> Result<Value, Failure> {
        let mut checksum = SetChecksum::default();
        each_object(params.path("input")?, |object: M| {
            checksum.add(object_hash(&object));
            Ok(())
        })?;
        Ok(json!({"checksum": checksum_json(checksum)}))
    }
    serbench_model::dispatch!(model(req)?, M => checksum::<M>(&req.params))
}

/// `roundtrip`: every object encoded and read back in memory at the depth, one at a time;
/// mismatches are objects whose hash (and, when materialized, whose value) differs from the
/// original.
struct Roundtrip<'a> {
    depth: Depth,
    params: &'a Params,
}

impl CodecJob for Roundtrip<'_> {
    type Output = Result<Value, Failure>;

    fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Self::Output {
        let mut buf = Vec::new();
        let mut checksum = SetChecksum::default();
        let mut mismatches = 0u64;
        let mut first_mismatch = None;
        let mut line = 0u64;
        each_object(self.params.path("input")?, |object: M| {
            line += 1;
            buf.clear();
            codec.encode(&object, &mut buf);
            let mut h = serbench_model::Hasher::new();
            let failed = |e| {
                Failure::new(
                    Kind::ChecksumMismatch,
                    format!("line {line}: reading back its own encoding failed: {e}"),
                )
            };
            codec.fold(&buf, self.depth, &mut h).map_err(failed)?;
            let mut same = h.finish() == object_hash(&object);
            if self.depth == Depth::Materialize {
                same &= codec.decode(&buf).map_err(failed)?.total_eq(&object);
            }
            if !same {
                mismatches += 1;
                first_mismatch.get_or_insert(line);
            }
            checksum.add(h.finish());
            Ok(())
        })?;
        Ok(
            json!({"checksum": checksum_json(checksum), "mismatches": mismatches,
                  "first_mismatch": first_mismatch}),
        )
    }
}

/// `encode`: writes the paged file, untimed, one object in memory at a time.
struct Encode<'a> {
    params: &'a Params,
}

impl CodecJob for Encode<'_> {
    type Output = Result<Value, Failure>;

    fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Self::Output {
        let page_size = self.params.page_size()?.unwrap_or(DEFAULT_PAGE_SIZE);
        let run_stamp = self.params.run_stamp()?;
        let timer = IoTimer::default();
        let mut writer = PageWriter::create(self.params.path("output")?, page_size, &timer)?;
        each_object(self.params.path("input")?, |object: M| {
            writer.push(C::ALIGN, |out| codec.encode(&object, out))
        })?;
        let c = writer.finish(M::ID.name(), C::ID, WRITER, run_stamp)?;
        Ok(json!({"counters": {"objects": c.objects, "bytes": c.bytes, "pages": c.pages}}))
    }
}

/// `scan`: every object of any writer's file at the depth, and who wrote it.
struct Scan<'a> {
    depth: Depth,
    params: &'a Params,
}

impl CodecJob for Scan<'_> {
    type Output = Result<Value, Failure>;

    fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Self::Output {
        let read = Read {
            base: self.params.path("input")?,
            selection: Selection::All,
            depth: self.depth,
            page_size: self.params.page_size()?,
            run_stamp: self.params.run_stamp()?,
        };
        let outcome = read_objects(
            &mut codec,
            read,
            &mut PageBuffer::default(),
            &IoTimer::default(),
        )?;
        Ok(json!({"checksum": checksum_json(outcome.checksum), "writer": outcome.writer}))
    }
}

/// `run`: one task of the registry.
fn run(req: &Request) -> Result<Value, Failure> {
    let task = required(&req.task, "task")?;
    if !PROTOCOL_TASKS.contains(&task) {
        return Err(Failure::bad_request(format!(
            "unknown task '{task}'; known tasks: {}",
            PROTOCOL_TASKS.join(", ")
        )));
    }
    if !registry::TASKS.contains(&task) {
        return Err(Failure::unsupported(format!(
            "the rust driver does not run task {task} yet"
        )));
    }
    let cell = if task == "write" {
        // raw writes too: the write floor, which copies another method's file
        Cell::resolve(req)?
    } else {
        Cell::reading(req)?
    };
    cell.run(RunTask {
        task,
        request: TaskRequest {
            depth: cell.depth,
            variant: cell.variant,
            params: &req.params,
        },
    })
}

struct RunTask<'a> {
    task: &'a str,
    request: TaskRequest<'a>,
}

impl CodecJob for RunTask<'_> {
    type Output = Result<Value, Failure>;

    fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Self::Output {
        registry::run_task::<M, C>(self.task, &mut codec, &self.request)
            .expect("the task was found in the registry")
    }
}
