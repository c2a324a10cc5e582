"""Run by cli_lookup.sh inside a private D-Bus session with gnome-keyring-daemon running.

Both stores hold N generic passwords (service `bench`). Each round runs every command once, in
turn, so machine noise hits them alike; RUNS rounds after 3 warm-up rounds. Timing is the anchors'
own helper (benchlib.run_cmd: subprocess.run, fork + exec + wait, stdout captured).
"""
import json, os, shutil, subprocess, sys, time

sys.path.insert(0, os.environ["ANCHORS"])
import benchlib  # noqa: E402  (the anchors' harness, used as is)
import secretstorage  # noqa: E402

N = int(os.environ.get("N", "1000"))
RUNS = int(os.environ.get("RUNS", "40"))
WARMUP = 3
WORK = os.environ["WORK"]
KC = os.environ["KEYCHAINCTL"]
# keychainctl built and installed exactly as the README says (--static-swift-stdlib), if given.
KC_STATIC = os.environ.get("KEYCHAINCTL_STATIC") or None
FIXTURE = os.environ["FIXTURE"]
OUT = os.environ.get("OUT", os.path.join(WORK, "cli_lookup.json"))
PASSWORD = "bench-password"

kk = os.path.join(WORK, "kk")
os.makedirs(kk, mode=0o700, exist_ok=True)
base_env = dict(os.environ, KEYCHAINKIT_BENCH_DIR=kk, KEYCHAINKIT_DEVICE_KEY_FILE=os.path.join(kk, "device.key"))
base_env.pop("KEYCHAINKIT_PASSWORD_FILE", None)
pw_keychain = os.path.join(kk, "password.keychain-db")
nopw_keychain = os.path.join(kk, "nopassword.keychain-db")
pw_file = os.path.join(kk, "password.txt")
with open(pw_file, "w") as f:
    f.write(PASSWORD + "\n")
os.chmod(pw_file, 0o600)

t0 = time.monotonic()
subprocess.run([FIXTURE, pw_keychain, str(N), PASSWORD], env=base_env, check=True, stdout=subprocess.DEVNULL)
subprocess.run([FIXTURE, nopw_keychain, str(N)], env=base_env, check=True, stdout=subprocess.DEVNULL)
# The usual session: unlock once (scrypt runs here), later lookups adopt the shared unlock.
subprocess.run([KC, "unlock-keychain", pw_keychain, "-p"], input=(PASSWORD + "\n").encode(), env=base_env,
               check=True, stdout=subprocess.DEVNULL)
kk_fill_s = time.monotonic() - t0

conn = secretstorage.dbus_init()
coll = secretstorage.get_default_collection(conn)
t0 = time.monotonic()
gk_secrets = {}
for i in range(N):
    a = benchlib.acct(i)
    s = benchlib.secret_text()
    coll.create_item(f"bench {a}", {"service": "bench", "account": a, "username": a}, s.encode(), replace=True)
    gk_secrets[a] = s
gk_fill_s = time.monotonic() - t0

mid = N // 2
kk_account = f"acct-{mid:06d}"

# A copy of the password-less keychain whose write-ahead log is refilled before each of its runs.
wal_keychain = os.path.join(kk, "bigwal.keychain-db")
shutil.copyfile(nopw_keychain, wal_keychain)
os.chmod(wal_keychain, 0o600)
WAL_FILLER = r"""
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("PRAGMA journal_mode=WAL"); con.execute("PRAGMA synchronous=OFF"); con.execute("PRAGMA wal_autocheckpoint=0")
for i in range(1000):   # two pages per commit (the row, its key's index): 2,000 frames, about 8 MB
    con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('bench-wal-padding', ?)", (os.urandom(3000),))
con.execute("DELETE FROM meta WHERE key = 'bench-wal-padding'")
os._exit(0)   # exit without closing: SQLite would otherwise checkpoint and delete the log
"""


def refill_wal():
    subprocess.run([sys.executable, "-c", WAL_FILLER, wal_keychain], check=True)
    return os.path.getsize(wal_keychain + "-wal")



def kc(keychain, account, binary=KC, **extra):
    env = dict(base_env, KEYCHAINKIT_KEYCHAIN=keychain, **extra)
    return [binary, "find-generic-password", "-s", "bench", "-a", account, "-w"], env


variants = {
    "keychainctl find-generic-password -w (password keychain, shared unlock)": kc(pw_keychain, kk_account),
    "keychainctl find-generic-password -w (keychain without password)": kc(nopw_keychain, kk_account),
    "keychainctl find-generic-password -w (KEYCHAINKIT_PASSWORD_FILE: scrypt every run)":
        kc(pw_keychain, kk_account, KEYCHAINKIT_PASSWORD_FILE=pw_file, KEYCHAINKIT_SESSION_KEYRING="off"),
    "keychainctl find-generic-password (miss, exit 44)": kc(pw_keychain, "miss-000500"),
    **({
        "keychainctl as installed per README, find-generic-password -w (password keychain, shared unlock)": kc(pw_keychain, kk_account, KC_STATIC),
        "keychainctl as installed per README, find-generic-password -w (keychain without password)": kc(nopw_keychain, kk_account, KC_STATIC),
        # The first process after others left a large write-ahead log (processes that exit without
        # checkpointing can leave several MB): the log is rebuilt before every run, outside
        # the timing; the process pays the WAL recovery over it, and its exit checkpoint empties it.
        "keychainctl as installed per README, find-generic-password -w (keychain without password, 8 MB WAL left behind)":
            kc(wal_keychain, kk_account, KC_STATIC),
    } if KC_STATIC else {}),
    "secret-tool lookup (hit)": (["secret-tool", "lookup", "service", "bench", "account", benchlib.acct(mid)], None),
    "secret-tool lookup (miss)": (["secret-tool", "lookup", "service", "bench", "account", "miss-0500"], None),
    "/bin/true (spawn baseline)": (["/bin/true"], None),
}
expected = {
    "secret-tool lookup (hit)": gk_secrets[benchlib.acct(mid)].encode(),
}
# keychainctl must print a secret (the fixture's is random base64 text, 44 characters).
samples = {name: [] for name in variants}
wal_sizes = []
for round_ in range(WARMUP + RUNS):
    for name, (argv, env) in variants.items():
        if "WAL left behind" in name:
            wal_sizes.append(refill_wal())
        dt, p = benchlib.run_cmd(argv, env=env, check=False)
        if "miss" in name:
            ok = p.returncode != 0
        elif name.startswith("keychainctl"):
            ok = p.returncode == 0 and len(p.stdout.strip()) == 44
        elif name in expected:
            ok = p.returncode == 0 and p.stdout.strip() == expected[name]
        else:
            ok = p.returncode == 0
        if not ok:
            raise SystemExit(f"{name}: unexpected result rc={p.returncode} out={p.stdout[:60]!r} err={p.stderr[-300:]!r}")
        if round_ >= WARMUP:
            samples[name].append(dt)


def stats(values):
    s = sorted(values)
    return {"runs": len(s), "min_ms": round(s[0] / 1e6, 2), "median_ms": round(benchlib._pct(s, 50) / 1e6, 2),
            "p99_ms": round(benchlib._pct(s, 99) / 1e6, 2), "max_ms": round(s[-1] / 1e6, 2)}


result = {
    "N": N, "runs": RUNS, "warmup_rounds": WARMUP,
    "fill_seconds": {"keychainkit (2 keychains + unlock)": round(kk_fill_s, 2), "gnome-keyring (secretstorage)": round(gk_fill_s, 2)},
    "versions": benchlib.versions_of_debs(["gnome-keyring", "libsecret-tools"]),
    "whole_process": {name: stats(v) for name, v in samples.items()},
    "wal_bytes_before_runs": {"min": min(wal_sizes), "max": max(wal_sizes)} if wal_sizes else None,
    "wal_bytes_after_last_run": os.path.getsize(wal_keychain + "-wal") if os.path.exists(wal_keychain + "-wal") else 0,
}
conn.close()
with open(OUT, "w") as f:
    json.dump(result, f, indent=1)
print(f"{'command':<90} {'min':>7} {'median':>7} {'p99':>7} ms")
for name, st in result["whole_process"].items():
    print(f"{name:<90} {st['min_ms']:>7} {st['median_ms']:>7} {st['p99_ms']:>7}")
print(f"saved {OUT}")
