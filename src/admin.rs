//! The admin endpoint: a Unix socket in the data directory (mode 0600 is the access
//! control) through which `fulfilld clients ...`, `users ...` and `inbound set-secret`
//! reach a running server, since sled lets only one process open the database.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use storage::Tier;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use crate::accounts::AccountService;
use crate::clients::ClientService;
use crate::shutdown::Shutdown;

pub const SOCKET: &str = "admin.sock";

/// One admin operation, sent as a JSON line.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    ClientsCreate {
        name: String,
        tier: String,
    },
    ClientsList,
    ClientsDelete {
        id: String,
    },
    InboundSetSecret {
        source: String,
        secret: String,
    },
    /// A console user; `password` absent: one is generated and returned.
    UsersCreate {
        name: String,
        role: String,
        #[serde(default)]
        password: Option<String>,
    },
    UsersList,
    UsersDelete {
        name: String,
    },
    UsersSetPassword {
        name: String,
        #[serde(default)]
        password: Option<String>,
    },
    /// A consistent backup written by the server to `out` (an absolute path).
    Backup {
        out: PathBuf,
    },
}

/// The answer: `{"ok": true, "result": ...}` or `{"ok": false, "error": "..."}`.
#[derive(Serialize, Deserialize, Debug)]
pub struct Reply {
    pub ok: bool,
    #[serde(default)]
    pub result: serde_json::Value,
    #[serde(default)]
    pub error: Option<String>,
}

pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET)
}

/// Carries out a request against the client and account services (in the server, or
/// directly on the database).
pub fn execute(
    service: &ClientService,
    accounts: &AccountService,
    req: &Request,
) -> anyhow::Result<serde_json::Value> {
    Ok(match req {
        Request::ClientsCreate { name, tier } => {
            let tier = Tier::parse(tier).with_context(|| {
                format!("unknown tier {tier:?} (starter, growth, pro, enterprise or unlimited)")
            })?;
            anyhow::ensure!(!name.trim().is_empty(), "--name must not be empty");
            serde_json::to_value(service.create(name.trim(), tier)?)?
        }
        Request::ClientsList => serde_json::to_value(service.list()?)?,
        Request::ClientsDelete { id } => {
            anyhow::ensure!(service.delete(id)?, "no client with id {id}");
            serde_json::json!({ "deleted": id })
        }
        Request::InboundSetSecret { source, secret } => {
            service.set_inbound_secret(source, secret)?;
            serde_json::json!({ "source": source })
        }
        Request::UsersCreate {
            name,
            role,
            password,
        } => serde_json::to_value(accounts.create_user(name.trim(), role, password.clone())?)?,
        Request::UsersList => serde_json::to_value(accounts.list_users()?)?,
        Request::UsersDelete { name } => {
            anyhow::ensure!(accounts.delete_user(name)?, "no user named {name:?}");
            serde_json::json!({ "deleted": name })
        }
        Request::UsersSetPassword { name, password } => {
            serde_json::to_value(accounts.set_password(name, password.clone())?)?
        }
        Request::Backup { .. } => anyhow::bail!("a backup is taken by `fulfilld backup`"),
    })
}

/// Binds the socket (replacing a stale one) and serves it until shutdown.
pub fn spawn(
    data_dir: &Path,
    clients: ClientService,
    accounts: AccountService,
    store: storage::Store,
    backups: Arc<crate::ops::schedule::Status>,
    mut shutdown: Shutdown,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let path = socket_path(data_dir);
    let dir = data_dir.to_path_buf();
    let _ = std::fs::remove_file(&path);
    let listener =
        UnixListener::bind(&path).with_context(|| format!("binding {}", path.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    Ok(tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                _ = shutdown.wait() => break,
                accepted = listener.accept() => match accepted {
                    Ok((s, _)) => s,
                    Err(_) => continue,
                },
            };
            let services = (clients.clone(), accounts.clone());
            let ops = (store.clone(), dir.clone(), Arc::clone(&backups));
            tokio::spawn(async move {
                if let Err(e) = answer(stream, services, ops).await {
                    tracing::warn!(error = %e, "admin connection failed");
                }
            });
        }
        let _ = std::fs::remove_file(&path);
    }))
}

async fn answer(
    stream: UnixStream,
    (service, accounts): (ClientService, AccountService),
    (store, data_dir, backups): (storage::Store, PathBuf, Arc<crate::ops::schedule::Status>),
) -> anyhow::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    BufReader::new(read.take(64 * 1024))
        .read_line(&mut line)
        .await?;
    let reply = match serde_json::from_str::<Request>(&line) {
        Ok(req) => {
            let outcome = tokio::task::spawn_blocking(move || match &req {
                Request::Backup { out } => crate::ops::backup::write(&store, &data_dir, out)
                    .inspect_err(|e| backups.failed_now(format!("{e:#}")))
                    .and_then(|r| {
                        backups.written_now();
                        Ok(serde_json::to_value(r)?)
                    }),
                _ => execute(&service, &accounts, &req),
            })
            .await?;
            match outcome {
                Ok(result) => Reply {
                    ok: true,
                    result,
                    error: None,
                },
                Err(e) => Reply {
                    ok: false,
                    result: serde_json::Value::Null,
                    error: Some(format!("{e:#}")),
                },
            }
        }
        Err(e) => Reply {
            ok: false,
            result: serde_json::Value::Null,
            error: Some(format!("bad request: {e}")),
        },
    };
    let mut out = serde_json::to_vec(&reply)?;
    out.push(b'\n');
    write.write_all(&out).await?;
    Ok(())
}

/// Sends a request to a running server. `Ok(None)` when no server answers the socket.
pub fn call(data_dir: &Path, req: &Request) -> anyhow::Result<Option<Reply>> {
    use std::io::{BufRead, Write};
    let path = socket_path(data_dir);
    let mut stream = match std::os::unix::net::UnixStream::connect(&path) {
        Ok(s) => s,
        Err(_) => return Ok(None),
    };
    let mut line = serde_json::to_vec(req)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    let mut answer = String::new();
    std::io::BufReader::new(stream).read_line(&mut answer)?;
    Ok(Some(
        serde_json::from_str(&answer).context("reading the server's answer")?,
    ))
}
