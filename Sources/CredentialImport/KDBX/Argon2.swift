#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Argon2 version 0x13 (RFC 9106): Argon2d, Argon2i and Argon2id, the key derivation functions of
/// KDBX 4 databases (KeePassXC's default is Argon2d). Written from the RFC, on ``BLAKE2b``; checked
/// against the RFC's test vectors and Debian's `argon2` program.
package enum Argon2 {
    /// The variant: how reference blocks are chosen.
    package enum Variant: UInt32, Sendable {
        /// Data-dependent addressing.
        case argon2d = 0
        /// Data-independent addressing.
        case argon2i = 1
        /// Argon2i for the first half pass, Argon2d after.
        case argon2id = 2
    }

    /// The parameters: `memoryKiB` (m, at least 8 × lanes), `iterations` (t ≥ 1), `lanes` (p ≥ 1).
    package struct Parameters: Equatable, Sendable {
        package var variant: Variant
        package var memoryKiB: UInt32
        package var iterations: UInt32
        package var lanes: UInt32
        package var tagLength: Int

        package init(variant: Variant, memoryKiB: UInt32, iterations: UInt32, lanes: UInt32, tagLength: Int = 32) {
            self.variant = variant
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.lanes = lanes
            self.tagLength = tagLength
        }
    }

    /// Parameters outside what Argon2 allows, or beyond what this reader will spend.
    package struct InvalidParameters: Error, CustomStringConvertible {
        package let description: String
    }

    /// The largest memory cost accepted (4 GiB): a database names its own, and one asking for more
    /// must not make the importer allocate it.
    package static let maximumMemoryKiB: UInt32 = 4 * 1024 * 1024
    /// The most lanes accepted (RFC 9106 allows 2^24 - 1; KeePassXC offers up to the CPU count).
    package static let maximumLanes: UInt32 = 256
    /// The most passes accepted.
    package static let maximumIterations: UInt32 = 1 << 16

    private static let version: UInt32 = 0x13
    private static let syncPoints = 4
    private static let blockWords = 128

    /// The tag of `password` with `salt`, optional `secret` (K) and `associatedData` (X).
    package static func hash(password: [UInt8], salt: [UInt8], secret: [UInt8] = [], associatedData: [UInt8] = [],
                             parameters: Parameters) throws(InvalidParameters) -> [UInt8] {
        let lanes = Int(parameters.lanes)
        guard parameters.lanes >= 1, parameters.lanes <= maximumLanes else { throw InvalidParameters(description: "Argon2 lanes must be 1 to \(maximumLanes), not \(parameters.lanes)") }
        guard parameters.iterations >= 1, parameters.iterations <= maximumIterations else { throw InvalidParameters(description: "Argon2 iterations must be 1 to \(maximumIterations), not \(parameters.iterations)") }
        guard parameters.memoryKiB >= 8 * parameters.lanes else { throw InvalidParameters(description: "Argon2 memory must be at least 8 KiB per lane") }
        guard parameters.memoryKiB <= maximumMemoryKiB else { throw InvalidParameters(description: "Argon2 memory of \(parameters.memoryKiB) KiB is more than the \(maximumMemoryKiB) KiB this importer spends") }
        guard parameters.tagLength >= 4 else { throw InvalidParameters(description: "an Argon2 tag is at least 4 bytes") }
        guard salt.count >= 8 else { throw InvalidParameters(description: "an Argon2 salt is at least 8 bytes") }

        // H0 (RFC 9106 §3.2, step 1).
        var initial = BLAKE2b(digestLength: 64)
        for value in [parameters.lanes, UInt32(parameters.tagLength), parameters.memoryKiB, parameters.iterations, version, parameters.variant.rawValue] {
            initial.update(littleEndian(value))
        }
        for part in [password, salt, secret, associatedData] {
            initial.update(littleEndian(UInt32(part.count)))
            initial.update(part)
        }
        let h0 = initial.finalize()

        let segmentLength = Int(parameters.memoryKiB) / (syncPoints * lanes)
        let laneLength = segmentLength * syncPoints
        let blockCount = laneLength * lanes
        var memory = [UInt64](repeating: 0, count: blockCount * blockWords)

        for lane in 0..<lanes {
            for column in 0..<2 {
                let block = variableHash(h0 + littleEndian(UInt32(column)) + littleEndian(UInt32(lane)), length: 1024)
                let base = (lane * laneLength + column) * blockWords
                for word in 0..<blockWords { memory[base + word] = loadWord(block, word * 8) }
            }
        }

        var scratch = [UInt64](repeating: 0, count: blockWords)
        for pass in 0..<Int(parameters.iterations) {
            for slice in 0..<syncPoints {
                for lane in 0..<lanes {
                    fillSegment(&memory, &scratch, pass: pass, slice: slice, lane: lane, lanes: lanes, laneLength: laneLength,
                                segmentLength: segmentLength, blockCount: blockCount, parameters: parameters)
                }
            }
        }

        var final = [UInt64](repeating: 0, count: blockWords)
        for lane in 0..<lanes {
            let base = (lane * laneLength + laneLength - 1) * blockWords
            for word in 0..<blockWords { final[word] ^= memory[base + word] }
        }
        var finalBytes: [UInt8] = []
        finalBytes.reserveCapacity(1024)
        for word in final { finalBytes += littleEndian(word) }
        return variableHash(finalBytes, length: parameters.tagLength)
    }

    /// One segment of one lane (RFC 9106 §3.4).
    private static func fillSegment(_ memory: inout [UInt64], _ scratch: inout [UInt64], pass: Int, slice: Int, lane: Int, lanes: Int,
                                    laneLength: Int, segmentLength: Int, blockCount: Int, parameters: Parameters) {
        let independent = parameters.variant == .argon2i || (parameters.variant == .argon2id && pass == 0 && slice < 2)
        var input = [UInt64](repeating: 0, count: blockWords)
        var addresses = [UInt64](repeating: 0, count: blockWords)
        let zero = [UInt64](repeating: 0, count: blockWords)
        if independent {
            input[0] = UInt64(pass)
            input[1] = UInt64(lane)
            input[2] = UInt64(slice)
            input[3] = UInt64(blockCount)
            input[4] = UInt64(parameters.iterations)
            input[5] = UInt64(parameters.variant.rawValue)
        }
        func nextAddresses() {
            input[6] &+= 1
            var once = [UInt64](repeating: 0, count: blockWords)
            compress(zero, 0, input, 0, into: &once, 0, xorInto: false, scratch: &scratch)
            compress(zero, 0, once, 0, into: &addresses, 0, xorInto: false, scratch: &scratch)
        }
        var start = 0
        if pass == 0 && slice == 0 {
            start = 2
            if independent { nextAddresses() }
        }
        for index in start..<segmentLength {
            let column = slice * segmentLength + index
            let current = lane * laneLength + column
            let previous = column == 0 ? lane * laneLength + laneLength - 1 : current - 1
            let pseudoRandom: UInt64
            if independent {
                if index % blockWords == 0 { nextAddresses() }
                pseudoRandom = addresses[index % blockWords]
            } else {
                pseudoRandom = memory[previous * blockWords]
            }
            var referenceLane = Int((pseudoRandom >> 32) % UInt64(lanes))
            if pass == 0 && slice == 0 { referenceLane = lane }
            let sameLane = referenceLane == lane
            let areaSize: Int
            if pass == 0 {
                if slice == 0 {
                    areaSize = index - 1
                } else {
                    areaSize = sameLane ? slice * segmentLength + index - 1 : slice * segmentLength + (index == 0 ? -1 : 0)
                }
            } else {
                areaSize = sameLane ? laneLength - segmentLength + index - 1 : laneLength - segmentLength + (index == 0 ? -1 : 0)
            }
            let j1 = pseudoRandom & 0xFFFF_FFFF
            let x = (j1 &* j1) >> 32
            let y = (UInt64(areaSize) &* x) >> 32
            let relative = UInt64(areaSize) - 1 - y
            let startPosition = pass == 0 || slice == syncPoints - 1 ? 0 : (slice + 1) * segmentLength
            let referenceColumn = (startPosition + Int(relative)) % laneLength
            let reference = referenceLane * laneLength + referenceColumn
            compressInPlace(&memory, previous: previous, reference: reference, into: current, xorInto: pass > 0, scratch: &scratch)
        }
    }

    /// `memory[into] = G(memory[previous], memory[reference])` (XORed into the old block after the first pass).
    private static func compressInPlace(_ memory: inout [UInt64], previous: Int, reference: Int, into target: Int, xorInto: Bool,
                                        scratch: inout [UInt64]) {
        var r = [UInt64](repeating: 0, count: blockWords)
        for word in 0..<blockWords { r[word] = memory[previous * blockWords + word] ^ memory[reference * blockWords + word] }
        var z = r
        permute(&z)
        for word in 0..<blockWords {
            let value = z[word] ^ r[word]
            memory[target * blockWords + word] = xorInto ? memory[target * blockWords + word] ^ value : value
        }
    }

    /// `out = G(x, y)` for blocks held in separate arrays (address generation).
    private static func compress(_ x: [UInt64], _ xBase: Int, _ y: [UInt64], _ yBase: Int, into out: inout [UInt64], _ outBase: Int,
                                 xorInto: Bool, scratch: inout [UInt64]) {
        var r = [UInt64](repeating: 0, count: blockWords)
        for word in 0..<blockWords { r[word] = x[xBase + word] ^ y[yBase + word] }
        var z = r
        permute(&z)
        for word in 0..<blockWords {
            let value = z[word] ^ r[word]
            out[outBase + word] = xorInto ? out[outBase + word] ^ value : value
        }
    }

    /// P applied to the block's eight rows, then its eight columns (RFC 9106 §3.5-3.6).
    private static func permute(_ z: inout [UInt64]) {
        for row in 0..<8 {
            let b = row * 16
            round(&z, [b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9, b + 10, b + 11, b + 12, b + 13, b + 14, b + 15])
        }
        for column in 0..<8 {
            let b = column * 2
            round(&z, [b, b + 1, b + 16, b + 17, b + 32, b + 33, b + 48, b + 49, b + 64, b + 65, b + 80, b + 81, b + 96, b + 97, b + 112, b + 113])
        }
    }

    /// The permutation P on sixteen words of `z`, named by `i`.
    private static func round(_ z: inout [UInt64], _ i: [Int]) {
        func gb(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
            z[i[a]] = z[i[a]] &+ z[i[b]] &+ 2 &* (z[i[a]] & 0xFFFF_FFFF) &* (z[i[b]] & 0xFFFF_FFFF)
            z[i[d]] = BLAKE2b.rotateRight(z[i[d]] ^ z[i[a]], 32)
            z[i[c]] = z[i[c]] &+ z[i[d]] &+ 2 &* (z[i[c]] & 0xFFFF_FFFF) &* (z[i[d]] & 0xFFFF_FFFF)
            z[i[b]] = BLAKE2b.rotateRight(z[i[b]] ^ z[i[c]], 24)
            z[i[a]] = z[i[a]] &+ z[i[b]] &+ 2 &* (z[i[a]] & 0xFFFF_FFFF) &* (z[i[b]] & 0xFFFF_FFFF)
            z[i[d]] = BLAKE2b.rotateRight(z[i[d]] ^ z[i[a]], 16)
            z[i[c]] = z[i[c]] &+ z[i[d]] &+ 2 &* (z[i[c]] & 0xFFFF_FFFF) &* (z[i[d]] & 0xFFFF_FFFF)
            z[i[b]] = BLAKE2b.rotateRight(z[i[b]] ^ z[i[c]], 63)
        }
        gb(0, 4, 8, 12); gb(1, 5, 9, 13); gb(2, 6, 10, 14); gb(3, 7, 11, 15)
        gb(0, 5, 10, 15); gb(1, 6, 11, 12); gb(2, 7, 8, 13); gb(3, 4, 9, 14)
    }

    /// H' (RFC 9106 §3.3): a hash of any length from BLAKE2b.
    static func variableHash(_ input: [UInt8], length: Int) -> [UInt8] {
        let prefixed = littleEndian(UInt32(length)) + input
        if length <= 64 { return BLAKE2b.hash(prefixed, digestLength: length) }
        let r = (length + 31) / 32 - 2
        var v = BLAKE2b.hash(prefixed, digestLength: 64)
        var out = Array(v.prefix(32))
        for _ in 1..<r {
            v = BLAKE2b.hash(v, digestLength: 64)
            out += v.prefix(32)
        }
        out += BLAKE2b.hash(v, digestLength: length - 32 * r)
        return out
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> UInt32(8 * $0)) }
    }

    private static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
    }

    private static func loadWord(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        var word: UInt64 = 0
        for index in 0..<8 { word |= UInt64(bytes[offset + index]) << UInt64(8 * index) }
        return word
    }
}
