/// The integrity digest at the end of a wallet's encrypted part: SHA-1 (FIPS 180-4) as KWallet's
/// own SHA-1 computes it on a little-endian machine (x86-64, arm64: every machine KWallet users
/// have). Its byte-order test compares two macros its build never defines, so it always takes
/// the big-endian branch: the 64-byte blocks (padding and length as in SHA-1) are read as
/// *little-endian* 32-bit words and the five result words are written little-endian. Checked
/// against wallets the real kwalletd5 wrote (`KWalletImportTests`); standard SHA-1 does not match.
enum KWalletDigest {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0]
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitCount = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift))) }
        var w = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let at = block + 4 * index
                w[index] = UInt32(padded[at]) | UInt32(padded[at + 1]) << 8 | UInt32(padded[at + 2]) << 16 | UInt32(padded[at + 3]) << 24
            }
            for index in 16..<80 {
                let mixed = w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16]
                w[index] = mixed << 1 | mixed >> 31
            }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4]
            for index in 0..<80 {
                let f: UInt32, k: UInt32
                switch index {
                case 0..<20: f = d ^ (b & (c ^ d)); k = 0x5a82_7999
                case 20..<40: f = b ^ c ^ d; k = 0x6ed9_eba1
                case 40..<60: f = (b & c) | (d & (b | c)); k = 0x8f1b_bcdc
                default: f = b ^ c ^ d; k = 0xca62_c1d6
                }
                let next = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[index]
                e = d
                d = c
                c = b << 30 | b >> 2
                b = a
                a = next
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } }
    }
}
