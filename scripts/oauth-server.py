#!/usr/bin/env python3
"""An OAuth 2 authorization server and protected resource for the tests (Authlib + Flask),
on 127.0.0.1 only, with everything kept in memory.

    .build-venv/bin/python scripts/oauth-server.py --port-file FILE --log FILE
        [--port N] [--owner-pid PID] [--lifetime SECONDS] [--expires-in SECONDS]
        [--token-delay SECONDS] [--deny] [--clients FILE.json]
        [--client-id ID] [--client-secret SECRET] [--public-client-id ID]
        [--username NAME] [--password PASSWORD] [--user-id N]

Its packages come from scripts/install-python-deps.sh (a venv in .build-venv/). Started by
another python (e.g. `python3 scripts/oauth-server.py ...`) it re-executes itself with
.build-venv/bin/python when that exists.

Binds 127.0.0.1 on --port (default 0: a free port), then writes the port number to the
--port-file (atomically: temp file, then rename), so a script can wait for that file. It exits
by itself after --lifetime seconds (default 3600; 0: never), and with --owner-pid as soon as that
process is gone (polled twice a second; a zombie counts as gone).

Clients and the user (defaults; --clients FILE replaces them, see below):
  confidential  --client-id (streamplay-test) / --client-secret (streamplay-test-secret);
                token endpoint auth client_secret_basic or client_secret_post; grants
                authorization_code (PKCE optional, S256 only), refresh_token, client_credentials,
                password
  public        --public-client-id (streamplay-public), no secret, auth method "none"; grants
                authorization_code with PKCE S256 required (no code_challenge, or
                code_challenge_method plain or missing, is refused), refresh_token
  both          redirect URIs http://127.0.0.1/callback and http://[::1]/callback, any port
                (RFC 8252 7.3: same scheme, loopback IP literal host, path and query; a
                registered URI also matches exactly); any scope is accepted
  user          --username (listener) / --password (listener-password), id --user-id (1001):
                the resource owner of the password grant, and the user /authorize acts for
                (already "logged in")

--clients FILE: JSON {"clients": [CLIENT, ...], "users": [USER, ...]} (either list optional;
a given list replaces the defaults; the first user is the one /authorize acts for).
  CLIENT: {"client_id": str, "client_secret": str or null (null/absent: public),
           "token_endpoint_auth_methods": [...] (default: client_secret_basic and
               client_secret_post with a secret, ["none"] without),
           "grant_types": [...] (default: all four with a secret, authorization_code and
               refresh_token without),
           "redirect_uris": [...] (default: the two above), "scope": "a b" (allowed scopes;
               absent: any), "require_pkce": bool (default: true for public clients)}
  USER:   {"username": str, "password": str, "id": int}

Endpoints:
  GET|POST /authorize   authorization endpoint (response_type=code). Approves at once for the
                        user and answers 302 to redirect_uri?code=...&state=...; with deny=1 in
                        the query (or --deny, or /admin/config deny) 302 with
                        error=access_denied&state=... . Other errors after the client and
                        redirect_uri are known (bad PKCE parameters, bad scope...) are
                        redirected too (error=invalid_request...); an unknown client, a missing
                        or unregistered redirect_uri: 400 with a JSON error body, no redirect.
                        Codes live 600 s and are single use.
  POST /token           token endpoint (form). grant_type authorization_code, refresh_token,
                        client_credentials, password. Token responses: token_type Bearer,
                        access_token, expires_in (--expires-in), refresh_token (not for
                        client_credentials), scope if any. Refresh ROTATES: each refresh issues
                        a new refresh token and revokes the one presented, so presenting it
                        again gets 400 invalid_grant (the access tokens already issued stay
                        valid until they expire). Token requests are handled one at a time,
                        after the --token-delay (slept outside that lock, so racing requests
                        overlap), so of several racing refreshes with one refresh token exactly
                        one wins. Errors: RFC 6749 5.2 JSON (invalid_client is 401 with
                        WWW-Authenticate for Basic auth).
  POST /revoke          RFC 7009 revocation (client auth as for /token). An access token:
                        revoked; a refresh token: it and the access token issued with it.
  GET /me               protected resource: "Authorization: Bearer TOKEN" or
                        "Authorization: OAuth TOKEN" -> 200 {"id": 1001, "username":
                        "listener", "client_id": ..., "scope": ...} (a client_credentials token:
                        id and username null). Missing, unknown, expired or revoked token: 401,
                        JSON {"error": ..., "error_description": ...} and
                        WWW-Authenticate: Bearer realm="streamplay-test"[, error="..."] (the
                        error codes are Authlib's: missing_authorization, invalid_token,
                        unsupported_token_type).
  GET /stats            JSON counters: requests by path, token requests by grant type
                        ({"ok": n, "error": n}), tokens issued, rotations, authorize results,
                        /me results.
  GET|POST /admin/config  shows / changes at run time (form or query fields): expires_in
                        (integer seconds >= 1, for tokens issued from then on), token_delay
                        (seconds), deny (0/1). Answers the resulting config.
  GET /.well-known/oauth-authorization-server   RFC 8414 metadata.

Served by Werkzeug's threaded server, which closes the connection after each response
("Connection: close"; no keep-alive).

Event log (--log, appended): one JSON object a line per request, flushed at once, written when
the response is ready. Never a secret in it: no token, code, client secret, password, state or
verifier. Fields: "seq" (1, 2, ...), "time" (Unix seconds, arrival), "method", "path",
"status", "error" (the OAuth error code of the response, from its JSON body or its Location,
or null), and by path:
  /authorize  "client_id", "redirect_uri", "response_type", "code_challenge_method",
              "state_present", "result": "approved" | "denied" | "error"
  /token      "grant_type", "client_id" (as presented: Basic header or form),
              "client_auth": the client authentication presented ("client_secret_basic",
              "client_secret_post", "none" = only a client_id, or null),
              "client_authenticated": the method Authlib accepted (or null),
              "token_id": id of the token issued (tokens are numbered 1, 2, ...) or null,
              "refresh_token_issued": bool; for authorization_code: "code_state" ("valid",
              "unknown" (also: already used), "expired", "other_client"), "pkce": the code's
              challenge method or null; for refresh_token: "refresh_token_id" (id of the token
              whose refresh token was presented, null if unknown), "refresh_token_state"
              ("valid", "rotated" = already used for a refresh, "revoked" = through /revoke,
              "unknown"), "rotated_from" (the old token's id when the refresh succeeded);
              for password: "username"
  /revoke     "client_id", "client_auth", "client_authenticated", "token_type_hint",
              "token_id" (of the token found, or null)
  /me         "scheme" ("Bearer", "OAuth", other, or null), "token_id", "token_state"
              ("valid", "expired", "revoked", "unknown", or null without a token)
"""

import argparse
import hmac
import ipaddress
import itertools
import json
import logging
import os
import sys
import threading
import time
import urllib.parse

# A loopback-only test server over plain HTTP. Authlib itself allows http:// for loopback
# hosts, but it would answer 500 to a request with another Host header; accept them all.
os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")

try:
    from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector
    from authlib.integrations.flask_oauth2.signals import client_authenticated
    from authlib.oauth2 import OAuth2Error
    from authlib.oauth2.rfc6749 import grants
    from authlib.oauth2.rfc6749 import (
        AuthorizationCodeMixin,
        ClientMixin,
        InvalidGrantError,
        InvalidRequestError,
        MissingAuthorizationError,
        TokenMixin,
    )
    from authlib.oauth2.rfc6749.util import extract_basic_authorization, scope_to_list
    from authlib.oauth2.rfc6750 import BearerTokenGenerator, BearerTokenValidator
    from authlib.oauth2.rfc7009 import RevocationEndpoint
    from authlib.oauth2.rfc7636 import CodeChallenge
    from authlib.common.security import generate_token
    from flask import Flask, Response, abort, g, jsonify, request
    from werkzeug.serving import make_server
except ImportError as e:
    _root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    _python = os.path.join(_root, ".build-venv", "bin", "python")
    if os.path.exists(_python) and not os.environ.get("STREAMPLAY_OAUTH_REEXEC"):
        os.environ["STREAMPLAY_OAUTH_REEXEC"] = "1"
        os.execv(_python, [_python, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit(
        "oauth-server: %s; run scripts/install-python-deps.sh and start this with "
        ".build-venv/bin/python" % e
    )

REALM = "streamplay-test"
CODE_LIFETIME = 600  # seconds
LOOPBACK_REDIRECTS = ["http://127.0.0.1/callback", "http://[::1]/callback"]
ALL_GRANTS = ["authorization_code", "refresh_token", "client_credentials", "password"]
PUBLIC_GRANTS = ["authorization_code", "refresh_token"]
SECRET_AUTH = ["client_secret_basic", "client_secret_post"]
ANY_AUTH = SECRET_AUTH + ["none"]


# -- models -------------------------------------------------------------------------------------


class User:
    def __init__(self, username, password, user_id):
        self.username = username
        self.password = password
        self.id = user_id

    def get_user_id(self):
        return self.id


def is_loopback_literal(host):
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def redirect_uri_allowed(registered, candidate):
    """Exact match, or RFC 8252 7.3: a registered http loopback IP literal URI matches the
    same URI with any port."""
    if candidate in registered:
        return True
    try:
        c = urllib.parse.urlsplit(candidate)
        c.port  # raises ValueError on a bad port
    except ValueError:
        return False
    if c.scheme != "http" or c.fragment or c.username or c.password:
        return False
    if not c.hostname or not is_loopback_literal(c.hostname):
        return False
    for uri in registered:
        r = urllib.parse.urlsplit(uri)
        if (
            r.scheme == "http"
            and r.hostname == c.hostname
            and r.path == c.path
            and r.query == c.query
        ):
            return True
    return False


class Client(ClientMixin):
    def __init__(self, spec):
        self.client_id = spec["client_id"]
        self.client_secret = spec.get("client_secret")
        public = self.client_secret is None
        self.auth_methods = list(
            spec.get("token_endpoint_auth_methods") or (["none"] if public else SECRET_AUTH)
        )
        self.grant_types = list(
            spec.get("grant_types") or (PUBLIC_GRANTS if public else ALL_GRANTS)
        )
        self.redirect_uris = list(spec.get("redirect_uris") or LOOPBACK_REDIRECTS)
        self.scope = spec.get("scope")  # None: any scope
        self.require_pkce = bool(spec.get("require_pkce", public))
        for m in self.auth_methods:
            if m not in ANY_AUTH:
                raise ValueError("client %s: unknown auth method %s" % (self.client_id, m))
            if m != "none" and public:
                raise ValueError("client %s: %s needs a client_secret" % (self.client_id, m))
        for gt in self.grant_types:
            if gt not in ALL_GRANTS:
                raise ValueError("client %s: unknown grant type %s" % (self.client_id, gt))

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None  # redirect_uri is required: a loopback client's port changes every time

    def get_allowed_scope(self, scope):
        if not scope:
            return ""
        if self.scope is None:
            return " ".join(scope_to_list(scope))
        allowed = set(scope_to_list(self.scope))
        return " ".join(s for s in scope_to_list(scope) if s in allowed)

    def check_redirect_uri(self, redirect_uri):
        return redirect_uri_allowed(self.redirect_uris, redirect_uri)

    def check_client_secret(self, client_secret):
        if self.client_secret is None or client_secret is None:
            return False
        return hmac.compare_digest(self.client_secret.encode(), client_secret.encode())

    def check_endpoint_auth_method(self, method, endpoint):
        return method in self.auth_methods

    def check_response_type(self, response_type):
        return response_type == "code" and "authorization_code" in self.grant_types

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


class AuthorizationCode(AuthorizationCodeMixin):
    def __init__(self, code, client_id, redirect_uri, scope, user_id, challenge, method):
        self.code = code
        self.client_id = client_id
        self.redirect_uri = redirect_uri
        self.scope = scope
        self.user_id = user_id
        self.code_challenge = challenge
        self.code_challenge_method = method
        self.expires_at = time.time() + CODE_LIFETIME

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def is_expired(self):
        return time.time() >= self.expires_at


class Token(TokenMixin):
    def __init__(self, token_id, data, client_id, user_id, grant_type, parent_id):
        self.id = token_id
        self.access_token = data["access_token"]
        self.refresh_token = data.get("refresh_token")
        self.scope = data.get("scope", "")
        self.expires_in = int(data.get("expires_in", 0))
        self.issued_at = time.time()
        self.client_id = client_id
        self.user_id = user_id
        self.grant_type = grant_type
        self.parent_id = parent_id  # the token whose refresh token made this one
        self.access_revoked = False
        self.refresh_revoked = None  # None, "rotated" or "revoked"

    def check_client(self, client):
        return client.get_client_id() == self.client_id

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return self.expires_in

    def is_expired(self):
        return time.time() >= self.issued_at + self.expires_in

    def is_revoked(self):
        return self.access_revoked

    def get_user(self):
        return STORE.users_by_id.get(self.user_id)

    def get_client(self):
        return STORE.clients.get(self.client_id)


class Store:
    def __init__(self):
        self.lock = threading.RLock()
        self.clients = {}
        self.users = {}  # by username
        self.users_by_id = {}
        self.login_user = None
        self.codes = {}
        self.by_access = {}
        self.by_refresh = {}
        self.token_ids = itertools.count(1)
        self.expires_in = 3600
        self.token_delay = 0.0
        self.deny = False


STORE = Store()


# -- Authlib grants and endpoints ----------------------------------------------------------------


class S256CodeChallenge(CodeChallenge):
    """PKCE with S256 only. Authlib's CodeChallenge(required=True) requires a verifier at the
    token endpoint from public clients, but lets an authorization request without a
    code_challenge through, and treats a challenge without a method as "plain"."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant, redirect_uri):
        data = grant.request.payload.data
        challenge = data.get("code_challenge")
        method = data.get("code_challenge_method")
        if grant.request.client.require_pkce and not challenge:
            raise InvalidRequestError("PKCE is required: missing 'code_challenge'")
        if (challenge or method) and method != "S256":
            raise InvalidRequestError("'code_challenge_method' must be S256")
        super().validate_code_challenge(grant, redirect_uri)


class AuthorizationCodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ANY_AUTH

    def save_authorization_code(self, code, req):
        data = req.payload.data
        STORE.codes[code] = AuthorizationCode(
            code,
            req.client.client_id,
            req.payload.redirect_uri,
            req.scope or "",
            req.user.id,
            data.get("code_challenge"),
            data.get("code_challenge_method"),
        )

    def query_authorization_code(self, code, client):
        item = STORE.codes.get(code)
        if item is None:
            g.log["code_state"] = "unknown"
            return None
        g.log["pkce"] = item.code_challenge_method
        if item.client_id != client.client_id:
            g.log["code_state"] = "other_client"
            return None
        if item.is_expired():
            g.log["code_state"] = "expired"
            STORE.codes.pop(code, None)
            return None
        g.log["code_state"] = "valid"
        return item

    def delete_authorization_code(self, authorization_code):
        STORE.codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        return STORE.users_by_id.get(authorization_code.user_id)


class RefreshTokenGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ANY_AUTH  # Authlib's default is client_secret_basic only
    INCLUDE_NEW_REFRESH_TOKEN = True  # rotation: a new refresh token with each refresh

    def authenticate_refresh_token(self, refresh_token):
        token = STORE.by_refresh.get(refresh_token)
        g.log["refresh_token_id"] = token.id if token else None
        if token is None:
            g.log["refresh_token_state"] = "unknown"
            return None
        g.log["refresh_token_state"] = token.refresh_revoked or "valid"
        if token.refresh_revoked:
            return None
        return token

    def authenticate_user(self, refresh_token):
        return STORE.users_by_id.get(refresh_token.user_id)

    def revoke_old_credential(self, refresh_token):
        refresh_token.refresh_revoked = "rotated"


class PasswordGrant(grants.ResourceOwnerPasswordCredentialsGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ANY_AUTH

    def authenticate_user(self, username, password):
        g.log["username"] = username
        user = STORE.users.get(username)
        if user and hmac.compare_digest(user.password.encode(), password.encode()):
            return user
        # Authlib answers invalid_request for bad credentials; RFC 6749 5.2 says invalid_grant.
        raise InvalidGrantError("Invalid 'username' or 'password'.")


class ClientCredentialsGrant(grants.ClientCredentialsGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = SECRET_AUTH


class Revocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS = ANY_AUTH

    def query_token(self, token_string, token_type_hint):
        token = None
        if token_type_hint != "refresh_token":
            token = STORE.by_access.get(token_string)
            g.revoke_kind = "access_token"
        if token is None and token_type_hint != "access_token":
            token = STORE.by_refresh.get(token_string)
            g.revoke_kind = "refresh_token"
        if token is None and token_type_hint:  # a wrong hint is only a hint (RFC 7009 2.1)
            token = STORE.by_access.get(token_string)
            g.revoke_kind = "access_token"
            if token is None:
                token = STORE.by_refresh.get(token_string)
                g.revoke_kind = "refresh_token"
        g.log["token_id"] = token.id if token else None
        return token

    def revoke_token(self, token, req):
        token.access_revoked = True
        if g.get("revoke_kind") == "refresh_token" and token.refresh_token:
            token.refresh_revoked = token.refresh_revoked or "revoked"


def save_token(data, req):
    parent = req.refresh_token if isinstance(req.refresh_token, Token) else None
    user = req.user
    token = Token(
        next(STORE.token_ids),
        data,
        req.client.client_id,
        user.id if user else None,
        req.payload.grant_type,
        parent.id if parent else None,
    )
    STORE.by_access[token.access_token] = token
    if token.refresh_token:
        STORE.by_refresh[token.refresh_token] = token
    g.log["token_id"] = token.id
    g.log["refresh_token_issued"] = token.refresh_token is not None
    if parent is not None:
        g.log["rotated_from"] = parent.id


def make_authorization_server(app):
    server = AuthorizationServer(app, query_client=STORE.clients.get, save_token=save_token)
    # Our own generator: a refresh token for every grant that asks for one (Authlib's Flask
    # default only makes refresh tokens with OAUTH2_REFRESH_TOKEN_GENERATOR = True), and an
    # expires_in read at each issue, so /admin/config can change it.
    server.register_token_generator(
        "default",
        BearerTokenGenerator(
            access_token_generator=lambda **kw: generate_token(42),
            refresh_token_generator=lambda **kw: generate_token(48),
            expires_generator=lambda client, grant_type: STORE.expires_in,
        ),
    )
    server.register_grant(AuthorizationCodeGrant, [S256CodeChallenge(required=True)])
    server.register_grant(RefreshTokenGrant)
    server.register_grant(PasswordGrant)
    server.register_grant(ClientCredentialsGrant)
    server.register_endpoint(Revocation)
    return server


class AccessTokenValidator(BearerTokenValidator):
    TOKEN_TYPE = "bearer"

    def authenticate_token(self, token_string):
        token = STORE.by_access.get(token_string)
        g.log["token_id"] = token.id if token else None
        if token is None:
            g.log["token_state"] = "unknown"
        elif token.is_revoked():
            g.log["token_state"] = "revoked"
        elif token.is_expired():
            g.log["token_state"] = "expired"
        else:
            g.log["token_state"] = "valid"
        return token


class OAuthSchemeValidator(AccessTokenValidator):
    # "Authorization: OAuth TOKEN" (SoundCloud, Spark): Authlib's protector picks a validator by
    # the scheme, so the same tokens need a second validator registered under this name.
    TOKEN_TYPE = "oauth"


class Protector(ResourceProtector):
    def raise_error_response(self, error):
        # Authlib's header is "bearer ..." in lower case and carries error="missing_authorization"
        # even without credentials; RFC 6750 3: "Bearer realm=...", an error code only when
        # credentials were sent.
        description = error.get_error_description() or (
            "Unsupported authorization scheme (use Bearer or OAuth)."
            if error.error == "unsupported_token_type"
            else error.error
        )
        challenge = 'Bearer realm="%s"' % REALM
        if not isinstance(error, MissingAuthorizationError):
            challenge += ', error="%s", error_description="%s"' % (error.error, description)
        body = {"error": error.error, "error_description": description}
        abort(
            Response(
                json.dumps(body),
                status=error.status_code,
                headers=[
                    ("Content-Type", "application/json"),
                    ("Cache-Control", "no-store"),
                    ("WWW-Authenticate", challenge),
                ],
            )
        )


# -- the app ------------------------------------------------------------------------------------


class EventLog:
    def __init__(self, path):
        self.lock = threading.Lock()
        self.file = open(path, "a", encoding="utf-8")
        self.seq = itertools.count(1)
        self.stats = {
            "requests": {},
            "token": {},
            "tokens_issued": 0,
            "rotations": 0,
            "authorize": {"approved": 0, "denied": 0, "error": 0},
            "me": {"ok": 0, "unauthorized": 0},
        }

    def write(self, entry):
        with self.lock:
            entry = {"seq": next(self.seq), **entry}
            self.file.write(json.dumps(entry, sort_keys=False) + "\n")
            self.file.flush()
            self.count(entry)

    def count(self, e):
        s = self.stats
        s["requests"][e["path"]] = s["requests"].get(e["path"], 0) + 1
        if e["path"] == "/token" and e["method"] == "POST":
            gt = e.get("grant_type") or "-"
            c = s["token"].setdefault(gt, {"ok": 0, "error": 0})
            c["ok" if e["status"] == 200 else "error"] += 1
            if e.get("token_id") is not None and e["status"] == 200:
                s["tokens_issued"] += 1
            if e.get("rotated_from") is not None and e["status"] == 200:
                s["rotations"] += 1
        elif e["path"] == "/authorize" and e.get("result") in s["authorize"]:
            s["authorize"][e["result"]] += 1
        elif e["path"] == "/me":
            s["me"]["ok" if e["status"] == 200 else "unauthorized"] += 1

    def snapshot(self):
        with self.lock:
            return json.loads(json.dumps(self.stats))


def presented_client():
    """(client_auth, client_id) as the request presents them; never the secret."""
    client_id, _secret = extract_basic_authorization(request.headers)
    if client_id:
        return "client_secret_basic", urllib.parse.unquote(client_id)
    if request.form.get("client_secret"):
        return "client_secret_post", request.form.get("client_id")
    if request.values.get("client_id"):
        return "none", request.values.get("client_id")
    return None, None


def response_error(response):
    if response.status_code in (301, 302, 303, 307, 308):
        location = response.headers.get("Location", "")
        query = urllib.parse.urlsplit(location).query
        return urllib.parse.parse_qs(query).get("error", [None])[0]
    if response.status_code >= 400 and response.is_json:
        body = response.get_json(silent=True)
        if isinstance(body, dict):
            return body.get("error")
    return None


def create_app(events):
    app = Flask(__name__)
    server = make_authorization_server(app)
    require_oauth = Protector()
    require_oauth.register_token_validator(AccessTokenValidator(realm=REALM))
    require_oauth.register_token_validator(OAuthSchemeValidator(realm=REALM))

    @client_authenticated.connect_via(server)
    def on_client_authenticated(sender, client=None, grant=None, **kw):
        if grant is not None:
            g.log["client_authenticated"] = grant.request.auth_method

    @app.before_request
    def start_entry():
        g.log = {"time": round(time.time(), 3), "method": request.method, "path": request.path}

    @app.after_request
    def write_entry(response):
        entry = g.get("log")
        if entry is None:
            return response
        entry["status"] = response.status_code
        entry["error"] = response_error(response)
        if entry["path"] == "/authorize" and "result" not in entry:
            entry["result"] = "error"
        events.write(entry)
        return response

    @app.route("/authorize", methods=["GET", "POST"])
    def authorize():
        v = request.values
        g.log.update(
            client_id=v.get("client_id"),
            redirect_uri=v.get("redirect_uri"),
            response_type=v.get("response_type"),
            code_challenge_method=v.get("code_challenge_method"),
            state_present="state" in v,
        )
        user = STORE.login_user
        with STORE.lock:
            try:
                grant = server.get_consent_grant(end_user=user)
            except OAuth2Error as error:
                return server.handle_error_response(None, error)
            except ValueError:  # Authlib refuses some characters in an error description
                return jsonify(error="invalid_request"), 400
            deny = STORE.deny or v.get("deny", "").lower() in ("1", "true", "yes")
            response = server.create_authorization_response(
                grant=grant, grant_user=None if deny else user
            )
        if response.status_code == 302 and response_error(response) is None:
            g.log["result"] = "approved"
        elif response_error(response) == "access_denied":
            g.log["result"] = "denied"
        return response

    @app.route("/token", methods=["POST"])
    def issue_token():
        auth, client_id = presented_client()
        g.log.update(
            grant_type=request.form.get("grant_type"),
            client_id=client_id,
            client_auth=auth,
            client_authenticated=None,
            token_id=None,
            refresh_token_issued=False,
        )
        if request.form.get("grant_type") == "refresh_token":
            g.log.update(refresh_token_id=None, refresh_token_state=None, rotated_from=None)
        if STORE.token_delay > 0:
            time.sleep(STORE.token_delay)
        with STORE.lock:
            return server.create_token_response()

    @app.route("/revoke", methods=["POST"])
    def revoke():
        auth, client_id = presented_client()
        g.log.update(
            client_id=client_id,
            client_auth=auth,
            client_authenticated=None,
            token_type_hint=request.form.get("token_type_hint"),
            token_id=None,
        )
        with STORE.lock:
            return server.create_endpoint_response(Revocation.ENDPOINT_NAME)

    @app.route("/me")
    def me():
        header = request.headers.get("Authorization", "")
        g.log.update(scheme=header.split()[0] if header.split() else None, token_id=None,
                     token_state=None)
        with STORE.lock:
            try:
                token = require_oauth.acquire_token()
            except OAuth2Error as error:
                require_oauth.raise_error_response(error)
            user = token.get_user()
        return jsonify(
            id=user.id if user else None,
            username=user.username if user else None,
            client_id=token.client_id,
            scope=token.scope,
        )

    @app.route("/stats")
    def stats():
        return jsonify(events.snapshot())

    @app.route("/admin/config", methods=["GET", "POST"])
    def admin_config():
        v = request.values
        try:
            if "expires_in" in v:
                n = int(v["expires_in"])
                if n < 1:
                    raise ValueError
                STORE.expires_in = n
            if "token_delay" in v:
                d = float(v["token_delay"])
                if not 0 <= d <= 60:
                    raise ValueError
                STORE.token_delay = d
            if "deny" in v:
                STORE.deny = v["deny"].lower() in ("1", "true", "yes")
        except ValueError:
            return jsonify(error="invalid_request"), 400
        return jsonify(
            expires_in=STORE.expires_in, token_delay=STORE.token_delay, deny=STORE.deny
        )

    @app.route("/.well-known/oauth-authorization-server")
    def metadata():
        base = request.host_url.rstrip("/")
        return jsonify(
            issuer=base,
            authorization_endpoint=base + "/authorize",
            token_endpoint=base + "/token",
            revocation_endpoint=base + "/revoke",
            response_types_supported=["code"],
            grant_types_supported=ALL_GRANTS,
            token_endpoint_auth_methods_supported=ANY_AUTH,
            code_challenge_methods_supported=["S256"],
        )

    return app


# -- start-up -----------------------------------------------------------------------------------


def load_config(args):
    clients = [
        {"client_id": args.client_id, "client_secret": args.client_secret},
        {"client_id": args.public_client_id},
    ]
    users = [{"username": args.username, "password": args.password, "id": args.user_id}]
    if args.clients:
        with open(args.clients, encoding="utf-8") as f:
            conf = json.load(f)
        clients = conf.get("clients", clients)
        users = conf.get("users", users)
    for spec in clients:
        client = Client(spec)
        STORE.clients[client.client_id] = client
    for spec in users:
        user = User(spec["username"], spec["password"], spec["id"])
        STORE.users[user.username] = user
        STORE.users_by_id[user.id] = user
    if not STORE.clients or not STORE.users:
        raise ValueError("at least one client and one user are needed")
    STORE.login_user = STORE.users[users[0]["username"]]
    STORE.expires_in = args.expires_in
    STORE.token_delay = args.token_delay
    STORE.deny = args.deny


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except (OSError, IndexError):
        return True  # no /proc: kill -0 said it exists


def main():
    p = argparse.ArgumentParser(description="OAuth 2 test authorization server (127.0.0.1).")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    p.add_argument("--port-file", required=True, help="the bound port is written here")
    p.add_argument("--log", required=True, help="event log: JSON lines, appended")
    p.add_argument("--owner-pid", type=int, help="exit once this process is gone")
    p.add_argument("--lifetime", type=float, default=3600.0,
                   help="exit after this many seconds (0: never)")
    p.add_argument("--expires-in", type=int, default=3600, help="access token lifetime, s")
    p.add_argument("--token-delay", type=float, default=0.0,
                   help="sleep this long in each /token request (seconds)")
    p.add_argument("--deny", action="store_true", help="/authorize denies (access_denied)")
    p.add_argument("--clients", help="JSON file of clients and users (replaces the defaults)")
    p.add_argument("--client-id", default="streamplay-test")
    p.add_argument("--client-secret", default="streamplay-test-secret")
    p.add_argument("--public-client-id", default="streamplay-public")
    p.add_argument("--username", default="listener")
    p.add_argument("--password", default="listener-password")
    p.add_argument("--user-id", type=int, default=1001)
    args = p.parse_args()
    if args.expires_in < 1:
        p.error("--expires-in must be at least 1")

    try:
        load_config(args)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("oauth-server: bad client configuration: %s" % e)

    # Werkzeug would log every request line (with its query) on stderr; the event log is ours.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    events = EventLog(args.log)
    app = create_app(events)
    httpd = make_server("127.0.0.1", args.port, app, threaded=True)
    port = httpd.server_port

    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.replace(tmp, args.port_file)
    print("oauth-server: listening on 127.0.0.1:%d" % port, file=sys.stderr, flush=True)

    stop = threading.Event()

    def watch():
        deadline = time.monotonic() + args.lifetime if args.lifetime > 0 else None
        while not stop.wait(0.5):
            if args.owner_pid and not alive(args.owner_pid):
                print("oauth-server: owner %d is gone, exiting" % args.owner_pid,
                      file=sys.stderr, flush=True)
                break
            if deadline is not None and time.monotonic() >= deadline:
                break
        httpd.shutdown()

    threading.Thread(target=watch, daemon=True).start()
    try:
        httpd.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        httpd.server_close()
        events.file.close()


if __name__ == "__main__":
    main()
