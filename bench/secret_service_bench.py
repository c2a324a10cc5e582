"""Secret Service, gnome-keyring vs KeychainKit at ITEMS items, run by bench/secret-service.sh.

Each provider runs on its own private dbus-daemon (a configuration with no service directories,
so nothing is activated behind its back) with throwaway HOME/XDG directories and a fresh store;
all run at the same time and the measurements alternate between them (A, B, A, B, ...), so
machine noise hits both alike. Each store is filled with ITEMS items (default 1000) by one
secretstorage process (label "bench N", attributes kk-bench-set=all, service=kk-fill,
username=user-N), plus the looked-up item (service=kk-bench, username=alice).
With LARGE=10000 a third provider, KeychainKit with that many items, is measured for lookups too.
With SYNC_COMPARE=1 (the default) a second KeychainKit provider runs with KEYCHAINKIT_ACCESS_LOG_SYNC_MS=0
(every read's access-log entry synced before its secret leaves) beside the default one (synced
within 10 ms), so the access log's two durability designs are measured in the same run.

Measured per provider, interleaved:
  secret-tool lookup     (RUNS rounds) the whole process (fork + exec + D-Bus connect +
                         OpenSession + search + GetSecret + exit), timed around subprocess.run
  keyring.get_password   (RUNS rounds) one call in a long-lived Python process (a connection and
                         a DH session per call, as keyring does), timed inside that process
  get_secret, all items  (BULK_RUNS rounds) Item.GetSecret of every filled item, one call after
                         another, in a long-lived secretstorage process; reported per item
  secret-tool store      (BULK_RUNS rounds) of a new item (attributes never used before), whole process
  secret-tool search     (BULK_RUNS rounds) --all --unlock kk-bench-set all: every filled item with
                         its secret and attributes, whole process
  search --all, python   (BULK_RUNS rounds) what `secret-tool search --all` asks, made by one new
                         Python process (jeepney through secretstorage): OpenSession, SearchItems,
                         one GetSecrets of every item found, Properties.GetAll of each, every secret
                         decrypted; whole process (the interpreter's start-up included, alike for all)
Secrets go to the clients on stdin only. Every process started here is killed by its pid at exit.
"""
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

RUNS = int(os.environ.get("RUNS", "100"))
BULK_RUNS = int(os.environ.get("BULK_RUNS", "5"))
ITEMS = int(os.environ.get("ITEMS", "1000"))
LARGE = int(os.environ.get("LARGE", "0"))
SYNC_COMPARE = os.environ.get("SYNC_COMPARE", "1") == "1"
KEYCHAINCTL = os.environ.get("KEYCHAINCTL", "")
OUT = os.environ.get("OUT", "")
PY = "/usr/bin/python3"
SECRET = "bench-secret ✓"

BUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

# One process per provider: reads "go" lines on stdin, answers each with the call's seconds.
KEYRING_LOOP = """
import sys, time, keyring
for line in sys.stdin:
    start = time.perf_counter()
    value = keyring.get_password("kk-bench", "alice")
    elapsed = time.perf_counter() - start
    print(elapsed if value is not None else "miss", flush=True)
"""

# Fills the default collection with argv[1] items, then, per "go" line, reads every filled item's
# secret (Item.GetSecret, one after another) and answers with the seconds it took.
FILL_AND_READ = """
import sys, time, secretstorage
count = int(sys.argv[1])
connection = secretstorage.dbus_init()
collection = secretstorage.get_default_collection(connection)
if collection.is_locked():
    collection.unlock()
for index in range(count):
    collection.create_item("bench %d" % index, {"kk-bench-set": "all", "service": "kk-fill", "username": "user-%d" % index},
                           b"fill-secret-%d" % index)
items = list(collection.search_items({"kk-bench-set": "all"}))
assert len(items) == count, (len(items), count)
print("filled", flush=True)
for line in sys.stdin:
    start = time.perf_counter()
    for item in items:
        item.get_secret()
    print(time.perf_counter() - start, flush=True)
"""


# `secret-tool search --all` made by hand: one GetSecrets of every item found, the properties of each.
SEARCH_ALL = """
import sys, secretstorage
from jeepney import Properties
from secretstorage.defines import SS_PATH, SS_PREFIX
from secretstorage.util import DBusAddressWrapper, SERVICE_IFACE, open_session
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
connection = secretstorage.dbus_init()
session = open_session(connection)
service = DBusAddressWrapper(SS_PATH, SERVICE_IFACE, connection)
unlocked, locked = service.call("SearchItems", "a{ss}", {"kk-bench-set": "all"})
secrets, = service.call("GetSecrets", "aoo", unlocked, session.object_path)
found = 0
for path in unlocked:
    item = DBusAddressWrapper(path, SS_PREFIX + "Item", connection)
    properties, = item.send_and_get_reply(Properties(item).get_all())
    secret = secrets[path]
    if session.encrypted:
        decryptor = Cipher(algorithms.AES(session.aes_key), modes.CBC(bytes(secret[1]))).decryptor()
        padded = decryptor.update(bytes(secret[2])) + decryptor.finalize()
        value = padded[:-padded[-1]]
    else:
        value = bytes(secret[2])
    if value.startswith(b"fill-secret-") and "Attributes" in properties:
        found += 1
print(found)
"""


class Provider:
    def __init__(self, name, items, extra_env=None):
        self.name = name
        self.items = items
        self.stores = 0
        self.dir = tempfile.mkdtemp(prefix="kk-ssb-", dir="/tmp")
        self.env = {
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
            "HOME": self.dir + "/home", "XDG_RUNTIME_DIR": self.dir + "/run", "XDG_DATA_HOME": self.dir + "/data",
            "XDG_CONFIG_HOME": self.dir + "/config", "XDG_CACHE_HOME": self.dir + "/cache",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=%s/bus" % self.dir,
            "PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring", "PYTHONNOUSERSITE": "1",
            "KEYCHAINKIT_KEYCHAIN": self.dir + "/keychains/login.keychain-db",
            "KEYCHAINKIT_DEVICE_KEY_FILE": self.dir + "/state/device.key",
        }
        self.env.update(extra_env or {})
        for sub in ("home", "run", "data", "config", "cache"):
            os.makedirs(self.dir + "/" + sub, mode=0o700)
        with open(self.dir + "/bus.conf", "w") as f:
            f.write(BUS_CONF.format(socket=self.dir + "/bus"))
        self.processes = []
        self.error = None
        self.daemon = None
        self.wrap = []  # put before the provider's command line (bench/secret_service_instructions.py: callgrind)

    def spawn(self, argv, stdin=subprocess.DEVNULL, log="log"):
        process = subprocess.Popen(argv, env=self.env, stdin=stdin, stdout=open(self.dir + "/" + log, "ab"),
                                   stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append(process)
        return process

    def start(self):
        self.spawn(["/usr/bin/dbus-daemon", "--config-file=" + self.dir + "/bus.conf", "--nofork"], log="dbus.log")
        # A provider started before the bus listens never gets the name (gnome-keyring runs on without it).
        if not self.wait(lambda: self.bus_call("GetId").returncode == 0):
            self.error = "the private bus did not answer"
            return False
        return self.start_provider() and self.seed()

    def start_provider(self, timeout=30):
        """Starts the provider (behind self.wrap) and waits up to timeout seconds for it to own the name."""
        if self.name == "gnome-keyring":
            daemon = self.spawn(self.wrap + ["/usr/bin/gnome-keyring-daemon", "--foreground", "--components=secrets", "--unlock"],
                                stdin=subprocess.PIPE, log="provider.log")
            daemon.stdin.write(b"bench-login-password")
            daemon.stdin.close()
        else:
            if not (KEYCHAINCTL and os.access(KEYCHAINCTL, os.X_OK)):
                self.error = "no keychainctl at %r" % KEYCHAINCTL
                return False
            daemon = self.spawn(self.wrap + [KEYCHAINCTL, "secret-service"], log="provider.log")
        self.daemon = daemon
        if self.wait(lambda: "boolean true" in self.bus_call("NameHasOwner", "string:org.freedesktop.secrets").stdout, timeout):
            return True
        if daemon.poll() is not None:
            self.error = "%s exited with %s: %s" % (self.name, daemon.returncode, self.log()[-300:])
        else:
            self.error = "no owner of org.freedesktop.secrets after %d s" % timeout
        return False

    def bus_call(self, member, *arguments):
        return subprocess.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
                               "/org/freedesktop/DBus", "org.freedesktop.DBus." + member] + list(arguments),
                              env=self.env, capture_output=True, text=True)

    def wait(self, condition, timeout=30):
        """Polls condition every 50 ms for up to timeout seconds; stops early if a process started here exited."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if condition():
                return True
            if any(p.poll() is not None for p in self.processes):
                return False
            time.sleep(0.05)
        return False

    def log(self):
        try:
            with open(self.dir + "/provider.log", errors="replace") as f:
                return f.read().replace("\n", " ")
        except OSError:
            return ""

    def seed(self):
        store = subprocess.run(["/usr/bin/secret-tool", "store", "--label=bench", "service", "kk-bench", "username", "alice"],
                               env=self.env, input=SECRET.encode(), capture_output=True)
        check = subprocess.run(["/usr/bin/secret-tool", "lookup", "service", "kk-bench", "username", "alice"],
                               env=self.env, capture_output=True)
        if store.returncode != 0 or check.stdout != SECRET.encode():
            self.error = "seeding failed: %s" % store.stderr.decode(errors="replace")[-300:]
            return False
        self.loop = subprocess.Popen([PY, "-c", KEYRING_LOOP], env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.processes.append(self.loop)
        started = time.perf_counter()
        self.reader = subprocess.Popen([PY, "-c", FILL_AND_READ, str(self.items)], env=self.env, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
        self.processes.append(self.reader)
        if self.reader.stdout.readline().strip() != "filled":
            self.error = "filling %d items failed" % self.items
            return False
        self.fill_seconds = time.perf_counter() - started
        return True

    def get_all(self):
        self.reader.stdin.write("go\n")
        self.reader.stdin.flush()
        answer = self.reader.stdout.readline().strip()
        if not answer:
            raise RuntimeError("%s: reading every item failed" % self.name)
        return float(answer) / self.items

    def secret_tool_store(self):
        self.stores += 1
        start = time.perf_counter()
        run = subprocess.run(["/usr/bin/secret-tool", "store", "--label=new", "service", "kk-new", "username", "new-%d" % self.stores],
                             env=self.env, input=b"new-secret", capture_output=True)
        elapsed = time.perf_counter() - start
        if run.returncode != 0:
            raise RuntimeError("%s: secret-tool store failed: %s" % (self.name, run.stderr.decode(errors="replace")[-300:]))
        return elapsed

    def secret_tool_search_all(self):
        start = time.perf_counter()
        run = subprocess.run(["/usr/bin/secret-tool", "search", "--all", "--unlock", "kk-bench-set", "all"], env=self.env, capture_output=True)
        elapsed = time.perf_counter() - start
        found = (run.stdout + run.stderr).count(b"fill-secret-")
        if run.returncode != 0 or found != self.items:
            raise RuntimeError("%s: secret-tool search --all found %d of %d items (status %d: %s)" % (
                self.name, found, self.items, run.returncode, run.stderr.decode(errors="replace").strip()[-200:]))
        return elapsed

    def python_search_all(self):
        start = time.perf_counter()
        run = subprocess.run([PY, "-c", SEARCH_ALL], env=self.env, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if run.returncode != 0 or run.stdout.strip() != str(self.items):
            raise RuntimeError("%s: search --all (python) found %s of %d items: %s" % (
                self.name, run.stdout.strip() or "none", self.items, run.stderr.strip()[-200:]))
        return elapsed

    def secret_tool_lookup(self):
        start = time.perf_counter()
        run = subprocess.run(["/usr/bin/secret-tool", "lookup", "service", "kk-bench", "username", "alice"],
                             env=self.env, capture_output=True)
        elapsed = time.perf_counter() - start
        if run.stdout != SECRET.encode():
            raise RuntimeError("%s: secret-tool lookup did not return the secret (status %d)" % (self.name, run.returncode))
        return elapsed

    def keyring_get(self):
        self.loop.stdin.write("go\n")
        self.loop.stdin.flush()
        answer = self.loop.stdout.readline().strip()
        if answer in ("", "miss"):
            raise RuntimeError("%s: keyring.get_password found nothing" % self.name)
        return float(answer)

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    process.kill()
            process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def summary(samples):
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return "%.2f ms" % (statistics.median(ordered) * 1000), "%.2f ms" % (p90 * 1000)


def versions():
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}, ", "gnome-keyring", "libsecret-tools", "python3-keyring",
                          "python3-secretstorage", "dbus-daemon"], capture_output=True, text=True).stdout
    return out.strip().rstrip(",")


def ratio(samples, name, base, kind):
    if (base, kind) not in samples or (name, kind) not in samples:
        return ""
    return " (%.2f×)" % (statistics.median(samples[(name, kind)]) / statistics.median(samples[(base, kind)]))


def main():
    providers = [Provider("gnome-keyring", ITEMS), Provider("KeychainKit", ITEMS)]
    if SYNC_COMPARE:
        providers.append(Provider("KeychainKit, sync every read", ITEMS, {"KEYCHAINKIT_ACCESS_LOG_SYNC_MS": "0"}))
    if LARGE:
        providers.append(Provider("KeychainKit, %d items" % LARGE, LARGE))
    try:
        live = [p for p in providers if p.start()]
        full = [p for p in live if p.items == ITEMS]
        samples = {}
        failures = {}
        def add(p, kind, measure):
            # A failed call is reported in its cell (the first failure's message); the other
            # measurements go on, so one failing operation does not lose the whole run.
            try:
                value = measure()
                samples.setdefault((p.name, kind), []).append(value)
            except RuntimeError as error:
                failures.setdefault((p.name, kind), str(error))
        for _ in range(3):  # warm-up, not counted
            for p in live:
                p.secret_tool_lookup()
                p.keyring_get()
        for _ in range(RUNS):
            for p in live:
                add(p, "lookup", p.secret_tool_lookup)
                add(p, "keyring", p.keyring_get)
        for _ in range(BULK_RUNS):
            for p in full:
                add(p, "get_all", p.get_all)
                add(p, "store", p.secret_tool_store)
                add(p, "search", p.secret_tool_search_all)
                add(p, "search_py", p.python_search_all)
        base = "gnome-keyring"
        lines = ["| provider | items | `secret-tool lookup` median / p90 | `keyring.get_password` median / p90 | "
                 "`get_secret`, every item, per item, median / p90 | `secret-tool store` (new item) median / p90 | "
                 "`secret-tool search --all --unlock` (every item) median / p90 | search --all in Python (every item) median / p90 |",
                 "|---|---:|---|---|---|---|---|---|"]
        for p in providers:
            if p.error is not None:
                lines.append("| %s | %d | not measured: %s | | | | | |" % (p.name, p.items, p.error.replace("|", "/")))
                continue
            cells = []
            for kind in ("lookup", "keyring", "get_all", "store", "search", "search_py"):
                if (p.name, kind) not in samples:
                    cells.append(("failed: " + failures[(p.name, kind)].replace("|", "/")) if (p.name, kind) in failures else "—")
                    continue
                median, p90 = summary(samples[(p.name, kind)])
                cells.append("%s / %s%s" % (median, p90, ratio(samples, p.name, base, kind) if p.name != base else ""))
                if (p.name, kind) in failures:
                    cells[-1] += " (some rounds failed: %s)" % failures[(p.name, kind)].replace("|", "/")
            lines.append("| %s | %d | %s |" % (p.name, p.items, " | ".join(cells)))
        if LARGE and ("KeychainKit, %d items" % LARGE, "lookup") in samples and ("KeychainKit", "lookup") in samples:
            lines += ["", "`secret-tool lookup` at %d items / at %d items: %.2f×." % (
                LARGE, ITEMS, statistics.median(samples[("KeychainKit, %d items" % LARGE, "lookup")])
                / statistics.median(samples[("KeychainKit", "lookup")]))]
        fills = ", ".join("%s %.0f s" % (p.name, p.fill_seconds) for p in live)
        lines += ["", "%d rounds of lookups, %d of the rest, interleaved, after 3 warm-up rounds; one run of "
                  "bench/secret-service.sh on %s (%d cores, load average %.1f at the end); filling the stores "
                  "through secretstorage took %s; (×: median over gnome-keyring's); %s." %
                  (RUNS, BULK_RUNS, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(),
                   os.getloadavg()[0], fills, versions())]
        table = "\n".join(lines) + "\n"
        print(table, end="", flush=True)
        if OUT:
            with open(OUT, "w") as f:
                f.write(table)
            print("written to " + OUT, file=sys.stderr)
    finally:
        for p in providers:
            p.stop()


if __name__ == "__main__":
    main()
