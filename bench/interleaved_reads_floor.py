"""The read floors for bench/interleaved_reads.sh: python3 interleaved_reads_floor.py DB CALLS.

Prints four numbers, the median microseconds per call of: the SQLite + one-GCM floor's hit and
miss, then the iOS-model floor's hit and miss. Both floors hold 1,000 items and run in the same
process, one after the other, with the same account names (made before the timing, as the anchor
does); both use Python sqlite3 in autocommit, WAL, synchronous=FULL.

The SQLite + one-GCM floor: the table, query and AES-GCM decrypt of the anchor's floor
(../shared/bench/anchors/sqlite_aesgcm_bench.py, s_get): rows of (service, account, nonce, ct)
under a (service, account) primary key, plain text; a hit is the indexed SELECT plus one
AESGCM.decrypt bound to service and account, a miss the SELECT alone.

The iOS-model floor: what iOS's keychain must do per read (Apple Platform Security, "Keychain
data protection": attributes encrypted under a metadata key, the secret under a per-item key,
searchable attributes as keyed digests). A read computes the blind index (HMAC-SHA-256 under an
index key) of each attribute the query names (service and account), runs the indexed SELECT on
those two columns, then opens two AES-256-GCM blobs: the item's metadata (its attributes,
170 bytes) and its secret (44 bytes, the benchmarks' secrets). A miss is the two HMACs and the SELECT finding nothing.
"""
import hashlib
import hmac
import os
import sqlite3
import sys
import time

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

path, calls = sys.argv[1], int(sys.argv[2])
SERVICE, ITEMS = "bench", 1000
# Sizes of what a benchmark item seals: its attributes (class, service, account, access group,
# accessibility, sync flag, two dates) in a compact encoding, 170 bytes (KeychainKit's payload
# holds 212 bytes of attributes and framing beside the secret: the floor is the stricter), and
# the 44-byte secret of the benchmarks.
METADATA_BYTES, SECRET_BYTES = 170, 44
accounts = [f"acct-{i:06d}" for i in range(ITEMS)]


def connect(file):
    con = sqlite3.connect(file, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    return con


# ---- the SQLite + one-GCM floor (the anchor's s_get) ------------------------------------------
aead = AESGCM(os.urandom(32))
con = connect(path)
con.execute("CREATE TABLE items(service TEXT NOT NULL, account TEXT NOT NULL, nonce BLOB NOT NULL,"
            " ct BLOB NOT NULL, PRIMARY KEY(service, account))")


def associated(account):
    return f"{SERVICE}\0{account}".encode()


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


# ---- the iOS-model floor ----------------------------------------------------------------------
index_key = os.urandom(32)
metadata_aead, secret_aead = AESGCM(os.urandom(32)), AESGCM(os.urandom(32))
ios = connect(path + "-ios")
ios.execute("CREATE TABLE genp(rowid INTEGER PRIMARY KEY, svce BLOB NOT NULL, acct BLOB NOT NULL,"
            " metadata BLOB NOT NULL, secret BLOB NOT NULL)")
ios.execute("CREATE UNIQUE INDEX genp_key ON genp(svce, acct)")


# HMAC-SHA-256 from SHA-256 states that have absorbed the key's inner and outer pad blocks, as a
# keychain keeps its index key (KeychainKit's PrecomputedHMAC): hmac.digest re-keys OpenSSL at
# every call, about 4 µs here against 1 µs, which would make the floor easier to meet.
_pad = index_key.ljust(hashlib.sha256().block_size, b"\0")
_inner = hashlib.sha256(bytes(b ^ 0x36 for b in _pad))
_outer = hashlib.sha256(bytes(b ^ 0x5C for b in _pad))


def blind(name, value):
    inner = _inner.copy()
    inner.update(f"{name}\0{value}".encode())
    outer = _outer.copy()
    outer.update(inner.digest())
    return outer.digest()


assert blind("acct", "x") == hmac.digest(index_key, b"acct\0x", "sha256")  # the same MAC


def sealed(box, size, associated_data):
    nonce = os.urandom(12)
    return nonce + box.encrypt(nonce, os.urandom(size), associated_data)


ios.execute("BEGIN")
for account in accounts:
    svce, acct = blind("svce", SERVICE), blind("acct", account)
    ios.execute("INSERT INTO genp(svce, acct, metadata, secret) VALUES(?,?,?,?)",
                (svce, acct, sealed(metadata_aead, METADATA_BYTES, acct), sealed(secret_aead, SECRET_BYTES, acct)))
ios.execute("COMMIT")


def ios_get(account):
    acct = blind("acct", account)
    row = ios.execute("SELECT metadata, secret FROM genp WHERE svce=? AND acct=?", (blind("svce", SERVICE), acct)).fetchone()
    if row is None:
        return None
    metadata, secret = row
    metadata_aead.decrypt(metadata[:12], metadata[12:], acct)
    return secret_aead.decrypt(secret[:12], secret[12:], acct)


def median_us(lookup, names, want_hit):
    samples = []
    for name in names:
        t0 = time.perf_counter_ns()
        value = lookup(name)
        samples.append(time.perf_counter_ns() - t0)
        if (value is not None) != want_hit:
            sys.exit(f"unexpected {'miss' if want_hit else 'hit'} for {name}")
    samples.sort()
    return samples[len(samples) // 2] / 1000


hits = [accounts[(i * 7919) % ITEMS] for i in range(calls)]
misses = [f"miss-{(i % 4096) * 241:06d}" for i in range(calls)]  # BenchFixture.missingAccounts
print(f"{median_us(get, hits, True):.2f} {median_us(get, misses, False):.2f} "
      f"{median_us(ios_get, hits, True):.2f} {median_us(ios_get, misses, False):.2f}")
