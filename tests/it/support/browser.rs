//! A real headless Chromium driven over WebDriver (Debian `chromium` and
//! `chromium-driver`): chromedriver on a free port in its own process group, one browser
//! per test with a fresh profile that accepts the server's self-signed certificate, DOM
//! waits, and the console login every browser test shares.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;
use tempfile::TempDir;

use super::Server;

const DRIVER: &str = "chromedriver";
/// Long enough for a loaded CI machine; a wait ends as soon as its condition holds.
const WAIT: Duration = Duration::from_secs(30);

/// A browser session; [`Browser::close`] ends it, and dropping it kills what is left.
pub struct Browser {
    pub client: Client,
    driver: Child,
    _profile: TempDir,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Starts chromedriver and a headless Chromium. `None` (the test is skipped, saying so)
/// when chromedriver is not installed, unless `FULFILLD_REQUIRE_CHROMIUM` is set, as in CI.
pub async fn browser() -> Option<Browser> {
    let port = free_port();
    let spawned = Command::new(DRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        // Its own group, so that dropping the browser can end Chromium with it.
        .process_group(0)
        .spawn();
    let mut driver = match spawned {
        Ok(c) => c,
        Err(e) if std::env::var_os("FULFILLD_REQUIRE_CHROMIUM").is_none() => {
            eprintln!("browser test not run ({e}); install the Debian packages chromium and chromium-driver");
            return None;
        }
        Err(e) => panic!("chromedriver is required here: {e}"),
    };
    // chromedriver says on stdout when it listens.
    let out = driver.stdout.take().expect("piped");
    let (ready, listening) = tokio::sync::oneshot::channel();
    tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(out).lines();
        let mut ready = Some(ready);
        // Read to the end, so chromedriver never blocks on a full pipe.
        for line in lines.by_ref().map_while(Result::ok) {
            if line.contains("started successfully") {
                if let Some(r) = ready.take() {
                    let _ = r.send(());
                }
            }
        }
    });
    tokio::time::timeout(WAIT, listening)
        .await
        .expect("chromedriver starts")
        .expect("chromedriver says it started");
    let profile = tempfile::tempdir().expect("profile dir");
    let mut caps = serde_json::Map::new();
    caps.insert("acceptInsecureCerts".into(), json!(true));
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "args": [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-crash-reporter", "--disable-breakpad",
            "--window-size=1366,768",
            format!("--user-data-dir={}", profile.path().display()),
        ]}),
    );
    let client = ClientBuilder::new(HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a WebDriver session");
    Some(Browser {
        client,
        driver,
        _profile: profile,
    })
}

impl Browser {
    pub async fn goto(&self, url: &str) {
        self.client.goto(url).await.expect("navigate");
    }

    /// Waits until an element matches the CSS selector.
    pub async fn css(&self, selector: &str) -> Element {
        self.client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(selector))
            .await
            .unwrap_or_else(|e| panic!("no {selector}: {e}"))
    }

    /// Waits until an element with this tag name (or id, as `#id`) contains `text`.
    pub async fn text(&self, tag: &str, text: &str) -> Element {
        let xpath = match tag.strip_prefix('#') {
            Some(id) => format!(
                "//*[@id='{id}'][contains(normalize-space(.), {})]",
                xpath_literal(text)
            ),
            None => format!(
                "//{tag}[contains(normalize-space(.), {})]",
                xpath_literal(text)
            ),
        };
        self.client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::XPath(&xpath))
            .await
            .unwrap_or_else(|e| panic!("no {tag} with {text:?}: {e}"))
    }

    /// Types into the field matching `selector` (after clearing it).
    pub async fn fill(&self, selector: &str, value: &str) {
        let el = self.css(selector).await;
        el.clear().await.expect("clear");
        el.send_keys(value).await.expect("type");
    }

    pub async fn click(&self, selector: &str) {
        self.click_found(selector, || self.css(selector)).await;
    }

    /// Clicks the element with this tag name containing `text` (see [`Browser::text`]).
    pub async fn click_text(&self, tag: &str, text: &str) {
        self.click_found(text, || self.text(tag, text)).await;
    }

    /// Clicks what `find` waits for; when the page rendered it again between the find and
    /// the click (a list drawn from the cache, then from the server), finds it again.
    async fn click_found<F, Fut>(&self, what: &str, find: F)
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Element>,
    {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            match find().await.click().await {
                Ok(()) => return,
                Err(e)
                    if e.is_stale_element_reference() && tokio::time::Instant::now() < deadline => {
                }
                Err(e) => panic!("click {what}: {e}"),
            }
        }
    }

    pub async fn path(&self) -> String {
        let url = self.client.current_url().await.expect("url");
        match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        }
    }

    /// Waits until the address bar's path (and query) is `want`.
    pub async fn at(&self, want: &str) {
        let mut url = self.client.current_url().await.expect("url");
        url.set_path("");
        let target = url.join(want).expect("url");
        if let Err(e) = self.client.wait().at_most(WAIT).for_url(&target).await {
            panic!("never at {want} (at {}): {e}", self.path().await);
        }
    }

    /// Logs in through the form at `/console/login` and waits for the console to show
    /// who is logged in.
    pub async fn log_in(&self, server: &Server, user: &str, password: &str) {
        self.goto(&format!("{}/console/login", server.base)).await;
        self.fill("#username", user).await;
        self.fill("#password", password).await;
        self.click("button[type=submit]").await;
        self.text("#whoami", user).await;
    }

    pub async fn close(mut self) {
        let client = self.client.clone();
        client.close().await.expect("end the WebDriver session");
        self.end_driver();
    }

    fn end_driver(&mut self) {
        // SAFETY: signals the process group this struct started; no memory is touched.
        unsafe {
            libc::kill(-(self.driver.id() as i32), libc::SIGKILL);
        }
        let _ = self.driver.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if self.driver.try_wait().ok().flatten().is_none() {
            self.end_driver();
        }
    }
}

/// `text` as an XPath string literal (XPath 1 has no escapes: split on `'`).
fn xpath_literal(text: &str) -> String {
    if !text.contains('\'') {
        return format!("'{text}'");
    }
    let parts: Vec<String> = text.split('\'').map(|p| format!("'{p}'")).collect();
    format!("concat({})", parts.join(", \"'\", "))
}

/// Creates a console user through the running server's admin socket (a blocking call,
/// off the runtime that serves it).
pub async fn add_user(server: &Server, name: &str, role: &str, password: &str) {
    let req = fulfilld::admin::Request::UsersCreate {
        name: name.into(),
        role: role.into(),
        password: Some(password.into()),
    };
    let dir = server.dir.path().to_path_buf();
    let reply = tokio::task::spawn_blocking(move || fulfilld::admin::call(&dir, &req))
        .await
        .unwrap()
        .expect("admin socket")
        .expect("server answers");
    assert!(reply.ok, "{:?}", reply.error);
}

/// A browser logged in as a new user of `role` (password `{name}-pw-123456`).
pub async fn logged_in(server: &Server, name: &str, role: &str) -> Option<Browser> {
    let b = browser().await?;
    let password = format!("{name}-pw-123456");
    add_user(server, name, role, &password).await;
    b.log_in(server, name, &password).await;
    Some(b)
}
