//! `fulfilld users ...`: console accounts, through the running server's admin socket or
//! directly on the database, like `clients`.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use argh::FromArgs;

use crate::admin::Request;

/// Manage console users (people; API clients are `clients`).
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "users")]
pub struct UsersArgs {
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
    #[argh(subcommand)]
    pub command: UsersCommand,
}

#[derive(FromArgs, Debug)]
#[argh(subcommand)]
pub enum UsersCommand {
    Create(UsersCreate),
    List(UsersList),
    Delete(UsersDelete),
    SetPassword(UsersSetPassword),
}

/// Create a user; prints {"username", "role", "password"} (the password only when generated).
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "create")]
pub struct UsersCreate {
    /// the user name (letters, digits, '.', '_', '-', '@')
    #[argh(option)]
    pub name: String,
    /// admin, operator or packer
    #[argh(option)]
    pub role: String,
    /// read the password from standard input (one line) instead of generating one
    #[argh(switch)]
    pub password_stdin: bool,
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

/// List users as JSON.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "list")]
pub struct UsersList {
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

/// Delete a user; their sessions end at once.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "delete")]
pub struct UsersDelete {
    /// the user name
    #[argh(positional)]
    pub name: String,
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

/// Give a user a new password (printed when generated); their sessions end.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "set-password")]
pub struct UsersSetPassword {
    /// the user name
    #[argh(positional)]
    pub name: String,
    /// read the password from standard input (one line) instead of generating one
    #[argh(switch)]
    pub password_stdin: bool,
    /// data directory (default ./data)
    #[argh(option)]
    pub data_dir: Option<PathBuf>,
}

/// The first line of standard input, without its line ending.
fn password_from_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .take(4096)
        .read_to_string(&mut text)
        .context("reading the password from standard input")?;
    let line = text.lines().next().unwrap_or("").to_string();
    anyhow::ensure!(!line.is_empty(), "no password on standard input");
    Ok(line)
}

fn stdin_if(wanted: bool) -> anyhow::Result<Option<String>> {
    wanted.then(password_from_stdin).transpose()
}

impl UsersArgs {
    /// The data directory (the subcommand's, else the group's) and the admin request.
    pub fn request(self) -> anyhow::Result<(Option<PathBuf>, Request)> {
        let group = self.data_dir;
        Ok(match self.command {
            UsersCommand::Create(a) => (
                a.data_dir.or(group),
                Request::UsersCreate {
                    name: a.name,
                    role: a.role,
                    password: stdin_if(a.password_stdin)?,
                },
            ),
            UsersCommand::List(a) => (a.data_dir.or(group), Request::UsersList),
            UsersCommand::Delete(a) => {
                (a.data_dir.or(group), Request::UsersDelete { name: a.name })
            }
            UsersCommand::SetPassword(a) => (
                a.data_dir.or(group),
                Request::UsersSetPassword {
                    name: a.name,
                    password: stdin_if(a.password_stdin)?,
                },
            ),
        })
    }
}
