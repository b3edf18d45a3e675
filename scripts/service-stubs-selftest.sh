#!/usr/bin/env bash
# Self-test of scripts/service-stubs.py (the SoundCloud, Spotify and Spark stand-ins).
#
#   bash scripts/service-stubs-selftest.sh
#
# Starts the stubs on free 127.0.0.1 ports (with --owner-pid, so they end with this script),
# checks every endpoint and error case with curl, and exits non-zero if any check failed (all
# checks run; the failures are listed at the end). Needs python3, curl and the test media
# (MEDIA_DIR, default .build-media/, made by scripts/make-test-media.sh).
# STREAMPLAY_KEEP_TEST_DIR=1 keeps the temporary directory (stub log, responses).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
media=${MEDIA_DIR:-$root/.build-media}
for f in cbr-44k-stereo.mp3 cbr-44k-stereo-short.mp3 hls/vod/index.m3u8 hls/vod/seg000.mp3; do
  if [[ ! -f $media/$f ]]; then
    echo "service-stubs-selftest: $media/$f is missing (run scripts/make-test-media.sh and pass its" \
      "directory as MEDIA_DIR)" >&2
    exit 1
  fi
done
command -v curl >/dev/null || { echo "service-stubs-selftest: curl not found" >&2; exit 1; }
# The interpreter itself, not a version manager's shim: it runs a few hundred times. The venv's
# (scripts/install-python-deps.sh) when there is one: Spark's OpenID Connect signs with joserfc.
venv_python=${STREAMPLAY_VENV:-$root/.build-venv}/bin/python
if [[ -x $venv_python ]]; then PY=$venv_python; else PY=$(python3 -c 'import sys; print(sys.executable)'); fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/service-stubs-selftest.XXXXXX")
failures=()
passes=0
stub_pid=""
# shellcheck disable=SC2317  # reached through the EXIT trap
cleanup() {
  if [[ -n $stub_pid ]]; then
    kill "$stub_pid" 2>/dev/null || true
    wait "$stub_pid" 2>/dev/null || true
  fi
  if [[ ${#failures[@]} -eq 0 && ${STREAMPLAY_KEEP_TEST_DIR:-0} != 1 ]]; then
    rm -rf "$tmp"
  else
    echo "service-stubs-selftest: files kept in $tmp" >&2
  fi
}
trap cleanup EXIT

"$PY" scripts/service-stubs.py --media "$media" --urls-file "$tmp/urls.json" \
  --env-file "$tmp/env.sh" --log "$tmp/log.jsonl" --owner-pid $$ --lifetime 900 \
  --cdn-expiry 30 >"$tmp/stdout" 2>"$tmp/stderr" &
stub_pid=$!
for ((i = 0; i < 100; i++)); do
  [[ -s $tmp/urls.json ]] && break
  kill -0 "$stub_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ ! -s $tmp/urls.json ]]; then
  echo "service-stubs-selftest: the stubs did not start" >&2
  cat "$tmp/stderr" >&2
  failures+=("start")
  exit 1
fi
# shellcheck source=/dev/null
source "$tmp/env.sh"
CTL=$STREAMPLAY_STUB_CONTROL_URL
SC_AUTH=${STREAMPLAY_STUB_SOUNDCLOUD_AUTH_URL%/authorize}
SC_TOKEN=$STREAMPLAY_STUB_SOUNDCLOUD_TOKEN_URL
SC_API=$STREAMPLAY_STUB_SOUNDCLOUD_API_URL
SC_ID=$STREAMPLAY_STUB_SOUNDCLOUD_CLIENT_ID
SC_SECRET=$STREAMPLAY_STUB_SOUNDCLOUD_CLIENT_SECRET
SP_AUTH=$STREAMPLAY_STUB_SPOTIFY_AUTH_URL
SP_TOKEN=$STREAMPLAY_STUB_SPOTIFY_TOKEN_URL
SP_API=$STREAMPLAY_STUB_SPOTIFY_API_URL
SP_SWAP=$STREAMPLAY_STUB_SPOTIFY_SWAP_URL
SP_REFRESH=$STREAMPLAY_STUB_SPOTIFY_REFRESH_URL
SP_ID=$STREAMPLAY_STUB_SPOTIFY_CLIENT_ID
SP_SECRET=$STREAMPLAY_STUB_SPOTIFY_CLIENT_SECRET
SP_DEV_ID=$STREAMPLAY_STUB_SPOTIFY_DEV_CLIENT_ID
SP_DEV_SECRET=$STREAMPLAY_STUB_SPOTIFY_DEV_CLIENT_SECRET
SK_OPENID=$STREAMPLAY_STUB_SPARK_OPENID_URL
SK_DISCOVERY=$STREAMPLAY_STUB_SPARK_DISCOVERY_URL
SK_OAUTH=$STREAMPLAY_STUB_SPARK_AUTH_URL
SK_TOKEN=$STREAMPLAY_STUB_SPARK_TOKEN_URL
SK_API=$STREAMPLAY_STUB_SPARK_API_URL
SK_ID=$STREAMPLAY_STUB_SPARK_CLIENT_ID
SK_SECRET=$STREAMPLAY_STUB_SPARK_CLIENT_SECRET
UA="StreamPlaySelfTest/1"
: >"$tmp/secrets"  # every token, code and secret seen: none may appear in the log

# -- helpers ---------------------------------------------------------------------------------

ok() { passes=$((passes + 1)); }
bad() {
  failures+=("$1")
  echo "FAIL: $1" >&2
  if [[ -s $tmp/body ]]; then
    echo "      status $STATUS, body: $(head -c 400 "$tmp/body")" >&2
  fi
}

# req METHOD URL [curl args...]: the response in $tmp/body and $tmp/headers, status in STATUS.
req() {
  local method=$1 url=$2
  shift 2
  : >"$tmp/body"
  : >"$tmp/headers"
  if [[ $method == HEAD ]]; then
    STATUS=$(curl --noproxy '*' -sS -I -o /dev/null -D "$tmp/headers" -w '%{http_code}' \
      --max-time 10 "$@" "$url") || STATUS=000
  else
    STATUS=$(curl --noproxy '*' -sS -X "$method" -o "$tmp/body" -D "$tmp/headers" \
      -w '%{http_code}' --max-time 10 "$@" "$url") || STATUS=000
  fi
}

# header NAME: the value of that response header (case-insensitive), or empty.
header() {
  "$PY" -S - "$tmp/headers" "$1" <<'EOF'
import sys
name = sys.argv[2].lower()
for line in open(sys.argv[1], encoding="latin-1"):
    k, sep, v = line.partition(":")
    if sep and k.strip().lower() == name:
        print(v.strip())
        break
EOF
}

# jq_ EXPR: evaluates a Python expression with j = the JSON body, h = headers (lower-case
# names), q = the query of the Location header as a dict, loc = the Location header; prints
# the result (JSON for non-strings).
jq_() {
  "$PY" -S - "$tmp/body" "$tmp/headers" "$1" <<'EOF'
import json, sys, urllib.parse
body = open(sys.argv[1], "rb").read()
try:
    j = json.loads(body)
except ValueError:
    j = None
h = {}
for line in open(sys.argv[2], encoding="latin-1"):
    k, sep, v = line.partition(":")
    if sep:
        h[k.strip().lower()] = v.strip()
loc = h.get("location", "")
q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(loc).query, keep_blank_values=True))
text = body.decode("utf-8", "replace")
r = eval(sys.argv[3])
print(r if isinstance(r, str) else json.dumps(r))
EOF
}

# expect DESCRIPTION STATUS [PYTHON-CONDITION]
expect() {
  local desc=$1 want=$2 cond=${3:-True} res
  if [[ $STATUS != "$want" ]]; then
    bad "$desc: status $STATUS, wanted $want"
    return
  fi
  res=$(jq_ "bool($cond)" 2>&1) || res="error: $res"
  if [[ $res != true ]]; then
    bad "$desc: condition failed: $cond ($res)"
    return
  fi
  ok
}

# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
  local desc=$1
  shift
  if "$@"; then ok; else bad "$desc"; fi
}

remember() { [[ -n $1 ]] && printf '%s\n' "$1" >>"$tmp/secrets"; return 0; }
for s in "$SC_SECRET" "$SP_SECRET" "$SK_SECRET"; do remember "$s"; done

verifier() { "$PY" -S -c 'import secrets; print(secrets.token_urlsafe(48))'; }
challenge() { # PKCE S256 of a verifier
  "$PY" -S -c 'import base64, hashlib, sys
d = hashlib.sha256(sys.argv[1].encode()).digest()
print(base64.urlsafe_b64encode(d).decode().rstrip("="))' "$1"
}
urlenc() {
  "$PY" -S -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"
}
ctl() { req POST "$CTL/_control/$1" -H 'Content-Type: application/json' --data "$2"; }

# -- control ---------------------------------------------------------------------------------

req GET "$CTL/_control/urls"
expect "control urls" 200 "j['soundcloud']['token_url'].endswith('/oauth/token') and
  j['spotify']['api_url'].endswith('/v1')"
ctl fail '{"service":"nope"}'
expect "control: unknown service" 400 "'service' in j['error']"
ctl fail '{"service":"spotify","host":"moon"}'
expect "control: unknown host" 400
req GET "$CTL/elsewhere"
expect "control listener: other paths" 404
req GET "$CTL/_control/nope"
expect "control: unknown request" 404
req GET "$CTL/_control/reset"
expect "control: wrong method" 405

# =============================================================================================
# SoundCloud
# =============================================================================================
REDIR="http://127.0.0.1:9/callback"
V=$(verifier)
C=$(challenge "$V")

sc_authorize() { # [extra query] -> CODE
  local pkce="code_challenge=$C&code_challenge_method=S256" redirect
  redirect=$(urlenc "$REDIR")
  req GET "$SC_AUTH/authorize?client_id=$SC_ID&redirect_uri=$redirect&response_type=code&$pkce&state=st1${1:-}"
  CODE=$(jq_ "q.get('code', '')")
  remember "$CODE"
}
sc_token_code() { # CODE [VERIFIER] [REDIRECT]
  req POST "$SC_TOKEN" --data-urlencode grant_type=authorization_code \
    --data-urlencode "client_id=$SC_ID" \
    --data-urlencode "client_secret=$SC_SECRET" --data-urlencode "code=$1" \
    --data-urlencode "code_verifier=${2:-$V}" --data-urlencode "redirect_uri=${3:-$REDIR}"
}
save_tokens() { # PREFIX: sets PREFIX_AT / PREFIX_RT from the body
  local at rt
  at=$(jq_ "j.get('access_token', '') if j else ''")
  rt=$(jq_ "j.get('refresh_token', '') if j else ''")
  remember "$at"
  remember "$rt"
  printf -v "${1}_AT" '%s' "$at"
  printf -v "${1}_RT" '%s' "$rt"
}

req GET "$SC_AUTH/authorize?client_id=wrong&redirect_uri=$(urlenc "$REDIR")&response_type=code"
expect "sc authorize: unknown client" 400 "'invalid_client' in text"
req GET "$SC_AUTH/authorize?client_id=$SC_ID&redirect_uri=$(urlenc "$REDIR")&response_type=code&state=s"
expect "sc authorize: PKCE required" 302 "q.get('error') == 'invalid_request' and
  q.get('state') == 's' and loc.startswith('$REDIR')"
sc_authorize "&stub_deny=access_denied"
expect "sc authorize: denied" 302 "q.get('error') == 'access_denied' and q.get('state') == 'st1' and
  'code' not in q"
sc_authorize
expect "sc authorize: code" 302 "q.get('code') and q.get('state') == 'st1'"
C1=$CODE
req POST "$SC_TOKEN" -H 'Content-Type: application/json' --data \
  '{"grant_type":"authorization_code"}'
expect "sc token: JSON body refused" 400 "j['error'] == 'invalid_request'"
req POST "$SC_TOKEN" --data-urlencode grant_type=authorization_code --data-urlencode \
  "client_id=$SC_ID" \
  --data-urlencode "client_secret=wrong" --data-urlencode "code=$C1" --data-urlencode \
    "code_verifier=$V" \
  --data-urlencode "redirect_uri=$REDIR"
expect "sc token: wrong secret" 401 "j['error'] == 'invalid_client'"
req POST "$SC_TOKEN" --data-urlencode grant_type=authorization_code --data-urlencode \
  "client_id=$SC_ID" \
  --data-urlencode "client_secret=$SC_SECRET" --data-urlencode "code=$C1" --data-urlencode \
    "redirect_uri=$REDIR"
expect "sc token: code_verifier required" 400 "j['error'] == 'invalid_request' and
  'code_verifier' in j['error_description']"
req POST "$SC_TOKEN" --data-urlencode grant_type=password --data-urlencode "client_id=$SC_ID" \
  --data-urlencode "client_secret=$SC_SECRET"
expect "sc token: password grant" 400 "j['error'] == 'unsupported_grant_type'"
sc_token_code "$C1"
expect "sc token: authorization_code" 200 "j['token_type'] == 'bearer' and
  j['expires_in'] == 3599 and j['refresh_token'] and j['scope'] == ''"
save_tokens SC
sc_token_code "$C1"
expect "sc token: code reuse" 400 "j['error'] == 'invalid_grant'"
sc_authorize
sc_token_code "$CODE" "$(verifier)"
expect "sc token: wrong verifier" 400 "j['error'] == 'invalid_grant' and
  'code_verifier' in j['error_description']"
sc_authorize
sc_token_code "$CODE" "$V" "http://127.0.0.1:9/other"
expect "sc token: redirect mismatch" 400 "j['error'] == 'invalid_grant'"
req POST "$SC_TOKEN" -u "$SC_ID:$SC_SECRET" --data grant_type=client_credentials
expect "sc token: client_credentials (Basic)" 200 "j['access_token'] and j['refresh_token']"
save_tokens SCCC

AUTH=(-H "Authorization: OAuth $SC_AT")
req GET "$SC_API/me" "${AUTH[@]}"
expect "sc /me" 200 "j['username'] == 'streamplay-tester' and
  j['urn'] == 'soundcloud:users:100001' and j['kind'] == 'user'"
req GET "$SC_API/me"
expect "sc /me without token" 401 "j['code'] == 401 and j['status'] == '401 - Unauthorized' and
  j['link']"
req GET "$SC_API/me" -H "Authorization: Bearer $SC_AT"
expect "sc /me with Bearer scheme" 401 "'OAuth' in j['message']"
req GET "$SC_API/me" -H "Authorization: OAuth nonsense"
expect "sc /me unknown token" 401 "j['code'] == 401"
req GET "$SC_API/me" -H "Authorization: OAuth $SCCC_AT"
expect "sc /me with client credentials (401, as the OpenAPI lists)" 401 "j['code'] == 401 and
  j['status'] == '401 - Unauthorized'"

req POST "$SC_TOKEN" --data-urlencode grant_type=refresh_token --data-urlencode "client_id=$SC_ID" \
  --data-urlencode "client_secret=$SC_SECRET" --data-urlencode "refresh_token=$SC_RT"
expect "sc refresh" 200 "j['access_token'] and j['refresh_token']"
OLD_RT=$SC_RT
save_tokens SC
AUTH=(-H "Authorization: OAuth $SC_AT")
check "sc refresh: a new refresh token" test "$SC_RT" != "$OLD_RT"
req POST "$SC_TOKEN" --data-urlencode grant_type=refresh_token --data-urlencode "client_id=$SC_ID" \
  --data-urlencode "client_secret=$SC_SECRET" --data-urlencode "refresh_token=$OLD_RT"
expect "sc refresh: old refresh token is single-use" 400 "j['error'] == 'invalid_grant'"
req POST "$SC_TOKEN" -u "$SC_ID:$SC_SECRET" --data-urlencode grant_type=refresh_token \
  --data-urlencode "refresh_token=$SCCC_RT"
expect "sc refresh of client credentials (Basic)" 200 "j['access_token']"
save_tokens SCCC

ctl expire-tokens '{"service":"soundcloud","user":"nobody-signed-in-as-this"}'
expect "control: expire only another user's tokens" 200 "j['changed'] == 0"
req GET "$SC_API/me" "${AUTH[@]}"
expect "sc /me after another user's expiry" 200
ctl expire-tokens '{"service":"soundcloud","user":7}'
expect "control: a user that is not a string" 400 "'user' in j['error']"
ctl expire-tokens '{"service":"soundcloud"}'
expect "control: expire soundcloud access tokens" 200 "j['changed'] >= 1"
req GET "$SC_API/me" "${AUTH[@]}"
expect "sc /me after expiry" 401 "j['code'] == 401"
req POST "$SC_TOKEN" --data-urlencode grant_type=refresh_token --data-urlencode "client_id=$SC_ID" \
  --data-urlencode "client_secret=$SC_SECRET" --data-urlencode "refresh_token=$SC_RT"
expect "sc refresh after expiry" 200 "j['access_token']"
save_tokens SC
AUTH=(-H "Authorization: OAuth $SC_AT")
req GET "$SC_API/me" "${AUTH[@]}"
expect "sc /me after refresh" 200
req POST "$SC_TOKEN" -u "$SC_ID:$SC_SECRET" --data grant_type=client_credentials
save_tokens SCCC

ctl config '{"service":"soundcloud","expires_in":1}'
expect "control: soundcloud expires_in 1" 200
req POST "$SC_TOKEN" -u "$SC_ID:$SC_SECRET" --data grant_type=client_credentials
expect "sc short-lived token" 200 "j['expires_in'] == 1"
save_tokens SHORT
sleep 1.3
req GET "$SC_API/tracks/1001" -H "Authorization: OAuth $SHORT_AT"
expect "sc token expired after expires_in" 401
ctl config '{"service":"soundcloud","expires_in":3599}'

ctl revoke-tokens '{"service":"soundcloud"}'
expect "control: revoke soundcloud refresh tokens" 200
req POST "$SC_TOKEN" --data-urlencode grant_type=refresh_token --data-urlencode "client_id=$SC_ID" \
  --data-urlencode "client_secret=$SC_SECRET" --data-urlencode "refresh_token=$SC_RT"
expect "sc refresh after revocation" 400 "j['error'] == 'invalid_grant'"

# resolve
CC=(-H "Authorization: OAuth $SCCC_AT")
req GET "$SC_API/resolve?url=$(urlenc https://soundcloud.com/stub-artist/full-track)" "${CC[@]}"
expect "sc resolve track" 302 "loc == '$SC_API/tracks/soundcloud:tracks:1001' and
  j['status'] == '302 - Found' and j['location'] == loc"
req GET "$SC_API/resolve?url=$(urlenc https://soundcloud.com/stub-artist/full-track)" "${CC[@]}" -L
expect "sc resolve followed with the header" 200 "'id' not in j and 'user_id' not in j and
  'id' not in j['user'] and j['urn'] == 'soundcloud:tracks:1001' and j['title'] == 'Full Track' and
  j['access'] == 'playable' and j['duration'] == 30000"
req GET "$SC_API/resolve?url=$(urlenc 'https://m.soundcloud.com/stub-artist/synthetic-2000042?si=abc')" "${CC[@]}"
expect "sc resolve synthetic track" 302 "loc.endswith('/tracks/soundcloud:tracks:2000042')"
req GET "$SC_API/resolve?url=$(urlenc https://on.soundcloud.com/stubPreview1)" "${CC[@]}"
expect "sc resolve short link" 302 "loc.endswith('/tracks/soundcloud:tracks:1003')"
req GET "$SC_API/resolve?url=$(urlenc https://soundcloud.com/stub-artist)" "${CC[@]}" -L
expect "sc resolve user" 200 "j['kind'] == 'user' and j['username'] == 'stub-artist' and
  j['urn'] == 'soundcloud:users:100002'"
req GET "$SC_API/resolve?url=$(urlenc https://soundcloud.com/stub-artist/nothing-here)" "${CC[@]}"
expect "sc resolve unknown" 404 "j['code'] == 404"
req GET "$SC_API/resolve" "${CC[@]}"
expect "sc resolve without url" 400 "j['code'] == 400"
req GET "$SC_API/resolve?url=$(urlenc https://soundcloud.com/stub-artist/full-track)"
expect "sc resolve without token" 401

# tracks and streams
req GET "$SC_API/tracks/1001" "${CC[@]}"
expect "sc track by numeric id" 200 "j['urn'] == 'soundcloud:tracks:1001' and
  j['user']['username'] == 'stub-artist'"
ctl config '{"service": "soundcloud", "numeric_ids": true}'
expect "sc config numeric ids" 200 "j['changed'] == {'numeric_ids': True}"
req GET "$SC_API/tracks/1001" "${CC[@]}"
expect "sc track with numeric ids" 200 "j['id'] == 1001 and j['user_id'] == 100002 and
  j['user']['id'] == 100002 and j['urn'] == 'soundcloud:tracks:1001'"
ctl config '{"service": "soundcloud", "numeric_ids": false}'
expect "sc config urn only again" 200 "j['changed'] == {'numeric_ids': False}"
ctl config '{"service": "spotify", "numeric_ids": true}'
expect "sc config numeric ids soundcloud only" 400
req GET "$SC_API/tracks/soundcloud%3Atracks%3A1003" "${CC[@]}"
expect "sc track by encoded URN" 200 "j['access'] == 'preview'"
req GET "$SC_API/tracks/soundcloud:tracks:999" "${CC[@]}"
expect "sc unknown track" 404 "j['code'] == 404"
req GET "$SC_API/tracks/soundcloud:tracks:1001/streams" "${CC[@]}"
expect "sc streams (full)" 200 "sorted(j) == ['hls_aac_160_url', 'hls_mp3_128_url',
  'http_mp3_128_url', 'preview_mp3_128_url'] and
  all(v.startswith('$SC_API/tracks/soundcloud:tracks:1001/streams/') for v in j.values())"
MP3_URL=$(jq_ "j['http_mp3_128_url']")
HLS_URL=$(jq_ "j['hls_mp3_128_url']")
AAC_URL=$(jq_ "j['hls_aac_160_url']")
PREVIEW_URL=$(jq_ "j['preview_mp3_128_url']")
req GET "$SC_API/tracks/soundcloud:tracks:1002/streams" "${CC[@]}"
expect "sc streams (AAC only)" 200 "list(j) == ['hls_aac_160_url']"
req GET "$SC_API/tracks/soundcloud:tracks:1003/streams" "${CC[@]}"
expect "sc streams (preview only)" 200 "list(j) == ['preview_mp3_128_url']"
req GET "$SC_API/tracks/soundcloud:tracks:1003/streams/http_mp3_128" "${CC[@]}"
expect "sc preview-only track has no full stream" 404
req GET "$MP3_URL"
expect "sc stream URL without token" 401
req GET "$MP3_URL" "${CC[@]}"
expect "sc stream URL redirects to the CDN" 302 "loc.startswith('$STREAMPLAY_STUB_SOUNDCLOUD_CDN_URL/') and
  'Signature=' in loc and 'Expires=' in loc"
CDN_MP3=$(jq_ loc)
req HEAD "$MP3_URL" "${CC[@]}"
expect "sc stream URL: HEAD redirects too" 302
req GET "$CDN_MP3"
expect "sc CDN progressive MP3" 200 "h['content-type'] == 'audio/mpeg' and
  h['accept-ranges'] == 'bytes' and
  int(h['content-length']) == $(stat -c %s "$media/cbr-44k-stereo.mp3")"
check "sc CDN MP3 bytes are the media file's" cmp -s "$tmp/body" "$media/cbr-44k-stereo.mp3"
req GET "$CDN_MP3" -H 'Range: bytes=100-199'
expect "sc CDN range" 206 "h['content-range'] == 'bytes 100-199/$(stat -c %s "$media/cbr-44k-stereo.mp3")' and
  len(body) == 100"
req GET "$CDN_MP3" -H 'Range: bytes=99999999-'
expect "sc CDN range past the end" 416
req GET "$CDN_MP3" -H "Authorization: OAuth $SCCC_AT"
expect "sc CDN refuses an Authorization header" 400 "'Only one auth mechanism allowed' in text"
req GET "${CDN_MP3/Signature=/Signature=0}"
expect "sc CDN bad signature" 403 "'AccessDenied' in text"
req GET "${CDN_MP3%%\?*}"
expect "sc CDN unsigned" 403 "'MissingKey' in text"
req GET "$MP3_URL" "${CC[@]}" -L
expect "sc following the redirect (curl drops the header on another origin)" 200
req GET "$MP3_URL" "${CC[@]}" -L --location-trusted
expect "sc following the redirect with the header fails" 400
ctl config '{"service":"soundcloud","cdn_expiry":1}'
expect "control: cdn_expiry 1" 200
req GET "$MP3_URL" "${CC[@]}"
SHORT_CDN=$(jq_ loc)
req GET "$SHORT_CDN"
expect "sc CDN fresh URL" 200
sleep 1.3
req GET "$SHORT_CDN"
expect "sc CDN expired URL" 403 "'AccessDenied' in text"
ctl config '{"service":"soundcloud","cdn_expiry":30}'
req GET "$PREVIEW_URL" "${CC[@]}"
req GET "$(jq_ loc)"
expect "sc CDN preview" 200 "h['content-type'] == 'audio/mpeg'"
check "sc CDN preview bytes are the preview file's" \
  cmp -s "$tmp/body" "$media/cbr-44k-stereo-short.mp3"
req GET "$HLS_URL" "${CC[@]}"
req GET "$(jq_ loc)"
expect "sc CDN HLS playlist" 200 "h['content-type'] == 'application/vnd.apple.mpegurl' and
  text.startswith('#EXTM3U') and '#EXT-X-ENDLIST' in text and
  all(l.startswith('$STREAMPLAY_STUB_SOUNDCLOUD_CDN_URL/media/1001/hls_mp3_128/seg') and
  'Signature=' in l for l in text.splitlines() if l and not l.startswith('#'))"
SEG0=$(jq_ "[l for l in text.splitlines() if l and not l.startswith('#')][0]")
SEGS=$(jq_ "len([l for l in text.splitlines() if l and not l.startswith('#')])")
check "sc HLS playlist: 7 segments, got $SEGS" test "$SEGS" = 7
req GET "$SEG0"
expect "sc CDN HLS segment" 200 "h['content-type'] == 'audio/mpeg'"
check "sc HLS segment bytes are the segment file's" cmp -s "$tmp/body" "$media/hls/vod/seg000.mp3"
req GET "$SEG0" -H "Authorization: OAuth x"
expect "sc CDN HLS segment refuses Authorization" 400
req GET "$AAC_URL" "${CC[@]}"
req GET "$(jq_ loc)"
if [[ -f $media/hls/fmp4/index.m3u8 ]]; then
  expect "sc CDN AAC HLS playlist" 200 "'/hls_aac_160/seg000.m4s?' in text and
  '/hls_aac_160/init.mp4?' in text and '#EXT-X-KEY' not in text"
else
  expect "sc CDN AAC HLS playlist (no AAC media)" 404
fi
req GET "$SC_API/tracks/soundcloud:tracks:1001/stream" "${CC[@]}"
expect "sc legacy /stream redirects" 302 "'/media/1001/http_mp3_128/stream.mp3?' in loc"
req GET "$SC_API/tracks/2000042/streams" "${CC[@]}"
expect "sc synthetic track streams" 200 "len(j) == 4"

# snippets, DRM, playlists; answers without nulls the OpenAPI does not allow
req GET "$SC_API/tracks/soundcloud:tracks:1004" "${CC[@]}"
expect "sc snippet track claims 4 minutes" 200 "j['duration'] == 240000 and j['access'] == 'playable' and
  all(v is not None for k, v in j.items() if k != 'download_url') and
  all(v is not None for v in j['user'].values())"
req GET "$SC_API/tracks/soundcloud:tracks:1006/streams/http_mp3_128" "${CC[@]}"
expect "sc snippet MP3 is signed under /preview/" 302 "'/media/1006/preview/http_mp3_128/stream.mp3?' in loc"
req GET "$(jq_ loc)"
expect "sc CDN snippet MP3 serves the preview" 200 "h['content-type'] == 'audio/mpeg'"
check "sc CDN snippet MP3 bytes are the preview file's" \
  cmp -s "$tmp/body" "$media/cbr-44k-stereo-short.mp3"
req GET "$SC_API/tracks/soundcloud:tracks:1005/streams" "${CC[@]}"
expect "sc encrypted-only streams" 200 "sorted(j) == ['cbc-encrypted-hls', 'ctr-encrypted-hls']"
CTR_URL=$(jq_ "j['ctr-encrypted-hls']")
req GET "$CTR_URL" "${CC[@]}"
expect "sc encrypted rendition redirects" 302 "'/media/1005/ctr-encrypted-hls/playlist.m3u8?' in loc"
if [[ -f $media/hls/fmp4/index.m3u8 ]]; then
  req GET "$(jq_ loc)"
  expect "sc CDN encrypted playlist has a SAMPLE-AES-CTR key" 200 "'#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,' in text and
    text.index('#EXT-X-KEY') < text.index('#EXTINF')"
  req GET "$SC_API/tracks/soundcloud:tracks:1007/streams/hls_aac_160" "${CC[@]}"
  req GET "$(jq_ loc)"
  expect "sc CDN SAMPLE-AES playlist" 200 "'#EXT-X-KEY:METHOD=SAMPLE-AES,' in text"
fi
req GET "$SC_API/resolve?url=$(urlenc https://soundcloud.com/stub-artist/sets/stub-set)" "${CC[@]}" -L
expect "sc resolve playlist" 200 "j['kind'] == 'playlist' and j['urn'] == 'soundcloud:playlists:5001' and
  [t['urn'] for t in j['tracks']] == ['soundcloud:tracks:1001', 'soundcloud:tracks:1002'] and
  j['track_count'] == 2 and j['duration'] == 54000 and 'id' not in j"
req GET "$SC_API/playlists/soundcloud:playlists:5001?show_tracks=false" "${CC[@]}"
expect "sc playlist without tracks" 200 "'tracks' not in j and j['track_count'] == 2"
req GET "$SC_API/playlists/soundcloud:playlists:5999" "${CC[@]}"
expect "sc unknown playlist" 404 "j['code'] == 404"

# injected failures
ctl fail '{"service":"soundcloud","status":429,"retry_after":2,
  "path":"/tracks/soundcloud:tracks:2000043/streams"}'
expect "control: soundcloud 429" 200 "j['pending'] >= 1"
req GET "$SC_API/tracks/soundcloud:tracks:1001/streams" "${CC[@]}"
expect "sc other paths are not hit" 200
req GET "$SC_API/tracks/soundcloud:tracks:2000043/streams" "${CC[@]}"
expect "sc rate limited" 429 "h['retry-after'] == '2' and
  j['errors'][0]['meta']['rate_limit']['group'] == 'plays' and
  j['errors'][0]['meta']['remaining_requests'] == 0 and
  len(j['errors'][0]['meta']['reset_time']) == 25"
req GET "$SC_API/tracks/soundcloud:tracks:2000043/streams" "${CC[@]}"
expect "sc after the 429" 200
ctl fail '{"service":"soundcloud","status":503,"count":2}'
req GET "$SC_API/tracks/1001" "${CC[@]}"
expect "sc injected 503 (1/2)" 503 "j['code'] == 503 and
  j['status'] == '503 - Service Unavailable' and h['retry-after'] == '1'"
req GET "$SC_API/tracks/1001" "${CC[@]}"
expect "sc injected 503 (2/2)" 503
req GET "$SC_API/tracks/1001" "${CC[@]}"
expect "sc after the 503s" 200
ctl fail '{"service":"soundcloud","host":"auth","status":500}'
req POST "$SC_TOKEN" -u "$SC_ID:$SC_SECRET" --data grant_type=client_credentials
expect "sc injected 500 on the token endpoint" 500 "j['error'] == 'temporarily_unavailable'"
ctl fail '{"service":"soundcloud","host":"cdn","status":503}'
req GET "$SEG0"
expect "sc injected 503 on the CDN" 503

# connections
sc_authorize
sc_token_code "$CODE"
save_tokens SC
AUTH=(-H "Authorization: OAuth $SC_AT")
req GET "$SC_API/me/connections" "${AUTH[@]}"
expect "sc connections" 200 "[c['service'] for c in j] ==
  ['twitter', 'facebook_profile', 'foursquare', 'tumblr'] and
  j[0]['post_publish'] is True and j[0]['kind'] == 'connection'"
TW=$(jq_ "[c['id'] for c in j if c['service'] == 'twitter'][0]")
FB=$(jq_ "[c['id'] for c in j if c['service'] == 'facebook_profile'][0]")
FSQ=$(jq_ "[c['id'] for c in j if c['service'] == 'foursquare'][0]")
req GET "$SC_API/me/connections" -H "Authorization: OAuth $SCCC_AT"
expect "sc connections need a user token" 401
req POST "$SC_API/me/connections" "${AUTH[@]}" --data-urlencode service=friendster \
  --data-urlencode "redirect_uri=$REDIR"
expect "sc new connection: unknown service" 422 "j['errors'][0]['field'] == 'service'"
req POST "$SC_API/me/connections" "${AUTH[@]}" --data-urlencode service=twitter
expect "sc new connection: no redirect_uri" 422 "j['errors'][0]['field'] == 'redirect_uri'"
req POST "$SC_API/me/connections" "${AUTH[@]}" --data-urlencode service=myspace \
  --data-urlencode "redirect_uri=x-streamplay://connection" --data-urlencode display=touch
expect "sc new connection" 202 "j['authorize_url'].startswith('$SC_AUTH/connect/via/myspace?')"
req GET "$(jq_ "j['authorize_url']")"
expect "sc connection authorize URL" 302 "loc.startswith('x-streamplay://connection?') and
  q['service'] == 'myspace' and q['connection_id']"
req GET "$SC_API/me/connections" "${AUTH[@]}"
expect "sc connections after connecting" 200 "[c['service'] for c in j][-1] == 'myspace' and
  len(j) == 5"

# uploads
up() { req POST "$SC_API/tracks" "${AUTH[@]}" -F \
  "track[asset_data]=@$media/cbr-44k-stereo-short.mp3;type=audio/mpeg" "$@"; }
up --form-string 'track[title]=Field Recording' --form-string 'track[sharing]=public' \
  --form-string \
    'track[tag_list]=rock "hip hop" geo:lat=52.5 geo:lon=13.4 foursquare:venue=XYZ "machine:tag=with space"' \
  --form-string "track[post_to][][id]=$TW" --form-string "track[post_to][][id]=$FSQ" \
  --form-string 'track[type]=recording' --form-string 'track[sharing_note]=Listen!'
expect "sc upload (public, tags, connections)" 201 "j['title'] == 'Field Recording' and
  j['sharing'] == 'public' and j['state'] == 'processing' and j['kind'] == 'track' and
  j['tag_list'] == 'rock \"hip hop\" geo:lat=52.5 geo:lon=13.4 foursquare:venue=XYZ \"machine:tag=with space\"'"
UP1=$(jq_ "j['urn'].rsplit(':', 1)[1]")
req GET "$CTL/_control/uploads"
expect "sc upload fields recorded" 200 "(u := j[-1]) and u['title'] == 'Field Recording' and
  u['tags'] == ['rock', 'hip hop'] and
  [(t['namespace'], t['key'], t['value']) for t in u['machine_tags']] == [('geo', 'lat', '52.5'),
    ('geo', 'lon', '13.4'), ('foursquare', 'venue', 'XYZ'), ('machine', 'tag', 'with space')] and
  u['post_to'] == {'mode': 'ids', 'ids': [$TW, $FSQ], 'services': ['twitter', 'foursquare']} and
  u['files']['track[asset_data]']['size'] == $(stat -c %s "$media/cbr-44k-stereo-short.mp3") and
  u['files']['track[asset_data]']['filename'] == 'cbr-44k-stereo-short.mp3' and
  u['type'] == 'recording' and u['fields']['track[sharing_note]'] == 'Listen!' and
  u['track_id'] == $UP1"
req GET "$SC_API/tracks/$UP1" "${AUTH[@]}"
expect "sc uploaded track" 200 "j['state'] == 'finished' and
  j['user']['username'] == 'streamplay-tester'"
req GET "$SC_API/resolve?url=$(urlenc "https://soundcloud.com/streamplay-tester/field-recording-$UP1")" "${AUTH[@]}"
expect "sc resolve the uploaded track" 302 "loc.endswith('soundcloud:tracks:$UP1')"
up --form-string 'track[title]=Private One' --form-string 'track[sharing]=private' \
  --form-string 'track[post_to][]=' --form-string \
    'track[shared_to][emails][][address]=a@example.com' \
  --form-string 'track[shared_to][emails][][address]=b@example.org'
expect "sc upload (private, e-mails, no connections)" 201 "j['sharing'] == 'private'"
req GET "$CTL/_control/uploads"
expect "sc private upload recorded" 200 "j[-1]['post_to'] == {'mode': 'none', 'ids': [], 'services': []} and
  j[-1]['shared_to_emails'] == ['a@example.com', 'b@example.org'] and j[-1]['sharing'] == 'private'"
up --form-string 'track[title]=Defaults'
expect "sc upload (default sharing)" 201 "j['sharing'] == 'public'"
req GET "$CTL/_control/uploads"
expect "sc default connections recorded" 200 "j[-1]['post_to']['mode'] == 'default' and
  $TW in j[-1]['post_to']['ids'] and $FB in j[-1]['post_to']['ids'] and
  $FSQ not in j[-1]['post_to']['ids']"
up
expect "sc upload without title" 422 "j['code'] == 422 and
  j['errors'][0]['field'] == 'track[title]' and 'track[title]' in j['message']"
up --form-string 'track[title]=x' --form-string 'track[sharing]=friends'
expect "sc upload bad sharing" 422 "[e['field'] for e in j['errors']] == ['track[sharing]']"
req POST "$SC_API/tracks" "${AUTH[@]}" -F "track[assetdata]=@$media/cbr-44k-stereo-short.mp3" \
  --form-string 'track[title]=x'
expect "sc upload with track[assetdata] (typo)" 422 "sorted(e['field'] for e in j['errors']) ==
  ['track[asset_data]', 'track[assetdata]']"
  
req POST "$SC_API/tracks" "${AUTH[@]}" --form-string 'track[asset_data]=not a file' --form-string \
  'track[title]=x'
expect "sc upload asset not a file part" 422 "j['errors'][0]['field'] == 'track[asset_data]'"
printf '<html><body>not audio</body></html>\n' >"$tmp/page.html"
req POST "$SC_API/tracks" "${AUTH[@]}" -F "track[asset_data]=@$tmp/page.html" --form-string \
  'track[title]=x'
expect "sc upload of a non-audio file" 422 "j['errors'][0]['field'] == 'track[asset_data]'"
up --form-string 'track[title]=x' --form-string 'track[sharing]=private' --form-string \
  'track[shared_to][emails][][address]=not-an-address'
expect "sc upload bad e-mail" 422 "j['errors'][0]['field'] == 'track[shared_to][emails][][address]'"
up --form-string 'track[title]=x' --form-string 'track[shared_to][emails][][address]=a@example.com'
expect "sc upload e-mails on a public track" 422 "j['errors'][0]['field'] ==
  'track[shared_to][emails][][address]'"
  
up --form-string 'track[title]=x' --form-string 'track[post_to][][id]=999999'
expect "sc upload unknown connection" 422 "j['errors'][0]['field'] == 'track[post_to][][id]'"
up --form-string 'track[title]=x' --form-string "track[post_to][][id]=$FSQ"
expect "sc upload foursquare without venue" 422 "j['errors'][0]['field'] == 'track[post_to][][id]' and
  'foursquare:venue' in j['errors'][0]['error_message']"
up --form-string 'track[title]=x' --form-string 'track[post_to][]=' --form-string \
  "track[post_to][][id]=$TW"
expect "sc upload post_to both ways" 422 "j['errors'][0]['field'] == 'track[post_to][]'"
up --form-string 'track[title]=x' --form-string 'track[tag_list]=rock "open quote'
expect "sc upload unbalanced quote" 422 "j['errors'][0]['field'] == 'track[tag_list]'"
up --form-string 'track[title]=x' --form-string 'track[tag_list]=geo:lat=200'
expect "sc upload bad latitude" 422 "j['errors'][0]['field'] == 'track[tag_list]' and
  'geo:lat' in j['errors'][0]['error_message']"
up --form-string 'track[title]=x' --form-string 'track[type]=symphony'
expect "sc upload bad type" 422 "j['errors'][0]['field'] == 'track[type]'"
req POST "$SC_API/tracks" "${AUTH[@]}" --data-urlencode 'track[title]=x'
expect "sc upload not multipart" 400
req POST "$SC_API/tracks" -H "Authorization: OAuth $SCCC_AT" -F \
  "track[asset_data]=@$media/cbr-44k-stereo-short.mp3" --form-string 'track[title]=x'
expect "sc upload with client credentials" 401

req POST "$SC_AUTH/sign-out" -H 'Content-Type: application/json' --data \
  "{\"access_token\":\"$SC_AT\"}"
expect "sc sign-out" 200
req GET "$SC_API/me" "${AUTH[@]}"
expect "sc token dead after sign-out" 401

# =============================================================================================
# Spotify
# =============================================================================================
SPR="http://127.0.0.1:8765/callback"
SCOPES="user-read-private user-read-email user-read-playback-state user-modify-playback-state streaming"
sp_authorize() { # [extra query] [redirect]
  local redirect
  redirect=$(urlenc "${2:-$SPR}")
  req GET "$SP_AUTH?client_id=$SP_ID&response_type=code&redirect_uri=$redirect&state=xyz&scope=$(
    urlenc "$SCOPES")${1:-}"
  CODE=$(jq_ "q.get('code', '')")
  remember "$CODE"
}
sp_authorize "" "http://localhost:8765/callback"
expect "sp authorize: localhost refused" 400 "'INVALID_CLIENT: Insecure redirect URI' in text"
sp_authorize "" "http://example.com/callback"
expect "sp authorize: plain http refused" 400 "'Insecure redirect URI' in text"
sp_authorize "" "http://[::1]:8765/callback"
expect "sp authorize: [::1] accepted" 302
sp_authorize "" "x-streamplay://spotify/callback"
expect "sp authorize: custom scheme accepted" 302
req GET "$SP_AUTH?client_id=nope&response_type=code&redirect_uri=$(urlenc "$SPR")"
expect "sp authorize: unknown client" 400 "'INVALID_CLIENT: Invalid client' in text"
req GET "$SP_AUTH?client_id=$SP_ID&response_type=code"
expect "sp authorize: no redirect_uri" 400 "'INVALID_CLIENT: Invalid redirect URI' in text"
sp_authorize "&stub_deny=access_denied"
expect "sp authorize: denied" 302 "q == {'error': 'access_denied', 'state': 'xyz'} and
  loc.startswith('$SPR?')"
req GET "$SP_AUTH?client_id=$SP_ID&response_type=token&redirect_uri=$(urlenc "$SPR")&state=z"
expect "sp authorize: implicit grant refused" 302 "q.get('error') == 'unsupported_response_type'"

SV=$(verifier)
SC_CH=$(challenge "$SV")
sp_authorize "&code_challenge_method=S256&code_challenge=$SC_CH"
expect "sp authorize (PKCE)" 302 "q.get('code') and q.get('state') == 'xyz'"
req POST "$SP_TOKEN" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
  --data-urlencode "redirect_uri=$SPR" --data-urlencode "client_id=$SP_ID" --data-urlencode \
    "code_verifier=$(verifier)"
expect "sp token: wrong verifier" 400 "j == {'error': 'invalid_grant',
  'error_description': 'code_verifier was incorrect'}"
  
sp_authorize "&code_challenge_method=S256&code_challenge=$SC_CH"
req POST "$SP_TOKEN" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
  --data-urlencode "redirect_uri=http://127.0.0.1:8765/other" --data-urlencode "client_id=$SP_ID" \
    --data-urlencode "code_verifier=$SV"
expect "sp token: redirect mismatch" 400 "j == {'error': 'invalid_grant',
  'error_description': 'Invalid redirect URI'}"
  
sp_authorize "&code_challenge_method=S256&code_challenge=$SC_CH"
req POST "$SP_TOKEN" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
  --data-urlencode "redirect_uri=$SPR" --data-urlencode "client_id=$SP_ID"
expect "sp token: verifier missing" 400 "j['error'] == 'invalid_request'"
sp_authorize "&code_challenge_method=S256&code_challenge=$SC_CH"
PK_CODE=$CODE
req POST "$SP_TOKEN" --data-urlencode grant_type=authorization_code --data-urlencode \
  "code=$PK_CODE" \
  --data-urlencode "redirect_uri=$SPR" --data-urlencode "client_id=$SP_ID" --data-urlencode \
    "code_verifier=$SV"
expect "sp token (PKCE)" 200 "j['token_type'] == 'Bearer' and j['expires_in'] == 3600 and
  j['refresh_token'] and j['scope'] == '$SCOPES'"
save_tokens SP
req POST "$SP_TOKEN" --data-urlencode grant_type=authorization_code --data-urlencode \
  "code=$PK_CODE" \
  --data-urlencode "redirect_uri=$SPR" --data-urlencode "client_id=$SP_ID" --data-urlencode \
    "code_verifier=$SV"
expect "sp token: code reuse" 400 "j == {'error': 'invalid_grant',
  'error_description': 'Invalid authorization code'}"
  
req POST "$SP_TOKEN" --data-urlencode "client_id=$SP_ID"
expect "sp token: grant_type missing" 400 "j == {'error': 'unsupported_grant_type',
  'error_description': 'grant_type parameter is missing'}"
  
req POST "$SP_TOKEN" -H 'Content-Type: application/json' --data \
  '{"grant_type":"client_credentials"}'
expect "sp token: JSON body" 400 "j['error'] == 'unsupported_grant_type'"
req POST "$SP_TOKEN" -u "$SP_ID:wrong" --data grant_type=client_credentials
expect "sp token: wrong secret" 400 "j == {'error': 'invalid_client',
  'error_description': 'Invalid client secret'}"
  
req POST "$SP_TOKEN" -u "$SP_ID:$SP_SECRET" --data grant_type=client_credentials
expect "sp token: client_credentials" 200 "'refresh_token' not in j and j['access_token']"
save_tokens SPCC

req POST "$SP_TOKEN" --data-urlencode grant_type=refresh_token --data-urlencode \
  "refresh_token=$SP_RT" --data-urlencode "client_id=$SP_ID"
expect "sp refresh (PKCE) rotates" 200 "j['refresh_token'] and j['access_token']"
OLD_RT=$SP_RT
save_tokens SP
req POST "$SP_TOKEN" --data-urlencode grant_type=refresh_token --data-urlencode \
  "refresh_token=$OLD_RT" --data-urlencode "client_id=$SP_ID"
expect "sp refresh: used PKCE refresh token" 400 "j == {'error': 'invalid_grant',
  'error_description': 'Invalid refresh token'}"
  

sp_authorize   # confidential client (secret), no PKCE
req POST "$SP_TOKEN" -u "$SP_ID:$SP_SECRET" --data-urlencode grant_type=authorization_code \
  --data-urlencode "code=$CODE" --data-urlencode "redirect_uri=$SPR"
expect "sp token (client secret)" 200 "j['refresh_token']"
save_tokens SPC
req POST "$SP_TOKEN" -u "$SP_ID:$SP_SECRET" --data-urlencode grant_type=refresh_token \
  --data-urlencode "refresh_token=$SPC_RT"
expect "sp refresh (client secret) keeps the refresh token" 200 "'refresh_token' not in j and
  j['access_token']"
remember "$(jq_ "j['access_token']")"
req POST "$SP_TOKEN" -u "$SP_ID:$SP_SECRET" --data-urlencode grant_type=refresh_token \
  --data-urlencode "refresh_token=$SPC_RT"
expect "sp refresh (client secret) again" 200
remember "$(jq_ "j['access_token']")"
req POST "$SP_TOKEN" --data-urlencode grant_type=refresh_token --data-urlencode \
  "refresh_token=$SPC_RT" --data-urlencode "client_id=$SP_ID"
expect "sp refresh of a secret-issued token without the secret" 400 "j['error'] == 'invalid_client'"
ctl revoke-tokens '{"service":"spotify"}'
req POST "$SP_TOKEN" -u "$SP_ID:$SP_SECRET" --data-urlencode grant_type=refresh_token \
  --data-urlencode "refresh_token=$SPC_RT"
expect "sp refresh after revocation" 400 "j == {'error': 'invalid_grant',
  'error_description': 'Refresh token revoked'}"
  

SPA=(-H "Authorization: Bearer $SP_AT")
req GET "$SP_API/me" "${SPA[@]}"
expect "sp /v1/me" 200 "j['display_name'] == 'StreamPlay Tester' and
  j['id'] == 'streamplaytester' and j['product'] == 'premium' and
  j['email'] == 'streamplay-tester@example.com' and j['uri'] == 'spotify:user:streamplaytester'"
req GET "$SP_API/me"
expect "sp /v1/me without token" 401 "j == {'error': {'status': 401, 'message': 'No token provided'}}"
  
req GET "$SP_API/me" -H "Authorization: Bearer bogus"
expect "sp /v1/me bad token" 401 "j == {'error': {'status': 401, 'message': 'Invalid access token'}}"
  
req GET "$SP_API/me" -H "Authorization: OAuth $SP_AT"
expect "sp /v1/me with the OAuth scheme" 400 "j['error']['message'] ==
  'Only valid bearer authentication supported'"
  
req GET "$SP_API/me" -H "Authorization: Bearer $SPCC_AT"
expect "sp /v1/me with client credentials" 403
req GET "$SP_API/tracks/0StrmPlyPreviewTrack01" -H "Authorization: Bearer $SPCC_AT"
expect "sp track with preview" 200 "j['id'] == '0StrmPlyPreviewTrack01' and
  j['uri'] == 'spotify:track:0StrmPlyPreviewTrack01' and j['duration_ms'] == 30000 and
  j['preview_url'].startswith('$STREAMPLAY_STUB_SPOTIFY_CDN_URL/mp3-preview/') and
  j['artists'][0]['name'] and j['album']['id']"
PV=$(jq_ "j['preview_url']")
req GET "$PV"
expect "sp preview MP3" 200 "h['content-type'] == 'audio/mpeg'"
check "sp preview bytes are the preview file's" cmp -s "$tmp/body" "$media/cbr-44k-stereo-short.mp3"
req GET "$PV" -H 'Range: bytes=0-9'
expect "sp preview range" 206 "len(body) == 10"
req GET "$SP_API/tracks/0StrmPlyNoPreviewTrk01" "${SPA[@]}"
expect "sp track without preview" 200 "j['preview_url'] is None and j['duration_ms'] == 45000"
req GET "$SP_API/tracks/notanid" "${SPA[@]}"
expect "sp track invalid id" 400 "j == {'error': {'status': 400, 'message': 'invalid id'}}"
req GET "$SP_API/tracks/0000000000000000000000" "${SPA[@]}"
expect "sp track unknown id" 404 "j['error']['status'] == 404"

# player
DEV1=d$(printf '0%.0s' {1..38})1
DEV2=${DEV1:0:39}2
req GET "$SP_API/me/player" "${SPA[@]}"
expect "sp player idle" 204
req GET "$SP_API/me/player/devices" "${SPA[@]}"
expect "sp devices" 200 "[d['id'] for d in j['devices']] == ['$DEV1', '$DEV2'] and
  not any(d['is_active'] for d in j['devices']) and j['devices'][0]['type'] == 'Computer'"
req PUT "$SP_API/me/player/play" "${SPA[@]}" -H 'Content-Type: application/json' --data \
  '{"uris":["spotify:track:0StrmPlyPreviewTrack01"]}'
expect "sp play without an active device" 404 "j == {'error': {'status': 404,
  'message': 'Player command failed: No active device found', 'reason': 'NO_ACTIVE_DEVICE'}}"
  
req PUT "$SP_API/me/player/play?device_id=nope" "${SPA[@]}" -H 'Content-Type: application/json' \
  --data '{"uris":["spotify:track:0StrmPlyPreviewTrack01"]}'
expect "sp play on an unknown device" 404 "j['error']['message'] == 'Device not found'"
req PUT "$SP_API/me/player/play?device_id=$DEV1" "${SPA[@]}" -H 'Content-Type: application/json' \
  --data '{"uris":["spotify:track:bad"]}'
expect "sp play a bad uri" 400 "'Invalid track uri' in j['error']['message']"
req PUT "$SP_API/me/player/play?device_id=$DEV1" "${SPA[@]}" -H 'Content-Type: application/json' \
  --data '{"uris":'
expect "sp play malformed JSON" 400 "j['error']['message'] == 'Malformed json'"
req PUT "$SP_API/me/player/play?device_id=$DEV1" "${SPA[@]}" -H 'Content-Type: application/json' \
  --data '{"uris":["spotify:track:0StrmPlyPreviewTrack01","spotify:track:0StrmPlyNoPreviewTrk01"],
           "position_ms":1000}'
expect "sp play" 204
req GET "$SP_API/me/player" "${SPA[@]}"
expect "sp player state" 200 "j['is_playing'] is True and 1000 <= j['progress_ms'] < 5000 and
  j['item']['id'] == '0StrmPlyPreviewTrack01' and j['item']['duration_ms'] == 30000 and
  j['device']['id'] == '$DEV1' and j['device']['is_active'] is True and
  j['currently_playing_type'] == 'track'"
req GET "$SP_API/me/player/currently-playing" "${SPA[@]}"
expect "sp currently playing" 200 "j['item']['id'] == '0StrmPlyPreviewTrack01' and
  'device' not in j"
req PUT "$SP_API/me/player/pause" "${SPA[@]}"
expect "sp pause" 204
req PUT "$SP_API/me/player/pause" "${SPA[@]}"
expect "sp pause when paused" 403 "j['error'] == {'status': 403,
  'message': 'Player command failed: Restriction violated', 'reason': 'UNKNOWN'}"
  
req PUT "$SP_API/me/player/seek?position_ms=5000" "${SPA[@]}"
expect "sp seek" 204
req GET "$SP_API/me/player" "${SPA[@]}"
expect "sp state after seek (paused)" 200 "j['is_playing'] is False and j['progress_ms'] == 5000"
req PUT "$SP_API/me/player/seek" "${SPA[@]}"
expect "sp seek without position" 400 "'position_ms' in j['error']['message']"
req PUT "$SP_API/me/player/seek?position_ms=-3" "${SPA[@]}"
expect "sp seek negative" 400
req PUT "$SP_API/me/player/play" "${SPA[@]}"
expect "sp resume" 204
req GET "$SP_API/me/player" "${SPA[@]}"
expect "sp resumed state" 200 "j['is_playing'] is True and j['progress_ms'] >= 5000"
req PUT "$SP_API/me/player" "${SPA[@]}" -H 'Content-Type: application/json' --data \
  "{\"device_ids\":[\"$DEV2\"],\"play\":true}"
expect "sp transfer" 204
req GET "$SP_API/me/player/devices" "${SPA[@]}"
expect "sp transferred" 200 "[d['is_active'] for d in j['devices']] == [False, True]"
req GET "$SP_API/me/player/play" "${SPA[@]}"
expect "sp GET on play" 405
req POST "$SP_API/me/player/devices" "${SPA[@]}"
expect "sp POST on devices" 405 "j['error']['status'] == 405"
req GET "$SP_API/me/player/queue" "${SPA[@]}"
expect "sp unknown player path" 404 "j['error']['message'] == 'Service not found'"
ctl fail '{"service":"spotify","status":429,"retry_after":3}'
req GET "$SP_API/me/player" "${SPA[@]}"
expect "sp injected 429" 429 "j == {'error': {'status': 429, 'message': 'API rate limit exceeded'}} and
  h['retry-after'] == '3'"
req GET "$SP_API/me/player" "${SPA[@]}"
expect "sp after the 429" 200
ctl fail '{"service":"spotify","status":502}'
req GET "$SP_API/me/player" "${SPA[@]}"
expect "sp injected 502" 502 "j['error']['status'] == 502"

# scopes, premium, expiry
sp_authorize "&stub_user=free-user&stub_product=free"
req POST "$SP_TOKEN" -u "$SP_ID:$SP_SECRET" --data-urlencode grant_type=authorization_code \
  --data-urlencode "code=$CODE" --data-urlencode "redirect_uri=$SPR"
save_tokens SPF
req PUT "$SP_API/me/player/play?device_id=$DEV1" -H "Authorization: Bearer $SPF_AT" -H \
  'Content-Type: application/json' --data '{"uris":["spotify:track:0StrmPlyPreviewTrack01"]}'
expect "sp free user" 403 "j == {'error': {'status': 403,
  'message': 'Player command failed: Premium required', 'reason': 'PREMIUM_REQUIRED'}}"
  
req GET "$SP_API/me" -H "Authorization: Bearer $SPF_AT"
expect "sp free user /me" 200 "j['product'] == 'free' and j['id'] == 'freeuser'"
req GET "$SP_AUTH?client_id=$SP_ID&response_type=code&redirect_uri=$(urlenc "$SPR")&scope=user-read-private"
CODE=$(jq_ "q.get('code', '')")
remember "$CODE"
req POST "$SP_TOKEN" -u "$SP_ID:$SP_SECRET" --data-urlencode grant_type=authorization_code \
  --data-urlencode "code=$CODE" --data-urlencode "redirect_uri=$SPR"
save_tokens SPS
req PUT "$SP_API/me/player/pause" -H "Authorization: Bearer $SPS_AT"
expect "sp missing scope" 403 "j['error']['message'] == 'Insufficient client scope'"
req GET "$SP_API/me" -H "Authorization: Bearer $SPS_AT"
expect "sp /me without user-read-email" 200 "'email' not in j and j['country']"

# the Development Mode app: February 2026 rules
req GET "$SP_AUTH?client_id=$SP_DEV_ID&response_type=code&redirect_uri=$(urlenc "$SPR")&scope=$(urlenc "$SCOPES")"
CODE=$(jq_ "q.get('code', '')")
remember "$CODE"
req POST "$SP_TOKEN" -u "$SP_ID:$SP_SECRET" --data-urlencode grant_type=authorization_code \
  --data-urlencode "code=$CODE" --data-urlencode "redirect_uri=$SPR"
expect "sp dev code redeemed by the other app" 400 "j['error'] == 'invalid_grant'"
req GET "$SP_AUTH?client_id=$SP_DEV_ID&response_type=code&redirect_uri=$(urlenc "$SPR")&scope=$(urlenc "$SCOPES")"
CODE=$(jq_ "q.get('code', '')")
remember "$CODE"
req POST "$SP_TOKEN" -u "$SP_DEV_ID:$SP_DEV_SECRET" --data-urlencode grant_type=authorization_code \
  --data-urlencode "code=$CODE" --data-urlencode "redirect_uri=$SPR"
save_tokens SPD
req GET "$SP_API/me" -H "Authorization: Bearer $SPD_AT"
expect "sp dev /me" 200 "j['id'] and not {'country', 'email', 'explicit_content', 'followers',
  'product'} & set(j)"
req GET "$SP_API/tracks/0StrmPlyPreviewTrack01" -H "Authorization: Bearer $SPD_AT"
expect "sp dev track" 200 "j['id'] and 'popularity' not in j and 'external_ids' not in j"
req GET "$SP_API/search?q=track&type=track&limit=11" -H "Authorization: Bearer $SPD_AT"
expect "sp dev search limit 11" 400 "j == {'error': {'status': 400, 'message': 'Invalid limit'}}"
req GET "$SP_API/search?q=track&type=track" -H "Authorization: Bearer $SPD_AT"
expect "sp dev search default" 200 "j['tracks']['limit'] == 5 and j['tracks']['total'] == 2 and
  len(j['tracks']['items']) == 2"
req GET "$SP_API/search?q=track&type=track&limit=11" "${SPA[@]}"
expect "sp extended search limit 11" 200 "j['tracks']['limit'] == 11"
req GET "$SP_API/recommendations?seed_tracks=0StrmPlyPreviewTrack01" -H "Authorization: Bearer $SPD_AT"
expect "sp dev recommendations" 404 "j['error']['status'] == 404"
req GET "$SP_API/playlists/abc/tracks" -H "Authorization: Bearer $SPD_AT"
expect "sp dev playlist tracks" 403 "j == {'error': {'status': 403, 'message': 'Forbidden'}}"
ctl fail '{"service":"spotify","status":429,"reason":"QUOTA_EXCEEDED","path":"/v1/search"}'
req GET "$SP_API/search?q=track&type=track" -H "Authorization: Bearer $SPD_AT"
expect "sp quota exceeded" 429 "j['error']['reason'] == 'QUOTA_EXCEEDED'"
ctl expire-tokens '{"service":"spotify"}'
req GET "$SP_API/me" "${SPA[@]}"
expect "sp expired token" 401 "j == {'error': {'status': 401, 'message': 'The access token expired'}} and
  'invalid_token' in h['www-authenticate']"

# swap / refresh service
sp_authorize
req POST "$SP_SWAP" --data-urlencode "code=$CODE"
expect "sp swap" 200 "j['access_token'] and j['refresh_token'].startswith('swp_') and
  j['expires_in'] == 3600"
save_tokens SW
req GET "$SP_API/me" -H "Authorization: Bearer $SW_AT"
expect "sp swapped token works" 200
req POST "$SP_SWAP" --data-urlencode "code=$CODE"
expect "sp swap code reuse" 400 "j['error'] == 'invalid_grant'"
req POST "$SP_REFRESH" --data-urlencode "refresh_token=$SW_RT"
expect "sp refresh service" 200 "j['access_token'] and 'refresh_token' not in j"
remember "$(jq_ "j['access_token']")"
req POST "$SP_REFRESH" --data-urlencode "refresh_token=bogus"
expect "sp refresh service: unknown token" 400 "j['error'] == 'invalid_grant'"
req POST "$SP_TOKEN" -u "$SP_ID:$SP_SECRET" --data-urlencode grant_type=refresh_token \
  --data-urlencode "refresh_token=$SW_RT"
expect "sp wrapped token is no Spotify token" 400 "j['error'] == 'invalid_grant'"
req POST "$SP_SWAP"
expect "sp swap without code" 400 "j['error'] == 'invalid_request'"
# a code issued for a PKCE challenge: the seed-style swap forwards only code and fails; the
# PKCE-aware swap forwards code_verifier
SWV=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ
SWC=$(printf %s "$SWV" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
sp_authorize "&code_challenge_method=S256&code_challenge=$SWC"
req POST "$SP_SWAP" --data-urlencode "code=$CODE" --data-urlencode "code_verifier=$SWV"
expect "sp swap drops code_verifier" 400 "j['error'] == 'invalid_request' and 'code_verifier' in j['error_description']"
sp_authorize "&code_challenge_method=S256&code_challenge=$SWC"
req POST "${SP_SWAP%/swap}/swap-pkce" --data-urlencode "code=$CODE" --data-urlencode "code_verifier=$SWV"
expect "sp swap-pkce forwards code_verifier" 200 "j['refresh_token'].startswith('swp_')"

# =============================================================================================
# Spark
# =============================================================================================
SKR="http://127.0.0.1:8766/oauth2/callback"
SKH=(-H "X-SparkApi-User-Agent: $UA")
sk_openid() { # [extra query]
  local base
  base="$SK_OPENID?openid.mode=checkid_setup&openid.return_to=$(urlenc "$SKR")"
  req GET "$base&openid.spark.client_id=$SK_ID&openid.spark.combined_flow=true&openid.spark.state=s9${1:-}"
  CODE=$(jq_ "q.get('openid.spark.code', '')")
  remember "$CODE"
}
sk_grant() { # GRANT_TYPE FIELD VALUE [REDIRECT] [SECRET]: POST /v1/oauth2/grant
  local body
  body=$(printf '{"client_id":"%s","client_secret":"%s","grant_type":"%s","%s":"%s","redirect_uri":"%s"}' \
    "$SK_ID" "${5:-$SK_SECRET}" "$1" "$2" "$3" "${4:-$SKR}")
  req POST "$SK_TOKEN" "${SKH[@]}" -H 'Content-Type: application/json' --data "$body"
}
sk_grant_code() { sk_grant authorization_code code "$1" "${2:-$SKR}"; } # CODE [REDIRECT]
sk_openid
expect "spark hybrid openid" 302 "q['openid.mode'] == 'id_res' and q['openid.spark.code'] and
  q['openid.spark.state'] == 's9' and q['openid.ns'] == 'http://specs.openid.net/auth/2.0' and
  q['openid.claimed_id'].startswith('$SK_OPENID/id/') and loc.startswith('$SKR?')"
HC=$CODE
sk_openid "&stub_deny=cancel"
expect "spark openid cancel" 302 "q['openid.mode'] == 'cancel' and 'openid.spark.code' not in q"
sk_openid "&stub_deny=user_denied"
expect "spark openid error" 302 "q['openid.mode'] == 'error' and q['openid.error'] == 'user_denied'"
req GET "$SK_OPENID?openid.mode=checkid_setup&openid.return_to=$(urlenc "$SKR")&openid.spark.client_id=nope"
expect "spark openid unknown client" 302 "q['openid.mode'] == 'error' and
  'client_id' in q['openid.error']"
req GET "$SK_OPENID?openid.mode=checkid_setup&openid.spark.client_id=$SK_ID"
expect "spark openid without return_to" 400
AX="openid.ns.ax=http://openid.net/srv/ax/1.0&openid.ax.mode=fetch_request"
AX+="&openid.ax.type.email=$(urlenc http://openid.net/schema/contact/internet/email)"
AX+="&openid.ax.type.first=$(urlenc http://openid.net/schema/namePerson/first)"
AX+="&openid.ax.required=email,first"
req GET "$SK_OPENID?openid.mode=checkid_setup&openid.return_to=$(urlenc "$SKR")&openid.spark.client_id=$SK_ID&$AX"
expect "spark openid (plain, attribute exchange)" 302 "q['openid.mode'] == 'id_res' and
  'openid.spark.code' not in q and q['openid.ax.value.email'] == 'streamplay-tester@example.com' and
  q['openid.ax.value.first'] == 'StreamPlay'"
req POST "$SK_TOKEN" -H 'Content-Type: application/json' --data "{}"
expect "spark grant without X-SparkApi-User-Agent" 400 "j['D']['Success'] is False and
  j['D']['Code'] == 1016 and
  'X-SparkApi-User-Agent' in j['D']['Message']"
req POST "$SK_TOKEN" "${SKH[@]}" --data-urlencode "client_id=$SK_ID"
expect "spark grant not JSON" 400 "j['D']['Code'] == 1035"
sk_grant authorization_code code x "$SKR" no
expect "spark grant wrong secret" 401 "j['error'] == 'invalid_client'"
sk_grant_code "$HC" "http://127.0.0.1:8766/elsewhere"
expect "spark grant redirect mismatch" 400 "j['error'] == 'invalid_grant'"
sk_openid
sk_grant_code "$CODE"
expect "spark grant (hybrid code)" 200 "j['access_token'] and j['refresh_token'] and
  j['expires_in'] == 86400"
save_tokens SK
sk_grant_code "$CODE"
expect "spark grant code reuse" 400 "j['error'] == 'invalid_grant'"
req GET "$SK_OAUTH?response_type=code&client_id=$SK_ID&redirect_uri=$(urlenc "$SKR")&state=o1"
expect "spark oauth2 authorize" 302 "q['code'] and q['state'] == 'o1'"
OC=$(jq_ "q['code']")
remember "$OC"
sk_grant_code "$OC"
expect "spark grant (oauth2 code)" 200
save_tokens SK2
req GET "$SK_OAUTH?response_type=code&client_id=$SK_ID&redirect_uri=$(urlenc "$SKR")&stub_deny=access_denied"
expect "spark oauth2 denied" 302 "q['error'] == 'access_denied'"
req GET "$SK_OAUTH?response_type=code&client_id=nope&redirect_uri=$(urlenc "$SKR")"
expect "spark oauth2 unknown client" 400
req GET "${SK_OAUTH}/callback?code=x"
expect "spark default callback page" 200

SKA=(-H "Authorization: OAuth $SK_AT" "${SKH[@]}")
req GET "$SK_API/my/account" "${SKA[@]}"
expect "spark my/account" 200 "j['D']['Success'] is True and
  j['D']['Results'][0]['Name'] == 'StreamPlay Tester' and
  j['D']['Results'][0]['Emails'][0]['Address']"
req GET "$SK_API/my/account" -H "Authorization: OAuth $SK_AT"
expect "spark without X-SparkApi-User-Agent" 400 "j['D']['Code'] == 1016 and
  j['D']['Success'] is False"
req GET "$SK_API/my/account" "${SKH[@]}"
expect "spark without token" 401 "j['D']['Code'] == 1000"
req GET "$SK_API/my/account" -H "Authorization: OAuth nope" "${SKH[@]}"
expect "spark unknown token" 401 "j['D']['Code'] == 1000"
ctl fail '{"service":"spark","spark_code":1020,"path":"/v1/my/account"}'
req GET "$SK_API/my/account" "${SKA[@]}"
expect "spark injected 1020" 401 "j == {'D': {'Success': False, 'Code': 1020,
  'Message': 'Session token has expired'}}"
  
req GET "$SK_API/my/account" "${SKA[@]}"
expect "spark after the injected 1020" 200
ctl expire-tokens '{"service":"spark"}'
req GET "$SK_API/my/account" "${SKA[@]}"
expect "spark expired session" 401 "j['D']['Code'] == 1020"
sk_grant refresh_token refresh_token "$SK_RT"
expect "spark refresh" 200 "j['access_token'] and j['refresh_token']"
OLD_RT=$SK_RT
save_tokens SK
SKA=(-H "Authorization: OAuth $SK_AT" "${SKH[@]}")
sk_grant refresh_token refresh_token "$OLD_RT"
expect "spark refresh token single use" 400 "j['error'] == 'invalid_grant'"
req GET "$SK_API/my/account" -H "Authorization: Bearer $SK_AT" "${SKH[@]}"
expect "spark Bearer scheme accepted" 200
req GET "$SK_API/listings?_pagination=1&_limit=2" "${SKA[@]}"
expect "spark listings" 200 "len(j['D']['Results']) == 2 and
  j['D']['Pagination'] == {'TotalRows': 3, 'PageSize': 2, 'TotalPages': 2, 'CurrentPage': 1} and
  j['D']['Results'][0]['StandardFields']['ListPrice'] == 225000"
LID=$(jq_ "j['D']['Results'][1]['Id']")
req GET "$SK_API/listings?_limit=100" "${SKA[@]}"
expect "spark listings _limit too big" 400 "j['D']['Code'] == 1053"
req GET "$SK_API/listings/$LID" "${SKA[@]}"
expect "spark one listing" 200 "j['D']['Results'][0]['Id'] == '$LID'"
req GET "$SK_API/listings/20000000000000000000000000" "${SKA[@]}"
expect "spark unknown listing" 404 "j['D']['Code'] == 404"
req DELETE "$SK_API/listings" "${SKA[@]}"
expect "spark DELETE on listings" 405 "j['D']['Code'] == 405"
req GET "$SK_API/contacts" "${SKA[@]}"
expect "spark contacts" 200 "j['D']['Results'][0]['DisplayName'] == 'Jane Client'"
req POST "$SK_API/contacts" "${SKA[@]}" -H 'Content-Type: application/json' --data \
  '{"D":{"Contacts":[{"DisplayName":"Sam Buyer","PrimaryEmail":"sam@example.com","GivenName":"Sam"}]}}'
expect "spark POST contact" 201 "j['D']['Success'] is True and
  j['D']['Results'][0]['ResourceUri'] == '/v1/contacts/' + j['D']['Results'][0]['Id']"
CID=$(jq_ "j['D']['Results'][0]['Id']")
req POST "$SK_API/contacts" "${SKA[@]}" -H 'Content-Type: application/json' --data \
  '{"D":{"DisplayName":"Dup","PrimaryEmail":"SAM@example.com"}}'
expect "spark POST duplicate contact" 409 "j['D']['Code'] == 1055"
req POST "$SK_API/contacts" "${SKA[@]}" -H 'Content-Type: application/json' --data \
  '{"D":{"DisplayName":"No Mail"}}'
expect "spark POST contact without e-mail" 400 "j['D']['Code'] == 1050"
req POST "$SK_API/contacts" "${SKA[@]}" --data 'DisplayName=x'
expect "spark POST not JSON" 400 "j['D']['Code'] == 1035"
req PUT "$SK_API/contacts/$CID" "${SKA[@]}" -H 'Content-Type: application/json' --data \
  '{"D":{"DisplayName":"Samuel Buyer"}}'
expect "spark PUT contact" 200 "j == {'D': {'Success': True}}"
req GET "$SK_API/contacts/$CID" "${SKA[@]}"
expect "spark contact after PUT" 200 "j['D']['Results'][0]['DisplayName'] == 'Samuel Buyer'"
req PUT "$SK_API/contacts/$CID" "${SKA[@]}" -H 'Content-Type: application/json' --data \
  '{"D":{"Shoe":"x"}}'
expect "spark PUT unknown attribute" 400 "j['D']['Code'] == 1053"
req DELETE "$SK_API/contacts/$CID" "${SKA[@]}"
expect "spark DELETE contact" 200 "j == {'D': {'Success': True}}"
req GET "$SK_API/contacts/$CID" "${SKA[@]}"
expect "spark contact after DELETE" 404 "j['D']['Code'] == 404"
ctl fail '{"service":"spark","status":429}'
req GET "$SK_API/contacts" "${SKA[@]}"
expect "spark injected 429" 429 "j['D']['Code'] == 1550 and h['retry-after'] == '1'"
ctl fail '{"service":"spark","status":503}'
req GET "$SK_API/contacts" "${SKA[@]}"
expect "spark injected 503" 503 "j['D']['Code'] == 1510"
ctl fail '{"service":"spark","spark_code":1550}'
req GET "$SK_API/contacts" "${SKA[@]}"
expect "spark rate limit as Spark sends it" 503 "j['D'] == {'Success': False, 'Code': 1550, 'Message': 'Over rate limit'}"

# Spark's OpenID Connect provider (scripts/service_stubs_spark.py)
SK_ISSUER=${SK_DISCOVERY%/.well-known/openid-configuration}
req GET "$SK_DISCOVERY"
expect "spark discovery" 200 "j['issuer'] == '$SK_ISSUER' and j['token_endpoint'] == '$SK_ISSUER/openid/token' and
  j['id_token_signing_alg_values_supported'] == ['RS256'] and 'revocation_endpoint' in j"
req GET "$SK_ISSUER/openid/jwks.json"
expect "spark jwks" 200 "j['keys'][0]['kty'] == 'RSA' and j['keys'][0]['alg'] == 'RS256' and 'd' not in j['keys'][0]"
req GET "$SK_ISSUER/openid/authorize?client_id=$SK_ID&redirect_uri=$(urlenc "$SKR")&response_type=code&scope=openid&state=st1&nonce=nn1"
expect "spark oidc authorize" 302 "q['state'] == 'st1' and q['code']"
OIDC_CODE=$(jq_ "q['code']")
remember "$OIDC_CODE"
req GET "$SK_ISSUER/openid/authorize?client_id=$SK_ID&redirect_uri=$(urlenc "$SKR")&response_type=code&scope=profile&state=st2"
expect "spark oidc authorize without openid" 302 "q['error'] == 'invalid_scope' and q['state'] == 'st2'"
req POST "$SK_ISSUER/openid/token" -H 'Content-Type: application/json' --data \
  "{\"client_id\":\"$SK_ID\",\"client_secret\":\"$SK_SECRET\",\"grant_type\":\"authorization_code\",\"code\":\"$OIDC_CODE\",\"redirect_uri\":\"$SKR\"}"
expect "spark oidc token (JSON)" 200 "j['token_type'] == 'Bearer' and j['id_token'].count('.') == 2 and j['refresh_token']"
OIDC_ACCESS=$(jq_ "j['access_token']")
OIDC_REFRESH=$(jq_ "j['refresh_token']")
remember "$OIDC_ACCESS"; remember "$OIDC_REFRESH"
req POST "$SK_ISSUER/openid/token" -u "$SK_ID:$SK_SECRET" --data-urlencode grant_type=refresh_token \
  --data-urlencode "refresh_token=$OIDC_REFRESH"
expect "spark oidc refresh (form, Basic)" 200 "j['access_token'] and j['refresh_token'] != '$OIDC_REFRESH'"
remember "$(jq_ "j['refresh_token']")"
req GET "$SK_API/my/account" "${SKH[@]}" -H "Authorization: Bearer $OIDC_ACCESS"
expect "spark api with an OIDC token" 200 "j['D']['Success']"
req POST "$SK_ISSUER/openid/revoke" --data-urlencode "token=$OIDC_ACCESS" --data-urlencode token_type_hint=access_token \
  --data-urlencode "client_id=$SK_ID" --data-urlencode "client_secret=$SK_SECRET"
expect "spark oidc revoke" 200
req GET "$SK_API/my/account" "${SKH[@]}" -H "Authorization: Bearer $OIDC_ACCESS"
expect "spark api after revocation" 401 "j['D']['Code'] == 1000"
req GET "$SK_API/nothing" "${SKA[@]}"
expect "spark unknown path" 404 "j['D']['Code'] == 404"

# =============================================================================================
# The log
# =============================================================================================
sleep 0.2
: >"$tmp/body"
if "$PY" -S - "$tmp/log.jsonl" "$tmp/secrets" >"$tmp/logcheck" 2>&1 <<'EOF'; then
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
entries = [json.loads(l) for l in lines]
secrets = [s for s in open(sys.argv[2], encoding="utf-8").read().split("\n") if len(s) >= 8]
text = "\n".join(lines)
leaks = [s[:6] + "..." for s in secrets if s in text]
assert not leaks, "secrets in the log: %s" % leaks
assert all(isinstance(e["status"], int) for e in entries), "an entry without a status"
spark = [e for e in entries if e["service"] == "spark" and e["path"] == "/v1/my/account"]
assert any(
    e["headers"].get("X-SparkApi-User-Agent") == "StreamPlaySelfTest/1" and e["auth"] == "OAuth"
    for e in spark
), "spark UA/auth not logged"
sc = [e for e in entries if e["service"] == "soundcloud" and e.get("upload")]
assert any(e["status"] == 201 and e["upload"]["post_to"]["mode"] == "ids" for e in sc), "upload not logged"
assert any(e["status"] == 422 and e["upload"]["errors"] for e in sc), "rejected upload not logged"
cdn = [e for e in entries if e["host"] == "cdn" and e["service"] == "soundcloud" and e["status"] == 400]
assert cdn and cdn[0]["auth"] == "OAuth" and "Authorization" in cdn[0]["error"], "CDN refusal not logged"
tok = [e for e in entries if e["path"] == "/oauth/token" and e.get("form")]
secret_fields = ("code", "client_secret", "refresh_token", "code_verifier")
assert tok and all(
    v == "[redacted]" for e in tok for k, v in e["form"].items() if k in secret_fields
), "token form not redacted"
assert any(e.get("injected") for e in entries), "injected failures not marked"
print("ok", len(entries))
EOF
  ok
else
  bad "log: $(tail -n 3 "$tmp/logcheck")"
fi

# --owner-pid: a second instance ends once its owner has gone
sleep 30 &
owner=$!
"$PY" scripts/service-stubs.py --media "$media" --urls-file "$tmp/urls2.json" --owner-pid "$owner" \
  >/dev/null 2>"$tmp/stderr2" &
second=$!
for ((i = 0; i < 100; i++)); do [[ -s $tmp/urls2.json ]] && break; sleep 0.1; done
kill "$owner"
wait "$owner" 2>/dev/null || true
gone=no
for ((i = 0; i < 100; i++)); do
  if ! kill -0 "$second" 2>/dev/null; then gone=yes; break; fi
  sleep 0.1
done
if [[ $gone == yes ]]; then ok; else bad "--owner-pid: the stubs outlived their owner"; kill \
  "$second"; fi
wait "$second" 2>/dev/null || true

if [[ -s $tmp/stderr ]]; then
  bad "the stubs wrote to stderr: $(head -c 300 "$tmp/stderr")"
fi

echo "service-stubs-selftest: $passes checks passed, ${#failures[@]} failed"
if [[ ${#failures[@]} -gt 0 ]]; then
  printf '  - %s\n' "${failures[@]}" >&2
  exit 1
fi
