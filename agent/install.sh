#!/bin/sh
# inferwatch agent installer, served by the inferwatch server at /install.sh (the server puts the systemd unit of
# agent/inferwatch-agent.service where @INFERWATCH_UNIT@ stands). It holds no secret: the enrollment key comes on stdin.
#
#   printf '%s\n' "$KEY" | sudo sh install.sh --server https://inferwatch.example
#
# Downloads the agent bundle from the server, checks its SHA-256 against the one the server publishes, creates the
# unprivileged service user, installs the hardened unit, writes the key to a root-only 0600 file and (re)starts the
# unit. --root DIR (or INFERWATCH_ROOT) installs under DIR instead of /, for a scratch root or an image build.
set -eu

SERVICE_USER=inferwatch
AGENT_REL=usr/local/lib/inferwatch/inferwatch-agent.mjs
UNIT_REL=etc/systemd/system/inferwatch-agent.service
KEY_REL=etc/inferwatch/enroll-key
ENV_REL=etc/inferwatch/agent.env

say() { printf 'inferwatch install: %s\n' "$*" >&2; }
fail() {
	say "$*"
	exit 1
}

usage() {
	cat >&2 <<'USAGE'
usage: printf '%s\n' KEY | sh install.sh --server URL [--root DIR]
  --server URL   the inferwatch server the agent reports to (and downloads from)
  --root DIR     install under DIR instead of / (default: $INFERWATCH_ROOT, else /)
The enrollment key is read from stdin, so it shows neither in ps nor in the shell's history.
USAGE
	exit 2
}

SERVER=
ROOT=${INFERWATCH_ROOT:-}
while [ $# -gt 0 ]; do
	case $1 in
	--server) [ $# -ge 2 ] || usage; SERVER=$2; shift 2 ;;
	--server=*) SERVER=${1#--server=}; shift ;;
	--root) [ $# -ge 2 ] || usage; ROOT=$2; shift 2 ;;
	--root=*) ROOT=${1#--root=}; shift ;;
	-h | --help) usage ;;
	*) say "unknown argument: $1"; usage ;;
	esac
done
[ -n "$SERVER" ] || { say "--server URL is required"; usage; }
case $SERVER in
http://* | https://*) ;;
*) fail "--server must be an http:// or https:// URL, not: $SERVER" ;;
esac
SERVER=${SERVER%/}
ROOT=${ROOT%/}
if [ -n "$ROOT" ] && [ ! -d "$ROOT" ]; then fail "--root $ROOT is not a directory"; fi

if [ -t 0 ]; then fail "pipe the enrollment key on stdin: printf '%s\\n' KEY | sudo sh install.sh --server $SERVER"; fi
IFS= read -r KEY || [ -n "${KEY:-}" ] || fail "no enrollment key on stdin"
case $KEY in
iwk_*) ;;
*) fail "stdin does not hold an enrollment key (they start with iwk_; Settings → Enrollment keys makes one)" ;;
esac

NODE=$(command -v node || true)
[ -n "$NODE" ] || fail "Node.js 20 or newer is needed first (the agent is one JavaScript file run by node)"
"$NODE" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
	fail "$NODE is Node.js $("$NODE" --version); the agent needs 20 or newer"

download() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsS --retry 2 -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1"
	else
		fail "neither curl nor wget is installed"
	fi || fail "could not download $1"
}

umask 077
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
download "$SERVER/agent/inferwatch-agent.mjs" "$WORK/inferwatch-agent.mjs"
download "$SERVER/agent/inferwatch-agent.mjs.sha256" "$WORK/inferwatch-agent.mjs.sha256"
EXPECTED=$(cut -d ' ' -f 1 "$WORK/inferwatch-agent.mjs.sha256")
ACTUAL=$(sha256sum "$WORK/inferwatch-agent.mjs" | cut -d ' ' -f 1)
[ "$ACTUAL" = "$EXPECTED" ] ||
	fail "the downloaded agent's SHA-256 is $ACTUAL but the server publishes $EXPECTED: nothing installed (something between this host and $SERVER changed the file)"
VERSION=$("$NODE" "$WORK/inferwatch-agent.mjs" --version) || fail "the downloaded agent does not run: nothing installed"

# Each file is written beside its destination and renamed over it, so a unit never starts a half-written file.
# Folders are made 0755 (umask 077 is for the files in WORK): the service user must reach the bundle.
place() { # place MODE SOURCE DEST_REL
	(umask 022 && mkdir -p "$ROOT/$(dirname "$3")")
	cp "$2" "$ROOT/$3.new"
	chmod "$1" "$ROOT/$3.new"
	chown root:root "$ROOT/$3.new"
	mv -f "$ROOT/$3.new" "$ROOT/$3"
}

place 0755 "$WORK/inferwatch-agent.mjs" "$AGENT_REL"

cat >"$WORK/unit" <<'INFERWATCH_UNIT'
@INFERWATCH_UNIT@
INFERWATCH_UNIT
# The unit names /usr/bin/node; this host's node may live elsewhere (nvm, /usr/local/bin).
NODE_IN_SED=$(printf '%s' "$NODE" | sed 's/[\\|&]/\\&/g')
sed "s|^ExecStart=/usr/bin/node |ExecStart=$NODE_IN_SED |" "$WORK/unit" >"$WORK/unit.node"
place 0644 "$WORK/unit.node" "$UNIT_REL"

printf '%s\n' "$KEY" >"$WORK/enroll-key"
place 0600 "$WORK/enroll-key" "$KEY_REL"

# Other settings in agent.env (INFERWATCH_SCRAPE, INFERWATCH_STATSD…) survive a re-install; only the server changes.
if [ -f "$ROOT/$ENV_REL" ]; then grep -v '^INFERWATCH_SERVER=' "$ROOT/$ENV_REL" >"$WORK/agent.env" || true; fi
printf 'INFERWATCH_SERVER=%s\n' "$SERVER" >>"$WORK/agent.env"
place 0644 "$WORK/agent.env" "$ENV_REL"

if ! grep -q "^$SERVICE_USER:" "$ROOT/etc/passwd" 2>/dev/null; then
	if [ -n "$ROOT" ]; then set -- --root "$ROOT"; else set --; fi
	useradd "$@" --system --no-create-home --home-dir /var/lib/inferwatch-agent --shell /usr/sbin/nologin "$SERVICE_USER"
fi

if [ -n "$ROOT" ]; then
	systemctl --root="$ROOT" enable inferwatch-agent.service
	say "agent $VERSION installed under $ROOT (not started: --root installs files only)"
else
	systemctl daemon-reload
	systemctl enable inferwatch-agent.service
	systemctl restart inferwatch-agent.service
	say "agent $VERSION installed and started; follow it with: journalctl -u inferwatch-agent -f"
fi
