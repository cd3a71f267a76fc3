//! The CPU time a run costs each part of the system, read from `/proc`
//! (Linux; elsewhere nothing is printed). On a shared machine a rate moves
//! with the neighbours, while the CPU time one wager costs the database moves
//! much less: it tells whether a change made the database's work lighter.

/// Cumulative CPU time (user + system) at one instant, in clock ticks.
#[derive(Clone, Copy, Debug)]
pub struct Snapshot {
    /// Every `postgres` process, and what the postmaster has collected from
    /// its children that ended (backends of connections already closed).
    database: u64,
    /// The `djego serve` under test.
    server: u64,
    /// This process (the load generator).
    own: u64,
    /// This process's children that ended (pgbench).
    children: u64,
}

/// CPU time per operation, in microseconds.
#[derive(Clone, Copy, Debug)]
pub struct Cost {
    pub database_us: f64,
    pub server_us: f64,
    pub client_us: f64,
}

/// (utime + stime, cutime + cstime) of one process, and its command name.
fn times(stat: &str) -> Option<(String, u64, u64)> {
    // "pid (comm) state ppid …": the name may hold spaces and parentheses.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    let fields: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    // After the name: state is field 0, utime 11, stime 12, cutime 13, cstime 14.
    let n = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    Some((name, n(11)? + n(12)?, n(13)? + n(14)?))
}

fn read(path: &str) -> Option<(String, u64, u64)> {
    times(&std::fs::read_to_string(path).ok()?)
}

/// Now, with `server` the pid of the djego under test.
pub fn snapshot(server: Option<u32>) -> Option<Snapshot> {
    let (_, own, children) = read("/proc/self/stat")?;
    let server = server
        .and_then(|pid| read(&format!("/proc/{pid}/stat")))
        .map_or(0, |t| t.1);
    let mut database = 0;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Some((comm, ticks, reaped)) = read(&format!("/proc/{}/stat", name.to_string_lossy())) {
            if comm == "postgres" {
                database += ticks + reaped;
            }
        }
    }
    Some(Snapshot {
        database,
        server,
        own,
        children,
    })
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf reads a constant of the system and has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 {
        ticks as f64
    } else {
        100.0
    }
}

impl Snapshot {
    /// The cost per operation of what ran between `self` and `after`; the
    /// client is this process (a load generator) or its children (pgbench).
    pub fn cost(&self, after: &Snapshot, operations: u64, client_is_child: bool) -> Option<Cost> {
        if operations == 0 {
            return None;
        }
        let per_op_us = |before: u64, after: u64| {
            after.saturating_sub(before) as f64 / ticks_per_second() * 1e6 / operations as f64
        };
        Some(Cost {
            database_us: per_op_us(self.database, after.database),
            server_us: per_op_us(self.server, after.server),
            client_us: if client_is_child {
                per_op_us(self.children, after.children)
            } else {
                per_op_us(self.own, after.own)
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_an_awkward_name_is_read() {
        let line = "4242 (post (gres) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 30 7 3 20 0 1 0 100 0 0";
        assert_eq!(times(line), Some(("post (gres) x".to_string(), 280, 10)));
        assert_eq!(times("4242 (short) S 1"), None);
    }

    #[test]
    fn work_done_by_this_process_is_counted_as_the_clients() {
        let before = snapshot(None).expect("/proc/self/stat is readable on Linux");
        let started = std::time::Instant::now();
        let mut x = 0u64;
        let after = loop {
            for i in 0..1_000_000u64 {
                x = x.wrapping_mul(31).wrapping_add(i);
            }
            let now = snapshot(None).expect("readable");
            if now.own > before.own || started.elapsed().as_secs() > 10 {
                break now;
            }
        };
        std::hint::black_box(x);
        let cost = before.cost(&after, 1, false).expect("one operation");
        assert!(cost.client_us > 0.0, "{cost:?}");
        assert!(before.cost(&after, 0, false).is_none());
    }
}
