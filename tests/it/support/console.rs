//! Console sessions in tests: users made through the admin socket or the binary, a login
//! that keeps the session cookie and CSRF token, and requests sent as that person.

use std::path::Path;
use std::process::Command;

use fulfilld::admin::Request;
use fulfilld::http::auth::{CSRF_HEADER, SESSION_COOKIE};
use reqwest::Method;
use serde_json::Value;

use super::{bin, body, https_builder, run_with_stdin, Server};

/// A logged-in person: the `Cookie` header value and the session's CSRF token.
#[derive(Debug, Clone)]
pub struct Person {
    pub cookie: String,
    pub csrf: String,
}

/// An HTTPS client trusting the server in `dir` that shows redirects instead of
/// following them (a login answers 303).
pub fn console_client(dir: &Path) -> reqwest::Client {
    https_builder(&fulfilld::tls::self_signed_paths(dir).0)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("https client")
}

/// `POST /console/login` with the form fields (and `next` when given).
pub async fn post_login(
    http: &reqwest::Client,
    base: &str,
    user: &str,
    password: &str,
    next: Option<&str>,
) -> reqwest::Response {
    let mut form = vec![("username", user), ("password", password)];
    form.extend(next.map(|n| ("next", n)));
    http.post(format!("{base}/console/login"))
        .form(&form)
        .send()
        .await
        .unwrap()
}

/// The session cookie (`name=value`) a login answer sets.
pub fn session_cookie(resp: &reqwest::Response) -> Option<String> {
    resp.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{SESSION_COOKIE}=")))
        .map(|v| v.split(';').next().unwrap().to_string())
}

/// Logs in (asserting 303) and reads the CSRF token from `GET /console/session`.
pub async fn log_in(http: &reqwest::Client, base: &str, user: &str, password: &str) -> Person {
    let resp = post_login(http, base, user, password, None).await;
    assert_eq!(resp.status(), 303, "login of {user}");
    let cookie = session_cookie(&resp).expect("a session cookie");
    let (status, v) = body(
        http.get(format!("{base}/console/session"))
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    Person {
        cookie,
        csrf: v["csrfToken"].as_str().expect("csrfToken").to_string(),
    }
}

impl Person {
    /// A request carrying the session cookie and, when `csrf`, the CSRF header.
    pub fn req(
        &self,
        http: &reqwest::Client,
        method: Method,
        url: &str,
        csrf: bool,
    ) -> reqwest::RequestBuilder {
        let r = http.request(method, url).header("cookie", &self.cookie);
        if csrf {
            r.header(CSRF_HEADER, &self.csrf)
        } else {
            r
        }
    }
}

impl Server {
    /// Creates a console user through the running server's admin socket.
    pub fn create_user(&self, name: &str, role: &str, password: &str) {
        let req = Request::UsersCreate {
            name: name.into(),
            role: role.into(),
            password: Some(password.into()),
        };
        let reply = fulfilld::admin::call(self.dir.path(), &req)
            .unwrap()
            .expect("server answers");
        assert!(reply.ok, "{:?}", reply.error);
    }

    pub fn console_client(&self) -> reqwest::Client {
        console_client(self.dir.path())
    }

    /// Creates a user and logs them in.
    pub async fn person(&self, name: &str, role: &str) -> Person {
        let password = format!("{name}-password");
        self.create_user(name, role, &password);
        log_in(&self.console_client(), &self.base, name, &password).await
    }
}

/// Runs `fulfilld ARGS` with `stdin` on its standard input; success and parsed output.
pub fn admin_with_stdin(args: &[&str], stdin: &str) -> (bool, Value) {
    let out =
        run_with_stdin(Command::new(bin()).args(args), stdin.as_bytes()).expect("run fulfilld");
    assert!(
        out.status.success() || !out.stderr.is_empty(),
        "a failure says why"
    );
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.success(), v)
}
