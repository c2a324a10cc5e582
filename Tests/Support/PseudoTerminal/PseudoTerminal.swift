import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal for tests: a real program (pinentry-tty, keychainctl) draws on its terminal
/// side as if a person sat at it, and the test reads the controlling side (to wait for a prompt)
/// and writes it (to type an answer). Shared by the KeychainServices and keychainctl tests.
public final class PseudoTerminal: @unchecked Sendable {
    private let controller: Int32
    /// The terminal side's device (`/dev/pts/N`), for a program to open as its terminal.
    public let devicePath: String
    private var terminalSide: Int32 = -1
    private let lock = NSLock()
    private var screen = Data()

    /// Linux ioctl numbers (asm-generic): TIOCSPTLCK = _IOW('T', 0x31, int), TIOCGPTN = _IOR('T', 0x30, unsigned).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430

    /// Opens a new pseudo-terminal and starts recording what is drawn on it.
    public init() throws {
        // posix_openpt/ptsname are hidden by the Glibc module; the ioctls are what they wrap.
        controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard controller >= 0, ioctl(controller, Self.setLock, &unlock) == 0,
              ioctl(controller, Self.getNumber, &number) == 0
        else {
            throw CocoaError(.fileNoSuchFile)
        }
        devicePath = "/dev/pts/\(number)"
        // Keep the terminal side open ourselves: on Linux, reading the controlling side while no
        // process has the terminal open fails with EIO, which would end the reader between prompts.
        terminalSide = open(devicePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        let fd = controller
        Thread.detachNewThread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { return }
                guard let self else { return }
                self.lock.withLock { self.screen.append(contentsOf: buffer[0..<count]) }
            }
        }
    }

    deinit {
        close(terminalSide)
        close(controller)
    }

    /// Everything drawn so far (output, prompts and any echo).
    public var text: String { lock.withLock { String(decoding: screen, as: UTF8.self) } }

    /// Waits (up to 60 s) until the screen has shown `marker` `occurrence` times, then types `input`.
    public func answer(after marker: String, occurrence: Int = 1, with input: String) -> Bool {
        // Only a bound for a prompt that never comes: on a loaded 2-core machine running the whole
        // suite, a prompt has taken over 10 s to be drawn, and a late answer fails its test.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if text.components(separatedBy: marker).count - 1 >= occurrence {
                let bytes = Array(input.utf8)
                return write(controller, bytes, bytes.count) == bytes.count
            }
            usleep(20_000)
        }
        return false
    }
}
