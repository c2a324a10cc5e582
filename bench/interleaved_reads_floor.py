"""The read floor for bench/interleaved_reads.sh: python3 interleaved_reads_floor.py DB CALLS.

The same table, query and AES-GCM decrypt as the anchor's floor
(../shared/bench/anchors/sqlite_aesgcm_bench.py, s_get): Python sqlite3 in autocommit, WAL,
synchronous=FULL, 1,000 rows of (service, account, nonce, ct) under a (service, account) primary
key; a hit is the indexed SELECT plus one AESGCM.decrypt bound to service and account, a miss the
SELECT alone. Account names are made before the timing, as the anchor does. Prints the median
microseconds per hit and per miss.
"""
import os
import sqlite3
import sys
import time

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

path, calls = sys.argv[1], int(sys.argv[2])
SERVICE, ITEMS = "bench", 1000
aead = AESGCM(os.urandom(32))
con = sqlite3.connect(path, isolation_level=None)
con.execute("PRAGMA journal_mode=WAL")
con.execute("PRAGMA synchronous=FULL")
con.execute("CREATE TABLE items(service TEXT NOT NULL, account TEXT NOT NULL, nonce BLOB NOT NULL,"
            " ct BLOB NOT NULL, PRIMARY KEY(service, account))")


def associated(account):
    return f"{SERVICE}\0{account}".encode()


accounts = [f"acct-{i:06d}" for i in range(ITEMS)]
con.execute("BEGIN")
for account in accounts:
    nonce = os.urandom(12)
    con.execute("INSERT INTO items VALUES(?,?,?,?)",
                (SERVICE, account, nonce, aead.encrypt(nonce, os.urandom(32), associated(account))))
con.execute("COMMIT")


def get(account):
    row = con.execute("SELECT nonce, ct FROM items WHERE service=? AND account=?", (SERVICE, account)).fetchone()
    if row is None:
        return None
    return aead.decrypt(row[0], row[1], associated(account))


def median_us(names, want_hit):
    samples = []
    for name in names:
        t0 = time.perf_counter_ns()
        value = get(name)
        samples.append(time.perf_counter_ns() - t0)
        if (value is not None) != want_hit:
            sys.exit(f"unexpected {'miss' if want_hit else 'hit'} for {name}")
    samples.sort()
    return samples[len(samples) // 2] / 1000


hits = [accounts[(i * 7919) % ITEMS] for i in range(calls)]
misses = [f"miss-{(i % 4096) * 241:06d}" for i in range(calls)]  # BenchFixture.missingAccounts
print(f"{median_us(hits, True):.2f} {median_us(misses, False):.2f}")
