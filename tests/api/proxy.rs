//! The shipped deployment's proxy: deploy/compose.yaml's trust setting, and the
//! repository's deploy/nginx/nginx.conf run by nginx (Debian's `nginx`) in front of djego
//! on loopback, so login limits see each client behind it, not the proxy.

use crate::helpers::TestApp;
use djego::auth::proxies::TrustedProxies;
use djego::domain::Role;
use serde_json::json;
use std::path::{Path, PathBuf};

const NGINX: &str = "/usr/sbin/nginx";

fn repo_file(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The value of `key: value` on its own line of a YAML file, the first such line.
fn yaml_value(yaml: &str, key: &str) -> Option<String> {
    yaml.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(key)?.strip_prefix(':')?;
        Some(rest.trim().trim_matches('"').to_string())
    })
}

/// The compose file trusts exactly the address it gives nginx, on a network whose
/// subnet holds it, and the instances are not published (clients reach them only
/// through nginx).
#[test]
fn compose_trusts_its_proxy_and_nothing_else() {
    let compose = repo_file("deploy/compose.yaml");
    let trusted =
        yaml_value(&compose, "DJEGO_TRUST_FORWARDED_FOR").expect("the instances set DJEGO_TRUST_FORWARDED_FOR");
    let lb = yaml_value(&compose, "ipv4_address").expect("nginx has a fixed address");
    assert_eq!(trusted, lb, "the instances trust nginx's address");
    let subnet = yaml_value(&compose, "- subnet").expect("the backend network's subnet");
    let proxies = TrustedProxies::parse(&trusted).expect("a valid setting");
    assert!(TrustedProxies::parse(&subnet).unwrap().trusts(lb.parse().unwrap()));
    assert!(proxies.trusts(lb.parse().unwrap()));
    for other in ["172.30.0.11", "172.30.0.2", "203.0.113.5"] {
        assert!(!proxies.trusts(other.parse().unwrap()), "{other} is not the proxy");
    }
    let published = compose.matches("ports:").count();
    assert_eq!(published, 1, "only nginx publishes a port");
    // The Kubernetes set-up trusts a network too, never every peer.
    let configmap = repo_file("deploy/k8s/configmap.yaml");
    let k8s = yaml_value(&configmap, "DJEGO_TRUST_FORWARDED_FOR").expect("the ConfigMap sets it");
    let k8s = TrustedProxies::parse(&k8s).expect("a valid setting");
    assert!(!k8s.is_empty() && k8s != TrustedProxies::any(), "{k8s:?}");
    assert!(repo_file("deploy/k8s/kustomization.yaml").contains("networkpolicy.yaml"));
}

/// nginx running deploy/nginx/nginx.conf on loopback, in front of one djego; stopped when dropped.
struct Nginx {
    child: std::process::Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Nginx {
    /// The repository's nginx.conf with its upstream servers pointed at `upstream_port`,
    /// listening on a free loopback port, with its files in a temporary directory.
    async fn start(upstream_port: u16) -> Nginx {
        assert!(
            Path::new(NGINX).exists(),
            "this test runs nginx: install Debian's `nginx` package (.ci/run does)"
        );
        let dir = tempfile::tempdir().expect("a directory for nginx");
        let out: PathBuf = dir.path().to_path_buf();
        let tmp = out.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        // nginx started as root runs its workers as nobody.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o777)).unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o755)).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut text = repo_file("deploy/nginx/nginx.conf");
        let servers: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("server djego-"))
            .collect();
        assert!(!servers.is_empty(), "upstream servers in nginx.conf");
        let first = servers[0].to_string();
        let others: Vec<String> = servers[1..].iter().map(|s| format!("{s}\n")).collect();
        for other in others {
            text = text.replacen(&other, "", 1);
        }
        let d = out.display();
        let temp_paths: String = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .iter()
            .map(|t| format!("    {t}_temp_path {d}/tmp/{t};\n"))
            .collect();
        for (old, new) in [
            (
                first.trim().to_string(),
                format!("server 127.0.0.1:{upstream_port} max_fails=2 fail_timeout=10s;"),
            ),
            ("pid /tmp/nginx.pid;".into(), format!("pid {d}/nginx.pid;")),
            (
                "error_log /dev/stderr warn;".into(),
                format!("error_log {d}/error.log warn;"),
            ),
            (
                "access_log /dev/stdout djego;".into(),
                format!("access_log {d}/access.log djego;\n{temp_paths}"),
            ),
            ("listen 8080;".into(), format!("listen 127.0.0.1:{port};")),
        ] {
            assert_eq!(text.matches(old.as_str()).count(), 1, "{old} in nginx.conf");
            text = text.replace(old.as_str(), &new);
        }
        let conf = out.join("nginx.conf");
        std::fs::write(&conf, text).unwrap();
        let child = std::process::Command::new(NGINX)
            .arg("-p")
            .arg(&out)
            .arg("-c")
            .arg(&conf)
            .args(["-g", "daemon off;"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("nginx starts");
        let nginx = Nginx { child, port, _dir: dir };
        let url = format!("http://127.0.0.1:{port}/lb-health");
        for _ in 0..100 {
            if reqwest::get(&url).await.is_ok_and(|r| r.status().is_success()) {
                return nginx;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let log = std::fs::read_to_string(out.join("error.log")).unwrap_or_default();
        panic!("nginx did not start: {log}");
    }
}

fn client_from(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(Some(ip.parse().expect("an address")))
        .build()
        .expect("a client")
}

async fn login(client: &reqwest::Client, base: &str, username: &str, password: &str) -> u16 {
    client
        .post(format!("{base}/api/v1/auth/login"))
        .header("X-Forwarded-For", "127.0.0.77")
        .json(&json!({ "username": username, "password": password }))
        .send()
        .await
        .expect("a login answers")
        .status()
        .as_u16()
}

both_backends!(
    async fn behind_the_shipped_proxy_an_attacker_does_not_lock_out_the_pit_boss(app: TestApp) {
        // djego trusts only the proxy's address, as the compose file's instances do: here
        // nginx reaches djego from 127.0.0.1.
        let app = TestApp::spawn_with(app.backend, |s| {
            s.trusted_proxies = TrustedProxies::parse("127.0.0.1").unwrap();
        })
        .await;
        let nginx = Nginx::start(app.port).await;
        let lb = format!("http://127.0.0.1:{}", nginx.port);
        let boss = app.create_user(Role::Pitboss).await;
        let cashier = app.create_user(Role::Cashier).await;
        let (attacker, pit, cage) = (
            client_from("127.0.0.2"),
            client_from("127.0.0.3"),
            client_from("127.0.0.4"),
        );
        assert_eq!(login(&pit, &lb, &boss.username, &boss.password).await, 200);

        // 100 failed logins from one client through nginx, at both accounts (each claims
        // another address in X-Forwarded-For, which nginx appends to and djego reads past).
        let mut refused = 0;
        for i in 0..100 {
            let who = if i % 2 == 0 { &boss } else { &cashier };
            match login(&attacker, &lb, &who.username, "wrong-password").await {
                401 => {}
                429 => refused += 1,
                other => panic!("a guess answered {other}"),
            }
        }
        assert!(refused >= 90, "the attacker's address is held: {refused} refused");
        assert_eq!(
            login(&attacker, &lb, &boss.username, &boss.password).await,
            429,
            "the attacker's address stays held"
        );
        // The pit boss at the pit and the cashier at the cage sign in.
        assert_eq!(login(&pit, &lb, &boss.username, &boss.password).await, 200);
        assert_eq!(login(&cage, &lb, &cashier.username, &cashier.password).await, 200);
        let failed = app.events("login_failed").await;
        let details: serde_json::Value = serde_json::from_str(failed[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!(
            details["address"], "127.0.0.2",
            "counted by the client's address: {details}"
        );

        // Straight to djego, not through the proxy, X-Forwarded-For is not believed: the
        // attacker cannot claim the pit's address.
        let direct = format!("http://127.0.0.1:{}", app.port);
        let spoofing = client_from("127.0.0.5");
        for _ in 0..6 {
            spoofing
                .post(format!("{direct}/api/v1/auth/login"))
                .header("X-Forwarded-For", "127.0.0.3")
                .header("X-Real-IP", "127.0.0.3")
                .json(&json!({ "username": boss.username, "password": "wrong-password" }))
                .send()
                .await
                .unwrap();
        }
        assert_eq!(login(&pit, &lb, &boss.username, &boss.password).await, 200);
        assert_eq!(login(&spoofing, &direct, &boss.username, &boss.password).await, 429);
    }
);
