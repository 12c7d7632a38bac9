//! The command line (argh). The words are fixed by the product decisions so that
//! scripts and the systemd unit can rely on them. Admin subcommands go through the
//! running server's socket, or open the database directly when no server runs.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use argh::FromArgs;
use storage::{Store, StoreConfig};

mod users;

pub use users::UsersArgs;

use crate::accounts::AccountService;
use crate::admin::{self, Request};
use crate::clients::{ClientService, Registry};
use crate::config::{self, Config, Overrides};

/// fulfilld: on-premise order fulfillment and 3D packing appliance.
#[derive(FromArgs, Debug)]
pub struct Cli {
    #[argh(subcommand)]
    pub command: Command,
}

#[derive(FromArgs, Debug)]
#[argh(subcommand)]
pub enum Command {
    Serve(ServeArgs),
    Clients(ClientsArgs),
    Users(UsersArgs),
    Inbound(InboundArgs),
    Backup(crate::ops::BackupArgs),
    Restore(crate::ops::RestoreArgs),
    Check(crate::ops::CheckArgs),
}

/// Run the fulfillment (default 127.0.0.1:8443) and packing (127.0.0.1:8444) services.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "serve")]
pub struct ServeArgs {
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
    /// fulfillment listener address (default 127.0.0.1:8443)
    #[argh(option)]
    pub listen: Option<SocketAddr>,
    /// packing listener address (default 127.0.0.1:8444)
    #[argh(option)]
    pub packing_listen: Option<SocketAddr>,
    /// TLS certificate chain (PEM); needs --tls-key
    #[argh(option)]
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM); needs --tls-cert
    #[argh(option)]
    pub tls_key: Option<PathBuf>,
    /// serve plain HTTP (only behind a TLS-terminating reverse proxy)
    #[argh(switch)]
    pub plain_http: bool,
    /// TOML config file; flags override it
    #[argh(option)]
    pub config: Option<PathBuf>,
    /// extra trusted CA (PEM) for webhook subscriber URLs; repeatable
    #[argh(option)]
    pub webhook_ca: Vec<PathBuf>,
    /// webhook retry delays (default 1m,5m,30m,2h; units ms, s, m, h)
    #[argh(option)]
    pub webhook_retry_delays: Option<String>,
}

/// Manage API clients.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "clients")]
pub struct ClientsArgs {
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
    #[argh(subcommand)]
    pub command: ClientsCommand,
}

#[derive(FromArgs, Debug)]
#[argh(subcommand)]
pub enum ClientsCommand {
    Create(ClientsCreate),
    List(ClientsList),
    Delete(ClientsDelete),
}

/// Create a client; prints {"client_id", "client_secret", "api_key", "tier"}.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "create")]
pub struct ClientsCreate {
    /// a name for the client
    #[argh(option)]
    pub name: String,
    /// rate-limit tier: starter, growth, pro, enterprise or unlimited (default starter)
    #[argh(option, default = "String::from(\"starter\")")]
    pub tier: String,
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

/// List clients as JSON.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "list")]
pub struct ClientsList {
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

/// Delete a client; its tokens and API key stop working at once.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "delete")]
pub struct ClientsDelete {
    /// the client id
    #[argh(positional)]
    pub id: String,
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

/// Manage inbound callback secrets.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "inbound")]
pub struct InboundArgs {
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
    #[argh(subcommand)]
    pub command: InboundCommand,
}

#[derive(FromArgs, Debug)]
#[argh(subcommand)]
pub enum InboundCommand {
    SetSecret(InboundSetSecret),
}

/// Set the HMAC secret of an inbound source.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "set-secret")]
pub struct InboundSetSecret {
    /// wms or carrier:NAME
    #[argh(option)]
    pub source: String,
    /// the shared secret (at least 16 characters)
    #[argh(option)]
    pub secret: String,
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

impl ServeArgs {
    pub fn into_config(self) -> anyhow::Result<Config> {
        Config::load(
            self.config.as_deref(),
            Overrides {
                data_dir: self.data_dir,
                listen: self.listen,
                packing_listen: self.packing_listen,
                tls_cert: self.tls_cert,
                tls_key: self.tls_key,
                plain_http: self.plain_http,
                webhook_ca: self.webhook_ca,
                webhook_retry_delays: self.webhook_retry_delays,
            },
        )
    }
}

fn data_dir(leaf: Option<PathBuf>, group: Option<PathBuf>) -> PathBuf {
    leaf.or(group)
        .unwrap_or_else(|| PathBuf::from(config::DEFAULT_DATA_DIR))
}

/// The admin request and data directory of an admin subcommand (`users` may read a
/// password from standard input).
pub fn admin_request(command: Command) -> anyhow::Result<Option<(PathBuf, Request)>> {
    Ok(Some(match command {
        Command::Serve(_) | Command::Backup(_) | Command::Restore(_) | Command::Check(_) => {
            return Ok(None)
        }
        Command::Users(u) => {
            let (dir, req) = u.request()?;
            (data_dir(dir, None), req)
        }
        Command::Clients(c) => match c.command {
            ClientsCommand::Create(a) => (
                data_dir(a.data_dir, c.data_dir),
                Request::ClientsCreate {
                    name: a.name,
                    tier: a.tier,
                },
            ),
            ClientsCommand::List(a) => (data_dir(a.data_dir, c.data_dir), Request::ClientsList),
            ClientsCommand::Delete(a) => (
                data_dir(a.data_dir, c.data_dir),
                Request::ClientsDelete { id: a.id },
            ),
        },
        Command::Inbound(i) => match i.command {
            InboundCommand::SetSecret(a) => (
                data_dir(a.data_dir, i.data_dir),
                Request::InboundSetSecret {
                    source: a.source,
                    secret: a.secret,
                },
            ),
        },
    }))
}

/// Runs an admin request through the server's socket, or directly on the database
/// when no server holds it. Returns the JSON to print.
pub fn run_admin(dir: &Path, req: &Request) -> anyhow::Result<serde_json::Value> {
    if let Some(reply) = admin::call(dir, req)? {
        return match reply.error {
            None if reply.ok => Ok(reply.result),
            err => Err(anyhow::anyhow!(
                err.unwrap_or_else(|| "the server refused".into())
            )),
        };
    }
    crate::fsutil::create_data_dir(dir)?;
    let store = Store::open(&dir.join("db"), &StoreConfig::default()).with_context(|| {
        format!(
            "opening {} (if a server is running, its admin socket did not answer)",
            dir.display()
        )
    })?;
    let registry = Arc::new(Registry::load(&store)?);
    // Settings only matter to a serving process; the defaults do for one command.
    let settings = Config::build(Default::default(), Default::default())?.accounts;
    let accounts = AccountService::load(store.clone(), &settings)?;
    admin::execute(&ClientService::new(store, registry), &accounts, req)
}
