"""Secret Service read path of `keychainctl secret-service`: SearchItems and GetSecrets over many items.

    KEYCHAINCTL=<path> ITEMS=200 ROUNDS=20 [MODE=bulk|item|lookup] \
        [WRAP="valgrind --tool=callgrind --callgrind-out-file=F"] /usr/bin/python3 bench/secret_service_reads.py

MODE (what the rounds do; default bulk, described below): `item` reads every item with its own
Item.GetSecret over a DH session, one after another, as secretstorage's get_secret does (what
bench/secret-service.sh's "get_secret" column times); `lookup` runs `secret-tool lookup` of one
item ROUNDS times (a whole client process each). Both print the median per call.

WRAP, if set, is put before the provider's command line (split on spaces), e.g. callgrind to count
the provider's instructions: run with ROUNDS=0 and ROUNDS=N and divide the difference by N x ITEMS.
The provider is stopped with SIGTERM (it exits cleanly, so callgrind writes its file), SIGKILL after 300 s.

Starts a private dbus-daemon (no service directories) and the provider on a fresh keychain in a
throwaway directory (cheap test KDF: the store's read path is measured, not the KDF), stores ITEMS
items through secretstorage (secrets on its own memory, never argv), then ROUNDS times, in one
long-lived secretstorage connection with a plain session:
  search      Service.SearchItems({"kk-bench": "reads"})  (every item matches)
  getsecrets  Service.GetSecrets(all ITEMS paths)
each timed with time.perf_counter in the client. Prints the median and p90 of each, per item.
Every process started here is killed by its pid at exit.
"""
import os, shutil, signal, statistics, subprocess, sys, tempfile, time

KEYCHAINCTL = os.environ["KEYCHAINCTL"]
ITEMS = int(os.environ.get("ITEMS", "200"))
ROUNDS = int(os.environ.get("ROUNDS", "20"))

BUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={socket}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*" eavesdrop="true"/>
<allow eavesdrop="true"/></policy></busconfig>
"""

CLIENT = """
import os, statistics, sys, time, secretstorage
from secretstorage.dhcrypto import Session
from jeepney import new_method_call, DBusAddress
items, rounds = int(sys.argv[1]), int(sys.argv[2])
conn = secretstorage.dbus_init()
collection = secretstorage.get_default_collection(conn)
for index in range(items):
    collection.create_item("bench %d" % index, {"kk-bench": "reads", "n": str(index)}, b"secret-%d" % index)
service = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Service")
def call(member, signature, body):
    return conn.send_and_get_reply(new_method_call(service, member, signature, body), timeout=600).body
mode = os.environ.get("MODE", "bulk")
if mode == "item":
    found = list(collection.search_items({"kk-bench": "reads"}))
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for item in found:
            item.get_secret()
        times.append((time.perf_counter() - start) / items)
    if rounds:
        print("get_secret median %.0f us/item" % (statistics.median(times) * 1e6))
    sys.exit(0)
if mode == "lookup":
    import subprocess
    collection.create_item("lookup", {"service": "kk-lookup", "username": "alice"}, b"lookup-secret")
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run = subprocess.run(["/usr/bin/secret-tool", "lookup", "service", "kk-lookup", "username", "alice"], capture_output=True)
        times.append(time.perf_counter() - start)
        assert run.stdout == b"lookup-secret", run
    if rounds:
        print("secret-tool lookup median %.2f ms" % (statistics.median(times) * 1e3))
    sys.exit(0)
_, session_path = call("OpenSession", "sv", ("plain", ("s", "")))
search, get = [], []
for _ in range(rounds):
    start = time.perf_counter(); unlocked, _ = call("SearchItems", "a{ss}", ({"kk-bench": "reads"},)); search.append(time.perf_counter() - start)
    assert len(unlocked) == items, len(unlocked)
    start = time.perf_counter(); secrets = call("GetSecrets", "aoo", (unlocked, session_path))[0]; get.append(time.perf_counter() - start)
    assert len(secrets) == items
def row(name, values):
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
    print("%-10s median %.1f ms (%.0f us/item)  p90 %.1f ms" % (name, statistics.median(values) * 1e3, statistics.median(values) * 1e6 / items, p90 * 1e3))
if rounds:
    row("search", search)
    row("getsecrets", get)
"""

def main():
    directory = tempfile.mkdtemp(prefix="kk-ssr-", dir="/tmp")
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": directory, "XDG_RUNTIME_DIR": directory,
           "DBUS_SESSION_BUS_ADDRESS": "unix:path=%s/bus" % directory, "PYTHONNOUSERSITE": "1",
           "KEYCHAINKIT_KEYCHAIN": directory + "/keychains/login.keychain-db",
           "KEYCHAINKIT_DEVICE_KEY_FILE": directory + "/state/device.key", "KEYCHAINKIT_TESTING_KDF": "1",
           "MODE": os.environ.get("MODE", "bulk")}
    with open(directory + "/bus.conf", "w") as f:
        f.write(BUS_CONF.format(socket=directory + "/bus"))
    started = []
    try:
        bus = subprocess.Popen(["dbus-daemon", "--nofork", "--config-file=" + directory + "/bus.conf"], env=env,
                               stderr=subprocess.DEVNULL)
        started.append(bus)
        while not os.path.exists(directory + "/bus"):
            time.sleep(0.05)
        wrap = os.environ.get("WRAP", "").split()
        provider = subprocess.Popen(wrap + [KEYCHAINCTL, "secret-service"], env=env, stderr=subprocess.DEVNULL)
        started.append(provider)
        while subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                              "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"],
                             env=env, capture_output=True, text=True).stdout.find("true") < 0:
            time.sleep(0.1)
        subprocess.run(["/usr/bin/python3", "-c", CLIENT, str(ITEMS), str(ROUNDS)], env=env, check=True)
        provider.send_signal(signal.SIGTERM)
        try:
            provider.wait(timeout=300)
        except subprocess.TimeoutExpired:
            pass
    finally:
        for process in reversed(started):
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                process.wait()
        shutil.rmtree(directory, ignore_errors=True)

main()
