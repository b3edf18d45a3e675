"""Spark as it answers today, for scripts/service-stubs.py: its OpenID Connect provider and its
rate limit. Imported by service-stubs.py (which runs with the venv's python: joserfc, Authlib's
JOSE library, signs the ID tokens with RS256).

What it follows (checked 2026-11-23):
- https://sparkplatform.com/docs/authentication/openid_connect_authentication: authorization at
  /openid/authorize (client_id, scope=openid, response_type=code, redirect_uri, state, nonce),
  the token exchange and refresh (the docs post a JSON body with client_id and client_secret),
  token deletion (revocation).
- https://sparkplatform.com/.well-known/openid-configuration (its members, as harvested
  2026-07-26): issuer, jwks_uri, authorization/token/userinfo/revocation endpoints, RS256 only,
  client_secret_post and client_secret_basic.
- https://sparkplatform.com/docs/supporting_documentation/error_codes: 1550 "Over rate limit"
  comes with HTTP 503.

Auth listener (sparkplatform.com), next to service-stubs.py's /openid (OpenID 2.0) and /oauth2:
GET  /.well-known/openid-configuration   the discovery document; issuer = the listener's origin
GET  /openid/jwks.json    {"keys": [RSA public key, "kid", "use": "sig", "alg": "RS256"]}; a new
                          2048-bit key at each start
GET  /openid/authorize?client_id&redirect_uri&response_type=code&scope=openid ...&state&nonce
     302 redirect_uri?code=CODE&state=STATE. Redirected errors (state kept):
     unsupported_response_type (not code), invalid_scope (no openid), STUB_DENY (stub_deny=...).
     400 text/html: unknown client_id, redirect_uri missing or not absolute, a bad stub_user.
     stub_user=NAME as for the other authorize endpoints.
POST /openid/token        form or JSON body; the client by client_id + client_secret in the body or
     HTTP Basic. grant_type=authorization_code (code, redirect_uri: the authorization's) or
     refresh_token (single-use: rotation). 200 {"access_token", "refresh_token", "token_type":
     "Bearer", "expires_in", "id_token"}. The ID token: RS256, header kid; claims iss, sub (the
     account's Id), aud (client_id), exp (in 3600 s), iat, auth_time, nonce (the authorization's,
     code grant only), name, given_name, family_name, email, preferred_username.
     Errors {"error", "error_description"}: 401 invalid_client; 400 unsupported_grant_type,
     invalid_request, invalid_grant. The tokens are the API's (Authorization: OAuth or Bearer).
POST /openid/revoke       RFC 7009: form body token[, token_type_hint], the client as above.
     200 (also for an unknown token); the token is dead from then on (API: 401 1000; refresh:
     invalid_grant). 401 invalid_client; 400 invalid_request without token.

Control (on every listener):
POST /_control/spark/rate-limit  {"requests": N, "window": S[, "user": NAME]} or {} (off)  every
     access token (of NAME's sessions only, when given) may make N API requests per S seconds (a
     sliding window); the next get 503
     {"D": {"Success": false, "Code": 1550, "Message": "Over rate limit"}} without Retry-After
     (Spark documents none). Reset by /_control/reset too.
POST /_control/spark/refresh-id-token  {"user": NAME, "fault": KIND} or {"user": NAME} (off)
     the ID tokens of NAME's refreshes from now on are wrong in one way (to test a client's
     checks, OpenID Connect Core 12.2): "signature" (signed by another key under the same kid),
     "subject" (another sub), "audience" (aud another client), "issuer" (another iss),
     "expired" (exp an hour ago), "missing" (no id_token at all, which 12.2 allows). Reset by
     /_control/reset too.

Log entries: "grant_type", "client_auth" ("basic" | "body"), "user", "token_status",
"token_type_hint", "error"; codes, tokens and secrets never (the log redacts them).
"""

import json
import threading
import time
import urllib.parse

# joserfc (Authlib's JOSE library, in the venv) is imported when the provider is first used, so
# that the other stand-ins run under any python3.

KEY_ID = "stub-spark-oidc-1"
ID_TOKEN_LIFETIME = 3600
CLIENT_ID, CLIENT_SECRET = "spark-test-client", "spark-test-secret"


class RateLimiter:
    """The rate limit's state (one per stand-in process)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.rate = None  # (requests, window seconds, user or None)
            self.hits = {}  # access token -> [arrival times]

    def set(self, rate):
        with self.lock:
            self.rate = rate
            self.hits = {}

    def over_limit(self, token, user):
        """Whether `token` (of `user`) is over the rate limit (and counts this request if not)."""
        with self.lock:
            if self.rate is None or self.rate[2] not in (None, user):
                return False
            requests, window, _ = self.rate
            now = time.monotonic()
            recent = [t for t in self.hits.get(token, []) if now - t < window]
            if len(recent) >= requests:
                self.hits[token] = recent
                return True
            recent.append(now)
            self.hits[token] = recent
            return False


LIMITER = RateLimiter()
REFRESH_FAULTS = {}  # user -> what is wrong with the ID token of that user's refreshes
REFRESH_FAULT_KINDS = ("signature", "subject", "audience", "issuer", "expired", "missing")
_FAULTS_LOCK = threading.Lock()
_KEY = []
_ROGUE_KEY = []
_KEY_LOCK = threading.Lock()


def signing_key():
    """The provider's RSA key, made at first use (a new one at each start)."""
    with _KEY_LOCK:
        if not _KEY:
            from joserfc.jwk import RSAKey

            _KEY.append(
                RSAKey.generate_key(
                    2048, parameters={"kid": KEY_ID, "use": "sig", "alg": "RS256"}, private=True
                )
            )
        return _KEY[0]


def rogue_key():
    """A key of nobody's, published nowhere, under the provider's kid: a forged signature."""
    with _KEY_LOCK:
        if not _ROGUE_KEY:
            from joserfc.jwk import RSAKey

            _ROGUE_KEY.append(
                RSAKey.generate_key(
                    2048, parameters={"kid": KEY_ID, "use": "sig", "alg": "RS256"}, private=True
                )
            )
        return _ROGUE_KEY[0]


def discovery(issuer):
    """Spark's discovery document, its members and values, with the stand-in's URLs."""
    return {
        "issuer": issuer,
        "jwks_uri": issuer + "/openid/jwks.json",
        "response_types_supported": [
            "id_token",
            "id_token token",
            "code",
            "id_token code token",
            "id_token code",
            "code token",
        ],
        "subject_types_supported": ["public", "pairwise"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "authorization_endpoint": issuer + "/openid/authorize",
        "token_endpoint": issuer + "/openid/token",
        "userinfo_endpoint": issuer + "/openid/userinfo",
        "scopes_supported": ["openid", "profile", "email", "address", "phone", "RESO", "FBS"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
        "claims_supported": ["sub", "iss", "name", "given_name", "family_name", "email"],
        "claims_parameter_supported": True,
        "revocation_endpoint": issuer + "/openid/revoke",
    }


def route_auth(h):
    """Answers the OpenID Connect paths of the auth listener; False for other paths."""
    p, cmd = h.req_path, h.command
    issuer = h.state.urls["spark"]["auth"]
    if p == "/.well-known/openid-configuration" and cmd in ("GET", "HEAD"):
        h.json(200, discovery(issuer))
    elif p == "/openid/jwks.json" and cmd in ("GET", "HEAD"):
        h.json(200, {"keys": [signing_key().as_dict(private=False)]})
    elif p == "/openid/authorize" and cmd in ("GET", "HEAD"):
        authorize(h)
    elif p == "/openid/token" and cmd == "POST":
        token(h, issuer)
    elif p == "/openid/revoke" and cmd == "POST":
        revoke(h)
    elif p in ("/openid/token", "/openid/revoke"):
        h.sp_oauth_error(405, "invalid_request", "use POST")
    else:
        return False
    return True


def authorize(h):
    st = h.state
    if h.q("client_id") != CLIENT_ID:
        h.html_error(400, "invalid_client: unknown client_id")
    redirect_uri = h.q("redirect_uri")
    if not redirect_uri or not urllib.parse.urlsplit(redirect_uri).scheme:
        h.html_error(400, "redirect_uri is required (an absolute URI)")
    user = h.q("stub_user") or "streamplay-tester"
    if not (1 <= len(user) <= 40 and all(c.isalnum() or c in "_-" for c in user)):
        h.html_error(400, "stub_user must be [A-Za-z0-9_-]{1,40}")
    state = h.q("state")

    def back(params):
        if state is not None:
            params.append(("state", state))
        h.redirect(redirect_uri + ("&" if "?" in redirect_uri else "?") + urllib.parse.urlencode(params))

    if h.q("response_type") != "code":
        h.entry["error"] = "response_type not code"
        return back([("error", "unsupported_response_type")])
    if "openid" not in (h.q("scope") or "").split():
        h.entry["error"] = "scope without openid"
        return back([("error", "invalid_scope"), ("error_description", "scope must include openid")])
    deny = h.q("stub_deny")
    if deny:
        h.entry["error"] = "denied by stub_deny"
        return back([("error", deny), ("error_description", "The user denied the request")])
    st.spark_user(user)
    h.entry["user"] = user
    code = st.new_code(
        "spark", client_id=CLIENT_ID, redirect_uri=redirect_uri, user=user, nonce=h.q("nonce"),
        openid_connect=True,
    )
    back([("code", code)])


def request_fields(h):
    """The token or revocation request's fields: a form body, or (token endpoint) JSON."""
    ctype = (h.headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if ctype == "application/json":
        try:
            obj = h.json_body()
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            h.sp_oauth_error(400, "invalid_request", "the body must be a JSON object")
        return {k: v for k, v in obj.items() if isinstance(v, str)}
    pairs = h.form()
    if pairs is None:
        h.sp_oauth_error(400, "invalid_request", "the body must be a form or JSON")
    return dict(pairs)


def authenticate_client(h, fields):
    basic = h.basic_credentials()
    if basic is not None:
        h.entry["client_auth"] = "basic"
        cid, secret = basic
    else:
        h.entry["client_auth"] = "body"
        cid, secret = fields.get("client_id"), fields.get("client_secret")
    if cid != CLIENT_ID or secret != CLIENT_SECRET:
        h.sp_oauth_error(401, "invalid_client", "client authentication failed")


def token(h, issuer):
    st = h.state
    fields = request_fields(h)
    authenticate_client(h, fields)
    grant = fields.get("grant_type")
    h.entry["grant_type"] = grant
    nonce = None
    if grant == "authorization_code":
        if not fields.get("code") or not fields.get("redirect_uri"):
            h.sp_oauth_error(400, "invalid_request", "code and redirect_uri are required")
        rec, why = st.take_code("spark", fields["code"])
        if rec is None:
            h.sp_oauth_error(400, "invalid_grant", why)
        if rec["redirect_uri"] != fields["redirect_uri"]:
            h.sp_oauth_error(400, "invalid_grant", "redirect_uri does not match the authorization's")
        user, nonce = rec["user"], rec.get("nonce")
    elif grant == "refresh_token":
        status, rec = st.lookup("spark", "refresh", fields.get("refresh_token"))
        h.entry["token_status"] = status
        if status != "valid":
            h.sp_oauth_error(400, "invalid_grant", "refresh token is %s" % status)
        st.revoke(fields["refresh_token"])
        user = rec["user"]
    else:
        h.sp_oauth_error(
            400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token"
        )
    h.entry["user"] = user
    fault = None
    if grant == "refresh_token":
        with _FAULTS_LOCK:
            fault = REFRESH_FAULTS.get(user)
        if fault:
            h.entry["id_token_fault"] = fault
    answer = {
        "access_token": st.issue("spark", "access", user=user),
        "refresh_token": st.issue("spark", "refresh", user=user),
        "token_type": "Bearer",
        "expires_in": int(st.expires_in["spark"]),
    }
    if fault != "missing":
        answer["id_token"] = id_token(st, issuer, user, nonce, fault)
    h.json(200, answer)


def id_token(st, issuer, user, nonce, fault=None):
    """The signed ID token; `fault` (REFRESH_FAULT_KINDS) makes it wrong in that one way."""
    u = st.spark_user(user)
    now = int(time.time())
    claims = {
        "iss": issuer + "/elsewhere" if fault == "issuer" else issuer,
        "sub": u["id"] + "0" if fault == "subject" else u["id"],
        "aud": "another-client" if fault == "audience" else CLIENT_ID,
        "exp": now - 3600 if fault == "expired" else now + ID_TOKEN_LIFETIME,
        "iat": now,
        "auth_time": now,
        "name": u["first"] + " " + u["last"],
        "given_name": u["first"],
        "family_name": u["last"],
        "email": u["email"],
        "preferred_username": u["name"],
    }
    if nonce is not None:
        claims["nonce"] = nonce
    from joserfc import jwt

    key = rogue_key() if fault == "signature" else signing_key()
    return jwt.encode({"alg": "RS256", "kid": KEY_ID, "typ": "JWT"}, claims, key)


def revoke(h):
    fields = request_fields(h)
    authenticate_client(h, fields)
    value = fields.get("token")
    if not value:
        h.sp_oauth_error(400, "invalid_request", "token is required")
    h.entry["token_type_hint"] = fields.get("token_type_hint")
    h.state.revoke(value)  # RFC 7009 2.2: 200 whether or not the token was known
    h.respond(200, b"", "application/json")


def check_rate(h, access_token, user):
    """Raises Spark's rate-limit answer when `access_token` (of `user`) is over the limit."""
    if LIMITER.over_limit(access_token, user):
        h.spark_error(503, 1550, "Over rate limit", note="over the rate limit")


def control(h):
    """/_control/spark/... (True: answered); /_control/reset also resets the rate limiter and
    goes on (False) to service-stubs.py's own reset."""
    if h.req_path == "/_control/reset":
        LIMITER.reset()
        with _FAULTS_LOCK:
            REFRESH_FAULTS.clear()
        return False
    if h.req_path == "/_control/spark/refresh-id-token":
        if h.command != "POST":
            h.json(405, {"error": "wrong method for this control request"})
            return True
        try:
            spec = json.loads(h.body.decode("utf-8") or "{}")
        except ValueError:
            spec = None
        if not isinstance(spec, dict) or not isinstance(spec.get("user"), str):
            h.json(400, {"error": "body must be a JSON object with user"})
            return True
        fault = spec.get("fault")
        if fault is not None and fault not in REFRESH_FAULT_KINDS:
            h.json(400, {"error": "fault must be one of " + ", ".join(REFRESH_FAULT_KINDS)})
            return True
        with _FAULTS_LOCK:
            if fault is None:
                REFRESH_FAULTS.pop(spec["user"], None)
            else:
                REFRESH_FAULTS[spec["user"]] = fault
        h.json(200, {"ok": True, "user": spec["user"], "fault": fault})
        return True
    if h.req_path == "/_control/spark/rate-limit":
        if h.command != "POST":
            h.json(405, {"error": "wrong method for this control request"})
            return True
        try:
            spec = json.loads(h.body.decode("utf-8") or "{}")
        except ValueError:
            spec = None
        if not isinstance(spec, dict):
            h.json(400, {"error": "body must be a JSON object"})
            return True
        if not spec:
            LIMITER.set(None)
            h.json(200, {"ok": True, "rate_limit": None})
            return True
        n, window, user = spec.get("requests"), spec.get("window"), spec.get("user")
        if not isinstance(n, int) or n < 0 or not isinstance(window, (int, float)) or window <= 0:
            h.json(400, {"error": "rate_limit needs requests (an integer >= 0) and window (seconds > 0)"})
            return True
        LIMITER.set((n, float(window), user))
        h.json(200, {"ok": True, "rate_limit": {"requests": n, "window": window, "user": user}})
        return True
    return False

