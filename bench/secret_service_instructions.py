"""Instructions per read of gnome-keyring-daemon and `keychainctl secret-service`, run by
bench/secret-service-instructions.sh.

Instruction counts do not move with the machine's load, so this is the figure to compare when the
wall-clock ratios of bench/secret-service.sh are decided by other processes sharing the cores.

For each provider, set up as bench/secret_service_bench.py does (its own private dbus-daemon,
throwaway HOME/XDG directories, ITEMS items filled through secretstorage, plus the looked-up item):
the provider is filled at full speed, stopped (SIGTERM), and started again on the same store under
`valgrind --tool=callgrind`. Then, with the counters zeroed (`callgrind_control -z`) before and
dumped (`callgrind_control -d`) after each measured window, one long-lived secretstorage process does:

  get_secret   secretstorage's Item.get_secret() of READS items (100, spread over the store), one after another, over one DH
               session (each is Properties.Get("Locked") then Item.GetSecret, as
               bench/secret-service.sh's "get_secret" column times after its first round)
  GetSecret    Item.GetSecret alone of the same items over the same session (jeepney)
  lookup       LOOKUPS whole `secret-tool lookup` processes (connection, OpenSession with DH,
               SearchItems, the item's properties, GetSecrets)
  idle         IDLE_SECONDS with no call: what the provider spends on its own per second (timers)

and prints the provider's instructions per call of each (the window's total over its calls).
Before the restart, at full speed, CPU_ROUNDS (3) rounds of get_secret over every item give the
provider's CPU time per get_secret (user + system from /proc/<pid>/stat: the kernel's work for it,
thread starts and system calls, which callgrind does not count, included).
KEEP=dir keeps the callgrind files there (callgrind_annotate FILE shows where the instructions go).
Every process started here is killed by its pid at exit.
"""
import glob, os, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import secret_service_bench as bench  # noqa: E402

ITEMS = int(os.environ.get("ITEMS", "1000"))
READS = int(os.environ.get("READS", "100"))
LOOKUPS = int(os.environ.get("LOOKUPS", "10"))
IDLE_SECONDS = float(os.environ.get("IDLE_SECONDS", "5"))
CPU_ROUNDS = int(os.environ.get("CPU_ROUNDS", "3"))
KEEP = os.environ.get("KEEP", "")
START_TIMEOUT = 600  # seconds for a provider to start under callgrind (it reads the 1,000 items' attributes)

# Reads "get_secret", "GetSecret" or "quit" lines; answers each with the number of calls made.
READER = """
import sys, secretstorage
from jeepney import new_method_call, DBusAddress
from secretstorage.util import open_session
connection = secretstorage.dbus_init()
collection = secretstorage.get_default_collection(connection)
found = list(collection.search_items({"kk-bench-set": "all"}))
assert len(found) == int(sys.argv[1]), len(found)
# READS items spread over the whole store: under callgrind a read costs the provider tens of
# milliseconds, so a window reads a sample, not all 1,000.
items = found[::max(1, len(found) // int(sys.argv[2]))][:int(sys.argv[2])]
session = open_session(connection)
for item in items[:10]:  # warm-up: one DH session for all (a session per item costs only its first read)
    item.session = session
    assert item.get_secret().startswith(b"fill-secret-")
for item in items:
    item.session = session
print(len(found), flush=True)
for line in sys.stdin:
    mode = line.strip()
    if mode == "get_secret":
        for item in items:
            item.get_secret()
    elif mode == "GetSecret":
        for item in items:
            address = DBusAddress(item.item_path, bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Item")
            reply = connection.send_and_get_reply(new_method_call(address, "GetSecret", "o", (session.object_path,)), timeout=600)
            assert reply.header.message_type.value == 2, reply.body
    else:
        break
    print(len(items), flush=True)
"""


def callgrind_control(option, pid):
    run = subprocess.run(["callgrind_control", option, str(pid)], capture_output=True, text=True)
    if run.returncode != 0 or "OK" not in run.stdout:
        raise RuntimeError("callgrind_control %s %d: %s" % (option, pid, (run.stdout + run.stderr).strip()[-300:]))


def window(provider, output, label, work):
    """Zeroes the provider's counters, runs work() (returns its number of calls), dumps; returns the
    instructions counted in between and the number of calls."""
    pid = provider.daemon.pid
    before = set(glob.glob(output + ".*"))
    callgrind_control("-z", pid)
    calls = work()
    callgrind_control("-d", pid)
    deadline = time.time() + 120
    while True:
        dumps = sorted(set(glob.glob(output + ".*")) - before)
        if dumps and any(line.startswith("totals:") for line in open(dumps[-1], errors="replace")):
            break
        if time.time() > deadline:
            raise RuntimeError("%s: no callgrind dump after %s" % (provider.name, label))
        time.sleep(0.2)
    dump = dumps[-1]
    total = next(int(line.split()[1]) for line in open(dump, errors="replace") if line.startswith("totals:"))
    if KEEP:
        shutil.copy(dump, os.path.join(KEEP, "%s.%s.callgrind" % (provider.name.replace(" ", "-"), label)))
    return total, calls


def cpu_seconds(pid):
    """The process's user and system CPU time so far, its ended threads included (/proc/<pid>/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def native_cpu(provider):
    """CPU time (user + system, the kernel's work for it included) the provider spends per
    secretstorage get_secret, over CPU_ROUNDS rounds of every item, at full speed (no valgrind)."""
    reader = subprocess.Popen([bench.PY, "-c", READER, str(provider.items), str(provider.items)], env=provider.env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    provider.processes.append(reader)
    if int(reader.stdout.readline() or 0) != provider.items:
        raise RuntimeError("%s: the reader did not find the %d items" % (provider.name, provider.items))
    before = cpu_seconds(provider.daemon.pid)
    calls = 0
    for _ in range(CPU_ROUNDS):
        reader.stdin.write("get_secret\n")
        reader.stdin.flush()
        calls += int(reader.stdout.readline() or 0)
    used = cpu_seconds(provider.daemon.pid) - before
    reader.stdin.write("quit\n")
    reader.stdin.flush()
    reader.wait()
    provider.processes.remove(reader)  # ended: Provider.wait stops early while a process it started has exited
    return used / max(calls, 1)


def measure(provider, valgrind_binary):
    output = os.path.join(provider.dir, "callgrind.out")
    if not provider.start():
        raise RuntimeError("%s: %s" % (provider.name, provider.error))
    cpu = native_cpu(provider)
    provider.daemon.terminate()
    provider.daemon.wait(timeout=60)
    provider.processes.remove(provider.daemon)
    provider.wrap = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + output, "--dump-instr=no"]
    if provider.name != "gnome-keyring":
        bench.KEYCHAINCTL = valgrind_binary
    if not provider.start_provider(timeout=START_TIMEOUT):
        raise RuntimeError("%s under callgrind: %s" % (provider.name, provider.error))
    reader = subprocess.Popen([bench.PY, "-c", READER, str(provider.items), str(READS)], env=provider.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    provider.processes.append(reader)
    if int(reader.stdout.readline() or 0) != provider.items:
        raise RuntimeError("%s: the reader did not find the %d items" % (provider.name, provider.items))

    def ask(mode):
        def work():
            reader.stdin.write(mode + "\n")
            reader.stdin.flush()
            return int(reader.stdout.readline() or 0)
        return work

    def lookups():
        for _ in range(LOOKUPS):
            provider.secret_tool_lookup()
        return LOOKUPS

    def idle():
        time.sleep(IDLE_SECONDS)
        return 1

    results = {}
    for label, work in (("get_secret", ask("get_secret")), ("GetSecret", ask("GetSecret")), ("lookup", lookups),
                        ("idle", idle)):
        results[label] = window(provider, output, label, work)
    reader.stdin.write("quit\n")
    reader.stdin.flush()
    results["cpu"] = cpu
    return results


def main():
    keychainctl = bench.KEYCHAINCTL
    valgrind_binary = os.environ.get("VALGRIND_KEYCHAINCTL", keychainctl)
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
    rows = []
    for name in ("gnome-keyring", "KeychainKit"):
        bench.KEYCHAINCTL = keychainctl
        # Same hash seeds in every run: dictionary layouts, and so the counts, repeat.
        provider = bench.Provider(name, ITEMS, {"SWIFT_DETERMINISTIC_HASHING": "1"})
        try:
            results = measure(provider, valgrind_binary)
        finally:
            provider.stop()
        cells = []
        for label in ("get_secret", "GetSecret", "lookup"):
            total, calls = results[label]
            cells.append("{:,}".format(total // max(calls, 1)))
        cells.append("{:,}".format(int(results["idle"][0] / IDLE_SECONDS)))
        cells.append("%.0f µs" % (results["cpu"] * 1e6))
        rows.append("| %s | %s |" % (name, " | ".join(cells)))
        print(rows[-1], file=sys.stderr, flush=True)
    print("| provider, %d items, instructions | per `get_secret` (Locked + GetSecret) | per `Item.GetSecret` | "
          "per `secret-tool lookup` | idle, per second | CPU time per `get_secret`, natively |" % ITEMS)
    print("|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print("\ncallgrind (valgrind %s) on the provider only, counters zeroed before and dumped after each window; "
          "%d items, %d lookups; %s." % (subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip(),
                                         ITEMS, LOOKUPS, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))


if __name__ == "__main__":
    main()
