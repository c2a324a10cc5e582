#!/usr/bin/env python3
"""Writes the seeds of FuzzDBusMessage, FuzzSecretServiceArguments and FuzzPKCS12 under Fuzz/Corpus/
(committed; rerun only when an input format changes). Needs Debian's python3-jeepney and openssl."""
import os, subprocess, tempfile
from jeepney import new_method_call, new_signal, new_error, DBusAddress
from jeepney.low_level import Message, Header, MessageType, HeaderFields, Endianness

here = os.path.dirname(os.path.abspath(__file__))

def write(target, name, data):
    d = os.path.join(here, "Corpus", target)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, name), "wb").write(bytes(data))

S = "/org/freedesktop/secrets"
service = DBusAddress(S, bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Service")
collection = DBusAddress(S + "/aliases/default", bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Collection")
session = S + "/session/1"
secret = (session, b"", b"hunter2", "text/plain")
calls = {
    "open-session-plain": (service, "OpenSession", "sv", ("plain", ("s", ""))),
    "open-session-dh": (service, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", bytes(range(128))))),
    "search-items": (service, "SearchItems", "a{ss}", ({"service": "kk", "username": "alice"},)),
    "get-secrets": (service, "GetSecrets", "aoo", ([S + "/collection/login/1", S + "/collection/login/2"], session)),
    "set-alias": (service, "SetAlias", "so", ("default", S + "/collection/login")),
    "create-item": (collection, "CreateItem", "a{sv}(oayays)b",
                    ({"org.freedesktop.Secret.Item.Label": ("s", "x"),
                      "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"a": "b"})}, secret, True)),
    "set-secret": (collection, "SetSecret", "(oayays)", (secret,)),
    "properties-set": (service, "Set", "ssv", ("org.freedesktop.Secret.Collection", "Label", ("s", "Work"))),
    "read-alias": (service, "ReadAlias", "s", ("default",)),
    "unlock": (service, "Unlock", "ao", ([S + "/collection/login"],)),
}
signatures = ["sv", "a{sv}s", "a{ss}", "ao", "aoo", "so", "a{sv}(oayays)b", "(oayays)", "ssv", "s", "o", "as", "av"]
for name, (address, member, signature, body) in calls.items():
    message = new_method_call(address, member, signature, body)
    little = message.serialise(serial=7)
    write("FuzzDBusMessage", name, little)
    header_length = (16 + int.from_bytes(little[12:16], "little") + 7) // 8 * 8
    write("FuzzSecretServiceArguments", name, bytes([signatures.index(signature)]) + little[header_length:])
big = new_method_call(service, "SearchItems", "a{ss}", ({"k": "v"},))
big.header.endianness = Endianness.big
write("FuzzDBusMessage", "search-items-big-endian", big.serialise(serial=9))
write("FuzzDBusMessage", "signal", new_signal(DBusAddress(S, interface="org.freedesktop.Secret.Prompt"), "Completed", "bv",
                                              (False, ("ao", [S + "/collection/login"]))).serialise(serial=3))

# PKCS#12: OpenSSL 3's defaults (PBES2, AES-256-CBC, HMAC-SHA-256, 2048 iterations) with password "fuzz".
with tempfile.TemporaryDirectory() as directory:
    key, cert, p12 = (os.path.join(directory, n) for n in ("key.pem", "cert.pem", "out.p12"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                    "-out", cert, "-subj", "/CN=fuzz", "-days", "1"], check=True, capture_output=True)
    for name, extra in {"ec-default": [], "ec-iter-1000": ["-iter", "1000", "-maciter"], "cert-only": ["-nokeys"]}.items():
        arguments = ["openssl", "pkcs12", "-export", "-in", cert, "-out", p12, "-passout", "pass:fuzz", "-name", "fuzz"]
        if name != "cert-only":
            arguments += ["-inkey", key]
        subprocess.run(arguments + extra, check=True, capture_output=True)
        write("FuzzPKCS12", name, open(p12, "rb").read())
