import CFuzzDriver
import Foundation
@testable import KeychainSync

/// A stream that hands out a fixed response in pieces of a chosen size, then ends.
final class ScriptedStream: ByteStream {
    private var remaining: Data
    private let pieceSize: Int

    init(_ response: Data, pieceSize: Int) {
        remaining = response
        self.pieceSize = pieceSize
    }

    func write(_ data: Data) throws(EtcdError) {}

    func read(deadline: ContinuousClock.Instant?) throws(EtcdError) -> Data {
        let piece = Data(remaining.prefix(pieceSize))
        remaining.removeFirst(piece.count)
        return piece
    }
}

/// Small limits, so that inputs of a few KiB reach every bound.
let limits = HTTPLimits(line: 256, head: 2048, body: 4096, chunk: 1024, watchMessage: 4096)

/// The first byte chooses how the bytes arrive (pieces of 1 to 256 bytes); the rest is a response
/// as etcd (or anyone on the path) could send it, parsed as `EtcdClient` parses one: head, then
/// the body by Content-Length, chunks or the end of the stream. Whatever is accepted must respect
/// every limit: no chunk over the chunk limit, nothing buffered past a line, a chunk and a read,
/// and a Content-Length body exactly as long as announced.
func fuzzHTTPResponse(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes, count > 0 else { return 0 }
    let pieceSize = Int(bytes[0]) + 1
    let stream = ScriptedStream(Data(bytes: bytes + 1, count: count - 1), pieceSize: pieceSize)
    var reader = ResponseReader(stream: stream, deadline: .now + .seconds(60), limits: limits)
    let head: ResponseReader.Head
    do {
        head = try reader.readHead()
    } catch {
        return 0  // rejection is an expected outcome
    }
    guard (100...599).contains(head.status) else { fatalError("a status outside 100...599 was accepted") }
    var body = Data()
    do {
        if head.isChunked {
            // Chunk by chunk, to check what the reader holds after each one.
            while let chunk = try reader.readChunk() {
                guard chunk.count <= limits.chunk else { fatalError("a chunk of \(chunk.count) bytes, over the limit, was accepted") }
                guard reader.pending.count <= limits.chunk + limits.line + pieceSize + 2 else {
                    fatalError("the reader buffered \(reader.pending.count) bytes, past its limits")
                }
                body.append(chunk)
                if body.count > limits.body { break }
            }
        } else {
            try HTTPExchange.readBody(head, from: &reader) { piece in
                body.append(piece)
                return body.count <= limits.body
            }
        }
    } catch {
        return 0  // rejection is an expected outcome
    }
    if !head.isChunked, let length = head.contentLength, body.count <= limits.body, body.count != length {
        fatalError("a Content-Length body of \(body.count) bytes was accepted for \(length) announced")
    }
    return 0
}

@main
struct FuzzHTTPResponseMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzHTTPResponse(bytes, count) })
    }
}
