//! `serbench-rust info | serve | listen`: see PROTOCOL.md section 1.

use std::io;
use std::process::ExitCode;
use std::thread;

use serbench_driver::info::info;
use serbench_driver::memory::Counting;
use serbench_driver::net::{listen, node::TOKEN_ENV};
use serbench_driver::serve::serve;

/// Every method materializes into the same allocator; mimalloc is what a tuned data system
/// would link, so allocation-heavy decoders are not penalised by glibc malloc. The counting
/// wrapper measures retained bytes (`memory`) and the sort's budget; it counts only while a
/// measurement is open.
#[global_allocator]
static ALLOCATOR: Counting<mimalloc::MiMalloc> = Counting(mimalloc::MiMalloc);

/// Requests run on a thread with a large stack: decoding deeply nested (or corrupted)
/// recursive objects through serde must not overflow it.
const STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    let command = std::env::args().nth(1);
    match command.as_deref() {
        Some("info") => {
            println!("{}", info());
            ExitCode::SUCCESS
        }
        Some("serve") => {
            let server = thread::Builder::new()
                .stack_size(STACK_BYTES)
                .spawn(|| serve(io::stdin().lock(), io::stdout().lock()));
            match server.map(|handle| handle.join()) {
                Ok(Ok(Ok(()))) => ExitCode::SUCCESS,
                Ok(Ok(Err(e))) => {
                    eprintln!("serbench-rust serve: {e}");
                    ExitCode::FAILURE
                }
                Ok(Err(_)) | Err(_) => ExitCode::FAILURE,
            }
        }
        Some("listen") => match listen_args() {
            Some((address, allow_wildcard)) => {
                // the cell's token comes from the environment, never the command line
                let token = std::env::var(TOKEN_ENV).unwrap_or_default();
                let node = thread::Builder::new()
                    .stack_size(STACK_BYTES)
                    .spawn(move || listen(&address, allow_wildcard, &token, io::stdout().lock()));
                match node.map(|handle| handle.join()) {
                    Ok(Ok(Ok(()))) => ExitCode::SUCCESS,
                    Ok(Ok(Err(failure))) => {
                        eprintln!("serbench-rust listen: {failure}");
                        ExitCode::FAILURE
                    }
                    Ok(Err(_)) | Err(_) => ExitCode::FAILURE,
                }
            }
            None => {
                eprintln!("usage: serbench-rust listen --address HOST:PORT [--allow-wildcard]");
                ExitCode::from(2)
            }
        },
        _ => {
            eprintln!("usage: serbench-rust info | serve | listen --address HOST:PORT");
            ExitCode::from(2)
        }
    }
}

/// `listen --address HOST:PORT [--allow-wildcard]` (port 0: any free port; the node prints
/// the one it bound; the flag lets it bind a wildcard host, every interface).
fn listen_args() -> Option<(String, bool)> {
    let args: Vec<String> = std::env::args().skip(2).collect();
    match args.as_slice() {
        [flag, address] if flag == "--address" => Some((address.clone(), false)),
        [flag, address, wildcard] | [wildcard, flag, address]
            if flag == "--address" && wildcard == "--allow-wildcard" =>
        {
            Some((address.clone(), true))
        }
        _ => None,
    }
}
