use clap::Parser;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let logs = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr);
    if std::env::var("UPLIFT_LOG_FORMAT").is_ok_and(|v| v == "json") {
        logs.json().init();
    } else {
        logs.init();
    }
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
