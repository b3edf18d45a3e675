#!/usr/bin/env bash
# Self-test of the OAuth 2 test server (scripts/oauth-server.py), driven with curl.
#
#   bash scripts/oauth-server-selftest.sh
#
# Installs its Python packages (scripts/install-python-deps.sh), starts the server on a free
# port of 127.0.0.1 with 2-second access tokens, and checks: authorization code + PKCE S256
# through /authorize (the redirect followed by hand: no -L, the Location parsed) on two
# different loopback ports, the code exchange and its single use, /me with "Bearer" and "OAuth",
# refresh with rotation (the old refresh token then gets invalid_grant), a confidential client
# with client_secret_post and with client_secret_basic, client credentials (Basic), the password
# grant, a PKCE verifier mismatch, PKCE plain / no challenge refused, redirect URIs that are not
# registered loopback ones refused with 400 and no redirect, deny -> access_denied, racing
# refreshes (exactly one wins), revocation, expiry (401 after expires_in), the event log (no
# secret in it, rotation and the reuse visible), and --owner-pid.
# Prints one line per check and "N passed, N failed"; exits non-zero on any failure. The server
# is stopped on exit, whatever happens (and dies with this script through --owner-pid anyway).
# STREAMPLAY_KEEP_TEST_DIR=1 keeps the temporary directory (event log, server output).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

bash scripts/install-python-deps.sh
PY=$root/.build-venv/bin/python
SERVER=$root/scripts/oauth-server.py

EXPIRES=2 # seconds: access token lifetime
CLIENT=selftest-confidential
SECRET=selftest-secret-$RANDOM$RANDOM
PUBLIC=selftest-public
USERNAME=listener
PASSWORD=selftest-password-$RANDOM$RANDOM

tmp=$(mktemp -d "${TMPDIR:-/tmp}/streamplay-oauth-selftest.XXXXXX")
server_pid=
passed=0
failed=0
secrets=("$SECRET" "$PASSWORD") # none of these may ever appear in the event log

# A process that has exited but is not yet reaped (a zombie) counts as gone.
running() { # PID
  local state
  kill -0 "$1" 2>/dev/null || return 1
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [[ -n $state && $state != Z ]]
}

stop_pid() { # PID: TERM, up to 5 s, then KILL
  local pid=$1 i
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do
    running "$pid" || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# shellcheck disable=SC2317  # reached through the EXIT trap
cleanup() {
  local status=$?
  stop_pid "$server_pid"
  wait 2>/dev/null || true
  if [[ $status -ne 0 ]]; then
    echo "----- server output -----" >&2
    tail -n 40 "$tmp/server.log" >&2 2>/dev/null || true
  fi
  if [[ $status -eq 0 && ${STREAMPLAY_KEEP_TEST_DIR:-0} != 1 ]]; then
    rm -rf "$tmp"
  else
    echo "oauth-server-selftest: files kept in $tmp" >&2
  fi
}
trap cleanup EXIT

ok() {
  passed=$((passed + 1))
  echo "ok   - $*"
}
bad() {
  failed=$((failed + 1))
  echo "FAIL - $*"
}
expect() { # DESCRIPTION GOT WANT
  if [[ $2 == "$3" ]]; then ok "$1"; else bad "$1 (got '$2', want '$3')"; fi
}
expect_nonempty() { # DESCRIPTION VALUE
  if [[ -n $2 ]]; then ok "$1"; else bad "$1 (empty)"; fi
}

# start_server PORT_FILE LOG OUTPUT [extra options]: sets started_pid (the port will be in
# PORT_FILE). Not in a subshell: the server stays our child.
start_server() {
  local port_file=$1 log=$2 out=$3
  shift 3
  "$PY" "$SERVER" --port 0 --port-file "$port_file" --log "$log" --lifetime 600 \
    --client-id "$CLIENT" --client-secret "$SECRET" --public-client-id "$PUBLIC" \
    --username "$USERNAME" --password "$PASSWORD" "$@" </dev/null >"$out" 2>&1 &
  started_pid=$!
}

wait_port() { # PORT_FILE PID: prints the port once the server accepts connections
  local i port
  for ((i = 0; i < 150; i++)); do
    if [[ -s $1 ]]; then
      port=$(<"$1")
      if [[ $port =~ ^[0-9]+$ ]] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "$port"
        return 0
      fi
    fi
    running "$2" || break
    sleep 0.1
  done
  return 1
}

start_server "$tmp/port" "$tmp/events.log" "$tmp/server.log" --expires-in "$EXPIRES" \
  --owner-pid $$
server_pid=$started_pid
if ! port=$(wait_port "$tmp/port" "$server_pid"); then
  echo "oauth-server-selftest: the server did not start" >&2
  exit 1
fi
BASE=http://127.0.0.1:$port
echo "oauth-server-selftest: server on $BASE (pid $server_pid)"

# req ARGS...: one HTTP request (never following redirects); the status is in $status, the body
# in $tmp/body, the headers in $tmp/headers. A failed connection gives status 000.
req() {
  status=$(curl -sS --noproxy '*' --max-time 10 -o "$tmp/body" -D "$tmp/headers" \
    -w '%{http_code}' "$@" 2>"$tmp/curl.err") || status=000
}
header() { # NAME: its value in the last response, or nothing
  grep -i "^$1:" "$tmp/headers" | head -n1 | cut -d: -f2- | sed 's/^ *//' | tr -d '\r' || true
}
jget() { # KEY: the value of KEY in the last JSON body (nothing if absent or not JSON)
  "$PY" -c 'import json, sys
try:
    v = json.load(open(sys.argv[1])).get(sys.argv[2])
except Exception:
    v = None
print("" if v is None else v)' "$tmp/body" "$1"
}
qparam() { # URL NAME: a query parameter of URL
  "$PY" -c 'import sys, urllib.parse as u
print(u.parse_qs(u.urlsplit(sys.argv[1]).query).get(sys.argv[2], [""])[0])' "$1" "$2"
}
url_base() { # URL: without its query
  printf '%s\n' "${1%%\?*}"
}
new_verifier() { "$PY" -c 'import secrets; print(secrets.token_urlsafe(48))'; }
challenge_of() {
  "$PY" -c 'import base64, hashlib, sys
d = hashlib.sha256(sys.argv[1].encode("ascii")).digest()
print(base64.urlsafe_b64encode(d).rstrip(b"=").decode())' "$1"
}

# authorize CLIENT_ID REDIRECT_URI STATE [more query fields]: GET /authorize, no redirect follow
authorize() {
  local client_id=$1 redirect_uri=$2 state=$3
  shift 3
  local args=(-G "$BASE/authorize" --data-urlencode response_type=code
    --data-urlencode "client_id=$client_id" --data-urlencode "redirect_uri=$redirect_uri"
    --data-urlencode "state=$state")
  local f
  for f in "$@"; do args+=(--data-urlencode "$f"); done
  req "${args[@]}"
}

CB1=http://127.0.0.1:53682/callback
CB2=http://127.0.0.1:41111/callback

# --- authorization code + PKCE S256, public client ---------------------------------------------
verifier=$(new_verifier)
challenge=$(challenge_of "$verifier")
secrets+=("$verifier")
authorize "$PUBLIC" "$CB1" state-one code_challenge="$challenge" code_challenge_method=S256
expect "authorize (public, S256): 302" "$status" 302
location=$(header Location)
expect "authorize: redirected to the loopback callback with its port" \
  "$(url_base "$location")" "$CB1"
expect "authorize: state returned" "$(qparam "$location" state)" state-one
expect "authorize: no error" "$(qparam "$location" error)" ""
code=$(qparam "$location" code)
expect_nonempty "authorize: code returned" "$code"
secrets+=("$code")

req "$BASE/token" -d grant_type=authorization_code --data-urlencode "code=$code" \
  --data-urlencode "redirect_uri=$CB1" -d "client_id=$PUBLIC" -d "code_verifier=$verifier"
expect "token (authorization_code, public, PKCE): 200" "$status" 200
access1=$(jget access_token)
refresh1=$(jget refresh_token)
secrets+=("$access1" "$refresh1")
expect_nonempty "token: access_token" "$access1"
expect_nonempty "token: refresh_token" "$refresh1"
expect "token: token_type Bearer" "$(jget token_type)" Bearer
expect "token: expires_in $EXPIRES" "$(jget expires_in)" "$EXPIRES"
expect "token: Cache-Control no-store" "$(header Cache-Control)" no-store

req "$BASE/me" -H "Authorization: Bearer $access1"
expect "/me with Bearer: 200" "$status" 200
expect "/me: username" "$(jget username)" "$USERNAME"
expect "/me: id" "$(jget id)" 1001
req "$BASE/me" -H "Authorization: OAuth $access1"
expect "/me with OAuth: 200" "$status" 200
expect "/me with OAuth: username" "$(jget username)" "$USERNAME"

req "$BASE/token" -d grant_type=authorization_code --data-urlencode "code=$code" \
  --data-urlencode "redirect_uri=$CB1" -d "client_id=$PUBLIC" -d "code_verifier=$verifier"
expect "code used twice: 400" "$status" 400
expect "code used twice: invalid_grant" "$(jget error)" invalid_grant

# --- refresh with rotation ---------------------------------------------------------------------
req "$BASE/token" -d grant_type=refresh_token --data-urlencode "refresh_token=$refresh1" \
  -d "client_id=$PUBLIC"
expect "refresh: 200" "$status" 200
access2=$(jget access_token)
refresh2=$(jget refresh_token)
secrets+=("$access2" "$refresh2")
expect_nonempty "refresh: new refresh_token (rotation)" "$refresh2"
if [[ -n $refresh2 && $refresh2 != "$refresh1" && $access2 != "$access1" ]]; then
  ok "refresh: new tokens differ from the old ones"
else
  bad "refresh: tokens not renewed"
fi
req "$BASE/me" -H "Authorization: Bearer $access2"
expect "/me with the refreshed access token: 200" "$status" 200
req "$BASE/token" -d grant_type=refresh_token --data-urlencode "refresh_token=$refresh1" \
  -d "client_id=$PUBLIC"
expect "old refresh token again: 400" "$status" 400
expect "old refresh token again: invalid_grant" "$(jget error)" invalid_grant
req "$BASE/token" -d grant_type=refresh_token --data-urlencode "refresh_token=$refresh2" \
  -d "client_id=$PUBLIC"
expect "new refresh token: 200" "$status" 200
refresh3=$(jget refresh_token)
secrets+=("$(jget access_token)" "$refresh3")

# --- racing refreshes: the server lets exactly one through ---------------------------------------
req "$BASE/admin/config" -d token_delay=0.5
expect "admin/config token_delay: 200" "$status" 200
racers=()
for i in 1 2 3; do
  curl -sS --noproxy '*' --max-time 10 -o "$tmp/race$i.body" -w '%{http_code}' \
    "$BASE/token" -d grant_type=refresh_token --data-urlencode "refresh_token=$refresh3" \
    -d "client_id=$PUBLIC" >"$tmp/race$i.status" 2>/dev/null &
  racers+=($!)
done
for pid in "${racers[@]}"; do
  wait "$pid" || true
done
race_statuses=()
for i in 1 2 3; do
  race_statuses+=("$(cat "$tmp/race$i.status" 2>/dev/null)")
  secrets+=("$("$PY" -c 'import json,sys
try: print(json.load(open(sys.argv[1])).get("refresh_token") or "")
except Exception: print("")' "$tmp/race$i.body")")
done
sorted=$(printf '%s\n' "${race_statuses[@]}" | sort | tr '\n' ' ')
expect "3 racing refreshes with one refresh token: one 200, two 400" "$sorted" "200 400 400 "
req "$BASE/admin/config" -d token_delay=0
expect "admin/config token_delay back to 0: 200" "$status" 200

# --- confidential client: authorization code with client_secret_post (PKCE optional) -------------
authorize "$CLIENT" "$CB2" state-two
expect "authorize (confidential, other port): 302" "$status" 302
location=$(header Location)
expect "authorize: redirected to the second port" "$(url_base "$location")" "$CB2"
code2=$(qparam "$location" code)
secrets+=("$code2")
req "$BASE/token" -d grant_type=authorization_code --data-urlencode "code=$code2" \
  --data-urlencode "redirect_uri=$CB2" -d "client_id=$CLIENT" \
  --data-urlencode "client_secret=$SECRET"
expect "token (authorization_code, client_secret_post): 200" "$status" 200
secrets+=("$(jget access_token)" "$(jget refresh_token)")

# --- client credentials, Basic auth --------------------------------------------------------------
req "$BASE/token" -u "$CLIENT:$SECRET" -d grant_type=client_credentials
expect "client_credentials (Basic): 200" "$status" 200
cc_access=$(jget access_token)
secrets+=("$cc_access")
expect_nonempty "client_credentials: access_token" "$cc_access"
expect "client_credentials: no refresh_token" "$(jget refresh_token)" ""
req "$BASE/me" -H "Authorization: Bearer $cc_access"
expect "/me with a client_credentials token: 200, no user" "$status:$(jget username)" "200:"
req "$BASE/token" -u "$CLIENT:wrong-secret" -d grant_type=client_credentials
expect "client_credentials, wrong secret: 401" "$status" 401
expect "client_credentials, wrong secret: invalid_client" "$(jget error)" invalid_client
req "$BASE/token" -d grant_type=client_credentials -d "client_id=$PUBLIC"
expect "client_credentials by the public client: 401 invalid_client" "$status:$(jget error)" \
  "401:invalid_client"

# --- password grant ----------------------------------------------------------------------------
req "$BASE/token" -u "$CLIENT:$SECRET" -d grant_type=password -d "username=$USERNAME" \
  --data-urlencode "password=$PASSWORD"
expect "password grant: 200" "$status" 200
pw_access=$(jget access_token)
secrets+=("$pw_access" "$(jget refresh_token)")
req "$BASE/me" -H "Authorization: Bearer $pw_access"
expect "/me with the password-grant token: 200" "$status:$(jget username)" "200:$USERNAME"
req "$BASE/token" -u "$CLIENT:$SECRET" -d grant_type=password -d "username=$USERNAME" \
  -d password=wrong
expect "password grant, wrong password: invalid_grant" "$status:$(jget error)" "400:invalid_grant"

# --- PKCE failures -----------------------------------------------------------------------------
verifier3=$(new_verifier)
secrets+=("$verifier3")
authorize "$PUBLIC" "$CB1" state-three code_challenge="$(challenge_of "$verifier3")" \
  code_challenge_method=S256
code3=$(qparam "$(header Location)" code)
secrets+=("$code3")
expect_nonempty "authorize for the mismatch test: code" "$code3"
wrong_verifier=$(new_verifier)
req "$BASE/token" -d grant_type=authorization_code --data-urlencode "code=$code3" \
  --data-urlencode "redirect_uri=$CB1" -d "client_id=$PUBLIC" -d "code_verifier=$wrong_verifier"
expect "PKCE verifier mismatch: 400 invalid_grant" "$status:$(jget error)" "400:invalid_grant"
req "$BASE/token" -d grant_type=authorization_code --data-urlencode "code=$code3" \
  --data-urlencode "redirect_uri=$CB1" -d "client_id=$PUBLIC"
expect "PKCE verifier missing: 400 invalid_request" "$status:$(jget error)" "400:invalid_request"

authorize "$PUBLIC" "$CB1" state-plain code_challenge="$verifier3" code_challenge_method=plain
location=$(header Location)
expect "PKCE plain: redirected with invalid_request" \
  "$status:$(url_base "$location"):$(qparam "$location" error)" "302:$CB1:invalid_request"
expect "PKCE plain: state returned" "$(qparam "$location" state)" state-plain
expect "PKCE plain: no code" "$(qparam "$location" code)" ""
authorize "$PUBLIC" "$CB1" state-none
location=$(header Location)
expect "public client without code_challenge: redirected with invalid_request" \
  "$status:$(qparam "$location" error):$(qparam "$location" code)" "302:invalid_request:"

# --- redirect URIs that are not registered loopback ones -----------------------------------------
for uri in http://example.com/callback http://localhost:53682/callback \
  http://127.0.0.1:53682/other https://127.0.0.1:53682/callback \
  "http://127.0.0.1:53682/callback#frag"; do
  authorize "$PUBLIC" "$uri" state-bad code_challenge="$challenge" code_challenge_method=S256
  expect "redirect_uri $uri: 400 without redirect" "$status:$(header Location)" "400:"
  expect "redirect_uri $uri: JSON invalid_request" "$(jget error)" invalid_request
done
req -G "$BASE/authorize" -d response_type=code -d "client_id=no-such-client" \
  --data-urlencode "redirect_uri=$CB1"
expect "unknown client: 400 without redirect" "$status:$(header Location)" "400:"

# --- deny --------------------------------------------------------------------------------------
authorize "$PUBLIC" "$CB1" state-deny code_challenge="$challenge" code_challenge_method=S256 \
  deny=1
location=$(header Location)
expect "deny: 302 to the callback" "$status:$(url_base "$location")" "302:$CB1"
expect "deny: error=access_denied and state" \
  "$(qparam "$location" error):$(qparam "$location" state):$(qparam "$location" code)" \
  "access_denied:state-deny:"

# --- revocation --------------------------------------------------------------------------------
req "$BASE/token" -u "$CLIENT:$SECRET" -d grant_type=password -d "username=$USERNAME" \
  --data-urlencode "password=$PASSWORD"
rv_access=$(jget access_token)
rv_refresh=$(jget refresh_token)
secrets+=("$rv_access" "$rv_refresh")
req "$BASE/revoke" -u "$CLIENT:$SECRET" --data-urlencode "token=$rv_refresh" \
  -d token_type_hint=refresh_token
expect "revoke a refresh token: 200" "$status" 200
req "$BASE/token" -u "$CLIENT:$SECRET" -d grant_type=refresh_token \
  --data-urlencode "refresh_token=$rv_refresh"
expect "revoked refresh token: 400 invalid_grant" "$status:$(jget error)" "400:invalid_grant"
req "$BASE/me" -H "Authorization: Bearer $rv_access"
expect "access token issued with a revoked refresh token: 401" "$status" 401

# --- 401s and expiry ---------------------------------------------------------------------------
req "$BASE/me"
expect "/me without a token: 401" "$status" 401
expect "/me without a token: WWW-Authenticate" "$(header WWW-Authenticate)" \
  'Bearer realm="streamplay-test"'
req "$BASE/me" -H "Authorization: Bearer not-a-token"
expect "/me with an unknown token: 401 invalid_token" "$status:$(jget error)" "401:invalid_token"

req "$BASE/token" -u "$CLIENT:$SECRET" -d grant_type=password -d "username=$USERNAME" \
  --data-urlencode "password=$PASSWORD"
exp_access=$(jget access_token)
secrets+=("$exp_access" "$(jget refresh_token)")
req "$BASE/me" -H "Authorization: OAuth $exp_access"
expect "fresh token: 200" "$status" 200
sleep "$((EXPIRES + 1))"
req "$BASE/me" -H "Authorization: OAuth $exp_access"
expect "token after expiry: 401" "$status" 401
expect "token after expiry: JSON error invalid_token" "$(jget error)" invalid_token
case $(header WWW-Authenticate) in
  'Bearer realm="streamplay-test", error="invalid_token"'*)
    ok "token after expiry: WWW-Authenticate"
    ;;
  *) bad "token after expiry: WWW-Authenticate is '$(header WWW-Authenticate)'" ;;
esac

# --- stats and the event log -------------------------------------------------------------------
req "$BASE/stats"
expect "/stats: 200" "$status" 200
rotations=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["rotations"])' \
  "$tmp/body")
expect "/stats: 3 rotations (refresh, refresh, one of the racers)" "$rotations" 3

log_check=$("$PY" - "$tmp/events.log" <<'EOF'
import json, sys
entries = [json.loads(line) for line in open(sys.argv[1])]
refresh = [e for e in entries if e.get("grant_type") == "refresh_token"]
problems = []
if [e["seq"] for e in entries] != list(range(1, len(entries) + 1)):
    problems.append("seq not 1..n")
rotated = [e for e in refresh if e["status"] == 200 and e.get("rotated_from") is not None]
if len(rotated) != 3:
    problems.append("%d successful rotations logged, want 3" % len(rotated))
reuse = [e for e in refresh if e.get("refresh_token_state") == "rotated"]
if len(reuse) != 3 or any(e["error"] != "invalid_grant" for e in reuse):
    problems.append("reuse of rotated refresh tokens: %r" % reuse)
basic = [e for e in entries if e.get("grant_type") == "client_credentials"
         and e.get("client_authenticated") == "client_secret_basic"]
if not basic:
    problems.append("no client_credentials with client_secret_basic")
if not any(e.get("client_authenticated") == "client_secret_post" for e in entries):
    problems.append("no client_secret_post")
if not any(e.get("client_auth") == "none" and e.get("client_authenticated") == "none"
           for e in entries):
    problems.append("no public client (none)")
schemes = {e.get("scheme") for e in entries if e["path"] == "/me" and e["status"] == 200}
if not {"Bearer", "OAuth"} <= schemes:
    problems.append("schemes seen on /me: %r" % schemes)
if not any(e["path"] == "/me" and e.get("token_state") == "expired" for e in entries):
    problems.append("no expired token on /me")
print("; ".join(problems) or "ok")
EOF
)
expect "event log: seq, rotations, reuse, auth methods, schemes, expiry" "$log_check" ok

leaks=0
for s in "${secrets[@]}"; do
  if [[ -n $s ]] && grep -qF -- "$s" "$tmp/events.log"; then
    leaks=$((leaks + 1))
  fi
done
expect "event log: none of ${#secrets[@]} secrets (tokens, codes, verifiers, secret, password)" \
  "$leaks" 0

# --- --owner-pid -------------------------------------------------------------------------------
sleep 30 &
owner=$!
start_server "$tmp/port2" "$tmp/events2.log" "$tmp/server2.log" --owner-pid "$owner"
owned=$started_pid
if wait_port "$tmp/port2" "$owned" >/dev/null; then
  kill "$owner"
  wait "$owner" 2>/dev/null || true
  for ((i = 0; i < 30; i++)); do
    running "$owned" || break
    sleep 0.1
  done
  if running "$owned"; then
    bad "--owner-pid: the server still runs 3 s after its owner died"
    stop_pid "$owned"
  else
    ok "--owner-pid: the server exits once its owner is gone"
  fi
else
  bad "--owner-pid: the second server did not start"
  kill "$owner" 2>/dev/null || true
  stop_pid "$owned"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
