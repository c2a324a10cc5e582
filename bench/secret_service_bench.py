"""Secret Service lookup latency, gnome-keyring vs KeychainKit, run by bench/secret-service.sh.

Each provider runs on its own private dbus-daemon (a configuration with no service directories,
so nothing is activated behind its back) with throwaway HOME/XDG directories; both run at the
same time and the measurements alternate between them, so machine noise hits both alike.

Measured, RUNS times per provider:
  secret-tool lookup     the whole process (fork + exec + D-Bus connect + OpenSession + search +
                         GetSecret + exit), timed from Python around subprocess.run
  keyring.get_password   one call in a long-lived Python process (PYTHON_KEYRING_BACKEND forces the
                         SecretService backend; each call opens its own connection and session, as
                         keyring does), timed inside that process
Secrets go to the clients on stdin only. Every process started here is killed by its pid at exit.
"""
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

RUNS = int(os.environ.get("RUNS", "100"))
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


class Provider:
    def __init__(self, name):
        self.name = name
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
        for sub in ("home", "run", "data", "config", "cache"):
            os.makedirs(self.dir + "/" + sub, mode=0o700)
        with open(self.dir + "/bus.conf", "w") as f:
            f.write(BUS_CONF.format(socket=self.dir + "/bus"))
        self.processes = []
        self.error = None

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
        if self.name == "gnome-keyring":
            daemon = self.spawn(["/usr/bin/gnome-keyring-daemon", "--foreground", "--components=secrets", "--unlock"],
                                stdin=subprocess.PIPE, log="provider.log")
            daemon.stdin.write(b"bench-login-password")
            daemon.stdin.close()
        else:
            if not (KEYCHAINCTL and os.access(KEYCHAINCTL, os.X_OK)):
                self.error = "no keychainctl at %r" % KEYCHAINCTL
                return False
            daemon = self.spawn([KEYCHAINCTL, "secret-service"], log="provider.log")
        if self.wait(lambda: "boolean true" in self.bus_call("NameHasOwner", "string:org.freedesktop.secrets").stdout):
            return self.seed()
        if daemon.poll() is not None:
            self.error = "%s exited with %s: %s" % (self.name, daemon.returncode, self.log()[-300:])
        else:
            self.error = "no owner of org.freedesktop.secrets after 30 s"
        return False

    def bus_call(self, member, *arguments):
        return subprocess.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
                               "/org/freedesktop/DBus", "org.freedesktop.DBus." + member] + list(arguments),
                              env=self.env, capture_output=True, text=True)

    def wait(self, condition):
        """Polls condition every 50 ms for up to 30 s; stops early if a process started here exited."""
        deadline = time.time() + 30
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
        return True

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
    return "%.1f ms" % (statistics.median(ordered) * 1000), "%.1f ms" % (p90 * 1000)


def versions():
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}, ", "gnome-keyring", "libsecret-tools", "python3-keyring",
                          "python3-secretstorage", "dbus-daemon"], capture_output=True, text=True).stdout
    return out.strip().rstrip(",")


def main():
    providers = [Provider("gnome-keyring"), Provider("KeychainKit")]
    try:
        live = [p for p in providers if p.start()]
        samples = {(p.name, kind): [] for p in live for kind in ("secret-tool", "keyring")}
        for _ in range(3):  # warm-up, not counted
            for p in live:
                p.secret_tool_lookup()
                p.keyring_get()
        for _ in range(RUNS):
            for p in live:
                samples[(p.name, "secret-tool")].append(p.secret_tool_lookup())
                samples[(p.name, "keyring")].append(p.keyring_get())
        lines = ["| provider | `secret-tool lookup` (whole process) median / p90 | `keyring.get_password` (in process) median / p90 |",
                 "|---|---|---|"]
        for p in providers:
            if p.error is not None:
                lines.append("| %s | not measured: %s | |" % (p.name, p.error.replace("|", "/")))
                continue
            st = summary(samples[(p.name, "secret-tool")])
            kr = summary(samples[(p.name, "keyring")])
            lines.append("| %s | %s / %s | %s / %s |" % (p.name, st[0], st[1], kr[0], kr[1]))
        lines += ["", "%d runs each, interleaved, one run of bench/secret-service.sh on %s (%d cores); %s." %
                  (RUNS, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), os.cpu_count(), versions())]
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
