"""Prints the comparison table of one bench/run.sh run (markdown): python3 bench/summarize.py RESULTS_DIR

RESULTS_DIR holds run.jmh.json (KeychainKit's benchmarks, exported from the ordo-one/benchmark
baseline), cli_lookup.json (bench/cli_lookup.py), anchors/*.json (the anchors' own result files),
kdf.json and machine.txt. Every ratio below compares figures measured in that one run.
"""
import glob
import json
import os
import sys

D = sys.argv[1] if len(sys.argv) > 1 else "."


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# ---- KeychainKit (JMH export: percentiles of every metric, time metrics in µs) -------------------
ours = {}
for path in glob.glob(os.path.join(D, "*.jmh.json")):
    for element in load(path) or []:
        # The JMH name is "package.benchmark.<target>.<name with spaces as _>"; looked up the same way.
        name = element["benchmark"].split(".", 3)[-1]
        metrics = {"Throughput (# / s)": element["primaryMetric"]}
        metrics.update(element.get("secondaryMetrics", {}))
        ours[name] = {k: v for k, v in metrics.items()}


def ours_metric(name, metric="Time (wall clock)", pct="50.0"):
    b = ours.get(name.replace(" ", "_"))
    if not b:
        return None
    for key, value in b.items():
        if key.startswith(metric):
            return value["scorePercentiles"].get(pct)
    return None


def samples(name):
    b = ours.get(name.replace(" ", "_"))
    if not b:
        return None
    for key, value in b.items():
        if key.startswith("Time (wall clock)"):
            return len(value.get("rawData", [[]])[0])
    return None


anchors = {}
for path in glob.glob(os.path.join(D, "anchors", "*.json")):
    data = load(path)
    if data:
        anchors[data.get("store", os.path.basename(path))] = data
cli = load(os.path.join(D, "cli_lookup.json")) or {}
kdf = load(os.path.join(D, "kdf.json"))


def get(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def fmt_us(v):
    if v is None:
        return "–"
    return f"{v:,.1f} µs" if v < 1000 else f"{v / 1000:,.2f} ms"


def fmt_ms(v):
    return "–" if v is None else f"{v:,.2f} ms"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


out = []
p = out.append

machine = ""
try:
    machine = open(os.path.join(D, "machine.txt")).read().strip()
except OSError:
    pass
p("# KeychainKit vs the Linux secret stores, one run\n")
if machine:
    p("```\n" + machine + "\n```\n")

# ---- targets ---------------------------------------------------------------------------------
hit_1k = ours_metric("SecItemCopyMatching hit @ 1000")
hit_100 = ours_metric("SecItemCopyMatching hit @ 100")
hit_100k = ours_metric("SecItemCopyMatching hit @ 100000")
miss_1k = ours_metric("SecItemCopyMatching miss @ 1000")
add_1k = ours_metric("SecItemAdd @ 1000")
fsync = ours_metric("fsync after a 4 KiB pwrite (disk floor)")
fdatasync = ours_metric("fdatasync after a 4 KiB pwrite (disk floor)")
gk = anchors.get("gnome-keyring", {})
pk_get_1000 = get(gk, "c_size_1000", "python_keyring_get_hit", "median_us")
pk_items = get(gk, "c_size_1000", "items")
if pk_get_1000 is None:
    pk_get_1000 = get(gk, "a_python_keyring", "get_hit", "median_us")
    pk_items = get(gk, "N")
sq = anchors.get("sqlite-aesgcm", {})
floor_get = get(sq, "a_in_process_synchronous_FULL", "get_hit (indexed SELECT + AES-GCM decrypt)", "median_us")
floor_set = get(sq, "a_in_process_synchronous_FULL", "set_create (1 txn per write)", "median_us")
floor_miss = get(sq, "a_in_process_synchronous_FULL", "get_miss", "median_us")
py_fsync = get(sq, "fsync_4KiB_pwrite_then_os.fsync", "median_us")
wp = cli.get("whole_process", {})
kc_cli_dynamic = get(wp, "keychainctl find-generic-password -w (password keychain, shared unlock)", "median_ms")
kc_cli_static = get(wp, "keychainctl as installed per README, find-generic-password -w (password keychain, shared unlock)", "median_ms")
kc_cli = kc_cli_static if kc_cli_static is not None else kc_cli_dynamic
kc_cli_label = "as installed per README: --static-swift-stdlib" if kc_cli_static is not None else "dynamically linked"
st_cli = get(wp, "secret-tool lookup (hit)", "median_ms")


def verdict(value, limit, larger_is_better=False):
    if value is None:
        return "not measured"
    ok = value >= limit if larger_is_better else value <= limit
    return "**met**" if ok else "**missed**"


r1 = ratio(pk_get_1000, hit_1k)
r2 = ratio(hit_1k, floor_get)
r2m = ratio(miss_1k, floor_miss)
r3 = ratio(add_1k, floor_set)
r4 = ratio(hit_100k, hit_100)
r5 = ratio(kc_cli, st_cli)
cli_ok = None if kc_cli is None or r5 is None else (kc_cli <= 10.0 and r5 < 1.0)
p("## Targets (medians, same run)\n")
p("| target | KeychainKit | compared with | ratio | goal | result |")
p("|---|---:|---:|---:|---:|---|")
p(f"| in-process read vs Python keyring over GNOME Keyring ({pk_items} items) | {fmt_us(hit_1k)} (`SecItemCopyMatching`, 1k items) | "
  f"{fmt_us(pk_get_1000)} (`keyring.get_password`) | {r1:,.0f}× faster | ≥ 50× | {verdict(r1, 50, True)} |" if r1 else
  "| in-process read vs Python keyring | – | – | – | ≥ 50× | not measured |")
p(f"| read hit vs SQLite + AES-GCM floor (1000 rows) | {fmt_us(hit_1k)} (`SecItemCopyMatching`) | {fmt_us(floor_get)} (Python sqlite3 + cryptography) | "
  f"{r2:.2f}× | ≤ 2× | {verdict(r2, 2)} |" if r2 else "| read hit vs SQLite + AES-GCM floor | – | – | – | ≤ 2× | not measured |")
p(f"| read miss vs the floor's miss (1000 rows) | {fmt_us(miss_1k)} | {fmt_us(floor_miss)} | "
  f"{r2m:.2f}× | ≤ 2× | {verdict(r2m, 2)} |" if r2m else "| read miss vs the floor's miss | – | – | – | ≤ 2× | not measured |")
p(f"| durable add vs the floor's durable insert (synchronous=FULL) | {fmt_us(add_1k)} (`SecItemAdd`, 1k items) | {fmt_us(floor_set)} | "
  f"{r3:.2f}× | ≤ 1.2× | {verdict(r3, 1.2)} |" if r3 else "| durable add vs the floor's insert | – | – | – | ≤ 1.2× | not measured |")
p(f"| read at 100k items vs at 100 | {fmt_us(hit_100k)} | {fmt_us(hit_100)} | {r4:.2f}× | ≤ 1.2× | {verdict(r4, 1.2)} |" if r4 else
  "| read at 100k vs 100 | – | – | – | ≤ 1.2× | not measured |")
hit_mallocs = ours_metric("SecItemCopyMatching hit @ 1000", "Malloc (total)")
p(f"| mallocs per read hit (1k items, whole call as an app makes it) | {hit_mallocs} | – | – | ≤ 40 | {verdict(hit_mallocs, 40)} |"
  if hit_mallocs is not None else "| mallocs per read hit | – | – | – | ≤ 40 | not measured |")
p(f"| CLI lookup, whole process (1000 items each) | {fmt_ms(kc_cli)} (`keychainctl find-generic-password -w`, {kc_cli_label}, shared unlock) | {fmt_ms(st_cli)} (`secret-tool lookup`) | {r5:.2f}× | ≤ 10 ms and < 1× | {'**met**' if cli_ok else '**missed**'} |" if r5 else
  "| CLI lookup vs secret-tool | – | – | – | ≤ 10 ms and < 1× | not measured |")
p("")
if kc_cli_static is not None and kc_cli_dynamic is not None:
    p(f"keychainctl dynamically linked against the Swift runtime (`swift build -c release`, not the documented install): {fmt_ms(kc_cli_dynamic)} "
      f"({ratio(kc_cli_dynamic, st_cli) or 0:.2f}× `secret-tool lookup`).\n")
p(f"For reference in the same run: the SQLite + AES-GCM floor's own durable insert (synchronous=FULL) {fmt_us(floor_set)} "
  f"({ratio(floor_set, py_fsync) or 0:.2f}× the Python-measured fsync {fmt_us(py_fsync)}); "
  f"fdatasync {fmt_us(fdatasync)}.\n")

# ---- KeychainKit by store size -------------------------------------------------------------------
sizes = [10, 100, 1000, 10000, 100000]
ops = ["SecItemCopyMatching hit", "SecItemCopyMatching miss", "SecItemAdd", "SecItemUpdate", "SecItemDelete"]
p("## KeychainKit: SecItem* by number of items (median / p99)\n")
p("| operation | " + " | ".join(f"{s:,} items" for s in sizes) + " |")
p("|---|" + "---:|" * len(sizes))
for op in ops:
    cells = []
    for s in sizes:
        m = ours_metric(f"{op} @ {s}")
        q = ours_metric(f"{op} @ {s}", pct="99.0")
        cells.append("–" if m is None else f"{fmt_us(m)} / {fmt_us(q)}")
    p(f"| `{op}` | " + " | ".join(cells) + " |")
p("")
p("| operation (1k items) | mallocs per call (median) | samples |")
p("|---|---:|---:|")
for op in ops:
    p(f"| `{op}` | {ours_metric(f'{op} @ 1000', 'Malloc (total)') or '–'} | {samples(f'{op} @ 1000') or '–'} |")
p("")

# ---- typed API, unlock, open ----------------------------------------------------------------------
def comparison_table(title, headers, pairs):
    """One row per (measured, reference) benchmark pair: both medians / p99 and their difference."""
    p(f"## {title}\n")
    p(f"| {headers[0]} | median / p99 | {headers[1]} | median / p99 | {headers[2]} |")
    p("|---|---:|---|---:|---:|")
    for name, reference in pairs:
        m, mq = ours_metric(name), ours_metric(name, pct="99.0")
        r, rq = ours_metric(reference), ours_metric(reference, pct="99.0")
        diff = None if m is None or r is None else m - r
        p(f"| `{name.split(' @')[0]}` | {fmt_us(m)} / {fmt_us(mq)} | `{reference.split(' @')[0]}` | {fmt_us(r)} / {fmt_us(rq)} | "
          f"{'–' if diff is None else f'{diff:+,.1f} µs ({m / r:.2f}×)'} |")
    p("")


comparison_table("Typed API over the C API (1k items, median / p99)", ("typed call", "C call", "overhead"),
                 [("Keychain.string(forKey:) hit @ 1000", "SecItemCopyMatching hit @ 1000"),
                  ("Keychain.set(_:forKey:) existing @ 1000", "SecItemUpdate, same change as set @ 1000"),
                  ("Keychain.set(_:forKey:) existing @ 1000", "SecItemUpdate @ 1000")])
comparison_table("What the options cost (1k items, median / p99)", ("with the option", "without", "cost"),
                 [("SecItemAdd, rollback anchor @ 1000", "SecItemAdd @ 1000"),
                  ("SecItemCopyMatching hit, session unlock @ 1000", "SecItemCopyMatching hit @ 1000")])
unlock = ours_metric("SecKeychainUnlock, calibrated scrypt")
unlock99 = ours_metric("SecKeychainUnlock, calibrated scrypt", pct="99.0")
opened = ours_metric("Open keychain file (test KDF) @ 1000")
kdf_text = f"scrypt N = 2^{kdf['logN']}, r = {kdf['r']}, p = {kdf['p']}" if kdf else "calibrated scrypt"
p("## Unlock and open\n")
p("| what | median | p99 |")
p("|---|---:|---:|")
p(f"| `SecKeychainUnlock` ({kdf_text}, calibrated at creation on this machine) | {fmt_us(unlock)} | {fmt_us(unlock99)} |")
p(f"| open a keychain file (SQLite open, keybag, test KDF), 1k items | {fmt_us(opened)} | {fmt_us(ours_metric('Open keychain file (test KDF) @ 1000', pct='99.0'))} |")
kdf_anchor = get(sq, "kdf")
if kdf_anchor:
    p(f"| anchor: Python `cryptography` scrypt, same machine | {'; '.join(f'{k}: {v}' for k, v in kdf_anchor.items())} | |")
p("")

# ---- memory ------------------------------------------------------------------------------------------
p("## Memory\n")
p("| measurement | 10 items | 10,000 items |")
p("|---|---:|---:|")
for label, metric in [("RSS growth: open + read every item once (KiB)", "RSS growth"),
                      ("bytes still allocated afterwards (keychain open)", "Malloc / free Δ (bytes)"),
                      ("malloc calls, open + read every item", "Malloc (total)"),
                      ("bytes allocated in all, open + read every item", "Malloc (bytes total)"),
                      ("open + read every item, wall time (µs)", "Time (wall clock)")]:
    cells = []
    for s in (10, 10000):
        v = ours_metric(f"Memory: open and read every item @ {s}", metric, pct="100.0")
        cells.append("–" if v is None else f"{v:,.0f}")
    p(f"| {label} | " + " | ".join(cells) + " |")
dump = ours_metric("SecItemCopyMatching all attributes @ 10000")
dump_m = ours_metric("SecItemCopyMatching all attributes @ 10000", "Malloc (total)")
dump_b = ours_metric("SecItemCopyMatching all attributes @ 10000", "Malloc (bytes total)")
p(f"\n`SecItemCopyMatching` of every item's attributes at 10,000 items (`dump-keychain`): {fmt_us(dump)} median, "
  f"{dump_m or 0:,.0f} mallocs, {(dump_b or 0) / 1e6:,.1f} MB allocated in all.\n")

# ---- CLI -----------------------------------------------------------------------------------------------
if wp:
    p(f"## Whole process ({cli.get('N')} items in each store, {cli.get('runs')} interleaved rounds after {cli.get('warmup_rounds')} warm-up rounds)\n")
    p("| command | min | median | p99 | max |")
    p("|---|---:|---:|---:|---:|")
    for name, st in wp.items():
        p(f"| `{name}` | {st['min_ms']} | {st['median_ms']} | {st['p99_ms']} | {st['max_ms']} |")
    p("")

# ---- anchors ---------------------------------------------------------------------------------------------
p("## The anchors in this run (medians)\n")
p("| store | in-process get (hit) | whole-process lookup | write |")
p("|---|---:|---:|---:|")
p(f"| KeychainKit (this repository) | {fmt_us(hit_1k)} (1k items) | {fmt_ms(kc_cli)} (`keychainctl find-generic-password -w`) | {fmt_us(add_1k)} (`SecItemAdd`) |")
if gk:
    p(f"| GNOME Keyring, python-keyring | {fmt_us(pk_get_1000)} ({pk_items} items) | "
      f"{fmt_ms(get(gk, 'b_whole_process', 'secret-tool lookup (hit)', 'median_ms'))} (`secret-tool lookup`, {gk.get('N')} items) | "
      f"{fmt_us(get(gk, 'a_python_keyring', 'set_create', 'median_us'))} (`set_password`) |")
    p(f"| GNOME Keyring, secretstorage (reused connection) | {fmt_us(get(gk, 'c_size_1000', 'secretstorage_persistent_get_hit', 'median_us'))} | | "
      f"{fmt_us(get(gk, 'a_secretstorage_persistent', 'set_create', 'median_us'))} |")
ps = anchors.get("pass", {})
if ps:
    p(f"| pass + GnuPG | – | {fmt_ms(get(ps, 'b_whole_process', 'pass show (hit)', 'median_ms'))} (`pass show`, {ps.get('N')} items) | "
      f"{fmt_us(get(ps, 'a_per_op_whole_process', 'set_create', 'median_us'))} (`pass insert`) |")
kp = anchors.get("keepassxc", {})
if kp:
    p(f"| KeePassXC (KDBX4, Argon2d) | {fmt_us(get(kp, 'a_pykeepass_in_process', 'get_hit (find_entries, in memory)', 'median_us'))} (pykeepass, after open) | "
      f"{fmt_ms(get(kp, 'b_whole_process', 'KDBX4 Argon2d: keepassxc-cli show (hit)', 'median_ms'))} (`keepassxc-cli show`) | "
      f"{fmt_ms(get(kp, 'b_whole_process', 'KDBX4 Argon2d: keepassxc-cli add (create, password on stdin)', 'median_ms'))} (`keepassxc-cli add`) |")
kc = anchors.get("keyctl", {})
if kc:
    a = kc.get("a_in_process_ctypes_libkeyutils", {})
    p(f"| kernel keyring (memory only) | {fmt_us(get(a, 'get_hit (keyctl_search from @u + keyctl_read)', 'median_us'))} | "
      f"{fmt_ms(get(kc, 'b_whole_process', 'keyctl search @u user bench:acct-0500', 'median_ms') or next((v.get('median_ms') for k, v in (kc.get('b_whole_process') or {}).items() if k.startswith('keyctl search')), None))} (`keyctl search`) | "
      f"{fmt_us(get(a, 'set_create (add_key)', 'median_us'))} (`add_key`) |")
if sq:
    p(f"| SQLite + AES-GCM floor (Python) | {fmt_us(floor_get)} | – | {fmt_us(floor_set)} (synchronous=FULL) |")
ka = anchors.get("keyrings-alt", {})
if ka:
    p(f"| keyrings.alt EncryptedKeyring | see anchors/keyrings-alt.json | | |")
p("")
p("Raw results: `" + D + "` (KeychainKit: `keychainkit-benchmarks.md`, `run.jmh.json`; anchors: `anchors/*.json`).")
print("\n".join(out))
