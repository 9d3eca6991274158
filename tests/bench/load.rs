//! The webhook bench's load generator, cheap and the same for every server: each request is
//! built and signed before the run as the exact bytes sent, and one thread of its own (a
//! current-thread runtime) sends them open loop at a fixed rate (a slow answer does not slow
//! the sender; latency counts from the scheduled send time) and reads each answer's status
//! line and length, nothing more. It reports its own CPU time, and the CPU time the server
//! under test and the whole machine spent in the same window (`/proc`), so a figure can be
//! read against what else ran.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How deliveries reach the server.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Connections {
    /// An idle connection is reused (HTTP/1.1 keep-alive); a new one opens when none is.
    KeepAlive,
    /// Each delivery on a new connection that the server closes after its answer, as
    /// GitHub sends webhooks.
    PerRequest,
}

impl Connections {
    pub fn describe(self) -> &'static str {
        match self {
            Connections::KeepAlive => "keep-alive connections",
            Connections::PerRequest => "a new connection per delivery (as GitHub sends them)",
        }
    }
}

/// Where to post: `http://HOST:PORT/PATH`.
#[derive(Clone)]
pub struct Target {
    addr: SocketAddr,
    host: String,
    path: String,
}

impl Target {
    pub fn parse(url: &str) -> Target {
        let rest = url.strip_prefix("http://").expect("an http:// URL");
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        Target {
            addr: host.parse().expect("an IP:port URL"),
            host: host.to_string(),
            path: if path.is_empty() { "/" } else { path }.to_string(),
        }
    }

    /// The bytes of one signed webhook POST.
    pub fn request(&self, mode: Connections, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
        let mut head = format!(
            "POST {} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
             content-length: {}\r\n",
            self.path,
            self.host,
            body.len()
        );
        if mode == Connections::PerRequest {
            head.push_str("connection: close\r\n");
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body);
        bytes
    }
}

/// What one run at one rate measured.
pub struct Step {
    pub sent: usize,
    /// Transport failures and answers other than 2xx.
    pub errors: usize,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Connections the generator opened.
    pub connections: usize,
    /// From the first scheduled send to the last answer.
    pub wall: Duration,
    /// CPU time of the generator's thread.
    pub generator_cpu: Duration,
    /// CPU time of the server's processes (and of the given helper processes, e.g. the
    /// database), and of every process on the machine, in the same window.
    pub server_cpu: Duration,
    pub helper_cpu: Duration,
    pub machine_cpu: Duration,
}

impl Step {
    /// CPU share of one core over the step's wall time, in percent.
    pub fn percent(&self, cpu: Duration) -> f64 {
        100.0 * cpu.as_secs_f64() / self.wall.as_secs_f64()
    }

    /// Microseconds of CPU per delivery.
    pub fn per_request_us(&self, cpu: Duration) -> f64 {
        cpu.as_secs_f64() * 1e6 / self.sent.max(1) as f64
    }
}

/// What to count as the server's CPU: a process tree, plus processes by command name.
pub struct Watched {
    pub server_pid: u32,
    pub helper_comm: Option<&'static str>,
}

/// Sends `requests` at `rate` per second to `target` from a thread of its own; blocks until
/// every answer is in (each has `timeout`).
pub fn run(
    target: &Target,
    mode: Connections,
    rate: u64,
    requests: Vec<Vec<u8>>,
    watched: &Watched,
    timeout: Duration,
) -> Step {
    let target = target.clone();
    let (server_before, helper_before, machine_before) = (
        tree_cpu(watched.server_pid),
        watched.helper_comm.map(comm_cpu).unwrap_or_default(),
        machine_cpu(),
    );
    let (mut latencies, errors, connections, wall, generator_cpu) = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let cpu_before = thread_cpu();
        let out = runtime.block_on(send_all(&target, mode, rate, requests, timeout));
        let cpu = thread_cpu() - cpu_before;
        (out.0, out.1, out.2, out.3, cpu)
    })
    .join()
    .expect("the generator thread");
    // Saturating: a process that exited takes its CPU time out of the sums.
    let (server_cpu, helper_cpu, machine_cpu) = (
        tree_cpu(watched.server_pid).saturating_sub(server_before),
        (watched.helper_comm.map(comm_cpu).unwrap_or_default()).saturating_sub(helper_before),
        machine_cpu().saturating_sub(machine_before),
    );
    latencies.sort_by(f64::total_cmp);
    let at = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p).round() as usize];
    Step {
        sent: latencies.len(),
        errors,
        p50_ms: at(0.5),
        p99_ms: at(0.99),
        max_ms: at(1.0),
        connections,
        wall,
        generator_cpu,
        server_cpu,
        helper_cpu,
        machine_cpu,
    }
}

/// Latencies (ms), errors, connections opened, wall time.
async fn send_all(
    target: &Target,
    mode: Connections,
    rate: u64,
    requests: Vec<Vec<u8>>,
    timeout: Duration,
) -> (Vec<f64>, usize, usize, Duration) {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    let idle: Rc<RefCell<Vec<TcpStream>>> = Rc::default();
    let opened = Rc::new(Cell::new(0usize));
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async move {
            let start = Instant::now();
            let mut handles = Vec::with_capacity(requests.len());
            for (i, request) in requests.into_iter().enumerate() {
                let due = start + interval * i as u32;
                tokio::time::sleep_until(due.into()).await;
                let (idle, opened, addr) = (idle.clone(), opened.clone(), target.addr);
                handles.push(tokio::task::spawn_local(async move {
                    let reuse = match mode {
                        Connections::KeepAlive => idle.borrow_mut().pop(),
                        Connections::PerRequest => None,
                    };
                    let attempt = async {
                        let mut stream = match reuse {
                            Some(s) => s,
                            None => {
                                opened.set(opened.get() + 1);
                                let s = TcpStream::connect(addr).await?;
                                s.set_nodelay(true)?;
                                s
                            }
                        };
                        let status = exchange(&mut stream, &request).await?;
                        if mode == Connections::KeepAlive {
                            idle.borrow_mut().push(stream);
                        }
                        std::io::Result::Ok(status)
                    };
                    let ok = matches!(
                        tokio::time::timeout(timeout, attempt).await,
                        Ok(Ok(200..=299))
                    );
                    (due.elapsed().as_secs_f64() * 1000.0, ok)
                }));
            }
            let mut latencies = Vec::with_capacity(handles.len());
            let mut errors = 0;
            for h in handles {
                let (ms, ok) = h.await.expect("a request task");
                latencies.push(ms);
                errors += usize::from(!ok);
            }
            (latencies, errors, opened.get(), start.elapsed())
        })
        .await
}

/// Writes `request` and reads one answer; its status code.
async fn exchange(stream: &mut TcpStream, request: &[u8]) -> std::io::Result<u16> {
    stream.write_all(request).await?;
    let mut buf = Vec::with_capacity(512);
    let mut chunk = [0u8; 2048];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(status) = complete(&buf) {
            return Ok(status);
        }
    }
}

/// The status of a complete HTTP/1.1 answer in `buf`, None while it is partial.
fn complete(buf: &[u8]) -> Option<u16> {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&buf[..end]).ok()?;
    let status = head.get(9..12)?.parse().ok()?;
    let body = &buf[end..];
    let field = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name)
                .then(|| v.trim().to_ascii_lowercase())
        })
    };
    let done = match field("content-length") {
        Some(len) => body.len() >= len.parse::<usize>().ok()?,
        None if field("transfer-encoding").is_some_and(|t| t.contains("chunked")) => {
            body.ends_with(b"0\r\n\r\n")
        }
        None => false,
    };
    done.then_some(status)
}

fn thread_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn ticks(n: u64) -> Duration {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_nanos(n * 1_000_000_000 / hz)
}

/// (pid, parent, comm, utime + stime ticks) of every process.
fn processes() -> Vec<(u32, u32, String, u64)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (comm, rest) = stat.split_once(" (")?.1.rsplit_once(") ")?;
        let f: Vec<&str> = rest.split(' ').collect();
        let ppid = f.get(1)?.parse().ok()?;
        let cpu = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
        Some((pid, ppid, comm.to_string(), cpu))
    })
    .collect()
}

/// CPU time of `pid` and its descendants.
fn tree_cpu(pid: u32) -> Duration {
    let all = processes();
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(all.iter().filter(|p| p.1 == parent).map(|p| p.0));
        i += 1;
    }
    ticks(
        all.iter()
            .filter(|p| tree.contains(&p.0))
            .map(|p| p.3)
            .sum(),
    )
}

/// CPU time of the processes named `comm`.
fn comm_cpu(comm: &str) -> Duration {
    ticks(
        processes()
            .iter()
            .filter(|p| p.2 == comm)
            .map(|p| p.3)
            .sum(),
    )
}

/// CPU time every core spent busy (not idle, not waiting for I/O).
fn machine_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let total: u64 = fields.iter().take(8).sum();
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    ticks(total - idle)
}
