import Testing

/// Tags of the suites that start an external program. Every suite or test that runs a program
/// from ``RequiredTool`` is in the integration tier: it carries the `.integration` trait
/// (``IntegrationTier``), `.external` (what `scripts/test` selects that tier by) and the tag of
/// what it runs: `.integration, .tags(.external, .etcd)`.
extension Tag {
    /// Runs a program outside the Swift toolchain (all the tags below imply it).
    @Tag public static var external: Self
    /// A real etcd cluster (etcd-server, etcd-client).
    @Tag public static var etcd: Self
    /// fprintd with libfprint's virtual reader and python3-dbusmock's polkit.
    @Tag public static var fprintd: Self
    /// gnome-keyring-daemon, the reference Secret Service provider.
    @Tag public static var gnomeKeyring: Self
    /// KWallet's kwalletd5, writing real wallet files.
    @Tag public static var kwallet: Self
    /// A private dbus-daemon.
    @Tag public static var dbus: Self
    /// The real pinentry-tty.
    @Tag public static var pinentry: Self
    /// The openssl command.
    @Tag public static var openssl: Self
    /// git (and git's libsecret helper, built with gcc and pkg-config).
    @Tag public static var git: Self
    /// Debian's python3 with keyring, secretstorage and jeepney.
    @Tag public static var python: Self
    /// A software TPM 2.0 (swtpm) and tpm2-tools.
    @Tag public static var tpm: Self
}
