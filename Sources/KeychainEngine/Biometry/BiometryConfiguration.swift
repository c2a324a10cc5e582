/// Where and how to reach fprintd, the Linux fingerprint service, for biometric authentication.
public struct BiometryConfiguration: Sendable, Equatable {
    /// The D-Bus address of the bus fprintd is on (normally the system bus).
    public var busAddress: String
    /// Seconds each D-Bus call (and connecting) may take before the service counts as absent.
    public var callTimeout: Double
    /// Seconds a fingerprint verification waits for a finger before it is cancelled.
    public var verifyTimeout: Double
    /// Scans that may fail to match before the verification fails.
    public var attempts: Int

    /// A configuration for the bus at `busAddress`.
    public init(busAddress: String, callTimeout: Double = 5, verifyTimeout: Double = 30, attempts: Int = 3) {
        self.busAddress = busAddress
        self.callTimeout = callTimeout
        self.verifyTimeout = verifyTimeout
        self.attempts = attempts
    }

    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS` if set, else `unix:path=/run/dbus/system_bus_socket`.
    public static func fromEnvironment() -> BiometryConfiguration {
        BiometryConfiguration(busAddress: SystemFacilities.systemBusAddress)
    }
}
