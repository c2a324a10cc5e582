#!/usr/bin/env python3
"""Known-answer vectors for Apple's ECIES (SecKey eciesEncryption…X963SHA256AESGCM), made with
pyca/cryptography as an implementation independent of swift-crypto. The output is pasted into
Tests/KeychainServicesTests/SecKeyKnownAnswerTests.swift; rerunning prints the same vectors
because both key pairs are fixed.

Format (Apple, SecKey.h): ephemeral public key (X9.63) || AES-GCM ciphertext || 16-byte tag;
X9.63 KDF over SHA-256 of the ECDH secret with the ephemeral public key as shared info;
AES-128 key (P-256); IV all-zero (16 bytes), or for the variable-IV variant the 16 KDF bytes
after the key.
"""
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF

RECIPIENT = 0x1F2E3D4C5B6A79880102030405060708090A0B0C0D0E0F101112131415161718
EPHEMERAL = 0x0A1B2C3D4E5F60718293A4B5C6D7E8F90011223344556677889900AABBCCDDEE
PLAINTEXT = b"KeychainKit ECIES known answer"


def x963(key):
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


recipient = ec.derive_private_key(RECIPIENT, ec.SECP256R1())
ephemeral = ec.derive_private_key(EPHEMERAL, ec.SECP256R1())
shared = ephemeral.exchange(ec.ECDH(), recipient.public_key())
ephemeral_public = x963(ephemeral)
recipient_private_x963 = x963(recipient) + RECIPIENT.to_bytes(32, "big")
print("recipient private (04||X||Y||K):", recipient_private_x963.hex())
print("plaintext:", PLAINTEXT.hex())
for variable_iv in (False, True):
    length = 16 + (16 if variable_iv else 0)
    derived = X963KDF(algorithm=hashes.SHA256(), length=length, sharedinfo=ephemeral_public).derive(shared)
    key, iv = derived[:16], (derived[16:] if variable_iv else bytes(16))
    sealed = AESGCM(key).encrypt(iv, PLAINTEXT, None)
    print("variableIV" if variable_iv else "zeroIV", (ephemeral_public + sealed).hex())

# SecKeyCopyKeyExchangeResult vectors with the same two keys: the raw ECDH secret
# (ecdhKeyExchangeStandard) and 42 bytes of X9.63-SHA-256 with shared info "KeychainKit"
# (ecdhKeyExchangeStandardX963SHA256).
secret = recipient.exchange(ec.ECDH(), ephemeral.public_key())
print("ecdh secret:", secret.hex())
print("ecdh x963 sha256 42 bytes:", X963KDF(algorithm=hashes.SHA256(), length=42, sharedinfo=b"KeychainKit").derive(secret).hex())
