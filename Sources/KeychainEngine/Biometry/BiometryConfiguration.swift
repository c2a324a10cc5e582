/// Where and how to reach fprintd, the Linux fingerprint service, for biometric authentication.
package struct BiometryConfiguration: Sendable, Equatable {
    /// The D-Bus address of the bus fprintd is on (normally the system bus).
    package var busAddress: String
    /// Seconds each D-Bus call (and connecting) may take before the service counts as absent.
    package var callTimeout: Double
    /// Seconds a fingerprint verification waits for a finger before it is cancelled.
    package var verifyTimeout: Double
    /// Scans that may fail to match before the verification fails.
    package var attempts: Int

    /// A configuration for the bus at `busAddress`.
    package init(busAddress: String, callTimeout: Double = 5, verifyTimeout: Double = 30, attempts: Int = 3) {
        self.busAddress = busAddress
        self.callTimeout = callTimeout
        self.verifyTimeout = verifyTimeout
        self.attempts = attempts
    }

    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS` if set, else `unix:path=/run/dbus/system_bus_socket`.
    package static func fromEnvironment() -> BiometryConfiguration {
        BiometryConfiguration(busAddress: SystemFacilities.systemBusAddress)
    }
}
