use clap::Parser;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let cli = uplift::cli::Cli::parse();
    let code = match uplift::cli::main(cli).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", uplift::redact::redact(&format!("{e:#}")));
            1
        }
    };
    std::process::exit(code);
}
