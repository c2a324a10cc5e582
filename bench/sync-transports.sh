#!/usr/bin/env bash
# Sync transport figures for docs/PERFORMANCE.md ("Sync transports: git remote and shared folder"):
# keychainkit-sync-bench (release build) against a bare repository over file://, over git:// (a
# `git daemon` on loopback) and over ssh (an sshd of this script's own on loopback, throwaway host
# and user keys), and against a folder; for each, N records of 1 KiB published in one call, a
# second device's refresh + list, then EDITS one-record publishes and (git) the remote's growth.
# etcd: a 3-member cluster on loopback (Debian's etcd-server, default settings), through EtcdTransport.
# Usage: bash bench/sync-transports.sh [N=1000] [EDITS=1000] [TRANSPORTS="file git ssh folder etcd"]
# (needs git, openssh-server; git:// and ssh time 100 one-record publishes, file:// and the folder EDITS)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000}"
EDITS="${2:-1000}"
TRANSPORTS="${3:-file git ssh folder etcd}"
swift build -c release --product keychainkit-sync-bench >/dev/null
BENCH="$PWD/.build/release/keychainkit-sync-bench"
WORK="$(mktemp -d /tmp/kk-transportbench-XXXXXX)"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
fresh_remote() { rm -rf "$WORK/repos/remote.git"; mkdir -p "$WORK/repos"; git init -q --bare "$WORK/repos/remote.git"; }

wait_port() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; exit 1; }

# git daemon, push enabled, serving $WORK/repos (which must exist before it starts).
mkdir -p "$WORK/repos"
GIT_PORT=$(free_port)
git daemon --reuseaddr --listen=127.0.0.1 --port="$GIT_PORT" --base-path="$WORK/repos" --export-all \
    --enable=receive-pack "$WORK/repos" >"$WORK/daemon.log" 2>&1 &
PIDS+=($!)

# sshd on loopback with throwaway keys, for the current user.
SSH_PORT=$(free_port)
ssh-keygen -q -t ed25519 -N '' -f "$WORK/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$WORK/user_key"
cp "$WORK/user_key.pub" "$WORK/authorized_keys"
echo "[127.0.0.1]:$SSH_PORT $(cut -d' ' -f1,2 "$WORK/host_key.pub")" >"$WORK/known_hosts"
cat >"$WORK/sshd_config" <<EOF
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $WORK/host_key
AuthorizedKeysFile $WORK/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $WORK/sshd.pid
EOF
[ "$(id -u)" = 0 ] && mkdir -p /run/sshd
/usr/sbin/sshd -D -e -f "$WORK/sshd_config" >"$WORK/sshd.log" 2>&1 &
PIDS+=($!)
wait_port "$GIT_PORT"; wait_port "$SSH_PORT"
export GIT_SSH_COMMAND="ssh -F /dev/null -i $WORK/user_key -o IdentitiesOnly=yes -o UserKnownHostsFile=$WORK/known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes"

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(git --version), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for transport in $TRANSPORTS; do
    case "$transport" in
    file) fresh_remote; "$BENCH" git "file://$WORK/repos/remote.git" "$WORK/repos/remote.git" "$N" "$EDITS" | sed 's/^git/file:\/\//' ;;
    git) fresh_remote; "$BENCH" git "git://127.0.0.1:$GIT_PORT/remote.git" - "$N" 100 | sed 's/^git/git:\/\//' ;;
    ssh) fresh_remote; "$BENCH" git "ssh://$(id -un)@127.0.0.1:$SSH_PORT$WORK/repos/remote.git" - "$N" 100 | sed 's/^git/ssh/' ;;
    folder) "$BENCH" folder "$WORK/folder" "$N" "$EDITS" ;;
    etcd)
        declare -a CLIENT PEER
        for i in 0 1 2; do CLIENT[$i]=$(free_port); PEER[$i]=$(free_port); done
        CLUSTER="m0=http://127.0.0.1:${PEER[0]},m1=http://127.0.0.1:${PEER[1]},m2=http://127.0.0.1:${PEER[2]}"
        for i in 0 1 2; do
            etcd --name "m$i" --data-dir "$WORK/m$i" --listen-client-urls "http://127.0.0.1:${CLIENT[$i]}" \
                --advertise-client-urls "http://127.0.0.1:${CLIENT[$i]}" --listen-peer-urls "http://127.0.0.1:${PEER[$i]}" \
                --initial-advertise-peer-urls "http://127.0.0.1:${PEER[$i]}" --initial-cluster "$CLUSTER" \
                --initial-cluster-state new --initial-cluster-token "$(basename "$WORK")" >"$WORK/m$i.log" 2>&1 &
            PIDS+=($!)
        done
        ENDPOINTS="http://127.0.0.1:${CLIENT[0]},http://127.0.0.1:${CLIENT[1]},http://127.0.0.1:${CLIENT[2]}"
        until ETCDCTL_API=3 etcdctl --endpoints "$ENDPOINTS" put kk-health ok >/dev/null 2>&1; do sleep 0.2; done
        "$BENCH" etcd "$ENDPOINTS" "$N" "$EDITS" ;;
    esac
done
