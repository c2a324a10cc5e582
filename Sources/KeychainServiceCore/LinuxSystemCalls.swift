#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The Linux system calls the service needs that Swift cannot call by name: glibc's `syscall(2)`
/// and `prctl(2)` are variadic, and `pidfd_open`, `pidfd_send_signal` and `capset` are not
/// imported. Each is looked up with `dlsym` and called through a fixed-arity C pointer (on the
/// Linux ABIs listed, integer arguments travel in the same registers either way).
enum LinuxSystemCalls {
    private typealias SyscallFunction = @convention(c) (Int, Int, Int, Int, Int, Int, Int) -> Int
    private typealias PrctlFunction = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32

    #if arch(x86_64)
    private static let capsetNumber = 126
    #else
    private static let capsetNumber = 91  // the generic table (arm64, riscv64)
    #endif
    private static let pidfdOpenNumber = 434, pidfdSendSignalNumber = 424
    #if arch(x86_64)
    private static let processVMReadvNumber = 310
    #else
    private static let processVMReadvNumber = 270  // the generic table (arm64, riscv64)
    #endif

    private static let syscallFunction: SyscallFunction? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syscall") else { return nil }
        return unsafeBitCast(symbol, to: SyscallFunction.self)
    }()

    private static let prctlFunction: PrctlFunction? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return nil }
        return unsafeBitCast(symbol, to: PrctlFunction.self)
    }()

    /// `pidfd_open(pid, 0)`: a descriptor that keeps naming this process, never a later one with
    /// the same number; nil (with `errno`) when it is gone or the call is missing.
    static func pidfdOpen(_ pid: Int32) -> Int32? {
        guard let call = syscallFunction else { return nil }
        let descriptor = call(pidfdOpenNumber, Int(pid), 0, 0, 0, 0, 0)
        return descriptor >= 0 ? Int32(descriptor) : nil
    }

    /// Whether the process `pidfd` names has not exited (`pidfd_send_signal(pidfd, 0, NULL, 0)`:
    /// `ESRCH` once it exited; `EPERM` means it lives but belongs to a user we may not signal).
    static func isAlive(pidfd: Int32) -> Bool {
        guard let call = syscallFunction else { return false }
        return call(pidfdSendSignalNumber, Int(pidfd), 0, 0, 0, 0, 0) == 0 || errno == EPERM
    }

    /// `process_vm_readv(2)` of `buffer.count` bytes at `address` in process `pid` into `buffer`:
    /// the bytes copied, or -1 (with `errno`). Needs ptrace access to the process
    /// (`PTRACE_MODE_ATTACH_REALCREDS`), not read permission on any of its `/proc` files.
    static func readMemory(pid: Int32, address: UInt, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let call = syscallFunction, let base = buffer.baseAddress else { return -1 }
        var local = iovec(iov_base: base, iov_len: buffer.count)
        var remote = iovec(iov_base: UnsafeMutableRawPointer(bitPattern: address), iov_len: buffer.count)
        return withUnsafeMutablePointer(to: &local) { localPointer in
            withUnsafeMutablePointer(to: &remote) { remotePointer in
                call(processVMReadvNumber, Int(pid), Int(bitPattern: localPointer), 1, Int(bitPattern: remotePointer), 1, 0)
            }
        }
    }

    /// `prctl(option, argument)`; whether it succeeded.
    static func prctl(_ option: Int32, _ argument: UInt) -> Bool {
        guard let prctlFunction else { return false }
        return prctlFunction(option, argument, 0, 0, 0) == 0
    }

    static let setDumpable: Int32 = 4, getDumpable: Int32 = 3, setKeepCapabilities: Int32 = 8

    /// `prctl(PR_GET_DUMPABLE)`, or nil when it failed.
    static func dumpable() -> Int32? {
        guard let prctlFunction else { return nil }
        let value = prctlFunction(getDumpable, 0, 0, 0, 0)
        return value >= 0 ? value : nil
    }

    /// Sets this thread's effective and permitted capabilities to exactly `capabilities` (bit
    /// numbers), none inheritable (`capset` with `_LINUX_CAPABILITY_VERSION_3`).
    static func keepOnlyCapabilities(_ capabilities: [Int]) -> Bool {
        guard let call = syscallFunction else { return false }
        var mask: (UInt32, UInt32) = (0, 0)
        for capability in capabilities {
            if capability < 32 { mask.0 |= 1 << UInt32(capability) } else { mask.1 |= 1 << UInt32(capability - 32) }
        }
        var header: (UInt32, Int32) = (0x2008_0522, 0)
        // Two structs of { effective, permitted, inheritable }.
        var data: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (mask.0, mask.0, 0, mask.1, mask.1, 0)
        return withUnsafeMutablePointer(to: &header) { headerPointer in
            withUnsafeMutablePointer(to: &data) { dataPointer in
                call(capsetNumber, Int(bitPattern: headerPointer), Int(bitPattern: dataPointer), 0, 0, 0, 0) == 0
            }
        }
    }

    /// `CAP_SYS_PTRACE`: what reading another user's `/proc/<pid>/exe` needs.
    static let capabilitySysPtrace = 19
    /// `CAP_IPC_LOCK`: locking memory past `RLIMIT_MEMLOCK`.
    static let capabilityIPCLock = 14

    /// The resource limits the service raises, as `getrlimit`/`setrlimit` take them (Glibc
    /// imports `RLIMIT_MEMLOCK` only as the enum's `__RLIMIT_MEMLOCK`).
    static let openFilesLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    static let lockedMemoryLimit = __rlimit_resource_t(__RLIMIT_MEMLOCK.rawValue)
}
