#!/usr/bin/env python3
"""Local stand-ins for the SoundCloud, Spotify and Spark APIs (127.0.0.1): the Python standard
library, and joserfc for Spark's OpenID Connect ID tokens (run it with the python of the venv that
scripts/install-python-deps.sh makes).

    python3 scripts/service-stubs.py --media DIR [--urls-file FILE] [--env-file FILE] [--log FILE]
        [--owner-pid PID] [--lifetime SECONDS] [--expires-in [SERVICE=]SECONDS ...]
        [--cdn-expiry SECONDS] [--track-file NAME] [--preview-file NAME] [--hls-dir DIR]
        [--aac-hls-dir DIR]

One process, ten listeners, each on its own free port of 127.0.0.1 (plain HTTP/1.1, keep-alive,
Content-Length on every response but 204; request bodies by Content-Length or chunked, up to
64 MiB): every real host gets its own origin, so a client that follows a redirect from an API
host to a CDN host crosses origins as it does for real.

  listener            stands for                       base URL keys (--urls-file / env file)
  soundcloud auth     secure.soundcloud.com            soundcloud.auth, authorize_url, token_url
  soundcloud api      api.soundcloud.com               soundcloud.api_url
  soundcloud cdn      cf-media.sndcdn.com & co.        soundcloud.cdn_url
  spotify accounts    accounts.spotify.com             spotify.accounts, authorize_url, token_url
  spotify api         api.spotify.com                  spotify.api (origin), api_url (= origin/v1)
  spotify cdn         p.scdn.co (previews)             spotify.cdn_url
  spotify swap        the app's token swap service     spotify.swap_url, refresh_url
  spark auth          sparkplatform.com                spark.auth, openid_url, authorize_url
  spark api           sparkapi.com                     spark.api (origin), api_url (= origin/v1),
                                                       token_url
  control             test control only                control

Options
  --media DIR        the test media (scripts/make-test-media.sh, e.g. .build-media/). Files are
                     read per request; a missing one gives 404 where it is needed.
  --track-file NAME  progressive MP3 of SoundCloud streams (default cbr-44k-stereo.mp3)
  --preview-file NAME  SoundCloud and Spotify previews (default cbr-44k-stereo-short.mp3; the
                     track file when missing)
  --hls-dir DIR      SoundCloud MP3 HLS: DIR/index.m3u8 + its segments (default hls/vod)
  --aac-hls-dir DIR  SoundCloud AAC HLS (default hls/fmp4: fragmented MP4 with EXT-X-MAP, as SoundCloud's)
  --urls-file FILE   written atomically (temp file + rename) once every port listens, last:
                     JSON {"control": URL, "soundcloud": {"auth", "authorize_url", "token_url",
                     "api_url", "cdn_url", "client_id", "client_secret"}, "spotify": {"accounts",
                     "authorize_url", "token_url", "api", "api_url", "cdn_url", "swap_url",
                     "refresh_url", "client_id", "client_secret"}, "spark": {"auth", "openid_url",
                     "authorize_url", "api", "api_url", "token_url", "client_id",
                     "client_secret", "discovery_url"}}. The same JSON is printed as one line on
                     stdout.
  --env-file FILE    the same as shell exports, written (atomically) just before --urls-file:
                     STREAMPLAY_STUB_CONTROL_URL, STREAMPLAY_STUB_SOUNDCLOUD_{AUTH_URL (the
                     authorize URL), TOKEN_URL, API_URL, CDN_URL, CLIENT_ID, CLIENT_SECRET},
                     STREAMPLAY_STUB_SPOTIFY_{AUTH_URL, TOKEN_URL, API_URL (with /v1), CDN_URL,
                     SWAP_URL, REFRESH_URL, CLIENT_ID, CLIENT_SECRET}, STREAMPLAY_STUB_SPARK_
                     {OPENID_URL, DISCOVERY_URL (OpenID Connect), AUTH_URL (the OAuth 2 authorize
                     URL), TOKEN_URL, API_URL (with /v1), CLIENT_ID, CLIENT_SECRET}.
  --log FILE         the request log (below), appended, one JSON line per request, flushed.
  --owner-pid PID    exit once PID has gone (checked twice a second; a zombie counts as gone).
  --lifetime S       exit after S seconds (default 3600). SIGTERM/SIGINT end it too.
  --expires-in [SERVICE=]S  access token lifetime in seconds, for all services or for one
                     (soundcloud, spotify, spark); repeatable. Defaults: soundcloud 3599, spotify
                     3600, spark 86400 (what each service answers). expires_in in token
                     responses is this value as an integer; 0 gives tokens that are born expired.
  --cdn-expiry S     lifetime of SoundCloud's signed CDN URLs (default 300, as SoundCloud's).

Credentials (fixed; also in --urls-file):
  soundcloud  client_id sc-test-client      client_secret sc-test-secret
  spotify     client_id sp-test-client      client_secret sp-test-secret
  spark       client_id spark-test-client   client_secret spark-test-secret
No redirect URI is pre-registered: any absolute URI is accepted (Spotify: any that follows its
redirect URI rules, below), but the token exchange must repeat the exact same string.

Tokens, codes and refresh tokens are opaque strings (today "at_..", "rt_..", "ac_..", "swp_..";
do not rely on that). Authorization codes live 600 s and are single-use: a code is used up by
its first exchange, even one that then fails (wrong redirect_uri or verifier). Every API call
checks the access token: unknown, expired (--expires-in), revoked, signed out or missing tokens
get that service's own 401 (below).

Test-only query parameters of the authorize endpoints (the stubs approve at once, no login page):
  stub_user=NAME     sign in as NAME ([A-Za-z0-9_-]{1,40}; default streamplay-tester). Each
                     service keeps per-user state (SoundCloud connections and uploads, Spotify
                     player and product).
  stub_deny=ERROR    the user says no: the redirect carries error=ERROR (OpenID: see Spark).
  stub_product=premium|free   (Spotify) the user's product from now on (default premium).

=================================================================================================
SoundCloud (secure.soundcloud.com, api.soundcloud.com, the CDN)
=================================================================================================
Auth listener (secure.soundcloud.com)

GET /authorize?client_id&redirect_uri&response_type=code&code_challenge&code_challenge_method
    =S256[&state]  (OAuth 2.1: PKCE S256 required)
  302 Location: redirect_uri?code=CODE[&state=STATE] (redirect_uri's own query kept).
  Errors, as a redirect (state kept): error=unsupported_response_type (response_type not code);
  error=invalid_request&error_description=... (no code_challenge, or method not S256);
  error=STUB_DENY&error_description=... (stub_deny). Not redirectable, 400 text/html page:
  client_id not sc-test-client ("invalid_client: ..."), redirect_uri missing or not absolute,
  a bad stub_user.

POST /oauth/token   Content-Type: application/x-www-form-urlencoded
  Client authentication: "Authorization: Basic base64(client_id:client_secret)" or client_id +
  client_secret in the body (both flows need the secret, as SoundCloud's do).
  grant_type=authorization_code: code, redirect_uri, code_verifier (all required).
  grant_type=refresh_token: refresh_token. Single-use: each refresh answers a new refresh token
    and the old one is dead from then on (rotation). The new pair keeps the grant (a refreshed
    client-credentials token stays one without a user).
  grant_type=client_credentials: nothing else (Basic auth, as SoundCloud documents it).
  200 {"access_token": T, "token_type": "bearer", "expires_in": 3599, "refresh_token": R,
       "scope": ""}   (client_credentials answers a refresh token too, as SoundCloud does)
  Errors {"error": E, "error_description": TEXT}, checked in this order:
    405 invalid_request (not POST; Allow: POST); 400 invalid_request (not a form body);
    400 unsupported_grant_type (grant_type missing or other, e.g. password);
    401 invalid_client (unknown client or wrong secret); 400 invalid_request ("X is required");
    400 invalid_grant (code unknown, used or expired; redirect_uri differs; code_verifier does
    not hash to the code_challenge; refresh token unknown, used, revoked).

POST /sign-out   JSON {"access_token": T}  -> 200 {} and T is dead (401 from then on).
  400 invalid_request without access_token or with a body that is no JSON. An unknown token: 200.

GET /connect/via/SERVICE?stub_connect=K&redirect_uri=URI[&display=...]  (the authorize_url that
  POST /me/connections answers; "the user connects") -> 302 URI?service=SERVICE&connection_id=N
  and the connection is in GET /me/connections from then on. K is single-use; an unknown or
  used K: 400 text/html.

API listener (api.soundcloud.com). Every request needs "Authorization: OAuth ACCESS_TOKEN".
  401 (no header, unknown/expired/revoked token) with SoundCloud's error body:
    {"code": 401, "message": "", "link": "https://developers.soundcloud.com/docs/api/explorer/
     open-api", "status": "401 - Unauthorized", "errors": [], "error": null}
  Another scheme (e.g. "Bearer") is refused the same way, with message "Authorization scheme must
  be OAuth (...)". The same shape for every API error: code, message, link, status
  ("404 - Not Found", "422 - Unprocessable Entity", ...), errors, error.
  Endpoints marked (user) need a user's token (authorization_code flow): a client-credentials
  token gets 401 {"code": 401, ...} (the OpenAPI lists 401 for the /me endpoints; the log's
  token_status is "app_token_on_user_endpoint").
  Every answer keeps to the OpenAPI's schemas (soundcloud/api, openapi/api.yaml of 2026-07-19):
  the members they do not mark nullable are left out rather than sent as null.

GET /resolve?url=URL   -> 302 Location: API/tracks/soundcloud:tracks:ID (or API/users/
  soundcloud:users:ID), body {"status": "302 - Found", "location": LOCATION}. The client follows
  it with its Authorization header (same origin). 400 without url; 404 when not resolvable.
  Resolvable (http or https; www. and m. too; query and fragment ignored):
    https://soundcloud.com/stub-artist                        user 100002 "stub-artist"
    https://soundcloud.com/USER                               a user who has signed in here
    https://soundcloud.com/stub-artist/full-track             track 1001
    https://soundcloud.com/stub-artist/aac-only               track 1002
    https://soundcloud.com/stub-artist/preview-only           track 1003
    https://soundcloud.com/stub-artist/snippet-hls            track 1004
    https://soundcloud.com/stub-artist/encrypted-only         track 1005
    https://soundcloud.com/stub-artist/snippet-mp3            track 1006
    https://soundcloud.com/stub-artist/sample-aes             track 1007
    https://soundcloud.com/stub-artist/sets/stub-set          playlist 5001
    https://soundcloud.com/stub-artist/synthetic-N            track N, 2000000 <= N <= 2999999
    https://soundcloud.com/USER/PERMALINK                     a track uploaded here
    https://on.soundcloud.com/stubFull1 | stubAac1 | stubPreview1   tracks 1001 | 1002 | 1003

Tracks are addressed by URN or numeric id: /tracks/soundcloud:tracks:1001, /tracks/soundcloud%3A
tracks%3A1001 and /tracks/1001 are the same. The tracks:
  1001 "Full Track"    access "playable"; streams http_mp3_128_url, hls_mp3_128_url,
                       hls_aac_160_url, preview_mp3_128_url; duration = the track file's (30000)
  1002 "AAC Only"      access "playable"; only hls_aac_160_url (duration 24000)
  1003 "Preview Only"  access "preview"; only preview_mp3_128_url (duration 30000)
  1004 "Snippet HLS"   access "playable"; only hls_aac_160_url, whose playlist (about 24 s)
                       is a snippet of the stated duration 240000
  1005 "Encrypted Only"  access "playable"; only the keys ctr-encrypted-hls and
                       cbc-encrypted-hls (no "_url"), playlists with EXT-X-KEY METHOD=
                       SAMPLE-AES-CTR (Widevine) and SAMPLE-AES (FairPlay); duration 24000
  1006 "Snippet MP3"   access "playable"; only http_mp3_128_url, signed under a /preview/ CDN
                       path that serves the preview file (duration 240000)
  1007 "Sample AES"    access "playable"; only hls_aac_160_url, its playlist with EXT-X-KEY
                       METHOD=SAMPLE-AES (FairPlay, cbcs): DRM; duration 24000
  2000000..2999999     "Synthetic Track N", like 1001 (one fresh track per test, e.g. for
                       path-matched failures)
  uploads              from 3000001 on, like 1001 (their streams serve the stub media, not the
                       uploaded bytes)

GET /tracks/ID      -> 200 track: {"kind": "track", "urn", "title", "permalink",
  "permalink_url", "uri", "stream_url" (API/tracks/URN/stream), "duration" (ms), "access"
  ("playable" | "preview"), "streamable", "downloadable", "download_url": null, "sharing",
  "tag_list", "genre", "description", "state", "created_at" / "last_modified" ("yyyy/MM/dd
  HH:mm:ss +0000"), "artwork_url": null, "waveform_url": null, "license", "embeddable_by",
  "track_type", "playback_count", "favoritings_count", "reposts_count", "comment_count",
  "commentable", "user" (user object), "secret_uri": null, "secret_token": null}. As today's
  OpenAPI: identified by "urn" only; the deprecated numeric "id" and "user_id" are added only
  after POST /_control/config {"service": "soundcloud", "numeric_ids": true}.
  404 unknown track (after the token check).
GET /tracks/ID/streams  -> 200 {KEY: URL, ...} with only the track's keys (see above), each URL
  API/tracks/soundcloud:tracks:ID/streams/RENDITION, RENDITION one of http_mp3_128,
  hls_mp3_128, hls_aac_160, preview_mp3_128. These are API URLs: they need the OAuth header.
GET|HEAD /tracks/ID/streams/RENDITION  -> 302 Location: a signed CDN URL (below), body
  {"status": "302 - Found", "location": ...}; 404 if the track has no such rendition (e.g.
  http_mp3_128 of 1002 or 1003). Each call signs a fresh URL (lifetime --cdn-expiry): a player
  whose URL expired asks here again.
GET|HEAD /tracks/ID/stream  (legacy) -> 302 like streams/http_mp3_128; 404 without it.
GET /playlists/ID  (numeric or soundcloud:playlists:N; 5001 "Stub Set" of tracks 1001 and 1002)
  -> 200 {"kind": "playlist", "urn", "title", "permalink", "permalink_url", "uri",
  "tracks_uri", "created_at", "last_modified", "description", "downloadable", "duration" (the
  tracks' sum), "embeddable_by", "genre", "license", "playlist_type", "type", "sharing",
  "streamable", "tag_list", "tags": null, "track_count", "likes_count", "user", "user_urn",
  "tracks": [track, ...] (left out with show_tracks=false)}; 404 unknown.
GET /users/ID   (numeric or soundcloud:users:N) -> 200 user: {"kind": "user", "urn" ("id" only
  with numeric_ids),
  "username", "permalink", "permalink_url", "uri", "avatar_url", "city", "country",
  "description", "full_name", "first_name", "last_name", "followers_count",
  "followings_count", "track_count", "playlist_count", "public_favorites_count",
  "likes_count", "reposts_count", "website", "website_title", "created_at",
  "last_modified"}; 404 unknown.
GET /me  (user) -> 200 the user object plus "plan", "primary_email_confirmed",
  "private_tracks_count", "private_playlists_count", "locale", "online", "comments_count",
  "subscriptions", "quota" {"unlimited_upload_quota", "upload_seconds_used",
  "upload_seconds_left"}, "upload_seconds_left". Default user: id 100001, urn
  soundcloud:users:100001, username "streamplay-tester", full_name "StreamPlay Tester".
GET /me/connections  (user) -> 200 [connection, ...], or with linked_partitioning=1|true
  {"collection": [...], "next_href": null}. connection: {"id", "kind": "connection",
  "created_at", "display_name", "post_publish", "post_favorite": false, "service", "type",
  "uri"}. Each user starts with twitter (post_publish true), facebook_profile (true), foursquare
  (false), tumblr (false), in that order.
POST /me/connections  (user): service, redirect_uri and optional display, as a form,
  multipart, JSON object ({"service", ...} or {"connection": {...}}) or query; the names
  connection[service], connection[redirect_uri], connection[display] work too.
  service: twitter | facebook_profile | foursquare | tumblr | myspace.
  202 {"authorize_url": AUTH/connect/via/SERVICE?stub_connect=K&redirect_uri=URI[&display=..]}:
  the user opens it (see the auth listener); then the new connection (post_publish true) is
  listed. 422 (errors[].field "service" / "redirect_uri") on a bad service or a missing or
  relative redirect_uri.
POST /tracks  (user) upload, Content-Type: multipart/form-data (otherwise 400; 400 for a
  broken multipart body). Fields (as in the upload & share guide and the API's TrackDataRequest):
  track[asset_data]   required, a file part (with a filename), not empty, audio (MP3 frame sync
                      or ID3, RIFF, FORM, fLaC, OggS or ftyp)
  track[title]        required, not blank, at most 255 characters
  track[sharing]      public (default) | private
  track[tag_list]     space-separated tags, double quotes group words ("hip hop"); machine
                      tags NAMESPACE:KEY=VALUE, also quoted ("machine:tag=with space").
                      Checked: balanced quotes; geo:lat a number -90..90, geo:lon -180..180,
                      foursquare:venue [A-Za-z0-9]+. Other namespaces are kept as they are.
  track[post_to][][id]  repeatable: ids of the user's connections to share to. Only for public
                      tracks; a foursquare connection needs a foursquare:venue machine tag.
  track[post_to][]    one empty value: share to no connection. Not together with the above.
                      Neither given: the connections with post_publish true (the defaults).
  track[shared_to][emails][][address]  repeatable e-mail addresses; only for private tracks
  track[type]         original | remix | live | recording | spoken | podcast | demo |
                      in progress | stem | loop | sound effect | sample | other
  track[license]      no-rights-reserved | all-rights-reserved | cc-by | cc-by-nc | cc-by-nd |
                      cc-by-sa | cc-by-nc-nd | cc-by-nc-sa
  track[embeddable_by]  all | me | none;  track[downloadable], track[streamable],
                      track[commentable]  true | false | 1 | 0;  track[release_date] yyyy-mm-dd;
                      track[permalink] [a-z0-9_-]{1,255};  free text: track[description],
                      track[genre], track[sharing_note], track[label_name], track[isrc],
                      track[purchase_url];  file: track[artwork_data]
  Any other field name (e.g. the guide's typo track[assetdata]) is an error; so is a scalar
  field given twice, or a plain field sent as a file (and the reverse).
  201 the track object, "state": "processing" (GET /tracks/ID says "finished"), tag_list
  re-joined (tags with spaces quoted), permalink = track[permalink] or the title slug + "-ID".
  422 with every problem: {"code": 422, "message": FIRST error_message, "link", "status":
  "422 - Unprocessable Entity", "errors": [{"error_message": "FIELD what is wrong", "field":
  FIELD}, ...], "error": null}. FIELD is the form field name, e.g. "track[title]".
  Each upload (accepted or not) is logged as "upload" and listed by GET /_control/uploads:
  {"fields": {NAME: VALUE or [VALUES] (non-file fields as sent)}, "files": {NAME: {"filename",
   "content_type", "size", "sha256"}}, "errors": [as in the 422], "title", "sharing", "tags":
   [plain tags], "machine_tags": [{"namespace", "key", "value"}], "tag_list_parsed": [all
   tags], "post_to": {"mode": "ids" | "none" | "default", "ids": [N], "services": [S]},
   "shared_to_emails": [...], "type", "track_id" (accepted uploads only)}

CDN listener (signed URLs; GET and HEAD, others 405)
  /media/ID/http_mp3_128/stream.mp3      the track file, audio/mpeg
  /media/ID/preview_mp3_128/preview.mp3  the preview file, audio/mpeg
  /media/ID/preview/http_mp3_128/stream.mp3  the preview file, for a track whose full
                                         rendition serves a snippet (1006)
  /media/ID/ctr-encrypted-hls/playlist.m3u8, /media/ID/cbc-encrypted-hls/playlist.m3u8
                                         like the AAC one, with an EXT-X-KEY (DRM)
  /media/ID/hls_mp3_128/playlist.m3u8    --hls-dir/index.m3u8 with every segment URI replaced by
  /media/ID/hls_aac_160/playlist.m3u8    an absolute signed CDN URL (/media/ID/REND/SEGMENT?...),
                                         application/vnd.apple.mpegurl, Range ignored; the AAC
                                         one from --aac-hls-dir
  /media/ID/REND/SEGMENT                 a segment file (audio/mpeg, audio/aac)
  every URL carries ?Expires=UNIX-SECONDS(.mmm)&Signature=HEX&Key-Pair-Id=APKASTUBKEY0001.
  Checked in this order:
    400 application/xml <Error><Code>InvalidArgument</Code><Message>Only one auth mechanism
        allowed; ...</Message>...</Error> when the request has ANY Authorization header
    403 application/xml <Error><Code>MissingKey</Code>... when a signing parameter is missing
    403 <Error><Code>AccessDenied</Code><Message>Access denied</Message></Error> for a wrong
        signature (any change of path or Expires) or once Expires has passed (the URL expired:
        ask the API for a new one). A response under way is not cut when the URL expires.
    404 <Error><Code>NoSuchKey</Code></Error> for anything else.
  Files: 200 with Accept-Ranges: bytes and Content-Length; a single Range "bytes=A-B", "A-" or
  "-N" gives 206 + Content-Range: bytes A-B/TOTAL; A past the end gives 416 + Content-Range:
  bytes */TOTAL; other Range headers are ignored. Cache-Control: private, max-age=0.
  The MP3 HLS rendition plays --hls-dir (test media: hls/vod, the 24 s hls/source.mp3 signal in
  7 segments), not the progressive file.

Rate limits and server errors come from /_control/fail (below):
  api 429: {"errors": [{"meta": {"rate_limit": {"group": "plays", "max_nr_of_requests": 15000,
            "time_window": "PT24H"}, "remaining_requests": 0, "reset_time": "yyyy/MM/dd
            HH:mm:ss +0000"}}]} with Retry-After: N and reset_time = now + N (rounded up)
  api other: the error body above with that code; auth: {"error": "temporarily_unavailable"
  (5xx) | "rate_limited", "error_description"}; cdn: <Error><Code>PHRASE</Code>...</Error>.

=================================================================================================
Spotify (accounts.spotify.com, api.spotify.com, p.scdn.co, a token swap service)
=================================================================================================
Accounts listener

GET /authorize?client_id&response_type=code&redirect_uri[&state][&scope][&code_challenge_method=
    S256&code_challenge][&show_dialog ...]
  302 redirect_uri?code=CODE[&state=STATE]. scope: space-separated, kept with the tokens.
  Not redirectable, 400 text/html: "INVALID_CLIENT: Invalid client" (client_id),
  "INVALID_CLIENT: Invalid redirect URI" (missing, not absolute, with a fragment),
  "INVALID_CLIENT: Insecure redirect URI" (http:// other than the loopback literals
  127.0.0.1 and [::1]: "localhost" is refused, as by Spotify since 2025). https:// and custom
  schemes (x-app://...) are accepted; loopback ports may be anything.
  As a redirect (state kept): error=access_denied (or stub_deny's value); error=
  unsupported_response_type (response_type not code; the implicit grant is gone);
  error=invalid_request (code_challenge_method not S256 or a code_challenge not 43..128 long,
  when either is given).

POST /api/token   Content-Type: application/x-www-form-urlencoded (any other body is not read:
  "grant_type parameter is missing")
  Client: "Authorization: Basic base64(id:secret)", or client_id + client_secret in the body
  (confidential), or client_id alone (PKCE, public).
  grant_type=authorization_code: code, redirect_uri (exactly the authorize one); public clients
    add code_verifier (the code must have come with a code_challenge); confidential clients
    must add one when the code came with a code_challenge (then it is checked).
  grant_type=refresh_token: refresh_token (+ client_id for public clients).
    A PKCE refresh token is single-use: the answer has a new refresh_token, the old one is dead.
    A confidential refresh answers no refresh_token: keep using the old one.
  grant_type=client_credentials (confidential only): no user, no refresh token.
  200 {"access_token", "token_type": "Bearer", "scope", "expires_in": 3600[, "refresh_token"]}
      (client_credentials: {"access_token", "token_type", "expires_in"})
  400 {"error": E, "error_description": D}:
    unsupported_grant_type "grant_type parameter is missing" | "grant_type parameter is
      invalid: ..."
    invalid_client "Invalid client" (unknown client_id; public client where a secret is
      needed) | "Invalid client secret"
    invalid_request "code must be supplied" | "code_verifier required" | "refresh_token must be
      supplied"
    invalid_grant "Invalid authorization code" (unknown, used, expired) | "Invalid redirect URI"
      | "code_verifier was incorrect" | "Invalid refresh token" (unknown, used) | "Refresh
      token revoked" (/_control/revoke-tokens)
  405 on other methods.

Swap listener (the seed's token swap/refresh service: a server of the app's own that holds the
client secret and talks to the accounts service). Form bodies, POST only (405), else 404.
  POST /swap     code [, redirect_uri (checked when given)]  - the seed's style: only code (and
    redirect_uri) reach Spotify, so a code issued for a code_challenge fails there (400
    invalid_request "code_verifier required").
    200 the /api/token answer, but refresh_token is the service's own opaque token ("swp_..."),
    only good for /refresh (Spotify's token endpoint refuses it: invalid_grant).
  POST /swap-pkce  the same, but code_verifier, when given, is forwarded too (a swap service
    that supports PKCE).
  POST /refresh  refresh_token (a swap token)
    200 {"access_token", "token_type", "scope", "expires_in"} (the swap token stays valid).
  Errors: /api/token's, passed through (400 invalid_grant ...); 400 invalid_request for a
  missing field or a body that is not a form.

API listener (https://api.spotify.com/v1 = api_url). "Authorization: Bearer TOKEN" on every call.
  401 {"error": {"status": 401, "message": "No token provided"}}        no header
  400 {"error": {"status": 400, "message": "Only valid bearer authentication supported"}}
                                                                        another scheme
  401 {"error": {"status": 401, "message": "The access token expired"}} expired token
  401 {"error": {"status": 401, "message": "Invalid access token"}}     unknown or revoked
  (the 401s carry WWW-Authenticate: Bearer realm="spotify", error="invalid_token",
   error_description="...")
  403 {"error": {"status": 403, "message": "This request requires user authentication."}}
      a client-credentials token on /me or /me/player...
  403 {"error": {"status": 403, "message": "Insufficient client scope"}}  scope missing
  404 {"error": {"status": 404, "message": "Service not found"}}  unknown path
  Injected (/_control/fail): 429 {"error": {"status": 429, "message": "API rate limit
  exceeded"}} + Retry-After; 5xx {"error": {"status": N, "message": PHRASE}}.

Two registered apps: client_id (an app in extended quota mode: the behaviour below) and
dev_client_id/dev_client_secret (an app in Development Mode, as every new app is). Tokens of the
Development Mode app (any grant; the swap service is the other app's) get Spotify's rules of
2024-11-27 and February 2026 (migration guide, read 2026-11-23):
  /me without country, email, explicit_content, followers and product, whatever the scopes;
  tracks without popularity and external_ids; search limit at most 10 (default 5; the other
  app: 50, default 20); removed endpoints answer 404 {"error": {"status": 404, "message":
  "Service not found"}} (recommendations, related-artists, featured and category playlists) or
  403 "Forbidden" (audio-features/-analysis, browse, artists' top-tracks, /users/..., playlist
  /tracks, several items by ids (GET /tracks?ids=), PUT/DELETE of the type-specific library
  endpoints /me/tracks ... and their /contains). A used-up quota is injected:
  /_control/fail {"service": "spotify", "status": 429, "reason": "QUOTA_EXCEEDED"} adds "reason"
  to the error object.
GET /v1/search?q=TEXT&type=T[,T...][&limit=N][&offset=N]  (client credentials are fine)
  -> 200 {"tracks": {"href", "items": [track, ...], "limit", "next", "offset", "previous",
  "total"}, ...} (a paging object per type; tracks match when every word of q is in the name,
  the other types are empty); 400 "No search query", "Missing parameter type", "Bad search
  type field", "Invalid limit" (above the app's maximum), "Invalid offset".
GET /v1/me -> 200 {"display_name" ("StreamPlay Tester" for the default user, else the user
  name), "id" (the user name without [^a-z0-9], e.g. "streamplaytester"), "uri":
  "spotify:user:ID", "type": "user", "href", "external_urls", "followers", "images": [];
  with scope user-read-private also "country": "DE", "product": "premium" | "free",
  "explicit_content"; with user-read-email also "email": "NAME@example.com"}
GET /v1/tracks/ID  (client credentials are fine) -> 200 {"id", "name", "uri":
  "spotify:track:ID", "duration_ms", "preview_url" (CDN URL or null), "artists", "album",
  "disc_number", "explicit", "external_ids", "external_urls", "href", "is_local",
  "popularity", "track_number", "type": "track"}
  400 {"error": {"status": 400, "message": "invalid id"}} if ID is not 22 base62 characters;
  404 {"error": {"status": 404, "message": "Resource not found"}} for an unknown ID.
  Tracks: 0StrmPlyPreviewTrack01 "Preview Track", 30000 ms, preview_url set;
          0StrmPlyNoPreviewTrk01 "No Preview Track", 45000 ms, preview_url null.
Player (per user; devices d000...0001 "StreamPlay Test Computer" (Computer) and d000...0002
"StreamPlay Test Speaker" (Speaker): "d", 38 zeros, then 1 or 2; none active at first).
Playback is simulated: progress runs in real time while playing; at a track's end the next uri
of the list plays; after the last one is_playing turns false at progress = duration_ms.
  GET /v1/me/player  (scope user-read-playback-state) -> 204 without an active device, else 200
    {"device": device, "repeat_state": "off", "shuffle_state": false, "smart_shuffle": false,
     "context": null, "timestamp" (ms), "progress_ms", "is_playing", "item": track or null,
     "currently_playing_type": "track" | "unknown", "actions": {"disallows": {...}}}
  GET /v1/me/player/currently-playing  (user-read-playback-state or
    user-read-currently-playing) -> the same without the device fields; 204 with no active
    device or nothing loaded.
  GET /v1/me/player/devices  (user-read-playback-state) -> 200 {"devices": [{"id",
    "is_active", "is_private_session": false, "is_restricted": false, "name", "type",
    "volume_percent": 80, "supports_volume": true}, ...]}
  PUT commands: scope user-modify-playback-state; then, in this order:
    403 {"error": {"status": 403, "message": "Player command failed: Premium required",
         "reason": "PREMIUM_REQUIRED"}}  for a free user (stub_product=free)
    400 "Malformed json"  a body that is not a JSON object
    404 "Device not found"  ?device_id= of no device
    404 {"error": {"status": 404, "message": "Player command failed: No active device found",
         "reason": "NO_ACTIVE_DEVICE"}}  no device_id and no active device
    success: 204, no body. device_id makes that device the active one.
  PUT /v1/me/player/play[?device_id=ID]  optional JSON {"uris": ["spotify:track:ID", ...],
    "offset": {"position": N} | {"uri": "spotify:track:ID"}, "position_ms": N}
    with uris: that list plays from offset at position_ms (clamped to the track); 400
    "Invalid track uri: X", "Invalid offset position", "Invalid offset uri", "position_ms must
    be a non-negative integer", "uris must be a non-empty list"; context_uri: 400 (not
    simulated). Without uris: resume (position_ms, if given, seeks first); nothing loaded: 403
    {"error": {"status": 403, "message": "Player command failed: Restriction violated",
    "reason": "UNKNOWN"}}.
  PUT /v1/me/player/pause[?device_id=ID]  -> 204; not playing: 403 "Restriction violated" as
    above.
  PUT /v1/me/player/seek?position_ms=N[&device_id=ID]  -> 204 (clamped to the track, playing or
    paused state kept); 400 "Missing required parameter: position_ms" | "position_ms must be a
    non-negative integer"; nothing loaded: 403 "Restriction violated".
  PUT /v1/me/player  {"device_ids": [ID], "play": bool}  transfer -> 204 (needs no active
    device); 400 unless device_ids is a list of one id; 404 "Device not found".
  Other methods on these paths: 405 {"error": {"status": 405, "message": "Method not allowed"}}.

CDN listener: GET|HEAD /mp3-preview/SHA1?cid=... (the preview_url) -> the preview file,
  audio/mpeg, Range as on the SoundCloud CDN, no token needed (an Authorization header is
  ignored), Cache-Control: public, max-age=31536000. 404 otherwise; 405 other methods.

=================================================================================================
Spark (sparkplatform.com, sparkapi.com)
=================================================================================================
Auth listener (sparkplatform.com)

OpenID Connect (the documented sign-in today: /.well-known/openid-configuration,
/openid/authorize, /openid/token with RS256-signed ID tokens, /openid/jwks.json, /openid/revoke)
and the rate limit (/_control/spark/rate-limit) are in scripts/service_stubs_spark.py, described
in its docstring.

GET /openid   OpenID 2.0 with Spark's OAuth 2 extension (the Hybrid flow) or plain OpenID:
  openid.mode=checkid_setup (or checkid_immediate), openid.return_to (absolute, required),
  openid.spark.client_id, openid.spark.combined_flow=true (Hybrid: ask for a code),
  [openid.spark.state], [openid.ns], [attribute exchange: openid.ns.ax,
  openid.ax.mode=fetch_request, openid.ax.type.ALIAS=TYPE-URI, openid.ax.required=ALIAS,...,
  openid.ax.if_available=...; types: .../contact/internet/email, .../namePerson/first,
  .../namePerson/last, .../namePerson/friendly, .../namePerson (openid.net/schema and
  axschema.org)].
  302 return_to?openid.ns=http://specs.openid.net/auth/2.0&openid.mode=id_res&
    openid.op_endpoint=OPENID_URL&openid.claimed_id=OPENID_URL/id/SPARK_ID&openid.identity=(same)
    &openid.return_to=...&openid.response_nonce=...&openid.assoc_handle=...
    [&openid.spark.code=CODE (combined_flow=true only)][&openid.ns.ax=...&openid.ax.mode=
    fetch_response&openid.ax.type.ALIAS=...&openid.ax.value.ALIAS=...]&openid.signed=...&
    openid.sig=...[&openid.spark.state=STATE]
  The code's redirect URI is openid.return_to, exactly as sent: the grant must repeat it.
  Errors, redirected to return_to (openid.ns and openid.spark.state kept):
    openid.mode=cancel                            stub_deny=cancel (the user said no)
    openid.mode=error&openid.error=TEXT           stub_deny=TEXT; a bad openid.mode ("openid.mode
                                                  must be checkid_setup"); a wrong client_id
                                                  ("Invalid openid.spark.client_id")
  400 text/html: openid.return_to missing or not absolute.
GET /oauth2?response_type=code&client_id&redirect_uri[&state]  (plain OAuth 2)
  302 redirect_uri?code=CODE[&state]; redirected errors error=unsupported_response_type,
  error=STUB_DENY; 400 text/html for a wrong client_id or a missing/relative redirect_uri.
GET /oauth2/callback  -> 200 a small HTML page (SparkiOS's default redirect URI, so a web view
  that loads it does not fail).

API listener (sparkapi.com; api_url = origin/v1). Responses are {"D": {...}} envelopes:
  success {"D": {"Success": true[, "Results": [...]][, "Pagination": {...}]}}
  failure {"D": {"Success": false, "Code": N, "Message": TEXT}} with the HTTP status:
    400 1016 "The X-SparkApi-User-Agent request header is required. ..."  (checked first, on
        every request, the grant endpoint included)
    401 1000 "Invalid API key and/or request signed improperly"  (no Authorization, a scheme
        other than OAuth/Bearer, an unknown or revoked token)
    401 1020 "Session token has expired"  (refresh with the refresh token, then replay)
    400 1035 "POST data not supplied as valid JSON. ..."  (POST/PUT body not Content-Type
        application/json or not JSON)
    400 1050 a required attribute is missing;  400 1053 an attribute breaks a constraint
    409 1055 the write conflicts (an e-mail already in use)
    404 404 "Not Found";  405 405 "Method not allowed"
    503 1550 "Over rate limit" (Spark's error table gives 1550 HTTP 503): injected with
    {"spark_code": 1550}, or by the rate limit (service_stubs_spark.py); injected: 503 1510 "The
    API is temporarily unavailable.", 500 1026, 401 1020, 429 1550 (not Spark's pairing: for
    clients' 429 handling), or any {"spark_code"} given to /_control/fail
  "Authorization: OAuth ACCESS_TOKEN" (Bearer is accepted too, as for Spark's OpenID Connect
  tokens; the log shows which).

POST /v1/oauth2/grant   JSON {"client_id", "client_secret", "grant_type": "authorization_code" |
  "refresh_token", "code" | "refresh_token", "redirect_uri"}  (no Authorization needed)
  200 {"access_token", "refresh_token", "expires_in": 86400}. Refresh tokens are single-use: a
  refresh answers a new pair and the old refresh token is dead.
  Errors: 400 1016 / 400 1035 envelopes as above; then OAuth-shaped {"error", "error_description"}:
  400 invalid_request (body not an object, redirect_uri/code/refresh_token missing), 401
  invalid_client (client_id or client_secret wrong; checked before grant_type), 400
  unsupported_grant_type, 400 invalid_grant (code unknown/used/expired, redirect_uri differs,
  refresh token unknown/used/revoked); 405 405 envelope for other methods.
GET /v1/my/account -> Results [{"Id": SPARK_ID, "ResourceUri": "/v1/my/account", "UserType":
  "Member", "Name": "StreamPlay Tester" (default user), "FirstName", "LastName", "Office",
  "OfficeId", "Mls", "MlsId", "Emails": [{"Type", "Name", "Address", "Primary": true}],
  "Phones": [...], "Websites": [], "Addresses": []}]
GET /v1/listings[?_limit=1..25 (default 10)&_page=N (default 1)&_pagination=1]
  -> Results [{"ResourceUri": "/v1/listings/ID", "Id", "StandardFields": {"ListingKey",
  "ListingId", "ListPrice", "MlsStatus", "PropertyType", "StreetNumber", "StreetName", "City",
  "StateOrProvince", "PostalCode", "BedsTotal", "BathsTotal", "UnparsedAddress"}}] (3 fixtures,
  ids 20060412165917817933000000..02); _pagination=1 adds "Pagination": {"TotalRows",
  "PageSize", "TotalPages", "CurrentPage"}; a bad _limit/_page: 400 1053. _filter, _select,
  _orderby are accepted and ignored.
GET /v1/listings/ID (26 digits) -> Results [listing]; 404 404 unknown.
GET /v1/contacts -> Results [contact]; contact: {"Id", "ResourceUri": "/v1/contacts/ID",
  "DisplayName", "GivenName", "FamilyName", "PrimaryEmail", "Tags": [...],
  "ModificationTimestamp"}. Fixture: "Jane Client" <jane.client@example.com>.
POST /v1/contacts  {"D": {"Contacts": [contact attributes, ...]}} or {"D": {attributes}}
  attributes: DisplayName and PrimaryEmail (required), GivenName, FamilyName (strings), Tags
  (list of strings); others 400 1053. 201 {"D": {"Success": true, "Results": [{"ResourceUri",
  "Id"}, ...]}}; 409 1055 for an e-mail in use (case-insensitive; nothing is created).
GET /v1/contacts/ID -> Results [contact];  PUT /v1/contacts/ID {"D": {attributes to change}}
  -> 200 {"D": {"Success": true}};  DELETE /v1/contacts/ID -> 200 {"D": {"Success": true}};
  404 404 for an unknown ID.

=================================================================================================
Control (test only): every listener answers /_control/..., and the control listener nothing else
(404). Bodies are JSON; errors are 400 {"error": TEXT} (404 unknown path, 405 wrong method).
=================================================================================================
GET  /_control/urls      the --urls-file JSON
GET  /_control/uploads   every SoundCloud upload record, oldest first (see POST /tracks)
POST /_control/reset     {"tokens": false}  forget failures, config changes, users, connections,
                         uploads, Spotify players, Spark contacts; "tokens": true also forgets
                         every token and code.
POST /_control/fail      {"service": "soundcloud" | "spotify" | "spark",
                          "host": "api" (default) | soundcloud "auth" | "cdn" | spotify
                                  "accounts" | "cdn" | "swap" | spark "auth" | "any",
                          "status": 400..599 (default 429; with spark_code 1550 503, with
                                  another spark_code 401),
                          "count": N (default 1),
                          "retry_after": S (Retry-After header; default 1 for 429 and 503),
                          "path": PREFIX (only requests whose path, percent-decoded and
                                  without the query, starts with it; e.g.
                                  "/tracks/soundcloud:tracks:2000001/streams", "/v1/me/player"),
                          "method": "GET" ..., "message": TEXT (overrides the message),
                          "spark_code": N (Spark's Code)}
  -> {"ok": true, "pending": failures still queued}. The next COUNT matching requests get that
  service's error (shapes above) before anything else is checked; then things work again.
  Failures are matched in the order they were added.
POST /_control/expire-tokens  {"service", "kind": "access" (default) | "refresh" | "all", "user"?}
  the service's current tokens expire now (refresh tokens: dead); with "user", only the tokens
  issued to that stub user. -> {"ok": true, "changed": N}
POST /_control/revoke-tokens  {"service", "kind": "refresh" (default) | "access" | "all", "user"?}
  revoked: refresh gives invalid_grant (Spotify: "Refresh token revoked"), API calls 401.
POST /_control/config  {"service", "expires_in": S (tokens issued from now on), "cdn_expiry": S
  (soundcloud only: URLs signed from now on), "numeric_ids": true | false (soundcloud only:
  track and user objects carry the deprecated numeric "id" and "user_id" besides "urn"; false
  by default, today's OpenAPI shape)} -> {"ok": true, "changed": {...}}

=================================================================================================
The request log (--log): one JSON object per line, written when the response is over
=================================================================================================
  {"time": arrival (Unix s), "service": "soundcloud" | "spotify" | "spark" | "control",
   "host": the listener ("auth", "api", "cdn", "accounts", "swap", "control"),
   "method", "path" (percent-decoded, no query), "query": {NAME: VALUE or [VALUES]},
   "auth": the Authorization scheme ("OAuth", "Bearer", "Basic") or null - never the
   credentials, "headers": {those sent of X-SparkApi-User-Agent, User-Agent, Range,
   Content-Type, Accept}, "status": the HTTP status,
   and, where they apply:
   "token_status": "valid" | "expired" | "revoked" | "unknown" | "missing" | "wrong_scheme" |
   "app_token_on_user_endpoint",
   "user": the signed-in stub user, "grant_type", "client_auth": "basic" | "body" | "public" |
   "swap-service", "form": {the form body}, "json": {the JSON body}, "upload": {the upload
   record}, "location": the redirect target, "rendition": the SoundCloud stream key,
   "expires_in": seconds a CDN URL had left, "player": the Spotify queue/position set,
   "sent": body bytes of a file, "connection_service", "error": why it failed (e.g.
   "Authorization header sent to the CDN", "signed URL expired", "token expired", "injected
   429"), "injected": true for /_control/fail answers, "client_closed": true}
  Secrets never reach the log: the values of code, client_secret, refresh_token, access_token,
  code_verifier, token, oauth_token, password, Signature, openid.spark.code, openid.sig,
  openid.assoc_handle and openid.response_nonce read "[redacted]" wherever they appear (query,
  form, JSON, redirect target); Authorization values are never logged.

=================================================================================================
Where the stand-ins differ from the real services (on purpose)
=================================================================================================
- Plain HTTP on 127.0.0.1, one port per host; fixed credentials; no pre-registered redirect
  URIs; no login or consent page (auto-approval, stub_user / stub_product / stub_deny).
- SoundCloud removed http_mp3_128_url, hls_mp3_128_url (and hls_opus_64_url) on 2025-11-15;
  today's tracks stream hls_aac_160_url (+ hls_aac_96_url) and preview_mp3_128_url. The stubs
  keep the MP3 keys on 1001 (the player decodes MP3 only); track 1002 is today's AAC-only case.
  Real stream URLs look like /tracks/URN/streams/UUID/...; treat them as opaque.
- SoundCloud's token endpoint answers {"error": E}; the stubs add error_description. SoundCloud
  documents reset_time for 429, not Retry-After; the stubs send both. Only the "OAuth" scheme is
  accepted on api.soundcloud.com (the documented one). A client-credentials token on a /me
  endpoint (and on an upload) gets 401, the status the OpenAPI lists; the message is the stubs'.
  The OpenAPI's examples show null for some members its schemas do not mark nullable
  (description, website, secret_uri, ...); the stubs follow the schemas and leave them out.
  The encrypted playlists' segments are not actually encrypted (no client may play them).
- /me/connections (GET, POST) and the connect page are the upload & share guide's; today's
  public API no longer documents them.
- Upload validation is stricter than SoundCloud's: unknown track[...] fields, e-mails on public
  tracks, connections on private ones, foursquare without a venue tag, non-audio files are
  errors here (to catch client mistakes); SoundCloud would accept or ignore some of them.
- The CDN's signing is CloudFront-like (Expires, Signature, Key-Pair-Id) but an HMAC of the
  stubs; Expires may carry milliseconds so that sub-second lifetimes work. The refusal of an
  Authorization header copies S3/CloudFront's "Only one auth mechanism allowed".
- Spotify gives preview_url null for apps created since November 2024; the stubs keep one
  track with a preview. Messages for an unknown track id (404) and for a client-credentials
  token on /me (403) are approximations. Refresh tokens' 6-month lifetime is not modelled. The
  player is a simulation (no context_uri, no shuffle/repeat/queue endpoints).
- Spark's grant endpoint errors are not documented; the stubs answer OAuth-shaped
  {"error", "error_description"}. POST /v1/contacts answers 201. _filter is not evaluated.
  OpenID 2.0 assertions are not verifiable (no check_authentication). Spark's OpenID Connect
  token endpoint answers here with token_type "Bearer" and an ID token whose claims are the
  standard ones (Spark adds real-estate claims such as MemberMlsId); the docs show a JSON body,
  the stand-in takes a form too.
"""

import argparse
import base64
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import signal
import sys
import threading
import time
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import service_stubs_spark  # Spark's OpenID Connect provider and rate limit (scripts/)

# -- constants and fixtures --------------------------------------------------------------------

CHUNK = 64 * 1024
MAX_BODY = 64 * 1024 * 1024
CODE_LIFETIME = 600.0  # seconds an authorization code stays usable
CODE_RE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
INT_RE = re.compile(r"^\d{1,12}$")
EMAIL_RE = re.compile(r"^[^@\s\"<>]+@[^@\s\"<>]+\.[A-Za-z]{2,}$")
RANGE_RE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$", re.IGNORECASE)
SPOTIFY_ID_RE = re.compile(r"^[0-9A-Za-z]{22}$")
SOUNDCLOUD_LINK = "https://developers.soundcloud.com/docs/api/explorer/open-api"
SOUNDCLOUD_RATE_LINK = "https://developers.soundcloud.com/docs/api/rate-limits#errors"

CLIENTS = {
    "soundcloud": ("sc-test-client", "sc-test-secret"),
    "spotify": ("sp-test-client", "sp-test-secret"),
    "spark": ("spark-test-client", "spark-test-secret"),
}
# A second Spotify app, registered in Development Mode (every app made in Spotify's dashboard
# is, until Spotify grants it extended quota mode): the February 2026 rules apply to its tokens.
# CLIENTS["spotify"] stands for an app in extended quota mode, which the rules leave alone.
SP_DEV_APP = ("sp-dev-client", "sp-dev-secret")
DEFAULT_EXPIRES_IN = {"soundcloud": 3599.0, "spotify": 3600.0, "spark": 86400.0}
DEFAULT_USER = "streamplay-tester"

CONTENT_TYPES = {
    ".mp3": "audio/mpeg",
    ".aac": "audio/aac",
    ".m3u8": "application/vnd.apple.mpegurl",
    ".ts": "video/mp2t",
}

# Query/form/JSON keys whose values never reach the log (compared lower-case).
SECRET_KEYS = {
    "code",
    "client_secret",
    "refresh_token",
    "access_token",
    "code_verifier",
    "token",
    "oauth_token",
    "password",
    "signature",
    "openid.spark.code",
    "openid.sig",
    "openid.assoc_handle",
    "openid.response_nonce",
}
LOGGED_HEADERS = ("X-SparkApi-User-Agent", "User-Agent", "Range", "Content-Type", "Accept")

# SoundCloud ---------------------------------------------------------------------------------
SC_RENDITIONS = {
    # key in /streams -> (path segment, CDN file name, kind)
    "http_mp3_128_url": ("http_mp3_128", "stream.mp3", "progressive"),
    "hls_mp3_128_url": ("hls_mp3_128", "playlist.m3u8", "hls"),
    "hls_aac_160_url": ("hls_aac_160", "playlist.m3u8", "hls"),
    "preview_mp3_128_url": ("preview_mp3_128", "preview.mp3", "progressive"),
    # DRM-encrypted HLS (Widevine CENC, FairPlay cbcs): keys without "_url", not in the OpenAPI's
    # Streams schema (which allows members it does not list).
    "ctr-encrypted-hls": ("ctr-encrypted-hls", "playlist.m3u8", "hls"),
    "cbc-encrypted-hls": ("cbc-encrypted-hls", "playlist.m3u8", "hls"),
}
# The key of an encrypted playlist (a FairPlay or Widevine key server URI, never fetched).
SC_DRM_KEYS = {
    "SAMPLE-AES": 'METHOD=SAMPLE-AES,URI="skd://stub-fairplay-key",'
    'KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"',
    "SAMPLE-AES-CTR": 'METHOD=SAMPLE-AES-CTR,URI="data:text/plain;base64,AAAAAA==",'
    'KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed",KEYFORMATVERSIONS="1"',
}
SC_RENDITION_BY_SEGMENT = {v[0]: k for k, v in SC_RENDITIONS.items()}
SC_FULL = ["http_mp3_128_url", "hls_mp3_128_url", "hls_aac_160_url", "preview_mp3_128_url"]
SC_TRACKS = {
    # id: (permalink, title, access, renditions)
    1001: ("full-track", "Full Track", "playable", SC_FULL),
    1002: ("aac-only", "AAC Only", "playable", ["hls_aac_160_url"]),
    1003: ("preview-only", "Preview Only", "preview", ["preview_mp3_128_url"]),
    1004: ("snippet-hls", "Snippet HLS", "playable", ["hls_aac_160_url"]),
    1005: (
        "encrypted-only",
        "Encrypted Only",
        "playable",
        ["ctr-encrypted-hls", "cbc-encrypted-hls"],
    ),
    1006: ("snippet-mp3", "Snippet MP3", "playable", ["http_mp3_128_url"]),
    1007: ("sample-aes", "Sample AES", "playable", ["hls_aac_160_url"]),
}
# What the fixtures above serve beyond their renditions: "duration" (ms, the track's claim),
# "snippet" (the full-track renditions serve a 30-second snippet: HLS a playlist far shorter
# than the duration, progressive from a /preview/ CDN path), "key_method" (every HLS playlist
# of the track carries this EXT-X-KEY: DRM; the encrypted renditions always carry theirs:
# SAMPLE-AES-CTR for ctr-encrypted-hls, SAMPLE-AES for cbc-encrypted-hls).
SC_TRACK_EXTRAS = {
    1004: {"duration": 240000, "snippet": True},
    1005: {"duration": 24000},
    1006: {"duration": 240000, "snippet": True},
    1007: {"duration": 24000, "key_method": "SAMPLE-AES"},
}
SC_ENCRYPTED_METHODS = {"ctr-encrypted-hls": "SAMPLE-AES-CTR", "cbc-encrypted-hls": "SAMPLE-AES"}
# Members of the OpenAPI's Track, User, Me and Playlist schemas that may be null (all others
# are left out rather than sent as null; the schemas require no member).
SC_NULLABLE = {
    "access",
    "download_url",
    "locale",
    "upload_seconds_left",
    "tracks_uri",
    "tags",
    "label",
}
SC_PLAYLISTS = {
    # id: (permalink, title, track ids)
    5001: ("stub-set", "Stub Set", [1001, 1002]),
}
SC_SYNTHETIC = range(2000000, 3000000)
SC_UPLOAD_FIRST_ID = 3000001
SC_ARTIST_ID = 100002
SC_ARTIST = "stub-artist"
SC_SHORT_LINKS = {"stubFull1": 1001, "stubAac1": 1002, "stubPreview1": 1003}
SC_CONNECTION_SERVICES = ("twitter", "facebook_profile", "foursquare", "tumblr", "myspace")
SC_TRACK_TYPES = {
    "original",
    "remix",
    "live",
    "recording",
    "spoken",
    "podcast",
    "demo",
    "in progress",
    "stem",
    "loop",
    "sound effect",
    "sample",
    "other",
}
SC_LICENSES = {
    "no-rights-reserved",
    "all-rights-reserved",
    "cc-by",
    "cc-by-nc",
    "cc-by-nd",
    "cc-by-sa",
    "cc-by-nc-nd",
    "cc-by-nc-sa",
}
SC_UPLOAD_SCALARS = {
    "track[title]",
    "track[sharing]",
    "track[tag_list]",
    "track[type]",
    "track[description]",
    "track[genre]",
    "track[permalink]",
    "track[sharing_note]",
    "track[license]",
    "track[downloadable]",
    "track[streamable]",
    "track[commentable]",
    "track[embeddable_by]",
    "track[release_date]",
    "track[label_name]",
    "track[isrc]",
    "track[purchase_url]",
}
SC_UPLOAD_LISTS = {
    "track[post_to][][id]",
    "track[post_to][]",
    "track[shared_to][emails][][address]",
}
SC_UPLOAD_FILES = {"track[asset_data]", "track[artwork_data]"}

# Spotify ------------------------------------------------------------------------------------
SP_ARTIST_ID = "0StrmPlyStubArtist0001"
SP_ALBUM_ID = "0StrmPlyStubAlbum00001"
SP_TRACKS = {
    # id: (name, duration_ms, has preview)
    "0StrmPlyPreviewTrack01": ("Preview Track", 30000, True),
    "0StrmPlyNoPreviewTrk01": ("No Preview Track", 45000, False),
}
SP_DEVICES = [
    ("d" + "0" * 38 + "1", "StreamPlay Test Computer", "Computer"),
    ("d" + "0" * 38 + "2", "StreamPlay Test Speaker", "Speaker"),
]
# Web API paths (under /v1) that Development Mode apps can no longer use: (pattern, methods,
# status). 2024-11-27 ("Changes to the Web API"): Related Artists, Recommendations, Audio
# Features/Analysis, featured and category playlists; answered 404 as users report. February
# 2026 migration guide: artists' top tracks, other users' profiles and playlists, playlist
# /tracks (now /items), several items by ids, browse, and the type-specific library endpoints
# (now PUT/DELETE /me/library); answered 403 Forbidden as users report.
SP_DEV_REMOVED = [
    (re.compile(r"^/recommendations$"), None, 404),
    (re.compile(r"^/artists/[^/]+/related-artists$"), None, 404),
    (re.compile(r"^/audio-features(/[^/]+)?$"), None, 403),
    (re.compile(r"^/audio-analysis/[^/]+$"), None, 403),
    (re.compile(r"^/browse/featured-playlists$"), None, 404),
    (re.compile(r"^/browse/categories/[^/]+/playlists$"), None, 404),
    (re.compile(r"^/browse(/.*)?$"), None, 403),
    (re.compile(r"^/artists/[^/]+/top-tracks$"), None, 403),
    (re.compile(r"^/users/[^/]+(/playlists)?$"), None, 403),
    (re.compile(r"^/playlists/[^/]+/tracks$"), None, 403),
    (re.compile(r"^/(tracks|albums|artists)$"), None, 403),
    (re.compile(r"^/me/(tracks|albums|episodes|shows|audiobooks|following)$"), ("PUT", "DELETE"), 403),
    (re.compile(r"^/me/(tracks|albums|episodes|shows|audiobooks|following)/contains$"), None, 403),
]
# Search: (default limit, maximum limit) of apps in Development Mode since February 2026, and of
# the others (as before).
SP_SEARCH_LIMITS = {"development": (5, 10), "extended": (20, 50)}
SP_SEARCH_TYPES = ("album", "artist", "playlist", "track", "show", "episode", "audiobook")
SP_SCOPE_READ = "user-read-playback-state"
SP_SCOPE_MODIFY = "user-modify-playback-state"

# Spark --------------------------------------------------------------------------------------
SPARK_LISTINGS = [
    ("20060412165917817933000000", "101 Test Street", "Fargo", 225000, 3, 2),
    ("20060412165917817933000001", "202 Sample Avenue", "Moorhead", 319900, 4, 3),
    ("20060412165917817933000002", "303 Fixture Road", "West Fargo", 149500, 2, 1),
]
SPARK_CONTACT_FIRST = 20110101000000000000000001
SPARK_OPENID_NS = "http://specs.openid.net/auth/2.0"
SPARK_AX = {
    "http://openid.net/schema/contact/internet/email": lambda u: u["email"],
    "http://axschema.org/contact/email": lambda u: u["email"],
    "http://openid.net/schema/namePerson/first": lambda u: u["first"],
    "http://axschema.org/namePerson/first": lambda u: u["first"],
    "http://openid.net/schema/namePerson/last": lambda u: u["last"],
    "http://axschema.org/namePerson/last": lambda u: u["last"],
    "http://openid.net/schema/namePerson/friendly": lambda u: u["name"],
    "http://axschema.org/namePerson/friendly": lambda u: u["name"],
    "http://openid.net/schema/namePerson": lambda u: u["first"] + " " + u["last"],
    "http://axschema.org/namePerson": lambda u: u["first"] + " " + u["last"],
}


class HttpError(Exception):
    """Raised by handlers to answer with a prepared response."""

    def __init__(
        self, status, body, ctype="application/json; charset=utf-8", headers=(), note=None
    ):
        super().__init__(note or str(status))
        self.status = status
        self.body = body
        self.ctype = ctype
        self.headers = list(headers)
        self.note = note


class ClientGone(Exception):
    pass


# -- small helpers -----------------------------------------------------------------------------


def now():
    return time.time()


def token(prefix):
    return prefix + secrets.token_urlsafe(24)


def jdump(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def sc_time(t):
    return time.strftime("%Y/%m/%d %H:%M:%S +0000", time.gmtime(t))


def iso_time(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def b64url_sha256(text):
    digest = hashlib.sha256(text.encode("ascii", "replace")).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def redact_value(key, value):
    return "[redacted]" if key.lower() in SECRET_KEYS else value


def redact_pairs(pairs):
    """[(k, v)] -> {k: v or [v, ...]} with secret values replaced."""
    out = {}
    for k, v in pairs:
        v = redact_value(k, v)
        if k in out:
            if not isinstance(out[k], list):
                out[k] = [out[k]]
            out[k].append(v)
        else:
            out[k] = v
    return out


def redact_json(obj):
    if isinstance(obj, dict):
        return {
            k: ("[redacted]" if k.lower() in SECRET_KEYS else redact_json(v))
            for k, v in obj.items()
        }
    if isinstance(obj, list):
        return [redact_json(v) for v in obj]
    return obj


def redact_url(url):
    parts = urllib.parse.urlsplit(url)
    if not parts.query:
        return url
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    query = urllib.parse.urlencode([(k, redact_value(k, v)) for k, v in pairs])
    return urllib.parse.urlunsplit(parts._replace(query=query))


def sc_without_nulls(obj):
    """obj without the null members the OpenAPI does not mark nullable (SC_NULLABLE)."""
    return {k: v for k, v in obj.items() if v is not None or k in SC_NULLABLE}


def add_query(url, params):
    """url with params appended to its query (the fragment kept)."""
    parts = urllib.parse.urlsplit(url)
    extra = urllib.parse.urlencode(params)
    query = parts.query + ("&" if parts.query and extra else "") + extra
    return urllib.parse.urlunsplit(parts._replace(query=query))


def parse_range(header, total):
    """None: no usable Range (serve 200); "416": unsatisfiable; else (start, end inclusive)."""
    if header is None:
        return None
    m = RANGE_RE.match(header)
    if not m:
        return None
    a, b = m.group(1), m.group(2)
    if a == "" and b == "":
        return None
    if a == "":
        n = int(b)
        if n == 0 or total == 0:
            return "416"
        return (max(0, total - n), total - 1)
    start = int(a)
    end = int(b) if b != "" else total - 1
    if b != "" and end < start:
        return None
    if start >= total:
        return "416"
    return (start, min(end, total - 1))


def parse_multipart(body, ctype):
    """[(name, filename or None, content_type or None, bytes)] or raises ValueError."""
    m = re.search(r'boundary="?([^";]+)"?', ctype or "", re.IGNORECASE)
    if not m:
        raise ValueError("multipart body without a boundary")
    boundary = b"--" + m.group(1).encode()
    if not body.startswith(boundary):
        # a preamble is allowed
        pos = body.find(b"\r\n" + boundary)
        if pos < 0:
            raise ValueError("multipart boundary not found")
        body = body[pos + 2 :]
    parts = []
    chunks = body.split(b"\r\n" + boundary)
    first = chunks[0][len(boundary) :]
    chunks = [first] + chunks[1:]
    closed = False
    for chunk in chunks:
        if chunk.startswith(b"--"):
            closed = True
            break
        if chunk.startswith(b"\r\n"):
            chunk = chunk[2:]
        head, sep, data = chunk.partition(b"\r\n\r\n")
        if not sep:
            raise ValueError("multipart part without a header block")
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        disp = headers.get("content-disposition", "")
        nm = re.search(r'(?:^|;)\s*name="((?:[^"\\]|\\.)*)"', disp)
        if not nm:
            nm = re.search(r"(?:^|;)\s*name=([^;\s]+)", disp)
        if not nm:
            raise ValueError("multipart part without a name")
        fn = re.search(r'(?:^|;)\s*filename="((?:[^"\\]|\\.)*)"', disp)
        filename = fn.group(1) if fn else None
        parts.append((nm.group(1), filename, headers.get("content-type"), data))
    if not closed:
        raise ValueError("multipart body not terminated")
    return parts


def split_tags(tag_list):
    """SoundCloud tag_list -> [tags]; double quotes group words. ValueError on an open quote."""
    tags, cur, quoted, i = [], [], False, 0
    had = False
    while i < len(tag_list):
        c = tag_list[i]
        if c == '"':
            quoted = not quoted
            had = True
        elif c.isspace() and not quoted:
            if cur or had:
                tags.append("".join(cur))
            cur, had = [], False
        else:
            cur.append(c)
        i += 1
    if quoted:
        raise ValueError("unbalanced double quote")
    if cur or had:
        tags.append("".join(cur))
    return [t for t in tags if t != ""]


MACHINE_TAG_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*):([A-Za-z][A-Za-z0-9_]*)=(.+)$", re.DOTALL)


def media_duration_ms(path):
    """Duration from NAME.info (rate=, samples=) next to the file, else size at 128 kbit/s."""
    try:
        info = {}
        with open(path + ".info", encoding="utf-8") as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                info[k] = v
        return int(int(info["samples"]) * 1000 / int(info["rate"]))
    except (OSError, KeyError, ValueError, ZeroDivisionError):
        try:
            return int(os.path.getsize(path) * 8 / 128)
        except OSError:
            return 0


def process_gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state == "Z"
    except (OSError, IndexError):
        return False


# -- shared state ------------------------------------------------------------------------------


class State:
    def __init__(self, args):
        self.lock = threading.RLock()
        self.args = args
        self.media = os.path.realpath(args.media)
        self.secret = secrets.token_bytes(32)
        self.log = open(args.log, "a", encoding="utf-8") if args.log else None
        self.urls = {}
        self.started = now()
        self.initial_expires_in = dict(DEFAULT_EXPIRES_IN)
        for item in args.expires_in or []:
            if "=" in item:
                svc, _, val = item.partition("=")
                if svc not in DEFAULT_EXPIRES_IN:
                    raise SystemExit("service-stubs: --expires-in: unknown service %r" % svc)
                self.initial_expires_in[svc] = float(val)
            else:
                for svc in self.initial_expires_in:
                    self.initial_expires_in[svc] = float(item)
        self.reset(tokens=True)

    def reset(self, tokens=False):
        with self.lock:
            self.expires_in = dict(self.initial_expires_in)
            self.cdn_expiry = float(self.args.cdn_expiry)
            self.sc_numeric_ids = False  # today's OpenAPI: urn only
            self.faults = []
            if tokens:
                self.tokens = {}  # token -> record
                self.codes = {}  # code -> record
                self.swap_tokens = {}  # wrapped refresh token -> real refresh token
            self.sc_users = {}
            self.sc_connections = {}  # username -> [connection]
            self.sc_next_connection = 301
            self.sc_uploads = {}  # track id -> track record
            self.sc_next_upload = SC_UPLOAD_FIRST_ID
            self.sc_pending_connections = {}  # connect state -> (username, service, redirect_uri)
            self.sp_users = {}
            self.sp_players = {}
            self.spark_users = {}
            self.spark_contacts = {}
            self.spark_next_contact = SPARK_CONTACT_FIRST
            self.add_spark_contact("Jane Client", "jane.client@example.com", "Jane", "Client")

    # -- logging --
    def write_log(self, entry):
        if self.log is None:
            return
        line = json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n"
        with self.lock:
            self.log.write(line)
            self.log.flush()

    # -- faults --
    def add_fault(self, spec):
        with self.lock:
            self.faults.append(spec)
            return sum(f["count"] for f in self.faults)

    def take_fault(self, service, role, method, path):
        with self.lock:
            for f in self.faults:
                if f["service"] != service:
                    continue
                if f["role"] != "any" and f["role"] != role:
                    continue
                if f.get("method") and f["method"] != method:
                    continue
                if f.get("path") and not path.startswith(f["path"]):
                    continue
                f["count"] -= 1
                if f["count"] <= 0:
                    self.faults.remove(f)
                return dict(f)
        return None

    # -- tokens --
    def issue(self, service, kind, **fields):
        value = token({"access": "at_", "refresh": "rt_"}[kind] + service[:2] + "_")
        rec = {"service": service, "kind": kind, "issued": now(), "revoked": False}
        if kind == "access":
            rec["expires"] = now() + self.expires_in[service]
        rec.update(fields)
        with self.lock:
            self.tokens[value] = rec
        return value

    def lookup(self, service, kind, value):
        """(status, record): status in valid, expired, revoked, unknown, missing."""
        if not value:
            return "missing", None
        with self.lock:
            rec = self.tokens.get(value)
            if rec is None or rec["service"] != service or rec["kind"] != kind:
                return "unknown", None
            if rec["revoked"]:
                return "revoked", rec
            if kind == "access" and now() >= rec["expires"]:
                return "expired", rec
            return "valid", rec

    def revoke(self, value):
        with self.lock:
            rec = self.tokens.get(value)
            if rec is not None:
                rec["revoked"] = True

    def mass_token_change(self, service, kind, action, user=None):
        """Expires or revokes `service`'s current tokens of `kind`; with `user`, only that
        user's (suites that run at the same time keep theirs)."""
        n = 0
        with self.lock:
            for rec in self.tokens.values():
                if rec["service"] != service or (kind != "all" and rec["kind"] != kind):
                    continue
                if user is not None and rec.get("user") != user:
                    continue
                if rec["revoked"]:
                    continue
                if action == "revoke":
                    rec["revoked"] = True
                elif rec["kind"] == "access":
                    rec["expires"] = min(rec["expires"], now())
                else:
                    rec["revoked"] = True  # an expired refresh token is a dead one
                n += 1
        return n

    def new_code(self, service, **fields):
        value = token("ac_" + service[:2] + "_")
        rec = {"service": service, "expires": now() + CODE_LIFETIME, "used": False}
        rec.update(fields)
        with self.lock:
            self.codes[value] = rec
        return value

    def take_code(self, service, value):
        """The code record (now used up), or None with a reason string."""
        with self.lock:
            rec = self.codes.get(value or "")
            if rec is None or rec["service"] != service:
                return None, "unknown code"
            if rec["used"]:
                return None, "code already used"
            if now() >= rec["expires"]:
                return None, "code expired"
            rec["used"] = True
            return rec, None

    # -- signed CDN URLs (SoundCloud) --
    def sign(self, path, expires):
        msg = ("%s\n%s" % (path, expires)).encode()
        return hmac.new(self.secret, msg, hashlib.sha256).hexdigest()[:40]

    def signed_url(self, base, path):
        with self.lock:
            lifetime = self.cdn_expiry
        expires = "%.3f" % (now() + lifetime)
        return "%s%s?%s" % (
            base,
            path,
            urllib.parse.urlencode(
                [
                    ("Expires", expires),
                    ("Signature", self.sign(path, expires)),
                    ("Key-Pair-Id", "APKASTUBKEY0001"),
                ]
            ),
        )

    # -- users --
    def sc_user(self, name):
        with self.lock:
            u = self.sc_users.get(name)
            if u is None:
                uid = 100001 if name == DEFAULT_USER else 100100 + len(self.sc_users) + 1
                u = {"id": uid, "username": name}
                self.sc_users[name] = u
                self.sc_connections[name] = [
                    self._sc_connection("twitter", "@" + name, True),
                    self._sc_connection("facebook_profile", "StreamPlay Tester", True),
                    self._sc_connection("foursquare", "StreamPlay Tester", False),
                    self._sc_connection("tumblr", name + ".tumblr.com", False),
                ]
            return u

    def _sc_connection(self, service, display, post_publish):
        cid = self.sc_next_connection
        self.sc_next_connection += 1
        return {
            "id": cid,
            "kind": "connection",
            "created_at": sc_time(self.started),
            "display_name": display,
            "post_publish": post_publish,
            "post_favorite": False,
            "service": service,
            "type": service,
            "uri": "%s/connections/%d" % (self.urls["soundcloud"]["api_url"], cid),
        }

    def sc_user_by_id(self, uid):
        with self.lock:
            if uid == SC_ARTIST_ID:
                return {"id": SC_ARTIST_ID, "username": SC_ARTIST}
            for u in self.sc_users.values():
                if u["id"] == uid:
                    return u
        if uid == 100001:
            return self.sc_user(DEFAULT_USER)
        return None

    def sp_user(self, name, product=None):
        with self.lock:
            u = self.sp_users.get(name)
            if u is None:
                u = {
                    "id": re.sub(r"[^a-z0-9]", "", name.lower()) or "user",
                    "name": name,
                    "product": "premium",
                }
                self.sp_users[name] = u
            if product:
                u["product"] = product
            return u

    def sp_player(self, name):
        with self.lock:
            p = self.sp_players.get(name)
            if p is None:
                p = {
                    "active": None,
                    "volume": {d[0]: 80 for d in SP_DEVICES},
                    "queue": [],
                    "index": 0,
                    "playing": False,
                    "base_ms": 0,
                    "since": now(),
                }
                self.sp_players[name] = p
            return p

    def spark_user(self, name):
        with self.lock:
            u = self.spark_users.get(name)
            if u is None:
                n = len(self.spark_users)
                first, _, last = (name.replace("-", " ").title() + " User").partition(" ")
                if name == DEFAULT_USER:
                    first, last = "StreamPlay", "Tester"
                u = {
                    "id": "2000042617305434235%07d" % n,
                    "name": name,
                    "first": first,
                    "last": last.strip() or "User",
                    "email": "%s@example.com" % name,
                }
                self.spark_users[name] = u
            return u

    def add_spark_contact(self, display, email, given, family):
        cid = str(self.spark_next_contact)
        self.spark_next_contact += 1
        self.spark_contacts[cid] = {
            "Id": cid,
            "ResourceUri": "/v1/contacts/" + cid,
            "DisplayName": display,
            "GivenName": given,
            "FamilyName": family,
            "PrimaryEmail": email,
            "Tags": [],
            "ModificationTimestamp": iso_time(now()),
        }
        return cid


# -- the request handler -----------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "StreamPlayServiceStub/1"
    sys_version = ""

    def log_message(self, format, *args):
        pass

    def log_error(self, format, *args):
        sys.stderr.write("service-stubs: %s - %s\n" % (self.address_string(), format % args))

    @property
    def state(self):
        return self.server.state

    @property
    def service(self):
        return self.server.service

    @property
    def role(self):
        return self.server.role

    # -- entry --

    def do_GET(self):
        self.handle_request()

    do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def handle_request(self):
        raw = self.path
        if not raw.startswith("/"):
            parts = urllib.parse.urlsplit(raw)
            raw = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        path, _, query = raw.partition("?")
        self.req_path = urllib.parse.unquote(path)
        self.req_query_raw = query
        self.req_qs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        self.is_head = self.command == "HEAD"
        auth = self.headers.get("Authorization")
        scheme = auth.split(None, 1)[0] if auth and auth.strip() else None
        self.entry = {
            "time": round(now(), 3),
            "service": "control" if self.req_path.startswith("/_control/") else self.service,
            "host": self.role,
            "method": self.command,
            "path": self.req_path,
            "query": redact_pairs(self.req_qs),
            "auth": scheme,
            "headers": {
                h: self.headers[h] for h in LOGGED_HEADERS if self.headers.get(h) is not None
            },
            "status": None,
        }
        try:
            try:
                self.body = self.read_body()
                if self.entry["service"] == "control":
                    self.route_control()
                else:
                    fault = self.state.take_fault(
                        self.service, self.role, self.command, self.req_path
                    )
                    if fault is not None:
                        self.entry["injected"] = True
                        self.inject(fault)
                    else:
                        getattr(self, "route_%s_%s" % (self.service, self.role))()
            except HttpError as e:
                if e.note:
                    self.entry["error"] = e.note
                self.respond(e.status, e.body, e.ctype, e.headers)
        except ClientGone:
            self.close_connection = True
            self.entry["client_closed"] = True
        except Exception as e:  # a bug in the stub: answer 500, log it
            self.entry["error"] = "stub bug: %r" % (e,)
            sys.stderr.write(
                "service-stubs: internal error on %s %s: %r\n" % (self.command, self.req_path, e)
            )
            try:
                self.respond(500, b"stub internal error\n", "text/plain")
            except Exception:
                self.close_connection = True
        finally:
            self.state.write_log(self.entry)

    def read_body(self):
        if (
            self.command in ("GET", "HEAD")
            and not self.headers.get("Content-Length")
            and not self.headers.get("Transfer-Encoding")
        ):
            return b""
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            parts, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                if not line:
                    raise ClientGone()
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while True:  # trailers
                        t = self.rfile.readline(8192)
                        if not t or t in (b"\r\n", b"\n"):
                            break
                    break
                total += size
                if total > MAX_BODY:
                    self.close_connection = True
                    raise HttpError(413, b"body too large\n", "text/plain")
                data = self.rfile.read(size)
                if len(data) < size:
                    raise ClientGone()
                parts.append(data)
                self.rfile.readline(8)
            return b"".join(parts)
        length = self.headers.get("Content-Length")
        if not length:
            return b""
        try:
            n = int(length)
        except ValueError:
            self.close_connection = True
            raise HttpError(400, b"bad Content-Length\n", "text/plain")
        if n > MAX_BODY:
            self.close_connection = True
            raise HttpError(413, b"body too large\n", "text/plain")
        data = self.rfile.read(n)
        if len(data) < n:
            raise ClientGone()
        return data

    # -- response helpers --

    def write(self, data):
        try:
            self.wfile.write(data)
        except OSError:
            raise ClientGone()

    def respond(self, status, body=b"", ctype=None, headers=()):
        if isinstance(body, str):
            body = body.encode()
        self.entry["status"] = status
        try:
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            if status not in (204, 304):
                if ctype:
                    self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
        except OSError:
            raise ClientGone()
        if status not in (204, 304) and body and not self.is_head:
            self.write(body)

    def json(self, status, obj, headers=()):
        self.respond(status, jdump(obj), "application/json; charset=utf-8", headers)

    def redirect(self, location, status=302, body=None, ctype="text/html; charset=utf-8"):
        self.entry["location"] = redact_url(location)
        if body is None:
            body = '<html><body>You are being <a href="%s">redirected</a>.</body></html>\n' % (
                location.replace("&", "&amp;").replace('"', "&quot;")
            )
        self.respond(status, body, ctype, [("Location", location)])

    def q(self, name, default=None):
        for k, v in self.req_qs:
            if k == name:
                return v
        return default

    def form(self):
        """The urlencoded body as [(k, v)] (logged without secrets)."""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            self.entry["form"] = None
            return None
        pairs = urllib.parse.parse_qsl(self.body.decode("utf-8", "replace"), keep_blank_values=True)
        self.entry["form"] = redact_pairs(pairs)
        return pairs

    def json_body(self):
        """The JSON body, or raises ValueError. Logged without secrets."""
        obj = json.loads(self.body.decode("utf-8"))
        self.entry["json"] = redact_json(obj)
        return obj

    def authorization(self):
        """(scheme, credentials) from the Authorization header, or (None, None)."""
        auth = (self.headers.get("Authorization") or "").strip()
        if not auth:
            return None, None
        scheme, _, value = auth.partition(" ")
        return scheme, value.strip()

    def basic_credentials(self):
        scheme, value = self.authorization()
        if not scheme or scheme.lower() != "basic":
            return None
        try:
            raw = base64.b64decode(value, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return ("", "")
        cid, _, sec = raw.partition(":")
        return (urllib.parse.unquote(cid), urllib.parse.unquote(sec))

    def html_error(self, status, text):
        body = (
            "<!DOCTYPE html><html><head><title>Error</title></head><body><p>%s</p></body></html>\n"
            % text
        )
        raise HttpError(status, body.encode(), "text/html; charset=utf-8", note=text)

    def serve_file(self, full, extra_headers=()):
        """A media file with single-range support; HEAD gives the headers only."""
        try:
            fd = os.open(full, os.O_RDONLY)
        except OSError:
            raise HttpError(404, b"not found\n", "text/plain", note="media file missing")
        try:
            total = os.fstat(fd).st_size
            r = parse_range(self.headers.get("Range"), total)
            ctype = CONTENT_TYPES.get(os.path.splitext(full)[1].lower(), "application/octet-stream")
            if r == "416":
                raise HttpError(
                    416,
                    b"range not satisfiable\n",
                    "text/plain",
                    [("Content-Range", "bytes */%d" % total)],
                )
            headers = [("Content-Type", ctype), ("Accept-Ranges", "bytes")] + list(extra_headers)
            if r is None:
                status, start, length = 200, 0, total
            else:
                status, start, length = 206, r[0], r[1] - r[0] + 1
                headers.append(("Content-Range", "bytes %d-%d/%d" % (r[0], r[1], total)))
            headers.append(("Content-Length", str(length)))
            self.entry["status"] = status
            try:
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
            except OSError:
                raise ClientGone()
            if self.is_head:
                return
            sent = 0
            while sent < length:
                data = os.pread(fd, min(CHUNK, length - sent), start + sent)
                if not data:
                    break
                self.write(data)
                sent += len(data)
            self.entry["sent"] = sent
        finally:
            os.close(fd)

    def media_path(self, name):
        if not name:
            return None
        full = os.path.realpath(os.path.join(self.state.media, name))
        if not full.startswith(self.state.media + os.sep) or not os.path.isfile(full):
            return None
        return full

    # -- fault injection --

    def inject(self, f):
        status = f["status"]
        retry = f.get("retry_after")
        headers = [("Retry-After", str(retry))] if retry is not None else []
        msg = f.get("message")
        phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
        self.entry["error"] = "injected %d" % status
        svc, role = self.service, self.role
        if role == "cdn":
            raise HttpError(
                status,
                (
                    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code>'
                    "<Message>%s</Message></Error>\n" % (phrase.replace(" ", ""), msg or phrase)
                ).encode(),
                "application/xml",
                headers,
            )
        if svc == "soundcloud":
            if role == "api":
                if status == 429:
                    reset = now() + (retry if retry is not None else 1)
                    body = {
                        "errors": [
                            {
                                "meta": {
                                    "rate_limit": {
                                        "group": "plays",
                                        "max_nr_of_requests": 15000,
                                        "time_window": "PT24H",
                                    },
                                    "remaining_requests": 0,
                                    "reset_time": sc_time(math.ceil(reset)),
                                }
                            }
                        ]
                    }
                    raise HttpError(429, jdump(body), headers=headers)
                raise HttpError(
                    status, jdump(self.sc_error_body(status, msg or "")), headers=headers
                )
            raise HttpError(
                status,
                jdump(
                    {
                        "error": "temporarily_unavailable" if status >= 500 else "rate_limited",
                        "error_description": msg or phrase,
                    }
                ),
                headers=headers,
            )
        if svc == "spotify":
            if role == "api":
                raise HttpError(
                    status,
                    jdump(
                        {
                            "error": dict(
                                {
                                    "status": status,
                                    "message": msg
                                    or ("API rate limit exceeded" if status == 429 else phrase),
                                },
                                **({"reason": f["reason"]} if f.get("reason") else {}),
                            )
                        }
                    ),
                    headers=headers,
                )
            raise HttpError(
                status,
                jdump(
                    {
                        "error": "server_error" if status >= 500 else "too_many_requests",
                        "error_description": msg or phrase,
                    }
                ),
                headers=headers,
            )
        # spark
        if role == "api":
            code = f.get("spark_code")
            if code is None:
                code = {429: 1550, 503: 1510, 500: 1026, 401: 1020}.get(status, status)
            default = {
                1550: "Over rate limit",
                1510: "The API is temporarily unavailable.",
                1026: "An unexpected problem was encountered with the requested data.",
                1020: "Session token has expired",
                1000: "Invalid API key and/or request signed improperly",
            }
            raise HttpError(
                status,
                jdump(
                    {
                        "D": {
                            "Success": False,
                            "Code": code,
                            "Message": msg or default.get(code, phrase),
                        }
                    }
                ),
                headers=headers,
            )
        self.html_error(status, msg or phrase)

    # -- control ----------------------------------------------------------------------------

    def route_control(self):
        st = self.state
        p = self.req_path
        if service_stubs_spark.control(self):
            return
        if p == "/_control/urls" and self.command in ("GET", "HEAD"):
            return self.json(200, st.urls)
        if p == "/_control/uploads" and self.command in ("GET", "HEAD"):
            with st.lock:
                uploads = [u["upload"] for u in st.sc_uploads.values()]
            return self.json(200, uploads)
        known = (
            "/_control/reset",
            "/_control/fail",
            "/_control/expire-tokens",
            "/_control/revoke-tokens",
            "/_control/config",
        )
        if p not in known + ("/_control/urls", "/_control/uploads"):
            raise HttpError(404, jdump({"error": "unknown control request"}))
        if self.command != "POST":
            raise HttpError(405, jdump({"error": "wrong method for this control request"}))
        try:
            spec = self.json_body() if self.body.strip() else {}
        except ValueError:
            raise HttpError(400, jdump({"error": "body must be JSON"}))
        if not isinstance(spec, dict):
            raise HttpError(400, jdump({"error": "body must be a JSON object"}))

        def service():
            s = spec.get("service")
            if s not in CLIENTS:
                raise HttpError(
                    400, jdump({"error": "service must be soundcloud, spotify or spark"})
                )
            return s

        if p == "/_control/reset":
            st.reset(tokens=bool(spec.get("tokens")))
            return self.json(200, {"ok": True})
        if p == "/_control/fail":
            s = service()
            roles = {
                "soundcloud": ("auth", "api", "cdn"),
                "spotify": ("accounts", "api", "cdn", "swap"),
                "spark": ("auth", "api"),
            }[s]
            role = spec.get("host", "api")
            if role not in roles + ("any",):
                raise HttpError(
                    400, jdump({"error": "host must be one of %s or any" % ", ".join(roles)})
                )
            # Spark's rate limit, code 1550, comes with 503 (its error table); other codes 401.
            default = 429 if spec.get("spark_code") is None else 503 if spec["spark_code"] == 1550 else 401
            status = spec.get("status", default)
            count = spec.get("count", 1)
            if not isinstance(status, int) or not 400 <= status <= 599:
                raise HttpError(400, jdump({"error": "status must be an integer 400..599"}))
            if not isinstance(count, int) or count < 1:
                raise HttpError(400, jdump({"error": "count must be a positive integer"}))
            retry = spec.get("retry_after")
            if retry is None and status in (429, 503):
                retry = 1
            if retry is not None and (not isinstance(retry, int) or retry < 0):
                raise HttpError(400, jdump({"error": "retry_after must be a non-negative integer"}))
            fault = {
                "service": s,
                "role": role,
                "status": status,
                "count": count,
                "retry_after": retry,
                "path": spec.get("path"),
                "method": spec.get("method"),
                "message": spec.get("message"),
                "spark_code": spec.get("spark_code"),
                "reason": spec.get("reason"),
            }
            pending = st.add_fault(fault)
            return self.json(200, {"ok": True, "pending": pending})
        if p in ("/_control/expire-tokens", "/_control/revoke-tokens"):
            s = service()
            kind = spec.get("kind", "access" if p.endswith("expire-tokens") else "refresh")
            if kind not in ("access", "refresh", "all"):
                raise HttpError(400, jdump({"error": "kind must be access, refresh or all"}))
            user = spec.get("user")
            if user is not None and not isinstance(user, str):
                raise HttpError(400, jdump({"error": "user must be a string"}))
            n = st.mass_token_change(s, kind, "expire" if p.endswith("expire-tokens") else "revoke", user)
            return self.json(200, {"ok": True, "changed": n})
        if p == "/_control/config":
            s = service()
            changed = {}
            with st.lock:
                if "expires_in" in spec:
                    v = spec["expires_in"]
                    if not isinstance(v, (int, float)) or v < 0:
                        raise HttpError(400, jdump({"error": "expires_in must be a number >= 0"}))
                    st.expires_in[s] = float(v)
                    changed["expires_in"] = v
                if "cdn_expiry" in spec:
                    v = spec["cdn_expiry"]
                    if s != "soundcloud" or not isinstance(v, (int, float)) or v < 0:
                        raise HttpError(
                            400, jdump({"error": "cdn_expiry: soundcloud only, a number >= 0"})
                        )
                    st.cdn_expiry = float(v)
                    changed["cdn_expiry"] = v
                if "numeric_ids" in spec:
                    v = spec["numeric_ids"]
                    if s != "soundcloud" or not isinstance(v, bool):
                        raise HttpError(
                            400, jdump({"error": "numeric_ids: soundcloud only, true or false"})
                        )
                    st.sc_numeric_ids = v
                    changed["numeric_ids"] = v
            if not changed:
                raise HttpError(
                    400, jdump({"error": "nothing to change (expires_in, cdn_expiry, numeric_ids)"})
                )
            return self.json(200, {"ok": True, "changed": changed})
        raise HttpError(404, jdump({"error": "unknown control request"}))

    def route_control_control(self):
        raise HttpError(404, jdump({"error": "the control listener only answers /_control/ paths"}))

    # =========================================================================================
    # SoundCloud
    # =========================================================================================

    def sc_error_body(self, status, message):
        phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
        return {
            "code": status,
            "message": message,
            "link": SOUNDCLOUD_LINK,
            "status": "%d - %s" % (status, phrase),
            "errors": [],
            "error": None,
        }

    def sc_fail(self, status, message, note=None, errors=None, headers=()):
        body = self.sc_error_body(status, message)
        if errors is not None:
            body["errors"] = errors
        raise HttpError(status, jdump(body), headers=headers, note=note or message)

    def sc_oauth_error(self, status, error, description):
        raise HttpError(
            status,
            jdump({"error": error, "error_description": description}),
            note=error + ": " + description,
        )

    # -- secure.soundcloud.com --

    def route_soundcloud_auth(self):
        p = self.req_path
        if p == "/authorize" and self.command in ("GET", "HEAD"):
            return self.sc_authorize()
        if p == "/oauth/token":
            if self.command != "POST":
                raise HttpError(
                    405,
                    jdump({"error": "invalid_request", "error_description": "POST only"}),
                    headers=[("Allow", "POST")],
                )
            return self.sc_token()
        if p == "/sign-out" and self.command == "POST":
            return self.sc_sign_out()
        m = re.match(r"^/connect/via/([a-z_]+)$", p)
        if m and self.command in ("GET", "HEAD"):
            return self.sc_connect_via(m.group(1))
        self.html_error(404, "Not Found")

    def sc_authorize(self):
        st = self.state
        client_id = self.q("client_id")
        redirect_uri = self.q("redirect_uri")
        if client_id != CLIENTS["soundcloud"][0]:
            self.html_error(400, "invalid_client: unknown client_id")
        if not redirect_uri or not urllib.parse.urlsplit(redirect_uri).scheme:
            self.html_error(400, "invalid_request: redirect_uri missing or not absolute")
        state_param = self.q("state")

        def back(params):
            if state_param is not None:
                params.append(("state", state_param))
            self.redirect(add_query(redirect_uri, params))

        deny = self.q("stub_deny")
        if deny:
            self.entry["error"] = "denied by stub_deny"
            return back(
                [("error", deny), ("error_description", "The user denied the request (stub_deny)")]
            )
        if self.q("response_type") != "code":
            return back(
                [
                    ("error", "unsupported_response_type"),
                    ("error_description", "response_type must be code"),
                ]
            )
        challenge = self.q("code_challenge")
        method = self.q("code_challenge_method")
        if not challenge or method != "S256":
            return back(
                [
                    ("error", "invalid_request"),
                    (
                        "error_description",
                        "PKCE required: code_challenge and code_challenge_method=S256",
                    ),
                ]
            )
        user = self.q("stub_user") or DEFAULT_USER
        if not CODE_RE.match(user):
            self.html_error(400, "stub_user: 1 to 40 of [A-Za-z0-9_-]")
        st.sc_user(user)
        self.entry["user"] = user
        code = st.new_code(
            "soundcloud",
            client_id=client_id,
            redirect_uri=redirect_uri,
            challenge=challenge,
            user=user,
        )
        back([("code", code)])

    def sc_client(self, form):
        """Client authentication: Basic header or client_id + client_secret in the body."""
        basic = self.basic_credentials()
        if basic is not None:
            cid, sec = basic
            self.entry["client_auth"] = "basic"
        else:
            cid, sec = form.get("client_id"), form.get("client_secret")
            self.entry["client_auth"] = "body" if cid else None
        if cid != CLIENTS["soundcloud"][0] or sec != CLIENTS["soundcloud"][1]:
            self.sc_oauth_error(401, "invalid_client", "unknown client or wrong client secret")
        return cid

    def sc_token(self):
        st = self.state
        pairs = self.form()
        if pairs is None:
            self.sc_oauth_error(
                400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded"
            )
        form = dict(pairs)
        grant = form.get("grant_type")
        self.entry["grant_type"] = grant
        if grant not in ("authorization_code", "refresh_token", "client_credentials"):
            self.sc_oauth_error(
                400,
                "unsupported_grant_type",
                "grant_type must be authorization_code, refresh_token or client_credentials",
            )
        self.sc_client(form)
        if grant == "authorization_code":
            for k in ("code", "redirect_uri", "code_verifier"):
                if not form.get(k):
                    self.sc_oauth_error(400, "invalid_request", "%s is required" % k)
            rec, why = st.take_code("soundcloud", form["code"])
            if rec is None:
                self.sc_oauth_error(400, "invalid_grant", why)
            if rec["redirect_uri"] != form["redirect_uri"]:
                self.sc_oauth_error(
                    400, "invalid_grant", "redirect_uri does not match the authorization request"
                )
            if b64url_sha256(form["code_verifier"]) != rec["challenge"]:
                self.sc_oauth_error(
                    400, "invalid_grant", "code_verifier does not match code_challenge"
                )
            user, kind = rec["user"], "authorization_code"
        elif grant == "refresh_token":
            if not form.get("refresh_token"):
                self.sc_oauth_error(400, "invalid_request", "refresh_token is required")
            status, rec = st.lookup("soundcloud", "refresh", form["refresh_token"])
            self.entry["token_status"] = status
            if status != "valid":
                self.sc_oauth_error(
                    400,
                    "invalid_grant",
                    "refresh token is %s"
                    % ("already used or revoked" if status == "revoked" else status),
                )
            st.revoke(form["refresh_token"])  # single use: rotation
            user, kind = rec["user"], rec["grant"]
        else:
            user, kind = None, "client_credentials"
        self.entry["user"] = user
        access = st.issue("soundcloud", "access", user=user, grant=kind)
        refresh = st.issue("soundcloud", "refresh", user=user, grant=kind)
        self.json(
            200,
            {
                "access_token": access,
                "token_type": "bearer",
                "expires_in": int(st.expires_in["soundcloud"]),
                "refresh_token": refresh,
                "scope": "",
            },
        )

    def sc_sign_out(self):
        try:
            obj = self.json_body()
        except ValueError:
            self.sc_oauth_error(400, "invalid_request", 'body must be JSON {"access_token": ...}')
        value = obj.get("access_token") if isinstance(obj, dict) else None
        status, _ = self.state.lookup("soundcloud", "access", value)
        self.entry["token_status"] = status
        if status == "missing":
            self.sc_oauth_error(400, "invalid_request", "access_token is required")
        if status != "unknown":
            self.state.revoke(value)
        self.json(200, {})

    def sc_connect_via(self, service):
        st = self.state
        key = self.q("stub_connect")
        with st.lock:
            pending = st.sc_pending_connections.pop(key or "", None)
        if pending is None or pending[1] != service:
            self.html_error(400, "unknown or used connect request")
        user, _, redirect_uri = pending
        st.sc_user(user)
        with st.lock:
            conn = st._sc_connection(service, "%s on %s" % (user, service), True)
            st.sc_connections[user].append(conn)
        self.entry["user"] = user
        self.redirect(
            add_query(redirect_uri, [("service", service), ("connection_id", str(conn["id"]))])
        )

    # -- api.soundcloud.com --

    def sc_auth(self, need_user=False):
        """Checks Authorization: OAuth TOKEN; returns the token record."""
        scheme, value = self.authorization()
        if scheme is None:
            self.entry["token_status"] = "missing"
            self.sc_fail(401, "", note="no Authorization header")
        if scheme.lower() != "oauth":
            self.entry["token_status"] = "wrong_scheme"
            self.sc_fail(
                401,
                "Authorization scheme must be OAuth (Authorization: OAuth ACCESS_TOKEN)",
                note="scheme " + scheme,
            )
        status, rec = self.state.lookup("soundcloud", "access", value)
        self.entry["token_status"] = status
        if status != "valid":
            self.sc_fail(401, "", note="token " + status)
        self.entry["user"] = rec["user"]
        if need_user and rec["user"] is None:
            # The OpenAPI lists 401 (not 403) for the /me endpoints: they need a token of the
            # authorization_code flow, as the "me" tag says.
            self.entry["token_status"] = "app_token_on_user_endpoint"
            self.sc_fail(
                401,
                "This endpoint needs a user's token (authorization_code flow), "
                "not client credentials",
                note="client credentials token on a user endpoint",
            )
        return rec

    def sc_track_record(self, tid):
        """Fixture, synthetic or uploaded track record, or None."""
        st = self.state
        if tid in SC_TRACKS:
            permalink, title, access, rend = SC_TRACKS[tid]
            return {
                **SC_TRACK_EXTRAS.get(tid, {}),
                "id": tid,
                "permalink": permalink,
                "title": title,
                "access": access,
                "renditions": rend,
                "owner": SC_ARTIST_ID,
                "sharing": "public",
                "tag_list": "",
                "state": "finished",
                "created": st.started,
                "genre": "Test",
                "description": "StreamPlay stub track",
            }
        if tid in SC_SYNTHETIC:
            return {
                "id": tid,
                "permalink": "synthetic-%d" % tid,
                "title": "Synthetic Track %d" % tid,
                "access": "playable",
                "renditions": SC_FULL,
                "owner": SC_ARTIST_ID,
                "sharing": "public",
                "tag_list": "",
                "state": "finished",
                "created": st.started,
                "genre": "Test",
                "description": "StreamPlay stub track",
            }
        with st.lock:
            rec = st.sc_uploads.get(tid)
            return dict(rec) if rec else None

    def sc_parse_track_id(self, text):
        m = re.match(r"^(?:soundcloud:tracks:)?(\d{1,12})$", text)
        return int(m.group(1)) if m else None

    def sc_user_json(self, u):
        api = self.state.urls["soundcloud"]["api_url"]
        urn = "soundcloud:users:%d" % u["id"]
        out = {
            "kind": "user",
            "urn": urn,
            "username": u["username"],
            "permalink": u["username"],
            "permalink_url": "https://soundcloud.com/" + u["username"],
            "uri": "%s/users/%s" % (api, urn),
            "avatar_url": None,
            "city": "Berlin",
            "country": "Germany",
            "description": None,
            "full_name": "StreamPlay Tester" if u["username"] == DEFAULT_USER else u["username"],
            "first_name": "StreamPlay",
            "last_name": "Tester",
            "followers_count": 0,
            "followings_count": 0,
            "track_count": len(SC_TRACKS) if u["id"] == SC_ARTIST_ID else 0,
            "playlist_count": len(SC_PLAYLISTS) if u["id"] == SC_ARTIST_ID else 0,
            "public_favorites_count": 0,
            "likes_count": 0,
            "reposts_count": 0,
            "website": None,
            "website_title": None,
            "created_at": sc_time(self.state.started),
            "last_modified": sc_time(self.state.started),
        }
        if self.state.sc_numeric_ids:
            out["id"] = u["id"]
        return sc_without_nulls(out)

    def sc_track_json(self, rec, state_override=None):
        st = self.state
        api = st.urls["soundcloud"]["api_url"]
        urn = "soundcloud:tracks:%d" % rec["id"]
        owner = st.sc_user_by_id(rec["owner"]) or {"id": rec["owner"], "username": "unknown"}
        if rec.get("duration") is not None:
            duration = rec["duration"]
        elif "http_mp3_128_url" in rec["renditions"]:
            duration = media_duration_ms(os.path.join(st.media, st.args.track_file))
        elif rec["access"] == "preview":
            duration = 30000
        else:
            duration = 24000
        user = self.sc_user_json(owner)
        out = {
            "kind": "track",
            "urn": urn,
            "title": rec["title"],
            "permalink": rec["permalink"],
            "permalink_url": "https://soundcloud.com/%s/%s" % (owner["username"], rec["permalink"]),
            "uri": "%s/tracks/%s" % (api, urn),
            "stream_url": "%s/tracks/%s/stream" % (api, urn),
            "duration": duration,
            "access": rec["access"],
            "streamable": rec["access"] != "blocked",
            "downloadable": False,
            "download_url": None,
            "sharing": rec["sharing"],
            "tag_list": rec["tag_list"],
            "genre": rec.get("genre"),
            "description": rec.get("description"),
            "state": state_override or rec["state"],
            "created_at": sc_time(rec["created"]),
            "last_modified": sc_time(rec["created"]),
            "artwork_url": None,
            "waveform_url": None,
            "license": rec.get("license", "all-rights-reserved"),
            "embeddable_by": rec.get("embeddable_by", "all"),
            "track_type": rec.get("type"),
            "playback_count": 0,
            "favoritings_count": 0,
            "reposts_count": 0,
            "comment_count": 0,
            "commentable": True,
            "user": user,
            "secret_uri": None,
            "secret_token": None,
        }
        if st.sc_numeric_ids:
            out["id"] = rec["id"]
            out["user_id"] = owner["id"]
        return sc_without_nulls(out)

    def sc_set_json(self, pid, show_tracks=True):
        """Playlist PID (SC_PLAYLISTS) as the OpenAPI's Playlist schema has it."""
        st = self.state
        api = st.urls["soundcloud"]["api_url"]
        permalink, title, track_ids = SC_PLAYLISTS[pid]
        urn = "soundcloud:playlists:%d" % pid
        tracks = [self.sc_track_json(self.sc_track_record(t)) for t in track_ids]
        owner = st.sc_user_by_id(SC_ARTIST_ID)
        out = {
            "kind": "playlist",
            "urn": urn,
            "title": title,
            "permalink": permalink,
            "permalink_url": "https://soundcloud.com/%s/sets/%s" % (SC_ARTIST, permalink),
            "uri": "%s/playlists/%s" % (api, urn),
            "tracks_uri": "%s/playlists/%s/tracks" % (api, urn),
            "created_at": sc_time(st.started),
            "last_modified": sc_time(st.started),
            "description": "StreamPlay stub playlist",
            "downloadable": False,
            "duration": sum(t["duration"] for t in tracks),
            "embeddable_by": "all",
            "genre": "Test",
            "license": "all-rights-reserved",
            "playlist_type": "playlist",
            "type": "playlist",
            "sharing": "public",
            "streamable": True,
            "tag_list": "",
            "tags": None,
            "track_count": len(tracks),
            "likes_count": 0,
            "user": self.sc_user_json(owner),
            "user_urn": "soundcloud:users:%d" % SC_ARTIST_ID,
        }
        if show_tracks:
            out["tracks"] = tracks
        if st.sc_numeric_ids:
            out["id"] = pid
        return sc_without_nulls(out)

    def route_soundcloud_api(self):
        p = self.req_path
        cmd = self.command
        parts = p.split("/")[1:]
        if p == "/resolve" and cmd in ("GET", "HEAD"):
            self.sc_auth()
            return self.sc_resolve()
        if p == "/me" and cmd in ("GET", "HEAD"):
            rec = self.sc_auth(need_user=True)
            return self.sc_me(rec["user"])
        if p == "/me/connections":
            if cmd in ("GET", "HEAD"):
                rec = self.sc_auth(need_user=True)
                self.state.sc_user(rec["user"])
                with self.state.lock:
                    conns = list(self.state.sc_connections[rec["user"]])
                if self.q("linked_partitioning") in ("1", "true"):
                    return self.json(200, {"collection": conns, "next_href": None})
                return self.json(200, conns)
            if cmd == "POST":
                rec = self.sc_auth(need_user=True)
                return self.sc_new_connection(rec["user"])
            self.sc_fail(405, "Method Not Allowed")
        if p == "/tracks" and cmd == "POST":
            rec = self.sc_auth(need_user=True)
            return self.sc_upload(rec["user"])
        if len(parts) >= 2 and parts[0] == "tracks":
            tid = self.sc_parse_track_id(parts[1])
            self.sc_auth()
            track = self.sc_track_record(tid) if tid is not None else None
            if track is None:
                self.sc_fail(404, "Track not found", note="unknown track")
            if len(parts) == 2 and cmd in ("GET", "HEAD"):
                return self.json(200, self.sc_track_json(track))
            if len(parts) == 3 and parts[2] == "streams" and cmd in ("GET", "HEAD"):
                return self.sc_streams(track)
            if len(parts) == 4 and parts[2] == "streams" and cmd in ("GET", "HEAD"):
                return self.sc_stream_redirect(track, parts[3])
            if len(parts) == 3 and parts[2] == "stream" and cmd in ("GET", "HEAD"):
                key = "http_mp3_128_url" if "http_mp3_128_url" in track["renditions"] else None
                if key is None:
                    self.sc_fail(
                        404, "No progressive stream for this track", note="no progressive stream"
                    )
                return self.sc_stream_redirect(track, SC_RENDITIONS[key][0])
            self.sc_fail(404, "Not Found")
        if len(parts) == 2 and parts[0] == "playlists" and cmd in ("GET", "HEAD"):
            self.sc_auth()
            m = re.match(r"^(?:soundcloud:playlists:)?(\d{1,12})$", parts[1])
            pid = int(m.group(1)) if m else None
            if pid not in SC_PLAYLISTS:
                self.sc_fail(404, "Playlist not found", note="unknown playlist")
            return self.json(200, self.sc_set_json(pid, self.q("show_tracks") != "false"))
        if len(parts) == 2 and parts[0] == "users" and cmd in ("GET", "HEAD"):
            self.sc_auth()
            m = re.match(r"^(?:soundcloud:users:)?(\d{1,12})$", parts[1])
            u = self.state.sc_user_by_id(int(m.group(1))) if m else None
            if u is None:
                self.sc_fail(404, "User not found")
            return self.json(200, self.sc_user_json(u))
        self.sc_auth()
        self.sc_fail(404, "Not Found")

    def sc_resolve(self):
        st = self.state
        api = st.urls["soundcloud"]["api_url"]
        url = self.q("url")
        if not url:
            self.sc_fail(400, "url parameter is required")
        parts = urllib.parse.urlsplit(url)
        host = (parts.hostname or "").lower()
        segs = [s for s in parts.path.split("/") if s]
        target = None
        if parts.scheme in ("http", "https") and host == "on.soundcloud.com" and len(segs) == 1:
            tid = SC_SHORT_LINKS.get(segs[0])
            if tid:
                target = "/tracks/soundcloud:tracks:%d" % tid
        elif parts.scheme in ("http", "https") and host in (
            "soundcloud.com",
            "www.soundcloud.com",
            "m.soundcloud.com",
        ):
            if len(segs) == 1:
                name = segs[0]
                uid = None
                if name == SC_ARTIST:
                    uid = SC_ARTIST_ID
                else:
                    with st.lock:
                        u = st.sc_users.get(name)
                    if u:
                        uid = u["id"]
                if uid:
                    target = "/users/soundcloud:users:%d" % uid
            elif len(segs) == 3 and segs[0] == SC_ARTIST and segs[1] == "sets":
                for pid, pl in SC_PLAYLISTS.items():
                    if pl[0] == segs[2]:
                        target = "/playlists/soundcloud:playlists:%d" % pid
            elif len(segs) == 2 and segs[0] == SC_ARTIST:
                for tid, t in SC_TRACKS.items():
                    if t[0] == segs[1]:
                        target = "/tracks/soundcloud:tracks:%d" % tid
                m = re.match(r"^synthetic-(\d+)$", segs[1])
                if m and int(m.group(1)) in SC_SYNTHETIC:
                    target = "/tracks/soundcloud:tracks:%d" % int(m.group(1))
            elif len(segs) == 2:
                with st.lock:
                    for rec in st.sc_uploads.values():
                        owner = st.sc_user_by_id(rec["owner"])
                        if owner and owner["username"] == segs[0] and rec["permalink"] == segs[1]:
                            target = "/tracks/soundcloud:tracks:%d" % rec["id"]
        if target is None:
            self.sc_fail(404, "Could not resolve %s" % url, note="unresolvable url")
        location = api + target
        self.redirect(
            location,
            302,
            jdump({"status": "302 - Found", "location": location}),
            "application/json; charset=utf-8",
        )

    def sc_me(self, name):
        u = self.state.sc_user(name)
        me = self.sc_user_json(u)
        with self.state.lock:
            uploads = [t for t in self.state.sc_uploads.values() if t["owner"] == u["id"]]
        me.update(
            {
                "plan": "Free",
                "primary_email_confirmed": True,
                "private_tracks_count": sum(1 for t in uploads if t["sharing"] == "private"),
                "private_playlists_count": 0,
                "track_count": sum(1 for t in uploads if t["sharing"] == "public"),
                "locale": None,
                "online": False,
                "comments_count": 0,
                "subscriptions": [],
                "quota": {
                    "unlimited_upload_quota": False,
                    "upload_seconds_used": 0,
                    "upload_seconds_left": 10800,
                },
                "upload_seconds_left": 10800,
            }
        )
        self.json(200, me)

    def sc_streams(self, track):
        st = self.state
        api = st.urls["soundcloud"]["api_url"]
        urn = "soundcloud:tracks:%d" % track["id"]
        out = {}
        for key in track["renditions"]:
            out[key] = "%s/tracks/%s/streams/%s" % (api, urn, SC_RENDITIONS[key][0])
        self.json(200, out)

    def sc_stream_redirect(self, track, segment):
        key = SC_RENDITION_BY_SEGMENT.get(segment)
        if key is None or key not in track["renditions"]:
            self.sc_fail(404, "No such stream for this track", note="unknown rendition")
        seg, fname, kind = SC_RENDITIONS[key]
        # A snippet served in place of the whole track comes from a /preview/ path.
        snippet = track.get("snippet") and kind == "progressive" and key != "preview_mp3_128_url"
        path = "/media/%d/%s%s/%s" % (track["id"], "preview/" if snippet else "", seg, fname)
        location = self.state.signed_url(self.state.urls["soundcloud"]["cdn_url"], path)
        self.entry["rendition"] = key
        self.redirect(
            location,
            302,
            jdump({"status": "302 - Found", "location": location}),
            "application/json; charset=utf-8",
        )

    def sc_new_connection(self, user):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        fields = {}
        if ctype == "application/x-www-form-urlencoded":
            fields = dict(self.form())
        elif ctype == "application/json":
            try:
                obj = self.json_body()
            except ValueError:
                self.sc_fail(400, "body is not valid JSON")
            if isinstance(obj, dict):
                fields = {
                    k: v
                    for k, v in (obj.get("connection", obj) or {}).items()
                    if isinstance(v, str)
                }
        elif ctype == "multipart/form-data":
            try:
                fields = {
                    n: d.decode("utf-8", "replace")
                    for n, f, _, d in parse_multipart(self.body, self.headers.get("Content-Type"))
                    if f is None
                }
            except ValueError as e:
                self.sc_fail(400, "multipart body: %s" % e)
            self.entry["form"] = redact_pairs(fields.items())
        else:
            fields = dict(self.req_qs)
        # connection[service] is accepted as well as service
        service = fields.get("service") or fields.get("connection[service]")
        redirect_uri = fields.get("redirect_uri") or fields.get("connection[redirect_uri]")
        errors = []
        if service not in SC_CONNECTION_SERVICES:
            errors.append(
                {
                    "error_message": "service must be one of %s"
                    % ", ".join(SC_CONNECTION_SERVICES),
                    "field": "service",
                }
            )
        if not redirect_uri or not urllib.parse.urlsplit(redirect_uri).scheme:
            errors.append(
                {
                    "error_message": "redirect_uri is required (an absolute URI)",
                    "field": "redirect_uri",
                }
            )
        if errors:
            self.sc_fail(422, errors[0]["error_message"], errors=errors)
        display = fields.get("display") or fields.get("connection[display]")
        key = secrets.token_hex(8)
        with self.state.lock:
            self.state.sc_pending_connections[key] = (user, service, redirect_uri)
        params = [("stub_connect", key), ("redirect_uri", redirect_uri)]
        if display:
            params.append(("display", display))
        url = "%s/connect/via/%s?%s" % (
            self.state.urls["soundcloud"]["auth"],
            service,
            urllib.parse.urlencode(params),
        )
        self.entry["connection_service"] = service
        self.json(202, {"authorize_url": url})

    # -- upload --

    def sc_upload(self, username):
        st = self.state
        ctype = self.headers.get("Content-Type") or ""
        if ctype.split(";")[0].strip().lower() != "multipart/form-data":
            self.sc_fail(
                400, "Content-Type must be multipart/form-data", note="upload not multipart"
            )
        try:
            parts = parse_multipart(self.body, ctype)
        except ValueError as e:
            self.sc_fail(400, "multipart body: %s" % e, note="bad multipart")
        upload = {"fields": {}, "files": {}, "errors": []}
        self.entry["upload"] = upload
        errors = upload["errors"]

        def err(field, msg):
            errors.append({"error_message": "%s %s" % (field, msg), "field": field})

        scalars, lists, files = {}, {n: [] for n in SC_UPLOAD_LISTS}, {}
        for name, filename, ptype, data in parts:
            if name in SC_UPLOAD_FILES:
                if filename is None:
                    err(name, "must be a file part (Content-Disposition with a filename)")
                    upload["fields"][name] = data[:200].decode("utf-8", "replace")
                    continue
                if name in files:
                    err(name, "given more than once")
                    continue
                files[name] = data
                upload["files"][name] = {
                    "filename": filename,
                    "content_type": ptype,
                    "size": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                }
                continue
            value = data.decode("utf-8", "replace")
            if filename is not None:
                err(name, "must be a plain field, not a file")
                continue
            if name in SC_UPLOAD_LISTS:
                lists[name].append(value)
                upload["fields"].setdefault(name, []).append(value)
            elif name in SC_UPLOAD_SCALARS:
                if name in scalars:
                    err(name, "given more than once")
                scalars[name] = value
                upload["fields"][name] = value
            else:
                upload["fields"][name] = value
                err(name, "is not a known track field")

        asset = files.get("track[asset_data]")
        if asset is None:
            if "track[asset_data]" not in upload["fields"] and not any(
                e["field"] == "track[asset_data]" for e in errors
            ):
                err("track[asset_data]", "is required (the audio file)")
        elif len(asset) == 0:
            err("track[asset_data]", "is empty")
        elif not (
            asset[:3] == b"ID3"
            or (asset[0] == 0xFF and len(asset) > 1 and asset[1] & 0xE0 == 0xE0)
            or asset[:4] in (b"RIFF", b"FORM", b"fLaC", b"OggS")
            or asset[4:8] == b"ftyp"
        ):
            err("track[asset_data]", "is not an audio file SoundCloud can transcode")

        title = scalars.get("track[title]")
        if title is None or not title.strip():
            err("track[title]", "can't be blank")
        elif len(title) > 255:
            err("track[title]", "is too long (at most 255 characters)")
        upload["title"] = title

        sharing = scalars.get("track[sharing]", "public")
        if sharing not in ("public", "private"):
            err("track[sharing]", "must be public or private")
        upload["sharing"] = sharing

        tags, machine = [], []
        if "track[tag_list]" in scalars:
            try:
                tags = split_tags(scalars["track[tag_list]"])
            except ValueError as e:
                err("track[tag_list]", "has an %s" % e)
            plain = []
            for t in tags:
                m = MACHINE_TAG_RE.match(t)
                if m:
                    machine.append(
                        {"namespace": m.group(1), "key": m.group(2), "value": m.group(3)}
                    )
                else:
                    plain.append(t)
            for mt in machine:
                full = "%s:%s" % (mt["namespace"], mt["key"])
                if full in ("geo:lat", "geo:lon"):
                    limit = 90 if full == "geo:lat" else 180
                    try:
                        v = float(mt["value"])
                        if not -limit <= v <= limit or not math.isfinite(v):
                            raise ValueError
                    except ValueError:
                        err(
                            "track[tag_list]",
                            "machine tag %s=%s: must be a number in -%d..%d"
                            % (full, mt["value"], limit, limit),
                        )
                elif full == "foursquare:venue" and not re.match(r"^[A-Za-z0-9]+$", mt["value"]):
                    err(
                        "track[tag_list]",
                        "machine tag foursquare:venue=%s: must be a venue id ([A-Za-z0-9]+)"
                        % mt["value"],
                    )
            upload["tags"] = plain
        else:
            upload["tags"] = []
        upload["machine_tags"] = machine
        upload["tag_list_parsed"] = tags

        ids, empty_marker = lists["track[post_to][][id]"], lists["track[post_to][]"]
        st.sc_user(username)
        with st.lock:
            conns = {c["id"]: c for c in st.sc_connections[username]}
        post_ids = []
        if ids:
            for v in ids:
                if not INT_RE.match(v) or int(v) not in conns:
                    err("track[post_to][][id]", "%r is not one of your connection ids" % v)
                else:
                    post_ids.append(int(v))
            if empty_marker:
                err("track[post_to][]", "cannot be combined with track[post_to][][id]")
            mode = "ids"
        elif empty_marker:
            if any(v != "" for v in empty_marker):
                err("track[post_to][]", "must be empty (it means: share to no connection)")
            mode = "none"
        else:
            mode = "default"
            post_ids = [c["id"] for c in conns.values() if c["post_publish"]]
        upload["post_to"] = {
            "mode": mode,
            "ids": post_ids,
            "services": [conns[i]["service"] for i in post_ids if i in conns],
        }
        if mode == "ids" and sharing == "private":
            err(
                "track[post_to][][id]",
                "is for public tracks; share private tracks by track[shared_to][emails][][address]",
            )
        venue = any(mt["namespace"] == "foursquare" and mt["key"] == "venue" for mt in machine)
        if (
            mode == "ids"
            and not venue
            and any(conns[i]["service"] == "foursquare" for i in post_ids if i in conns)
        ):
            err(
                "track[post_to][][id]",
                "posts to foursquare without a foursquare:venue machine tag in track[tag_list]",
            )

        emails = lists["track[shared_to][emails][][address]"]
        for e in emails:
            if not EMAIL_RE.match(e):
                err("track[shared_to][emails][][address]", "%r is not an e-mail address" % e)
        if emails and sharing != "private":
            err(
                "track[shared_to][emails][][address]",
                "is only for private tracks (track[sharing]=private)",
            )
        upload["shared_to_emails"] = emails

        ttype = scalars.get("track[type]")
        if ttype is not None and ttype not in SC_TRACK_TYPES:
            err("track[type]", "must be one of %s" % ", ".join(sorted(SC_TRACK_TYPES)))
        upload["type"] = ttype
        lic = scalars.get("track[license]")
        if lic is not None and lic not in SC_LICENSES:
            err("track[license]", "is not a known license")
        emb = scalars.get("track[embeddable_by]")
        if emb is not None and emb not in ("all", "me", "none"):
            err("track[embeddable_by]", "must be all, me or none")
        for b in ("track[downloadable]", "track[streamable]", "track[commentable]"):
            if b in scalars and scalars[b] not in ("true", "false", "1", "0"):
                err(b, "must be true or false")
        rd = scalars.get("track[release_date]")
        if rd is not None and not re.match(r"^\d{4}-\d{2}-\d{2}$", rd):
            err("track[release_date]", "must be yyyy-mm-dd")
        perm = scalars.get("track[permalink]")
        if perm is not None and not re.match(r"^[a-z0-9_-]{1,255}$", perm):
            err("track[permalink]", "may only hold a-z, 0-9, _ and -")

        if errors:
            self.sc_fail(422, errors[0]["error_message"], note="upload rejected", errors=errors)

        def quote(t):
            return '"%s"' % t if re.search(r"\s", t) else t

        with st.lock:
            tid = st.sc_next_upload
            st.sc_next_upload += 1
        user = st.sc_user(username)
        permalink = (
            perm or (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "track") + "-%d" % tid
        )
        rec = {
            "id": tid,
            "permalink": permalink,
            "title": title,
            "access": "playable",
            "renditions": SC_FULL,
            "owner": user["id"],
            "sharing": sharing,
            "tag_list": " ".join(quote(t) for t in tags),
            "state": "finished",
            "created": now(),
            "genre": scalars.get("track[genre]"),
            "description": scalars.get("track[description]"),
            "type": ttype,
            "license": lic or "all-rights-reserved",
            "embeddable_by": emb or "all",
            "upload": upload,
            "duration": None,
        }
        upload["track_id"] = tid
        with st.lock:
            st.sc_uploads[tid] = rec
        self.json(201, self.sc_track_json(rec, state_override="processing"))

    # -- the CDN --

    def route_soundcloud_cdn(self):
        st = self.state
        if self.command not in ("GET", "HEAD"):
            raise HttpError(405, b"", "application/xml", [("Allow", "GET, HEAD")])
        if self.headers.get("Authorization") is not None:
            raise HttpError(
                400,
                (
                    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InvalidArgument</Code>'
                    "<Message>Only one auth mechanism allowed; only the X-Amz-Algorithm query "
                    "parameter, Signature query string parameter or the Authorization header "
                    "should be specified</Message><ArgumentName>Authorization</ArgumentName>"
                    "</Error>\n"
                ).encode(),
                "application/xml",
                note="Authorization header sent to the CDN",
            )
        expires, sig, kid = self.q("Expires"), self.q("Signature"), self.q("Key-Pair-Id")

        def denied(note, code="AccessDenied", message="Access denied"):
            raise HttpError(
                403,
                (
                    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code><Message>%s'
                    "</Message></Error>\n" % (code, message)
                ).encode(),
                "application/xml",
                note=note,
            )

        if not expires or not sig or not kid:
            denied(
                "unsigned CDN URL",
                "MissingKey",
                "Missing Key-Pair-Id query parameter or cookie value",
            )
        if not hmac.compare_digest(sig, st.sign(self.req_path, expires)):
            denied("bad signature")
        try:
            exp = float(expires)
        except ValueError:
            denied("bad Expires")
        self.entry["expires_in"] = round(exp - now(), 3)
        if now() >= exp:
            denied("signed URL expired")
        m = re.match(r"^/media/(\d+)/(preview/)?([a-z0-9_-]+)/([A-Za-z0-9_.-]+)$", self.req_path)
        if not m:
            raise HttpError(404, b"<Error><Code>NoSuchKey</Code></Error>\n", "application/xml")
        tid, preview_path, seg, name = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        key = SC_RENDITION_BY_SEGMENT.get(seg)
        track = self.sc_track_record(tid)
        if key is None or track is None or key not in track["renditions"]:
            raise HttpError(404, b"<Error><Code>NoSuchKey</Code></Error>\n", "application/xml")
        snippet = track.get("snippet") and SC_RENDITIONS[key][2] == "progressive"
        if bool(preview_path) != bool(snippet and key != "preview_mp3_128_url"):
            raise HttpError(404, b"<Error><Code>NoSuchKey</Code></Error>\n", "application/xml")
        args = st.args
        if key == "http_mp3_128_url" and name == "stream.mp3" and preview_path:
            # The 30-second snippet served in place of the whole track.
            full = self.media_path(args.preview_file) or self.media_path(args.track_file)
        elif key == "http_mp3_128_url" and name == "stream.mp3":
            full = self.media_path(args.track_file)
        elif key == "preview_mp3_128_url" and name == "preview.mp3":
            full = self.media_path(args.preview_file) or self.media_path(args.track_file)
        elif SC_RENDITIONS[key][2] == "hls":
            hls_dir = args.hls_dir if key == "hls_mp3_128_url" else args.aac_hls_dir
            if name == "playlist.m3u8":
                method = SC_ENCRYPTED_METHODS.get(key) or track.get("key_method")
                return self.sc_playlist(tid, seg, hls_dir, method)
            full = (
                self.media_path(os.path.join(hls_dir, name)) if not name.endswith(".m3u8") else None
            )
        else:
            full = None
        if full is None:
            raise HttpError(
                404,
                b"<Error><Code>NoSuchKey</Code></Error>\n",
                "application/xml",
                note="media file missing",
            )
        self.serve_file(full, [("Cache-Control", "private, max-age=0")])

    def sc_playlist(self, tid, seg, hls_dir, key_method=None):
        st = self.state
        src = self.media_path(os.path.join(hls_dir, "index.m3u8"))
        if src is None:
            raise HttpError(
                404,
                b"<Error><Code>NoSuchKey</Code></Error>\n",
                "application/xml",
                note="playlist missing",
            )
        with open(src, encoding="utf-8") as f:
            lines = [line.rstrip("\r\n") for line in f]
        out = []
        cdn = st.urls["soundcloud"]["cdn_url"]
        keyed = key_method is None
        for line in lines:
            if not keyed and (line.startswith("#EXT-X-MAP:") or line.startswith("#EXTINF:")):
                # DRM: the key comes before the first media (the segments are not encrypted
                # here; no client is meant to get that far).
                out.append("#EXT-X-KEY:" + SC_DRM_KEYS[key_method])
                keyed = True
            if line and not line.startswith("#"):
                out.append(st.signed_url(cdn, "/media/%d/%s/%s" % (tid, seg, line.strip())))
            elif line.startswith("#EXT-X-MAP:"):
                # The fMP4 init segment is a CDN object like the segments: signed the same way.
                out.append(
                    re.sub(
                        r'URI="([^"]+)"',
                        lambda m: 'URI="%s"' % st.signed_url(cdn, "/media/%d/%s/%s" % (tid, seg, m.group(1))),
                        line,
                    )
                )
            else:
                out.append(line)
        body = ("\n".join(out) + "\n").encode()
        self.respond(
            200, body, "application/vnd.apple.mpegurl", [("Cache-Control", "private, max-age=0")]
        )

    # =========================================================================================
    # Spotify
    # =========================================================================================

    def sp_oauth_error(self, status, error, description):
        raise HttpError(
            status,
            jdump({"error": error, "error_description": description}),
            note=error + ": " + description,
        )

    def sp_api_error(self, status, message, reason=None, headers=(), note=None):
        err = {"status": status, "message": message}
        if reason:
            err["reason"] = reason
        raise HttpError(status, jdump({"error": err}), headers=headers, note=note or message)

    # -- accounts.spotify.com --

    def route_spotify_accounts(self):
        p = self.req_path
        if p == "/authorize" and self.command in ("GET", "HEAD"):
            return self.sp_authorize()
        if p == "/api/token":
            if self.command != "POST":
                raise HttpError(
                    405,
                    jdump({"error": "invalid_request", "error_description": "POST only"}),
                    headers=[("Allow", "POST")],
                )
            pairs = self.form()
            form = dict(pairs) if pairs is not None else {}
            result = self.sp_token(form, via_swap=False)
            return self.json(200, result)
        self.html_error(404, "Not found")

    @staticmethod
    def sp_redirect_problem(uri):
        """None if Spotify accepts the redirect URI, else the INVALID_CLIENT text."""
        if not uri:
            return "INVALID_CLIENT: Invalid redirect URI"
        try:
            parts = urllib.parse.urlsplit(uri)
            host = (parts.hostname or "").lower()
        except ValueError:
            return "INVALID_CLIENT: Invalid redirect URI"
        if not parts.scheme or parts.fragment:
            return "INVALID_CLIENT: Invalid redirect URI"
        if parts.scheme == "https":
            return None if host else "INVALID_CLIENT: Invalid redirect URI"
        if parts.scheme == "http":
            if host in ("127.0.0.1", "::1"):
                return None
            return "INVALID_CLIENT: Insecure redirect URI"
        return None  # a custom scheme (e.g. an app's own) is still accepted

    def sp_authorize(self):
        st = self.state
        client_id = self.q("client_id")
        if client_id not in (CLIENTS["spotify"][0], SP_DEV_APP[0]):
            self.html_error(400, "INVALID_CLIENT: Invalid client")
        redirect_uri = self.q("redirect_uri")
        problem = self.sp_redirect_problem(redirect_uri)
        if problem:
            self.html_error(400, problem)
        state_param = self.q("state")

        def back(params):
            if state_param is not None:
                params.append(("state", state_param))
            self.redirect(add_query(redirect_uri, params))

        deny = self.q("stub_deny")
        if deny:
            self.entry["error"] = "denied by stub_deny"
            return back([("error", deny)])
        if self.q("response_type") != "code":
            return back([("error", "unsupported_response_type")])
        challenge, method = self.q("code_challenge"), self.q("code_challenge_method")
        if (challenge or method) and (
            method != "S256" or not challenge or not 43 <= len(challenge) <= 128
        ):
            return back([("error", "invalid_request")])
        user = self.q("stub_user") or DEFAULT_USER
        if not CODE_RE.match(user):
            self.html_error(400, "stub_user: 1 to 40 of [A-Za-z0-9_-]")
        product = self.q("stub_product")
        if product not in (None, "premium", "free"):
            self.html_error(400, "stub_product: premium or free")
        st.sp_user(user, product)
        self.entry["user"] = user
        scope = " ".join(self.q("scope", "").replace("+", " ").split())
        code = st.new_code(
            "spotify",
            client_id=client_id,
            redirect_uri=redirect_uri,
            challenge=challenge,
            user=user,
            scope=scope,
        )
        back([("code", code)])

    def sp_token(self, form, via_swap):
        """The token JSON for a form; raises HttpError with Spotify's error object."""
        st = self.state
        grant = form.get("grant_type")
        self.entry["grant_type"] = grant
        if not grant:
            self.sp_oauth_error(400, "unsupported_grant_type", "grant_type parameter is missing")
        if grant not in ("authorization_code", "refresh_token", "client_credentials"):
            self.sp_oauth_error(
                400,
                "unsupported_grant_type",
                "grant_type parameter is invalid: must be client_credentials, "
                "authorization_code or refresh_token",
            )
        if via_swap:
            cid, sec, how = CLIENTS["spotify"][0], CLIENTS["spotify"][1], "swap-service"
        else:
            basic = self.basic_credentials()
            if basic is not None:
                cid, sec, how = basic[0], basic[1], "basic"
            else:
                cid, sec = form.get("client_id"), form.get("client_secret")
                how = "body" if sec is not None else ("public" if cid else None)
        self.entry["client_auth"] = how
        apps = {CLIENTS["spotify"][0]: CLIENTS["spotify"][1], SP_DEV_APP[0]: SP_DEV_APP[1]}
        if cid not in apps:
            self.sp_oauth_error(400, "invalid_client", "Invalid client")
        if sec is not None and sec != apps[cid]:
            self.sp_oauth_error(400, "invalid_client", "Invalid client secret")
        confidential = sec is not None
        dev = cid == SP_DEV_APP[0]
        self.entry["app_mode"] = "development" if dev else "extended"
        if grant == "client_credentials":
            if not confidential:
                self.sp_oauth_error(400, "invalid_client", "Invalid client")
            access = st.issue("spotify", "access", user=None, scope="", pkce=False, dev=dev)
            return {
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": int(st.expires_in["spotify"]),
            }
        if grant == "authorization_code":
            if not form.get("code"):
                self.sp_oauth_error(400, "invalid_request", "code must be supplied")
            rec, why = st.take_code("spotify", form["code"])
            if rec is None or rec["client_id"] != cid:
                self.sp_oauth_error(400, "invalid_grant", "Invalid authorization code")
            if not via_swap or form.get("redirect_uri"):
                if form.get("redirect_uri") != rec["redirect_uri"]:
                    self.sp_oauth_error(400, "invalid_grant", "Invalid redirect URI")
            verifier = form.get("code_verifier")
            if not confidential and not rec["challenge"]:
                self.sp_oauth_error(400, "invalid_client", "Invalid client")
            # A code issued for a code_challenge needs its verifier, whoever redeems it (RFC
            # 7636 4.6): a swap service that forwards only code fails here.
            if rec["challenge"] and not verifier:
                self.sp_oauth_error(400, "invalid_request", "code_verifier required")
            if (
                verifier is not None
                and rec["challenge"]
                and b64url_sha256(verifier) != rec["challenge"]
            ):
                self.sp_oauth_error(400, "invalid_grant", "code_verifier was incorrect")
            pkce = not confidential
            user, scope = rec["user"], rec["scope"]
            refresh = st.issue("spotify", "refresh", user=user, scope=scope, pkce=pkce, dev=dev)
        else:
            value = form.get("refresh_token")
            if not value:
                self.sp_oauth_error(400, "invalid_request", "refresh_token must be supplied")
            status, rec = st.lookup("spotify", "refresh", value)
            self.entry["token_status"] = status
            if status == "revoked" and not rec.get("rotated"):
                self.sp_oauth_error(400, "invalid_grant", "Refresh token revoked")
            if status != "valid" or bool(rec.get("dev")) != dev:
                self.sp_oauth_error(400, "invalid_grant", "Invalid refresh token")
            if not confidential and not rec["pkce"]:
                self.sp_oauth_error(400, "invalid_client", "Invalid client")
            user, scope, pkce = rec["user"], rec["scope"], rec["pkce"]
            refresh = None
            if pkce:  # PKCE refresh tokens are single-use: a new one comes with each refresh
                with st.lock:
                    rec["revoked"] = True
                    rec["rotated"] = True
                refresh = st.issue("spotify", "refresh", user=user, scope=scope, pkce=True, dev=dev)
        self.entry["user"] = user
        access = st.issue("spotify", "access", user=user, scope=scope, pkce=pkce, dev=dev)
        out = {
            "access_token": access,
            "token_type": "Bearer",
            "scope": scope,
            "expires_in": int(st.expires_in["spotify"]),
        }
        if refresh is not None:
            out["refresh_token"] = refresh
        return out

    # -- the token swap / refresh service (a server of the app's own that keeps the secret) --

    def route_spotify_swap(self):
        st = self.state
        p = self.req_path
        if p not in ("/swap", "/swap-pkce", "/refresh"):
            self.html_error(404, "Not found")
        if self.command != "POST":
            raise HttpError(
                405,
                jdump({"error": "invalid_request", "error_description": "POST only"}),
                headers=[("Allow", "POST")],
            )
        pairs = self.form()
        if pairs is None:
            self.sp_oauth_error(
                400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded"
            )
        form = dict(pairs)
        if p in ("/swap", "/swap-pkce"):
            if not form.get("code"):
                self.sp_oauth_error(400, "invalid_request", "code must be supplied")
            inner = {"grant_type": "authorization_code", "code": form["code"]}
            if form.get("redirect_uri"):
                inner["redirect_uri"] = form["redirect_uri"]
            if p == "/swap-pkce" and form.get("code_verifier"):
                inner["code_verifier"] = form["code_verifier"]
            out = self.sp_token(inner, via_swap=True)
            wrapped = token("swp_")
            with st.lock:
                st.swap_tokens[wrapped] = out["refresh_token"]
            out["refresh_token"] = wrapped
            return self.json(200, out)
        wrapped = form.get("refresh_token")
        if not wrapped:
            self.sp_oauth_error(400, "invalid_request", "refresh_token must be supplied")
        with st.lock:
            real = st.swap_tokens.get(wrapped)
        if real is None:
            self.sp_oauth_error(400, "invalid_grant", "Invalid refresh token")
        out = self.sp_token({"grant_type": "refresh_token", "refresh_token": real}, via_swap=True)
        out.pop("refresh_token", None)
        self.json(200, out)

    # -- api.spotify.com --

    def sp_auth(self, scopes_any=None, need_user=True):
        scheme, value = self.authorization()
        if scheme is None:
            self.entry["token_status"] = "missing"
            self.sp_api_error(401, "No token provided")
        if scheme.lower() != "bearer":
            self.entry["token_status"] = "wrong_scheme"
            self.sp_api_error(400, "Only valid bearer authentication supported")
        status, rec = self.state.lookup("spotify", "access", value)
        self.entry["token_status"] = status
        if status == "expired":
            self.sp_api_error(
                401,
                "The access token expired",
                headers=[
                    (
                        "WWW-Authenticate",
                        'Bearer realm="spotify", error="invalid_token", '
                        'error_description="The access token expired"',
                    )
                ],
            )
        if status != "valid":
            self.sp_api_error(
                401,
                "Invalid access token",
                headers=[
                    (
                        "WWW-Authenticate",
                        'Bearer realm="spotify", error="invalid_token", '
                        'error_description="Invalid access token"',
                    )
                ],
            )
        self.entry["user"] = rec["user"]
        self.entry["app_mode"] = "development" if rec.get("dev") else "extended"
        if need_user and rec["user"] is None:
            self.sp_api_error(
                403,
                "This request requires user authentication.",
                note="client credentials token on a user endpoint",
            )
        if scopes_any and not set(scopes_any) & set(rec["scope"].split()):
            self.sp_api_error(
                403, "Insufficient client scope", note="missing scope " + "/".join(scopes_any)
            )
        return rec

    def sp_track_json(self, tid, dev=False):
        """A TrackObject; a Development Mode app's has no popularity and external_ids
        (February 2026)."""
        track = self.sp_full_track_json(tid)
        if dev:
            for member in ("popularity", "external_ids"):
                track.pop(member, None)
        return track

    def sp_full_track_json(self, tid):
        st = self.state
        api = st.urls["spotify"]["api_url"]
        name, duration, preview = SP_TRACKS[tid]
        artist = {
            "external_urls": {"spotify": "https://open.spotify.com/artist/" + SP_ARTIST_ID},
            "href": "%s/artists/%s" % (api, SP_ARTIST_ID),
            "id": SP_ARTIST_ID,
            "name": "StreamPlay Stub Artist",
            "type": "artist",
            "uri": "spotify:artist:" + SP_ARTIST_ID,
        }
        return {
            "album": {
                "album_type": "album",
                "total_tracks": len(SP_TRACKS),
                "id": SP_ALBUM_ID,
                "name": "StreamPlay Stub Album",
                "href": "%s/albums/%s" % (api, SP_ALBUM_ID),
                "type": "album",
                "uri": "spotify:album:" + SP_ALBUM_ID,
                "release_date": "2024-01-01",
                "release_date_precision": "day",
                "images": [],
                "artists": [artist],
                "external_urls": {"spotify": "https://open.spotify.com/album/" + SP_ALBUM_ID},
            },
            "artists": [artist],
            "disc_number": 1,
            "duration_ms": duration,
            "explicit": False,
            "external_ids": {"isrc": "XXSTB24%05d" % (sorted(SP_TRACKS).index(tid) + 1)},
            "external_urls": {"spotify": "https://open.spotify.com/track/" + tid},
            "href": "%s/tracks/%s" % (api, tid),
            "id": tid,
            "is_local": False,
            "name": name,
            "popularity": 0,
            "preview_url": (
                (
                    "%s/mp3-preview/%s?cid=%s"
                    % (
                        st.urls["spotify"]["cdn_url"],
                        hashlib.sha1(tid.encode()).hexdigest(),
                        CLIENTS["spotify"][0],
                    )
                )
                if preview
                else None
            ),
            "track_number": sorted(SP_TRACKS).index(tid) + 1,
            "type": "track",
            "uri": "spotify:track:" + tid,
        }

    def sp_device_json(self, user, did):
        p = self.state.sp_player(user)
        for d, name, kind in SP_DEVICES:
            if d == did:
                return {
                    "id": d,
                    "is_active": p["active"] == d,
                    "is_private_session": False,
                    "is_restricted": False,
                    "name": name,
                    "type": kind,
                    "volume_percent": p["volume"][d],
                    "supports_volume": True,
                }
        return None

    def sp_progress(self, p):
        """Current progress in ms; advances the queue when a track ends (call under the lock)."""
        while True:
            if not p["queue"]:
                return 0
            tid = p["queue"][p["index"]]
            duration = SP_TRACKS[tid][1]
            pos = p["base_ms"] + (int((now() - p["since"]) * 1000) if p["playing"] else 0)
            if pos < duration:
                return pos
            if p["index"] + 1 < len(p["queue"]):
                p["since"] += (duration - p["base_ms"]) / 1000.0
                p["index"] += 1
                p["base_ms"] = 0
                continue
            p["playing"] = False
            p["base_ms"] = duration
            return duration

    def route_spotify_api(self):
        st = self.state
        p = self.req_path
        cmd = self.command
        if not p.startswith("/v1/"):
            self.sp_auth(need_user=False)
            self.sp_api_error(404, "Service not found")
        p = p[3:]
        self.sp_refuse_removed(p, cmd)
        m = re.match(r"^/tracks/([^/]*)$", p)
        if m and cmd in ("GET", "HEAD"):
            rec = self.sp_auth(need_user=False)
            tid = m.group(1)
            if not SPOTIFY_ID_RE.match(tid):
                self.sp_api_error(400, "invalid id")
            if tid not in SP_TRACKS:
                self.sp_api_error(404, "Resource not found")
            return self.json(200, self.sp_track_json(tid, dev=bool(rec.get("dev"))))
        if p == "/search" and cmd in ("GET", "HEAD"):
            rec = self.sp_auth(need_user=False)
            return self.json(200, self.sp_search(bool(rec.get("dev"))))
        if p == "/me" and cmd in ("GET", "HEAD"):
            rec = self.sp_auth()
            u = st.sp_user(rec["user"])
            scopes = rec["scope"].split()
            me = {
                "display_name": "StreamPlay Tester" if rec["user"] == DEFAULT_USER else rec["user"],
                "external_urls": {"spotify": "https://open.spotify.com/user/" + u["id"]},
                "followers": {"href": None, "total": 0},
                "href": "%s/users/%s" % (st.urls["spotify"]["api_url"], u["id"]),
                "id": u["id"],
                "images": [],
                "type": "user",
                "uri": "spotify:user:" + u["id"],
            }
            if rec.get("dev"):
                # February 2026: a Development Mode app's /me has no country, email,
                # explicit_content, followers or product, whatever the scopes.
                del me["followers"]
                return self.json(200, me)
            if "user-read-private" in scopes:
                me.update(
                    {
                        "country": "DE",
                        "product": u["product"],
                        "explicit_content": {"filter_enabled": False, "filter_locked": False},
                    }
                )
            if "user-read-email" in scopes:
                me["email"] = "%s@example.com" % rec["user"]
            return self.json(200, me)
        if p.startswith("/me/player"):
            return self.sp_player_route(p[len("/me/player") :], cmd)
        self.sp_auth(need_user=False)
        self.sp_api_error(404, "Service not found")

    def sp_refuse_removed(self, path, cmd):
        """Answers an endpoint that Development Mode apps lost (SP_DEV_REMOVED) as Spotify
        does, when the token is such an app's; anything else goes on."""
        for pattern, methods, status in SP_DEV_REMOVED:
            if pattern.match(path) and (methods is None or cmd in methods):
                break
        else:
            return
        rec = self.sp_auth(need_user=False)
        if not rec.get("dev"):
            return
        note = "removed for Development Mode apps: %s %s" % (cmd, path)
        if status == 404:
            self.sp_api_error(404, "Service not found", note=note)
        self.sp_api_error(403, "Forbidden", note=note)

    def sp_search(self, dev):
        """GET /v1/search: q, type (comma-separated), limit, offset; only tracks are found (the
        stand-in's two), the other types answer empty pages. Limits as SP_SEARCH_LIMITS."""
        default, maximum = SP_SEARCH_LIMITS["development" if dev else "extended"]
        query = self.q("q")
        if not query:
            self.sp_api_error(400, "No search query")
        types = self.q("type")
        if not types:
            self.sp_api_error(400, "Missing parameter type")
        types = types.split(",")
        if not all(t in SP_SEARCH_TYPES for t in types):
            self.sp_api_error(400, "Bad search type field")
        try:
            limit = int(self.q("limit", str(default)))
            offset = int(self.q("offset", "0"))
        except ValueError:
            self.sp_api_error(400, "Invalid limit")
        if not 0 <= limit <= maximum:
            self.sp_api_error(400, "Invalid limit", note="limit %d above %d" % (limit, maximum))
        if not 0 <= offset <= 1000:
            self.sp_api_error(400, "Invalid offset")
        self.entry["search_limit"] = limit
        api = self.state.urls["spotify"]["api_url"]
        words = query.lower().split()
        answer = {}
        for t in types:
            found = []
            if t == "track":
                found = [
                    tid
                    for tid in sorted(SP_TRACKS)
                    if all(w in SP_TRACKS[tid][0].lower() for w in words)
                ]
            base = "%s/search?%s" % (api, urllib.parse.urlencode({"query": query, "type": t}))

            def page(at):
                return "%s&offset=%d&limit=%d" % (base, at, limit)

            answer[t + "s"] = {
                "href": page(offset),
                "items": [self.sp_track_json(tid, dev) for tid in found[offset : offset + limit]],
                "limit": limit,
                "next": page(offset + limit) if offset + limit < len(found) else None,
                "offset": offset,
                "previous": page(max(0, offset - limit)) if offset > 0 else None,
                "total": len(found),
            }
        return answer

    def sp_player_route(self, sub, cmd):
        st = self.state
        if sub == "/devices" and cmd in ("GET", "HEAD"):
            rec = self.sp_auth([SP_SCOPE_READ])
            return self.json(
                200, {"devices": [self.sp_device_json(rec["user"], d[0]) for d in SP_DEVICES]}
            )
        if sub in ("", "/currently-playing") and cmd in ("GET", "HEAD"):
            rec = self.sp_auth([SP_SCOPE_READ] + (["user-read-currently-playing"] if sub else []))
            user = rec["user"]
            with st.lock:
                pl = st.sp_player(user)
                idle = pl["active"] is None or (sub and not pl["queue"])
                progress = self.sp_progress(pl)
                item = self.sp_track_json(pl["queue"][pl["index"]]) if pl["queue"] else None
                body = {
                    "timestamp": int(now() * 1000),
                    "context": None,
                    "progress_ms": progress if item else None,
                    "is_playing": pl["playing"],
                    "item": item,
                    "currently_playing_type": "track" if item else "unknown",
                    "actions": {
                        "disallows": {"resuming": True} if pl["playing"] else {"pausing": True}
                    },
                }
                if not sub and not idle:
                    body.update(
                        {
                            "device": self.sp_device_json(user, pl["active"]),
                            "repeat_state": "off",
                            "shuffle_state": False,
                            "smart_shuffle": False,
                        }
                    )
            if idle:
                return self.respond(204)
            return self.json(200, body)
        if cmd != "PUT" and sub in (
            "/play",
            "/pause",
            "/seek",
            "",
            "/devices",
            "/currently-playing",
        ):
            self.sp_auth()
            self.sp_api_error(405, "Method not allowed")
        if sub not in ("/play", "/pause", "/seek", ""):
            self.sp_auth()
            self.sp_api_error(404, "Service not found")
        rec = self.sp_auth([SP_SCOPE_MODIFY])
        user = rec["user"]
        if st.sp_user(user)["product"] != "premium":
            self.sp_api_error(403, "Player command failed: Premium required", "PREMIUM_REQUIRED")
        body = None
        if self.body.strip():
            try:
                body = self.json_body()
            except ValueError:
                self.sp_api_error(400, "Malformed json")
            if not isinstance(body, dict):
                self.sp_api_error(400, "Malformed json")
        device_id = self.q("device_id")
        known = {d[0] for d in SP_DEVICES}
        if sub == "":  # transfer playback
            ids = (body or {}).get("device_ids")
            if not isinstance(ids, list) or len(ids) != 1 or not isinstance(ids[0], str):
                self.sp_api_error(
                    400, "Required field device_ids missing or not a list of one device id"
                )
            if ids[0] not in known:
                self.sp_api_error(404, "Device not found")
            with st.lock:
                pl = st.sp_player(user)
                pos = self.sp_progress(pl)
                pl["active"] = ids[0]
                if body.get("play") is True and pl["queue"]:
                    pl["playing"] = True
                pl["base_ms"], pl["since"] = pos, now()
            return self.respond(204)
        if device_id is not None and device_id not in known:
            self.sp_api_error(404, "Device not found")
        with st.lock:
            pl = st.sp_player(user)
            if device_id is None and pl["active"] is None:
                self.sp_api_error(
                    404, "Player command failed: No active device found", "NO_ACTIVE_DEVICE"
                )
            pos = self.sp_progress(pl)
            if sub == "/play":
                uris = (body or {}).get("uris")
                if (body or {}).get("context_uri") is not None:
                    self.sp_api_error(400, "context_uri is not supported by this stub; use uris")
                if uris is not None:
                    if not isinstance(uris, list) or not uris:
                        self.sp_api_error(400, "uris must be a non-empty list")
                    queue = []
                    for u in uris:
                        m = (
                            re.match(r"^spotify:track:([0-9A-Za-z]{22})$", u)
                            if isinstance(u, str)
                            else None
                        )
                        if not m or m.group(1) not in SP_TRACKS:
                            self.sp_api_error(400, "Invalid track uri: %s" % u)
                        queue.append(m.group(1))
                    index = 0
                    offset = (body or {}).get("offset")
                    if isinstance(offset, dict) and "position" in offset:
                        index = offset["position"]
                        if not isinstance(index, int) or not 0 <= index < len(queue):
                            self.sp_api_error(400, "Invalid offset position")
                    elif isinstance(offset, dict) and "uri" in offset:
                        target = offset["uri"]
                        ids = ["spotify:track:" + q for q in queue]
                        if target not in ids:
                            self.sp_api_error(400, "Invalid offset uri")
                        index = ids.index(target)
                    start = (body or {}).get("position_ms", 0)
                    if not isinstance(start, int) or start < 0:
                        self.sp_api_error(400, "position_ms must be a non-negative integer")
                    pl["queue"], pl["index"] = queue, index
                    pl["base_ms"] = min(start, SP_TRACKS[queue[index]][1])
                else:
                    if not pl["queue"]:
                        self.sp_api_error(
                            403, "Player command failed: Restriction violated", "UNKNOWN"
                        )
                    start = (body or {}).get("position_ms")
                    if start is not None:
                        if not isinstance(start, int) or start < 0:
                            self.sp_api_error(400, "position_ms must be a non-negative integer")
                        pos = start
                    pl["base_ms"] = min(pos, SP_TRACKS[pl["queue"][pl["index"]]][1])
                    if pl["base_ms"] >= SP_TRACKS[pl["queue"][pl["index"]]][1]:
                        pl["base_ms"] = 0
                pl["playing"], pl["since"] = True, now()
                if device_id is not None:
                    pl["active"] = device_id
                self.entry["player"] = {
                    "queue": list(pl["queue"]),
                    "index": pl["index"],
                    "position_ms": pl["base_ms"],
                }
            elif sub == "/pause":
                if not pl["playing"]:
                    self.sp_api_error(403, "Player command failed: Restriction violated", "UNKNOWN")
                pl["playing"], pl["base_ms"], pl["since"] = False, pos, now()
            else:  # seek
                raw = self.q("position_ms")
                if raw is None:
                    self.sp_api_error(400, "Missing required parameter: position_ms")
                if not INT_RE.match(raw):
                    self.sp_api_error(400, "position_ms must be a non-negative integer")
                if not pl["queue"]:
                    self.sp_api_error(403, "Player command failed: Restriction violated", "UNKNOWN")
                pl["base_ms"] = min(int(raw), SP_TRACKS[pl["queue"][pl["index"]]][1])
                pl["since"] = now()
                self.entry["player"] = {"position_ms": pl["base_ms"]}
        self.respond(204)

    # -- the preview CDN --

    def route_spotify_cdn(self):
        if self.command not in ("GET", "HEAD"):
            raise HttpError(405, b"", "text/plain", [("Allow", "GET, HEAD")])
        m = re.match(r"^/mp3-preview/([0-9a-f]{40})$", self.req_path)
        tid = None
        if m:
            for t, (_, _, preview) in SP_TRACKS.items():
                if preview and hashlib.sha1(t.encode()).hexdigest() == m.group(1):
                    tid = t
        if tid is None:
            raise HttpError(404, b"Not Found\n", "text/plain")
        full = self.media_path(self.state.args.preview_file) or self.media_path(
            self.state.args.track_file
        )
        if full is None:
            raise HttpError(404, b"Not Found\n", "text/plain", note="media file missing")
        self.serve_file(full, [("Cache-Control", "public, max-age=31536000")])

    # =========================================================================================
    # Spark
    # =========================================================================================

    def spark_error(self, status, code, message, note=None):
        raise HttpError(
            status,
            jdump({"D": {"Success": False, "Code": code, "Message": message}}),
            note=note or message,
        )

    def spark_ok(self, results=None, status=200, extra=None):
        d = {"Success": True}
        if results is not None:
            d["Results"] = results
        if extra:
            d.update(extra)
        self.json(status, {"D": d})

    # -- sparkplatform.com --

    def route_spark_auth(self):
        p = self.req_path
        if service_stubs_spark.route_auth(self):
            return
        if p == "/openid" and self.command in ("GET", "HEAD"):
            return self.spark_openid()
        if p == "/oauth2" and self.command in ("GET", "HEAD"):
            return self.spark_oauth2()
        if p == "/oauth2/callback" and self.command in ("GET", "HEAD"):
            return self.respond(
                200,
                "<!DOCTYPE html><html><body><p>Authorized. You may close this window.</p>"
                "</body></html>\n",
                "text/html; charset=utf-8",
            )
        self.html_error(404, "Not Found")

    def spark_openid(self):
        st = self.state
        return_to = self.q("openid.return_to")
        if not return_to or not urllib.parse.urlsplit(return_to).scheme:
            self.html_error(400, "openid.return_to is required (an absolute URI)")
        ns = self.q("openid.ns") or SPARK_OPENID_NS

        def back(params):
            state_param = self.q("openid.spark.state")
            params = [("openid.ns", ns)] + params
            if state_param is not None:
                params.append(("openid.spark.state", state_param))
            self.redirect(add_query(return_to, params))

        deny = self.q("stub_deny")
        if deny:
            self.entry["error"] = "denied by stub_deny"
            if deny == "cancel":
                return back([("openid.mode", "cancel")])
            return back([("openid.mode", "error"), ("openid.error", deny)])
        mode = self.q("openid.mode")
        if mode not in ("checkid_setup", "checkid_immediate"):
            return back(
                [("openid.mode", "error"), ("openid.error", "openid.mode must be checkid_setup")]
            )
        if self.q("openid.spark.client_id") != CLIENTS["spark"][0]:
            return back(
                [("openid.mode", "error"), ("openid.error", "Invalid openid.spark.client_id")]
            )
        user = self.q("stub_user") or DEFAULT_USER
        if not CODE_RE.match(user):
            self.html_error(400, "stub_user: 1 to 40 of [A-Za-z0-9_-]")
        u = st.spark_user(user)
        self.entry["user"] = user
        op = st.urls["spark"]["openid_url"]
        claimed = "%s/id/%s" % (op, u["id"])
        params = [
            ("openid.mode", "id_res"),
            ("openid.op_endpoint", op),
            ("openid.claimed_id", claimed),
            ("openid.identity", claimed),
            ("openid.return_to", return_to),
            ("openid.response_nonce", iso_time(now()) + secrets.token_hex(4)),
            ("openid.assoc_handle", secrets.token_hex(8)),
        ]
        signed = [
            "op_endpoint",
            "claimed_id",
            "identity",
            "return_to",
            "response_nonce",
            "assoc_handle",
        ]
        if self.q("openid.spark.combined_flow") == "true":
            code = st.new_code(
                "spark", client_id=CLIENTS["spark"][0], redirect_uri=return_to, user=user
            )
            params.append(("openid.spark.code", code))
            signed.append("spark.code")
        if self.q("openid.ax.mode") == "fetch_request":
            ax_ns = "http://openid.net/srv/ax/1.0"
            params += [("openid.ns.ax", ax_ns), ("openid.ax.mode", "fetch_response")]
            wanted = (
                self.q("openid.ax.required", "") + "," + self.q("openid.ax.if_available", "")
            ).split(",")
            for alias in [a for a in wanted if a]:
                type_uri = self.q("openid.ax.type." + alias)
                if type_uri in SPARK_AX:
                    params += [
                        ("openid.ax.type." + alias, type_uri),
                        ("openid.ax.value." + alias, SPARK_AX[type_uri](u)),
                    ]
                    signed += ["ax.type." + alias, "ax.value." + alias]
        params.append(("openid.signed", ",".join(signed)))
        params.append(
            (
                "openid.sig",
                base64.b64encode(
                    hmac.new(st.secret, ",".join(signed).encode(), hashlib.sha256).digest()
                ).decode(),
            )
        )
        back(params)

    def spark_oauth2(self):
        st = self.state
        if self.q("client_id") != CLIENTS["spark"][0]:
            self.html_error(400, "invalid_client: unknown client_id")
        redirect_uri = self.q("redirect_uri")
        if not redirect_uri or not urllib.parse.urlsplit(redirect_uri).scheme:
            self.html_error(400, "redirect_uri is required (an absolute URI)")
        state_param = self.q("state")

        def back(params):
            if state_param is not None:
                params.append(("state", state_param))
            self.redirect(add_query(redirect_uri, params))

        deny = self.q("stub_deny")
        if deny:
            self.entry["error"] = "denied by stub_deny"
            return back([("error", deny)])
        if self.q("response_type") != "code":
            return back([("error", "unsupported_response_type")])
        user = self.q("stub_user") or DEFAULT_USER
        if not CODE_RE.match(user):
            self.html_error(400, "stub_user: 1 to 40 of [A-Za-z0-9_-]")
        st.spark_user(user)
        self.entry["user"] = user
        code = st.new_code(
            "spark", client_id=CLIENTS["spark"][0], redirect_uri=redirect_uri, user=user
        )
        back([("code", code)])

    # -- sparkapi.com --

    def spark_body(self):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            self.spark_error(
                400,
                1035,
                "POST data not supplied as valid JSON. Issued if the Content-Type header is not "
                "application/json and/or if the POST data is not in valid JSON format",
            )
        try:
            obj = self.json_body()
        except ValueError:
            self.spark_error(
                400,
                1035,
                "POST data not supplied as valid JSON. Issued if the Content-Type header is not "
                "application/json and/or if the POST data is not in valid JSON format",
            )
        return obj

    def route_spark_api(self):
        st = self.state
        if not self.headers.get("X-SparkApi-User-Agent"):
            self.spark_error(
                400,
                1016,
                "The X-SparkApi-User-Agent request header is required. No request to the API "
                "will be successful without it.",
                note="missing X-SparkApi-User-Agent",
            )
        p, cmd = self.req_path, self.command
        if p == "/v1/oauth2/grant":
            if cmd != "POST":
                self.spark_error(405, 405, "Method not allowed")
            return self.spark_grant()
        scheme, value = self.authorization()
        if scheme is None:
            self.entry["token_status"] = "missing"
            self.spark_error(
                401,
                1000,
                "Invalid API key and/or request signed improperly",
                note="no Authorization header",
            )
        if scheme.lower() not in ("oauth", "bearer"):
            self.entry["token_status"] = "wrong_scheme"
            self.spark_error(
                401,
                1000,
                "Invalid API key and/or request signed improperly",
                note="scheme " + scheme,
            )
        status, rec = st.lookup("spark", "access", value)
        self.entry["token_status"] = status
        if status == "expired":
            self.spark_error(401, 1020, "Session token has expired")
        if status != "valid":
            self.spark_error(
                401,
                1000,
                "Invalid API key and/or request signed improperly",
                note="token " + status,
            )
        service_stubs_spark.check_rate(self, value, rec["user"])
        user = rec["user"]
        self.entry["user"] = user
        if p == "/v1/my/account":
            if cmd not in ("GET", "HEAD"):
                self.spark_error(405, 405, "Method not allowed")
            u = st.spark_user(user)
            return self.spark_ok(
                [
                    {
                        "Id": u["id"],
                        "ResourceUri": "/v1/my/account",
                        "UserType": "Member",
                        "Name": "%s %s" % (u["first"], u["last"]),
                        "FirstName": u["first"],
                        "LastName": u["last"],
                        "Office": "StreamPlay Test Realty",
                        "OfficeId": "20000426143505724628000000",
                        "Mls": "StreamPlay Test MLS",
                        "MlsId": "20000426143505724628000000",
                        "Emails": [
                            {
                                "Type": "Office",
                                "Name": "My Email",
                                "Address": u["email"],
                                "Primary": True,
                            }
                        ],
                        "Phones": [
                            {
                                "Type": "Office",
                                "Name": "Office",
                                "Number": "701-555-0100",
                                "Primary": True,
                            }
                        ],
                        "Websites": [],
                        "Addresses": [],
                    }
                ]
            )
        if p == "/v1/listings":
            if cmd not in ("GET", "HEAD"):
                self.spark_error(405, 405, "Method not allowed")
            return self.spark_listings()
        m = re.match(r"^/v1/listings/(\d{26})$", p)
        if m:
            if cmd not in ("GET", "HEAD"):
                self.spark_error(405, 405, "Method not allowed")
            for lst in SPARK_LISTINGS:
                if lst[0] == m.group(1):
                    return self.spark_ok([self.spark_listing_json(lst)])
            self.spark_error(404, 404, "Not Found")
        if p == "/v1/contacts":
            if cmd in ("GET", "HEAD"):
                with st.lock:
                    contacts = [dict(c) for c in st.spark_contacts.values()]
                return self.spark_ok(contacts)
            if cmd == "POST":
                return self.spark_new_contacts()
            self.spark_error(405, 405, "Method not allowed")
        m = re.match(r"^/v1/contacts/(\d{1,30})$", p)
        if m:
            cid = m.group(1)
            with st.lock:
                contact = st.spark_contacts.get(cid)
            if contact is None:
                self.spark_error(404, 404, "Not Found")
            if cmd in ("GET", "HEAD"):
                return self.spark_ok([dict(contact)])
            if cmd == "PUT":
                return self.spark_update_contact(cid)
            if cmd == "DELETE":
                with st.lock:
                    st.spark_contacts.pop(cid, None)
                return self.spark_ok()
            self.spark_error(405, 405, "Method not allowed")
        self.spark_error(404, 404, "Not Found")

    def spark_grant(self):
        st = self.state
        obj = self.spark_body()
        if not isinstance(obj, dict):
            self.sp_oauth_error(400, "invalid_request", "body must be a JSON object")
        grant = obj.get("grant_type")
        self.entry["grant_type"] = grant
        if (
            obj.get("client_id") != CLIENTS["spark"][0]
            or obj.get("client_secret") != CLIENTS["spark"][1]
        ):
            self.sp_oauth_error(401, "invalid_client", "unknown client_id or wrong client_secret")
        if grant not in ("authorization_code", "refresh_token"):
            self.sp_oauth_error(
                400,
                "unsupported_grant_type",
                "grant_type must be authorization_code or refresh_token",
            )
        if not obj.get("redirect_uri"):
            self.sp_oauth_error(400, "invalid_request", "redirect_uri is required")
        if grant == "authorization_code":
            if not obj.get("code"):
                self.sp_oauth_error(400, "invalid_request", "code is required")
            rec, why = st.take_code("spark", obj["code"])
            if rec is None:
                self.sp_oauth_error(400, "invalid_grant", why)
            if rec["redirect_uri"] != obj["redirect_uri"]:
                self.sp_oauth_error(
                    400, "invalid_grant", "redirect_uri does not match the one of the authorization"
                )
            user = rec["user"]
        else:
            if not obj.get("refresh_token"):
                self.sp_oauth_error(400, "invalid_request", "refresh_token is required")
            status, rec = st.lookup("spark", "refresh", obj["refresh_token"])
            self.entry["token_status"] = status
            if status != "valid":
                self.sp_oauth_error(
                    400,
                    "invalid_grant",
                    "refresh token is %s" % ("used or revoked" if status == "revoked" else status),
                )
            st.revoke(obj["refresh_token"])
            user = rec["user"]
        self.entry["user"] = user
        access = st.issue("spark", "access", user=user)
        refresh = st.issue("spark", "refresh", user=user)
        self.json(
            200,
            {
                "access_token": access,
                "refresh_token": refresh,
                "expires_in": int(st.expires_in["spark"]),
            },
        )

    def spark_listing_json(self, lst):
        lid, street, city, price, beds, baths = lst
        number, _, name = street.partition(" ")
        return {
            "ResourceUri": "/v1/listings/" + lid,
            "Id": lid,
            "StandardFields": {
                "ListingKey": lid,
                "ListingId": lid[-8:],
                "ListPrice": price,
                "MlsStatus": "Active",
                "PropertyType": "A",
                "StreetNumber": number,
                "StreetName": name,
                "City": city,
                "StateOrProvince": "ND" if city != "Moorhead" else "MN",
                "PostalCode": "58102",
                "BedsTotal": beds,
                "BathsTotal": baths,
                "UnparsedAddress": "%s, %s" % (street, city),
            },
        }

    def spark_listings(self):
        limit_raw, page_raw = self.q("_limit", "10"), self.q("_page", "1")
        if not INT_RE.match(limit_raw) or not 1 <= int(limit_raw) <= 25:
            self.spark_error(400, 1053, "_limit must be an integer from 1 to 25")
        if not INT_RE.match(page_raw) or int(page_raw) < 1:
            self.spark_error(400, 1053, "_page must be a positive integer")
        limit, page = int(limit_raw), int(page_raw)
        rows = SPARK_LISTINGS[(page - 1) * limit : page * limit]
        extra = None
        if self.q("_pagination") == "1":
            total = len(SPARK_LISTINGS)
            extra = {
                "Pagination": {
                    "TotalRows": total,
                    "PageSize": limit,
                    "TotalPages": max(1, -(-total // limit)),
                    "CurrentPage": page,
                }
            }
        self.spark_ok([self.spark_listing_json(r) for r in rows], extra=extra)

    def spark_check_contact(self, c, partial):
        if not isinstance(c, dict):
            self.spark_error(400, 1053, "a contact must be a JSON object")
        allowed = {"DisplayName", "GivenName", "FamilyName", "PrimaryEmail", "Tags"}
        for k, v in c.items():
            if k not in allowed:
                self.spark_error(400, 1053, "unknown contact attribute %s" % k)
            if k == "Tags":
                if not isinstance(v, list) or not all(isinstance(t, str) for t in v):
                    self.spark_error(400, 1053, "Tags must be a list of strings")
            elif not isinstance(v, str):
                self.spark_error(400, 1053, "%s must be a string" % k)
        if not partial:
            for k in ("DisplayName", "PrimaryEmail"):
                if not c.get(k):
                    self.spark_error(400, 1050, "%s is required" % k)
        if "PrimaryEmail" in c and not EMAIL_RE.match(c["PrimaryEmail"]):
            self.spark_error(400, 1053, "PrimaryEmail is not a valid e-mail address")

    def spark_new_contacts(self):
        st = self.state
        obj = self.spark_body()
        d = obj.get("D") if isinstance(obj, dict) else None
        if not isinstance(d, dict):
            self.spark_error(400, 1050, 'the request body must be {"D": {...}}')
        contacts = d["Contacts"] if "Contacts" in d else [d]
        if not isinstance(contacts, list) or not contacts:
            self.spark_error(400, 1050, "Contacts must be a non-empty list")
        for c in contacts:
            self.spark_check_contact(c, partial=False)
        results = []
        with st.lock:
            existing = {c["PrimaryEmail"].lower() for c in st.spark_contacts.values()}
            for c in contacts:
                if c["PrimaryEmail"].lower() in existing:
                    self.spark_error(
                        409, 1055, "A contact with the e-mail %s already exists" % c["PrimaryEmail"]
                    )
                existing.add(c["PrimaryEmail"].lower())
            for c in contacts:
                cid = st.add_spark_contact(
                    c["DisplayName"], c["PrimaryEmail"], c.get("GivenName"), c.get("FamilyName")
                )
                st.spark_contacts[cid]["Tags"] = list(c.get("Tags", []))
                results.append({"ResourceUri": "/v1/contacts/" + cid, "Id": cid})
        self.spark_ok(results, status=201)

    def spark_update_contact(self, cid):
        st = self.state
        obj = self.spark_body()
        d = obj.get("D") if isinstance(obj, dict) else None
        if not isinstance(d, dict) or not d:
            self.spark_error(400, 1050, 'the request body must be {"D": {attributes to change}}')
        self.spark_check_contact(d, partial=True)
        with st.lock:
            if "PrimaryEmail" in d and any(
                c["PrimaryEmail"].lower() == d["PrimaryEmail"].lower() and k != cid
                for k, c in st.spark_contacts.items()
            ):
                self.spark_error(
                    409, 1055, "A contact with the e-mail %s already exists" % d["PrimaryEmail"]
                )
            contact = st.spark_contacts.get(cid)
            if contact is None:
                self.spark_error(404, 404, "Not Found")
            contact.update(d)
            contact["ModificationTimestamp"] = iso_time(now())
        self.spark_ok()


# -- servers -----------------------------------------------------------------------------------


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


LISTENERS = [
    ("soundcloud", "auth"),
    ("soundcloud", "api"),
    ("soundcloud", "cdn"),
    ("spotify", "accounts"),
    ("spotify", "api"),
    ("spotify", "cdn"),
    ("spotify", "swap"),
    ("spark", "auth"),
    ("spark", "api"),
    ("control", "control"),
]


def build_urls(bases):
    sc, sp, sk = CLIENTS["soundcloud"], CLIENTS["spotify"], CLIENTS["spark"]
    return {
        "control": bases[("control", "control")],
        "soundcloud": {
            "auth": bases[("soundcloud", "auth")],
            "authorize_url": bases[("soundcloud", "auth")] + "/authorize",
            "token_url": bases[("soundcloud", "auth")] + "/oauth/token",
            "api_url": bases[("soundcloud", "api")],
            "cdn_url": bases[("soundcloud", "cdn")],
            "client_id": sc[0],
            "client_secret": sc[1],
        },
        "spotify": {
            "accounts": bases[("spotify", "accounts")],
            "authorize_url": bases[("spotify", "accounts")] + "/authorize",
            "token_url": bases[("spotify", "accounts")] + "/api/token",
            "api": bases[("spotify", "api")],
            "api_url": bases[("spotify", "api")] + "/v1",
            "cdn_url": bases[("spotify", "cdn")],
            "swap_url": bases[("spotify", "swap")] + "/swap",
            "refresh_url": bases[("spotify", "swap")] + "/refresh",
            "client_id": sp[0],
            "client_secret": sp[1],
            "dev_client_id": SP_DEV_APP[0],
            "dev_client_secret": SP_DEV_APP[1],
        },
        "spark": {
            "auth": bases[("spark", "auth")],
            "openid_url": bases[("spark", "auth")] + "/openid",
            "discovery_url": bases[("spark", "auth")] + "/.well-known/openid-configuration",
            "authorize_url": bases[("spark", "auth")] + "/oauth2",
            "api": bases[("spark", "api")],
            "api_url": bases[("spark", "api")] + "/v1",
            "token_url": bases[("spark", "api")] + "/v1/oauth2/grant",
            "client_id": sk[0],
            "client_secret": sk[1],
        },
    }


ENV_NAMES = [
    ("STREAMPLAY_STUB_CONTROL_URL", ("control",)),
    ("STREAMPLAY_STUB_SOUNDCLOUD_AUTH_URL", ("soundcloud", "authorize_url")),
    ("STREAMPLAY_STUB_SOUNDCLOUD_TOKEN_URL", ("soundcloud", "token_url")),
    ("STREAMPLAY_STUB_SOUNDCLOUD_API_URL", ("soundcloud", "api_url")),
    ("STREAMPLAY_STUB_SOUNDCLOUD_CDN_URL", ("soundcloud", "cdn_url")),
    ("STREAMPLAY_STUB_SOUNDCLOUD_CLIENT_ID", ("soundcloud", "client_id")),
    ("STREAMPLAY_STUB_SOUNDCLOUD_CLIENT_SECRET", ("soundcloud", "client_secret")),
    ("STREAMPLAY_STUB_SPOTIFY_AUTH_URL", ("spotify", "authorize_url")),
    ("STREAMPLAY_STUB_SPOTIFY_TOKEN_URL", ("spotify", "token_url")),
    ("STREAMPLAY_STUB_SPOTIFY_API_URL", ("spotify", "api_url")),
    ("STREAMPLAY_STUB_SPOTIFY_CDN_URL", ("spotify", "cdn_url")),
    ("STREAMPLAY_STUB_SPOTIFY_SWAP_URL", ("spotify", "swap_url")),
    ("STREAMPLAY_STUB_SPOTIFY_REFRESH_URL", ("spotify", "refresh_url")),
    ("STREAMPLAY_STUB_SPOTIFY_CLIENT_ID", ("spotify", "client_id")),
    ("STREAMPLAY_STUB_SPOTIFY_CLIENT_SECRET", ("spotify", "client_secret")),
    ("STREAMPLAY_STUB_SPOTIFY_DEV_CLIENT_ID", ("spotify", "dev_client_id")),
    ("STREAMPLAY_STUB_SPOTIFY_DEV_CLIENT_SECRET", ("spotify", "dev_client_secret")),
    ("STREAMPLAY_STUB_SPARK_OPENID_URL", ("spark", "openid_url")),
    ("STREAMPLAY_STUB_SPARK_DISCOVERY_URL", ("spark", "discovery_url")),
    ("STREAMPLAY_STUB_SPARK_AUTH_URL", ("spark", "authorize_url")),
    ("STREAMPLAY_STUB_SPARK_TOKEN_URL", ("spark", "token_url")),
    ("STREAMPLAY_STUB_SPARK_API_URL", ("spark", "api_url")),
    ("STREAMPLAY_STUB_SPARK_CLIENT_ID", ("spark", "client_id")),
    ("STREAMPLAY_STUB_SPARK_CLIENT_SECRET", ("spark", "client_secret")),
]


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    p = argparse.ArgumentParser(
        description="Local stand-ins for the SoundCloud, Spotify and Spark APIs (127.0.0.1)."
    )
    p.add_argument(
        "--media", required=True, help="test media directory (scripts/make-test-media.sh)"
    )
    p.add_argument(
        "--urls-file", help="JSON with every base URL, written (atomically) once all ports listen"
    )
    p.add_argument(
        "--env-file", help="the same as shell exports (source it), written before --urls-file"
    )
    p.add_argument("--log", help="JSON request log, one line per request (appended)")
    p.add_argument("--owner-pid", type=int, help="exit once this process has gone")
    p.add_argument(
        "--lifetime", type=float, default=3600.0, help="exit after this many seconds (default 3600)"
    )
    p.add_argument(
        "--expires-in",
        action="append",
        metavar="[SERVICE=]SECONDS",
        help="access token lifetime: all services, or one (soundcloud, spotify, spark); repeatable",
    )
    p.add_argument(
        "--cdn-expiry",
        type=float,
        default=300.0,
        help="SoundCloud signed CDN URL lifetime (default 300 s)",
    )
    p.add_argument(
        "--track-file", default="cbr-44k-stereo.mp3", help="media file of progressive MP3 streams"
    )
    p.add_argument(
        "--preview-file", default="cbr-44k-stereo-short.mp3", help="media file of previews"
    )
    p.add_argument("--hls-dir", default="hls/vod", help="media dir with index.m3u8 + MP3 segments")
    p.add_argument(
        "--aac-hls-dir", default="hls/fmp4", help="media dir with index.m3u8 + AAC segments (fMP4, as SoundCloud's)"
    )
    args = p.parse_args()

    if not os.path.isdir(args.media):
        sys.exit("service-stubs: no such directory: %s" % args.media)
    if args.owner_pid is not None and process_gone(args.owner_pid):
        sys.exit("service-stubs: owner process %d is not running" % args.owner_pid)
    try:
        state = State(args)
    except ValueError as e:
        sys.exit("service-stubs: %s" % e)

    servers, bases = [], {}
    for service, role in LISTENERS:
        srv = Server(("127.0.0.1", 0), Handler)
        srv.state, srv.service, srv.role = state, service, role
        servers.append(srv)
        bases[(service, role)] = "http://127.0.0.1:%d" % srv.server_address[1]
    state.urls = build_urls(bases)

    stop = threading.Event()
    for srv in servers:
        threading.Thread(
            target=srv.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True
        ).start()

    if args.env_file:
        lines = ["# Generated by scripts/service-stubs.py; source this file."]
        for name, keys in ENV_NAMES:
            v = state.urls
            for k in keys:
                v = v[k]
            lines.append("export %s='%s'" % (name, v))
        write_atomic(args.env_file, "\n".join(lines) + "\n")
    if args.urls_file:
        write_atomic(args.urls_file, json.dumps(state.urls, indent=2) + "\n")
    print(json.dumps(state.urls), flush=True)

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    deadline = time.monotonic() + args.lifetime
    while not stop.is_set():
        if time.monotonic() >= deadline:
            break
        if args.owner_pid is not None and process_gone(args.owner_pid):
            break
        stop.wait(0.5)
    # All at once: each shutdown() waits for its serve_forever loop (up to poll_interval).
    stoppers = [threading.Thread(target=srv.shutdown) for srv in servers]
    for t in stoppers:
        t.start()
    for t in stoppers:
        t.join()
    for srv in servers:
        srv.server_close()
    if state.log is not None:
        state.log.close()


if __name__ == "__main__":
    main()
