/// Modular exponentiation for the Diffie-Hellman exchange of `dh-ietf1024-sha256-aes128-cbc-pkcs7`:
/// fixed-size unsigned numbers as little-endian 64-bit limbs, Montgomery multiplication (CIOS),
/// and an exponentiation that does the same multiplications whatever the exponent's bits are,
/// selecting results with masks rather than branches (the exponent is our private key).
///
/// The numbers have exactly as many limbs as the modulus; callers reduce inputs first
/// (``isBelowModulus(_:)``).
struct MontgomeryModulus: Sendable {
    /// The modulus, odd, little-endian limbs.
    let modulus: [UInt64]
    /// -modulus⁻¹ mod 2⁶⁴.
    private let inverseOfLowLimb: UInt64
    /// R² mod modulus, R = 2^(64·limbs): converts into the Montgomery form.
    private let rSquared: [UInt64]

    /// Prepares an odd modulus whose top limb is not zero.
    init(modulus: [UInt64]) {
        precondition(modulus.first.map { $0 & 1 == 1 } == true && modulus.last != 0, "the modulus must be odd and full size")
        self.modulus = modulus
        // Newton's iteration doubles the correct low bits each round: 6 rounds give 64.
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- modulus[0] &* inverse) }
        inverseOfLowLimb = 0 &- inverse
        // R² mod m by doubling 1 2·64·limbs times; the modulus is public, no secret in this loop.
        var value = [UInt64](repeating: 0, count: modulus.count)
        value[0] = 1
        for _ in 0..<(2 * 64 * modulus.count) {
            value = Self.doubleModulo(value, modulus)
        }
        rSquared = value
    }

    /// The number of limbs.
    var limbCount: Int { modulus.count }

    /// Whether `value` (limbCount limbs) is below the modulus.
    func isBelowModulus(_ value: [UInt64]) -> Bool {
        let (_, borrow) = Self.subtract(value, modulus)
        return borrow != 0
    }

    /// base^exponent mod modulus. `base` must be below the modulus; `exponent` may have any
    /// number of limbs. A fixed 4-bit window: for every 4 exponent bits, four squarings and one
    /// multiplication by a table entry that is read by scanning the whole table with masks, so
    /// neither the operations nor the memory reads depend on the exponent's bits.
    func power(_ base: [UInt64], _ exponent: [UInt64]) -> [UInt64] {
        precondition(base.count == limbCount)
        let count = limbCount
        var one = [UInt64](repeating: 0, count: count)
        one[0] = 1
        // table[i] = base^i in Montgomery form, i = 0...15, one after the other.
        var table = [UInt64](repeating: 0, count: 16 * count)
        var result = [UInt64](repeating: 0, count: count)
        var selected = [UInt64](repeating: 0, count: count)
        var scratch = [UInt64](repeating: 0, count: count + 2)
        table.withUnsafeMutableBufferPointer { table in
            result.withUnsafeMutableBufferPointer { result in
                selected.withUnsafeMutableBufferPointer { selected in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        let table = table.baseAddress!, result = result.baseAddress!
                        let selected = selected.baseAddress!, scratch = scratch.baseAddress!
                        one.withUnsafeBufferPointer { one in
                            rSquared.withUnsafeBufferPointer { rSquared in
                                multiply(one.baseAddress!, rSquared.baseAddress!, into: table, scratch: scratch)
                            }
                        }
                        base.withUnsafeBufferPointer { base in
                            rSquared.withUnsafeBufferPointer { rSquared in
                                multiply(base.baseAddress!, rSquared.baseAddress!, into: table + count, scratch: scratch)
                            }
                        }
                        for index in 2..<16 {
                            multiply(table + (index - 1) * count, table + count, into: table + index * count, scratch: scratch)
                        }
                        result.update(from: table, count: count)  // R mod m: 1 in Montgomery form
                        for limb in exponent.reversed() {
                            for shift in stride(from: 60, through: 0, by: -4) {
                                for _ in 0..<4 { multiply(result, result, into: result, scratch: scratch) }
                                let window = (limb >> UInt64(shift)) & 0xF
                                for position in 0..<count { selected[position] = 0 }
                                for entry in 0..<16 {
                                    // All ones for the entry equal to the window, zero for the others.
                                    let difference = UInt64(entry) ^ window
                                    let mask = ((difference | (0 &- difference)) >> 63) &- 1
                                    for position in 0..<count { selected[position] |= table[entry * count + position] & mask }
                                }
                                multiply(result, selected, into: result, scratch: scratch)
                            }
                        }
                        one.withUnsafeBufferPointer { one in
                            multiply(result, one.baseAddress!, into: result, scratch: scratch)
                        }
                    }
                }
            }
        }
        return result
    }

    /// a·b·R⁻¹ mod modulus (coarsely integrated operand scanning), for a, b below the modulus.
    func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result = [UInt64](repeating: 0, count: limbCount)
        var scratch = [UInt64](repeating: 0, count: limbCount + 2)
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                result.withUnsafeMutableBufferPointer { result in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        multiply(a.baseAddress!, b.baseAddress!, into: result.baseAddress!, scratch: scratch.baseAddress!)
                    }
                }
            }
        }
        return result
    }

    /// a·b·R⁻¹ mod modulus into `output` (which may be `a` or `b`: it is written only after both
    /// have been read), with `scratch` of limbCount + 2 limbs. No allocation.
    private func multiply(_ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>, into output: UnsafeMutablePointer<UInt64>,
                          scratch t: UnsafeMutablePointer<UInt64>) {
        let count = limbCount
        t.update(repeating: 0, count: count + 2)
        modulus.withUnsafeBufferPointer { modulusBuffer in
            let modulus = modulusBuffer.baseAddress!
            for i in 0..<count {
                var carry: UInt64 = 0
                let bi = b[i]
                for j in 0..<count {
                    (carry, t[j]) = Self.multiplyAdd(a[j], bi, t[j], carry)
                }
                let (sum, overflow) = t[count].addingReportingOverflow(carry)
                t[count] = sum
                t[count + 1] = overflow ? 1 : 0
                let m = t[0] &* inverseOfLowLimb
                (carry, _) = Self.multiplyAdd(m, modulus[0], t[0], 0)
                for j in 1..<count {
                    (carry, t[j - 1]) = Self.multiplyAdd(m, modulus[j], t[j], carry)
                }
                let (top, topOverflow) = t[count].addingReportingOverflow(carry)
                t[count - 1] = top
                t[count] = t[count + 1] &+ (topOverflow ? 1 : 0)
            }
            // t < 2·modulus: subtract the modulus once when t ≥ modulus, the choice made by mask.
            var borrow: UInt64 = 0
            for index in 0..<count {
                let (first, borrowed1) = t[index].subtractingReportingOverflow(modulus[index])
                let (second, borrowed2) = first.subtractingReportingOverflow(borrow)
                output[index] = second
                borrow = (borrowed1 ? 1 : 0) | (borrowed2 ? 1 : 0)
            }
            // Keep t (mask all ones) when it is below the modulus: no carry limb and a final borrow.
            let keep = (borrow & (((t[count] | (0 &- t[count])) >> 63) ^ 1)) &* UInt64.max
            for index in 0..<count {
                output[index] = (t[index] & keep) | (output[index] & ~keep)
            }
        }
    }

    /// a·b + c + d as (high, low); never overflows 128 bits.
    private static func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (UInt64, UInt64) {
        var (high, low) = a.multipliedFullWidth(by: b)
        var overflow: Bool
        (low, overflow) = low.addingReportingOverflow(c)
        high &+= overflow ? 1 : 0
        (low, overflow) = low.addingReportingOverflow(d)
        high &+= overflow ? 1 : 0
        return (high, low)
    }

    /// a − b over equal limb counts, with the final borrow (1 when a < b).
    private static func subtract(_ a: [UInt64], _ b: [UInt64]) -> ([UInt64], UInt64) {
        var result = a
        var borrow: UInt64 = 0
        for index in 0..<a.count {
            let (first, borrowed1) = a[index].subtractingReportingOverflow(b[index])
            let (second, borrowed2) = first.subtractingReportingOverflow(borrow)
            result[index] = second
            borrow = (borrowed1 ? 1 : 0) | (borrowed2 ? 1 : 0)
        }
        return (result, borrow)
    }

    /// 2·value mod modulus for value below the modulus.
    private static func doubleModulo(_ value: [UInt64], _ modulus: [UInt64]) -> [UInt64] {
        var doubled = value
        var carry: UInt64 = 0
        for index in 0..<value.count {
            doubled[index] = (value[index] << 1) | carry
            carry = value[index] >> 63
        }
        let (difference, borrow) = subtract(doubled, modulus)
        return (carry != 0 || borrow == 0) ? difference : doubled
    }
}

/// Conversions between big-endian byte strings (the wire form) and little-endian limbs.
enum Limbs {
    /// The limbs of a big-endian number, `count` limbs; nil when it does not fit.
    static func fromBigEndian(_ bytes: [UInt8], count: Int) -> [UInt64]? {
        let significant = bytes.drop { $0 == 0 }
        guard significant.count <= count * 8 else { return nil }
        var limbs = [UInt64](repeating: 0, count: count)
        for (offset, byte) in significant.reversed().enumerated() {
            limbs[offset / 8] |= UInt64(byte) << UInt64((offset % 8) * 8)
        }
        return limbs
    }

    /// The big-endian bytes of `limbs`, exactly `length` bytes (leading zeros kept).
    static func toBigEndian(_ limbs: [UInt64], length: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        for offset in 0..<min(length, limbs.count * 8) {
            bytes[length - 1 - offset] = UInt8(truncatingIfNeeded: limbs[offset / 8] >> UInt64((offset % 8) * 8))
        }
        return bytes
    }
}
