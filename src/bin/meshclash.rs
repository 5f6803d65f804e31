//! `meshclash`: a thin command line over the library. Exit 0 for a completed query whatever the
//! answer, 2 for bad input or arguments (one line on stderr), 1 for an internal failure.

use clap::{Parser, Subcommand};
use meshclash::mesh::Mesh;
use meshclash::Error;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "meshclash",
    version,
    about = "Clashes between triangle meshes: interference, distance, clearance, self-intersection"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Triangles, welded vertices, bounds, zero-area triangles, closed and oriented.
    Info {
        mesh: PathBuf,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("meshclash: {e}");
            ExitCode::from(exit_code(&e))
        }
    }
}

/// Bad input and arguments are the user's to fix (2); anything else is ours (1).
fn exit_code(e: &Error) -> u8 {
    match e {
        Error::Gpu(_) => 1,
        _ => 2,
    }
}

fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Info { mesh, json } => {
            let info = Mesh::load(&mesh)?.info();
            if json {
                println!(
                    "{}",
                    serde_json::to_string(&info).map_err(|e| Error::Gpu(e.to_string()))?
                );
            } else {
                println!("mesh:                {}", mesh.display());
                println!("triangles:           {}", info.triangles);
                println!("vertices (welded):   {}", info.vertices);
                println!("bbox min:            {:?}", info.bbox_min);
                println!("bbox max:            {:?}", info.bbox_max);
                println!("zero-area triangles: {}", info.zero_area_triangles);
                println!("closed:              {}", info.closed);
                println!("oriented:            {}", info.oriented);
            }
            Ok(())
        }
    }
}
