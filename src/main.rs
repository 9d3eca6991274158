use clap::Parser;
use uplift::cli::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    let serves = matches!(cli.command, Command::Serve { .. } | Command::Worker);
    if serves {
        // SAFETY: no other thread exists yet; the async runtime is built below.
        unsafe { uplift::secrets::take_from_env(uplift::settings::SECRET_VARS) };
    }
    // `setup` holds the new app's private key in memory.
    if (serves || matches!(cli.command, Command::Setup { .. }))
        && let Err(e) = uplift::secrets::not_dumpable()
    {
        eprintln!("error: cannot make the process non-dumpable: {e}");
        std::process::exit(1);
    }
    let logs = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(uplift::redact::Logs(std::io::stderr));
    if std::env::var("UPLIFT_LOG_FORMAT").is_ok_and(|v| v == "json") {
        logs.json().init();
    } else {
        logs.init();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            std::process::exit(1);
        }
    };
    let code = match runtime.block_on(uplift::cli::main(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", uplift::cli::for_stderr(&format!("{e:#}")));
            1
        }
    };
    // Exits without dropping the runtime, which would wait for blocking tasks.
    std::process::exit(code);
}
