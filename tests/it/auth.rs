//! Authentication: the token endpoint and its RFC 6749 errors, Bearer and API-key
//! access, and revocation of a deleted client's credentials.

use base64::Engine;
use serde_json::Value;
use storage::Tier;

use crate::support::{assert_error, body, Server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_endpoint_issues_tokens_and_follows_rfc6749_errors() {
    let s = Server::start().await;
    let c = &s.creds;
    let token_url = s.url("/oauth/token");

    // Form credentials.
    let resp = s.token_response(c).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["cache-control"], "no-store");
    let (_, v) = body(resp).await;
    assert_eq!(v["token_type"], "Bearer");
    assert_eq!(v["expires_in"], 3600);
    assert!(v["access_token"].as_str().unwrap().len() > 20);

    // HTTP Basic credentials.
    let basic = base64::engine::general_purpose::STANDARD
        .encode(format!("{}:{}", c.client_id, c.client_secret));
    let resp = s
        .http
        .post(&token_url)
        .header("Authorization", format!("Basic {basic}"))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);

    // (form fields, Authorization header, status, RFC 6749 error)
    type Case<'a> = (Vec<(&'a str, &'a str)>, Option<String>, u16, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![
                ("client_id", &c.client_id),
                ("client_secret", &c.client_secret),
            ],
            None,
            400,
            "invalid_request",
        ),
        (
            vec![
                ("grant_type", "password"),
                ("client_id", &c.client_id),
                ("client_secret", &c.client_secret),
            ],
            None,
            400,
            "unsupported_grant_type",
        ),
        (
            vec![
                ("grant_type", "client_credentials"),
                ("client_id", &c.client_id),
                ("client_secret", "wrong"),
            ],
            None,
            401,
            "invalid_client",
        ),
        (
            vec![
                ("grant_type", "client_credentials"),
                ("client_id", "cli_nobody"),
                ("client_secret", &c.client_secret),
            ],
            None,
            401,
            "invalid_client",
        ),
        (
            vec![("grant_type", "client_credentials")],
            None,
            401,
            "invalid_client",
        ),
        (
            vec![
                ("grant_type", "client_credentials"),
                ("client_id", &c.client_id),
            ],
            Some(format!("Basic {basic}")),
            400,
            "invalid_request",
        ),
        (
            vec![
                ("grant_type", "client_credentials"),
                ("grant_type", "client_credentials"),
            ],
            None,
            400,
            "invalid_request",
        ),
    ];
    for (form, auth, status, error) in cases {
        let mut req = s.http.post(&token_url).form(&form);
        if let Some(a) = auth {
            req = req.header("Authorization", a);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status().as_u16(), status, "form {form:?}");
        if status == 401 {
            assert!(resp.headers().contains_key("www-authenticate"));
        }
        let v: Value = resp.json().await.unwrap();
        assert_eq!(v["error"], error, "form {form:?}: {v}");
        assert!(v["error_description"].is_string());
    }

    // Not form-encoded.
    let resp = s
        .http
        .post(&token_url)
        .json(&serde_json::json!({"grant_type": "client_credentials"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    assert_eq!(
        resp.json::<Value>().await.unwrap()["error"],
        "invalid_request"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_and_api_key_are_accepted_and_missing_or_bad_credentials_are_401() {
    let s = Server::start().await;
    let token = s.token_for(&s.creds).await;

    let by_bearer = s.get_with_token("/api/products", &token).await;
    assert_eq!(by_bearer.status(), 200);
    let by_key = s.get("/api/products").send().await.unwrap();
    assert_eq!(by_key.status(), 200);

    let none = s.http.get(s.url("/api/products")).send().await.unwrap();
    assert_eq!(none.status(), 401);
    assert!(none.headers().contains_key("www-authenticate"));
    assert_error(&none.json().await.unwrap(), "unauthorized", None);

    let mut forged = token.clone();
    forged.pop();
    forged.push(if token.ends_with('A') { 'B' } else { 'A' });
    for (name, value) in [
        ("Authorization", format!("Bearer {forged}")),
        ("Authorization", "Bearer not-a-token".to_string()),
        ("Authorization", "Basic Zm9vOmJhcg==".to_string()),
        ("X-API-Key", "fk_unknown".to_string()),
    ] {
        let resp = s
            .http
            .get(s.url("/api/products"))
            .header(name, &value)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 401, "{name}: {value}");
        assert_error(&resp.json().await.unwrap(), "unauthorized", None);
    }

    // The packing service takes X-API-Key only.
    let packing_bearer = s
        .http
        .get(format!("{}/api/v1/health", s.packing))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(packing_bearer.status(), 200, "health needs no credentials");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_clients_token_and_key_stop_working_at_once() {
    let s = Server::start().await;
    let extra = s.client_of_tier(Tier::Growth);
    let token = s.token_for(&extra).await;
    let ok = s.get_with_token("/api/products", &token).await;
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.headers()["x-ratelimit-limit"], "100", "growth tier");

    s.delete_client(&extra.client_id);
    let by_token = s.get_with_token("/api/products", &token).await;
    assert_eq!(by_token.status(), 401);
    let by_key = s.get_with_key("/api/products", &extra.api_key).await;
    assert_eq!(by_key.status(), 401);
    let new_token = s.token_response(&extra).await;
    assert_eq!(new_token.status(), 401);
}
