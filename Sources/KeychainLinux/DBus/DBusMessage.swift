/// A D-Bus message: a fixed header, header fields and a body, with the marshalling of the
/// specification's "message format" (always written little-endian; read in either order).
package struct DBusMessage: Equatable, Sendable {
    /// The four kinds of message.
    package enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    /// The header field codes this client uses.
    enum Field: UInt8 {
        case path = 1, interface, member, errorName, replySerial, destination, sender, signature, unixFDs
    }

    /// The largest message read (the specification's limit is 128 MiB; fprintd's and the Secret
    /// Service's calls are tiny): a larger one is skipped as it arrives, never held.
    package static let maximumLength = 1 << 24

    package var kind: Kind
    /// NO_REPLY_EXPECTED = 1, NO_AUTO_START = 2.
    package var flags: UInt8 = 0
    package var serial: UInt32 = 0
    package var path: String?
    package var interface: String?
    package var member: String?
    package var errorName: String?
    package var replySerial: UInt32?
    package var destination: String?
    package var sender: String?
    package var body: [DBusValue] = []
    /// How many Unix file descriptors the message declares it carries (its `UNIX_FDS` field).
    package var fileDescriptorCount: UInt32 = 0
    /// The descriptors a received message carries (its `h` values index them), or nil when it
    /// carries none. Closed when the message is released.
    package var fileDescriptors: DBusFileDescriptors?

    /// A method call of `interface.member` on `path` of `destination`.
    package static func call(destination: String, path: String, interface: String, member: String, body: [DBusValue] = []) -> DBusMessage {
        DBusMessage(kind: .methodCall, path: path, interface: interface, member: member, destination: destination, body: body)
    }

    /// The marshalled message, with `serial` as its serial number.
    func encoded(serial: UInt32) -> [UInt8] {
        var fields: [DBusValue] = []
        func add(_ field: Field, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(field.rawValue), .variant(value)])) }
        }
        add(.path, path.map(DBusValue.objectPath))
        add(.interface, interface.map(DBusValue.string))
        add(.member, member.map(DBusValue.string))
        add(.errorName, errorName.map(DBusValue.string))
        add(.replySerial, replySerial.map(DBusValue.uint32))
        add(.destination, destination.map(DBusValue.string))
        add(.sender, sender.map(DBusValue.string))
        let signature = body.map(\.signature).joined()
        if !signature.isEmpty { add(.signature, .signature(signature)) }
        if fileDescriptorCount > 0 { add(.unixFDs, .uint32(fileDescriptorCount)) }

        var bodyWriter = DBusWriter()
        for value in body { bodyWriter.write(value) }

        var header = DBusWriter()
        header.write(.byte(UInt8(ascii: "l")))
        header.write(.byte(kind.rawValue))
        header.write(.byte(flags))
        header.write(.byte(1))
        header.writeInteger(UInt32(truncatingIfNeeded: bodyWriter.bytes.count))
        header.writeInteger(serial)
        header.write(.array(elementSignature: "(yv)", fields))
        header.pad(to: 8)
        return header.bytes + bodyWriter.bytes
    }

    /// The total length of the message at the start of `bytes`, once its first 16 bytes are
    /// there; nil while fewer have arrived. Throws for a message larger than ``maximumLength``.
    static func length(ofMessageStartingIn bytes: [UInt8]) throws(DBusFailure) -> Int? {
        guard let declared = try declaredLength(ofMessageStartingIn: bytes) else { return nil }
        guard declared.total <= maximumLength else {
            throw .protocolViolation("a message larger than this client accepts")
        }
        return declared.total
    }

    /// The lengths the fixed header of the message at the start of `bytes` declares (its header
    /// with the fields and padding, and the whole message), whatever their size; nil while fewer
    /// than 16 bytes have arrived. A reader uses them to skip a message too large to take in.
    static func declaredLength(ofMessageStartingIn bytes: [UInt8]) throws(DBusFailure) -> (header: Int, total: Int)? {
        guard bytes.count >= 16 else { return nil }
        let littleEndian: Bool
        switch bytes[0] {
        case UInt8(ascii: "l"): littleEndian = true
        case UInt8(ascii: "B"): littleEndian = false
        default: throw .protocolViolation("an unknown byte order")
        }
        var reader = DBusReader(Array(bytes[0..<16]), littleEndian: littleEndian, offset: 4)
        let bodyLength = Int(try reader.integer() as UInt32)
        _ = try reader.integer() as UInt32
        let fieldsLength = Int(try reader.integer() as UInt32)
        let headerLength = (16 + fieldsLength + 7) / 8 * 8
        return (headerLength, headerLength + bodyLength)
    }

}

extension DBusMessage {
    /// A message of `kind` with the given header fields and body.
    package init(kind: Kind, path: String? = nil, interface: String? = nil, member: String? = nil,
                 errorName: String? = nil, replySerial: UInt32? = nil, destination: String? = nil,
                 body: [DBusValue] = []) {
        self.init(kind: kind, flags: 0, serial: 0, path: path, interface: interface, member: member,
                  errorName: errorName, replySerial: replySerial, destination: destination, sender: nil, body: body)
    }

    /// Decodes one whole message (exactly `length(ofMessageStartingIn:)` bytes).
    init(decoding bytes: [UInt8]) throws(DBusFailure) {
        try self.init(decoding: bytes, readingBody: true)
    }

    /// Decodes one whole message; with `readingBody` false only its header (the body is left
    /// empty), so that a peer whose body does not decode can still be answered.
    init(decoding bytes: [UInt8], readingBody: Bool) throws(DBusFailure) {
        guard let total = try Self.length(ofMessageStartingIn: bytes), total == bytes.count else {
            throw .protocolViolation("a message of the wrong length")
        }
        let (header, read) = try Self.readHeader(of: bytes)
        self = header
        var reader = read
        guard reader.offset + reader.bodyLength == bytes.count else { throw .protocolViolation("a body of the wrong length") }
        guard readingBody else { return }
        body = try reader.values.readAll(signature: reader.signature)
        guard reader.values.isAtEnd else { throw .protocolViolation("a body longer than its signature") }
    }

    /// Decodes the header of a message from `bytes`, which hold at least its header (the fixed
    /// part and the fields, as ``declaredLength(ofMessageStartingIn:)`` gives) but not
    /// necessarily its body: the body is left empty. For answering a message too large to read.
    init(decodingHeaderOf bytes: [UInt8]) throws(DBusFailure) {
        guard let declared = try Self.declaredLength(ofMessageStartingIn: bytes), declared.header <= bytes.count else {
            throw .protocolViolation("a truncated header")
        }
        self = try Self.readHeader(of: Array(bytes[0..<declared.header])).message
    }

    /// What reading a header leaves: the reader positioned at the body, the body's declared
    /// length and signature.
    private struct HeaderRead {
        var values: DBusReader
        var offset: Int { values.offset }
        let bodyLength: Int
        let signature: String
    }

    /// Reads the fixed header and the fields of `bytes`: the message without its body, and where its body starts.
    private static func readHeader(of bytes: [UInt8]) throws(DBusFailure) -> (message: DBusMessage, read: HeaderRead) {
        guard bytes.count >= 16 else { throw .protocolViolation("a truncated header") }
        let littleEndian = bytes[0] == UInt8(ascii: "l")
        guard let kind = Kind(rawValue: bytes[1]) else { throw .protocolViolation("an unknown message type") }
        guard bytes[3] == 1 else { throw .protocolViolation("an unknown protocol version") }
        var reader = DBusReader(bytes, littleEndian: littleEndian, offset: 4)
        let bodyLength = Int(try reader.integer() as UInt32)
        let serial: UInt32 = try reader.integer()
        guard serial != 0 else { throw .protocolViolation("a message with serial 0") }
        guard case .array(_, let fields) = try reader.read(type: Array("a(yv)".utf8)[...], depth: 0) else {
            throw .protocolViolation("malformed header fields")
        }
        try reader.align(8)

        var message = DBusMessage(kind: kind, flags: bytes[2], serial: serial)
        var signature = ""
        for field in fields {
            guard case .structure(let pair) = field, pair.count == 2, case .byte(let code) = pair[0],
                  case .variant(let value) = pair[1] else { throw .protocolViolation("a malformed header field") }
            switch Field(rawValue: code) {
            case .path: message.path = value.text
            case .interface: message.interface = value.text
            case .member: message.member = value.text
            case .errorName: message.errorName = value.text
            case .replySerial: message.replySerial = value.uint32
            case .destination: message.destination = value.text
            case .sender: message.sender = value.text
            case .signature:
                guard case .signature(let text) = value else { throw .protocolViolation("a malformed signature field") }
                signature = text
            case .unixFDs:
                guard let count = value.uint32 else { throw .protocolViolation("a malformed UNIX_FDS field") }
                message.fileDescriptorCount = count
            case nil: continue  // Unknown fields must be ignored.
            }
        }
        return (message, HeaderRead(values: reader, bodyLength: bodyLength, signature: signature))
    }
}
