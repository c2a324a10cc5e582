#!/usr/bin/env python3
"""Writes the seed corpus under Fuzz/Corpus/ (committed; rerun only when an input format changes)."""
import os, struct, re, random

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "Sources/FuzzRequestParser/FuzzRequestParser.swift")).read()
def swift_list(name):
    body = re.search(r"let %s = \[(.*?)\]\n" % name, src, re.S).group(1)
    return re.findall(r'"([^"]*)"', body)
KEYS, CONSTANTS = swift_list("knownKeys"), swift_list("constants")

def write(target, name, data):
    d = os.path.join(here, "Corpus", target)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, name), "wb").write(bytes(data))

# --- SecItem dictionaries -------------------------------------------------------------
def k(name): return [KEYS.index(name)]
def const(v): return [11, CONSTANTS.index(v)]
def string(s): b = s.encode(); return [0, len(b)] + list(b)
def data(b): return [1, len(b)] + list(b)
def boolean(v): return [4, 0 if v else 1]
def integer(v): return [2, v & 0xFF]
OPS = {"add": 0, "copy": 1, "update": 2, "delete": 3}
def call(op, *entries, changes=None):
    out = [OPS[op]]
    for e in entries: out += e
    if changes is not None:
        out.append(0xFF)
        for e in changes: out += e
    return out
genp = k("class") + const("genp")
inet = k("class") + const("inet")
seeds = {
    "add-genp": call("add", genp, k("acct") + string("alice"), k("svce") + string("svc"), k("v_Data") + data(b"secret")),
    "add-inet": call("add", inet, k("srvr") + string("example.com"), k("ptcl") + const("https"), k("port") + integer(44),
                     k("acct") + string("bob"), k("v_Data") + data(b"pw")),
    "add-accessible": call("add", genp, k("acct") + string("a"), k("pdmn") + const("aku"), k("v_Data") + data(b"x")),
    "add-sync": call("add", genp, k("acct") + string("s"), k("sync") + boolean(True), k("v_Data") + data(b"x")),
    "add-group": call("add", genp, k("acct") + string("g"), k("agrp") + const("other"), k("labl") + string("label")),
    "copy-data": call("copy", genp, k("acct") + string("alice"), k("r_Data") + boolean(True)),
    "copy-all-attrs": call("copy", genp, k("m_Limit") + const("m_LimitAll"), k("r_Attributes") + boolean(True),
                           k("r_PersistentRef") + boolean(True)),
    "copy-host": call("copy", inet, k("m_HostOrSubdomainOfHost") + const("example.com"), k("r_Attributes") + boolean(True)),
    "copy-syna": call("copy", genp, k("sync") + const("syna"), k("u_AuthUI") + const("u_AuthUIS")),
    "update": call("update", genp, k("acct") + string("alice"), changes=[k("v_Data") + data(b"new"), k("labl") + string("l2")]),
    "update-class": call("update", genp, k("svce") + string("svc"), changes=[k("pdmn") + const("dk")]),
    "delete": call("delete", genp, k("acct") + string("alice")),
    "delete-all": call("delete", genp),
    "bad-key": call("add", genp, [0xC3] + list(b"abc") + string("v")),
    "null": call("copy", genp, k("acct") + [6]),
    "cert": call("add", k("class") + const("cert"), k("v_Data") + data(b"c")),
}
for name, bytes_ in seeds.items():
    write("FuzzRequestParser", name, bytes_)

# --- item payloads ----------------------------------------------------------------------
def attr(name, kind, value):
    n = name.encode()
    return [ord("A"), len(n)] + list(n) + [ord(kind)] + list(struct.pack(">I", len(value))) + list(value)
def payload(*records): return [1] + [b for r in records for b in r]
date = struct.pack(">d", 7.0e8)
write("FuzzItemPayload", "genp", payload(attr("acct", "s", b"alice"), attr("agrp", "s", b"app"), attr("cdat", "t", date),
                                          attr("gena", "d", b"\x00\x01"), attr("sync", "n", struct.pack(">q", 0)),
                                          [ord("D")] + list(struct.pack(">I", 6)) + list(b"secret")))
write("FuzzItemPayload", "access-control", payload(attr("acct", "s", b"a"), [ord("D"), 0, 0, 0, 0],
                                                    [ord("C")] + list(struct.pack(">Q", (1 << 30) | 1))))
write("FuzzItemPayload", "empty", payload())
write("FuzzItemPayload", "inet", payload(attr("srvr", "s", b"example.com"), attr("port", "n", struct.pack(">q", 443)),
                                          attr("ptcl", "s", b"htps"), attr("mdat", "t", date)))

# --- keybag entries and KDF parameters ------------------------------------------------------
random.seed(6)
wrapped = bytes(random.getrandbits(8) for _ in range(60))
check = bytes(random.getrandbits(8) for _ in range(16))
entry = struct.pack(">I", len(wrapped)) + wrapped + struct.pack(">I", 16) + check
write("FuzzKeybag", "entry", [0] + list(entry))
write("FuzzKeybag", "entry-short", [2] + list(struct.pack(">I", 3)) + [1, 2, 3] + list(struct.pack(">I", 16)) + list(check))
salt = bytes(random.getrandbits(8) for _ in range(32))
for name, (log_n, r, p) in {"kdf-floor": (14, 8, 1), "kdf-test": (4, 8, 1), "kdf-max": (20, 8, 1), "kdf-over": (20, 16, 16)}.items():
    write("FuzzKeybag", name, [1, log_n] + list(struct.pack(">III", r, p, len(salt))) + list(salt))

# --- sync: records, key wraps and bundles, member lists and join requests ----------------------
# Well-formed layouts with random keys and signatures: they decode, and never verify.
random.seed(21)
def rnd(n): return bytes(random.getrandbits(8) for _ in range(n))
def field(b): return struct.pack(">I", len(b)) + b
envelope = bytes([2]) + struct.pack(">I", 3) + bytes([0]) + rnd(16) + field(rnd(60)) + field(rnd(120)) + rnd(64)
write("FuzzSyncRecord", "envelope", [0] + list(envelope))
write("FuzzSyncRecord", "envelope-class-over", [0] + list(envelope[:5] + bytes([7]) + envelope[6:]))
item = bytes(payload(attr("acct", "s", b"alice"), attr("agrp", "s", b"app"), [ord("D")] + list(struct.pack(">I", 2)) + list(b"pw")))
body = bytes([2, 0]) + struct.pack(">d", 7.0e8) + field(rnd(16)) + field(b"genp") + field(item)
write("FuzzSyncRecord", "body-live", [1] + list(body))
write("FuzzSyncRecord", "body-deletion", [1] + list(bytes([2, 1]) + struct.pack(">d", 7.0e8) + field(rnd(16)) + field(b"inet")))
def bundle(epoch, epochs):
    out = bytes([2]) + struct.pack(">I", epoch) + rnd(32) + rnd(32) + struct.pack(">I", len(epochs))
    for e in epochs: out += struct.pack(">I", e) + rnd(32)
    return out
write("FuzzKeyWrap", "bundle-1", [1] + list(bundle(1, [1])))
write("FuzzKeyWrap", "bundle-3", [1] + list(bundle(3, [1, 2, 3])))
write("FuzzKeyWrap", "bundle-unordered", [1] + list(bundle(2, [2, 1])))
wrap = bytes([2]) + struct.pack(">I", 2) + rnd(16) + rnd(16) + field(rnd(32)) + field(rnd(200)) + rnd(64)
write("FuzzKeyWrap", "wrap", [0] + list(wrap))
def roster(count):
    out = bytes([2]) + rnd(16) + struct.pack(">I", 4) + struct.pack(">H", count)
    for _ in range(count): out += rnd(64)
    return out + rnd(32) + rnd(16) + rnd(64)
write("FuzzRoster", "roster-1", [0] + list(roster(1)))
write("FuzzRoster", "roster-3", [0] + list(roster(3)))
write("FuzzRoster", "request", [1] + list(bytes([2]) + bytes([0x11] * 16) + rnd(32) + rnd(32) + rnd(64) + rnd(32)))
# --- plain-text credential files (import-credentials readers) ---------------------------
write('FuzzNetrc', 'machines', b'machine example.com login alice password "p w \\" x"\nmacdef init\ncd /\n\ndefault login anon password guest\n')
write('FuzzNetrc', 'multiline', b'machine a.example\n  login u\n  password p # comment\n')
write('FuzzGitCredentials', 'bad-escape', b'http://u:%zz@h\n')
write('FuzzGitCredentials', 'lines', b'https://alice:p%40ss@git.example.com\nhttps://bob:t@[::1]:8443/org/repo.git\n')
write('FuzzDockerConfig', 'auths', b'{\n  "auths": {\n    "https://index.docker.io/v1/": {"auth": "dTpw"},\n    "ghcr.io": {"identitytoken": "t"},\n    "h.example": {}\n  },\n  "credsStore": "desktop"\n}\n')
write('FuzzDockerConfig', 'fields', b'{"auths": {"localhost:5000": {"username": "u", "password": "p"}}}')
write('FuzzDockerConfig', 'comma-first', b'{\n  "auths": {\n    "https://i.io": {"identitytoken": "t"},\n    "h.example": { }} \n\n , "crere": "desktop"\n}\n')
write('FuzzGitHubHosts', 'empty-token', b'---\nh:\n  oauth_token:\n')
write('FuzzGitHubHosts', 'hosts', b'github.com:\n    users:\n        octo:\n            oauth_token: gho_a\n    oauth_token: gho_a # x\n    user: octo\nghe.example:\n    oauth_token: "q\\"t"\n    user: \'a\'\'b\'\n')
write('FuzzDotenv', 'env', b'# c\nexport A=plain # c\nB=\'single\'\nC="multi\nline \\"q\\""\nD=\n')

# --- HTTP/1.1 responses from etcd's JSON gateway (first byte: piece size - 1) ------------------------
def response(name, text, piece=255):
    write("FuzzHTTPResponse", name, [piece] + list(text.encode()))
body = '{"header":{"revision":"7"},"kvs":[{"key":"a2V5","value":"dmFsdWU=","mod_revision":"7"}]}'
response("content-length", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
response("chunked-split", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n5;ext=1\r\n\n\n\n\n\n\r\n0\r\n\r\n" % (len(body), body), piece=6)
response("watch", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\n\r\n" % (len(body) + 1, body), piece=0)
response("until-close", "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
response("error-401", 'HTTP/1.1 401 Unauthorized\r\nContent-Length: 35\r\n\r\n{"error":"etcdserver: invalid auth"}')
# --- The keychain service's wire format (KeychainServiceWire: requests, replies, frames) ------------
def wfield(b): return list(struct.pack('>I', len(b))) + list(b)
def wstring(t): return [1] + wfield(t.encode())
def wdata(b): return [2] + wfield(b)
def wbool(v): return [3, 1 if v else 0]
def wint(v): return [4] + list(struct.pack('>q', v))
def wdouble(v): return [5] + list(struct.pack('>d', v))
def wdate(v): return [6] + list(struct.pack('>d', v))
def warray(xs): return [7] + list(struct.pack('>I', len(xs))) + sum(xs, [])
def wentries(d): return list(struct.pack('>I', len(d))) + sum((wfield(k.encode()) + d[k] for k in sorted(d)), [])
def wdict(d): return [8] + wentries(d)
def wrequest(op, q, changes={}, app=None, groups=[]):
    out = [1, op] + (([1] + wfield(app.encode())) if app else [0])
    out += list(struct.pack('>I', len(groups))) + sum((wfield(g.encode()) for g in groups), [])
    return out + wentries(q) + wentries(changes)
add_request = wrequest(1, {"class": wstring("genp"), "acct": wstring("me"), "svce": wstring("api"), "v_Data": wdata(b"secret")})
write("FuzzServiceWire", "request-add", add_request)
write("FuzzServiceWire", "request-copy", wrequest(2, {"class": wstring("genp"), "r_Data": wbool(True), "r_Attributes": wbool(True),
      "m_Limit": wstring("m_LimitAll")}, app="com.example.app", groups=["com.example.shared"]))
write("FuzzServiceWire", "request-update", wrequest(3, {"class": wstring("inet"), "srvr": wstring("example.com"), "port": wint(443)},
      {"v_Data": wdata(b"new"), "labl": wstring("l")}))
write("FuzzServiceWire", "request-delete", wrequest(4, {"class": wstring("genp"), "acct": wstring("me")}))
write("FuzzServiceWire", "reply-ok", [1] + list(struct.pack('>iI', 0, 0)) + [0, 1] + warray([wdict({"acct": wstring("me"),
      "cdat": wdate(1.5), "v_Data": wdata(b"x"), "accc": wdict({"pdmn": wstring("ak"), "flags": wint(1)})})]))
write("FuzzServiceWire", "reply-failure", [1] + list(struct.pack('>iI', -34018, 0)) + [1] + wfield(b"not granted") + [0])
write("FuzzServiceWire", "value-nested", warray([warray([wdict({"r": wdouble(0.25)})])]))
write("FuzzServiceWire", "request-change-password", wrequest(9, {"password": wdata(b"old"), "newPassword": wdata(b"new")}))
write("FuzzServiceWire", "request-read-secret-service-access", wrequest(60, {}))
write("FuzzServiceWire", "request-read-secret-service-policy", wrequest(62, {}))
write("FuzzServiceWire", "request-change-secret-service-access", wrequest(61, {"password": wdata(b"pw"), "action": wstring("trust"),
                                                                               "item": wstring("67656e70"), "executable": wstring("/usr/bin/secret-tool")}))
write("FuzzServiceWire", "request-answer-consent", wrequest(43, {"nonce": wdata(bytes(32)), "password": wdata(b"pw"), "always": wbool(True)}))
write("FuzzServiceWire", "request-deny-consent", wrequest(43, {"nonce": wdata(bytes(32)), "deny": wbool(True)}))
write("FuzzServiceWire", "request-set-settings", wrequest(10, {"lockInterval": wint(300), "lockOnSleep": wbool(False)}))
write("FuzzServiceWire", "reply-keychain-state", [1] + list(struct.pack('>iI', 0, 0)) + [0, 1] + wdict({"hasPassword": wbool(True),
      "lockInterval": wint(600), "unlocked": wbool(False)}))
write("FuzzServiceWire", "reply-password-wait", [1] + list(struct.pack('>iI', -25293, 0)) + [1]
      + wfield(b"too many wrong passwords: try again in 5 s") + [0])
write("FuzzServiceWire", "frame-request-add", list(struct.pack('>I', len(add_request))) + add_request)
print("seeds written")
