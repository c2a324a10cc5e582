/// The Blowfish block cipher (Bruce Schneier, 1993: 64-bit blocks, 16 rounds, keys of 1–56
/// bytes), for reading KWallet's wallet files, which are encrypted with it. Only what a reader
/// needs: the key schedule and both directions of one block, on the block's two 32-bit halves
/// (the caller maps a block's 8 bytes onto them, big-endian in the standard cipher).
struct Blowfish {
    private var p: [UInt32]
    private var s: [UInt32]

    /// The key schedule: P-array and S-boxes from π, the P-array XORed with the key's bytes
    /// (cycled, big-endian into 32-bit words), then replaced by repeatedly enciphering a zero block.
    /// - Precondition: `key` has 1 to 56 bytes.
    init(key: [UInt8]) {
        precondition((1...56).contains(key.count), "a Blowfish key has 1 to 56 bytes")
        p = BlowfishInitialState.pArray
        s = BlowfishInitialState.sBoxes
        var position = 0
        for index in 0..<18 {
            var word: UInt32 = 0
            for _ in 0..<4 {
                word = word << 8 | UInt32(key[position])
                position = (position + 1) % key.count
            }
            p[index] ^= word
        }
        var left: UInt32 = 0, right: UInt32 = 0
        for index in stride(from: 0, to: 18, by: 2) {
            (left, right) = encrypt(left, right)
            p[index] = left
            p[index + 1] = right
        }
        for index in stride(from: 0, to: 1024, by: 2) {
            (left, right) = encrypt(left, right)
            s[index] = left
            s[index + 1] = right
        }
    }

    private func f(_ x: UInt32) -> UInt32 {
        let a = s[Int(x >> 24)], b = s[256 + Int((x >> 16) & 0xff)]
        let c = s[512 + Int((x >> 8) & 0xff)], d = s[768 + Int(x & 0xff)]
        return ((a &+ b) ^ c) &+ d
    }

    /// Enciphers the block whose left half is `left` and right half `right`.
    func encrypt(_ left: UInt32, _ right: UInt32) -> (UInt32, UInt32) {
        var l = left, r = right
        for round in 0..<16 {
            l ^= p[round]
            r ^= f(l)
            swap(&l, &r)
        }
        swap(&l, &r)
        return (l ^ p[17], r ^ p[16])
    }

    /// Deciphers the block whose left half is `left` and right half `right`.
    func decrypt(_ left: UInt32, _ right: UInt32) -> (UInt32, UInt32) {
        var l = left, r = right
        for round in stride(from: 17, to: 1, by: -1) {
            l ^= p[round]
            r ^= f(l)
            swap(&l, &r)
        }
        swap(&l, &r)
        return (l ^ p[0], r ^ p[1])
    }
}
