import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An ordinary desktop session's environment, so that the benchmarks run in a process whose
/// environment is as large as an app's: reading and parsing the environment on every call would
/// cost about a third of a read, which a benchmark process with a dozen variables does not show.
///
/// The variables are what a GNOME session on Debian typically exports; values are plausible,
/// not secret. Variables already set keep their values.
public enum RealisticEnvironment {
    /// At least this many variables after `fill()` (the GNOME session on Debian it was measured in had about 35).
    public static let minimumCount = 40

    private static let typical: [(String, String)] = [
        ("SHELL", "/bin/bash"), ("SESSION_MANAGER", "local/desktop:@/tmp/.ICE-unix/1802,unix/desktop:/tmp/.ICE-unix/1802"),
        ("QT_ACCESSIBILITY", "1"), ("COLORTERM", "truecolor"), ("XDG_CONFIG_DIRS", "/etc/xdg/xdg-gnome:/etc/xdg"),
        ("XDG_MENU_PREFIX", "gnome-"), ("GNOME_DESKTOP_SESSION_ID", "this-is-deprecated"), ("LANGUAGE", "en_US:en"),
        ("LC_ADDRESS", "en_US.UTF-8"), ("LC_NAME", "en_US.UTF-8"), ("LC_MONETARY", "en_US.UTF-8"),
        ("LC_PAPER", "en_US.UTF-8"), ("LC_IDENTIFICATION", "en_US.UTF-8"), ("LC_TELEPHONE", "en_US.UTF-8"),
        ("LC_MEASUREMENT", "en_US.UTF-8"), ("LC_TIME", "en_US.UTF-8"), ("LC_NUMERIC", "en_US.UTF-8"),
        ("SSH_AUTH_SOCK", "/run/user/1000/keyring/ssh"), ("XMODIFIERS", "@im=ibus"), ("DESKTOP_SESSION", "gnome"),
        ("GTK_MODULES", "gail:atk-bridge"), ("PWD", "/home/user"), ("LOGNAME", "user"), ("XDG_SESSION_DESKTOP", "gnome"),
        ("XDG_SESSION_TYPE", "wayland"), ("SYSTEMD_EXEC_PID", "1825"), ("XAUTHORITY", "/run/user/1000/.mutter-Xwaylandauth.4F2XZ1"),
        ("GJS_DEBUG_TOPICS", "JS ERROR;JS LOG"), ("HOME", "/home/user"), ("USERNAME", "user"), ("IM_CONFIG_PHASE", "1"),
        ("LANG", "en_US.UTF-8"), ("XDG_CURRENT_DESKTOP", "GNOME"), ("VTE_VERSION", "7006"), ("WAYLAND_DISPLAY", "wayland-0"),
        ("GNOME_TERMINAL_SCREEN", "/org/gnome/Terminal/screen/2c5a0f9e_5b5d_4c3e_9b1e_1f0c3a9e7d21"),
        ("GNOME_SETUP_DISPLAY", ":1"), ("XDG_SESSION_CLASS", "user"), ("TERM", "xterm-256color"), ("USER", "user"),
        ("GNOME_TERMINAL_SERVICE", ":1.112"), ("DISPLAY", ":0"), ("SHLVL", "1"), ("XDG_RUNTIME_DIR", "/run/user/1000"),
        ("GJS_DEBUG_OUTPUT", "stderr"), ("XDG_DATA_DIRS", "/usr/share/gnome:/usr/local/share/:/usr/share/"),
        ("PATH", "/home/user/.local/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games"),
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"), ("OLDPWD", "/home/user/src"), ("_", "/usr/bin/env"),
    ]

    /// Sets every typical variable that is not set yet; returns the number of variables now set.
    @discardableResult
    public static func fill() -> Int {
        for (name, value) in typical { setenv(name, value, 0) }
        return count
    }

    /// The number of variables in this process's environment.
    public static var count: Int {
        var total = 0
        var entry = environ
        while let pointer = entry.pointee {
            _ = pointer
            total += 1
            entry += 1
        }
        return total
    }
}
